import { randomUUID } from 'node:crypto';
import { keyFromWire, templateFromWire, type ExecuteRequest, type ExecuteResponse, type ExecutionApi, type GetSchemaResponse, type NegotiationApi } from '@parley/contracts';
import { EventType, type Bus, type EventEnvelope, type Subjects } from '@parley/events';
import { MAX_RAW_FRAGMENT_CHARS, boundFragments } from '@parley/evolution';
import {
  OTHER_KEY,
  ParleyError,
  agentError,
  compilePayloadValidator,
  compileResponseSchema,
  decodeDispatchReply,
  encodeDispatch,
  toParleyError,
  parseIdempotencyKey,
  type JsonObject,
  type JsonValue,
  type KeyDefinition,
  type PayloadValidator,
  type ResponseValidator,
  type SchemaTemplate,
} from '@parley/protocol';
import type { Clock, Logger, Metrics } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { createIdempotencyStore, requestHash, type IdempotencyStore } from './idempotency';
import { createRecorder } from './recorder';

/**
 * Execution: the path of one structured payload (draft-zhou §3.2 steps (4)-(6)):
 * validate against the client's negotiated template (REQUIRED keys present,
 * types, constraints, no unknown keys, `other` always accepted: §4.1, §4.3),
 * apply defaults (§4.1 default_value), dispatch to a server agent of the
 * scenario over NATS request/reply in the agent's queue group, check the result
 * against the scenario's response schema when one is published (§3.2 (5)),
 * then record the execution and its events in one transaction (transactional
 * outbox).
 *
 * Schema self-evolution (§6.2.2, §6.2.3):
 * - the template a payload is validated against is the client's effective one
 *   (base + active global patches + the client's own), from
 *   `NegotiationService.GetSchema` with the client_id. The resolution
 *   (agent, schema_id, client_id) → etag is trusted for `patchCacheTtlMs`
 *   (default 1000 ms): a patch change reaches validation within that time.
 *   Compiled validators are shared by etag (clients on the same patches share
 *   one) in a bounded LRU;
 * - a withdrawn key is accepted, validated by its old definition, until its
 *   backward-compatibility window ends, with a warning (logged and returned);
 *   after that it is refused by name (rule `key_withdrawn`);
 * - a client whose `schema_etag` is stale gets a `schema_update_suggestion`
 *   (Figure 9) listing the patches of its effective template, as negotiation
 *   built and signed it (§7: its `signature` member; unsigned only when the
 *   patches could not be attributed, see fallbackMeta);
 * - in the scenarios an operator lists in `auditScenarios` (issue 6: payload
 *   values are never stored unless an operator enables it per scenario), each
 *   patch key present in a payload is sampled, with probability
 *   `auditSampleRate`, into an `audit.sampled` event (its value and the
 *   utterance, for the semantic_alignment_accuracy audit). Base-key values
 *   never leave the service.
 *
 * A payload that fails anywhere before the agent answers records nothing.
 */
export interface ExecutionServiceDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  /** Called after each commit that wrote outbox rows (nudges the relay). */
  onOutboxWrite: () => void;
  timeoutMs: number;
  /** Compiled validators kept, per effective template (etag); least recently used evicted first. Default 1000. */
  cacheSize?: number;
  /**
   * How long an (agent, schema_id, client_id) → effective-template resolution
   * is trusted (default 1000 ms; 0 asks negotiation on every payload). Patch
   * changes (new keys, promotions, withdrawals) reach validation within it.
   */
  patchCacheTtlMs?: number;
  /** Resolutions kept (one per agent, schema_id and client_id); default 10 000. */
  resolutionCacheSize?: number;
  /** zhou §6.2.3 audit sampler: probability that a patch key present in a payload is sampled (default 0.25). */
  auditSampleRate?: number;
  /**
   * The scenarios whose patch-key values may be sampled and stored for audits (ids, or `*` for
   * every scenario). Default none: a value is stored only where an operator enabled it (issue 6).
   */
  auditScenarios?: readonly string[];
  /** Uniform random numbers in [0, 1) for the sampler (default Math.random; tests inject one). */
  random?: () => number;
  /** Prometheus metrics (libs/runtime metrics.ts): executions per scenario, agent and outcome, agent round trips and timeouts. */
  metrics?: Metrics;
  /**
   * How long an idempotency key names one execution of its client, on `clock`
   * (PARLEY_IDEMPOTENCY_TTL_MS, default 24 h); after it the key is free again.
   */
  idempotencyTtlMs?: number;
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long a reserved key waits for its call (beyond the agent's timeout) before
 * a repeat may take it over: the call may still be resolving, validating or
 * committing. A repeat meanwhile is idempotency_in_progress.
 */
const LEASE_GRACE_MS = 5000;

export const DEFAULT_PATCH_CACHE_TTL_MS = 1000;
export const DEFAULT_AUDIT_SAMPLE_RATE = 0.25;
/** Longest utterance accepted (the gateway's params parser enforces the same). */
const MAX_UTTERANCE = 4000;
const MAX_ETAG = 128;

/** What the patches of one effective template mean for execution (shared by every client with that etag). */
interface PatchMeta {
  /** key_name → patch_id for the patch keys of the effective template (the audit sampler's scope). */
  readonly patchKeys: ReadonlyMap<string, string>;
  /** Figure 9's schema_update_suggestion for a client holding another etag. */
  readonly suggestion: JsonObject;
  /** False when the keys could not be attributed to patches exactly (no audit sampling then). */
  readonly exact: boolean;
  /** Worth asking again (the attribution failed for a transient reason). */
  readonly retry: boolean;
}

/** One compiled effective template (plus its withdrawn keys), keyed by etag. */
interface Compiled {
  readonly agent: string;
  readonly schemaId: string;
  readonly scenarioId: string;
  readonly etag: string;
  readonly validator: PayloadValidator;
  readonly response?: ResponseValidator;
  meta?: PatchMeta;
  /** The meta lookup in progress (one per compiled template, however many clients ask at once). */
  metaLoading?: Promise<PatchMeta>;
}

interface Withdrawn {
  readonly key_name: string;
  readonly patch_id: string;
  readonly until: number;
  readonly until_iso: string;
}

/** One (agent, schema_id, client_id) resolution, trusted for patchCacheTtlMs. */
interface Resolved {
  readonly compiled: Compiled;
  readonly appliedPatches: readonly string[];
  readonly withdrawn: readonly Withdrawn[];
  readonly at: number;
}

const CLIENT_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;
/** How long an unqualified schema_id -> agent resolution is trusted (another agent may publish the same id). */
const UNQUALIFIED_TTL_MS = 5_000;

/** ExecutionService, and the idempotency keys behind it (the service purges expired ones on a timer). */
export type ExecutionService = ExecutionApi & { idempotency: IdempotencyStore };

export function createExecutionService(deps: ExecutionServiceDeps): ExecutionService {
  const cacheSize = positiveInt(deps.cacheSize ?? 1000, 'cacheSize');
  const resolutionCacheSize = positiveInt(deps.resolutionCacheSize ?? 10_000, 'resolutionCacheSize');
  const ttl = deps.patchCacheTtlMs ?? DEFAULT_PATCH_CACHE_TTL_MS;
  if (!Number.isFinite(ttl) || ttl < 0) throw new RangeError('patchCacheTtlMs must be a non-negative number of milliseconds');
  const sampleRate = deps.auditSampleRate ?? DEFAULT_AUDIT_SAMPLE_RATE;
  const auditScenarios = new Set(deps.auditScenarios ?? []);
  const audited = (scenarioId: string) => auditScenarios.has('*') || auditScenarios.has(scenarioId);
  if (!(sampleRate >= 0 && sampleRate <= 1)) throw new RangeError('auditSampleRate must be between 0 and 1');
  const random = deps.random ?? Math.random;

  /** Compiled validators by validation key (etag + withdrawn keys), LRU. */
  const compiled = new Map<string, Compiled>();
  /** `${agent}/${schema_id}/${client_id}` → resolution. */
  const resolutions = new Map<string, Resolved>();
  const unqualified = new Map<string, { agent: string; at: number }>();
  const inFlight = new Map<string, Promise<Resolved>>();
  const recorder = createRecorder({ db: deps.db, subjects: deps.subjects, onCommit: deps.onOutboxWrite, logger: deps.log });
  const idem = createIdempotencyStore({ db: deps.db, ttlMs: deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, leaseMs: deps.timeoutMs + LEASE_GRACE_MS });

  async function resolve(schemaId: string, agent: string | undefined, clientId: string): Promise<Resolved> {
    let owner = agent;
    if (owner === undefined) {
      const u = unqualified.get(schemaId);
      if (u && Date.now() - u.at < UNQUALIFIED_TTL_MS) owner = u.agent;
    }
    if (owner !== undefined) {
      // The hot path: one Map lookup.
      const hit = resolutions.get(`${owner}/${schemaId}/${clientId}`);
      if (hit && Date.now() - hit.at < ttl) return hit;
    }
    // Single flight: concurrent requests for the same schema and client share one
    // lookup, so a cold cache under load costs one negotiation call, not one each.
    const key = `${owner ?? '*'}/${schemaId}/${clientId}`;
    let p = inFlight.get(key);
    if (!p) {
      p = lookup(schemaId, owner, clientId).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    const resolved = await p;
    if (agent === undefined) unqualified.set(schemaId, { agent: resolved.compiled.agent, at: Date.now() });
    return resolved;
  }

  async function lookup(schemaId: string, owner: string | undefined, clientId: string): Promise<Resolved> {
    const r = await deps.negotiation.getSchema({ schema_id: schemaId, client_id: clientId, ...(owner !== undefined ? { agent: owner } : {}) });
    if (!r.template || !r.schema) throw new ParleyError('internal', 'Negotiation returned no template');
    const agent = r.schema.agent;
    const withdrawnWire = r.withdrawn_keys ?? [];
    // Equal etags mean equal effective templates; the withdrawn keys still accepted are part of what validates.
    const vkey = `${agent}/${schemaId}@${r.etag}${withdrawnWire.length > 0 ? `|${withdrawnWire.map((w) => `${w.patch_id}/${w.definition?.key_name ?? ''}`).join(',')}` : ''}`;
    let c = compiled.get(vkey);
    if (c) {
      compiled.delete(vkey);
      compiled.set(vkey, c);
    } else {
      c = compile(r, schemaId);
      compiled.set(vkey, c);
      while (compiled.size > cacheSize) compiled.delete(compiled.keys().next().value as string);
    }
    const applied = [...(r.applied_patches ?? [])];
    if (applied.length > 0 && (!c.meta || c.meta.retry)) {
      const entry = c;
      entry.metaLoading ??= patchMeta(r, schemaId, clientId, applied).then((m) => {
        entry.meta = m;
        return m;
      }).finally(() => {
        entry.metaLoading = undefined;
      });
      await entry.metaLoading;
    }
    const withdrawn: Withdrawn[] = withdrawnWire.flatMap((w) => {
      const until = Date.parse(w.accept_until);
      if (!w.definition || !Number.isFinite(until)) return [];
      return [{ key_name: w.definition.key_name, patch_id: w.patch_id, until, until_iso: new Date(until).toISOString() }];
    });
    const resolved: Resolved = { compiled: c, appliedPatches: applied, withdrawn, at: Date.now() };
    const rkey = `${agent}/${schemaId}/${clientId}`;
    resolutions.delete(rkey);
    resolutions.set(rkey, resolved);
    while (resolutions.size > resolutionCacheSize) resolutions.delete(resolutions.keys().next().value as string);
    return resolved;
  }

  /** Compiles the effective template plus the withdrawn keys still accepted (validated by their old definitions, §6.2.3). */
  function compile(r: GetSchemaResponse, schemaId: string): Compiled {
    const t = templateFromWire(r.template as NonNullable<GetSchemaResponse['template']>);
    const extra: KeyDefinition[] = [];
    const names = new Set(t.keys.map((k) => k.key_name));
    for (const w of r.withdrawn_keys ?? []) {
      if (!w.definition || names.has(w.definition.key_name)) continue;
      names.add(w.definition.key_name);
      extra.push(keyFromWire(w.definition));
    }
    const accepting: SchemaTemplate = extra.length === 0 ? t : { ...t, keys: insertBeforeOther(t.keys, extra) };
    const schema = r.schema as NonNullable<GetSchemaResponse['schema']>;
    return {
      agent: schema.agent,
      schemaId,
      scenarioId: schema.scenario_id,
      etag: r.etag,
      validator: compilePayloadValidator(accepting),
      ...(r.response_schema ? { response: compileResponseSchema(r.response_schema) } : {}),
    };
  }

  /**
   * Which patch each patch key of the effective template comes from, and the
   * suggestion for stale clients, from the polling endpoint (zhou §6.2.2). It
   * describes the latest base of the scenario; for an older schema version, or
   * when the etags disagree (a patch changed between the two calls), the
   * suggestion lists the flagged keys only and nothing is sampled.
   */
  async function patchMeta(r: GetSchemaResponse, schemaId: string, clientId: string, applied: string[]): Promise<PatchMeta> {
    const schema = r.schema as NonNullable<GetSchemaResponse['schema']>;
    try {
      const u = await deps.negotiation.getSchemaUpdates({ scenario: schema.scenario_id, agent: schema.agent, client_id: clientId });
      if (u.parent_schema_id === schemaId && u.etag === r.etag) {
        const patchKeys = new Map<string, string>();
        const newKeys: JsonValue[] = [];
        const modified: JsonValue[] = [];
        for (const p of u.patches) {
          for (const k of p.new_keys) {
            if (k.key_name === OTHER_KEY || patchKeys.has(k.key_name)) continue;
            patchKeys.set(k.key_name, p.patch_id);
            newKeys.push(keyFromWire(k) as unknown as JsonValue);
          }
          for (const m of p.modified_keys) modified.push({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) });
        }
        // draft-zhou §7: negotiation builds and signs the same suggestion; it is returned untouched with its
        // signature as the `signature` member (a client verifies it against the gateway's JWKS).
        const suggestion: JsonObject =
          u.suggestion && u.suggestion_signature
            ? { ...(u.suggestion as JsonObject), signature: u.suggestion_signature }
            : { parent_schema_id: schemaId, etag: r.etag, patch_ids: u.patches.map((p) => p.patch_id), new_keys: newKeys, modified_keys: modified };
        return { patchKeys, suggestion, exact: true, retry: false };
      }
      const retry = u.parent_schema_id === schemaId;
      if (retry) deps.log.debug('schema etag moved between GetSchema and GetSchemaUpdates; patch attribution deferred', { schema_id: schemaId });
      return fallbackMeta(r, schemaId, applied, retry);
    } catch (e) {
      deps.log.warn('GetSchemaUpdates failed; schema_update_suggestion lists flagged keys only, no audit sampling until it answers', { schema_id: schemaId, error: e });
      return fallbackMeta(r, schemaId, applied, true);
    }
  }

  function fallbackMeta(r: GetSchemaResponse, schemaId: string, applied: string[], retry: boolean): PatchMeta {
    // Experimental and deprecated keys are certainly patch keys; stable ones cannot be told from base keys here.
    const flagged = (r.template?.keys ?? []).filter((k) => k.experimental === true || k.deprecated === true).map((k) => keyFromWire(k) as unknown as JsonValue);
    return { patchKeys: new Map(), suggestion: { parent_schema_id: schemaId, etag: r.etag, patch_ids: applied, new_keys: flagged, modified_keys: [] }, exact: false, retry };
  }

  /**
   * zhou §6.2.3 Withdrawal: "Server agents MUST still accept the key in incoming
   * payloads for an additional backward-compatibility window ... but SHOULD log a
   * warning." Returns the warnings; throws `payload_invalid` (rule
   * `key_withdrawn`) for a key whose window has ended.
   */
  function checkWithdrawn(s: Resolved, payload: Record<string, unknown>, clientId: string): string[] {
    const warnings: string[] = [];
    const now = deps.clock.now().getTime();
    for (const w of s.withdrawn) {
      if (!Object.prototype.hasOwnProperty.call(payload, w.key_name)) continue;
      const path = `payload.${w.key_name}`;
      if (now >= w.until) {
        throw new ParleyError(
          'payload_invalid',
          `${path} was withdrawn from schema ${s.compiled.schemaId} (patch ${w.patch_id}); its backward-compatibility window ended on ${w.until_iso} (draft-zhou §6.2.3): leave the key out and put what it carried in "other"`,
          { path, rule: 'key_withdrawn', details: { patch_id: w.patch_id, accept_until: w.until_iso } },
        );
      }
      const text = `${path} was withdrawn from schema ${s.compiled.schemaId} (patch ${w.patch_id}); it is accepted until ${w.until_iso} (draft-zhou §6.2.3 backward-compatibility window), then refused: stop sending it`;
      warnings.push(text);
      deps.log.warn('withdrawn key accepted within its backward-compatibility window', {
        schema_id: s.compiled.schemaId,
        agent: s.compiled.agent,
        client_id: clientId,
        key_name: w.key_name,
        patch_id: w.patch_id,
        accept_until: w.until_iso,
      });
    }
    return warnings;
  }

  return {
    async execute(req) {
      // The guard (access.ts) sets it to the caller's principal: every execution belongs to a client.
      const clientId = req.client_id;
      if (clientId === undefined || clientId === '') {
        throw new ParleyError('invalid_params', 'client_id is required: the caller acts as its principal', { path: 'params.client_id', rule: 'required' });
      }
      if (!CLIENT_ID.test(clientId)) {
        throw new ParleyError('invalid_params', `client_id must match ${CLIENT_ID.source}`, { path: 'params.client_id', rule: 'pattern' });
      }
      if (!req.schema_id) throw new ParleyError('invalid_params', 'schema_id is required', { path: 'params.schema_id', rule: 'required' });
      if (!req.payload) throw new ParleyError('invalid_params', 'payload is required', { path: 'params.payload', rule: 'required' });
      if (req.utterance !== undefined && req.utterance.length > MAX_UTTERANCE) {
        throw new ParleyError('invalid_params', `utterance must be at most ${MAX_UTTERANCE} characters`, { path: 'params.utterance', rule: 'max_length' });
      }
      if (req.schema_etag !== undefined && req.schema_etag.length > MAX_ETAG) {
        throw new ParleyError('invalid_params', `schema_etag must be at most ${MAX_ETAG} characters`, { path: 'params.schema_etag', rule: 'max_length' });
      }

      // A retry made safe (zhou §3.2 (4)-(6)): a key names one execution of this client.
      const key = parseIdempotencyKey(req.idempotency_key, 'params.idempotency_key');
      const request = { ...req, payload: req.payload };
      if (key === undefined) return perform(request, clientId, randomUUID(), undefined);
      const begun = await idem.begin({ clientId, key, hash: requestHash({ schema_id: req.schema_id, agent: req.agent, payload: req.payload }), now: deps.clock.now() });
      if (begun.kind === 'replay') {
        deps.log.info('idempotent repeat answered with the stored result', { client_id: clientId, execution_id: begun.response.execution_id });
        return { ...begun.response, replayed: true };
      }
      return perform(request, clientId, begun.executionId, { key, tookOver: begun.tookOver });
    },
    idempotency: idem,
  };

  /**
   * Validates, dispatches and records one execution under `executionId`. With a
   * key, a failure frees the key (before the agent was called) or its lease
   * (after: the agent may have acted, and a repeat dispatches the same
   * execution_id again). An `unavailable` after the agent was called is
   * retryable only with a key: without one the outcome is unknown.
   */
  async function perform(req: ExecuteRequest & { payload: JsonObject }, clientId: string, executionId: string, keyed: { key: string; tookOver: boolean } | undefined): Promise<ExecuteResponse> {
    let dispatched = false;
    // Metrics: every dispatch counts once, by its outcome (agent_timeout also in parley_agent_timeouts_total), with the agent's round trip.
    let metered: { scenario: string; agent: string; startedAt: number; seconds?: number } | undefined;
    const meter = (e: unknown) => {
      if (metered) deps.metrics?.execution(metered.scenario, metered.agent, e === undefined ? undefined : toParleyError(e).type, metered.seconds ?? (performance.now() - metered.startedAt) / 1000);
    };
    try {
      const resolved = await resolve(req.schema_id, req.agent, clientId);
      const schema = resolved.compiled;
      const warnings = resolved.withdrawn.length > 0 ? checkWithdrawn(resolved, req.payload, clientId) : [];
      const checked = schema.validator.validate(req.payload);

      const startedAt = performance.now();
      dispatched = true;
      metered = { scenario: schema.scenarioId, agent: schema.agent, startedAt };
      const reply = decodeDispatchReply(
        await deps.bus.request(
          deps.subjects.execute(schema.scenarioId, schema.agent),
          encodeDispatch({
            execution_id: executionId,
            schema_id: schema.schemaId,
            scenario_id: schema.scenarioId,
            client_id: clientId,
            payload: checked.payload,
            deadline: new Date(deps.clock.now().getTime() + deps.timeoutMs).toISOString(),
            ...(keyed ? { idempotency_key: keyed.key } : {}),
          }),
          { timeoutMs: deps.timeoutMs },
        ),
        schema.agent,
      );
      if (!reply.ok) throw agentError(schema.agent, reply.error);
      schema.response?.check(reply.result, schema.agent);
      const durationMs = Math.round(performance.now() - startedAt);
      metered.seconds = (performance.now() - startedAt) / 1000;

      const now = deps.clock.now().toISOString();
      const base = { execution_id: executionId, agent: schema.agent, schema_id: schema.schemaId, scenario_id: schema.scenarioId, client_id: clientId };
      const events: EventEnvelope[] = [
        {
          id: randomUUID(),
          type: EventType.PayloadExecuted,
          scenario_id: schema.scenarioId,
          occurred_at: now,
          source: 'execution',
          data: {
            ...base,
            keys_present: [...checked.keys_present],
            key_type_correct: { ...checked.key_type_correct },
            defaults_applied: [...checked.defaults_applied],
            duration_ms: durationMs,
            // zhou §6.2.3 client_adoption_rate: the client received these patches.
            applied_patches: [...resolved.appliedPatches],
          },
        },
      ];
      // zhou §4.3: meaningful content in `other` signals a coverage gap; §6.2.1 feeds it to the pool. The event
      // carries the fragments bounded (the pool uses no more) and counts what it left out: `other` is accepted
      // whatever its length, and the event stays deliverable.
      if (checked.other_fragments.length > 0) {
        const bounded = boundFragments(checked.other_fragments);
        if (bounded.truncation) deps.log.info('other fragments truncated for the pool', { execution_id: executionId, scenario_id: schema.scenarioId, ...bounded.truncation });
        events.push({
          id: randomUUID(),
          type: EventType.OtherCaptured,
          scenario_id: schema.scenarioId,
          occurred_at: now,
          source: 'execution',
          data: { ...base, fragments: bounded.fragments, ...(bounded.truncation ? { truncation: bounded.truncation } : {}) },
        });
      }
      // zhou §6.2.3 semantic_alignment_accuracy "as judged by an internal LLM or manual audit sampler":
      // a sample of patch-key values (never base keys), with the utterance when the client gave it.
      const patchKeys = schema.meta?.exact ? schema.meta.patchKeys : undefined;
      if (patchKeys && patchKeys.size > 0 && sampleRate > 0 && audited(schema.scenarioId)) {
        for (const key of checked.keys_present) {
          const patchId = patchKeys.get(key);
          if (patchId === undefined || !(random() < sampleRate)) continue;
          const sampled = auditValue(req.payload[key] as unknown);
          if (!sampled) {
            deps.log.info('audit sample skipped: the value is too large to carry', { execution_id: executionId, key_name: key, patch_id: patchId });
            continue;
          }
          events.push({
            id: randomUUID(),
            type: EventType.AuditSampled,
            scenario_id: schema.scenarioId,
            occurred_at: now,
            source: 'execution',
            data: {
              sample_id: randomUUID(),
              execution_id: executionId,
              agent: schema.agent,
              scenario_id: schema.scenarioId,
              client_id: clientId,
              patch_id: patchId,
              key_name: key,
              value: sampled.value,
              ...(sampled.truncated ? { value_truncated: true } : {}),
              ...(req.utterance !== undefined && req.utterance !== '' ? { utterance: req.utterance } : {}),
            },
          });
        }
      }
      // zhou §6.2.2 Online Update Delivery, Figure 9: only a client whose template is not the current one is told.
      const suggest = resolved.appliedPatches.length > 0 && schema.meta !== undefined && req.schema_etag !== schema.etag;
      const response: ExecuteResponse = {
        result: reply.result as JsonObject,
        execution_id: executionId,
        agent: schema.agent,
        scenario_id: schema.scenarioId,
        defaults_applied: [...checked.defaults_applied],
        warnings,
        replayed: false,
        ...(suggest && schema.meta ? { schema_update_suggestion: schema.meta.suggestion } : {}),
      };
      const recorded = await recorder.record(
        {
          id: executionId,
          agent: schema.agent,
          schema_id: schema.schemaId,
          scenario_id: schema.scenarioId,
          client_id: clientId,
          keys_present: [...checked.keys_present],
          defaults_applied: [...checked.defaults_applied],
          other_fragments: checked.other_fragments.length,
          duration_ms: durationMs,
          executed_at: now,
          idempotency_key: keyed?.key ?? null,
        },
        events,
        keyed ? { client_id: clientId, key: keyed.key, response } : undefined,
      );
      if (recorded === 'lost' && keyed) {
        // Another process took the key over and committed this very execution first: its answer is the answer.
        const stored = await idem.stored(clientId, keyed.key, deps.clock.now());
        if (stored) {
          meter(undefined);
          return { ...stored, replayed: true };
        }
        throw new ParleyError('unavailable', 'The execution under this idempotency_key was completed elsewhere and its result is not readable yet; retry with the same key', {
          path: 'params.idempotency_key',
          rule: 'completed_elsewhere',
        });
      }
      meter(undefined);
      return response;
    } catch (e) {
      if (keyed) {
        const release = dispatched
          ? idem.releaseLease(clientId, keyed.key, executionId, deps.clock.now())
          : idem.releaseUndispatched(clientId, keyed.key, executionId, keyed.tookOver, deps.clock.now());
        // Best effort: if the database is down, the lease runs out on its own.
        await release.catch((err: unknown) => deps.log.warn('idempotency key not released; its lease will run out', { client_id: clientId, error: err }));
      }
      if (!dispatched) throw e;
      const err = afterDispatch(e, executionId, keyed !== undefined, deps.log);
      meter(err);
      throw err;
    }
  }
}

/**
 * An error after the agent was called. A typed error from the agent's side
 * (agent_error, agent_timeout, agent_response_invalid, …) passes as it is. A
 * failure of Parley's own (the bus, the commit) leaves the outcome unknown: the
 * agent may have acted. It becomes `unavailable`, retryable only when the call
 * carried an idempotency key (a repeat then answers once); without one a retry
 * may execute twice, and the error says so.
 */
function afterDispatch(e: unknown, executionId: string, keyed: boolean, log: Logger): unknown {
  if (e instanceof ParleyError && e.type !== 'unavailable' && e.type !== 'internal') return e;
  // The bus was down before anything was sent (libs/events nats-bus): nothing happened, a retry is safe.
  if (e instanceof ParleyError && e.details.dispatched === false) return e;
  if (!(e instanceof ParleyError)) log.error('execution failed after the agent was called', { execution_id: executionId, error: e });
  return new ParleyError(
    'unavailable',
    (e instanceof ParleyError && e.details.dependency === 'nats' ? 'The message bus (NATS) became unreachable during the call. ' : '') +
    (keyed
      ? 'The agent was called but the execution could not be completed; retry with the same idempotency_key: it runs at most once'
      : 'The agent was called but the execution could not be recorded: it may or may not have taken effect, and retrying without an idempotency_key may execute it twice'),
    { retryable: keyed, details: { outcome: 'unknown', idempotency_key_sent: keyed, ...(e instanceof ParleyError ? e.details : {}) }, cause: e },
  );
}

/** Largest JSON of a sampled value that is not a string (a string is cut instead). */
const MAX_AUDIT_VALUE_JSON = 16 * 1024;

/**
 * The value an audit sample carries (zhou §6.2.3), bounded so the event stays
 * deliverable: a string is cut to MAX_RAW_FRAGMENT_CHARS code points; any other
 * value whose JSON is larger than MAX_AUDIT_VALUE_JSON is not sampled (null).
 */
function auditValue(v: unknown): { value: unknown; truncated: boolean } | null {
  if (typeof v === 'string') {
    if (v.length <= MAX_RAW_FRAGMENT_CHARS) return { value: v, truncated: false };
    const cut = boundFragments([v]).fragments[0] ?? '';
    return { value: cut, truncated: cut.length < v.length };
  }
  return JSON.stringify(v ?? null).length <= MAX_AUDIT_VALUE_JSON ? { value: v, truncated: false } : null;
}

function insertBeforeOther(keys: readonly KeyDefinition[], extra: readonly KeyDefinition[]): KeyDefinition[] {
  const out = keys.slice();
  const i = out.findIndex((k) => k.key_name === OTHER_KEY);
  out.splice(i < 0 ? out.length : i, 0, ...extra);
  return out;
}

function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what} must be a positive integer`);
  return n;
}
