import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { createParleyClient, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';
import { Lexicon } from '../src/offline/lexicon';
import { loadLexicon } from './offline-fixture';

// Scenario identification (draft-zhou §6.1, Figure 1 step 2) of a request that names a kind of the scenario's concept
// ("this mugshot", "my headshot": kinds of photograph in WordNet) instead of the concept itself. Sentences of our own,
// not from the dev or validation sets.
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };
const template = (id: string) => SCENARIOS.find((s) => s.template.scenario === id)!.template;

describe('Lexicon.kindOfConcept', () => {
  let lex: Lexicon;
  beforeAll(async () => {
    lex = await loadLexicon();
  });

  it('is true for a noun one of whose first senses is the concept or a kind of it', () => {
    for (const w of ['snapshot', 'headshot', 'mugshot', 'pic']) expect(lex.kindOfConcept(w, 'photo'), w).toBe(true);
    for (const w of ['kitchen', 'flight', 'video', 'canvas']) expect(lex.kindOfConcept(w, 'photo'), w).toBe(false);
    // A kind of photo is no kind of flight: the relation is to the concept's own first sense.
    expect(lex.kindOfConcept('snapshot', 'flight')).toBe(false);
  });

  it('is false for hostile, long and out-of-dictionary words, and without WordNet', () => {
    for (const w of ['constructor', '__proto__', 'a'.repeat(1 << 20), '\u0000', '\ud800', 'snap'.repeat(5000)]) {
      expect(lex.kindOfConcept(w, 'photo')).toBe(false);
      expect(lex.kindOfConcept('snapshot', w)).toBe(false);
    }
    expect(new Lexicon(undefined).kindOfConcept('snapshot', 'photo')).toBe(false);
  });

  it('bounds its work on a MiB of text', () => {
    const t0 = performance.now();
    lex.kindOfConcept('x'.repeat(1 << 20), 'photo');
    expect(performance.now() - t0).toBeLessThan(50);
  });
});

describe('identification by a kind of the concept', () => {
  it('names the scenario: the mapping reports the concept for a kind of it, not for another noun', async () => {
    const m = await client.mapUtterance(template('photo_retouch'), 'turn my old mugshot into something moody', REF);
    expect(m.named).toEqual(['photo']);
    const kitchen = await client.mapUtterance(template('photo_retouch'), 'turn my old kitchen into something moody', REF);
    expect(kitchen.named).toBeUndefined();
    // "still" is a kind of photograph as a noun, but an adverb first: read as the adverb.
    const adverb = await client.mapUtterance(template('photo_retouch'), 'is it still too dark', REF);
    expect(adverb.named).toBeUndefined();
  });

  it('a wish about a kind of photo is a photo retouch; a kind said in another request is not', async () => {
    const id = await client.identifyScenario('make my mugshot look like a movie scene', { ...REF, catalog });
    expect(id.scenario).toBe('photo_retouch');
    const flight = await client.identifyScenario('book a flight from Oslo to Rome on Friday and I will take a snapshot of the Alps', { ...REF, catalog });
    expect(flight.scenario).toBe('flight_booking');
    // A kind said alone, or as the object of another act, is still no request: it explains nothing by itself.
    for (const words of ['a snapshot', 'delete my snapshot']) expect((await client.identifyScenario(words, { ...REF, catalog })).scenario, words).toBeNull();
  });
});
