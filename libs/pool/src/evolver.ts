/**
 * The evolver: what happens to a mature cluster and to the patches it yields
 * (draft-zhou §6.2.2 intent induction, conflict detection and patch
 * packaging; §6.2.3 long-term evaluation, the lifecycle and the convergence
 * guard), plus the operator's decisions (approve, reject, pin).
 *
 * Determinism: every method takes its time as an input and the state after a
 * sequence of calls depends only on the calls. Induction is split off
 * (`induce`, async, may call an LLM) from its application (`applyMatured`,
 * sync), so apps/evolution stores the induction result with the input and a
 * replay after a restart applies the same candidate without asking again.
 *
 * Approval (§6.2 "updates that add capabilities or touch security-relevant
 * keys" need authorization, §7): in `auto` mode a patch is published active at
 * once unless one of its keys is security-relevant (approval.ts), in which
 * case it waits, `proposed`, for an operator; in `manual` mode every patch
 * waits. Proposed patches are invisible to clients but hold their key names
 * and their convergence-guard slot.
 */
import {
  keyMetrics,
  type InductionResult,
  type InductionSample,
  type KeyCounters,
  type KeyEdit,
  type KeyMetrics,
  type Lexicon,
  type LifecycleConfig,
  type QueuedCandidate,
  type SchemaPatch,
} from '@parley/evolution';
import { scenarioId, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { recordAudit, recordExecution, tick } from './evolver-evaluation';
import { applyGrown, applyMatured, induceMatured } from './evolver-induction';
import { approve, edit, pin, reject } from './evolver-operator';
import { active, baseFor, ckey, createStore } from './evolver-store';
import type { MaturedCluster } from './semantic-pool';

export type PatchStatus = 'proposed' | 'active' | 'rejected';

/** A patch and the evolver's own record of it (the `PatchDocument` of the patch events). */
export interface PatchRecord {
  readonly patch: SchemaPatch;
  readonly status: PatchStatus;
  readonly pinned: boolean;
  /** Why the patch waits for an operator (empty when it did not). */
  readonly approval_reasons: readonly string[];
  /** Increases with every change. */
  readonly revision: number;
}

export type ChangeKind = 'published' | 'updated' | 'promoted' | 'deprecated' | 'withdrawn';

/** One change to publish (apps/evolution turns each into an event). */
export interface PatchChange {
  readonly kind: ChangeKind;
  readonly record: PatchRecord;
  readonly key_name?: string;
  readonly reasons: readonly string[];
  readonly figures: Readonly<Record<string, number | null>>;
  readonly actor: string;
}

/** Every decision, stored with the figures that drove it (§6.2.3 "every decision stored with its metrics"). */
export interface DecisionRecord {
  readonly seq: number;
  readonly at: number;
  readonly scenario: string;
  readonly patch_id: string;
  /** Empty for decisions about a whole patch or a cluster. */
  readonly key_name: string;
  readonly action: 'publish' | 'propose' | 'merge' | 'refine' | 'supersede' | 'edit' | 'queue' | 'redundant' | 'reject_candidate' | 'promote' | 'deprecate' | 'withdraw' | 'approve' | 'reject' | 'pin' | 'unpin';
  /** Key state before and after, for key transitions. */
  readonly from?: string;
  readonly to?: string;
  readonly reasons: readonly string[];
  readonly figures: Readonly<Record<string, number | string | null>>;
  /** `evaluator`, `inducer` or the operator's name. */
  readonly actor: string;
}

export interface TriggerReport {
  readonly at: number;
  readonly cluster_id: string;
  readonly scenario: string;
  /** `global` or the client id. */
  readonly scope: string;
  readonly outcome: 'patched' | 'merged' | 'queued' | 'redundant' | 'rejected';
  readonly patch_id: string | null;
  /** The candidate key, when induction produced one. */
  readonly key_name: string | null;
  readonly reasons: readonly string[];
  readonly heat: number;
  readonly distinct_clients: number;
  readonly branch: string;
}

export interface ExecutionInput {
  readonly at: number;
  readonly scenario: string;
  readonly client_id: string;
  /** Default: the scenario's base schema_id. */
  readonly schema_id?: string;
  readonly keys_present: readonly string[];
  /** Keys whose value had the declared type; default: every present key. */
  readonly key_type_correct?: Readonly<Record<string, boolean>>;
}

export interface AuditInput {
  readonly at: number;
  readonly patch_id: string;
  readonly key_name: string;
  readonly aligned: boolean;
}

export interface OperatorAction {
  readonly at: number;
  readonly patch_id: string;
  readonly actor: string;
  readonly reason: string;
}

/** An operator's edit of one key a patch adds (libs/evolution edit.ts says what each member may be). */
export interface EditAction extends OperatorAction {
  readonly key_name: string;
  readonly changes: KeyEdit;
}

export interface EditOutcome {
  readonly changes: PatchChange[];
  /** The patch that now carries the edited key (the same one, a refinement, or the new key's patch). */
  readonly patch_id: string;
  /** How the edit reached clients: in place (proposed), a refinement patch, or a new key with the old one deprecated. */
  readonly kind: 'in_place' | 'refine' | 'replace';
}

export interface EvolverConfig {
  /** zhou §6.2.3 lifecycle figures (trial, grace, thresholds, convergence guard). */
  readonly lifecycle?: Partial<LifecycleConfig>;
  /** zhou §6.2.2 "an expiration date": patches expire this long after their timestamp. Default 30 days. */
  readonly patch_ttl_ms?: number;
  /** `auto` (default): publish at once unless a key is security-relevant; `manual`: every patch waits for an operator. */
  readonly approval?: 'auto' | 'manual';
  /**
   * The rule inducer reads a choice from a word's slot (`InductionOptions.frame_choices`, libs/evolution frames.ts).
   * Off by default: it gained nothing on the dev streams and put names, health words and places into values.
   */
  readonly frame_choices?: boolean;
}

/** The intent inducer port (libs/llm implements it; the default is libs/evolution's rule-based `induceKey`). */
/**
 * What `Evolver.induce` gives: the induction, and, when the cluster says what the cluster behind a live experimental
 * key says (one key per intent, zhou §6.2.2), that key's name: the induction was made over both clusters' samples
 * and is applied to that key (a refinement, a supersession or covered). Logged with the cluster (JSON), so a replay
 * applies the same decision; a record without it (older logs, another inducer) has no sibling.
 */
export type EvolverInduction = InductionResult & {
  readonly sibling_key?: string;
  /**
   * The version of the rules that apply an induction (`APPLY_RULES`), logged with it so that a replay of an older
   * record decides what applying it live decided then; absent in records older than the field (version 1).
   */
  readonly apply_rules?: number;
  /**
   * How the induction relates to its sibling key, decided when it was induced (the lexicon is read then, never when
   * it is applied): 'count_covers_flag', an integer `<noun>_count` beside the yes/no key of that noun (count-covers.ts),
   * which it supersedes while that key is experimental (apply rules 3 on). Absent otherwise.
   */
  readonly sibling_relation?: 'count_covers_flag';
};

export type InduceFn = (input: { readonly scenario: string; readonly samples: readonly InductionSample[]; readonly existing_keys: readonly KeyDefinition[] }) => Promise<InductionResult>;

export interface CreateEvolverOptions {
  /** The base templates (zhou §4.1), one per scenario; a later one for the same scenario wins. */
  readonly templates: readonly SchemaTemplate[];
  readonly config?: EvolverConfig;
  readonly induce?: InduceFn;
  /** The lexicon the rule inducer reads words through (libs/embeddings loadWordNetLexicon); default none. */
  readonly lexicon?: Lexicon;
}

export interface TickOutcome {
  readonly at: number;
  readonly decisions: readonly DecisionRecord[];
  readonly changes: readonly PatchChange[];
}

export interface Evolver {
  readonly lifecycle: LifecycleConfig;
  readonly approval: 'auto' | 'manual';
  readonly scenarios: readonly string[];
  /** §6.2.2 Intent Induction for a matured cluster (async: may ask an LLM). */
  induce(m: MaturedCluster): Promise<EvolverInduction>;
  /**
   * §6.2.2 conflict detection, the §6.2.3 guard and packaging, with the induction `induce` gave (or one logged
   * with the cluster: a replay applies it and decides as live did).
   */
  applyMatured(m: MaturedCluster, induction: EvolverInduction): { report: TriggerReport; changes: PatchChange[] };
  /**
   * Induction over the cluster's life: a matured cluster grew; its key, while
   * experimental, gains the values the grown cluster supports (a refinement
   * patch with modified_keys, through the normal signed path). A published
   * key is never renamed or retyped here.
   */
  applyGrown(m: MaturedCluster, induction: EvolverInduction): { changes: PatchChange[] };
  /** §6.2.3 metrics from one executed payload; false when no patch key of the scenario was concerned. */
  recordExecution(e: ExecutionInput): boolean;
  /** §6.2.3 semantic_alignment_accuracy: one audit verdict. */
  recordAudit(a: AuditInput): void;
  /** §6.2.3: evaluate every active, unpinned patch key at `now` and admit queued candidates. */
  tick(now: number): TickOutcome;
  approve(a: OperatorAction): PatchChange[];
  reject(a: OperatorAction): PatchChange[];
  pin(a: OperatorAction & { readonly pinned: boolean }): PatchChange[];
  /**
   * An operator's correction of a key (§6.2: authorized updates): in place on a
   * proposed patch; on a published experimental key a refinement patch, or a
   * new key plus the deprecation of the old one when it is renamed. Every edit
   * is a decision with who and why; a bad one is a typed error that changes nothing.
   */
  edit(a: EditAction): EditOutcome;
  patches(): readonly PatchRecord[];
  patch(id: string): PatchRecord | null;
  /** Patches clients see (status active). */
  activePatches(): SchemaPatch[];
  metrics(patchId: string, keyName: string, now: number): KeyMetrics | null;
  counters(patchId: string, keyName: string): KeyCounters | null;
  decisions(): readonly DecisionRecord[];
  triggers(): readonly TriggerReport[];
  queued(): readonly QueuedCandidate[];
  base(scenario: string): SchemaTemplate;
  /** Whether a base template is known for the scenario. */
  knows(scenario: string): boolean;
  /**
   * Sets (or replaces) a scenario's base template, e.g. when a server agent
   * publishes a new version. New patches take the new base as their parent;
   * older patches keep theirs (effective templates ignore a patch whose
   * parent is not the served base).
   */
  setBase(template: SchemaTemplate): void;
}

/**
 * The evolver: a store (evolver-store.ts) and the handlers that act on it, wired. Mature clusters and their growth:
 * evolver-induction.ts (draft-zhou §6.2.2, the §6.2.3 guard); metrics and the periodic assessment:
 * evolver-evaluation.ts (§6.2.3); the operator's decisions: evolver-operator.ts (§6.2, §7).
 */
export function createEvolver(opts: CreateEvolverOptions): Evolver {
  const st = createStore(opts);
  return {
    lifecycle: st.lifecycle,
    approval: st.approval,
    get scenarios() {
      return [...st.bases.keys()];
    },
    induce: (m) => induceMatured(st, m),
    applyMatured: (m, induced) => applyMatured(st, m, induced),
    applyGrown: (m, induced) => applyGrown(st, m, induced),
    recordExecution: (e) => recordExecution(st, e),
    recordAudit: (a) => recordAudit(st, a),
    tick: (now) => tick(st, now),
    approve: (a) => approve(st, a),
    reject: (a) => reject(st, a),
    pin: (a) => pin(st, a),
    edit: (a) => edit(st, a),
    patches: () => st.records,
    patch: (id) => st.records.find((x) => x.patch.patch_id === id) ?? null,
    activePatches: () => active(st),
    metrics(patchId, keyName, now) {
      const c = st.counters.get(ckey(patchId, keyName));
      return c ? keyMetrics(c, now, st.lifecycle) : null;
    },
    counters: (patchId, keyName) => st.counters.get(ckey(patchId, keyName)) ?? null,
    decisions: () => st.decisionLog,
    triggers: () => st.triggers,
    queued: () => st.queue,
    base: (scenario) => baseFor(st, scenario, 'scenario'),
    knows(scenario) {
      try {
        return st.bases.has(scenarioId(scenario));
      } catch {
        return false;
      }
    },
    setBase(template) {
      st.bases.set(scenarioId(template.scenario), template);
    },
  };
}
