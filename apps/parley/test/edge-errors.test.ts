import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, postRaw, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// The edge of every face (JSON-RPC, MCP, A2A): strings with NUL or unpaired surrogates, deep nesting and
// malformed MCP/A2A messages get typed errors naming the key path and rule, and change nothing.

let parley: EmbeddedParley;

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
});

const countExecutions = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n);
const countAgents = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.agents')).rows[0]?.n);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${parley.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
/** A request with a Host header of our choosing (fetch sets its own). */
function withHost(method: 'GET' | 'POST', path: string, host: string, body?: unknown): Promise<{ status: number; text: string }> {
  const u = new URL(parley.url);
  const text = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path, method, headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}`, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(text) }) } },
      (res) => {
        let out = '';
        res.on('data', (c: Buffer) => (out += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: out }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
const errorOf = (r: Awaited<ReturnType<typeof rpc>>) => (r.body as { error?: { code: number; data: Record<string, unknown> } }).error;

describe('strings at the JSON-RPC edge', () => {
  it('a NUL in register_agent is invalid_params at its key path (rule no_nul), and no agent is registered', async () => {
    const before = await countAgents();
    const r = await rpc(parley.url, 'register_agent', { name: 'nul-agent', description: 'a\u0000b', scenarios: ['flight_booking'] });
    expect(errorOf(r)).toMatchObject({ code: -32602, data: { type: 'invalid_params', path: 'params.description', rule: 'no_nul' } });
    expect(await countAgents()).toBe(before);
  });

  it('a NUL in create_api_key is invalid_params, not internal', async () => {
    const r = await rpc(parley.url, 'create_api_key', { principal: 'bob', roles: ['client_agent'], description: 'x\u0000' });
    expect(errorOf(r)).toMatchObject({ data: { type: 'invalid_params', path: 'params.description', rule: 'no_nul' } });
  });

  it('a lone surrogate in a payload string is refused (rule well_formed_unicode) and nothing is booked; a surrogate pair is fine', async () => {
    const before = await countExecutions();
    const r = await rpc(parley.url, 'execute', { ...FIGURE_8, payload: { ...FIGURE_8.payload, other: 'window \ud800 seat' } });
    expect(errorOf(r)).toMatchObject({ data: { type: 'invalid_params', path: 'params.payload.other', rule: 'well_formed_unicode', details: { index: 7 } } });
    const lowFirst = await rpc(parley.url, 'execute', { ...FIGURE_8, payload: { ...FIGURE_8.payload, other: '\udc00' } });
    expect(errorOf(lowFirst)?.data.rule).toBe('well_formed_unicode');
    const key = await rpc(parley.url, 'execute', { ...FIGURE_8, payload: { ...FIGURE_8.payload, ['k\ud800']: 1 } });
    expect(errorOf(key)?.data).toMatchObject({ rule: 'well_formed_unicode', path: 'params.payload["k\\ud800"]' });
    expect(await countExecutions()).toBe(before);
    const ok = await rpc(parley.url, 'execute', { ...FIGURE_8, payload: { ...FIGURE_8.payload, other: 'window seat 😀' } });
    expect(errorOf(ok)).toBeUndefined();
    expect(await countExecutions()).toBe(before + 1);
  });

  it('a response_schema 10,000 deep is invalid_params naming the path and rule max_depth', async () => {
    // Written as text: JSON.stringify itself would overflow the stack on such a value.
    const deep = `${'{"type":"object","properties":{"a":'.repeat(10_000)}{"type":"string"}${'}}'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"publish_schema","params":{"agent":"skyways-air","template":{"schema_id":"deep_v1","scenario":"Deep","keys":[]},"response_schema":${deep}}}`;
    const r = await postRaw(parley.url, body, { authorization: `Bearer ${parley.devKey}` });
    const e = errorOf(r);
    expect(e).toMatchObject({ code: -32602, data: { type: 'invalid_params', rule: 'max_depth' } });
    expect(String(e?.data.path)).toMatch(/^params\.response_schema\.properties\.a\.properties\.a/);
  });
});

describe('MCP and A2A messages at the edge', () => {
  it('tools/call with arguments "x" is -32602 with data.type, path and rule (no schema-library dump)', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'skyways-air__flight_booking', arguments: 'x' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; error: { code: number; message: string; data: Record<string, unknown> } };
    expect(body.id).toBe(7);
    expect(body.error).toMatchObject({ code: -32602, data: { type: 'invalid_params', path: 'params.arguments', rule: 'type' } });
    expect(body.error.message).not.toMatch(/zod|invalid_type|expected/i);
    const noName = (await (await post('/mcp', { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { arguments: {} } })).json()) as { error: { data: unknown } };
    expect(noName.error.data).toMatchObject({ type: 'invalid_params', path: 'params.name', rule: 'required' });
    const badMeta = (await (await post('/mcp', { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: 'short' } })).json()) as { error: { data: unknown } };
    expect(badMeta.error.data).toMatchObject({ type: 'invalid_params', path: 'params._meta', rule: 'type' });
  });

  it('a NUL in MCP tool arguments is refused before anything runs', async () => {
    const before = await countExecutions();
    const res = await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'skyways-air__flight_booking', arguments: { ...FIGURE_8.payload, other: '\u0000' } } });
    const body = (await res.json()) as { error: { code: number; data: unknown } };
    expect(body.error).toMatchObject({ code: -32602, data: { type: 'invalid_params', path: 'params.arguments.other', rule: 'no_nul' } });
    expect(await countExecutions()).toBe(before);
  });

  it('A2A metadata.__proto__ is refused as /rpc refuses it, and a lone surrogate in a data part too', async () => {
    const before = await countExecutions();
    const proto = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":${JSON.stringify(FIGURE_8.payload)}}],"metadata":{"scenario":"flight_booking","__proto__":{"x":1}}}}}`;
    const r1 = (await (await post('/a2a', proto)).json()) as { error: { data: unknown } };
    expect(r1.error.data).toMatchObject({ type: 'invalid_params', path: 'params.message.metadata.__proto__', rule: 'forbidden_key' });
    const r2 = (await (
      await post('/a2a', { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: { scenario: 'flight_booking', payload: { ...FIGURE_8.payload, other: '\udfff' } } }] } } })
    ).json()) as { error: { data: unknown } };
    expect(r2.error.data).toMatchObject({ type: 'invalid_params', path: 'params.message.parts[0].data.payload.other', rule: 'well_formed_unicode' });
    expect(await countExecutions()).toBe(before);
  });

  it('the agent card names the bound address, not the Host header, when PUBLIC_URL is unset', async () => {
    const { status, text } = await withHost('GET', '/.well-known/agent-card.json', 'evil.example.com');
    expect(status).toBe(200);
    expect(text).not.toContain('evil.example.com');
    expect(text).toContain(`127.0.0.1:${parley.port}`);
  });
});

describe('MCP transport: DNS rebinding and capabilities', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

  it('refuses a foreign Host with 403 (rule allowed_host), before anything else', async () => {
    const res = await withHost('POST', '/mcp', 'evil.example.com', init);
    expect(res.status).toBe(403);
    expect((JSON.parse(res.text) as { error: { data: unknown } }).error.data).toMatchObject({ type: 'forbidden', path: 'headers.host', rule: 'allowed_host' });
    expect((await withHost('POST', '/mcp', 'evil.example.com:8080', init)).status).toBe(403);
  });

  it('refuses a foreign Origin with 403 (rule allowed_origin); a loopback Origin on another port is fine', async () => {
    const res = await post('/mcp', init, { origin: 'http://evil.example.com' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { data: unknown } }).error.data).toMatchObject({ type: 'forbidden', path: 'headers.origin', rule: 'allowed_origin' });
    expect((await post('/mcp', init, { origin: 'null' })).status).toBe(403);
    expect((await post('/mcp', init, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await withHost('POST', '/mcp', `localhost:${parley.port}`, init)).status).toBe(200);
  });

  it('does not advertise tools.listChanged: this stateless endpoint has no stream to send it on', async () => {
    const body = (await (await post('/mcp', init)).json()) as { result: { capabilities: { tools?: Record<string, unknown> } } };
    expect(body.result.capabilities.tools).toBeDefined();
    expect(body.result.capabilities.tools?.listChanged).toBeUndefined();
  });
});

describe('after hostile input', () => {
  it('an ordinary execute still works', async () => {
    const r = await postRaw(parley.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: FIGURE_8 }), { authorization: `Bearer ${parley.devKey}` });
    expect((r.body as { result?: { status?: string } }).result?.status).toBe('confirmed');
  });
});
