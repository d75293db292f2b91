import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createNatsBus, createSubjects, EventType, type Bus, type EventEnvelope, type Stoppable } from '@parley/events';
import {
  FIGURE_8,
  SILENT_TEMPLATE,
  badInputCases,
  createTestDatabase,
  freePort,
  integrationInfra,
  rpc,
  startProcess,
  testIdentity,
  uniquePrefix,
  useKey,
  waitFor,
  waitReady,
  type ServiceProcess,
} from '@parley/testkit';

/**
 * The foundation end to end: registry, negotiation, execution, gateway and the
 * flight-booking example agent as separate Node processes, on the real NATS
 * JetStream and PostgreSQL of this machine (or testcontainers').
 */
const infra = integrationInfra('e2e: services as separate processes');
const MAX_BODY = 64 * 1024;

describe.skipIf(!infra)('Parley services as separate processes on NATS + PostgreSQL', () => {
  const procs: ServiceProcess[] = [];
  let gatewayUrl = '';
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Client;
  let bus: Bus;
  let silent: Agent;
  let events: Stoppable;
  const received: EventEnvelope[] = [];
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  // draft-zhou §7: one identity for every process of this file; the test calls the gateway as the bootstrapped operator.
  const identity = testIdentity();

  beforeAll(async () => {
    db = await createTestDatabase(infra!.databaseUrl);
    const [regGrpc, negGrpc, exeGrpc, regHealth, negHealth, exeHealth, gwPort, agentHealth] = await Promise.all(Array.from({ length: 8 }, freePort));
    // PARLEY_AUTH_CACHE_MS: a revoked key stops working within half a second (the revocation case below).
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix, PARLEY_AUTH_CACHE_MS: '500' };
    const start = async (name: string, entry: string, env: Record<string, string>, readyUrl: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(readyUrl, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${regGrpc}`, HEALTH_PORT: `${regHealth}` }, `http://127.0.0.1:${regHealth}/readyz`);
    await start(
      'negotiation',
      'apps/negotiation/src/main.ts',
      { GRPC_PORT: `${negGrpc}`, HEALTH_PORT: `${negHealth}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}` },
      `http://127.0.0.1:${negHealth}/readyz`,
    );
    await start(
      'execution',
      'apps/execution/src/main.ts',
      // REGISTRY_ADDR: the gateway forwards its callers' API keys, which execution checks at the registry.
      { GRPC_PORT: `${exeGrpc}`, HEALTH_PORT: `${exeHealth}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}`, EXECUTE_TIMEOUT_MS: '1500' },
      `http://127.0.0.1:${exeHealth}/readyz`,
    );
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
    useKey(gatewayUrl, identity.operatorKey);
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      {
        PORT: `${gwPort}`,
        REGISTRY_ADDR: `127.0.0.1:${regGrpc}`,
        NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`,
        EXECUTION_ADDR: `127.0.0.1:${exeGrpc}`,
        MAX_BODY_BYTES: `${MAX_BODY}`,
        EXECUTE_TIMEOUT_MS: '1500',
      },
      `${gatewayUrl}/readyz`,
    );
    // The example agent registers itself and publishes flight_booking_v1 through the gateway.
    await start('agent-flight', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gatewayUrl, HEALTH_PORT: `${agentHealth}` }, `http://127.0.0.1:${agentHealth}/healthz`);
    await waitFor('the example agent to register and publish', async () => {
      const r = await rpc(gatewayUrl, 'list_schemas', { agent: 'skyways-air' });
      return r.body.result?.schemas?.length ? true : undefined;
    });

    // A test-side view of the event stream and an agent that never answers.
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'e2e-observer' });
    events = await bus.consume({ durable: `${prefix}-e2e-observer`, filterSubjects: subjects.streamSubjects() }, async (e) => {
      received.push(e);
    });
    silent = await createAgent({ name: 'silent-agent', natsUrl: infra!.natsUrl, prefix });
    await silent.serve('silent_probe', () => new Promise(() => {}));
    expect((await rpc(gatewayUrl, 'register_agent', { name: 'silent-agent', scenarios: ['silent_probe'] })).body.error).toBeUndefined();
    expect((await rpc(gatewayUrl, 'publish_schema', { agent: 'silent-agent', template: SILENT_TEMPLATE })).body.error).toBeUndefined();

    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);

  afterAll(async () => {
    await events?.stop();
    await silent?.close();
    for (const p of procs.reverse()) {
      const code = await p.stop();
      // Graceful shutdown: every service exits 0 on SIGTERM.
      expect(code, `${p.name} exit code\n${p.output()}`).toBe(0);
    }
    await sql?.end();
    if (bus) {
      const { jetstreamManager } = await import('@nats-io/jetstream');
      const { connect } = await import('@nats-io/transport-node');
      const nc = await connect({ servers: infra!.natsUrl });
      await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
      await nc.close();
      await bus.close();
    }
    await db?.drop();
  }, 60_000);

  const countExecutions = async () => Number((await sql.query('SELECT count(*)::int AS n FROM execution.executions')).rows[0].n);

  it('registers the example agent (register_agent through the gateway) and discovers it by scenario, tag and domain', async () => {
    const byScenario = await rpc(gatewayUrl, 'list_agents', { scenario: 'flight_booking' });
    expect(byScenario.body.result.agents.map((a: { name: string }) => a.name)).toEqual(['skyways-air']);
    const agent = byScenario.body.result.agents[0];
    expect(agent.scenarios).toEqual(['flight_booking']);
    const byTag = await rpc(gatewayUrl, 'list_agents', { tag: agent.tags[0] });
    expect(byTag.body.result.agents.map((a: { name: string }) => a.name)).toContain('skyways-air');
    const byDomain = await rpc(gatewayUrl, 'list_agents', { domain: agent.domain });
    expect(byDomain.body.result.agents.map((a: { name: string }) => a.name)).toContain('skyways-air');
  });

  it('negotiates (Figure 6 -> the flight_booking_v1 template) and executes Figure 8; payload.executed and other.captured each arrive exactly once', async () => {
    const t = await rpc(gatewayUrl, 'get_schema_template', { scenario: 'flight_booking', preferred_language: 'en-US' });
    expect(t.body.error).toBeUndefined();
    expect(t.body.result.schema_id).toBe('flight_booking_v1');

    const before = await countExecutions();
    const r = await rpc(gatewayUrl, 'execute', { ...FIGURE_8, client_id: 'assistant-e2e' });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.status).toBe('confirmed');
    expect(Object.keys(r.body.result)).toEqual(
      expect.arrayContaining(['booking_id', 'status', 'flight_number', 'departure_time', 'arrival_time', 'seat', 'total_amount', 'schema_update_suggestion']),
    );
    expect(await countExecutions()).toBe(before + 1);

    const mine = () => received.filter((e) => (e.type === EventType.PayloadExecuted || e.type === EventType.OtherCaptured) && e.data.client_id === 'assistant-e2e');
    await waitFor('both events', async () => (mine().length >= 2 ? true : undefined));
    await new Promise((res) => setTimeout(res, 1500)); // room for a duplicate to show up
    const executed = mine().filter((e) => e.type === EventType.PayloadExecuted);
    const captured = mine().filter((e) => e.type === EventType.OtherCaptured);
    expect(executed).toHaveLength(1);
    expect(captured).toHaveLength(1);
    const ex = executed[0]!;
    if (ex.type !== EventType.PayloadExecuted) throw new Error('unreachable');
    expect(ex.scenario_id).toBe('flight_booking');
    expect(ex.data.schema_id).toBe('flight_booking_v1');
    expect(ex.data.keys_present.sort()).toEqual(['cabin_class', 'departure_date', 'destination', 'origin', 'other', 'passenger_count']);
    expect(Object.values(ex.data.key_type_correct).every(Boolean)).toBe(true);
    expect(JSON.stringify(ex)).not.toContain('PEK'); // keys, never payload values
    const cap = captured[0]!;
    if (cap.type !== EventType.OtherCaptured) throw new Error('unreachable');
    expect(cap.data.fragments).toEqual(['window seat']);
    expect(cap.data.execution_id).toBe(ex.data.execution_id);
    // The outbox row is marked published.
    const pending = await sql.query('SELECT count(*)::int AS n FROM execution.outbox WHERE published_at IS NULL');
    expect(pending.rows[0].n).toBe(0);
    // The registry's durable consumer counted the execution.
    await waitFor('usage count', async () => {
      const a = await rpc(gatewayUrl, 'list_agents', { scenario: 'flight_booking' });
      return a.body.result.agents[0].executions >= 1 ? true : undefined;
    });
  });

  it('authenticates every call: no or an unknown key is 401, a client key is kept to its role and its own client id, a revoked key stops working', async () => {
    const me = await rpc(gatewayUrl, 'whoami');
    expect(me.body.result).toMatchObject({ principal: 'operator', roles: ['operator'] });
    const before = await countExecutions();
    for (const key of [null, `pk_${'0'.repeat(16)}_${'A'.repeat(43)}`, 'not-a-key']) {
      const r = await rpc(gatewayUrl, 'execute', { ...FIGURE_8, client_id: 'assistant-e2e' }, key);
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.body.error.data).toMatchObject({ type: 'unauthenticated', path: 'headers.authorization' });
    }
    expect(await countExecutions()).toBe(before);

    const created = await rpc(gatewayUrl, 'create_api_key', { principal: 'client-e2e', roles: ['client_agent'], description: 'e2e client' });
    expect(created.body.error).toBeUndefined();
    const clientKey = created.body.result.key as string;
    expect((await rpc(gatewayUrl, 'whoami', undefined, clientKey)).body.result).toMatchObject({ principal: 'client-e2e', roles: ['client_agent'] });
    // Operator and server-agent methods are refused to a client (403 forbidden, the role rule).
    for (const [method, params] of [
      ['create_api_key', { principal: 'mallory', roles: ['operator'] }],
      ['register_agent', { name: 'client-agent', scenarios: ['flight_booking'] }],
    ] as const) {
      const r = await rpc(gatewayUrl, method, params, clientKey);
      expect(r.status, `${method}: ${JSON.stringify(r.body)}`).toBe(403);
      expect(r.body.error.data).toMatchObject({ type: 'forbidden', rule: 'role' });
    }
    // A client executes only as itself.
    const other = await rpc(gatewayUrl, 'execute', { ...FIGURE_8, client_id: 'assistant-e2e' }, clientKey);
    expect(other.body.error?.data).toMatchObject({ type: 'forbidden', path: 'params.client_id', rule: 'client_id_is_principal' });
    expect(await countExecutions()).toBe(before);
    const own = await rpc(gatewayUrl, 'execute', FIGURE_8, clientKey);
    expect(own.body.error).toBeUndefined();
    expect(own.body.result.status).toBe('confirmed');
    await waitFor('payload.executed for the client', async () =>
      received.some((e) => e.type === EventType.PayloadExecuted && e.data.client_id === 'client-e2e') ? true : undefined,
    );

    const revoked = await rpc(gatewayUrl, 'revoke_api_key', { key_id: created.body.result.api_key.key_id });
    expect(revoked.body.error).toBeUndefined();
    await waitFor('the revoked key to be refused', async () => ((await rpc(gatewayUrl, 'whoami', undefined, clientKey)).status === 401 ? true : undefined), 10_000, 200);
  });

  describe('bad input over JSON-RPC', () => {
    badInputCases({ url: () => gatewayUrl, countExecutions: () => countExecutions(), maxBodyBytes: MAX_BODY, silentSchemaId: SILENT_TEMPLATE.schema_id });
  });
});
