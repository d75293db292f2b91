import { Metadata } from '@grpc/grpc-js';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator, Principal } from '@parley/auth';
import { ParleyError } from '@parley/protocol';
import {
  ExecutionServiceService,
  TaskServiceService,
  bindService,
  createGrpcClient,
  startGrpcServer,
  type CallContext,
  type ExecuteRequest,
  type ExecuteResponse,
  type GrpcServerHandle,
  type GrpcTransport,
  type TaskApi,
} from '../src/index';

// One suite, both transports of the gRPC contracts (libs/contracts grpc.ts): HTTP/2 to a
// server on loopback, and the in-process transport the one-process mode takes. Every
// figure a caller can observe (responses, typed errors and their gRPC mapping, metadata
// and the principal, trace context, deadlines, streams, hostile input) must come out the
// same; the last block compares what the two transports gave, call for call.

const SERVICE_TOKEN = 'svc_' + 'x'.repeat(40);
const SOMEONE_KEY = 'key_of_someone';
// contracts sits below libs/runtime: a bearer authenticator of the test's own (the service, and a server agent).
const PRINCIPALS = new Map<string, Principal>([
  [SERVICE_TOKEN, { id: 'parley-service', tenant: 'default', roles: ['service'], agents: ['*'], scenarios: ['*'], via: 'api_key' }],
  [SOMEONE_KEY, { id: 'someone', tenant: 'default', roles: ['server_agent'], agents: ['acme'], scenarios: ['flight_booking'], via: 'api_key' }],
]);
const ids: { authenticator: Authenticator; keys: Record<string, string> } = {
  keys: { someone: SOMEONE_KEY },
  authenticator: {
    authenticate: async (authorization: string | undefined) => {
      const p = PRINCIPALS.get(authorization?.replace(/^Bearer /, '') ?? '');
      if (!p) throw new ParleyError('unauthenticated', 'Missing or unknown credential', { path: 'headers.authorization', rule: 'required' });
      return p;
    },
  } as Authenticator,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the service saw of each call, for the test to read. */
interface Seen {
  request?: ExecuteRequest;
  ctx?: CallContext;
  activeSpanId?: string;
  streamClosed: number;
  observed: string[];
  logged: unknown[];
}

function makeExecution(seen: Seen) {
  return {
    async execute(req: ExecuteRequest, ctx?: CallContext): Promise<ExecuteResponse> {
      seen.request = req;
      seen.ctx = ctx;
      seen.activeSpanId = trace.getSpan(context.active())?.spanContext().spanId;
      const mode = req.schema_id;
      if (mode === 'typed') throw new ParleyError('schema_not_found', 'No schema typed', { path: 'schema_id', rule: 'exists', details: { schema_id: 'typed', n: 3 } });
      if (mode === 'crash') throw new Error('a bug with a secret in it');
      if (mode === 'slow') await sleep(600);
      if (mode === 'huge-response') return { result: { big: 'r'.repeat(5 * 1024 * 1024) }, execution_id: 'e', agent: 'a', scenario_id: 's', defaults_applied: [], warnings: [], replayed: false };
      const result = { echo: req.payload ?? null, keys: Object.keys(req.payload ?? {}) };
      return { result, execution_id: 'ex-1', agent: 'acme', scenario_id: 'flight_booking', defaults_applied: ['cabin_class'], warnings: [], replayed: false };
    },
  };
}

function makeTasks(seen: Seen): TaskApi {
  const unimplemented = () => Promise.reject(new ParleyError('internal', 'not in this fake'));
  const notification = (seq: number) => ({ task_id: 't1', seq, send_from: 'a', send_to: 'b', commu_type: 'taskResultNotify', task_async: true, status: 'working', created_at: '2026-01-01T00:00:00Z' });
  return new Proxy({} as TaskApi, {
    get(_t, name) {
      if (name !== 'taskResultSubscribe') return unimplemented;
      return async function* (req: { task_id: string; after_seq: number }) {
        try {
          if (req.task_id === 'burst') {
            // Far more than a stream queues for its reader, written as fast as the reader lets it.
            for (let seq = 1; seq <= 400; seq++) yield notification(seq);
            return;
          }
          if (req.task_id === 'forever') {
            for (let seq = 1; ; seq++) {
              yield notification(seq);
              await sleep(5);
            }
          }
          for (let seq = req.after_seq + 1; seq <= 3; seq++) yield notification(seq);
          if (req.task_id === 'fails') throw new ParleyError('task_not_found', 'No task fails', { details: { task_id: 'fails' } });
        } finally {
          seen.streamClosed++;
        }
      };
    },
  });
}

/** A JSON view of a thrown error, the random correlation id replaced. */
function errorView(e: unknown): unknown {
  expect(e).toBeInstanceOf(ParleyError);
  const j = (e as ParleyError).toJSON() as { details?: Record<string, unknown> };
  if (typeof j.details?.['correlation_id'] === 'string') j.details['correlation_id'] = '<id>';
  return j;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return errorView(e);
  }
  throw new Error('expected a failure');
}

const TRANSPORTS: GrpcTransport[] = ['grpc', 'inproc'];
const results = new Map<GrpcTransport, Map<string, unknown>>();
const rawResults = new Map<GrpcTransport, Map<string, unknown>>();
const rawStreamResults = new Map<GrpcTransport, Map<string, unknown>>();
let exporter: InMemorySpanExporter;
let provider: TracerProvider;

beforeAll(() => {
  exporter = new InMemorySpanExporter();
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider?.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});

/** The finished spans, as the test reads them. */
const spansOf = (spans: readonly ReadableSpan[]) =>
  spans.map((s) => ({
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? '',
    name: s.name,
    kind: (['internal', 'server', 'client', 'producer', 'consumer'] as readonly string[])[s.kind] ?? 'other',
    attributes: s.attributes,
  }));

describe.each(TRANSPORTS)('the gRPC contracts over the %s transport', (transport) => {
  const seen: Seen = { streamClosed: 0, observed: [], logged: [] };
  const record = new Map<string, unknown>();
  results.set(transport, record);
  let server: GrpcServerHandle;
  let address: string;
  const client = (o: { deadlineMs?: number; streamDeadlineMs?: number; credential?: string | null } = {}) => {
    const credential = o.credential === null ? {} : { credential: o.credential ?? SERVICE_TOKEN };
    return createGrpcClient(ExecutionServiceService, address, { transport, deadlineMs: o.deadlineMs ?? 5000, ...credential });
  };
  const tasks = (streamDeadlineMs?: number) =>
    createGrpcClient(TaskServiceService, address, { transport, credential: SERVICE_TOKEN, ...(streamDeadlineMs !== undefined ? { streamDeadlineMs } : {}) });

  beforeAll(async () => {
    const auth = {
      authenticator: ids.authenticator,
      observe: (service: string, method: string, errorType: string | undefined) => void seen.observed.push(`${service}/${method}:${errorType ?? 'ok'}`),
      log: { error: (msg: string, fields?: Record<string, unknown>) => void seen.logged.push({ msg, ...fields }) },
    };
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [bindService(ExecutionServiceService, makeExecution(seen), auth), bindService(TaskServiceService, makeTasks(seen), { authenticator: ids.authenticator })],
    });
    address = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.stop(100);
  });

  it('answers with a copy of the response: nothing is shared between caller and service', async () => {
    const payload = { origin: 'PEK', nested: { list: [1, 'two', true, null] } };
    const res = await client().api.execute({ schema_id: 'ok', payload });
    expect(res).toMatchObject({ execution_id: 'ex-1', agent: 'acme', scenario_id: 'flight_booking', defaults_applied: ['cabin_class'] });
    expect(res.result).toEqual({ echo: payload, keys: ['origin', 'nested'] });
    expect(seen.request?.payload).toEqual(payload);
    expect(seen.request?.payload).not.toBe(payload);
    expect((res.result as { echo: unknown }).echo).not.toBe(seen.request?.payload);
    expect(seen.observed.at(-1)).toBe('ExecutionService/Execute:ok');
    record.set('ok', res);
  });

  it('maps a typed error to its gRPC status and back, with its details', async () => {
    const e = await failure(client().api.execute({ schema_id: 'typed' }));
    expect(e).toMatchObject({ type: 'schema_not_found', message: 'No schema typed', path: 'schema_id', rule: 'exists', details: { schema_id: 'typed', n: 3 } });
    expect(seen.observed.at(-1)).toBe('ExecutionService/Execute:schema_not_found');
    record.set('typed', e);
  });

  it('hides an internal failure behind a correlation id, logged with its cause on the server', async () => {
    const before = seen.logged.length;
    const e = await failure(client().api.execute({ schema_id: 'crash' }));
    expect(e).toMatchObject({ type: 'internal', message: 'Internal error', details: { correlation_id: '<id>' } });
    expect(JSON.stringify(e)).not.toContain('secret');
    expect(seen.logged.length).toBe(before + 1);
    expect(JSON.stringify(seen.logged.at(-1))).toContain('a bug with a secret in it');
    record.set('crash', e);
  });

  it('refuses a call without credentials and one whose principal lacks the role', async () => {
    const none = await failure(client({ credential: null }).api.execute({ schema_id: 'ok' }));
    expect(none).toMatchObject({ type: 'unauthenticated' });
    const wrongRole = await failure(client({ credential: ids.keys['someone'] as string }).api.execute({ schema_id: 'ok' }));
    expect(wrongRole).toMatchObject({ type: 'forbidden' });
    record.set('unauthenticated', none);
    record.set('forbidden', wrongRole);
  });

  it('carries metadata and the principal, and the caller\'s own authorization wins', async () => {
    const md = new Metadata();
    md.set('x-parley-test', 'hello');
    md.set('x-parley-test-bin', Buffer.from([0, 1, 2, 255]));
    await client().api.execute({ schema_id: 'ok' }, { metadata: md });
    expect(seen.ctx?.metadata.get('x-parley-test')).toEqual(['hello']);
    expect(seen.ctx?.metadata.get('x-parley-test-bin')).toEqual([Buffer.from([0, 1, 2, 255])]);
    expect(seen.ctx?.metadata).not.toBe(md);
    expect(seen.ctx?.principal).toMatchObject({ id: 'parley-service', roles: ['service'] });
    // The caller's metadata is never changed by the call.
    expect(md.get('authorization')).toEqual([]);
    expect(md.get('traceparent')).toEqual([]);
    const own = new Metadata();
    own.set('authorization', `Bearer ${ids.keys['someone'] as string}`);
    expect(await failure(client().api.execute({ schema_id: 'ok' }, { metadata: own }))).toMatchObject({ type: 'forbidden' });
  });

  it('continues the caller\'s trace: client span, then server span, the handler inside it', async () => {
    exporter.reset();
    const parent = trace.getTracer('test').startSpan('caller');
    await context.with(trace.setSpan(context.active(), parent), () => client().api.execute({ schema_id: 'ok' }));
    parent.end();
    const spans = spansOf(exporter.getFinishedSpans());
    const clientSpan = spans.find((s) => s.kind === 'client' && s.name === 'parley.v1.ExecutionService/Execute');
    const serverSpan = spans.find((s) => s.kind === 'server' && s.name === 'parley.v1.ExecutionService/Execute');
    expect(clientSpan?.traceId).toBe(parent.spanContext().traceId);
    expect(clientSpan?.parentSpanId).toBe(parent.spanContext().spanId);
    expect(serverSpan?.traceId).toBe(parent.spanContext().traceId);
    expect(serverSpan?.parentSpanId).toBe(clientSpan?.spanId);
    expect(seen.activeSpanId).toBe(serverSpan?.spanId);
    expect(seen.ctx?.metadata.get('traceparent')[0]).toContain(clientSpan?.spanId);
    expect(clientSpan?.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': server.port, 'rpc.response.status_code': 'OK' });
    expect(serverSpan?.attributes).toMatchObject({ 'rpc.method': 'parley.v1.ExecutionService/Execute', 'rpc.response.status_code': 'OK' });
  });

  it('gives up at the deadline with `unavailable` naming the service', async () => {
    const started = Date.now();
    const e = await failure(client({ deadlineMs: 150 }).api.execute({ schema_id: 'slow' }));
    expect(Date.now() - started).toBeLessThan(550);
    expect(e).toMatchObject({ type: 'unavailable', message: 'ExecutionService is unavailable (no answer within the deadline)', details: { service: 'ExecutionService' } });
    record.set('deadline', e);
    await sleep(500); // the slow handler finishes before the next test reads `seen`
  });

  it('takes hostile keys and a 1 MiB string as data, refuses NUL with a typed error, and never passes a lone surrogate', async () => {
    const big = 'é'.repeat(1024 * 1024); // 1 Mi characters, 2 MiB of UTF-8
    const payload = JSON.parse(`{"constructor":{"prototype":{"polluted":1}},"__proto__":{"polluted":2},"toString":"x","big":"${big}"}`) as Record<string, unknown>;
    const res = await client().api.execute({ schema_id: 'ok', payload });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const echo = (res.result as { echo: Record<string, unknown> }).echo;
    expect(echo['big']).toBe(big);
    expect(echo['toString']).toBe('x');
    expect(Object.getOwnPropertyDescriptor(echo, 'constructor')?.value).toEqual({ prototype: { polluted: 1 } });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    record.set('hostile', { keys: (res.result as { keys: string[] }).keys, proto: Object.getPrototypeOf(echo) === Object.prototype });
    const nul = await failure(client().api.execute({ schema_id: 'ok', payload: { s: 'a\u0000b' } }));
    expect(nul).toMatchObject({ type: 'invalid_params' });
    record.set('nul', nul);
    // A lone surrogate cannot be UTF-8: the codec writes U+FFFD, so the service sees a well-formed string.
    const lone = await client().api.execute({ schema_id: 'ok', payload: { s: 'a\ud800b' } });
    expect((lone.result as { echo: { s: string } }).echo.s).toBe('a\ufffdb');
  });

  it('refuses a request over the server\'s 8 MiB and a response over the client\'s 4 MiB', async () => {
    const tooBig = await failure(client({ deadlineMs: 20_000 }).api.execute({ schema_id: 'ok', payload: { s: 'x'.repeat(9 * 1024 * 1024) } }));
    expect(tooBig).toMatchObject({ type: 'internal' });
    const tooBigBack = await failure(client({ deadlineMs: 20_000 }).api.execute({ schema_id: 'huge-response' }));
    expect(tooBigBack).toMatchObject({ type: 'internal' });
    record.set('too-big', [tooBig, tooBigBack]);
  });

  it('streams in order to the end, and a typed error after what was sent', async () => {
    const got: number[] = [];
    for await (const n of tasks().api.taskResultSubscribe({ task_id: 't1', send_from: 'b', after_seq: 0 })) got.push(n.seq);
    expect(got).toEqual([1, 2, 3]);
    const before: number[] = [];
    const e = await failure(
      (async () => {
        for await (const n of tasks().api.taskResultSubscribe({ task_id: 'fails', send_from: 'b', after_seq: 1 })) before.push(n.seq);
      })(),
    );
    expect(before).toEqual([2, 3]);
    expect(e).toMatchObject({ type: 'task_not_found', details: { task_id: 'fails' } });
    record.set('stream-error', e);
  });

  it('ends the server\'s stream when the client breaks out, aborts, or its deadline passes', async () => {
    const closed = seen.streamClosed;
    for await (const n of tasks().api.taskResultSubscribe({ task_id: 'forever', send_from: 'b', after_seq: 0 })) if (n.seq === 2) break;
    await expect.poll(() => seen.streamClosed, { timeout: 3000 }).toBe(closed + 1);
    const abort = new AbortController();
    let last = 0;
    for await (const n of tasks().api.taskResultSubscribe({ task_id: 'forever', send_from: 'b', after_seq: 0 }, { metadata: new Metadata(), signal: abort.signal })) {
      last = n.seq;
      if (n.seq === 3) abort.abort();
    }
    expect(last).toBeGreaterThanOrEqual(3);
    await expect.poll(() => seen.streamClosed, { timeout: 3000 }).toBe(closed + 2);
    const e = await failure(
      (async () => {
        for await (const _ of tasks(100).api.taskResultSubscribe({ task_id: 'forever', send_from: 'b', after_seq: 0 })) void _;
      })(),
    );
    expect(e).toMatchObject({ type: 'unavailable', details: { service: 'TaskService' } });
    await expect.poll(() => seen.streamClosed, { timeout: 3000 }).toBe(closed + 3);
    record.set('stream-deadline', e);
  });

  it('delivers nothing more once the client aborts or the deadline passes, though messages are queued', async () => {
    const abort = new AbortController();
    const afterAbort: number[] = [];
    for await (const n of tasks().api.taskResultSubscribe({ task_id: 'burst', send_from: 'b', after_seq: 0 }, { metadata: new Metadata(), signal: abort.signal })) {
      if (abort.signal.aborted) afterAbort.push(n.seq);
      if (n.seq === 1) {
        // Let the server fill the queue, then abort.
        await sleep(100);
        abort.abort();
      }
    }
    expect(afterAbort).toEqual([]);
    const afterDeadline: number[] = [];
    let expired = false;
    const e = await failure(
      (async () => {
        for await (const n of tasks(150).api.taskResultSubscribe({ task_id: 'burst', send_from: 'b', after_seq: 0 })) {
          if (expired) afterDeadline.push(n.seq);
          if (n.seq === 1) {
            await sleep(400);
            expired = true;
          }
        }
      })(),
    );
    expect(afterDeadline).toEqual([]);
    expect(e).toMatchObject({ type: 'unavailable', details: { service: 'TaskService' } });
    record.set('stream-stops-at-once', [afterAbort, afterDeadline, e]);
  });

  it('hands out every message of a stream that ended OK before its deadline, however slowly they are read', async () => {
    // The deadline bounds the call while it is live (draft-zhou §6.2 streams): once the server ended it
    // with OK, what is queued is the caller's, read at the caller's pace.
    const closed = seen.streamClosed;
    const got: number[] = [];
    for await (const n of tasks(200).api.taskResultSubscribe({ task_id: 't1', send_from: 'b', after_seq: 0 })) {
      got.push(n.seq);
      if (n.seq === 1) await sleep(450);
    }
    expect(got).toEqual([1, 2, 3]);
    await expect.poll(() => seen.streamClosed, { timeout: 3000 }).toBe(closed + 1);
    record.set('stream-ended-then-read-slowly', got);
  });

  it('ends an open stream with `unavailable` when the server stops, and then refuses calls the same way', async () => {
    const got: number[] = [];
    const reading = failure(
      (async () => {
        for await (const n of tasks().api.taskResultSubscribe({ task_id: 'forever', send_from: 'b', after_seq: 0 })) got.push(n.seq);
      })(),
    );
    await expect.poll(() => got.length, { timeout: 3000 }).toBeGreaterThan(1);
    await server.stop(1000);
    const e = await reading;
    expect(e).toMatchObject({ type: 'unavailable' });
    const after = await failure(client({ deadlineMs: 1000 }).api.execute({ schema_id: 'ok' }));
    expect(after).toMatchObject({ type: 'unavailable', details: { service: 'ExecutionService' } });
    record.set('stopped', [e, after]);
  });
});

describe.each(TRANSPORTS)('raw grpc-js handlers over the %s transport', (transport) => {
  const record = new Map<string, unknown>();
  rawResults.set(transport, record);
  const response = (result: Record<string, unknown>): ExecuteResponse => ({ result, execution_id: 'x', agent: 'a', scenario_id: 's', defaults_applied: [], warnings: [], replayed: false });

  it('maps a handler that throws at once to a gRPC status (internal for the caller), at once, and lets the server stop', async () => {
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        { definition: ExecutionServiceService, handlers: { execute: () => { throw new Error('thrown before any callback'); } } },
        { definition: TaskServiceService, handlers: { taskResultSubscribe: () => { throw new Error('thrown before any write'); } } },
      ],
    });
    try {
      const address = `127.0.0.1:${server.port}`;
      const started = Date.now();
      const unary = await failure(createGrpcClient(ExecutionServiceService, address, { transport, deadlineMs: 5000 }).api.execute({ schema_id: 'ok' }));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(unary).toMatchObject({ type: 'internal', message: 'Internal error' });
      const stream = await failure(
        (async () => {
          for await (const _ of createGrpcClient(TaskServiceService, address, { transport }).api.taskResultSubscribe({ task_id: 't', send_from: 'b', after_seq: 0 })) void _;
        })(),
      );
      expect(stream).toMatchObject({ type: 'internal', message: 'Internal error' });
      record.set('sync-throw', [unary, stream]);
    } finally {
      const stopping = Date.now();
      await server.stop(3000);
      // No call is left in flight by the throw: the stop does not wait out its grace.
      expect(Date.now() - stopping).toBeLessThan(2000);
    }
  });

  it('gives the handler the call\'s deadline, the same every time it asks', async () => {
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          definition: ExecutionServiceService,
          handlers: {
            execute: (call: { getDeadline(): Date | number }, cb: (e: null, r: ExecuteResponse) => void) => {
              const first = Number(call.getDeadline());
              setTimeout(() => cb(null, response({ first, second: Number(call.getDeadline()), at: Date.now() })), 60);
            },
          },
        },
      ],
    });
    try {
      const sent = Date.now();
      const res = await createGrpcClient(ExecutionServiceService, `127.0.0.1:${server.port}`, { transport, deadlineMs: 3000 }).api.execute({ schema_id: 'ok' });
      const r = res.result as { first: number; second: number; at: number };
      expect(r.second).toBe(r.first);
      expect(r.at - sent).toBeGreaterThanOrEqual(50);
      // The deadline the client set: 3 s after the call was made (grpc-js carries it to the millisecond as a timeout).
      expect(Math.abs(r.first - (sent + 3000))).toBeLessThan(250);
      record.set('deadline-stable', r.second === r.first);
    } finally {
      await server.stop(1000);
    }
  });
});

describe.each(TRANSPORTS)('raw grpc-js stream handlers over the %s transport', (transport) => {
  const record = new Map<string, unknown>();
  rawStreamResults.set(transport, record);
  const note = (task_id: string, seq: number) => ({ task_id, seq, send_from: 'a', send_to: 'b', commu_type: 'taskResultNotify', task_async: true, status: 'working', created_at: '2026-01-01T00:00:00Z' });
  type RawStream = { getDeadline(): Date | number; write(m: unknown): boolean; end(): void; on(e: string, f: () => void): void };

  it('gives a streaming handler the call\'s deadline (Infinity without one), the same every time it asks', async () => {
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          definition: TaskServiceService,
          handlers: {
            taskResultSubscribe: (call: RawStream) => {
              const first = Number(call.getDeadline());
              call.write(note(String(first), 1));
              call.write(note(String(Number(call.getDeadline())), 2));
              call.end();
            },
          },
        },
      ],
    });
    try {
      const address = `127.0.0.1:${server.port}`;
      const read = async (streamDeadlineMs?: number) => {
        const got: string[] = [];
        const c = createGrpcClient(TaskServiceService, address, { transport, ...(streamDeadlineMs !== undefined ? { streamDeadlineMs } : {}) });
        for await (const n of c.api.taskResultSubscribe({ task_id: 't', send_from: 'b', after_seq: 0 })) got.push(n.task_id);
        return got.map(Number);
      };
      const sent = Date.now();
      const [first, second] = await read(3000);
      expect(second).toBe(first);
      expect(Math.abs((first as number) - (sent + 3000))).toBeLessThan(250);
      const none = await read();
      expect(none).toEqual([Infinity, Infinity]);
      record.set('stream-deadline', [second === first, none]);
    } finally {
      await server.stop(1000);
    }
  });

  it('ends a handler that throws at once with the error status only: the handler never sees \'cancelled\'', async () => {
    let cancelled = 0;
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          definition: TaskServiceService,
          handlers: {
            taskResultSubscribe: (call: RawStream) => {
              call.on('cancelled', () => void cancelled++);
              throw new Error('thrown before any write');
            },
          },
        },
      ],
    });
    try {
      const e = await failure(
        (async () => {
          for await (const _ of createGrpcClient(TaskServiceService, `127.0.0.1:${server.port}`, { transport }).api.taskResultSubscribe({ task_id: 't', send_from: 'b', after_seq: 0 })) void _;
        })(),
      );
      expect(e).toMatchObject({ type: 'internal', message: 'Internal error' });
      await sleep(100);
      expect(cancelled).toBe(0);
      record.set('sync-throw-no-cancel', [e, cancelled]);
    } finally {
      await server.stop(1000);
    }
  });

  it('does not tell a handler that ended OK that it was cancelled, though the client reads slowly past its deadline', async () => {
    let cancelled = 0;
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          definition: TaskServiceService,
          handlers: {
            taskResultSubscribe: (call: RawStream) => {
              call.on('cancelled', () => void cancelled++);
              for (let seq = 1; seq <= 3; seq++) call.write(note('t', seq));
              call.end();
            },
          },
        },
      ],
    });
    try {
      const got: number[] = [];
      const c = createGrpcClient(TaskServiceService, `127.0.0.1:${server.port}`, { transport, streamDeadlineMs: 150 });
      for await (const n of c.api.taskResultSubscribe({ task_id: 't', send_from: 'b', after_seq: 0 })) {
        got.push(n.seq);
        if (n.seq === 1) await sleep(350);
      }
      expect(got).toEqual([1, 2, 3]);
      await sleep(50);
      expect(cancelled).toBe(0);
      record.set('ended-ok-slow-reader', [got, cancelled]);
    } finally {
      await server.stop(1000);
    }
  });
});

describe('both transports agree', () => {
  it('gave the same responses and the same typed errors, call for call', () => {
    const grpc = results.get('grpc');
    const inproc = results.get('inproc');
    expect(grpc?.size).toBeGreaterThan(8);
    expect([...(inproc?.keys() ?? [])]).toEqual([...(grpc?.keys() ?? [])]);
    for (const [key, value] of grpc ?? []) expect(inproc?.get(key), key).toEqual(value);
  });

  it('gave the same outcomes to raw handlers', () => {
    const grpc = rawResults.get('grpc');
    const inproc = rawResults.get('inproc');
    expect(grpc?.size).toBe(2);
    expect([...(inproc?.entries() ?? [])]).toEqual([...(grpc?.entries() ?? [])]);
  });

  it('gave the same outcomes to raw streaming handlers', () => {
    const grpc = rawStreamResults.get('grpc');
    const inproc = rawStreamResults.get('inproc');
    expect(grpc?.size).toBe(3);
    expect([...(inproc?.entries() ?? [])]).toEqual([...(grpc?.entries() ?? [])]);
  });
});
