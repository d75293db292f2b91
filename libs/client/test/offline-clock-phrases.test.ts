import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// Times of day said in words (draft-zhou §6.1: a date-time key read against the user's reference date, Thursday
// 2026-11-26 in Paris, +01:00): minutes past or to an hour, and an hour said with the part of a named day. Sentences
// of our own, not the bench's.
const at = async (text: string) => (await map(faultManagementTemplate, text)).payload['occurred_at'];

describe('clock times in words', () => {
  it('reads minutes in words past or to an hour', async () => {
    expect(await at('router R1 rebooted around twenty past nine, INC-2')).toBe('2026-11-26T09:20:00+01:00');
    expect(await at('site 31 went silent at twenty-five past four in the afternoon, INC-8')).toBe('2026-11-26T16:25:00+01:00');
    expect(await at('link AGG-1 down at ten to six, INC-3')).toBe('2026-11-26T05:50:00+01:00');
  });

  it('reads an hour said with the part of a named day, that day', async () => {
    expect(await at('sites 12 and 14 down since 6 this morning, INC-1')).toBe('2026-11-26T06:00:00+01:00');
    expect(await at('INC-5 site 7 down since 7:45 this evening')).toBe('2026-11-26T19:45:00+01:00');
    expect(await at('INC-4: site 4 lost power at 11 last night')).toBe('2026-11-25T23:00:00+01:00');
  });

  it('takes the clock phrase whole, not its hour with the part of the day after it', async () => {
    expect(await at('sites 5 to 9 down since ten past ten this morning')).toBe('2026-11-26T10:10:00+01:00');
  });

  it('reads no clock in a range of counts or sites', async () => {
    expect(await at('two to three sites have been down since 8am, INC-6')).toBe('2026-11-26T08:00:00+01:00');
    expect(await at('sites five to nine are down, INC-9')).toBeUndefined();
  });
});
