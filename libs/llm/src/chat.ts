/**
 * A minimal client of the OpenAI-compatible `POST /v1/chat/completions`
 * endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server…) with
 * structured outputs: `response_format: { type: "json_schema", json_schema:
 * { name, strict: true, schema } }` constrains the model's answer to a JSON
 * schema. Node's built-in fetch only.
 *
 * Failures follow libs/embeddings/src/openai.ts: every failure to get an answer
 * is a `ParleyError` of type `unavailable` with `rule` `network`, `timeout`,
 * `http_status` (details carry `status` and the start of the body) or
 * `bad_response` (not a chat completion); `details.retryable` says whether the
 * same request may succeed later. Options are checked when a client is created
 * (`invalid_params` naming the option).
 */
import type { JsonObject } from '@parley/protocol';
import { invalid, unavailable } from './errors';

/** Options shared by the OpenAI-compatible inducer and judge. */
export interface OpenAiLlmOptions {
  /**
   * Where the endpoint lives. A bare origin (`http://127.0.0.1:11434`) or a
   * path prefix gets `/v1/chat/completions`; an API root ending in a version
   * (`https://api.openai.com/v1`, as in OpenAI's SDKs) gets `/chat/completions`;
   * a URL already ending in `/chat/completions` is used as is.
   */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given; never logged or put in errors. */
  apiKey?: string;
  /** Per request, including reading the answer. Default 60 000 ms. */
  timeoutMs?: number;
  /** A fetch implementation (default: Node's global fetch). */
  fetch?: typeof fetch;
}

export const DEFAULT_LLM_TIMEOUT_MS = 60_000;
const BASE_OPTION_KEYS = ['baseUrl', 'model', 'apiKey', 'timeoutMs', 'fetch'] as const;
const MAX_BODY_IN_ERROR = 500;

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  /** `json_schema.name` ([a-zA-Z0-9_-], at most 64 characters). */
  readonly schemaName: string;
  readonly schema: JsonObject;
}

/** The assistant's message: its content, or an explicit refusal (OpenAI structured outputs). */
export type ChatAnswer = { readonly kind: 'content'; readonly content: string; readonly finish_reason: string | null } | { readonly kind: 'refusal'; readonly refusal: string };

export interface ChatClient {
  /** The endpoint, without credentials. */
  readonly url: string;
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatAnswer>;
}

/** `<baseUrl>/…/chat/completions`, following the rules of `OpenAiLlmOptions.baseUrl`. */
export function chatCompletionsUrl(baseUrl: string, who = 'chatCompletionsUrl'): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid('opts.baseUrl', 'format', `${who}: baseUrl is not a URL: "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('opts.baseUrl', 'format', `${who}: baseUrl must be http(s): "${baseUrl}"`);
  // fetch refuses URLs with credentials, and they would leak into errors and logs.
  if (url.username !== '' || url.password !== '') throw invalid('opts.baseUrl', 'format', `${who}: baseUrl must not carry credentials; pass the key as apiKey`);
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) url.pathname = path;
  else if (/\/v\d+$/.test(path)) url.pathname = `${path}/chat/completions`;
  else url.pathname = `${path}/v1/chat/completions`;
  return url.toString();
}

/** Checks the shared options plus `extra` option names; throws `invalid_params` naming the option. */
export function validateLlmOptions(opts: OpenAiLlmOptions, who: string, extra: readonly string[] = []): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', `${who}: options are required`);
  const known = new Set<string>([...BASE_OPTION_KEYS, ...extra]);
  for (const k of Object.keys(opts)) {
    if (!known.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `${who}: unknown option "${k}"`);
  }
  if (typeof opts.baseUrl !== 'string' || opts.baseUrl === '') throw invalid('opts.baseUrl', 'required', `${who}: baseUrl is required`);
  if (typeof opts.model !== 'string' || opts.model.trim() === '') throw invalid('opts.model', 'required', `${who}: model is required`);
  if (opts.apiKey !== undefined && typeof opts.apiKey !== 'string') throw invalid('opts.apiKey', 'type', `${who}: apiKey must be a string`);
  if (opts.fetch !== undefined && typeof opts.fetch !== 'function') throw invalid('opts.fetch', 'type', `${who}: fetch must be a function`);
  positiveInt(opts as unknown as Record<string, unknown>, 'timeoutMs', who);
}

/** Freezes a JSON value in depth (exported schemas must not change under the adapters' feet). */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

export function positiveInt(opts: Record<string, unknown>, name: string, who: string): void {
  const v = opts[name];
  if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 1)) throw invalid(`opts.${name}`, 'minimum', `${who}: ${name} must be an integer >= 1`);
}

/** Rejects when `signal` aborts, so a fetch that ignores its signal cannot outlive the timeout. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

interface ChatCompletion {
  choices: { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
}

function parseCompletion(body: unknown): ChatAnswer {
  const choices = (body as Partial<ChatCompletion> | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw new Error('no "choices" in the answer');
  const choice = choices[0] as ChatCompletion['choices'][number];
  const message = choice?.message;
  if (message === null || typeof message !== 'object') throw new Error('choices[0].message is missing');
  if (typeof message.refusal === 'string' && message.refusal !== '') return { kind: 'refusal', refusal: message.refusal };
  if (typeof message.content !== 'string') throw new Error('choices[0].message.content is not a string');
  return { kind: 'content', content: message.content, finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null };
}

/** A chat-completions client for `opts` (already validated by the caller's factory). */
export function createChatClient(opts: OpenAiLlmOptions, who: string): ChatClient {
  const url = chatCompletionsUrl(opts.baseUrl, who);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  const doFetch = opts.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (opts.apiKey) headers['authorization'] = `Bearer ${opts.apiKey}`;
  const where = { url, model: opts.model };

  async function complete(request: ChatRequest): Promise<ChatAnswer> {
    const body = JSON.stringify({
      model: opts.model,
      messages: request.messages,
      // Deterministic as far as the server allows: induction and audits should not depend on sampling luck.
      temperature: 0,
      stream: false,
      response_format: { type: 'json_schema', json_schema: { name: request.schemaName, strict: true, schema: request.schema } },
    });
    const signal = AbortSignal.timeout(timeoutMs);
    const timedOut = (cause: unknown) => unavailable('timeout', `chat completions endpoint did not answer within ${timeoutMs} ms`, { ...where, timeoutMs, retryable: true }, cause);
    let res: Response;
    try {
      res = await raceAbort(doFetch(url, { method: 'POST', headers, body, signal }), signal);
    } catch (cause) {
      if (signal.aborted) throw timedOut(cause);
      throw unavailable('network', `chat completions endpoint unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, { ...where, retryable: true }, cause);
    }
    let text: string;
    try {
      text = await raceAbort(res.text(), signal);
    } catch (cause) {
      if (signal.aborted) throw timedOut(cause);
      throw unavailable('network', 'chat completions endpoint: reading the response failed', { ...where, status: res.status, retryable: true }, cause);
    }
    if (!res.ok) {
      throw unavailable('http_status', `chat completions endpoint answered HTTP ${res.status}`, {
        ...where,
        status: res.status,
        body: text.slice(0, MAX_BODY_IN_ERROR),
        retryable: res.status === 429 || res.status >= 500,
      });
    }
    try {
      return parseCompletion(JSON.parse(text));
    } catch (cause) {
      throw unavailable(
        'bad_response',
        `chat completions endpoint sent a malformed response: ${cause instanceof Error ? cause.message : String(cause)}`,
        { ...where, status: res.status, body: text.slice(0, MAX_BODY_IN_ERROR), retryable: false },
        cause,
      );
    }
  }

  return { url, model: opts.model, complete };
}
