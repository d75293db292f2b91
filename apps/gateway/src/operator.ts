import { createHash, timingSafeEqual } from 'node:crypto';
import type { EvolutionApi, SemanticPoolApi } from '@parley/contracts';
import { CLIENT_ID_PATTERN, MAX_SCENARIO_LENGTH, ParleyError, scenarioId } from '@parley/protocol';
import type { Backends, Handler, RequestContext } from './rpc';

/**
 * The operator's face of schema self-evolution (draft-zhou §6.2) on the
 * gateway's JSON-RPC endpoint: the Differential Semantic Pool's clusters
 * (`SemanticPoolService`) and the patches, their lifecycle decisions and the
 * semantic-alignment audit samples (`EvolutionService`). Each method parses its
 * params here (typed `invalid_params` naming `params.<member>` and the rule;
 * unknown members refused) and returns the gRPC response as JSON.
 *
 * Access (draft-zhou §6.2.2/§7: schema updates need authorization): every write
 * (approve, reject, pin, judge) and `get_cluster` with `include_raw` (raw `other`
 * fragments are operators-only) needs `Authorization: Bearer <operator token>`.
 * The token is compared in constant time on SHA-256 digests; a missing and a
 * wrong token get the same `unauthenticated` answer. Without a configured token
 * these methods answer `forbidden`. Lists and plain reads are open like the rest
 * of the gateway. A fuller identity system (per-operator principals) comes later.
 */

/** Shortest operator token accepted: a guessable token would make the check decorative. */
export const MIN_OPERATOR_TOKEN_LENGTH = 16;
/** RFC 6750 §2.1 b64token: what a Bearer credential may contain. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +([^\s]+) *$/i;

/** Verifies operator credentials; built once from the configured token. */
export interface OperatorAuth {
  /** True when `authorization` is `Bearer <the operator token>`. Constant time in the token's content. */
  verify(authorization: string | undefined): boolean;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * The operator check for `token` (the gateway's `operatorToken`, env
 * PARLEY_OPERATOR_TOKEN). Only its SHA-256 digest is kept. Throws when the token
 * is too short or not sendable as a Bearer credential.
 */
export function createOperatorAuth(token: string): OperatorAuth {
  if (token.length < MIN_OPERATOR_TOKEN_LENGTH) {
    throw new Error(`The operator token (PARLEY_OPERATOR_TOKEN) must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters, got ${token.length}`);
  }
  if (!B64TOKEN.test(token)) {
    throw new Error('The operator token (PARLEY_OPERATOR_TOKEN) must be a Bearer token (RFC 6750): letters, digits and - . _ ~ + /, optionally ending in =');
  }
  const expected = sha256(token);
  return {
    verify(authorization) {
      const m = BEARER.exec(authorization ?? '');
      // Digests have a fixed length, so timingSafeEqual never sees lengths that
      // differ and the comparison reveals nothing about the token; it runs even
      // when the header is missing so both failures take the same path.
      const same = timingSafeEqual(sha256(m?.[1] ?? ''), expected);
      return m !== null && same;
    },
  };
}

/** Methods that need the operator token whatever their params. */
export const OPERATOR_WRITES = ['approve_patch', 'reject_patch', 'pin_patch', 'judge_audit_sample'] as const;

/** Throws `forbidden` when operator methods are disabled, `unauthenticated` when the credentials are missing or wrong. */
export function requireOperator(ctx: RequestContext, what: string): void {
  if (!ctx.operatorAuth) {
    throw new ParleyError('forbidden', `${what} is an operator method, and operator methods are disabled until PARLEY_OPERATOR_TOKEN is set on the gateway`, {
      path: 'headers.authorization',
      rule: 'operator_methods_enabled',
    });
  }
  if (!ctx.operatorAuth.verify(ctx.authorization)) {
    // One answer for a missing and a wrong token: never reveal which.
    throw new ParleyError('unauthenticated', `${what} is an operator method: send the header "Authorization: Bearer <operator token>"`, {
      path: 'headers.authorization',
      rule: 'operator_token',
    });
  }
}

// ---------------------------------------------------------------------------
// Backends
// ---------------------------------------------------------------------------

function notRunning(service: string, env: string): ParleyError {
  return new ParleyError('unavailable', `schema self-evolution is not running: the gateway has no ${service} service (set ${env})`, {
    details: { service },
  });
}

function pool(b: Backends): SemanticPoolApi {
  if (!b.pool) throw notRunning('semantic-pool', 'SEMANTIC_POOL_ADDR');
  return b.pool;
}

function evolution(b: Backends): EvolutionApi {
  if (!b.evolution) throw notRunning('evolution', 'EVOLUTION_ADDR');
  return b.evolution;
}

// ---------------------------------------------------------------------------
// Params
// ---------------------------------------------------------------------------

/** Ids minted by the services (patches, clusters, samples): visible ASCII, no spaces. */
const ID_PATTERN = /^[\x21-\x7e]+$/;
const MAX_ID_LENGTH = 256;
const MAX_REASON_LENGTH = 2048;
const MAX_LIMIT = 1000;
export const PATCH_STATUSES = ['proposed', 'active', 'rejected'] as const;
export const AUDIT_VERDICTS = ['pending', 'aligned', 'misaligned'] as const;

function fail(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

class Params {
  private constructor(private readonly p: Record<string, unknown>) {}

  /** params must be an object whose members are all in `allowed`. */
  static of(params: unknown, allowed: readonly string[]): Params {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      fail('params', 'type', `params must be an object with ${allowed.join(', ')}, got ${typeName(params)}`);
    }
    for (const k of Object.keys(params)) {
      if (!allowed.includes(k)) fail(`params.${k.slice(0, 64)}`, 'unknown_member', `params.${k.slice(0, 64)} is not a parameter of this method; allowed: ${allowed.join(', ')}`);
    }
    return new Params(params as Record<string, unknown>);
  }

  private raw(name: string): unknown {
    const v = this.p[name];
    return v === null ? undefined : v;
  }

  str(name: string, opts: { required: true; max: number; pattern?: RegExp; hint?: string }): string;
  str(name: string, opts: { required?: false; max: number; pattern?: RegExp; hint?: string }): string | undefined;
  str(name: string, opts: { required?: boolean; max: number; pattern?: RegExp; hint?: string }): string | undefined {
    const path = `params.${name}`;
    const v = this.raw(name);
    if (v === undefined) {
      if (opts.required) fail(path, 'required', `${path} is required${opts.hint ? `: ${opts.hint}` : ''}`);
      return undefined;
    }
    if (typeof v !== 'string') fail(path, 'type', `${path} must be a string, got ${typeName(v)}`);
    if (v.trim() === '') fail(path, 'non_empty', `${path} must not be empty`);
    if (v.length > opts.max) fail(path, 'max_length', `${path} must be at most ${opts.max} characters, got ${v.length}`);
    if (opts.pattern && !opts.pattern.test(v)) {
      fail(path, 'pattern', `${path} ${JSON.stringify(v.slice(0, 60))} must match ${opts.pattern.source}${opts.hint ? ` (${opts.hint})` : ''}`);
    }
    return v;
  }

  id(name: string, what: string): string {
    return this.str(name, { required: true, max: MAX_ID_LENGTH, pattern: ID_PATTERN, hint: what });
  }

  optId(name: string): string | undefined {
    return this.str(name, { max: MAX_ID_LENGTH, pattern: ID_PATTERN, hint: 'an id as the service lists it' });
  }

  /** The canonical scenario id of `params.scenario` (required). */
  scenario(): string {
    const s = this.str('scenario', { required: true, max: MAX_SCENARIO_LENGTH, hint: 'the scenario, e.g. "flight_booking"' });
    return scenarioId(s, { path: 'params.scenario' });
  }

  /** `global` or a client id. */
  scope(): string | undefined {
    return this.str('scope', { max: 128, pattern: CLIENT_ID_PATTERN, hint: '"global" or a client id' });
  }

  reason(name = 'reason', required = true): string | undefined {
    return required
      ? this.str(name, { required: true, max: MAX_REASON_LENGTH, hint: 'why, stored with the decision' })
      : this.str(name, { max: MAX_REASON_LENGTH });
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const path = `params.${name}`;
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') fail(path, 'type', `${path} must be a string, got ${typeName(v)}`);
    if (!(values as readonly string[]).includes(v)) fail(path, 'enum', `${path} must be one of ${values.join(', ')}, got ${JSON.stringify(v.slice(0, 60))}`);
    return v as T;
  }

  bool(name: string, required: true): boolean;
  bool(name: string, required: false): boolean | undefined;
  bool(name: string, required: boolean): boolean | undefined {
    const path = `params.${name}`;
    const v = this.raw(name);
    if (v === undefined) {
      if (required) fail(path, 'required', `${path} is required: true or false`);
      return undefined;
    }
    if (typeof v !== 'boolean') fail(path, 'type', `${path} must be a boolean, got ${typeName(v)}`);
    return v;
  }

  int(name: string, min: number, max: number): number | undefined {
    const path = `params.${name}`;
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'type', `${path} must be a number, got ${typeName(v)}`);
    if (!Number.isInteger(v)) fail(path, 'integer', `${path} must be an integer, got ${v}`);
    if (v < min) fail(path, 'minimum', `${path} must be at least ${min}, got ${v}`);
    if (v > max) fail(path, 'maximum', `${path} must be at most ${max}, got ${v}`);
    return v;
  }

  num(name: string, min: number): number | undefined {
    const path = `params.${name}`;
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'type', `${path} must be a number, got ${typeName(v)}`);
    if (v < min) fail(path, 'minimum', `${path} must be at least ${min}, got ${v}`);
    return v;
  }
}

/** `{ ...o }` without its undefined members (optional proto fields stay absent). */
function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------

export const OPERATOR_METHODS = {
  /** The scenario's pool clusters, hottest first (§6.2.1). */
  async list_clusters(params, b) {
    const p = Params.of(params, ['scenario', 'scope', 'min_heat', 'limit']);
    const req = defined({ scenario: p.scenario(), scope: p.scope(), min_heat: p.num('min_heat', 0), limit: p.int('limit', 1, MAX_LIMIT) });
    return pool(b).listClusters(req);
  },
  /** One cluster; `include_raw` adds the raw fragments, operators only (§7). */
  async get_cluster(params, b, ctx) {
    const p = Params.of(params, ['scenario', 'id', 'include_raw']);
    const scenario = p.scenario();
    const id = p.id('id', 'a cluster id as list_clusters shows it');
    const includeRaw = p.bool('include_raw', false) ?? false;
    if (includeRaw) requireOperator(ctx, 'get_cluster with include_raw');
    const r = await pool(b).getCluster({ scenario, id, include_raw: includeRaw });
    // Defence in depth: raw text never leaves without the operator check.
    return includeRaw ? r : { ...r, raw: [] };
  },
  /** Patches of the scenario and the candidates the convergence guard holds back (§6.2.2, §6.2.3). */
  async list_patches(params, b) {
    const p = Params.of(params, ['scenario', 'status', 'scope']);
    return evolution(b).listPatches(defined({ scenario: p.scenario(), status: p.oneOf('status', PATCH_STATUSES), scope: p.scope() }));
  },
  async get_patch(params, b) {
    const p = Params.of(params, ['patch_id']);
    return evolution(b).getPatch({ patch_id: p.id('patch_id', 'a patch id as list_patches shows it') });
  },
  async approve_patch(params, b, ctx) {
    requireOperator(ctx, 'approve_patch');
    const p = Params.of(params, ['patch_id', 'reason']);
    return evolution(b).approvePatch({ patch_id: p.id('patch_id', 'a patch id as list_patches shows it'), reason: p.reason() as string });
  },
  async reject_patch(params, b, ctx) {
    requireOperator(ctx, 'reject_patch');
    const p = Params.of(params, ['patch_id', 'reason']);
    return evolution(b).rejectPatch({ patch_id: p.id('patch_id', 'a patch id as list_patches shows it'), reason: p.reason() as string });
  },
  /** pinned: true keeps the patch's keys in their state (the evaluator leaves them); false hands them back. */
  async pin_patch(params, b, ctx) {
    requireOperator(ctx, 'pin_patch');
    const p = Params.of(params, ['patch_id', 'pinned', 'reason']);
    const patch_id = p.id('patch_id', 'a patch id as list_patches shows it');
    const pinned = p.bool('pinned', true);
    return evolution(b).pinPatch({ patch_id, pinned, reason: p.reason() as string });
  },
  /** The decision log (lifecycle transitions and operator decisions) in seq order. */
  async list_decisions(params, b) {
    const p = Params.of(params, ['scenario', 'patch_id', 'after_seq', 'limit']);
    return evolution(b).listDecisions(
      defined({ scenario: p.scenario(), patch_id: p.optId('patch_id'), after_seq: p.int('after_seq', 0, Number.MAX_SAFE_INTEGER), limit: p.int('limit', 1, MAX_LIMIT) }),
    );
  },
  /** Samples for semantic-alignment accuracy (§6.2.3), e.g. the pending ones to judge. */
  async list_audit_samples(params, b) {
    const p = Params.of(params, ['scenario', 'patch_id', 'verdict', 'limit']);
    return evolution(b).listAuditSamples(
      defined({ scenario: p.scenario(), patch_id: p.optId('patch_id'), verdict: p.oneOf('verdict', AUDIT_VERDICTS), limit: p.int('limit', 1, MAX_LIMIT) }),
    );
  },
  async judge_audit_sample(params, b, ctx) {
    requireOperator(ctx, 'judge_audit_sample');
    const p = Params.of(params, ['sample_id', 'aligned', 'note']);
    const sample_id = p.id('sample_id', 'an audit sample id as list_audit_samples shows it');
    const aligned = p.bool('aligned', true);
    return evolution(b).judgeAuditSample({ sample_id, aligned, note: p.reason('note', false) ?? '' });
  },
} satisfies Record<string, Handler>;
