/**
 * A2A agent cards by version (a2a-card-versions.ts): the v1.0 card passes a
 * strict schema of a2a.proto's AgentCard (ProtoJSON) and the SDK's v1.0 codec;
 * the v0.3 JSON card, asked for with `?version=0.3` or `A2A-Version: 0.3`, is
 * what @a2a-js/sdk's v0.3 compat layer detects and reads; both are signed (JWS
 * over the RFC 8785 canonical JSON of the card without `signatures`), verifiable
 * with the key the gateway's JWKS publishes.
 */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import { createPublicKey } from 'node:crypto';
import { AgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import type { ExecutionApi, NegotiationApi, RegistryApi } from '@parley/contracts';
import { ParleyError, jwsHeader, verifyDetached, type Jwks } from '@parley/protocol';
import { createKeyRing, createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentCard, gatewayCard, profileCard, type ParleyAgentCardJson } from '../src/a2a-card';
import { A2A_V03_PROTOCOL_VERSION, cardSigningPayload, requestedCardVersion, signCard, toV03Card, withoutEmpty, type A2aCardVersion } from '../src/a2a-card-versions';
import { createGatewayServer } from '../src/index';
import { A2A_V1_AGENT_CARD_SCHEMA } from './a2a-v1-card-schema';
import { seededEntries } from './helpers';

const BASE = 'http://gw.example:8080';
const opts = { baseUrl: BASE, version: '0.1.0' };
const validateV1 = new Ajv({ allErrors: true, strict: true }).compile(A2A_V1_AGENT_CARD_SCHEMA);
const errorsOf = () => JSON.stringify(validateV1.errors);

/** The card as a client reads it off the wire. */
const wire = <T>(x: T): Record<string, unknown> => JSON.parse(JSON.stringify(x)) as Record<string, unknown>;
const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

/** Parley's own check (libs/protocol verifyDetached) of a served card's signature. */
function verifyCard(card: Record<string, unknown>, jwks: Jwks, version: A2aCardVersion = '1.0') {
  const { signatures } = card as { signatures: Array<{ protected: string; signature: string }> };
  expect(signatures).toHaveLength(1);
  const jws = `${signatures[0]?.protected}..${signatures[0]?.signature}`;
  return { result: verifyDetached(cardSigningPayload(card, version), jws, jwks), header: jwsHeader(jws) };
}

/** @a2a-js/sdk's own check of a v1.0 card (the JSON card as received), keys looked up by kid in the JWKS. */
async function sdkVerifies(card: Record<string, unknown>, jwks: Jwks): Promise<boolean> {
  const verify = verifyAgentCardSignature(async (kid) => {
    const jwk = jwks.keys.find((k) => k.kid === kid);
    if (!jwk) throw new Error(`no key ${String(kid)}`);
    return createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' }) as never;
  });
  // The SDK logs each signature that fails with console.debug; a failure is an answer here.
  const quiet = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  try {
    await verify(card as never);
    return true;
  } catch {
    return false;
  } finally {
    quiet.mockRestore();
  }
}

describe('the v1.0 card', () => {
  const entries = seededEntries();
  const ring = createKeyRing();

  it('passes the strict a2a.proto schema, signed and unsigned, for the gateway and an agent', () => {
    for (const card of [gatewayCard(entries, opts), agentCard({ name: 'skyways-air', description: 'd', version: '1.0.0' }, entries, opts)]) {
      expect(validateV1(wire(card)), errorsOf()).toBe(true);
      expect(validateV1(wire(signCard(wire(card), '1.0', ring, `${BASE}/.well-known/jwks.json`))), errorsOf()).toBe(true);
    }
  });

  it("passes for an AN agent's profile card too (JWT, OAuth 2.0 and API-key schemes)", () => {
    const profile = {
      name: 'TMF-Acme-Wireless-v1',
      description: 'Diagnoses faults.',
      version: '1.2.0',
      provider: 'Acme',
      skills: [{ name: 'fault_diagnosis', description: 'Root causes.', tags: ['fault'], input_modes: ['text'], output_modes: ['text'] }],
      capability: { streaming: false, push_notifications: true, negotiate: ['FEASIBILITY'] },
      authentication: [
        { id: 'jwt-1', scheme: 'jwt', jwt_info: 'issuer https://id.acme.example' },
        { id: 'oauth', scheme: 'oauth2', oauth: 'token https://id.acme.example/token, scope an.tasks' },
        { id: 'vague', scheme: 'oauth2', oauth: 'ask the NOC' },
        { id: 'key', scheme: 'api_key' },
      ],
      registered_at: '2026-03-01T00:00:00.000Z',
      updated_at: '2026-03-01T00:00:00.000Z',
    } as unknown as Parameters<typeof profileCard>[0];
    const card = wire(profileCard(profile, undefined, [], opts));
    expect(validateV1(card), errorsOf()).toBe(true);
    // OAuth 2.0 without a URL has no v1.0 form: left to the AN profile extension.
    expect(Object.keys(card.securitySchemes as object).sort()).toEqual(['jwt-1', 'key', 'oauth', 'parley']);
    expect(AgentCard.fromJSON(card).securitySchemes.oauth?.scheme?.$case).toBe('oauth2SecurityScheme');
    // And its v0.3 form is what the SDK's compat layer reads.
    const v03 = parseLegacyAgentCard(wire(toV03Card(card as unknown as ParleyAgentCardJson)));
    expect(Object.keys(v03.securitySchemes).sort()).toEqual(['jwt-1', 'key', 'oauth', 'parley']);
  });

  it('the strict schema refuses the v0.3 top-level fields and a v0.3 security scheme (the check can fail)', () => {
    const card = wire(gatewayCard(entries, opts));
    expect(validateV1({ ...card, url: `${BASE}/a2a`, protocolVersion: '0.3', preferredTransport: 'JSONRPC' })).toBe(false);
    expect(JSON.stringify(validateV1.errors)).toContain('additionalProperties');
    expect(validateV1({ ...card, securitySchemes: { parley: { type: 'http', scheme: 'bearer' } } })).toBe(false);
    const { supportedInterfaces: _gone, ...noInterfaces } = card;
    expect(validateV1(noInterfaces)).toBe(false);
  });

  it("reads back through the SDK's v1.0 codec, and the SDK does not take it for a v0.3 card", () => {
    const card = wire(gatewayCard(entries, opts));
    expect(isLegacyAgentCard(card)).toBe(false);
    const decoded = AgentCard.fromJSON(card);
    expect(decoded.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3']);
    expect(decoded.securitySchemes.parley?.scheme?.$case).toBe('httpAuthSecurityScheme');
  });
});

describe('the v0.3 card', () => {
  const entries = seededEntries();
  const v1 = gatewayCard(entries, opts) as ParleyAgentCardJson;
  const v03 = toV03Card(v1);

  it('has the v0.3 top-level endpoint, version and OpenAPI-style security', () => {
    expect(v03).toMatchObject({ protocolVersion: A2A_V03_PROTOCOL_VERSION, url: `${BASE}/a2a`, preferredTransport: 'JSONRPC', additionalInterfaces: [], supportsAuthenticatedExtendedCard: false });
    expect(v03.securitySchemes).toEqual({ parley: { type: 'http', scheme: 'bearer', bearerFormat: 'Parley API key or JWT', description: expect.stringContaining('Parley API key') } });
    expect(v03.security).toEqual([{ parley: [] }]);
    expect(v03).not.toHaveProperty('supportedInterfaces');
    expect(v03).not.toHaveProperty('securityRequirements');
  });

  it("is what @a2a-js/sdk's v0.3 compat layer detects and translates", () => {
    const card = wire(signCard(v03, '0.3', createKeyRing(), `${BASE}/.well-known/jwks.json`));
    expect(isLegacyAgentCard(card)).toBe(true);
    const parsed = parseLegacyAgentCard(card);
    expect(parsed.supportedInterfaces[0]).toMatchObject({ url: `${BASE}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: A2A_V03_PROTOCOL_VERSION });
    expect(parsed.securitySchemes.parley?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'bearer' } });
    expect(parsed.securityRequirements).toEqual([{ schemes: { parley: { list: [] } } }]);
    expect(parsed.skills.map((s) => s.id)).toEqual(v1.skills.map((s) => s.id));
    expect(parsed.capabilities?.extensions[0]?.uri).toBe(v1.capabilities?.extensions[0]?.uri);
    expect(parsed.signatures).toHaveLength(1);
  });
});

describe('card signatures', () => {
  const ring = createKeyRing();
  const card = wire(gatewayCard(seededEntries(), opts));

  it('verify against the signing key, naming it and the JWKS that publishes it, with Parley\'s check and the SDK\'s', async () => {
    const signed = wire(signCard(card, '1.0', ring, `${BASE}/.well-known/jwks.json`));
    const { result, header } = verifyCard(signed, ring.jwks());
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(header).toMatchObject({ alg: 'EdDSA', kid: ring.activeKid, jku: `${BASE}/.well-known/jwks.json` });
    expect(await sdkVerifies(signed, ring.jwks())).toBe(true);
    expect(await sdkVerifies({ ...signed, description: 'changed' }, ring.jwks())).toBe(false);
  });

  it('the signed payload leaves out what A2A canonicalisation leaves out: signatures and empty members', () => {
    expect(withoutEmpty({ a: '', b: [], c: {}, d: { e: null, f: [''] }, g: 0, h: false, i: ['x', ''] })).toEqual({ g: 0, h: false, i: ['x'] });
    const payload = cardSigningPayload(card, '1.0') as Record<string, unknown>;
    expect(payload).not.toHaveProperty('signatures');
    expect((payload.supportedInterfaces as object[])[0]).not.toHaveProperty('tenant');
    expect(payload.securitySchemes).toEqual(card.securitySchemes);
  });

  it('fail for a changed card or another key', () => {
    const signed = wire(signCard(card, '1.0', ring, `${BASE}/.well-known/jwks.json`));
    expect(verifyCard({ ...signed, name: 'Evil' }, ring.jwks()).result.ok).toBe(false);
    expect(verifyCard(signed, createKeyRing().jwks()).result.ok).toBe(false);
  });

  it('replace any signatures the card had', () => {
    const signed = signCard({ ...card, signatures: [{ protected: 'x', signature: 'y' }] }, '1.0', ring, 'u');
    expect(signed.signatures).toHaveLength(1);
    expect(verifyCard(wire(signed), ring.jwks()).result.ok).toBe(true);
  });
});

describe('which version a request asks for', () => {
  it('query first, then the A2A-Version header, else 1.0', () => {
    expect(requestedCardVersion(request('/.well-known/agent-card.json'))).toBe('1.0');
    expect(requestedCardVersion(request('/.well-known/agent-card.json?version=0.3'))).toBe('0.3');
    expect(requestedCardVersion(request('/x?version=0.3.0'))).toBe('0.3');
    expect(requestedCardVersion(request('/x', { 'a2a-version': '0.3' }))).toBe('0.3');
    expect(requestedCardVersion(request('/x?version=1.0', { 'a2a-version': '0.3' }))).toBe('1.0');
    expect(requestedCardVersion(request('/x', { 'a2a-version': '1.0' }))).toBe('1.0');
  });

  it('refuses a version it does not serve, naming where it was asked and the rule', () => {
    for (const [url, headers, path] of [['/x?version=2.0', {}, 'query.version'], ['/x', { 'a2a-version': '0.2' }, 'headers.a2a-version']] as const) {
      let err: unknown;
      try {
        requestedCardVersion(request(url, headers));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ type: 'invalid_request', path, rule: 'supported_version', details: { supported: ['1.0', '0.3'] } });
    }
  });
});

describe('served by the gateway', () => {
  const AUTH = keyedAuthenticator('card-test-service-token-0123456789', []);
  const ring = createKeyRing();
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const registry = { listAgents: async () => ({ agents: [] }) } as unknown as RegistryApi;
    const negotiation = { getSigningKeys: async () => ({ keys: [] }), listSchemas: async () => ({ schemas: [] }) } as unknown as NegotiationApi;
    server = createGatewayServer({
      backends: { registry, negotiation, execution: {} as ExecutionApi },
      health: { shuttingDown: false, checks: {} },
      log: createLogger({ level: 'error', write: () => {} }),
      maxBodyBytes: 1 << 20,
      authenticator: AUTH.authenticator,
      cardSigner: ring,
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, vary: res.headers.get('vary'), body: (await res.json()) as Record<string, unknown> };
  };

  it('serves the strict v1.0 card by default, signed with a key its JWKS publishes', async () => {
    const card = await get('/.well-known/agent-card.json');
    expect(card.status).toBe(200);
    expect(card.vary).toBe('A2A-Version');
    expect(validateV1(card.body), errorsOf()).toBe(true);
    const jwks = (await get('/.well-known/jwks.json')).body as unknown as Jwks;
    expect(jwks.keys.map((k) => k.kid)).toContain(ring.activeKid);
    const { result, header } = verifyCard(card.body, jwks);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(header?.jku).toBe(`${base}/.well-known/jwks.json`);
    expect(await sdkVerifies(card.body, jwks)).toBe(true);
  });

  it('serves the v0.3 card for ?version=0.3 and for A2A-Version: 0.3, signed too', async () => {
    for (const [path, headers] of [['/.well-known/agent-card.json?version=0.3', {}], ['/.well-known/agent-card.json', { 'a2a-version': '0.3' }]] as const) {
      const card = await get(path, headers);
      expect(card.status).toBe(200);
      expect(card.body).toMatchObject({ protocolVersion: A2A_V03_PROTOCOL_VERSION, url: `${base}/a2a`, preferredTransport: 'JSONRPC' });
      expect(isLegacyAgentCard(card.body)).toBe(true);
      expect(verifyCard(card.body, ring.jwks(), '0.3').result.ok).toBe(true);
    }
  });

  it('answers 400 invalid_request for a version it does not serve', async () => {
    const r = await get('/.well-known/agent-card.json?version=9');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: { code: -32600, data: { type: 'invalid_request', path: 'query.version', rule: 'supported_version' } } });
  });
});
