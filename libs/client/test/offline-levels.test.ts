import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { map } from './offline-fixture';

// A number the noun "level" names (or a CJK numeral with the level suffix) is a position on a scale: it rates what the
// clause before it named, across one comma (draft-zhou §6.1, a number key with a range). Sentences of our own.
describe('a level rates the key the clause before it named', () => {
  const smoothing = async (text: string) => (await map(photoRetouchTemplate, text)).payload['skin_smoothing'];

  it('reads the level after a comma, in English, through the glossary, and as a CJK numeral with 级', async () => {
    expect(await smoothing('please smooth my skin, level seven, thanks')).toBe(7);
    expect(await smoothing('die Haut bitte glätten, Stufe 3')).toBe(3);
    expect(await smoothing('给我磨皮三级')).toBe(3);
  });

  it('reads a level in brackets after the key, in English and in Japanese', async () => {
    expect(await smoothing('skin smoothing (level 4) please')).toBe(4);
    expect(await smoothing('肌をきれいに（レベル7）')).toBe(7);
    // Another key's name inside the brackets takes the level.
    expect(await smoothing('smooth my skin (blur level 5)')).not.toBe(5);
  });

  it('does not rate another key, a level past the scale, or a count', async () => {
    // The clause before names the background, not the skin.
    expect(await smoothing('blur the background, level 5')).toBeUndefined();
    // Past the 0-10 scale.
    expect(await smoothing('smooth my skin, level 40')).toBeUndefined();
    // A count is no position on a scale.
    const fault = await map(faultManagementTemplate, 'incident X-1, complaints came in, level 3 escalation');
    expect(fault.payload['user_complaint_count']).toBeUndefined();
    const flight = await map(flightBookingTemplate, 'two seats to Rome, level 3 lounge');
    expect(flight.payload['passenger_count']).toBe(2);
  });
});

// A level belongs to its own clause and, before a noun, to that noun.
describe('a level of another clause or of a noun', () => {
  const smoothing = async (text: string) => (await map(photoRetouchTemplate, text)).payload['skin_smoothing'];

  it('does not rate the key across a joiner or a new subject', async () => {
    expect(await smoothing("skin smoothing, but I'm level 9 in the game")).toBeUndefined();
    expect(await smoothing('skin smoothing was no problem, level 8')).toBeUndefined();
    expect(await smoothing('smooth my skin, so level 6 in the end')).toBeUndefined();
    // One comma only: a second one puts the level after another phrase.
    expect(await smoothing('skin smoothing, the hair, level 5')).toBeUndefined();
  });

  it('does not rate the key with the level of a noun or of another key', async () => {
    expect(await smoothing('skin smoothing was no problem, level 8 teeth whitening')).toBeUndefined();
    expect(await smoothing('smooth my skin, the level 3 background')).toBeUndefined();
    expect(await smoothing('smooth my skin on the level 3 photo')).toBeUndefined();
    expect(await smoothing('smooth my skin, my level 3 exam photo')).toBeUndefined();
    expect(await smoothing('smooth my skin, level 3 please')).toBe(3);
  });
});
