-- Registry: agent profiles and the scenarios each serves (draft-zhou §3.2 step (2)).
CREATE TABLE registry.agents (
  name          text PRIMARY KEY,
  description   text NOT NULL DEFAULT '',
  domain        text NOT NULL DEFAULT '',
  tags          text[] NOT NULL DEFAULT '{}',
  version       text NOT NULL DEFAULT '',
  registered_at timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX agents_domain ON registry.agents (domain);
CREATE INDEX agents_tags ON registry.agents USING gin (tags);

CREATE TABLE registry.agent_scenarios (
  agent       text NOT NULL REFERENCES registry.agents (name) ON DELETE CASCADE,
  scenario_id text NOT NULL,
  PRIMARY KEY (agent, scenario_id)
);
CREATE INDEX agent_scenarios_scenario ON registry.agent_scenarios (scenario_id);

-- Usage counters fed by the durable `payload.executed` consumer.
CREATE TABLE registry.scenario_usage (
  agent            text NOT NULL,
  scenario_id      text NOT NULL,
  executions       bigint NOT NULL DEFAULT 0,
  last_executed_at timestamptz,
  PRIMARY KEY (agent, scenario_id)
);

-- Idempotency: an event id a consumer has applied, written in the same transaction as its effect.
CREATE TABLE registry.processed_events (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
