/**
 * Signed webhook bodies, as the Standard Webhooks specification
 * (https://www.standardwebhooks.com/) defines them. One implementation: the
 * execution service signs every task notification it delivers with
 * `signWebhook`, and receivers check them with `verifyWebhookSignature`.
 *
 * - Secret: `whsec_` + base64 of the key (Parley makes 32 random bytes per
 *   subscription, `generateWebhookSecret`); the HMAC key is the decoded bytes.
 *   Keys of 24 to 64 bytes are accepted, as the spec allows.
 * - Headers: `webhook-id` (the message id, the same on every retry: Parley
 *   uses `<task_id>:<seq>`), `webhook-timestamp` (integer unix seconds of the
 *   attempt) and `webhook-signature` (space-separated `v1,<base64>` entries).
 * - Signed content: `<webhook-id>.<webhook-timestamp>.<raw body>`,
 *   HMAC-SHA256. Verify the raw bytes as received, before parsing the JSON.
 * - A timestamp further than `toleranceS` (default 300 s) from the receiver's
 *   clock, either way, is refused: a captured request cannot be replayed
 *   later. Within the window, drop duplicates by `webhook-id`.
 *
 * Pure apart from `generateWebhookSecret`'s randomness (node:crypto only);
 * time is an input.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Bytes of the key Parley generates for each subscription. */
export const WEBHOOK_SECRET_BYTES = 32;
/** Default `toleranceS` of verifyWebhookSignature: five minutes, as the spec recommends. */
export const WEBHOOK_TOLERANCE_S = 300;

const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TIMESTAMP = /^[0-9]{1,12}$/;
const utf8 = new TextEncoder();

/** The three headers of a signed delivery (lower-case names). */
// A type literal (not an interface), so it passes as a header record (fetch init, Node's setHeader).
export type WebhookSignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** What a receiver got: a fetch `Headers`, Node's `req.headers`, or a plain record (names matched case-insensitively). */
export type WebhookHeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export type WebhookVerifyFailure =
  /** The secret is not `whsec_` + base64 of 24-64 bytes. */
  | 'invalid_secret'
  /** webhook-id, webhook-timestamp or webhook-signature is missing or empty. */
  | 'missing_header'
  /** webhook-timestamp is not integer unix seconds. */
  | 'invalid_timestamp'
  /** webhook-timestamp is further than the tolerance from now. */
  | 'timestamp_out_of_tolerance'
  /** No `v1` signature matches: wrong secret, or the id, timestamp or body changed. */
  | 'no_matching_signature';

export type WebhookVerification =
  | { readonly ok: true; readonly id: string; readonly timestamp: number }
  | { readonly ok: false; readonly reason: WebhookVerifyFailure; readonly header?: keyof WebhookSignatureHeaders };

/** A fresh secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(random: (bytes: number) => Uint8Array = randomBytes): string {
  return WEBHOOK_SECRET_PREFIX + Buffer.from(random(WEBHOOK_SECRET_BYTES)).toString('base64');
}

/** The HMAC key of a secret, or null when it is not `whsec_` + base64 of 24-64 bytes. */
function keyOf(secret: string): Buffer | null {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const b64 = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(b64)) return null;
  const key = Buffer.from(b64, 'base64');
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : null;
}

function mac(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', key)
    .update(utf8.encode(`${id}.${timestamp}.`))
    .update(typeof body === 'string' ? utf8.encode(body) : body)
    .digest('base64');
}

/**
 * Signs one delivery: the headers to send with `body` (exactly the bytes sent).
 * `timestamp` is unix seconds (integer) of this attempt. Throws on a malformed
 * secret or id (a programming error on the sender's side).
 */
export function signWebhook(secret: string, msg: { id: string; timestamp: number; body: string | Uint8Array }): WebhookSignatureHeaders {
  const key = keyOf(secret);
  if (!key) throw new TypeError(`A webhook secret is ${WEBHOOK_SECRET_PREFIX} followed by base64 of ${MIN_KEY_BYTES}-${MAX_KEY_BYTES} bytes`);
  if (msg.id === '' || /[\s,]/.test(msg.id)) throw new TypeError('A webhook id is non-empty, without spaces or commas');
  if (!Number.isSafeInteger(msg.timestamp) || msg.timestamp < 0) throw new TypeError('A webhook timestamp is integer unix seconds');
  const timestamp = String(msg.timestamp);
  return { 'webhook-id': msg.id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac(key, msg.id, timestamp, msg.body)}` };
}

function header(headers: WebhookHeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const rec = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let v = rec[name];
  if (v === undefined) {
    const k = Object.keys(rec).find((x) => x.toLowerCase() === name);
    v = k === undefined ? undefined : rec[k];
  }
  return Array.isArray(v) ? v.join(' ') : (v as string | undefined);
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks a delivery a receiver got: the headers, and the raw body exactly as
 * received (a string or its bytes, before any JSON parsing). `now` is the
 * receiver's clock (a Date or epoch milliseconds); a timestamp more than
 * `toleranceS` seconds before or after it fails. Passes when any `v1` entry of
 * webhook-signature matches (compared in constant time); other versions are
 * ignored. Never throws: answer 401 (or 400) when `ok` is false.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaderSource,
  rawBody: string | Uint8Array,
  opts: { now: Date | number; toleranceS?: number },
): WebhookVerification {
  const key = keyOf(secret);
  if (!key) return { ok: false, reason: 'invalid_secret' };
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sig = header(headers, 'webhook-signature');
  for (const [name, v] of [['webhook-id', id], ['webhook-timestamp', ts], ['webhook-signature', sig]] as const) {
    if (v === undefined || v.trim() === '') return { ok: false, reason: 'missing_header', header: name };
  }
  if (!TIMESTAMP.test(ts!)) return { ok: false, reason: 'invalid_timestamp', header: 'webhook-timestamp' };
  const timestamp = Number(ts);
  const nowS = Math.floor((typeof opts.now === 'number' ? opts.now : opts.now.getTime()) / 1000);
  const tolerance = opts.toleranceS ?? WEBHOOK_TOLERANCE_S;
  if (!(Math.abs(nowS - timestamp) <= tolerance)) return { ok: false, reason: 'timestamp_out_of_tolerance', header: 'webhook-timestamp' };
  const expected = mac(key, id!, ts!, rawBody);
  let matched = false;
  for (const entry of sig!.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    // No early exit: every entry is compared, so timing does not tell which one matched.
    if (sameString(entry.slice(comma + 1), expected)) matched = true;
  }
  return matched ? { ok: true, id: id!, timestamp } : { ok: false, reason: 'no_matching_signature', header: 'webhook-signature' };
}
