import { flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// A degree said in other words than the template's example, "we are N" in other languages, and a party the speaker
// travels with counted one by one (draft-zhou §6.1). Sentences of their own, not the bench's.
let lex: Lexicon;

beforeAll(async () => {
  lex = await loadLexicon();
}, 120_000);

describe('the degree a word says, from its WordNet definitions', () => {
  it('is small for "slightly", "a bit" and the example\'s "light", great for "a lot", none for words of no degree', () => {
    for (const w of ['slightly', 'slight', 'a_bit', 'a_little', 'light']) expect(lex.degreeOf(w)).toBe(-1);
    for (const w of ['a_lot', 'heavily']) expect(lex.degreeOf(w)).toBe(1);
    for (const w of ['tiny', 'blue', 'window', 'very']) expect(lex.degreeOf(w)).toBe(0);
  });

  it('hostile words say no degree', () => {
    for (const w of ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'a'.repeat(1 << 20), 'a_'.repeat(5000), '']) expect(lex.degreeOf(w)).toBe(0);
  });

  it('a word of the example\'s degree takes the example\'s value beside a cue of the key', async () => {
    // 'light skin smoothing' -> 3: "slight", "a bit", "slightly" are small degrees too.
    expect((await map(photoRetouchTemplate, 'slight skin smoothing please')).payload['skin_smoothing']).toBe(3);
    expect((await map(photoRetouchTemplate, 'smooth the skin a bit and whiten the teeth')).payload['skin_smoothing']).toBe(3);
    expect((await map(photoRetouchTemplate, 'smooth my skin slightly')).payload['skin_smoothing']).toBe(3);
  });

  it('the degree of something else said beside the bare object of the key is no degree of its act', async () => {
    for (const words of ['the skin looks a bit dull, brighten it', 'keep the skin slightly natural, add grain', 'the skin is slightly red, smooth it']) {
      expect((await map(photoRetouchTemplate, words)).payload['skin_smoothing'], words).toBeUndefined();
    }
    expect((await map(photoRetouchTemplate, 'just a little smoothing on my cheeks')).payload['skin_smoothing']).toBe(3);
  });

  it('not without a cue, not negated, not a degree the template fixes no value for, not over a number said', async () => {
    expect((await map(photoRetouchTemplate, 'make it slightly warmer')).payload['skin_smoothing']).toBeUndefined();
    expect((await map(photoRetouchTemplate, "don't smooth the skin a bit")).payload['skin_smoothing']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'smooth the skin a lot')).payload['skin_smoothing']).toBeUndefined();
    expect((await map(photoRetouchTemplate, 'skin smoothing 2, just slightly')).payload['skin_smoothing']).toBe(2);
  });
});

describe('counts of people in other words', () => {
  it('"we are" negated, out of range, or before another noun counts nobody', async () => {
    expect((await map(flightBookingTemplate, 'no somos seis, somos tres, de Quito a Lima')).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, 'somos 4 hermanos pero viajo solo, de Quito a Lima')).payload['passenger_count']).toBe(1);
    expect((await map(flightBookingTemplate, 'somos 500, de Quito a Lima')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'nous ne sommes pas cinq, de Lyon à Nice')).payload['passenger_count']).toBeUndefined();
  });

  it('"we are" then a number in Spanish, French and Italian', async () => {
    expect((await map(flightBookingTemplate, 'de Madrid a Lima el 20 de diciembre, somos cinco')).payload['passenger_count']).toBe(5);
    const fr = await map(flightBookingTemplate, 'de Paris à Rome, nous sommes trois adultes');
    expect(fr.payload['passenger_count']).toBe(3);
    expect(fr.payload['other']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'somos muchos')).payload['passenger_count']).toBeUndefined();
  });

  it('a party the speaker travels with counts one by one without a number; one met or of a past trip does not', async () => {
    expect((await map(flightBookingTemplate, "I'll be travelling with my wife and my mother from Cairo to Rome")).payload['passenger_count']).toBe(3);
    expect((await map(flightBookingTemplate, "I'm flying with my husband to Rome")).payload['passenger_count']).toBe(2);
    expect((await map(flightBookingTemplate, 'I went with my brother last year, now from Paris to Rome')).payload['passenger_count']).toBeUndefined();
    expect((await map(flightBookingTemplate, 'I fly with my dog from Paris to Rome')).payload['passenger_count']).toBeUndefined();
  });
});
