/**
 * The concept a cluster's clients share (draft-zhou §6.2.1 one cluster per recurring intent, §6.2.2 one key per
 * intent): nouns only, synonyms as one concept, two clients and half of the cluster's at least, the scenario's own
 * name never a concept; and one source for the kind affixes of key names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastestMs } from '@parley/testkit';
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

describe('clusterConcept on hostile samples (outside data: counts, clients and text of a matured cluster)', () => {
  it('a huge or odd count is that many anonymous voices, counted, never one entry each: no throw, no stall', async () => {
    for (const count of [1e7, 1e12, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e300]) {
      const c = clusterConcept([{ text: 'a baby seat', count }, { text: 'our infant', count: 1 }], lex);
      expect(await fastestMs(() => clusterConcept([{ text: 'a baby seat', count }, { text: 'our infant', count: 1 }], lex), 200), `count ${count}`).toBeLessThan(200);
      expect(c).toMatchObject({ id: 'babe', word: 'baby' });
      expect(c?.voices).toBe(c?.total);
      expect(Number.isFinite(c?.voices)).toBe(true);
    }
    for (const count of [-5, 0, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '7' as unknown as number]) {
      expect(clusterConcept([{ text: 'a baby', count }, { text: 'an infant', count }], lex)).toMatchObject({ id: 'babe', voices: 2, total: 2 });
    }
  });

  it('prototype words as nouns and as clients are plain keys (Maps): constructor, __proto__, NUL, lone surrogates, 1 MiB', () => {
    const proto = createTableLexicon({ constructor: { pos: 'n' as const, synonyms: ['builder'] }, prototype: { pos: 'n' as const }, baby: { pos: 'n' as const } });
    expect(nounConcept(proto, 'constructor')).toEqual({ id: 'builder', lemma: 'constructor' });
    expect(nounConcept(proto, '__proto__')).toBeNull();
    const c = clusterConcept([s('constructor \u0000 prototype', '__proto__', 'constructor'), s('the constructor \ud800 again \udfff', 'hasOwnProperty')], proto);
    expect(c).toMatchObject({ id: 'builder', voices: 3, total: 3 });
    const mib = 'baby '.repeat(210_000);
    expect(mib.length).toBeGreaterThan(1 << 20);
    const t = performance.now();
    expect(clusterConcept([s(mib, '#1'), s(`\ud800baby\u0000 ${mib}`, '#2')], proto)).toMatchObject({ id: 'baby', voices: 2 });
    expect(performance.now() - t).toBeLessThan(500);
    expect([...scenarioConcepts(`constructor___proto__${'x'.repeat(1 << 20)}`, proto)]).toEqual(['builder']);
  });

  it('is deterministic: sample order and Map insertion order do not change the concept (ties go to the least id)', () => {
    const samples = [s('a seat', '#1', '#2'), s('a lap', '#3', '#4'), s('seat and lap', '#5')];
    const a = clusterConcept(samples, lex);
    expect(a?.id).toBe('lap');
    expect(clusterConcept([...samples].reverse(), lex)).toEqual(a);
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
