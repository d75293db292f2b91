import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span, type TextMapGetter } from '@opentelemetry/api';
import type { TextEmbedder } from '@parley/adol';
import type { Authenticator, Principal } from '@parley/auth';
import { withAuthorization } from '@parley/contracts';
import { ERROR_CATALOGUE, ParleyError, isErrorType, parseIdempotencyKey, toParleyError } from '@parley/protocol';
import { createKeyRing, createRateLimiter, credentialLabel, handleHealth, handleMetrics, systemClock, type Clock, type HealthState, type Logger, type Metrics } from '@parley/runtime';
import { A2A_AGENT_PATH_PATTERN, createA2aFace, resolveAgentCard } from './a2a';
import { gatewayCard, type ParleyAgentCardJson } from './a2a-card';
import { ToolCatalog } from './catalog';
import { consoleHandler } from './console';
import { internalFailure } from './errors';
import { createMcpFace, refuseMalformedMcp } from './mcp';
import { SchemaStore } from './schema-store';
import { OPENRPC_PATH, openRpcDocument } from './openrpc';
import { presentCard, type CardSigner } from './a2a-card-versions';
import { METHODS, errorResponse, handleOne, type Backends, type JsonRpcResponse, type MethodName, type RequestContext } from './rpc';

/**
 * The gateway's HTTP server: `POST /rpc` (JSON-RPC 2.0, single or batch),
 * `POST /mcp` (MCP, streamable HTTP, stateless), the A2A face
 * (`GET /.well-known/agent-card.json`, `POST /a2a`, and per agent
 * `GET /a2a/<agent>/.well-known/agent-card.json`, `POST /a2a/<agent>`),
 * `GET /.well-known/jwks.json` (negotiation's public signing keys, draft-zhou §7),
 * `GET /healthz`, `GET /readyz`. Bodies over `maxBodyBytes` are refused with
 * HTTP 413 and a JSON-RPC `body_too_large` error before they are parsed.
 *
 * Identity (draft-zhou §7): every POST to `/rpc`, `/mcp` and `/a2a…`
 * is authenticated first (`Authorization: Bearer <API key or JWT>`): without
 * valid credentials the answer is HTTP 401 with `WWW-Authenticate: Bearer` and
 * a JSON-RPC `unauthenticated` error naming the rule; over its rate limit a
 * principal gets HTTP 429 with `Retry-After` and `rate_limited`. The gateway
 * then calls the services with the caller's own credential, and each service
 * authorizes the call (libs/auth POLICY and its guards). Agent cards, the
 * JWKS, `/schemas/…` and the health endpoints are public: they are discovery
 * documents and carry nothing per caller.
 *
 * `/rpc` answers HTTP 200 except for a single request refused for access
 * (`unauthenticated` 401, `forbidden` 403, `rate_limited` 429, from
 * ERROR_CATALOGUE); a batch is always 200, its members carry their own errors.
 */
export interface GatewayHttpOptions {
  backends: Backends;
  health: HealthState;
  log: Logger;
  maxBodyBytes: number;
  /** Largest batch accepted (JSON-RPC 2.0 §6). */
  maxBatch?: number;
  /** How long the MCP/A2A tool catalogue is cached (default 5000 ms). */
  catalogTtlMs?: number;
  /**
   * Absolute URL clients reach the gateway at (e.g. behind a proxy), used in
   * agent cards. Default: http://<Host header of the request>.
   */
  publicUrl?: string;
  /** Parley's version, reported by the MCP server and the gateway's agent card. */
  version?: string;
  /** Embedder for MCP tools/list `query` selection (chang §3.4); without one, queries rank by BM25 alone. */
  embedder?: TextEmbedder;
  /** Example requests per tool name that an operator attached, for selection (chang §3.4). */
  toolExamples?: ReadonlyMap<string, readonly string[]>;
  /** Turns the Authorization header into a principal (libs/runtime createAuthenticator). */
  authenticator: Authenticator;
  /**
   * Requests per second and burst per principal (a batch counts each member);
   * default 50/s with a burst of 100; null turns the limit off.
   */
  rateLimit?: { ratePerSecond: number; burst: number } | null;
  clock?: Clock;
  /**
   * Requests of one principal served at once (default 32; 0 turns it off). Counted after
   * authentication and before the body is read, so one caller cannot make the gateway
   * buffer hundreds of bodies: past it, HTTP 429 `rate_limited` rule `concurrency`.
   */
  maxInFlightPerPrincipal?: number;
  /**
   * Slow clients (Node's server timeouts): the whole request within requestMs (default 30 s),
   * its headers within headersMs (10 s); idle keep-alive connections close after keepAliveMs (65 s).
   */
  timeouts?: { requestMs: number; headersMs: number; keepAliveMs: number };
  /**
   * Host names `/mcp` accepts in the Host header besides loopback and PUBLIC_URL's host
   * (DNS rebinding, MCP transport §Security); `*` accepts any.
   */
  allowedHosts?: readonly string[];
  /**
   * Prometheus metrics (libs/runtime metrics.ts): requests and latency per face,
   * method, scenario and outcome, auth failures, rate-limit refusals; served at
   * GET /metrics with everything else the process's parts record there.
   */
  metrics?: Metrics;
  /** Signs the A2A agent cards (a2a-card-versions.ts); default: a key generated at start. Its public key joins the JWKS. */
  cardSigner?: CardSigner;
}

/** Agent cards differ by the A2A-Version request header (a2a-card-versions.ts). */
const CARD_HEADERS = { 'cache-control': 'max-age=5', vary: 'A2A-Version' };

/** Methods after which the MCP/A2A catalogue is rebuilt: they change agents or schemas. */
const CATALOG_WRITES: ReadonlySet<MethodName> = new Set<MethodName>(['register_agent', 'publish_schema', 'unregister_agent', 'retire_schema']);
const AGENT_CARD = '/.well-known/agent-card.json';
const JWKS_PATH = '/.well-known/jwks.json';
/** How long the gateway keeps negotiation's JWKS (a rotated key shows within it). */
const JWKS_TTL_MS = 5000;
const ENDPOINTS = [
  `GET ${JWKS_PATH}`,
  'POST /rpc',
  `GET ${OPENRPC_PATH}`,
  'POST /mcp',
  `GET ${AGENT_CARD}`,
  'POST /a2a',
  `GET /a2a/<agent>${AGENT_CARD}`,
  'POST /a2a/<agent>',
  'GET /s/<hash>',
  'GET /schemas/sha256-<hex>.json',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /console/',
];

// ---------------------------------------------------------------------------
// Tracing (OpenTelemetry HTTP and JSON-RPC semantic conventions): a SERVER span
// per POST to /rpc, /mcp and /a2a…, continuing the caller's W3C `traceparent`,
// and below it a SERVER span per JSON-RPC request (a batch member on its own);
// the gRPC calls to the services carry the context on (libs/contracts grpc.ts).
// ---------------------------------------------------------------------------

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

/** A JSON-RPC method as a label and span name: the gateway's own methods, else `_OTHER` (semconv) / `unknown`. */
function rpcMethodOf(r: unknown): { known: string | undefined; original: string | undefined } {
  const m = typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as { method?: unknown }).method : undefined;
  if (typeof m !== 'string') return { known: undefined, original: undefined };
  return Object.prototype.hasOwnProperty.call(METHODS, m) ? { known: m, original: m } : { known: undefined, original: m.slice(0, 64) };
}

function rpcIdOf(r: unknown): string | undefined {
  const id = typeof r === 'object' && r !== null && !Array.isArray(r) ? (r as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id).slice(0, 64) : undefined;
}

/** The A2A methods counted by name (others: `other`). */
const A2A_METHODS = new Set(['SendMessage', 'message/send', 'SendStreamingMessage', 'message/stream', 'GetTask', 'tasks/get', 'CancelTask', 'tasks/cancel', 'ListTasks', 'SubscribeToTask', 'tasks/resubscribe', 'GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

export function createGatewayServer(opts: GatewayHttpOptions): Server {
  const maxBatch = opts.maxBatch ?? 100;
  const version = opts.version ?? '0.1.0';
  const onInternal = (e: unknown, method: string) => internalFailure(e, opts.log, { face: 'rpc', method });
  const catalog = new ToolCatalog(opts.backends, { ttlMs: opts.catalogTtlMs ?? 5000, log: opts.log, ...(opts.toolExamples ? { examples: opts.toolExamples } : {}) });
  // The gateway's own writes are seen at once; other replicas' within the TTL.
  const onSuccess = (method: MethodName) => {
    if (CATALOG_WRITES.has(method)) catalog.invalidate();
  };
  const schemas = new SchemaStore();
  // The operator console (console.ts): static assets, the page calls /rpc with the operator's credential.
  const serveConsole = consoleHandler();
  const clock = opts.clock ?? systemClock;
  const limit = opts.rateLimit === null ? undefined : createRateLimiter({ ...(opts.rateLimit ?? { ratePerSecond: 50, burst: 100 }), clock });
  const metrics = opts.metrics;
  /** A request answered before any method ran (401, 413, 429, a body that is not JSON): counted as method `none`. */
  const refused = (face: 'rpc' | 'mcp' | 'a2a', type: string, started: number) => metrics?.request(face, 'none', undefined, type, (performance.now() - started) / 1000);

  /** The backends as the caller: every service call carries the caller's own Authorization header. */
  const asCaller = (authorization: string): Backends => {
    const b = opts.backends;
    const out: Backends = {
      registry: withAuthorization(b.registry, authorization),
      negotiation: withAuthorization(b.negotiation, authorization),
      execution: withAuthorization(b.execution, authorization),
    };
    if (b.profiles) out.profiles = withAuthorization(b.profiles, authorization);
    if (b.tasks) out.tasks = withAuthorization(b.tasks, authorization);
    if (b.pool) out.pool = withAuthorization(b.pool, authorization);
    if (b.evolution) out.evolution = withAuthorization(b.evolution, authorization);
    if (b.apiKeys) out.apiKeys = withAuthorization(b.apiKeys, authorization);
    if (b.eventSubscriptions) out.eventSubscriptions = withAuthorization(b.eventSubscriptions, authorization);
    if (b.deadLetters) out.deadLetters = new Map([...b.deadLetters].map(([name, api]) => [name, withAuthorization(api, authorization)]));
    return out;
  };

  // draft-zhou §7: the public keys of negotiation's signatures, as a JWKS (RFC 7517), kept JWKS_TTL_MS;
  // one lookup at a time; the last good set is served while negotiation cannot be reached.
  let jwks: { at: number; body: string } | undefined;
  let jwksLoading: Promise<string> | undefined;
  const jwksBody = async (): Promise<string> => {
    if (jwks && clock.now().getTime() - jwks.at < JWKS_TTL_MS) return jwks.body;
    jwksLoading ??= opts.backends.negotiation
      .getSigningKeys({})
      .then((r) => {
        // Negotiation's keys, then the agent cards' (a2a-card-versions.ts) unless it is the same key.
        const keys: Array<Record<string, string>> = r.keys.map((k) => ({ kty: k.kty, crv: k.crv, x: k.x, kid: k.kid, use: k.use, alg: k.alg }));
        for (const k of cardSigner.jwks().keys) if (!keys.some((n) => n.kid === k.kid)) keys.push({ ...k });
        const body = JSON.stringify({ keys });
        jwks = { at: clock.now().getTime(), body };
        return body;
      })
      .catch((e: unknown) => {
        if (!jwks) throw e;
        opts.log.warn('negotiation unreachable; serving the last JWKS', { error: e });
        return jwks.body;
      })
      .finally(() => {
        jwksLoading = undefined;
      });
    return jwksLoading;
  };

  // A2A card signatures (a2a-card-versions.ts): the configured key, else one generated at start; published in the JWKS.
  const cardSigner: CardSigner = opts.cardSigner ?? createKeyRing();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };
  /** The card in the version asked for, signed; a version not served is HTTP 400 `invalid_request`. */
  const sendCard = (req: IncomingMessage, res: ServerResponse, card: ParleyAgentCardJson, base: string) => {
    let body: unknown;
    try {
      body = presentCard(req, card, cardSigner, base);
    } catch (e) {
      if (toParleyError(e).type !== 'invalid_request') throw e;
      send(res, 400, errorResponse(null, e), { vary: 'A2A-Version' });
      return;
    }
    send(res, 200, body, CARD_HEADERS);
  };
  const notAllowed = (res: ServerResponse, allow: string, why: string) => {
    send(res, 405, errorResponse(null, new ParleyError('invalid_request', why, { path: 'method', rule: `http_${allow.toLowerCase()}` })), { allow });
  };
  /**
   * Authenticates the request from its Authorization header alone, before its
   * body is read; on failure answers 401 and returns undefined.
   */
  const authenticate = async (req: IncomingMessage, res: ServerResponse, face: 'rpc' | 'mcp' | 'a2a' = 'rpc'): Promise<Principal | undefined> => {
    const authorization = req.headers.authorization;
    const started = performance.now();
    try {
      const principal = await opts.authenticator.authenticate(authorization);
      // The services' shared token is for their calls to each other, never an outside caller's.
      if (principal.roles.includes('service')) {
        throw new ParleyError('unauthenticated', "The services' token is not accepted at the gateway: use an API key or a JWT", {
          path: 'headers.authorization',
          rule: 'service_token',
        });
      }
      return principal;
    } catch (e) {
      const err = toParleyError(e);
      if (err.type !== 'unauthenticated') throw e;
      metrics?.authFailure(face, credentialLabel(authorization), err.rule);
      refused(face, err.type, started);
      // RFC 6750 §3: error="invalid_token" when a credential was presented.
      const challenge = authorization ? 'Bearer realm="parley", error="invalid_token"' : 'Bearer realm="parley"';
      // The body is not read: drop it and close the connection after the answer.
      req.resume();
      res.setHeader('connection', 'close');
      send(res, 401, errorResponse(null, err), { 'www-authenticate': challenge });
      return undefined;
    }
  };

  /** The largest batch that can ever pass: MAX_BATCH, or the rate limit's burst when smaller. */
  const batchLimit = Math.min(maxBatch, limit?.burst ?? Number.POSITIVE_INFINITY);
  /** Refuses a batch (JSON-RPC, or an MCP array of tools/call) larger than batchLimit: typed, not retryable, no Retry-After. */
  const batchTooLarge = (res: ServerResponse, size: number, face: 'rpc' | 'mcp'): void => {
    refused(face, 'batch_too_large', performance.now());
    const byBurst = limit !== undefined && limit.burst < maxBatch;
    send(
      res,
      413,
      errorResponse(null, new ParleyError('batch_too_large', `A batch may hold at most ${batchLimit} requests (${byBurst ? 'the rate limit\'s burst' : 'MAX_BATCH'}); this one holds ${size}: split it`, {
        path: 'body',
        rule: byBurst ? 'rate_limit_burst' : 'max_batch',
        details: { max_batch: batchLimit, size },
      })),
    );
  };

  // Requests in flight per principal (maxInFlightPerPrincipal): counted before a body is read.
  const maxInFlight = opts.maxInFlightPerPrincipal ?? 32;
  const inFlight = new Map<string, number>();
  /** Admits one more request of the principal until the response closes; past the bound answers 429 and returns false. */
  const admit = (principal: Principal, req: IncomingMessage, res: ServerResponse, face: 'rpc' | 'mcp' | 'a2a'): boolean => {
    if (maxInFlight <= 0) return true;
    const n = inFlight.get(principal.id) ?? 0;
    if (n >= maxInFlight) {
      metrics?.rateLimited(principal.roles);
      refused(face, 'rate_limited', performance.now());
      // The body is never read: the connection closes after the answer.
      res.setHeader('connection', 'close');
      send(
        res,
        429,
        errorResponse(null, new ParleyError('rate_limited', `${principal.id} already has ${n} requests in progress (at most ${maxInFlight} at once); retry when one has answered`, {
          path: 'headers.authorization',
          rule: 'concurrency',
          details: { max_in_flight: maxInFlight, retry_after_ms: 1000 },
        })),
        { 'retry-after': '1' },
      );
      return false;
    }
    inFlight.set(principal.id, n + 1);
    res.once('close', () => {
      const left = (inFlight.get(principal.id) ?? 1) - 1;
      if (left <= 0) inFlight.delete(principal.id);
      else inFlight.set(principal.id, left);
    });
    return true;
  };

  /** Charges `cost` requests to the principal's rate limit; over it answers 429 (413 batch_too_large when it can never fit) and returns false. */
  const charge = (principal: Principal, res: ServerResponse, cost: number, face: 'rpc' | 'mcp' | 'a2a' = 'rpc'): boolean => {
    const decision = limit?.take(principal.id, cost);
    if (!decision || decision.ok) return true;
    if (decision.never) {
      batchTooLarge(res, cost, face === 'a2a' ? 'rpc' : face);
      return false;
    }
    metrics?.rateLimited(principal.roles);
    refused(face, 'rate_limited', performance.now());
    // Refused before its body is read (or after, for a batch's members): the connection closes after the answer.
    res.setHeader('connection', 'close');
    send(
      res,
      429,
      errorResponse(null, new ParleyError('rate_limited', `Rate limit exceeded for ${principal.id}; retry in ${decision.retryAfterMs} ms`, {
        path: 'headers.authorization',
        rule: 'rate_limit',
        details: { retry_after_ms: decision.retryAfterMs },
      })),
      { 'retry-after': String(Math.ceil(decision.retryAfterMs / 1000)) },
    );
    return false;
  };

  /**
   * The gateway's own base URL for agent cards: PUBLIC_URL, else the address this connection
   * reached (the configured bind address and port), never the request's Host header, which
   * a caller chooses (a card must not advertise an endpoint an attacker named).
   */
  const baseUrl = (req: IncomingMessage): string => {
    if (opts.publicUrl) return opts.publicUrl.replace(/\/+$/, '');
    const scheme = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
    const addr = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    const host = addr.includes(':') ? `[${addr}]` : addr;
    return `${scheme}://${host}:${req.socket.localPort ?? 80}`;
  };

  /** Reads and parses a JSON body; on failure answers (413, or `parseStatus` with parse_error) and returns undefined. */
  const readJson = async (req: IncomingMessage, res: ServerResponse, parseStatus: number, face: 'rpc' | 'mcp' | 'a2a' = 'rpc'): Promise<{ value: unknown } | undefined> => {
    const started = performance.now();
    const body = await readBody(req, opts.maxBodyBytes);
    if (body === 'too_large') {
      refused(face, 'body_too_large', started);
      res.setHeader('connection', 'close');
      send(res, 413, errorResponse(null, new ParleyError('body_too_large', `Request body exceeds ${opts.maxBodyBytes} bytes`, {
        path: 'body',
        rule: 'max_bytes',
        details: { max_bytes: opts.maxBodyBytes },
      })));
      return undefined;
    }
    try {
      return { value: JSON.parse(body.toString('utf8')) };
    } catch {
      refused(face, 'parse_error', started);
      send(res, parseStatus, errorResponse(null, new ParleyError('parse_error', 'The request body is not valid JSON', { path: 'body', rule: 'json' })));
      return undefined;
    }
  };

  const handleRpc = async (req: IncomingMessage, res: ServerResponse) => {
    // Who is calling comes first: an anonymous caller's body is never read.
    const principal = await authenticate(req, res);
    if (!principal) return;
    // Bounded and charged before the body is read: one request's worth now, a batch's other members once counted.
    if (!admit(principal, req, res, 'rpc') || !charge(principal, res, 1, 'rpc')) return;
    const read = await readJson(req, res, 200);
    if (!read) return;
    const parsed = read.value;
    if (Array.isArray(parsed)) {
      if (parsed.length === 0) {
        refused('rpc', 'invalid_request', performance.now());
        send(res, 200, errorResponse(null, new ParleyError('invalid_request', 'A batch must hold at least one request', { path: 'body', rule: 'batch_size' })));
        return;
      }
      // The size first: a batch that can never pass is not charged and not advised to wait.
      if (parsed.length > batchLimit) return batchTooLarge(res, parsed.length, 'rpc');
      if (parsed.length > 1 && !charge(principal, res, parsed.length - 1, 'rpc')) return;
    }
    const caller = { principal, backends: asCaller(req.headers.authorization as string) };
    const ctx: RequestContext = { principal, rpcUrl: `${baseUrl(req)}/rpc`, version };
    // A single request's method may add response headers (get_schema_template's Parley-Signature).
    const responseHeaders: Record<string, string> = {};
    // Idempotency-Key (a safe retry of `execute`): one request, one key; a batch would leave it ambiguous.
    const idemHeader = req.headers['idempotency-key'];
    if (idemHeader !== undefined) {
      try {
        if (Array.isArray(parsed)) {
          throw new ParleyError('invalid_request', 'The Idempotency-Key header names one request: send it with a single execute, or put idempotency_key in each member\'s params', {
            path: 'headers.idempotency-key',
            rule: 'single_request',
          });
        }
        ctx.idempotencyKey = parseIdempotencyKey(Array.isArray(idemHeader) ? idemHeader.join(',') : idemHeader, 'headers.idempotency-key');
      } catch (e) {
        send(res, 200, errorResponse(null, e));
        return;
      }
    }
    /** One JSON-RPC request: its span (JSON-RPC semantic conventions) and its metrics, around handleOne. */
    const member = async (r: unknown, mctx: RequestContext): Promise<JsonRpcResponse | undefined> => {
      const started = performance.now();
      const m = rpcMethodOf(r);
      const id = rpcIdOf(r);
      const span = tracer().startSpan(m.known ?? '_OTHER', {
        kind: SpanKind.SERVER,
        attributes: {
          'rpc.system.name': 'jsonrpc',
          'rpc.method': m.known ?? '_OTHER',
          'jsonrpc.protocol.version': '2.0',
          ...(m.known === undefined && m.original !== undefined ? { 'rpc.method_original': m.original } : {}),
          ...(id !== undefined ? { 'jsonrpc.request.id': id } : {}),
        },
      });
      const observed: NonNullable<RequestContext['observed']> = {};
      const out = await context.with(trace.setSpan(context.active(), span), () => handleOne(r, caller.backends, onInternal, onSuccess, { ...mctx, observed }));
      const type = out?.error?.data.type as string | undefined;
      if (out?.error) {
        span.setAttributes({ 'rpc.response.status_code': String(out.error.code), 'error.type': String(out.error.code), 'parley.error.type': type ?? 'internal' });
        span.setStatus({ code: SpanStatusCode.ERROR, message: out.error.message.slice(0, 200) });
      }
      if (observed.scenario) span.setAttribute('parley.scenario', observed.scenario);
      span.end();
      metrics?.request('rpc', m.known ?? (m.original === undefined ? 'invalid' : 'unknown'), observed.scenario, type, (performance.now() - started) / 1000);
      return out;
    };
    if (Array.isArray(parsed)) {
      const out = (await Promise.all(parsed.map((r) => member(r, ctx)))).filter((r): r is JsonRpcResponse => r !== undefined);
      if (out.length === 0) {
        res.writeHead(204).end();
        return;
      }
      send(res, 200, out);
      return;
    }
    const one = await member(parsed, { ...ctx, responseHeaders });
    if (!one) {
      res.writeHead(204).end();
      return;
    }
    const type = one.error?.data.type;
    const status = isErrorType(type) ? ERROR_CATALOGUE[type].http : 200;
    send(res, status, one, status === 401 ? { 'www-authenticate': 'Bearer realm="parley"' } : one.error ? {} : responseHeaders);
  };

  // DNS rebinding (MCP transport, Security warning: servers MUST validate Origin): /mcp answers only requests whose
  // Host, and Origin when sent, name loopback, PUBLIC_URL's host, a host of allowedHosts, or the address the
  // connection reached (an IP literal cannot be rebound).
  const mcpHosts = new Set<string>(['localhost', '127.0.0.1', '[::1]', ...(opts.allowedHosts ?? []).map((h) => h.toLowerCase())]);
  if (opts.publicUrl && URL.canParse(opts.publicUrl)) mcpHosts.add(new URL(opts.publicUrl).hostname.toLowerCase());
  const hostAllowed = (hostname: string, req: IncomingMessage): boolean => {
    if (mcpHosts.has('*') || mcpHosts.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
    const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
    return hostname === (local.includes(':') ? `[${local}]` : local);
  };
  /** The host name of a Host header (no user info, path or spaces), lower-case; undefined when it is not one. */
  const hostnameOf = (authority: string): string | undefined => {
    if (!/^[^/@?#\s\\]+$/.test(authority) || !URL.canParse(`http://${authority}`)) return undefined;
    return new URL(`http://${authority}`).hostname.toLowerCase();
  };
  /** The Host/Origin check of /mcp: undefined when allowed, else the refusal (HTTP 403). */
  const mcpOriginRefusal = (req: IncomingMessage): ParleyError | undefined => {
    const host = hostnameOf(req.headers.host ?? '');
    if (host === undefined || !hostAllowed(host, req)) {
      return new ParleyError('forbidden', `Host "${String(req.headers.host ?? '').slice(0, 100)}" is not one this MCP endpoint answers to (DNS rebinding protection): use a loopback address, PUBLIC_URL's host, or add it to PARLEY_ALLOWED_HOSTS`, {
        path: 'headers.host',
        rule: 'allowed_host',
      });
    }
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    const o = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!o || (o.protocol !== 'http:' && o.protocol !== 'https:') || !hostAllowed(o.hostname.toLowerCase(), req)) {
      return new ParleyError('forbidden', `Origin "${origin.slice(0, 100)}" may not call this MCP endpoint (DNS rebinding protection): allowed are loopback, PUBLIC_URL's host and PARLEY_ALLOWED_HOSTS`, {
        path: 'headers.origin',
        rule: 'allowed_origin',
      });
    }
    return undefined;
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse) => {
    const foreign = mcpOriginRefusal(req);
    if (foreign) {
      refused('mcp', 'forbidden', performance.now());
      res.setHeader('connection', 'close');
      send(res, 403, errorResponse(null, foreign));
      return;
    }
    if (req.method !== 'POST') {
      // Stateless MCP (see mcp.ts): no standalone SSE stream (GET) and no session to end (DELETE).
      notAllowed(res, 'POST', 'This MCP endpoint is stateless: POST JSON-RPC messages; GET (SSE stream) and DELETE (session end) are not offered');
      return;
    }
    // MCP's transport answers malformed JSON with HTTP 400 (the SDK does the same).
    const principal = await authenticate(req, res, 'mcp');
    if (!principal) return;
    if (!admit(principal, req, res, 'mcp') || !charge(principal, res, 1, 'mcp')) return;
    const read = await readJson(req, res, 400, 'mcp');
    if (!read) return;
    // A JSON array of messages: its size is checked first, then every tools/call in it is charged (the first is paid for).
    if (Array.isArray(read.value)) {
      if (read.value.length > batchLimit) return batchTooLarge(res, read.value.length, 'mcp');
      const calls = read.value.filter((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call').length;
      if (calls > 1 && !charge(principal, res, calls - 1, 'mcp')) return;
    }
    // Malformed tools/call or tools/list, or a string the edge refuses: Parley's typed -32602 before the SDK parses it.
    const malformed = refuseMalformedMcp(read.value);
    if (malformed !== undefined) {
      refused('mcp', 'invalid_params', performance.now());
      send(res, 200, malformed);
      return;
    }
    const caller = { principal, backends: asCaller(req.headers.authorization as string) };
    // A face per request: its tools/call runs as the caller; the tool catalogue is shared.
    const mcp = createMcpFace({
      catalog,
      execution: caller.backends.execution,
      log: opts.log,
      version,
      schemas,
      ...(opts.embedder ? { embedder: opts.embedder } : {}),
      ...(metrics ? { observe: (method: string, scenario: string | undefined, type: string | undefined, seconds: number) => metrics.request('mcp', method, scenario, type, seconds) } : {}),
      protocolVersion: typeof req.headers['mcp-protocol-version'] === 'string' ? req.headers['mcp-protocol-version'].slice(0, 32) : undefined,
    });
    // tools/list and tools/call are observed in mcp.ts (spans and metrics); what the SDK answers itself here.
    const started = performance.now();
    await mcp.handlePost(req, res, read.value);
    if (metrics) {
      for (const msg of Array.isArray(read.value) ? read.value : [read.value]) {
        const method = typeof msg === 'object' && msg !== null ? (msg as { method?: unknown }).method : undefined;
        if (method === 'tools/list' || method === 'tools/call') continue;
        metrics.request('mcp', mcpMethodLabel(method), undefined, undefined, (performance.now() - started) / 1000);
      }
    }
  };

  /** /a2a, /a2a/<agent> and their agent cards; false when the path is not one of them. */
  const handleA2a = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> => {
    const isCard = path.endsWith(AGENT_CARD);
    // "/a2a/<agent>/" is the agent's base URL as a client writes it (the A2A SDK
    // resolves ".well-known/agent-card.json" against it), so it names the endpoint too.
    const rest = (isCard ? path.slice(0, -AGENT_CARD.length) : path).replace(/(.)\/$/, '$1');
    let agent: string | undefined;
    if (rest === '' && isCard) agent = undefined;
    else if (rest === '/a2a' && !isCard) agent = undefined;
    else if (rest.startsWith('/a2a/') && rest.length > 5) {
      agent = rest.slice(5);
      if (!A2A_AGENT_PATH_PATTERN.test(agent)) {
        send(res, 404, errorResponse(null, new ParleyError('agent_not_found', `No agent named "${agent.slice(0, 64)}"`, { path: 'url', rule: 'agent_name' })));
        return true;
      }
    } else return false;

    if (isCard) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        notAllowed(res, 'GET', 'Agent cards are read with GET');
        return true;
      }
      const cardOpts = { baseUrl: baseUrl(req), version };
      const entries = await catalog.entries();
      if (agent === undefined) {
        sendCard(req, res, gatewayCard(entries, cardOpts), cardOpts.baseUrl);
        return true;
      }
      // An AN agent profile (draft 004 §5.1) shows on the card, merged with the registered agent (a2a.ts).
      const a = await resolveAgentCard(agent, { catalog, profiles: opts.backends.profiles }, cardOpts);
      if (!a) {
        send(res, 404, errorResponse(null, new ParleyError('agent_not_found', `No agent named "${agent}" is registered`, { path: 'url', rule: 'exists' })));
        return true;
      }
      sendCard(req, res, a as ParleyAgentCardJson, cardOpts.baseUrl);
      return true;
    }
    if (req.method !== 'POST') {
      notAllowed(res, 'POST', 'The A2A JSON-RPC endpoint takes POST');
      return true;
    }
    const principal = await authenticate(req, res, 'a2a');
    if (!principal) return true;
    if (!admit(principal, req, res, 'a2a') || !charge(principal, res, 1, 'a2a')) return true;
    const read = await readJson(req, res, 200, 'a2a');
    if (!read) return true;
    const caller = { principal, backends: asCaller(req.headers.authorization as string) };
    const a2a = createA2aFace({ catalog, execution: caller.backends.execution, log: opts.log });
    const started = performance.now();
    const raw = (read.value as { method?: unknown } | null)?.method;
    const method = typeof raw === 'string' && A2A_METHODS.has(raw) ? raw : undefined;
    const id = rpcIdOf(read.value);
    const span = tracer().startSpan(method ?? '_OTHER', {
      kind: SpanKind.SERVER,
      attributes: { 'rpc.system.name': 'jsonrpc', 'rpc.method': method ?? '_OTHER', 'jsonrpc.protocol.version': '2.0', ...(id !== undefined ? { 'jsonrpc.request.id': id } : {}) },
    });
    const reply = await context.with(trace.setSpan(context.active(), span), () => a2a.handle(read.value, agent));
    const body = reply.body as { error?: { code?: number; message?: string; data?: { type?: string } }; result?: { metadata?: { scenario_id?: unknown }; message?: { metadata?: { scenario_id?: unknown } } } } | undefined;
    const type = body?.error ? (body.error.data?.type ?? 'internal') : undefined;
    const sc = body?.result?.metadata?.scenario_id ?? body?.result?.message?.metadata?.scenario_id;
    if (body?.error) {
      span.setAttributes({ 'rpc.response.status_code': String(body.error.code), 'error.type': String(body.error.code), 'parley.error.type': type ?? 'internal' });
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(body.error.message ?? '').slice(0, 200) });
    }
    span.end();
    metrics?.request('a2a', method ?? 'other', typeof sc === 'string' ? sc : undefined, type, (performance.now() - started) / 1000);
    send(res, reply.status, reply.body);
    return true;
  };

  const timeouts = opts.timeouts ?? { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 65_000 };
  // Slow clients: Node checks these every connectionsCheckingInterval, so a stalled upload is cut within about a second of its limit.
  const server = createServer({ requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, keepAliveTimeout: timeouts.keepAliveMs, connectionsCheckingInterval: 1000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const route = tracedRoute(req.method, path);
    if (route !== undefined) {
      // The caller's W3C traceparent, if it sent one, is the parent of the whole request.
      const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
      const span = tracer().startSpan(`POST ${route}`, {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': 'POST', 'http.route': route, 'url.path': route === '/a2a/{agent}' ? '/a2a/{agent}' : path, 'url.scheme': 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http', 'network.protocol.version': req.httpVersion },
      }, parent);
      res.once('close', () => endHttpSpan(span, res.statusCode, res.writableFinished));
      context.with(trace.setSpan(parent, span), () => serve(req, res, path));
      return;
    }
    serve(req, res, path);
  });
  return server;

  function serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const run = async () => {
      if (path === '/metrics' && req.method === 'GET' && metrics) {
        await handleMetrics(metrics, res);
        return;
      }
      if (await serveConsole(req, res, path)) return;
      if (path === '/rpc') {
        if (req.method !== 'POST') {
          res.setHeader('allow', 'POST');
          send(res, 405, errorResponse(null, new ParleyError('invalid_request', 'Use POST for JSON-RPC', { path: 'method', rule: 'http_post' })));
          return;
        }
        await handleRpc(req, res);
        return;
      }
      if (path === '/mcp') {
        await handleMcp(req, res);
        return;
      }
      if (path === OPENRPC_PATH) {
        // The OpenRPC document of POST /rpc (openrpc.ts; the same as rpc.discover), public like the agent card.
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          notAllowed(res, 'GET', 'The OpenRPC document is read with GET');
          return;
        }
        const { text } = openRpcDocument(version, `${baseUrl(req)}/rpc`);
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'public, max-age=300' });
        res.end(req.method === 'HEAD' ? undefined : text);
        return;
      }
      if (path === JWKS_PATH) {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          notAllowed(res, 'GET', 'The JWKS is read with GET');
          return;
        }
        const body = await jwksBody();
        res.writeHead(200, {
          'content-type': 'application/jwk-set+json',
          'content-length': String(Buffer.byteLength(body)),
          'cache-control': `public, max-age=${JWKS_TTL_MS / 1000}`,
        });
        res.end(body);
        return;
      }
      if (await handleA2a(req, res, path)) return;
      if (req.method === 'GET' && (path.startsWith('/schemas/') || path.startsWith('/s/'))) {
        // chang §3.1: content-addressed, so immutable: cache for a year. `/s/<8 base64url>` is the
        // short address tools/list uses; `/schemas/sha256-<hex>.json` the full one.
        const doc = schemas.get(path.slice(1));
        if (doc === undefined) {
          send(res, 404, { error: 'unknown schema document; list the tools again with _meta.refs "shared"' });
          return;
        }
        res.writeHead(200, {
          'content-type': 'application/schema+json',
          'content-length': String(Buffer.byteLength(doc.text)),
          'cache-control': 'public, max-age=31536000, immutable',
          etag: `"sha256-${doc.sha256}"`,
        });
        res.end(doc.text);
        return;
      }
      if (req.method === 'GET' && (await handleHealth(opts.health, path, res))) return;
      send(res, 404, { error: 'not found', endpoints: ENDPOINTS });
    };
    run().catch((e: unknown) => {
      const known = toParleyError(e);
      const err = known.type === 'internal' ? internalFailure(e, opts.log, { path }) : known;
      if (err.type !== 'internal') opts.log.warn('request failed', { path, type: err.type, rule: err.rule });
      // e.g. an agent card while the registry is down: 503 tells a client to come back.
      if (!res.headersSent) send(res, err.type === 'unavailable' ? 503 : 500, errorResponse(null, err));
      else res.destroy();
    });
  }
}

function endHttpSpan(span: Span, status: number, finished: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || !finished) {
    span.setAttribute('error.type', finished ? String(status) : 'connection_closed');
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** An MCP method as a label: the ones an MCP client sends Parley, else `other`. */
function mcpMethodLabel(m: unknown): string {
  const known = ['initialize', 'ping', 'notifications/initialized', 'notifications/cancelled', 'tools/list', 'tools/call', 'prompts/list', 'resources/list', 'resources/templates/list', 'logging/setLevel', 'completion/complete'];
  return typeof m === 'string' && known.includes(m) ? m : typeof m === 'string' && m.startsWith('notifications/') ? 'notifications/other' : 'other';
}

/**
 * Reads the body up to `limit` bytes. A declared Content-Length over the limit is refused before
 * a byte is read; a body that passes it while streaming is refused at that moment: reading stops,
 * what was read is dropped, and the caller answers 413 and closes the connection (the rest of the
 * upload is never read). A known length is read into one buffer of that size (no second copy).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large');
  return new Promise((resolve, reject) => {
    const fixed = Number.isInteger(declared) && declared >= 0 ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Buffer | 'too_large') => {
      done = true;
      req.off('data', onData);
      resolve(v);
    };
    const onData = (c: Buffer) => {
      if (done) return;
      if (size + c.length > limit || (fixed && size + c.length > fixed.length)) {
        req.pause();
        finish('too_large');
        return;
      }
      if (fixed) c.copy(fixed, size);
      else chunks.push(c);
      size += c.length;
    };
    req.on('data', onData);
    req.on('end', () => {
      if (!done) finish(fixed ? fixed.subarray(0, size) : Buffer.concat(chunks, size));
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        reject(e);
      }
    });
  });
}
