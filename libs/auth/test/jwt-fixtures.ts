/**
 * Test keys and a small compact-JWS signer (RFC 7515 §7.1) for the JWT tests.
 * Nothing here is used by the code under test: tokens are minted independently
 * with node:crypto so a verifier bug cannot hide behind a shared helper.
 */
import { createHmac, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JwtAlgorithm } from '../src/jwt';

export interface TestKey {
  alg: JwtAlgorithm;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public JWK with kid, use and alg, as a JWKS would list it. */
  jwk: JsonWebKey;
}

/** A fresh key pair for `alg` (Ed25519, P-256 or RSA-2048). */
export function makeKey(alg: JwtAlgorithm, kid: string): TestKey {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg };
  return { alg, kid, privateKey: pair.privateKey, publicKey: pair.publicKey, jwk };
}

export const b64 = (v: string | Buffer): string => Buffer.from(v).toString('base64url');
export const b64json = (v: unknown): string => b64(JSON.stringify(v));

/** Signs `signingInput` (ASCII `<header>.<payload>`) the way RFC 7518 / RFC 8037 prescribe for `alg`. */
export function rawSignature(alg: JwtAlgorithm, key: KeyObject, signingInput: string): Buffer {
  const data = Buffer.from(signingInput, 'ascii');
  if (alg === 'EdDSA') return sign(null, data, key);
  if (alg === 'ES256') return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  return sign('sha256', data, key);
}

/**
 * A compact JWS over `claims`, signed with `key`. `header` members override
 * the default `{ alg, typ: 'JWT', kid }` (set a member to undefined to drop it).
 */
export function mint(key: TestKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const h = { alg: key.alg, typ: 'JWT', kid: key.kid, ...header };
  const input = `${b64json(h)}.${b64json(claims)}`;
  return `${input}.${b64(rawSignature(key.alg, key.privateKey, input))}`;
}

/** An unsigned token (`alg: none`, RFC 7519 §6). */
export function mintUnsigned(claims: Record<string, unknown>, kid?: string): string {
  return `${b64json({ alg: 'none', typ: 'JWT', ...(kid ? { kid } : {}) })}.${b64json(claims)}.`;
}

/** The algorithm-confusion forgery: HS256 with the issuer's public key (PEM) as the HMAC secret. */
export function mintHs256WithPublicKey(key: TestKey, claims: Record<string, unknown>): string {
  const input = `${b64json({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64json(claims)}`;
  const secret = key.publicKey.export({ format: 'pem', type: 'spki' });
  return `${input}.${b64(createHmac('sha256', secret).update(input).digest())}`;
}

/** Replaces the payload of a signed token, keeping its header and signature (tampering after signing). */
export function withPayload(token: string, claims: Record<string, unknown>): string {
  const [h, , s] = token.split('.');
  return `${h}.${b64json(claims)}.${s}`;
}

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public ms: number) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
  /** Now as a JWT NumericDate (seconds). */
  get s(): number {
    return Math.floor(this.ms / 1000);
  }
}
