import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { countsNounByWordNet, createParleyClient, valuesOutOfPlace, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';

// Scenario identification (draft-zhou §6.1, Figure 1 step 2) of near misses that fill a slot out of its place: a date
// alone lets selection count for nothing, an ordinal read as an enum value away from the key's own words counts as a
// date does. Sentences of our own, not from the dev or validation sets.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };
const template = (id: string) => SCENARIOS.find((s) => s.template.scenario === id)!.template;

describe('a date alone', () => {
  it('lets no selection count: a question about a town on a day is no flight', async () => {
    for (const words of ["what's the forecast in Beijing next Friday", "what's the exchange rate in Seoul next Monday"]) {
      const id = await client.identifyScenario(words, { ...REF, catalog });
      expect(id.scenario, words).toBeNull();
      // The date was read: it is the selection, not the mapping, that no longer counts.
      const flight = id.ranking.find((r) => r.scenario === 'flight_booking');
      expect(flight?.filled, words).toBe(1);
      expect(flight?.selection, words).toBe(1);
    }
  });

  it('still identifies a flight said with a date and a town, or with its name', async () => {
    for (const words of ['a flight to Vienna next Tuesday', 'fly me to Madrid this coming Saturday', 'Oslo next Friday, two of us']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('flight_booking');
    }
  });
});

describe('an ordinal out of its place', () => {
  it('is found when the word after it is none of the key\'s own words', async () => {
    const flight = template('flight_booking');
    // The offline mapper no longer reads an ordinal that counts another noun as a cabin (offline-enum-meanings.test.ts);
    // the mapping a mapper without that rule would give is built here.
    const mapped = await client.mapUtterance(flight, 'cut the first five minutes of my podcast', REF);
    expect(mapped.sources.cabin_class).toBeUndefined();
    const away = { ...mapped, payload: { ...mapped.payload, cabin_class: 'first' }, sources: { ...mapped.sources, cabin_class: 'first' } };
    expect([...valuesOutOfPlace(flight, away, 'cut the first five minutes of my podcast')]).toEqual(['cabin_class']);
    for (const words of ['we want first class from Rome to Oslo on Friday', 'book me first class to Lima tomorrow']) {
      const m = await client.mapUtterance(flight, words, REF);
      expect(m.sources.cabin_class, words).toBeDefined();
      expect(valuesOutOfPlace(flight, m, words).size, words).toBe(0);
    }
    // Hostile text is bounded and matches nothing.
    for (const words of ['constructor first __proto__', 'first '.repeat(200_000), '\u0000first\ud800']) {
      const m = { ...away, sources: { cabin_class: 'first', constructor: 'first' } };
      expect(valuesOutOfPlace(flight, m, words).size).toBeLessThanOrEqual(1);
    }
  });

  it('counts as a date does: trimming the first minutes of a recording is no flight, first class still is', async () => {
    expect((await client.identifyScenario('cut the first five minutes of my podcast', { ...REF, catalog })).scenario).toBeNull();
    for (const words of ['we want first class from Rome to Oslo on Friday', 'two seats in first from Paris to Tokyo']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('flight_booking');
    }
  });
});

// The counter-examples a review found against reading kinds of a scenario's words as its name (BENCHMARKS.md,
// 2026-11-28): kept as regression tests for any later rule of that kind.
describe('no scenario from a kind or a far sense alone', () => {
  it('a kind of management, a photo only in a far sense, a kind of photo with no wish, "still" as an adverb', async () => {
    for (const words of ['I need guidance on my tax return by Friday', 'a pic of my dog', 'a snapshot', 'delete my snapshot', 'this snapshot needs work']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
    expect((await client.identifyScenario('is it still down', { ...REF, catalog })).scenario).not.toBe('photo_retouch');
  });
});

describe('a numeral that counts the noun after it', () => {
  it('is no identifier: "300 dollars" is no site, "sites 4 and 200" and "site 4410" are', async () => {
    const fault = template('fault_management');
    const pay = 'pay 300 dollars to my plumber on the 2nd of March';
    const m = await client.mapUtterance(fault, pay, REF);
    expect(m.sources.affected_site_ids).toBe('300');
    expect([...valuesOutOfPlace(fault, m, pay)].sort()).toEqual(['affected_site_ids', 'incident_id']);
    expect((await client.identifyScenario(pay, { ...REF, catalog })).scenario).toBeNull();
    for (const words of ['sites 4 and 200 are down since 9', 'site 4410 dropped, 30 customers complaining']) {
      const n = await client.mapUtterance(fault, words, REF);
      expect(n.sources.affected_site_ids, words).toBeDefined();
      expect(valuesOutOfPlace(fault, n, words).size, words).toBe(0);
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('fault_management');
    }
  });
});

describe('a numeral in its place, and what counts a noun', () => {
  const fault = template('fault_management');

  it('right after its key\'s own word, singular or plural either way, it is in place whatever follows', async () => {
    // "router" against the description's "routers", "station" against "stations"; the -s word after is no count here.
    for (const words of ['router 12 flaps', 'base station 310 reports optical power low', 'site 4410 keeps dropping since 6']) {
      const m = await client.mapUtterance(fault, words, REF);
      expect(m.sources.affected_site_ids, words).toBeDefined();
      expect(valuesOutOfPlace(fault, m, words).has('affected_site_ids'), words).toBe(false);
    }
  });

  it('counts a noun only when every occurrence does, and only a noun WordNet knows in the plural, no verb form alone', async () => {
    const countsNoun = await countsNounByWordNet();
    for (const [before, next] of [['cell', 'goes'], ['bts', 'fails'], ['node', 'loses'], ['incident', 'affects'], ['incident', 'reports'], ['site', 'this'], ['with', 'loss']]) {
      expect(countsNoun(next as string, before as string), `${before} N ${next}`).toBe(false);
    }
    for (const [before, next] of [['transfer', 'euros'], ['pay', 'pounds'], ['and', 'customers'], ['affects', 'sites']]) {
      expect(countsNoun(next as string, before as string), `${before} N ${next}`).toBe(true);
    }
    const twice = 'site 12 down, 12 customers affected';
    expect(valuesOutOfPlace(fault, await client.mapUtterance(fault, twice, REF), twice, countsNoun).has('affected_site_ids')).toBe(false);
    const euros = 'transfer 200 euros to Anna on the 1st';
    expect(valuesOutOfPlace(fault, await client.mapUtterance(fault, euros, REF), euros, countsNoun).has('affected_site_ids')).toBe(true);
  });

  it('so terse fault reports score at least as without the rule', async () => {
    // The scores of these reports before any rule on numerals (the same weights, the same mapper). "keeps dropping"
    // was 0.524 while the mapper sent `keeps_dropping` as an alarm name barely over the threshold; a name off the
    // template's naming convention is now only suggested (at 0.3, offline-alarm-naming-convention.test.ts), so the
    // report's score is 0.51 whatever the numeral rule does, and that is its floor here.
    for (const [words, before] of [['BTS 4410 fails', 0.302], ['site 4410 keeps dropping since 6', 0.51], ['site 12 down, 12 customers affected', 1], ['site 4410 goes down every night', 0.67]] as const) {
      const id = await client.identifyScenario(words, { ...REF, catalog });
      expect(id.scenario, words).toBe('fault_management');
      expect(id.score, words).toBeGreaterThanOrEqual(before);
    }
  });
});

describe('a value read out of its place explains no word', () => {
  it('nor is it evidence beside dates: a payment on a day is no fault, terse fault reports still are', async () => {
    for (const words of ['transfer 200 euros to Anna on the 1st', 'pay 300 pounds rent on the 1st']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
    for (const words of ['router 12 flaps', 'BTS 4410 fails', 'site 4410 keeps dropping since 6', 'site 12 down, 12 customers affected']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('fault_management');
    }
  });
});

describe('what an ordinal out of its place weighs', () => {
  it('some, not nothing, not a whole key: the cabin said alone with a town is a flight, "the first room" with a town is not', async () => {
    // Weighed 0, "first" said alone for the cabin would no longer carry these; weighed as a whole key, an ordinal
    // counting rooms or weeks beside a town would be taken as a flight.
    for (const words of ['first to Rome', 'first to Oslo please']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('flight_booking');
    }
    for (const words of ['book the first room on the left', 'the first two weeks of May in Rome']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
  });
});
