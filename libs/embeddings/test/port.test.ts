import { describe, expect, it } from 'vitest';
import { cosine, l2normalize, separation } from '../src/index';

describe('cosine and l2normalize', () => {
  it('computes the cosine of any vectors, 0 for a zero vector', () => {
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [-3, 0])).toBeCloseTo(-1, 12);
    expect(cosine(new Float32Array([3, 4]), new Float32Array([4, 3]))).toBeCloseTo(24 / 25, 6);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });

  it('refuses vectors of different lengths', () => {
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(/differ in length/);
  });

  it('normalises in place, leaving a zero vector zero', () => {
    const v = new Float32Array([3, 4]);
    expect(l2normalize(v)).toBe(v);
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(l2normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
  });
});

describe('separation', () => {
  it('gives AUC 1, a threshold between the classes and accuracy 1 when they are apart', () => {
    const s = separation([
      { score: 0.9, same: true },
      { score: 0.8, same: true },
      { score: 0.3, same: false },
      { score: 0.1, same: false },
    ]);
    expect(s.rocAuc).toBe(1);
    expect(s.bestAccuracy).toBe(1);
    expect(s.bestThreshold).toBeGreaterThan(0.3);
    expect(s.bestThreshold).toBeLessThanOrEqual(0.8);
    expect(s.same).toEqual({ count: 2, mean: expect.closeTo(0.85, 10), median: expect.closeTo(0.85, 10) });
    expect(s.margin).toBeCloseTo(0.65, 10);
  });

  it('gives AUC 0 when inverted and 0.5 for ties', () => {
    expect(separation([{ score: 0.1, same: true }, { score: 0.9, same: false }]).rocAuc).toBe(0);
    expect(separation([{ score: 0.5, same: true }, { score: 0.5, same: false }]).rocAuc).toBe(0.5);
  });
});
