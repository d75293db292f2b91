// The WordNet lexicon's derivational links (`+`), read by the rule inducer to name a yes/no need by its act
// (draft-zhou §6.2.2; libs/evolution acts.ts: remove → removal, whiten → whitening).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWordNetLexicon } from '../src/index';
import type { Lexicon } from '@parley/evolution';

let lex: Lexicon;
beforeAll(async () => {
  lex = await loadWordNetLexicon({ wordVectors: false });
}, 60_000);

describe('WordNet lexicon: derived', () => {
  it('reads the nouns derived from a verb over its senses, the word’s own links only', () => {
    expect(lex.derived?.('whiten', 'v', 'n')).toContain('whitening');
    expect(lex.derived?.('remove', 'v', 'n')).toEqual(expect.arrayContaining(['removal', 'remover']));
    expect(lex.derived?.('correct', 'v', 'n')).toContain('correction');
    // "straighten" links no noun of its act in WordNet 3.1: the inducer names it straighten_<object>.
    expect(lex.derived?.('straighten', 'v', 'n') ?? []).not.toContain('straightening');
  });

  it('reads inflected forms through their lemma, and nothing for unknown or hostile words', () => {
    expect(lex.derived?.('whitened', 'v', 'n')).toContain('whitening');
    for (const w of ['constructor', '__proto__', 'a\u0000b', '\ud800', 'x'.repeat(1 << 20), 'zzqxv']) expect(lex.derived?.(w, 'v', 'n')).toEqual([]);
  });
});
