import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { createParleyClient, glossByGlossary, selectionQuery, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { Lexicon } from '../src/offline/lexicon';
import { FUNCTION_WORDS, tokenize } from '../src/offline/text';
import { saidInOtherLanguage, unreadKinds, type WordReading } from '../src/offline/languages';

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
  const lex = import('@parley/embeddings').then(({ WordNet, defaultDictDir }) => WordNet.load({ dictDir: defaultDictDir() })).then((wn) => new Lexicon(wn));
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

// The guard (draft-zhou §6.1): in a request said in another language, a kind of the thing asked for that nothing reads
// ("un billete de tren": the ticket is glossed, the kind of ticket is read by nothing) leaves the claim unproven, as a
// sister said in English does ("a train ticket"). Requests of our own, not from the dev or validation sets.
describe('a kind of the thing asked for that nothing reads', () => {
  const reading = (said: string, read = said.toLowerCase(), taken = false): WordReading => ({ said: said.toLowerCase(), read, capital: /^\p{Lu}/u.test(said), taken });
  const english = (w: string) => ['ticket', 'plane', 'seat', 'hotel', 'train'].includes(w);
  const fn = (w: string) => ['un', 'el', 'la', 'a', 'para', 'the'].includes(w);

  it('is the unread complement of a read noun through the language\'s "of"', () => {
    const tren = [reading('un'), reading('billete', 'ticket'), reading('de'), reading('tren'), reading('de'), reading('Madrid')];
    expect(unreadKinds(tren, english, fn)).toEqual(['tren']);
    const treno = [reading('un'), reading('biglietto', 'ticket'), reading('del'), reading('treno')];
    expect(unreadKinds(treno, english, fn)).toEqual(['treno']);
    const article = [reading('un'), reading('billet', 'ticket'), reading('de'), reading('la'), reading('navette')];
    expect(unreadKinds(article, english, fn)).toEqual(['navette']);
  });

  it('is not a read kind, a name, a value, a number or an unread head', () => {
    const rows: (WordReading | undefined)[][] = [
      [reading('un'), reading('billet', 'ticket'), reading('d'), reading('avion', 'plane')],
      [reading('un'), reading('billete', 'ticket'), reading('de'), reading('Madrid')],
      [reading('asiento', 'seat', true), reading('de'), reading('ventana')],
      [reading('una'), reading('chambre'), reading('d'), reading('hôtel')],
      [undefined, reading('de'), reading('diciembre')],
      [reading('a'), reading('ticket'), reading('of'), reading('the'), reading('plane')],
    ];
    for (const r of rows) expect(unreadKinds(r, english, fn), JSON.stringify(r)).toEqual([]);
  });

  it('refuses foreign requests for another thing (near misses)', async () => {
    for (const s of [
      'Je voudrais un billet de train de Lyon à Marseille pour vendredi',
      'Necesito un billete de autobús de Valencia a Granada para el lunes',
      'vorrei un biglietto del traghetto da Napoli a Palermo per sabato',
      'Quero uma passagem de ônibus de Lisboa para o Porto amanhã',
      'Quiero reservar un billete de tren de Bilbao a Madrid para el martes',
      'un biglietto del treno da Milano a Torino per domani',
      'Reserve um quarto de hotel em Lisboa para duas noites',
      'Je cherche une voiture de location à Nice du 2 au 6 décembre',
      'Prenota un appuntamento dal parrucchiere per giovedì alle 10',
      'Mi impresora no imprime desde ayer, ¿puedes ayudarme?',
      'Mein Router funktioniert seit gestern Abend nicht mehr',
    ]) {
      expect((await client.identifyScenario(s, { ...REF, catalog })).scenario, s).toBeNull();
    }
  });

  it('names the unread kind to identification, for a flight template', async () => {
    const m = await client.mapUtterance(catalog.entries.find((e) => e.scenario === 'flight_booking')!.template, 'Necesito un billete de autobús de Valencia a Granada para el lunes', REF);
    expect(m.rivals).toContain('autobús');
  });

  it('identifies foreign requests for the scenario\'s own thing (real requests)', async () => {
    for (const [s, scenario] of [
      ["Je voudrais un billet d'avion de Paris à Rome pour vendredi", 'flight_booking'],
      ['Necesito un vuelo de Valencia a Londres el lunes para dos personas', 'flight_booking'],
      ['vorrei un volo da Napoli a Parigi sabato, classe economica', 'flight_booking'],
      ['Quero uma passagem de avião de Lisboa para Paris amanhã', 'flight_booking'],
      ['Ich brauche einen Flug von Köln nach Madrid am Montag', 'flight_booking'],
      ['Necesito volar de Sevilla a Roma el viernes, solo yo', 'flight_booking'],
      ['Un billete de avión de Madrid a Lima para dos el viernes', 'flight_booking'],
      ['Quiero un vuelo de Lima a Cusco el 8 de diciembre con asiento de ventana', 'flight_booking'],
      ["Rends la photo plus chaude et floute l'arrière-plan", 'photo_retouch'],
      ['Quiero dientes más blancos en esta foto', 'photo_retouch'],
      ['Störung INC-4411: Basisstationen 12 und 13 seit 9 Uhr ausgefallen', 'fault_management'],
    ] as const) {
      expect((await client.identifyScenario(s, { ...REF, catalog })).scenario, s).toBe(scenario);
    }
  });

  it('leaves English requests as they were (no unread kind in English)', async () => {
    expect((await client.identifyScenario('book a flight from Paris to Rome on Friday', { ...REF, catalog })).scenario).toBe('flight_booking');
    for (const s of ['book a train ticket from London to Leeds on Friday', 'can you pick up some milk on the way home', 'send the slides to Anna before lunch', 'my router is down again', 'the price of the ticket to the show']) {
      expect((await client.identifyScenario(s, { ...REF, catalog })).scenario, s).toBeNull();
    }
    for (const s of ['a ticket of the kind they sell at the station', 'two tickets of economy class to Oslo', 'the landlord of the flat called', 'a bottle of wine for dinner', 'the end of the month report']) {
      const m = await client.mapUtterance(catalog.entries.find((e) => e.scenario === 'flight_booking')!.template, s, REF);
      expect(m.rivals ?? [], s).toEqual(expect.not.arrayContaining(s.split(' ').filter((w) => w.length > 3)));
    }
  });
});
