-- Retention of the dead letters deletes those an operator resolved (retried, discarded) before a
-- cut-off, oldest resolution first; open ones ('dead') are never deleted and are not in the index.
-- Migrations run in a transaction, so these are plain CREATE INDEX, which hold writes to the table
-- while they build: with a large table, create them first with CREATE INDEX CONCURRENTLY IF NOT EXISTS
-- (same name and definition) and the migration finds them. A concurrent build that failed leaves an
-- INVALID index of that name, which IF NOT EXISTS would take as done: it is dropped and built here.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'negotiation' AND c.relname = 'dead_letters_resolved_at' AND NOT i.indisvalid) THEN
    DROP INDEX negotiation.dead_letters_resolved_at;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS dead_letters_resolved_at ON negotiation.dead_letters (resolved_at) WHERE status <> 'dead';
