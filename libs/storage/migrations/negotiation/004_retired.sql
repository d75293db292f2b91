-- Retired schemas: a published version stays as it was (immutable, draft-zhou §6.2.2) and is marked here;
-- negotiation no longer serves it and execution refuses its schema_id. Publishing it again deletes the mark.
CREATE TABLE negotiation.retired_schemas (
  agent      text NOT NULL,
  schema_id  text NOT NULL,
  retired_at timestamptz NOT NULL,
  retired_by text NOT NULL DEFAULT '',
  reason     text NOT NULL DEFAULT '',
  PRIMARY KEY (agent, schema_id),
  FOREIGN KEY (agent, schema_id) REFERENCES negotiation.schemas (agent, schema_id)
);
