import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { jetstreamManager } from '@nats-io/jetstream';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { EventType, createNatsBus, createSubjects, type EventEnvelope, type NatsBus, type Stoppable } from '@parley/events';
import { createTestDatabase, freePort, integrationInfra, rpc, startProcess, testIdentity, uniquePrefix, useKey, waitFor, waitReady, type ServiceProcess } from '@parley/testkit';

/**
 * Safe retries under a crash (draft-zhou §3.2 steps (4)-(6)), on the separate
 * services over real NATS JetStream and PostgreSQL: 20 clients execute
 * concurrently, each call with its own idempotency key, while the execution
 * process is killed (SIGKILL: no shutdown, calls in flight are cut off, some
 * after the agent booked and before the execution committed) and started
 * again, twice. Every failed call is retried with its key until it succeeds.
 *
 * Afterwards: execution rows = distinct keys, bookings at the agent = distinct
 * keys (each booked once), payload.executed events = rows, and every client got
 * the booking the agent made for its key: no double booking.
 */
const infra = integrationInfra('e2e: idempotent execute across a SIGKILL of execution');
const CLIENTS = 20;
const PER_CLIENT = 10;
const KEYS = CLIENTS * PER_CLIENT;

const TEMPLATE = {
  schema_id: 'kill_probe_v1',
  scenario: 'kill_probe',
  keys: [
    { key_name: 'seats', key_type: 'integer', required: true, semantic_description: 'How many seats to book.' },
    { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Anything else.' },
  ],
};

describe.skipIf(!infra)('idempotent execute across a SIGKILL of the execution process', () => {
  const procs: ServiceProcess[] = [];
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const identity = testIdentity();
  let gatewayUrl = '';
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Client;
  let bus: NatsBus;
  let observer: Stoppable;
  let agent: Agent;
  let startExecution: () => Promise<ServiceProcess>;
  let execution: ServiceProcess;
  const received: EventEnvelope[] = [];
  /** The agent's bookings: key → the bookings made under it (one each, or the test fails). */
  const bookings = new Map<string, string[]>();
  let handlerCalls = 0;
  /** The execution_id of every dispatch to the agent (a key's execution may be dispatched again after a kill). */
  const dispatches: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(infra!.databaseUrl);
    const [regGrpc, negGrpc, exeGrpc, regHealth, negHealth, exeHealth, gwPort] = await Promise.all(Array.from({ length: 7 }, freePort));
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix, EXECUTE_TIMEOUT_MS: '3000' };
    const start = async (name: string, entry: string, env: Record<string, string>, readyUrl: string): Promise<ServiceProcess> => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(readyUrl, p);
      return p;
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${regGrpc}`, HEALTH_PORT: `${regHealth}` }, `http://127.0.0.1:${regHealth}/readyz`);
    const registry = { REGISTRY_ADDR: `127.0.0.1:${regGrpc}` };
    await start('negotiation', 'apps/negotiation/src/main.ts', { ...registry, GRPC_PORT: `${negGrpc}`, HEALTH_PORT: `${negHealth}` }, `http://127.0.0.1:${negHealth}/readyz`);
    startExecution = () =>
      start(
        'execution',
        'apps/execution/src/main.ts',
        { ...registry, GRPC_PORT: `${exeGrpc}`, HEALTH_PORT: `${exeHealth}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}` },
        `http://127.0.0.1:${exeHealth}/readyz`,
      );
    execution = await startExecution();
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
    useKey(gatewayUrl, identity.operatorKey);
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      { ...registry, PORT: `${gwPort}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, EXECUTION_ADDR: `127.0.0.1:${exeGrpc}`, RATE_LIMIT_PER_SECOND: '0' },
      `${gatewayUrl}/readyz`,
    );
    // The test agent books: a few ms of work per payload, so that calls are in flight when execution dies.
    agent = await createAgent({ name: 'kill-air', natsUrl: infra!.natsUrl, prefix });
    await agent.serve('kill_probe', async (payload, ctx) => {
      handlerCalls++;
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 60)));
      const booking = `BK-${ctx.execution_id.slice(0, 8)}`;
      const key = ctx.idempotency_key ?? `no-key:${ctx.execution_id}`;
      bookings.set(key, [...(bookings.get(key) ?? []), booking]);
      return { booking, seats: payload.seats as number };
    });
    expect((await rpc(gatewayUrl, 'register_agent', { name: 'kill-air', scenarios: ['kill_probe'] })).body.error).toBeUndefined();
    expect((await rpc(gatewayUrl, 'publish_schema', { agent: 'kill-air', template: TEMPLATE })).body.error).toBeUndefined();
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'e2e-sigkill-observer' });
    // A plain subscription (outside the agent's queue group) sees a copy of every dispatch.
    bus.connection.subscribe(subjects.execute('kill_probe', 'kill-air'), {
      callback: (_err, m) => {
        const d = JSON.parse(new TextDecoder().decode(m.data)) as { execution_id: string };
        dispatches.push(d.execution_id);
      },
    });
    observer = await bus.consume({ durable: `${prefix}-observer`, filterSubjects: [subjects.event('kill_probe', EventType.PayloadExecuted)] }, async (e) => void received.push(e));
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);

  afterAll(async () => {
    await observer?.stop();
    await agent?.close();
    for (const p of procs.reverse()) {
      if (p.child.signalCode === 'SIGKILL') continue;
      const code = await p.stop();
      expect(code, `${p.name} exit code\n${p.output()}`).toBe(0);
    }
    await sql?.end();
    if (bus) {
      await (await jetstreamManager(bus.connection)).streams.delete(subjects.stream).catch(() => {});
      await bus.close();
    }
    await db?.drop();
  }, 60_000);

  it('executes each key once: rows = bookings = events = distinct keys, and every client gets its own booking', async () => {
    const figures = { calls: 0, failed: 0, replayed: 0, kills: 0, errors: new Map<string, number>() };
    const results = new Map<string, { booking: string; seats: number }>();
    let succeeded = 0;

    /** One execute with its key, retried until it succeeds; a refusal that is not retryable fails the test. */
    const executeWithRetries = async (client: string, key: string, seats: number): Promise<void> => {
      const until = Date.now() + 90_000;
      for (;;) {
        figures.calls++;
        let status = 0;
        let body: { result?: { booking: string; seats: number }; error?: { data: { type: string; retryable: boolean } } } | undefined;
        let replayed = false;
        try {
          const r = await fetch(`${gatewayUrl}/rpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${identity.operatorKey}`, 'idempotency-key': key },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'kill_probe_v1', client_id: client, payload: { seats } } }),
            signal: AbortSignal.timeout(20_000),
          });
          status = r.status;
          replayed = r.headers.get('idempotent-replayed') === 'true';
          body = (await r.json()) as typeof body;
        } catch (e) {
          body = { error: { data: { type: `fetch: ${(e as Error).name}`, retryable: true } } };
        }
        if (status === 200 && body?.result) {
          results.set(key, body.result);
          if (replayed) figures.replayed++;
          succeeded++;
          return;
        }
        const type = body?.error?.data.type ?? `http ${status}`;
        figures.failed++;
        figures.errors.set(type, (figures.errors.get(type) ?? 0) + 1);
        if (body?.error?.data.retryable !== true) throw new Error(`${key}: not retryable: ${JSON.stringify(body)}`);
        if (Date.now() > until) throw new Error(`${key}: still failing after 90 s: ${type}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    const clients = Array.from({ length: CLIENTS }, async (_, j) => {
      for (let i = 0; i < PER_CLIENT; i++) await executeWithRetries(`client-${j}`, `k-${j}-${i}`, 1 + ((i + j) % 9));
    });
    // The killer: twice, once a fifth and once three fifths of the keys have succeeded.
    const killer = (async () => {
      for (const at of [KEYS / 5, (3 * KEYS) / 5]) {
        await waitFor(`${at} keys done`, async () => (succeeded >= at ? true : undefined), 120_000, 20);
        execution.child.kill('SIGKILL');
        await new Promise<void>((r) => execution.child.once('exit', () => r()));
        figures.kills++;
        await new Promise((r) => setTimeout(r, 300));
        execution = await startExecution();
      }
    })();
    await Promise.all([...clients, killer]);
    console.log(
      `[sigkill] keys ${KEYS}, calls ${figures.calls}, failed calls ${figures.failed} (${[...figures.errors].map(([t, n]) => `${t} ${n}`).join(', ')}), answered as replays ${figures.replayed}, kills ${figures.kills}, agent handler calls ${handlerCalls}, dispatches ${dispatches.length} (${dispatches.length - new Set(dispatches).size} of an execution_id already dispatched)`,
    );
    expect(figures.kills).toBe(2);
    // The kills cut calls off: the retries were needed.
    expect(figures.failed).toBeGreaterThan(0);

    // Rows = distinct keys, each with its key.
    const rows = (await sql.query<{ n: number; keys: number }>("SELECT count(*)::int AS n, count(DISTINCT (client_id, idempotency_key))::int AS keys FROM execution.executions WHERE schema_id = 'kill_probe_v1'")).rows[0]!;
    expect(rows).toEqual({ n: KEYS, keys: KEYS });
    // Bookings at the agent = distinct keys, each booked once, and each client got the booking made for its key.
    expect(bookings.size).toBe(KEYS);
    expect([...bookings.values()].filter((b) => b.length !== 1)).toEqual([]);
    expect(handlerCalls).toBe(KEYS);
    // A key's execution keeps its execution_id however often it is dispatched: one id per key.
    expect(new Set(dispatches).size).toBe(KEYS);
    for (const [key, r] of results) expect(r.booking, key).toBe(bookings.get(key)?.[0]);
    expect(results.size).toBe(KEYS);
    // Events = rows: the outbox holds one payload.executed per row, every one reaches the stream once.
    const outbox = (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM execution.outbox WHERE event->>'type' = 'payload.executed' AND event->'data'->>'schema_id' = 'kill_probe_v1'")).rows[0]!;
    expect(outbox.n).toBe(KEYS);
    await waitFor('every payload.executed on the stream', async () => (received.length >= KEYS ? true : undefined), 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(received).toHaveLength(KEYS);
    expect(new Set(received.map((e) => (e.data as { execution_id: string }).execution_id)).size).toBe(KEYS);
    // Every key is done; none is left reserved.
    expect((await sql.query("SELECT state, count(*)::int AS n FROM execution.idempotency_keys GROUP BY state")).rows).toEqual([{ state: 'done', n: KEYS }]);
  }, 300_000);
});
