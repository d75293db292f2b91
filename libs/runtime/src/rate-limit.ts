import type { Clock } from './clock';

/**
 * Per-principal rate limits (draft-zhou §7; abuse of an authenticated key): a token bucket per key. A key
 * holds at most `burst` tokens and regains `ratePerSecond` per second of the
 * clock; a request takes `cost` tokens (a JSON-RPC batch takes one per member)
 * or is refused with the time until it would fit. Idle buckets (full again)
 * are dropped when the map grows past `maxKeys`, so memory stays bounded.
 */
export interface RateLimitOptions {
  ratePerSecond: number;
  burst: number;
  clock: Clock;
  /** Default 100,000 keys. */
  maxKeys?: number;
}

/**
 * A refusal says how long until the request would fit, unless it never can (`cost` above the
 * burst): then `never` is true and no wait is advised, since waiting cannot help.
 */
export type RateDecision = { ok: true; remaining: number } | { ok: false; retryAfterMs: number; never?: false } | { ok: false; never: true; burst: number };

export interface RateLimiter {
  take(key: string, cost?: number): RateDecision;
  /** The bucket size: the largest cost that can ever pass. */
  readonly burst: number;
}

export function createRateLimiter(opts: RateLimitOptions): RateLimiter {
  if (!(opts.ratePerSecond > 0) || !(opts.burst >= 1)) throw new Error('a rate limit needs ratePerSecond > 0 and burst >= 1');
  const perMs = opts.ratePerSecond / 1000;
  const maxKeys = opts.maxKeys ?? 100_000;
  const buckets = new Map<string, { tokens: number; at: number }>();

  const sweep = (now: number) => {
    for (const [k, b] of buckets) if (b.tokens + (now - b.at) * perMs >= opts.burst) buckets.delete(k);
  };

  return {
    burst: opts.burst,
    take(key, cost = 1) {
      const now = opts.clock.now().getTime();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) sweep(now);
        b = { tokens: opts.burst, at: now };
        buckets.set(key, b);
      }
      b.tokens = Math.min(opts.burst, b.tokens + Math.max(0, now - b.at) * perMs);
      b.at = now;
      // A request larger than the burst can never pass: refused without advice to wait, and nothing is taken.
      if (cost > opts.burst) return { ok: false, never: true, burst: opts.burst };
      if (b.tokens >= cost) {
        b.tokens -= cost;
        return { ok: true, remaining: Math.floor(b.tokens) };
      }
      return { ok: false, retryAfterMs: Math.max(1, Math.ceil((cost - b.tokens) / perMs)) };
    },
  };
}
