/**
 * A choice's values that are co-hyponyms (siblings under one WordNet hypernym) are kinds of that hypernym, which
 * names the choice (draft-zhou §6.2.2 "names from concepts, not frequent words"). Examples from no stream.
 */
import { describe, expect, it } from 'vitest';
import { coHyponymKeys, createTableLexicon, sharedKind } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';
import { lexicon } from './induction-fixture';

const lex = lexicon;

describe('sharedKind: the hypernym every value sits under, within two levels', () => {
  it('taxi, limousine and minivan are cars; red and green are colours under one parent', () => {
    expect(sharedKind(lex, ['taxi', 'limousine'])).toBe('car');
    expect(sharedKind(lex, ['taxi', 'limousine', 'minivan'])).toBe('car');
    expect(sharedKind(lex, ['red', 'green'])).toBe('chromatic_color');
  });

  it('no shared kind: unrelated values, one value, spellings of one synset, a word that is no noun', () => {
    expect(sharedKind(lex, ['window', 'aisle'])).toBeNull();
    expect(sharedKind(lex, ['taxi'])).toBeNull();
    expect(sharedKind(lex, ['taxi', 'cab'])).toBeNull();
    expect(sharedKind(lex, ['limousine', 'limo'])).toBeNull();
    expect(sharedKind(lex, ['vivid', 'taxi'])).toBeNull();
    expect(sharedKind(lex, [])).toBeNull();
  });

  it('a head that already names the kind, or is a kind of it, keeps naming the choice', () => {
    expect(sharedKind(lex, ['north', 'south'], 'region')).toBeNull();
    expect(sharedKind(lex, ['taxi', 'limousine'], 'car')).toBeNull();
    expect(sharedKind(lex, ['taxi', 'limousine'], 'airport')).toBe('car');
  });

  it('a table lexicon (a deployment glossary) reads the same way', () => {
    const t = createTableLexicon({ sedan: { pos: 'n', hypernyms: ['car', 'vehicle'] }, coupe: { pos: 'n', hypernyms: ['car', 'vehicle'] }, bike: { pos: 'n', hypernyms: ['cycle', 'vehicle'] } });
    expect(sharedKind(t, ['sedan', 'coupe'])).toBe('car');
    expect(sharedKind(t, ['sedan', 'bike'])).toBe('vehicle');
  });

  it('hostile values: property names, NUL, lone surrogates, a MiB, regex-hostile repetitions give null and throw nothing', () => {
    const hostile = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'a\u0000b', '\ud800', '\udfff', 'x'.repeat(1 << 20), 'a_'.repeat(5000), `${'a'.repeat(30)}!`];
    for (const h of hostile) {
      expect(() => sharedKind(lex, [h, 'taxi'], h)).not.toThrow();
      expect(sharedKind(lex, [h, h])).toBeNull();
    }
    // Property names as real table words (lower case, as the lexicon reads them): looked up, never object keys.
    const t = createTableLexicon({ constructor: { pos: 'n' as const, hypernyms: ['valueof'] }, tostring: { pos: 'n' as const, hypernyms: ['valueof'] }, hasownproperty: { pos: 'n' as const, hypernyms: ['isprototypeof'] } });
    expect(sharedKind(t, ['constructor', 'tostring'])).toBe('valueof');
    expect(sharedKind(t, ['constructor', 'hasownproperty'])).toBeNull();
    expect(sharedKind(lex, Array.from({ length: 100_000 }, () => 'taxi'))).toBeNull();
  });
});

const key = (key_name: string, key_type: KeyDefinition['key_type'], values?: string[]): KeyDefinition => ({ key_name, key_type, required: false, default_value: null, semantic_description: 'x', ...(values ? { enum: values } : {}) });

describe('coHyponymKeys: two keys one choice split by value', () => {
  it('flags or a choice and a flag whose value words are kinds of one thing, with no other head or the same one', () => {
    expect(coHyponymKeys(key('needs_taxi', 'boolean'), key('needs_limousine', 'boolean'), lexicon)).toBe(true);
    expect(coHyponymKeys(key('car_type', 'string', ['taxi', 'limousine']), key('needs_minivan', 'boolean'), lexicon)).toBe(true);
    expect(coHyponymKeys(key('red_lip', 'boolean'), key('green_lip', 'boolean'), lexicon)).toBe(true);
  });

  it('not one choice: unrelated words, different heads, a key that is no choice', () => {
    expect(coHyponymKeys(key('window_seat', 'boolean'), key('aisle_seat', 'boolean'), lexicon)).toBe(false);
    expect(coHyponymKeys(key('needs_taxi', 'boolean'), key('needs_insurance', 'boolean'), lexicon)).toBe(false);
    expect(coHyponymKeys(key('red_lip', 'boolean'), key('green_wall', 'boolean'), lexicon)).toBe(false);
    // The kind is no shared head: red eyes and a grey backdrop are two needs.
    expect(coHyponymKeys(key('eye_color', 'string', ['red']), key('background_color', 'string', ['gray', 'black']), lexicon)).toBe(false);
    expect(coHyponymKeys(key('lip_color', 'string', ['red']), key('pink_lip', 'boolean'), lexicon)).toBe(true);
    expect(coHyponymKeys(key('taxi_count', 'integer'), key('limousine_count', 'integer'), lexicon)).toBe(false);
  });

  it('hostile key names and values throw nothing and join nothing', () => {
    for (const h of ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20), 'a_'.repeat(5000)]) {
      expect(coHyponymKeys(key(h, 'boolean'), key(`needs_${h}`, 'boolean'), lexicon)).toBe(false);
      expect(() => coHyponymKeys(key('car_type', 'string', [h, 'taxi']), key(h, 'boolean'), lexicon)).not.toThrow();
    }
  });
});
