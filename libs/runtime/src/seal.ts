/**
 * Sealing data at rest (draft-zhou §7: personal information "MUST [be
 * protected] in transit and at rest"). AES-256-GCM from node:crypto:
 *
 * - a fresh random 96-bit IV per message, the 128-bit tag checked on open;
 * - an envelope that is plain text, so it fits a `text` column:
 *   `psl1.<kid>.<iv, base64url>.<ciphertext and tag, base64url>`;
 * - the key id travels in the envelope, so keys can rotate: the sealer seals
 *   with its active (first) key and opens with any key it holds. To rotate,
 *   put the new key first and keep the old one listed until nothing sealed
 *   with it is left;
 * - additional authenticated data: the envelope's header (`psl1.<kid>`) and an
 *   optional caller context (e.g. the row's identity), so an envelope moved to
 *   another row, or its key id edited, does not open.
 *
 * Keys: 32 random bytes, base64 (or base64url), e.g. `openssl rand -base64 32`.
 * A key spec is a comma-separated list of `[kid:]key`, active key first; a key
 * without a kid gets `k` + 8 hex digits of a SHA-256 fingerprint of the key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from './config';

const VERSION = 'psl1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,32}$/;
const ENVELOPE = /^psl1\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

export interface DataKey {
  readonly kid: string;
  /** 32 bytes. */
  readonly key: Buffer;
}

export type SealFailure = 'malformed' | 'unknown_key' | 'bad_seal';

/** An envelope that cannot be opened: not an envelope, a key the sealer does not hold, or tampered with (or the wrong context). */
export class SealError extends Error {
  override readonly name = 'SealError';
  constructor(
    readonly reason: SealFailure,
    message: string,
    readonly kid?: string,
  ) {
    super(message);
  }
}

export interface Sealer {
  /** The id of the key new envelopes are sealed with. */
  readonly kid: string;
  /** Every key id it can open. */
  readonly kids: readonly string[];
  /** True for a key made up at start (embedded mode): what it seals is unreadable after a restart. */
  readonly ephemeral: boolean;
  seal(plaintext: string, context?: string): string;
  /** Throws SealError. */
  open(envelope: string, context?: string): string;
  /** The key id an envelope names, or null when it is not an envelope. */
  kidOf(envelope: string): string | null;
}

/** The default key id of a key: `k` and 8 hex digits of a SHA-256 fingerprint (reveals nothing of the key). */
export function dataKeyId(key: Buffer): string {
  return `k${createHash('sha256').update('parley-data-key\0').update(key).digest('hex').slice(0, 8)}`;
}

/** A random key (embedded mode, tests). */
export function generateDataKey(kid?: string): DataKey {
  const key = randomBytes(KEY_BYTES);
  return { kid: checkKid(kid ?? dataKeyId(key)), key };
}

/** Parses `[kid:]base64[,[kid:]base64...]` (active key first). Throws ConfigError naming `name`. */
export function parseDataKeys(spec: string, name = 'PARLEY_DATA_KEY'): DataKey[] {
  const parts = spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new ConfigError(`${name} is empty`);
  const keys = parts.map((p, i) => {
    const colon = p.indexOf(':');
    const kid = colon >= 0 ? p.slice(0, colon).trim() : undefined;
    const b64 = (colon >= 0 ? p.slice(colon + 1) : p).trim();
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw new ConfigError(`${name} key ${i + 1} is not base64 (32 random bytes, e.g. openssl rand -base64 32)`);
    const key = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length !== KEY_BYTES) throw new ConfigError(`${name} key ${i + 1} must be ${KEY_BYTES} bytes (base64 of 32 random bytes, e.g. openssl rand -base64 32), got ${key.length}`);
    if (kid !== undefined && !KID.test(kid)) throw new ConfigError(`${name} key ${i + 1}: the key id must be 1-32 of A-Z a-z 0-9 _ -, got "${kid}"`);
    return { kid: kid ?? dataKeyId(key), key };
  });
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k.kid)) throw new ConfigError(`${name}: key id "${k.kid}" appears twice`);
    seen.add(k.kid);
  }
  return keys;
}

/** A sealer over `keys` (the first seals; all open). */
export function createSealer(keys: readonly DataKey[], opts: { ephemeral?: boolean } = {}): Sealer {
  if (keys.length === 0) throw new TypeError('createSealer: at least one key');
  const byKid = new Map<string, Buffer>();
  for (const k of keys) {
    checkKid(k.kid);
    if (!Buffer.isBuffer(k.key) || k.key.length !== KEY_BYTES) throw new TypeError(`createSealer: key "${k.kid}" must be ${KEY_BYTES} bytes`);
    if (byKid.has(k.kid)) throw new TypeError(`createSealer: key id "${k.kid}" appears twice`);
    byKid.set(k.kid, Buffer.from(k.key));
  }
  const active = keys[0] as DataKey;
  const aad = (kid: string, context: string | undefined): Buffer => Buffer.from(`${VERSION}.${kid}\0${context ?? ''}`, 'utf8');
  return {
    kid: active.kid,
    kids: [...byKid.keys()],
    ephemeral: opts.ephemeral ?? false,
    seal(plaintext, context) {
      if (typeof plaintext !== 'string') throw new TypeError('seal: plaintext must be a string');
      const iv = randomBytes(IV_BYTES);
      const c = createCipheriv('aes-256-gcm', byKid.get(active.kid) as Buffer, iv);
      c.setAAD(aad(active.kid, context));
      const body = Buffer.concat([c.update(plaintext, 'utf8'), c.final(), c.getAuthTag()]);
      return `${VERSION}.${active.kid}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(envelope, context) {
      const m = typeof envelope === 'string' ? ENVELOPE.exec(envelope) : null;
      if (!m) throw new SealError('malformed', 'not a sealed envelope (psl1.<kid>.<iv>.<data>)');
      const [, kid, ivText, bodyText] = m as unknown as [string, string, string, string];
      const key = byKid.get(kid);
      if (!key) throw new SealError('unknown_key', `sealed with key "${kid}", which this process does not hold`, kid);
      const iv = Buffer.from(ivText, 'base64url');
      const body = Buffer.from(bodyText, 'base64url');
      if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SealError('malformed', 'truncated envelope', kid);
      try {
        const d = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        d.setAAD(aad(kid, context));
        d.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([d.update(body.subarray(0, body.length - TAG_BYTES)), d.final()]).toString('utf8');
      } catch {
        throw new SealError('bad_seal', 'the envelope does not authenticate (tampered with, or another context)', kid);
      }
    },
    kidOf(envelope) {
      const m = typeof envelope === 'string' ? ENVELOPE.exec(envelope) : null;
      return m ? (m[1] as string) : null;
    },
  };
}

/**
 * The sealer named by an environment variable (default PARLEY_DATA_KEY), or
 * undefined when it is unset or empty. Throws ConfigError on a bad value.
 */
export function sealerFromEnv(env: Readonly<Record<string, string | undefined>>, name = 'PARLEY_DATA_KEY'): Sealer | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  return createSealer(parseDataKeys(v, name));
}

/** A sealer with a key made up now (embedded mode without a configured key). */
export function ephemeralSealer(): Sealer {
  return createSealer([generateDataKey()], { ephemeral: true });
}

function checkKid(kid: string): string {
  if (!KID.test(kid)) throw new TypeError(`key id must be 1-32 of A-Z a-z 0-9 _ -, got "${kid}"`);
  return kid;
}
