/**
 * The client's transport: JSON-RPC 2.0 over HTTP to the gateway's `/rpc`, and
 * the gateway's JWKS for signature checks (draft-zhou §7). Every failure is a
 * ParleyError.
 */
import { ParleyError, type SerializedError } from '@parley/protocol';
import type { ParleyClientOptions } from './index';
import { asJwks, type Jwks } from './verify';

export type RpcCall = <T>(method: string, params?: object) => Promise<T>;

/** Fetches the gateway's JWKS at `baseUrl`/.well-known/jwks.json. */
export function jwksFetcher(baseUrl: string, opts: ParleyClientOptions): () => Promise<Jwks> {
  const jwksUrl = new URL('/.well-known/jwks.json', baseUrl).toString();
  return async () => {
    let res: Response;
    try {
      res = await fetch(jwksUrl, { headers: { accept: 'application/jwk-set+json, application/json', ...opts.headers }, signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000) });
    } catch (cause) {
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable for its signing keys`, { cause, details: { url: jwksUrl } });
    }
    let doc: unknown;
    try {
      doc = await res.json();
    } catch {
      doc = undefined;
    }
    const jwks = res.ok ? asJwks(doc) : undefined;
    if (!jwks) throw new ParleyError('unavailable', `The gateway served no JWKS at ${jwksUrl} (HTTP ${res.status})`, { details: { url: jwksUrl, status: res.status } });
    return jwks;
  };
}

/**
 * One JSON-RPC call to the gateway at `baseUrl`; a JSON-RPC error comes back as the ParleyError it
 * serialises, and an answer that is no JSON-RPC response to this call as a typed error (rpcResult).
 */
export function createRpcCall(baseUrl: string, opts: ParleyClientOptions): RpcCall {
  const url = new URL('/rpc', baseUrl).toString();
  let nextId = 1;
  return async function call<T>(method: string, params: object = {}): Promise<T> {
    const id = nextId++;
    const timeoutMs = opts.timeoutMs ?? 15_000;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey !== undefined ? { authorization: `Bearer ${opts.apiKey}` } : {}), ...opts.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable`, { cause, details: { url } });
    }
    try {
      // The timeout covers the body too: a gateway that stalls mid-answer is as unavailable as one that never answers.
      text = await res.text();
    } catch (cause) {
      const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
      const why = timedOut ? `timed out after ${timeoutMs} ms while sending its answer` : 'broke off while sending its answer';
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} ${why} (HTTP ${res.status})`, { cause, details: { url, status: res.status } });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      if (!res.ok) throw httpError(baseUrl, url, res.status, cause);
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause, details: { url, status: res.status } });
    }
    return rpcResult<T>(body, id, res, baseUrl, url);
  };
}

/** What a JSON value is, for messages: `array`, `null`, `number`, `object` … */
function jsonKind(v: unknown): string {
  return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

/**
 * The result of a JSON-RPC 2.0 response (§5) to the single call `id`, or the ParleyError it carries.
 * A 2xx body that is no such response (a batch's array, a bare value, neither or both of result and
 * error, an error that is no error object, another call's id) is an `internal` ParleyError whose path
 * and rule name what was wrong; never a result. A non-2xx one without a usable JSON-RPC error is typed
 * by its HTTP status (httpError). A JSON-RPC error with id null (a request whose id the gateway could
 * not read) is still the error it serialises.
 */
function rpcResult<T>(body: unknown, id: number, res: Response, baseUrl: string, url: string): T {
  const status = res.status;
  const bad = (path: string, rule: string, what: string, details: Record<string, unknown> = {}) =>
    new ParleyError('internal', `Gateway answered HTTP ${status} with ${what}`, { path, rule, details: { url, status, ...details } });
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const r = (isObject ? body : {}) as { id?: unknown; result?: unknown; error?: unknown };
  const has = (k: string) => isObject && Object.prototype.hasOwnProperty.call(body, k);
  const rpcError = r.error;
  const errorObject = rpcError !== null && typeof rpcError === 'object' && !Array.isArray(rpcError) && typeof (rpcError as { message?: unknown }).message === 'string';
  const idOk = r.id === id || (r.id === null && has('error'));
  if (errorObject && idOk && !has('result')) {
    const e = rpcError as { code?: unknown; message: string; data?: unknown };
    // Parley's gateway puts the typed error in data; any other server's data (a stack, a string) is kept as a detail.
    const d = e.data as { type?: unknown; message?: unknown } | null | undefined;
    const parley = d !== null && typeof d === 'object' && typeof d.type === 'string' && typeof d.message === 'string';
    throw ParleyError.fromJSON(parley ? (d as SerializedError) : { type: 'internal', message: e.message, details: { code: e.code, ...(e.data !== undefined ? { data: e.data } : {}) } });
  }
  if (!res.ok) throw httpError(baseUrl, url, status);
  if (Array.isArray(body)) {
    return fail(bad('response', 'single_response', `a JSON array (a batch answer) to a single call, of ${body.length} member(s), not a JSON-RPC response object`, { got: 'array', length: body.length }));
  }
  if (!isObject) return fail(bad('response', 'object', `a JSON ${jsonKind(body)}, not a JSON-RPC response object`, { got: jsonKind(body) }));
  if (has('result') && has('error')) return fail(bad('response', 'result_xor_error', 'a JSON-RPC response holding both result and error'));
  if (!has('result') && !has('error')) return fail(bad('response', 'result_or_error', 'a JSON-RPC response holding neither result nor error'));
  if (!idOk) {
    const got = JSON.stringify(r.id) ?? 'none';
    return fail(bad('response.id', 'id_matches', `a JSON-RPC response of id ${got.slice(0, 64)}, not the call's id ${id}`, { expected: id, got: typeof r.id === 'string' ? r.id.slice(0, 64) : typeof r.id === 'number' ? r.id : jsonKind(r.id) }));
  }
  if (has('error')) return fail(bad('response.error', 'error_object', `a JSON-RPC error that is not an error object (a JSON ${jsonKind(rpcError)}, or no string message)`, { got: jsonKind(rpcError) }));
  return r.result as T;
}

function fail(e: ParleyError): never {
  throw e;
}

/** A non-2xx answer that carries no JSON-RPC error: typed by its status (a proxy's 503, an auth layer's 401 …). */
function httpError(baseUrl: string, url: string, status: number, cause?: unknown): ParleyError {
  const type = status === 401 ? 'unauthenticated' : status === 403 ? 'forbidden' : status === 429 ? 'rate_limited' : status >= 500 ? 'unavailable' : 'internal';
  return new ParleyError(type, `Parley gateway at ${baseUrl} answered HTTP ${status} without a JSON-RPC error`, { ...(cause !== undefined ? { cause } : {}), details: { url, status } });
}
