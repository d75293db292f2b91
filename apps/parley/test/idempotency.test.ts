/**
 * Safe retries of `execute` (draft-zhou §3.2 steps (4)-(6)) through the real
 * services in one process (PGlite, the in-process bus), on every face: the
 * JSON-RPC param, the `Idempotency-Key` header at /rpc, MCP `tools/call`
 * `_meta.idempotency_key`, A2A message metadata and the gRPC field.
 *
 * A repeat (same principal, same key) within the key's lifetime returns the
 * first result and records nothing new: no second execution row, no event, no
 * agent call. Another payload under the key is idempotency_conflict; a repeat
 * while the first runs is idempotency_in_progress. Time is the injected clock:
 * 24 h + 1 ms later the key is free again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExecutionServiceService, createGrpcClient, type ExecuteResponse } from '@parley/contracts';
import { Metadata } from '@grpc/grpc-js';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createLogger } from '@parley/runtime';
import { postRaw, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

const DAY = 86_400_000;
let t = Date.parse('2026-05-01T08:00:00Z');
const clock = { now: () => new Date(t) };
let parley: EmbeddedParley;
let agent: Agent;
let aliceKey: string;
/** Every call the test agent's handler got, by execution_id: the bookings it made. */
const calls: string[] = [];
/** Set to hold the agent's answer until released (in-flight repeats). */
let gate: Promise<void> | undefined;

const TEMPLATE = {
  schema_id: 'idem_probe_v1',
  scenario: 'idem_probe',
  keys: [
    { key_name: 'seats', key_type: 'integer', required: true, semantic_description: 'How many seats to book.' },
    { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Anything else.' },
  ],
};

const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await parley.db.query<{ n: number }>(sql, params)).rows[0]?.n);
const executions = () => count("SELECT count(*)::int AS n FROM execution.executions WHERE schema_id = 'idem_probe_v1'");
const events = () => count("SELECT count(*)::int AS n FROM execution.outbox WHERE event->>'type' = 'payload.executed' AND event->'data'->>'schema_id' = 'idem_probe_v1'");
const snapshot = async () => ({ rows: await executions(), events: await events(), calls: calls.length });

beforeAll(async () => {
  parley = await startParley({ port: 0, clock, log: createLogger({ level: 'silent' }), rateLimit: null, executeTimeoutMs: 3000, evolution: { tickMs: 0, heatSampleMs: 0 } });
  useKey(parley.url, parley.devKey);
  agent = await createAgent({ name: 'count-air', bus: parley.bus, prefix: parley.subjects.prefix });
  await agent.serve('idem_probe', async (payload, ctx) => {
    calls.push(ctx.execution_id);
    if (gate) await gate;
    return { booking: `BK-${calls.length}`, seats: payload.seats as number };
  });
  expect((await rpc(parley.url, 'register_agent', { name: 'count-air', scenarios: ['idem_probe'] })).body.error).toBeUndefined();
  expect((await rpc(parley.url, 'publish_schema', { agent: 'count-air', template: TEMPLATE })).body.error).toBeUndefined();
  aliceKey = (await rpc(parley.url, 'create_api_key', { principal: 'alice', roles: ['client_agent'] })).body.result.key as string;
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await parley?.stop();
});

beforeEach(() => {
  gate = undefined;
});

const exec = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
  postRaw(parley.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'idem_probe_v1', ...params } }), headers);

describe('the JSON-RPC param and the Idempotency-Key header', () => {
  it('answers a repeat with the first result and records nothing new', async () => {
    const before = await snapshot();
    const first = await exec({ payload: { seats: 2 }, idempotency_key: 'order-1001' });
    expect(first.body.error).toBeUndefined();
    expect(first.body.result).toEqual({ booking: `BK-${before.calls + 1}`, seats: 2 });
    expect(first.status).toBe(200);
    const again = await exec({ payload: { seats: 2 }, idempotency_key: 'order-1001' });
    expect(again.body.result).toEqual(first.body.result);
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
    // The key is stored with its execution.
    expect(await count("SELECT count(*)::int AS n FROM execution.executions WHERE idempotency_key = 'order-1001' AND client_id = 'dev'")).toBe(1);
  });

  it('takes the key from the header, says a repeat is one, and refuses a header that contradicts the param or names a batch', async () => {
    const before = await snapshot();
    const first = await exec({ payload: { seats: 3 } }, { 'idempotency-key': 'hdr-7f3a' });
    expect(first.body.error).toBeUndefined();
    expect(first.text).not.toContain('replayed');
    const r = await fetch(`${parley.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${parley.devKey}`, 'idempotency-key': 'hdr-7f3a' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'execute', params: { schema_id: 'idem_probe_v1', payload: { seats: 3 } } }),
    });
    expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(((await r.json()) as { result: unknown }).result).toEqual(first.body.result);
    // The same key as a param on the same request is the same key.
    expect((await exec({ payload: { seats: 3 }, idempotency_key: 'hdr-7f3a' }, { 'idempotency-key': 'hdr-7f3a' })).body.result).toEqual(first.body.result);
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });

    const mismatch = await exec({ payload: { seats: 3 }, idempotency_key: 'other-key' }, { 'idempotency-key': 'hdr-7f3a' });
    expect(mismatch.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params.idempotency_key', rule: 'matches_header', retryable: false });
    const batch = await postRaw(parley.url, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'idem_probe_v1', payload: { seats: 1 } } }]), { 'idempotency-key': 'batch-1' });
    expect(batch.body.error.data).toMatchObject({ type: 'invalid_request', path: 'headers.idempotency-key', rule: 'single_request' });
    const badHeader = await exec({ payload: { seats: 1 } }, { 'idempotency-key': 'has space' });
    expect(badHeader.body.error.data).toMatchObject({ type: 'invalid_params', path: 'headers.idempotency-key', rule: 'pattern' });
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
  });

  it('refuses another request under a used key with idempotency_conflict, and changes nothing', async () => {
    expect((await exec({ payload: { seats: 1 }, idempotency_key: 'order-2002' })).body.error).toBeUndefined();
    const before = await snapshot();
    for (const params of [{ payload: { seats: 5 } }, { payload: { seats: 1, other: 'window' } }, { payload: { seats: 1 }, agent: 'count-air' }]) {
      const r = await exec({ ...params, idempotency_key: 'order-2002' });
      expect(r.body.error, JSON.stringify(params)).toMatchObject({
        code: -32038,
        data: { type: 'idempotency_conflict', path: 'params.idempotency_key', rule: 'same_request', retryable: false },
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('keeps keys apart per client: the same key of another principal is its own execution', async () => {
    const before = await snapshot();
    const dev = await exec({ payload: { seats: 4 }, idempotency_key: 'shared-key' });
    const alice = await exec({ payload: { seats: 4 }, idempotency_key: 'shared-key' }, { authorization: `Bearer ${aliceKey}` });
    expect(alice.body.error).toBeUndefined();
    expect(alice.body.result.booking).not.toBe(dev.body.result.booking);
    expect(await snapshot()).toEqual({ rows: before.rows + 2, events: before.events + 2, calls: before.calls + 2 });
  });

  it('frees a key after its lifetime on the injected clock: 24 h - 1 ms still a repeat, 24 h + 1 ms a new execution', async () => {
    const first = await exec({ payload: { seats: 6 }, idempotency_key: 'order-3003' });
    const before = await snapshot();
    const start = t;
    try {
      t = start + DAY - 1;
      expect((await exec({ payload: { seats: 6 }, idempotency_key: 'order-3003' })).body.result).toEqual(first.body.result);
      expect(await snapshot()).toEqual(before);
      t = start + DAY + 1;
      const later = await exec({ payload: { seats: 6 }, idempotency_key: 'order-3003' });
      expect(later.body.error).toBeUndefined();
      expect(later.body.result.booking).not.toBe(first.body.result.booking);
      expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
      // Freed, the key takes any request again (no conflict with the expired one's payload).
      t = start + 2 * DAY + 2;
      expect((await exec({ payload: { seats: 9 }, idempotency_key: 'order-3003' })).body.result.seats).toBe(9);
      // The sweep deletes what expired at the clock's now.
      t = start + 4 * DAY;
      expect(await parley.execution.api.idempotency.purge(clock.now())).toBeGreaterThanOrEqual(1);
    } finally {
      t = start + 4 * DAY;
    }
  });

  it('answers a repeat while the first call runs with idempotency_in_progress, retryable; once done the repeat gets the result', async () => {
    const before = await snapshot();
    let release = () => {};
    gate = new Promise<void>((r) => (release = r));
    const first = exec({ payload: { seats: 7 }, idempotency_key: 'order-4004' });
    await expect.poll(() => calls.length).toBe(before.calls + 1);
    const during = await exec({ payload: { seats: 7 }, idempotency_key: 'order-4004' });
    expect(during.body.error).toMatchObject({ code: -32039, data: { type: 'idempotency_in_progress', path: 'params.idempotency_key', rule: 'in_progress', retryable: true } });
    expect(during.body.error.data.details.retry_after_ms).toBeGreaterThan(0);
    release();
    const done = await first;
    expect(done.body.error).toBeUndefined();
    expect((await exec({ payload: { seats: 7 }, idempotency_key: 'order-4004' })).body.result).toEqual(done.body.result);
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
  });

  it('refuses a malformed key with invalid_params naming the path and the rule, and records nothing', async () => {
    const before = await snapshot();
    for (const [key, rule] of [
      ['', 'non_empty'],
      ['k'.repeat(129), 'max_length'],
      ['with space', 'pattern'],
      ['quote"d', 'pattern'],
      ['ключ', 'pattern'],
      [42, 'type'],
    ] as const) {
      const r = await exec({ payload: { seats: 1 }, idempotency_key: key });
      expect(r.body.error.data, String(key)).toMatchObject({ type: 'invalid_params', path: 'params.idempotency_key', rule });
    }
    expect((await exec({ payload: { seats: 1 }, idempotency_key: 'k'.repeat(128) })).body.error).toBeUndefined();
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
  });
});

describe('the other faces', () => {
  const mcp = (id: number, meta: Record<string, unknown>) =>
    fetch(`${parley.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'count-air__idem_probe', arguments: { seats: 8 }, _meta: meta } }),
    }).then((r) => r.json() as Promise<{ result?: { structuredContent?: unknown; isError?: boolean; content: { text: string }[] }; error?: { code: number; message: string } }>);

  it('MCP tools/call: _meta.idempotency_key makes a repeat answer once', async () => {
    const before = await snapshot();
    const a = await mcp(1, { idempotency_key: 'mcp-call-1' });
    const b = await mcp(2, { idempotency_key: 'mcp-call-1' });
    expect(a.result?.isError).toBeFalsy();
    expect(b.result?.structuredContent).toEqual(a.result?.structuredContent);
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
    const bad = await mcp(3, { idempotency_key: 'no spaces please' });
    // A malformed option is a tool error naming it (as every _meta option's is), before anything runs.
    expect(bad.result?.isError).toBe(true);
    expect(bad.result?.content[0]?.text).toContain('invalid_params (at params._meta.idempotency_key, rule pattern)');
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
  });

  it('A2A message/send: metadata.idempotency_key makes a repeat answer once', async () => {
    const before = await snapshot();
    const send = (metadata: Record<string, unknown>) =>
      fetch(`${parley.url}/a2a/count-air`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${parley.devKey}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'data', data: { seats: 10 } }], metadata: { scenario: 'idem_probe', ...metadata } } },
        }),
      }).then((r) => r.json() as Promise<{ result?: { parts: { data: unknown }[]; metadata: { execution_id: string } }; error?: { data: Record<string, unknown> } }>);
    const a = await send({ idempotency_key: 'a2a-msg-1' });
    const b = await send({ idempotency_key: 'a2a-msg-1' });
    expect(a.error).toBeUndefined();
    expect(b.result?.parts[0]?.data).toEqual(a.result?.parts[0]?.data);
    expect(b.result?.metadata.execution_id).toBe(a.result?.metadata.execution_id);
    expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
    const bad = await send({ idempotency_key: 'x'.repeat(200) });
    expect(bad.error?.data).toMatchObject({ type: 'invalid_params', path: 'params.message.metadata.idempotency_key', rule: 'max_length' });
  });

  it('gRPC ExecuteRequest.idempotency_key: a repeat is flagged replayed, with the first execution_id', async () => {
    const c = createGrpcClient(ExecutionServiceService, `127.0.0.1:${parley.grpcPorts.execution}`);
    try {
      const md = new Metadata();
      md.set('authorization', `Bearer ${parley.devKey}`);
      const before = await snapshot();
      const call = (): Promise<ExecuteResponse> => c.api.execute({ schema_id: 'idem_probe_v1', payload: { seats: 11 }, idempotency_key: 'grpc-1' }, { metadata: md });
      const a = await call();
      const b = await call();
      expect(a.replayed).toBe(false);
      expect(b).toEqual({ ...a, replayed: true });
      expect(await snapshot()).toEqual({ rows: before.rows + 1, events: before.events + 1, calls: before.calls + 1 });
      await expect(c.api.execute({ schema_id: 'idem_probe_v1', payload: { seats: 12 }, idempotency_key: 'grpc-1' }, { metadata: md })).rejects.toMatchObject({ type: 'idempotency_conflict' });
    } finally {
      c.close();
    }
  });
});
