-- AN tasks (../shared/specs/004_3c631192c531ca80.txt §5.2-5.4): tasks, their
-- context, their notifications, negotiation rounds, subscriptions and data
-- params. Every change of a task happens in one transaction under a per-task
-- advisory lock (apps/execution/src/tasks/store.ts), which hands out the
-- per-task seq numbers of task_messages and task_notifications.

-- 5.2 tasks: msg-header, content, msg-tail, task-async, task-status.
CREATE TABLE execution.tasks (
  task_id           text PRIMARY KEY,
  send_from         text NOT NULL,
  send_to           text NOT NULL,
  content           text,
  prompt            jsonb,
  scenario          text,
  schema_id         text,
  payload           jsonb,
  task_async        boolean NOT NULL,
  status            text NOT NULL CHECK (status IN ('created', 'processing', 'input-required', 'blocked', 'finished', 'failed', 'canceled')),
  expected_response text,
  term_explains     jsonb NOT NULL DEFAULT '[]',
  msg_data          text[] NOT NULL DEFAULT '{}',
  subscription      jsonb,
  result            jsonb,
  -- seq of the latest notification.
  last_seq          integer NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
CREATE INDEX tasks_send_from ON execution.tasks (send_from, created_at);
CREATE INDEX tasks_send_to ON execution.tasks (send_to, created_at);

-- 5.2 context: every message of a task's conversation, in order. A feasibility
-- negotiation (5.3 1) may precede the task: its messages carry the id the task
-- will have, so no foreign key to tasks.
CREATE TABLE execution.task_messages (
  task_id    text NOT NULL,
  seq        integer NOT NULL CHECK (seq > 0),
  send_from  text NOT NULL,
  send_to    text NOT NULL,
  commu_type text NOT NULL,
  request    jsonb,
  response   jsonb,
  time       timestamptz NOT NULL,
  PRIMARY KEY (task_id, seq)
);

-- 5.4 condition-notifications: one row per state change, seq 1, 2, ... per task.
-- Written in the transaction of the change, with its task.status outbox events.
CREATE TABLE execution.task_notifications (
  task_id         text NOT NULL REFERENCES execution.tasks (task_id),
  seq             integer NOT NULL CHECK (seq > 0),
  send_from       text NOT NULL,
  send_to         text NOT NULL,
  task_async      boolean NOT NULL,
  status          text NOT NULL,
  previous_status text,
  required        text,
  result          jsonb,
  start_time      timestamptz NOT NULL,
  at              timestamptz NOT NULL,
  PRIMARY KEY (task_id, seq)
);

-- 5.3 negotiations, one per (task id, type), and their rounds.
CREATE TABLE execution.negotiations (
  task_id    text NOT NULL,
  type       text NOT NULL CHECK (type IN ('FEASIBILITY', 'FULFILLMENT')),
  send_from  text NOT NULL,
  send_to    text NOT NULL,
  outcome    text NOT NULL CHECK (outcome IN ('open', 'agreed', 'rejected', 'round_limit')),
  max_rounds integer NOT NULL CHECK (max_rounds > 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (task_id, type)
);

CREATE TABLE execution.negotiation_rounds (
  task_id  text NOT NULL,
  type     text NOT NULL,
  round    integer NOT NULL CHECK (round > 0),
  proposer text NOT NULL,
  proposal jsonb NOT NULL,
  verdict  text CHECK (verdict IN ('accept', 'reject', 'counter')),
  reply    jsonb,
  at       timestamptz NOT NULL,
  PRIMARY KEY (task_id, type, round),
  FOREIGN KEY (task_id, type) REFERENCES execution.negotiations (task_id, type)
);

-- 5.2 task-subscription: push subscriptions (webhook, nats). `cursor` is the
-- last seq delivered; a webhook's cursor moves only on a 2xx answer.
CREATE TABLE execution.subscriptions (
  id              uuid PRIMARY KEY,
  task_id         text NOT NULL REFERENCES execution.tasks (task_id),
  subscriber      text NOT NULL,
  protocol        text NOT NULL CHECK (protocol IN ('webhook', 'nats')),
  method          text,
  url             text,
  cursor          integer NOT NULL DEFAULT 0,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  leased_until    timestamptz,
  last_error      text,
  created_at      timestamptz NOT NULL
);
CREATE INDEX subscriptions_task ON execution.subscriptions (task_id);
CREATE INDEX subscriptions_webhook_due ON execution.subscriptions (next_attempt_at) WHERE protocol = 'webhook';

-- 5.2 data-params: inline, by URL, or chunked (chunks kept until the last one
-- arrives, then assembled into `data`).
CREATE TABLE execution.data_params (
  id          text PRIMARY KEY,
  owner       text NOT NULL,
  task_id     text,
  data_type   text NOT NULL,
  description text,
  data_size   bigint,
  format      text,
  url         text,
  data        text,
  chunked     boolean NOT NULL DEFAULT false,
  finished    boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL
);

CREATE TABLE execution.data_chunks (
  param_id text NOT NULL REFERENCES execution.data_params (id) ON DELETE CASCADE,
  seq      integer NOT NULL CHECK (seq >= 0),
  data     text NOT NULL,
  PRIMARY KEY (param_id, seq)
);
