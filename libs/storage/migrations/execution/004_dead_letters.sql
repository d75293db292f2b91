-- Dead letters: one table shape in every service schema (libs/events dead-letters.ts writes and
-- reads it). An event is set aside here, with its error, when the outbox relay cannot publish it
-- (too large for the bus, or refused again and again while the bus is healthy), when it is too
-- large to enter the outbox at all, or when a durable consumer's handler keeps failing on it
-- (draft-zhou §6.2 event flow: no single event may stop the ones behind it). Nothing is lost:
-- operators list them, retry them into the flow or discard them (DeadLetterService,
-- JSON-RPC list_dead_letters, `parley dead-letters`).
CREATE TABLE execution.dead_letters (
  id          bigserial PRIMARY KEY,
  -- 'outbox': set aside by this service's outbox relay or its insert guard (never published);
  -- 'consumer': set aside by the durable consumer named in `consumer` (received, not applied).
  source      text NOT NULL CHECK (source IN ('outbox', 'consumer')),
  consumer    text,
  event_id    uuid NOT NULL,
  event_type  text NOT NULL,
  scenario_id text NOT NULL,
  subject     text,
  -- The whole envelope as it was to be published or was received.
  event       json NOT NULL,
  event_bytes integer NOT NULL,
  error       text NOT NULL,
  attempts    integer NOT NULL,
  dead_at     timestamptz NOT NULL,
  status      text NOT NULL DEFAULT 'dead' CHECK (status IN ('dead', 'retried', 'discarded')),
  resolved_at timestamptz,
  resolved_by text,
  note        text,
  CHECK ((source = 'consumer') = (consumer IS NOT NULL))
);
CREATE INDEX dead_letters_status ON execution.dead_letters (status, id);
