import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isErrorType } from '@parley/protocol';
import { envInt, envOptional } from './config';

type Env = Record<string, string | undefined>;

/** What the SQL sources need of a database (libs/storage's Db and Queryable have it; not imported, so the runtime stays below storage). */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * Parley's Prometheus metrics: every name, label and help text lives here, and
 * every process (each service, or `npm start` with all of them) makes one
 * `Metrics` and hands it to the parts it runs. Names follow the Prometheus
 * conventions (`parley_…_total` counters, `_seconds` histograms, base units);
 * labels are bounded:
 *
 * - `scenario` and `agent` take only names the services resolved themselves
 *   (a scenario negotiation or the pool knows, an agent that published the
 *   schema), never a request's parameters; past `maxScenarios` / `maxAgents`
 *   distinct values a new one counts as `other`; absent is `none`;
 * - `method`, `outcome` (`ok` or an error `type` of the catalogue), `face`,
 *   `credential`, `principal_class`, `service`, `consumer` come from closed
 *   sets in the code; client ids and payload values are never labels.
 *
 * What is state rather than an event is read when Prometheus scrapes
 * (`scrape()`): outbox depth and age by SQL, consumer lag from JetStream (or
 * the in-process bus), pool and patch figures from the services' memory,
 * pending audits and dead letters by SQL. A source that fails is skipped for
 * that scrape and counted in `parley_metrics_source_errors_total`.
 */
export interface MetricsOptions {
  /** Distinct `scenario` label values before the rest count as `other` (default 50). */
  maxScenarios?: number;
  /** Distinct `agent` label values before the rest count as `other` (default 200). */
  maxAgents?: number;
  /** Node.js process metrics (`process_*`, `nodejs_*`; default true). */
  processMetrics?: boolean;
  /** Constant labels on every series (e.g. `{ service: 'execution' }` is not needed: series say which part they are about). */
  defaultLabels?: Record<string, string>;
}

/** A bounded label: registered names up to a cap, then `other`; `none` when absent. */
export interface BoundedLabel {
  value(name: string | null | undefined): string;
  /** Values admitted so far (tests, the console). */
  values(): readonly string[];
}

export const LABEL_NONE = 'none';
export const LABEL_OTHER = 'other';

/** The shape of a scenario id or agent name (libs/protocol): anything else is `other`. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,127}$/;

export function boundedLabel(cap: number, onAdmit?: (v: string) => void): BoundedLabel {
  const admitted = new Set<string>();
  return {
    value(name) {
      if (name === undefined || name === null || name === '') return LABEL_NONE;
      if (admitted.has(name)) return name;
      if (!NAME.test(name) || name === LABEL_NONE || name === LABEL_OTHER || admitted.size >= cap) return LABEL_OTHER;
      admitted.add(name);
      onAdmit?.(name);
      return name;
    },
    values: () => [...admitted],
  };
}

/** `ok`, or the error's catalogue `type` (a closed set); anything else is `internal`. */
export function outcomeLabel(errorType: string | undefined | null): string {
  if (errorType === undefined || errorType === null || errorType === '') return 'ok';
  return isErrorType(errorType) ? errorType : 'internal';
}

/** The roles a principal class is named by, most privileged first (libs/auth roles). */
const PRINCIPAL_CLASSES = ['operator', 'server_agent', 'client_agent'] as const;

/** The class of a principal by its most privileged role: operator, server_agent, client_agent or other. */
export function principalClass(roles: readonly string[]): string {
  for (const c of PRINCIPAL_CLASSES) if (roles.includes(c)) return c;
  return 'other';
}

/** A rule name as a label: the services' own snake_case names; anything else `other`. */
export function ruleLabel(rule: string | undefined): string {
  if (rule === undefined || rule === '') return LABEL_NONE;
  return /^[a-z][a-z0-9_]{0,47}$/.test(rule) ? rule : LABEL_OTHER;
}

/** What a request's credential looked like, for auth failures: never the credential. */
export function credentialLabel(authorization: string | undefined): 'none' | 'api_key' | 'jwt' | 'malformed' {
  if (authorization === undefined || authorization.trim() === '') return 'none';
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m) return 'malformed';
  const token = m[1] as string;
  if (token.startsWith('pk_')) return 'api_key';
  if (token.split('.').length === 3) return 'jwt';
  return 'malformed';
}

/** One JetStream (or in-process) durable consumer's backlog. */
export interface ConsumerLag {
  consumer: string;
  /** Messages in the stream matching its filter not yet delivered (JetStream num_pending). */
  pending: number;
  /** Delivered, not yet acknowledged (num_ack_pending). */
  ackPending: number;
  /** Deliveries that were redeliveries (num_redelivered). */
  redelivered: number;
}

/** The semantic pool's figures for one scenario, read from its memory (draft-zhou §6.2.1). */
export interface PoolScenarioFigures {
  scenario: string;
  /** Fragments folded into the scenario's global pool. */
  fragments: number;
  clusters: { global: number; client: number };
  /** Heat of the hottest clusters, hottest first (the first `TOP_HEAT` are exported). */
  hottest: readonly number[];
  /** Clusters that passed the dual gate. */
  triggers: number;
}

/** The evolution service's figures for one scenario (draft-zhou §6.2.2, §6.2.3). */
export interface EvolutionScenarioFigures {
  scenario: string;
  /** Patches by status (proposed, active, rejected). */
  patches: Readonly<Record<string, number>>;
  /** Patch keys by lifecycle state (experimental, stable, deprecated, withdrawn). */
  keys: Readonly<Record<string, number>>;
}

export const PATCH_STATUSES = ['proposed', 'active', 'rejected'] as const;
export const KEY_STATES = ['experimental', 'stable', 'deprecated', 'withdrawn'] as const;
/** How many of a scenario's hottest clusters `parley_pool_cluster_heat` reports (label `rank` 1..TOP_HEAT). */
export const TOP_HEAT = 5;

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

export interface Metrics {
  readonly registry: Registry;
  /** The exposition format's content type (text/plain; version=0.0.4). */
  readonly contentType: string;
  /** Reads every state source, then renders the exposition text. */
  scrape(): Promise<string>;
  readonly scenario: BoundedLabel;
  readonly agent: BoundedLabel;

  /** Gateway: one JSON-RPC request (a batch member counts alone), MCP message or A2A message. */
  request(face: 'rpc' | 'mcp' | 'a2a', method: string, scenario: string | undefined, errorType: string | undefined, seconds: number): void;
  /** Gateway: a request refused before it ran (401), by what its credential looked like and the rule. */
  authFailure(face: string, credential: string, rule: string | undefined): void;
  /** Gateway: a request refused by the per-principal rate limit. */
  rateLimited(roles: readonly string[]): void;
  /** Any service: one gRPC call it served. */
  grpc(service: string, method: string, errorType: string | undefined, seconds: number): void;
  /** Execution: one payload dispatched to an agent, its outcome and the agent's round trip. */
  execution(scenario: string, agent: string, errorType: string | undefined, seconds: number | undefined): void;
  /** Outbox relay of `service`: one event published `lagSeconds` after its commit, or one failed publish. */
  outboxPublished(service: string, lagSeconds: number): void;
  outboxFailed(service: string): void;

  /** Scrape-time sources; each returns a function that removes it. */
  watchOutbox(service: string, db: Queryable, schema: string): () => void;
  watchConsumers(read: () => Promise<readonly ConsumerLag[]>): () => void;
  watchPool(read: () => readonly PoolScenarioFigures[] | Promise<readonly PoolScenarioFigures[]>, heatThreshold?: number): () => void;
  watchEvolution(read: () => readonly EvolutionScenarioFigures[] | Promise<readonly EvolutionScenarioFigures[]>): () => void;
  watchAudits(db: Queryable): () => void;
}

const SCHEMA = /^[a-z_][a-z0-9_]*$/;

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultLabels) registry.setDefaultLabels(opts.defaultLabels);
  if (opts.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const reg = [registry];

  const gatewayRequests = new Counter({
    name: 'parley_gateway_requests_total',
    help: 'Requests the gateway answered, by face (rpc, mcp, a2a), method, scenario and outcome (ok or the error type)',
    labelNames: ['face', 'method', 'scenario', 'outcome'],
    registers: reg,
  });
  const gatewayLatency = new Histogram({
    name: 'parley_gateway_request_duration_seconds',
    help: 'Time the gateway took to answer a request (a batch member on its own), by face, method, scenario and outcome',
    labelNames: ['face', 'method', 'scenario', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: reg,
  });
  const authFailures = new Counter({
    name: 'parley_auth_failures_total',
    help: 'Requests refused as unauthenticated at the gateway, by face, credential kind (none, api_key, jwt, malformed) and rule',
    labelNames: ['face', 'credential', 'rule'],
    registers: reg,
  });
  const rateLimited = new Counter({
    name: 'parley_rate_limited_total',
    help: 'Requests refused by the per-principal rate limit, by principal class (operator, server_agent, client_agent, other)',
    labelNames: ['principal_class'],
    registers: reg,
  });
  const grpcCalls = new Counter({
    name: 'parley_grpc_server_requests_total',
    help: 'gRPC calls a service served, by gRPC service, method and outcome',
    labelNames: ['service', 'method', 'outcome'],
    registers: reg,
  });
  const grpcLatency = new Histogram({
    name: 'parley_grpc_server_request_duration_seconds',
    help: 'Time a service took to serve a gRPC call, by gRPC service, method and outcome',
    labelNames: ['service', 'method', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: reg,
  });
  const executions = new Counter({
    name: 'parley_executions_total',
    help: 'Payloads dispatched to a server agent (draft-zhou §3.2 steps 4-6), by scenario, agent and outcome',
    labelNames: ['scenario', 'agent', 'outcome'],
    registers: reg,
  });
  const agentLatency = new Histogram({
    name: 'parley_agent_request_duration_seconds',
    help: "Round trip of a dispatch to a server agent over NATS request/reply, by scenario and agent",
    labelNames: ['scenario', 'agent'],
    buckets: LATENCY_BUCKETS,
    registers: reg,
  });
  const agentTimeouts = new Counter({
    name: 'parley_agent_timeouts_total',
    help: 'Dispatches no agent answered within EXECUTE_TIMEOUT_MS, by scenario and agent',
    labelNames: ['scenario', 'agent'],
    registers: reg,
  });
  const outboxPublished = new Counter({
    name: 'parley_outbox_published_total',
    help: "Events a service's outbox relay published to the bus, by service",
    labelNames: ['service'],
    registers: reg,
  });
  const outboxFailures = new Counter({
    name: 'parley_outbox_publish_failures_total',
    help: "Failed publish attempts of a service's outbox relay (retried with backoff), by service",
    labelNames: ['service'],
    registers: reg,
  });
  const outboxLag = new Histogram({
    name: 'parley_outbox_publish_lag_seconds',
    help: 'Time from an event committing to the outbox to its publication on the bus, by service',
    labelNames: ['service'],
    buckets: LAG_BUCKETS,
    registers: reg,
  });
  const outboxPending = new Gauge({ name: 'parley_outbox_pending', help: 'Outbox rows not yet published, by service (read by SQL on scrape)', labelNames: ['service'], registers: reg });
  const outboxAge = new Gauge({
    name: 'parley_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest unpublished outbox row, by service (0 when none; read by SQL on scrape)',
    labelNames: ['service'],
    registers: reg,
  });
  const deadLetters = new Gauge({
    name: 'parley_dead_letters',
    help: 'Events set aside as dead letters and not yet retried or discarded, by service and source (outbox, consumer)',
    labelNames: ['service', 'source'],
    registers: reg,
  });
  const consumerPending = new Gauge({
    name: 'parley_jetstream_consumer_pending_messages',
    help: 'Events in the stream a durable consumer has not received yet (JetStream num_pending; the in-process bus: events after its cursor)',
    labelNames: ['consumer'],
    registers: reg,
  });
  const consumerAckPending = new Gauge({
    name: 'parley_jetstream_consumer_ack_pending_messages',
    help: 'Events delivered to a durable consumer and not acknowledged yet (JetStream num_ack_pending)',
    labelNames: ['consumer'],
    registers: reg,
  });
  const consumerRedelivered = new Gauge({
    name: 'parley_jetstream_consumer_redelivered_messages',
    help: 'Events currently redelivered to a durable consumer (JetStream num_redelivered)',
    labelNames: ['consumer'],
    registers: reg,
  });
  const poolFragments = new Counter({
    name: 'parley_pool_fragments_total',
    help: "`other` fragments folded into a scenario's global semantic pool (draft-zhou §6.2.1)",
    labelNames: ['scenario'],
    registers: reg,
  });
  const poolClusters = new Gauge({
    name: 'parley_pool_clusters',
    help: 'Clusters of the semantic pool, by scenario and scope (global, client: all per-client pools together)',
    labelNames: ['scenario', 'scope'],
    registers: reg,
  });
  const poolHeat = new Gauge({
    name: 'parley_pool_cluster_heat',
    help: "Heat of a scenario's hottest clusters now (draft-zhou §6.2.1, with decay), rank 1 the hottest",
    labelNames: ['scenario', 'rank'],
    registers: reg,
  });
  const poolTriggers = new Counter({
    name: 'parley_pool_triggers_total',
    help: 'Clusters that passed the dual gate (draft-zhou §6.2.1) and went to intent induction, by scenario',
    labelNames: ['scenario'],
    registers: reg,
  });
  const poolThreshold = new Gauge({ name: 'parley_pool_heat_threshold', help: 'The heat the dual gate asks of a cluster (draft-zhou §6.2.1)', registers: reg });
  const patches = new Gauge({
    name: 'parley_patches',
    help: 'Schema patches by scenario and status (proposed, active, rejected; draft-zhou §6.2.2)',
    labelNames: ['scenario', 'status'],
    registers: reg,
  });
  const patchKeys = new Gauge({
    name: 'parley_patch_keys',
    help: 'Keys of schema patches by scenario and lifecycle state (experimental, stable, deprecated, withdrawn; draft-zhou §6.2.3)',
    labelNames: ['scenario', 'state'],
    registers: reg,
  });
  const auditsPending = new Gauge({
    name: 'parley_audits_pending',
    help: 'Audit samples waiting for a verdict (draft-zhou §6.2.3 semantic alignment), by scenario',
    labelNames: ['scenario'],
    registers: reg,
  });
  const sourceErrors = new Counter({
    name: 'parley_metrics_source_errors_total',
    help: 'Scrape-time sources that failed (their figures are left out of that scrape), by source',
    labelNames: ['source'],
    registers: reg,
  });

  const scenario = boundedLabel(opts.maxScenarios ?? 50);
  const agent = boundedLabel(opts.maxAgents ?? 200);
  const zeroedAgents = new Set<string>();

  type Source = { name: string; refresh: () => Promise<void>; reset?: () => void };
  const sources = new Set<Source>();
  const watch = (s: Source): (() => void) => {
    sources.add(s);
    return () => void sources.delete(s);
  };

  // Sources that share a gauge (several outboxes in one process) write their own label values;
  // each gauge is cleared once per scrape before the sources write.
  const scraped = [outboxPending, outboxAge, deadLetters, consumerPending, consumerAckPending, consumerRedelivered, poolClusters, poolHeat, patches, patchKeys, auditsPending];
  const scrapedCounters = [poolFragments, poolTriggers];

  let scraping: Promise<unknown> = Promise.resolve();
  async function refresh(): Promise<void> {
    for (const g of scraped) g.reset();
    for (const c of scrapedCounters) c.reset();
    await Promise.all(
      [...sources].map((s) =>
        s.refresh().catch(() => {
          sourceErrors.inc({ source: s.name });
        }),
      ),
    );
  }

  return {
    registry,
    contentType: registry.contentType,
    scrape() {
      // One scrape at a time: a second one waits, so the gauges it reads are never half written.
      const run = scraping.then(async () => {
        await refresh();
        return registry.metrics();
      });
      scraping = run.catch(() => undefined);
      return run;
    },
    scenario,
    agent,

    request(face, method, sc, errorType, seconds) {
      const labels = { face, method, scenario: scenario.value(sc), outcome: outcomeLabel(errorType) };
      gatewayRequests.inc(labels);
      gatewayLatency.observe(labels, seconds);
    },
    authFailure(face, credential, rule) {
      authFailures.inc({ face, credential, rule: ruleLabel(rule) });
    },
    rateLimited(roles) {
      rateLimited.inc({ principal_class: principalClass(roles) });
    },
    grpc(service, method, errorType, seconds) {
      const labels = { service, method, outcome: outcomeLabel(errorType) };
      grpcCalls.inc(labels);
      grpcLatency.observe(labels, seconds);
    },
    execution(sc, ag, errorType, seconds) {
      const labels = { scenario: scenario.value(sc), agent: agent.value(ag) };
      const key = `${labels.scenario}/${labels.agent}`;
      if (!zeroedAgents.has(key)) {
        zeroedAgents.add(key);
        agentTimeouts.inc(labels, 0);
        executions.inc({ ...labels, outcome: 'ok' }, 0);
      }
      executions.inc({ ...labels, outcome: outcomeLabel(errorType) });
      if (errorType === 'agent_timeout') agentTimeouts.inc(labels);
      if (seconds !== undefined) agentLatency.observe(labels, seconds);
    },
    outboxPublished(service, lagSeconds) {
      outboxPublished.inc({ service });
      outboxLag.observe({ service }, Math.max(0, lagSeconds));
    },
    outboxFailed(service) {
      outboxFailures.inc({ service });
    },

    watchOutbox(service, db, schema) {
      if (!SCHEMA.test(schema)) throw new Error(`invalid schema name "${schema}"`);
      outboxPublished.inc({ service }, 0);
      outboxFailures.inc({ service }, 0);
      return watch({
        name: `outbox_${service}`,
        async refresh() {
          // Ages by the database's clock, which also wrote created_at.
          const r = await db.query<{ pending: number | string; age: number | string | null; dead_table: string | null }>(
            `SELECT (SELECT count(*) FROM ${schema}.outbox WHERE published_at IS NULL) AS pending,
                    (SELECT EXTRACT(EPOCH FROM clock_timestamp() - created_at) FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY seq LIMIT 1) AS age,
                    to_regclass('${schema}.dead_letters')::text AS dead_table`,
          );
          const row = r.rows[0];
          outboxPending.set({ service }, Number(row?.pending ?? 0));
          outboxAge.set({ service }, Math.max(0, Number(row?.age ?? 0)));
          deadLetters.set({ service, source: 'outbox' }, 0);
          deadLetters.set({ service, source: 'consumer' }, 0);
          if (row?.dead_table) {
            const d = await db.query<{ source: string; n: number | string }>(`SELECT source, count(*) AS n FROM ${schema}.dead_letters WHERE status = 'dead' GROUP BY source`);
            for (const x of d.rows) if (x.source === 'outbox' || x.source === 'consumer') deadLetters.set({ service, source: x.source }, Number(x.n));
          }
        },
      });
    },
    watchConsumers(read) {
      return watch({
        name: 'consumers',
        async refresh() {
          for (const c of await read()) {
            const labels = { consumer: c.consumer };
            consumerPending.set(labels, c.pending);
            consumerAckPending.set(labels, c.ackPending);
            consumerRedelivered.set(labels, c.redelivered);
          }
        },
      });
    },
    watchPool(read, heatThreshold) {
      if (heatThreshold !== undefined) poolThreshold.set(heatThreshold);
      return watch({
        name: 'pool',
        async refresh() {
          for (const f of await read()) {
            const sc = scenario.value(f.scenario);
            poolFragments.inc({ scenario: sc }, f.fragments);
            poolTriggers.inc({ scenario: sc }, f.triggers);
            poolClusters.set({ scenario: sc, scope: 'global' }, f.clusters.global);
            poolClusters.set({ scenario: sc, scope: 'client' }, f.clusters.client);
            f.hottest.slice(0, TOP_HEAT).forEach((h, i) => poolHeat.set({ scenario: sc, rank: String(i + 1) }, h));
          }
        },
      });
    },
    watchEvolution(read) {
      return watch({
        name: 'evolution',
        async refresh() {
          // Every scenario the process knows gets its series, zero until it has patches (alerts and
          // dashboards see a scenario before its first patch).
          for (const sc of scenario.values()) {
            for (const st of PATCH_STATUSES) patches.set({ scenario: sc, status: st }, 0);
            for (const st of KEY_STATES) patchKeys.set({ scenario: sc, state: st }, 0);
          }
          for (const f of await read()) {
            const sc = scenario.value(f.scenario);
            for (const st of PATCH_STATUSES) patches.set({ scenario: sc, status: st }, f.patches[st] ?? 0);
            for (const st of KEY_STATES) patchKeys.set({ scenario: sc, state: st }, f.keys[st] ?? 0);
          }
        },
      });
    },
    watchAudits(db) {
      return watch({
        name: 'audits',
        async refresh() {
          const r = await db.query<{ scenario_id: string; n: number | string }>(
            "SELECT scenario_id, count(*) FILTER (WHERE verdict = 'pending') AS n FROM evolution.audit_samples GROUP BY scenario_id",
          );
          for (const s of scenario.values()) auditsPending.set({ scenario: s }, 0);
          for (const row of r.rows) auditsPending.set({ scenario: scenario.value(row.scenario_id) }, Number(row.n));
        },
      });
    },
  };
}

/**
 * The process's metrics from the environment: PARLEY_METRICS (`on` default, `off`
 * for none: no /metrics and no collection), PARLEY_METRICS_MAX_SCENARIOS (50),
 * PARLEY_METRICS_MAX_AGENTS (200).
 */
export function metricsFromEnv(env: Env): Metrics | undefined {
  const on = (envOptional(env, 'PARLEY_METRICS') ?? 'on').toLowerCase();
  if (on === 'off' || on === 'false' || on === '0') return undefined;
  return createMetrics({
    maxScenarios: envInt(env, 'PARLEY_METRICS_MAX_SCENARIOS', 50, { min: 1, max: 10_000 }),
    maxAgents: envInt(env, 'PARLEY_METRICS_MAX_AGENTS', 200, { min: 1, max: 100_000 }),
  });
}
