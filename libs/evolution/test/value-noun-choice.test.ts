/**
 * A choice said by its values alone (draft-zhou §6.2.2 step 3, "names from concepts, not frequent words"): nouns
 * distinct clients say, kinds of one thing in the lexicon, with no noun they modify, become one string key named by
 * the kind (`instrument_type`), not a flag named by the commonest value. A small table lexicon (a glossary), no stream.
 */
import { describe, expect, it } from 'vitest';
import { createTableLexicon, DEFAULT_INDUCTION_OPTIONS, induceKey, valueNounKind, type InductionSample } from '../src/index';

const lex = createTableLexicon({
  guitar: { pos: 'n', hypernyms: ['stringed_instrument', 'musical_instrument', 'device'] },
  violin: { pos: 'n', hypernyms: ['bowed_stringed_instrument', 'stringed_instrument', 'musical_instrument'] },
  cello: { pos: 'n', hypernyms: ['bowed_stringed_instrument', 'stringed_instrument', 'musical_instrument'] },
  drum: { pos: 'n', hypernyms: ['percussion_instrument', 'musical_instrument', 'device'] },
  fiddle: { pos: 'n', synonyms: ['violin'], hypernyms: ['bowed_stringed_instrument', 'stringed_instrument', 'musical_instrument'] },
  dog: { pos: 'n', hypernyms: ['canine', 'carnivore', 'animal'] },
  puppy: { pos: 'n', hypernyms: ['dog', 'canine', 'carnivore'] },
  cat: { pos: 'n', hypernyms: ['feline', 'carnivore', 'animal'] },
  cabin: { pos: 'n', hypernyms: ['room', 'area'] },
  wheelchair: { pos: 'n', hypernyms: ['chair', 'seat', 'furniture'] },
  gate: { pos: 'n', hypernyms: ['barrier', 'structure'] },
  mother: { pos: 'n', hypernyms: ['parent', 'person'] },
  band: { pos: 'n', hypernyms: ['musical_organization', 'organization'] },
  case: { pos: 'n', hypernyms: ['container'] },
  luggage: { pos: 'n', hypernyms: ['case', 'container'] },
  bring: { pos: 'v' },
  carry: { pos: 'v' },
  travel: { pos: 'v' },
  need: { pos: 'v' },
  acoustic: { pos: 'a' },
  small: { pos: 'a' },
});

let n = 0;
const said = (text: string, clients: number): InductionSample => ({ text, count: clients, clients: Array.from({ length: clients }, () => `v${n++}`) });
const induce = (samples: InductionSample[]) => induceKey(samples, DEFAULT_INDUCTION_OPTIONS, { lexicon: lex });

describe('valueNounKind: kinds of one thing said as nouns', () => {
  it('guitar, violin, cello and drum are musical instruments: the kind and every value', () => {
    const got = valueNounKind(lex, [{ word: 'guitar', weight: 6 }, { word: 'violin', weight: 4 }, { word: 'cello', weight: 2 }, { word: 'drum', weight: 2 }, { word: 'cabin', weight: 3 }]);
    expect(got?.kind).toBe('musical_instrument');
    expect(got?.values).toEqual(['guitar', 'violin', 'cello', 'drum']);
  });

  it('the heaviest kind wins; on a tie the nearer one (stringed_instrument beside musical_instrument for two strings)', () => {
    expect(valueNounKind(lex, [{ word: 'guitar', weight: 3 }, { word: 'violin', weight: 3 }])?.kind).toBe('stringed_instrument');
  });

  it('no choice: one kind at several levels (puppy under dog), one value, unrelated nouns, spellings of one synset', () => {
    expect(valueNounKind(lex, [{ word: 'dog', weight: 5 }, { word: 'cat', weight: 4 }, { word: 'puppy', weight: 3 }])).toBeNull();
    expect(valueNounKind(lex, [{ word: 'guitar', weight: 5 }])).toBeNull();
    expect(valueNounKind(lex, [{ word: 'wheelchair', weight: 5 }, { word: 'gate', weight: 3 }, { word: 'mother', weight: 2 }])).toBeNull();
    expect(valueNounKind(lex, [{ word: 'violin', weight: 5 }, { word: 'fiddle', weight: 3 }])).toBeNull();
    expect(valueNounKind(lex, [])).toBeNull();
  });

  it('hostile words and weights: property names, NUL, lone surrogates, a MiB, NaN give null and throw nothing', () => {
    const hostile = ['constructor', '__proto__', 'toString', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20), 'a_'.repeat(5000)];
    for (const h of hostile) {
      expect(() => valueNounKind(lex, [{ word: h, weight: 3 }, { word: 'guitar', weight: 2 }])).not.toThrow();
      expect(valueNounKind(lex, [{ word: h, weight: 3 }, { word: h, weight: 2 }])).toBeNull();
    }
    expect(valueNounKind(lex, [{ word: 'guitar', weight: Number.NaN }, { word: 'drum', weight: 2 }])).toBeNull();
    expect(valueNounKind(lex, Array.from({ length: 100_000 }, (_, i) => ({ word: i % 2 === 0 ? 'guitar' : 'drum', weight: 1 })))?.values).toEqual(['drum', 'guitar']);
  });
});

describe('induceKey: a choice said by its values alone is one string key named by the kind', () => {
  it('"I carry my violin" / "bringing a guitar" / "a drum for the band": instrument_type with every value', () => {
    const r = induce([said('I carry my violin', 3), said('bringing my acoustic guitar', 4), said('a small drum for the band', 2), said('my cello in the cabin', 2), said('guitar in a case', 2)]);
    expect(r.ok && r.candidate.key).toMatchObject({ key_name: 'instrument_type', key_type: 'string' });
    expect(r.ok && [...(r.candidate.key.enum ?? [])].sort()).toEqual(['cello', 'drum', 'guitar', 'violin']);
  });

  it('a yes/no need whose object is a noun stays a flag: one noun (wheelchair), and kinds at several levels (a pet)', () => {
    const wheel = induce([said('my mother needs a wheelchair', 4), said('wheelchair at the gate', 3), said('a wheelchair please', 3)]);
    expect(wheel.ok && wheel.candidate.key.key_type).toBe('boolean');
    const pet = induce([said('my dog travels in the cabin', 4), said('bringing my cat', 3), said('a small puppy in the cabin', 3)]);
    expect(pet.ok && pet.candidate.key.key_type).toBe('boolean');
  });

  it('a value heard by one client only is no alternative: one corroborated instrument stays a flag', () => {
    const r = induce([said('I carry my violin', 4), said('bringing my violin', 3), said('a drum for the band', 1)]);
    expect(r.ok && r.candidate.key.key_type).toBe('boolean');
  });
});
