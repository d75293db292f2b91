import fc from 'fast-check';
import { SCENARIOS } from '@parley/examples';
import { ParleyError, scenarioId } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { createParleyClient, namesScenario, type ScenarioCatalog } from '../src/index';
import { createOfflineMapper } from '../src/offline/index';

// Scenario identification (draft-zhou Figure 1 step 2) over a catalogue given in code: the seeded scenarios as the
// registry lists them (apps/parley/test/ask.test.ts runs the same against the registry itself).
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog: ScenarioCatalog = {
  entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: `${s.template.scenario}-agent`, template: s.template, description: s.description, tags: s.tags, domain: s.domain })),
};
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };

describe('identifyScenario', () => {
  it('picks the scenario whose template explains the words, with every scenario ranked', async () => {
    const cases: [string, string | null][] = [
      ['two of us flying Paris → Tokyo on the 3rd, economy is fine', 'flight_booking'],
      ['skin smoothing level six and whiter teeth', 'photo_retouch'],
      ['INC-4410: optical power low at site 4410 since 22:00 yesterday', 'fault_management'],
      // The scenario's own name is evidence even when no key takes a value.
      ['brighten the whole photo and straighten the horizon', 'photo_retouch'],
      ['how many calories in an avocado', null],
      ["what's the weather in Paris tomorrow", null],
    ];
    for (const [words, scenario] of cases) {
      const id = await client.identifyScenario(words, { ...REF, catalog });
      expect(id.scenario, words).toBe(scenario);
      expect(id.ranking.map((r) => r.scenario).sort()).toEqual(['fault_management', 'flight_booking', 'photo_retouch']);
      expect([...id.ranking].sort((a, b) => b.score - a.score)).toEqual(id.ranking);
      if (scenario) {
        expect(id.agent).toBe(`${scenario}-agent`);
        expect(id.mapping?.scenario).toBe(scenario);
      } else expect(id.mapping).toBeUndefined();
    }
  });

  it('minScore moves the line between a weak match and no scenario', async () => {
    const words = 'brighten the whole photo and straighten the horizon';
    const id = await client.identifyScenario(words, { ...REF, catalog });
    expect(id.scenario).toBe('photo_retouch');
    const strict = await client.identifyScenario(words, { ...REF, catalog, minScore: id.score + 0.01 });
    expect(strict.scenario).toBeNull();
  });

  it('namesScenario matches whole words of the scenario id, plural or not', () => {
    expect(namesScenario('retouch my photos', 'photo_retouch')).toBe(true);
    expect(namesScenario('photographer wanted', 'photo_retouch')).toBe(false);
    expect(namesScenario('__proto__ constructor', 'photo_retouch')).toBe(false);
  });

  it('hostile words identify something or nothing, and bad words are typed errors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('__proto__', 'constructor flight', '\u0000photo', 'a'.repeat(3000))), async (words) => {
        try {
          const id = await client.identifyScenario(words, { ...REF, catalog });
          expect(id.scenario === null || ['flight_booking', 'photo_retouch', 'fault_management'].includes(id.scenario)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(ParleyError);
          expect((e as ParleyError).path).toBe('utterance');
        }
      }),
      { numRuns: 80, seed: 2 },
    );
  });
});
