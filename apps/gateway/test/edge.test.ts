import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Metadata, status as GrpcCode, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError, logInternal, type ExecutionApi, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import { ParleyError, findEdgeViolation } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayServer, type Backends, type GatewayHttpOptions } from '../src/index';

// The gateway's edge: internal failures logged with a cause and a correlation id the client gets,
// unavailable services named without their address, the edge check of strings and depth.

const SERVICE_TOKEN = 'edge-test-service-token-0123456789abcdef';
const AUTH = keyedAuthenticator(SERVICE_TOKEN, [{ id: 'alice', roles: ['client_agent', 'operator'] }]);
const KEY = AUTH.keys['alice'] as string;

interface Gw {
  url: string;
  lines: string[];
  close(): Promise<void>;
}
const open: Gw[] = [];
afterEach(async () => {
  for (const g of open.splice(0)) await g.close();
});

export async function gateway(backends: Partial<Backends>, over: Partial<GatewayHttpOptions> = {}): Promise<Gw> {
  const lines: string[] = [];
  const log = createLogger({ level: 'warn', write: (l) => lines.push(l) });
  const full = { registry: {} as RegistryApi, negotiation: {} as NegotiationApi, execution: {} as ExecutionApi, ...backends } as Backends;
  const server: Server = createGatewayServer({ backends: full, health: { shuttingDown: false, checks: {} }, log, maxBodyBytes: 1 << 20, authenticator: AUTH.authenticator, ...over });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const g = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, close: () => new Promise<void>((r) => server.close(() => r())) };
  open.push(g);
  return g;
}

const call = async (g: Gw, method: string, params: unknown) => {
  const res = await fetch(`${g.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data: Record<string, unknown> } };
};

describe('internal failures', () => {
  it('are logged with their cause and a correlation id that the client also gets, and the cause stays out of the answer', async () => {
    const registry = { listAgents: async () => Promise.reject(new Error('relation "registry.agents" does not exist at 10.1.2.3:5432')) } as unknown as RegistryApi;
    const g = await gateway({ registry });
    const r = await call(g, 'list_agents', {});
    expect(r.error).toMatchObject({ code: -32603, data: { type: 'internal' } });
    const id = (r.error?.data.details as { correlation_id?: string } | undefined)?.correlation_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.error?.message).toContain(id as string);
    expect(JSON.stringify(r)).not.toMatch(/registry\.agents|10\.1\.2\.3|5432/);
    const line = g.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.correlation_id === id);
    expect(line).toMatchObject({ level: 'error', method: 'list_agents', cause: { name: 'Error', message: expect.stringContaining('registry.agents') } });
  });

  it("keep a service's correlation id, so one id finds the service's log line and the gateway's", async () => {
    const registry = { listAgents: async () => Promise.reject(new ParleyError('internal', 'Internal error', { details: { correlation_id: 'svc-0123456789' } })) } as unknown as RegistryApi;
    const g = await gateway({ registry });
    const r = await call(g, 'list_agents', {});
    expect(r.error?.data.details).toEqual({ correlation_id: 'svc-0123456789' });
  });

  it('a gRPC handler failure is logged with its cause and becomes an internal error carrying the correlation id', () => {
    const lines: Record<string, unknown>[] = [];
    const out = logInternal(new TypeError('null value in column "x" violates not-null constraint'), 'parley.v1.RegistryService/RegisterAgent', { error: (msg, f) => lines.push({ msg, ...f }) });
    expect(out).toBeInstanceOf(ParleyError);
    const id = (out as ParleyError).details.correlation_id;
    expect(typeof id).toBe('string');
    expect((out as ParleyError).message).toBe('Internal error');
    expect(lines).toEqual([expect.objectContaining({ method: 'parley.v1.RegistryService/RegisterAgent', correlation_id: id, cause: expect.objectContaining({ message: expect.stringContaining('not-null') }) })]);
    // Typed errors pass untouched and are not logged as failures.
    const typed = new ParleyError('invalid_params', 'x', { path: 'p', rule: 'r' });
    expect(logInternal(typed, 'm', { error: () => lines.push({}) })).toBe(typed);
    expect(lines.length).toBe(1);
  });
});

describe('unavailable services', () => {
  it('are named by service, never by internal host:port', () => {
    const e = Object.assign(new Error('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 10.0.0.7:50053'), {
      code: GrpcCode.UNAVAILABLE,
      details: 'No connection established',
      metadata: new Metadata(),
    }) as ServiceError;
    const err = fromServiceError(e, 'ExecutionService');
    expect(err.type).toBe('unavailable');
    expect(err.message).toBe('ExecutionService is unavailable');
    expect(JSON.stringify(err.toJSON())).not.toMatch(/\d+\.\d+\.\d+\.\d+|:\d{4,5}/);
  });
});

describe('the edge check', () => {
  it('is linear on 1 MiB strings and names the first bad character', () => {
    const big = 'a'.repeat(1 << 20);
    const t0 = performance.now();
    expect(findEdgeViolation({ s: big, t: `${big}\ud800` }, 'params')).toMatchObject({ path: 'params.t', rule: 'well_formed_unicode', details: { index: 1 << 20 } });
    expect(findEdgeViolation({ s: `${'\ud83d\ude00'.repeat(1 << 18)}` }, 'params')).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('refuses nesting past 128 levels with the path of the level that breaks it', () => {
    let v: unknown = 'x';
    for (let i = 0; i < 200; i++) v = [v];
    const e = findEdgeViolation({ a: v }, 'params');
    expect(e).toMatchObject({ type: 'invalid_params', rule: 'max_depth' });
    expect(e?.path).toBe(`params.a${'[0]'.repeat(127)}`);
  });
});

// ---------------------------------------------------------------------------
// Rate limits, concurrency and slow clients (abuse limits of the gateway).
// ---------------------------------------------------------------------------

const fixedClock = { now: () => new Date('2026-03-01T00:00:00Z') };
const emptyCatalogue = {
  registry: { listAgents: async () => ({ agents: [] }) } as unknown as RegistryApi,
  negotiation: { listSchemas: async () => ({ schemas: [] }) } as unknown as NegotiationApi,
};
const postBody = (g: Gw, path: string, body: unknown) =>
  fetch(`${g.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });

/** Sends raw bytes on a socket of its own and resolves with everything the server answered once it closes (or after `waitMs`). */
async function rawExchange(g: Gw, chunks: (string | { waitMs: number })[], waitMs = 5000): Promise<{ text: string; closed: boolean }> {
  const { connect } = await import('node:net');
  const u = new URL(g.url);
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname);
    let text = '';
    let closed = false;
    s.on('data', (d) => (text += d.toString('utf8')));
    s.on('error', () => {});
    s.on('close', () => {
      closed = true;
      resolve({ text, closed });
    });
    void (async () => {
      for (const c of chunks) {
        if (typeof c === 'string') s.write(c);
        else await new Promise((r) => setTimeout(r, c.waitMs));
        if (s.destroyed) break;
      }
      setTimeout(() => {
        if (!closed) {
          resolve({ text, closed });
          s.destroy();
        }
      }, waitMs);
    })();
  });
}

describe('rate limits', () => {
  it('a batch larger than the burst is batch_too_large (413, not retryable, no Retry-After) and costs the bucket nothing but the request', async () => {
    const g = await gateway(emptyCatalogue, { rateLimit: { ratePerSecond: 1, burst: 5 }, clock: fixedClock });
    const batch = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'list_agents', params: {} }));
    const res = await postBody(g, '/rpc', batch);
    expect(res.status).toBe(413);
    expect(res.headers.get('retry-after')).toBeNull();
    const body = (await res.json()) as { error: { code: number; data: Record<string, unknown> } };
    expect(body.error).toMatchObject({ code: -32053, data: { type: 'batch_too_large', rule: 'rate_limit_burst', retryable: false, details: { max_batch: 5, size: 6 } } });
    // The bucket lost one token (the refused request), not six: four more single calls pass, the fifth is 429.
    for (let i = 0; i < 4; i++) expect((await postBody(g, '/rpc', { jsonrpc: '2.0', id: i, method: 'list_agents', params: {} })).status).toBe(200);
    const over = await postBody(g, '/rpc', { jsonrpc: '2.0', id: 9, method: 'list_agents', params: {} });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
  });

  it('a batch within the burst is charged one token per member', async () => {
    const g = await gateway(emptyCatalogue, { rateLimit: { ratePerSecond: 1, burst: 5 }, clock: fixedClock });
    const batch = Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'list_agents', params: {} }));
    expect((await postBody(g, '/rpc', batch)).status).toBe(200);
    expect((await postBody(g, '/rpc', { jsonrpc: '2.0', id: 1, method: 'list_agents', params: {} })).status).toBe(200);
    expect((await postBody(g, '/rpc', { jsonrpc: '2.0', id: 2, method: 'list_agents', params: {} })).status).toBe(429);
  });

  it('an MCP JSON array of tools/call is charged per call, and one larger than the burst is batch_too_large', async () => {
    const g = await gateway(emptyCatalogue, { rateLimit: { ratePerSecond: 1, burst: 5 }, clock: fixedClock });
    const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'nobody__nothing', arguments: {} } }));
    const tooMany = await postBody(g, '/mcp', calls(30));
    expect(tooMany.status).toBe(413);
    expect(((await tooMany.json()) as { error: { data: unknown } }).error.data).toMatchObject({ type: 'batch_too_large' });
    // 1 token spent above; four calls take four more: the bucket is empty.
    expect((await postBody(g, '/mcp', calls(4))).status).toBe(200);
    expect((await postBody(g, '/mcp', calls(1))).status).toBe(429);
  });
});

describe('memory and slow clients', () => {
  it("bounds one principal's requests in flight before their bodies are read (429 rule concurrency)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inHandler = 0;
    const registry = { listAgents: async () => (inHandler++, gate.then(() => ({ agents: [] }))) } as unknown as RegistryApi;
    const g = await gateway({ registry }, { maxInFlightPerPrincipal: 2 });
    const held = [1, 2].map((id) => postBody(g, '/rpc', { jsonrpc: '2.0', id, method: 'list_agents', params: {} }));
    // Both held requests have their slots (they reached the handler).
    await expect.poll(() => inHandler, { timeout: 5000 }).toBe(2);
    // Headers only: a body of 1 MB is announced and never sent, yet the answer comes.
    const third = await rawExchange(g, [`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`], 3000);
    expect(third.text).toMatch(/^HTTP\/1\.1 429/);
    expect(third.text).toContain('"rule":"concurrency"');
    release();
    for (const r of await Promise.all(held)) expect(r.status).toBe(200);
    // Their slots are free again.
    expect((await postBody(g, '/rpc', { jsonrpc: '2.0', id: 3, method: 'list_agents', params: {} })).status).toBe(200);
  });

  it('stops reading a body without Content-Length at MAX_BODY_BYTES: 413 body_too_large and the connection closes', async () => {
    const g = await gateway(emptyCatalogue, { maxBodyBytes: 4096 });
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
    const head = `POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const r = await rawExchange(g, [head, chunk('{"jsonrpc":"2.0","id":1,"method":"list_agents","params":{"x":"'), chunk('y'.repeat(3000)), { waitMs: 50 }, chunk('y'.repeat(3000)), { waitMs: 300 }, chunk('y'.repeat(3000))], 3000);
    expect(r.text).toMatch(/^HTTP\/1\.1 413/);
    expect(r.text).toContain('"type":"body_too_large"');
    expect(r.closed).toBe(true);
  });

  it('closes a connection whose headers never finish within headersTimeout', async () => {
    const g = await gateway(emptyCatalogue, { timeouts: { requestMs: 1500, headersMs: 1000, keepAliveMs: 5000 } });
    const started = Date.now();
    const r = await rawExchange(g, ['POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n', { waitMs: 4000 }], 6000);
    expect(r.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(3900);
    expect(r.text).toMatch(/^HTTP\/1\.1 408|^$/);
  }, 10_000);
});
