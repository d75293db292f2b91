-- Schema patches as the evolution service publishes them (draft-zhou §6.2.2 Patch Packaging,
-- Personalized Adaptation; §6.2.3 key lifecycle). Negotiation keeps the latest revision of
-- each patch, fed by its durable `patch.*` / `key.*` consumer, and serves effective
-- templates (base + active global patches + the client's own) from it.
CREATE TABLE negotiation.patches (
  patch_id         text PRIMARY KEY,
  -- Canonical scenario id of the patch (its subject's scenario).
  scenario_id      text NOT NULL,
  -- The base schema_id the patch extends (§6.2.2 "parent_schema_id").
  parent_schema_id text NOT NULL,
  -- NULL: a global patch; otherwise the one client it belongs to (§6.2.2 per-client patch stacks).
  scope_client     text,
  -- 'proposed' | 'active' | 'rejected': only active patches are served.
  status           text NOT NULL,
  -- Monotonic per patch: an event carrying a revision <= this one changes nothing.
  revision         integer NOT NULL,
  -- The whole PatchDocument of the newest revision (libs/events PatchDocument, epoch-ms times).
  document         jsonb NOT NULL,
  updated_at       timestamptz NOT NULL
);
CREATE INDEX patches_parent ON negotiation.patches (parent_schema_id, scenario_id, status);

-- Idempotency: an event id the patch consumer has applied, written in the same transaction as its effect.
CREATE TABLE IF NOT EXISTS negotiation.processed_events (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
