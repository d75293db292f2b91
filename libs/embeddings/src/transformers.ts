/**
 * An embedder over a local ONNX sentence-embedding model run by transformers.js
 * (`@huggingface/transformers`, on `onnxruntime-node`): BERT-style encoders such
 * as `Xenova/all-MiniLM-L6-v2`, from the Hugging Face hub (downloaded once into a
 * cache) or from a directory laid out as transformers.js expects:
 *
 *   config.json  tokenizer.json  tokenizer_config.json  onnx/model.onnx
 *
 * (`onnx/model_quantized.onnx` for `quantized: true` / `dtype: 'q8'`, and the
 * `_fp16`, `_q4`, … suffixes for the other dtypes).
 *
 * The factory is synchronous and does no IO: the model loads on the first
 * `embed()` (or `warmUp()`), once, however many calls wait for it. A failed load
 * is not remembered, so a later call retries. Every failure to load is a
 * `ParleyError` of type `unavailable`, rule `model_load`, naming the model and
 * what was missing (`details.missing`), never a raw transformers.js error.
 *
 * transformers.js is imported on first load, not with this module, so using
 * another embedder never pays for (or depends on) onnxruntime.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import type { DataType, FeatureExtractionPipeline } from '@huggingface/transformers';
import { ParleyError } from '@parley/protocol';
import type { Embedder } from './port';
import { l2normalize } from './port';

export const DEFAULT_TRANSFORMERS_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** The model file dtypes transformers.js knows (each maps to an `onnx/model<suffix>.onnx` file). */
const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const satisfies readonly DataType[];
export type TransformersDtype = (typeof DTYPES)[number];

export interface TransformersEmbedderOptions {
  /**
   * A hub model id (`Xenova/all-MiniLM-L6-v2`, the default) or a local model
   * directory. A value that is an absolute path, starts with `.`, or names an
   * existing directory is a directory; remote models are then never consulted.
   */
  model?: string;
  /** Never download: hub ids must already be in `cacheDir` (or transformers.js' local model path). */
  localOnly?: boolean;
  /** Where downloaded models are cached. Default: transformers.js' own (`node_modules/@huggingface/transformers/.cache`). */
  cacheDir?: string;
  /** `mean` (default, what sentence-transformers models are trained for) averages the unpadded tokens; `cls` takes the first token. */
  pooling?: 'mean' | 'cls';
  /** Load `onnx/model_quantized.onnx` (dtype `q8`) instead of `onnx/model.onnx` (`fp32`). */
  quantized?: boolean;
  /** The model file's dtype, for the other variants; exclusive with `quantized`. Default: transformers.js' choice (fp32 on CPU). */
  dtype?: TransformersDtype;
  /** Texts per forward pass. Default 32. */
  batchSize?: number;
}

export interface TransformersEmbedder extends Embedder {
  /** The model reference in use: the hub id, or the resolved absolute directory. */
  readonly model: string;
  /** Loads the model now rather than on the first `embed` (it happens once either way). */
  warmUp(): Promise<void>;
  /** Releases the ONNX session; a later `embed` loads the model again. */
  dispose(): Promise<void>;
  stats(): TransformersEmbedderStats;
}

export interface TransformersEmbedderStats {
  loaded: boolean;
  /** Loads started so far (failed ones included): concurrent first calls share one. */
  loads: number;
  /** Wall time of the last successful load, ms. */
  loadMs?: number;
}

/** Vector lengths of well-known models, so `dimensions` is right before the model loads. */
const KNOWN_DIMENSIONS: ReadonlyMap<string, number> = new Map([
  ['Xenova/all-MiniLM-L6-v2', 384],
  ['Xenova/all-MiniLM-L12-v2', 384],
  ['Xenova/bge-small-en-v1.5', 384],
  ['Xenova/all-mpnet-base-v2', 768],
]);

const OPTION_KEYS: ReadonlySet<string> = new Set(['model', 'localOnly', 'cacheDir', 'pooling', 'quantized', 'dtype', 'batchSize']);

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function validateOptions(opts: TransformersEmbedderOptions): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', 'createTransformersEmbedder: options must be an object');
  for (const k of Object.keys(opts)) {
    if (!OPTION_KEYS.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `createTransformersEmbedder: unknown option "${k}"`);
  }
  if (opts.model !== undefined && (typeof opts.model !== 'string' || opts.model.trim() === '')) {
    throw invalid('opts.model', 'type', 'createTransformersEmbedder: model must be a non-empty string');
  }
  if (opts.pooling !== undefined && opts.pooling !== 'mean' && opts.pooling !== 'cls') {
    throw invalid('opts.pooling', 'enum', `createTransformersEmbedder: pooling must be "mean" or "cls" (got "${String(opts.pooling)}")`);
  }
  if (opts.dtype !== undefined && !(DTYPES as readonly string[]).includes(opts.dtype)) {
    throw invalid('opts.dtype', 'enum', `createTransformersEmbedder: dtype must be one of ${DTYPES.join(', ')} (got "${String(opts.dtype)}")`);
  }
  if (opts.dtype !== undefined && opts.quantized !== undefined) {
    throw invalid('opts.quantized', 'exclusive', 'createTransformersEmbedder: give either quantized or dtype, not both');
  }
  if (opts.batchSize !== undefined && (!Number.isInteger(opts.batchSize) || opts.batchSize < 1)) {
    throw invalid('opts.batchSize', 'minimum', 'createTransformersEmbedder: batchSize must be an integer >= 1');
  }
  if (opts.cacheDir !== undefined && (typeof opts.cacheDir !== 'string' || opts.cacheDir === '')) {
    throw invalid('opts.cacheDir', 'type', 'createTransformersEmbedder: cacheDir must be a non-empty string');
  }
}

/** Whether `model` names a local directory rather than a hub id (see `TransformersEmbedderOptions.model`). */
function isLocalPath(model: string): boolean {
  if (isAbsolute(model) || model.startsWith('.') || model.startsWith('~')) return true;
  try {
    return statSync(model).isDirectory();
  } catch {
    return false;
  }
}

type TransformersModule = typeof import('@huggingface/transformers');

/**
 * transformers.js reads some settings only from its process-wide `env`: in 4.3.1
 * `local_files_only` is not passed on when a pipeline loads the model's config,
 * so only `env.allowRemoteModels = false` really keeps a load off the network.
 * Loads therefore set `env` for their duration and restore it, one at a time.
 */
let envLock: Promise<unknown> = Promise.resolve();

async function withEnv<T>(tjs: TransformersModule, settings: { allowRemoteModels: boolean; cacheDir?: string }, fn: () => Promise<T>): Promise<T> {
  const run = async () => {
    const saved = { allowRemoteModels: tjs.env.allowRemoteModels, cacheDir: tjs.env.cacheDir };
    tjs.env.allowRemoteModels = settings.allowRemoteModels;
    if (settings.cacheDir !== undefined) tjs.env.cacheDir = settings.cacheDir;
    try {
      return await fn();
    } finally {
      tjs.env.allowRemoteModels = saved.allowRemoteModels;
      tjs.env.cacheDir = saved.cacheDir;
    }
  };
  const result = envLock.then(run, run);
  envLock = result.catch(() => undefined);
  return result;
}

/** The first line of an error's message, and of its cause's (fetch puts the DNS error there). */
function describe(e: unknown): string {
  const line = (x: unknown) => (x instanceof Error ? x.message : String(x)).split('\n')[0] ?? '';
  const cause = e instanceof Error && e.cause !== undefined ? line(e.cause) : '';
  return cause ? `${line(e)} (${cause})` : line(e);
}

export function createTransformersEmbedder(opts: TransformersEmbedderOptions = {}): TransformersEmbedder {
  validateOptions(opts);
  const requested = (opts.model ?? DEFAULT_TRANSFORMERS_MODEL).trim();
  const local = isLocalPath(requested);
  const model = local ? resolve(requested) : requested;
  const localOnly = local || opts.localOnly === true;
  const pooling = opts.pooling ?? 'mean';
  const dtype: TransformersDtype | undefined = opts.dtype ?? (opts.quantized === undefined ? undefined : opts.quantized ? 'q8' : 'fp32');
  const batchSize = opts.batchSize ?? 32;
  // Another pooling or weight precision is another vector space.
  const id = `transformers:${local ? basename(model) : model}${pooling === 'cls' ? ':cls' : ''}${dtype && dtype !== 'fp32' ? `@${dtype}` : ''}`;
  let dimensions = KNOWN_DIMENSIONS.get(model) ?? 0;
  let loading: Promise<FeatureExtractionPipeline> | undefined;
  let loaded = false;
  let loads = 0;
  let loadMs: number | undefined;

  function loadError(what: string, details: Record<string, unknown>, cause?: unknown): ParleyError {
    return new ParleyError('unavailable', `transformers embedder: cannot load model "${requested}": ${what}`, {
      rule: 'model_load',
      details: { model, local, localOnly, ...details },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  async function load(): Promise<FeatureExtractionPipeline> {
    loads++;
    const started = performance.now();
    if (local && !existsSync(model)) throw loadError(`directory ${model} does not exist`, { missing: model, retryable: false });
    let tjs: TransformersModule;
    try {
      tjs = await import('@huggingface/transformers');
    } catch (cause) {
      throw loadError(`@huggingface/transformers could not be imported: ${describe(cause)}`, { retryable: false }, cause);
    }
    let extractor: FeatureExtractionPipeline;
    try {
      extractor = await withEnv(tjs, { allowRemoteModels: !localOnly, ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}) }, () =>
        tjs.pipeline('feature-extraction', model, {
          local_files_only: localOnly,
          device: 'cpu',
          ...(opts.cacheDir ? { cache_dir: opts.cacheDir } : {}),
          ...(dtype ? { dtype } : {}),
        }),
      );
    } catch (cause) {
      // transformers.js names the missing file as `… at "<path>"`.
      const path = /at "([^"]+)"/.exec(cause instanceof Error ? cause.message : '')?.[1];
      if (path) {
        const file = local && path.startsWith(model) ? relative(model, path) : path;
        const hint = local ? '' : localOnly ? ' (localOnly: the model must already be in the cache)' : '';
        throw loadError(`${file} not found${local ? ` in ${model}` : ''}${hint}`, { missing: file, retryable: false }, cause);
      }
      const offline = /fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT|network/i.test(describe(cause));
      throw offline
        ? loadError(`the model hub is unreachable (${describe(cause)}); download the model into cacheDir or point model at a local directory`, { retryable: true }, cause)
        : loadError(describe(cause), { retryable: false }, cause);
    }
    const config = extractor.model.config as unknown as Record<string, unknown>;
    const hidden = config['hidden_size'] ?? config['d_model'] ?? config['dim'];
    if (typeof hidden === 'number' && Number.isInteger(hidden) && hidden > 0) dimensions = hidden;
    loaded = true;
    loadMs = performance.now() - started;
    return extractor;
  }

  /** The loaded pipeline: one load in flight at a time, shared by every caller; forgotten if it fails. */
  function pipelineOnce(): Promise<FeatureExtractionPipeline> {
    loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    });
    return loading;
  }

  async function run(extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
    let data: ArrayLike<number>;
    let dims: readonly number[];
    try {
      const out = await extractor(texts, { pooling, normalize: true });
      data = out.data as ArrayLike<number>;
      dims = out.dims;
    } catch (cause) {
      throw new ParleyError('unavailable', `transformers embedder: model "${requested}" failed to embed: ${describe(cause)}`, {
        rule: 'inference',
        details: { model, retryable: false },
        cause,
      });
    }
    const width = dims[dims.length - 1] ?? 0;
    if (dims.length !== 2 || dims[0] !== texts.length || width < 1) {
      throw new ParleyError('unavailable', `transformers embedder: model "${requested}" gave output of shape [${dims.join(', ')}], expected [${texts.length}, hidden]`, {
        rule: 'bad_output',
        details: { model, dims: [...dims], retryable: false },
      });
    }
    // The config's hidden size is a claim; the output is the fact.
    dimensions = width;
    const rows: Float32Array[] = [];
    for (let r = 0; r < texts.length; r++) {
      const row = new Float32Array(width);
      for (let c = 0; c < width; c++) row[c] = data[r * width + c] as number;
      // transformers.js normalised already; again in float32 so the port's contract holds exactly.
      rows.push(l2normalize(row));
    }
    return rows;
  }

  return {
    id,
    model,
    get dimensions() {
      return dimensions;
    },
    stats(): TransformersEmbedderStats {
      return { loaded, loads, ...(loadMs === undefined ? {} : { loadMs }) };
    },
    async warmUp(): Promise<void> {
      await pipelineOnce();
    },
    async dispose(): Promise<void> {
      const current = loading;
      loading = undefined;
      loaded = false;
      if (current) await (await current.catch(() => undefined))?.dispose();
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw invalid('texts', 'type', 'embed: texts must be an array of strings');
      if (texts.length === 0) return [];
      const extractor = await pipelineOnce();
      const out: Float32Array[] = new Array(texts.length);
      // As the other adapters: a text without content has the zero vector, not the vector of "[CLS] [SEP]".
      // Similar lengths share a batch, so little compute goes to padding.
      const pending = texts
        .map((t, i) => [t, i] as const)
        .filter(([t]) => t.trim() !== '')
        .sort((a, b) => a[0].length - b[0].length);
      for (let start = 0; start < pending.length; start += batchSize) {
        const batch = pending.slice(start, start + batchSize);
        const vectors = await run(extractor, batch.map(([t]) => t));
        vectors.forEach((v, k) => (out[(batch[k] as readonly [string, number])[1]] = v));
      }
      for (let i = 0; i < out.length; i++) out[i] ??= new Float32Array(dimensions);
      return out;
    },
  };
}
