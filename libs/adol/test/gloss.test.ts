/**
 * The `gloss` ranker (a tool's own terms read through their dictionary definitions, draft-chang §3.4): the
 * definition words a small fake WordNet gives a word (`wordNetLexicon(...).glossWords`: the gloss up to its first
 * example, the synset's other members), the ranker's effect through `selectTools` (a request word inside the
 * definition of a tool's name word lifts that tool; a word every definition holds lifts none; a lexicon without
 * glosses and the default rankers leave the ranking as it was), and hostile tool names, descriptions, requests and
 * glosses (property). Tools and requests are written for these tests, not taken from the bench sets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { wordNetLexicon, type LexPos, type SelectLexicon, type WordNetLike } from '../src/concepts';
import { selectTools, type TextEmbedder, type ToolLike } from '../src/select';

/** delete (10): "remove or make invisible"; archive (20, noun): "a depository for collecting documents; repository"; store (30). */
function fakeWordNet(glosses: ReadonlyMap<number, string> = GLOSSES): WordNetLike {
  const index = new Map<string, { pos: LexPos; offsets: number[] }[]>([
    ['delete', [{ pos: 'v', offsets: [10] }]],
    ['archive', [{ pos: 'n', offsets: [20] }]],
    ['store', [{ pos: 'v', offsets: [30] }]],
  ]);
  const members = new Map<number, string[]>([
    [10, ['delete', 'cancel']],
    [20, ['archive', 'file_away']],
    [30, ['store', 'hive_away']],
  ]);
  return {
    baseForms: (w, pos) => ((index.get(w) ?? []).some((e) => e.pos === pos) ? [w] : []),
    lookup: (l, pos) => (index.get(l) ?? []).find((e) => e.pos === pos),
    synset: (_pos, offset) => ({ pointers: [], gloss: glosses.get(offset) ?? '', words: members.get(offset) ?? [] }),
  };
}

const GLOSSES = new Map<number, string>([
  [10, 'remove or make invisible; "Delete the line"'],
  [20, 'a depository for collecting and keeping documents'],
  [30, 'keep or lay aside for future use; "store grain"'],
]);

/** A bag-of-letters embedder: no word meets another unless spelt alike. */
class Bag implements TextEmbedder {
  readonly id = 'bag-16-gloss';
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(16);
      for (const w of t.toLowerCase().split(/[^a-z]+/)) {
        if (!w) continue;
        const i = [...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7);
        v[i] = (v[i] ?? 0) + 1;
      }
      return v;
    });
  }
}

describe('wordNetLexicon.glossWords: the words of a word definitions', () => {
  const lex = wordNetLexicon(fakeWordNet());
  it('reads the gloss up to its first example, and the synset fellow members, without the word itself', () => {
    expect([...lex.glossWords!('delete')].sort()).toEqual(['cancel', 'invisible', 'make', 'remove']);
    expect(lex.glossWords!('store')).toContain('keep');
    expect(lex.glossWords!('store')).not.toContain('grain');
    expect(lex.glossWords!('zebra')).toEqual([]);
  });

  it('refuses what cannot be a WordNet word', () => {
    for (const w of ['__proto__', 'constructor', 'toString', '\u0000', '\ud800', 'x'.repeat(1 << 20)]) expect(lex.glossWords!(w)).toEqual([]);
  });
});

describe('the gloss ranker', () => {
  const tools: ToolLike[] = [
    { name: 'delete_note', description: 'Deletes a note' },
    { name: 'archive_note', description: 'Moves a note aside' },
    { name: 'list_notes', description: 'Lists notes' },
  ];
  const lex = wordNetLexicon(fakeWordNet());
  const opts = { embedder: new Bag(), lexicon: lex, cut: 'fixed' as const, topK: 3 };

  it('lifts the tool whose name word is defined by the request word, and only it', async () => {
    const gap = async (query: string, want: string, rankers: ('bm25' | 'dense' | 'gloss')[]): Promise<number> => {
      const r = await selectTools(tools, query, { ...opts, rankers });
      const own = r.find((s) => s.tool.name === want)!.score;
      return own - Math.max(...r.filter((s) => s.tool.name !== want).map((s) => s.score));
    };
    // Fused standardised scores: the wanted tool stands further above the best other one with the ranker than without.
    expect(await gap('remove the shopping reminder', 'delete_note', ['bm25', 'dense', 'gloss'])).toBeGreaterThan(await gap('remove the shopping reminder', 'delete_note', ['bm25', 'dense']));
    expect(await gap('keep documents for later', 'archive_note', ['bm25', 'dense', 'gloss'])).toBeGreaterThan(await gap('keep documents for later', 'archive_note', ['bm25', 'dense']));
    const glossOnly = await selectTools(tools, 'remove the shopping reminder', { ...opts, mode: 'semantic', rankers: ['gloss'] });
    expect(glossOnly[0]!.tool.name).toBe('delete_note');
    expect(glossOnly[1]!.score).toBeLessThan(glossOnly[0]!.score);
  });

  it('a word in every tool definition lifts none; no glosses, or the default rankers, rank as before', async () => {
    const everywhere = wordNetLexicon(fakeWordNet(new Map([[10, 'thing'], [20, 'thing'], [30, 'thing']])));
    const base = await selectTools(tools, 'the thing please', { ...opts, lexicon: everywhere, rankers: ['bm25', 'dense'] });
    const glossed = await selectTools(tools, 'the thing please', { ...opts, lexicon: everywhere, rankers: ['bm25', 'dense', 'gloss'] });
    expect(glossed.map((s) => [s.tool.name, s.score])).toEqual(base.map((s) => [s.tool.name, s.score]));
    const bare: SelectLexicon = { id: 'no-glosses', concepts: () => [] };
    const a = await selectTools(tools, 'remove the shopping reminder', { ...opts, lexicon: bare, rankers: ['bm25', 'dense', 'gloss'] });
    const b = await selectTools(tools, 'remove the shopping reminder', { ...opts, lexicon: bare, rankers: ['bm25', 'dense'] });
    expect(a.map((s) => [s.tool.name, s.score])).toEqual(b.map((s) => [s.tool.name, s.score]));
    const d = await selectTools(tools, 'remove the shopping reminder', { ...opts });
    const e = await selectTools(tools, 'remove the shopping reminder', { ...opts, lexicon: bare });
    expect(d.map((s) => s.tool.name)).toEqual(e.map((s) => s.tool.name));
  });
});

const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udfff', 'delete', 'archive', 'remove', 'keep'),
  fc.tuple(fc.constantFrom('a', 'remove ', '"', ';', '\u0000'), fc.integer({ min: 1, max: 3000 })).map(([u, n]) => u.repeat(n)),
);
const hostile = fc.array(piece, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(' '));
const PROTO = Object.getOwnPropertyNames(Object.prototype).sort();

describe('hostile tool names, descriptions, requests and glosses through the gloss ranker', () => {
  const run = async (name: string, text: string, gloss: string): Promise<void> => {
    const lex = wordNetLexicon(fakeWordNet(new Map([[10, gloss], [20, text], [30, gloss]])));
    const tools: ToolLike[] = [{ name: 'delete_item', description: 'Deletes an item' }, { name, description: text }, { name: 'archive_item', description: gloss }];
    const started = performance.now();
    try {
      const r = await selectTools(tools, `${text} ${name}`, { embedder: new Bag(), lexicon: lex, topK: 3, rankers: ['bm25', 'dense', 'gloss'] });
      for (const s of r) expect(Number.isFinite(s.score)).toBe(true);
      for (const w of lex.glossWords!('delete')) expect(w).toMatch(/^[a-z]+$/);
    } catch (e) {
      expect(e).toBeInstanceOf(ParleyError);
    }
    expect(performance.now() - started).toBeLessThan(3000);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO);
  };

  it('scores finitely and quickly, and leaves Object.prototype alone', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, hostile, async (name, text, gloss) => run(name, text, gloss)),
      { numRuns: 60 },
    );
  }, 60_000);

  it('a MiB of text as tool name, description, request and gloss', async () => {
    for (const t of ['.'.repeat(1 << 20) + 'a', 'remove '.repeat(1 << 18), '\ud800'.repeat(1 << 20), 'constructor '.repeat(87_381)]) await run(t, t, t);
  }, 60_000);
});
