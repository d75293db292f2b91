import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_CATALOG_ENTRIES, associationMargins, createAssociate, createParleyClient, scenarioText, type ScenarioCatalog } from '../src/index';
import { MAX_CACHED_TEXTS } from '../src/association';
import { FULL_KEYS, SCORE_WEIGHTS, identifyIn, type ScenarioEntry } from '../src/identify';
import type { UtteranceMapping } from '../src/mapping';
import { Lexicon } from '../src/offline/lexicon';
import { createOfflineMapper } from '../src/offline/index';
import { planTemplate } from '../src/offline/plan';
import { loadLexicon } from './offline-fixture';

// Scenario identification (draft-zhou §6.1, Figure 1 step 2) of a wish said by association: words in the field of
// meaning WordNet gives the template's names (the scenario's words with their kinds, the enum values with their
// senses and derivations). Sentences of our own, not from the dev or validation sets.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };
const template = (id: string) => SCENARIOS.find((s) => s.template.scenario === id)!.template;

describe('field of meaning of a template', () => {
  it('holds the kinds of the scenario words and the senses of enum values, not the kinds of enum values', async () => {
    const lex = await loadLexicon();
    const photo = planTemplate(template('photo_retouch'), lex).field;
    expect(lex.inField('snapshot', photo)).toBe(true);
    expect(lex.inField('mugshot', photo)).toBe(true);
    expect(lex.inField('kitchen', photo)).toBe(false);
    // "warning" is a severity value; an alarm is a kind of warning, not the value itself.
    const fault = planTemplate(template('fault_management'), lex).field;
    expect(lex.inField('warning', fault)).toBe(true);
    expect(lex.inField('alarm', fault)).toBe(false);
    expect(lex.inField('snapshot', fault)).toBe(false);
    // Hostile and out-of-dictionary words are simply outside.
    for (const w of ['constructor', '__proto__', 'a'.repeat(5000), '\u0000', '\ud800']) expect(lex.inField(w, photo)).toBe(false);
    expect(new Lexicon(undefined).fieldOf(['photo'], 'kinds').size).toBe(0);
  });

  it('counts the words said by association the mapping left without a value', async () => {
    const photo = await client.mapUtterance(template('photo_retouch'), 'my snapshot looks too fuzzy', REF);
    expect(photo.associated).toBeGreaterThanOrEqual(1);
    const flight = await client.mapUtterance(template('flight_booking'), 'my snapshot looks too fuzzy', REF);
    expect(flight.associated).toBeUndefined();
  });
});

describe('identification by association', () => {
  it('a wish said by a kind of photo is a photo retouch; a kind of an enum value is no association', async () => {
    const id = await client.identifyScenario('my headshot looks like an old snapshot', { ...REF, catalog });
    expect(id.scenario).toBe('photo_retouch');
    // An alarm is a kind of warning (a severity value), not a fault: nothing matches, the closest are listed.
    const alarm = await client.identifyScenario('ring the alarm bell at five tomorrow', { ...REF, catalog });
    expect(alarm.scenario).toBeNull();
    expect(alarm.ranking.length).toBe(3);
  });
});

describe('no sister in a verb\'s complement', () => {
  it('a word after the concept\'s own act, or an -ing verb before a preposition of direction, names no sister', async () => {
    const flight = template('flight_booking');
    for (const words of ['flying home from Lisbon to Oslo on Friday, two of us', 'a seat out of Lima heading to Quito tomorrow']) {
      expect((await client.mapUtterance(flight, words, REF)).rivals, words).toBeUndefined();
    }
    expect((await client.identifyScenario('flying home from Lisbon to Oslo on Friday, two of us', { ...REF, catalog })).scenario).toBe('flight_booking');
    // A sister said as the request's own noun still counts.
    expect((await client.mapUtterance(flight, 'book a train from Lisbon to Porto on Friday', REF)).rivals).toBeDefined();
  });
});

describe('explained share with words said by association', () => {
  it('a word in the field counts as explained when the name is not said, and adds nothing beside the name', async () => {
    const photo = template('photo_retouch');
    // One word by association alone explains nothing; two do ("snapshot", "headshot": 2 of 3 content words, "need" is the request).
    expect((await client.mapUtterance(photo, 'this snapshot needs work', REF)).explained ?? 0).toBe(0);
    expect((await client.mapUtterance(photo, 'this snapshot and headshot need work', REF)).explained).toBeCloseTo(2 / 3, 5);
    expect((await client.mapUtterance(template('flight_booking'), 'this snapshot needs work', REF)).explained ?? 0).toBe(0);
    // "print" is a kind of photograph; with "photo" said it explains no more than a word no template knows.
    const named = await client.mapUtterance(photo, 'print copies of my photo', REF);
    const unknown = await client.mapUtterance(photo, 'gizmo copies of my photo', REF);
    expect(named.explained).toBe(unknown.explained);
  });
});

describe('a verb that is itself another way to go keeps its sister', () => {
  it('driving, cycling, a car after "by", and "book <sister> tickets" are no flight', async () => {
    const flight = template('flight_booking');
    for (const words of ['driving to Porto on Friday, two of us', 'cycling to Oslo tomorrow', 'heading to Oslo by car on Friday, two of us', 'book train tickets from Lisbon to Porto on Friday', 'book bus tickets to Oslo on Friday']) {
      expect((await client.mapUtterance(flight, words, REF)).rivals, words).toBeDefined();
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).not.toBe('flight_booking');
    }
    // A verb of direction only is still no sister.
    expect((await client.identifyScenario('a seat out of Lima heading to Quito tomorrow', { ...REF, catalog })).scenario).toBe('flight_booking');
  });
});

describe('an enum value in its own part of speech and first sense, one word by association alone', () => {
  it('everyday words are outside the field, and one field word alone identifies nothing', async () => {
    const lex = await loadLexicon();
    const flight = planTemplate(template('flight_booking'), lex).field;
    for (const w of ['husband', 'job', 'begin', 'save']) expect(lex.inField(w, flight), w).toBe(false);
    const fault = planTemplate(template('fault_management'), lex).field;
    for (const w of ['kid', 'monitor', 'lesson', 'spell', 'critique']) expect(lex.inField(w, fault), w).toBe(false);
    // A derivation adds its lemma, not its synset: "cinematic" → cinema, not film.
    const photo = planTemplate(template('photo_retouch'), lex).field;
    expect(lex.inField('cinema', photo)).toBe(true);
    expect(lex.inField('film', photo)).toBe(false);
    for (const words of ['begin the project tomorrow', 'my husband has a new job', 'husband your resources', 'monitor the kid', 'teach me a lesson', 'cast a spell', 'write a critique of this essay', 'frame this', 'a snapshot', 'delete my snapshot', 'a glossy magazine', 'a still life painting', 'frame the painting for the hallway']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
  });
});

describe('a general name word brings no kinds', () => {
  it('a template named by a broad noun keeps everyday things out of its field, and its enum values in', async () => {
    const lex = await loadLexicon();
    const fault = template('fault_management');
    for (const name of ['device_repair', 'food_order', 'act_log']) {
      const field = planTemplate({ ...fault, scenario: name }, lex).field;
      for (const w of ['computer', 'lamp', 'key', 'bread', 'apple', 'walk', 'tool']) expect(lex.inField(w, field), `${name}: ${w}`).toBe(false);
      expect(lex.inField('warning', field), name).toBe(true);
    }
    expect(lex.inField('snapshot', planTemplate(template('photo_retouch'), lex).field)).toBe(true);
  });
});

// draft-zhou §6.1: the request read against each scenario's whole text through WordNet (`createAssociate`): kinds of
// the scenario's and keys' names, senses and derivations of its names and enum values, definitions; weighed by how many
// scenarios a word meets and how many senses it has. Sentences of our own, not from the dev or validation sets.
describe('association with a scenario\'s text', () => {
  const texts = () => SCENARIOS.map((s) => scenarioText(s.template, s.description, s.tags));
  const index = (id: string) => SCENARIOS.findIndex((s) => s.template.scenario === id);
  const associate = async () => {
    const { WordNet, defaultDictDir } = await import('@parley/embeddings');
    return createAssociate(await WordNet.load({ dictDir: defaultDictDir() }));
  };

  it('meets a kind of the scenario\'s noun and a derivation of its key, not the template\'s own words', async () => {
    const a = await associate();
    const photo = index('photo_retouch');
    const headshot = a('the mugshot for my badge', texts());
    expect(headshot[photo]?.words).toContain('mugshot');
    expect(headshot[index('flight_booking')]?.weight).toBe(0);
    // fuzzy ~ blurred ~ blur (background_blur).
    expect(a('make it fuzzy', texts())[photo]?.words).toContain('fuzzy');
    // The template's own words are the mapper's to read: "teeth" and "blur" meet it literally, no association.
    expect(a('blur my teeth', texts())[photo]?.weight).toBe(0);
    // Where the template's word is missing, a definition: "cinematic" derives from cinema, "a medium that disseminates
    // moving pictures", and a movie is a picture; weaker than a sense met, and no direct meeting.
    const movie = a('a movie', texts())[photo];
    expect(movie?.words).toEqual(['movie']);
    expect(movie?.direct).toBe(0);
    expect(movie?.weight).toBeLessThan(1);
    // "husband" is read as the noun it mostly is, not the verb "economize" (economy, a cabin class).
    expect(a('my husband', texts())[index('flight_booking')]?.weight).toBe(0);
  });

  it('says whether the request asks for a change of quality', async () => {
    const a = await associate();
    for (const w of ['make it fuzzy', 'look less sleepy', 'a brighter sky', 'give it a dreamy look', 'a movie-like tone']) expect(a(w, texts())[0]?.wish, w).toBe(true);
    for (const w of ['a snapshot', 'delete my snapshot', 'frame the headshot', 'give me a seat']) expect(a(w, texts())[0]?.wish, w).toBe(false);
  });

  it('is bounded and inert on hostile text', async () => {
    const a = await associate();
    const big = 'snapshot '.repeat(120_000);
    const t0 = Date.now();
    for (const w of [big, '\ud800\udc00\ud800', '\u0000fuzzy\u0000', '__proto__ constructor toString', 'a'.repeat(1 << 20), '-'.repeat(5000)]) {
      const out = a(w, texts());
      expect(out.length).toBe(3);
      for (const e of out) expect(Number.isFinite(e.weight)).toBe(true);
    }
    expect(Date.now() - t0).toBeLessThan(5000);
    const hostile = scenarioText({ ...template('photo_retouch'), scenario: '__proto__' }, 'constructor '.repeat(10_000), ['toString']);
    expect(a('make my snapshot fuzzy', [hostile, ...texts()]).length).toBe(4);
  });
});

describe('identification by association with the scenario\'s text', () => {
  it('a wish about a kind of photo, said with no word of the template, is a retouch', async () => {
    for (const words of ['the mugshot for my ID badge, make me look less sleepy', 'my holiday snapshot is too dull, make it feel like a summer afternoon']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBe('photo_retouch');
    }
  });

  it('a thing named without a wish, a home connection, a hire car or a hotel are none', async () => {
    for (const words of ['send my mugshot to HR', 'delete the mugshot from my badge', 'my home internet connection keeps dropping', 'hire a car at the airport for two days', 'a hotel in Rome for two nights', 'I need guidance on my tax return by Friday']) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
  });

  it('the margin over the other scenarios counts, and only when the association counts whole', () => {
    const e = (weight: number, words: string[], direct: number, wish = false, thing = true, otherAct = false) => ({ weight, words, direct, wish, thing, otherAct });
    expect(associationMargins([e(1, ['a', 'b'], 2), e(0.4, ['c', 'd'], 2)])).toEqual([0.6, 0]);
    // One word alone, no wish: nothing; the same word beside a wish: its margin.
    expect(associationMargins([e(1, ['a'], 1), e(0, [], 0)])).toEqual([0, 0]);
    expect(associationMargins([e(1, ['a'], 1, true), e(0, [], 0, true)])).toEqual([1, 0]);
    // Two words met only through definitions, no wish: nothing.
    expect(associationMargins([e(0.9, ['a', 'b'], 0)])).toEqual([0]);
    expect(associationMargins(undefined)).toEqual([]);
  });
});

// The reviewer's reproductions: what each guard must keep none, and the mechanism it pins (each fails without it).
describe('association guards', () => {
  const texts = () => SCENARIOS.map((s) => scenarioText(s.template, s.description, s.tags));
  const photo = SCENARIOS.findIndex((s) => s.template.scenario === 'photo_retouch');
  const flight = SCENARIOS.findIndex((s) => s.template.scenario === 'flight_booking');
  const associate = async () => {
    const { WordNet, defaultDictDir } = await import('@parley/embeddings');
    return createAssociate(await WordNet.load({ dictDir: defaultDictDir() }));
  };

  it('reads a comparative only where stripping "-er" leaves an adjective and the word is none of its own; "make sure" is no wish', async () => {
    const a = await associate();
    for (const w of ['the snapshot after lunch', 'the customer and the snapshot', 'a number of snapshots', 'no matter the snapshot', 'a layer of the snapshot', 'make sure the snapshot is backed up']) {
      expect(a(w, texts())[photo]?.wish, w).toBe(false);
    }
    for (const w of ['whiter teeth', 'a darker sky', 'a better one', 'a bit sleepy', 'more professional', 'make it clearer']) expect(a(w, texts())[photo]?.wish, w).toBe(true);
  });

  it('a noun is the scenario\'s own thing by synonymy or by its first sense being only a kind of it; a quality is not', async () => {
    const a = await associate();
    for (const w of ['my snapshot', 'a mugshot', 'the pic', 'a photograph']) expect(a(w, texts())[photo]?.thing, w).toBe(true);
    // "blueprint" is first a plan, "photocopy" a copy as well as a photograph, "blurry" a quality of anything.
    for (const w of ['a blueprint', 'a photocopy', 'blurry', 'a website', 'a video call']) expect(a(w, texts())[photo]?.thing, w).toBe(false);
  });

  it('reads the act a clause opens with against the scenario\'s words', async () => {
    const a = await associate();
    for (const w of ['print my snapshots', 'please send the snapshot to grandma', 'can you delete the mugshot']) expect(a(w, texts())[photo]?.otherAct, w).toBe(true);
    for (const w of ['make my snapshot brighter', 'my snapshot is too dark', 'blur the snapshot', 'the pic for my badge: a brighter smile']) expect(a(w, texts())[photo]?.otherAct, w).toBe(false);
  });

  it('keeps none: another act on the thing, words read as comparatives, a quality of something else, definitions alone', async () => {
    for (const words of [
      'delete the mugshot after the meeting',
      'send the snapshot to grandma after lunch',
      'my snapshot got deleted after the update',
      'the customer wants a copy of the snapshot',
      'the glossy magazine after the interview',
      'make sure the snapshot is backed up',
      'my monitor looks blurry',
      'my glasses make everything blurry',
      'my eyes feel blurry after reading',
      "I'm feeling fuzzy after the party",
      'make the blueprint look clearer',
      'the photocopy is too faint, make it darker',
      'make my website look more modern',
      'make the video call look more professional',
      'my signature looks shaky, make it smoother',
      'print my vacation snapshots on glossy paper',
    ]) {
      expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
    }
  });

  it('still finds a wish about the scenario\'s thing said by association', async () => {
    for (const words of ['make my headshot look more professional', 'make my snapshot look like an old film', 'make me look less tired in my headshot']) {
      const id = await client.identifyScenario(words, { ...REF, catalog });
      expect(id.scenario, words).toBe('photo_retouch');
      // The words met explain the request (the selection and the explained share both count).
      expect(id.ranking[0]?.explained ?? 0, words).toBeGreaterThan(0.2);
    }
  });

  it('weighs a word by the scenarios it meets and by how many senses it has', async () => {
    const a = await associate();
    const photoText = texts()[photo] as ReturnType<typeof scenarioText>;
    // Met by every scenario, a word says little of any; met by one alone, it counts whole.
    const everywhere = a('snapshot', [photoText, photoText, photoText])[0]?.weight ?? 1;
    const once = a('snapshot', texts())[photo]?.weight ?? 0;
    expect(everywhere).toBeLessThan(once / 2);
    // "plane" has many senses, "airliner" one: both met through a definition, the polysemous word weighs less.
    expect(a('plane', texts())[flight]?.weight ?? 1).toBeLessThan(a('airliner', texts())[flight]?.weight ?? 0);
  });

  it('skips names, times and quantities, and reads a request only up to its bounds', async () => {
    const a = await associate();
    expect(a('my snapshot', texts())[photo]?.weight).toBeGreaterThan(0);
    // A capitalised word inside a sentence is a name; "Monday", "morning" are values any scenario takes.
    expect(a('my Snapshot', texts())[photo]?.weight).toBe(0);
    for (const w of ['Monday morning', 'on monday morning', 'two hours']) for (const e of a(w, texts())) expect(e.weight, w).toBe(0);
    // Past the characters read, and past the words asked, nothing more is met.
    expect(a(`${'x '.repeat(3000)}mugshot`, texts())[photo]?.weight).toBe(0);
    expect(a(`${'x '.repeat(1000)}mugshot`, texts())[photo]?.weight).toBeGreaterThan(0);
    const many = Array.from({ length: 60 }, (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(' ');
    expect(a(`${many} mugshot`, texts())[photo]?.weight).toBe(0);
    expect(a(`${many.split(' ').slice(0, 10).join(' ')} mugshot`, texts())[photo]?.weight).toBeGreaterThan(0);
  });

  it('remembers a full catalogue\'s texts: the second request does not read them again', async () => {
    expect(MAX_CACHED_TEXTS).toBeGreaterThanOrEqual(MAX_CATALOG_ENTRIES);
    const a = await associate();
    const many = Array.from({ length: MAX_CATALOG_ENTRIES }, (_, i) => {
      const s = SCENARIOS[i % SCENARIOS.length]!;
      return scenarioText({ ...s.template, scenario: `${s.template.scenario}_${i}` }, `${s.description} ${i}`, s.tags);
    });
    a('make my headshot look more professional', many);
    const t0 = performance.now();
    a('make my headshot look more professional', many);
    expect(performance.now() - t0).toBeLessThan(300);
  }, 60_000);
});

// What the association adds to the score (`identifyIn` with a stub association): the margin among filled keys, the
// selection unlocked, and nothing with the scenario's name said.
describe('association in the identification score', () => {
  const photoIndex = catalog.entries.findIndex((e) => e.scenario === 'photo_retouch');
  const evidence = (thing = true) => catalog.entries.map((_, i) => ({ weight: i === photoIndex ? 1 : 0, words: i === photoIndex ? ['snapshot'] : [], direct: i === photoIndex ? 1 : 0, wish: true, thing, otherAct: false }));
  const map = async (e: ScenarioEntry) => ({ scenario: e.scenario, schema_id: 'x', payload: {}, confidence: {}, other: [], sources: {}, below_threshold: [] }) as unknown as UtteranceMapping;
  const isContent = (w: string) => w.length > 2;
  const photoScore = async (words: string, thing = true, withAssociation = true) => {
    const id = await identifyIn(words, catalog, {}, map, isContent, undefined, withAssociation ? () => evidence(thing) : undefined);
    return id.ranking.find((r) => r.scenario === 'photo_retouch')!;
  };

  it('counts the margin among filled keys, the words met as explained, and unlocks the selection', async () => {
    const words = 'snapshot teeth whitening wanted';
    const r = await photoScore(words);
    expect(r.selection).toBeGreaterThan(0);
    // The explained share, a margin of 1 of FULL_KEYS filled, and the selection beside them.
    const expected = SCORE_WEIGHTS.explained * (r.explained ?? 0) + SCORE_WEIGHTS.filled * Math.min(1, 1 / FULL_KEYS) + SCORE_WEIGHTS.selection * r.selection;
    expect(r.score).toBeCloseTo(expected, 2);
    // Without the scenario's own thing, the association adds nothing.
    expect((await photoScore(words, false)).score).toBeCloseTo((await photoScore(words, true, false)).score, 5);
  });

  it('adds nothing with the scenario\'s name said', async () => {
    const words = 'photo snapshot teeth whitening wanted';
    expect((await photoScore(words)).score).toBeCloseTo((await photoScore(words, true, false)).score, 5);
  });
});
