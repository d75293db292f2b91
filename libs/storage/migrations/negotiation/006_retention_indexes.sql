-- Retention of the dead letters deletes those an operator resolved (retried, discarded) before a
-- cut-off, oldest resolution first; open ones ('dead') are never deleted and are not in the index.
-- Migrations run in a transaction, so these are plain CREATE INDEX, which hold writes to the table
-- while they build: with a large table, create them first with CREATE INDEX CONCURRENTLY IF NOT EXISTS
-- (same name and definition) and the migration finds them.
CREATE INDEX IF NOT EXISTS dead_letters_resolved_at ON negotiation.dead_letters (resolved_at) WHERE status <> 'dead';
