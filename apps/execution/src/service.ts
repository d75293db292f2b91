import { randomUUID } from 'node:crypto';
import type { ExecuteRequest, ExecuteResponse, ExecutionApi, NegotiationApi } from '@parley/contracts';
import type { Bus, Subjects } from '@parley/events';
import { ParleyError, agentError, decodeDispatchReply, encodeDispatch, toParleyError, parseIdempotencyKey, type JsonObject } from '@parley/protocol';
import type { Clock, Logger, Metrics } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { executionEvents, type AuditSampling } from './execution-events';
import { createIdempotencyStore, requestHash, type IdempotencyStore } from './idempotency';
import { createRecorder, type Recorder } from './recorder';
import { checkWithdrawn, createTemplateCache, type TemplateCache } from './templates';

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
 * - in the scenarios an operator lists in `auditScenarios` (draft-zhou §7, sensitive data at rest: payload
 *   values are never stored unless an operator enables it per scenario), each
 *   patch key present in a payload is sampled, with probability
 *   `auditSampleRate`, into an `audit.sampled` event (its value and the
 *   utterance, for the semantic_alignment_accuracy audit). Base-key values
 *   never leave the service.
 *
 * A payload that fails anywhere before the agent answers records nothing.
 *
 * The units: templates.ts (resolution and compiled-validator caches, withdrawn
 * keys), execution-events.ts (the recorded events and the audit sampler),
 * idempotency.ts (keys), recorder.ts (the transaction with its outbox rows);
 * this file checks the request and runs one execution through them.
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
   * every scenario). Default none: a value is stored only where an operator enabled it (draft-zhou §7, sensitive data at rest).
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

const CLIENT_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

/** ExecutionService, and the idempotency keys behind it (the service purges expired ones on a timer). */
export type ExecutionService = ExecutionApi & { idempotency: IdempotencyStore };

/** What one execution needs: the service's dependencies and units. */
interface Execution {
  deps: ExecutionServiceDeps;
  templates: TemplateCache;
  recorder: Recorder;
  idem: IdempotencyStore;
  audit: AuditSampling;
}

export function createExecutionService(deps: ExecutionServiceDeps): ExecutionService {
  const ttl = deps.patchCacheTtlMs ?? DEFAULT_PATCH_CACHE_TTL_MS;
  if (!Number.isFinite(ttl) || ttl < 0) throw new RangeError('patchCacheTtlMs must be a non-negative number of milliseconds');
  const sampleRate = deps.auditSampleRate ?? DEFAULT_AUDIT_SAMPLE_RATE;
  if (!(sampleRate >= 0 && sampleRate <= 1)) throw new RangeError('auditSampleRate must be between 0 and 1');
  const auditScenarios = new Set(deps.auditScenarios ?? []);
  const x: Execution = {
    deps,
    templates: createTemplateCache({
      negotiation: deps.negotiation,
      clock: deps.clock,
      log: deps.log,
      cacheSize: positiveInt(deps.cacheSize ?? 1000, 'cacheSize'),
      resolutionCacheSize: positiveInt(deps.resolutionCacheSize ?? 10_000, 'resolutionCacheSize'),
      ttlMs: ttl,
    }),
    recorder: createRecorder({ db: deps.db, subjects: deps.subjects, onCommit: deps.onOutboxWrite, logger: deps.log }),
    idem: createIdempotencyStore({ db: deps.db, ttlMs: deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, leaseMs: deps.timeoutMs + LEASE_GRACE_MS }),
    audit: { sampleRate, audited: (scenarioId) => auditScenarios.has('*') || auditScenarios.has(scenarioId), random: deps.random ?? Math.random },
  };

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
      if (key === undefined) return perform(x, request, clientId, randomUUID(), undefined);
      const begun = await x.idem.begin({ clientId, key, hash: requestHash({ schema_id: req.schema_id, agent: req.agent, payload: req.payload }), now: deps.clock.now() });
      if (begun.kind === 'replay') {
        deps.log.info('idempotent repeat answered with the stored result', { client_id: clientId, execution_id: begun.response.execution_id });
        return { ...begun.response, replayed: true };
      }
      return perform(x, request, clientId, begun.executionId, { key, tookOver: begun.tookOver });
    },
    idempotency: x.idem,
  };
}

/**
 * Validates, dispatches and records one execution under `executionId`. With a
 * key, a failure frees the key (before the agent was called) or its lease
 * (after: the agent may have acted, and a repeat dispatches the same
 * execution_id again). An `unavailable` after the agent was called is
 * retryable only with a key: without one the outcome is unknown.
 */
async function perform(x: Execution, req: ExecuteRequest & { payload: JsonObject }, clientId: string, executionId: string, keyed: { key: string; tookOver: boolean } | undefined): Promise<ExecuteResponse> {
  let dispatched = false;
  // Metrics: every dispatch counts once, by its outcome (agent_timeout also in parley_agent_timeouts_total), with the agent's round trip.
  let metered: { scenario: string; agent: string; startedAt: number; seconds?: number } | undefined;
  const meter = (e: unknown) => {
    if (metered) x.deps.metrics?.execution(metered.scenario, metered.agent, e === undefined ? undefined : toParleyError(e).type, metered.seconds ?? (performance.now() - metered.startedAt) / 1000);
  };
  try {
    const resolved = await x.templates.resolve(req.schema_id, req.agent, clientId);
    const schema = resolved.compiled;
    const warnings = resolved.withdrawn.length > 0 ? checkWithdrawn(resolved, req.payload, clientId, x.deps.clock, x.deps.log) : [];
    const checked = schema.validator.validate(req.payload);

    const startedAt = performance.now();
    dispatched = true;
    metered = { scenario: schema.scenarioId, agent: schema.agent, startedAt };
    const reply = decodeDispatchReply(
      await x.deps.bus.request(
        x.deps.subjects.execute(schema.scenarioId, schema.agent),
        encodeDispatch({
          execution_id: executionId,
          schema_id: schema.schemaId,
          scenario_id: schema.scenarioId,
          client_id: clientId,
          payload: checked.payload,
          deadline: new Date(x.deps.clock.now().getTime() + x.deps.timeoutMs).toISOString(),
          ...(keyed ? { idempotency_key: keyed.key } : {}),
        }),
        { timeoutMs: x.deps.timeoutMs },
      ),
      schema.agent,
    );
    if (!reply.ok) throw agentError(schema.agent, reply.error);
    schema.response?.check(reply.result, schema.agent);
    const durationMs = Math.round(performance.now() - startedAt);
    metered.seconds = (performance.now() - startedAt) / 1000;

    const now = x.deps.clock.now().toISOString();
    const events = executionEvents({ req, resolved, checked, clientId, executionId, durationMs, now }, x.audit, x.deps.log);
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
    const recorded = await x.recorder.record(
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
      const stored = await x.idem.stored(clientId, keyed.key, x.deps.clock.now());
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
        ? x.idem.releaseLease(clientId, keyed.key, executionId, x.deps.clock.now())
        : x.idem.releaseUndispatched(clientId, keyed.key, executionId, keyed.tookOver, x.deps.clock.now());
      // Best effort: if the database is down, the lease runs out on its own.
      await release.catch((err: unknown) => x.deps.log.warn('idempotency key not released; its lease will run out', { client_id: clientId, error: err }));
    }
    if (!dispatched) throw e;
    const err = afterDispatch(e, executionId, keyed !== undefined, x.deps.log);
    meter(err);
    throw err;
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

function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what} must be a positive integer`);
  return n;
}
