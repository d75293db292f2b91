import { faultManagementTemplate, photoRetouchTemplate } from '@parley/examples';
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
    expect(foreignNumberAt((j) => run[j], 0)?.to).toBe(6);
    expect(foreignNumberWord('hundert'.repeat(1000))).toBeUndefined();
  });
});
