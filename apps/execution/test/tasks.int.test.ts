import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { TaskServiceService, createGrpcClient, type GrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects, type Bus, type Stoppable } from '@parley/events';
import { collectEvents, type CollectedEvents } from '@parley/events/testing';
import { ParleyError } from '@parley/protocol';
import { createLogger, systemClock } from '@parley/runtime';
import { openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, keyedAuthenticator, testIdentity, uniquePrefix } from '@parley/testkit';
import { startExecution, type RunningExecution } from '../src/index';
import type { ToAgent } from '../src/tasks/wire';
import { baseTemplate, fakeNegotiation } from './helpers';

// AN tasks on PostgreSQL and NATS JetStream: dispatch over core NATS
// request/reply, notifications from the agent over NATS, every state change
// committed with its task.status events and published through the outbox to
// the parties' subjects, TaskResultSubscribe over gRPC, and an agent
// (subject token) whose AN name holds a dot.
const infra = integrationInfra('execution-tasks');

describe.skipIf(!infra)('AN tasks on PostgreSQL and NATS', () => {
  const subjects = createSubjects(uniquePrefix());
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Db;
  let bus: Bus;
  let execution: RunningExecution;
  let grpc: GrpcClient<typeof TaskServiceService>;
  let agent: Stoppable;
  let events: CollectedEvents;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const AGENT = 'ietf-acme-ip-1.0';
  // Draft-zhou §7: every gRPC call is authenticated; the sender calls with its own key (its principal is its send_from).
  const { authenticator, keys } = keyedAuthenticator(testIdentity().serviceToken, [
    { id: 'ops-agent', roles: ['client_agent'] },
    { id: 'other-agent', roles: ['client_agent'] },
  ]);
  const messagesOf = async (taskId: string) => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.task_messages WHERE task_id = $1', [taskId])).rows[0]!.n);
  const subscriptionsOf = async (taskId: string) => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.subscriptions WHERE task_id = $1', [taskId])).rows[0]!.n);

  beforeAll(async () => {
    testDb = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(testDb.url, { applicationName: 'execution-tasks-int' });
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'execution-tasks-int' });
    execution = await startExecution({
      db,
      bus,
      subjects,
      negotiation: fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => Date.now() }),
      clock: systemClock,
      log: createLogger({ level: 'silent' }),
      timeoutMs: 3000,
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      tasks: { livePollMs: 500 },
      authenticator,
    });
    grpc = createGrpcClient(TaskServiceService, `127.0.0.1:${execution.port}`, { credential: keys['ops-agent'] });
    agent = await bus.serve(subjects.task(AGENT), AGENT, async (body) => {
      const m = JSON.parse(dec.decode(body)) as ToAgent;
      if (m.kind !== 'assign') return enc.encode(JSON.stringify({ ok: true }));
      const reply = m.task.task_async ? { ok: true, accepted: true, status: 'processing' } : { ok: true, result: { diagnosis: 'fiber cut', at: m.task.prompt?.target_object } };
      return enc.encode(JSON.stringify(reply));
    });
    events = await collectEvents(bus, { durable: `${subjects.prefix}-ops`, filterSubjects: [subjects.taskStatus('ops-agent')] });
  });

  afterAll(async () => {
    await events?.stop();
    await agent?.stop();
    grpc?.close();
    await execution?.stop();
    await bus?.close();
    const nc = await connect({ servers: infra!.natsUrl });
    await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
    await nc.drain();
    await db?.close();
    await testDb?.drop();
  });

  const content = '##target object\nlink 3\n##task description\ndiagnose\n##environmental information\nalarm storm';

  async function notify(params: Record<string, unknown>): Promise<unknown> {
    const raw = await bus.request(subjects.taskService(), enc.encode(JSON.stringify({ kind: 'notify', params })), { timeoutMs: 3000 });
    const r = JSON.parse(dec.decode(raw)) as { ok: boolean; result?: unknown; error?: never };
    if (!r.ok) throw ParleyError.fromJSON(r.error as never);
    return r.result;
  }

  it('runs a sync and an async task; the sender gets every change on its subject, in order', async () => {
    const base = { send_from: 'ops-agent', send_to: AGENT, content, term_explains: [], msg_data: [], data_params: [] };
    const sync = await grpc.api.taskAssign({ ...base, task_async: false });
    expect(sync.task).toMatchObject({ status: 'finished', result: { diagnosis: 'fiber cut', at: 'link 3' } });

    const async_ = await grpc.api.taskAssign({ ...base, task_async: true });
    const id = async_.task!.task_id;
    expect(async_.task!.status).toBe('processing');
    // Resume a stream after seq 1 while the agent reports.
    const streamed = (async () => {
      const out: string[] = [];
      for await (const n of grpc.api.taskResultSubscribe({ task_id: id, send_from: 'ops-agent', after_seq: 1 })) out.push(`${n.seq}:${n.status}`);
      return out;
    })();
    await notify({ task_id: id, send_from: AGENT, status: 'blocked' });
    await notify({ task_id: id, send_from: AGENT, status: 'processing' });
    await notify({ task_id: id, send_from: AGENT, status: 'finished', result: { repaired: true } });
    const illegal = await notify({ task_id: id, send_from: AGENT, status: 'processing' }).catch((e: unknown) => e);
    expect(illegal).toMatchObject({ type: 'illegal_transition' });
    expect(await streamed).toEqual(['2:processing', '3:blocked', '4:processing', '5:finished']);

    await execution.drainOutbox();
    const got = await events.waitFor(8, 15_000);
    const byTask = (t: string) => got.filter((e) => (e.data as { task_id: string }).task_id === t).map((e) => (e.data as { seq: number; status: string }).status);
    expect(byTask(sync.task!.task_id)).toEqual(['created', 'processing', 'finished']);
    expect(byTask(id)).toEqual(['created', 'processing', 'blocked', 'processing', 'finished']);
    const q = await grpc.api.taskResultQuery({ task_id: id, send_from: 'ops-agent' });
    expect(q.task).toMatchObject({ status: 'finished', last_seq: 5, result: { repaired: true } });
  });

  it('answers agent_unavailable for an agent nobody serves', async () => {
    const e = await grpc.api
      .taskAssign({ send_from: 'ops-agent', send_to: 'nobody', content, task_async: false, term_explains: [], msg_data: [], data_params: [] })
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ type: 'agent_unavailable' });
  });

  it('authenticates every call and keeps a task to its parties: no credential is unauthenticated, another client is forbidden', async () => {
    const base = { send_from: 'ops-agent', send_to: AGENT, content, task_async: false, term_explains: [], msg_data: [], data_params: [] };
    const id = (await grpc.api.taskAssign(base)).task!.task_id;
    const anonymous = createGrpcClient(TaskServiceService, `127.0.0.1:${execution.port}`);
    const other = createGrpcClient(TaskServiceService, `127.0.0.1:${execution.port}`, { credential: keys['other-agent'] });
    try {
      const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.tasks');
      expect(await anonymous.api.taskAssign(base).catch((x: unknown) => x)).toMatchObject({ type: 'unauthenticated', path: 'headers.authorization', rule: 'credentials_required' });
      expect(await anonymous.api.taskResultQuery({ task_id: id, send_from: 'ops-agent' }).catch((x: unknown) => x)).toMatchObject({ type: 'unauthenticated' });
      // Another client may not act as ops-agent, neither to assign nor to read its task.
      expect(await other.api.taskAssign(base).catch((x: unknown) => x)).toMatchObject({ type: 'forbidden', path: 'params.send_from', rule: 'send_from_is_principal' });
      expect(await other.api.taskResultQuery({ task_id: id, send_from: 'ops-agent' }).catch((x: unknown) => x)).toMatchObject({ type: 'forbidden', rule: 'send_from_is_principal' });
      expect(await other.api.taskContext({ task_id: id, after_seq: 0 }).catch((x: unknown) => x)).toMatchObject({ type: 'task_not_found' });
      const streamed = await (async () => {
        for await (const _ of other.api.taskResultSubscribe({ task_id: id, send_from: 'ops-agent', after_seq: 0 })) return 'got a notification';
        return 'ended';
      })().catch((x: unknown) => x);
      expect(streamed).toMatchObject({ type: 'forbidden', rule: 'send_from_is_principal' });
      const after = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.tasks');
      expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
      // The party itself still sees it.
      expect((await grpc.api.taskContext({ task_id: id, after_seq: 0 })).messages.length).toBeGreaterThan(0);
    } finally {
      anonymous.close();
      other.close();
    }
  });

  // access.ts: "binding send_from to the principal makes a task visible to its parties only". An outsider
  // naming itself as send_from is not a party of ops-agent's task: it must learn nothing of the task
  // (its result, its notifications) and leave no trace in it.
  it('keeps a task from an outsider acting as itself: query, stream and subscription are refused and store nothing', async () => {
    const base = { send_from: 'ops-agent', send_to: AGENT, content, task_async: false, term_explains: [], msg_data: [], data_params: [] };
    const id = (await grpc.api.taskAssign(base)).task!.task_id;
    const other = createGrpcClient(TaskServiceService, `127.0.0.1:${execution.port}`, { credential: keys['other-agent'] });
    try {
      const [messages, subscriptions] = [await messagesOf(id), await subscriptionsOf(id)];
      const refused = (e: unknown) => e instanceof ParleyError && ['task_not_found', 'forbidden'].includes(e.type);
      const query = await other.api.taskResultQuery({ task_id: id, send_from: 'other-agent' }).catch((x: unknown) => x);
      const streamed = await (async () => {
        const got: unknown[] = [];
        for await (const n of other.api.taskResultSubscribe({ task_id: id, send_from: 'other-agent', after_seq: 0 })) got.push(n);
        return got;
      })().catch((x: unknown) => x);
      const sub = await other.api.registerTaskSubscription({ task_id: id, send_from: 'other-agent', subscription: { protocol: 'nats' }, after_seq: 0 }).catch((x: unknown) => x);
      const answered = (x: unknown) => (x instanceof ParleyError ? x.type : JSON.stringify(x).slice(0, 300));
      expect(
        { taskResultQuery: refused(query), taskResultSubscribe: refused(streamed), registerTaskSubscription: refused(sub) },
        `answered: ${JSON.stringify({ taskResultQuery: answered(query), taskResultSubscribe: answered(streamed), registerTaskSubscription: answered(sub) })}`,
      ).toEqual({ taskResultQuery: true, taskResultSubscribe: true, registerTaskSubscription: true });
      expect(await messagesOf(id)).toBe(messages);
      expect(await subscriptionsOf(id)).toBe(subscriptions);
    } finally {
      other.close();
    }
  });
});
