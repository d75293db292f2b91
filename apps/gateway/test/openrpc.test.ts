/**
 * The JSON-RPC method table (libs/protocol/src/rpc-methods.ts) against what the
 * gateway serves: every handler in METHODS is documented and every documented
 * method has a handler; each documented params schema lists exactly the members
 * its handler accepts; the OpenRPC 1.3 document built from the table validates
 * with @open-rpc/schema-utils-js and dereferences; it is the result of
 * `rpc.discover` and the body of `GET /openrpc.json`.
 *
 * HOW TO ADD A METHOD: write its handler (rpc.ts, or a file whose methods rpc.ts
 * spreads into METHODS), add its entry to RPC_METHODS in
 * libs/protocol/src/rpc-methods.ts (summary, params and result JSON Schema,
 * errors, gRPC methods it calls), then run `npm run gen:rpc` to regenerate the
 * client's typed methods. These tests fail until all three agree.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { parseOpenRPCDocument, validateOpenRPCDocument } from '@open-rpc/schema-utils-js';
import { POLICY } from '@parley/auth';
import type { ExecutionApi, NegotiationApi, RegistryApi } from '@parley/contracts';
import { ERROR_CATALOGUE, ParleyError, RPC_METHODS, buildOpenRpcDocument, type RpcMethodSpec } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer, type Backends } from '../src/index';
import { methodRoles, openRpcDocument } from '../src/openrpc';
import { METHODS, handleOne, type Handler } from '../src/rpc';

const HOW_TO_ADD =
  'Every JSON-RPC method is described once in libs/protocol/src/rpc-methods.ts (RPC_METHODS): add the entry (summary, params and result JSON Schema, errors, gRPC methods), then run `npm run gen:rpc`.';
const DISCOVERY = 'rpc.discover';
const table = RPC_METHODS as readonly RpcMethodSpec[];

/** Backends whose every method fails loudly: params are checked before any is reached. */
function unreachableBackends(): Backends {
  const api = new Proxy({}, { get: (_t, name) => async () => { throw new Error(`backend reached: ${String(name)}`); } });
  const b = { registry: api, negotiation: api, execution: api, profiles: api, tasks: api, pool: api, evolution: api, apiKeys: api, eventSubscriptions: api };
  return { ...(b as unknown as Backends), deadLetters: new Map([['registry', api], ['negotiation', api], ['execution', api], ['semantic-pool', api], ['evolution', api]]) as unknown as Backends['deadLetters'] };
}

describe('the method table and the gateway agree', () => {
  const registered = Object.keys(METHODS).filter((m) => m !== DISCOVERY).sort();
  const documented = table.map((m) => m.name).sort();

  it('documents every registered method', () => {
    const undocumented = registered.filter((m) => !documented.includes(m));
    expect(undocumented, `registered in apps/gateway/src/rpc.ts METHODS but not documented. ${HOW_TO_ADD}`).toEqual([]);
  });

  it('registers every documented method', () => {
    const unserved = documented.filter((m) => !registered.includes(m));
    expect(unserved, `documented in RPC_METHODS but no handler in apps/gateway/src/rpc.ts METHODS serves it. ${HOW_TO_ADD}`).toEqual([]);
  });

  it('documents each method once, with errors of the catalogue and gRPC methods of the access policy', () => {
    expect(new Set(documented).size).toBe(documented.length);
    for (const m of table) {
      for (const e of m.errors) expect(Object.keys(ERROR_CATALOGUE), `${m.name}: error ${e}`).toContain(e);
      for (const g of m.grpc) expect(Object.keys(POLICY), `${m.name}: gRPC method ${g} is not in libs/auth POLICY`).toContain(g);
      expect(m.summary.length, `${m.name}: summary`).toBeGreaterThan(10);
    }
  });

  // An unknown member is refused by every handler, naming the members it accepts: the documented ones.
  it.each(table.filter((m) => m.name !== 'whoami').map((m) => [m.name, m] as const))('%s: the params schema lists exactly what the handler accepts', async (name, m) => {
    const handler = (METHODS as Record<string, Handler>)[name] as Handler;
    const err = await handler({ zz_not_a_param: 1 }, unreachableBackends(), {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, `${name} accepted an unknown member`).toBeInstanceOf(ParleyError);
    const pe = err as ParleyError;
    expect([pe.type, pe.rule]).toEqual(['invalid_params', 'unknown_member']);
    const allowed = /allowed: (.*)$/.exec(pe.message)?.[1]?.split(', ').sort();
    expect(allowed, `${name}: the refusal names no allowed members: ${pe.message}`).toBeDefined();
    const documentedParams = Object.keys((m.params.properties ?? {}) as object).sort();
    expect(documentedParams, `${name}: documented params differ from the handler's. ${HOW_TO_ADD}`).toEqual(allowed);
  });

  it('whoami takes no params, as documented', async () => {
    const m = table.find((x) => x.name === 'whoami') as RpcMethodSpec;
    expect(Object.keys((m.params.properties ?? {}) as object)).toEqual([]);
    await expect((METHODS.whoami as Handler)({ a: 1 }, unreachableBackends(), {})).rejects.toMatchObject({ type: 'invalid_params', rule: 'empty' });
  });
});

describe('the OpenRPC document', () => {
  const doc = openRpcDocument('9.9.9').doc;

  it('is a valid OpenRPC 1.3 document (@open-rpc/schema-utils-js) that dereferences', async () => {
    expect(doc.openrpc).toMatch(/^1\.3\./);
    const valid = validateOpenRPCDocument(doc as never);
    expect(valid === true ? true : String(valid)).toBe(true);
    const parsed = await parseOpenRPCDocument(JSON.parse(JSON.stringify(doc)) as never);
    expect(parsed.methods.length).toBe(table.length);
  });

  it('an invalid document does not validate (the check can fail)', () => {
    const broken = { ...doc, methods: [{ name: 'x', params: 'none' }] };
    expect(validateOpenRPCDocument(broken as never)).not.toBe(true);
  });

  it('lists every documented method with params, result, errors of the catalogue and the roles of libs/auth POLICY', () => {
    const byName = new Map(doc.methods.map((m) => [m.name, m as Record<string, unknown>]));
    expect([...byName.keys()].sort()).toEqual(table.map((m) => m.name).sort());
    const execute = byName.get('execute') as Record<string, unknown>;
    expect((execute.params as Array<{ name: string; required: boolean }>).filter((p) => p.required).map((p) => p.name)).toEqual(['schema_id', 'payload']);
    expect(execute['x-parley-roles']).toEqual(['operator', 'client_agent']);
    expect(byName.get('list_patches')?.['x-parley-roles']).toEqual(['operator']);
    expect(byName.get('publish_schema')?.['x-parley-roles']).toEqual(['operator', 'server_agent']);
    expect(byName.get('whoami')?.['x-parley-roles']).toEqual(['operator', 'server_agent', 'client_agent']);
    const errors = (doc.components as { errors: Record<string, { code: number; data: { type: string } }> }).errors;
    expect(errors.idempotency_conflict).toMatchObject({ code: -32038, data: { type: 'idempotency_conflict' } });
    expect(execute.errors).toContainEqual({ $ref: '#/components/errors/idempotency_conflict' });
    expect(execute.errors).toContainEqual({ $ref: '#/components/errors/invalid_params' });
    // unregister_agent calls three services: only roles every one of them allows.
    expect(methodRoles(['RegistryService/GetAgent', 'RegistryService/UnregisterAgent'])).toEqual(['operator', 'server_agent']);
  });

  it('every $ref points into components', () => {
    const text = JSON.stringify(doc);
    const components = doc.components as Record<string, Record<string, unknown>>;
    for (const [, kind, name] of text.matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)) {
      expect(components[kind as string]?.[name as string], `#/components/${kind}/${name}`).toBeDefined();
    }
  });

  it('is built the same without roles (libs/protocol alone)', () => {
    const plain = buildOpenRpcDocument({ version: '9.9.9' });
    expect(plain.methods.map((m) => m.name)).toEqual(doc.methods.map((m) => m.name));
    expect(plain.methods[0]).not.toHaveProperty('x-parley-roles');
  });
});

describe('served by the gateway', () => {
  const AUTH = keyedAuthenticator('openrpc-test-service-token-0123456789', [{ id: 'alice', roles: ['client_agent'] }]);
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const backends: Backends = { registry: {} as RegistryApi, negotiation: {} as NegotiationApi, execution: {} as ExecutionApi };
    server = createGatewayServer({ backends, health: { shuttingDown: false, checks: {} }, log: createLogger({ level: 'error', write: () => {} }), maxBodyBytes: 1 << 20, authenticator: AUTH.authenticator, version: '1.2.3' });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('GET /openrpc.json, without credentials', async () => {
    const res = await fetch(`${base}/openrpc.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { openrpc: string; info: { version: string }; methods: unknown[] };
    expect(body.info.version).toBe('1.2.3');
    expect((body as unknown as { servers: Array<{ url: string }> }).servers[0]?.url).toBe(`${base}/rpc`);
    expect(body.methods).toHaveLength(table.length);
    expect((await fetch(`${base}/openrpc.json`, { method: 'POST' })).status).toBe(405);
  });

  it('rpc.discover over POST /rpc answers the same methods', async () => {
    const res = await fetch(`${base}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AUTH.keys['alice'] as string}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' }),
    });
    const body = (await res.json()) as { result: { openrpc: string; methods: Array<{ name: string }> } };
    expect(body.result.openrpc).toMatch(/^1\.3\./);
    expect(body.result.methods.map((m) => m.name)).toEqual(table.map((m) => m.name));
    expect((body.result as unknown as { servers: Array<{ url: string }> }).servers[0]?.url).toBe(`${base}/rpc`);
  });

  it('rpc.discover through handleOne', async () => {
    const r = await handleOne({ jsonrpc: '2.0', id: 7, method: DISCOVERY }, unreachableBackends(), () => {});
    expect((r?.result as { methods: unknown[] }).methods).toHaveLength(table.length);
  });
});
