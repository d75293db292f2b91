/**
 * Named things are no co-hyponym values (draft-zhou §6.2.2 "names from concepts, not frequent words"): WordNet links
 * towns, countries and people to their kind by instance hypernyms (`@i`: paris and london are instances of
 * national_capital), and a choice among proper names is an open value (a destination, a name), never
 * `capital_type`. Kinds (monday / friday, dog / cat) still join. Examples from no stream.
 */
import { describe, expect, it } from 'vitest';
import { fastestMs } from '@parley/testkit';
import { SCENARIOS } from '@parley/examples';
import { coHyponymChoice, createTableLexicon, induceKey, sharedKind, type Lexicon } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import { createEvolver } from '../src/index';
import { candidate, lexicon as lex, matured, said } from './induction-fixture';

/** The same WordNet lexicon without `instance`: how every lexicon read before (the control). */
const noInstance: Lexicon = { ...lex, instance: undefined };
const flag = (name: string): KeyDefinition => ({ key_name: name, key_type: 'boolean', required: false, default_value: null, semantic_description: name });
const PLACES = [['paris', 'london'], ['paris', 'tokyo'], ['boston', 'chicago'], ['france', 'germany']];

describe('lexicon.instance: whether a word\'s most frequent noun sense is a named thing', () => {
  it('towns, countries and people are instances; taxi, monday and dog are kinds', () => {
    for (const w of ['paris', 'london', 'boston', 'france', 'einstein']) expect(lex.instance?.(w, 'n')).toBe(true);
    for (const w of ['taxi', 'monday', 'friday', 'dog', 'cat', 'red', 'capital']) expect(lex.instance?.(w, 'n')).toBe(false);
    expect(lex.instance?.('run', 'v')).toBe(false);
  });
  it('hypernyms still read instance links for callers that do not ask (paris under national_capital)', () => {
    expect(lex.hypernyms('paris', 'n', 2)).toEqual(['national_capital', 'capital', 'city']);
  });
  it('hostile words are no instances, and a MiB word is answered fast', async () => {
    for (const h of ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'a_'.repeat(5000)]) expect(lex.instance?.(h, 'n')).toBe(false);
    expect(lex.instance?.('x'.repeat(1 << 20), 'n')).toBe(false);
    expect(await fastestMs(() => lex.instance?.('x'.repeat(1 << 20), 'n'), 50)).toBeLessThan(50);
  });
});

describe('sharedKind: values named only as instances share no kind', () => {
  it('paris / london, boston / chicago, france / germany: no kind (the control without instance joins them)', () => {
    for (const pair of PLACES) {
      expect(sharedKind(noInstance, pair)).not.toBeNull();
      expect(sharedKind(lex, pair)).toBeNull();
    }
    expect(sharedKind(noInstance, ['paris', 'london'])).toBe('national_capital');
  });
  it('kinds still join: taxi / limousine are cars, monday / friday weekdays, dog / cat carnivores', () => {
    expect(sharedKind(lex, ['taxi', 'limousine'])).toBe('car');
    expect(sharedKind(lex, ['monday', 'friday'])).toBe('weekday');
    expect(sharedKind(lex, ['dog', 'cat'])).toBe('carnivore');
  });
  it('a table lexicon marks instances itself; one that marks none reads as before', () => {
    const t = createTableLexicon({ rome: { pos: 'n', hypernyms: ['capital', 'city'], instance: true }, oslo: { pos: 'n', hypernyms: ['capital', 'city'], instance: true }, sedan: { pos: 'n', hypernyms: ['car'] }, coupe: { pos: 'n', hypernyms: ['car'] } });
    expect(sharedKind(t, ['rome', 'oslo'])).toBeNull();
    expect(sharedKind(t, ['sedan', 'coupe'])).toBe('car');
    expect(sharedKind(createTableLexicon({ rome: { pos: 'n', hypernyms: ['capital', 'city'] }, oslo: { pos: 'n', hypernyms: ['capital', 'city'] } }), ['rome', 'oslo'])).toBe('capital');
  });
});

describe('no capital_type end to end', () => {
  it('coHyponymChoice: paris_trip beside london_trip is no choice; needs_taxi beside needs_limousine still car_type', () => {
    expect(coHyponymChoice(flag('paris_trip'), flag('london_trip'), noInstance)?.key_name).toBe('trip_capital');
    expect(coHyponymChoice(flag('paris_trip'), flag('london_trip'), lex)).toBeNull();
    expect(coHyponymChoice(flag('needs_taxi'), flag('needs_limousine'), lex)?.key_name).toBe('car_type');
  });
  it('induceKey: "a trip to paris" / "a trip to london" is not named by the capitals\' kind', () => {
    for (const [a, b] of PLACES) {
      const samples = [said(`a trip to ${a}`, 3), said(`a trip to ${b}`, 3), said(`book ${a}`, 2), said(`book ${b}`, 2)];
      const before = induceKey(samples, undefined, { lexicon: noInstance });
      expect(before.ok && /capital|city|country/.test(before.candidate.key.key_name)).toBe(true);
      expect(candidate(samples).key.key_name).not.toMatch(/capital|city|country/);
    }
  });
  it('the evolver: a paris cluster and a london cluster make no capital_type', async () => {
    const P: [string, string[]][] = [['a trip to paris', ['p1', 'p2']], ['book a trip to paris', ['p3', 'p4']], ['flying to paris next week', ['p5', 'p6']]];
    const L: [string, string[]][] = [['a trip to london', ['l1', 'l2']], ['book a trip to london', ['l3', 'l4']], ['flying to london next week', ['l5', 'l6']]];
    const run = async (lexicon: Lexicon): Promise<string[]> => {
      const ev = createEvolver({ templates: SCENARIOS.map((s) => s.template), lexicon, induce: async (input) => induceKey(input.samples, undefined, { lexicon, existing: input.existing_keys }) });
      for (const m of [matured('c-paris', P, 0), matured('c-london', L, 86_400_000)]) ev.applyMatured(m, await ev.induce(m));
      return ev.patches().flatMap((r) => r.patch.new_keys.map((k) => k.definition.key_name));
    };
    expect(await run(noInstance)).toContain('capital_type');
    expect(await run(lex)).not.toContain('capital_type');
  });
});
