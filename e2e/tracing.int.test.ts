import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIGURE_8,
  ancestry,
  createTestDatabase,
  freePort,
  integrationInfra,
  orphans,
  rpc,
  startOtlpReceiver,
  startProcess,
  testIdentity,
  uniquePrefix,
  useKey,
  waitFor,
  waitReady,
  type OtlpReceiver,
  type ServiceProcess,
  type TestSpan,
} from '@parley/testkit';

/**
 * Traces and metrics across separate processes, on real NATS JetStream and
 * PostgreSQL: registry, negotiation, execution, semantic-pool, the gateway and
 * the flight-booking example agent each export their spans over OTLP/HTTP
 * (`http/json`, configured by the standard OTEL_* variables only) to a tiny
 * receiver in this test. One execute with `other` must be one connected trace
 * from the caller's traceparent through the gateway, the gRPC calls, the NATS
 * request to the agent process, the outbox relay and the consumers in the
 * registry and semantic-pool processes. Every service serves /metrics.
 */
const infra = integrationInfra('e2e: one trace across separate processes');

describe.skipIf(!infra)('OpenTelemetry traces and Prometheus metrics across separate processes', () => {
  const procs: ServiceProcess[] = [];
  let receiver: OtlpReceiver;
  let gatewayUrl = '';
  let db: { url: string; drop: () => Promise<void> };
  const health: Record<string, number> = {};
  const prefix = uniquePrefix();
  const identity = testIdentity();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    db = await createTestDatabase(infra!.databaseUrl);
    const [regGrpc, negGrpc, exeGrpc, poolGrpc, gwPort] = await Promise.all(Array.from({ length: 5 }, freePort));
    for (const n of ['registry', 'negotiation', 'execution', 'semantic-pool', 'agent']) health[n] = await freePort();
    const otel = {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const common = { ...identity.env, ...otel, DATABASE_URL: db.url, NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix };
    const start = async (name: string, entry: string, env: Record<string, string>, readyUrl: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(readyUrl, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${regGrpc}`, HEALTH_PORT: `${health.registry}` }, `http://127.0.0.1:${health.registry}/readyz`);
    await start(
      'negotiation',
      'apps/negotiation/src/main.ts',
      { GRPC_PORT: `${negGrpc}`, HEALTH_PORT: `${health.negotiation}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}` },
      `http://127.0.0.1:${health.negotiation}/readyz`,
    );
    await start(
      'execution',
      'apps/execution/src/main.ts',
      { GRPC_PORT: `${exeGrpc}`, HEALTH_PORT: `${health.execution}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}` },
      `http://127.0.0.1:${health.execution}/readyz`,
    );
    await start(
      'semantic-pool',
      'apps/semantic-pool/src/main.ts',
      { GRPC_PORT: `${poolGrpc}`, HEALTH_PORT: `${health['semantic-pool']}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}`, PARLEY_EMBEDDER: 'offline', PARLEY_STORE_RAW_FRAGMENTS: 'false' },
      `http://127.0.0.1:${health['semantic-pool']}/readyz`,
    );
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
    useKey(gatewayUrl, identity.operatorKey);
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      { PORT: `${gwPort}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, EXECUTION_ADDR: `127.0.0.1:${exeGrpc}`, SEMANTIC_POOL_ADDR: `127.0.0.1:${poolGrpc}` },
      `${gatewayUrl}/readyz`,
    );
    await start('agent-flight', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gatewayUrl, HEALTH_PORT: `${health.agent}` }, `http://127.0.0.1:${health.agent}/healthz`);
    await waitFor('the example agent to register and publish', async () => {
      const r = await rpc(gatewayUrl, 'list_schemas', { agent: 'skyways-air' });
      return r.body.result?.schemas?.length ? true : undefined;
    });
  }, 240_000);

  afterAll(async () => {
    for (const p of procs.reverse()) {
      const code = await p.stop();
      expect(code, `${p.name} exit code\n${p.output()}`).toBe(0);
    }
    await receiver?.close();
    if (infra) {
      const { jetstreamManager } = await import('@nats-io/jetstream');
      const { connect } = await import('@nats-io/transport-node');
      const nc = await connect({ servers: infra.natsUrl });
      await (await jetstreamManager(nc)).streams.delete(`${prefix.toUpperCase().replace(/-/g, '_')}_EVENTS`).catch(() => {});
      await nc.close();
    }
    await db?.drop();
  }, 60_000);

  it('one execute is one connected trace across the gateway, execution, negotiation, the agent process and the consumers in registry and semantic-pool', async () => {
    const traceId = randomBytes(16).toString('hex');
    const caller = randomBytes(8).toString('hex');
    const res = await fetch(`${gatewayUrl}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.operatorKey}`, traceparent: `00-${traceId}-${caller}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { ...FIGURE_8, client_id: 'tracing-e2e' } }),
    });
    expect(((await res.json()) as { error?: unknown }).error).toBeUndefined();

    const spans = await waitFor(
      'spans from every process of the trace',
      async () => {
        const s = receiver.spans().filter((x) => x.traceId === traceId);
        const consumers = new Set(s.filter((x) => x.kind === 'consumer').map((x) => `${x.service} ${x.name}`));
        const done =
          consumers.has(`parley-registry process ${prefix}.v1.flight_booking.payload.executed`) &&
          consumers.has(`parley-semantic-pool process ${prefix}.v1.flight_booking.other.captured`) &&
          s.some((x) => x.service === 'parley-agent-flight_booking' && x.name === 'execute flight_booking') &&
          // Each process exports on its own timer: wait for all six and for every parent to have arrived.
          new Set(s.map((x) => x.service)).size === 6 &&
          orphans(s, caller).length === 0;
        return done ? s : undefined;
      },
      30_000,
    );
    // One trace, connected: every parent is in it, the root's is the caller's span.
    expect(orphans(spans, caller)).toEqual([]);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['parley-gateway', 'parley-execution', 'parley-negotiation', 'parley-agent-flight_booking', 'parley-registry', 'parley-semantic-pool']));
    const one = (service: string, name: string, kind: TestSpan['kind']) => {
      const s = spans.find((x) => x.service === service && x.name === name && x.kind === kind);
      expect(s, `${service}: ${name} (${kind})`).toBeDefined();
      return s as TestSpan;
    };
    const http = one('parley-gateway', 'POST /rpc', 'server');
    expect(http.parentSpanId).toBe(caller);
    const client = one('parley-gateway', 'parley.v1.ExecutionService/Execute', 'client');
    const server = one('parley-execution', 'parley.v1.ExecutionService/Execute', 'server');
    expect(server.parentSpanId).toBe(client.spanId);
    one('parley-negotiation', 'parley.v1.NegotiationService/GetSchema', 'server');
    const dispatch = one('parley-execution', `send ${prefix}.v1.flight_booking.execute.skyways-air`, 'producer');
    const served = one('parley-agent-flight_booking', `process ${prefix}.v1.flight_booking.execute.skyways-air`, 'consumer');
    expect(served.parentSpanId).toBe(dispatch.spanId);
    const published = one('parley-execution', `send ${prefix}.v1.flight_booking.payload.executed`, 'producer');
    expect(published.parentSpanId).toBe(server.spanId);
    const usage = one('parley-registry', `process ${prefix}.v1.flight_booking.payload.executed`, 'consumer');
    expect(usage.parentSpanId).toBe(published.spanId);
    const pool = one('parley-semantic-pool', `process ${prefix}.v1.flight_booking.other.captured`, 'consumer');
    expect(ancestry(spans, pool)).toEqual(expect.arrayContaining(['send ' + `${prefix}.v1.flight_booking.other.captured`, 'parley.v1.ExecutionService/Execute', 'execute', 'POST /rpc']));
  });

  it('every service serves Prometheus metrics on its health port, the gateway on its own', async () => {
    const text = async (url: string) => {
      const r = await fetch(url);
      expect(r.status, url).toBe(200);
      return r.text();
    };
    const execution = await text(`http://127.0.0.1:${health.execution}/metrics`);
    expect(execution).toMatch(/^parley_executions_total\{scenario="flight_booking",agent="skyways-air",outcome="ok"\} [1-9]/m);
    expect(execution).toMatch(/^parley_outbox_pending\{service="execution"\} \d+/m);
    expect(execution).toMatch(/^parley_grpc_server_requests_total\{service="ExecutionService",method="Execute",outcome="ok"\} [1-9]/m);
    const registry = await text(`http://127.0.0.1:${health.registry}/metrics`);
    expect(registry).toMatch(new RegExp(`^parley_jetstream_consumer_pending_messages\\{consumer="${prefix}-registry-usage"\\} \\d+`, 'm'));
    const pool = await text(`http://127.0.0.1:${health['semantic-pool']}/metrics`);
    expect(pool).toMatch(/^parley_pool_fragments_total\{scenario="flight_booking"\} [1-9]/m);
    for (const port of [health.negotiation, health.agent]) expect(await text(`http://127.0.0.1:${port}/metrics`)).toMatch(/^process_cpu_seconds_total /m);
    const gateway = await text(`${gatewayUrl}/metrics`);
    expect(gateway).toMatch(/^parley_gateway_requests_total\{face="rpc",method="execute",scenario="flight_booking",outcome="ok"\} [1-9]/m);
    // No client id and no payload value is ever a label.
    for (const t of [execution, registry, pool, gateway]) {
      expect(t).not.toContain('tracing-e2e');
      expect(t).not.toContain('PEK');
    }
  });
});
