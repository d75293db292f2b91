// Tracing (OpenTelemetry HTTP and JSON-RPC semantic conventions): a SERVER span
// per POST to /rpc, /mcp and /a2a…, continuing the caller's W3C `traceparent`,
// and below it a SERVER span per JSON-RPC request (a batch member on its own);
// the gRPC calls to the services carry the context on (libs/contracts grpc.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes, type Span, type TextMapGetter } from '@opentelemetry/api';
import { METHODS } from './rpc';

/** The tracer, asked of the global provider at each use: a provider installed (or replaced) after this module loaded is the one used. */
const tracer = () => trace.getTracer('@parley/gateway');
const headerGetter: TextMapGetter<IncomingMessage['headers']> = {
  keys: (h) => Object.keys(h),
  get: (h, k) => h[k],
};

/** The route of a traced path (http.route), or undefined for paths that are not traced (health, metrics, console, cards). */
function tracedRoute(method: string | undefined, path: string): string | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/rpc' || path === '/mcp' || path === '/a2a') return path;
  if (path.startsWith('/a2a/')) return '/a2a/{agent}';
  return undefined;
}

function endHttpSpan(span: Span, status: number, finished: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || !finished) {
    span.setAttribute('error.type', finished ? String(status) : 'connection_closed');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Runs `serve` inside an HTTP SERVER span when the request is a traced POST (its parent the caller's traceparent), else as is. */
export function withHttpSpan(req: IncomingMessage, res: ServerResponse, path: string, serve: () => void): void {
  const route = tracedRoute(req.method, path);
  if (route === undefined) {
    serve();
    return;
  }
  const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
  const span = tracer().startSpan(`POST ${route}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': 'POST', 'http.route': route, 'url.path': route === '/a2a/{agent}' ? '/a2a/{agent}' : path, 'url.scheme': 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http', 'network.protocol.version': req.httpVersion },
  }, parent);
  res.once('close', () => endHttpSpan(span, res.statusCode, res.writableFinished));
  context.with(trace.setSpan(parent, span), serve);
}

/** A JSON-RPC method as a label and span name: the gateway's own methods, else `_OTHER` (semconv) / `unknown`. */
export function rpcMethodOf(r: unknown): { known: string | undefined; original: string | undefined } {
  const m = typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as { method?: unknown }).method : undefined;
  if (typeof m !== 'string') return { known: undefined, original: undefined };
  return Object.prototype.hasOwnProperty.call(METHODS, m) ? { known: m, original: m } : { known: undefined, original: m.slice(0, 64) };
}

export function rpcIdOf(r: unknown): string | undefined {
  const id = typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 64) : undefined;
}

/** A SERVER span for one JSON-RPC request named `method` (`_OTHER` when not one the face knows). */
export function startJsonRpcSpan(method: string | undefined, id: string | undefined, extra: Attributes = {}): Span {
  return tracer().startSpan(method ?? '_OTHER', {
    kind: SpanKind.SERVER,
    attributes: { 'rpc.system.name': 'jsonrpc', 'rpc.method': method ?? '_OTHER', 'jsonrpc.protocol.version': '2.0', ...extra, ...(id !== undefined ? { 'jsonrpc.request.id': id } : {}) },
  });
}

/** Runs `fn` with `span` as the active span. */
export function inSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** Marks a JSON-RPC span failed with the error's code, message and Parley type. */
export function failJsonRpcSpan(span: Span, error: { code?: number; message?: string }, type: string | undefined): void {
  span.setAttributes({ 'rpc.response.status_code': String(error.code), 'error.type': String(error.code), 'parley.error.type': type ?? 'internal' });
  span.setStatus({ code: SpanStatusCode.ERROR, message: String(error.message ?? '').slice(0, 200) });
}
