-- Negotiation: base schema templates, immutable and versioned per agent namespace
-- (draft-zhou §4.1: schema_id unique within the server agent's namespace; §6.2.2: base schema immutable).
CREATE TABLE negotiation.schemas (
  agent            text NOT NULL,
  schema_id        text NOT NULL,
  scenario         text NOT NULL,
  scenario_id      text NOT NULL,
  version          integer NOT NULL,
  default_language text NOT NULL,
  response_schema  json,
  published_at     timestamptz NOT NULL,
  PRIMARY KEY (agent, schema_id),
  UNIQUE (agent, scenario_id, version)
);
CREATE INDEX schemas_schema_id ON negotiation.schemas (schema_id);
CREATE INDEX schemas_scenario ON negotiation.schemas (scenario_id, version DESC);

-- One row per language variant (§4.2 multilingual annotations). `json`, not `jsonb`:
-- the template is served back with its members in the order they were published.
CREATE TABLE negotiation.schema_variants (
  agent         text NOT NULL,
  schema_id     text NOT NULL,
  language      text NOT NULL,
  template      json NOT NULL,
  template_hash text NOT NULL,
  published_at  timestamptz NOT NULL,
  PRIMARY KEY (agent, schema_id, language),
  FOREIGN KEY (agent, schema_id) REFERENCES negotiation.schemas (agent, schema_id)
);

-- Published versions never change: the database refuses it too.
CREATE FUNCTION negotiation.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'published schema versions are immutable (%.%)', TG_TABLE_SCHEMA, TG_TABLE_NAME;
END $$;
CREATE TRIGGER schemas_immutable BEFORE UPDATE OR DELETE ON negotiation.schemas
  FOR EACH ROW EXECUTE FUNCTION negotiation.refuse_change();
CREATE TRIGGER schema_variants_immutable BEFORE UPDATE OR DELETE ON negotiation.schema_variants
  FOR EACH ROW EXECUTE FUNCTION negotiation.refuse_change();
