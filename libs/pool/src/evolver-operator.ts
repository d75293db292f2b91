/**
 * The operator's decisions on patches (draft-zhou §6.2: updates that add capabilities or touch security-relevant
 * keys need authorization; §7): approve, reject, pin, and edit a key. A published key leaves the way §6.2.3 lets
 * keys leave, deprecated then withdrawn; every decision is recorded with who and why.
 */
import {
  editKeyDefinition,
  existingKeysFor,
  keyMetrics,
  keyNameSignature,
  newKeyCounters,
  planKeyEdit,
  scopeClient,
  supersedeKey,
  transition,
  withKeyLifecycle,
  type KeyCounters,
  type ModifiedKey,
  type SchemaPatch,
  type Scope,
} from '@parley/evolution';
import { ParleyError, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import type { EditAction, EditOutcome, OperatorAction, PatchChange } from './evolver';
import { baseFor, ckey, decide, find, live, newPatch, put, type EvolverStore } from './evolver-store';

/** A proposed patch goes live; its trial starts now. */
export function approve(st: EvolverStore, a: OperatorAction): PatchChange[] {
  const r = find(st, a.patch_id);
  if (r.status !== 'proposed') {
    throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is ${r.status}; only a proposed patch can be approved`, { path: 'params.patch_id', rule: 'proposed_only', details: { status: r.status } });
  }
  // The trial starts when clients first see the keys.
  const patch = restamp(r.patch, a.at, st.ttl);
  const rec = put(st, { ...r, patch, status: 'active', revision: r.revision + 1 });
  decide(st, { at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: '', action: 'approve', reasons: [a.reason], figures: {}, actor: a.actor });
  return [{ kind: 'updated', record: rec, reasons: [`approved: ${a.reason}`], figures: {}, actor: a.actor }];
}

/** A proposed patch is dropped; an active one has its keys deprecated by the operator (§6.2.3 grace period). */
export function reject(st: EvolverStore, a: OperatorAction): PatchChange[] {
  const r = find(st, a.patch_id);
  if (r.status === 'rejected') throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is already rejected`, { path: 'params.patch_id', rule: 'not_rejected' });
  if (r.status === 'proposed') {
    const rec = put(st, { ...r, status: 'rejected', revision: r.revision + 1 });
    decide(st, { at: a.at, scenario: r.patch.scenario, patch_id: r.patch.patch_id, key_name: '', action: 'reject', reasons: [a.reason], figures: {}, actor: a.actor });
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
    const figures = keyMetrics(st.counters.get(ckey(patch.patch_id, pk.definition.key_name)) as KeyCounters, a.at, st.lifecycle);
    patch = withKeyLifecycle(patch, pk.definition.key_name, transition(pk.lifecycle, 'deprecated', a.at, [`operator: ${a.reason}`], figures, st.lifecycle));
    rev++;
    const fig = { ...figures } as Record<string, number | null>;
    decide(st, { at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: pk.definition.key_name, action: 'deprecate', from: pk.lifecycle.state, to: 'deprecated', reasons: [`operator rejected the patch: ${a.reason}`], figures: fig, actor: a.actor });
    changes.push({ kind: 'deprecated', record: { ...r, patch, revision: rev }, key_name: pk.definition.key_name, reasons: [`operator rejected the patch: ${a.reason}`], figures: fig, actor: a.actor });
  }
  if (changes.length === 0) throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" has no experimental or stable key left to deprecate`, { path: 'params.patch_id', rule: 'has_live_keys' });
  const last = changes[changes.length - 1] as PatchChange;
  put(st, last.record);
  return changes;
}

/** An operator holds a patch out of (or back into) the §6.2.3 evaluation. */
export function pin(st: EvolverStore, a: OperatorAction & { readonly pinned: boolean }): PatchChange[] {
  const r = find(st, a.patch_id);
  if (r.status === 'rejected') throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is rejected; it cannot be pinned`, { path: 'params.patch_id', rule: 'not_rejected' });
  if (r.pinned === a.pinned) throw new ParleyError('illegal_transition', `Patch "${a.patch_id}" is already ${a.pinned ? 'pinned' : 'unpinned'}`, { path: 'params.pinned', rule: 'changes_state' });
  const rec = put(st, { ...r, pinned: a.pinned, revision: r.revision + 1 });
  decide(st, { at: a.at, scenario: r.patch.scenario, patch_id: r.patch.patch_id, key_name: '', action: a.pinned ? 'pin' : 'unpin', reasons: [a.reason], figures: {}, actor: a.actor });
  return [{ kind: 'updated', record: rec, reasons: [`${a.pinned ? 'pinned' : 'unpinned'}: ${a.reason}`], figures: {}, actor: a.actor }];
}

/**
 * An operator's correction of a key (§6.2: authorized updates): in place on a proposed patch; on a published
 * experimental key a refinement patch, or a new key plus the deprecation of the old one when it is renamed.
 */
export function edit(st: EvolverStore, a: EditAction): EditOutcome {
  const r = find(st, a.patch_id);
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
  const base = baseFor(st, r.patch.scenario, 'params.patch_id');
  const scope = r.patch.scope;
  // A published key is edited as clients see it now (refinements, e.g. a widened enum, included).
  const served = published ? existingKeysFor(base, live(st), scope, a.at, st.lifecycle.compatibility_window_ms).find((k) => k.origin === r.patch.patch_id && k.key_name === pk.definition.key_name) : undefined;
  const before: KeyDefinition = served ? served.definition : pk.definition;
  const edited = editKeyDefinition(before, a.changes);
  const plan = planKeyEdit(before, edited, published, pk.lifecycle.state);
  // One key per intent: a new name must not be one the audience already has (this key's own name aside).
  if (edited.changed.includes('rename')) assertFreeName(st, base, scope, r.patch.patch_id, before.key_name, edited.definition.key_name, a.at);
  // The cluster the key came from keeps feeding it: its later growth refines the key under its new name.
  const retarget = (patchId: string, keyName: string): void => {
    const last = [...st.triggers].reverse().find((t) => t.cluster_id === r.patch.source_cluster_id && t.key_name === before.key_name);
    if (last) st.triggers.push({ ...last, at: a.at, patch_id: patchId, key_name: keyName, reasons: [`operator edit: ${a.reason}`] });
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
      const rec = put(st, { ...r, patch, revision: r.revision + 1 });
      if (plan.definition.key_name !== before.key_name) {
        st.counters.delete(ckey(patch.patch_id, before.key_name));
        st.counters.set(ckey(patch.patch_id, plan.definition.key_name), newKeyCounters(patch.patch_id, plan.definition.key_name));
      }
      decide(st, { at: a.at, scenario: patch.scenario, patch_id: patch.patch_id, key_name: plan.definition.key_name, action: 'edit', reasons, figures, actor: a.actor });
      if (plan.definition.key_name !== before.key_name) retarget(patch.patch_id, plan.definition.key_name);
      return { kind: 'in_place', patch_id: patch.patch_id, changes: [{ kind: 'updated', record: rec, key_name: plan.definition.key_name, reasons: [`edited (${edited.changed.join(', ')}): ${a.reason}`], figures: {}, actor: a.actor }] };
    }
    case 'refine': {
      const modified: ModifiedKey = { key_name: plan.key_name, semantic_description: plan.semantic_description, ...(plan.enum ? { enum: [...plan.enum] } : {}) };
      const { record, change } = newPatch(st, base, scope, a.at, r.patch.source_cluster_id, { modified_keys: [modified] }, [], { actor: a.actor, reason: a.reason });
      decide(st, { at: a.at, scenario: record.patch.scenario, patch_id: record.patch.patch_id, key_name: plan.key_name, action: 'edit', reasons: [...reasons, `refines "${plan.key_name}" of ${r.patch.patch_id} (zhou §6.2.2 additive)`], figures, actor: a.actor });
      return { kind: 'refine', patch_id: record.patch.patch_id, changes: [change] };
    }
    case 'replace': {
      const { record, change } = newPatch(st, base, scope, a.at, r.patch.source_cluster_id, { new_keys: [plan.definition] }, [], { actor: a.actor, reason: a.reason });
      decide(st, { at: a.at, scenario: record.patch.scenario, patch_id: record.patch.patch_id, key_name: plan.definition.key_name, action: 'edit', reasons: [...reasons, `replaces "${before.key_name}" of ${r.patch.patch_id}, which is deprecated`], figures, actor: a.actor });
      retarget(record.patch.patch_id, plan.definition.key_name);
      // zhou §6.2.3: the old key leaves the way keys leave, deprecated now, withdrawn after the grace period.
      const metrics = keyMetrics(st.counters.get(ckey(r.patch.patch_id, before.key_name)) as KeyCounters, a.at, st.lifecycle);
      const { patch: old, reason: why } = supersedeKey(r.patch, before.key_name, { key_name: plan.definition.key_name, patch_id: record.patch.patch_id }, a.at, a.reason, metrics, st.lifecycle);
      const rec = put(st, { ...r, patch: old, revision: r.revision + 1 });
      const fig = { ...metrics } as Record<string, number | null>;
      decide(st, { at: a.at, scenario: old.scenario, patch_id: old.patch_id, key_name: before.key_name, action: 'deprecate', from: 'experimental', to: 'deprecated', reasons: [why], figures: fig, actor: a.actor });
      return { kind: 'replace', patch_id: record.patch.patch_id, changes: [change, { kind: 'deprecated', record: rec, key_name: before.key_name, reasons: [why], figures: fig, actor: a.actor }] };
    }
  }
}

/** zhou §6.2.2 one key per intent: a renamed key's new name is no other live or proposed key's of its audience (a typed error otherwise). */
function assertFreeName(st: EvolverStore, base: SchemaTemplate, scope: Scope, patchId: string, oldName: string, newName: string, at: number): void {
  const sig = keyNameSignature(newName);
  const clash = existingKeysFor(base, live(st), scope, at, st.lifecycle.compatibility_window_ms).find(
    (k) => keyNameSignature(k.key_name) === sig && !(k.origin === patchId && k.key_name === oldName),
  );
  const proposedClash = live(st)
    .flatMap((p) => p.new_keys.map((k) => ({ p, name: k.definition.key_name })))
    .find((x) => keyNameSignature(x.name) === sig && !(x.p.patch_id === patchId && x.name === oldName) && (x.p.scope === 'global' || scope === 'global' || scopeClient(x.p.scope) === scopeClient(scope)));
  const taken = clash?.key_name ?? proposedClash?.name;
  if (taken !== undefined) {
    throw new ParleyError('invalid_params', `"${newName}" collides with the existing key "${taken}"${clash ? ` (${clash.origin === 'base' ? 'base' : `patch ${clash.origin}`})` : ` (patch ${proposedClash?.p.patch_id})`}: one key per intent (zhou §6.2.2)`, {
      path: 'params.rename',
      rule: 'key_exists',
      details: { existing: taken },
    });
  }
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
