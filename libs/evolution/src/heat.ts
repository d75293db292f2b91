/**
 * Heat as an exponentially decaying quantity (zhou §6.2.1 "Heat Decay
 * Counting": a fixed increment per joining fragment, exponential decay with a
 * half-life).
 *
 * The stored form is an anchor `{ value, at }`: the heat was `value` at time
 * `at`. Reading it at `now` computes `value * 2^-((now - at) / halfLife)` from
 * the anchor and never writes back, so reading any number of times causes no
 * drift; only an addition moves the anchor. Since decay is linear, the heat at
 * T is exactly Σ increment_i · 2^-((T - t_i) / halfLife) over the fragments,
 * whatever order they were added in: an addition older than the anchor is
 * decayed to the anchor instead of moving it back (out-of-order events from
 * replicas give the same heat as in-order ones).
 */
import { assertFinite, assertPositive } from './errors';

export interface Heat {
  /** Heat units at time `at`. */
  readonly value: number;
  /** Epoch milliseconds of the anchor. */
  readonly at: number;
}

/** No heat yet. */
export function zeroHeat(at: number): Heat {
  assertFinite('at', at);
  return { value: 0, at };
}

/** The decay factor over `elapsedMs` (≥ 0): 1/2 per half-life. */
export function decayFactor(elapsedMs: number, halfLifeMs: number): number {
  return Math.pow(2, -elapsedMs / halfLifeMs);
}

/**
 * The heat at `now`. A `now` before the anchor (a skewed clock) reads the
 * anchor's value: what happened before the anchor is folded into it and
 * cannot be unfolded, and heat never grows without an addition.
 */
export function heatAt(h: Heat, now: number, halfLifeMs: number): number {
  assertFinite('now', now);
  assertPositive('halfLifeMs', halfLifeMs);
  if (h.value === 0 || now <= h.at) return h.value;
  return h.value * decayFactor(now - h.at, halfLifeMs);
}

/** Adds `increment` at `now` (zhou §6.2.1: "its heat score increases by a fixed increment"). */
export function addHeat(h: Heat, now: number, increment: number, halfLifeMs: number): Heat {
  assertFinite('now', now);
  assertPositive('halfLifeMs', halfLifeMs);
  if (!Number.isFinite(increment) || increment < 0) assertPositive('increment', increment);
  if (now >= h.at) return { value: heatAt(h, now, halfLifeMs) + increment, at: now };
  // An addition older than the anchor: decay it to the anchor.
  return { value: h.value + increment * decayFactor(h.at - now, halfLifeMs), at: h.at };
}

/** How long until heat `h` decays to `level` (0 when it is already at or below). */
export function msUntilHeatBelow(h: Heat, now: number, level: number, halfLifeMs: number): number {
  assertPositive('level', level);
  const v = heatAt(h, now, halfLifeMs);
  if (v <= level) return 0;
  return Math.log2(v / level) * halfLifeMs;
}
