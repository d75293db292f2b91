/**
 * Identity and authorization on every face (draft-zhou §7), through
 * the real services in one process: the gateway's JSON-RPC, MCP and A2A faces
 * and the services' gRPC API. Every call without valid credentials is refused;
 * each role may do what libs/auth POLICY and the services' guards allow and is
 * refused the rest with a typed denial; forged, expired, other-audience and
 * other-tenant tokens, unknown and revoked keys are refused; the client id is
 * the principal, so one principal cannot pose as many clients.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { POLICY, mintApiKey, parseApiKey } from '@parley/auth';
import {
  AgentProfileServiceService,
  ApiKeyServiceService,
  DeadLetterServiceService,
  EventSubscriptionServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  createGrpcClient,
  GRPC_TRANSPORTS,
} from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, expectRpcError, postRaw, rpc, useKey } from '@parley/testkit';
import { METHODS } from '@parley/gateway';
import { startParley, type EmbeddedParley } from '../src/embedded';

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'parley';
let parley: EmbeddedParley;
let idpKey: KeyObject;
let keys: { alice: string; bob: string; acme: string; ops: string; aliceId: string };

function b64(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}
/** A compact EdDSA JWT signed by the test's identity provider (or by `key`). */
function jwt(claims: Record<string, unknown>, key: KeyObject = idpKey): string {
  const head = b64({ alg: 'EdDSA', typ: 'JWT', kid: 'idp-1' });
  const body = b64(claims);
  return `${head}.${body}.${sign(null, Buffer.from(`${head}.${body}`), key).toString('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}) => ({ iss: ISSUER, aud: AUDIENCE, sub: 'carol', tenant: 'acme', iat: now(), exp: now() + 600, ...over });

async function createKey(params: Record<string, unknown>): Promise<{ key: string; key_id: string }> {
  const r = await rpc(parley.url, 'create_api_key', params);
  expect(r.body.error).toBeUndefined();
  return { key: r.body.result.key as string, key_id: r.body.result.api_key.key_id as string };
}

beforeAll(async () => {
  const pair = generateKeyPairSync('ed25519');
  idpKey = pair.privateKey;
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'idp-1', alg: 'EdDSA', use: 'sig' };
  parley = await startParley({
    port: 0,
    log: createLogger({ level: 'silent' }),
    tenant: 'acme',
    authCacheMs: 0,
    rateLimit: null,
    jwtIssuers: [{ issuer: ISSUER, alias: 'idp', audience: AUDIENCE, jwks: { keys: [jwk] } }],
    evolution: { tickMs: 0, heatSampleMs: 0 },
  });
  useKey(parley.url, parley.devKey);
  const alice = await createKey({ principal: 'alice', roles: ['client_agent'] });
  const bob = await createKey({ principal: 'bob', roles: ['client_agent'] });
  const acme = await createKey({ principal: 'acme-air', roles: ['server_agent'], agents: ['acme-*'], scenarios: ['flight_booking', 'hotel_booking'] });
  const ops = await createKey({ principal: 'ops', roles: ['operator'] });
  keys = { alice: alice.key, bob: bob.key, acme: acme.key, ops: ops.key, aliceId: alice.key_id };
}, 60_000);

afterAll(async () => {
  await parley?.stop();
});

const HOTEL = {
  scenario: 'hotel_booking',
  schema_id: 'acme_hotel_v1',
  keys: [{ key_name: 'city', key_type: 'string', semantic_description: 'The city to stay in', required: true }],
};

describe('unauthenticated calls are refused on every face', () => {
  it('every JSON-RPC method answers HTTP 401 unauthenticated without credentials, and with a malformed one', async () => {
    const methods = Object.keys(METHODS);
    expect(methods.length).toBeGreaterThan(30);
    for (const method of methods) {
      const r = await rpc(parley.url, method, {}, null);
      expect(r.status, method).toBe(401);
      expectRpcError(r, 'unauthenticated', -32050, 'headers.authorization', 'credentials_required');
    }
    const basic = await postRaw(parley.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_agents', params: {} }), { authorization: 'Basic YWxpY2U6c2VjcmV0' });
    expect(basic.status).toBe(401);
    expect(basic.body.error.data.rule).toBe('bearer_scheme');
  });

  it('MCP and A2A answer 401 with a Bearer challenge; agent cards and the JWKS stay public', async () => {
    const mcp = await fetch(`${parley.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer realm="parley"/);
    const a2a = await fetch(`${parley.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }) });
    expect(a2a.status).toBe(401);
    expect((await fetch(`${parley.url}/.well-known/agent-card.json`)).status).toBe(200);
    expect((await fetch(`${parley.url}/.well-known/jwks.json`)).status).toBe(200);
  });

  it.each(GRPC_TRANSPORTS)('every gRPC method of every service answers UNAUTHENTICATED without credentials (%s transport), and each has a POLICY entry', async (transport) => {
    const services = [
      [RegistryServiceService, parley.grpcPorts.registry],
      [AgentProfileServiceService, parley.grpcPorts.registry],
      [ApiKeyServiceService, parley.grpcPorts.registry],
      [NegotiationServiceService, parley.grpcPorts.negotiation],
      [ExecutionServiceService, parley.grpcPorts.execution],
      [TaskServiceService, parley.grpcPorts.execution],
      [EventSubscriptionServiceService, parley.grpcPorts.execution],
      [SemanticPoolServiceService, parley.grpcPorts.semanticPool],
      [EvolutionServiceService, parley.grpcPorts.evolution],
      // Served by every service; counted once (its POLICY entries are three).
      [DeadLetterServiceService, parley.grpcPorts.semanticPool],
    ] as const;
    let count = 0;
    for (const [def, port] of services) {
      const c = createGrpcClient(def as never, `127.0.0.1:${port}`, { transport });
      try {
        for (const [name, m] of Object.entries(def as Record<string, { path: string; responseStream: boolean; requestDeserialize: (b: Buffer) => unknown }>)) {
          const key = m.path.replace(/^\/parley\.v1\./, '');
          expect(POLICY[key], `${key} has a POLICY entry`).toBeDefined();
          const call = (c.api as Record<string, (req: unknown, ctx?: { metadata: Metadata }) => unknown>)[name] as (req: unknown) => unknown;
          let err: unknown;
          try {
            // The empty message: every member at its default.
            const r = call(m.requestDeserialize(Buffer.alloc(0)));
            if (m.responseStream) for await (const _ of r as AsyncIterable<unknown>) void _;
            else await r;
          } catch (e) {
            err = e;
          }
          expect(err, key).toBeInstanceOf(ParleyError);
          expect((err as ParleyError).type, key).toBe('unauthenticated');
          count++;
        }
      } finally {
        c.close();
      }
    }
    expect(count).toBe(Object.keys(POLICY).length);
    expect(GrpcStatus.UNAUTHENTICATED).toBe(16);
  });
});

describe('roles over JSON-RPC', () => {
  it('a client agent negotiates and executes as itself, and may not name another client', async () => {
    const t = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' }, keys.alice);
    expect(t.body.error).toBeUndefined();
    const ok = await rpc(parley.url, 'execute', FIGURE_8, keys.alice);
    expect(ok.body.error).toBeUndefined();
    const own = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: 'alice' }, keys.alice);
    expect(own.body.error).toBeUndefined();
    const before = await executions('bob');
    const posing = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: 'bob' }, keys.alice);
    expect(posing.status).toBe(403);
    expectRpcError(posing, 'forbidden', -32051, 'params.client_id', 'client_id_is_principal');
    expect(await executions('bob')).toBe(before);
    const peek = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', client_id: 'bob' }, keys.alice);
    expectRpcError(peek, 'forbidden', -32051, 'params.client_id', 'client_id_is_principal');
    const updates = await rpc(parley.url, 'get_schema_updates', { scenario: 'flight_booking', client_id: 'bob' }, keys.alice);
    expectRpcError(updates, 'forbidden', -32051, 'params.client_id', 'client_id_is_principal');
  });

  it('a client agent is refused the server agent and operator methods, and nothing changes', async () => {
    const denied: Array<[string, Record<string, unknown>]> = [
      ['register_agent', { name: 'alice-air', scenarios: ['flight_booking'] }],
      ['publish_schema', { agent: 'acme-hotels', template: HOTEL }],
      ['list_clusters', { scenario: 'flight_booking' }],
      ['list_patches', { scenario: 'flight_booking' }],
      ['approve_patch', { patch_id: 'p-1', reason: 'looks fine' }],
      ['judge_audit_sample', { sample_id: 's-1', aligned: true }],
      ['create_api_key', { principal: 'mallory', roles: ['operator'] }],
      ['list_api_keys', {}],
      ['revoke_api_key', { key_id: keys.aliceId }],
    ];
    for (const [method, params] of denied) {
      const r = await rpc(parley.url, method, params, keys.alice);
      expect(r.status, method).toBe(403);
      expectRpcError(r, 'forbidden', -32051, 'principal.roles', 'role');
      // The denial names the method and the roles that may call it, nothing about any resource.
      expect(r.text).not.toMatch(/p-1|s-1|mallory/);
    }
    const agent = await rpc(parley.url, 'get_agent', { name: 'alice-air' });
    expect(agent.body.error.data.type).toBe('agent_not_found');
    const me = await rpc(parley.url, 'whoami', {}, keys.alice);
    expect(me.body.result).toMatchObject({ principal: 'alice', tenant: 'acme', roles: ['client_agent'], via: 'api_key' });
  });

  it('a server agent registers and publishes only inside its namespace and scenarios, and may not execute or operate', async () => {
    const reg = await rpc(parley.url, 'register_agent', { name: 'acme-hotels', scenarios: ['hotel_booking'] }, keys.acme);
    expect(reg.body.error).toBeUndefined();
    const pub = await rpc(parley.url, 'publish_schema', { agent: 'acme-hotels', template: HOTEL }, keys.acme);
    expect(pub.body.error).toBeUndefined();
    const outside = await rpc(parley.url, 'register_agent', { name: 'globex-air', scenarios: ['flight_booking'] }, keys.acme);
    expectRpcError(outside, 'forbidden', -32051, 'params.name', 'agent_namespace');
    const scenario = await rpc(parley.url, 'register_agent', { name: 'acme-photo', scenarios: ['flight_booking', 'photo_retouch'] }, keys.acme);
    expectRpcError(scenario, 'forbidden', -32051, 'params.scenarios[1]', 'scenario_scope');
    const foreign = await rpc(parley.url, 'publish_schema', { agent: 'skyways', template: { ...HOTEL, schema_id: 'sky_hotel_v1' } }, keys.acme);
    expectRpcError(foreign, 'forbidden', -32051, 'params.agent', 'agent_namespace');
    const otherScenario = await rpc(parley.url, 'publish_schema', { agent: 'acme-hotels', template: { ...HOTEL, scenario: 'photo_retouch', schema_id: 'acme_photo_v1' } }, keys.acme);
    expectRpcError(otherScenario, 'forbidden', -32051, 'params.template.scenario', 'scenario_scope');
    for (const [method, params] of [
      ['execute', FIGURE_8],
      ['approve_patch', { patch_id: 'p-1', reason: 'x' }],
      ['create_api_key', { principal: 'acme-ops', roles: ['operator'] }],
    ] as const) {
      expectRpcError(await rpc(parley.url, method, params, keys.acme), 'forbidden', -32051, 'principal.roles', 'role');
    }
    const gone = await rpc(parley.url, 'get_agent', { name: 'globex-air' });
    expect(gone.body.error.data.type).toBe('agent_not_found');
  });

  it('an operator reaches the operator methods (an unknown patch is not found, not forbidden) and may look at any client', async () => {
    const clusters = await rpc(parley.url, 'list_clusters', { scenario: 'flight_booking' }, keys.ops);
    expect(clusters.body.error).toBeUndefined();
    const approve = await rpc(parley.url, 'approve_patch', { patch_id: 'no-such-patch', reason: 'check' }, keys.ops);
    expect(approve.body.error.data.type).toBe('patch_not_found');
    const bobs = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', client_id: 'bob' }, keys.ops);
    expect(bobs.body.error).toBeUndefined();
    const listed = await rpc(parley.url, 'list_api_keys', {}, keys.ops);
    expect(listed.body.result.api_keys.map((k: { principal: string }) => k.principal)).toEqual(expect.arrayContaining(['alice', 'bob', 'acme-air', 'ops', 'dev']));
    // Only hashes are stored: no listed key carries a secret.
    expect(listed.text).not.toContain(parseApiKey(keys.alice)?.secret as string);
  });

  it("records an operator's execute under its principal, whatever else its key may do (never as an anonymous client)", async () => {
    const before = { ops: await executions('ops'), dev: await executions('dev'), anonymous: await executions('anonymous') };
    const other = { ...FIGURE_8, payload: { ...FIGURE_8.payload, other: 'a quiet seat near the wing' } };
    const byOps = await rpc(parley.url, 'execute', other, keys.ops);
    expect(byOps.body.error).toBeUndefined();
    // The development key of `npm start`: operator, server agent and client agent at once.
    const byDev = await rpc(parley.url, 'execute', other, parley.devKey);
    expect(byDev.body.error).toBeUndefined();
    expect({ ops: await executions('ops'), dev: await executions('dev'), anonymous: await executions('anonymous') }).toEqual({ ops: before.ops + 1, dev: before.dev + 1, anonymous: before.anonymous });
    // Its events carry the same client: the pool counts the operator as one client of its own.
    const events = await parley.db.query<{ type: string; client: string; n: number }>(
      `SELECT event->>'type' AS type, event->'data'->>'client_id' AS client, count(*)::int AS n FROM execution.outbox
       WHERE event->'data'->>'client_id' IN ('ops', 'dev', 'anonymous') GROUP BY 1, 2 ORDER BY 2, 1`,
    );
    expect(events.rows.filter((r) => r.client === 'anonymous')).toEqual([]);
    for (const client of ['ops', 'dev']) {
      expect(events.rows.find((r) => r.client === client && r.type === 'payload.executed')?.n).toBe(await executions(client));
      expect(events.rows.find((r) => r.client === client && r.type === 'other.captured')?.n).toBeGreaterThanOrEqual(1);
    }
  });

  it('refuses a key that grants the service role or a server agent key without a namespace', async () => {
    const svc = await rpc(parley.url, 'create_api_key', { principal: 'x', roles: ['service'] });
    expectRpcError(svc, 'invalid_params', -32602, 'params.roles[0]', 'enum');
    const ns = await rpc(parley.url, 'create_api_key', { principal: 'x', roles: ['server_agent'] });
    expectRpcError(ns, 'invalid_params', -32602, 'params.agents', 'min_items');
  });
});

describe('roles over gRPC', () => {
  const as = (key: string) => {
    const md = new Metadata();
    md.set('authorization', `Bearer ${key}`);
    return { metadata: md };
  };

  it.each(GRPC_TRANSPORTS)('the services decide by the caller credential (%s transport): allowed, denied by role, denied by guard', async (transport) => {
    const negotiation = createGrpcClient(NegotiationServiceService, `127.0.0.1:${parley.grpcPorts.negotiation}`, { transport });
    const execution = createGrpcClient(ExecutionServiceService, `127.0.0.1:${parley.grpcPorts.execution}`, { transport });
    const evolution = createGrpcClient(EvolutionServiceService, `127.0.0.1:${parley.grpcPorts.evolution}`, { transport });
    const keysApi = createGrpcClient(ApiKeyServiceService, `127.0.0.1:${parley.grpcPorts.registry}`, { transport });
    const typeOf = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e as ParleyError).type);
    try {
      expect(await typeOf(negotiation.api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '' }, as(keys.alice)))).toBe('ok');
      const payload = { ...FIGURE_8.payload };
      expect(await typeOf(execution.api.execute({ schema_id: 'flight_booking_v1', payload }, as(keys.alice)))).toBe('ok');
      expect(await typeOf(execution.api.execute({ schema_id: 'flight_booking_v1', payload, client_id: 'bob' }, as(keys.alice)))).toBe('forbidden');
      expect(await typeOf(execution.api.execute({ schema_id: 'flight_booking_v1', payload }, as(keys.acme)))).toBe('forbidden');
      expect(await typeOf(evolution.api.listPatches({ scenario: 'flight_booking' }, as(keys.alice)))).toBe('forbidden');
      expect(await typeOf(evolution.api.listPatches({ scenario: 'flight_booking' }, as(keys.ops)))).toBe('ok');
      expect(await typeOf(keysApi.api.authenticate({ key: keys.alice }, as(keys.ops)))).toBe('forbidden');
      expect(await typeOf(keysApi.api.createApiKey({ principal: 'eve', roles: ['operator'], agents: [], scenarios: [], description: '', expires_at: '' }, as(keys.bob)))).toBe('forbidden');
      expect(await typeOf(negotiation.api.publishSchema({ agent: 'skyways', template: undefined, language: 'en' }, as(keys.acme)))).toBe('forbidden');
    } finally {
      negotiation.close();
      execution.close();
      evolution.close();
      keysApi.close();
    }
  });
});

describe('bad credentials', () => {
  const whoami = (credential: string) => postRaw(parley.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'whoami', params: {} }), { authorization: `Bearer ${credential}` });

  it('a JWT from the configured issuer authenticates as <alias>:<sub> with its roles', async () => {
    const r = await whoami(jwt(claims({ roles: ['client_agent'] })));
    expect(r.body.result).toMatchObject({ principal: 'idp:carol', tenant: 'acme', roles: ['client_agent'], via: 'jwt' });
  });

  it('refuses a forged, altered, replayed-after-expiry, other-audience and other-tenant token', async () => {
    const forger = generateKeyPairSync('ed25519').privateKey;
    const good = jwt(claims());
    const [h, , s] = good.split('.');
    const cases: Array<[string, string]> = [
      [jwt(claims(), forger), 'jwt_signature'],
      [`${h}.${b64(claims({ roles: ['operator'] }))}.${s}`, 'jwt_signature'],
      [jwt(claims({ iat: now() - 1200, exp: now() - 600 })), 'jwt_expired'],
      [jwt(claims({ aud: 'another-service' })), 'jwt_audience'],
      [jwt(claims({ tenant: 'globex' })), 'jwt_tenant'],
      [jwt(claims({ iss: 'https://evil.example' })), 'jwt_issuer'],
    ];
    for (const [token, rule] of cases) {
      const r = await whoami(token);
      expect(r.status, rule).toBe(401);
      expectRpcError(r, 'unauthenticated', -32050, 'headers.authorization', rule);
    }
  });

  it('refuses an unknown key, a key with a wrong secret, a revoked key and a key of another tenant, all with one answer', async () => {
    const unknown = await whoami(mintApiKey().key);
    const bob = parseApiKey(keys.bob);
    const forged = parseApiKey(mintApiKey().key);
    expect(bob && forged).toBeTruthy();
    const wrongSecret = await whoami(`pk_${bob?.key_id}_${forged?.secret}`);
    for (const r of [unknown, wrongSecret]) expectRpcError(r, 'unauthenticated', -32050, 'headers.authorization', 'api_key');
    expect(unknown.body.error.message).toBe(wrongSecret.body.error.message);

    const temp = await createKey({ principal: 'temp', roles: ['client_agent'] });
    expect((await whoami(temp.key)).body.result.principal).toBe('temp');
    const revoked = await rpc(parley.url, 'revoke_api_key', { key_id: temp.key_id });
    expect(revoked.body.result.api_key.revoked_at).not.toBe('');
    const after = await whoami(temp.key);
    expectRpcError(after, 'unauthenticated', -32050, 'headers.authorization', 'api_key');
    expect(after.body.error.message).toBe(unknown.body.error.message);

    // A key issued for another tenant in a shared key store: valid there, refused here.
    const other = mintApiKey();
    await parley.db.query(
      `INSERT INTO registry.api_keys (key_id, secret_hash, principal, tenant, roles, agents, scenarios, description, created_at, created_by)
       VALUES ($1, $2, 'globex-bot', 'globex', ARRAY['operator'], '{}', '{}', '', now(), 'test')`,
      [other.key_id, other.secret_hash],
    );
    expectRpcError(await whoami(other.key), 'unauthenticated', -32050, 'headers.authorization', 'tenant');
  });

  it("refuses the services' own token at the gateway: it is for their calls to each other", async () => {
    const r = await whoami(parley.serviceToken);
    expect(r.status).toBe(401);
    expectRpcError(r, 'unauthenticated', -32050, 'headers.authorization', 'service_token');
  });
});

describe('Sybil: one principal is one client', () => {
  it('self-chosen client ids are refused, and a flood under one key counts as one distinct client and never matures a global cluster', async () => {
    for (const id of ['sybil-1', 'sybil-2', 'sybil-3', 'sybil-4', 'sybil-5']) {
      const r = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: id, payload: { ...FIGURE_8.payload, other: 'I want a vegan meal on board' } }, keys.bob);
      expectRpcError(r, 'forbidden', -32051, 'params.client_id', 'client_id_is_principal');
    }
    for (let i = 0; i < 25; i++) {
      const r = await rpc(parley.url, 'execute', { ...FIGURE_8, payload: { ...FIGURE_8.payload, other: `I want a vegan meal on board please ${i % 3 === 0 ? 'really' : ''}` } }, keys.bob);
      expect(r.body.error).toBeUndefined();
    }
    let vegan: { scope: string; distinct_clients: number; size: number; matured: boolean } | undefined;
    for (let i = 0; i < 100 && !vegan; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const listed = await rpc(parley.url, 'list_clusters', { scenario: 'flight_booking' }, keys.ops);
      const all = listed.body.result.clusters as Array<{ scope: string; distinct_clients: number; size: number; matured: boolean; samples: string[] }>;
      vegan = all.find((c) => c.scope === 'global' && c.samples.some((x) => /vegan/.test(x)) && c.size >= 25);
    }
    expect(vegan, 'the pool clustered the flood').toBeDefined();
    expect(vegan?.distinct_clients).toBe(1);
    expect(vegan?.matured).toBe(false);
  });
});

async function executions(client: string): Promise<number> {
  const r = await parley.db.query<{ n: string }>('SELECT count(*)::text AS n FROM execution.executions WHERE client_id = $1', [client]);
  return Number(r.rows[0]?.n ?? 0);
}
