-- Trust (draft-zhou §7) for webhook subscriptions (apps/execution/src/tasks/webhooks.ts):
-- every delivery is signed with the subscription's own secret (Standard Webhooks,
-- `whsec_...`, returned once at registration); a subscription whose URL the
-- allow-list (PARLEY_WEBHOOK_ALLOW) no longer admits, or that failed
-- maxAttempts times in a row, is disabled and never called again. Its
-- notifications stay readable (TaskResultQuery, TaskResultSubscribe).
-- Rows from before this migration have no secret: their deliveries go unsigned.
ALTER TABLE execution.subscriptions
  ADD COLUMN secret          text,
  ADD COLUMN state           text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  ADD COLUMN disabled_at     timestamptz,
  ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('max_attempts', 'not_allowed'));

DROP INDEX execution.subscriptions_webhook_due;
CREATE INDEX subscriptions_webhook_due ON execution.subscriptions (next_attempt_at) WHERE protocol = 'webhook' AND state = 'active';
