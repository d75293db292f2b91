/**
 * The transformers.js adapter, with its real loading code, on a tiny BERT-style
 * model this test builds (test/tiny-model.ts): no network, no downloaded
 * weights. First the hand-encoded ONNX graph is checked in onnxruntime-node
 * alone against a plain-JS computation, so a later failure points at the
 * adapter or transformers.js and not at the model; then the embedder loads the
 * model directory through transformers.js' `pipeline('feature-extraction')`.
 */
import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env as tjsEnv } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, createEmbedderFromEnv, createTransformersEmbedder, type TransformersEmbedder } from '../src/index';
import { HIDDEN_SIZE, VOCAB, buildTinyModel, encodeTinyOnnxModel, mixingMatrix, wordEmbeddings } from './tiny-model';
import { catchParley, norm } from './helpers';



const ids = (tokens: readonly string[]) => tokens.map((t) => VOCAB.indexOf(t));

/**
 * What the graph computes, in plain JS: per position (x + ctx)·W, where ctx is
 * the mean of x over the positions `mask` counts. Mean-pooled over the same
 * positions that is 2·ctx·W. Token types are all 0 here (their row is zero).
 */
function reference(tokenIds: readonly number[], mask: readonly number[]): { hidden: Float32Array[]; pooled: Float32Array } {
  const table = wordEmbeddings();
  const w = mixingMatrix();
  const x = tokenIds.map((id) => table.subarray(id * HIDDEN_SIZE, (id + 1) * HIDDEN_SIZE));
  const ctx = new Float32Array(HIDDEN_SIZE);
  const count = mask.reduce((s, m) => s + m, 0);
  x.forEach((row, p) => row.forEach((v, k) => (ctx[k] = (ctx[k] as number) + (v * (mask[p] as number)) / count)));
  const mix = (v: ArrayLike<number>) => {
    const out = new Float32Array(HIDDEN_SIZE);
    for (let j = 0; j < HIDDEN_SIZE; j++) for (let i = 0; i < HIDDEN_SIZE; i++) out[j] = (out[j] as number) + (v[i] as number) * (w[i * HIDDEN_SIZE + j] as number);
    return out;
  };
  const hidden = x.map((row) => mix(row.map((v, k) => v + (ctx[k] as number))));
  const pooled = new Float32Array(HIDDEN_SIZE);
  hidden.forEach((h, p) => h.forEach((v, k) => (pooled[k] = (pooled[k] as number) + (v * (mask[p] as number)) / count)));
  return { hidden, pooled };
}

let dir: string;
let embedder: TransformersEmbedder;

beforeAll(async () => {
  dir = buildTinyModel();
  embedder = createTransformersEmbedder({ model: dir });
  await embedder.warmUp();
});

afterAll(async () => {
  await embedder.dispose();
});

describe('the tiny model itself (onnxruntime-node, no transformers.js)', () => {
  it('is a valid ONNX model whose output is the graph the builder documents', async () => {
    const session = await ort.InferenceSession.create(encodeTinyOnnxModel());
    expect(session.inputNames).toEqual(['input_ids', 'attention_mask', 'token_type_ids']);
    expect(session.outputNames).toEqual(['last_hidden_state']);
    // Two rows, the second padded: the mask must keep [PAD] out of ctx.
    const rows = [ids(['[CLS]', 'window', 'seat', '[SEP]']), ids(['[CLS]', 'meal', '[SEP]', '[PAD]'])];
    const masks = [[1, 1, 1, 1], [1, 1, 1, 0]];
    const t = (m: number[][]) => new ort.Tensor('int64', BigInt64Array.from(m.flat(), BigInt), [2, 4]);
    const out = await session.run({ input_ids: t(rows), attention_mask: t(masks), token_type_ids: t([[0, 0, 0, 0], [0, 0, 0, 0]]) });
    const y = out['last_hidden_state']!;
    expect(y.dims).toEqual([2, 4, HIDDEN_SIZE]);
    const data = y.data as Float32Array;
    rows.forEach((r, b) => {
      const { hidden } = reference(r, masks[b]!);
      hidden.forEach((h, p) => {
        const got = data.subarray((b * 4 + p) * HIDDEN_SIZE, (b * 4 + p + 1) * HIDDEN_SIZE);
        h.forEach((v, k) => expect(got[k]).toBeCloseTo(v, 5));
      });
    });
  });
});

describe('transformers.js embedder on a local model directory', () => {
  it('loads the directory without the hub, learns the hidden size from config.json, and leaves transformers.js env as it was', () => {
    expect(embedder.id).toBe('transformers:tiny-bert');
    expect(embedder.model).toBe(dir);
    expect(embedder.dimensions).toBe(HIDDEN_SIZE);
    expect(embedder.stats()).toMatchObject({ loaded: true, loads: 1 });
    // The load ran with remote models off; that setting is process-wide, so it must be restored.
    expect(tjsEnv.allowRemoteModels).toBe(true);
  });

  it('reports dimensions 0 before loading a model it does not know, and does no IO when created', () => {
    const e = createTransformersEmbedder({ model: join(dir, 'no-such-model') });
    expect(e.dimensions).toBe(0);
    expect(e.stats()).toEqual({ loaded: false, loads: 0 });
    // The default model's size is known up front.
    expect(createTransformersEmbedder().dimensions).toBe(384);
  });

  it('gives one unit vector of the hidden size per text, equal to the model output mean-pooled', async () => {
    const vs = await embedder.embed(['window seat', 'vegetarian meal', 'my suitcase']);
    expect(vs).toHaveLength(3);
    for (const v of vs) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(HIDDEN_SIZE);
      expect(norm(v)).toBeCloseTo(1, 6);
    }
    // The real tokenizer ran: "window seat" is [CLS] window seat [SEP], pooled as the graph says.
    const { pooled } = reference(ids(['[CLS]', 'window', 'seat', '[SEP]']), [1, 1, 1, 1]);
    const expected = pooled.map((x) => x / norm(pooled));
    Array.from(vs[0]!).forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, 5));
  });

  it('is deterministic: across calls, instances and batch sizes', async () => {
    const texts = ['aisle seat please', 'i want to cancel my ticket', 'vegan food', 'checked baggage'];
    const other = createTransformersEmbedder({ model: dir, batchSize: 1 });
    const [a, b, c] = await Promise.all([embedder.embed(texts), embedder.embed(texts), other.embed([...texts].reverse())]);
    for (let i = 0; i < texts.length; i++) {
      expect(Array.from(b[i]!)).toEqual(Array.from(a[i]!));
      // Batches of 1 have no padding; batches of 4 do: the same numbers to float precision.
      Array.from(c[texts.length - 1 - i]!).forEach((x, k) => expect(x).toBeCloseTo(a[i]![k]!, 6));
    }
    await other.dispose();
  });

  it('mean pooling respects the attention mask: padding does not move a short text batched with a long one', async () => {
    const [alone] = await embedder.embed(['window seat']);
    const [padded] = await embedder.embed(['window seat', 'i would like a vegetarian meal for dinner please']);
    Array.from(padded!).forEach((x, k) => expect(x).toBeCloseTo(alone![k]!, 6));
    // And the check can fail: had the eight [PAD] positions counted, the vector would be elsewhere.
    const tokens = ['[CLS]', 'window', 'seat', '[SEP]', ...Array<string>(8).fill('[PAD]')];
    const unmasked = reference(ids(tokens), tokens.map(() => 1)).pooled;
    expect(cosine(alone!, unmasked)).toBeLessThan(0.9);
  });

  it('places texts of the same intent closer than texts of different intents', async () => {
    const [windowSeat, seatByWindow, vegMeal, aisle, veganFood, seats] = await embedder.embed([
      'window seat',
      'seat by the window',
      'vegetarian meal',
      'an aisle seat please',
      'vegan food',
      'Window SEATS', // BertNormalizer lowercases; WordPiece splits "seats" into seat ##s.
    ]);
    expect(cosine(windowSeat!, seatByWindow!)).toBeGreaterThan(cosine(windowSeat!, vegMeal!));
    expect(cosine(windowSeat!, seatByWindow!)).toBeGreaterThan(0.9);
    expect(cosine(windowSeat!, vegMeal!)).toBeLessThan(0.5);
    expect(cosine(aisle!, windowSeat!)).toBeGreaterThan(cosine(aisle!, veganFood!));
    expect(cosine(veganFood!, vegMeal!)).toBeGreaterThan(cosine(veganFood!, windowSeat!));
    expect(cosine(seats!, windowSeat!)).toBeGreaterThan(0.95);
  });

  it('gives the zero vector for a blank text and nothing for no texts, as the other adapters do', async () => {
    const [blank, text] = await embedder.embed(['   ', 'window seat']);
    expect(norm(blank!)).toBe(0);
    expect(blank!.length).toBe(HIDDEN_SIZE);
    expect(norm(text!)).toBeCloseTo(1, 6);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('loads once for concurrent first calls, and again after dispose', async () => {
    const e = createTransformersEmbedder({ model: dir });
    const [a, b] = await Promise.all([e.embed(['window seat']), e.embed(['vegan food']), e.warmUp()]);
    expect(e.stats()).toMatchObject({ loaded: true, loads: 1 });
    expect(e.stats().loadMs).toBeGreaterThan(0);
    expect(a[0]!.length).toBe(HIDDEN_SIZE);
    expect(b[0]!.length).toBe(HIDDEN_SIZE);
    await e.dispose();
    expect(e.stats().loaded).toBe(false);
    await e.embed(['window seat']);
    expect(e.stats()).toMatchObject({ loaded: true, loads: 2 });
    await e.dispose();
  });

  it('cls pooling is another vector space (own id, other vectors) that still ranks by intent', async () => {
    const e = createTransformersEmbedder({ model: dir, pooling: 'cls' });
    expect(e.id).toBe('transformers:tiny-bert:cls');
    const [ws, sw, vm] = await e.embed(['window seat', 'seat by the window', 'vegetarian meal']);
    const [mean] = await embedder.embed(['window seat']);
    // The first token's state is [CLS] + context, not the mean over tokens.
    expect(cosine(ws!, mean!)).toBeLessThan(0.999);
    expect(cosine(ws!, sw!)).toBeGreaterThan(cosine(ws!, vm!));
    await e.dispose();
  });

  it('quantized: true loads onnx/model_quantized.onnx', async () => {
    const qdir = buildTinyModel({ name: 'tiny-q', onnxFiles: ['model_quantized.onnx'] });
    const e = createTransformersEmbedder({ model: qdir, quantized: true });
    expect(e.id).toBe('transformers:tiny-q@q8');
    const [v] = await e.embed(['window seat']);
    expect(norm(v!)).toBeCloseTo(1, 6);
    await e.dispose();
    // Without the flag the fp32 file is wanted, and this directory does not have it.
    const err = await catchParley(createTransformersEmbedder({ model: qdir }).embed(['window seat']));
    expect(err.details['missing']).toBe(join('onnx', 'model.onnx'));
  });
});

describe('transformers.js embedder: load failures are typed', () => {
  it('a missing directory is unavailable/model_load naming the directory', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'parley-no-model-')), 'nowhere');
    const err = await catchParley(createTransformersEmbedder({ model: missing }).embed(['window seat']));
    expect(err.type).toBe('unavailable');
    expect(err.rule).toBe('model_load');
    expect(err.message).toBe(`transformers embedder: cannot load model "${missing}": directory ${missing} does not exist`);
    expect(err.details).toMatchObject({ model: missing, missing, local: true });
  });

  it('a missing ONNX file names the file; the failure is not cached, so the model loads once the file is back', async () => {
    const d = buildTinyModel({ name: 'tiny-no-onnx' });
    const file = join(d, 'onnx', 'model.onnx');
    renameSync(file, `${file}.bak`);
    const e = createTransformersEmbedder({ model: d });
    const err = await catchParley(e.embed(['window seat']));
    expect(err.type).toBe('unavailable');
    expect(err.rule).toBe('model_load');
    expect(err.message).toContain('cannot load model');
    expect(err.message).toContain(`onnx/model.onnx not found in ${d}`);
    // The message is the whole story: no stack or transformers.js internals in it.
    expect(err.message).not.toMatch(/\n|at async|local_files_only/);
    expect(e.stats()).toEqual({ loaded: false, loads: 1 });
    renameSync(`${file}.bak`, file);
    const [v] = await e.embed(['window seat']);
    expect(norm(v!)).toBeCloseTo(1, 6);
    expect(e.stats().loads).toBe(2);
    await e.dispose();
  });

  it('a missing tokenizer.json is named', async () => {
    const d = buildTinyModel({ name: 'tiny-no-tokenizer' });
    renameSync(join(d, 'tokenizer.json'), join(d, 'tokenizer.json.bak'));
    const err = await catchParley(createTransformersEmbedder({ model: d }).embed(['x']));
    expect(err.details['missing']).toBe('tokenizer.json');
  });

  it('a hub id with localOnly never goes to the network: it reports the file missing from the cache', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'parley-empty-cache-'));
    const e = createTransformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2', localOnly: true, cacheDir });
    const err = await catchParley(e.embed(['window seat']));
    expect(err.type).toBe('unavailable');
    expect(err.rule).toBe('model_load');
    // Had the hub been asked, this machine (no network) would give "fetch failed" instead.
    expect(err.message).not.toContain('unreachable');
    expect(err.message).toContain('"Xenova/all-MiniLM-L6-v2"');
    expect(err.message).toContain('config.json not found');
    expect(err.details).toMatchObject({ model: 'Xenova/all-MiniLM-L6-v2', local: false, localOnly: true });
    expect(tjsEnv.allowRemoteModels).toBe(true);
  });

  it('rejects bad options when created', async () => {
    expect((await catchParley(() => createTransformersEmbedder({ model: dir, normalise: true } as never))).rule).toBe('unknown_option');
    expect((await catchParley(() => createTransformersEmbedder({ model: dir, quantized: true, dtype: 'q8' }))).rule).toBe('exclusive');
    expect((await catchParley(() => createTransformersEmbedder({ model: dir, pooling: 'max' as never }))).path).toBe('opts.pooling');
    expect((await catchParley(() => createTransformersEmbedder({ model: dir, batchSize: 0 }))).type).toBe('invalid_params');
  });
});

describe('createEmbedderFromEnv: PARLEY_EMBEDDER=transformers', () => {
  it('builds the embedder synchronously and loads the model on the first embed', async () => {
    const e = createEmbedderFromEnv({ PARLEY_EMBEDDER: 'transformers', PARLEY_EMBEDDINGS_MODEL: dir });
    expect(e.id).toBe('transformers:tiny-bert');
    const [fromEnv] = await e.embed(['window seat']);
    const [direct] = await embedder.embed(['window seat']);
    expect(Array.from(fromEnv!)).toEqual(Array.from(direct!));
    expect(e.dimensions).toBe(HIDDEN_SIZE);
    await (e as TransformersEmbedder).dispose();
  });

  it('defaults to all-MiniLM-L6-v2 and reads PARLEY_EMBEDDINGS_LOCAL_ONLY', async () => {
    const e = createEmbedderFromEnv({ PARLEY_EMBEDDER: 'Transformers', PARLEY_EMBEDDINGS_LOCAL_ONLY: 'true' });
    expect(e.id).toBe('transformers:Xenova/all-MiniLM-L6-v2');
    expect(e.dimensions).toBe(384);
    // Local only: the model is not in transformers.js' cache here, and the load says so without the network.
    const load = await catchParley(e.embed(['window seat']));
    expect(load.details).toMatchObject({ localOnly: true, local: false });
    const err = await catchParley(() => createEmbedderFromEnv({ PARLEY_EMBEDDER: 'transformers', PARLEY_EMBEDDINGS_LOCAL_ONLY: 'maybe' }));
    expect(err.type).toBe('invalid_params');
    expect(err.path).toBe('env.PARLEY_EMBEDDINGS_LOCAL_ONLY');
  });
});

