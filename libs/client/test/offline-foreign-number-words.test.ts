import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { foreignNumberAt, foreignNumberWord } from '../src/offline/languages';
import { map } from './offline-fixture';

// Numbers past ten in French, German and Spanish words, read by their grammar (draft-zhou §6.1: the user's language
// is not the template's). Sentences written for these tests (none taken from a dev or validation set).
const words = (text: string) => {
  const ws = text.split(' ');
  return (j: number) => ws[j];
};

describe('number words of other languages', () => {
  it('reads German compounds, Spanish veinti- forms and hundreds', () => {
    expect(foreignNumberWord('siebenundvierzig')).toBe(47);
    expect(foreignNumberWord('dreihundertzwölf')).toBe(312);
    expect(foreignNumberWord('veintiséis')).toBe(26);
    expect(foreignNumberWord('quinientas')).toBe(500);
    expect(foreignNumberWord('sunday')).toBeUndefined();
  });

  it('reads counts of several words, joined or not', () => {
    expect(foreignNumberAt(words('quatre vingt douze plaintes'), 0)).toEqual({ value: 92, to: 3 });
    expect(foreignNumberAt(words('cuarenta y cinco quejas'), 0)).toEqual({ value: 45, to: 3 });
    expect(foreignNumberAt(words('deux cents clients'), 0)).toEqual({ value: 200, to: 2 });
    expect(foreignNumberAt(words('y cinco'), 0)).toBeUndefined();
  });

  it('combines words by place value only, and stops at an article', () => {
    expect(foreignNumberAt(words('vingt et un'), 0)).toEqual({ value: 21, to: 3 });
    expect(foreignNumberAt(words('soixante et onze'), 0)).toEqual({ value: 71, to: 3 });
    expect(foreignNumberAt(words('mil doscientos tres'), 0)).toEqual({ value: 1203, to: 3 });
    expect(foreignNumberAt(words('deux un peu plus'), 0)).toEqual({ value: 2, to: 1 });
    expect(foreignNumberAt(words('dos y tres'), 0)).toEqual({ value: 2, to: 1 });
    expect(foreignNumberAt(words('cinq six plaintes'), 0)).toEqual({ value: 5, to: 1 });
    expect(foreignNumberAt(words('fünf sechs Beschwerden'), 0)).toEqual({ value: 5, to: 1 });
  });

  it('does not add up a degree and the words after it', async () => {
    const smoothing = async (text: string) => (await map(photoRetouchTemplate, text)).payload['skin_smoothing'];
    expect(await smoothing('lisser la peau niveau deux un peu plus')).toBe(2);
    expect(await smoothing('Haut glätten auf Stufe zwei ein bisschen mehr')).toBe(2);
    expect(await smoothing('suavizar la piel nivel tres un poco más')).toBe(3);
    expect(await smoothing('suavizar la piel nivel dos y tres')).not.toBe(5);
    expect(await smoothing('lissage de la peau niveau cinq six')).not.toBe(11);
    expect((await map(faultManagementTemplate, 'INC-7 site 12 en panne, cinq six plaintes')).payload['user_complaint_count']).not.toBe(11);
  });

  it('reads a count of people past ten, or none when the key cannot take it (no last word alone)', async () => {
    // The flight template's passenger_count is 1-9; the same key up to 99 takes the whole number.
    const upTo99 = { ...flightBookingTemplate, keys: flightBookingTemplate.keys.map((k) => (k.key_name === 'passenger_count' ? { ...k, maximum: 99 } : k)) };
    const count = async (template: typeof flightBookingTemplate, text: string) => (await map(template, text)).payload['passenger_count'];
    expect(await count(upTo99, 'de Paris à Lyon pour vingt-cinq personnes')).toBe(25);
    expect(await count(upTo99, 'de Madrid a Sevilla, somos treinta y dos')).toBe(32);
    expect(await count(flightBookingTemplate, 'de Paris à Lyon pour vingt-cinq personnes')).toBeUndefined();
    expect(await count(flightBookingTemplate, 'de Paris à Lyon pour deux personnes')).toBe(2);
  });

  it('fills a count and a degree', async () => {
    expect((await map(faultManagementTemplate, 'INC-7 Standort 12 gestört, siebzig Beschwerden')).payload['user_complaint_count']).toBe(70);
    expect((await map(faultManagementTemplate, 'INC-7 le site 12 est en panne, une cinquantaine de plaintes')).payload['user_complaint_count']).toBe(50);
    expect((await map(photoRetouchTemplate, 'lissage de la peau au niveau dix')).payload['skin_smoothing']).toBe(10);
  });

  it('keeps English words that spell a foreign number for English', async () => {
    expect((await map(faultManagementTemplate, 'INC-7 site 12 went down once, 3 complaints')).payload['user_complaint_count']).toBe(3);
  });

  it('stays bounded on a long run of number words', () => {
    const run = Array.from({ length: 100_000 }, () => 'vingt');
    expect(foreignNumberAt((j) => run[j], 0)).toEqual({ value: 20, to: 1 });
    expect(foreignNumberWord('hundert'.repeat(1000))).toBeUndefined();
  });
});
