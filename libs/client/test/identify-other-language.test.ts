import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { WordNet, defaultDictDir } from '@parley/embeddings';
import { describe, expect, it } from 'vitest';
import { createParleyClient, glossByGlossary, selectionQuery, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { Lexicon } from '../src/offline/lexicon';
import { FUNCTION_WORDS, tokenize } from '../src/offline/text';
import { saidInOtherLanguage } from '../src/offline/languages';

// Scenario identification (draft-zhou §6.1, Figure 1 step 2) of a request said in French, Spanish, Italian, Portuguese
// or German: the elided article keeps its word ("billet d'avion"), selection ranks on the glossary's English, and that
// language's function words are no content, as English's are not. Sentences of our own, not from the dev or
// validation sets.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };
const words = (s: string) => tokenize(s).filter((t) => t.kind === 'word').map((t) => t.lower);

describe('an elided article or preposition', () => {
  it('keeps the word after it (French, Italian)', () => {
    expect(words("un billet d'avion")).toEqual(['un', 'billet', 'd', 'avion']);
    expect(words("l'image de l'hôtel")).toEqual(['l', 'image', 'de', 'l', 'hôtel']);
    expect(words("il biglietto dell'aereo")).toEqual(['il', 'biglietto', 'dell', 'aereo']);
  });

  it('leaves English clitics and names as they were', () => {
    expect(words("don't")).toEqual(['do', 'not']);
    expect(words("it's the landlord's car")).toEqual(['it', 'the', 'landlord', 'car']);
    expect(words("we'd land at O'Hare at 7 o'clock")).toEqual(['we', 'land', 'at', 'o', 'at', 'o']);
    expect(words("they're late, ma'am")).toEqual(['they', 'late', 'ma']);
  });
});

describe('selection on the glossary', () => {
  it('adds the English of words said in another language, and nothing to an English request', async () => {
    const gloss = await glossByGlossary();
    expect(gloss('un vuelo a Lima')).toEqual(['flight']);
    expect(selectionQuery('un vuelo a Lima', gloss)).toBe('un vuelo a Lima flight');
    for (const s of ['book a flight to Lima', 'a client of mine needs a photo', 'my router is down again']) {
      expect(gloss(s), s).toEqual([]);
      expect(selectionQuery(s, gloss), s).toBe(s);
    }
  });
});

describe('a request said in another language', () => {
  const lex = WordNet.load({ dictDir: defaultDictDir() }).then((wn) => new Lexicon(wn));
  const other = async (s: string) => {
    const l = await lex;
    return saidInOtherLanguage(words(s), (w) => FUNCTION_WORDS.has(w), (w) => l.known(w));
  };

  it('is read by its function words', async () => {
    for (const s of ["Je voudrais un billet d'avion pour lundi", 'Necesito un vuelo de Quito a Lima el martes', 'Ich brauche einen Flug nach Wien am Freitag', 'vorrei un volo per Roma con mia moglie']) {
      expect(await other(s), s).toBe(true);
    }
  });

  it('is not an English request with a foreign name or two in it', async () => {
    for (const s of [
      'fly me from Los Angeles to Las Vegas on Friday',
      'book a table at La Casa del Sol for two',
      'a photo of Notre Dame at night',
      'can you pick up some milk on the way home',
      'the meeting moved to Tuesday at 10',
      'remind me to call mum tonight',
      'what time does the game start',
    ]) {
      expect(await other(s), s).toBe(false);
    }
  });

  it('identifies a flight said in French or Spanish as its English counterpart is', async () => {
    for (const s of ["Je voudrais un billet d'avion Paris-Nice pour lundi prochain", 'Necesito volar de Quito a Lima el próximo martes, solo yo, con una maleta facturada']) {
      expect((await client.identifyScenario(s, { ...REF, catalog })).scenario, s).toBe('flight_booking');
    }
  });

  it('leaves ordinary sentences and other requests unidentified', async () => {
    for (const s of [
      'Je voudrais un rendez-vous chez le dentiste pour lundi prochain',
      'Quiero reservar una mesa para dos en el restaurante el sábado',
      "Ich möchte die Rechnung für den letzten Monat sehen",
      'can you pick up some milk on the way home',
      'send the slides to Anna before lunch',
      'remind me to call mum tonight',
      'what time does the game start',
      'I need a haircut next week',
    ]) {
      expect((await client.identifyScenario(s, { ...REF, catalog })).scenario, s).toBeNull();
    }
  });
});
