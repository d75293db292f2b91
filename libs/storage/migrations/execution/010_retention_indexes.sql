-- Retention of the outbox (libs/events/src/retention.ts) deletes rows published before a cut-off in
-- batches of LIMIT rows, oldest publication first: without an index on published_at every batch
-- scans the table, even when nothing is due. Partial: pending rows (published_at NULL) are not in it.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'execution' AND c.relname = 'outbox_published_at' AND NOT i.indisvalid) THEN
    DROP INDEX execution.outbox_published_at;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS outbox_published_at ON execution.outbox (published_at, seq) WHERE published_at IS NOT NULL;
-- Retention of the dead letters deletes those an operator resolved (retried, discarded) before a
-- cut-off, oldest resolution first; open ones ('dead') are never deleted and are not in the index.
-- Migrations run in a transaction, so these are plain CREATE INDEX, which hold writes to the table
-- while they build: with a large table, create them first with CREATE INDEX CONCURRENTLY IF NOT EXISTS
-- (same name and definition) and the migration finds them. A concurrent build that failed leaves an
-- INVALID index of that name, which IF NOT EXISTS would take as done: it is dropped and built here.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'execution' AND c.relname = 'dead_letters_resolved_at' AND NOT i.indisvalid) THEN
    DROP INDEX execution.dead_letters_resolved_at;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS dead_letters_resolved_at ON execution.dead_letters (resolved_at) WHERE status <> 'dead';
