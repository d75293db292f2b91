/**
 * draft-zhou §6.2.3 evaluation: the metrics each executed payload and each audit verdict feed, the periodic
 * assessment of every active, unpinned patch key (promote, deprecate, withdraw), and the convergence guard that
 * admits queued candidates as slots free up.
 */
import {
  applyDecision,
  detectConflict,
  evaluateKey,
  existingKeysFor,
  nextAdmissible,
  recordAudit as recordAuditRule,
  recordExecution as recordExecutionRule,
  type KeyCounters,
} from '@parley/evolution';
import { scenarioId, type SchemaTemplate } from '@parley/protocol';
import { poolError } from './errors';
import type { AuditInput, ChangeKind, DecisionRecord, ExecutionInput, PatchChange, PatchRecord, TickOutcome } from './evolver';
import { active, baseFor, ckey, decide, live, newPatch, put, type EvolverStore } from './evolver-store';

/** §6.2.3 metrics from one executed payload; false when no patch key of the scenario was concerned. */
export function recordExecution(st: EvolverStore, e: ExecutionInput): boolean {
  const base = baseFor(st, e.scenario, 'scenario');
  const scenario = scenarioId(base.scenario);
  const schemaId = e.schema_id ?? base.schema_id;
  const correct = e.key_type_correct ?? Object.fromEntries(e.keys_present.map((x) => [x, true]));
  let touched = false;
  for (const p of active(st)) {
    if (p.scenario !== scenario) continue;
    for (const pk of p.new_keys) {
      const id = ckey(p.patch_id, pk.definition.key_name);
      const c = st.counters.get(id) as KeyCounters;
      st.counters.set(id, recordExecutionRule(c, p, { at: e.at, client_id: e.client_id, schema_id: schemaId, keys_present: e.keys_present, key_type_correct: correct }, st.lifecycle));
      touched = true;
    }
  }
  return touched;
}

/** §6.2.3 semantic_alignment_accuracy: one audit verdict. */
export function recordAudit(st: EvolverStore, a: AuditInput): void {
  const c = st.counters.get(ckey(a.patch_id, a.key_name));
  if (!c) throw poolError('unknown_key', 'key_name', `no patch key ${a.patch_id}/${a.key_name}`);
  st.counters.set(ckey(a.patch_id, a.key_name), recordAuditRule(c, { at: a.at, aligned: a.aligned }, st.lifecycle));
}

/** §6.2.3: evaluate every active, unpinned patch key at `now` and admit queued candidates. */
export function tick(st: EvolverStore, now: number): TickOutcome {
  if (!Number.isFinite(now)) throw poolError('time', 'now', `now must be a finite epoch-ms number, got ${String(now)}`);
  const out: DecisionRecord[] = [];
  const changes: PatchChange[] = [];
  // zhou §6.2.3: "continuously assesses the quality and necessity of every patch key".
  // Proposed and rejected patches are not on trial; pinned ones are held by an operator.
  for (const r of st.records) {
    if (r.status !== 'active' || r.pinned) continue;
    let p = r.patch;
    const moved: { d: ReturnType<typeof evaluateKey> }[] = [];
    for (const pk of r.patch.new_keys) {
      const d = evaluateKey(p, pk.definition.key_name, st.counters.get(ckey(p.patch_id, pk.definition.key_name)) as KeyCounters, now, st.lifecycle);
      if (d.action === 'keep') continue;
      p = applyDecision(p, d, st.lifecycle);
      moved.push({ d });
    }
    if (moved.length === 0) continue;
    let rec: PatchRecord = { ...r, patch: p, revision: r.revision };
    for (const { d } of moved) {
      rec = { ...rec, revision: rec.revision + 1 };
      const figures = { ...d.figures } as Record<string, number | null>;
      out.push(decide(st, { at: now, scenario: p.scenario, patch_id: p.patch_id, key_name: d.key_name, action: d.action as 'promote' | 'deprecate' | 'withdraw', from: d.from, to: d.to, reasons: d.reasons, figures, actor: 'evaluator' }));
      const kind: ChangeKind = d.action === 'promote' ? 'promoted' : d.action === 'deprecate' ? 'deprecated' : 'withdrawn';
      changes.push({ kind, record: rec, key_name: d.key_name, reasons: d.reasons, figures, actor: 'evaluator' });
    }
    put(st, rec);
  }
  // zhou §6.2.3 Convergence Guard: queued candidates go in as slots free up.
  for (;;) {
    const next = nextAdmissible(st.queue, live(st), now, st.lifecycle);
    if (!next.candidate) break;
    st.queue = next.queue;
    const q = next.candidate;
    const base = st.bases.get(q.scenario) as SchemaTemplate;
    const conflict = detectConflict({ key: q.key, examples: [] }, existingKeysFor(base, live(st), q.scope, now, st.lifecycle.compatibility_window_ms));
    if (conflict.kind !== 'none') continue; // a key with that name appeared meanwhile
    const { change } = newPatch(st, base, q.scope, now, q.cluster_id, { new_keys: [q.key] });
    changes.push(change);
    const t = st.triggers.find((x) => x.cluster_id === q.cluster_id && x.outcome === 'queued');
    if (t) st.triggers.push({ ...t, at: now, outcome: 'patched', patch_id: change.record.patch.patch_id, reasons: [...t.reasons, `admitted from the st.queue at ${now}`] });
  }
  return { at: now, decisions: out, changes };
}
