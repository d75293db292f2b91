// The evolution service's wire forms: the PatchDocument of patch events, the
// Patch, Decision and AuditSample views of the operator API (draft-zhou §6.2.2,
// §6.2.3), and the event a patch change publishes through the outbox.
import { randomUUID } from 'node:crypto';
import type { AuditSample, Decision, Patch, PatchKeyView } from '@parley/contracts';
import { EventType, type EventEnvelope, type PatchDocument } from '@parley/events';
import type { DecisionRecord, Evolver, PatchChange, PatchRecord } from '@parley/pool';
import type { Clock } from '@parley/runtime';

const CHANGE_EVENT = {
  published: EventType.PatchPublished,
  updated: EventType.PatchUpdated,
  promoted: EventType.KeyPromoted,
  deprecated: EventType.KeyDeprecated,
  withdrawn: EventType.KeyWithdrawn,
} as const;

export const scopeLabel = (s: PatchDocument['scope']): string => (s === 'global' ? 'global' : s.client_id);
export const iso = (t: number | null | undefined): string => (t === null || t === undefined ? '' : new Date(t).toISOString());

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

export function changeEvent(c: PatchChange, clock: Clock): EventEnvelope {
  return {
    id: randomUUID(),
    type: CHANGE_EVENT[c.kind],
    scenario_id: c.record.patch.scenario,
    occurred_at: clock.now().toISOString(),
    source: 'evolution',
    data: { patch: patchDocument(c.record), ...(c.key_name ? { key_name: c.key_name } : {}), reasons: [...c.reasons], figures: { ...c.figures }, actor: c.actor },
  } as EventEnvelope;
}

export function toPatch(r: PatchRecord, ev: Evolver, now: number): Patch {
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

export function toDecision(d: DecisionRecord): Decision {
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

export interface SampleRow {
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

export function toSample(r: SampleRow): AuditSample {
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
