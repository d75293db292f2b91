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
  DEFAULT_INDUCTION_OPTIONS,
  DEFAULT_PATCH_TTL_MS,
  admitCandidate,
  applyDecision,
  detectConflict,
  editKeyDefinition,
  evaluateKey,
  existingKeysFor,
  induceKey,
  keyMetrics,
  keyNameSignature,
  lifecycleConfig,
  newEnumValues,
  newKeyCounters,
  nextAdmissible,
  packagePatch,
  planKeyEdit,
  choiceLike,
  oneSlot,
  profileCosine,
  samePatternIntent,
  SIBLING_COSINE,
  wordProfile,
  recordAudit as recordAuditRule,
  recordExecution as recordExecutionRule,
  scopeClient,
  supersedeKey,
  transition,
  withKeyLifecycle,
  withValues,
  type AcceptedKey,
  type Candidate,
  type InductionResult,
  type InductionSample,
  type KeyCounters,
  type KeyEdit,
  type KeyMetrics,
  type Lexicon,
  type LifecycleConfig,
  type ModifiedKey,
  type QueuedCandidate,
  type SchemaPatch,
  type Scope,
} from '@parley/evolution';
import { ParleyError, scenarioId, type JsonValue, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { securityRelevance } from './approval';
import { poolError } from './errors';
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
}

/** The intent inducer port (libs/llm implements it; the default is libs/evolution's rule-based `induceKey`). */
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
  induce(m: MaturedCluster): Promise<InductionResult>;
  /** §6.2.2 conflict detection, the §6.2.3 guard and packaging, with the induction `induce` gave. */
  applyMatured(m: MaturedCluster, induction: InductionResult): { report: TriggerReport; changes: PatchChange[] };
  /**
   * Induction over the cluster's life: a matured cluster grew; its key, while
   * experimental, gains the values the grown cluster supports (a refinement
   * patch with modified_keys, through the normal signed path). A published
   * key is never renamed or retyped here.
   */
  applyGrown(m: MaturedCluster, induction: InductionResult): { changes: PatchChange[] };
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

const scopeOf = (key: string): Scope => (key === 'global' ? 'global' : { client_id: key.replace(/^client:/, '') });
const scopeLabel = (s: Scope): string => scopeClient(s) ?? 'global';
const ckey = (patchId: string, key: string): string => `${patchId}/${key}`;

export function createEvolver(opts: CreateEvolverOptions): Evolver {
  const cfg = opts.config ?? {};
  const lifecycle = lifecycleConfig(cfg.lifecycle ?? {});
  const ttl = cfg.patch_ttl_ms ?? DEFAULT_PATCH_TTL_MS;
  if (!(ttl > 0)) throw poolError('config', 'patch_ttl_ms', `patch_ttl_ms must be positive, got ${ttl}`);
  const approval = cfg.approval ?? 'auto';
  if (approval !== 'auto' && approval !== 'manual') throw poolError('config', 'approval', `approval must be "auto" or "manual", got ${JSON.stringify(approval)}`);
  const induceFn: InduceFn = opts.induce ?? (async (input) => induceKey(input.samples, DEFAULT_INDUCTION_OPTIONS, { existing: input.existing_keys, ...(opts.lexicon ? { lexicon: opts.lexicon } : {}) }));

  const bases = new Map<string, SchemaTemplate>();
  for (const t of opts.templates) bases.set(scenarioId(t.scenario), t);

  let records: PatchRecord[] = [];
  const counters = new Map<string, KeyCounters>();
  let queue: readonly QueuedCandidate[] = [];
  const decisionLog: DecisionRecord[] = [];
  const triggers: TriggerReport[] = [];
  let patchSeq = 0;
  // One key per intent across clusters: the latest samples of every cluster induced, and the live key a cluster was
  // found to say again (its sibling), set at induction and read when the result is applied.
  const clusterSamples = new Map<string, { scenario: string; scope: string; samples: readonly InductionSample[] }>();
  const siblingKey = new Map<string, string>();

  const baseFor = (scenario: string, path: string): SchemaTemplate => {
    let sc: string;
    try {
      sc = scenarioId(scenario);
    } catch {
      throw poolError('unknown_scenario', path, `scenario ${JSON.stringify(scenario)} is not a scenario id`);
    }
    const b = bases.get(sc);
    if (!b) throw poolError('unknown_scenario', path, `unknown scenario "${sc}" (known: ${[...bases.keys()].join(', ')})`);
    return b;
  };

  /** Patches that hold key names and guard slots: everything not rejected. */
  const live = (): SchemaPatch[] => records.filter((r) => r.status !== 'rejected').map((r) => r.patch);
  const active = (): SchemaPatch[] => records.filter((r) => r.status === 'active').map((r) => r.patch);

  const decide = (d: Omit<DecisionRecord, 'seq'>): DecisionRecord => {
    const rec = { ...d, seq: decisionLog.length + 1 };
    decisionLog.push(rec);
    return rec;
  };

  const put = (r: PatchRecord): PatchRecord => {
    records = records.map((x) => (x.patch.patch_id === r.patch.patch_id ? r : x));
    return r;
  };

  const find = (id: string): PatchRecord => {
    const r = records.find((x) => x.patch.patch_id === id);
    if (!r) throw new ParleyError('patch_not_found', `No schema patch "${id}"`, { path: 'params.patch_id', rule: 'exists' });
    return r;
  };

  const newPatch = (
    base: SchemaTemplate,
    scope: Scope,
    now: number,
    clusterId: string | null,
    body: { new_keys?: KeyDefinition[]; modified_keys?: ModifiedKey[] },
    review: readonly string[] = [],
    operator: { actor: string; reason: string } | null = null,
  ): { record: PatchRecord; change: PatchChange } => {
    const patch = packagePatch({
      patch_id: `p${++patchSeq}-${scenarioId(base.scenario)}-${scopeLabel(scope)}`.slice(0, 128),
      base,
      scope,
      timestamp: now,
      expires_at: now + ttl,
      source_cluster_id: clusterId,
      ...body,
    });
    // zhou §7: a key flagged security_relevant (a new key, or the base key a refinement touches), or one the lexicon finds.
    const flagged = (k: { key_name: string }): string[] => {
      const own = (body.new_keys ?? []).find((n) => n.key_name === k.key_name) ?? base.keys.find((b) => b.key_name === k.key_name);
      return own?.security_relevant === true ? [`"${k.key_name}" is flagged security_relevant`] : [];
    };
    const sensitive = [...(body.new_keys ?? []), ...(body.modified_keys ?? [])].flatMap((k) => [...flagged(k), ...securityRelevance(k)]);
    const reasons = approval === 'manual' ? ['approval mode is manual: every patch waits for an operator'] : [];
    if (sensitive.length > 0) reasons.push(...sensitive.map((s) => `security-relevant (zhou §7): ${s}`));
    // zhou §7 closed vocabulary: a key whose name or values break its rules waits for an operator.
    if (review.length > 0) reasons.push(...review.map((r) => `closed vocabulary (zhou §7): ${r}`));
    // An operator's edit is itself the authorization (zhou §6.2, §7): published at once.
    if (operator) reasons.length = 0;
    const record: PatchRecord = { patch, status: reasons.length > 0 ? 'proposed' : 'active', pinned: false, approval_reasons: reasons, revision: 1 };
    records.push(record);
    for (const pk of patch.new_keys) counters.set(ckey(patch.patch_id, pk.definition.key_name), newKeyCounters(patch.patch_id, pk.definition.key_name));
    decide({
      at: now,
      scenario: patch.scenario,
      patch_id: patch.patch_id,
      key_name: '',
      action: record.status === 'active' ? 'publish' : 'propose',
      reasons: operator ? [`operator edit: ${operator.reason}`] : record.status === 'active' ? ['published experimental (zhou §6.2.3)'] : reasons,
      figures: { new_keys: patch.new_keys.length, modified_keys: patch.modified_keys.length },
      actor: operator?.actor ?? 'inducer',
    });
    const actor = operator?.actor ?? 'inducer';
    return { record, change: { kind: 'published', record, reasons: operator ? [`operator edit: ${operator.reason}`] : reasons.length ? reasons : ['published'], figures: {}, actor } };
  };

  /**
   * A grown cluster whose re-induction names a richer key than its experimental one (a yes/no key that turned out
   * to be a choice: window_seat → seat_preference with window and aisle). Never a silent rename or retype (zhou
   * §6.2.2): the new key is published and the old one deprecated, each recorded as a decision.
   */
  const supersede = (m: MaturedCluster, base: SchemaTemplate, scope: Scope, oldPatchId: string, old: KeyDefinition, key: KeyDefinition): PatchChange[] => {
    const now = m.matured_at;
    const { record, change } = newPatch(base, scope, now, m.cluster_id, { new_keys: [key] });
    const why = `cluster ${m.cluster_id} grew to ${m.distinct_clients} clients: "${key.key_name}" (${key.key_type}${key.enum ? `: ${key.enum.map(String).join(', ')}` : ''}) covers "${old.key_name}" (${old.key_type}) (zhou §6.2.2)`;
    decide({ at: now, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: key.key_name, action: 'supersede', reasons: [why], figures: { cluster: m.cluster_id, replaces: old.key_name }, actor: 'inducer' });
    triggers.push({ at: now, cluster_id: m.cluster_id, scenario: m.scenario_id, scope: scopeLabel(scope), outcome: 'patched', patch_id: record.patch.patch_id, key_name: key.key_name, reasons: [why], heat: m.heat, distinct_clients: m.distinct_clients, branch: m.branch });
    // The old key leaves once clients can see its successor (a successor waiting for an operator leaves it in place).
    if (record.status !== 'active') return [change];
    const r = find(oldPatchId);
    const pk = r.patch.new_keys.find((k) => k.definition.key_name === old.key_name);
    if (!pk || pk.lifecycle.state !== 'experimental') return [change];
    const metrics = keyMetrics(counters.get(ckey(r.patch.patch_id, old.key_name)) as KeyCounters, now, lifecycle);
    const { patch, reason } = supersedeKey(r.patch, old.key_name, { key_name: key.key_name, patch_id: record.patch.patch_id }, now, '', metrics, lifecycle);
    const rec = put({ ...r, patch, revision: r.revision + 1 });
    const fig = { ...metrics } as Record<string, number | null>;
    decide({ at: now, scenario: m.scenario_id, patch_id: r.patch.patch_id, key_name: old.key_name, action: 'deprecate', from: 'experimental', to: 'deprecated', reasons: [reason], figures: fig, actor: 'inducer' });
    return [change, { kind: 'deprecated', record: rec, key_name: old.key_name, reasons: [reason], figures: fig, actor: 'inducer' }];
  };

  /**
   * Applies a candidate induced for a sibling cluster to the sibling's key: a yes/no key that the joint samples
   * show to be a choice is superseded by the enum; new values widen its enum; otherwise the intent is covered.
   * Null when the cluster has no sibling (or its key left meanwhile).
   */
  const refineSibling = (m: MaturedCluster, c: Candidate, base: SchemaTemplate, scope: Scope): { outcome: 'patched' | 'merged' | 'redundant'; patch_id: string | null; key_name: string; reasons: string[]; changes: PatchChange[] } | null => {
    const name = siblingKey.get(m.cluster_id);
    const existing = existingKeysFor(base, live(), scope, m.matured_at, lifecycle.compatibility_window_ms);
    const target = existing.find((k) => k.key_name === name && k.status !== 'withdrawn');
    if (name === undefined || !target) return null;
    const why = `cluster ${m.cluster_id} says what the cluster behind "${name}" says (zhou §6.2.2 one key per intent)`;
    const plan = siblingPlan(target, c, existing.filter((k) => k !== target));
    if (plan.kind === 'covered') return { outcome: 'redundant', patch_id: null, key_name: name, reasons: [why], changes: [] };
    if (plan.kind === 'supersede') {
      const changes = supersede(m, base, scope, target.origin, target.definition, plan.key);
      return { outcome: 'patched', patch_id: changes[0]?.record.patch.patch_id ?? null, key_name: plan.key.key_name, reasons: [why], changes };
    }
    const change = widenKey(m, base, scope, target.definition, plan.values, why);
    return { outcome: 'merged', patch_id: change.record.patch.patch_id, key_name: name, reasons: [why], changes: [change] };
  };

  /** A patch key still experimental gains values (zhou §6.2.2 modified_keys), recorded as a refine decision. */
  const widenKey = (m: MaturedCluster, base: SchemaTemplate, scope: Scope, target: KeyDefinition, widen: readonly JsonValue[], why: string): PatchChange => {
    const values = [...(target.enum ?? []), ...widen];
    const { record, change } = newPatch(base, scope, m.matured_at, m.cluster_id, { modified_keys: [{ key_name: target.key_name, semantic_description: withValues(target.semantic_description, values), enum: values }] });
    decide({ at: m.matured_at, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: target.key_name, action: 'refine', reasons: [why], figures: { cluster: m.cluster_id, values_added: widen.length }, actor: 'inducer' });
    return change;
  };

  const evolver: Evolver = {
    lifecycle,
    approval,
    get scenarios() {
      return [...bases.keys()];
    },

    async induce(m) {
      const base = baseFor(m.scenario_id, 'scenario_id');
      // One key per intent: the inducer sees every key the cluster's audience already has (base + live patches).
      const accepted = existingKeysFor(base, live(), scopeOf(m.scope), m.matured_at, lifecycle.compatibility_window_ms);
      const existing = accepted.map((k) => k.definition);
      clusterSamples.set(m.cluster_id, { scenario: m.scenario_id, scope: m.scope, samples: m.samples });
      // A cluster that says what the cluster behind a live experimental key says is that key's intent: induced over
      // both clusters' samples, its result refines the key (zhou §6.2.2) instead of adding another.
      const alone = await induceFn({ scenario: m.scenario_id, samples: m.samples, existing_keys: existing });
      const sib = await siblingOf(m, accepted, alone.ok ? alone.candidate.key : null, existing, { triggers, samples: clusterSamples, induce: induceFn });
      if (sib === null) {
        siblingKey.delete(m.cluster_id);
        return alone;
      }
      siblingKey.set(m.cluster_id, sib.key_name);
      return induceFn({ scenario: m.scenario_id, samples: [...m.samples, ...sib.samples], existing_keys: existing.filter((k) => k.key_name !== sib.key_name) });
    },

    applyMatured(m, induced) {
      const base = baseFor(m.scenario_id, 'scenario_id');
      const scope = scopeOf(m.scope);
      const now = m.matured_at;
      const changes: PatchChange[] = [];
      const report = (outcome: TriggerReport['outcome'], patchId: string | null, keyName: string | null, reasons: readonly string[]): { report: TriggerReport; changes: PatchChange[] } => {
        const r: TriggerReport = {
          at: now,
          cluster_id: m.cluster_id,
          scenario: m.scenario_id,
          scope: scopeLabel(scope),
          outcome,
          patch_id: patchId,
          key_name: keyName,
          reasons: [...m.reasons, ...reasons],
          heat: m.heat,
          distinct_clients: m.distinct_clients,
          branch: m.branch,
        };
        triggers.push(r);
        const action = ({ patched: null, merged: null, queued: 'queue', redundant: 'redundant', rejected: 'reject_candidate' } as const)[outcome];
        if (action) {
          decide({ at: now, scenario: m.scenario_id, patch_id: '', key_name: keyName ?? '', action, reasons: r.reasons, figures: { cluster: m.cluster_id, heat: m.heat, distinct_clients: m.distinct_clients }, actor: 'inducer' });
        }
        return { report: r, changes };
      };
      if (!induced.ok) return report('rejected', null, null, [induced.reason]);
      const sibling = refineSibling(m, induced.candidate, base, scope);
      if (sibling !== null) {
        changes.push(...sibling.changes);
        return report(sibling.outcome, sibling.patch_id, sibling.key_name, sibling.reasons);
      }
      const conflict = detectConflict(induced.candidate, existingKeysFor(base, live(), scope, now, lifecycle.compatibility_window_ms));
      switch (conflict.kind) {
        case 'none': {
          const admit = admitCandidate({ cluster_id: m.cluster_id, scenario: m.scenario_id, scope, key: conflict.key, queued_at: now }, live(), queue, now, lifecycle);
          queue = admit.queue;
          // zhou §6.2.3 Schema Convergence Guard: "new triggers MUST be queued".
          if (!admit.admitted) return report('queued', null, conflict.key.key_name, [admit.reason]);
          const { record, change } = newPatch(base, scope, now, m.cluster_id, { new_keys: [conflict.key] }, induced.candidate.review ?? []);
          changes.push(change);
          return report('patched', record.patch.patch_id, conflict.key.key_name, [admit.reason]);
        }
        case 'merge': {
          // zhou §6.2.2: "merge the candidate into the existing key by refining its semantic_description".
          const { record, change } = newPatch(base, scope, now, m.cluster_id, { modified_keys: [conflict.modified] });
          changes.push(change);
          decide({ at: now, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: conflict.modified.key_name, action: 'merge', reasons: [`"${induced.candidate.key.key_name}" collides with "${conflict.target.key_name}" (${conflict.match})`], figures: { examples_added: conflict.examples_added }, actor: 'inducer' });
          return report('merged', record.patch.patch_id, conflict.modified.key_name, [`"${induced.candidate.key.key_name}" collides with "${conflict.target.key_name}" (${conflict.match}); description refined`]);
        }
        case 'redundant':
          return report('redundant', null, conflict.target.key_name, [conflict.reason]);
        case 'blocked':
          return report('rejected', null, conflict.target.key_name, [conflict.reason]);
      }
    },

    applyGrown(m, induced) {
      const base = baseFor(m.scenario_id, 'scenario_id');
      const scope = scopeOf(m.scope);
      const now = m.matured_at;
      const before = [...triggers].reverse().find((t) => t.cluster_id === m.cluster_id);
      // A cluster whose first induction produced nothing is, grown, a fresh candidate.
      if (!before || before.outcome === 'rejected' || before.outcome === 'redundant') {
        if (!induced.ok) return { changes: [] };
        return { changes: evolver.applyMatured(m, induced).changes };
      }
      if (!induced.ok || before.key_name === null || (before.outcome !== 'patched' && before.outcome !== 'merged')) return { changes: [] };
      const existing = existingKeysFor(base, live(), scope, now, lifecycle.compatibility_window_ms);
      const target = existing.find((k) => k.key_name === before.key_name);
      // zhou §6.2.2: base keys are refined by description only (done when the cluster first fired); stable keys are settled.
      if (!target || target.status !== 'experimental') return { changes: [] };
      const better = supersedes(target.definition, induced.candidate, existing.filter((k) => k !== target));
      if (better) return { changes: supersede(m, base, scope, target.origin, target.definition, better) };
      const widen = newEnumValues(target.definition, induced.candidate.key);
      if (widen.length === 0) return { changes: [] };
      return { changes: [widenKey(m, base, scope, target.definition, widen, `cluster ${m.cluster_id} grew to ${m.distinct_clients} clients; values ${widen.map(String).join(', ')} now supported by distinct clients (zhou §6.2.2)`)] };
    },

    recordExecution(e) {
      const base = baseFor(e.scenario, 'scenario');
      const scenario = scenarioId(base.scenario);
      const schemaId = e.schema_id ?? base.schema_id;
      const correct = e.key_type_correct ?? Object.fromEntries(e.keys_present.map((x) => [x, true]));
      let touched = false;
      for (const p of active()) {
        if (p.scenario !== scenario) continue;
        for (const pk of p.new_keys) {
          const id = ckey(p.patch_id, pk.definition.key_name);
          const c = counters.get(id) as KeyCounters;
          counters.set(id, recordExecutionRule(c, p, { at: e.at, client_id: e.client_id, schema_id: schemaId, keys_present: e.keys_present, key_type_correct: correct }, lifecycle));
          touched = true;
        }
      }
      return touched;
    },

    recordAudit(a) {
      const c = counters.get(ckey(a.patch_id, a.key_name));
      if (!c) throw poolError('unknown_key', 'key_name', `no patch key ${a.patch_id}/${a.key_name}`);
      counters.set(ckey(a.patch_id, a.key_name), recordAuditRule(c, { at: a.at, aligned: a.aligned }, lifecycle));
    },

    tick(now) {
      if (!Number.isFinite(now)) throw poolError('time', 'now', `now must be a finite epoch-ms number, got ${String(now)}`);
      const out: DecisionRecord[] = [];
      const changes: PatchChange[] = [];
      // zhou §6.2.3: "continuously assesses the quality and necessity of every patch key".
      // Proposed and rejected patches are not on trial; pinned ones are held by an operator.
      for (const r of records) {
        if (r.status !== 'active' || r.pinned) continue;
        let p = r.patch;
        const moved: { d: ReturnType<typeof evaluateKey> }[] = [];
        for (const pk of r.patch.new_keys) {
          const d = evaluateKey(p, pk.definition.key_name, counters.get(ckey(p.patch_id, pk.definition.key_name)) as KeyCounters, now, lifecycle);
          if (d.action === 'keep') continue;
          p = applyDecision(p, d, lifecycle);
          moved.push({ d });
        }
        if (moved.length === 0) continue;
        let rec: PatchRecord = { ...r, patch: p, revision: r.revision };
        for (const { d } of moved) {
          rec = { ...rec, revision: rec.revision + 1 };
          const figures = { ...d.figures } as Record<string, number | null>;
          out.push(decide({ at: now, scenario: p.scenario, patch_id: p.patch_id, key_name: d.key_name, action: d.action as 'promote' | 'deprecate' | 'withdraw', from: d.from, to: d.to, reasons: d.reasons, figures, actor: 'evaluator' }));
          const kind: ChangeKind = d.action === 'promote' ? 'promoted' : d.action === 'deprecate' ? 'deprecated' : 'withdrawn';
          changes.push({ kind, record: rec, key_name: d.key_name, reasons: d.reasons, figures, actor: 'evaluator' });
        }
        put(rec);
      }
      // zhou §6.2.3 Convergence Guard: queued candidates go in as slots free up.
      for (;;) {
        const next = nextAdmissible(queue, live(), now, lifecycle);
        if (!next.candidate) break;
        queue = next.queue;
        const q = next.candidate;
        const base = bases.get(q.scenario) as SchemaTemplate;
        const conflict = detectConflict({ key: q.key, examples: [] }, existingKeysFor(base, live(), q.scope, now, lifecycle.compatibility_window_ms));
        if (conflict.kind !== 'none') continue; // a key with that name appeared meanwhile
        const { change } = newPatch(base, q.scope, now, q.cluster_id, { new_keys: [q.key] });
        changes.push(change);
        const t = triggers.find((x) => x.cluster_id === q.cluster_id && x.outcome === 'queued');
        if (t) triggers.push({ ...t, at: now, outcome: 'patched', patch_id: change.record.patch.patch_id, reasons: [...t.reasons, `admitted from the queue at ${now}`] });
      }
      return { at: now, decisions: out, changes };
    },

    approve(a) {
      const r = find(a.patch_id);
      if (r.status !== 'proposed') {
        throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is ${r.status}; only a proposed patch can be approved`, { path: 'params.patch_id', rule: 'proposed_only', details: { status: r.status } });
      }
      // The trial starts when clients first see the keys.
      const patch = restamp(r.patch, a.at, ttl);
      const rec = put({ ...r, patch, status: 'active', revision: r.revision + 1 });
      decide({ at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: '', action: 'approve', reasons: [a.reason], figures: {}, actor: a.actor });
      return [{ kind: 'updated', record: rec, reasons: [`approved: ${a.reason}`], figures: {}, actor: a.actor }];
    },

    reject(a) {
      const r = find(a.patch_id);
      if (r.status === 'rejected') throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is already rejected`, { path: 'params.patch_id', rule: 'not_rejected' });
      if (r.status === 'proposed') {
        const rec = put({ ...r, status: 'rejected', revision: r.revision + 1 });
        decide({ at: a.at, scenario: r.patch.scenario, patch_id: r.patch.patch_id, key_name: '', action: 'reject', reasons: [a.reason], figures: {}, actor: a.actor });
        return [{ kind: 'updated', record: rec, reasons: [`rejected: ${a.reason}`], figures: {}, actor: a.actor }];
      }
      // An active patch's keys are in clients' hands: they leave the way §6.2.3
      // lets keys leave, through deprecation and its grace period (then withdrawal
      // and the compatibility window), decided now by the operator.
      let patch = r.patch;
      const changes: PatchChange[] = [];
      let rev = r.revision;
      for (const pk of r.patch.new_keys) {
        if (pk.lifecycle.state !== 'experimental' && pk.lifecycle.state !== 'stable') continue;
        const figures = keyMetrics(counters.get(ckey(patch.patch_id, pk.definition.key_name)) as KeyCounters, a.at, lifecycle);
        patch = withKeyLifecycle(patch, pk.definition.key_name, transition(pk.lifecycle, 'deprecated', a.at, [`operator: ${a.reason}`], figures, lifecycle));
        rev++;
        const fig = { ...figures } as Record<string, number | null>;
        decide({ at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: pk.definition.key_name, action: 'deprecate', from: pk.lifecycle.state, to: 'deprecated', reasons: [`operator rejected the patch: ${a.reason}`], figures: fig, actor: a.actor });
        changes.push({ kind: 'deprecated', record: { ...r, patch, revision: rev }, key_name: pk.definition.key_name, reasons: [`operator rejected the patch: ${a.reason}`], figures: fig, actor: a.actor });
      }
      if (changes.length === 0) throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" has no experimental or stable key left to deprecate`, { path: 'params.patch_id', rule: 'has_live_keys' });
      const last = changes[changes.length - 1] as PatchChange;
      put(last.record);
      return changes;
    },

    pin(a) {
      const r = find(a.patch_id);
      if (r.status === 'rejected') throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is rejected; it cannot be pinned`, { path: 'params.patch_id', rule: 'not_rejected' });
      if (r.pinned === a.pinned) throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is already ${a.pinned ? 'pinned' : 'unpinned'}`, { path: 'params.pinned', rule: 'changes_state' });
      const rec = put({ ...r, pinned: a.pinned, revision: r.revision + 1 });
      decide({ at: a.at, scenario: r.patch.scenario, patch_id: r.patch.patch_id, key_name: '', action: a.pinned ? 'pin' : 'unpin', reasons: [a.reason], figures: {}, actor: a.actor });
      return [{ kind: 'updated', record: rec, reasons: [`${a.pinned ? 'pinned' : 'unpinned'}: ${a.reason}`], figures: {}, actor: a.actor }];
    },

    edit(a) {
      const r = find(a.patch_id);
      if (r.status === 'rejected') throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is rejected; it cannot be edited`, { path: 'params.patch_id', rule: 'not_rejected' });
      const pk = r.patch.new_keys.find((k) => k.definition.key_name === a.key_name);
      if (!pk) {
        const refined = r.patch.modified_keys.some((m) => m.key_name === a.key_name);
        throw new ParleyError('invalid_params', refined ? `Patch "${a.patch_id}" only refines "${a.key_name}": edit the patch that adds it` : `Patch "${a.patch_id}" adds no key "${a.key_name}" (it adds ${r.patch.new_keys.map((k) => k.definition.key_name).join(', ') || 'none'})`, {
          path: 'params.key',
          rule: refined ? 'adds_key' : 'exists',
        });
      }
      const published = r.status === 'active';
      const base = baseFor(r.patch.scenario, 'params.patch_id');
      const scope = r.patch.scope;
      // A published key is edited as clients see it now (refinements, e.g. a widened enum, included).
      const served = published ? existingKeysFor(base, live(), scope, a.at, lifecycle.compatibility_window_ms).find((k) => k.origin === r.patch.patch_id && k.key_name === pk.definition.key_name) : undefined;
      const before: KeyDefinition = served ? served.definition : pk.definition;
      const edited = editKeyDefinition(before, a.changes);
      const plan = planKeyEdit(before, edited, published, pk.lifecycle.state);
      // One key per intent: a new name must not be one the audience already has (this key's own name aside).
      if (edited.changed.includes('rename')) {
        const sig = keyNameSignature(edited.definition.key_name);
        const clash = existingKeysFor(base, live(), scope, a.at, lifecycle.compatibility_window_ms).find(
          (k) => keyNameSignature(k.key_name) === sig && !(k.origin === r.patch.patch_id && k.key_name === before.key_name),
        );
        const proposedClash = live()
          .flatMap((p) => p.new_keys.map((k) => ({ p, name: k.definition.key_name })))
          .find((x) => keyNameSignature(x.name) === sig && !(x.p.patch_id === r.patch.patch_id && x.name === before.key_name) && (x.p.scope === 'global' || scope === 'global' || scopeClient(x.p.scope) === scopeClient(scope)));
        const taken = clash?.key_name ?? proposedClash?.name;
        if (taken !== undefined) {
          throw new ParleyError('invalid_params', `"${edited.definition.key_name}" collides with the existing key "${taken}"${clash ? ` (${clash.origin === 'base' ? 'base' : `patch ${clash.origin}`})` : ` (patch ${proposedClash?.p.patch_id})`}: one key per intent (zhou §6.2.2)`, {
            path: 'params.rename',
            rule: 'key_exists',
            details: { existing: taken },
          });
        }
      }
      // The cluster the key came from keeps feeding it: its later growth refines the key under its new name.
      const retarget = (patchId: string, keyName: string): void => {
        const last = [...triggers].reverse().find((t) => t.cluster_id === r.patch.source_cluster_id && t.key_name === before.key_name);
        if (last) triggers.push({ ...last, at: a.at, patch_id: patchId, key_name: keyName, reasons: [`operator edit: ${a.reason}`] });
      };
      const figures: Record<string, string | number | null> = { changed: edited.changed.join(','), key_type: edited.definition.key_type };
      if (edited.changed.includes('rename')) figures['renamed_from'] = before.key_name;
      if (edited.enum_removed) figures['enum_removed'] = 1;
      if (edited.definition.enum) figures['values'] = edited.definition.enum.map(String).join(',');
      const reasons = [a.reason];
      switch (plan.kind) {
        case 'in_place': {
          const keys = r.patch.new_keys.map((k) => (k === pk ? { definition: plan.definition, lifecycle: k.lifecycle } : k));
          const patch: SchemaPatch = { ...r.patch, new_keys: keys };
          const rec = put({ ...r, patch, revision: r.revision + 1 });
          if (plan.definition.key_name !== before.key_name) {
            counters.delete(ckey(patch.patch_id, before.key_name));
            counters.set(ckey(patch.patch_id, plan.definition.key_name), newKeyCounters(patch.patch_id, plan.definition.key_name));
          }
          decide({ at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: plan.definition.key_name, action: 'edit', reasons, figures, actor: a.actor });
          if (plan.definition.key_name !== before.key_name) retarget(patch.patch_id, plan.definition.key_name);
          return { kind: 'in_place', patch_id: patch.patch_id, changes: [{ kind: 'updated', record: rec, key_name: plan.definition.key_name, reasons: [`edited (${edited.changed.join(', ')}): ${a.reason}`], figures: {}, actor: a.actor }] };
        }
        case 'refine': {
          const modified: ModifiedKey = { key_name: plan.key_name, semantic_description: plan.semantic_description, ...(plan.enum ? { enum: [...plan.enum] } : {}) };
          const { record, change } = newPatch(base, scope, a.at, r.patch.source_cluster_id, { modified_keys: [modified] }, [], { actor: a.actor, reason: a.reason });
          decide({ at: a.at, scenario: record.patch.scenario, patch_id: record.patch.patch_id, key_name: plan.key_name, action: 'edit', reasons: [...reasons, `refines "${plan.key_name}" of ${r.patch.patch_id} (zhou §6.2.2 additive)`], figures, actor: a.actor });
          return { kind: 'refine', patch_id: record.patch.patch_id, changes: [change] };
        }
        case 'replace': {
          const { record, change } = newPatch(base, scope, a.at, r.patch.source_cluster_id, { new_keys: [plan.definition] }, [], { actor: a.actor, reason: a.reason });
          decide({ at: a.at, scenario: record.patch.scenario, patch_id: record.patch.patch_id, key_name: plan.definition.key_name, action: 'edit', reasons: [...reasons, `replaces "${before.key_name}" of ${r.patch.patch_id}, which is deprecated`], figures, actor: a.actor });
          retarget(record.patch.patch_id, plan.definition.key_name);
          // zhou §6.2.3: the old key leaves the way keys leave, deprecated now, withdrawn after the grace period.
          const metrics = keyMetrics(counters.get(ckey(r.patch.patch_id, before.key_name)) as KeyCounters, a.at, lifecycle);
          const { patch: old, reason: why } = supersedeKey(r.patch, before.key_name, { key_name: plan.definition.key_name, patch_id: record.patch.patch_id }, a.at, a.reason, metrics, lifecycle);
          const rec = put({ ...r, patch: old, revision: r.revision + 1 });
          const fig = { ...metrics } as Record<string, number | null>;
          decide({ at: a.at, scenario: old.scenario, patch_id: old.patch_id, key_name: before.key_name, action: 'deprecate', from: 'experimental', to: 'deprecated', reasons: [why], figures: fig, actor: a.actor });
          return { kind: 'replace', patch_id: record.patch.patch_id, changes: [change, { kind: 'deprecated', record: rec, key_name: before.key_name, reasons: [why], figures: fig, actor: a.actor }] };
        }
      }
    },

    patches: () => records,
    patch: (id) => records.find((x) => x.patch.patch_id === id) ?? null,
    activePatches: active,
    metrics(patchId, keyName, now) {
      const c = counters.get(ckey(patchId, keyName));
      return c ? keyMetrics(c, now, lifecycle) : null;
    },
    counters: (patchId, keyName) => counters.get(ckey(patchId, keyName)) ?? null,
    decisions: () => decisionLog,
    triggers: () => triggers,
    queued: () => queue,
    base: (scenario) => baseFor(scenario, 'scenario'),
    knows(scenario) {
      try {
        return bases.has(scenarioId(scenario));
      } catch {
        return false;
      }
    },
    setBase(template) {
      bases.set(scenarioId(template.scenario), template);
    },
  };
  return evolver;
}

/**
 * The live key (not withdrawn) whose source cluster (same scenario and audience) says most what `m` says, at least
 * SIBLING_COSINE alike, whose pattern is the one `m` alone induces (samePatternIntent), or, for a yes/no key and a
 * choice, whose cluster fills one slot with `m`'s (oneSlot over the key induced on both).
 */
async function siblingOf(
  m: MaturedCluster,
  accepted: ReturnType<typeof existingKeysFor>,
  own: KeyDefinition | null,
  existing: readonly KeyDefinition[],
  seen: { readonly triggers: readonly TriggerReport[]; readonly samples: ReadonlyMap<string, { readonly samples: readonly InductionSample[] }>; readonly induce: InduceFn },
): Promise<{ key_name: string; samples: readonly InductionSample[] } | null> {
  const mine = wordProfile(m.samples);
  let best: { key_name: string; samples: readonly InductionSample[]; cos: number } | null = null;
  const done = new Set<string>();
  for (const t of [...seen.triggers].reverse()) {
    if (t.cluster_id === m.cluster_id || t.scenario !== m.scenario_id || t.scope !== scopeLabel(scopeOf(m.scope))) continue;
    if ((t.outcome !== 'patched' && t.outcome !== 'merged') || t.key_name === null || done.has(`${t.cluster_id}/${t.key_name}`)) continue;
    done.add(`${t.cluster_id}/${t.key_name}`);
    const key = accepted.find((k) => k.key_name === t.key_name && k.status !== 'withdrawn' && k.origin !== 'base');
    const theirs = seen.samples.get(t.cluster_id);
    if (!key || !theirs) continue;
    let cos = own !== null && samePatternIntent(own, key.definition) ? 1 : profileCosine(mine, wordProfile(theirs.samples));
    // A yes/no key beside a choice (a cluster that heard one value): one intent when the key induced over both is one choice holding both.
    if (cos < SIBLING_COSINE && own !== null && choiceLike(own) && choiceLike(key.definition) && (own.key_type === 'boolean' || key.definition.key_type === 'boolean')) {
      const joint = await seen.induce({ scenario: m.scenario_id, samples: [...m.samples, ...theirs.samples], existing_keys: existing.filter((k) => k.key_name !== key.key_name) });
      if (joint.ok && oneSlot(joint.candidate.key, own, key.definition)) cos = SIBLING_COSINE;
    }
    if (cos >= SIBLING_COSINE && (best === null || cos > best.cos)) best = { key_name: key.key_name, samples: theirs.samples, cos };
  }
  return best;
}

/**
 * What a sibling cluster's candidate does to the sibling's key: a stable key is settled and a deprecated one on
 * its way out for lack of use (zhou §6.2.3), so they cover it; an experimental yes/no key the joint samples show
 * to be a choice is superseded by it; new values widen an experimental choice; otherwise the intent is covered.
 */
function siblingPlan(target: AcceptedKey, c: Candidate, others: readonly AcceptedKey[]): { kind: 'covered' } | { kind: 'supersede'; key: KeyDefinition } | { kind: 'widen'; values: JsonValue[] } {
  if (target.status !== 'experimental') return { kind: 'covered' };
  const key = c.key;
  if (target.definition.key_type === 'boolean' && key.key_type === 'string' && Array.isArray(key.enum) && key.enum.length >= 2 && (c.review ?? []).length === 0 && detectConflict(c, others).kind === 'none') {
    return { kind: 'supersede', key };
  }
  const widen = newEnumValues(target.definition, key);
  return widen.length === 0 ? { kind: 'covered' } : { kind: 'widen', values: widen };
}

/**
 * The re-induced key that should replace an experimental one, or null: the new key is a choice among at least two
 * values, no operator review is needed, no other live key is the same intent, and either the old key is a yes/no
 * flag whose name holds one of the values or a word of the new name (less the kind affixes), or the old key is a
 * choice most of whose values the new evidence does not hold, or one of whose values names the new key.
 */
function supersedes(old: KeyDefinition, c: Candidate, others: Parameters<typeof detectConflict>[1]): KeyDefinition | null {
  const key = c.key;
  if (key.key_type !== 'string' || !Array.isArray(key.enum) || key.enum.length < 2) return null;
  if ((c.review ?? []).length > 0 || key.key_name === old.key_name) return null;
  if (old.key_type === 'boolean') {
    // What the flag was about is one of the alternatives (window_seat → seat_preference [window, aisle]) or the
    // concept that turned out to be a choice (needs_meal → meal_preference [vegan, kosher]).
    const oldWords = new Set(old.key_name.split('_').filter((w) => w !== 'needs' && w !== 'wants'));
    const newWords = key.key_name.split('_').filter((w) => w !== 'preference');
    if (!key.enum.some((v) => typeof v === 'string' && oldWords.has(v)) && !newWords.some((w) => oldWords.has(w))) return null;
  } else {
    // A choice re-induced on more evidence around another head: most of the old values are not among the new ones
    // (the first induction took the phrase's head words for values: "paper, print" for glossy / matte / satin).
    // A value of the old key that names the new one was the concept all along ("print" in paper, print, glossy).
    if (old.key_type !== 'string' || !Array.isArray(old.enum)) return null;
    const kept = old.enum.filter((v) => (key.enum as readonly unknown[]).includes(v)).length;
    const newWords = new Set(key.key_name.split('_'));
    if (kept * 2 >= old.enum.length && !old.enum.some((v) => typeof v === 'string' && newWords.has(v))) return null;
  }
  return detectConflict(c, others).kind === 'none' ? key : null;
}

/** Restarts a proposed patch's clock at approval: timestamp, expiry and its keys' trial. */
function restamp(p: SchemaPatch, at: number, ttl: number): SchemaPatch {
  return {
    ...p,
    timestamp: at,
    expires_at: at + ttl,
    new_keys: p.new_keys.map((k) => ({ ...k, lifecycle: { ...k.lifecycle, introduced_at: at, state_since: at } })),
  };
}
