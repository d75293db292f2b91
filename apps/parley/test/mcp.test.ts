import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, REPO_ROOT, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// Parley's MCP face (apps/gateway/src/mcp.ts) through the official SDK client,
// against the embedded Parley `npm start` runs.
const FLIGHT = 'skyways-air__flight_booking';
const FIGURE_9_FIELDS = ['booking_id', 'status', 'flight_number', 'departure_time', 'arrival_time', 'seat', 'total_amount'];

let parley: EmbeddedParley;
let client: Client;

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
  client = new Client({ name: 'parley-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${parley.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${parley.devKey}` } } }));
});

afterAll(async () => {
  await client?.close();
  await parley?.stop();
});

const countExecutions = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n);
const tokens = (v: unknown) => countTokens(JSON.stringify(v));
const textOf = (r: CallToolResult) => (r.content[0] as { type: 'text'; text: string }).text;
// ADOL options ride in params._meta, which the SDK's request types allow; the cast only names them.
const listWith = (meta: Record<string, unknown>) => client.listTools({ _meta: meta } as Parameters<Client['listTools']>[0]);

describe('MCP over streamable HTTP: a standard client', () => {
  it('lists one tool per (agent, scenario), the flight tool derived from Figure 2', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['an-cross-domain-fault__fault_management', 'pixel-studio__photo_retouch', FLIGHT]);
    const flight = tools.find((t) => t.name === FLIGHT) as Tool;
    expect(flight.inputSchema.required).toEqual(['origin', 'destination', 'departure_date']);
    const props = flight.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props.cabin_class?.enum).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(props.passenger_count).toMatchObject({ type: 'integer', minimum: 1, maximum: 9 });
    expect(props.other?.type).toEqual(['string', 'array']);
    expect(props.origin?.description).toMatch(/^Departure city or airport code/);
    // GetSchema publishes the scenario's response schema: it becomes the outputSchema.
    expect(Object.keys(flight.outputSchema?.properties ?? {})).toEqual(expect.arrayContaining(FIGURE_9_FIELDS));
    expect(flight.title).toBe('Flight booking (skyways-air)');
  });

  it("calls the flight tool with Figure 8's payload and gets Figure 9's shape", async () => {
    const before = await countExecutions();
    const r = (await client.callTool({ name: FLIGHT, arguments: FIGURE_8.payload })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as Record<string, unknown>;
    expect(out.status).toBe('confirmed');
    for (const k of FIGURE_9_FIELDS) expect(typeof out[k]).toBe('string');
    expect(out.seat).toMatch(/A$/); // "window seat" reached the agent through `other`
    expect(JSON.parse(textOf(r))).toEqual(out);
    expect(await countExecutions()).toBe(before + 1);
  });

  it('returns a validation failure as a tool error naming the key path and rule, and executes nothing', async () => {
    const before = await countExecutions();
    const r = (await client.callTool({ name: FLIGHT, arguments: { ...FIGURE_8.payload, passenger_count: 12 } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^payload_invalid \(at payload\.passenger_count, rule maximum\): payload\.passenger_count must be <= 9/);
    const missing = (await client.callTool({ name: FLIGHT, arguments: { origin: 'PEK', departure_date: '2026-05-04' } })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('payload.destination');
    expect(textOf(missing)).toContain('rule required');
    const badEnum = (await client.callTool({ name: FLIGHT, arguments: { ...FIGURE_8.payload, cabin_class: 'luxury' } })) as CallToolResult;
    expect(textOf(badEnum)).toMatch(/at payload\.cabin_class, rule enum/);
    expect(await countExecutions()).toBe(before);
  });

  it('answers an unknown tool with a protocol error (-32602)', async () => {
    const e = await client.callTool({ name: 'nobody__nothing', arguments: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32602);
    expect((e as McpError).message).toContain('Unknown tool "nobody__nothing"');
  });
});

describe('MCP with ADOL options in params._meta (draft-chang §3)', () => {
  it('short (§3.2): the same tool names in fewer tokens', async () => {
    const full = await client.listTools();
    const short = await listWith({ short: true });
    expect(short.tools.map((t) => t.name)).toEqual(full.tools.map((t) => t.name));
    expect(tokens(short.tools)).toBeLessThan(tokens(full.tools) * 0.7);
    const flight = short.tools.find((t) => t.name === FLIGHT) as Tool;
    expect(flight.outputSchema).toBeUndefined();
    expect(flight.inputSchema.required).toEqual(['origin', 'destination', 'departure_date']);
  });

  it('requireOutput (§3.3): only the named fields come back', async () => {
    await client.listTools(); // the SDK client validates results against the cached outputSchema
    const r = (await client.callTool({ name: FLIGHT, arguments: FIGURE_8.payload, _meta: { requireOutput: ['booking_id', 'seat'] } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(Object.keys(r.structuredContent ?? {})).toEqual(['booking_id', 'seat']);
    expect((r.structuredContent as { booking_id: string }).booking_id).toMatch(/^BK-/);
    expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
  });

  it('requireOutput naming an unknown field is a tool error naming it, before anything executes', async () => {
    const before = await countExecutions();
    const r = (await client.callTool({ name: FLIGHT, arguments: FIGURE_8.payload, _meta: { requireOutput: ['seat', 'gate_number'] } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('at params._meta.requireOutput[1], rule unknown_output_field');
    expect(textOf(r)).toContain('"gate_number"');
    expect(await countExecutions()).toBe(before);
  });

  it('tags and query select tools (§3.4)', async () => {
    expect((await listWith({ tags: ['travel'] })).tools.map((t) => t.name)).toEqual([FLIGHT]);
    expect((await listWith({ query: 'retouch a portrait: smooth skin, whiten teeth', top_k: 1 })).tools.map((t) => t.name)).toEqual(['pixel-studio__photo_retouch']);
    expect((await listWith({ query: 'fly from Beijing to Shanghai next Monday', top_k: 1, short: true })).tools.map((t) => t.name)).toEqual([FLIGHT]);
  });

  it('a malformed option is a protocol error naming the _meta member', async () => {
    const e = await listWith({ query: 'flights', top_k: 0 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpError);
    expect((e as McpError).code).toBe(-32602);
    expect((e as McpError).message).toContain('at params._meta.top_k, rule range');
  });
});

describe('MCP endpoint behaviour', () => {
  const post = (body: unknown) =>
    fetch(`${parley.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('is stateless: GET and DELETE answer 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(`${parley.url}/mcp`, { method });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
    }
  });

  it('serves a plain JSON-RPC tools/call without a session (what curl sends)', async () => {
    const r = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: FLIGHT, arguments: FIGURE_8.payload } });
    expect(r.status).toBe(200);
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const body = (await r.json()) as { result: CallToolResult };
    expect((body.result.structuredContent as { status: string }).status).toBe('confirmed');
  });

  it('refuses a top-level __proto__ argument the SDK would otherwise drop silently', async () => {
    const before = await countExecutions();
    const raw = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"${FLIGHT}","arguments":{"origin":"PEK","destination":"SHA","departure_date":"2026-05-04","__proto__":{"x":1}}}}`;
    const body = (await (await post(raw)).json()) as { result: CallToolResult };
    expect(body.result.isError).toBe(true);
    expect(textOf(body.result)).toContain('at payload.__proto__, rule forbidden_key');
    expect(await countExecutions()).toBe(before);
  });

  it('answers malformed JSON with 400 and a parse error', async () => {
    const r = await post('{"jsonrpc":');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('sees a register and publish through /rpc at once (the cache is invalidated), with the latest version', async () => {
    const reg = await rpc(parley.url, 'register_agent', { name: 'acme-air', scenarios: ['flight_booking'], tags: ['airline'], description: 'Acme Air bookings' });
    expect(reg.body.error).toBeUndefined();
    const t = { schema_id: 'acme_flight_v1', scenario: 'flight_booking', keys: [{ key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport.' }] };
    expect((await rpc(parley.url, 'publish_schema', { agent: 'acme-air', template: t })).body.error).toBeUndefined();
    const v1 = (await client.listTools()).tools.find((x) => x.name === 'acme-air__flight_booking');
    expect(v1?.description).toContain('schema acme_flight_v1 (version 1)');
    expect((await rpc(parley.url, 'publish_schema', { agent: 'acme-air', template: { ...t, schema_id: 'acme_flight_v2' } })).body.error).toBeUndefined();
    const v2 = (await client.listTools()).tools.find((x) => x.name === 'acme-air__flight_booking');
    expect(v2?.description).toContain('schema acme_flight_v2 (version 2)');
    expect((await listWith({ tags: ['airline'] })).tools.map((x) => x.name)).toEqual(['acme-air__flight_booking']);
  });
});

// Not MCP, but the same ADOL views on the negotiation face: get_schema_template's view and compact params.
describe('get_schema_template views over /rpc (draft-chang §3.1, §3.2)', () => {
  it('view "full" (the default) is the template as published; "short" trims it', async () => {
    const plain = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', agent: 'skyways-air' });
    const full = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', agent: 'skyways-air', view: 'full' });
    expect(full.body.result).toEqual(plain.body.result);
    const short = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', agent: 'skyways-air', view: 'short' });
    expect(short.body.error).toBeUndefined();
    expect(short.body.result.keys.map((k: { key_name: string }) => k.key_name)).toEqual(plain.body.result.keys.map((k: { key_name: string }) => k.key_name));
    // origin and departure_date carry an optional section (more mapping examples): only that goes.
    expect(plain.body.result.keys[0].optional.examples.length).toBeGreaterThan(1);
    const { optional: _o, ...origin } = plain.body.result.keys[0];
    expect(short.body.result.keys[0]).toEqual(origin);
    expect(JSON.stringify(short.body.result)).not.toContain('"optional"');
    expect(short.body.result.keys[3]).toEqual(plain.body.result.keys[3]); // cabin_class: no optional section, unchanged
    expect(tokens(short.body.result)).toBeLessThan(tokens(plain.body.result));
  });

  it('compact returns { template, $defs } and a bad view is refused naming params.view', async () => {
    const c = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', agent: 'skyways-air', compact: true });
    expect(Object.keys(c.body.result)).toEqual(['template', '$defs']);
    expect(c.body.result.template.schema_id).toBe('flight_booking_v1');
    const bad = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', view: 'tiny' });
    expect(bad.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params.view', rule: 'enum' });
  });
});

describe('stdio MCP through the CLI (`parley mcp --url …/mcp`)', () => {
  it('bridges tools/list and tools/call, ADOL options and errors included', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(REPO_ROOT, 'apps/cli/bin/parley.mjs'), 'mcp', '--url', `${parley.url}/mcp`],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), PARLEY_API_KEY: parley.devKey },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const stdio = new Client({ name: 'parley-stdio-test', version: '1.0.0' });
    await stdio.connect(transport);
    try {
      const direct = await client.listTools();
      const bridged = await stdio.listTools();
      expect(bridged.tools).toEqual(direct.tools);
      const short = await stdio.listTools({ _meta: { short: true, tags: ['travel'] } } as Parameters<Client['listTools']>[0]);
      expect(short.tools.map((t) => t.name)).toEqual([FLIGHT]);
      expect(short.tools[0]?.outputSchema).toBeUndefined();

      const r = (await stdio.callTool({ name: FLIGHT, arguments: FIGURE_8.payload, _meta: { requireOutput: ['status', 'seat'] } })) as CallToolResult;
      expect(r.structuredContent).toEqual({ status: 'confirmed', seat: expect.stringMatching(/A$/) });
      const bad = (await stdio.callTool({ name: FLIGHT, arguments: { ...FIGURE_8.payload, departure_date: 'next monday' } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/at payload\.departure_date, rule format/);
      const unknown = await stdio.callTool({ name: 'nobody__nothing', arguments: {} }).catch((x: unknown) => x);
      expect((unknown as McpError).code).toBe(-32602);
    } finally {
      await stdio.close();
    }
    expect(stderr).toContain(`forwarding to ${parley.url}/mcp`);
  }, 30_000);

  it('exits 1 with a message when the gateway cannot be reached', async () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/parley.mjs'), 'mcp', '--url', 'http://127.0.0.1:9/mcp'], { cwd: REPO_ROOT, input: '', encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot reach the gateway's MCP endpoint at http://127.0.0.1:9/mcp");
  }, 30_000);
});
