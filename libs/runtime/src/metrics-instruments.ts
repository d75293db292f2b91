// Parley's Prometheus instruments: every metric name, label and help text
// (metrics.ts describes the conventions and bounds the labels). Two kinds: the
// ones recorded as things happen, and the ones the scrape-time sources
// (metrics-sources.ts) rewrite on each scrape.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/** Instruments of events: requests, refusals, gRPC calls, executions, outbox publications. */
export function eventInstruments(registry: Registry) {
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
  const retentionPruned = new Counter({
    name: 'parley_event_retention_pruned_total',
    help: "Rows a service's event-flow retention deleted (published outbox rows, consumers' processed marks, resolved dead letters), by service and table",
    labelNames: ['service', 'table'],
    registers: reg,
  });
  const retentionBehind = new Gauge({
    name: 'parley_event_retention_behind',
    help: "1 when a service's last retention sweep of a table stopped at its batch cap with rows still due (it sweeps again at the next check), else 0",
    labelNames: ['service', 'table'],
    registers: reg,
  });
  const retentionMarksKept = new Gauge({
    name: 'parley_event_retention_marks_kept',
    help: "1 when a service's last sweep kept the processed marks because the live stream may still deliver their events (no age limit, unreadable, or retention under max_age + margin), else 0",
    labelNames: ['service'],
    registers: reg,
  });
  return { gatewayRequests, gatewayLatency, authFailures, rateLimited, grpcCalls, grpcLatency, executions, agentLatency, agentTimeouts, outboxPublished, outboxFailures, outboxLag, retentionPruned, retentionBehind, retentionMarksKept };
}

/**
 * Instruments of state, written by the scrape-time sources: outbox, dead letters, consumer lag,
 * pool and patch figures, pending audits, and the sources' own failures.
 */
export function stateInstruments(registry: Registry) {
  const reg = [registry];
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

  return { outboxPending, outboxAge, deadLetters, consumerPending, consumerAckPending, consumerRedelivered, poolFragments, poolClusters, poolHeat, poolTriggers, poolThreshold, patches, patchKeys, auditsPending, sourceErrors };
}

export type EventInstruments = ReturnType<typeof eventInstruments>;
export type StateInstruments = ReturnType<typeof stateInstruments>;
