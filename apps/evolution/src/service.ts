import type { EvolutionApi, NegotiationApi } from '@parley/contracts';
import { templateFromWire } from '@parley/contracts';
import type { AuditSampledData, EventEnvelope, PayloadExecutedData, PoolMaturedData, Subjects } from '@parley/events';
import { DEFAULT_INDUCTION_OPTIONS, existingKeysFor, induceKey, type InductionResult, type Lexicon, type Scope } from '@parley/evolution';
import { APPLY_RULES, type Evolver, type EvolverConfig, type InduceFn, type MaturedCluster } from '@parley/pool';
import { ParleyError, scenarioId, type SchemaTemplate } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import { createAuditSamples } from './audit-samples';
import { createInputLog } from './input-log';
import { createOperatorApi } from './operator-api';

export { patchDocument } from './wire';

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
  /**
   * Whether onExecuted would record `event` now: its scenario is known and has an active patch, whose keys'
   * counters the execution moves (draft-zhou §6.2.3). Pure; false means onExecuted would write nothing.
   */
  concernsExecution(event: EventEnvelope & { type: 'payload.executed' }): boolean;
  /** Stores a sample; returns its id when an LLM judge should look at it after the commit. */
  onAuditSampled(event: EventEnvelope & { type: 'audit.sampled' }, tx: Queryable): Promise<string | null>;
  /** Judges a stored sample with the LLM judge (after its commit). */
  judgePending(sampleId: string): Promise<void>;
  /** §6.2.3: runs the lifecycle at the clock's now; returns the number of changes. */
  tick(): Promise<number>;
  evolver(): Evolver;
}

const scopeFromKey = (key: string): Scope => (key === 'global' ? 'global' : { client_id: key.replace(/^client:/, '') });

/**
 * The wiring: the evolver's input log (input-log.ts), the audit samples (audit-samples.ts) and the
 * operators' API (operator-api.ts), with the handlers of the events that feed them and the lifecycle tick.
 */
export function createEvolutionService(deps: EvolutionServiceDeps): EvolutionService {
  const { db, log } = deps;
  const inputs = createInputLog(deps);
  const samples = createAuditSamples(db, inputs, deps.clock);
  const evolver = () => inputs.current();

  /** The scenario's current base template, from negotiation (the latest published version). */
  async function currentBase(scenario: string): Promise<SchemaTemplate | null> {
    const { schemas } = await deps.negotiation.listSchemas({ scenario });
    const latest = [...schemas].sort((a, b) => (b.published_at < a.published_at ? -1 : b.published_at > a.published_at ? 1 : b.version - a.version))[0];
    if (!latest) return null;
    const r = await deps.negotiation.getSchema({ schema_id: latest.schema_id, agent: latest.agent, base_only: true });
    return r.template ? templateFromWire(r.template) : null;
  }

  return {
    api: createOperatorApi(inputs, samples, deps.clock),
    rebuild: () => inputs.rebuild(),
    serialize: (w) => inputs.serialize(w),
    async prepareMatured(event) {
      const m: PoolMaturedData = event.data;
      const published = await currentBase(m.scenario_id);
      const ev = evolver();
      const base = published ?? (ev.knows(m.scenario_id) ? ev.base(m.scenario_id) : null);
      if (!base) return { base: null, induction: null };
      // zhou §6.2.2 Intent Induction (rule-based by default, an LLM when configured).
      // One key per intent: the inducer sees the base and the live patches' keys.
      // One key per intent across clusters (zhou §6.2.2): with the evolver's own base, its induction also finds the
      // live key another cluster already says (`sibling_key`), logged with the induction so a replay applies the same.
      if (ev.knows(m.scenario_id) && ev.base(m.scenario_id).schema_id === base.schema_id) return { base, induction: await ev.induce(m as MaturedCluster) };
      const existing = ev.knows(m.scenario_id) ? existingKeysFor(base, ev.patches().filter((r) => r.status !== 'rejected').map((r) => r.patch), scopeFromKey(m.scope), m.matured_at).map((k) => k.definition) : base.keys;
      const induction = await (deps.induce ?? ((i) => Promise.resolve(induceKey(i.samples, DEFAULT_INDUCTION_OPTIONS, { existing: i.existing_keys, ...(deps.lexicon ? { lexicon: deps.lexicon } : {}) }))))({ scenario: m.scenario_id, samples: m.samples, existing_keys: existing });
      return { base, induction: { ...induction, apply_rules: APPLY_RULES } };
    },
    async onMatured(event, tx, prepared) {
      const m: PoolMaturedData = event.data;
      const at = m.matured_at;
      if (!prepared.base || !prepared.induction) {
        log.warn('matured cluster of a scenario with no published schema; ignored', { scenario: m.scenario_id, cluster: m.cluster_id });
        return;
      }
      const ev = evolver();
      const known = ev.knows(m.scenario_id) ? ev.base(m.scenario_id) : null;
      if (!known || known.schema_id !== prepared.base.schema_id) await inputs.step(tx, 'base', at, { template: prepared.base });
      await inputs.step(tx, event.type === 'pool.grown' ? 'grown' : 'matured', at, { matured: m, induction: prepared.induction }, event.id);
    },
    concernsExecution(event) {
      // While a unit of work runs or waits (an approval, an edit, a matured cluster), memory may be about to gain an
      // active patch this execution counts for: the normal path, queued behind it on the mutex, decides then.
      if (!inputs.idle()) return true;
      const ev = evolver();
      const scenario = (event.data as PayloadExecutedData).scenario_id;
      if (!ev.knows(scenario)) return false;
      // As recordExecution (libs/pool evolver-evaluation.ts): the patches of the base's scenario with status active.
      const id = scenarioId(ev.base(scenario).scenario);
      return ev.activePatches().some((p) => p.scenario === id);
    },
    async onExecuted(event, tx) {
      const e: PayloadExecutedData = event.data;
      if (!evolver().knows(e.scenario_id)) return; // no patch can exist for it yet
      const input = { at: Date.parse(event.occurred_at), scenario: e.scenario_id, client_id: e.client_id, schema_id: e.schema_id, keys_present: e.keys_present, key_type_correct: e.key_type_correct };
      // Only executions that touch a patch key's counters are state; the rest are not logged.
      const touched = evolver().recordExecution(input);
      if (touched) await inputs.record(tx, { kind: 'execution', at: input.at, body: input, changes: [] }, event.id);
    },
    async onAuditSampled(event, tx) {
      const d: AuditSampledData = event.data;
      const stored = await samples.store(tx, d, Date.parse(event.occurred_at));
      return stored && deps.judge && d.utterance ? d.sample_id : null;
    },
    async judgePending(sampleId) {
      const judge = deps.judge;
      if (!judge) return;
      const s = await samples.get(db, sampleId);
      if (s.verdict !== 'pending' || !s.utterance) return;
      const pk = evolver().patch(s.patch_id)?.patch.new_keys.find((k) => k.definition.key_name === s.key_name);
      if (!pk) return;
      const verdict = await judge.judge({ key: pk.definition, value: s.value, utterance: s.utterance });
      await samples.judge(sampleId, verdict.aligned, judge.id, verdict.rationale).catch((e: unknown) => {
        if (e instanceof ParleyError && e.type === 'illegal_transition') return s; // an operator was faster
        throw e;
      });
    },
    async tick() {
      // §6.2.3: the long-term evaluation of every patch key at the clock's now.
      return inputs.transact(async (tx) => {
        const at = deps.clock.now().getTime();
        const ev = evolver();
        const queuedBefore = ev.queued().length;
        const t = ev.tick(at);
        // A tick that changed nothing (no transition, no admission, the queue as it was)
        // leaves the state as it found it, so it need not be logged for a replay.
        if (t.changes.length === 0 && t.decisions.length === 0 && ev.queued().length === queuedBefore) return 0;
        await inputs.record(tx, { kind: 'tick', at, body: {}, changes: t.changes }, null);
        inputs.logChanges(t.changes);
        return t.changes.length;
      });
    },
    evolver,
  };
}
