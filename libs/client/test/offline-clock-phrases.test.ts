import { faultManagementTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// Times of day said in words (draft-zhou §6.1: a date-time key read against the user's reference date, Thursday
// 2026-11-26 in Paris, +01:00): minutes past or to an hour, and an hour said with the part of a named day. Sentences
// written for these tests (none taken from a dev or validation set).
const at = async (text: string) => (await map(faultManagementTemplate, text)).payload['occurred_at'];

describe('clock times in words', () => {
  it('reads minutes in words past or to an hour', async () => {
    expect(await at('switch SW-4 restarted around twenty past eight, INC-12')).toBe('2026-11-26T08:20:00+01:00');
    expect(await at('site 31 went silent at twenty-five past four in the afternoon, INC-8')).toBe('2026-11-26T16:25:00+01:00');
    expect(await at('feeder F-2 tripped at ten to seven, INC-13')).toBe('2026-11-26T06:50:00+01:00');
  });

  it('reads an hour said with the part of a named day, that day', async () => {
    expect(await at('INC-14 cabinet C-3 overheating since 5 this morning')).toBe('2026-11-26T05:00:00+01:00');
    expect(await at('INC-5 site 7 down since 7:45 this evening')).toBe('2026-11-26T19:45:00+01:00');
    expect(await at('INC-4: site 4 lost power at 11 last night')).toBe('2026-11-25T23:00:00+01:00');
  });

  it('reads the small hours and midnight of last night as the current date', async () => {
    expect(await at('INC-4 site 4 lost power at 2 last night')).toBe('2026-11-26T02:00:00+01:00');
    expect(await at('INC-4 site 4 lost power at 12 last night')).toBe('2026-11-26T00:00:00+01:00');
    expect(await at('INC-5 site 7 down at ten past twelve at night')).toBe('2026-11-27T00:10:00+01:00');
  });

  it('reads an hour said with "tonight" as this night: evening hours after noon, 12 the midnight that ends today', async () => {
    expect(await at('INC-21 planned cut on feeder F-9 at 12 tonight')).toBe('2026-11-27T00:00:00+01:00');
    expect(await at('INC-22 planned cut on feeder F-9 at 9 tonight')).toBe('2026-11-26T21:00:00+01:00');
    expect(await at('INC-23 planned cut on feeder F-9 at 10:30 tonight')).toBe('2026-11-26T22:30:00+01:00');
  });

  it('takes the clock phrase whole, not its hour with the part of the day after it', async () => {
    expect(await at('sites 2 to 6 down since twenty past eight this morning')).toBe('2026-11-26T08:20:00+01:00');
  });

  it('reads no clock in a range of counts or sites', async () => {
    expect(await at('two to three sites have been down since 8am, INC-6')).toBe('2026-11-26T08:00:00+01:00');
    expect(await at('sites five to nine are down, INC-9')).toBeUndefined();
    expect(await at('INC-4 site 4 down from nine to eleven this morning')).toBeUndefined();
    expect(await at('INC-4 site 4 down from nine to eleven')).toBeUndefined();
    const m = await map(faultManagementTemplate, 'around five to ten customers affected since yesterday, INC-2');
    expect(m.payload['occurred_at']).toBeUndefined();
    expect(m.payload['user_complaint_count']).toBe(10);
  });

  it('reads no clock in a duration or a rank', async () => {
    expect(await at('INC-4 site 9 lost power for twenty minutes after nine')).toBeUndefined();
    expect(await at('INC-5 site 3 down, the one after nine')).toBeUndefined();
  });

  it('reads no hour in a site or equipment number before the part of the day', async () => {
    expect(await at('Site 9 this morning lost power, INC-3')).toBeUndefined();
    const m = await map(faultManagementTemplate, 'INC-4 router 7 this morning rebooted');
    expect(m.payload['occurred_at']).toBeUndefined();
    // The number right after the key's cue ("router", a network element of affected_site_ids) is that element.
    expect(m.payload['affected_site_ids']).toEqual(['7']);
  });
});
