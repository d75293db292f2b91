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
