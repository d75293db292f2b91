import fc from 'fast-check';
import { flightBookingTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// Towns WordNet knows (said in lowercase, or slipped) and people added to a party (draft-zhou §6.1): sentences of
// their own, not the bench's. Reference: Thursday 2026-11-26 in Paris.
let lex: Lexicon;

beforeAll(async () => {
  lex = await loadLexicon();
}, 120_000);

describe('a town WordNet knows by name', () => {
  it('is a noun sense that is an instance of a municipality, spelled as a name', () => {
    expect(lex.placeName('reykjavik')).toBe('Reykjavik');
    expect(lex.placeName('mumbai')).toBe('Mumbai');
    // Said in lowercase, a word that is also an adjective or first something else is no town.
    expect(lex.placeName('nice')).toBeUndefined();
    expect(lex.placeName('turkey')).toBeUndefined();
    expect(lex.placeName('reading')).toBeUndefined();
    // Capitalised or slipped, a later sense counts (Vancouver is the navigator first).
    expect(lex.placeName('vancouver')).toBeUndefined();
    expect(lex.placeName('vancouver', false)).toBe('Vancouver');
  });

  it('reads a slip one edit from exactly one town, only for a word WordNet does not know', () => {
    expect(lex.placeSlip('vancuver')).toBe('Vancouver');
    expect(lex.placeSlip('frnakfurt')).toBe('Frankfurt');
    // One edit from a rare noun or a name ("deli", "bosun", "loon", "Rommel", "Chico") is still the town's slip.
    expect(lex.placeSlip('dehli')).toBe('Delhi');
    expect(lex.placeSlip('bostn')).toBe('Boston');
    expect(lex.placeSlip('chicgo')).toBe('Chicago');
    // Known words and short words are not slips.
    expect(lex.placeSlip('paris')).toBeUndefined();
    expect(lex.placeSlip('bath')).toBeUndefined();
    expect(lex.placeSlip('rme')).toBeUndefined();
  });

  it('a slip of an ordinary word is no town, and a slip never beats a town said as written', async () => {
    for (const w of ['recive', 'snice', 'neice', 'fligt', 'tarin', 'shoul', 'litle', 'enver', 'paril']) expect(lex.placeSlip(w), w).toBeUndefined();
    const p = (await map(flightBookingTemplate, "I'd like to recive my tickets by email, flying from Paris to Rome")).payload;
    expect([p['origin'], p['destination']]).toEqual(['Paris', 'Rome']);
    expect((await map(flightBookingTemplate, 'I want to recive a refund')).payload['destination']).toBeUndefined();
  });

  it('misspelled towns in sentences: one edit from a rare noun or a name does not veto the town', async () => {
    expect((await map(flightBookingTemplate, 'fly me from Paris to chicgo on friday')).payload['destination']).toBe('Chicago');
    expect((await map(flightBookingTemplate, 'a flight from bostn to seatle tomorrow')).payload['origin']).toBe('Boston');
    expect((await map(flightBookingTemplate, 'from lodon to romme')).payload).toMatchObject({ origin: 'London', destination: 'Rome' });
    expect((await map(flightBookingTemplate, 'two tickets to dehli')).payload['destination']).toBe('Delhi');
  });

  it('a lowercase town only right after a route word, and never an inflection of another word', async () => {
    expect((await map(flightBookingTemplate, "I'm leaving regina tomorrow, going to Calgary")).payload['origin']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'from home to tours on friday')).payload['destination']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'from oslo to bergen on friday')).payload).toMatchObject({ origin: 'Oslo', destination: 'Bergen' });
  });

  it('a slip asks WordNet a bounded number of index look-ups and reads few senses', async () => {
    const { WordNet, defaultDictDir } = await import('@parley/embeddings');
    const wn = await WordNet.load({ dictDir: defaultDictDir() });
    const counts = { lookup: 0, synset: 0 };
    const counted = new Proxy(wn, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'lookup' || prop === 'synset') return (...a: unknown[]) => (counts[prop]++, (v as (...x: unknown[]) => unknown).apply(target, a));
        return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      },
    });
    const fresh = new Lexicon(counted);
    // 19 letters: 19 deletions, 18 swaps, 19 × 25 substitutions, 20 × 26 insertions, each asked of 4 parts of speech.
    expect(fresh.placeSlip('qzxvbnmlkjhgfdsapoi')).toBeUndefined();
    expect(counts.lookup).toBeLessThanOrEqual(4 * (19 + 18 + 19 * 25 + 20 * 26) + 50);
    expect(counts.synset).toBeLessThan(100);
  });

  it('fills origin and destination from lowercase and slipped names, and leaves common words alone', async () => {
    const p = (await map(flightBookingTemplate, 'from londn to dublin on friday')).payload;
    expect([p['origin'], p['destination'], p['departure_date']]).toEqual(['London', 'Dublin', '2026-11-27']);
    expect((await map(flightBookingTemplate, 'a flight from Vancuver to Melborne')).payload).toMatchObject({ origin: 'Vancouver', destination: 'Melbourne' });
    // A name the template knows keeps its code; a town said as written stays as written.
    expect((await map(flightBookingTemplate, 'from Beijng to Oslo')).payload).toMatchObject({ origin: 'PEK', destination: 'Oslo' });
    const work = await map(flightBookingTemplate, 'I need to go to work from home');
    expect(work.payload['origin']).toBeUndefined();
    expect(work.payload['destination']).toBeUndefined();
  });

  it('hostile words are no town and no slip, and change nothing', () => {
    const hostile = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'a\u0000b', '\ud800', 'x\udc00y', 'a'.repeat(1 << 20), 'ab'.repeat(5000), ''];
    for (const w of hostile) {
      expect(lex.placeName(w)).toBeUndefined();
      expect(lex.placeName(w, false)).toBeUndefined();
      expect(lex.placeSlip(w)).toBeUndefined();
      expect(lex.isAddingVerb(w)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (w) => {
        const slip = lex.placeSlip(w);
        expect(slip === undefined || /^[A-Z][a-z]*( [A-Z][a-z]*)*$/.test(slip)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('people added to a party', () => {
  it('a verb of adding: its first sense is under "increase" and defined by joining; not increase, include or raise', () => {
    expect(lex.isAddingVerb('added')).toBe(true);
    expect(lex.isAddingVerb('adding')).toBe(true);
    // "include" is first "have as a part"; "raise" first the level of something.
    expect(lex.isAddingVerb('include')).toBe(false);
    expect(lex.isAddingVerb('including')).toBe(false);
    expect(lex.isAddingVerb('raised')).toBe(false);
    expect(lex.isAddingVerb('increase')).toBe(false);
    expect(lex.isAddingVerb('book')).toBe(false);
  });

  it('people a count of the whole party already holds, or said in a part of it, are not added again', async () => {
    expect((await map(flightBookingTemplate, '4 passengers including 2 kids, from Paris to Rome')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, '4 passengers from Paris to Rome, I already added the 2 kids')).payload['passenger_count']).toBe(4);
    expect((await map(flightBookingTemplate, 'five people from Lyon to Nice, I added my 2 kids')).payload['passenger_count']).toBe(5);
  });

  it('a negated adding verb, another verb and another subject add nobody', async () => {
    // The kids not added are no count of the party at all; the speaker alone is one.
    expect((await map(flightBookingTemplate, "I didn't add 2 kids, from Paris to Rome")).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, "I didn't add 2 kids, it is me alone from Paris to Rome")).payload['passenger_count']).toBe(1);
    expect((await map(flightBookingTemplate, 'I raised 2 kids, fly me from Paris to Rome')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'my mother added 2 kids, from Paris to Rome')).payload['passenger_count']).toBeUndefined();
    // The speaker's own imperative still adds to the speaker.
    expect((await map(flightBookingTemplate, 'fly me from Paris to Rome and add my 2 kids')).payload['passenger_count']).toBe(3);
  });

  it('adds the party to the count said elsewhere, or to the speaker alone', async () => {
    expect((await map(flightBookingTemplate, 'me and my husband from Paris to Rome, and add our three kids')).payload['passenger_count']).toBe(5);
    expect((await map(flightBookingTemplate, 'I added 2 kids, from Paris to Rome')).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'two adults from Paris to Rome, I added one child')).payload['passenger_count']).toBe(3);
  });

  it('adds nothing without people counted, or without anyone to add them to', async () => {
    expect((await map(flightBookingTemplate, 'from Paris to Rome, please add a vegetarian meal')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'from Paris to Rome, add my kids')).payload['passenger_count']).toBeUndefined();
  });
});
