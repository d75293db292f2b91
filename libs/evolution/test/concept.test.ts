/**
 * The concept a cluster's clients share (draft-zhou §6.2.1 one cluster per recurring intent, §6.2.2 one key per
 * intent): nouns only, synonyms as one concept, two clients and half of the cluster's at least, the scenario's own
 * name never a concept; and one source for the kind affixes of key names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KIND_AFFIXES, NAME_AFFIXES, SLOT_AFFIXES, clusterConcept, createTableLexicon, nounConcept, sameConcept, scenarioConcepts, type ConceptSample } from '../src/index';

const lex = createTableLexicon({
  baby: { pos: 'n', synonyms: ['babe', 'infant'] },
  infant: { pos: 'n', synonyms: ['babe', 'baby'] },
  lap: { pos: 'n' },
  month: { pos: 'n' },
  horizon: { pos: 'n' },
  photo: { pos: 'n', synonyms: ['photograph'] },
  fix: { pos: 'v' },
  seat: { pos: 'n' },
});
const s = (text: string, ...clients: string[]): ConceptSample => ({ text, count: clients.length, clients });

describe('clusterConcept', () => {
  it('reads synonyms as one concept: a "baby" cluster and an "infant" cluster say one thing', () => {
    const a = clusterConcept([s('travelling with a baby', '#1', '#2'), s('our baby is 8 months', '#3')], lex);
    const b = clusterConcept([s('two infants on our laps', '#1'), s('one infant on lap', '#2', '#3')], lex);
    expect(a).toMatchObject({ id: 'babe', voices: 3, total: 3 });
    expect(b?.id).toBe('babe');
    expect(sameConcept(a, b, lex)).toBe(true);
    expect(sameConcept(a, clusterConcept([s('the horizon is tilted', '#1', '#2')], lex), lex)).toBe(false);
  });

  it('one client carries no concept (a burst, a flood, a personal need), nor a noun under half the clients', () => {
    expect(clusterConcept([s('baby food at security', '#1'), s('baby milk in the bag', '#1')], lex)).toBeNull();
    expect(clusterConcept([s('a baby', '#1'), s('seat', '#2'), s('lap', '#3'), s('month', '#4'), s('horizon', '#5')], lex)).toBeNull();
  });

  it('counts nouns only: a verb every need uses is no concept', () => {
    expect(nounConcept(lex, 'fix')).toBeNull();
    expect(clusterConcept([s('fix it', '#1', '#2'), s('fix that', '#3')], lex)).toBeNull();
  });

  it("never takes the scenario's own name for a concept", () => {
    const exclude = scenarioConcepts('photo_retouch', lex);
    expect(exclude.has('photo')).toBe(true);
    const samples = [s('my photo horizon is tilted', '#1', '#2'), s('photo horizon crooked', '#3')];
    expect(clusterConcept(samples, lex, exclude)?.word).toBe('horizon');
  });

  it('takes any text: hostile strings give a concept said by two voices or none, never a throw', () => {
    const word = fc.constantFrom('baby', 'infant', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '\u0000', '\u202e', 'ｂａｂｙ', 'a'.repeat(5000));
    const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.array(word, { maxLength: 30 }).map((w) => w.join(' ')));
    const sample = fc.record({ text, count: fc.integer({ min: -3, max: 50 }), clients: fc.option(fc.array(fc.constantFrom('#1', '#2', '#3', '__proto__', 'constructor'), { maxLength: 5 }), { nil: undefined }) });
    let concepts = 0;
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 20 }), fc.string({ maxLength: 40 }), (samples, scenario) => {
        const c = clusterConcept(samples as ConceptSample[], lex, scenarioConcepts(scenario, lex));
        if (c !== null) {
          concepts++;
          expect(c.voices).toBeGreaterThanOrEqual(2);
          expect(c.voices * 2).toBeGreaterThanOrEqual(c.total);
          expect(['babe', 'lap', 'month', 'horizon', 'photo', 'seat', 'photograph']).toContain(c.id);
        }
      }),
      { numRuns: 120, seed: 20261127 },
    );
    expect(concepts, 'runs that found a concept').toBeGreaterThan(0);
  });
});

describe('kind affixes (one source for the inducer and the sibling rule)', () => {
  it('nest: slot affixes hold the name affixes, which hold the kind affixes', () => {
    for (const w of KIND_AFFIXES) expect(NAME_AFFIXES.has(w)).toBe(true);
    for (const w of NAME_AFFIXES) expect(SLOT_AFFIXES.has(w)).toBe(true);
    expect(NAME_AFFIXES.has('type')).toBe(true);
    expect(KIND_AFFIXES.has('removal')).toBe(false);
    expect(SLOT_AFFIXES.has('removal')).toBe(true);
  });
});
