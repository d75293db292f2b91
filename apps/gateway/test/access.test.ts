/**
 * The gateway's own share of trust (draft-zhou §7): it authenticates before it reads
 * a body, charges each principal's rate limit (HTTP 429 with Retry-After), and
 * calls the services with the caller's own credential.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Metadata } from '@grpc/grpc-js';
import type { ExecutionApi, NegotiationApi, RegistryApi } from '@parley/contracts';
import { createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer, type Backends } from '../src/index';

const SERVICE_TOKEN = 'gateway-access-test-service-token-0123456789';
const AUTH = keyedAuthenticator(SERVICE_TOKEN, [
  { id: 'alice', roles: ['client_agent'] },
  { id: 'bob', roles: ['client_agent'] },
]);
let now = Date.parse('2026-11-21T00:00:00Z');
const clock = { now: () => new Date(now) };
/** The Authorization metadata each listAgents call reached the registry with. */
const seen: string[] = [];

const backends: Backends = {
  registry: {
    listAgents: async (_req: unknown, ctx?: { metadata: Metadata }) => {
      seen.push(String(ctx?.metadata.get('authorization')[0]));
      return { agents: [] };
    },
  } as unknown as RegistryApi,
  negotiation: {} as NegotiationApi,
  execution: {} as ExecutionApi,
};

let server: Server;
let url: string;
beforeAll(async () => {
  server = createGatewayServer({
    backends,
    health: { shuttingDown: false, checks: {} },
    log: createLogger({ level: 'silent' }),
    maxBodyBytes: 1 << 16,
    authenticator: AUTH.authenticator,
    rateLimit: { ratePerSecond: 1, burst: 3 },
    clock,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const call = async (key: string | undefined, body: unknown = { jsonrpc: '2.0', id: 1, method: 'list_agents', params: {} }) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { error?: { data: Record<string, unknown> }; result?: unknown } };
};

describe('the gateway', () => {
  it('authenticates before it reads the body: an anonymous oversized or malformed body is 401, not 413 or parse_error', async () => {
    const big = await call(undefined, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_agents', params: { x: 'y'.repeat(1 << 17) } }));
    expect(big.status).toBe(401);
    const malformed = await call(undefined, '{not json');
    expect(malformed.status).toBe(401);
    expect(malformed.body.error?.data.rule).toBe('credentials_required');
    // With a key the same bodies get their own answers.
    expect((await call(AUTH.keys['bob'], '{not json')).body.error?.data.type).toBe('parse_error');
  });

  it('forwards the caller’s own credential to the services', async () => {
    seen.length = 0;
    const r = await call(AUTH.keys['bob']);
    expect(r.status).toBe(200);
    expect(seen).toEqual([`Bearer ${AUTH.keys['bob']}`]);
  });

  it('limits each principal: past its burst HTTP 429 rate_limited with Retry-After; others are unaffected; time refills it', async () => {
    now += 60_000; // full buckets
    const alice = AUTH.keys['alice'] as string;
    for (let i = 0; i < 3; i++) expect((await call(alice)).status).toBe(200);
    const over = await call(alice);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('1');
    expect(over.body.error?.data).toMatchObject({ type: 'rate_limited', path: 'headers.authorization', rule: 'rate_limit', retryable: true, details: { retry_after_ms: 1000 } });
    expect((await call(AUTH.keys['bob'])).status).toBe(200);
    now += 1000;
    expect((await call(alice)).status).toBe(200);
  });

  it('charges a batch one request per member', async () => {
    now += 60_000;
    const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'list_agents', params: {} }));
    expect((await call(AUTH.keys['alice'], batch)).status).toBe(200);
    expect((await call(AUTH.keys['alice'])).status).toBe(429);
  });
});
