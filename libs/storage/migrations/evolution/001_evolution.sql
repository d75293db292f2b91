-- Patch packaging and evaluation (draft-zhou §6.2.2, §6.2.3). The evolver's
-- state (patches, key counters, the convergence queue, every decision with its
-- figures) is a deterministic fold of these inputs in seq order; the service
-- replays them on start. Each matured input stores the induction result it
-- was applied with, so a replay never asks an LLM again.
CREATE TABLE evolution.inputs (
  seq       bigserial PRIMARY KEY,
  -- The event that caused the input, when one did (idempotency is by processed_events).
  event_id  uuid,
  kind      text NOT NULL CHECK (kind IN ('base', 'matured', 'execution', 'audit', 'tick', 'approve', 'reject', 'pin')),
  at_ms     bigint NOT NULL,
  body      jsonb NOT NULL
);

-- §6.2.3 audit sampler: sampled uses of patch keys, judged by an LLM judge or an operator.
CREATE TABLE evolution.audit_samples (
  sample_id    uuid PRIMARY KEY,
  patch_id     text NOT NULL,
  key_name     text NOT NULL,
  scenario_id  text NOT NULL,
  client_id    text NOT NULL,
  execution_id uuid NOT NULL,
  at_ms        bigint NOT NULL,
  value        jsonb,
  utterance    text,
  verdict      text NOT NULL DEFAULT 'pending' CHECK (verdict IN ('pending', 'aligned', 'misaligned')),
  judged_by    text,
  judged_at_ms bigint,
  note         text
);
CREATE INDEX audit_samples_scenario ON evolution.audit_samples (scenario_id, verdict, at_ms);

CREATE TABLE evolution.processed_events (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

CREATE TABLE evolution.outbox (
  seq          bigserial PRIMARY KEY,
  id           uuid NOT NULL UNIQUE,
  subject      text NOT NULL,
  event        json NOT NULL,
  created_at   timestamptz NOT NULL,
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX outbox_pending ON evolution.outbox (seq) WHERE published_at IS NULL;
