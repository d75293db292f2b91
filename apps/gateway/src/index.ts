import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TextEmbedder } from '@parley/adol';
import type { Authenticator } from '@parley/auth';
import type { Clock, HealthState, Logger, Metrics } from '@parley/runtime';
import { createGatewayServer } from './http';
import type { Backends } from './rpc';
import type { CardSigner } from './a2a-card-versions';

export { METHODS, errorResponse, handleOne, type Backends, type Handler, type RequestContext } from './rpc';
export { API_KEY_METHODS, OPERATOR_METHODS } from './operator';
export { createGatewayServer, type GatewayHttpOptions } from './http';
export { deriveTool, toolName, type ToolSource } from './mcp-tools';
export { SCHEMA_NEGOTIATION_EXTENSION_URI, agentCard, gatewayCard } from './a2a-card';
export { A2A_CARD_VERSIONS, cardSigningPayload, signCard, toV03Card, type A2aCardVersion, type CardSigner } from './a2a-card-versions';
export { OPENRPC_PATH, openRpcDocument } from './openrpc';

export interface GatewayDeps {
  backends: Backends;
  health: HealthState;
  log: Logger;
  host?: string;
  port: number;
  maxBodyBytes: number;
  /** MCP/A2A tool catalogue cache lifetime (default 5000 ms). */
  catalogTtlMs?: number;
  /** Absolute URL the gateway is reached at, for agent cards (default: from the Host header). */
  publicUrl?: string;
  /** Embedder for semantic MCP tool selection (chang §3.4); default BM25 only. */
  embedder?: TextEmbedder;
  /** Example requests per tool name an operator attached (MCP_TOOL_EXAMPLES_FILE), for selection only. */
  toolExamples?: ReadonlyMap<string, readonly string[]>;
  /** Authenticates every caller (issue 6). */
  authenticator: Authenticator;
  /** Per-principal requests per second and burst (default 50/s, burst 100); null: no limit. */
  rateLimit?: { ratePerSecond: number; burst: number } | null;
  clock?: Clock;
  /** Serve HTTPS with this certificate (PEM; draft-zhou §7); default plain HTTP. Set publicUrl to the https:// address for agent cards. */
  tls?: { cert: Buffer | string; key: Buffer | string; ca?: Buffer | string } | null;
  /** Prometheus metrics, served at GET /metrics (libs/runtime metrics.ts). */
  metrics?: Metrics;
  /** Signs the A2A agent cards (a2a-card-versions.ts); default: a key generated at start. */
  cardSigner?: CardSigner;
}

export interface RunningGateway {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startGateway(deps: GatewayDeps): Promise<RunningGateway> {
  const plain = createGatewayServer({
    backends: deps.backends,
    health: deps.health,
    log: deps.log,
    maxBodyBytes: deps.maxBodyBytes,
    ...(deps.catalogTtlMs !== undefined ? { catalogTtlMs: deps.catalogTtlMs } : {}),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
    ...(deps.toolExamples ? { toolExamples: deps.toolExamples } : {}),
    authenticator: deps.authenticator,
    ...(deps.rateLimit !== undefined ? { rateLimit: deps.rateLimit } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.cardSigner ? { cardSigner: deps.cardSigner } : {}),
  });
  // HTTPS: the same request handler on a TLS server (client certificates are not requested).
  const server = deps.tls ? createHttpsServer({ cert: deps.tls.cert, key: deps.tls.key, ...(deps.tls.ca ? { ca: deps.tls.ca } : {}) }) : plain;
  if (server !== plain) for (const l of plain.listeners('request')) server.on('request', l as (...args: unknown[]) => void);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  deps.log.info('gateway listening', {
    port,
    tls: deps.tls ? 'https' : 'off (plain http)',
    max_body_bytes: deps.maxBodyBytes,
    rate_limit: deps.rateLimit === null ? 'off' : deps.rateLimit ?? { ratePerSecond: 50, burst: 100 },
    semantic_pool: deps.backends.pool ? 'configured' : 'absent',
    evolution: deps.backends.evolution ? 'configured' : 'absent',
  });
  return {
    port,
    url: `${deps.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        deps.health.shuttingDown = true;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
