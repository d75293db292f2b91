import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// Numbers that count or bound something (draft-zhou §6.1: a key's value read from the user's words by grammar, not
// by a list of phrasings). Sentences written for these tests, none taken from a dev or validation set.

describe('a word for one named individual is no kind of person', () => {
  let lex: Lexicon;
  beforeAll(async () => {
    lex = await loadLexicon();
  }, 60_000);

  it('reads "more" (WordNet also has Thomas More) as no person word, kinds of people still', () => {
    expect(lex.isPerson('more')).toBe(false);
    expect(lex.isPerson('passengers')).toBe(true);
    expect(lex.isPersonFirst('kid')).toBe(true);
  });

  it('does not count people with "1 more suitcase"', async () => {
    const m = await map(flightBookingTemplate, 'Oslo to Lisbon on Friday for 3, and 1 more suitcase');
    expect(m.payload['passenger_count']).toBe(3);
    expect(m.other.join(' ')).toContain('suitcase');
  });
});

describe('"me and N more" counts the speaker and N people', () => {
  it('reads "me and 3 more" as 4, and "me and 1 more suitcase" as no count', async () => {
    expect((await map(flightBookingTemplate, 'Oslo to Lisbon on Friday, me and 3 more')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, 'Oslo to Lisbon on Friday, me and 1 more suitcase')).payload['passenger_count']).toBeUndefined();
  });
});

describe('"for N" before a preposition counts people', () => {
  it('reads "for 2 in business" and "for four on Tuesday"', async () => {
    expect((await map(flightBookingTemplate, 'Vienna to Athens for 2 in business')).payload['passenger_count']).toBe(2);
    expect((await map(flightBookingTemplate, 'seats from Lyon to Porto for four on Tuesday')).payload['passenger_count']).toBe(4);
  });

  it('leaves a number that counts a noun, or "for N of", alone', async () => {
    expect((await map(flightBookingTemplate, 'Vienna to Athens, room for 2 bags in the hold')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Vienna to Athens, pay for 2 of the seats with miles')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Vienna to Athens on Monday, and a table for 4 at the seafood place')).payload['passenger_count']).toBeUndefined();
  });
});

describe('"for N" after an adverb or a verb, or before a time of day, counts no one', () => {
  it('reads no passengers in "home for 7 on Friday", "leaving for 5 on Monday" or "for 10 in the morning"', async () => {
    expect((await map(flightBookingTemplate, 'Madrid to Oslo, I must be home for 7 on Friday')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Madrid to Oslo, leaving for 5 on Monday')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Madrid to Oslo for 10 in the morning')).payload['passenger_count']).toBeUndefined();
  });

  it('still counts after a booking noun or a place', async () => {
    expect((await map(flightBookingTemplate, 'Madrid to Oslo, a booking for 4 on Friday')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, 'a flight from Madrid to Oslo for 3 on Friday')).payload['passenger_count']).toBe(3);
  });
});

describe('a bound on a number is not the end of the range', () => {
  it('"at least 6", "at most three": the number is the value', async () => {
    expect((await map(photoRetouchTemplate, 'cool filter and skin smoothing at least 6')).payload['skin_smoothing']).toBe(6);
    expect((await map(photoRetouchTemplate, 'skin smoothing at most three please')).payload['skin_smoothing']).toBe(3);
  });

  it('a number the key cannot take, or one that counts a noun, is no bound: the range\'s end', async () => {
    expect((await map(photoRetouchTemplate, 'warm filter, skin smoothing at most 40')).payload['skin_smoothing']).toBe(10);
    expect((await map(photoRetouchTemplate, 'skin smoothing at maximum 4 pictures')).payload['skin_smoothing']).toBe(10);
  });

  it('"at maximum" with no number is still the range\'s end', async () => {
    expect((await map(photoRetouchTemplate, 'skin smoothing at maximum, warm filter')).payload['skin_smoothing']).toBe(10);
  });
});

describe('two bare numbers and a range word number things, not hours', () => {
  it('"towers 3 to 6 this morning" is no 03:00, and the towers are the sites', async () => {
    const m = await map(faultManagementTemplate, 'towers 3 to 6 this morning lost power, incident PW-8');
    expect(m.payload['occurred_at']).toBeUndefined();
    const p = await map(faultManagementTemplate, 'sites 3 to 6 lost power at 5:40 this morning, incident PW-8');
    expect(p.payload['affected_site_ids']).toEqual(['3', '4', '5', '6']);
    expect(p.payload['occurred_at']).toBe('2026-11-26T05:40:00+01:00');
  });

  it('"from 8 to 10 this morning" is still a span of hours', async () => {
    expect((await map(faultManagementTemplate, 'the link flapped from 8 to 10 this morning, incident PW-8')).payload['occurred_at']).toBe('2026-11-26T08:00:00+01:00');
  });

  it('a short number is a site only right after the key\'s cue', async () => {
    expect((await map(faultManagementTemplate, 'sites 7, 8 and 11 down since 06:10, incident PW-8')).payload['affected_site_ids']).toEqual(['7', '8', '11']);
    expect((await map(faultManagementTemplate, 'incident PW-8, 12 complaints since 06:10, site 4410 down')).payload['affected_site_ids']).toEqual(['4410']);
  });
});

// Chinese (draft-zhou §6.1, a request in the user's language): the attributive particle 的 closes the name a route
// particle opened, and Simplified characters are read for dates as Traditional ones are.
describe('Chinese names and dates', () => {
  it('ends the destination at 的 and reads 后天 / 大后天', async () => {
    const m = await map(flightBookingTemplate, '请帮我订后天从广州到成都的经济舱机票');
    expect(m.payload['destination']).toBe('成都');
    expect(m.payload['departure_date']).toBe('2026-11-28');
    expect((await map(flightBookingTemplate, '大后天从上海飞往西安的航班')).payload['departure_date']).toBe('2026-11-29');
  });

  it('still reads a Traditional 後天', async () => {
    expect((await map(flightBookingTemplate, '後天從台北到東京的機票')).payload['departure_date']).toBe('2026-11-28');
  });
});

describe('a range of days or hours no list cue opens is still chrono\'s date', () => {
  it('reads "12 to 14 December" and "3 to 5 March" as the first day', async () => {
    expect((await map(flightBookingTemplate, 'Madrid to Oslo, 12 to 14 December')).payload['departure_date']).toBe('2026-12-12');
    expect((await map(flightBookingTemplate, 'Madrid to Oslo 12-14 December')).payload['departure_date']).toBe('2026-12-12');
    const m = await map(flightBookingTemplate, 'Madrid to Oslo, 3 to 5 March, 2 people');
    expect(m.payload['departure_date']).toBe('2027-03-03');
    expect(m.payload['passenger_count']).toBe(2);
  });

  it('reads "went down 2 to 4 yesterday" as a time, and numbers a site cue opens as sites', async () => {
    expect((await map(faultManagementTemplate, 'incident Q-3, the trunk went down 2 to 4 yesterday')).payload['occurred_at']).toBe('2026-11-25T02:00:00+01:00');
    const m = await map(faultManagementTemplate, 'incident Q-4, sites 3 to 6 dropped this morning');
    expect(m.payload['affected_site_ids']).toEqual(['3', '4', '5', '6']);
    expect(m.payload['occurred_at']).toBeUndefined();
  });
});

describe('a short number a noun follows counts that noun, not a list item', () => {
  it('keeps "30 complaints" and "12 users" out of the site list', async () => {
    const a = await map(faultManagementTemplate, 'incident Q-5, sites 6 and 8, 40 complaints');
    expect(a.payload['affected_site_ids']).toEqual(['6', '8']);
    expect(a.payload['user_complaint_count']).toBe(40);
    const b = await map(faultManagementTemplate, 'incident Q-6, site 9, 15 users complained');
    expect(b.payload['affected_site_ids']).toEqual(['9']);
    expect(b.payload['user_complaint_count']).toBe(15);
  });

  it('keeps a number of people ("22 people") out of the site list', async () => {
    expect((await map(faultManagementTemplate, 'incident Q-10, site 6, 22 people called the helpdesk')).payload['affected_site_ids']).toEqual(['6']);
  });

  it('takes no site from a verb cue or a measured noun', async () => {
    const a = await map(faultManagementTemplate, 'incident Q-7, the storm affected 14 customers');
    expect(a.payload['affected_site_ids']).toBeUndefined();
    expect(a.payload['user_complaint_count']).toBe(14);
    const b = await map(faultManagementTemplate, 'incident Q-8, sites 3 hours ago lost power');
    expect(b.payload['affected_site_ids']).toBeUndefined();
    expect(b.payload['occurred_at']).toBe('2026-11-26T09:00:00+01:00');
  });

  it('still reads "sites 12, 13 and 14 are down"', async () => {
    expect((await map(faultManagementTemplate, 'incident Q-9, sites 21, 22 and 23 are down')).payload['affected_site_ids']).toEqual(['21', '22', '23']);
  });
});
