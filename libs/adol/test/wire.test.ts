import { describe, expect, it } from 'vitest';
import { savedPct } from '../src/index';

describe('savedPct: one rounding for every token figure', () => {
  it('is computed on the unrounded mean, not on a mean first rounded to whole tokens', () => {
    // time / para: 2 tools, 231 tokens; a mean of 205.5 tokens rounds to 206 (10.8%) but is 11.0% fewer.
    expect(savedPct(231, 411, 2)).toBe(11);
    expect(savedPct(231, Math.round(411 / 2))).toBe(10.8);
    // Costs more than the list: negative, same rule.
    expect(savedPct(100, 301, 2)).toBe(-50.5);
  });

  it('a single request is the plain ratio; an empty baseline or no request is 0, never NaN', () => {
    expect(savedPct(1902, 373)).toBe(80.4);
    expect(savedPct(0, 10)).toBe(0);
    expect(savedPct(100, 10, 0)).toBe(0);
  });
});
