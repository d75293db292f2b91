import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  bearerCredential,
  createJwtVerifier,
  isRole,
  parseApiKey,
  parseJwtIssuers,
  type Authenticator,
  type JwtVerifier,
  type Principal,
} from '@parley/auth';
import { ApiKeyServiceService, createGrpcClient, type ApiKeyApi } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import type { Clock } from './clock';
import { ConfigError, envInt, envOptional, envString } from './config';
import type { TlsMaterial } from './tls';

/**
 * The one authenticator every face of Parley uses (draft-zhou §7, authentication and authorization):
 * the gateway for JSON-RPC, MCP and A2A, and every gRPC binding. It accepts a
 * Bearer credential of one of three kinds:
 * - the services' shared token (PARLEY_SERVICE_TOKEN): the `service` principal,
 *   for Parley's own calls between its services;
 * - an API key `pk_<key_id>_<secret>`, looked up in the registry (`apiKeys`);
 * - a JWT from one of the configured issuers (PARLEY_JWT_ISSUERS).
 * A key or token issued for another tenant is refused. A verified credential is
 * trusted for `cacheMs` (and never past its own expiry) without asking again;
 * a revoked key therefore stops working within `cacheMs`. Failures are never
 * cached. Every answer to a bad credential is `unauthenticated` naming the rule.
 */
export interface AuthenticatorOptions {
  /** This deployment's tenant (PARLEY_TENANT, default `default`). */
  tenant: string;
  clock: Clock;
  /** The services' shared credential; at least 32 characters. */
  serviceToken?: string;
  /** The principal of an API key: the registry's store, or `apiKeysViaRegistry`. */
  apiKeys?: (key: string) => Promise<Principal>;
  jwt?: JwtVerifier;
  /** Default 2000 ms; 0 asks every time. */
  cacheMs?: number;
  /** Default 10,000 entries (the oldest go first). */
  maxCacheEntries?: number;
}

export const MIN_SERVICE_TOKEN_LENGTH = 32;
export const SERVICE_PRINCIPAL_ID = 'parley-service';

/** Node's one-shot digest (Node ≥ 20.12; engines allow 20.11, which falls back to a Hash object): every call of every service hashes its bearer. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;
const sha256 = (s: string): Buffer => (oneShot ? oneShot('sha256', s, 'buffer') : createHash('sha256').update(s, 'utf8').digest());

const unauthenticated = (message: string, rule: string) => new ParleyError('unauthenticated', message, { path: 'headers.authorization', rule });

export function createAuthenticator(opts: AuthenticatorOptions): Authenticator {
  if (opts.serviceToken !== undefined && opts.serviceToken.length < MIN_SERVICE_TOKEN_LENGTH) {
    throw new Error(`the service token must be at least ${MIN_SERVICE_TOKEN_LENGTH} characters`);
  }
  const serviceDigest = opts.serviceToken !== undefined ? sha256(opts.serviceToken) : undefined;
  const servicePrincipal: Principal = {
    id: SERVICE_PRINCIPAL_ID,
    tenant: opts.tenant,
    roles: ['service'],
    agents: ['*'],
    scenarios: ['*'],
    via: 'api_key',
    credential_id: 'service-token',
  };
  const cacheMs = opts.cacheMs ?? 2000;
  const maxEntries = opts.maxCacheEntries ?? 10_000;
  // Keyed by the credential's digest: the cache holds no secrets.
  const cache = new Map<string, { principal: Principal; until: number }>();

  const remember = (digest: string, principal: Principal, now: number) => {
    if (cacheMs <= 0) return;
    const until = Math.min(now + cacheMs, principal.expires_at ?? Infinity);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(digest, { principal, until });
  };

  return {
    async authenticate(authorization) {
      if (authorization === undefined || authorization.trim() === '') {
        throw unauthenticated('This call needs credentials: send "Authorization: Bearer <API key or token>"', 'credentials_required');
      }
      const credential = bearerCredential(authorization);
      if (credential === undefined) throw unauthenticated('Only the Bearer scheme is accepted (RFC 6750)', 'bearer_scheme');
      const digest = sha256(credential);
      if (serviceDigest && timingSafeEqual(digest, serviceDigest)) return servicePrincipal;
      const now = opts.clock.now().getTime();
      const key = digest.toString('hex');
      const hit = cache.get(key);
      if (hit && hit.until > now) return hit.principal;
      if (hit) cache.delete(key);

      let principal: Principal;
      if (parseApiKey(credential)) {
        if (!opts.apiKeys) throw unauthenticated('API keys are not accepted here', 'api_key');
        principal = await opts.apiKeys(credential);
      } else if (opts.jwt?.looksLikeJwt(credential)) {
        principal = await opts.jwt.verify(credential);
      } else {
        throw unauthenticated('The credential is neither an API key (pk_…) nor a JWT from a configured issuer', 'credential_format');
      }
      if (principal.tenant !== opts.tenant) throw unauthenticated('The credential was issued for another tenant', 'tenant');
      remember(key, principal, now);
      return principal;
    },
  };
}

/** API keys looked up through the registry's ApiKeyService (the caller's client carries the service token). */
export function apiKeysViaRegistry(api: ApiKeyApi): (key: string) => Promise<Principal> {
  return async (key) => {
    const r = await api.authenticate({ key });
    const p = r.principal;
    if (!p) throw unauthenticated('The API key is not valid: it is unknown, revoked or expired', 'api_key');
    return {
      id: p.id,
      tenant: p.tenant,
      roles: p.roles.filter(isRole),
      agents: p.agents,
      scenarios: p.scenarios,
      via: 'api_key',
      ...(p.credential_id ? { credential_id: p.credential_id } : {}),
      ...(p.expires_at ? { expires_at: p.expires_at } : {}),
    };
  };
}

/** What a service reads from its env for authentication. */
export interface AuthEnv {
  tenant: string;
  serviceToken: string;
  jwt?: JwtVerifier;
  cacheMs: number;
}

/**
 * PARLEY_TENANT (default `default`), PARLEY_SERVICE_TOKEN (required: the
 * services' shared credential, at least 32 characters, e.g. `openssl rand -hex
 * 32`), PARLEY_JWT_ISSUERS (optional JSON array of issuers, libs/auth jwt.ts),
 * PARLEY_AUTH_CACHE_MS (default 2000).
 */
export function authFromEnv(env: NodeJS.ProcessEnv, clock: Clock): AuthEnv {
  const tenant = envString(env, 'PARLEY_TENANT', 'default');
  const serviceToken = envOptional(env, 'PARLEY_SERVICE_TOKEN');
  if (serviceToken === undefined || serviceToken.length < MIN_SERVICE_TOKEN_LENGTH) {
    throw new ConfigError(
      `PARLEY_SERVICE_TOKEN must be set to the services' shared credential, at least ${MIN_SERVICE_TOKEN_LENGTH} characters (e.g. \`openssl rand -hex 32\`)`,
    );
  }
  const issuersJson = envOptional(env, 'PARLEY_JWT_ISSUERS');
  let jwt: JwtVerifier | undefined;
  if (issuersJson !== undefined) {
    let issuers;
    try {
      issuers = parseJwtIssuers(issuersJson);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
    jwt = createJwtVerifier({ issuers, tenant, clock, fetchJwks });
  }
  return { tenant, serviceToken, ...(jwt ? { jwt } : {}), cacheMs: envInt(env, 'PARLEY_AUTH_CACHE_MS', 2000, { min: 0 }) };
}

/** A JWKS document over HTTPS (or HTTP for a local issuer), with a 5 s timeout: the issuers' `jwks_uri` fetch. */
export async function fetchJwks(uri: string): Promise<unknown> {
  const res = await fetch(uri, { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${uri}: HTTP ${res.status}`);
  return res.json();
}

/** A fresh random service token (the embedded mode makes one per process). */
export function generateServiceToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A service's authenticator from its env (authFromEnv): API keys are looked up
 * at the registry (REGISTRY_ADDR, default 127.0.0.1:50051) with the service
 * token. `close` ends the registry channel.
 */
export function authenticatorFromEnv(
  env: NodeJS.ProcessEnv,
  clock: Clock,
  tls: TlsMaterial | null | undefined,
): { authenticator: Authenticator; serviceToken: string; close(): void } {
  const a = authFromEnv(env, clock);
  const registry = createGrpcClient(ApiKeyServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls: tls ?? null, credential: a.serviceToken, deadlineMs: 3000 });
  const authenticator = createAuthenticator({ ...a, clock, apiKeys: apiKeysViaRegistry(registry.api) });
  return { authenticator, serviceToken: a.serviceToken, close: () => registry.close() };
}
