/**
 * The `action` ranker (verb–object structure, draft-chang §3.4): a word read as an act through a small fake WordNet
 * (own senses, a noun's derivation, one troponym step; how much a word reads as a verb), the acts of tools (name
 * prefix shared by the list skipped, the description's opening verb), the scores, its effect through `selectTools`,
 * and hostile words, tool names and requests (property). Tools and requests are written for these tests, not taken
 * from the bench sets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { actionIndex, actionScores, actionWords } from '../src/action';
import { wordNetLexicon, type LexPos, type WordNetLike } from '../src/concepts';
import { selectTools, type TextEmbedder, type ToolLike } from '../src/select';

/**
 * Verbs: move (10) ← relocate (11, a troponym: `@` 10); erase (20) with its noun erasure (30, `+` 20); read (40);
 * file is mostly a noun (50) and seldom a verb (51). Tag counts say how often each part of speech is used.
 */
function fakeWordNet(): WordNetLike {
  const index = new Map<string, { pos: LexPos; offsets: number[]; tagSenseCount: number }[]>([
    ['move', [{ pos: 'v', offsets: [10], tagSenseCount: 9 }]],
    ['relocate', [{ pos: 'v', offsets: [11], tagSenseCount: 2 }]],
    ['erase', [{ pos: 'v', offsets: [20], tagSenseCount: 3 }]],
    ['erasure', [{ pos: 'n', offsets: [30], tagSenseCount: 1 }]],
    ['read', [{ pos: 'v', offsets: [40], tagSenseCount: 8 }]],
    ['shift', [{ pos: 'v', offsets: [12], tagSenseCount: 2 }]],
    ['buy', [{ pos: 'v', offsets: [60], tagSenseCount: 5 }]],
    ['pay', [{ pos: 'v', offsets: [61], tagSenseCount: 5 }]],
    ['get', [{ pos: 'v', offsets: [80], tagSenseCount: 9 }]],
    ['get_rid_of', [{ pos: 'v', offsets: [20], tagSenseCount: 1 }]],
    ['log', [{ pos: 'v', offsets: [70], tagSenseCount: 3 }]],
    ['log_out', [{ pos: 'v', offsets: [71], tagSenseCount: 1 }]],
    ['log_in', [{ pos: 'v', offsets: [72], tagSenseCount: 1 }]],
    ['add', [{ pos: 'v', offsets: [90, 91], tagSenseCount: 6 }]],
    ['tell', [{ pos: 'v', offsets: [92], tagSenseCount: 6 }]],
    ['increase', [{ pos: 'v', offsets: [93], tagSenseCount: 6 }]],
    ['pull', [{ pos: 'v', offsets: [100], tagSenseCount: 6 }]],
    ['file', [
      { pos: 'n', offsets: [50], tagSenseCount: 9 },
      { pos: 'v', offsets: [51], tagSenseCount: 1 },
    ]],
  ]);
  const pointers = new Map<number, { symbol: string; offset: number; pos: LexPos }[]>([
    [11, [{ symbol: '@', offset: 10, pos: 'v' }]],
    [12, [{ symbol: '@', offset: 10, pos: 'v' }]],
    [60, [{ symbol: '*', offset: 61, pos: 'v' }]],
    [30, [{ symbol: '+', offset: 20, pos: 'v' }]],
    [90, [{ symbol: '@', offset: 93, pos: 'v' }]],
    [91, [{ symbol: '@', offset: 92, pos: 'v' }]],
  ]);
  return {
    baseForms: (w, pos) => {
      const has = (x: string): boolean => (index.get(x) ?? []).some((e) => e.pos === pos);
      return has(w) ? [w] : w.endsWith('s') && has(w.slice(0, -1)) ? [w.slice(0, -1)] : [];
    },
    lookup: (l, pos) => (index.get(l) ?? []).find((e) => e.pos === pos),
    synset: (_pos, offset) => ({ pointers: pointers.get(offset) ?? [] }),
  };
}

describe('wordNetLexicon.actions: a word read as an act', () => {
  const lex = wordNetLexicon(fakeWordNet());
  it('gives own senses, the verb a noun derives from, and one troponym step up, weighted', () => {
    expect(lex.actions!('relocate')).toEqual({ concepts: [{ id: 'v11', weight: 1, depth: 0 }, { id: 'v10', weight: 0.7, depth: 1, first: true }], verbal: 1 });
    expect(lex.actions!('erasure')).toEqual({ concepts: [{ id: 'v20', weight: 0.9, depth: 0 }], verbal: 0 });
    expect(lex.actions!('file').verbal).toBeCloseTo(0.1);
    expect(lex.actions!('zebra')).toEqual({ concepts: [], verbal: 0 });
  });

  it('refuses what cannot be a WordNet word', () => {
    for (const w of ['__proto__', 'constructor', 'toString', '\u0000', '\ud800', 'x'.repeat(1 << 20), 'a'.repeat(50_000) + '\udfff']) {
      expect(lex.actions!(w)).toEqual({ concepts: [], verbal: 0 });
    }
  });
});

describe('the action ranker', () => {
  const lex = wordNetLexicon(fakeWordNet());
  const names = [['fs', 'move', 'file'], ['fs', 'read', 'file'], ['fs', 'erase', 'file']];
  it("skips the list's shared name prefix and matches a troponym and a derived noun with the tool's act", () => {
    const index = actionIndex(names, [[], [], []], lex);
    const relocate = actionScores(index, ['relocate', 'photo'], lex);
    expect(relocate[0]).toBeGreaterThan(0);
    expect(relocate.slice(1)).toEqual([0, 0]);
    const erasure = actionScores(index, ['erasure', 'notes'], lex);
    expect(erasure.indexOf(Math.max(...erasure))).toBe(2);
    expect(actionScores(index, ['zebra'], lex)).toEqual([0, 0, 0]);
  });

  it("reads the description's opening verb when the name has none", () => {
    const index = actionIndex([['status'], ['log'], ['history']], [['relocate', 'things'], ['read', 'log'], []], lex);
    expect(actionScores(index, ['relocate'], lex)[0]).toBeGreaterThan(0);
    expect(actionScores(index, ['read'], lex)).toEqual([0, expect.any(Number), 0]);
  });

  it("meets a tool's specific act when the request names the general one, less than the act itself", () => {
    // "move" is relocate's hypernym: the request says the general act of the tool's specific one ("modify" for update).
    const index = actionIndex([['relocate', 'item'], ['move', 'item'], ['read', 'item']], [[], [], []], lex);
    const move = actionScores(index, ['move'], lex);
    expect(move[0]).toBeGreaterThan(0);
    expect(move[1]).toBeGreaterThan(move[0]!);
    expect(move[2]).toBe(0);
  });

  it('never lets two siblings meet under their shared hypernym (both sides going up)', () => {
    // shift and relocate are both ways to move: neither is the other.
    const index = actionIndex([['relocate', 'item'], ['read', 'item']], [[], []], lex);
    expect(actionScores(index, ['shift'], lex)).toEqual([0, 0]);
  });

  it('reads what an act entails (WordNet `*`): buying entails paying', () => {
    expect(lex.actions!('buy').concepts).toContainEqual({ id: 'v61', weight: 0.7, depth: 2 });
    const index = actionIndex([['pay', 'invoice'], ['read', 'invoice']], [[], []], lex);
    expect(actionScores(index, ['buy'], lex)[0]).toBeGreaterThan(0);
    // The other way round: paying does not entail buying.
    expect(actionScores(actionIndex([['buy', 'item']], [[]], lex), ['pay'], lex)).toEqual([0]);
  });

  it('joins a verb with two particles when WordNet knows the phrase ("get rid of"), and not a free verb and preposition', () => {
    const none = new Set<string>();
    expect(actionWords('get rid of the notes', lex, none)).toEqual(['get_rid_of', 'the', 'notes']);
    expect(actionWords('get the notes', lex, none)).toEqual(['get', 'the', 'notes']);
    const index = actionIndex([['erase', 'note'], ['read', 'note']], [[], []], lex);
    const s = actionScores(index, actionWords('get rid of the notes', lex, none), lex);
    expect(s[0]).toBeGreaterThan(s[1]!);
  });

  it('reads no act after a form of "be" (a participle or predicate is a state), and still the imperative\'s verb', () => {
    const none = new Set<string>();
    expect(actionWords('which files are relocate', lex, none)).toEqual(['which', 'files']);
    expect(actionWords('relocate the files', lex, none)).toEqual(['relocate', 'the', 'files']);
  });

  it('never reads a form of "be" itself ("been", "being") nor a clitic of it as the act, and skips the word after', () => {
    const none = new Set<string>();
    expect(actionWords('which files have been relocate', lex, none)).toEqual(['which', 'files', 'have']);
    expect(actionWords('being relocate', lex, none)).toEqual([]);
    expect(actionWords("what's relocate", lex, none)).toEqual([]);
    expect(actionWords('what\u2019s relocate', lex, none)).toEqual([]);
    expect(actionWords("you're relocate it", lex, none)).toEqual(['it']);
    // Ordinary requests keep their verb, with "be" and a possessive later on.
    expect(actionWords('erase the file that is relocate', lex, none)).toEqual(['erase', 'the', 'file', 'that']);
    expect(actionWords("relocate jdoe's notes now", lex, none)).toEqual(['relocate', 'now']);
  });

  it("keeps a description's phrasal verb's bare verb as an act: \"log me out\" reaches the tool that \"Logs out\"", () => {
    const none = new Set<string>();
    const index = actionIndex([['login', 'user'], ['logout', 'user']], ['Logs in user', 'Logs out current user'].map((d) => actionWords(d, lex, none)), lex);
    const parted = actionScores(index, actionWords('log me out', lex, none), lex);
    expect(parted[1]).toBeGreaterThan(0);
    expect(parted[1]).toBe(parted[0]);
    // The phrase said whole still tells the two apart.
    const whole = actionScores(index, actionWords('log out', lex, none), lex);
    expect(whole[1]).toBeGreaterThan(0);
    expect(whole[0]).toBe(0);
  });

  it("reads a tool act's general act from its first sense only", () => {
    // add: sense 1 under increase, sense 2 under tell (as "state further").
    const index = actionIndex([['add', 'item'], ['read', 'item']], [[], []], lex);
    expect(actionScores(index, ['increase'], lex)[0]).toBeGreaterThan(0);
    expect(actionScores(index, ['tell'], lex)).toEqual([0, 0]);
  });

  it("does not read a name's first word as its verb when it opens a compound the other names use as their object", () => {
    const names = [['pull', 'request', 'read'], ['list', 'pull', 'requests'], ['erase', 'note'], ['move', 'note'], ['relocate', 'item']];
    const index = actionIndex(names, [[], [], [], [], []], lex);
    expect(actionScores(index, ['pull'], lex)[0]).toBe(0);
    expect(actionScores(index, ['read'], lex)[0]).toBeGreaterThan(0);
    // A name whose first two words no other name uses later keeps its first word as the verb.
    const plain = actionIndex([['pull', 'changes'], ['list', 'pull', 'requests'], ['erase', 'note'], ['move', 'note'], ['relocate', 'item']], [[], [], [], [], []], lex);
    expect(actionScores(plain, ['pull'], lex)[0]).toBeGreaterThan(0);
  });

  it('lifts the tool whose act the request names through selectTools, by default', async () => {
    const tools: ToolLike[] = [
      { name: 'move_item', description: 'Put an item somewhere else' },
      { name: 'read_item', description: 'Show an item' },
      { name: 'erase_item', description: 'Get rid of an item' },
      { name: 'count_items', description: 'How many items there are in all' },
    ];
    const embedder = new Bag();
    const r = await selectTools(tools, 'relocate it', { embedder, lexicon: lex, topK: 3, cut: 'fixed', rankers: ['action'] });
    expect(r[0]!.tool.name).toBe('move_item');
    // A word of count_items' description ("many") and the act of move_item ("relocate" is a way to move).
    const q = 'relocate many';
    const off = await selectTools(tools, q, { embedder, lexicon: lex, topK: 4, cut: 'fixed', rankers: ['bm25', 'dense'] });
    const on = await selectTools(tools, q, { embedder, lexicon: lex, topK: 4, cut: 'fixed', rankers: ['bm25', 'dense', 'action'] });
    const lead = (x: typeof on): number => x.find((s) => s.tool.name === 'move_item')!.score - x.find((s) => s.tool.name === 'count_items')!.score;
    expect(lead(on)).toBeGreaterThan(lead(off));
    // In the default rankers (round 15): without `rankers`, the scores are those with it.
    const byDefault = await selectTools(tools, 'relocate it', { embedder, lexicon: lex, topK: 4, cut: 'fixed' });
    const withAction = await selectTools(tools, 'relocate it', { embedder, lexicon: lex, topK: 4, cut: 'fixed', rankers: ['bm25', 'dense', 'examples', 'values', 'concepts', 'action'] });
    expect(byDefault.map((s) => [s.tool.name, s.score])).toEqual(withAction.map((s) => [s.tool.name, s.score]));
  });

  it('refuses a lexicon whose actions is not a method', async () => {
    await expect(selectTools([{ name: 'a' }], 'x', { embedder: new Bag(), lexicon: { id: 'x', concepts: () => [], actions: 3 } as never })).rejects.toMatchObject({ type: 'invalid_params', path: 'opts.lexicon' });
  });
});

// A bag-of-words embedder that knows no synonym.
class Bag implements TextEmbedder {
  readonly id = 'bag-16-action';
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

const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udfff', 'relocate', 'erasure', 'move'),
  fc.tuple(fc.constantFrom('a', 'move ', '(', '\u0000'), fc.integer({ min: 1, max: 3000 })).map(([u, n]) => u.repeat(n)),
);
const hostile = fc.array(piece, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(' '));
const PROTO = Object.getOwnPropertyNames(Object.prototype).sort();

describe('hostile words, tool names, descriptions and requests through the action ranker', () => {
  const lex = wordNetLexicon(fakeWordNet());
  const run = async (name: string, text: string): Promise<void> => {
    const tools: ToolLike[] = [{ name: 'move_item', description: 'Moves an item' }, { name, description: text }, { name: 'read_item', description: text }];
    const started = performance.now();
    try {
      const r = await selectTools(tools, `${text} ${name}`, { embedder: new Bag(), lexicon: lex, topK: 3, rankers: ['bm25', 'dense', 'action'] });
      for (const s of r) expect(Number.isFinite(s.score)).toBe(true);
    } catch (e) {
      expect(e).toBeInstanceOf(ParleyError);
    }
    expect(performance.now() - started).toBeLessThan(3000);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO);
  };

  it('scores finitely and quickly, and leaves Object.prototype alone', async () => {
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (name, text) => run(name, text)),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 6 }), fc.array(fc.array(hostile, { maxLength: 4 }), { minLength: 1, maxLength: 4 }), (request, names) => {
        const s = actionScores(actionIndex(names, names, lex), request, lex);
        expect(s).toHaveLength(names.length);
        for (const x of s) expect(Number.isFinite(x)).toBe(true);
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it('a MiB of text as tool name, description and request', async () => {
    for (const t of ['.'.repeat(1 << 20) + 'a', 'move '.repeat(1 << 18), '\ud800'.repeat(1 << 20), 'constructor '.repeat(87_381)]) await run(t, t);
  }, 60_000);
});
