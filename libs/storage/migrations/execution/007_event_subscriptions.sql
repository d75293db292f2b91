-- Operators' webhooks for schema self-evolution events (draft-zhou §6.2; OSS integration):
-- patch.*, key.* and pool.matured of a scenario (or of every scenario, '*'), delivered by the
-- same webhook deliverer as AN task notifications (apps/execution/src/tasks/webhooks.ts: URL
-- allow-list, Standard Webhooks signatures, order, bounded retries, leases), so the delivery
-- state columns are those of execution.subscriptions. A durable consumer queues each matching
-- event for each subscription (event_deliveries, seq 1, 2, ... per subscription) in the
-- transaction that records the event as processed; a delivered row is dropped.
CREATE TABLE execution.event_subscriptions (
  id              uuid PRIMARY KEY,
  scenario        text NOT NULL,
  events          text[] NOT NULL,
  url             text NOT NULL,
  method          text,
  secret          text NOT NULL,
  description     text NOT NULL DEFAULT '',
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL,
  last_seq        bigint NOT NULL DEFAULT 0,
  cursor          bigint NOT NULL DEFAULT 0,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  leased_until    timestamptz,
  last_error      text,
  state           text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  disabled_at     timestamptz,
  disabled_reason text CHECK (disabled_reason IN ('max_attempts', 'not_allowed'))
);
CREATE INDEX event_subscriptions_scenario ON execution.event_subscriptions (scenario) WHERE state = 'active';
CREATE INDEX event_subscriptions_due ON execution.event_subscriptions (next_attempt_at) WHERE state = 'active';

CREATE TABLE execution.event_deliveries (
  subscription_id uuid NOT NULL REFERENCES execution.event_subscriptions (id) ON DELETE CASCADE,
  seq             bigint NOT NULL CHECK (seq > 0),
  event_id        uuid NOT NULL,
  event_type      text NOT NULL,
  body            text NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, seq)
);

-- Idempotency of the execution service's durable consumers (libs/events consumeIdempotently).
CREATE TABLE IF NOT EXISTS execution.processed_events (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
