/**
 * ADOL mechanism D, tool selection (draft-chang §3.4): tag-based retrieval,
 * semantic retrieval (top K, threshold), the hybrid with BM25, the per-list
 * cache of tool embeddings, typed errors, `evaluateSelection`; first with a
 * small deterministic fake embedder written here, then with the real offline
 * embedder on the GitHub MCP server's 86 tools (target: recall@5 >= 0.9).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Test only: the real offline embedder is the adapter this domain code is measured with.
// select.ts itself never imports it; it takes any TextEmbedder.
import { ParleyError } from '@parley/protocol';
import { AUTO_CUT_SD, DEFAULT_AUTO_CUT, DEFAULT_TOP_K, autoCutLength, EXAMPLES_META_KEY, evaluateSelection, lexicalTerms, selectTools, splitIdentifier, toolExamples, toolText, type TextEmbedder, type ToolLike } from '../src/select';

// ---------------------------------------------------------------------------
// A fake embedder: bag of words hashed into 64 signed buckets, normalised; it
// counts calls and texts so the cache can be observed.
// ---------------------------------------------------------------------------

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

class BagOfWords implements TextEmbedder {
  calls = 0;
  texts = 0;
  seen: string[] = [];
  failNext = false;
  constructor(readonly id = 'bag-of-words-64') {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.texts += texts.length;
    this.seen.push(...texts);
    if (this.failNext) {
      this.failNext = false;
      throw new ParleyError('unavailable', 'fake embedder down');
    }
    return texts.map((t) => {
      const v = new Float32Array(64);
      for (const w of t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
        const h = fnv(w.replace(/s$/, ''));
        v[h % 64]! += h & 0x80000000 ? -1 : 1;
      }
      const n = Math.hypot(...v);
      return n > 0 ? v.map((x) => x / n) : v;
    });
  }
}

const TOOLS: ToolLike[] = [
  { name: 'book_flight', description: 'Book a flight ticket between two airports', tags: ['travel', 'airline'], inputSchema: { properties: { origin: { description: 'Departure airport code' } } } },
  { name: 'cancel_flight', description: 'Cancel a booked flight and refund the ticket', tags: ['travel', 'airline'] },
  { name: 'retouch_photo', description: 'Retouch a portrait photo: eyes, skin, teeth', tags: ['photo'] },
  { name: 'crop_photo', description: 'Crop a photo to a new aspect ratio', tags: ['photo'] },
  { name: 'diagnose_fault', description: 'Diagnose a network fault from alarms', tags: ['network', 'ops'] },
  { name: 'weather_now', description: 'Current weather for a city', tags: [] },
];

async function catchParley(p: Promise<unknown>): Promise<ParleyError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, nothing was thrown');
}

describe('tool text', () => {
  it('splits names and carries the description, property names, descriptions and enum values', () => {
    expect(splitIdentifier('list_pull_requests')).toBe('list pull requests');
    expect(splitIdentifier('pullNumber')).toBe('pull Number');
    expect(splitIdentifier('open PRs')).toBe('open prs');
    const text = toolText({
      name: 'issue_write',
      description: 'Create or update an issue.',
      inputSchema: { properties: { issueNumber: { description: 'Issue number' }, method: { type: 'string', enum: ['create', 'update_state'] } } },
    });
    expect(text).toBe('issue write\nCreate or update an issue.\nissue Number: Issue number\nmethod: create update state');
    expect(lexicalTerms('Show the open PRs of my repos')).toEqual(['show', 'open', 'pull', 'request', 'repository']);
  });

  it('reads nested input fields and the example requests attached to a tool', () => {
    const tool: ToolLike = {
      name: 'create_entities',
      description: 'Create entities.',
      inputSchema: { properties: { entities: { type: 'array', items: { properties: { entityType: { description: 'Kind of thing' } } } } } },
      examples: ['Remember that Alice is a person'],
      _meta: { [EXAMPLES_META_KEY]: ['Store Bob as a colleague', 3], other: ['x'] },
    };
    expect(toolExamples(tool)).toEqual(['Remember that Alice is a person', 'Store Bob as a colleague']);
    expect(toolText(tool)).toBe('create entities\nCreate entities.\nentities\nentity Type: Kind of thing\nRemember that Alice is a person\nStore Bob as a colleague');
  });

  it('words from tools and requests are never looked up on Object.prototype (a tool named "constructor" works)', async () => {
    expect(lexicalTerms('constructor __proto__ valueOf')).toEqual(['constructor', 'proto', 'valu']);
    const tools: ToolLike[] = [...TOOLS, { name: 'constructor', description: 'Builds the prototype of a class' }, { name: '__proto__', description: 'hasOwnProperty valueOf' }];
    const lexical = await selectTools(tools, 'call the constructor of the prototype', { mode: 'lexical', topK: 1 });
    expect(lexical.map((s) => s.tool.name)).toEqual(['constructor']);
    const hybrid = await selectTools(tools, 'constructor', { embedder: new BagOfWords(), cut: 'fixed', topK: 1 });
    expect(hybrid.map((s) => s.tool.name)).toEqual(['constructor']);
    const proto = await selectTools(tools, 'valueOf hasOwnProperty', { embedder: new BagOfWords(), cut: 'fixed', topK: 1 });
    expect(proto.map((s) => s.tool.name)).toEqual(['__proto__']);
  });
});

describe('tag-based selection (§3.4 approach 2)', () => {
  it('returns every tool having any requested tag, best match first, in list order on ties', async () => {
    const r = await selectTools(TOOLS, '', { tags: ['airline', 'photo'] });
    expect(r.map((s) => s.tool.name)).toEqual(['book_flight', 'cancel_flight', 'retouch_photo', 'crop_photo']);
    expect(r.map((s) => s.score)).toEqual([0.5, 0.5, 0.5, 0.5]);
    const both = await selectTools(TOOLS, '', { tags: ['travel', 'airline', 'ops'] });
    expect(both.map((s) => [s.tool.name, Number(s.score.toFixed(3))])).toEqual([
      ['book_flight', 0.667],
      ['cancel_flight', 0.667],
      ['diagnose_fault', 0.333],
    ]);
    expect(await selectTools(TOOLS, '', { tags: ['unknown'] })).toEqual([]);
    expect(await selectTools(TOOLS, '', { tags: ['photo'], topK: 1 })).toHaveLength(1);
  });

  it('with a query, ranks only the tagged tools', async () => {
    const r = await selectTools(TOOLS, 'crop the picture', { tags: ['photo'], embedder: new BagOfWords() });
    expect(r.map((s) => s.tool.name)).toEqual(['crop_photo', 'retouch_photo']);
  });
});

describe('semantic selection (§3.4 approach 1)', () => {
  it('ranks by similarity and keeps the top K (default 5, or fewer by the adaptive cut)', async () => {
    const embedder = new BagOfWords();
    const r = await selectTools(TOOLS, 'cancel my flight and refund it', { embedder, mode: 'semantic', topK: 2, cut: 'fixed' });
    expect(r.map((s) => s.tool.name)).toEqual(['cancel_flight', 'book_flight']);
    expect(r[0]!.score).toBeGreaterThan(r[1]!.score);
    expect(r[0]!.cosine).toBeGreaterThan(r[1]!.cosine!);
    expect(r[0]!.lexical).toBeUndefined();
    expect(await selectTools(TOOLS, 'photo', { embedder, cut: 'fixed' })).toHaveLength(DEFAULT_TOP_K);
    expect(await selectTools(TOOLS, 'photo', { mode: 'lexical' })).toHaveLength(DEFAULT_TOP_K);
  });

  it('the adaptive cut rule: drop below the best, a fraction of the best, a gap, at least minK and at most maxK', () => {
    const ranked = [2.0, 1.6, 1.5, 0.4, 0.3, -0.5, -1];
    expect(autoCutLength(ranked, 5)).toBe(3); // 2.0 − 1.5: 0.4 is below
    expect(autoCutLength(ranked, 5, DEFAULT_AUTO_CUT)).toBe(3);
    expect(autoCutLength(ranked, 2)).toBe(2); // never more than maxK
    expect(autoCutLength(ranked, 7, { drop: Number.POSITIVE_INFINITY })).toBe(7);
    expect(autoCutLength(ranked, 7, { drop: 0.3 })).toBe(1);
    expect(autoCutLength(ranked, 7, { drop: 0.3, minK: 4 })).toBe(4); // at least minK whatever the rule
    expect(autoCutLength(ranked, 7, { drop: 10, ratio: 0.75 })).toBe(3); // 1.5 = 0.75 × 2.0 kept, 0.4 not
    expect(autoCutLength(ranked, 7, { drop: 10, gap: 0.5 })).toBe(3); // the fall 1.5 → 0.4 ends it
    expect(autoCutLength(ranked, 7, { drop: 10, gap: 0.35 })).toBe(1); // 2.0 → 1.6 is already a larger fall
    // A best below the list's mean gives the ratio nothing to be a fraction of: it is not applied.
    expect(autoCutLength([-0.1, -0.2, -0.3], 3, { ratio: 0.9 })).toBe(3);
    expect(autoCutLength([], 5)).toBe(0);
    expect(autoCutLength([1], 5, { minK: 3 })).toBe(1);
  });

  it('a fall larger than gap within the first minK still leaves out every tool after minK', () => {
    const ranked = [3, 0, -0.1, -0.2, -0.3];
    expect(autoCutLength(ranked, 5, { gap: 1, drop: 100 })).toBe(1);
    expect(autoCutLength(ranked, 5, { minK: 2, gap: 1, drop: 100 })).toBe(2);
    expect(autoCutLength(ranked, 5, { minK: 4, gap: 1, drop: 100 })).toBe(4);
    // A fall after minK ends it where it happens, as before.
    expect(autoCutLength([3, 2.9, 2.8, 0, -0.1], 5, { minK: 2, gap: 1, drop: 100 })).toBe(3);
    expect(autoCutLength([3, 0, -0.1], 5, { minK: 2, drop: 100 })).toBe(3); // no gap rule: nothing remembered
  });

  it('with no rule the cut is the default one exactly: keep while within AUTO_CUT_SD of the best, at least 1, at most maxK', () => {
    // The default (no cut parameter) must not move: the rule as it was before the configurable cut.
    const reference = (xs: readonly number[], maxK: number): number => {
      const n = Math.min(maxK, xs.length);
      let k = n === 0 ? 0 : 1;
      while (k < n && (xs[k] as number) >= (xs[0] as number) - AUTO_CUT_SD) k++;
      return k;
    };
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 40 }), fc.integer({ min: 0, max: 50 }), (xs, maxK) => {
        const ranked = [...xs].sort((a, b) => b - a);
        expect(autoCutLength(ranked, maxK)).toBe(reference(ranked, maxK));
        expect(autoCutLength(ranked, maxK, {})).toBe(reference(ranked, maxK));
        expect(autoCutLength(ranked, maxK, DEFAULT_AUTO_CUT)).toBe(reference(ranked, maxK));
      }),
      { numRuns: 500 },
    );
  });

  it('autoCutLength refuses a maxK or rule selectTools would refuse', () => {
    const cases: [number, object, string, string][] = [
      [-1, {}, 'maxK', 'range'],
      [Number.NaN, {}, 'maxK', 'type'],
      [0.5, {}, 'maxK', 'range'],
      [5, { minK: 0 }, 'opts.autoCut.minK', 'range'],
      [5, { gap: -1 }, 'opts.autoCut.gap', 'range'],
    ];
    for (const [maxK, rule, path, ruleName] of cases) {
      let err: unknown;
      try {
        autoCutLength([1, 0], maxK, rule as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParleyError);
      expect({ path: (err as ParleyError).path, rule: (err as ParleyError).rule }).toEqual({ path, rule: ruleName });
    }
    expect(autoCutLength([1, 0], 0)).toBe(0);
  });

  it('selectTools applies the autoCut rule it is given, and the fixed cut ignores it', async () => {
    const embedder = new BagOfWords();
    const q = 'diagnose the network fault from these alarms';
    const all = await selectTools(TOOLS, q, { embedder, topK: TOOLS.length, cut: 'fixed' });
    const rule = { minK: 2, drop: 0.1 };
    const auto = await selectTools(TOOLS, q, { embedder, topK: TOOLS.length, autoCut: rule });
    expect(auto.map((s) => s.tool.name)).toEqual(all.slice(0, autoCutLength(all.map((s) => s.score), TOOLS.length, rule)).map((s) => s.tool.name));
    expect(auto.length).toBeGreaterThanOrEqual(2);
    expect(await selectTools(TOOLS, q, { embedder, topK: 3, cut: 'fixed', autoCut: rule })).toHaveLength(3);
  });

  it('the adaptive cut leaves out tools more than AUTO_CUT_SD standard deviations below the best', async () => {
    const embedder = new BagOfWords();
    const all = await selectTools(TOOLS, 'diagnose the network fault from these alarms', { embedder, topK: TOOLS.length, cut: 'fixed' });
    const auto = await selectTools(TOOLS, 'diagnose the network fault from these alarms', { embedder, topK: TOOLS.length });
    const best = all[0]!.score;
    expect(auto.map((s) => s.tool.name)).toEqual(all.filter((s) => s.score >= best - AUTO_CUT_SD).map((s) => s.tool.name));
    expect(auto.length).toBeLessThan(all.length);
    expect(auto[0]!.tool.name).toBe('diagnose_fault');
    // The fused score is the mean of standardised scores: over the list it averages 0.
    expect(all.reduce((a, s) => a + s.score, 0)).toBeCloseTo(0, 9);
  });

  it('example requests attached to a tool steer selection toward it', async () => {
    const embedder = new BagOfWords();
    const plain: ToolLike[] = TOOLS.map((t) => ({ ...t }));
    const query = 'my portrait looks tired, freshen it up';
    const before = await selectTools(plain, query, { embedder, topK: TOOLS.length, cut: 'fixed' });
    const withExamples = plain.map((t) => (t.name === 'retouch_photo' ? { ...t, _meta: { [EXAMPLES_META_KEY]: ['freshen up a tired looking face', 'make me look less tired'] } } : t));
    const after = await selectTools(withExamples, query, { embedder, topK: TOOLS.length, cut: 'fixed' });
    const rank = (r: { tool: ToolLike }[]): number => r.findIndex((s) => s.tool.name === 'retouch_photo');
    expect(rank(after)).toBe(0);
    expect(rank(after)).toBeLessThanOrEqual(rank(before));
    expect(after[0]!.score).toBeGreaterThan(before.find((s) => s.tool.name === 'retouch_photo')!.score);
  });

  it('soft word matching: the action word of a request is matched against tool names through the embedder', async () => {
    // An embedder that knows two words are alike, as WordNet knows folder/directory: the tool's
    // text never says "folder", yet the action and its object find make_directory first.
    class Synonyms extends BagOfWords {
      override async embed(texts: string[]): Promise<Float32Array[]> {
        return super.embed(texts.map((t) => t.replace(/\bfolder\b/g, 'directory').replace(/\bbuild\b/g, 'make')));
      }
    }
    const tools: ToolLike[] = [
      { name: 'make_directory', description: 'Creates a directory on disk' },
      { name: 'read_file', description: 'Reads a file from the directory given' },
      { name: 'list_directory', description: 'Lists a directory' },
    ];
    const r = await selectTools(tools, 'build a folder', { embedder: new Synonyms('syn'), cut: 'fixed', rankers: ['match'] });
    expect(r[0]!.tool.name).toBe('make_directory');
    expect(r[0]!.match).toBeGreaterThan(r[1]!.match!);
    // Not a default ranker: without asking, nothing is matched word by word.
    expect((await selectTools(tools, 'build a folder', { embedder: new Synonyms('syn') }))[0]!.match).toBeUndefined();
  });

  it('keeps only scores >= threshold, with or without topK', async () => {
    const embedder = new BagOfWords();
    const all = await selectTools(TOOLS, 'network fault alarms', { embedder, mode: 'semantic', topK: TOOLS.length, cut: 'fixed' });
    const t = (all[0]!.score + all[1]!.score) / 2;
    const cut = await selectTools(TOOLS, 'network fault alarms', { embedder, mode: 'semantic', threshold: t });
    expect(cut.map((s) => s.tool.name)).toEqual(['diagnose_fault']);
    expect(cut.every((s) => s.score >= t)).toBe(true);
    const none = await selectTools(TOOLS, 'network fault alarms', { embedder, mode: 'semantic', threshold: 100 });
    expect(none).toEqual([]);
    // With the linear fusion and no BM25, the score is the cosine itself.
    const cosines = await selectTools(TOOLS, 'network fault alarms', { embedder, mode: 'semantic', fusion: 'linear', threshold: 0 });
    for (const s of cosines) expect(s.score).toBe(s.cosine);
  });

  it('represents tools as IDF-weighted words by default and as whole texts on request', async () => {
    // A fresh list: the cache is per list and embedder id, and TOOLS is shared by the tests.
    const list = [...TOOLS];
    const embedder = new BagOfWords();
    await selectTools(list, 'weather in Paris', { embedder });
    // `words`: the tools' vocabulary in one call, the query's words in another.
    expect(embedder.calls).toBe(2);
    const vocabulary = new Set(TOOLS.flatMap((t) => toolText(t).toLowerCase().split(/[^a-z0-9]+/)));
    expect(embedder.texts).toBeLessThan(vocabulary.size + 3);
    const text = new BagOfWords();
    await selectTools(list, 'weather in Paris', { embedder: text, representation: 'text' });
    // `text`: each tool's whole text and the whole query are embedded (the words too, for soft matching).
    for (const t of [...TOOLS.map(toolText), 'weather in Paris']) expect(text.seen).toContain(t);
  });

  it('hybrid (the default with an embedder) fuses the rankers and reports each', async () => {
    const r = await selectTools(TOOLS, 'weather for Paris', { embedder: new BagOfWords(), rankers: ['bm25', 'dense', 'match'] });
    expect(r[0]!.tool.name).toBe('weather_now');
    expect(r[0]!.lexical).toBe(1);
    expect(r[0]!.cosine).toBeGreaterThan(0);
    expect(r[0]!.match).toBeGreaterThan(0);
    // linear: the former fixed mix.
    const linear = await selectTools(TOOLS, 'weather for Paris', { embedder: new BagOfWords(), fusion: 'linear' });
    expect(linear[0]!.score).toBeCloseTo(0.9 * linear[0]!.cosine! + 0.1 * linear[0]!.lexical!, 12);
    const lexicalOnly = await selectTools(TOOLS, 'weather for Paris', { embedder: new BagOfWords(), fusion: 'linear', semanticWeight: 0 });
    expect(lexicalOnly[0]!.score).toBe(1);
    // rrf: Σ 1/(60 + rank) over the default rankers (BM25, dense); weather_now is first in each.
    const rrf = await selectTools(TOOLS, 'weather for Paris', { embedder: new BagOfWords(), fusion: 'rrf' });
    expect(rrf[0]!.tool.name).toBe('weather_now');
    expect(rrf[0]!.score).toBeCloseTo(2 / 61, 12);
  });

  it('lexical mode needs no embedder', async () => {
    const r = await selectTools(TOOLS, 'refund a cancelled ticket', { mode: 'lexical', topK: 1 });
    expect(r.map((s) => s.tool.name)).toEqual(['cancel_flight']);
    expect(r[0]!.cosine).toBeUndefined();
  });
});

describe('tool embeddings are computed once per list (§3.4 "precomputed embeddings")', () => {
  it('embeds a list once per embedder, however many queries, even concurrent ones', async () => {
    const list = [...TOOLS];
    const embedder = new BagOfWords();
    await Promise.all([selectTools(list, 'book a flight', { embedder }), selectTools(list, 'crop a photo', { embedder })]);
    const afterTwo = embedder.texts;
    await selectTools(list, 'diagnose a fault', { embedder });
    // Only the third query's words were embedded ("diagnose", "fault").
    expect(embedder.texts - afterTwo).toBe(2);
    // Another list (even with the same tools) and another embedder are embedded afresh.
    const other = new BagOfWords('bag-of-words-64-b');
    await selectTools(list, 'book a flight', { embedder: other });
    expect(other.texts).toBeGreaterThan(10);
    const before = embedder.texts;
    await selectTools([...TOOLS], 'book a flight', { embedder });
    expect(embedder.texts - before).toBeGreaterThan(10);
  });

  it('does not cache a failed embedding', async () => {
    const list = [...TOOLS];
    const embedder = new BagOfWords();
    embedder.failNext = true;
    const err = await catchParley(selectTools(list, 'book a flight', { embedder }));
    expect(err.type).toBe('unavailable');
    const r = await selectTools(list, 'book a flight', { embedder, topK: 1 });
    expect(r[0]!.tool.name).toBe('book_flight');
  });
});

describe('errors', () => {
  it('refuses unknown and malformed options with invalid_params naming them', async () => {
    const cases: [object, string, string][] = [
      [{ top_k: 3 }, 'opts.top_k', 'unknown_option'],
      [{ topK: 0 }, 'opts.topK', 'minimum'],
      [{ topK: 2.5 }, 'opts.topK', 'minimum'],
      [{ threshold: Number.NaN }, 'opts.threshold', 'type'],
      [{ tags: 'photo' }, 'opts.tags', 'type'],
      [{ mode: 'fuzzy' }, 'opts.mode', 'enum'],
      [{ mode: 'semantic' }, 'opts.embedder', 'required'],
      [{ embedder: { embed: 1 } }, 'opts.embedder', 'type'],
      [{ representation: 'sentences', embedder: new BagOfWords() }, 'opts.representation', 'enum'],
      [{ semanticWeight: 1.5, embedder: new BagOfWords() }, 'opts.semanticWeight', 'range'],
      [{ fusion: 'max', embedder: new BagOfWords() }, 'opts.fusion', 'enum'],
      [{ cut: 'some', embedder: new BagOfWords() }, 'opts.cut', 'enum'],
      [{ autoCut: 'tight', embedder: new BagOfWords() }, 'opts.autoCut', 'type'],
      [{ autoCut: { min_k: 2 }, embedder: new BagOfWords() }, 'opts.autoCut.min_k', 'unknown_option'],
      // The rule names the gateway gives the same mistakes in tools/list _meta: `type`, then `range`.
      [{ autoCut: { minK: 0 }, embedder: new BagOfWords() }, 'opts.autoCut.minK', 'range'],
      [{ autoCut: { minK: 1.5 }, embedder: new BagOfWords() }, 'opts.autoCut.minK', 'range'],
      [{ autoCut: { minK: '2' }, embedder: new BagOfWords() }, 'opts.autoCut.minK', 'type'],
      [{ autoCut: { drop: -1 }, embedder: new BagOfWords() }, 'opts.autoCut.drop', 'range'],
      [{ autoCut: { drop: '1' }, embedder: new BagOfWords() }, 'opts.autoCut.drop', 'type'],
      [{ autoCut: { gap: Number.NaN }, embedder: new BagOfWords() }, 'opts.autoCut.gap', 'type'],
      [{ autoCut: { ratio: '0.5' }, embedder: new BagOfWords() }, 'opts.autoCut.ratio', 'type'],
      [{ autoCut: { ratio: 1.5 }, embedder: new BagOfWords() }, 'opts.autoCut.ratio', 'range'],
      [{ rankers: [], embedder: new BagOfWords() }, 'opts.rankers', 'type'],
      [{ rankers: ['dense', 'vibes'], embedder: new BagOfWords() }, 'opts.rankers[1]', 'enum'],
    ];
    for (const [opts, path, rule] of cases) {
      const err = await catchParley(selectTools(TOOLS, 'x', opts as never));
      expect({ type: err.type, path: err.path, rule: err.rule }).toEqual({ type: 'invalid_params', path, rule });
    }
  });

  it('needs a query unless only tags are given', async () => {
    const err = await catchParley(selectTools(TOOLS, '  ', { embedder: new BagOfWords() }));
    expect({ path: err.path, rule: err.rule }).toEqual({ path: 'query', rule: 'required' });
  });

  it('reports an embedder that returns the wrong number of vectors', async () => {
    const broken: TextEmbedder = { id: 'broken', embed: async () => [] };
    const err = await catchParley(selectTools([...TOOLS], 'flight', { embedder: broken }));
    expect(err.type).toBe('internal');
    expect(err.message).toContain('broken');
  });
});

describe('evaluateSelection', () => {
  it('measures recall@1, recall@5 and what the options select', async () => {
    const queries = [
      { query: 'cancel my flight, refund the ticket', tool: 'cancel_flight' },
      { query: 'crop this photo to a new ratio', tool: 'crop_photo' },
      { query: 'is it raining in the city', tool: 'weather_now' },
    ];
    const r = await evaluateSelection(TOOLS, queries, { embedder: new BagOfWords(), topK: 2, cut: 'fixed' });
    expect(r.queries).toBe(3);
    expect(r.mean_selected).toBe(2);
    // Each figure checked against the rankings themselves.
    let at1 = 0;
    let in2 = 0;
    for (const q of queries) {
      const ranking = await selectTools(TOOLS, q.query, { embedder: new BagOfWords(), topK: TOOLS.length, cut: 'fixed' });
      const rank = ranking.findIndex((s) => s.tool.name === q.tool) + 1;
      if (rank === 1) at1++;
      if (rank <= 2) in2++;
    }
    expect(r.recall_at_1).toBeCloseTo(at1 / 3, 12);
    expect(r.recall_selected).toBeCloseTo(in2 / 3, 12);
    expect(r.recall_at_5).toBe(1); // 6 tools: the top 5 misses at most one
    expect(r.recall_at_1).toBeGreaterThan(0);
  });

  it('refuses a query naming a tool that is not in the list', async () => {
    const err = await catchParley(evaluateSelection(TOOLS, [{ query: 'x', tool: 'nope' }], {}));
    expect({ type: err.type, path: err.path, rule: err.rule }).toEqual({ type: 'invalid_params', path: 'queries[0].tool', rule: 'unknown_tool' });
  });
});

describe('words that are JS property names', () => {
  it('"constructor", "toString" and "__proto__" are plain words to BM25 (not members of the abbreviation table)', async () => {
    // Before, "constructor" looked up Object.prototype.constructor and threw a TypeError.
    expect(lexicalTerms('constructor toString __proto__ hasOwnProperty')).toContain('constructor');
    const tools: ToolLike[] = [{ name: 'build_constructor', description: 'Calls a constructor.' }, { name: 'other_tool', description: 'Something else.' }];
    const r = await selectTools(tools, 'constructor', { topK: 1 });
    expect(r.map((x) => x.tool.name)).toEqual(['build_constructor']);
  });
});

// ---------------------------------------------------------------------------
// A description's lead sentence and its usage notes; the stemmer's final e.
// ---------------------------------------------------------------------------

/** One dimension per word, in the order words are first seen: cosine counts shared words exactly. */
class OneHot implements TextEmbedder {
  readonly id = 'one-hot-128';
  private readonly dims = new Map<string, number>();
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(128);
      for (const w of t.toLowerCase().split(/[^a-z]+/)) {
        if (!w) continue;
        if (!this.dims.has(w)) this.dims.set(w, this.dims.size % 128);
        v[this.dims.get(w) as number] = 1;
      }
      return v;
    });
  }
}

describe("a description's lead sentence weighs more than its usage notes", () => {
  it('ranks the tool whose lead names the word above one whose notes repeat it', async () => {
    const tools: ToolLike[] = [
      { name: 'tally', description: 'Counts the rows and columns of a sheet. Zebra zebra.' },
      { name: 'stripe', description: 'Zebra rows.' },
    ];
    const r = await selectTools(tools, 'zebra', { embedder: new OneHot(), topK: 2, cut: 'fixed', rankers: ['dense'] });
    expect(r.map((s) => s.tool.name)).toEqual(['stripe', 'tally']);
    // The notes are still read: a word only they hold still reaches the tool.
    const notes = await selectTools(tools, 'zebra zebra sheet', { embedder: new OneHot(), topK: 2, cut: 'fixed', rankers: ['bm25'] });
    expect(notes[0]!.tool.name).toBe('tally');
  });

  it('reads a hostile description (no full stop, a MiB of full stops, lone surrogates) quickly', async () => {
    for (const d of ['.'.repeat(1 << 20), '. '.repeat(1 << 19), 'a'.repeat(1 << 20), '\ud800. \udfff'.repeat(1 << 16), 'constructor. __proto__. toString']) {
      const started = performance.now();
      const r = await selectTools([{ name: 'a', description: d }, { name: 'b', description: 'b' }], 'constructor toString', { embedder: new OneHot(), topK: 2, cut: 'fixed' });
      for (const s of r) expect(Number.isFinite(s.score)).toBe(true);
      expect(performance.now() - started).toBeLessThan(3000);
    }
  });
});

describe('the stemmer drops a final e after the endings (Porter step 5)', () => {
  it('meets staged / stage / staging and changed / changes', () => {
    expect(new Set(lexicalTerms('staged stage staging stages'))).toEqual(new Set(['stag']));
    expect(new Set(lexicalTerms('changed changes change changing'))).toEqual(new Set(['chang']));
    // A double e stays ("free", "agree"), and short words are left alone.
    expect(lexicalTerms('free agree use')).toEqual(['free', 'agree', 'use']);
  });
});
