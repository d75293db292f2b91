-- Retention of the processed marks (libs/events/src/retention.ts) deletes those recorded before a
-- cut-off in batches of LIMIT rows: without an index on processed_at every batch scans the table.
CREATE INDEX IF NOT EXISTS processed_events_processed_at ON pool.processed_events (processed_at);
