import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { fastestMs } from '@parley/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// Bounded work on hostile utterances at the longest length the client accepts (2,000 characters): a rule that asked
// WordNet the same key-name word once per token (kindOf, uncached) took 3-4 s on "a@" repeated, and the date step
// read every one of hundreds of chrono readings against every other (1-2 s on "1 to 2 " repeated).
const LEN = 2000;
const repeated = (unit: string) => unit.repeat(Math.ceil(LEN / unit.length)).slice(0, LEN);
/** Well above what the mapper takes (tens of ms on 2 slow cores), far below the seconds the super-linear steps took. */
const BUDGET_MS = 400;

describe('offline mapper on 2,000 characters of hostile text', () => {
  beforeAll(async () => {
    for (const t of [flightBookingTemplate, photoRetouchTemplate, faultManagementTemplate]) await map(t, 'window seat please, 2 of us');
  }, 120_000);

  it.each([
    ['a@', faultManagementTemplate],
    ['a@', flightBookingTemplate],
    ['<a', faultManagementTemplate],
    ['[a', flightBookingTemplate],
    ['1 to 2 ', flightBookingTemplate],
    ['1 to 2 ', faultManagementTemplate],
    ['constructor ', faultManagementTemplate],
  ])('%j repeated (%#)', async (unit, template) => {
    const text = repeated(unit);
    const ms = await fastestMs(() => map(template, text), BUDGET_MS);
    expect(ms).toBeLessThan(BUDGET_MS);
    const m = await map(template, text);
    expect(Object.keys(m.payload).every((k) => template.keys.some((d) => d.key_name === k))).toBe(true);
  }, 60_000);
});

describe('a pasted log of many times', () => {
  it('keeps the one date that names a day (times thrown away or dayless do not use up its place)', async () => {
    const times = Array.from({ length: 17 }, (_, n) => `09:${String(n + 1).padStart(2, '0')}`).join(', ');
    const text = `INC-7 site 12 down; alarms at ${times}; first outage on November 20 at 08:00`;
    expect((await map(faultManagementTemplate, text)).payload['occurred_at']).toBe('2026-11-20T08:00:00+01:00');
  });
});
