/** Calendar dates as the inducer reads them (draft-zhou §6.2.2 types from evidence): edge cases of markDates. */
import { describe, expect, it } from 'vitest';
import { markDates } from '@parley/evolution';

describe('markDates', () => {
  it('29 February only in Gregorian leap years (not 1900 or 2100; 2000 and 2024 yes)', () => {
    expect(markDates('1900-02-29')).toBe('1900-02-29');
    expect(markDates('2100-02-29')).toBe('2100-02-29');
    expect(markDates('2000-02-29').trim()).toBe('date:2000-02-29');
    expect(markDates('2024-02-29').trim()).toBe('date:2024-02-29');
  });
  it('a long text is cut at whitespace before the scan limit: no date is read from part of itself', () => {
    const iso = markDates(`1 ${'a'.repeat(4081)} on 2026-11-21 end`);
    expect(iso).not.toMatch(/date:2026-11-02|date:(?!2026-11-21)/);
    const dm = markDates(`1 ${'a'.repeat(4088)} May 12 end`);
    expect(dm).not.toMatch(/date:05-01\b/);
    for (let off = 4080; off < 4100; off++) {
      const out = markDates(`1 ${'a'.repeat(off)} 2026-11-21 end`);
      const dates = out.match(/date:\S+/g) ?? [];
      expect(dates.every((d) => d === 'date:2026-11-21')).toBe(true);
    }
  });
  it('an everyday month word at a sentence start before a count is no month ("May 12 people come")', () => {
    expect(markDates('May 12 people come')).toBe('May 12 people come');
    expect(markDates('May 3 of us sit together')).toBe('May 3 of us sit together');
    expect(markDates('on May 12 we fly').trim()).toMatch(/date:05-12/);
    expect(markDates('May 12th please')).toMatch(/date:05-12/);
    expect(markDates('May 12, 2027')).toMatch(/date:05-12/);
    expect(markDates('arriving May 12')).toMatch(/date:05-12/);
  });
  it('no ISO date inside a word of any script ("Ü2026-11-21")', () => {
    expect(markDates('Ü2026-11-21')).toBe('Ü2026-11-21');
    expect(markDates('ж2026-11-21')).toBe('ж2026-11-21');
    expect(markDates('x 2026-11-21').trim()).toBe('x  date:2026-11-21'.trim());
  });
});
