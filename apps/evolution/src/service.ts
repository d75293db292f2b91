import { randomUUID } from 'node:crypto';
import { templateFromWire, type AuditSample, type Decision, type EvolutionApi, type NegotiationApi, type Patch, type PatchKeyView } from '@parley/contracts';
import {
  EventType,
  appendToOutbox,
  type AuditSampledData,
  type EventEnvelope,
  type PatchDocument,
  type PayloadExecutedData,
  type PoolMaturedData,
  type Subjects,
} from '@parley/events';
import { DEFAULT_INDUCTION_OPTIONS, existingKeysFor, induceKey, type InductionResult, type KeyEdit, type Lexicon, type Scope } from '@parley/evolution';
import { createEvolver, type DecisionRecord, type Evolver, type EvolverConfig, type InduceFn, type MaturedCluster, type PatchChange, type PatchRecord } from '@parley/pool';
import { ParleyError, scenarioId, type SchemaTemplate } from '@parley/protocol';
import { createMutex, type Clock, type Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';

/**
 * Patch packaging and long-term evaluation as a service (draft-zhou §6.2.2,
 * §6.2.3), fed by `pool.matured`, `payload.executed` and `audit.sampled`.
 *
 * State: the evolver (patches, key counters, the convergence queue, every
 * decision with its figures) lives in memory and is a deterministic fold of
 * `evolution.inputs` in seq order. Every input is applied and logged under one
 * mutex, with the events it caused in the outbox, in one transaction; a failed
 * transaction (commit included) folds the log again. Induction results are
 * logged with their matured input, so a replay never asks an LLM twice.
 * One writer: run one replica (or split scenarios between replicas).
 */
export type AuditJudgeFn = (input: { key: SchemaTemplate['keys'][number]; value: unknown; utterance: string }) => Promise<{ aligned: boolean; rationale: string }>;

export interface EvolutionServiceDeps {
  db: Db;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  config?: EvolverConfig;
  induce?: InduceFn;
  /** The lexicon of the rule inducer (libs/embeddings loadWordNetLexicon); default none. */
  lexicon?: Lexicon;
  /** An LLM judge for audit samples that carry the user's utterance (§6.2.3); null: operators judge. */
  judge?: { id: string; judge: AuditJudgeFn } | null;
  onOutboxWrite: () => void;
}

type InputKind = 'base' | 'matured' | 'grown' | 'execution' | 'audit' | 'tick' | 'approve' | 'reject' | 'pin' | 'edit';

interface Applied {
  kind: InputKind;
  at: number;
  body: unknown;
  changes: readonly PatchChange[];
}

export interface PreparedMatured {
  base: SchemaTemplate | null;
  induction: InductionResult | null;
}

export interface EvolutionService {
  api: EvolutionApi;
  rebuild(): Promise<void>;
  /** Serialises a unit of work with the in-memory state (use with consumeIdempotently's `serialize`). */
  serialize<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Outside any transaction: the scenario's current base (negotiation) and the
   * induction (rules or an LLM) for a matured cluster.
   */
  prepareMatured(event: EventEnvelope & { type: 'pool.matured' | 'pool.grown' }): Promise<PreparedMatured>;
  /** A matured cluster (§6.2.2 first induction) or a grown one (re-induction while its key is experimental). */
  onMatured(event: EventEnvelope & { type: 'pool.matured' | 'pool.grown' }, tx: Queryable, prepared: PreparedMatured): Promise<void>;
  onExecuted(event: EventEnvelope & { type: 'payload.executed' }, tx: Queryable): Promise<void>;
  /** Stores a sample; returns its id when an LLM judge should look at it after the commit. */
  onAuditSampled(event: EventEnvelope & { type: 'audit.sampled' }, tx: Queryable): Promise<string | null>;
  /** Judges a stored sample with the LLM judge (after its commit). */
  judgePending(sampleId: string): Promise<void>;
  /** §6.2.3: runs the lifecycle at the clock's now; returns the number of changes. */
  tick(): Promise<number>;
  evolver(): Evolver;
}

const scopeFromKey = (key: string): Scope => (key === 'global' ? 'global' : { client_id: key.replace(/^client:/, '') });

const CHANGE_EVENT = {
  published: EventType.PatchPublished,
  updated: EventType.PatchUpdated,
  promoted: EventType.KeyPromoted,
  deprecated: EventType.KeyDeprecated,
  withdrawn: EventType.KeyWithdrawn,
} as const;

export function createEvolutionService(deps: EvolutionServiceDeps): EvolutionService {
  const { db, log } = deps;
  const mutex = createMutex();
  const make = (): Evolver => createEvolver({ templates: [], ...(deps.config ? { config: deps.config } : {}), ...(deps.induce ? { induce: deps.induce } : {}), ...(deps.lexicon ? { lexicon: deps.lexicon } : {}) });
  let evolver = make();

  /** Applies one input to `ev`; the same code runs live and in a replay. */
  function apply(ev: Evolver, kind: InputKind, at: number, body: Record<string, unknown>): readonly PatchChange[] {
    switch (kind) {
      case 'base':
        ev.setBase(body['template'] as SchemaTemplate);
        return [];
      case 'matured':
        return ev.applyMatured(body['matured'] as MaturedCluster, body['induction'] as InductionResult).changes;
      case 'grown':
        return ev.applyGrown(body['matured'] as MaturedCluster, body['induction'] as InductionResult).changes;
      case 'execution':
        ev.recordExecution(body as never);
        return [];
      case 'audit':
        ev.recordAudit({ at, patch_id: String(body['patch_id']), key_name: String(body['key_name']), aligned: body['aligned'] === true });
        return [];
      case 'tick':
        return ev.tick(at).changes;
      case 'approve':
        return ev.approve({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']) });
      case 'reject':
        return ev.reject({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']) });
      case 'pin':
        return ev.pin({ at, patch_id: String(body['patch_id']), actor: String(body['actor']), reason: String(body['reason']), pinned: body['pinned'] === true });
      case 'edit':
        return ev.edit({ at, patch_id: String(body['patch_id']), key_name: String(body['key']), actor: String(body['actor']), reason: String(body['reason']), changes: body['changes'] as KeyEdit }).changes;
    }
  }

  async function record(tx: Queryable, a: Applied, eventId: string | null): Promise<void> {
    await tx.query('INSERT INTO evolution.inputs (event_id, kind, at_ms, body) VALUES ($1, $2, $3, $4)', [eventId, a.kind, a.at, JSON.stringify(a.body)]);
    await appendToOutbox(tx, 'evolution', deps.subjects, a.changes.map((c) => changeEvent(c, deps.clock)));
    if (a.changes.length > 0) deps.onOutboxWrite();
  }

  /** Applies and logs live. Call inside `serialize` and a transaction. */
  async function step(tx: Queryable, kind: InputKind, at: number, body: Record<string, unknown>, eventId: string | null = null): Promise<readonly PatchChange[]> {
    const changes = apply(evolver, kind, at, body);
    await record(tx, { kind, at, body, changes }, eventId);
    for (const c of changes) log.info(`patch ${c.kind}`, { patch_id: c.record.patch.patch_id, key: c.key_name, status: c.record.status, actor: c.actor, reasons: c.reasons });
    return changes;
  }

  async function rebuild(): Promise<void> {
    const started = performance.now();
    const next = make();
    let n = 0;
    for (let after = 0; ; ) {
      const { rows } = await db.query<{ seq: string; kind: InputKind; at_ms: string; body: Record<string, unknown> | string }>(
        'SELECT seq, kind, at_ms, body FROM evolution.inputs WHERE seq > $1 ORDER BY seq LIMIT 2000',
        [after],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        apply(next, r.kind, Number(r.at_ms), typeof r.body === 'string' ? (JSON.parse(r.body) as Record<string, unknown>) : r.body);
        n++;
      }
      after = Number(rows[rows.length - 1]?.seq);
    }
    evolver = next;
    log.info('evolver rebuilt from its input log', { inputs: n, patches: evolver.patches().length, ms: Math.round(performance.now() - started) });
  }

  /** The scenario's current base template, from negotiation (the latest published version). */
  async function currentBase(scenario: string): Promise<SchemaTemplate | null> {
    const { schemas } = await deps.negotiation.listSchemas({ scenario });
    const latest = [...schemas].sort((a, b) => (b.published_at < a.published_at ? -1 : b.published_at > a.published_at ? 1 : b.version - a.version))[0];
    if (!latest) return null;
    const r = await deps.negotiation.getSchema({ schema_id: latest.schema_id, agent: latest.agent, base_only: true });
    return r.template ? templateFromWire(r.template) : null;
  }

  async function transact<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return mutex.run(async () => {
      try {
        return await db.transaction(work);
      } catch (e) {
        await rebuild().catch((err: unknown) => log.error('evolver rebuild failed', { error: String(err) }));
        throw e;
      }
    });
  }

  const now = (): number => deps.clock.now().getTime();
  const actorOf = (ctx: unknown): string => {
    const a = (ctx as { actor?: unknown } | undefined)?.actor;
    return typeof a === 'string' && a !== '' ? a : 'operator';
  };

  const requireReason = (reason: string): string => {
    if (typeof reason !== 'string' || reason.trim() === '') throw new ParleyError('invalid_params', 'reason is required: every decision is stored with why (zhou §6.2.3)', { path: 'params.reason', rule: 'required' });
    if (reason.length > 1000) throw new ParleyError('invalid_params', 'reason is at most 1000 characters', { path: 'params.reason', rule: 'max_length' });
    return reason.trim();
  };

  const findPatch = (id: string): PatchRecord => {
    if (typeof id !== 'string' || id === '') throw new ParleyError('invalid_params', 'patch_id is required', { path: 'params.patch_id', rule: 'required' });
    const r = evolver.patch(id);
    if (!r) throw new ParleyError('patch_not_found', `No schema patch "${id}"`, { path: 'params.patch_id', rule: 'exists' });
    return r;
  };

  const patchOut = (r: PatchRecord): Patch => toPatch(r, evolver, now());

  async function operatorStep(kind: 'approve' | 'reject' | 'pin', body: Record<string, unknown>): Promise<{ patch: Patch }> {
    findPatch(String(body['patch_id']));
    await transact((tx) => step(tx, kind, now(), body));
    return { patch: patchOut(findPatch(String(body['patch_id']))) };
  }

  async function sampleRow(q: Queryable, id: string): Promise<AuditSample> {
    const r = await q.query<SampleRow>('SELECT * FROM evolution.audit_samples WHERE sample_id = $1', [id]);
    const row = r.rows[0];
    if (!row) throw new ParleyError('audit_sample_not_found', `No audit sample "${id}"`, { path: 'params.sample_id', rule: 'exists' });
    return toSample(row);
  }

  /** Stores a verdict and feeds it to the evolver (one logged audit input). */
  async function judgeSample(sampleId: string, aligned: boolean, judgedBy: string, note: string): Promise<AuditSample> {
    return transact(async (tx) => {
      const s = await sampleRow(tx, sampleId);
      if (s.verdict !== 'pending') throw new ParleyError('illegal_transition', `Audit sample "${sampleId}" is already judged (${s.verdict})`, { path: 'params.sample_id', rule: 'pending_only' });
      const at = now();
      await tx.query('UPDATE evolution.audit_samples SET verdict = $2, judged_by = $3, judged_at_ms = $4, note = $5 WHERE sample_id = $1', [sampleId, aligned ? 'aligned' : 'misaligned', judgedBy, at, note.slice(0, 1000)]);
      if (evolver.counters(s.patch_id, s.key_name)) await step(tx, 'audit', at, { patch_id: s.patch_id, key_name: s.key_name, aligned, sample_id: sampleId });
      return sampleRow(tx, sampleId);
    });
  }

  const api: EvolutionApi = {
    async listPatches(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      if (req.status !== undefined && !['proposed', 'active', 'rejected'].includes(req.status)) {
        throw new ParleyError('invalid_params', 'status must be proposed, active or rejected', { path: 'params.status', rule: 'enum' });
      }
      const patches = evolver
        .patches()
        .filter((r) => r.patch.scenario === sc && (req.status === undefined || r.status === req.status) && (req.scope === undefined || scopeLabel(r.patch.scope) === req.scope))
        .map(patchOut);
      const queued = evolver
        .queued()
        .filter((q) => q.scenario === sc)
        .map((q) => ({ cluster_id: q.cluster_id, scenario_id: q.scenario, scope: scopeLabel(q.scope), key_name: q.key.key_name, queued_at: new Date(q.queued_at).toISOString() }));
      return { patches, queued };
    },
    async getPatch(req) {
      return { patch: patchOut(findPatch(req.patch_id)) };
    },
    async approvePatch(req, ctx?: unknown) {
      return operatorStep('approve', { patch_id: req.patch_id, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async rejectPatch(req, ctx?: unknown) {
      return operatorStep('reject', { patch_id: req.patch_id, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async pinPatch(req, ctx?: unknown) {
      return operatorStep('pin', { patch_id: req.patch_id, pinned: req.pinned, reason: requireReason(req.reason), actor: actorOf(ctx) });
    },
    async editPatch(req, ctx?: unknown) {
      const reason = requireReason(req.reason);
      const before = findPatch(req.patch_id);
      if (typeof req.key !== 'string' || req.key === '') throw new ParleyError('invalid_params', 'key is required: the key of the patch to edit', { path: 'params.key', rule: 'required' });
      const changes: KeyEdit = {
        ...(req.rename !== undefined && req.rename !== '' ? { rename: req.rename } : {}),
        ...(req.values.length > 0 ? { values: [...req.values] } : {}),
        ...(req.type !== undefined && req.type !== '' ? { type: req.type } : {}),
        ...(req.description !== undefined && req.description !== '' ? { description: req.description } : {}),
      };
      const body = { patch_id: req.patch_id, key: req.key, changes, reason, actor: actorOf(ctx) };
      // The evolver checks everything before it changes anything: a bad edit throws, nothing is logged (and the fold is rebuilt as after any failed input).
      let outcome: { kind: string; patch_id: string } | null = null;
      await transact(async (tx) => {
        const at = now();
        const r = evolver.edit({ at, patch_id: req.patch_id, key_name: req.key, actor: body.actor, reason, changes });
        outcome = r;
        await record(tx, { kind: 'edit', at, body, changes: r.changes }, null);
        for (const c of r.changes) log.info(`patch ${c.kind}`, { patch_id: c.record.patch.patch_id, key: c.key_name, actor: c.actor, reasons: c.reasons });
      });
      const o = outcome as unknown as { kind: string; patch_id: string };
      return { patch: patchOut(findPatch(o.patch_id)), outcome: o.kind, ...(o.kind === 'replace' ? { replaced: patchOut(findPatch(before.patch.patch_id)) } : {}) };
    },
    async listDecisions(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const limit = req.limit ?? 200;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ParleyError('invalid_params', 'limit must be an integer in 1..1000', { path: 'params.limit', rule: 'range' });
      const after = req.after_seq ?? 0;
      const decisions = evolver
        .decisions()
        .filter((d) => d.scenario === sc && d.seq > after && (req.patch_id === undefined || d.patch_id === req.patch_id))
        .slice(0, limit)
        .map(toDecision);
      return { decisions };
    },
    async listAuditSamples(req) {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      if (req.verdict !== undefined && !['pending', 'aligned', 'misaligned'].includes(req.verdict)) {
        throw new ParleyError('invalid_params', 'verdict must be pending, aligned or misaligned', { path: 'params.verdict', rule: 'enum' });
      }
      const limit = req.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ParleyError('invalid_params', 'limit must be an integer in 1..1000', { path: 'params.limit', rule: 'range' });
      const params: unknown[] = [sc];
      let where = 'scenario_id = $1';
      if (req.patch_id !== undefined) {
        params.push(req.patch_id);
        where += ` AND patch_id = $${params.length}`;
      }
      if (req.verdict !== undefined) {
        params.push(req.verdict);
        where += ` AND verdict = $${params.length}`;
      }
      params.push(limit);
      const r = await db.query<SampleRow>(`SELECT * FROM evolution.audit_samples WHERE ${where} ORDER BY at_ms DESC LIMIT $${params.length}`, params);
      return { samples: r.rows.map(toSample) };
    },
    async judgeAuditSample(req, ctx?: unknown) {
      if (typeof req.sample_id !== 'string' || !/^[0-9a-f-]{36}$/i.test(req.sample_id)) throw new ParleyError('invalid_params', 'sample_id must be a UUID', { path: 'params.sample_id', rule: 'format' });
      return { sample: await judgeSample(req.sample_id, req.aligned, actorOf(ctx), req.note ?? '') };
    },
  };

  return {
    api,
    rebuild,
    serialize: (w) => mutex.run(w),
    async prepareMatured(event) {
      const m: PoolMaturedData = event.data;
      const base = (await currentBase(m.scenario_id)) ?? (evolver.knows(m.scenario_id) ? evolver.base(m.scenario_id) : null);
      if (!base) return { base: null, induction: null };
      // zhou §6.2.2 Intent Induction (rule-based by default, an LLM when configured).
      // One key per intent: the inducer sees the base and the live patches' keys.
      const existing = evolver.knows(m.scenario_id) ? existingKeysFor(base, evolver.patches().filter((r) => r.status !== 'rejected').map((r) => r.patch), scopeFromKey(m.scope), m.matured_at).map((k) => k.definition) : base.keys;
      const induction = await (deps.induce ?? ((i) => Promise.resolve(induceKey(i.samples, DEFAULT_INDUCTION_OPTIONS, { existing: i.existing_keys, ...(deps.lexicon ? { lexicon: deps.lexicon } : {}) }))))({ scenario: m.scenario_id, samples: m.samples, existing_keys: existing });
      return { base, induction };
    },
    async onMatured(event, tx, prepared) {
      const m: PoolMaturedData = event.data;
      const at = m.matured_at;
      if (!prepared.base || !prepared.induction) {
        log.warn('matured cluster of a scenario with no published schema; ignored', { scenario: m.scenario_id, cluster: m.cluster_id });
        return;
      }
      const known = evolver.knows(m.scenario_id) ? evolver.base(m.scenario_id) : null;
      if (!known || known.schema_id !== prepared.base.schema_id) await step(tx, 'base', at, { template: prepared.base });
      await step(tx, event.type === 'pool.grown' ? 'grown' : 'matured', at, { matured: m, induction: prepared.induction }, event.id);
    },
    async onExecuted(event, tx) {
      const e: PayloadExecutedData = event.data;
      if (!evolver.knows(e.scenario_id)) return; // no patch can exist for it yet
      const input = { at: Date.parse(event.occurred_at), scenario: e.scenario_id, client_id: e.client_id, schema_id: e.schema_id, keys_present: e.keys_present, key_type_correct: e.key_type_correct };
      // Only executions that touch a patch key's counters are state; the rest are not logged.
      const touched = evolver.recordExecution(input);
      if (touched) await record(tx, { kind: 'execution', at: input.at, body: input, changes: [] }, event.id);
    },
    async onAuditSampled(event, tx) {
      const d: AuditSampledData = event.data;
      const at = Date.parse(event.occurred_at);
      const r = await tx.query(
        `INSERT INTO evolution.audit_samples (sample_id, patch_id, key_name, scenario_id, client_id, execution_id, at_ms, value, utterance)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (sample_id) DO NOTHING RETURNING sample_id`,
        [d.sample_id, d.patch_id, d.key_name, d.scenario_id, d.client_id, d.execution_id, at, JSON.stringify(d.value ?? null), d.utterance?.slice(0, 4000) ?? null],
      );
      return r.rows.length === 1 && deps.judge && d.utterance ? d.sample_id : null;
    },
    async judgePending(sampleId) {
      const judge = deps.judge;
      if (!judge) return;
      const s = await sampleRow(db, sampleId);
      if (s.verdict !== 'pending' || !s.utterance) return;
      const pk = evolver.patch(s.patch_id)?.patch.new_keys.find((k) => k.definition.key_name === s.key_name);
      if (!pk) return;
      const verdict = await judge.judge({ key: pk.definition, value: s.value, utterance: s.utterance });
      await judgeSample(sampleId, verdict.aligned, judge.id, verdict.rationale).catch((e: unknown) => {
        if (e instanceof ParleyError && e.type === 'illegal_transition') return s; // an operator was faster
        throw e;
      });
    },
    async tick() {
      return transact(async (tx) => {
        const at = now();
        const queuedBefore = evolver.queued().length;
        const t = evolver.tick(at);
        // A tick that changed nothing (no transition, no admission, the queue as it was)
        // leaves the state as it found it, so it need not be logged for a replay.
        if (t.changes.length === 0 && t.decisions.length === 0 && evolver.queued().length === queuedBefore) return 0;
        await record(tx, { kind: 'tick', at, body: {}, changes: t.changes }, null);
        for (const c of t.changes) log.info(`patch ${c.kind}`, { patch_id: c.record.patch.patch_id, key: c.key_name, actor: c.actor, reasons: c.reasons });
        return t.changes.length;
      });
    },
    evolver: () => evolver,
  };
}

// ---------------------------------------------------------------------------
// Wire forms
// ---------------------------------------------------------------------------

const scopeLabel = (s: PatchDocument['scope']): string => (s === 'global' ? 'global' : s.client_id);
const iso = (t: number | null | undefined): string => (t === null || t === undefined ? '' : new Date(t).toISOString());

export function patchDocument(r: PatchRecord): PatchDocument {
  const p = r.patch;
  return {
    patch_id: p.patch_id,
    parent_schema_id: p.parent_schema_id,
    scenario: p.scenario,
    scope: p.scope === 'global' ? 'global' : { client_id: p.scope.client_id },
    timestamp: p.timestamp,
    expires_at: p.expires_at,
    source_cluster_id: p.source_cluster_id,
    new_keys: p.new_keys.map((k) => JSON.parse(JSON.stringify(k)) as unknown),
    modified_keys: p.modified_keys.map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) })),
    status: r.status,
    pinned: r.pinned,
    approval_reasons: [...r.approval_reasons],
    revision: r.revision,
  };
}

function changeEvent(c: PatchChange, clock: Clock): EventEnvelope {
  return {
    id: randomUUID(),
    type: CHANGE_EVENT[c.kind],
    scenario_id: c.record.patch.scenario,
    occurred_at: clock.now().toISOString(),
    source: 'evolution',
    data: { patch: patchDocument(c.record), ...(c.key_name ? { key_name: c.key_name } : {}), reasons: [...c.reasons], figures: { ...c.figures }, actor: c.actor },
  } as EventEnvelope;
}

function toPatch(r: PatchRecord, ev: Evolver, now: number): Patch {
  const p = r.patch;
  const keys: PatchKeyView[] = p.new_keys.map((k) => {
    const m = ev.metrics(p.patch_id, k.definition.key_name, now);
    return {
      definition: k.definition as PatchKeyView['definition'],
      state: k.lifecycle.state,
      state_since: iso(k.lifecycle.state_since),
      ...(k.lifecycle.accept_until !== null ? { accept_until: iso(k.lifecycle.accept_until) } : {}),
      history: k.lifecycle.history.map((h) => ({ from: h.from, to: h.to, at: iso(h.at), reasons: [...h.reasons], figures: { ...h.figures }, actor: '' })),
      metrics: {
        ...(m?.usage_frequency != null ? { usage_frequency: m.usage_frequency } : {}),
        ...(m?.value_type_correctness != null ? { value_type_correctness: m.value_type_correctness } : {}),
        ...(m?.client_adoption_rate != null ? { client_adoption_rate: m.client_adoption_rate } : {}),
        ...(m?.semantic_alignment_accuracy != null ? { semantic_alignment_accuracy: m.semantic_alignment_accuracy } : {}),
        payloads: m?.payloads ?? 0,
        uses: m?.payloads_with_key ?? 0,
        audits: m?.audited ?? 0,
        clients_received: m?.clients_received ?? 0,
        clients_adopted: m?.clients_adopted ?? 0,
      },
    };
  });
  return {
    patch_id: p.patch_id,
    parent_schema_id: p.parent_schema_id,
    scenario_id: p.scenario,
    scope: scopeLabel(p.scope),
    status: r.status,
    pinned: r.pinned,
    timestamp: iso(p.timestamp),
    expires_at: iso(p.expires_at),
    ...(p.source_cluster_id ? { source_cluster_id: p.source_cluster_id } : {}),
    new_keys: keys,
    modified_keys: p.modified_keys.map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) })),
    approval_reasons: [...r.approval_reasons],
    revision: r.revision,
  };
}

function toDecision(d: DecisionRecord): Decision {
  return {
    seq: d.seq,
    at: iso(d.at),
    scenario_id: d.scenario,
    patch_id: d.patch_id,
    key_name: d.key_name,
    action: d.action,
    reasons: [...d.reasons],
    figures: { ...d.figures, ...(d.from ? { from: d.from } : {}), ...(d.to ? { to: d.to } : {}) },
    actor: d.actor,
  };
}

interface SampleRow {
  sample_id: string;
  patch_id: string;
  key_name: string;
  scenario_id: string;
  client_id: string;
  execution_id: string;
  at_ms: string;
  value: unknown;
  utterance: string | null;
  verdict: string;
  judged_by: string | null;
  judged_at_ms: string | null;
}

function toSample(r: SampleRow): AuditSample {
  return {
    sample_id: r.sample_id,
    patch_id: r.patch_id,
    key_name: r.key_name,
    scenario_id: r.scenario_id,
    client_id: r.client_id,
    execution_id: r.execution_id,
    at: iso(Number(r.at_ms)),
    // jsonb arrives parsed (pg and PGlite alike): a JSON string is a JS string here.
    value: r.value as AuditSample['value'],
    ...(r.utterance ? { utterance: r.utterance } : {}),
    verdict: r.verdict,
    ...(r.judged_by ? { judged_by: r.judged_by } : {}),
    ...(r.judged_at_ms ? { judged_at: iso(Number(r.judged_at_ms)) } : {}),
  };
}
