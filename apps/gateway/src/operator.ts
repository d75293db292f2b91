import { DEAD_LETTER_SERVICES, type ApiKeyApi, type DeadLetterApi, type DeadLetterServiceName, type EvolutionApi, type ListDeadLettersResponse, type SemanticPoolApi } from '@parley/contracts';
import { CLIENT_ID_PATTERN, MAX_SCENARIO_LENGTH, ParleyError, scenarioId, toParleyError } from '@parley/protocol';
import type { Backends, Handler } from './handler';

/**
 * The operator's face of Parley on the gateway's JSON-RPC endpoint: schema
 * self-evolution (draft-zhou §6.2) — the Differential Semantic Pool's clusters
 * (`SemanticPoolService`), the patches, their lifecycle decisions and the
 * semantic-alignment audit samples (`EvolutionService`) — and the API keys
 * (`ApiKeyService`, draft-zhou §7). Each method parses its params here (typed
 * `invalid_params` naming `params.<member>` and the rule; unknown members
 * refused) and returns the gRPC response as JSON.
 *
 * Access (draft-zhou §6.2.2/§7: schema updates need authorization): every one
 * of these methods needs the `operator` role. The gateway calls the services
 * with the caller's own credential and the services decide (libs/auth POLICY),
 * so a client agent's call answers `forbidden` from the service itself.
 */

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
  /** One cluster; `include_raw` adds the raw fragments (§7: sealed at rest, shown to operators). */
  async get_cluster(params, b) {
    const p = Params.of(params, ['scenario', 'id', 'include_raw']);
    const scenario = p.scenario();
    const id = p.id('id', 'a cluster id as list_clusters shows it');
    const includeRaw = p.bool('include_raw', false) ?? false;
    const r = await pool(b).getCluster({ scenario, id, include_raw: includeRaw });
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
  async approve_patch(params, b) {
    const p = Params.of(params, ['patch_id', 'reason']);
    return evolution(b).approvePatch({ patch_id: p.id('patch_id', 'a patch id as list_patches shows it'), reason: p.reason() as string });
  },
  async reject_patch(params, b) {
    const p = Params.of(params, ['patch_id', 'reason']);
    return evolution(b).rejectPatch({ patch_id: p.id('patch_id', 'a patch id as list_patches shows it'), reason: p.reason() as string });
  },
  /** pinned: true keeps the patch's keys in their state (the evaluator leaves them); false hands them back. */
  async pin_patch(params, b) {
    const p = Params.of(params, ['patch_id', 'pinned', 'reason']);
    const patch_id = p.id('patch_id', 'a patch id as list_patches shows it');
    const pinned = p.bool('pinned', true);
    return evolution(b).pinPatch({ patch_id, pinned, reason: p.reason() as string });
  },
  /**
   * An operator's correction of one key of a patch (§6.2: authorized updates): {patch_id, key, rename?, values?,
   * type?, description?, reason}. The evolution service decides how it reaches clients (in place while proposed,
   * a refinement, or a new key with the old one deprecated) and records it as a decision with who and why.
   */
  async edit_patch(params, b) {
    const p = Params.of(params, ['patch_id', 'key', 'rename', 'values', 'type', 'description', 'reason']);
    const patch_id = p.id('patch_id', 'a patch id as list_patches shows it');
    const key = p.str('key', { required: true, max: 64, hint: 'the key of the patch to edit' });
    const raw = (params as Record<string, unknown>)['values'];
    let values: string[] = [];
    if (raw !== undefined && raw !== null) {
      if (!Array.isArray(raw) || raw.length === 0) fail('params.values', 'type', 'params.values must be a non-empty array of strings');
      values = raw.map((v, i) => {
        if (typeof v !== 'string' && typeof v !== 'number') fail(`params.values[${i}]`, 'type', `params.values[${i}] must be a string, got ${typeName(v)}`);
        const s = String(v);
        if (s.length > 64) fail(`params.values[${i}]`, 'max_length', `params.values[${i}] must be at most 64 characters`);
        return s;
      });
    }
    const req = defined({
      patch_id,
      key,
      rename: p.str('rename', { max: 64 }),
      type: p.str('type', { max: 16 }),
      description: p.str('description', { max: MAX_REASON_LENGTH }),
      reason: p.reason() as string,
    });
    if (req.rename === undefined && req.type === undefined && req.description === undefined && values.length === 0) {
      fail('params', 'required', 'params needs at least one of rename, values, type, description (edit_patch)');
    }
    return evolution(b).editPatch({ ...req, values });
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
  async judge_audit_sample(params, b) {
    const p = Params.of(params, ['sample_id', 'aligned', 'note']);
    const sample_id = p.id('sample_id', 'an audit sample id as list_audit_samples shows it');
    const aligned = p.bool('aligned', true);
    return evolution(b).judgeAuditSample({ sample_id, aligned, note: p.reason('note', false) ?? '' });
  },
} satisfies Record<string, Handler>;

// ---------------------------------------------------------------------------
// Dead letters (draft-zhou §6.2 event flow: events set aside so that the rest flows on)
// ---------------------------------------------------------------------------

const DEAD_LETTER_STATUSES = ['dead', 'retried', 'discarded', 'all'] as const;
const DEAD_LETTER_ID = /^[1-9][0-9]{0,17}$/;
/** Durable consumer names: `<prefix>-<service>-<what>`. */
const CONSUMER_PATTERN = /^[A-Za-z0-9_.-]+$/;

function deadLetterService(b: Backends, name: DeadLetterServiceName): DeadLetterApi {
  const api = b.deadLetters?.get(name);
  if (!api) {
    throw new ParleyError('unavailable', `the gateway has no address for ${name}'s dead letters`, { path: 'params.service', rule: 'configured', details: { service: name } });
  }
  return api;
}

export const DEAD_LETTER_METHODS = {
  /**
   * Dead letters of one service or of every one (registry, negotiation, execution,
   * semantic-pool, evolution), each with its counts by status; `total_dead` sums the
   * events still set aside. A service that cannot be reached is named in `unavailable`
   * instead of failing the whole answer.
   */
  async list_dead_letters(params, b) {
    const p = Params.of(params ?? {}, ['service', 'scenario', 'consumer', 'status', 'after_id', 'limit']);
    const service = p.oneOf('service', DEAD_LETTER_SERVICES);
    const scenarioRaw = p.str('scenario', { max: MAX_SCENARIO_LENGTH });
    const scenario = scenarioRaw === undefined ? undefined : scenarioId(scenarioRaw, { path: 'params.scenario' });
    const consumer = p.str('consumer', { max: 256, pattern: CONSUMER_PATTERN, hint: 'a durable consumer name as listed' });
    const status = p.oneOf('status', DEAD_LETTER_STATUSES);
    const afterId = p.str('after_id', { max: 18, pattern: DEAD_LETTER_ID, hint: 'a dead letter id as listed' });
    if (afterId !== undefined && service === undefined) fail('params.after_id', 'requires_service', 'params.after_id pages within one service: name it in params.service');
    const limit = p.int('limit', 1, MAX_LIMIT);
    const req = defined({ scenario, consumer, status, after_id: afterId, limit });
    const names = service ? [service] : DEAD_LETTER_SERVICES.filter((n) => b.deadLetters?.has(n));
    if (service) deadLetterService(b, service);
    const answers = await Promise.allSettled(names.map((n) => deadLetterService(b, n).listDeadLetters(req)));
    const services: ListDeadLettersResponse[] = [];
    const unavailable: { service: string; error: string }[] = [];
    for (const [i, a] of answers.entries()) {
      if (a.status === 'fulfilled') {
        services.push(a.value);
        continue;
      }
      const err = toParleyError(a.reason);
      // Refusals and bad params are the caller's answer; an unreachable service is one line of it.
      if (err.type !== 'unavailable' || service) throw err;
      unavailable.push({ service: names[i] as string, error: err.message });
    }
    for (const n of DEAD_LETTER_SERVICES) if (!service && !names.includes(n)) unavailable.push({ service: n, error: 'not configured at the gateway' });
    return { services, total_dead: services.reduce((n, s) => n + (s.counts?.dead ?? 0), 0), unavailable };
  },
  /** Puts an outbox dead letter back into its outbox, or has its consumer apply a consumer's one now. */
  async retry_dead_letter(params, b) {
    const p = Params.of(params, ['service', 'id']);
    const service = p.oneOf('service', DEAD_LETTER_SERVICES);
    if (service === undefined) fail('params.service', 'required', `params.service is required: one of ${DEAD_LETTER_SERVICES.join(', ')}`);
    const id = p.str('id', { required: true, max: 18, pattern: DEAD_LETTER_ID, hint: 'a dead letter id as list_dead_letters shows it' });
    return deadLetterService(b, service).retryDeadLetter({ id });
  },
  /** Marks a dead letter discarded, with why (kept; never retried). */
  async discard_dead_letter(params, b) {
    const p = Params.of(params, ['service', 'id', 'reason']);
    const service = p.oneOf('service', DEAD_LETTER_SERVICES);
    if (service === undefined) fail('params.service', 'required', `params.service is required: one of ${DEAD_LETTER_SERVICES.join(', ')}`);
    const id = p.str('id', { required: true, max: 18, pattern: DEAD_LETTER_ID, hint: 'a dead letter id as list_dead_letters shows it' });
    return deadLetterService(b, service).discardDeadLetter({ id, reason: p.reason() as string });
  },
} satisfies Record<string, Handler>;

// ---------------------------------------------------------------------------
// API keys (draft-zhou §7): hashed at rest, scoped, revocable
// ---------------------------------------------------------------------------

function apiKeys(b: Backends): ApiKeyApi {
  if (!b.apiKeys) throw new ParleyError('unavailable', 'API keys are not available: the gateway has no registry ApiKeyService (REGISTRY_ADDR)', { details: { service: 'registry' } });
  return b.apiKeys;
}

function strings(p: Record<string, unknown>, name: string): string[] {
  const v = p[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) fail(`params.${name}`, 'type', `params.${name} must be an array of strings`);
  return v as string[];
}

export const API_KEY_METHODS = {
  /**
   * A new key for `principal` with `roles` (operator, server_agent, client_agent); a
   * server agent's key names its `agents` and `scenarios` (exact, `prefix*` or `*`).
   * The result's `key` is shown once: only its hash is stored.
   */
  async create_api_key(params, b) {
    const allowed = ['principal', 'roles', 'agents', 'scenarios', 'description', 'expires_at'];
    const p = Params.of(params, allowed);
    const raw = params as Record<string, unknown>;
    return apiKeys(b).createApiKey({
      principal: p.str('principal', { required: true, max: 128, pattern: CLIENT_ID_PATTERN, hint: 'the client id the key stands for' }),
      roles: strings(raw, 'roles'),
      agents: strings(raw, 'agents'),
      scenarios: strings(raw, 'scenarios'),
      description: p.str('description', { max: 500 }) ?? '',
      expires_at: p.str('expires_at', { max: 40, hint: 'ISO 8601 date-time' }) ?? '',
    });
  },
  async list_api_keys(params, b) {
    const p = Params.of(params, ['principal', 'include_revoked']);
    return apiKeys(b).listApiKeys(defined({ principal: p.str('principal', { max: 128, pattern: CLIENT_ID_PATTERN }), include_revoked: p.bool('include_revoked', false) ?? false }));
  },
  /** Revokes a key at once; the services stop accepting it within their credential cache time (PARLEY_AUTH_CACHE_MS). */
  async revoke_api_key(params, b) {
    const p = Params.of(params, ['key_id']);
    return apiKeys(b).revokeApiKey({ key_id: p.str('key_id', { required: true, max: 16, pattern: /^[0-9a-f]{16}$/, hint: 'the 16 hex digits after pk_' }) });
  },
} satisfies Record<string, Handler>;
