import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { beforeAll, describe, expect, it } from 'vitest';
import { glossTokens, GLOSSES, phraseGlosses } from '../src/offline/glossary';
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

  it('is kept apart from the one-word glosses, and a phrase of more words than its gloss is refused loudly', () => {
    expect(GLOSSES.has('fuera de servicio')).toBe(false);
    expect(() => phraseGlosses([['down', ['fuera de servicio']]])).toThrow(/more words than its gloss/);
    expect(phraseGlosses([['out of service', ['fuera de servicio']]]).get('fuera')).toEqual([{ rest: ['de', 'servicio'], gloss: ['out', 'of', 'service'] }]);
  });

  it('is not read where its last word heads a name ("außer Betrieb Nord": all but plant North)', async () => {
    for (const text of ['Alle Standorte außer Betrieb Nord melden einen Glasfaserbruch seit 04:10', 'Die Basisstation 12 außer Betrieb 3 meldet Stromausfall seit 04:10']) {
      expect((await map(faultManagementTemplate, text)).payload['alarm_type'], text).not.toBe('base_station_out_of_service');
    }
  });
});

describe('words of the dictionaries that misfire on ordinary sentences are not glossed', () => {
  it('leaves an English sentence with a place name as said (Baja, Basse-Terre are places, not "low")', async () => {
    expect((await map(flightBookingTemplate, 'book a flight from Denver to Baja on Monday')).payload['destination']).toBe('Baja');
    const book = await map(flightBookingTemplate, 'book premier seats from Denver to Baja on Monday');
    expect(book.payload['destination']).toBe('Baja');
    expect(book.payload['cabin_class']).toBeUndefined();
    expect((await map(faultManagementTemplate, 'Site 12 at the Baja depot: fiber cut since 04:10')).payload['alarm_type']).toBe('fiber_cut');
    expect(glossTokens(tokenize('Fiber cut near Basse-Terre, site 4 down'), (w) => lex.known(w)).map((t) => t.lower)).not.toContain('low');
  });

  it('reads Spanish "bajo" (under) and "baja" (low priority) as no alarm', async () => {
    for (const text of ['el enlace de fibra bajo el puente está cortado desde las 04:10', 'estación base 8803 sin corriente, prioridad baja']) {
      const a = (await map(faultManagementTemplate, text)).payload['alarm_type'];
      expect(a === undefined || !String(a).includes('low'), `${text}: ${String(a)}`).toBe(true);
    }
  });

  it('does not cut 低 out of other Chinese words (低优先级, 最低价, 降低)', async () => {
    expect((await map(faultManagementTemplate, '基站 8803 电源中断，低优先级')).payload['alarm_type']).toBe('power_down');
    for (const text of ['帮我订周一北京到上海最低价的机票', '站点 12 的 CPU 使用率降低了']) {
      expect(glossTokens(tokenize(text), (w) => lex.known(w)).map((t) => t.lower), text).not.toContain('low');
    }
  });

  it('does not read Russian "не работает" (does not work, of any subject) as a base station out of service', async () => {
    for (const text of ['базовая станция 5 работает, только линк не работает с 04:10', 'инженер не работает по выходным, на базовой станции 5 обрыв волокна с 04:10']) {
      expect((await map(faultManagementTemplate, text)).payload['alarm_type'], text).not.toBe('base_station_out_of_service');
    }
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
