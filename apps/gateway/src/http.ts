import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { UsageStore, type TextEmbedder } from '@parley/adol';
import type { Authenticator } from '@parley/auth';
import { toParleyError } from '@parley/protocol';
import { createKeyRing, handleHealth, handleMetrics, systemClock, type Clock, type HealthState, type Logger, type Metrics } from '@parley/runtime';
import type { CardSigner } from './a2a-card-versions';
import { ToolCatalog } from './catalog';
import { consoleHandler } from './console';
import { internalFailure } from './errors';
import { AGENT_CARD, createA2aRoute } from './http-a2a';
import { createAccess } from './http-access';
import { JWKS_PATH, createDocumentRoute } from './http-documents';
import { notAllowed, send } from './http-io';
import { createMcpRoute } from './http-mcp';
import { createRpcRoute } from './http-rpc';
import { withHttpSpan } from './http-tracing';
import { OPENRPC_PATH } from './openrpc';
import { errorResponse, type Backends, type MethodName } from './rpc';
import { SchemaStore } from './schema-store';

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
  /**
   * chang §3.4, selection that learns from use: opt-in sharing; an example serves every client once this many distinct
   * principals recorded it (UsageStore `sharedClients`, at least 2). Unset: each principal's examples serve it only.
   */
  learningSharedClients?: number;
  /** The usage store itself (tests); default one per gateway process, with `learningSharedClients`. */
  usage?: UsageStore;
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

/** Methods after which the MCP/A2A catalogue is rebuilt: they change agents or schemas. */
const CATALOG_WRITES: ReadonlySet<MethodName> = new Set<MethodName>(['register_agent', 'publish_schema', 'unregister_agent', 'retire_schema']);
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

/**
 * The wiring: access (http-access.ts) and the shared tool catalogue and schema store, the routes
 * per face (http-rpc.ts, http-mcp.ts, http-a2a.ts) and the public documents (http-documents.ts),
 * each request in its span (http-tracing.ts); a failure no route answered is a typed 500 (503 when
 * a service is unavailable).
 */
export function createGatewayServer(opts: GatewayHttpOptions): Server {
  const version = opts.version ?? '0.1.0';
  const { log, metrics, backends, publicUrl } = opts;
  const catalog = new ToolCatalog(backends, { ttlMs: opts.catalogTtlMs ?? 5000, log, ...(opts.toolExamples ? { examples: opts.toolExamples } : {}) });
  // The gateway's own writes are seen at once; other replicas' within the TTL.
  const onSuccess = (method: MethodName) => {
    if (CATALOG_WRITES.has(method)) catalog.invalidate();
  };
  const schemas = new SchemaStore();
  const clock = opts.clock ?? systemClock;
  // A2A card signatures (a2a-card-versions.ts): the configured key, else one generated at start; published in the JWKS.
  const cardSigner: CardSigner = opts.cardSigner ?? createKeyRing();
  const access = createAccess({
    authenticator: opts.authenticator,
    maxBodyBytes: opts.maxBodyBytes,
    clock,
    ...(opts.maxBatch !== undefined ? { maxBatch: opts.maxBatch } : {}),
    ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
    ...(opts.maxInFlightPerPrincipal !== undefined ? { maxInFlightPerPrincipal: opts.maxInFlightPerPrincipal } : {}),
    ...(metrics ? { metrics } : {}),
  });
  const shared = { access, backends, log, version, ...(publicUrl !== undefined ? { publicUrl } : {}), ...(metrics ? { metrics } : {}) };
  const rpc = createRpcRoute({ ...shared, onSuccess });
  // chang §3.4, selection that learns from use: one store per gateway process (bounded; usage.ts).
  const usage = opts.usage ?? new UsageStore({ now: () => clock.now().getTime(), ...(opts.learningSharedClients !== undefined ? { sharedClients: opts.learningSharedClients } : {}) });
  const mcp = createMcpRoute({ ...shared, catalog, schemas, usage, ...(opts.embedder ? { embedder: opts.embedder } : {}), ...(opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}) });
  const a2a = createA2aRoute({ ...shared, catalog, cardSigner });
  const documents = createDocumentRoute({ negotiation: backends.negotiation, cardSigner, schemas, clock, log, version, ...(publicUrl !== undefined ? { publicUrl } : {}) });
  // The operator console (console.ts): static assets, the page calls /rpc with the operator's credential.
  const serveConsole = consoleHandler();

  const route = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path === '/metrics' && req.method === 'GET' && metrics) return handleMetrics(metrics, res);
    if (await serveConsole(req, res, path)) return;
    if (path === '/rpc') return req.method === 'POST' ? rpc(req, res) : notAllowed(res, 'POST', 'Use POST for JSON-RPC');
    if (path === '/mcp') return mcp(req, res);
    if (await documents(req, res, path)) return;
    if (await a2a(req, res, path)) return;
    if (req.method === 'GET' && (await handleHealth(opts.health, path, res))) return;
    send(res, 404, { error: 'not found', endpoints: ENDPOINTS });
  };

  const timeouts = opts.timeouts ?? { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 65_000 };
  // Slow clients: Node checks these every connectionsCheckingInterval, so a stalled upload is cut within about a second of its limit.
  return createServer({ requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, keepAliveTimeout: timeouts.keepAliveMs, connectionsCheckingInterval: 1000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    withHttpSpan(req, res, path, () => {
      route(req, res, path).catch((e: unknown) => {
        const known = toParleyError(e);
        const err = known.type === 'internal' ? internalFailure(e, log, { path }) : known;
        if (err.type !== 'internal') log.warn('request failed', { path, type: err.type, rule: err.rule });
        // e.g. an agent card while the registry is down: 503 tells a client to come back.
        if (!res.headersSent) send(res, err.type === 'unavailable' ? 503 : 500, errorResponse(null, err));
        else res.destroy();
      });
    });
  });
}
