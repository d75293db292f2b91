/**
 * An embedder over an OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI,
 * Azure-style proxies, vLLM, Ollama, LocalAI, text-embeddings-inference…).
 * Inputs are sent in batches; vectors come back in input order (by `index`) and
 * are L2-normalised here, since not every compatible server normalises.
 *
 * Every failure to get vectors is a `ParleyError` of type `unavailable` (the
 * catalogue's "a Parley dependency is unavailable"), with `rule` saying which:
 * `network`, `timeout`, `http_status` (details carry `status` and the start of
 * the body), `bad_response`. `details.retryable` says whether the same request
 * may succeed later (429, 5xx, network, timeout) or not (other 4xx, a malformed
 * response). Options are checked when the embedder is created (`invalid_params`).
 */
import { ParleyError } from '@parley/protocol';
import type { Embedder } from './port';
import { l2normalize } from './port';

export interface OpenAIEmbedderOptions {
  /**
   * The API root, as in OpenAI's SDKs: `https://api.openai.com/v1`. The request
   * goes to `<baseUrl>/embeddings`; a bare origin (`http://127.0.0.1:8000`) gets
   * `/v1/embeddings`, and a URL already ending in `/embeddings` is used as is.
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  model: string;
  /**
   * Requested vector length (the `dimensions` parameter of text-embedding-3
   * models). Without it the length is the model's known default, else learned
   * from the first response (`dimensions` reads 0 until then).
   */
  dimensions?: number;
  /** Inputs per request. Default 128 (OpenAI accepts up to 2048). */
  batchSize?: number;
  /** Per request. Default 30 000 ms. */
  timeoutMs?: number;
}

/** Vector lengths of OpenAI's embedding models, so `dimensions` is known before the first call. */
const KNOWN_DIMENSIONS: ReadonlyMap<string, number> = new Map([
  ['text-embedding-3-small', 1536],
  ['text-embedding-3-large', 3072],
  ['text-embedding-ada-002', 1536],
]);

const OPTION_KEYS: ReadonlySet<string> = new Set(['baseUrl', 'apiKey', 'model', 'dimensions', 'batchSize', 'timeoutMs']);
const MAX_BODY_IN_ERROR = 500;

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function unavailable(rule: string, message: string, details: Record<string, unknown>, cause?: unknown): ParleyError {
  return new ParleyError('unavailable', message, { rule, details, ...(cause === undefined ? {} : { cause }) });
}

/** `<baseUrl>/embeddings`, following the rules of `OpenAIEmbedderOptions.baseUrl`. */
export function embeddingsUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid('opts.baseUrl', 'format', `createOpenAIEmbedder: baseUrl is not a URL: "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid('opts.baseUrl', 'format', `createOpenAIEmbedder: baseUrl must be http(s): "${baseUrl}"`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/embeddings')) return url.toString();
  url.pathname = path === '' ? '/v1/embeddings' : `${path}/embeddings`;
  return url.toString();
}

function validateOptions(opts: OpenAIEmbedderOptions): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', 'createOpenAIEmbedder: options are required');
  for (const k of Object.keys(opts)) {
    if (!OPTION_KEYS.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `createOpenAIEmbedder: unknown option "${k}"`);
  }
  if (typeof opts.baseUrl !== 'string' || opts.baseUrl === '') throw invalid('opts.baseUrl', 'required', 'createOpenAIEmbedder: baseUrl is required');
  if (typeof opts.model !== 'string' || opts.model === '') throw invalid('opts.model', 'required', 'createOpenAIEmbedder: model is required');
  if (opts.apiKey !== undefined && typeof opts.apiKey !== 'string') throw invalid('opts.apiKey', 'type', 'createOpenAIEmbedder: apiKey must be a string');
  const positiveInt = (name: 'dimensions' | 'batchSize' | 'timeoutMs') => {
    const v = opts[name];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw invalid(`opts.${name}`, 'minimum', `createOpenAIEmbedder: ${name} must be an integer >= 1`);
  };
  positiveInt('dimensions');
  positiveInt('batchSize');
  positiveInt('timeoutMs');
}

interface EmbeddingsResponse {
  data: { embedding: number[]; index: number }[];
}

function parseResponse(body: unknown, expected: number): number[][] {
  const data = (body as Partial<EmbeddingsResponse> | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new Error(`expected ${expected} embeddings in "data", got ${Array.isArray(data) ? data.length : typeof data}`);
  }
  const out: (number[] | undefined)[] = new Array(expected);
  for (const [i, item] of data.entries()) {
    const index = (item as { index?: unknown })?.index ?? i;
    const embedding = (item as { embedding?: unknown })?.embedding;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || out[index]) {
      throw new Error(`data[${i}].index is missing, out of range or repeated`);
    }
    if (!Array.isArray(embedding) || embedding.length === 0 || embedding.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new Error(`data[${i}].embedding is not a non-empty array of numbers (base64 encoding is not supported)`);
    }
    out[index] = embedding as number[];
  }
  return out as number[][];
}

export function createOpenAIEmbedder(opts: OpenAIEmbedderOptions): Embedder {
  validateOptions(opts);
  const url = embeddingsUrl(opts.baseUrl);
  const batchSize = opts.batchSize ?? 128;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let dimensions = opts.dimensions ?? KNOWN_DIMENSIONS.get(opts.model) ?? 0;
  // A truncated vector (`dimensions`) is another vector space than the model's full one.
  const id = `openai:${opts.model}${opts.dimensions ? `@${opts.dimensions}` : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey) headers['authorization'] = `Bearer ${opts.apiKey}`;
  const where = { url, model: opts.model };

  async function request(input: string[]): Promise<number[][]> {
    const body = JSON.stringify({ model: opts.model, input, encoding_format: 'float', ...(opts.dimensions ? { dimensions: opts.dimensions } : {}) });
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (cause) {
      const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
      throw timedOut
        ? unavailable('timeout', `embeddings endpoint did not answer within ${timeoutMs} ms`, { ...where, timeoutMs, retryable: true }, cause)
        : unavailable('network', `embeddings endpoint unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { ...where, retryable: true }, cause);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (cause) {
      const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
      throw unavailable(timedOut ? 'timeout' : 'network', `embeddings endpoint: reading the response failed`, { ...where, status: res.status, retryable: true }, cause);
    }
    if (!res.ok) {
      throw unavailable('http_status', `embeddings endpoint answered HTTP ${res.status}`, {
        ...where,
        status: res.status,
        body: text.slice(0, MAX_BODY_IN_ERROR),
        retryable: res.status === 429 || res.status >= 500,
      });
    }
    try {
      return parseResponse(JSON.parse(text), input.length);
    } catch (cause) {
      throw unavailable('bad_response', `embeddings endpoint sent a malformed response: ${cause instanceof Error ? cause.message : String(cause)}`, {
        ...where,
        status: res.status,
        body: text.slice(0, MAX_BODY_IN_ERROR),
        retryable: false,
      }, cause);
    }
  }

  return {
    id,
    get dimensions() {
      return dimensions;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw invalid('texts', 'type', 'embed: texts must be an array of strings');
      const out: Float32Array[] = new Array(texts.length);
      // OpenAI refuses empty inputs; an empty text has the zero vector, as with the offline embedder.
      const pending = texts.map((t, i) => [t, i] as const).filter(([t]) => t.trim() !== '');
      for (let start = 0; start < pending.length; start += batchSize) {
        const batch = pending.slice(start, start + batchSize);
        const vectors = await request(batch.map(([t]) => t));
        vectors.forEach((v, k) => {
          if (dimensions === 0) dimensions = v.length;
          if (v.length !== dimensions) {
            throw unavailable('bad_response', `embeddings endpoint sent a vector of ${v.length} dimensions, expected ${dimensions}`, { ...where, retryable: false });
          }
          out[(batch[k] as readonly [string, number])[1]] = l2normalize(Float32Array.from(v));
        });
      }
      for (let i = 0; i < out.length; i++) out[i] ??= new Float32Array(dimensions);
      return out;
    },
  };
}
