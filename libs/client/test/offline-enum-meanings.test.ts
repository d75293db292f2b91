import { flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// Enum values said in other words (draft-zhou §6.1, Figure 1 step 4): a word whose first WordNet meaning names one
// value's sense, a likeness ("look like …", "…-like"), two words agreeing on a value, and an ordinal that counts
// another noun. Sentences of our own, not the bench's. Reference: Thursday 2026-11-26 in Paris.
let lex: Lexicon;

beforeAll(async () => {
  lex = await loadLexicon();
}, 120_000);

describe('Lexicon.meaningWords', () => {
  it('reads the first sense of a noun or adjective: its members and its definition words', () => {
    expect(lex.meaningWords('movie')).toContain('film');
    expect(lex.meaningWords('hollywood')).toContain('film');
    expect(lex.meaningWords('cozy')).toContain('warmth');
    // Not a rarer sense: a blockbuster's first sense is a bomb.
    expect(lex.meaningWords('blockbuster')).not.toContain('movie');
    expect(lex.meaningWords('movie')).not.toContain('movie');
  });

  it('is empty for what WordNet does not know, and for hostile strings', () => {
    for (const w of ['', '__proto__', 'toString', '\u0000', '\ud800', 'a'.repeat(1 << 20)]) expect(lex.meaningWords(w).size, JSON.stringify(w.slice(0, 20))).toBe(0);
    // "constructor" is an English word (a builder): its meaning, read as any other word's, not Object's.
    expect(lex.meaningWords('constructor')).toContain('builder');
  });
});

describe('an enum value named by a word of its meaning', () => {
  it('maps it where it is said of the look: a likeness, a hyphen, a noun for a quality', async () => {
    expect((await map(photoRetouchTemplate, 'I want the portrait to look like a frame from a movie')).payload['filter_style']).toBe('cinematic');
    expect((await map(photoRetouchTemplate, 'a hollywood-style grade for my headshot')).payload['filter_style']).toBe('cinematic');
    expect((await map(photoRetouchTemplate, 'a cozy tone for the family picture')).payload['filter_style']).toBe('warm');
  });

  it('reads nothing from such a word said of something else', async () => {
    const movie = await map(photoRetouchTemplate, 'we saw a movie yesterday, please whiten my teeth');
    expect(movie.payload['filter_style']).toBeUndefined();
    expect(movie.payload['teeth_whitening']).toBe(true);
    expect((await map(photoRetouchTemplate, 'a picture of our cozy cabin, blur the background')).payload['filter_style']).toBeUndefined();
  });
});

describe('a value sense said as a likeness or by two agreeing words', () => {
  it('maps an evoked word framed by "look like" or "feel like"', async () => {
    expect((await map(photoRetouchTemplate, 'make the shot feel like an old photograph from my grandparents')).payload['filter_style']).toBe('vintage');
  });

  it('maps two words agreeing on one value, and not one alone', async () => {
    expect((await map(photoRetouchTemplate, 'give the lake picture an icy, wintry vibe')).payload['filter_style']).toBe('cool');
    expect((await map(photoRetouchTemplate, 'the lake picture from that icy morning, remove the dust spot')).payload['filter_style']).toBeUndefined();
    // A noun whose definition says the word before it ("chocolate": drunk hot) is no second word for the look.
    expect((await map(photoRetouchTemplate, 'my hot chocolate spilled on the photo, remove the stain')).payload['filter_style']).toBeUndefined();
  });
});

describe('an ordinal enum value that counts another noun', () => {
  it('is no cabin in "the first week of March"', async () => {
    const m = await map(flightBookingTemplate, 'a flight from Rome to Oslo in the first week of March');
    expect(m.payload['cabin_class']).toBeUndefined();
    expect(m.other.join(' ')).toContain('first');
  });

  it('is still a cabin said alone or before its cue', async () => {
    expect((await map(flightBookingTemplate, 'fly me from Rome to Oslo tomorrow in first, please')).payload['cabin_class']).toBe('first');
    expect((await map(flightBookingTemplate, 'a first class flight from Rome to Oslo tomorrow')).payload['cabin_class']).toBe('first');
  });
});

describe("a switch said by the adjective of its action's result", () => {
  it('reads the adjective a verb definition gives its result', () => {
    expect([...lex.resultAdjectives('enlargement')]).toContain('large');
    expect([...lex.resultAdjectives('whitening')]).toContain('white');
    // "make less distinct" takes a quality away: no result adjective.
    expect(lex.resultAdjectives('blur').has('less')).toBe(false);
    for (const w of ['', '__proto__', '\u0000', 'z'.repeat(1 << 20)]) expect(lex.resultAdjectives(w).size).toBe(0);
  });

  it('maps it asked for beside the switch object: a comparative, a wish, a list item', async () => {
    expect((await map(photoRetouchTemplate, 'make my eyes larger in the wedding portrait')).payload['eye_enlargement']).toBe(true);
    expect((await map(photoRetouchTemplate, 'light skin smoothing, huge eyes')).payload['eye_enlargement']).toBe(true);
  });

  it('reads no switch from a description, a refusal, or a fine-grained degree', async () => {
    // "eyes to look bigger" is how they should look, for `other` (draft-zhou §5.2, Figure 5's note).
    for (const text of ['my big eyes look tired in this portrait, smooth the skin', "please don't make my eyes bigger", 'make the eyes a tiny bit bigger', 'could my eyes look bigger in the wedding portrait']) {
      expect((await map(photoRetouchTemplate, text)).payload['eye_enlargement'], text).toBeUndefined();
    }
  });
});

describe('the middle of a range said in words', () => {
  it('reads a word WordNet defines as the middle of a scale', () => {
    expect(lex.isMidpoint('medium')).toBe(true);
    expect(lex.isMidpoint('halfway')).toBe(true);
    expect(lex.isMidpoint('strong')).toBe(false);
    for (const w of ['', '__proto__', '\u0000', 'm'.repeat(1 << 20)]) expect(lex.isMidpoint(w)).toBe(false);
  });

  it("maps it beside the key's cue to the midpoint of the template's range", async () => {
    expect((await map(photoRetouchTemplate, 'beach portrait, medium smoothing please')).payload['skin_smoothing']).toBe(5);
    expect((await map(photoRetouchTemplate, 'smooth my skin, roughly halfway')).payload['skin_smoothing']).toBe(5);
  });

  it("reads no middle said of another noun, nor a count of people's", async () => {
    expect((await map(photoRetouchTemplate, 'a medium coffee cup in my hand and smooth skin')).payload['skin_smoothing']).not.toBe(5);
    expect((await map(flightBookingTemplate, 'Rome to Oslo tomorrow, the middle seat for one passenger')).payload['passenger_count']).not.toBe(5);
  });
});

describe('a destination said without "to"', () => {
  it('reads a verb of arriving from WordNet', () => {
    expect(lex.isArrivalVerb('reach')).toBe(true);
    expect(lex.isArrivalVerb('land')).toBe(true);
    expect(lex.isArrivalVerb('get')).toBe(false);
    expect(lex.isArrivalVerb('book')).toBe(false);
    for (const w of ['', '__proto__', '\u0000', 'r'.repeat(1 << 20)]) expect(lex.isArrivalVerb(w)).toBe(false);
  });

  it('maps the place after a verb of arriving, after "have to be in", and "there" for the place named before', async () => {
    expect((await map(flightBookingTemplate, 'I must reach Lima from Quito on Friday')).payload['destination']).toBe('Lima');
    expect((await map(flightBookingTemplate, 'we need to be in Vienna on Friday, flying from Madrid')).payload['destination']).toBe('Vienna');
    const there = await map(flightBookingTemplate, 'my sister lives in Porto, so fly me there from Berlin on Friday');
    expect(there.payload['destination']).toBe('Porto');
    expect(there.payload['origin']).toBe('Berlin');
    expect((await map(flightBookingTemplate, 'we are heading for Lisbon out of Madrid on Friday')).payload['destination']).toBe('Lisbon');
  });

  it('reads no destination from "for" before a name that is no place', async () => {
    const m = await map(flightBookingTemplate, 'I am travelling for Siemens from Rome to Oslo on Friday');
    expect(m.payload['destination']).toBe('Oslo');
    expect(m.other.join(' ')).toContain('Siemens');
  });

  it('reads no destination from a place one was in, a person reached, or "there" with no place before', async () => {
    const was = await map(flightBookingTemplate, 'I was in Paris last week; now a flight from Rome to Oslo on Friday');
    expect(was.payload['destination']).toBe('Oslo');
    expect((await map(flightBookingTemplate, 'I could not reach my manager, book a flight from Rome on Friday')).payload['destination']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'get me there from Rome on Friday')).payload['destination']).toBeUndefined();
  });
});

describe('German "ab" before the origin', () => {
  it('reads the town after "ab" as the origin, and nothing from an English "ab"', async () => {
    const m = await map(flightBookingTemplate, 'einen Flug nach Wien ab Graz am Freitag');
    expect(m.payload['origin']).toBe('Graz');
    expect(m.payload['destination']).toBe('Wien');
    const en = await map(flightBookingTemplate, 'a flight from Rome to Oslo on Friday, my ab workout can wait');
    expect(en.payload['origin']).toBe('Rome');
  });
});

describe('bounded work on long repetitive text', () => {
  it("maps the longest utterance accepted, made of the new rules' triggers, in bounded time", async () => {
    for (const unit of ['get me there ', 'bigger eyes ', 'look like a movie-like frosty, bluish ', 'medium smoothing ', 'the first week ', 'heading for Lisbon ']) {
      // MAX_UTTERANCE_CHARS (2000): the longest utterance a mapper is given.
      const text = unit.repeat(Math.floor(1990 / unit.length)).trim();
      const started = Date.now();
      const m = await map(/there|week|Lisbon/.test(unit) ? flightBookingTemplate : photoRetouchTemplate, text);
      expect(typeof m.payload, unit).toBe('object');
      expect(Date.now() - started, unit).toBeLessThan(10_000);
    }
  }, 120_000);
});
