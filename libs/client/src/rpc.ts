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
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey !== undefined ? { authorization: `Bearer ${opts.apiKey}` } : {}), ...opts.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      });
    } catch (cause) {
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable`, { cause, details: { url } });
    }
    const text = await res.text();
    let body: { result?: T; error?: { message: string; data?: SerializedError } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch (cause) {
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause });
    }
    if (body.error) {
      throw ParleyError.fromJSON(body.error.data ?? { type: 'internal', message: body.error.message });
    }
    return body.result as T;
  };
}
