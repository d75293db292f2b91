/**
 * The offline default embedder: its contract as an `Embedder` (normalised,
 * deterministic, cached without aliasing), what its WordNet features do
 * (lemmas, synonyms, compounds, out-of-vocabulary words), its typed errors, and
 * its separation of the labelled paraphrase set (figures in BENCHMARKS.md).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { OFFLINE_EMBEDDER_ID, OFFLINE_GLOVE_EMBEDDER_ID, WordNet, cosine, createOfflineEmbedder, defaultDictDir, findWordVectors, separation, tokenize, type OfflineEmbedder } from '../src/index';
import { catchParley, norm } from './helpers';

interface Pair {
  a: string;
  b: string;
  label: 'same' | 'different';
  world: string;
}
const PAIRS = (JSON.parse(readFileSync(new URL('./fixtures/paraphrases.json', import.meta.url), 'utf8')) as { pairs: Pair[] }).pairs;



let embedder: OfflineEmbedder;
beforeAll(async () => {
  embedder = createOfflineEmbedder();
  await embedder.warmUp();
});

async function sim(a: string, b: string, e: OfflineEmbedder = embedder): Promise<number> {
  const [va, vb] = await e.embed([a, b]);
  return cosine(va!, vb!);
}

describe('tokenize', () => {
  it('splits identifiers and prose into lowercase words', () => {
    expect(tokenize('listPullRequests get_file-contents HTTPServer')).toEqual(['list', 'pull', 'requests', 'get', 'file', 'contents', 'http', 'server']);
    expect(tokenize("I don't want the user's PRs, café!")).toEqual(['i', 'do', 'not', 'want', 'the', 'user', 'prs', 'cafe']);
  });
});

describe('offline embedder: the Embedder contract', () => {
  it('loads WordNet lazily, once, and reports it', async () => {
    const e = createOfflineEmbedder();
    expect(e.stats().loaded).toBe(false);
    await Promise.all([e.embed(['window seat']), e.embed(['aisle seat'])]);
    const s = e.stats();
    expect(s.loaded).toBe(true);
    expect(s.loadMs).toBeGreaterThan(0);
    // index.* and data.* of the four parts of speech, not index.sense.
    expect(s.wordnetBytes).toBeGreaterThan(20e6);
    expect(s.wordnetBytes).toBeLessThan(32e6);
    expect(s.exceptionSource).toBe('builtin');
  });

  it('shares one WordNet reader per dict directory in a process, and retries a read that failed', async () => {
    const dictDir = defaultDictDir();
    const [a, b] = await Promise.all([WordNet.load({ dictDir }), WordNet.load({ dictDir })]);
    // Compared by identity as booleans: a failing matcher would print two readers of 28 MB each.
    expect(a === b).toBe(true);
    expect((await WordNet.load({ dictDir })) === a).toBe(true);
    // Other exception lists make another reader.
    expect((await WordNet.load({ dictDir, exceptionsDir: mkdtempSync(join(tmpdir(), 'parley-exc-')) })) === a).toBe(false);
    // A directory with no dict files fails, and fails again (not a remembered failure: the files are read again).
    const empty = mkdtempSync(join(tmpdir(), 'parley-dict-'));
    await expect(WordNet.load({ dictDir: empty })).rejects.toThrow(/ENOENT/);
    writeFileSync(join(empty, 'index.noun'), '');
    const again = await WordNet.load({ dictDir: empty }).then(() => '', (err: Error) => err.message);
    expect(again).toMatch(/ENOENT/);
    expect(again).not.toMatch(/index\.noun/);
  });

  it('gives unit vectors of `dimensions` numbers to every text, also one without words (never the zero vector)', async () => {
    const texts = ['window seat', 'make my eyes bigger', 'fiber cut near the site', 'qzxv', 'the', '', '   ', '!!!', '???', '🙂', '我想要靠窗的座位', 'место у окна'];
    const vs = await embedder.embed(texts);
    expect(vs).toHaveLength(texts.length);
    for (const v of vs) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(embedder.dimensions);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // The empty and the blank text are one point; texts of symbols compare by the symbols they share.
    expect(cosine(vs[5]!, vs[6]!)).toBeCloseTo(1, 5);
    expect(cosine(vs[7]!, vs[8]!)).toBeLessThan(0.5);
    expect(cosine(vs[7]!, vs[7]!)).toBeCloseTo(1, 5);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('gives texts in scripts WordNet lacks character n-gram vectors: one need in one script meets, two needs do not', async () => {
    // draft-zhou §4.2: templates are multilingual; `other` fragments come in any script.
    const needs: [string[], string[]][] = [
      [['我想要靠窗的座位', '请给我靠窗座位'], ['我想要素食餐', '请给我素食']],
      [['窓側の席をお願いします', '窓側の席がいい'], ['ベジタリアンの食事をお願いします', 'ベジタリアン食']],
      [['место у окна', 'хочу место у окна'], ['вегетарианское питание', 'хочу вегетарианское питание']],
      [['مقعد بجانب النافذة', 'أريد مقعد بجانب النافذة'], ['وجبة نباتية', 'أريد وجبة نباتية']],
      [['창가 좌석', '창가 좌석을 원해요'], ['채식 식사', '채식 식사를 원해요']],
    ];
    for (const [a, b] of needs) {
      const [a0, a1, b0, b1] = await embedder.embed([...a, ...b]);
      expect(cosine(a0!, a1!), `${a[0]} ~ ${a[1]}`).toBeGreaterThan(0.5);
      expect(cosine(b0!, b1!), `${b[0]} ~ ${b[1]}`).toBeGreaterThan(0.5);
      for (const x of [a0!, a1!]) for (const y of [b0!, b1!]) expect(cosine(x, y), `${a[0]} / ${b[0]}`).toBeLessThan(0.15);
    }
  });

  it('is normalised and finite for any string (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), async (s) => {
        const [v] = await embedder.embed([s]);
        expect(v!.every((x) => Number.isFinite(x))).toBe(true);
        expect(Math.abs(norm(v!) - 1)).toBeLessThan(1e-5);
      }),
      { numRuns: 150 },
    );
  });

  it('is deterministic: across instances, batches and cache state', async () => {
    const other = createOfflineEmbedder({ cacheSize: 0 });
    const texts = ['remove red eye', 'optical line interrupted', 'dependabot alerts'];
    const [a, b] = await Promise.all([embedder.embed(texts), other.embed([...texts].reverse())]);
    for (let i = 0; i < texts.length; i++) expect(Array.from(a[i]!)).toEqual(Array.from(b[texts.length - 1 - i]!));
    expect(Array.from((await other.embed(['remove red eye']))[0]!)).toEqual(Array.from(a[0]!));
  });

  it('caches repeated texts and hands out copies', async () => {
    const e = createOfflineEmbedder({ cacheSize: 2 });
    const [first] = await e.embed(['quiet cabin']);
    const before = e.stats();
    first!.fill(0);
    const [again] = await e.embed(['quiet cabin']);
    expect(e.stats().cacheHits).toBe(before.cacheHits + 1);
    expect(norm(again!)).toBeCloseTo(1, 5);
    // Capacity 2: the oldest text is evicted.
    await e.embed(['window seat', 'aisle seat']);
    const misses = e.stats().cacheMisses;
    await e.embed(['quiet cabin']);
    expect(e.stats().cacheMisses).toBe(misses + 1);
    expect(e.stats().cachedTexts).toBe(2);
  });

  it('names its vector space: the id changes with any option that changes vectors', () => {
    const wn = { wordVectors: false } as const;
    expect(createOfflineEmbedder(wn).id).toBe(OFFLINE_EMBEDDER_ID);
    expect(createOfflineEmbedder({ ...wn, cacheSize: 10 }).id).toBe(OFFLINE_EMBEDDER_ID);
    // β = 0 is the WordNet-only space too.
    expect(createOfflineEmbedder({ wordVectorWeight: 0 }).id).toBe(OFFLINE_EMBEDDER_ID);
    const a = createOfflineEmbedder({ ...wn, dimensions: 512 }).id;
    const b = createOfflineEmbedder({ ...wn, weights: { gloss: 0 } }).id;
    expect(a).not.toBe(OFFLINE_EMBEDDER_ID);
    expect(b).not.toBe(OFFLINE_EMBEDDER_ID);
    expect(a).not.toBe(b);
    expect(createOfflineEmbedder({ ...wn, dimensions: 512 }).dimensions).toBe(512);
  });

  it.skipIf(findWordVectors().status !== 'found')('with the word-vector cache: its own id, 100 more dimensions, another id per β', () => {
    const e = createOfflineEmbedder();
    expect(e.id).toBe(OFFLINE_GLOVE_EMBEDDER_ID);
    expect(e.dimensions).toBe(2048 + 100);
    expect(e.description).toMatch(/GloVe/);
    expect(createOfflineEmbedder({ dimensions: 512 }).dimensions).toBe(612);
    const b = createOfflineEmbedder({ wordVectorWeight: 0.5 }).id;
    expect(b.startsWith(`${OFFLINE_GLOVE_EMBEDDER_ID}:`)).toBe(true);
    expect(createOfflineEmbedder({ wordVectors: false }).description).toMatch(/WordNet 3\.1 features only \(word vectors turned off\)/);
  });
});

describe('offline embedder: features', () => {
  it('lemmatises with Morphy rules and irregular forms', async () => {
    // The WordNet features on their own (GloVe gives each inflected form a vector of its own).
    const wn = createOfflineEmbedder({ wordVectors: false });
    expect(await sim('eyes', 'eye', wn)).toBeGreaterThan(0.8);
    expect(await sim('bigger', 'big', wn)).toBeGreaterThan(0.8); // doubled consonant
    expect(await sim('sat', 'sit', wn)).toBeGreaterThan(0.5); // irregular (built-in exception list)
    expect(await sim('children', 'child', wn)).toBeGreaterThan(0.8);
    // The default keeps them close.
    for (const [a, b] of [['eyes', 'eye'], ['bigger', 'big'], ['children', 'child']] as const) expect(await sim(a, b), `${a} ~ ${b}`).toBeGreaterThan(0.6);
  });

  it('relates words through WordNet that share no letters', async () => {
    const related = await sim('big', 'large');
    const unrelated = await sim('big', 'kosher');
    expect(related).toBeGreaterThan(0.2);
    expect(related).toBeGreaterThan(unrelated + 0.15);
    // Without the WordNet expansion (and without word vectors) the two are strangers.
    const bare = { weights: { synonym: 0, derivation: 0, hypernym: 0, gloss: 0 } };
    const plain = createOfflineEmbedder({ ...bare, wordVectors: false });
    expect(await sim('big', 'large', plain)).toBeLessThan(0.1);
    // The word vectors alone relate them (GloVe: "big" and "large" share contexts).
    if (findWordVectors().status === 'found') expect(await sim('big', 'large', createOfflineEmbedder(bare))).toBeGreaterThan(0.2);
  });

  it('reads multi-word WordNet lemmas ("black and white")', async () => {
    expect(await sim('black and white', 'monochrome')).toBeGreaterThan(await sim('black', 'monochrome'));
  });

  it('handles out-of-vocabulary identifiers by character trigrams and known parts', async () => {
    // Plurals of an unknown word are the word; near spellings overlap; unrelated unknown words do not.
    expect(await sim('dependabot', 'dependabots')).toBeGreaterThan(0.99);
    expect(await sim('kubernetes', 'kubernetis')).toBeGreaterThan(0.1);
    expect(await sim('dependabot', 'qwxyzzy')).toBeLessThan(0.05);
    expect(await sim('kubernetes', 'dependabot')).toBeLessThan(0.05);
    // Compounds of known words meet their parts.
    expect(await sim('legroom', 'room for my legs')).toBeGreaterThan(0.2);
    expect(await sim('unstar', 'star')).toBeGreaterThan(0.2);
    // Abbreviations expand: "PR" is a pull request, not Puerto Rico.
    expect(await sim('PR', 'pull request')).toBeGreaterThan(0.9);
    expect(await sim('repo', 'repository')).toBeGreaterThan(0.9);
  });

  it('links software synonyms WordNet lacks through the thesaurus, and can be told not to', async () => {
    expect(await sim('file a bug', 'create an issue')).toBeGreaterThan(0.2);
    const without = createOfflineEmbedder({ thesaurus: false });
    expect(await sim('bug', 'issue', without)).toBeLessThan(0.1);
  });
});

describe('offline embedder: separation of the paraphrase set', () => {
  it('has at least 60 labelled pairs from the three worlds, with hard negatives', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(60);
    for (const w of ['flight_booking', 'photo_retouch', 'fault_management']) {
      expect(PAIRS.filter((p) => p.world === w && p.label === 'same').length).toBeGreaterThanOrEqual(10);
      expect(PAIRS.filter((p) => p.world === w && p.label === 'different').length).toBeGreaterThanOrEqual(8);
    }
    expect(PAIRS).toContainEqual(expect.objectContaining({ a: 'window seat', b: 'aisle seat please', label: 'different' }));
  });

  it('scores same-intent pairs above different-intent pairs (measured margin 0.105, AUC 0.68)', async () => {
    const va = await embedder.embed(PAIRS.map((p) => p.a));
    const vb = await embedder.embed(PAIRS.map((p) => p.b));
    const scores = PAIRS.map((p, i) => ({ score: cosine(va[i]!, vb[i]!), same: p.label === 'same' }));
    const s = separation(scores);
    // Conservative bounds under the figures of bench/embeddings.ts.
    expect(s.margin).toBeGreaterThan(0.06);
    expect(s.rocAuc).toBeGreaterThan(0.62);
    expect(s.same.median).toBeGreaterThan(s.different.median + 0.15);
    // Easy negatives (different worlds) sit well below the same-intent pairs.
    const cross = PAIRS.map((p, i) => ({ p, score: scores[i]!.score })).filter((x) => x.p.world === 'cross');
    const crossMean = cross.reduce((a, x) => a + x.score, 0) / cross.length;
    expect(s.same.mean).toBeGreaterThan(crossMean + 0.15);
  });
});

describe('offline embedder: errors', () => {
  it('refuses unknown and malformed options with invalid_params naming the option', async () => {
    const unknown = await catchParley(() => createOfflineEmbedder({ dimension: 512 } as never));
    expect({ type: unknown.type, path: unknown.path, rule: unknown.rule }).toEqual({ type: 'invalid_params', path: 'opts.dimension', rule: 'unknown_option' });
    const weight = await catchParley(() => createOfflineEmbedder({ weights: { synonyms: 1 } as never }));
    expect(weight.path).toBe('opts.weights.synonyms');
    const dims = await catchParley(() => createOfflineEmbedder({ dimensions: 3 }));
    expect({ path: dims.path, rule: dims.rule }).toEqual({ path: 'opts.dimensions', rule: 'range' });
    const neg = await catchParley(() => createOfflineEmbedder({ weights: { gloss: -1 } }));
    expect(neg.path).toBe('opts.weights.gloss');
    const texts = await catchParley(embedder.embed('window seat' as never));
    expect({ type: texts.type, path: texts.path }).toEqual({ type: 'invalid_params', path: 'texts' });
  });

  it('reports a missing WordNet as unavailable, and tries again on the next call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-wn-'));
    const e = createOfflineEmbedder({ dictDir: dir });
    const err = await catchParley(e.embed(['window seat']));
    expect(err.type).toBe('unavailable');
    expect(err.retryable).toBe(true);
    expect(err.details['dictDir']).toBe(dir);
    expect(err.message).toContain(dir);
    // Not cached as a failure: a second call tries to load again (and fails again here).
    const again = await catchParley(e.embed(['window seat']));
    expect(again.type).toBe('unavailable');
    expect(e.stats().loaded).toBe(false);
  });

  it('uses WordNet *.exc exception lists when given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-exc-'));
    // The real lists have thousands of lines; one made-up form shows they are read.
    writeFileSync(join(dir, 'noun.exc'), 'wndws window\n');
    for (const f of ['verb.exc', 'adj.exc', 'adv.exc']) writeFileSync(join(dir, f), '');
    const e = createOfflineEmbedder({ exceptionsDir: dir });
    expect(await sim('wndws', 'window', e)).toBeGreaterThan(0.9);
    expect(e.stats().exceptionSource).toBe('exc-files');
    expect(await sim('wndws', 'window')).toBeLessThan(0.2);
  });
});

describe('words that are JS property names', () => {
  it('"constructor" and friends embed as words (not as members of the abbreviation table)', async () => {
    const [a, b] = await embedder.embed(['constructor toString', 'constructor toString']);
    expect(a?.length).toBe(embedder.dimensions);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeCloseTo(1, 5);
    const [p] = await embedder.embed(['__proto__ hasOwnProperty valueOf']);
    expect(p?.some((x) => x !== 0)).toBe(true);
  });
});
