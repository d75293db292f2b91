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

  it('reads a hyphened likeness only of a look, and a noun by its noun sense', async () => {
    // "X-style N" qualifies N: teeth and a shirt are things, not a look.
    expect((await map(photoRetouchTemplate, 'Hollywood-style teeth')).payload['filter_style']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'a western-style shirt, blur background')).payload['filter_style']).toBeUndefined();
    // "a sunset" is the noun (the time the sun sets), not the adjective "of a declining industry".
    expect((await map(photoRetouchTemplate, 'make the sky look like a sunset')).payload['filter_style']).toBeUndefined();
    // After "like", a clause of its own says what one thinks, not what the picture resembles.
    expect((await map(photoRetouchTemplate, "feel like it's too cold, smooth skin")).payload['filter_style']).toBeUndefined();
  });
});

describe('a value sense said as a likeness or by two agreeing words', () => {
  it('maps an evoked word framed by "look like" or "feel like"', async () => {
    expect((await map(photoRetouchTemplate, 'make the shot feel like an old photograph from my grandparents')).payload['filter_style']).toBe('vintage');
  });

  it('maps two words agreeing on one value, and not one alone', async () => {
    expect((await map(photoRetouchTemplate, 'give the lake picture an icy, wintry vibe')).payload['filter_style']).toBe('cool');
    // The first word stands before a comma, not a noun for a quality: only the second word agreeing cues it.
    expect((await map(photoRetouchTemplate, 'the lake picture, icy, wintry please')).payload['filter_style']).toBe('cool');
    expect((await map(photoRetouchTemplate, 'the lake picture from that icy morning, remove the dust spot')).payload['filter_style']).toBeUndefined();
    // A noun whose definition says the word before it ("chocolate": drunk hot) is no second word for the look.
    expect((await map(photoRetouchTemplate, 'my hot chocolate spilled on the photo, remove the stain')).payload['filter_style']).toBeUndefined();
  });

  it('reads no agreement of a word with itself, nor of words about the scene', async () => {
    for (const text of ['an old, old friend in the photo, smooth skin', 'an old and old friend in the photo, smooth skin', 'blue sky and cold water, remove the boat', 'an icy lake, wintry, blur the background', 'the lake picture, wintry, icy water please', 'the lake picture, icy water, wintry please', 'the lake picture, icy, icy please']) {
      expect((await map(photoRetouchTemplate, text)).payload['filter_style'], text).toBeUndefined();
    }
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
    // Before a noun that is no time and no part of a whole, the ordinal is the cabin.
    expect((await map(flightBookingTemplate, 'first seats from Rome to Oslo Friday')).payload['cabin_class']).toBe('first');
    expect((await map(flightBookingTemplate, 'book first Rome to Oslo Friday')).payload['cabin_class']).toBe('first');
  });

  it('is no cabin before a noun of time or a part counted of a whole', async () => {
    expect((await map(flightBookingTemplate, 'Rome to Oslo, sometime in the first month of next year')).payload['cabin_class']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Rome to Oslo on Friday, I sleep through the first half of every flight')).payload['cabin_class']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'Rome to Oslo on Friday, I sleep the first hour')).payload['cabin_class']).toBeUndefined();
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

  it('reads no switch from a comparative or an adjective that describes', async () => {
    for (const text of ['my eyes are bigger in this one, smooth skin', 'the eyes are larger than the mouth, fine', 'my eyes are bigger than my stomach, smooth skin', 'I love her big eyes, smooth skin']) {
      expect((await map(photoRetouchTemplate, text)).payload['eye_enlargement'], text).toBeUndefined();
    }
  });

  it('maps it asked for beside the switch object: a wish, a list item', async () => {
    expect((await map(photoRetouchTemplate, "I'd love bigger eyes in this one")).payload['eye_enlargement']).toBe(true);
    expect((await map(photoRetouchTemplate, 'can you give me bigger eyes')).payload['eye_enlargement']).toBe(true);
    // "please" after it, a verb in its base form opening the clause.
    expect((await map(photoRetouchTemplate, 'bigger eyes please')).payload['eye_enlargement']).toBe(true);
    expect((await map(photoRetouchTemplate, 'give me bigger eyes')).payload['eye_enlargement']).toBe(true);
    expect((await map(photoRetouchTemplate, 'make my eyes larger in the wedding portrait')).payload['eye_enlargement']).toBe(true);
    expect((await map(photoRetouchTemplate, 'light skin smoothing, huge eyes')).payload['eye_enlargement']).toBe(true);
  });

  it('reads no switch from a description, a refusal, or a fine-grained degree', async () => {
    // "eyes to look bigger" is how they should look, for `other` (draft-zhou §5.2, Figure 5's note).
    for (const text of ['my big eyes look tired in this portrait, smooth the skin', "please don't make my eyes bigger", 'make the eyes a tiny bit bigger', 'could my eyes look bigger in the wedding portrait', 'make my eyes slightly bigger']) {
      expect((await map(photoRetouchTemplate, text)).payload['eye_enlargement'], text).toBeUndefined();
    }
  });
});

describe('German "ab" before the origin', () => {
  it('reads the town after "ab" as the origin, and nothing from an English "ab"', async () => {
    const m = await map(flightBookingTemplate, 'einen Flug nach Wien ab Graz am Freitag');
    expect(m.payload['origin']).toBe('Graz');
    expect(m.payload['destination']).toBe('Wien');
    const en = await map(flightBookingTemplate, 'a flight from Rome to Oslo on Friday, my ab workout can wait');
    expect(en.payload['origin']).toBe('Rome');
    // "ab und zu" (now and then) is no route word before a name.
    const now = await map(flightBookingTemplate, 'ab und zu fliege ich nach Wien, diesmal von Graz am Freitag');
    expect(now.payload['origin']).toBe('Graz');
    expect(now.payload['destination']).toBe('Wien');
  });
});

describe('bounded work on long repetitive text', () => {
  it("maps the longest utterance accepted, made of the new rules' triggers, in bounded time", async () => {
    for (const unit of ['make my eyes bigger ', 'look like a movie-like frosty, bluish ', 'the first week ']) {
      // MAX_UTTERANCE_CHARS (2000): the longest utterance a mapper is given.
      const text = unit.repeat(Math.floor(1990 / unit.length)).trim();
      const started = Date.now();
      const m = await map(/week/.test(unit) ? flightBookingTemplate : photoRetouchTemplate, text);
      expect(typeof m.payload, unit).toBe('object');
      expect(Date.now() - started, unit).toBeLessThan(10_000);
    }
  }, 120_000);
});
