/**
 * Verifying Parley's signed schema messages (draft-zhou §7: "Schema negotiation
 * and update messages MUST be integrity-protected"), for every side that checks
 * a signature: the client SDK, services, tests. Signing and key rings live in
 * libs/runtime (jws.ts), which imports this half.
 *
 * - Canonical JSON (RFC 8785 JCS): members sorted by UTF-16 code units, no
 *   whitespace, strings and numbers as ECMAScript's JSON.stringify writes them;
 *   `undefined` members are left out as JSON does; non-finite numbers refused.
 * - Compact JWS with a detached payload (RFC 7515 Appendix F):
 *   `<b64url header>..<b64url signature>` over `<b64url header>.<b64url payload>`,
 *   the payload being the canonical JSON of the object as served.
 * - Ed25519 only (RFC 8037: `alg` EdDSA, JWK `kty` OKP, `crv` Ed25519); any other
 *   algorithm, `crit`, `b64` or another `typ` is refused.
 */
import { createPublicKey, verify as edVerify, type KeyObject } from 'node:crypto';

/** The JWS `typ` of every Parley signature (RFC 7515 §4.1.9). */
export const PARLEY_JWS_TYP = 'parley-schema+jws';

/** A public Ed25519 key as published in the JWKS (RFC 7517, RFC 8037). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The public key, base64url. */
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

export interface Jwks {
  keys: PublicJwk[];
}

/** Any JWK as a fetched JWKS may list it; verification uses only OKP/Ed25519 signing keys. */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  kid?: string;
  use?: string;
  alg?: string;
}

/** The protected header of a Parley JWS; further members are signed context (e.g. `parley` on templates). */
export interface JwsHeader {
  alg: 'EdDSA';
  kid: string;
  typ: string;
  [member: string]: unknown;
}

export type VerifyFailure = 'malformed' | 'unsupported_alg' | 'wrong_typ' | 'unknown_kid' | 'bad_signature' | 'payload_not_json';

export type VerifyResult = { ok: true; kid: string; header: JwsHeader } | { ok: false; reason: VerifyFailure; message: string; kid?: string };

// ---------------------------------------------------------------------------
// Canonical JSON (RFC 8785)

/** The canonical JSON text of a JSON value (RFC 8785): sorted members, no whitespace. Throws TypeError on what JSON cannot hold. */
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
      return JSON.stringify(v); // ECMAScript Number::toString, as RFC 8785 §3.2.2.3 requires; -0 becomes 0
    case 'bigint':
      throw new TypeError('canonicalJson: a BigInt is not a JSON number');
    case 'object': {
      if (Array.isArray(v)) return `[${v.map((x) => canonical(x) ?? 'null').join(',')}]`;
      const o = v as Record<string, unknown>;
      const members: string[] = [];
      // Default sort compares UTF-16 code units, the order RFC 8785 §3.2.3 prescribes.
      for (const k of Object.keys(o).sort()) {
        const c = canonical(o[k]);
        if (c !== undefined) members.push(`${JSON.stringify(k)}:${c}`);
      }
      return `{${members.join(',')}}`;
    }
    default:
      return undefined; // undefined, function, symbol: left out of objects, null in arrays (as JSON.stringify)
  }
}

// ---------------------------------------------------------------------------
// JWS with detached payload (RFC 7515 Appendix F)

const B64URL = /^[A-Za-z0-9_-]*$/;

export function b64url(b: Buffer | string): string {
  return Buffer.from(b).toString('base64url');
}

/** Strict base64url decoding: only the alphabet, no padding, and the canonical encoding of what it decodes to. */
function fromB64url(s: string): Buffer | undefined {
  if (!B64URL.test(s)) return undefined;
  const b = Buffer.from(s, 'base64url');
  return b.toString('base64url') === s ? b : undefined;
}

/** Reads the protected header of a compact JWS without verifying anything (for the kid, before the keys are at hand). */
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

/**
 * Verifies a detached compact JWS over the canonical JSON of `payload` against
 * the keys of `jwks` (only OKP/Ed25519 keys count). Never throws.
 */
export function verifyDetached(payload: unknown, jws: string, jwks: { readonly keys: readonly Jwk[] } | readonly Jwk[]): VerifyResult {
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
  const jwk = (Array.isArray(jwks) ? (jwks as readonly Jwk[]) : ((jwks as { readonly keys: readonly Jwk[] }).keys ?? [])).find((k) => k && k.kid === kid && k.kty === 'OKP' && k.crv === 'Ed25519');
  if (!jwk) return no('unknown_kid', `no Ed25519 key with kid "${kid}" in the JWKS`, kid);
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
  const ok = edVerify(null, Buffer.from(`${h64}.${b64url(text)}`, 'ascii'), key, sig);
  return ok ? { ok: true, kid, header } : no('bad_signature', `the signature (kid "${kid}") does not match the object`, kid);
}
