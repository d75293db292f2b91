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

/** One JSON-RPC call to the gateway at `baseUrl`; a JSON-RPC error comes back as the ParleyError it serialises. */
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
    let body: { result?: T; error?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch (cause) {
      if (!res.ok) throw httpError(baseUrl, url, res.status, cause);
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause, details: { url, status: res.status } });
    }
    const rpcError = body !== null && typeof body === 'object' ? body.error : undefined;
    if (rpcError !== null && typeof rpcError === 'object' && typeof (rpcError as { message?: unknown }).message === 'string') {
      const e = rpcError as { message: string; data?: SerializedError };
      throw ParleyError.fromJSON(e.data ?? { type: 'internal', message: e.message });
    }
    if (!res.ok) throw httpError(baseUrl, url, res.status);
    // A handler that returns nothing serialises without `result`: that is undefined, but a body that is no object is no answer.
    if (body === null || typeof body !== 'object') {
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a JSON body that is not a JSON-RPC response`, { details: { url, status: res.status } });
    }
    return body.result as T;
  };
}

/** A non-2xx answer that carries no JSON-RPC error: typed by its status (a proxy's 503, an auth layer's 401 …). */
function httpError(baseUrl: string, url: string, status: number, cause?: unknown): ParleyError {
  const type = status === 401 ? 'unauthenticated' : status === 403 ? 'forbidden' : status === 429 ? 'rate_limited' : status >= 500 ? 'unavailable' : 'internal';
  return new ParleyError(type, `Parley gateway at ${baseUrl} answered HTTP ${status} without a JSON-RPC error`, { ...(cause !== undefined ? { cause } : {}), details: { url, status } });
}
