/**
 * The verify half of Parley's signatures (draft-zhou §7: schema negotiation and
 * update messages integrity-protected), for client agents: canonical JSON
 * (RFC 8785), compact JWS with a detached payload (RFC 7515 Appendix F), Ed25519
 * (RFC 8037), against the gateway's JWKS (`/.well-known/jwks.json`).
 *
 * The signing half lives in libs/runtime/src/jws.ts; libs/client (type:sdk) may
 * not import the runtime layer (eslint.config.mjs LAYERS), so canonicalJson and
 * verifyDetached are repeated here, rule for rule. apps/parley/test/
 * signatures.test.ts checks that both canonicalise alike and that this verifies
 * what that signs.
 */
import { createPublicKey, verify as edVerify, type KeyObject } from 'node:crypto';

export const PARLEY_JWS_TYP = 'parley-schema+jws';

/** A public key as the JWKS lists it (RFC 7517; RFC 8037 OKP/Ed25519). */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  use?: string;
  alg?: string;
}

export interface Jwks {
  keys: Jwk[];
}

export interface JwsHeader {
  alg: 'EdDSA';
  kid: string;
  typ: string;
  [member: string]: unknown;
}

export type VerifyFailure = 'malformed' | 'unsupported_alg' | 'wrong_typ' | 'unknown_kid' | 'bad_signature' | 'payload_not_json';

export type VerifyResult = { ok: true; kid: string; header: JwsHeader } | { ok: false; reason: VerifyFailure; message: string; kid?: string };

/** The canonical JSON text of a JSON value (RFC 8785): members sorted by UTF-16 code units, no whitespace. */
export function canonicalJson(value: unknown): string {
  const out = canonical(value);
  if (out === undefined) throw new TypeError('canonicalJson: the value is not JSON (undefined, a function or a symbol)');
  return out;
}

function canonical(v: unknown): string | undefined {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return JSON.stringify(v);
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError(`canonicalJson: ${String(v)} is not a JSON number`);
      return JSON.stringify(v);
    case 'bigint':
      throw new TypeError('canonicalJson: a BigInt is not a JSON number');
    case 'object': {
      if (Array.isArray(v)) return `[${v.map((x) => canonical(x) ?? 'null').join(',')}]`;
      const o = v as Record<string, unknown>;
      const members: string[] = [];
      for (const k of Object.keys(o).sort()) {
        const c = canonical(o[k]);
        if (c !== undefined) members.push(`${JSON.stringify(k)}:${c}`);
      }
      return `{${members.join(',')}}`;
    }
    default:
      return undefined;
  }
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function fromB64url(s: string): Buffer | undefined {
  if (!B64URL.test(s)) return undefined;
  const b = Buffer.from(s, 'base64url');
  return b.toString('base64url') === s ? b : undefined;
}

/** The protected header of a compact JWS, unverified (e.g. for its kid). */
export function jwsHeader(jws: string): JwsHeader | undefined {
  if (typeof jws !== 'string') return undefined;
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const raw = fromB64url(parts[0] as string);
  if (!raw) return undefined;
  try {
    const h = JSON.parse(raw.toString('utf8')) as unknown;
    return h !== null && typeof h === 'object' && !Array.isArray(h) ? (h as JwsHeader) : undefined;
  } catch {
    return undefined;
  }
}

/** Verifies a detached compact JWS over the canonical JSON of `payload` (only OKP/Ed25519 keys count). Never throws. */
export function verifyDetached(payload: unknown, jws: string, jwks: Jwks | readonly Jwk[]): VerifyResult {
  const no = (reason: VerifyFailure, message: string, kid?: string): VerifyResult => ({ ok: false, reason, message, ...(kid !== undefined ? { kid } : {}) });
  if (typeof jws !== 'string' || jws.length > 16_384) return no('malformed', 'the signature is not a compact JWS');
  const parts = jws.split('.');
  if (parts.length !== 3 || parts[1] !== '') return no('malformed', 'the signature is not a compact JWS with a detached payload (header..signature)');
  const [h64, , s64] = parts as [string, string, string];
  const header = jwsHeader(jws);
  if (!header) return no('malformed', 'the JWS header is not base64url JSON');
  if (header.alg !== 'EdDSA') return no('unsupported_alg', `the JWS alg is ${JSON.stringify(header.alg)}; only EdDSA (Ed25519) is accepted`);
  if (header.crit !== undefined || header.b64 !== undefined) return no('malformed', 'the JWS header carries crit or b64, which Parley does not use');
  if (header.typ !== PARLEY_JWS_TYP) return no('wrong_typ', `the JWS typ is ${JSON.stringify(header.typ)}, not ${PARLEY_JWS_TYP}`);
  if (typeof header.kid !== 'string' || header.kid === '') return no('malformed', 'the JWS header names no kid');
  const kid = header.kid;
  const sig = fromB64url(s64);
  if (!sig || sig.length !== 64) return no('malformed', 'the JWS signature is not 64 base64url-encoded bytes', kid);
  const list = Array.isArray(jwks) ? jwks : ((jwks as Jwks).keys ?? []);
  const jwk = list.find((k) => k && k.kid === kid && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk || typeof jwk.x !== 'string') return no('unknown_kid', `no Ed25519 key with kid "${kid}" in the JWKS`, kid);
  if ((jwk.use !== undefined && jwk.use !== 'sig') || (jwk.alg !== undefined && jwk.alg !== 'EdDSA')) return no('unknown_kid', `the key "${kid}" is not a signing key for EdDSA`, kid);
  let text: string;
  try {
    text = canonicalJson(payload);
  } catch (e) {
    return no('payload_not_json', `the signed object is not JSON: ${(e as Error).message}`, kid);
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  } catch {
    return no('unknown_kid', `the key "${kid}" in the JWKS is not a valid Ed25519 public key`, kid);
  }
  const ok = edVerify(null, Buffer.from(`${h64}.${Buffer.from(text).toString('base64url')}`, 'ascii'), key, sig);
  return ok ? { ok: true, kid, header } : no('bad_signature', `the signature (kid "${kid}") does not match the object`, kid);
}

/**
 * Verification against a JWKS that is either pinned (given) or fetched from the
 * gateway and cached; an unknown kid fetches it once more (a rotated key), one
 * fetch at a time. `check` never throws for a bad signature: it returns the result.
 */
export interface Verifier {
  check(payload: unknown, jws: string): Promise<VerifyResult>;
  jwks(): Promise<Jwks>;
}

export function createVerifier(source: { jwks: Jwks } | { fetchJwks: () => Promise<Jwks> }): Verifier {
  if ('jwks' in source) {
    const pinned = source.jwks;
    return { check: async (p, jws) => verifyDetached(p, jws, pinned), jwks: async () => pinned };
  }
  let cached: Jwks | undefined;
  let loading: Promise<Jwks> | undefined;
  const load = (): Promise<Jwks> => {
    loading ??= source
      .fetchJwks()
      .then((j) => {
        cached = j;
        return j;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };
  return {
    async check(payload, jws) {
      const had = cached;
      const first = verifyDetached(payload, jws, had ?? (await load()));
      if (first.ok || first.reason !== 'unknown_kid' || had === undefined) return first;
      // Rotation: a key published after our copy was fetched.
      return verifyDetached(payload, jws, await load());
    },
    jwks: async () => cached ?? load(),
  };
}

/** Checks that a fetched document is a JWKS (`{ keys: [...] }`). */
export function asJwks(doc: unknown): Jwks | undefined {
  if (doc === null || typeof doc !== 'object' || !Array.isArray((doc as { keys?: unknown }).keys)) return undefined;
  return { keys: ((doc as { keys: unknown[] }).keys).filter((k): k is Jwk => k !== null && typeof k === 'object' && typeof (k as Jwk).kty === 'string') };
}
