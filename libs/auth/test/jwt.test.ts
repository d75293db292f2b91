import { generateKeyPairSync, sign } from 'node:crypto';
import { ParleyError } from '@parley/protocol';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createJwtVerifier, parseJwtIssuers, type JwtIssuer, type JwtVerifierOptions } from '../src/jwt';
import { TestClock, b64, b64json, makeKey, mint, mintHs256WithPublicKey, mintUnsigned, withPayload } from './jwt-fixtures';

const ISS = 'https://id.example.com/';
const AUD = 'https://parley.example.com';
const TENANT = 'acme';
const JWKS_URI = 'https://id.example.com/.well-known/jwks.json';
const T0 = Date.UTC(2026, 0, 1);

const ed = makeKey('EdDSA', 'ed-1');
const es = makeKey('ES256', 'es-1');
const rs = makeKey('RS256', 'rs-1');
/** Not in any JWKS, but claims the kid of a trusted key. */
const stranger = makeKey('EdDSA', 'ed-1');
/** The issuer's next key (rotation). */
const ed2 = makeKey('EdDSA', 'ed-2');

let clock = new TestClock(T0);
beforeEach(() => {
  clock = new TestClock(T0);
});

const claims = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: ISS,
  sub: 'alice',
  aud: AUD,
  tenant: TENANT,
  iat: clock.s,
  exp: clock.s + 600,
  jti: 'jti-1',
  ...over,
});

const issuer = (over: Partial<JwtIssuer> = {}): JwtIssuer => ({
  issuer: ISS,
  alias: 'corp',
  audience: AUD,
  jwks: { keys: [ed.jwk, es.jwk, rs.jwk] },
  ...over,
});

const verifier = (over: Partial<JwtIssuer> = {}, opts: Partial<JwtVerifierOptions> = {}) =>
  createJwtVerifier({ issuers: [issuer(over)], tenant: TENANT, clock, ...opts });

/** Awaits a refusal: unauthenticated at headers.authorization with `rule`, whose message repeats no part of `token`. */
async function refused(p: Promise<unknown>, rule: string, token?: string): Promise<ParleyError> {
  const e = await p.then(
    () => {
      throw new Error(`expected a refusal with rule ${rule}, the token verified`);
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ParleyError);
  const pe = e as ParleyError;
  expect({ type: pe.type, path: pe.path, rule: pe.rule }, pe.message).toEqual({ type: 'unauthenticated', path: 'headers.authorization', rule });
  if (token !== undefined) {
    for (const part of token.split('.').filter((s) => s.length >= 8)) expect(pe.message).not.toContain(part);
    expect(pe.message).not.toContain(token);
  }
  return pe;
}

describe('valid tokens (RFC 7515, RFC 8037)', () => {
  it.each([
    ['EdDSA', ed],
    ['ES256', es],
    ['RS256', rs],
  ] as const)('%s: verifies and yields the principal', async (_alg, key) => {
    const token = mint(key, claims({ roles: ['server_agent'], parley_agents: ['acme-*'], parley_scenarios: ['flight_booking', 'photo_*'] }));
    await expect(verifier().verify(token)).resolves.toEqual({
      id: 'corp:alice',
      tenant: TENANT,
      roles: ['server_agent'],
      agents: ['acme-*'],
      scenarios: ['flight_booking', 'photo_*'],
      via: 'jwt',
      credential_id: 'jti-1',
      expires_at: (clock.s + 600) * 1000,
    });
  });

  it('without a roles claim the issuer default applies (client_agent unless configured); without jti there is no credential_id', async () => {
    const token = mint(ed, claims({ jti: undefined }));
    const p = await verifier().verify(token);
    expect(p.roles).toEqual(['client_agent']);
    expect(p.agents).toEqual([]);
    expect(p.scenarios).toEqual([]);
    expect(p).not.toHaveProperty('credential_id');
    expect((await verifier({ default_roles: ['service'] }).verify(token)).roles).toEqual(['service']);
  });

  it('aud may be an array containing the audience; duplicate roles collapse', async () => {
    const p = await verifier().verify(mint(es, claims({ aud: ['https://other.example.com', AUD], roles: ['operator', 'operator', 'client_agent'] })));
    expect(p.roles).toEqual(['operator', 'client_agent']);
  });

  it('reads the claim names the issuer configures', async () => {
    const v = verifier({ tenant_claim: 'https://parley/tenant', roles_claim: 'groups', agents_claim: 'ag', scenarios_claim: 'sc' });
    const p = await v.verify(mint(ed, claims({ tenant: undefined, 'https://parley/tenant': TENANT, groups: ['server_agent'], ag: ['pixel-studio'], sc: ['*'] })));
    expect(p).toMatchObject({ roles: ['server_agent'], agents: ['pixel-studio'], scenarios: ['*'] });
    // The default claim name no longer counts.
    await refused(v.verify(mint(ed, claims())), 'jwt_tenant');
  });

  it('a header without kid uses the only key of the set, and is refused when the set has several', async () => {
    const token = mint(ed, claims(), { kid: undefined });
    expect((await verifier({ jwks: { keys: [ed.jwk] } }).verify(token)).id).toBe('corp:alice');
    await refused(verifier().verify(token), 'jwt_kid', token);
  });

  it('accepts typ at+jwt (RFC 9068) and no typ', async () => {
    await expect(verifier().verify(mint(ed, claims(), { typ: 'at+jwt' }))).resolves.toMatchObject({ id: 'corp:alice' });
    await expect(verifier().verify(mint(ed, claims(), { typ: undefined }))).resolves.toMatchObject({ id: 'corp:alice' });
  });
});

describe('replayed tokens: exp, max lifetime, audience, tenant (RFC 7519 §4.1)', () => {
  it('a token replayed after it expired is refused (the skew is 60 s)', async () => {
    const v = verifier();
    const token = mint(ed, claims());
    await expect(v.verify(token)).resolves.toMatchObject({ id: 'corp:alice' });
    clock.advance(600 + 60); // exp + skew: still accepted
    await expect(v.verify(token)).resolves.toMatchObject({ id: 'corp:alice' });
    clock.advance(1);
    await refused(v.verify(token), 'jwt_expired', token);
  });

  it('the skew is configurable', async () => {
    const token = mint(ed, claims());
    clock.advance(605);
    await refused(verifier({}, { clockSkewS: 0 }).verify(token), 'jwt_expired');
    await expect(verifier({}, { clockSkewS: 10 }).verify(token)).resolves.toMatchObject({ id: 'corp:alice' });
  });

  it('a token without a numeric exp is refused', async () => {
    await refused(verifier().verify(mint(ed, claims({ exp: undefined }))), 'jwt_expired');
    await refused(verifier().verify(mint(ed, claims({ exp: '2030-01-01' }))), 'jwt_expired');
  });

  it('a token living longer than max_lifetime_s is refused (exp - iat, or exp - now without iat)', async () => {
    const v = verifier();
    await expect(v.verify(mint(ed, claims({ exp: clock.s + 86_400 })))).resolves.toMatchObject({ id: 'corp:alice' });
    await refused(v.verify(mint(ed, claims({ exp: clock.s + 86_401 }))), 'jwt_lifetime');
    await refused(v.verify(mint(ed, claims({ iat: undefined, exp: clock.s + 86_401 }))), 'jwt_lifetime');
    // Issued long ago, still unexpired: its lifetime counts from iat.
    await refused(v.verify(mint(ed, claims({ iat: clock.s - 86_000, exp: clock.s + 600 }))), 'jwt_lifetime');
    await refused(verifier({ max_lifetime_s: 300 }).verify(mint(ed, claims())), 'jwt_lifetime');
  });

  it('a token minted for another audience is refused', async () => {
    const v = verifier();
    await refused(v.verify(mint(ed, claims({ aud: 'https://billing.example.com' }))), 'jwt_audience');
    await refused(v.verify(mint(ed, claims({ aud: ['https://billing.example.com'] }))), 'jwt_audience');
    await refused(v.verify(mint(ed, claims({ aud: undefined }))), 'jwt_audience');
  });

  it('a token for another tenant, or without the tenant claim, is refused', async () => {
    const v = verifier();
    await refused(v.verify(mint(ed, claims({ tenant: 'globex' }))), 'jwt_tenant');
    await refused(v.verify(mint(ed, claims({ tenant: undefined }))), 'jwt_tenant');
    await expect(createJwtVerifier({ issuers: [issuer()], tenant: 'globex', clock }).verify(mint(ed, claims({ tenant: 'globex' })))).resolves.toMatchObject({ tenant: 'globex' });
  });

  it('nbf or iat in the future beyond the skew is refused', async () => {
    const v = verifier();
    await expect(v.verify(mint(ed, claims({ nbf: clock.s + 60 })))).resolves.toMatchObject({ id: 'corp:alice' });
    await refused(v.verify(mint(ed, claims({ nbf: clock.s + 61 }))), 'jwt_not_yet_valid');
    await refused(v.verify(mint(ed, claims({ iat: clock.s + 120 }))), 'jwt_not_yet_valid');
    await refused(v.verify(mint(ed, claims({ nbf: 'soon' }))), 'jwt_claims');
  });
});

describe('forged tokens (RFC 8725 §2.1, §3.1)', () => {
  it('a token signed by a key not in the JWKS (claiming a trusted kid) is refused', async () => {
    const token = mint(stranger, claims({ roles: ['operator'] }));
    await refused(verifier().verify(token), 'jwt_signature', token);
  });

  it('a token whose payload was altered after signing is refused', async () => {
    const v = verifier();
    for (const key of [ed, es, rs]) {
      const genuine = mint(key, claims());
      await expect(v.verify(genuine)).resolves.toMatchObject({ roles: ['client_agent'] });
      const tampered = withPayload(genuine, claims({ roles: ['operator'] }));
      await refused(v.verify(tampered), 'jwt_signature', tampered);
    }
  });

  it('alg none is refused, with or without kid', async () => {
    for (const token of [mintUnsigned(claims(), 'ed-1'), mintUnsigned(claims())]) {
      expect(verifier().looksLikeJwt(token)).toBe(true);
      await refused(verifier().verify(token), 'jwt_alg', token);
    }
  });

  it('HS256 with the public key as the HMAC secret is refused', async () => {
    for (const key of [ed, es, rs]) {
      const token = mintHs256WithPublicKey(key, claims());
      await refused(verifier().verify(token), 'jwt_alg', token);
    }
  });

  it('an algorithm Parley does not support, or the issuer does not allow, is refused', async () => {
    const ps = mint(rs, claims(), { alg: 'PS256' });
    await refused(verifier().verify(ps), 'jwt_alg');
    const v = verifier({ algorithms: ['EdDSA'] });
    await expect(v.verify(mint(ed, claims()))).resolves.toMatchObject({ id: 'corp:alice' });
    await refused(v.verify(mint(es, claims())), 'jwt_alg');
    await refused(v.verify(mint(rs, claims())), 'jwt_alg');
  });

  it("an alg that does not fit the key's type is refused", async () => {
    // Signed correctly with the EC key, but naming the Ed25519 key's kid.
    await refused(verifier().verify(mint(es, claims(), { kid: 'ed-1' })), 'jwt_alg');
    await refused(verifier().verify(mint(rs, claims(), { kid: 'es-1' })), 'jwt_alg');
  });

  it('an ES256 signature in DER form (not raw r||s) is refused', async () => {
    const input = `${b64json({ alg: 'ES256', kid: 'es-1' })}.${b64json(claims())}`;
    const der = sign('sha256', Buffer.from(input), { key: es.privateKey, dsaEncoding: 'der' });
    await refused(verifier().verify(`${input}.${b64(der)}`), 'jwt_signature');
  });

  it('a signature moved from another token is refused', async () => {
    const a = mint(ed, claims({ sub: 'alice' }));
    const b = mint(ed, claims({ sub: 'mallory' }));
    const spliced = `${b.split('.').slice(0, 2).join('.')}.${a.split('.')[2]}`;
    await refused(verifier().verify(spliced), 'jwt_signature', spliced);
  });

  it('an unknown iss or an unknown kid is refused', async () => {
    await refused(verifier().verify(mint(ed, claims({ iss: 'https://evil.example.com/' }))), 'jwt_issuer');
    await refused(verifier().verify(mint(ed, claims({ iss: undefined }))), 'jwt_issuer');
    await refused(verifier().verify(mint(ed2, claims())), 'jwt_kid');
  });
});

describe('claims', () => {
  it('refuses a missing or non-string sub, and a sub that makes no client id', async () => {
    const v = verifier();
    await refused(v.verify(mint(ed, claims({ sub: undefined }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ sub: 42 }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ sub: 'alice smith' }))), 'jwt_claims');
    // `corp:` + 123 characters is 128, the longest client id.
    await expect(v.verify(mint(ed, claims({ sub: 'a'.repeat(123) })))).resolves.toMatchObject({ id: `corp:${'a'.repeat(123)}` });
    await refused(v.verify(mint(ed, claims({ sub: 'a'.repeat(124) }))), 'jwt_claims');
  });

  it('refuses unknown roles and a roles claim that is not a non-empty array', async () => {
    const v = verifier();
    await refused(v.verify(mint(ed, claims({ roles: ['admin'] }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ roles: ['client_agent', 'superuser'] }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ roles: 'operator' }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ roles: [] }))), 'jwt_claims');
  });

  it('refuses agent and scenario claims that are not arrays of namespace patterns', async () => {
    const v = verifier();
    await refused(v.verify(mint(ed, claims({ parley_agents: ['acme corp'] }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ parley_agents: 'acme-*' }))), 'jwt_claims');
    await refused(v.verify(mint(ed, claims({ parley_scenarios: ['flight*booking'] }))), 'jwt_claims');
  });

  it('refuses a jti that is not a short string', async () => {
    await refused(verifier().verify(mint(ed, claims({ jti: 7 }))), 'jwt_claims');
    await refused(verifier().verify(mint(ed, claims({ jti: 'x'.repeat(257) }))), 'jwt_claims');
  });
});

describe('shape (RFC 7515 §7.1)', () => {
  const header = b64json({ alg: 'EdDSA', typ: 'JWT', kid: 'ed-1' });
  const body = b64json(claims());

  it('looksLikeJwt tells a JWT from an API key and from junk without crypto', () => {
    const v = verifier();
    expect(v.looksLikeJwt(mint(ed, claims()))).toBe(true);
    expect(v.looksLikeJwt(`pk_0123456789abcdef_${'A'.repeat(43)}`)).toBe(false);
    expect(v.looksLikeJwt('')).toBe(false);
    expect(v.looksLikeJwt(`${header}.${body}`)).toBe(false);
    expect(v.looksLikeJwt(`${header}.${body}.sig.more`)).toBe(false);
    expect(v.looksLikeJwt(`${b64('not json')}.${body}.c2ln`)).toBe(false);
    expect(v.looksLikeJwt(`${b64json({ typ: 'JWT' })}.${body}.c2ln`)).toBe(false);
    expect(v.looksLikeJwt(`${header}.${body}.${'A'.repeat(20_000)}`)).toBe(false);
  });

  it.each([
    ['two parts', `${header}.${body}`],
    ['no payload', `${header}..c2ln`],
    ['payload not JSON', `${header}.${b64('{"sub":')}.c2ln`],
    ['payload an array', `${header}.${b64json([1, 2])}.c2ln`],
    ['padding in the signature', `${header}.${body}.c2ln=`],
    ['a non-base64url character', `${header}.${body}.c2l+`],
    ['crit header', mint(ed, claims(), { crit: ['exp'], exp: 1 })],
    ['another typ', mint(ed, claims(), { typ: 'dpop+jwt' })],
    ['a numeric kid', mint(ed, claims(), { kid: 1 })],
    ['an oversized token', `${header}.${b64json({ ...claims(), pad: 'x'.repeat(20_000) })}.c2ln`],
  ])('%s is jwt_malformed', async (_name, token) => {
    await refused(verifier().verify(token), 'jwt_malformed', token);
  });
});

describe('jwks_uri: fetch, TTL, rotation (RFC 7517 §5)', () => {
  /** A fake IdP: serves `doc` (or fails) and counts fetches. */
  function idp(keys: object[], opts: Partial<JwtVerifierOptions> = {}) {
    const state = { doc: { keys } as unknown, fail: false };
    const fetchJwks = vi.fn(async (uri: string) => {
      expect(uri).toBe(JWKS_URI);
      if (state.fail) throw new Error('connection refused');
      return state.doc;
    });
    const v = verifier({ jwks: undefined, jwks_uri: JWKS_URI }, { fetchJwks, ...opts });
    return { state, fetchJwks, v };
  }

  it('fetches once, reuses the set within the TTL, fetches again after it', async () => {
    const { fetchJwks, v } = idp([ed.jwk, rs.jwk]);
    await v.verify(mint(ed, claims()));
    await v.verify(mint(rs, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(1);
    clock.advance(299);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(1);
    clock.advance(1);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(2);
  });

  it('jwksTtlMs sets the TTL, even below the 30 s refetch limit', async () => {
    const { fetchJwks, v } = idp([ed.jwk], { jwksTtlMs: 10_000 });
    await v.verify(mint(ed, claims()));
    clock.advance(9);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(1);
    clock.advance(1);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(2);
  });

  it('concurrent verifications share one fetch', async () => {
    const { fetchJwks, v } = idp([ed.jwk]);
    const tokens = Array.from({ length: 5 }, (_, i) => mint(ed, claims({ sub: `u${i}` })));
    const ps = await Promise.all(tokens.map((t) => v.verify(t)));
    expect(ps.map((p) => p.id)).toEqual(['corp:u0', 'corp:u1', 'corp:u2', 'corp:u3', 'corp:u4']);
    expect(fetchJwks).toHaveBeenCalledTimes(1);
  });

  it('a new kid after rotation triggers a refetch and verifies', async () => {
    const { state, fetchJwks, v } = idp([ed.jwk]);
    await v.verify(mint(ed, claims()));
    clock.advance(31);
    state.doc = { keys: [ed.jwk, ed2.jwk] };
    await expect(v.verify(mint(ed2, claims()))).resolves.toMatchObject({ id: 'corp:alice' });
    expect(fetchJwks).toHaveBeenCalledTimes(2);
    // The old key still verifies from the refreshed set, without another fetch.
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(2);
  });

  it('unknown kids trigger at most one refetch per 30 s', async () => {
    const { fetchJwks, v } = idp([ed.jwk]);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(1);
    // Right after a fetch, an unknown kid does not fetch again.
    await refused(v.verify(mint(ed2, claims())), 'jwt_kid');
    expect(fetchJwks).toHaveBeenCalledTimes(1);
    clock.advance(30);
    await refused(v.verify(mint(ed2, claims())), 'jwt_kid');
    expect(fetchJwks).toHaveBeenCalledTimes(2);
    for (let i = 0; i < 5; i++) await refused(v.verify(mint(ed2, claims({ jti: `j${i}` }))), 'jwt_kid');
    clock.advance(29);
    await refused(v.verify(mint(ed2, claims())), 'jwt_kid');
    expect(fetchJwks).toHaveBeenCalledTimes(2);
    clock.advance(1);
    await refused(v.verify(mint(ed2, claims())), 'jwt_kid');
    expect(fetchJwks).toHaveBeenCalledTimes(3);
  });

  it('a failed or garbled fetch keeps the last good set and retries at most every 30 s', async () => {
    const { state, fetchJwks, v } = idp([ed.jwk]);
    await v.verify(mint(ed, claims()));
    clock.advance(300);
    state.fail = true;
    await expect(v.verify(mint(ed, claims()))).resolves.toMatchObject({ id: 'corp:alice' });
    expect(fetchJwks).toHaveBeenCalledTimes(2);
    clock.advance(10);
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(2);
    clock.advance(20);
    state.fail = false;
    state.doc = { not: 'a jwks' };
    await v.verify(mint(ed, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(3);
    clock.advance(30);
    state.doc = { keys: [ed2.jwk] };
    await v.verify(mint(ed2, claims()));
    expect(fetchJwks).toHaveBeenCalledTimes(4);
    // The fetched set replaced the old one: ed-1 is gone.
    await refused(v.verify(mint(ed, claims())), 'jwt_kid');
  });

  it('with no key set at all, a failed fetch is unavailable (retryable)', async () => {
    const { state, fetchJwks, v } = idp([ed.jwk]);
    state.fail = true;
    const e = await v.verify(mint(ed, claims())).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ParleyError);
    expect((e as ParleyError).type).toBe('unavailable');
    expect((e as ParleyError).retryable).toBe(true);
    state.fail = false;
    clock.advance(30);
    await expect(v.verify(mint(ed, claims()))).resolves.toMatchObject({ id: 'corp:alice' });
    expect(fetchJwks).toHaveBeenCalledTimes(2);
  });

  it('keys the IdP publishes for encryption, with another alg, or too small are not used', async () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const smallKey = { alg: 'RS256' as const, kid: 'rs-small', privateKey: small.privateKey, publicKey: small.publicKey, jwk: { ...small.publicKey.export({ format: 'jwk' }), kid: 'rs-small' } };
    const { v } = idp([{ ...ed.jwk, use: 'enc' }, { ...es.jwk, alg: 'ES384' }, smallKey.jwk, rs.jwk]);
    await refused(v.verify(mint(ed, claims())), 'jwt_kid');
    await refused(v.verify(mint(es, claims())), 'jwt_kid');
    await refused(v.verify(mint(smallKey, claims())), 'jwt_kid');
    await expect(v.verify(mint(rs, claims()))).resolves.toMatchObject({ id: 'corp:alice' });
  });

  it('createJwtVerifier requires fetchJwks when an issuer has jwks_uri', () => {
    expect(() => verifier({ jwks: undefined, jwks_uri: JWKS_URI })).toThrow(/fetchJwks is required/);
  });
});

describe('parseJwtIssuers (PARLEY_JWT_ISSUERS)', () => {
  const good = { issuer: ISS, alias: 'corp', audience: AUD, jwks_uri: JWKS_URI };
  const other = { issuer: 'https://login.partner.example/', alias: 'partner', audience: AUD, jwks: { keys: [ed.jwk] }, algorithms: ['EdDSA'], max_lifetime_s: 3600 };

  it('parses a valid list', () => {
    expect(parseJwtIssuers(JSON.stringify([good, { ...other, roles_claim: 'groups', default_roles: ['server_agent'] }]))).toEqual([
      good,
      { ...other, roles_claim: 'groups', default_roles: ['server_agent'] },
    ]);
    expect(parseJwtIssuers('[]')).toEqual([]);
  });

  /** The Error thrown for `json`, whose message must start with `path`. */
  function failsAt(entries: unknown, path: string): void {
    const json = typeof entries === 'string' ? entries : JSON.stringify(entries);
    let message = '';
    try {
      parseJwtIssuers(json);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.startsWith(path), `"${message}" should start with ${path}`).toBe(true);
  }

  it('names the bad member', () => {
    failsAt('[{', 'PARLEY_JWT_ISSUERS is not valid JSON');
    failsAt({ issuers: [] }, 'PARLEY_JWT_ISSUERS must be an array');
    failsAt(['corp'], 'PARLEY_JWT_ISSUERS[0] must be an object');
    failsAt([good, { issuer: 'https://b.example/', alias: 'b', jwks_uri: JWKS_URI }], 'PARLEY_JWT_ISSUERS[1].audience');
    failsAt([{ ...good, audiences: [AUD] }], 'PARLEY_JWT_ISSUERS[0].audiences');
    failsAt([good, { ...other, issuer: ISS }], 'PARLEY_JWT_ISSUERS[1].issuer');
    failsAt([good, { ...other, alias: 'corp' }], 'PARLEY_JWT_ISSUERS[1].alias');
    failsAt([{ ...good, alias: 'corp:eu' }], 'PARLEY_JWT_ISSUERS[0].alias');
    failsAt([{ ...good, issuer: '' }], 'PARLEY_JWT_ISSUERS[0].issuer');
    failsAt([{ ...other, algorithms: ['EdDSA', 'HS256'] }], 'PARLEY_JWT_ISSUERS[0].algorithms[1]');
    failsAt([{ ...other, algorithms: [] }], 'PARLEY_JWT_ISSUERS[0].algorithms');
    failsAt([{ ...good, jwks: { keys: [ed.jwk] } }], 'PARLEY_JWT_ISSUERS[0].jwks_uri');
    failsAt([{ issuer: ISS, alias: 'corp', audience: AUD }], 'PARLEY_JWT_ISSUERS[0].jwks_uri');
    failsAt([{ ...good, jwks_uri: 'http://id.example.com/jwks' }], 'PARLEY_JWT_ISSUERS[0].jwks_uri');
    failsAt([{ ...other, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }], 'PARLEY_JWT_ISSUERS[0].jwks.keys[0]');
    failsAt([{ ...other, jwks: [ed.jwk] }], 'PARLEY_JWT_ISSUERS[0].jwks');
    failsAt([{ ...good, default_roles: ['client_agent', 'root'] }], 'PARLEY_JWT_ISSUERS[0].default_roles[1]');
    failsAt([{ ...good, tenant_claim: '' }], 'PARLEY_JWT_ISSUERS[0].tenant_claim');
    failsAt([{ ...good, max_lifetime_s: 0 }], 'PARLEY_JWT_ISSUERS[0].max_lifetime_s');
  });

  it('allows http jwks_uri only for localhost', () => {
    expect(parseJwtIssuers(JSON.stringify([{ ...good, jwks_uri: 'http://localhost:8081/jwks' }]))[0]?.jwks_uri).toBe('http://localhost:8081/jwks');
  });

  it('createJwtVerifier checks its issuers the same way', () => {
    expect(() => createJwtVerifier({ issuers: [{ ...issuer(), audience: '' }], tenant: TENANT, clock })).toThrow(/^issuers\[0\]\.audience/);
    expect(() => createJwtVerifier({ issuers: [issuer(), issuer()], tenant: TENANT, clock })).toThrow(/^issuers\[1\]\.issuer/);
  });
});
