/**
 * What the evolver does with a mature cluster (draft-zhou §6.2.2 intent induction, conflict detection and patch
 * packaging; §6.2.1 the dual gate decided it was ready) and with its growth: re-induction over the cluster's life,
 * one key per intent across sibling clusters (a refinement or a supersession, never a silent rename), and the
 * §6.2.3 convergence guard that queues triggers beyond the cap.
 */
import {
  admitCandidate,
  choiceLike,
  coHyponymChoice,
  countCoversFlag,
  describeClosed,
  clusterConcept,
  detectConflict,
  existingKeysFor,
  keyMetrics,
  namedByAct,
  newEnumValues,
  oneSlot,
  profileCosine,
  sameConcept,
  sameListShape,
  samePatternIntent,
  scenarioConcepts,
  SIBLING_COSINE,
  supersedeKey,
  withValues,
  wordProfile,
  type AcceptedKey,
  type CoHyponymChoice,
  type Candidate,
  type InductionSample,
  type KeyCounters,
  type Lexicon,
  type Scope,
  scopeKey,
} from '@parley/evolution';
import type { JsonValue, KeyDefinition, SchemaTemplate } from '@parley/protocol';
import { poolError } from './errors';
import type { EvolverInduction, InduceFn, PatchChange, TriggerReport } from './evolver';
import { baseFor, ckey, decide, find, live, newPatch, put, scopeLabel, scopeOf, type EvolverStore } from './evolver-store';
import type { MaturedCluster } from './semantic-pool';

/**
 * §6.2.2 Intent Induction for a matured cluster, over a sibling cluster's samples too when it says the same. Reads
 * the store and writes nothing: the sibling found is part of the result (`sibling_key`), logged with it and read
 * by `applyMatured`, so applying a logged induction decides what applying it live did.
 */
export async function induceMatured(st: EvolverStore, m: MaturedCluster): Promise<EvolverInduction> {
  const base = baseFor(st, m.scenario_id, 'scenario_id');
  // One key per intent: the inducer sees every key the cluster's audience already has (base + live patches).
  const accepted = existingKeysFor(base, live(st), scopeOf(m.scope), m.matured_at, st.lifecycle.compatibility_window_ms);
  const existing = accepted.map((k) => k.definition);
  // A cluster that says what the cluster behind a live experimental key says is that key's intent: induced over
  // both clusters' samples, its result refines the key (zhou §6.2.2) instead of adding another.
  const alone = await st.induceFn({ scenario: m.scenario_id, samples: m.samples, existing_keys: existing });
  const sib = await siblingOf(m, accepted, alone.ok ? alone.candidate : null, existing, { triggers: st.triggers, samples: st.clusterSamples, induce: st.induceFn, lexicon: st.lexicon, actKeys: st.actKeys });
  if (sib === null) return { ...alone, apply_rules: APPLY_RULES };
  // A count beside the flag of its noun: the count alone is the key (the joint samples mix numbered and unnumbered
  // fragments, which is no count); it supersedes the flag.
  // The decision is logged with the induction (`sibling_relation`), so applying it never reads the lexicon again.
  if (sib.count && alone.ok) return { ...alone, sibling_key: sib.key_name, sibling_relation: 'count_covers_flag', apply_rules: APPLY_RULES };
  const samples = [...m.samples, ...sib.samples];
  const joint = await st.induceFn({ scenario: m.scenario_id, samples, existing_keys: existing.filter((k) => k.key_name !== sib.key_name) });
  const built = sib.choice ? choiceCandidate(sib.choice, joint, [m.samples, sib.samples]) : null;
  return { ...(built ?? joint), sibling_key: sib.key_name, apply_rules: APPLY_RULES };
}

/** Voices a value needs over the joint samples to stay in a choice built from co-hyponyms (zhou §6.2.2, two clients). */
const CHOICE_VALUE_VOICES = 2;

/**
 * The choice two keys split by value make (cohyponym.ts), as a candidate, when the inducer's joint key is not that
 * choice already (values that are the phrases' heads, "send a limousine" beside "a taxi from the airport", share no
 * frame for the inducer to read a slot from). Each value stays only when CHOICE_VALUE_VOICES distinct voices of the
 * joint samples say it; fewer than two left: null, the joint induction stands.
 */
function choiceCandidate(choice: CoHyponymChoice, joint: EvolverInduction, clusters: readonly (readonly InductionSample[])[]): EvolverInduction | null {
  // A refusal (a personal need, no one intent) or a candidate an operator must review stands: the built choice
  // never overrides what the joint induction said about these samples.
  if (!joint.ok || (joint.candidate.review ?? []).length > 0) return null;
  if (joint.candidate.key.key_type === 'string' && choice.values.every((v) => (joint.candidate.key.enum ?? []).includes(v))) return null;
  const voices = distinctVoices(clusters);
  const values = choice.values.map((v) => ({ value: v, count: voices.get(v)?.size ?? 0 })).filter((v) => v.count >= CHOICE_VALUE_VOICES);
  if (values.length < 2) return null;
  const used = values.reduce((n, v) => n + v.count, 0);
  const key: KeyDefinition = { key_name: choice.key_name, key_type: 'string', required: false, default_value: null, semantic_description: '', enum: values.map((v) => v.value) };
  const d = describeClosed(key, 'enum', values, used, true);
  const total = new Set(clusters.flatMap((ss, c) => ss.flatMap((s, i) => (Array.isArray(s.clients) && s.clients.length > 0 ? s.clients.map(String) : [`#sample${i}`]).map((x) => `${c}/${x}`)))).size;
  return {
    ok: true,
    candidate: { key: { ...key, semantic_description: d.semantic_description }, kind: 'enum', head_words: choice.head_words, values, examples: d.examples, fragments_used: used, fragments_excluded: Math.max(0, total - used), refines: null, review: [] },
  };
}

/**
 * Each content word of the clusters' samples and the distinct voices that say it: client pseudonyms of each cluster
 * (a client counted once however many samples or repeats carry it), or, for a sample without client labels, the
 * sample itself. A `Map` keyed by
 * outside words; client ids are compared as strings.
 */
function distinctVoices(clusters: readonly (readonly InductionSample[])[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  // Pseudonyms are per cluster (semantic-pool.ts): "#1" of one cluster is not "#1" of another.
  clusters.forEach((samples, c) => samples.forEach((s, i) => {
    if (typeof s.text !== 'string') return;
    const who = (Array.isArray(s.clients) && s.clients.length > 0 ? s.clients.map(String) : [`#sample${i}`]).map((x) => `${c}/${x}`);
    for (const w of wordProfile([{ text: s.text, count: 1 }]).keys()) {
      const set = out.get(w) ?? new Set<string>();
      for (const c of who) set.add(c);
      out.set(w, set);
    }
  }));
  return out;
}

/**
 * The rules `applyMatured` and `applyGrown` follow, by version: 1, what records without the field were applied
 * with; 2, a grown cluster widens its key only with that key's intent; 3, a count logged as covering its sibling
 * flag (`sibling_relation: 'count_covers_flag'`) supersedes an experimental flag. An induction made now carries the
 * current version, so a replay of any record applies the rules it was applied with live.
 */
export const APPLY_RULES = 3;

function applyRulesOf(induced: EvolverInduction): number {
  const v = (induced as { apply_rules?: unknown }).apply_rules;
  if (v === undefined || v === null) return 1;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > APPLY_RULES) throw poolError('fragment_invalid', 'induction.apply_rules', `induction.apply_rules must be an integer from 1 to ${APPLY_RULES}, got ${typeof v === 'number' ? v : typeof v}`);
  return v;
}

/** The sibling key a logged induction names: absent in records older than the field (no sibling then). */
function siblingKeyOf(induced: EvolverInduction): string | null {
  const k = (induced as { sibling_key?: unknown }).sibling_key;
  if (k === undefined || k === null) return null;
  if (typeof k !== 'string' || k.length === 0 || k.length > 256) throw poolError('fragment_invalid', 'induction.sibling_key', `induction.sibling_key must be a key name (a non-empty string of at most 256 characters), got ${typeof k === 'string' ? `${k.length} characters` : typeof k}`);
  return k;
}

/** The relation to its sibling a logged induction names: only a count covering its flag, from rules 3 on. */
function siblingRelationOf(induced: EvolverInduction, rules: number): 'count_covers_flag' | null {
  const r = (induced as { sibling_relation?: unknown }).sibling_relation;
  if (r === undefined || r === null) return null;
  if (r !== 'count_covers_flag') throw poolError('fragment_invalid', 'induction.sibling_relation', `induction.sibling_relation must be 'count_covers_flag' when present, got ${typeof r === 'string' ? `${r.length} characters` : typeof r}`);
  return rules >= 3 ? r : null;
}

/**
 * The samples a later cluster's induction reads for sibling detection, and whether the act on an object named the
 * induced key (Candidate.act, its provenance): recorded when an induction is applied.
 */
function remember(st: EvolverStore, m: MaturedCluster, induced: EvolverInduction): void {
  st.clusterSamples.set(m.cluster_id, { scenario: m.scenario_id, scope: m.scope, samples: m.samples });
  if (induced.ok && induced.candidate.act !== undefined && st.actKeys.size < 100_000) st.actKeys.add(`${m.scenario_id}\u0000${induced.candidate.key.key_name}`);
}

/** §6.2.2 conflict detection, the §6.2.3 guard and packaging, with the induction `induceMatured` gave. */
export function applyMatured(st: EvolverStore, m: MaturedCluster, induced: EvolverInduction): { report: TriggerReport; changes: PatchChange[] } {
  const siblingKey = siblingKeyOf(induced);
  const relation = siblingRelationOf(induced, applyRulesOf(induced));
  remember(st, m, induced);
  const base = baseFor(st, m.scenario_id, 'scenario_id');
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
    st.triggers.push(r);
    const action = ({ patched: null, merged: null, queued: 'queue', redundant: 'redundant', rejected: 'reject_candidate' } as const)[outcome];
    if (action) {
      decide(st, { at: now, scenario: m.scenario_id, patch_id: '', key_name: keyName ?? '', action, reasons: r.reasons, figures: { cluster: m.cluster_id, heat: m.heat, distinct_clients: m.distinct_clients }, actor: 'inducer' });
    }
    return { report: r, changes };
  };
  if (!induced.ok) return report('rejected', null, null, [induced.reason]);
  const sibling = siblingKey === null ? null : refineSibling(st, m, siblingKey, induced.candidate, base, scope, relation);
  if (sibling !== null) {
    changes.push(...sibling.changes);
    return report(sibling.outcome, sibling.patch_id, sibling.key_name, sibling.reasons);
  }
  const conflict = detectConflict(induced.candidate, existingKeysFor(base, live(st), scope, now, st.lifecycle.compatibility_window_ms));
  switch (conflict.kind) {
    case 'none': {
      const admit = admitCandidate({ cluster_id: m.cluster_id, scenario: m.scenario_id, scope, key: conflict.key, queued_at: now }, live(st), st.queue, now, st.lifecycle);
      st.queue = admit.queue;
      // zhou §6.2.3 Schema Convergence Guard: "new triggers MUST be queued".
      if (!admit.admitted) return report('queued', null, conflict.key.key_name, [admit.reason]);
      const { record, change } = newPatch(st, base, scope, now, m.cluster_id, { new_keys: [conflict.key] }, induced.candidate.review ?? []);
      changes.push(change);
      return report('patched', record.patch.patch_id, conflict.key.key_name, [admit.reason]);
    }
    case 'merge': {
      // zhou §6.2.2: "merge the candidate into the existing key by refining its semantic_description".
      const { record, change } = newPatch(st, base, scope, now, m.cluster_id, { modified_keys: [conflict.modified] });
      changes.push(change);
      decide(st, { at: now, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: conflict.modified.key_name, action: 'merge', reasons: [`"${induced.candidate.key.key_name}" collides with "${conflict.target.key_name}" (${conflict.match})`], figures: { examples_added: conflict.examples_added }, actor: 'inducer' });
      return report('merged', record.patch.patch_id, conflict.modified.key_name, [`"${induced.candidate.key.key_name}" collides with "${conflict.target.key_name}" (${conflict.match}); description refined`]);
    }
    case 'redundant':
      return report('redundant', null, conflict.target.key_name, [conflict.reason]);
    case 'blocked':
      return report('rejected', null, conflict.target.key_name, [conflict.reason]);
  }
}

/** Induction over the cluster's life (§6.2.2): a grown cluster refines or supersedes its experimental key. */
export function applyGrown(st: EvolverStore, m: MaturedCluster, induced: EvolverInduction): { changes: PatchChange[] } {
  siblingKeyOf(induced);
  const rules = applyRulesOf(induced);
  remember(st, m, induced);
  const base = baseFor(st, m.scenario_id, 'scenario_id');
  const scope = scopeOf(m.scope);
  const now = m.matured_at;
  const before = [...st.triggers].reverse().find((t) => t.cluster_id === m.cluster_id);
  // A cluster whose first induction produced nothing is, grown, a fresh candidate.
  if (!before || before.outcome === 'rejected' || before.outcome === 'redundant') {
    if (!induced.ok) return { changes: [] };
    return { changes: applyMatured(st, m, induced).changes };
  }
  if (!induced.ok || before.key_name === null || (before.outcome !== 'patched' && before.outcome !== 'merged')) return { changes: [] };
  const existing = existingKeysFor(base, live(st), scope, now, st.lifecycle.compatibility_window_ms);
  const target = existing.find((k) => k.key_name === before.key_name);
  // zhou §6.2.2: base keys are refined by description only (done when the cluster first fired); stable keys are settled.
  if (!target || target.status !== 'experimental') return { changes: [] };
  const better = supersedes(target.definition, induced.candidate, existing.filter((k) => k !== target));
  if (better) return { changes: supersede(st, m, base, scope, target.origin, target.definition, better) };
  // Values widen the key only when the re-induced candidate is the key's intent (its name, or conflict detection
  // says so): a cluster that drifted to another need does not give that need's values to its key (rules 2 on).
  const c = induced.candidate;
  if (rules >= 2 && c.key.key_name !== target.definition.key_name && c.refines !== target.definition.key_name && detectConflict(c, [target]).kind === 'none') return { changes: [] };
  const widen = newEnumValues(target.definition, c.key);
  if (widen.length === 0) return { changes: [] };
  return { changes: [widenKey(st, m, base, scope, target.definition, widen, `cluster ${m.cluster_id} grew to ${m.distinct_clients} clients; values ${widen.map(String).join(', ')} now supported by distinct clients (zhou §6.2.2)`)] };
}

/**
 * A grown cluster whose re-induction names a richer key than its experimental one (a yes/no key that turned out
 * to be a choice: window_seat → seat_preference with window and aisle). Never a silent rename or retype (zhou
 * §6.2.2): the new key is published and the old one deprecated, each recorded as a decision.
 */
function supersede(st: EvolverStore, m: MaturedCluster, base: SchemaTemplate, scope: Scope, oldPatchId: string, old: KeyDefinition, key: KeyDefinition, sibling: string | null = null): PatchChange[] {
  const now = m.matured_at;
  const { record, change } = newPatch(st, base, scope, now, m.cluster_id, { new_keys: [key] });
  const covers = `"${key.key_name}" (${key.key_type}${key.enum ? `: ${key.enum.map(String).join(', ')}` : ''}) covers "${old.key_name}" (${old.key_type}) (zhou §6.2.2)`;
  // A sibling cluster matured for the first time (it did not grow): its reason says what it shares with the old key.
  const why = sibling ?? `cluster ${m.cluster_id} grew to ${m.distinct_clients} clients: ${covers}`;
  decide(st, { at: now, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: key.key_name, action: 'supersede', reasons: [sibling === null ? why : `${why}: ${covers}`], figures: { cluster: m.cluster_id, replaces: old.key_name }, actor: 'inducer' });
  // A sibling's one trigger report is made by applyMatured; a grown cluster has none of its own.
  if (sibling === null) st.triggers.push({ at: now, cluster_id: m.cluster_id, scenario: m.scenario_id, scope: scopeLabel(scope), outcome: 'patched', patch_id: record.patch.patch_id, key_name: key.key_name, reasons: [why], heat: m.heat, distinct_clients: m.distinct_clients, branch: m.branch });
  // The old key leaves once clients can see its successor (a successor waiting for an operator leaves it in place).
  if (record.status !== 'active') return [change];
  const r = find(st, oldPatchId);
  const pk = r.patch.new_keys.find((k) => k.definition.key_name === old.key_name);
  if (!pk || pk.lifecycle.state !== 'experimental') return [change];
  const metrics = keyMetrics(st.counters.get(ckey(r.patch.patch_id, old.key_name)) as KeyCounters, now, st.lifecycle);
  const { patch, reason } = supersedeKey(r.patch, old.key_name, { key_name: key.key_name, patch_id: record.patch.patch_id }, now, '', metrics, st.lifecycle);
  const rec = put(st, { ...r, patch, revision: r.revision + 1 });
  const fig = { ...metrics } as Record<string, number | null>;
  decide(st, { at: now, scenario: m.scenario_id, patch_id: r.patch.patch_id, key_name: old.key_name, action: 'deprecate', from: 'experimental', to: 'deprecated', reasons: [reason], figures: fig, actor: 'inducer' });
  return [change, { kind: 'deprecated', record: rec, key_name: old.key_name, reasons: [reason], figures: fig, actor: 'inducer' }];
}

/**
 * Applies a candidate induced for a sibling cluster to the sibling's key: a yes/no key that the joint samples
 * show to be a choice is superseded by the enum; new values widen its enum; otherwise the intent is covered.
 * Null when the cluster has no sibling (or its key left meanwhile).
 */
function refineSibling(st: EvolverStore, m: MaturedCluster, name: string, c: Candidate, base: SchemaTemplate, scope: Scope, relation: 'count_covers_flag' | null): { outcome: 'patched' | 'merged' | 'redundant'; patch_id: string | null; key_name: string; reasons: string[]; changes: PatchChange[] } | null {
  const existing = existingKeysFor(base, live(st), scope, m.matured_at, st.lifecycle.compatibility_window_ms);
  const target = existing.find((k) => k.key_name === name && k.status !== 'withdrawn');
  if (!target) return null;
  const why = `cluster ${m.cluster_id} says what the cluster behind "${name}" says (zhou §6.2.2 one key per intent)`;
  const plan = siblingPlan(target, c, existing.filter((k) => k !== target), relation);
  // A count that cannot supersede its flag (review needed, or another live key is its intent) is a candidate of
  // its own: conflict detection, the guard and review, like any other (null: no sibling applies).
  if (plan.kind === 'own') return null;
  if (plan.kind === 'covered') return { outcome: 'redundant', patch_id: null, key_name: name, reasons: [why], changes: [] };
  if (plan.kind === 'supersede') {
    const changes = supersede(st, m, base, scope, target.origin, target.definition, plan.key, why);
    return { outcome: 'patched', patch_id: changes[0]?.record.patch.patch_id ?? null, key_name: plan.key.key_name, reasons: [why], changes };
  }
  const change = widenKey(st, m, base, scope, target.definition, plan.values, why);
  return { outcome: 'merged', patch_id: change.record.patch.patch_id, key_name: name, reasons: [why], changes: [change] };
}

/** A patch key still experimental gains values (zhou §6.2.2 modified_keys), recorded as a refine decision. */
function widenKey(st: EvolverStore, m: MaturedCluster, base: SchemaTemplate, scope: Scope, target: KeyDefinition, widen: readonly JsonValue[], why: string): PatchChange {
  const values = [...(target.enum ?? []), ...widen];
  const { record, change } = newPatch(st, base, scope, m.matured_at, m.cluster_id, { modified_keys: [{ key_name: target.key_name, semantic_description: withValues(target.semantic_description, values), enum: values }] });
  decide(st, { at: m.matured_at, scenario: m.scenario_id, patch_id: record.patch.patch_id, key_name: target.key_name, action: 'refine', reasons: [why], figures: { cluster: m.cluster_id, values_added: widen.length }, actor: 'inducer' });
  return change;
}

/**
 * The live key (not withdrawn) whose source cluster (same scenario and audience) says most what `m` says, at least
 * SIBLING_COSINE alike, whose pattern is the one `m` alone induces (samePatternIntent), or, for a yes/no key and a
 * choice, whose cluster fills one slot with `m`'s (oneSlot over the key induced on both).
 */
const MAX_JOINT_PROBES = 2;

async function siblingOf(
  m: MaturedCluster,
  accepted: ReturnType<typeof existingKeysFor>,
  alone: Candidate | null,
  existing: readonly KeyDefinition[],
  seen: { readonly triggers: readonly TriggerReport[]; readonly samples: ReadonlyMap<string, { readonly scenario: string; readonly scope: string; readonly samples: readonly InductionSample[] }>; readonly induce: InduceFn; readonly lexicon: Lexicon | null; readonly actKeys: ReadonlySet<string> },
): Promise<{ key_name: string; samples: readonly InductionSample[]; choice: CoHyponymChoice | null; count: boolean } | null> {
  const own = alone?.key ?? null;
  const mine = wordProfile(m.samples);
  const lex = seen.lexicon;
  const exclude = lex ? scenarioConcepts(m.scenario_id, lex) : new Set<string>();
  const myConcept = lex && own !== null ? clusterConcept(m.samples, lex, exclude) : null;
  let best: { key_name: string; samples: readonly InductionSample[]; cos: number; choice: CoHyponymChoice | null; count: boolean } | null = null;
  const done = new Set<string>();
  let probes = 0;
  for (const t of [...seen.triggers].reverse()) {
    if (t.cluster_id === m.cluster_id || t.scenario !== m.scenario_id || t.scope !== scopeLabel(scopeOf(m.scope))) continue;
    if ((t.outcome !== 'patched' && t.outcome !== 'merged') || t.key_name === null || done.has(`${t.cluster_id}/${t.key_name}`)) continue;
    done.add(`${t.cluster_id}/${t.key_name}`);
    const key = accepted.find((k) => k.key_name === t.key_name && k.status !== 'withdrawn' && k.origin !== 'base');
    const theirs = seen.samples.get(t.cluster_id);
    // The audience by its key, not the trigger's label: a client named "global" is labelled as the global pool is.
    if (!key || !theirs || theirs.scenario !== m.scenario_id || scopeKey(scopeOf(theirs.scope)) !== scopeKey(scopeOf(m.scope))) continue;
    let cos = own !== null && samePatternIntent(own, key.definition) ? 1 : profileCosine(mine, wordProfile(theirs.samples));
    // Two lists of identifiers of one shape in one scenario and audience: one list the embedder split.
    if (cos < 1 && own !== null && own.key_type === 'array' && key.definition.key_type === 'array' && sameListShape(m.samples, theirs.samples)) cos = 1;
    // The same concept said by most clients of each cluster, and a key of the same kind: one intent the embedder split.
    if (cos < SIBLING_COSINE && lex !== null && own !== null && sameKind(own, key.definition) && sameConcept(myConcept, clusterConcept(theirs.samples, lex, exclude), lex)) cos = SIBLING_COSINE;
    // Values that are kinds of one thing (cohyponym.ts: needs_taxi beside needs_limousine, both cars): one choice the
    // embedder split by value, whatever the wording around them; no joint probe is spent on it.
    const choice = lex !== null && own !== null && choiceLike(own) && choiceLike(key.definition) ? coHyponymChoice(own, key.definition, lex) : null;
    if (cos < SIBLING_COSINE && choice !== null) cos = SIBLING_COSINE;
    // A count of what a yes/no key is about (infant_count beside needs_baby, count-covers.ts): one need the embedder
    // split into the fragments with a number and those without; the count is the better key.
    const count = lex !== null && own !== null && countCoversFlag(own, key.definition, lex, m.scenario_id);
    // The flag after its count (needs_puppy after puppy_count) is covered by the count.
    if ((count || (lex !== null && own !== null && countCoversFlag(key.definition, own, lex, m.scenario_id))) && cos < SIBLING_COSINE) cos = SIBLING_COSINE;
    // A yes/no key beside a choice (a cluster that heard one value): one intent when the key induced over both is one choice holding both.
    // At most MAX_JOINT_PROBES such inductions per cluster, the latest keys first: with an LLM inducer each is a call
    // made while the cluster's event is held.
    if (cos < SIBLING_COSINE && probes < MAX_JOINT_PROBES && own !== null && choiceLike(own) && choiceLike(key.definition) && (own.key_type === 'boolean' || key.definition.key_type === 'boolean')) {
      probes++;
      const joint = await seen.induce({ scenario: m.scenario_id, samples: [...m.samples, ...theirs.samples], existing_keys: existing.filter((k) => k.key_name !== key.key_name) });
      // Provenance: a key the act on an object named (Candidate.act, recorded when an induction naming it was applied;
      // for a record without it, re-derived from its cluster's samples) fills no slot.
      const byAct = (k: KeyDefinition): boolean => (k === own ? alone?.act !== undefined : seen.actKeys.has(`${m.scenario_id}\u0000${k.key_name}`) || namedByAct(k, theirs.samples, lex));
      if (joint.ok && oneSlot(joint.candidate.key, own, key.definition, byAct)) cos = SIBLING_COSINE;
    }
    if (cos >= SIBLING_COSINE && (best === null || cos > best.cos)) best = { key_name: key.key_name, samples: theirs.samples, cos, choice, count };
  }
  return best;
}

/** Two keys of one kind: the same type, and both choices (an enum) or neither. */
function sameKind(a: KeyDefinition, b: KeyDefinition): boolean {
  const choice = (k: KeyDefinition): boolean => Array.isArray(k.enum) && k.enum.length > 0;
  const num = (t: string): string => (t === 'number' ? 'integer' : t);
  return num(a.key_type) === num(b.key_type) && choice(a) === choice(b);
}

/**
 * What a sibling cluster's candidate does to the sibling's key: a stable key is settled and a deprecated one on
 * its way out for lack of use (zhou §6.2.3), so they cover it; an experimental yes/no key the joint samples show
 * to be a choice is superseded by it (under another name only: the flag's name never changes type); new values widen an experimental choice; otherwise the intent is covered.
 */
function siblingPlan(target: AcceptedKey, c: Candidate, others: readonly AcceptedKey[], relation: 'count_covers_flag' | null): { kind: 'covered' } | { kind: 'own' } | { kind: 'supersede'; key: KeyDefinition } | { kind: 'widen'; values: JsonValue[] } {
  if (target.status !== 'experimental') return { kind: 'covered' };
  const key = c.key;
  // A count logged as covering the flag (decided at induction, never re-read from the lexicon here) supersedes it: a
  // count of at least one says what the flag said. One needing review or colliding with another key is its own.
  if (relation === 'count_covers_flag') return (c.review ?? []).length === 0 && detectConflict(c, others).kind === 'none' ? { kind: 'supersede', key } : { kind: 'own' };
  // A choice under the flag's own name would retype a published key in place: a better key is a new name (zhou §6.2.2).
  if (target.definition.key_type === 'boolean' && key.key_type === 'string' && key.key_name !== target.definition.key_name && Array.isArray(key.enum) && key.enum.length >= 2 && (c.review ?? []).length === 0 && detectConflict(c, others).kind === 'none') {
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
