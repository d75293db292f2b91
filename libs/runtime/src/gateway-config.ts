import { ConfigError, envInt, envOptional, type Env } from './config';
import { tlsFromEnv, type TlsMaterial } from './tls';

/**
 * The gateway's HTTP settings, read by ONE function for both the separate
 * gateway (apps/gateway main.ts) and `npm start` (apps/parley main.ts), so the
 * two cannot drift:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | MAX_BODY_BYTES | 1048576 | largest request body; reading stops (HTTP 413) as soon as it is passed |
 * | MAX_BATCH | 100 | largest JSON-RPC batch (and MCP JSON array of tools/call) |
 * | RATE_LIMIT_PER_SECOND | 50 | requests per second per principal (a batch member counts one); 0 turns the limit off |
 * | RATE_LIMIT_BURST | 100 | bucket size per principal |
 * | PARLEY_MAX_INFLIGHT_PER_PRINCIPAL | 32 | requests of one principal being served at once (counted before the body is read); 0 off |
 * | PARLEY_HTTP_REQUEST_TIMEOUT_MS | 30000 | time a client has to send a whole request (Node's requestTimeout) |
 * | PARLEY_HTTP_HEADERS_TIMEOUT_MS | 10000 | time a client has to send the headers (headersTimeout) |
 * | PARLEY_HTTP_KEEPALIVE_TIMEOUT_MS | 65000 | idle keep-alive connection lifetime (keepAliveTimeout) |
 * | PARLEY_TLS_CERT / _KEY / _CA | none | HTTPS (all three or none; the same files the services use for gRPC) |
 * | PUBLIC_URL | none | the URL clients reach the gateway at (agent cards; its host is allowed at /mcp) |
 * | PARLEY_ALLOWED_HOSTS | none | further Host names /mcp accepts besides loopback and PUBLIC_URL's (comma list; `*` any) |
 */
export interface GatewayHttpConfig {
  maxBodyBytes: number;
  maxBatch: number;
  rateLimit: { ratePerSecond: number; burst: number } | null;
  maxInFlightPerPrincipal: number;
  timeouts: { requestMs: number; headersMs: number; keepAliveMs: number };
  tls: TlsMaterial | null;
  publicUrl?: string;
  allowedHosts: string[];
}

export function gatewayHttpFromEnv(env: Env): GatewayHttpConfig {
  const ratePerSecond = envInt(env, 'RATE_LIMIT_PER_SECOND', 50, { min: 0 });
  const burst = envInt(env, 'RATE_LIMIT_BURST', 100, { min: 1 });
  const requestMs = envInt(env, 'PARLEY_HTTP_REQUEST_TIMEOUT_MS', 30_000, { min: 1000 });
  const headersMs = envInt(env, 'PARLEY_HTTP_HEADERS_TIMEOUT_MS', 10_000, { min: 1000 });
  if (headersMs > requestMs) throw new ConfigError(`PARLEY_HTTP_HEADERS_TIMEOUT_MS (${headersMs}) must not exceed PARLEY_HTTP_REQUEST_TIMEOUT_MS (${requestMs})`);
  const publicUrl = envOptional(env, 'PUBLIC_URL');
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) throw new ConfigError(`PUBLIC_URL must be an absolute URL (got "${publicUrl}")`);
  const allowedHosts = (envOptional(env, 'PARLEY_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return {
    maxBodyBytes: envInt(env, 'MAX_BODY_BYTES', 1024 * 1024, { min: 1024 }),
    maxBatch: envInt(env, 'MAX_BATCH', 100, { min: 1, max: 10_000 }),
    rateLimit: ratePerSecond > 0 ? { ratePerSecond, burst } : null,
    maxInFlightPerPrincipal: envInt(env, 'PARLEY_MAX_INFLIGHT_PER_PRINCIPAL', 32, { min: 0 }),
    timeouts: { requestMs, headersMs, keepAliveMs: envInt(env, 'PARLEY_HTTP_KEEPALIVE_TIMEOUT_MS', 65_000, { min: 1000 }) },
    tls: tlsFromEnv(env),
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    allowedHosts,
  };
}
