import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { addHeat, heatAt, msUntilHeatBelow, zeroHeat, type Heat } from '../src/index';
import { DAY, HOUR, T0 } from './helpers';

const HL = 24 * HOUR;
const heatArb = fc.record({ value: fc.double({ min: 0, max: 1e6, noNaN: true }), at: fc.integer({ min: T0, max: T0 + 365 * DAY }) });
const span = fc.integer({ min: 0, max: 60 * DAY });
const close = (a: number, b: number): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));

describe('heat decay (zhou §6.2.1 Heat Decay Counting)', () => {
  it('property: decay over t1 then t2 equals decay over t1 + t2', () => {
    fc.assert(
      fc.property(heatArb, span, span, (h, t1, t2) => {
        // Re-anchor at t1 (what a stored value looks like after a read-and-store), then decay t2 more.
        const mid: Heat = { value: heatAt(h, h.at + t1, HL), at: h.at + t1 };
        close(heatAt(mid, mid.at + t2, HL), heatAt(h, h.at + t1 + t2, HL));
      }),
    );
  });

  it('property: without additions heat never grows as time passes', () => {
    fc.assert(
      fc.property(heatArb, span, span, (h, t1, t2) => {
        const a = heatAt(h, h.at + t1, HL);
        const b = heatAt(h, h.at + t1 + t2, HL);
        expect(b).toBeLessThanOrEqual(a);
        // Strictly less while the value is a normal double (denormals round to themselves).
        if (a > 1e-300 && t2 > 0) expect(b).toBeLessThan(a);
      }),
    );
  });

  it('property: heat halves every half-life', () => {
    fc.assert(
      fc.property(heatArb, fc.integer({ min: 1, max: 10 }), fc.integer({ min: HOUR, max: 7 * DAY }), (h, k, hl) => {
        close(heatAt(h, h.at + k * hl, hl), h.value / 2 ** k);
      }),
    );
  });

  it('property: reading does not drift (zhou §6.2.1 needs exact decay; the anchor never moves on a read)', () => {
    fc.assert(
      fc.property(heatArb, fc.array(span, { minLength: 1, maxLength: 50 }), (h, reads) => {
        const frozen = { ...h };
        for (const r of reads) heatAt(h, h.at + r, HL);
        expect(h).toEqual(frozen);
      }),
    );
  });

  it('property: additions are order-independent (heat at T = Σ increment · 2^-(T - t_i)/half-life)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 * DAY }), { minLength: 1, maxLength: 30 }), (offsets) => {
        const T = T0 + 11 * DAY;
        const inOrder = [...offsets].sort((a, b) => a - b).reduce((h, o) => addHeat(h, T0 + o, 10, HL), zeroHeat(T0));
        const shuffled = [...offsets].reverse().reduce((h, o) => addHeat(h, T0 + o, 10, HL), zeroHeat(T0));
        const exact = offsets.reduce((s, o) => s + 10 * 2 ** (-(T - T0 - o) / HL), 0);
        close(heatAt(inOrder, T, HL), exact);
        close(heatAt(shuffled, T, HL), exact);
      }),
    );
  });

  it('zhou §6.2.1 example: five fragments in one instant reach 50 units, and one half-life later 25', () => {
    let h = zeroHeat(T0);
    for (let i = 0; i < 5; i++) h = addHeat(h, T0, 10, HL);
    expect(heatAt(h, T0, HL)).toBe(50);
    expect(heatAt(h, T0 + HL, HL)).toBe(25);
    expect(msUntilHeatBelow(h, T0, 25, HL)).toBeCloseTo(HL, 6);
  });

  it('a read before the anchor (clock skew) gives the anchor value, never more', () => {
    const h = addHeat(zeroHeat(T0), T0 + DAY, 10, HL);
    expect(heatAt(h, T0, HL)).toBe(10);
  });

  it('bad inputs are typed errors', () => {
    expect(() => heatAt(zeroHeat(T0), Number.NaN, HL)).toThrow(ParleyError);
    expect(() => heatAt(zeroHeat(T0), T0, 0)).toThrowError(expect.objectContaining({ type: 'invalid_params', rule: 'config' }));
    expect(() => addHeat(zeroHeat(T0), T0, -1, HL)).toThrowError(expect.objectContaining({ rule: 'config' }));
  });
});
