-- The Differential Semantic Pool (draft-zhou §6.2.1). The pool's state (clusters,
-- centroids, heat, gate windows) is a deterministic fold of its inputs in seq
-- order; this log is the source of truth and the service replays it on start.
-- raw_text is the fragment as the client sent it: operators only (§7); only the
-- sanitised text was embedded, and the vector is kept so a replay needs no
-- embedder call and gives the same clusters whatever the embedder does later.
CREATE TABLE pool.inputs (
  seq               bigserial PRIMARY KEY,
  event_id          uuid NOT NULL,
  fragment_index    integer NOT NULL,
  scenario_id       text NOT NULL,
  client_id         text NOT NULL,
  at_ms             bigint NOT NULL,
  raw_text          text NOT NULL,
  sanitized         text,
  flags             text[] NOT NULL,
  vector            real[],
  global_cluster_id text,
  client_cluster_id text,
  UNIQUE (event_id, fragment_index)
);
CREATE INDEX inputs_scenario ON pool.inputs (scenario_id, seq);
CREATE INDEX inputs_global_cluster ON pool.inputs (scenario_id, global_cluster_id);
CREATE INDEX inputs_client_cluster ON pool.inputs (scenario_id, client_cluster_id);

-- What the evolution service made of each matured cluster (from patch events).
CREATE TABLE pool.outcomes (
  scenario_id text NOT NULL,
  cluster_id  text NOT NULL,
  outcome     text NOT NULL,
  patch_id    text,
  key_name    text,
  PRIMARY KEY (scenario_id, cluster_id)
);

-- Heat over time, sampled on a timer (operator views, §6.2.1 heat decay).
CREATE TABLE pool.heat_samples (
  scenario_id text NOT NULL,
  cluster_id  text NOT NULL,
  at_ms       bigint NOT NULL,
  heat        double precision NOT NULL,
  PRIMARY KEY (scenario_id, cluster_id, at_ms)
);

CREATE TABLE pool.processed_events (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

CREATE TABLE pool.outbox (
  seq          bigserial PRIMARY KEY,
  id           uuid NOT NULL UNIQUE,
  subject      text NOT NULL,
  event        json NOT NULL,
  created_at   timestamptz NOT NULL,
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX outbox_pending ON pool.outbox (seq) WHERE published_at IS NULL;
