/**
 * The evolver's state and the operations its handlers share: the base templates, the patch records, the key
 * counters (draft-zhou §6.2.3 metrics), the convergence-guard queue (§6.2.3), the decision log ("every decision
 * stored with its metrics", §6.2.3), the trigger reports, and patch packaging and publishing (§6.2.2) with the
 * approval that holds a patch for an operator (§6.2, §7).
 */
import {
  DEFAULT_INDUCTION_OPTIONS,
  DEFAULT_PATCH_TTL_MS,
  induceKey,
  lifecycleConfig,
  newKeyCounters,
  packagePatch,
  scopeClient,
  type InductionSample,
  type KeyCounters,
  type Lexicon,
  type LifecycleConfig,
  type ModifiedKey,
  type QueuedCandidate,
  type SchemaPatch,
  type Scope,
} from '@parley/evolution';
import { ParleyError, scenarioId, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { securityRelevance } from './approval';
import { poolError } from './errors';
import type { CreateEvolverOptions, DecisionRecord, InduceFn, PatchChange, PatchRecord, TriggerReport } from './evolver';

/** Everything the evolver holds; the state after a sequence of calls depends only on the calls. */
export interface EvolverStore {
  readonly lifecycle: LifecycleConfig;
  /** zhou §6.2.2 "an expiration date": how long a patch lives after its timestamp. */
  readonly ttl: number;
  readonly approval: 'auto' | 'manual';
  readonly induceFn: InduceFn;
  /** The base template of each scenario (zhou §4.1). */
  readonly bases: Map<string, SchemaTemplate>;
  records: PatchRecord[];
  readonly counters: Map<string, KeyCounters>;
  queue: readonly QueuedCandidate[];
  readonly decisionLog: DecisionRecord[];
  readonly triggers: TriggerReport[];
  patchSeq: number;
  /**
   * One key per intent across clusters: the latest samples of every cluster applied (matured or grown), read when a
   * later cluster is induced. Set when an induction is applied, never when one is made, so a replay of the input
   * log (which applies and never induces) holds what the live evolver held. The sibling a cluster was found to say
   * again travels with its induction (`EvolverInduction.sibling_key`), not in the store.
   */
  readonly clusterSamples: Map<string, { scenario: string; scope: string; samples: readonly InductionSample[] }>;
  /**
   * Provenance of yes/no keys (`scenario\u0000key_name`): those an applied induction named by an act on an object
   * (Candidate.act: acne_removal). Their words are no values of a choice (sibling oneSlot). Set when an induction is
   * applied, like clusterSamples.
   */
  readonly actKeys: Set<string>;
  /** The lexicon clusters' concepts are read through (one key per intent by concept); null without one. */
  readonly lexicon: Lexicon | null;
}

/** The store for `opts`, its configuration checked (a bad figure is a typed error). */
export function createStore(opts: CreateEvolverOptions): EvolverStore {
  const cfg = opts.config ?? {};
  const lifecycle = lifecycleConfig(cfg.lifecycle ?? {});
  const ttl = cfg.patch_ttl_ms ?? DEFAULT_PATCH_TTL_MS;
  if (!(ttl > 0)) throw poolError('config', 'patch_ttl_ms', `patch_ttl_ms must be positive, got ${ttl}`);
  const approval = cfg.approval ?? 'auto';
  if (approval !== 'auto' && approval !== 'manual') throw poolError('config', 'approval', `approval must be "auto" or "manual", got ${JSON.stringify(approval)}`);
  const frames = cfg.frame_choices ?? false;
  if (typeof frames !== 'boolean') throw poolError('config', 'frame_choices', `frame_choices must be a boolean, got ${typeof frames}`);
  const induction = frames ? { ...DEFAULT_INDUCTION_OPTIONS, frame_choices: true } : DEFAULT_INDUCTION_OPTIONS;
  const induceFn: InduceFn = opts.induce ?? (async (input) => induceKey(input.samples, induction, { existing: input.existing_keys, ...(opts.lexicon ? { lexicon: opts.lexicon } : {}) }));
  const bases = new Map<string, SchemaTemplate>();
  for (const t of opts.templates) bases.set(scenarioId(t.scenario), t);
  return {
    lifecycle,
    ttl,
    approval,
    induceFn,
    bases,
    records: [],
    counters: new Map(),
    queue: [],
    decisionLog: [],
    triggers: [],
    patchSeq: 0,
    clusterSamples: new Map(),
    actKeys: new Set(),
    lexicon: opts.lexicon ?? null,
  };
}

export const scopeOf = (key: string): Scope => (key === 'global' ? 'global' : { client_id: key.replace(/^client:/, '') });
export const scopeLabel = (s: Scope): string => scopeClient(s) ?? 'global';
export const ckey = (patchId: string, key: string): string => `${patchId}/${key}`;

export function baseFor(st: EvolverStore, scenario: string, path: string): SchemaTemplate {
  let sc: string;
  try {
    sc = scenarioId(scenario);
  } catch {
    throw poolError('unknown_scenario', path, `scenario ${JSON.stringify(scenario)} is not a scenario id`);
  }
  const b = st.bases.get(sc);
  if (!b) throw poolError('unknown_scenario', path, `unknown scenario "${sc}" (known: ${[...st.bases.keys()].join(', ')})`);
  return b;
}

/** Patches that hold key names and guard slots: everything not rejected. */
export const live = (st: EvolverStore): SchemaPatch[] => st.records.filter((r) => r.status !== 'rejected').map((r) => r.patch);
/** Patches clients see. */
export const active = (st: EvolverStore): SchemaPatch[] => st.records.filter((r) => r.status === 'active').map((r) => r.patch);

/** zhou §6.2.3: every decision is stored, numbered, with its figures. */
export function decide(st: EvolverStore, d: Omit<DecisionRecord, 'seq'>): DecisionRecord {
  const rec = { ...d, seq: st.decisionLog.length + 1 };
  st.decisionLog.push(rec);
  return rec;
}

export function put(st: EvolverStore, r: PatchRecord): PatchRecord {
  st.records = st.records.map((x) => (x.patch.patch_id === r.patch.patch_id ? r : x));
  return r;
}

export function find(st: EvolverStore, id: string): PatchRecord {
  const r = st.records.find((x) => x.patch.patch_id === id);
  if (!r) throw new ParleyError('patch_not_found', `No schema patch "${id}"`, { path: 'params.patch_id', rule: 'exists' });
  return r;
}

/**
 * zhou §6.2.2 patch packaging and publishing: a new patch over `base`, active at once or, when it needs an operator
 * (manual approval, a security-relevant key, closed-vocabulary review; zhou §7), proposed. An operator's edit is
 * itself the authorization.
 */
export function newPatch(
  st: EvolverStore,
  base: SchemaTemplate,
  scope: Scope,
  now: number,
  clusterId: string | null,
  body: { new_keys?: KeyDefinition[]; modified_keys?: ModifiedKey[] },
  review: readonly string[] = [],
  operator: { actor: string; reason: string } | null = null,
): { record: PatchRecord; change: PatchChange } {
  const patch = packagePatch({
    patch_id: `p${++st.patchSeq}-${scenarioId(base.scenario)}-${scopeLabel(scope)}`.slice(0, 128),
    base,
    scope,
    timestamp: now,
    expires_at: now + st.ttl,
    source_cluster_id: clusterId,
    ...body,
  });
  // zhou §7: a key flagged security_relevant (a new key, or the base key a refinement touches), or one the lexicon finds.
  const flagged = (k: { key_name: string }): string[] => {
    const own = (body.new_keys ?? []).find((n) => n.key_name === k.key_name) ?? base.keys.find((b) => b.key_name === k.key_name);
    return own?.security_relevant === true ? [`"${k.key_name}" is flagged security_relevant`] : [];
  };
  const sensitive = [...(body.new_keys ?? []), ...(body.modified_keys ?? [])].flatMap((k) => [...flagged(k), ...securityRelevance(k)]);
  const reasons = st.approval === 'manual' ? ['approval mode is manual: every patch waits for an operator'] : [];
  if (sensitive.length > 0) reasons.push(...sensitive.map((s) => `security-relevant (zhou §7): ${s}`));
  // zhou §7 closed vocabulary: a key whose name or values break its rules waits for an operator.
  if (review.length > 0) reasons.push(...review.map((r) => `closed vocabulary (zhou §7): ${r}`));
  // An operator's edit is itself the authorization (zhou §6.2, §7): published at once.
  if (operator) reasons.length = 0;
  const record: PatchRecord = { patch, status: reasons.length > 0 ? 'proposed' : 'active', pinned: false, approval_reasons: reasons, revision: 1 };
  st.records.push(record);
  for (const pk of patch.new_keys) st.counters.set(ckey(patch.patch_id, pk.definition.key_name), newKeyCounters(patch.patch_id, pk.definition.key_name));
  decide(st, {
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
}
