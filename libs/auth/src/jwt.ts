/**
 * JWT bearer tokens ("Identity", draft-zhou §7: whatever can change
 * security-relevant state "MUST require authentication and authorization").
 * A caller presents `Authorization: Bearer <JWT>` minted by an identity
 * provider the deployment trusts; Parley verifies it against that issuer's
 * keys and from then on knows the caller as a principal `<alias>:<sub>`.
 *
 * Where each rule comes from:
 * - RFC 7515 (JWS) §7.1 compact serialisation: three base64url parts, the
 *   signature over `<header>.<payload>` in ASCII; §4.1.11: a `crit` header
 *   naming extensions we do not understand makes the token invalid (we
 *   understand none, so any `crit` is refused); §5.2: the signature is checked
 *   before any claim is believed.
 * - RFC 7519 (JWT) §4.1: `iss` must name a configured issuer exactly, `aud`
 *   (a string or an array) must contain our audience, `exp`/`nbf` are
 *   NumericDates checked with a small clock skew (§4.1.4: "MAY provide for
 *   some small leeway"); `jti` becomes the principal's credential id.
 * - RFC 7517 (JWK): the issuer's key set, inline or fetched from `jwks_uri`;
 *   keys are picked by `kid`; a key with `use` other than `sig`, `key_ops`
 *   without `verify`, or an `alg` other than the one we would use is ignored.
 * - RFC 8037: EdDSA over OKP keys (Ed25519, Ed448). ES256 is ECDSA P-256 with
 *   the raw 64-byte r||s signature (RFC 7518 §3.4); RS256 is RSASSA-PKCS1-v1_5
 *   with SHA-256 (RFC 7518 §3.3), keys of at least 2048 bits.
 * - RFC 8725 (JWT BCP) §2.1/§3.1: `none` and the HMAC algorithms are always
 *   refused, so a token "signed" with the issuer's public key as an HMAC
 *   secret can never verify, and the algorithm must fit the key's type; §3.11:
 *   a `typ` other than JWT / at+jwt (RFC 9068) is refused, so another kind of
 *   JWT (a DPoP proof, a logout token) is not taken for an access token.
 *
 * Replayed tokens. A bearer token is replayable by nature until it expires:
 * whoever holds it is its subject (RFC 6750 §5). Parley does not keep a
 * `jti` ledger (that would put state and IO in every check); its defences are
 * - a mandatory `exp`: a token without one is refused, and one replayed after
 *   `exp` (plus the skew) is refused;
 * - a maximum lifetime per issuer (`max_lifetime_s`, default one day): a
 *   long-lived token, whose theft would matter longer, is refused outright;
 * - the audience: a token minted for another service (another `aud`) is
 *   refused, so a service that receives tokens for itself cannot replay them
 *   against Parley;
 * - the tenant claim: a token issued for another deployment's tenant is
 *   refused even when the same identity provider signs both.
 * TLS in transit (see the gateway) keeps tokens from being read on the way.
 *
 * Errors: every refusal is `ParleyError('unauthenticated', …)` at
 * `headers.authorization` with a `jwt_*` rule; messages never repeat the token
 * or any of its claims. When an issuer's key set cannot be fetched and none
 * was ever fetched, the error is `unavailable` (retryable).
 *
 * This module does no IO: fetching a JWKS is the injected `fetchJwks`, time is
 * the injected clock. Verified tokens are not cached here (the caller does).
 */
import { createPublicKey, verify as cryptoVerify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { CLIENT_ID_PATTERN, MAX_CLIENT_ID_LENGTH, ParleyError, isPlainObject } from '@parley/protocol';
import { NAMESPACE_PATTERN, isRole, type Principal, type Role } from './principal';

/** The signature algorithms Parley accepts (RFC 7518 §3.1, RFC 8037 §3.1). */
export const JWT_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** One trusted identity provider. */
export interface JwtIssuer {
  /** The `iss` value that must match exactly. */
  issuer: string;
  /** Prefix of the principal id: `${alias}:${sub}`. Letters, digits and `_ . @ -` (no `:`, so ids of two issuers cannot collide). */
  alias: string;
  /** `aud` (a string or an array) must contain it. */
  audience: string;
  /** Inline keys (RFC 7517 §5), or … */
  jwks?: { keys: JsonWebKey[] };
  /** … the URL of the issuer's JWKS, fetched through `JwtVerifierOptions.fetchJwks`. */
  jwks_uri?: string;
  /** Accepted algorithms; default all three. `none` and HS* are always refused. */
  algorithms?: JwtAlgorithm[];
  /** Claim that must equal the verifier's tenant; default `tenant`. */
  tenant_claim?: string;
  /** Claim holding an array of roles; default `roles`. Unknown roles are refused. */
  roles_claim?: string;
  /** Roles when the roles claim is absent; default `['client_agent']`. */
  default_roles?: Role[];
  /** Claim holding the agent-name patterns a server agent owns; default `parley_agents`. */
  agents_claim?: string;
  /** Claim holding the scenario patterns a server agent may serve; default `parley_scenarios`. */
  scenarios_claim?: string;
  /** Longest accepted lifetime, `exp - iat` (or `exp - now` without `iat`), in seconds; default 86400. */
  max_lifetime_s?: number;
}

export interface JwtVerifierOptions {
  issuers: JwtIssuer[];
  /** This deployment's tenant. */
  tenant: string;
  /** Time is an input. */
  clock: { now(): Date };
  /** Leeway for `exp`, `nbf` and `iat`, seconds; default 60. */
  clockSkewS?: number;
  /** Fetches a JWKS document (parsed JSON); required when an issuer has `jwks_uri`. Should time out on its own. */
  fetchJwks?: (uri: string) => Promise<unknown>;
  /** How long a fetched JWKS is used before it is fetched again, ms; default 300000. */
  jwksTtlMs?: number;
}

export interface JwtVerifier {
  /** A compact JWS with three base64url parts whose header parses (cheap shape test, no crypto). */
  looksLikeJwt(token: string): boolean;
  /** Verifies and returns the principal (via: 'jwt', credential_id: jti when present, expires_at: exp*1000). */
  verify(token: string): Promise<Principal>;
}

/** Longest token looked at (a header line of a few KiB is already generous). */
export const MAX_JWT_LENGTH = 16_384;
/** An unknown `kid` (or a failed fetch) triggers at most one JWKS fetch per issuer in this window. */
export const JWKS_MIN_REFETCH_MS = 30_000;

const DEFAULT_SKEW_S = 60;
const DEFAULT_TTL_MS = 300_000;
const DEFAULT_MAX_LIFETIME_S = 86_400;
const DEFAULT_ROLES: readonly Role[] = ['client_agent'];
const MAX_JTI_LENGTH = 256;
const MIN_RSA_BITS = 2048;
const ALIAS_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
const CLAIM_NAME_PATTERN = /^\S{1,128}$/;
const ACCEPTED_TYP = new Set(['jwt', 'at+jwt', 'application/jwt', 'application/at+jwt']);
const PATH = 'headers.authorization';

type Rule =
  | 'jwt_malformed'
  | 'jwt_alg'
  | 'jwt_issuer'
  | 'jwt_kid'
  | 'jwt_signature'
  | 'jwt_expired'
  | 'jwt_not_yet_valid'
  | 'jwt_lifetime'
  | 'jwt_audience'
  | 'jwt_tenant'
  | 'jwt_claims';

function refuse(rule: Rule, message: string): ParleyError {
  return new ParleyError('unauthenticated', message, { path: PATH, rule });
}

// ---------------------------------------------------------------------------
// Compact JWS parsing (RFC 7515 §7.1)

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Strict base64url: only the alphabet, no padding, and the canonical encoding of what it decodes to. */
function fromB64url(s: string): Buffer | undefined {
  if (!B64URL.test(s)) return undefined;
  const b = Buffer.from(s, 'base64url');
  return b.toString('base64url') === s ? b : undefined;
}

function jsonObject(part: string): Record<string, unknown> | undefined {
  const raw = fromB64url(part);
  if (!raw || raw.length === 0) return undefined;
  try {
    const v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)) as unknown;
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

interface Parsed {
  header: Record<string, unknown> & { alg: string };
  payload: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

/** The header of a compact JWS when the token has its shape; undefined otherwise. */
function parseHeader(token: unknown): { parts: [string, string, string]; header: Record<string, unknown> & { alg: string } } | undefined {
  if (typeof token !== 'string' || token.length > MAX_JWT_LENGTH) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  if (p === '' || !B64URL.test(p) || !B64URL.test(s)) return undefined;
  const header = jsonObject(h);
  if (!header || typeof header.alg !== 'string') return undefined;
  return { parts: [h, p, s], header: header as Record<string, unknown> & { alg: string } };
}

function parse(token: string): Parsed {
  const shaped = parseHeader(token);
  if (!shaped) throw refuse('jwt_malformed', 'the bearer token is not a compact JWS (three base64url parts with a JSON header naming alg)');
  const { parts, header } = shaped;
  const payload = jsonObject(parts[1]);
  if (!payload) throw refuse('jwt_malformed', 'the bearer token payload is not a base64url JSON object');
  const signature = fromB64url(parts[2]);
  if (!signature) throw refuse('jwt_malformed', 'the bearer token signature is not base64url');
  if (header.crit !== undefined) throw refuse('jwt_malformed', 'the bearer token header carries crit; Parley understands no JWS extension (RFC 7515 §4.1.11)');
  if (header.typ !== undefined && (typeof header.typ !== 'string' || !ACCEPTED_TYP.has(header.typ.toLowerCase()))) {
    throw refuse('jwt_malformed', 'the bearer token typ is not JWT or at+jwt');
  }
  if (header.kid !== undefined && typeof header.kid !== 'string') throw refuse('jwt_malformed', 'the bearer token kid is not a string');
  return { header, payload, signingInput: Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii'), signature };
}

// ---------------------------------------------------------------------------
// Keys (RFC 7517, RFC 8037)

interface UsableKey {
  kid: string | undefined;
  /** The one algorithm this key verifies. */
  alg: JwtAlgorithm;
  key: KeyObject;
}

/**
 * A JWK as a verification key, or undefined when it cannot be one: not a
 * public signing key of a supported type, or malformed. Only the public members
 * are read, so private material that an issuer published by mistake is unused.
 */
function usableKey(jwk: unknown): UsableKey | undefined {
  if (!isPlainObject(jwk) || typeof jwk.kty !== 'string') return undefined;
  if (jwk.use !== undefined && jwk.use !== 'sig') return undefined;
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return undefined;
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') return undefined;
  let alg: JwtAlgorithm;
  let pub: JsonWebKey;
  if (jwk.kty === 'OKP' && (jwk.crv === 'Ed25519' || jwk.crv === 'Ed448') && typeof jwk.x === 'string') {
    alg = 'EdDSA';
    pub = { kty: 'OKP', crv: jwk.crv, x: jwk.x };
  } else if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    alg = 'ES256';
    pub = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  } else if (jwk.kty === 'RSA' && typeof jwk.n === 'string' && typeof jwk.e === 'string') {
    alg = 'RS256';
    pub = { kty: 'RSA', n: jwk.n, e: jwk.e };
  } else {
    return undefined;
  }
  if (jwk.alg !== undefined && jwk.alg !== alg) return undefined;
  try {
    const key = createPublicKey({ key: pub, format: 'jwk' });
    if (alg === 'RS256' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return undefined;
    return { kid: jwk.kid as string | undefined, alg, key };
  } catch {
    return undefined;
  }
}

/** The usable keys of a JWKS document; undefined when it is not `{ keys: [...] }`. */
function keySetOf(doc: unknown): UsableKey[] | undefined {
  if (!isPlainObject(doc) || !Array.isArray(doc.keys)) return undefined;
  return doc.keys.map(usableKey).filter((k): k is UsableKey => k !== undefined);
}

/**
 * The key for a header: by `kid`, preferring one whose algorithm matches;
 * without a `kid`, the set's only key. `mismatch` when the key found is for
 * another algorithm (jwt_alg), undefined when there is none (jwt_kid).
 */
function selectKey(keys: readonly UsableKey[], kid: string | undefined, alg: JwtAlgorithm): UsableKey | 'mismatch' | undefined {
  const candidates = kid === undefined ? (keys.length === 1 ? keys : []) : keys.filter((k) => k.kid === kid);
  if (candidates.length === 0) return undefined;
  return candidates.find((k) => k.alg === alg) ?? 'mismatch';
}

function signatureValid(alg: JwtAlgorithm, key: KeyObject, data: Buffer, sig: Buffer): boolean {
  try {
    switch (alg) {
      case 'EdDSA':
        return cryptoVerify(null, data, key, sig);
      case 'ES256':
        return sig.length === 64 && cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
      case 'RS256':
        return cryptoVerify('sha256', data, key, sig);
    }
  } catch {
    return false;
  }
}

/** One issuer's key set: inline (fixed) or fetched, with its TTL on the injected clock. */
interface KeyState {
  keys: UsableKey[] | undefined;
  fetchedAt: number;
  lastAttemptAt: number | undefined;
  lastFailed: boolean;
  inflight: Promise<void> | undefined;
}

// ---------------------------------------------------------------------------
// The verifier

/** A verifier for bearer JWTs of the configured issuers. Throws Error when the options are inconsistent. */
export function createJwtVerifier(opts: JwtVerifierOptions): JwtVerifier {
  const issuers = checkIssuers(opts.issuers, 'issuers');
  if (typeof opts.tenant !== 'string' || opts.tenant === '') throw new Error('createJwtVerifier: tenant must be a non-empty string');
  if (issuers.some((i) => i.jwks_uri !== undefined) && typeof opts.fetchJwks !== 'function') {
    throw new Error('createJwtVerifier: an issuer has jwks_uri, so fetchJwks is required');
  }
  const skewS = opts.clockSkewS ?? DEFAULT_SKEW_S;
  const ttlMs = opts.jwksTtlMs ?? DEFAULT_TTL_MS;
  const byIss = new Map(issuers.map((i) => [i.issuer, i]));
  const states = new Map<JwtIssuer, KeyState>(
    issuers.map((i) => [
      i,
      { keys: i.jwks ? (keySetOf(i.jwks) ?? []) : undefined, fetchedAt: 0, lastAttemptAt: undefined, lastFailed: false, inflight: undefined },
    ]),
  );
  const nowMs = (): number => opts.clock.now().getTime();

  /** Fetches the issuer's JWKS once for every concurrent caller; a failure keeps the last good set. */
  function refresh(iss: JwtIssuer, st: KeyState): Promise<void> {
    if (st.inflight) return st.inflight;
    st.lastAttemptAt = nowMs();
    const run = async (): Promise<void> => {
      try {
        const keys = keySetOf(await (opts.fetchJwks as (uri: string) => Promise<unknown>)(iss.jwks_uri as string));
        if (!keys) throw new Error('not a JWKS');
        st.keys = keys;
        st.fetchedAt = nowMs();
        st.lastFailed = false;
      } catch {
        st.lastFailed = true;
      } finally {
        st.inflight = undefined;
      }
    };
    st.inflight = run();
    return st.inflight;
  }

  /**
   * The issuer's keys. A remote set is fetched when there is none or it is
   * older than the TTL, or (`unknownKid`) when the token names a key the set
   * lacks; the latter, and any retry after a failed fetch, at most once per
   * JWKS_MIN_REFETCH_MS.
   */
  async function keysFor(iss: JwtIssuer, unknownKid: boolean): Promise<UsableKey[]> {
    const st = states.get(iss) as KeyState;
    if (iss.jwks_uri === undefined) return st.keys ?? [];
    const now = nowMs();
    const stale = st.keys === undefined || now - st.fetchedAt >= ttlMs;
    const throttled = st.lastAttemptAt !== undefined && now - st.lastAttemptAt < JWKS_MIN_REFETCH_MS;
    if (stale || unknownKid) {
      if (st.inflight) await st.inflight;
      else if ((stale && !st.lastFailed) || !throttled) await refresh(iss, st);
    }
    if (st.keys === undefined) {
      throw new ParleyError('unavailable', `the key set of JWT issuer "${iss.alias}" cannot be fetched`, { path: PATH, rule: 'jwks_unavailable', details: { issuer: iss.alias } });
    }
    return st.keys;
  }

  async function verify(token: string): Promise<Principal> {
    const { header, payload, signingInput, signature } = parse(token);
    const alg = header.alg;
    if (alg.toLowerCase() === 'none' || /^HS/i.test(alg)) throw refuse('jwt_alg', 'the bearer token is unsigned or HMAC-signed; only EdDSA, ES256 and RS256 are accepted');
    if (!(JWT_ALGORITHMS as readonly string[]).includes(alg)) throw refuse('jwt_alg', 'the bearer token alg is not one of EdDSA, ES256, RS256');
    const iss = typeof payload.iss === 'string' ? byIss.get(payload.iss) : undefined;
    if (!iss) throw refuse('jwt_issuer', 'the bearer token iss is not a configured issuer');
    const jwtAlg = alg as JwtAlgorithm;
    if (!(iss.algorithms ?? JWT_ALGORITHMS).includes(jwtAlg)) throw refuse('jwt_alg', `the bearer token alg is not accepted for issuer "${iss.alias}"`);

    const kid = header.kid as string | undefined;
    let key = selectKey(await keysFor(iss, false), kid, jwtAlg);
    if (key === undefined && iss.jwks_uri !== undefined) key = selectKey(await keysFor(iss, true), kid, jwtAlg);
    if (key === undefined) {
      throw refuse('jwt_kid', kid === undefined ? `the bearer token names no kid and issuer "${iss.alias}" has not exactly one key` : `issuer "${iss.alias}" has no key with the bearer token's kid`);
    }
    if (key === 'mismatch') throw refuse('jwt_alg', "the bearer token alg does not fit its key's type");
    if (!signatureValid(jwtAlg, key.key, signingInput, signature)) throw refuse('jwt_signature', 'the bearer token signature does not verify');

    return principalOf(iss, payload, nowMs() / 1000);
  }

  /** The registered and Parley claims of a signature-checked payload (RFC 7519 §4.1). */
  function principalOf(iss: JwtIssuer, c: Record<string, unknown>, now: number): Principal {
    const { exp, nbf, iat } = c;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw refuse('jwt_expired', 'the bearer token carries no numeric exp; Parley accepts only tokens that expire');
    if (now > exp + skewS) throw refuse('jwt_expired', 'the bearer token has expired');
    for (const [name, v] of [['nbf', nbf], ['iat', iat]] as const) {
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw refuse('jwt_claims', `the bearer token ${name} is not a NumericDate`);
      if (v > now + skewS) throw refuse('jwt_not_yet_valid', `the bearer token is not valid yet (${name} is in the future)`);
    }
    const maxLifetime = iss.max_lifetime_s ?? DEFAULT_MAX_LIFETIME_S;
    if (exp - ((iat as number | undefined) ?? now) > maxLifetime) {
      throw refuse('jwt_lifetime', `the bearer token lives longer than issuer "${iss.alias}" allows (${maxLifetime} s)`);
    }

    const aud = c.aud;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!audiences.includes(iss.audience)) throw refuse('jwt_audience', 'the bearer token was not issued for this audience');

    const tenantClaim = iss.tenant_claim ?? 'tenant';
    if (c[tenantClaim] !== opts.tenant) throw refuse('jwt_tenant', `the bearer token's ${tenantClaim} claim is missing or names another tenant`);

    if (typeof c.sub !== 'string' || c.sub === '') throw refuse('jwt_claims', 'the bearer token carries no sub');
    const id = `${iss.alias}:${c.sub}`;
    if (id.length > MAX_CLIENT_ID_LENGTH || !CLIENT_ID_PATTERN.test(id)) {
      throw refuse('jwt_claims', `the bearer token's sub does not make a client id (${MAX_CLIENT_ID_LENGTH} letters, digits and _ . : @ - at most)`);
    }

    const rolesClaim = iss.roles_claim ?? 'roles';
    const rawRoles = c[rolesClaim];
    let roles: Role[];
    if (rawRoles === undefined) {
      roles = [...(iss.default_roles ?? DEFAULT_ROLES)];
    } else {
      if (!Array.isArray(rawRoles) || rawRoles.length === 0 || !rawRoles.every(isRole)) {
        throw refuse('jwt_claims', `the bearer token's ${rolesClaim} claim must be a non-empty array of operator, server_agent, client_agent, service`);
      }
      roles = [...new Set(rawRoles)];
    }

    const patterns = (claim: string): string[] => {
      const v = c[claim];
      if (v === undefined) return [];
      if (!Array.isArray(v) || !v.every((p) => typeof p === 'string' && NAMESPACE_PATTERN.test(p))) {
        throw refuse('jwt_claims', `the bearer token's ${claim} claim must be an array of names or name prefixes ending in *`);
      }
      return [...new Set(v as string[])];
    };
    const agents = patterns(iss.agents_claim ?? 'parley_agents');
    const scenarios = patterns(iss.scenarios_claim ?? 'parley_scenarios');

    if (c.jti !== undefined && (typeof c.jti !== 'string' || c.jti === '' || c.jti.length > MAX_JTI_LENGTH)) {
      throw refuse('jwt_claims', `the bearer token's jti must be a string of 1-${MAX_JTI_LENGTH} characters`);
    }

    const principal: Principal = { id, tenant: opts.tenant, roles, agents, scenarios, via: 'jwt', expires_at: Math.floor(exp * 1000) };
    if (typeof c.jti === 'string') principal.credential_id = c.jti;
    return principal;
  }

  return {
    looksLikeJwt: (token) => parseHeader(token) !== undefined,
    verify,
  };
}

// ---------------------------------------------------------------------------
// Configuration

const ISSUER_MEMBERS = new Set([
  'issuer',
  'alias',
  'audience',
  'jwks',
  'jwks_uri',
  'algorithms',
  'tenant_claim',
  'roles_claim',
  'default_roles',
  'agents_claim',
  'scenarios_claim',
  'max_lifetime_s',
]);

/** Parses the env PARLEY_JWT_ISSUERS (a JSON array of JwtIssuer); throws Error naming the bad member path. */
export function parseJwtIssuers(json: string): JwtIssuer[] {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    throw new Error('PARLEY_JWT_ISSUERS is not valid JSON');
  }
  return checkIssuers(v, 'PARLEY_JWT_ISSUERS');
}

/** Checks a list of issuers member by member; `label` names the list in errors. Returns copies. */
function checkIssuers(list: unknown, label: string): JwtIssuer[] {
  if (!Array.isArray(list)) throw new Error(`${label} must be an array of issuers`);
  const seenIssuer = new Set<string>();
  const seenAlias = new Set<string>();
  return list.map((entry, i) => {
    const at = `${label}[${i}]`;
    const iss = checkIssuer(entry, at);
    if (seenIssuer.has(iss.issuer)) throw new Error(`${at}.issuer: issuer "${iss.issuer}" is configured twice`);
    if (seenAlias.has(iss.alias)) throw new Error(`${at}.alias: alias "${iss.alias}" is used twice`);
    seenIssuer.add(iss.issuer);
    seenAlias.add(iss.alias);
    return iss;
  });
}

function checkIssuer(e: unknown, at: string): JwtIssuer {
  if (!isPlainObject(e)) throw new Error(`${at} must be an object`);
  for (const k of Object.keys(e)) if (!ISSUER_MEMBERS.has(k)) throw new Error(`${at}.${k}: unknown member`);
  const str = (k: string, ok: (s: string) => boolean, hint: string): string => {
    const v = e[k];
    if (typeof v !== 'string' || !ok(v)) throw new Error(`${at}.${k} must be ${hint}`);
    return v;
  };
  const out: JwtIssuer = {
    issuer: str('issuer', (s) => s.length > 0 && s.length <= 2048, 'a non-empty string'),
    alias: str('alias', (s) => ALIAS_PATTERN.test(s), '1-64 letters, digits and _ . @ - (no colon)'),
    audience: str('audience', (s) => s.length > 0 && s.length <= 2048, 'a non-empty string'),
  };
  if ((e.jwks === undefined) === (e.jwks_uri === undefined)) throw new Error(`${at}.jwks_uri: give exactly one of jwks and jwks_uri`);
  if (e.jwks !== undefined) {
    if (!isPlainObject(e.jwks) || !Array.isArray(e.jwks.keys)) throw new Error(`${at}.jwks must be { "keys": [...] }`);
    const keys = e.jwks.keys as unknown[];
    keys.forEach((k, j) => {
      if (!usableKey(k)) throw new Error(`${at}.jwks.keys[${j}] is not a public signing key (OKP Ed25519/Ed448, EC P-256, RSA >= ${MIN_RSA_BITS} bits)`);
    });
    out.jwks = { keys: keys as JsonWebKey[] };
  }
  if (e.jwks_uri !== undefined) out.jwks_uri = str('jwks_uri', jwksUriOk, 'an https URL (http only for localhost)');
  if (e.algorithms !== undefined) {
    if (!Array.isArray(e.algorithms) || e.algorithms.length === 0) throw new Error(`${at}.algorithms must be a non-empty array of ${JWT_ALGORITHMS.join(', ')}`);
    e.algorithms.forEach((a, j) => {
      if (!(JWT_ALGORITHMS as readonly unknown[]).includes(a)) throw new Error(`${at}.algorithms[${j}] must be one of ${JWT_ALGORITHMS.join(', ')}`);
    });
    out.algorithms = [...new Set(e.algorithms as JwtAlgorithm[])];
  }
  for (const k of ['tenant_claim', 'roles_claim', 'agents_claim', 'scenarios_claim'] as const) {
    if (e[k] !== undefined) out[k] = str(k, (s) => CLAIM_NAME_PATTERN.test(s), 'a claim name (1-128 characters, no spaces)');
  }
  if (e.default_roles !== undefined) {
    if (!Array.isArray(e.default_roles) || e.default_roles.length === 0) throw new Error(`${at}.default_roles must be a non-empty array of roles`);
    e.default_roles.forEach((r, j) => {
      if (!isRole(r)) throw new Error(`${at}.default_roles[${j}] must be operator, server_agent, client_agent or service`);
    });
    out.default_roles = [...new Set(e.default_roles as Role[])];
  }
  if (e.max_lifetime_s !== undefined) {
    const v = e.max_lifetime_s;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new Error(`${at}.max_lifetime_s must be a positive integer (seconds)`);
    out.max_lifetime_s = v;
  }
  return out;
}

function jwksUriOk(s: string): boolean {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  if (u.protocol === 'https:') return true;
  return u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
}
