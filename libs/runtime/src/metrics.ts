import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { isErrorType } from '@parley/protocol';
import { ConfigError, envInt, envOptional } from './config';
import { eventInstruments, stateInstruments } from './metrics-instruments';
import {
  auditSource,
  consumerSource,
  evolutionSource,
  outboxSource,
  poolSource,
  type ConsumerLag,
  type EvolutionScenarioFigures,
  type PoolScenarioFigures,
  type Queryable,
  type Source,
} from './metrics-sources';

export { KEY_STATES, PATCH_STATUSES, TOP_HEAT, type ConsumerLag, type EvolutionScenarioFigures, type PoolScenarioFigures, type Queryable } from './metrics-sources';

type Env = Record<string, string | undefined>;

/**
 * Parley's Prometheus metrics: every name, label and help text lives in
 * metrics-instruments.ts, the scrape-time sources in metrics-sources.ts, and
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
  /**
   * The sampling period, in ms, of the event-loop delay histogram behind the seven gauges
   * `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds` (default 100, an integer from 1 to
   * {@link MAX_EVENT_LOOP_RESOLUTION_MS}; anything else is a `ConfigError`). Each sample is a timer that wakes
   * the process: prom-client's own default of 10 ms woke every service 100 times a second at rest.
   *
   * What the seven gauges then read: Node records the time between two timer callbacks, so each reading is
   * the period plus the delay (at rest about this value, 0.100 s by default; subtract
   * `nodejs_eventloop_resolution_seconds` or set thresholds relative to it). A stall longer than the period is
   * seen, as period + excess; a shorter one is seen only if it spans a timer's due time (probability about
   * stall / period) and is otherwise missed. `nodejs_eventloop_lag_seconds` (setImmediate at scrape time) is
   * not affected.
   */
  eventLoopResolutionMs?: number;
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
  /** Event-flow retention of `service`: `rows` deleted from `table` (`outbox` or `processed_events`) by one sweep. */
  retentionPruned(service: string, table: string, rows: number): void;
  /** After each table's retention sweep: `behind` (stopped at its batch cap), `skipped` (marks kept for the live stream). */
  retentionState(service: string, table: string, state: { behind: boolean; skipped: boolean }): void;

  /** Scrape-time sources; each returns a function that removes it. */
  watchOutbox(service: string, db: Queryable, schema: string): () => void;
  watchConsumers(read: () => Promise<readonly ConsumerLag[]>): () => void;
  watchPool(read: () => readonly PoolScenarioFigures[] | Promise<readonly PoolScenarioFigures[]>, heatThreshold?: number): () => void;
  watchEvolution(read: () => readonly EvolutionScenarioFigures[] | Promise<readonly EvolutionScenarioFigures[]>): () => void;
  watchAudits(db: Queryable): () => void;
}

const SCHEMA = /^[a-z_][a-z0-9_]*$/;

/** The event-loop delay histogram's sampling period (ms) unless `PARLEY_EVENT_LOOP_RESOLUTION_MS` says otherwise. */
export const DEFAULT_EVENT_LOOP_RESOLUTION_MS = 100;

/**
 * The largest sampling period (ms). prom-client resets the histogram at every scrape, so a period near the
 * scrape interval (15-60 s) leaves scrapes with no sample (min 9.2e9 s, mean NaN); 1 s is well under any.
 */
export const MAX_EVENT_LOOP_RESOLUTION_MS = 1000;

const RESOLUTION_VAR = 'PARLEY_EVENT_LOOP_RESOLUTION_MS';

/** The programmatic option checked as the environment variable is: an integer in 1..MAX_EVENT_LOOP_RESOLUTION_MS. */
function eventLoopResolution(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_EVENT_LOOP_RESOLUTION_MS;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_EVENT_LOOP_RESOLUTION_MS) {
    throw new ConfigError(`eventLoopResolutionMs (${RESOLUTION_VAR}) must be an integer from 1 to ${MAX_EVENT_LOOP_RESOLUTION_MS} (got ${String(ms)})`);
  }
  return ms;
}

/** The process metrics, with the histogram's sampling period exported so its readings can be corrected. */
function processMetrics(registry: Registry, resolutionMs: number): void {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: resolutionMs });
  const g = new Gauge({
    name: 'nodejs_eventloop_resolution_seconds',
    help: 'Sampling period of the event-loop delay histogram; nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds include it',
    registers: [registry],
  });
  g.set(resolutionMs / 1000);
}

export function createMetrics(opts: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultLabels) registry.setDefaultLabels(opts.defaultLabels);
  const resolutionMs = eventLoopResolution(opts.eventLoopResolutionMs);
  if (opts.processMetrics ?? true) processMetrics(registry, resolutionMs);
  const ev = eventInstruments(registry);
  const st = stateInstruments(registry);

  const scenario = boundedLabel(opts.maxScenarios ?? 50);
  const agent = boundedLabel(opts.maxAgents ?? 200);
  const zeroedAgents = new Set<string>();

  const sources = new Set<Source>();
  const watch = (s: Source): (() => void) => {
    sources.add(s);
    return () => void sources.delete(s);
  };

  // Sources that share a gauge (several outboxes in one process) write their own label values;
  // each gauge is cleared once per scrape before the sources write.
  const scraped = [st.outboxPending, st.outboxAge, st.deadLetters, st.consumerPending, st.consumerAckPending, st.consumerRedelivered, st.poolClusters, st.poolHeat, st.patches, st.patchKeys, st.auditsPending];
  const scrapedCounters = [st.poolFragments, st.poolTriggers];

  let scraping: Promise<unknown> = Promise.resolve();
  async function refresh(): Promise<void> {
    for (const g of scraped) g.reset();
    for (const c of scrapedCounters) c.reset();
    await Promise.all(
      [...sources].map((s) =>
        s.refresh().catch(() => {
          st.sourceErrors.inc({ source: s.name });
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
      ev.gatewayRequests.inc(labels);
      ev.gatewayLatency.observe(labels, seconds);
    },
    authFailure(face, credential, rule) {
      ev.authFailures.inc({ face, credential, rule: ruleLabel(rule) });
    },
    rateLimited(roles) {
      ev.rateLimited.inc({ principal_class: principalClass(roles) });
    },
    grpc(service, method, errorType, seconds) {
      const labels = { service, method, outcome: outcomeLabel(errorType) };
      ev.grpcCalls.inc(labels);
      ev.grpcLatency.observe(labels, seconds);
    },
    execution(sc, ag, errorType, seconds) {
      const labels = { scenario: scenario.value(sc), agent: agent.value(ag) };
      const key = `${labels.scenario}/${labels.agent}`;
      if (!zeroedAgents.has(key)) {
        zeroedAgents.add(key);
        ev.agentTimeouts.inc(labels, 0);
        ev.executions.inc({ ...labels, outcome: 'ok' }, 0);
      }
      ev.executions.inc({ ...labels, outcome: outcomeLabel(errorType) });
      if (errorType === 'agent_timeout') ev.agentTimeouts.inc(labels);
      if (seconds !== undefined) ev.agentLatency.observe(labels, seconds);
    },
    outboxPublished(service, lagSeconds) {
      ev.outboxPublished.inc({ service });
      ev.outboxLag.observe({ service }, Math.max(0, lagSeconds));
    },
    outboxFailed(service) {
      ev.outboxFailures.inc({ service });
    },
    retentionPruned(service, table, rows) {
      ev.retentionPruned.inc({ service, table }, rows);
    },
    retentionState(service, table, state) {
      ev.retentionBehind.set({ service, table }, state.behind ? 1 : 0);
      if (table === 'processed_events') ev.retentionMarksKept.set({ service }, state.skipped ? 1 : 0);
    },

    watchOutbox(service, db, schema) {
      if (!SCHEMA.test(schema)) throw new Error(`invalid schema name "${schema}"`);
      ev.outboxPublished.inc({ service }, 0);
      ev.outboxFailures.inc({ service }, 0);
      return watch(outboxSource(st, service, db, schema));
    },
    watchConsumers: (read) => watch(consumerSource(st, read)),
    watchPool(read, heatThreshold) {
      if (heatThreshold !== undefined) st.poolThreshold.set(heatThreshold);
      return watch(poolSource(st, scenario, read));
    },
    watchEvolution: (read) => watch(evolutionSource(st, scenario, read)),
    watchAudits: (db) => watch(auditSource(st, scenario, db)),
  };
}

/**
 * The process's metrics from the environment: PARLEY_METRICS (`on` default, `off`
 * for none: no /metrics and no collection), PARLEY_METRICS_MAX_SCENARIOS (50),
 * PARLEY_METRICS_MAX_AGENTS (200), PARLEY_EVENT_LOOP_RESOLUTION_MS (100, 1 to 1000).
 */
export function metricsFromEnv(env: Env): Metrics | undefined {
  const on = (envOptional(env, 'PARLEY_METRICS') ?? 'on').toLowerCase();
  if (on === 'off' || on === 'false' || on === '0') return undefined;
  return createMetrics({
    maxScenarios: envInt(env, 'PARLEY_METRICS_MAX_SCENARIOS', 50, { min: 1, max: 10_000 }),
    maxAgents: envInt(env, 'PARLEY_METRICS_MAX_AGENTS', 200, { min: 1, max: 100_000 }),
    eventLoopResolutionMs: envInt(env, RESOLUTION_VAR, DEFAULT_EVENT_LOOP_RESOLUTION_MS, { min: 1, max: MAX_EVENT_LOOP_RESOLUTION_MS }),
  });
}
