import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../src/rate-limit';

/** A clock the test moves by hand. */
function manualClock(start = Date.parse('2026-11-21T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('per-principal rate limit (token bucket on the injected clock)', () => {
  it('allows the burst, then refuses with the wait until one token is back; refills at the rate', () => {
    const clock = manualClock();
    const limit = createRateLimiter({ ratePerSecond: 2, burst: 3, clock });
    expect([1, 2, 3].map(() => limit.take('alice').ok)).toEqual([true, true, true]);
    const refused = limit.take('alice');
    expect(refused).toEqual({ ok: false, retryAfterMs: 500 });
    clock.advance(499);
    expect(limit.take('alice').ok).toBe(false);
    clock.advance(1);
    expect(limit.take('alice')).toEqual({ ok: true, remaining: 0 });
    // A long idle time refills no further than the burst.
    clock.advance(60_000);
    expect([1, 2, 3, 4].map(() => limit.take('alice').ok)).toEqual([true, true, true, false]);
  });

  it('keeps one bucket per principal: one caller over its limit does not slow another', () => {
    const clock = manualClock();
    const limit = createRateLimiter({ ratePerSecond: 1, burst: 2, clock });
    limit.take('mallory');
    limit.take('mallory');
    expect(limit.take('mallory').ok).toBe(false);
    expect(limit.take('bob').ok).toBe(true);
  });

  it('charges a batch by its size, and refuses a batch larger than the burst as never fitting, without a wait to advise', () => {
    const clock = manualClock();
    const limit = createRateLimiter({ ratePerSecond: 10, burst: 20, clock });
    expect(limit.take('alice', 15)).toEqual({ ok: true, remaining: 5 });
    expect(limit.take('alice', 6)).toEqual({ ok: false, retryAfterMs: 100 });
    // Larger than the burst: it can never pass, so no wait is advised and nothing is taken.
    expect(limit.take('bob', 21)).toEqual({ ok: false, never: true, burst: 20 });
    expect(limit.take('bob', 20).ok).toBe(true);
  });

  it('forgets full buckets when the key table is at its bound, so memory stays bounded', () => {
    const clock = manualClock();
    const limit = createRateLimiter({ ratePerSecond: 1, burst: 1, clock, maxKeys: 2 });
    limit.take('a');
    limit.take('b');
    clock.advance(5_000);
    // Both buckets are full again: adding a third key sweeps them, so 'a' starts over with a full bucket.
    expect(limit.take('c').ok).toBe(true);
    expect(limit.take('a').ok).toBe(true);
    expect(limit.take('a').ok).toBe(false);
  });

  it('refuses a limit that could never pass a request', () => {
    const clock = manualClock();
    expect(() => createRateLimiter({ ratePerSecond: 0, burst: 1, clock })).toThrow(/ratePerSecond > 0/);
    expect(() => createRateLimiter({ ratePerSecond: 1, burst: 0, clock })).toThrow(/burst >= 1/);
  });
});
