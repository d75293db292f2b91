/** Signed webhook deliveries (Standard Webhooks): the one signer the execution service uses, and the receivers' verifier. */
import { describe, expect, it } from 'vitest';
import { WEBHOOK_SECRET_PREFIX, WEBHOOK_TOLERANCE_S, generateWebhookSecret, signWebhook, verifyWebhookSignature } from '@parley/an';

// The test vector of the Standard Webhooks specification (and its reference libraries).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const vectorHeaders = { 'webhook-id': VECTOR.id, 'webhook-timestamp': String(VECTOR.timestamp), 'webhook-signature': VECTOR.signature };
const atVector = { now: VECTOR.timestamp * 1000 };

const T = 1_780_000_000; // unix seconds
const SECRET = generateWebhookSecret();
const BODY = '{"task_id":"t-1","seq":3,"status":"processing","previous_status":"created","subscription_id":"s-1"}';

function signed(over: { secret?: string; id?: string; timestamp?: number; body?: string } = {}) {
  return signWebhook(over.secret ?? SECRET, { id: over.id ?? 't-1:3', timestamp: over.timestamp ?? T, body: over.body ?? BODY });
}

describe('signWebhook and verifyWebhookSignature against the specification', () => {
  it('reproduces the reference signature and verifies it', () => {
    expect(signWebhook(VECTOR.secret, { id: VECTOR.id, timestamp: VECTOR.timestamp, body: VECTOR.body })).toEqual(vectorHeaders);
    expect(verifyWebhookSignature(VECTOR.secret, vectorHeaders, VECTOR.body, atVector)).toEqual({ ok: true, id: VECTOR.id, timestamp: VECTOR.timestamp });
  });

  it('signs the raw bytes: a Uint8Array body verifies like its string', () => {
    expect(verifyWebhookSignature(VECTOR.secret, vectorHeaders, new TextEncoder().encode(VECTOR.body), atVector).ok).toBe(true);
    const nonAscii = '{"note":"débit coupé — 光纤"}';
    const h = signed({ body: nonAscii });
    expect(verifyWebhookSignature(SECRET, h, Buffer.from(nonAscii, 'utf8'), { now: T * 1000 }).ok).toBe(true);
  });
});

describe('secrets', () => {
  it('are whsec_ + base64 of 32 random bytes, a new one each time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(generateWebhookSecret((n) => new Uint8Array(n).fill(7))).toBe(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
  });

  it('a malformed secret cannot sign and never verifies', () => {
    for (const bad of ['', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_', 'whsec_not base64!', `whsec_${Buffer.alloc(16).toString('base64')}`, `whsec_${Buffer.alloc(65).toString('base64')}`]) {
      expect(() => signWebhook(bad, { id: 'x:1', timestamp: T, body: '{}' }), bad).toThrow(TypeError);
      expect(verifyWebhookSignature(bad, signed(), BODY, { now: T * 1000 }), bad).toEqual({ ok: false, reason: 'invalid_secret' });
    }
  });

  it('signing refuses an id with spaces or commas and a timestamp that is not integer seconds', () => {
    expect(() => signed({ id: 'a b' })).toThrow(TypeError);
    expect(() => signed({ id: 'a,b' })).toThrow(TypeError);
    expect(() => signed({ timestamp: 1.5 })).toThrow(TypeError);
    expect(() => signed({ timestamp: -1 })).toThrow(TypeError);
  });
});

describe('verification', () => {
  const now = { now: T * 1000 };

  it('passes a delivery signed with the secret', () => {
    expect(verifyWebhookSignature(SECRET, signed(), BODY, now)).toEqual({ ok: true, id: 't-1:3', timestamp: T });
  });

  it('fails when the body, the id or the timestamp changed in transit, or the secret is another', () => {
    const h = signed();
    const tampered = BODY.replace('"processing"', '"finished"');
    expect(tampered).not.toBe(BODY);
    expect(verifyWebhookSignature(SECRET, h, tampered, now)).toEqual({ ok: false, reason: 'no_matching_signature', header: 'webhook-signature' });
    expect(verifyWebhookSignature(SECRET, h, `${BODY} `, now).ok).toBe(false);
    expect(verifyWebhookSignature(SECRET, { ...h, 'webhook-id': 't-1:4' }, BODY, now)).toMatchObject({ ok: false, reason: 'no_matching_signature' });
    expect(verifyWebhookSignature(SECRET, { ...h, 'webhook-timestamp': String(T + 1) }, BODY, now)).toMatchObject({ ok: false, reason: 'no_matching_signature' });
    expect(verifyWebhookSignature(generateWebhookSecret(), h, BODY, now)).toMatchObject({ ok: false, reason: 'no_matching_signature' });
  });

  it('accepts any matching v1 entry of a space-separated list and ignores other versions', () => {
    const good = signed()['webhook-signature'];
    const other = signWebhook(generateWebhookSecret(), { id: 't-1:3', timestamp: T, body: BODY })['webhook-signature'];
    expect(verifyWebhookSignature(SECRET, { ...signed(), 'webhook-signature': `${other} ${good}` }, BODY, now).ok).toBe(true);
    expect(verifyWebhookSignature(SECRET, { ...signed(), 'webhook-signature': `${other} v1a,${good.slice(3)}` }, BODY, now).ok).toBe(false);
    expect(verifyWebhookSignature(SECRET, { ...signed(), 'webhook-signature': good.slice(3) }, BODY, now).ok).toBe(false);
  });

  it('reads fetch Headers and Node request headers, names in any case', () => {
    const h = signed();
    expect(verifyWebhookSignature(SECRET, new Headers(h), BODY, now).ok).toBe(true);
    const node = { 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'webhook-signature': [h['webhook-signature']] };
    expect(verifyWebhookSignature(SECRET, node, BODY, now).ok).toBe(true);
  });

  it('names the missing or malformed header', () => {
    const h = signed();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = h;
      expect(verifyWebhookSignature(SECRET, rest, BODY, now)).toEqual({ ok: false, reason: 'missing_header', header: name });
      expect(verifyWebhookSignature(SECRET, { ...h, [name]: ' ' }, BODY, now)).toEqual({ ok: false, reason: 'missing_header', header: name });
    }
    for (const ts of ['1780000000.5', '-1780000000', 'soon', '2026-05-01T00:00:00Z']) {
      expect(verifyWebhookSignature(SECRET, { ...h, 'webhook-timestamp': ts }, BODY, now), ts).toEqual({ ok: false, reason: 'invalid_timestamp', header: 'webhook-timestamp' });
    }
  });
});

describe('timestamp tolerance (replay protection)', () => {
  const at = (offsetS: number, toleranceS?: number) =>
    verifyWebhookSignature(SECRET, signed(), BODY, { now: new Date((T + offsetS) * 1000), ...(toleranceS !== undefined ? { toleranceS } : {}) });

  it('accepts up to five minutes either way by default, and not a second more', () => {
    expect(WEBHOOK_TOLERANCE_S).toBe(300);
    expect(at(300).ok).toBe(true);
    expect(at(-300).ok).toBe(true);
    expect(at(301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance', header: 'webhook-timestamp' });
    expect(at(-301)).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance', header: 'webhook-timestamp' });
    expect(at(86_400).ok).toBe(false);
  });

  it('takes another tolerance, and milliseconds of the clock do not count', () => {
    expect(at(30, 30).ok).toBe(true);
    expect(at(31, 30).ok).toBe(false);
    expect(at(0, 0).ok).toBe(true);
    expect(verifyWebhookSignature(SECRET, signed(), BODY, { now: T * 1000 + 999, toleranceS: 0 }).ok).toBe(true);
    expect(at(1, 0).ok).toBe(false);
  });

  it('is checked before the signature: a stale delivery fails even when correctly signed', () => {
    expect(verifyWebhookSignature(VECTOR.secret, vectorHeaders, VECTOR.body, { now: Date.parse('2026-05-01T00:00:00Z') })).toMatchObject({ reason: 'timestamp_out_of_tolerance' });
  });
});
