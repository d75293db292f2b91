/**
 * The MCP face's selection that learns from use (draft-chang §3.4): tools/list with a query reads the caller's
 * learned examples and notes the query for the caller's next call; tools/call carries the request it serves in
 * `_meta["dev.parley/request"]` (adol-params parseCallToolMeta).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageStore, type ToolLike } from '@parley/adol';
import { templateToWire, type Agent, type ExecutionApi, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import { flightBookingTemplate } from '@parley/examples';
import { ParleyError } from '@parley/protocol';
import { createLogger, type Logger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import { describe, expect, it } from 'vitest';
import { REQUEST_META_KEY, parseCallToolMeta } from '../src/adol-params';
import { ToolCatalog, type SelectableEntry } from '../src/catalog';
import { MCP_USAGE_LIST, createMcpFace, listTools } from '../src/mcp';
import { SchemaStore } from '../src/schema-store';
import { createGatewayServer, type Backends } from '../src/index';

const T = '2026-01-01T00:00:00Z';
const SKYWAYS: Agent = { name: 'skyways-air', description: 'Skyways bookings', domain: 'travel', tags: ['airline'], scenarios: ['flight_booking'], version: '1.0.0', registered_at: T, updated_at: T, executions: 0, last_executed_at: '' };
const SCHEMA = { agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario: 'flight_booking', scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: false, published_at: T };

const tool = (name: string, description: string): SelectableEntry =>
  ({ name, description, inputSchema: { type: 'object' }, entry: { tool: { name, description, inputSchema: { type: 'object' } } } }) as unknown as SelectableEntry & ToolLike;
const LIST: SelectableEntry[] = [tool('files__read', 'Read a file'), tool('files__write', 'Write a file'), tool('repo__branch', 'Create a branch')];

describe('MCP face: selection learns from use (chang §3.4)', () => {
  it('tools/call _meta["dev.parley/request"] is read as the request the call serves; malformed ones are invalid_params', () => {
    expect(parseCallToolMeta({ [REQUEST_META_KEY]: 'open an MR' }).request).toBe('open an MR');
    expect(parseCallToolMeta({}).request).toBeUndefined();
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: 3 })).toThrow(expect.objectContaining({ type: 'invalid_params', rule: 'type' }));
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: ' ' })).toThrow(expect.objectContaining({ rule: 'non_empty' }));
    expect(() => parseCallToolMeta({ [REQUEST_META_KEY]: 'x'.repeat(2000) })).toThrow(expect.objectContaining({ rule: 'max_length' }));
  });

  it('a tools/list with a query notes it for the caller\'s session: a call of a tool it returned, in that session, takes it once', async () => {
    let now = 0;
    const usage = new UsageStore({ now: () => now });
    const alice = { usage, client: 'alice', session: 's1' };
    await listTools(LIST, { query: 'open an MR' }, undefined, undefined, alice);
    now = 10;
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'bob', 's1', 'repo__branch')).toBeUndefined();
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', 's2', 'repo__branch')).toBeUndefined();
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', 's1', 'repo__branch')).toBe('open an MR');
    // A listing without a query (or by names) notes nothing.
    await listTools(LIST, {}, undefined, undefined, alice);
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', 's1', 'files__read')).toBeUndefined();
    // A tool the answer did not hold is not attributed.
    await listTools(LIST, { query: 'write a file', top_k: 1, cut: 'fixed' }, undefined, undefined, alice);
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', 's1', 'repo__branch')).toBeUndefined();
    // A failed tools/list notes nothing, and drops what was pending.
    await listTools(LIST, { query: 'read a file' }, undefined, undefined, alice);
    await expect(listTools(LIST, { query: 'read the file', refs: 'shared' }, undefined, undefined, alice)).rejects.toMatchObject({ type: 'invalid_params' });
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', 's1', 'files__read')).toBeUndefined();
    // Without a session (stateless client): no implicit attribution.
    await listTools(LIST, { query: 'read a file' }, undefined, undefined, { usage, client: 'alice' });
    expect(usage.takeAttribution(MCP_USAGE_LIST, 'alice', undefined, 'files__read')).toBeUndefined();
  });

  it('learned examples of a name the catalogue does not hold change nothing', async () => {
    const usage = new UsageStore({ now: () => 0 });
    usage.record(MCP_USAGE_LIST, 'nobody__tool', 'read the notes', 'alice');
    const plain = await listTools(LIST, { query: 'read the notes' });
    const learned = await listTools(LIST, { query: 'read the notes' }, undefined, undefined, { usage, client: 'alice' });
    expect(learned.tools.map((t) => t.name)).toEqual(plain.tools.map((t) => t.name));
  });
});

describe('MCP face end to end: what a tools/call teaches (chang §3.4)', () => {
  /** A face over a one-tool catalogue (flight booking) on a loopback server, as `principal` calls it. */
  async function face(usage: UsageStore, client: string, opts: { session?: string; fail?: boolean } = {}): Promise<{ post: (body: unknown) => Promise<unknown>; name: string; close: () => Promise<void> }> {
    const registry = { listAgents: async () => ({ agents: [SKYWAYS] }) } as unknown as RegistryApi;
    const negotiation = {
      listSchemas: async () => ({ schemas: [SCHEMA] }),
      getSchema: async () => ({ template: templateToWire(flightBookingTemplate), schema: SCHEMA, applied_patches: [], etag: 'e', withdrawn_keys: [] }),
    } as unknown as NegotiationApi;
    const catalog = new ToolCatalog({ registry, negotiation });
    const name = (await catalog.entries())[0]!.tool.name;
    const execution = {
      execute: async () => {
        if (opts.fail) throw new ParleyError('unavailable', 'the agent is down');
        return { result: { booking_id: 'B1' } };
      },
    } as unknown as ExecutionApi;
    const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => log } as unknown as Logger;
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => void createMcpFace({ catalog, execution, log, schemas: new SchemaStore(), learning: { usage, client, session: opts.session } }).handlePost(req, res, JSON.parse(raw)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const post = async (body: unknown): Promise<unknown> => {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
      return res.json();
    };
    return { post, name, close: () => new Promise<void>((r) => server.close(() => r())) };
  }
  const call = (name: string, meta?: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } });

  it('a call carrying _meta["dev.parley/request"] records it for the caller and the tool called', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice');
    try {
      await f.post(call(f.name, { [REQUEST_META_KEY]: 'get me to Shanghai' }));
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(f.name)).toEqual(['get me to Shanghai']);
      expect(usage.examples(MCP_USAGE_LIST, 'bob').size).toBe(0);
    } finally {
      await f.close();
    }
  });

  it('a call of a tool the catalogue does not hold records nothing, said or attributed', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice');
    try {
      const r = (await f.post(call('nobody__tool', { [REQUEST_META_KEY]: 'get me to Shanghai' }))) as { error?: { code: number } };
      expect(r.error?.code).toBe(-32602);
      await f.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { query: 'fly to Lyon' } } });
      await f.post(call('nobody__tool'));
      expect(usage.examplesKept).toBe(0);
    } finally {
      await f.close();
    }
  });

  it('a refused or failed call teaches nothing (recorded only after the call succeeded)', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice');
    try {
      const refused = (await f.post(call(f.name, { [REQUEST_META_KEY]: 'cancel my hotel', requireOutput: ['no_such_field'] }))) as { result?: { isError?: boolean } };
      expect(refused.result?.isError).toBe(true);
      expect(usage.examplesKept).toBe(0);
    } finally {
      await f.close();
    }
    const g = await face(usage, 'alice', { fail: true });
    try {
      const failed = (await g.post(call(g.name, { [REQUEST_META_KEY]: 'order a pizza' }))) as { result?: { isError?: boolean } };
      expect(failed.result?.isError).toBe(true);
      expect(usage.examplesKept).toBe(0);
    } finally {
      await g.close();
    }
  });

  it('without the member, the first call after a tools/list with a query in the same session learns that query; not in another session or without one', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice', { session: 's1' });
    const other = await face(usage, 'alice', { session: 's2' });
    const stateless = await face(usage, 'alice');
    try {
      await f.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { query: 'fly to Lyon' } } });
      await other.post(call(other.name));
      await f.post(call(f.name));
      await f.post(call(f.name));
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(f.name)).toEqual(['fly to Lyon']);
      await stateless.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { query: 'fly to Nice' } } });
      await stateless.post(call(stateless.name));
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(f.name)).toEqual(['fly to Lyon']);
    } finally {
      await Promise.all([f.close(), other.close(), stateless.close()]);
    }
  });

  it('a call carrying the member consumes the pending query: the next plain call does not get the old one', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice', { session: 's1' });
    try {
      await f.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { query: 'what is the weather in Lyon' } } });
      await f.post(call(f.name, { [REQUEST_META_KEY]: 'fly to Lyon' }));
      await f.post(call(f.name));
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(f.name)).toEqual(['fly to Lyon']);
    } finally {
      await f.close();
    }
  });
});

describe('the gateway\'s /mcp route: the learning client is the authenticated principal (chang §3.4)', () => {
  it('what A\'s call teaches is recorded for A\'s principal and does not reach B', async () => {
    const AUTH = keyedAuthenticator('usage-learning-test-service-token-0123456789', [
      { id: 'alice', roles: ['client_agent'] },
      { id: 'bob', roles: ['client_agent'] },
    ]);
    const usage = new UsageStore({ now: () => 0 });
    const backends: Backends = {
      registry: { listAgents: async () => ({ agents: [SKYWAYS] }) } as unknown as RegistryApi,
      negotiation: {
        listSchemas: async () => ({ schemas: [SCHEMA] }),
        getSchema: async () => ({ template: templateToWire(flightBookingTemplate), schema: SCHEMA, applied_patches: [], etag: 'e', withdrawn_keys: [] }),
      } as unknown as NegotiationApi,
      execution: { execute: async () => ({ result: { booking_id: 'B1' } }) } as unknown as ExecutionApi,
    };
    const server = createGatewayServer({ backends, health: { shuttingDown: false, checks: {} }, log: createLogger({ level: 'silent' }), maxBodyBytes: 1 << 16, authenticator: AUTH.authenticator, usage });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const post = async (key: string | undefined, body: unknown): Promise<{ result?: { tools?: { name: string }[]; isError?: boolean } }> => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
      return (await res.json()) as { result?: { tools?: { name: string }[]; isError?: boolean } };
    };
    try {
      const listed = await post(AUTH.keys['alice'], { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const name = listed.result?.tools?.[0]?.name as string;
      const r = await post(AUTH.keys['alice'], { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {}, _meta: { [REQUEST_META_KEY]: 'get me to Shanghai' } } });
      expect(r.result?.isError).toBeFalsy();
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(name)).toEqual(['get me to Shanghai']);
      expect(usage.examples(MCP_USAGE_LIST, 'bob').size).toBe(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
