-- Idempotency keys of `execute` (draft-zhou §3.2 steps (4)-(6) over a network that can lose an answer):
-- a client's key names one execution for its lifetime (PARLEY_IDEMPOTENCY_TTL_MS, 24 h by default,
-- measured on the service's clock). A key is reserved (state 'pending', with the execution_id it will
-- have and a lease) before the agent is called, and completed (state 'done', with the response the
-- client got) in the transaction that records the execution and its events, so a key is done if and
-- only if its execution row exists. A repeat returns `response` and records nothing; another request
-- under the same key is idempotency_conflict; a repeat while the lease runs is idempotency_in_progress.
-- A reservation whose lease ran out (its process died, or the call failed) is taken over by the next
-- repeat with the same execution_id, which the agent sees again and answers as before.
CREATE TABLE execution.idempotency_keys (
  client_id    text NOT NULL,
  idem_key     text NOT NULL,
  -- SHA-256 of the canonical JSON of {schema_id, agent, payload} as sent.
  request_hash text NOT NULL,
  execution_id uuid NOT NULL,
  state        text NOT NULL CHECK (state IN ('pending', 'done')),
  lease_until  timestamptz,
  -- The ExecuteResponse returned to the client (json: members keep their order on a replay).
  response     json,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (client_id, idem_key),
  CHECK ((state = 'done') = (response IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON execution.idempotency_keys (expires_at);

-- The key an execution was made under, if any (the row and its key commit together).
ALTER TABLE execution.executions ADD COLUMN idempotency_key text;
