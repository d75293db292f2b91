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
import type { Logger } from '@parley/runtime';
import { describe, expect, it } from 'vitest';
import { REQUEST_META_KEY, parseCallToolMeta } from '../src/adol-params';
import { ToolCatalog, type SelectableEntry } from '../src/catalog';
import { MCP_USAGE_LIST, createMcpFace, listTools } from '../src/mcp';
import { SchemaStore } from '../src/schema-store';

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

  it('a tools/list with a query notes it for the caller: its next call within the window learns it, once', async () => {
    let now = 0;
    const usage = new UsageStore({ now: () => now });
    await listTools(LIST, { query: 'open an MR' }, undefined, undefined, { usage, client: 'alice' });
    now = 10;
    expect(usage.attributeCall(MCP_USAGE_LIST, 'bob', 'repo__branch')).toBe(false);
    expect(usage.attributeCall(MCP_USAGE_LIST, 'alice', 'repo__branch')).toBe(true);
    expect(usage.examples(MCP_USAGE_LIST, 'alice').get('repo__branch')).toEqual(['open an MR']);
    // A listing without a query (or by names) notes nothing.
    await listTools(LIST, {}, undefined, undefined, { usage, client: 'alice' });
    expect(usage.attributeCall(MCP_USAGE_LIST, 'alice', 'files__read')).toBe(false);
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
  async function face(usage: UsageStore, client: string): Promise<{ post: (body: unknown) => Promise<unknown>; name: string; close: () => Promise<void> }> {
    const registry = { listAgents: async () => ({ agents: [SKYWAYS] }) } as unknown as RegistryApi;
    const negotiation = {
      listSchemas: async () => ({ schemas: [SCHEMA] }),
      getSchema: async () => ({ template: templateToWire(flightBookingTemplate), schema: SCHEMA, applied_patches: [], etag: 'e', withdrawn_keys: [] }),
    } as unknown as NegotiationApi;
    const catalog = new ToolCatalog({ registry, negotiation });
    const name = (await catalog.entries())[0]!.tool.name;
    const execution = { execute: async () => ({ result: { booking_id: 'B1' } }) } as unknown as ExecutionApi;
    const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => log } as unknown as Logger;
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => void createMcpFace({ catalog, execution, log, schemas: new SchemaStore(), learning: { usage, client } }).handlePost(req, res, JSON.parse(raw)));
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

  it('without the member, the first call after a tools/list with a query learns that query', async () => {
    const usage = new UsageStore({ now: () => 0 });
    const f = await face(usage, 'alice');
    try {
      await f.post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { query: 'fly to Lyon' } } });
      await f.post(call(f.name));
      await f.post(call(f.name));
      expect(usage.examples(MCP_USAGE_LIST, 'alice').get(f.name)).toEqual(['fly to Lyon']);
    } finally {
      await f.close();
    }
  });
});
