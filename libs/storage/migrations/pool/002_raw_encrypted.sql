-- Raw fragments at rest (draft-zhou §7: personal information is protected "at
-- rest"). From here on pool.inputs.raw_text holds a sealed envelope
-- (libs/runtime seal.ts: AES-256-GCM, `psl1.<key id>.<iv>.<data>`, bound to the
-- row's event_id and fragment_index), never the text itself. It may be NULL:
-- raw fragments are not stored (PARLEY_STORE_RAW_FRAGMENTS=false), or their
-- retention (PARLEY_RAW_RETENTION_DAYS) ran out. The sanitised text and the
-- vector stay: a replay never needs the raw text.
--
-- raw_sealed tells a sealed envelope from a row written before this migration
-- (plaintext); the service seals those rows (or clears them, when raw fragments
-- are not stored) when it starts, before it serves.
ALTER TABLE pool.inputs ALTER COLUMN raw_text DROP NOT NULL;
ALTER TABLE pool.inputs ADD COLUMN raw_sealed boolean NOT NULL DEFAULT false;
-- The retention sweep: rows that still hold raw text, by capture time.
CREATE INDEX inputs_raw_retention ON pool.inputs (at_ms) WHERE raw_text IS NOT NULL;
