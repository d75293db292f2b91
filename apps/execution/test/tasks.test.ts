import { serviceOnlyAuthenticator, testIdentity } from '@parley/testkit';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRPC_TRANSPORTS, TaskServiceService, createGrpcClient, type GrpcClient, type GrpcTransport, type TaskApi, type TaskAssignRequest } from '@parley/contracts';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { collectEvents, delay } from '@parley/events/testing';
import { verifyWebhookSignature } from '@parley/an';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { startExecution, type RunningExecution } from '../src/index';
import type { ToAgent, WireTask } from '../src/tasks/wire';
import { T0, baseTemplate, fakeNegotiation } from './helpers';

// AN tasks (draft 004 §4.2-4.5, §5.2-5.4) in the execution service, on PGlite
// and the in-process bus, through the real gRPC server where it matters
// (server streaming). Agents are raw bus handlers speaking the task wire.
const subjects = createSubjects('anexec');
const started = Date.now();
/** Time as an input: 2026-05-01 plus the real time elapsed (monotonic, so webhook retries come due). */
const clock = { now: () => new Date(T0 + (Date.now() - started)) };
let db: Db;
let bus: Bus;
let execution: RunningExecution;
let tasks: TaskApi;
let grpc: GrpcClient<typeof TaskServiceService>;
/** The streaming suites run over each transport of the gRPC contracts (HTTP/2, and in process as the one-process mode calls it). */
const clients = new Map<GrpcTransport, GrpcClient<typeof TaskServiceService>>();
const stops: (() => Promise<void>)[] = [];

const PROMPT = [
  '<content namespace="prompt">',
  '##target object',
  '<object>base station cluster 17</object>',
  '##task description',
  '<description>diagnose the batch outage of the cluster</description>',
  '##environmental information',
  '<environmentInput>IP link 3 interrupted at 10:02</environmentInput>',
].join('\n');

const SERVICE_TOKEN = testIdentity().serviceToken; // the credential of this test's calls (draft-zhou §7)

beforeAll(async () => {
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects });
  execution = await startExecution({
    db,
    bus,
    subjects,
    negotiation: fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => clock.now().getTime() }),
    clock,
    log: createLogger({ level: 'silent' }),
    timeoutMs: 1000,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    tasks: {
      maxNegotiationRounds: 3,
      chunks: { maxBytes: 64, maxChunks: 8 },
      livePollMs: 200,
      webhooks: { pollMs: 50, baseBackoffMs: 50, maxBackoffMs: 200, requestTimeoutMs: 1000, allow: 'http://127.0.0.1:*,http://localhost:*' },
    },
    authenticator: serviceOnlyAuthenticator(SERVICE_TOKEN),
  });
  tasks = execution.tasks;
  for (const transport of GRPC_TRANSPORTS) clients.set(transport, createGrpcClient(TaskServiceService, `127.0.0.1:${execution.port}`, { credential: SERVICE_TOKEN, transport }));
});

afterAll(async () => {
  for (const s of stops.reverse()) await s();
  for (const c of clients.values()) c.close();
  await execution?.stop();
  await bus?.close();
  await db?.close();
});

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

const enc = new TextEncoder();
const dec = new TextDecoder();

interface TestAgent {
  readonly received: ToAgent[];
}

/** An executing agent on the bus: `on` answers each task message (assign, cancel, negotiate, capability). */
async function serveAgent(name: string, on: (m: ToAgent) => unknown): Promise<TestAgent> {
  const received: ToAgent[] = [];
  const s = await bus.serve(subjects.task(name), name, async (body) => {
    const m = JSON.parse(dec.decode(body)) as ToAgent;
    received.push(m);
    return enc.encode(JSON.stringify(await on(m)));
  });
  stops.push(() => s.stop());
  return { received };
}

/** What an agent sends to the execution service over NATS (the SDK does this for real agents). */
async function fromAgent(message: unknown): Promise<unknown> {
  const raw = await bus.request(subjects.taskService(), enc.encode(JSON.stringify(message)), { timeoutMs: 2000 });
  const reply = JSON.parse(dec.decode(raw)) as { ok: boolean; result?: unknown; error?: never };
  if (!reply.ok) throw ParleyError.fromJSON(reply.error as never);
  return reply.result;
}

const agentNotify = (params: Record<string, unknown>) => fromAgent({ kind: 'notify', params });

function assign(over: Partial<TaskAssignRequest> = {}): TaskAssignRequest {
  return { send_from: 'ops-agent', send_to: 'fault-agent', content: PROMPT, task_async: false, term_explains: [], msg_data: [], data_params: [], ...over };
}

async function failure(p: Promise<unknown>): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ParleyError)) throw new Error(`expected a ParleyError, got ${String(e)}`);
  return e;
}

async function notifications(taskId: string): Promise<{ seq: number; status: string; previous_status?: string }[]> {
  const out = [];
  for await (const n of tasks.taskResultSubscribe({ task_id: taskId, send_from: 'ops-agent', after_seq: 0 })) {
    out.push({ seq: n.seq, status: n.status, ...(n.previous_status ? { previous_status: n.previous_status } : {}) });
  }
  return out;
}

async function rows(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await db.query<{ n: number }>(sql, params)).rows[0]?.n);
}

const taskCount = () => rows('SELECT count(*)::int AS n FROM execution.tasks');
const statusesOf = async (id: string) => (await db.query<{ status: string }>('SELECT status FROM execution.task_notifications WHERE task_id = $1 ORDER BY seq', [id])).rows.map((r) => r.status);

/** An async agent: accepts every task with `processing`. */
let asyncAgent: TestAgent;
beforeAll(async () => {
  asyncAgent = await serveAgent('async-agent', (m) => (m.kind === 'assign' ? { ok: true, accepted: true, status: 'processing' } : { ok: true }));
  await serveAgent('fault-agent', (m) => {
    if (m.kind === 'assign') {
      if (m.task.prompt?.target_object === 'explode') return { ok: false, error: { message: 'diagnosis impossible', code: 'no_data' } };
      return { ok: true, result: { diagnosis: 'transport link 3 down', site: m.task.prompt?.target_object ?? null, payload: m.task.payload ?? null } };
    }
    if (m.kind === 'capability') {
      return {
        ok: true,
        profile: {
          name: 'fault-agent',
          description: 'Cross-domain fault diagnosis',
          version: '1.2.0',
          provider: 'acme',
          domain: 'ip',
          skills: [
            { name: 'diagnose', description: 'Diagnoses outages', tags: ['fault'], input_modes: ['text'], output_modes: ['text'] },
            { name: 'repair', description: 'Repairs', tags: ['fault'], input_modes: ['text'], output_modes: ['text'] },
          ],
          capability: { streaming: true, push_notifications: true, negotiate: ['FEASIBILITY'] },
        },
      };
    }
    return { ok: true };
  });
});

// ---------------------------------------------------------------------------

describe('synchronous tasks (4.2: feedback in the same session)', () => {
  it('dispatches, goes created → processing → finished and answers with the final status and result', async () => {
    const r = await tasks.taskAssign(assign());
    const task = r.task!;
    expect(task.status).toBe('finished');
    expect(task.result).toMatchObject({ diagnosis: 'transport link 3 down', site: 'base station cluster 17' });
    expect(task.prompt).toEqual({
      target_object: 'base station cluster 17',
      task_description: 'diagnose the batch outage of the cluster',
      environmental_information: 'IP link 3 interrupted at 10:02',
    });
    expect(task.created_at).toBe(new Date(Date.parse(task.created_at)).toISOString());
    expect(Date.parse(task.created_at)).toBeGreaterThanOrEqual(T0);
    expect(task.last_seq).toBe(3);
    expect(await notifications(task.task_id)).toEqual([
      { seq: 1, status: 'created' },
      { seq: 2, status: 'processing', previous_status: 'created' },
      { seq: 3, status: 'finished', previous_status: 'processing' },
    ]);
  });

  it('writes every state change to the outbox in its transaction: one task.status event per party, on its subject', async () => {
    const { task } = await tasks.taskAssign(assign());
    const r = await db.query<{ subject: string; event: EventEnvelope | string }>('SELECT subject, event FROM execution.outbox ORDER BY seq');
    const mine = r.rows
      .map((x) => ({ subject: x.subject, event: (typeof x.event === 'string' ? JSON.parse(x.event) : x.event) as EventEnvelope }))
      .filter((x) => x.event.type === EventType.TaskStatus && (x.event.data as { task_id: string }).task_id === task!.task_id);
    expect(mine).toHaveLength(6);
    expect(new Set(mine.map((x) => x.subject))).toEqual(new Set([subjects.taskStatus('ops-agent'), subjects.taskStatus('fault-agent')]));
    expect(mine.filter((x) => x.subject === subjects.taskStatus('ops-agent')).map((x) => (x.event.data as { seq: number; status: string }).status)).toEqual([
      'created',
      'processing',
      'finished',
    ]);
  });

  it('a failure reported by the agent fails the task (created → processing → failed) with the error as result', async () => {
    const { task } = await tasks.taskAssign(assign({ content: PROMPT.replace('base station cluster 17', 'explode') }));
    expect(task!.status).toBe('failed');
    expect(task!.result).toEqual({ error: { message: 'diagnosis impossible', code: 'no_data' } });
    expect(await statusesOf(task!.task_id)).toEqual(['created', 'processing', 'failed']);
  });

  it('validates a structured payload by the negotiated schema (4.4), applies defaults and dispatches it', async () => {
    const { task } = await tasks.taskAssign(assign({ content: undefined, schema_id: 'flight_booking_v1', payload: { origin: 'PEK', destination: 'SHA' } }));
    expect(task!.status).toBe('finished');
    expect(task!.payload).toEqual({ origin: 'PEK', destination: 'SHA', cabin_class: 'economy' });
    expect(task!.scenario).toBe('flight_booking');
    expect((task!.result as { payload: unknown }).payload).toEqual({ origin: 'PEK', destination: 'SHA', cabin_class: 'economy' });
  });

  it('answers agent_unavailable naming params.send_to when nobody serves it, and stores nothing', async () => {
    const before = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.tasks')).rows[0]?.n);
    const e = await failure(tasks.taskAssign(assign({ send_to: 'nobody-listens', task_id: 'never-stored-1' })));
    expect(e).toMatchObject({ type: 'agent_unavailable', path: 'params.send_to', rule: 'listening' });
    expect(Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.tasks')).rows[0]?.n)).toBe(before);
    expect(await failure(tasks.taskResultQuery({ task_id: 'never-stored-1', send_from: 'ops-agent' }))).toMatchObject({ type: 'task_not_found' });
  });
});

describe('asynchronous tasks (4.2: the assigner subscribes, the executor pushes changes)', () => {
  it('answers at once, then every change the agent reports is a notification in seq order', async () => {
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    expect(task!.status).toBe('processing');
    const id = task!.task_id;
    expect(asyncAgent.received.at(-1)).toMatchObject({ kind: 'assign', task: { task_id: id, task_async: true, status: 'created' } });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'input-required', required: 'the alarm list of cluster 17' });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'processing' });
    const done = (await agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { repaired: true } })) as { notification: { seq: number } };
    expect(done.notification.seq).toBe(5);
    const q = await tasks.taskResultQuery({ task_id: id, send_from: 'ops-agent' });
    expect(q.task).toMatchObject({ status: 'finished', result: { repaired: true } });
    expect(q.latest).toMatchObject({ seq: 5, status: 'finished', previous_status: 'processing', task_async: true, commu_type: 'taskResultNotify' });
    expect((await notifications(id)).map((n) => n.status)).toEqual(['created', 'processing', 'input-required', 'processing', 'finished']);
  });

  it('refuses an illegal transition (finishing a canceled task) with a typed error and changes nothing', async () => {
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    const id = task!.task_id;
    const canceled = await tasks.taskCancel({ task_id: id, send_from: 'ops-agent', reason: 'fault cleared by itself' });
    expect(canceled.task!.status).toBe('canceled');
    await expect.poll(() => asyncAgent.received.some((m) => m.kind === 'cancel' && m.task_id === id)).toBe(true);
    const before = await rows('SELECT count(*)::int AS n FROM execution.task_messages WHERE task_id = $1', [id]);
    const e = await failure(agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { repaired: true } }));
    expect(e).toMatchObject({ type: 'illegal_transition', path: 'params.status', rule: 'task_transition', details: { from: 'canceled', to: 'finished' } });
    const g = await failure(tasks.taskResultNotify({ task_id: id, send_from: 'async-agent', status: 'processing' }));
    expect(g.type).toBe('illegal_transition');
    expect(await statusesOf(id)).toEqual(['created', 'processing', 'canceled']);
    expect(await rows('SELECT count(*)::int AS n FROM execution.task_messages WHERE task_id = $1', [id])).toBe(before);
    expect((await tasks.taskResultQuery({ task_id: id, send_from: 'ops-agent' })).task).toMatchObject({ status: 'canceled' });
  });

  it('lets only the sender cancel, only from a non-terminal state; only the executor notifies', async () => {
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    const id = task!.task_id;
    expect(await failure(tasks.taskCancel({ task_id: id, send_from: 'async-agent' }))).toMatchObject({ type: 'forbidden', path: 'params.send_from', rule: 'task_sender' });
    expect(await failure(agentNotify({ task_id: id, send_from: 'ops-agent', status: 'finished' }))).toMatchObject({ type: 'forbidden', rule: 'task_executor' });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { ok: 1 } });
    expect(await failure(tasks.taskCancel({ task_id: id, send_from: 'ops-agent' }))).toMatchObject({ type: 'illegal_transition', details: { from: 'finished', to: 'canceled' } });
    expect(await failure(tasks.taskCancel({ task_id: 'no-such-task', send_from: 'ops-agent' }))).toMatchObject({ type: 'task_not_found', path: 'params.task_id', rule: 'exists' });
  });
});

describe('bad input: typed errors with path and rule, nothing stored', () => {
  const cases: [string, Partial<TaskAssignRequest> & Record<string, unknown>, Partial<ParleyError>][] = [
    ['a missing prompt section', { content: '##target object\n<object>cluster 17</object>\n##task description\n<description>diagnose</description>' }, { type: 'invalid_params', path: 'params.content', rule: 'prompt_section_missing' }],
    ['an empty prompt section', { content: PROMPT.replace('<object>base station cluster 17</object>', '') }, { path: 'params.content', rule: 'prompt_section_missing' }],
    ['neither content nor payload', { content: undefined }, { path: 'params', rule: 'content_or_payload' }],
    ['no send_to', { send_to: '' }, { path: 'params.send_to', rule: 'non_empty' }],
    ['a malformed agent name', { send_from: 'ops agent!' }, { path: 'params.send_from', rule: 'name_format' }],
    ['a malformed task id', { task_id: '../etc' }, { path: 'params.task_id', rule: 'pattern' }],
    ['a payload without a schema', { payload: { origin: 'PEK' } }, { path: 'params.schema_id', rule: 'payload_schema' }],
    ['a payload the negotiated schema refuses', { schema_id: 'flight_booking_v1', payload: { origin: 'PEK' } }, { type: 'payload_invalid', path: 'payload.destination', rule: 'required' }],
    ['an unknown schema', { schema_id: 'nope_v1', payload: { origin: 'PEK' } }, { type: 'schema_not_found' }],
    ['msg_data naming no data param', { msg_data: ['alarms'] }, { path: 'params.msg_data[0]', rule: 'unknown_data_param' }],
    ['a data param with data and url', { data_params: [{ id: 'a', data_type: 'text', data: 'x', url: 'https://example.org/a' }] }, { path: 'params.data_params[0].url', rule: 'data_or_url' }],
    ['a webhook without url', { subscription: { protocol: 'webhook' } }, { path: 'params.subscription.url', rule: 'required' }],
    ['a subscription protocol nobody speaks', { subscription: { protocol: 'carrier-pigeon' } }, { path: 'params.subscription.protocol', rule: 'enum' }],
    ['a webhook to the cloud metadata address', { subscription: { protocol: 'webhook', url: 'http://169.254.169.254/latest/meta-data/' } }, { type: 'invalid_params', path: 'params.subscription.url', rule: 'webhook_allowed' }],
    ['a webhook the allow-list does not name', { subscription: { protocol: 'webhook', url: 'https://hooks.example.com/x' } }, { path: 'params.subscription.url', rule: 'webhook_allowed' }],
  ];
  for (const [what, over, want] of cases) {
    it(`refuses ${what}`, async () => {
      const before = await taskCount();
      const e = await failure(tasks.taskAssign(assign(over as Partial<TaskAssignRequest>)));
      expect(e).toMatchObject(want);
      expect(await taskCount()).toBe(before);
    });
  }

  it('refuses a reused task id and a notification with a bad status', async () => {
    const { task } = await tasks.taskAssign(assign({ task_id: 'fixed-id-1' }));
    expect(task!.task_id).toBe('fixed-id-1');
    expect(await failure(tasks.taskAssign(assign({ task_id: 'fixed-id-1' })))).toMatchObject({ path: 'params.task_id', rule: 'unique' });
    expect(await failure(tasks.taskResultNotify({ task_id: 'fixed-id-1', send_from: 'fault-agent', status: 'done' }))).toMatchObject({ path: 'params.status', rule: 'enum' });
    expect(await failure(tasks.taskResultNotify({ task_id: 'fixed-id-1', send_from: 'fault-agent', status: 'input-required' }))).toMatchObject({ path: 'params.required', rule: 'requires_required' });
  });
});

describe('data params (5.2): inline, url, chunked uploads', () => {
  const chunk = (param_id: string, seq: number, data: string, finished = false) => ({ param_id, seq, data, finished });
  const chunkRows = (id: string) => rows('SELECT count(*)::int AS n FROM execution.data_chunks WHERE param_id = $1', [id]);

  it('reassembles chunks in order and hands the data to the agent with the task', async () => {
    const param = { id: 'alarms-1', data_type: 'text', format: 'text/plain', description: 'alarm list' };
    expect(await tasks.uploadChunk({ send_from: 'ops-agent', param, chunk: chunk('alarms-1', 0, 'ALM-1 link down;') })).toMatchObject({ received: 1, finished: false });
    expect(await tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('alarms-1', 1, 'ALM-2 cell 3 out;') })).toMatchObject({ received: 2, finished: false });
    expect(await tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('alarms-1', 2, 'ALM-3', true) })).toEqual({ param_id: 'alarms-1', received: 3, finished: true, data_size: 38 });
    expect(await chunkRows('alarms-1')).toBe(0);
    const { task } = await tasks.taskAssign(
      assign({
        send_to: 'async-agent',
        task_async: true,
        msg_data: ['alarms-1', 'topology'],
        data_params: [
          { id: 'alarms-1', data_type: 'text', chunked: true },
          { id: 'topology', data_type: 'image', url: 'https://example.org/topology.png', format: 'image/png' },
        ],
      }),
    );
    const sent = asyncAgent.received.find((m) => m.kind === 'assign' && m.task.task_id === task!.task_id) as { task: WireTask };
    expect(sent.task.data_params).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'alarms-1', data: 'ALM-1 link down;ALM-2 cell 3 out;ALM-3', data_size: 38 }),
        expect.objectContaining({ id: 'topology', url: 'https://example.org/topology.png' }),
      ]),
    );
    expect(await fromAgent({ kind: 'data', task_id: task!.task_id, param_id: 'alarms-1', send_from: 'async-agent', offset: 6, length: 10 })).toEqual({ data: 'link down;', total: 38 });
  });

  it('refuses a missing, repeated or oversized chunk with a typed error and stores nothing of it', async () => {
    const param = { id: 'big-1', data_type: 'text' };
    await tasks.uploadChunk({ send_from: 'ops-agent', param, chunk: chunk('big-1', 0, 'abc') });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('big-1', 2, 'ghi') }))).toMatchObject({
      type: 'invalid_params',
      path: 'params.chunk.seq',
      rule: 'chunk_missing',
      details: { expected: 1 },
    });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', param, chunk: chunk('big-1', 0, 'abc') }))).toMatchObject({ path: 'params.chunk.seq', rule: 'chunk_repeated' });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('big-1', 1, 'x'.repeat(70)) }))).toMatchObject({ path: 'params.chunk.data', rule: 'chunk_too_large' });
    expect(await chunkRows('big-1')).toBe(1);
    expect(await failure(tasks.uploadChunk({ send_from: 'someone-else', chunk: chunk('big-1', 1, 'def') }))).toMatchObject({ type: 'forbidden' });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('never-started', 3, 'x') }))).toMatchObject({ rule: 'chunk_missing' });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('no-param', 0, 'x') }))).toMatchObject({ path: 'params.param', rule: 'required' });
    expect(await rows("SELECT count(*)::int AS n FROM execution.data_params WHERE id IN ('never-started', 'no-param')")).toBe(0);
    // The upload goes on where it stood.
    expect(await tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('big-1', 1, 'def', true) })).toMatchObject({ finished: true, data_size: 6 });
    expect(await failure(tasks.uploadChunk({ send_from: 'ops-agent', chunk: chunk('big-1', 2, 'ghi') }))).toMatchObject({ rule: 'chunk_after_finished' });
  });

  it('refuses a task naming chunked data whose upload is not finished', async () => {
    await tasks.uploadChunk({ send_from: 'ops-agent', param: { id: 'half-1', data_type: 'text' }, chunk: chunk('half-1', 0, 'abc') });
    const before = await taskCount();
    const e = await failure(tasks.taskAssign(assign({ msg_data: ['half-1'], data_params: [{ id: 'half-1', data_type: 'text', chunked: true }] })));
    expect(e).toMatchObject({ path: 'params.data_params[0].id', rule: 'chunks_unfinished' });
    expect(await taskCount()).toBe(before);
  });
});

describe('task negotiation (5.3)', () => {
  let negotiator: TestAgent;
  const verdicts: Record<string, (round: number) => unknown> = {};
  beforeAll(async () => {
    negotiator = await serveAgent('energy-agent', (m) => {
      if (m.kind !== 'negotiate') return m.kind === 'assign' ? { ok: true, result: { done: true } } : { ok: true };
      return verdicts[m.proposal[0] ?? '']?.(m.round) ?? { ok: true, verdict: 'reject', reply: ['unknown plan'] };
    });
    verdicts['disable energy saving on cells 1-3'] = () => ({ ok: true, verdict: 'counter', reply: ['reduce the energy-saving target by 10% on cells 1-3'] });
    verdicts['reduce the energy-saving target by 10% on cells 1-3'] = () => ({ ok: true, verdict: 'accept' });
    verdicts['switch every cell off'] = () => ({ ok: true, verdict: 'reject', reply: ['coverage would be lost'] });
    verdicts['haggle'] = () => ({ ok: true, verdict: 'counter', reply: ['haggle'] });
  });

  it('feasibility before assignment ends in agreement, and the task is assigned under the negotiated id', async () => {
    const first = await tasks.feasibilityNegotiate({ send_from: 'fault-agent', send_to: 'energy-agent', content: ['disable energy saving on cells 1-3'], reply: [] });
    expect(first).toMatchObject({ type: 'FEASIBILITY', outcome: 'open' });
    expect(first.rounds).toHaveLength(1);
    expect(first.rounds[0]).toMatchObject({ round: 1, proposer: 'fault-agent', verdict: 'counter', reply: ['reduce the energy-saving target by 10% on cells 1-3'] });
    const id = first.task_id;
    const second = await tasks.feasibilityNegotiate({ task_id: id, send_from: 'fault-agent', send_to: 'energy-agent', content: ['reduce the energy-saving target by 10% on cells 1-3'], reply: [] });
    expect(second.outcome).toBe('agreed');
    expect(second.data).toEqual({ agreed: ['reduce the energy-saving target by 10% on cells 1-3'], round: 2, proposer: 'fault-agent' });
    expect(negotiator.received.filter((m) => m.kind === 'negotiate' && m.task_id === id)).toHaveLength(2);
    const { task } = await tasks.taskAssign(assign({ task_id: id, send_from: 'fault-agent', send_to: 'energy-agent', content: PROMPT }));
    expect(task).toMatchObject({ task_id: id, status: 'finished' });
    // Every round is in the task's context, before the assignment.
    const ctx = await tasks.taskContext({ task_id: id, after_seq: 0 });
    expect(ctx.messages.map((m) => [m.commu_type, m.send_from])).toEqual([
      ['FeasibilityNegotiate', 'fault-agent'],
      ['FeasibilityNegotiate', 'energy-agent'],
      ['FeasibilityNegotiate', 'fault-agent'],
      ['FeasibilityNegotiate', 'energy-agent'],
      ['taskAssign', 'fault-agent'],
      ['taskResultNotify', 'energy-agent'],
    ]);
    expect(ctx.messages[1]!.response?.content).toBe('counter: reduce the energy-saving target by 10% on cells 1-3');
  });

  it('ends in rejection; the rejected id cannot be assigned and nothing can follow', async () => {
    const r = await tasks.feasibilityNegotiate({ send_from: 'fault-agent', send_to: 'energy-agent', content: ['switch every cell off'], reply: [] });
    expect(r.outcome).toBe('rejected');
    expect(r.rounds[0]).toMatchObject({ verdict: 'reject', reply: ['coverage would be lost'] });
    expect(await failure(tasks.taskAssign(assign({ task_id: r.task_id, send_from: 'fault-agent', send_to: 'energy-agent' })))).toMatchObject({
      type: 'illegal_transition',
      path: 'params.task_id',
      rule: 'negotiation_not_agreed',
    });
    expect(await failure(tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'fault-agent', send_to: 'energy-agent', content: ['again'], reply: [] }))).toMatchObject({
      type: 'illegal_transition',
      rule: 'negotiation_closed',
    });
  });

  it('ends at the round limit when every round is countered', async () => {
    let r = await tasks.feasibilityNegotiate({ send_from: 'fault-agent', send_to: 'energy-agent', content: ['haggle'], reply: [] });
    r = await tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'fault-agent', send_to: 'energy-agent', content: ['haggle'], reply: [] });
    expect(r.outcome).toBe('open');
    r = await tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'fault-agent', send_to: 'energy-agent', content: ['haggle'], reply: [] });
    expect(r.outcome).toBe('round_limit');
    expect(r.rounds.map((x) => x.verdict)).toEqual(['counter', 'counter', 'counter']);
  });

  it('keeps a round open when the other party does not listen, for a later call to answer', async () => {
    const r = await tasks.feasibilityNegotiate({ send_from: 'fault-agent', send_to: 'ip-agent', content: ['run a loopback test on link 3'], reply: [] });
    expect(r.outcome).toBe('open');
    expect(r.rounds[0]!.verdict).toBeUndefined();
    expect(await failure(tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'fault-agent', send_to: 'ip-agent', content: ['yes'], verdict: 'accept', reply: [] }))).toMatchObject({
      type: 'illegal_transition',
      rule: 'own_proposal',
    });
    expect(await failure(tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'intruder', send_to: 'ip-agent', content: ['x'], reply: [] }))).toMatchObject({
      type: 'forbidden',
      rule: 'negotiation_party',
    });
    const answered = await tasks.feasibilityNegotiate({ task_id: r.task_id, send_from: 'ip-agent', send_to: 'fault-agent', content: ['loopback test is possible'], verdict: 'accept', reply: [] });
    expect(answered.outcome).toBe('agreed');
  });

  it('fulfillment: the executing agent proposes while processing, the sender answers with a later call', async () => {
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    const id = task!.task_id;
    const proposed = (await fromAgent({
      kind: 'negotiate',
      type: 'FULFILLMENT',
      params: { task_id: id, send_from: 'async-agent', send_to: 'ops-agent', content: ['restart the base stations of cluster 17'] },
    })) as { outcome: string };
    expect(proposed.outcome).toBe('open');
    const r = await tasks.fulfillmentNegotiate({ task_id: id, send_from: 'ops-agent', send_to: 'async-agent', content: ['not before 22:00'], verdict: 'counter', reply: ['restart after 22:00'] });
    expect(r).toMatchObject({ outcome: 'open', type: 'FULFILLMENT' });
    expect(await failure(tasks.feasibilityNegotiate({ task_id: id, send_from: 'ops-agent', send_to: 'async-agent', content: ['x'], reply: [] }))).toMatchObject({
      type: 'illegal_transition',
      rule: 'negotiation_phase',
    });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { restarted: true } });
    expect(await failure(tasks.fulfillmentNegotiate({ task_id: id, send_from: 'async-agent', send_to: 'ops-agent', content: ['x'], reply: [] }))).toMatchObject({
      rule: 'negotiation_phase',
    });
  });
});

describe('context (5.2): every message of a task, in order', () => {
  it('records assign, answers, notifications, negotiation, queries and cancel with sendFrom, sendTo, request, response and time', async () => {
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    const id = task!.task_id;
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'input-required', required: 'alarm list' });
    await tasks.taskResultQuery({ task_id: id, send_from: 'ops-agent' });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'processing' });
    await tasks.taskCancel({ task_id: id, send_from: 'ops-agent', reason: 'superseded' });
    const { messages } = await tasks.taskContext({ task_id: id, after_seq: 0 });
    expect(messages.map((m) => [m.seq, m.commu_type, m.send_from, m.send_to])).toEqual([
      [1, 'taskAssign', 'ops-agent', 'async-agent'],
      [2, 'taskResultNotify', 'async-agent', 'ops-agent'],
      [3, 'taskResultNotify', 'async-agent', 'ops-agent'],
      [4, 'taskResultQuery', 'ops-agent', 'async-agent'],
      [5, 'taskResultNotify', 'async-agent', 'ops-agent'],
      [6, 'taskCancel', 'ops-agent', 'async-agent'],
    ]);
    expect(messages[0]!.request?.content).toBe(PROMPT);
    expect(messages[2]!.response?.content).toBe('input-required: alarm list');
    expect(messages[3]!.response?.content).toBe('input-required');
    expect(messages[5]!.request?.content).toBe('superseded');
    const times = messages.map((m) => Date.parse(m.time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect((await tasks.taskContext({ task_id: id, after_seq: 4, limit: 1 })).messages.map((m) => m.seq)).toEqual([5]);
    expect(await failure(tasks.taskContext({ task_id: 'unknown-task', after_seq: 0 }))).toMatchObject({ path: 'params.task_id', rule: 'exists' });
  });
});

describe.each(GRPC_TRANSPORTS)('over the %s transport', (transport) => {
  beforeAll(() => {
    grpc = clients.get(transport) as GrpcClient<typeof TaskServiceService>;
  });

  describe('TaskResultSubscribe (server streaming from after_seq)', () => {
    it('replays after the cursor, then streams live changes in order, each seq once, and ends with the task', async () => {
      const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
      const id = task!.task_id;
      const seen: number[] = [];
      for await (const n of grpc.api.taskResultSubscribe({ task_id: id, send_from: 'ops-agent', after_seq: 0 })) {
        seen.push(n.seq);
        if (n.seq === 2) break; // the subscriber goes away
      }
      expect(seen).toEqual([1, 2]);
      await agentNotify({ task_id: id, send_from: 'async-agent', status: 'input-required', required: 'credentials' });
      // Resume from the last seq seen: 3 is replayed, 4 and 5 arrive live.
      const resumed = (async () => {
        const out: [number, string][] = [];
        for await (const n of grpc.api.taskResultSubscribe({ task_id: id, send_from: 'ops-agent', after_seq: 2 })) out.push([n.seq, n.status]);
        return out;
      })();
      await delay(100);
      await agentNotify({ task_id: id, send_from: 'async-agent', status: 'processing' });
      await delay(50);
      await agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { ok: true } });
      expect(await resumed).toEqual([
        [3, 'input-required'],
        [4, 'processing'],
        [5, 'finished'],
      ]);
    });

    it('ends with a typed error for an unknown task, and can be cancelled by the client', async () => {
      const iterate = async () => {
        for await (const n of grpc.api.taskResultSubscribe({ task_id: 'missing-task', send_from: 'ops-agent', after_seq: 0 })) void n;
      };
      expect(await failure(iterate())).toMatchObject({ type: 'task_not_found', path: 'params.task_id', rule: 'exists' });
      const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
      const abort = new AbortController();
      const got: number[] = [];
      const run = (async () => {
        for await (const n of grpc.api.taskResultSubscribe({ task_id: task!.task_id, send_from: 'ops-agent', after_seq: 0 }, { metadata: new Metadata(), signal: abort.signal })) {
          got.push(n.seq);
        }
      })();
      await expect.poll(() => got.length).toBe(2);
      abort.abort();
      await run;
      expect(got).toEqual([1, 2]);
    });
  });

  describe('TaskResultSubscribe when the server stops', () => {
    it('ends open streams with unavailable at once (the client resumes elsewhere with after_seq) instead of holding the shutdown', async () => {
      const db2 = await createPgliteDb();
      const bus2 = createMemoryBus({ subjects });
      const ex2 = await startExecution({
        db: db2,
        bus: bus2,
        subjects,
        negotiation: fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => clock.now().getTime() }),
        clock,
        log: createLogger({ level: 'silent' }),
        timeoutMs: 1000,
        grpcHost: '127.0.0.1',
        grpcPort: 0,
        authenticator: serviceOnlyAuthenticator(SERVICE_TOKEN),
      });
      const agent2 = await bus2.serve(subjects.task('async-agent'), 'async-agent', async () => enc.encode(JSON.stringify({ ok: true, accepted: true })));
      const client = createGrpcClient(TaskServiceService, `127.0.0.1:${ex2.port}`, { credential: SERVICE_TOKEN, transport });
      try {
        const { task } = await ex2.tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
        const seen: number[] = [];
        const run = failure(
          (async () => {
            for await (const n of client.api.taskResultSubscribe({ task_id: task!.task_id, send_from: 'ops-agent', after_seq: 0 })) seen.push(n.seq);
          })(),
        );
        await expect.poll(() => seen).toEqual([1]);
        await agent2.stop();
        const t0 = Date.now();
        const stopped = ex2.stop();
        expect(await run).toMatchObject({ type: 'unavailable' });
        expect(Date.now() - t0).toBeLessThan(1000);
        await stopped;
      } finally {
        client.close();
        await bus2.close();
        await db2.close();
      }
    });
  });
});

describe('webhook subscriptions (5.2 task-subscription)', () => {
  it('a subscriber that is down for a while receives every missed notification once, in order, when it comes back', async () => {
    const received: { seq: number; status: string; key: string | undefined; verified: boolean }[] = [];
    let secret = '';
    const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const n = JSON.parse(body) as { seq: number; status: string };
        // Signed with the subscription's secret (Standard Webhooks), checked as a receiver would.
        const verified = verifyWebhookSignature(secret, req.headers, body, { now: clock.now() }).ok;
        received.push({ seq: n.seq, status: n.status, key: req.headers['idempotency-key'] as string | undefined, verified });
        res.writeHead(204).end();
      });
    };
    const listen = (s: Server, port = 0) => new Promise<number>((resolve) => s.listen(port, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
    let server = createServer(handler);
    const port = await listen(server);
    const { task } = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true }));
    const id = task!.task_id;
    const sub = await tasks.registerTaskSubscription({ task_id: id, send_from: 'ops-agent', subscription: { protocol: 'webhook', url: `http://127.0.0.1:${port}/hook` }, after_seq: 0 });
    expect(sub).toMatchObject({ protocol: 'webhook', cursor: 0, webhook_secret: expect.stringMatching(/^whsec_/) });
    secret = sub.webhook_secret!;
    await expect.poll(() => received.map((r) => r.seq), { timeout: 5000 }).toEqual([1, 2]);

    // The subscriber goes down; the task goes on.
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'input-required', required: 'a maintenance window' });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'processing' });
    await agentNotify({ task_id: id, send_from: 'async-agent', status: 'finished', result: { repaired: true } });
    await expect
      .poll(async () => (await db.query<{ attempts: number }>('SELECT attempts FROM execution.subscriptions WHERE id = $1', [sub.subscription_id])).rows[0]!.attempts, { timeout: 5000 })
      .toBeGreaterThanOrEqual(2);
    expect(received).toHaveLength(2);

    // Back up on the same address: what it missed arrives, in order, once.
    server = createServer(handler);
    await listen(server, port);
    stops.push(() => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }));
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(5);
    // The cursor moves after the receiver answers: wait for that commit (and see nothing more arrives meanwhile).
    await expect.poll(async () => (await db.query<{ cursor: number }>('SELECT cursor FROM execution.subscriptions WHERE id = $1', [sub.subscription_id])).rows[0]?.cursor, { timeout: 5000 }).toBe(5);
    await delay(300);
    expect(received.map((r) => [r.seq, r.status])).toEqual([
      [1, 'created'],
      [2, 'processing'],
      [3, 'input-required'],
      [4, 'processing'],
      [5, 'finished'],
    ]);
    expect(received.map((r) => r.key)).toEqual([1, 2, 3, 4, 5].map((s) => `${id}:${s}`));
    expect(received.map((r) => r.verified)).toEqual([true, true, true, true, true]);
    const row = (await db.query<{ cursor: number; attempts: number }>('SELECT cursor, attempts FROM execution.subscriptions WHERE id = $1', [sub.subscription_id])).rows[0];
    expect(row).toMatchObject({ cursor: 5, attempts: 0 });
  });

  it('registers with the task itself, and refuses grpc registrations (a stream is TaskResultSubscribe)', async () => {
    const r = await tasks.taskAssign(assign({ send_to: 'async-agent', task_async: true, subscription: { protocol: 'webhook', method: 'PUT', url: 'http://127.0.0.1:9/hook' } }));
    expect(r.subscription_id).toBeTruthy();
    expect(r.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(r.task!.subscription).toEqual({ protocol: 'webhook', method: 'PUT', url: 'http://127.0.0.1:9/hook' });
    expect(await failure(tasks.registerTaskSubscription({ task_id: r.task!.task_id, send_from: 'ops-agent', subscription: { protocol: 'grpc' }, after_seq: 0 }))).toMatchObject({
      path: 'params.subscription.protocol',
      rule: 'use_stream',
    });
  });
});

describe('NATS subscriptions and CapabilityRequest', () => {
  it('a NATS subscriber gets the task.status events on its own subject, the missed ones included', async () => {
    const { task } = await tasks.taskAssign(assign());
    const events = await collectEvents(bus, { durable: 'observer-test', filterSubjects: [subjects.taskStatus('noc-observer')] });
    stops.push(() => events.stop());
    const r = await tasks.registerTaskSubscription({ task_id: task!.task_id, send_from: 'noc-observer', subscription: { protocol: 'nats' }, after_seq: 1 });
    expect(r).toMatchObject({ protocol: 'nats', subject: subjects.taskStatus('noc-observer'), cursor: 1 });
    await execution.drainOutbox();
    const got = await events.waitFor(2);
    expect(got.map((e) => [(e.data as { seq: number }).seq, (e.data as { status: string }).status, (e.data as { party: string }).party])).toEqual([
      [2, 'processing', 'noc-observer'],
      [3, 'finished', 'noc-observer'],
    ]);
  });

  it('answers from the agent over NATS (no profile service here), filtered by skill; no agent → agent_unavailable', async () => {
    const r = await tasks.capabilityRequest({ send_from: 'ops-agent', send_to: 'fault-agent', skills: ['diagnose'] });
    expect(r.source).toBe('agent');
    expect(r.profile).toMatchObject({ name: 'fault-agent', version: '1.2.0', provider: 'acme', capability: { streaming: true, negotiate: ['FEASIBILITY'] } });
    expect(r.profile!.skills.map((s) => s.name)).toEqual(['diagnose']);
    expect(await failure(tasks.capabilityRequest({ send_from: 'ops-agent', send_to: 'nobody-listens', skills: [] }))).toMatchObject({ type: 'agent_unavailable' });
    expect(await failure(tasks.capabilityRequest({ send_from: 'ops-agent', send_to: 'async-agent', skills: [] }))).toMatchObject({ type: 'agent_response_invalid' });
  });
});
