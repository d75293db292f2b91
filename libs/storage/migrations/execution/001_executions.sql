-- Execution: one row per executed payload. Payload values are not stored, only
-- which keys were present (the inputs of draft-zhou §6.2.3's metrics).
CREATE TABLE execution.executions (
  id               uuid PRIMARY KEY,
  agent            text NOT NULL,
  schema_id        text NOT NULL,
  scenario_id      text NOT NULL,
  client_id        text NOT NULL,
  keys_present     text[] NOT NULL,
  defaults_applied text[] NOT NULL,
  other_fragments  integer NOT NULL,
  duration_ms      integer NOT NULL,
  executed_at      timestamptz NOT NULL
);
CREATE INDEX executions_scenario ON execution.executions (scenario_id, executed_at);

-- Transactional outbox: events are written here in the transaction of the state
-- change that caused them; the relay publishes them to JetStream (msg id = id)
-- and marks them published. Nothing acknowledged is lost while NATS is down.
CREATE TABLE execution.outbox (
  seq          bigserial PRIMARY KEY,
  id           uuid NOT NULL UNIQUE,
  subject      text NOT NULL,
  event        json NOT NULL,
  created_at   timestamptz NOT NULL,
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX outbox_pending ON execution.outbox (seq) WHERE published_at IS NULL;
