/**
 * Signed schema messages (draft-zhou §7: "Schema negotiation and update messages
 * MUST be integrity-protected to prevent man-in-the-middle attacks that could
 * inject malicious keys or semantic descriptions").
 *
 * - Canonical JSON (RFC 8785 JCS): members sorted by UTF-16 code units, no
 *   whitespace, strings and numbers as ECMAScript's JSON.stringify writes them
 *   (which is what JCS prescribes); `undefined` members are left out as JSON
 *   does; non-finite numbers are refused.
 * - Compact JWS with a detached payload (RFC 7515 Appendix F): the signature is
 *   `<b64url header>..<b64url signature>` over `<b64url header>.<b64url payload>`,
 *   where the payload is the canonical JSON of the object as served. The object
 *   travels as plain JSON beside it; whoever re-serialises it (gRPC, the
 *   gateway) cannot break the signature, because the verifier canonicalises again.
 * - Ed25519 only (RFC 8037: `alg` EdDSA, JWK `kty` OKP, `crv` Ed25519); a header
 *   naming any other algorithm, carrying `crit`, or of another `typ` is refused
 *   (no algorithm confusion, no `none`).
 * - Key ring: one active key signs; previous keys stay published for
 *   verification until removed (rotation). Key ids are the JWK's `kid` or its
 *   RFC 7638 thumbprint.
 *
 * The verify half (canonical JSON, header parsing, verification) is in
 * libs/protocol (jws.ts), shared with the client SDK; this file signs and keeps keys.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign as edSign, type KeyObject } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PARLEY_JWS_TYP, b64url, canonicalJson, verifyDetached, type Jwks, type PublicJwk, type VerifyResult } from '@parley/protocol';
import { ConfigError } from './config';
import type { Logger } from './logger';

export { PARLEY_JWS_TYP, canonicalJson, jwsHeader, verifyDetached, type JwsHeader, type Jwks, type PublicJwk, type VerifyFailure, type VerifyResult } from '@parley/protocol';

/** A key that can sign. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/**
 * Signs the canonical JSON of `payload` and returns a compact JWS with the payload
 * detached: `<header>..<signature>`. `context` members are added to the protected
 * header (signed with it); they may not replace alg, kid, typ, crit or b64.
 */
export function signDetached(payload: unknown, key: SigningKey, context: Record<string, unknown> = {}): string {
  for (const m of ['alg', 'kid', 'typ', 'crit', 'b64']) {
    if (m in context) throw new TypeError(`signDetached: the context may not set "${m}"`);
  }
  const header = b64url(JSON.stringify({ alg: 'EdDSA', kid: key.kid, typ: PARLEY_JWS_TYP, ...context }));
  const input = `${header}.${b64url(canonicalJson(payload))}`;
  return `${header}..${b64url(edSign(null, Buffer.from(input, 'ascii'), key.privateKey))}`;
}

// ---------------------------------------------------------------------------
// Keys

/** The RFC 7638 JWK thumbprint of an Ed25519 public key (SHA-256, base64url). */
export function jwkThumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

function publicX(k: KeyObject): string {
  const jwk = k.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('not an Ed25519 key');
  return jwk.x;
}

/** A fresh Ed25519 key; its kid is its thumbprint unless given. */
export function generateSigningKey(kid?: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid: kid ?? jwkThumbprint(publicX(publicKey)), privateKey, publicKey };
}

/** A key read from a JWK (private when it has `d`) or PEM text (PKCS#8 private or SPKI public). */
export type LoadedKey = { kind: 'private'; key: SigningKey } | { kind: 'public'; kid: string; publicKey: KeyObject };

/** Parses one key: a JWK object or JSON text, or PEM. `kid` overrides the JWK's own and the thumbprint. */
export function parseKey(source: string | Record<string, unknown>, kid?: string): LoadedKey {
  if (typeof source === 'string' && source.trimStart().startsWith('-----BEGIN')) {
    if (/-----BEGIN (?:ENCRYPTED )?PRIVATE KEY-----/.test(source)) {
      const privateKey = createPrivateKey(source);
      const publicKey = createPublicKey(privateKey);
      const x = publicX(publicKey);
      return { kind: 'private', key: { kid: kid ?? jwkThumbprint(x), privateKey, publicKey } };
    }
    const publicKey = createPublicKey(source);
    return { kind: 'public', kid: kid ?? jwkThumbprint(publicX(publicKey)), publicKey };
  }
  const jwk = (typeof source === 'string' ? JSON.parse(source) : source) as Record<string, unknown>;
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new TypeError('the JWK is not an Ed25519 key (kty OKP, crv Ed25519, x)');
  if (jwk.alg !== undefined && jwk.alg !== 'EdDSA') throw new TypeError(`the JWK's alg is ${String(jwk.alg)}, not EdDSA`);
  const id = kid ?? (typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : jwkThumbprint(jwk.x));
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  if (typeof jwk.d !== 'string') return { kind: 'public', kid: id, publicKey };
  const privateKey = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, format: 'jwk' });
  if (publicX(createPublicKey(privateKey)) !== jwk.x) throw new TypeError('the JWK\'s d does not match its x');
  return { kind: 'private', key: { kid: id, privateKey, publicKey } };
}

export interface KeyRing {
  /** The key that signs now. */
  readonly activeKid: string;
  /** True when the active key was generated at start (nothing configured): it dies with the process. */
  readonly ephemeral: boolean;
  /** Signs with the active key (see signDetached). */
  sign(payload: unknown, context?: Record<string, unknown>): string;
  /** Verifies against every key of the ring (active and previous). */
  verify(payload: unknown, jws: string): VerifyResult;
  /** The public keys, active first: what `/.well-known/jwks.json` serves. */
  jwks(): Jwks;
  /** Makes `next` (default: a new generated key) the active key; the old one stays for verification. */
  rotate(next?: SigningKey): SigningKey;
  /** Drops a previous key (its signatures no longer verify). The active key cannot be removed. */
  remove(kid: string): boolean;
}

export interface KeyRingOptions {
  /** The signing key; generated (ephemeral) when absent. */
  active?: SigningKey;
  /** Keys kept for verification only (previous keys, or their public halves). */
  previous?: ReadonlyArray<SigningKey | { kid: string; publicKey: KeyObject }>;
}

export function createKeyRing(opts: KeyRingOptions = {}): KeyRing {
  let active = opts.active ?? generateSigningKey();
  const ephemeral = opts.active === undefined;
  /** kid → public JWK, insertion order; the active key is in it too. */
  const published = new Map<string, PublicJwk>();
  const publish = (kid: string, publicKey: KeyObject) => {
    const jwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: publicX(publicKey), kid, use: 'sig', alg: 'EdDSA' };
    const had = published.get(kid);
    if (had && had.x !== jwk.x) throw new ConfigError(`two different signing keys share the kid "${kid}"`);
    published.set(kid, jwk);
  };
  for (const p of opts.previous ?? []) publish(p.kid, p.publicKey);
  publish(active.kid, active.publicKey);
  return {
    get activeKid() {
      return active.kid;
    },
    ephemeral,
    sign: (payload, context) => signDetached(payload, active, context),
    verify: (payload, jws) => verifyDetached(payload, jws, [...published.values()]),
    jwks() {
      const first = published.get(active.kid) as PublicJwk;
      return { keys: [first, ...[...published.values()].filter((k) => k.kid !== active.kid)].map((k) => ({ ...k })) };
    },
    rotate(next) {
      const key = next ?? generateSigningKey();
      publish(key.kid, key.publicKey);
      active = key;
      return key;
    },
    remove(kid) {
      if (kid === active.kid) throw new Error(`the active signing key "${kid}" cannot be removed; rotate first`);
      return published.delete(kid);
    },
  };
}

type Env = Record<string, string | undefined>;

/**
 * The key ring a service signs with, from the environment:
 * - `PARLEY_SIGNING_KEYS_DIR`: a directory of key files (`*.pem`: PKCS#8 private or
 *   SPKI public; `*.jwk`, `*.json`: a JWK or a JWK Set). Private keys can sign,
 *   public ones only verify. The active key is `PARLEY_SIGNING_ACTIVE_KID`, else the
 *   private key of the last file in name order (name files by date to rotate:
 *   add the new file, restart; the old one stays for verification until deleted);
 * - or `PARLEY_SIGNING_KEY`: one private JWK, or a JWK Set (JSON text), or PEM;
 * - neither: a generated key, logged as ephemeral (signatures stop verifying after
 *   a restart, and replicas would each have their own: configure keys in production).
 * Key ids: the JWK's `kid`, else its RFC 7638 thumbprint.
 */
export function loadKeyRing(env: Env, log?: Logger): KeyRing {
  const dir = env.PARLEY_SIGNING_KEYS_DIR || undefined;
  const inline = env.PARLEY_SIGNING_KEY || undefined;
  const wanted = env.PARLEY_SIGNING_ACTIVE_KID || undefined;
  if (dir && inline) throw new ConfigError('Set PARLEY_SIGNING_KEYS_DIR or PARLEY_SIGNING_KEY, not both');
  const loaded: Array<{ from: string; key: LoadedKey }> = [];
  const add = (from: string, source: string | Record<string, unknown>) => {
    try {
      loaded.push({ from, key: parseKey(source) });
    } catch (e) {
      throw new ConfigError(`${from}: not an Ed25519 key (${(e as Error).message})`);
    }
  };
  const addText = (from: string, text: string) => {
    if (text.trimStart().startsWith('-----BEGIN')) {
      const blocks = text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g) ?? [];
      if (blocks.length === 0) throw new ConfigError(`${from}: no PEM block`);
      for (const b of blocks) add(from, b);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ConfigError(`${from}: neither PEM nor JSON`);
    }
    const set = json !== null && typeof json === 'object' && Array.isArray((json as { keys?: unknown }).keys) ? ((json as { keys: unknown[] }).keys as Record<string, unknown>[]) : [json as Record<string, unknown>];
    for (const [i, k] of set.entries()) add(set.length > 1 ? `${from} keys[${i}]` : from, k);
  };
  if (dir) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => !n.startsWith('.') && /\.(pem|jwk|json)$/i.test(n)).sort();
    } catch (e) {
      throw new ConfigError(`PARLEY_SIGNING_KEYS_DIR ${dir} cannot be read (${(e as Error).message})`);
    }
    for (const n of names) {
      const path = join(dir, n);
      if (!statSync(path).isFile()) continue;
      addText(`PARLEY_SIGNING_KEYS_DIR/${n}`, readFileSync(path, 'utf8'));
    }
    if (loaded.length === 0) throw new ConfigError(`PARLEY_SIGNING_KEYS_DIR ${dir} holds no key files (*.pem, *.jwk, *.json)`);
  } else if (inline) {
    addText('PARLEY_SIGNING_KEY', inline);
  } else {
    if (wanted) throw new ConfigError('PARLEY_SIGNING_ACTIVE_KID is set but no keys are configured (PARLEY_SIGNING_KEYS_DIR or PARLEY_SIGNING_KEY)');
    const ring = createKeyRing();
    log?.warn('signing with an ephemeral key generated at start: signatures stop verifying after a restart and differ between replicas; set PARLEY_SIGNING_KEYS_DIR or PARLEY_SIGNING_KEY', {
      kid: ring.activeKid,
    });
    return ring;
  }
  const privates = loaded.filter((l): l is { from: string; key: { kind: 'private'; key: SigningKey } } => l.key.kind === 'private');
  let active: SigningKey | undefined;
  if (wanted) {
    active = privates.find((p) => p.key.key.kid === wanted)?.key.key;
    if (!active) throw new ConfigError(`PARLEY_SIGNING_ACTIVE_KID "${wanted}" names no private key among the configured keys`);
  } else {
    active = privates.at(-1)?.key.key;
    if (!active) throw new ConfigError('No private signing key configured (only public keys)');
  }
  const chosen = active;
  const previous = loaded
    .map((l) => (l.key.kind === 'private' ? l.key.key : { kid: l.key.kid, publicKey: l.key.publicKey }))
    .filter((k) => k !== chosen);
  const ring = createKeyRing({ active: chosen, previous });
  log?.info('signing key ring loaded', { active_kid: ring.activeKid, kids: ring.jwks().keys.map((k) => k.kid) });
  return ring;
}
