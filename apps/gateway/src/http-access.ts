// Who may call the gateway and how much (draft-zhou §7): every POST to /rpc, /mcp
// and /a2a… is authenticated from its Authorization header, counted against the
// principal's requests in flight and charged to its rate limit before its body is
// read; then the body is read within MAX_BODY_BYTES and a batch's size is checked.
// Every refusal is a typed JSON-RPC error (ERROR_CATALOGUE) counted as method `none`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator, Principal } from '@parley/auth';
import { withAuthorization } from '@parley/contracts';
import { ParleyError, toParleyError } from '@parley/protocol';
import { createRateLimiter, credentialLabel, systemClock, type Clock, type Metrics } from '@parley/runtime';
import { readBody, send } from './http-io';
import { errorResponse, type Backends } from './rpc';

export type Face = 'rpc' | 'mcp' | 'a2a';

export interface AccessOptions {
  authenticator: Authenticator;
  maxBodyBytes: number;
  /** Largest batch accepted (JSON-RPC 2.0 §6); default 100. */
  maxBatch?: number;
  /** Requests per second and burst per principal; default 50/s, burst 100; null: no limit. */
  rateLimit?: { ratePerSecond: number; burst: number } | null;
  /** Requests of one principal served at once (default 32; 0: off). */
  maxInFlightPerPrincipal?: number;
  clock?: Clock;
  metrics?: Metrics;
}

export interface Access {
  /** A request answered before any method ran (401, 413, 429, a body that is not JSON): counted as method `none`. */
  refused(face: Face, type: string, started: number): void;
  /** The principal of the Authorization header, before the body is read; on failure answers 401 and returns undefined. */
  authenticate(req: IncomingMessage, res: ServerResponse, face?: Face): Promise<Principal | undefined>;
  /** Admits one more request of the principal until the response closes; past the bound answers 429 and returns false. */
  admit(principal: Principal, res: ServerResponse, face: Face): boolean;
  /** Charges `cost` requests to the principal's rate limit; over it answers 429 (413 batch_too_large when it can never fit) and returns false. */
  charge(principal: Principal, res: ServerResponse, cost: number, face?: Face): boolean;
  /** The largest batch that can ever pass: MAX_BATCH, or the rate limit's burst when smaller. */
  readonly batchLimit: number;
  /** Refuses a batch (JSON-RPC, or an MCP array of tools/call) larger than batchLimit: typed, not retryable, no Retry-After. */
  batchTooLarge(res: ServerResponse, size: number, face: 'rpc' | 'mcp'): void;
  /** Reads and parses a JSON body; on failure answers (413, or `parseStatus` with parse_error) and returns undefined. */
  readJson(req: IncomingMessage, res: ServerResponse, parseStatus: number, face?: Face): Promise<{ value: unknown } | undefined>;
}

/** The backends as the caller: every service call carries the caller's own Authorization header. */
export function asCaller(b: Backends, authorization: string): Backends {
  // Made when first used: a request reaches one or two services, and each wrapper costs a Metadata and a Proxy.
  const out = {} as Backends;
  const lazy = <K extends keyof Backends>(key: K, make: () => Backends[K]): void => {
    let made: Backends[K] | undefined;
    Object.defineProperty(out, key, { enumerable: true, configurable: true, get: () => (made ??= make()) });
  };
  for (const key of CALLER_APIS) {
    const api = b[key];
    if (api) lazy(key, () => withAuthorization(api, authorization) as never);
  }
  const deadLetters = b.deadLetters;
  if (deadLetters) lazy('deadLetters', () => new Map([...deadLetters].map(([name, api]) => [name, withAuthorization(api, authorization)])));
  return out;
}

const CALLER_APIS = ['registry', 'negotiation', 'execution', 'profiles', 'tasks', 'pool', 'evolution', 'apiKeys', 'eventSubscriptions'] as const satisfies readonly (keyof Backends)[];

/** Answers 429 `rate_limited` with Retry-After; the connection closes after it (the body may not have been read). */
function tooMany(res: ServerResponse, err: ParleyError, retryAfterS: number): void {
  res.setHeader('connection', 'close');
  send(res, 429, errorResponse(null, err), { 'retry-after': String(retryAfterS) });
}

export function createAccess(opts: AccessOptions): Access {
  const { metrics, maxBodyBytes } = opts;
  const maxBatch = opts.maxBatch ?? 100;
  const limit = opts.rateLimit === null ? undefined : createRateLimiter({ ...(opts.rateLimit ?? { ratePerSecond: 50, burst: 100 }), clock: opts.clock ?? systemClock });
  const refused = (face: Face, type: string, started: number) => metrics?.request(face, 'none', undefined, type, (performance.now() - started) / 1000);
  const batchLimit = Math.min(maxBatch, limit?.burst ?? Number.POSITIVE_INFINITY);
  // Requests in flight per principal (maxInFlightPerPrincipal): counted before a body is read.
  const maxInFlight = opts.maxInFlightPerPrincipal ?? 32;
  const inFlight = new Map<string, number>();

  const batchTooLarge = (res: ServerResponse, size: number, face: 'rpc' | 'mcp'): void => {
    refused(face, 'batch_too_large', performance.now());
    const byBurst = limit !== undefined && limit.burst < maxBatch;
    const why = `A batch may hold at most ${batchLimit} requests (${byBurst ? "the rate limit's burst" : 'MAX_BATCH'}); this one holds ${size}: split it`;
    send(res, 413, errorResponse(null, new ParleyError('batch_too_large', why, { path: 'body', rule: byBurst ? 'rate_limit_burst' : 'max_batch', details: { max_batch: batchLimit, size } })));
  };

  return {
    refused,
    batchLimit,
    batchTooLarge,
    async authenticate(req, res, face = 'rpc') {
      const authorization = req.headers.authorization;
      const started = performance.now();
      try {
        const principal = await opts.authenticator.authenticate(authorization);
        // The services' shared token is for their calls to each other, never an outside caller's.
        if (principal.roles.includes('service')) {
          throw new ParleyError('unauthenticated', "The services' token is not accepted at the gateway: use an API key or a JWT", { path: 'headers.authorization', rule: 'service_token' });
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
    },
    admit(principal, res, face) {
      if (maxInFlight <= 0) return true;
      const n = inFlight.get(principal.id) ?? 0;
      if (n >= maxInFlight) {
        metrics?.rateLimited(principal.roles);
        refused(face, 'rate_limited', performance.now());
        const why = `${principal.id} already has ${n} requests in progress (at most ${maxInFlight} at once); retry when one has answered`;
        tooMany(res, new ParleyError('rate_limited', why, { path: 'headers.authorization', rule: 'concurrency', details: { max_in_flight: maxInFlight, retry_after_ms: 1000 } }), 1);
        return false;
      }
      inFlight.set(principal.id, n + 1);
      res.once('close', () => {
        const left = (inFlight.get(principal.id) ?? 1) - 1;
        if (left <= 0) inFlight.delete(principal.id);
        else inFlight.set(principal.id, left);
      });
      return true;
    },
    charge(principal, res, cost, face = 'rpc') {
      const decision = limit?.take(principal.id, cost);
      if (!decision || decision.ok) return true;
      if (decision.never) {
        batchTooLarge(res, cost, face === 'a2a' ? 'rpc' : face);
        return false;
      }
      metrics?.rateLimited(principal.roles);
      refused(face, 'rate_limited', performance.now());
      const why = `Rate limit exceeded for ${principal.id}; retry in ${decision.retryAfterMs} ms`;
      tooMany(res, new ParleyError('rate_limited', why, { path: 'headers.authorization', rule: 'rate_limit', details: { retry_after_ms: decision.retryAfterMs } }), Math.ceil(decision.retryAfterMs / 1000));
      return false;
    },
    async readJson(req, res, parseStatus, face = 'rpc') {
      const started = performance.now();
      const body = await readBody(req, maxBodyBytes);
      if (body === 'too_large') {
        refused(face, 'body_too_large', started);
        res.setHeader('connection', 'close');
        send(res, 413, errorResponse(null, new ParleyError('body_too_large', `Request body exceeds ${maxBodyBytes} bytes`, { path: 'body', rule: 'max_bytes', details: { max_bytes: maxBodyBytes } })));
        return undefined;
      }
      try {
        return { value: JSON.parse(body.toString('utf8')) };
      } catch {
        refused(face, 'parse_error', started);
        send(res, parseStatus, errorResponse(null, new ParleyError('parse_error', 'The request body is not valid JSON', { path: 'body', rule: 'json' })));
        return undefined;
      }
    },
  };
}
