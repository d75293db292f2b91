import { randomUUID } from 'node:crypto';
import type { ExecuteRequest } from '@parley/contracts';
import { EventType, type EventEnvelope } from '@parley/events';
import { MAX_RAW_FRAGMENT_CHARS, boundFragments } from '@parley/evolution';
import type { JsonObject, ValidatedPayload } from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import type { Resolved } from './templates';

/** The audit sampler's settings (draft-zhou §6.2.3 semantic_alignment_accuracy). */
export interface AuditSampling {
  /** Probability that a patch key present in a payload is sampled. */
  sampleRate: number;
  /** Whether an operator enabled sampling (storing values) for the scenario. */
  audited(scenarioId: string): boolean;
  /** Uniform random numbers in [0, 1). */
  random(): number;
}

export interface ExecutionFacts {
  req: ExecuteRequest & { payload: JsonObject };
  resolved: Resolved;
  checked: ValidatedPayload;
  clientId: string;
  executionId: string;
  durationMs: number;
  /** When the execution is recorded (ISO, from the clock). */
  now: string;
}

/**
 * The events one execution records in its transaction (outbox): payload.executed
 * always; other.captured when `other` carried content (zhou §4.3, §6.2.1); an
 * audit.sampled per sampled patch key (zhou §6.2.3).
 */
export function executionEvents(f: ExecutionFacts, audit: AuditSampling, log: Logger): EventEnvelope[] {
  const { req, resolved, checked, clientId, executionId, durationMs, now } = f;
  const schema = resolved.compiled;
  const base = { execution_id: executionId, agent: schema.agent, schema_id: schema.schemaId, scenario_id: schema.scenarioId, client_id: clientId };
  const events: EventEnvelope[] = [
    {
      id: randomUUID(),
      type: EventType.PayloadExecuted,
      scenario_id: schema.scenarioId,
      occurred_at: now,
      source: 'execution',
      data: {
        ...base,
        keys_present: [...checked.keys_present],
        key_type_correct: { ...checked.key_type_correct },
        defaults_applied: [...checked.defaults_applied],
        duration_ms: durationMs,
        // zhou §6.2.3 client_adoption_rate: the client received these patches.
        applied_patches: [...resolved.appliedPatches],
      },
    },
  ];
  // zhou §4.3: meaningful content in `other` signals a coverage gap; §6.2.1 feeds it to the pool. The event
  // carries the fragments bounded (the pool uses no more) and counts what it left out: `other` is accepted
  // whatever its length, and the event stays deliverable.
  if (checked.other_fragments.length > 0) {
    const bounded = boundFragments(checked.other_fragments);
    if (bounded.truncation) log.info('other fragments truncated for the pool', { execution_id: executionId, scenario_id: schema.scenarioId, ...bounded.truncation });
    events.push({
      id: randomUUID(),
      type: EventType.OtherCaptured,
      scenario_id: schema.scenarioId,
      occurred_at: now,
      source: 'execution',
      data: { ...base, fragments: bounded.fragments, ...(bounded.truncation ? { truncation: bounded.truncation } : {}) },
    });
  }
  // zhou §6.2.3 semantic_alignment_accuracy "as judged by an internal LLM or manual audit sampler":
  // a sample of patch-key values (never base keys), with the utterance when the client gave it.
  const patchKeys = schema.meta?.exact ? schema.meta.patchKeys : undefined;
  if (patchKeys && patchKeys.size > 0 && audit.sampleRate > 0 && audit.audited(schema.scenarioId)) {
    for (const key of checked.keys_present) {
      const patchId = patchKeys.get(key);
      if (patchId === undefined || !(audit.random() < audit.sampleRate)) continue;
      const sampled = auditValue(req.payload[key] as unknown);
      if (!sampled) {
        log.info('audit sample skipped: the value is too large to carry', { execution_id: executionId, key_name: key, patch_id: patchId });
        continue;
      }
      events.push({
        id: randomUUID(),
        type: EventType.AuditSampled,
        scenario_id: schema.scenarioId,
        occurred_at: now,
        source: 'execution',
        data: {
          sample_id: randomUUID(),
          execution_id: executionId,
          agent: schema.agent,
          scenario_id: schema.scenarioId,
          client_id: clientId,
          patch_id: patchId,
          key_name: key,
          value: sampled.value,
          ...(sampled.truncated ? { value_truncated: true } : {}),
          ...(req.utterance !== undefined && req.utterance !== '' ? { utterance: req.utterance } : {}),
        },
      });
    }
  }
  return events;
}

/** Largest JSON of a sampled value that is not a string (a string is cut instead). */
const MAX_AUDIT_VALUE_JSON = 16 * 1024;

/**
 * The value an audit sample carries (zhou §6.2.3), bounded so the event stays
 * deliverable: a string is cut to MAX_RAW_FRAGMENT_CHARS code points; any other
 * value whose JSON is larger than MAX_AUDIT_VALUE_JSON is not sampled (null).
 */
function auditValue(v: unknown): { value: unknown; truncated: boolean } | null {
  if (typeof v === 'string') {
    if (v.length <= MAX_RAW_FRAGMENT_CHARS) return { value: v, truncated: false };
    const cut = boundFragments([v]).fragments[0] ?? '';
    return { value: cut, truncated: cut.length < v.length };
  }
  return JSON.stringify(v ?? null).length <= MAX_AUDIT_VALUE_JSON ? { value: v, truncated: false } : null;
}
