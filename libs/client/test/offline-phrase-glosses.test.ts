import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import { glossTokens, GLOSSES, PHRASE_GLOSSES } from '../src/offline/glossary';
import { tokenize } from '../src/offline/text';
import type { Lexicon } from '../src/offline/lexicon';
import { loadLexicon, map } from './offline-fixture';

// The glosses of the templates' example alarm names and enum values in other languages, and a dictionary entry of
// several words read whole (draft-zhou §6.1: the client agent maps the user's words, in whatever language, onto the
// template's keys). Sentences written for these tests, none taken from a dev or validation set.

let lex: Lexicon;
beforeAll(async () => {
  lex = await loadLexicon();
}, 60_000);

describe('a dictionary entry of several words', () => {
  it('reads as its gloss, word by word in order, each token keeping its own text and offsets', () => {
    const text = 'la antena 12 está fuera  de servicio';
    const out = glossTokens(tokenize(text), (w) => lex.known(w));
    expect(out.map((t) => t.lower)).toEqual(['la', 'antena', '12', 'está', 'out', 'of', 'service']);
    for (const t of out) expect(text.slice(t.start, t.end)).toBe(t.text);
    // A phrase of two words whose gloss has three: the second word carries the rest ("außer" out, "Betrieb" of service).
    expect(glossTokens(tokenize('der Sender ist außer Betrieb'), (w) => lex.known(w)).map((t) => t.lower)).toEqual(['der', 'sender', 'ist', 'out', 'of', 'service']);
  });

  it('is read only whole: its words apart keep their own glosses or none', () => {
    expect(glossTokens(tokenize('fuera de casa'), (w) => lex.known(w)).map((t) => t.lower)).toEqual(['fuera', 'de', 'casa']);
    expect(glossTokens(tokenize('un turista en clase'), (w) => lex.known(w)).map((t) => t.lower)).toEqual(['un', 'turista', 'en', 'class']);
  });

  it('is kept apart from the one-word glosses, and no phrase has fewer gloss words than words', () => {
    expect(GLOSSES.has('fuera de servicio')).toBe(false);
    for (const [first, list] of PHRASE_GLOSSES) for (const p of list) expect(p.gloss.length, first).toBeGreaterThanOrEqual(p.rest.length + 1);
  });

  it('leaves an English sentence as said', () => {
    expect(glossTokens(tokenize('the basso sang low'), (w) => lex.known(w)).map((t) => t.lower)).toEqual(['the', 'basso', 'sang', 'low']);
  });
});

describe('the example alarm names in other languages', () => {
  it('"out of service" said in German, Spanish, French and Chinese is the example name', async () => {
    for (const text of [
      'Störung K-51: die Basisstation 8800 ist seit 04:10 außer Betrieb',
      'Incidente K-52: la estación base 8801 quedó fuera de servicio a las 04:10',
      'Incident K-53 : la station de base 8802 est hors service depuis 04:10',
      '故障 K-54：基站 8803 凌晨4点退服',
    ]) {
      expect((await map(faultManagementTemplate, text)).payload['alarm_type'], text).toBe('base_station_out_of_service');
    }
  });

  it('"optical power too low" said in Chinese is the example name', async () => {
    expect((await map(faultManagementTemplate, '事件 K-55：站点 4411 光功率过低')).payload['alarm_type']).toBe('optical_power_low');
  });
});

describe('enum values and degrees in other languages', () => {
  it('"clase turista" is economy class', async () => {
    expect((await map(flightBookingTemplate, 'un vuelo de Sevilla a Oslo el lunes, en clase turista')).payload['cabin_class']).toBe('economy');
  });

  it('"légèrement" (slightly) is a light degree of smoothing', async () => {
    expect((await map(photoRetouchTemplate, 'lisse légèrement la peau sur ce portrait')).payload['skin_smoothing']).toBe(3);
  });
});
