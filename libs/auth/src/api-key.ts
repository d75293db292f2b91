import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys (draft-zhou §7: hashed at rest, scoped, revocable). A key reads
 * `pk_<key_id>_<secret>`: `key_id` (16 hex) finds the stored row, `secret` is
 * 32 random bytes in base64url. Only SHA-256(secret) is stored: the secret has
 * 256 bits of entropy, so a fast hash is enough (a slow password hash protects
 * guessable secrets, which these are not), and the comparison is constant time.
 */
export const API_KEY_PATTERN = /^pk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface MintedApiKey {
  /** The whole key, shown once to whoever created it. */
  key: string;
  key_id: string;
  /** SHA-256 of the secret, hex: what is stored. */
  secret_hash: string;
}

export function mintApiKey(random: (n: number) => Buffer = randomBytes): MintedApiKey {
  const key_id = random(8).toString('hex');
  const secret = random(32).toString('base64url');
  return { key: `pk_${key_id}_${secret}`, key_id, secret_hash: hashSecret(secret) };
}

/** Splits a key into its id and secret; undefined when it is not an API key's shape. */
export function parseApiKey(key: string): { key_id: string; secret: string } | undefined {
  const m = API_KEY_PATTERN.exec(key);
  return m ? { key_id: m[1] as string, secret: m[2] as string } : undefined;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time check of `secret` against a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What an API key grants (stored beside its hash). */
export interface ApiKeyScope {
  principal: string;
  tenant: string;
  roles: string[];
  agents: string[];
  scenarios: string[];
}

/** RFC 6750 §2.1: `Bearer <b64token>`; returns the credential, or undefined when the header is another scheme or malformed. */
export function bearerCredential(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  return m ? m[1] : undefined;
}
