import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventType, MAX_EVENT_BYTES, createNatsBus, createSubjects, type EventEnvelope, type NatsBus, type Stoppable } from '@parley/events';
import { MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS } from '@parley/evolution';
import { FIGURE_8, createTestDatabase, freePort, integrationInfra, postRaw, rpc, startProcess, testIdentity, uniquePrefix, useKey, waitFor, waitReady, type ServiceProcess } from '@parley/testkit';

/**
 * No message stops the event flow (draft-zhou §6.2 event flow, §4.3 `other`
 * MUST be accepted), on the separate services over real NATS JetStream and
 * PostgreSQL: registry, negotiation, execution, the gateway and the
 * flight-booking example agent, each its own process, as deployed.
 *
 * - An `execute` whose `other` is 1,048,200 × "x" (the body just under the
 *   gateway's 1 MiB limit) is accepted; its other.captured event carries the
 *   fragment bounded, with a count of what was cut, so it fits NATS's
 *   max_payload. Then 100 ordinary executes: every event arrives, in order, and
 *   the registry's usage counter counts all 101.
 * - An outbox row too large for NATS, written past the insert guard as a test
 *   fixture, is set aside in execution's dead letters (visible through
 *   list_dead_letters) while the rows after it are published in seq order.
 */
const infra = integrationInfra('e2e: no message stops the event flow');

describe.skipIf(!infra)('the event flow on NATS + PostgreSQL: bounded events, dead letters, order', () => {
  const procs: ServiceProcess[] = [];
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const identity = testIdentity();
  let gatewayUrl = '';
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Client;
  let bus: NatsBus;
  let observer: Stoppable;
  /** Every event of the stream, in the order the durable observer received them. */
  const received: EventEnvelope[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(infra!.databaseUrl);
    const [regGrpc, negGrpc, exeGrpc, regHealth, negHealth, exeHealth, gwPort, agentHealth] = await Promise.all(Array.from({ length: 8 }, freePort));
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix, EXECUTE_TIMEOUT_MS: '5000' };
    const start = async (name: string, entry: string, env: Record<string, string>, readyUrl: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(readyUrl, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${regGrpc}`, HEALTH_PORT: `${regHealth}` }, `http://127.0.0.1:${regHealth}/readyz`);
    const registry = { REGISTRY_ADDR: `127.0.0.1:${regGrpc}` };
    await start('negotiation', 'apps/negotiation/src/main.ts', { ...registry, GRPC_PORT: `${negGrpc}`, HEALTH_PORT: `${negHealth}` }, `http://127.0.0.1:${negHealth}/readyz`);
    await start(
      'execution',
      'apps/execution/src/main.ts',
      { ...registry, GRPC_PORT: `${exeGrpc}`, HEALTH_PORT: `${exeHealth}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}` },
      `http://127.0.0.1:${exeHealth}/readyz`,
    );
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
    useKey(gatewayUrl, identity.operatorKey);
    // MAX_BODY_BYTES stays at its default, 1 MiB: the big `other` below is just under it.
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      { ...registry, PORT: `${gwPort}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, EXECUTION_ADDR: `127.0.0.1:${exeGrpc}`, RATE_LIMIT_PER_SECOND: '0' },
      `${gatewayUrl}/readyz`,
    );
    await start('agent-flight', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gatewayUrl, HEALTH_PORT: `${agentHealth}` }, `http://127.0.0.1:${agentHealth}/healthz`);
    await waitFor('the example agent to publish its schema', async () => ((await rpc(gatewayUrl, 'list_schemas', { agent: 'skyways-air' })).body.result?.schemas?.length ? true : undefined));
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'e2e-event-flow-observer' });
    observer = await bus.consume({ durable: `${prefix}-observer`, filterSubjects: subjects.streamSubjects() }, async (e) => void received.push(e));
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);

  afterAll(async () => {
    await observer?.stop();
    for (const p of procs.reverse()) {
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

  const usage = async (): Promise<number> => Number((await rpc(gatewayUrl, 'list_agents', { scenario: 'flight_booking' })).body.result.agents[0].executions);
  const mine = (type: string, ids: ReadonlySet<string>) => received.filter((e) => e.type === type && ids.has((e.data as { execution_id: string }).execution_id));
  /** The execution ids of `client`, in commit order. */
  const executionIds = async (client: string): Promise<string[]> =>
    (await sql.query<{ id: string }>('SELECT id::text AS id FROM execution.executions WHERE client_id = $1 ORDER BY executed_at, id', [client])).rows.map((r) => r.id);

  it('accepts a megabyte of `other`, bounds its event, and every later event arrives and is counted', async () => {
    const before = await usage();
    const other = 'x'.repeat(1_048_200);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { ...FIGURE_8, client_id: 'operator', payload: { ...FIGURE_8.payload, other } } });
    expect(Buffer.byteLength(body)).toBeLessThan(1024 * 1024);
    const big = await postRaw(gatewayUrl, body);
    expect(big.status, big.text.slice(0, 300)).toBe(200);
    expect(big.body.error).toBeUndefined();
    expect(big.body.result.status).toBe('confirmed');

    // 100 ordinary executes, ten at a time.
    for (let round = 0; round < 10; round++) {
      const rs = await Promise.all(Array.from({ length: 10 }, () => rpc(gatewayUrl, 'execute', FIGURE_8)));
      for (const r of rs) expect(r.body.error).toBeUndefined();
    }
    const ids = new Set(await executionIds('operator'));
    expect(ids.size).toBe(101);
    await waitFor('every payload.executed and other.captured event', async () => (mine(EventType.PayloadExecuted, ids).length >= 101 && mine(EventType.OtherCaptured, ids).length >= 101 ? true : undefined), 60_000);
    await new Promise((r) => setTimeout(r, 1000)); // room for a duplicate to show up
    expect(mine(EventType.PayloadExecuted, ids)).toHaveLength(101);
    expect(mine(EventType.OtherCaptured, ids)).toHaveLength(101);
    await waitFor('the usage counter', async () => ((await usage()) === before + 101 ? true : undefined), 30_000);
    expect(await usage()).toBe(before + 101);

    // The big one's event is bounded, with a count of what was cut.
    const bigEvent = mine(EventType.OtherCaptured, ids).find((e) => e.type === EventType.OtherCaptured && e.data.truncation !== undefined);
    if (!bigEvent || bigEvent.type !== EventType.OtherCaptured) throw new Error('no truncated other.captured event');
    expect(bigEvent.data.fragments).toEqual(['x'.repeat(MAX_RAW_FRAGMENT_CHARS)]);
    expect(bigEvent.data.truncation).toEqual({ fragments_cut: 1, fragments_dropped: 0, chars_dropped: 1_048_200 - MAX_RAW_FRAGMENT_CHARS });
    expect(Buffer.byteLength(JSON.stringify(bigEvent))).toBeLessThan(MAX_EVENT_BYTES);
    expect(MAX_FRAGMENTS_PER_EVENT).toBeGreaterThan(1);
    // Nothing waits in the outbox, nothing was set aside.
    expect((await sql.query('SELECT count(*)::int AS n FROM execution.outbox WHERE published_at IS NULL')).rows[0].n).toBe(0);
    expect((await sql.query('SELECT count(*)::int AS n FROM execution.dead_letters')).rows[0].n).toBe(0);
    // Published in seq order: the stream order is the outbox order.
    const outboxOrder = (await sql.query<{ id: string }>('SELECT id::text AS id FROM execution.outbox ORDER BY seq')).rows.map((r) => r.id);
    const streamOrder = received.map((e) => e.id).filter((id) => outboxOrder.includes(id));
    expect(streamOrder).toEqual(outboxOrder);
  });

  it('sets aside an outbox row NATS cannot carry, shows it to operators, and publishes the rows after it in order', async () => {
    const before = await usage();
    const client = 'after-fixture';
    const first = await rpc(gatewayUrl, 'execute', { ...FIGURE_8, client_id: client });
    expect(first.body.error).toBeUndefined();
    // The fixture: a payload.executed over NATS's max_payload (1 MiB), inserted past the insert guard.
    const huge: EventEnvelope = {
      id: randomUUID(),
      type: EventType.PayloadExecuted,
      scenario_id: 'flight_booking',
      occurred_at: new Date().toISOString(),
      source: 'e2e-fixture',
      data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: client, keys_present: ['y'.repeat(1_100_000)], key_type_correct: {}, defaults_applied: [], duration_ms: 1 },
    };
    await sql.query('INSERT INTO execution.outbox (id, subject, event, created_at) VALUES ($1, $2, $3::json, now())', [huge.id, subjects.event('flight_booking', huge.type), JSON.stringify(huge)]);
    for (let i = 0; i < 10; i++) expect((await rpc(gatewayUrl, 'execute', { ...FIGURE_8, client_id: client })).body.error).toBeUndefined();

    const ids = new Set(await executionIds(client));
    expect(ids.size).toBe(11);
    await waitFor('the executions after the fixture', async () => (mine(EventType.PayloadExecuted, ids).length >= 11 ? true : undefined), 30_000);
    await waitFor('the usage counter', async () => ((await usage()) === before + 11 ? true : undefined), 30_000);
    // In order: the executions' events reach the stream in their outbox order, the fixture's place skipped.
    const seqOrder = (await sql.query<{ id: string }>("SELECT id::text AS id FROM execution.outbox WHERE event->>'type' = 'payload.executed' AND event->'data'->>'client_id' = $1 ORDER BY seq", [client])).rows.map((r) => r.id);
    expect(seqOrder).toHaveLength(11);
    expect(mine(EventType.PayloadExecuted, ids).map((e) => e.id)).toEqual(seqOrder);
    expect(received.some((e) => e.id === huge.id)).toBe(false);

    const listed = await rpc(gatewayUrl, 'list_dead_letters', { service: 'execution' });
    expect(listed.body.error).toBeUndefined();
    expect(listed.body.result.total_dead).toBe(1);
    expect(listed.body.result.services[0].dead_letters).toEqual([
      expect.objectContaining({ source: 'outbox', event_id: huge.id, event_type: 'payload.executed', scenario_id: 'flight_booking', status: 'dead', subject: subjects.event('flight_booking', huge.type) }),
    ]);
    expect(listed.body.result.services[0].dead_letters[0].error).toMatch(/^event_too_large: \d+ bytes exceed the limit of \d+ bytes$/);
    // Asked of every service, each answers (those this gateway reaches) with its counts.
    const all = await rpc(gatewayUrl, 'list_dead_letters', {});
    expect(all.body.result.services.map((s: { service: string }) => s.service)).toEqual(['registry', 'negotiation', 'execution']);
    expect(all.body.result.unavailable.map((u: { service: string }) => u.service)).toEqual(['semantic-pool', 'evolution']);
    expect(all.body.result.total_dead).toBe(1);
  });
});
