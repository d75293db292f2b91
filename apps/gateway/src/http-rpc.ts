// POST /rpc (JSON-RPC 2.0, single or batch): access first (http-access.ts), then
// each request through handleOne (rpc.ts) in its own span with its own metrics.
// HTTP 200 except for a single request refused for access (401, 403, 429 from
// ERROR_CATALOGUE); a batch is always 200, its members carry their own errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CATALOGUE, ParleyError, isErrorType, parseIdempotencyKey } from '@parley/protocol';
import type { Logger, Metrics } from '@parley/runtime';
import { internalFailure } from './errors';
import { asCaller, type Access } from './http-access';
import { gatewayBaseUrl, send } from './http-io';
import { failJsonRpcSpan, inSpan, rpcIdOf, rpcMethodOf, startJsonRpcSpan } from './http-tracing';
import { errorResponse, handleOne, type Backends, type JsonRpcResponse, type MethodName, type RequestContext } from './rpc';

export interface RpcRouteDeps {
  access: Access;
  backends: Backends;
  log: Logger;
  version: string;
  publicUrl?: string;
  metrics?: Metrics;
  /** Called after a method succeeded (the catalogue is rebuilt after writes to agents or schemas). */
  onSuccess: (method: MethodName) => void;
}

/**
 * Idempotency-Key (a safe retry of `execute`): one request, one key; a batch would leave it ambiguous.
 * Sets ctx.idempotencyKey; throws a typed `invalid_request` when the header is on a batch or malformed.
 */
function takeIdempotencyKey(req: IncomingMessage, parsed: unknown, ctx: RequestContext): void {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return;
  if (Array.isArray(parsed)) {
    throw new ParleyError('invalid_request', "The Idempotency-Key header names one request: send it with a single execute, or put idempotency_key in each member's params", {
      path: 'headers.idempotency-key',
      rule: 'single_request',
    });
  }
  ctx.idempotencyKey = parseIdempotencyKey(Array.isArray(header) ? header.join(',') : header, 'headers.idempotency-key');
}

export function createRpcRoute(deps: RpcRouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { access, metrics } = deps;
  const onInternal = (e: unknown, method: string) => internalFailure(e, deps.log, { face: 'rpc', method });

  /** One JSON-RPC request: its span (JSON-RPC semantic conventions) and its metrics, around handleOne. */
  const member = async (r: unknown, backends: Backends, mctx: RequestContext): Promise<JsonRpcResponse | undefined> => {
    const started = performance.now();
    const m = rpcMethodOf(r);
    const span = startJsonRpcSpan(m.known, rpcIdOf(r), m.known === undefined && m.original !== undefined ? { 'rpc.method_original': m.original } : {});
    const observed: NonNullable<RequestContext['observed']> = {};
    const out = await inSpan(span, () => handleOne(r, backends, onInternal, deps.onSuccess, { ...mctx, observed }));
    const type = out?.error?.data.type as string | undefined;
    if (out?.error) failJsonRpcSpan(span, out.error, type);
    if (observed.scenario) span.setAttribute('parley.scenario', observed.scenario);
    span.end();
    metrics?.request('rpc', m.known ?? (m.original === undefined ? 'invalid' : 'unknown'), observed.scenario, type, (performance.now() - started) / 1000);
    return out;
  };

  return async (req, res) => {
    // Who is calling comes first: an anonymous caller's body is never read.
    const principal = await access.authenticate(req, res);
    if (!principal) return;
    // Bounded and charged before the body is read: one request's worth now, a batch's other members once counted.
    if (!access.admit(principal, res, 'rpc') || !access.charge(principal, res, 1, 'rpc')) return;
    const read = await access.readJson(req, res, 200);
    if (!read) return;
    const parsed = read.value;
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        access.refused('rpc', 'invalid_request', performance.now());
        send(res, 200, errorResponse(null, new ParleyError('invalid_request', 'A batch must hold at least one request', { path: 'body', rule: 'batch_size' })));
        return;
      }
      // The size first: a batch that can never pass is not charged and not advised to wait.
      if (parsed.length > access.batchLimit) return access.batchTooLarge(res, parsed.length, 'rpc');
      if (parsed.length > 1 && !access.charge(principal, res, parsed.length - 1, 'rpc')) return;
    }
    const backends = asCaller(deps.backends, req.headers.authorization as string);
    const ctx: RequestContext = { principal, rpcUrl: `${gatewayBaseUrl(req, deps.publicUrl)}/rpc`, version: deps.version };
    try {
      takeIdempotencyKey(req, parsed, ctx);
    } catch (e) {
      send(res, 200, errorResponse(null, e));
      return;
    }
    if (Array.isArray(parsed)) {
      const out = (await Promise.all(parsed.map((r) => member(r, backends, ctx)))).filter((r): r is JsonRpcResponse => r !== undefined);
      if (out.length === 0) res.writeHead(204).end();
      else send(res, 200, out);
      return;
    }
    // A single request's method may add response headers (get_schema_template's Parley-Signature).
    const responseHeaders: Record<string, string> = {};
    const one = await member(parsed, backends, { ...ctx, responseHeaders });
    if (!one) {
      res.writeHead(204).end();
      return;
    }
    const type = one.error?.data.type;
    const status = isErrorType(type) ? ERROR_CATALOGUE[type].http : 200;
    send(res, status, one, status === 401 ? { 'www-authenticate': 'Bearer realm="parley"' } : one.error ? {} : responseHeaders);
  };
}
