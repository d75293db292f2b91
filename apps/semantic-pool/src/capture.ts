import { randomUUID } from 'node:crypto';
import { AppliedBefore, EventType, appendToOutbox, appendedToOutbox, type EventEnvelope, type OtherCapturedData, type ProcessedMarks, type Subjects } from '@parley/events';
import { MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS } from '@parley/evolution';
import type { MaturedCluster, PreparedFragment, SemanticPool } from '@parley/pool';
import { scenarioId } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { RawFragments } from './raw';
import { insertInputs, insertInputsMarked, type NewInput } from './store';

// The pool's input (draft-zhou §6.2.1): other.captured events folded into memory, their fragments appended to the
// input log in one statement and the pool.matured / pool.grown events they caused to the outbox, all in the
// consumer's transaction.

export type OtherCapturedEvent = EventEnvelope & { type: 'other.captured' };

interface Captured {
  event: OtherCapturedEvent;
  scenario: string;
  at: number;
  fragments: string[];
  prepared: PreparedFragment[];
}

export interface CaptureDeps {
  pool(): SemanticPool;
  /** Scenario ids this replica owns; null: all. */
  owned: ReadonlySet<string> | null;
  raw: RawFragments;
  subjects: Subjects;
  clock: Clock;
  log: Logger;
}

/**
 * Applies other.captured events in order. zhou §7: only the sanitised text (personal data replaced) is embedded
 * and kept in clear. Every fragment of every event is embedded before any is folded in: an embedder that throws
 * on one text leaves memory as it was, and the event, redelivered and finally set aside (dead letters), never
 * enters the log.
 */
export async function captureOthers(deps: CaptureDeps, events: readonly OtherCapturedEvent[], tx: Queryable): Promise<void> {
  const { inputs, matured } = await fold(deps, events);
  await insertInputs(tx, inputs);
  await outboxMatured(deps, tx, matured);
}

/**
 * As captureOthers, with the events' processed marks in the input rows' statement (`marks`, the consumer's
 * applyMarked): one transaction, one statement unless clusters matured. Memory is changed before the statement
 * learns which events are new: when some were applied before, it throws AppliedBefore in the transaction (the
 * consumer's onRollback folds memory again from the log and the events are taken with their marks read first).
 * Returns whether it appended to the outbox.
 */
export async function captureOthersMarked(deps: CaptureDeps, events: readonly OtherCapturedEvent[], ids: readonly string[], db: Db, marks: ProcessedMarks): Promise<boolean> {
  const { inputs, matured } = await fold(deps, events);
  return db.transaction(async (tx) => {
    const fresh = await insertInputsMarked(tx, marks, ids, inputs);
    // Only an event that reached memory matters: one with no fragment (or not this replica's) changed nothing.
    const before = [...new Set(inputs.map((i) => i.event_id.toLowerCase()))].filter((id) => !fresh.has(id));
    if (before.length > 0) throw new AppliedBefore(before);
    await outboxMatured(deps, tx, matured);
    return appendedToOutbox(tx);
  });
}

/** Folds the events into memory in order: the input rows to log and the clusters that matured or grew. */
async function fold(deps: CaptureDeps, events: readonly OtherCapturedEvent[]): Promise<{ inputs: NewInput[]; matured: MaturedCluster[] }> {
  const pool = deps.pool();
  const captured: Captured[] = [];
  for (const event of events) {
    const data: OtherCapturedData = event.data;
    const scenario = scenarioId(event.scenario_id);
    if (deps.owned && !deps.owned.has(scenario)) continue;
    const at = Date.parse(event.occurred_at);
    const fragments = data.fragments.slice(0, MAX_FRAGMENTS_PER_EVENT);
    const prepared = [];
    for (const text of fragments) prepared.push(await pool.prepare({ ts: at, scenario, client_id: data.client_id, text }));
    captured.push({ event, scenario, at, fragments, prepared });
  }
  const inputs: NewInput[] = [];
  const matured: MaturedCluster[] = [];
  for (const c of captured) {
    for (const [i, text] of c.fragments.entries()) {
      const p = c.prepared[i]!;
      const r = await pool.ingestPrepared(p);
      matured.push(...r.matured, ...r.grown);
      const raw = deps.raw.seal(c.event.id, i, String(text).slice(0, MAX_RAW_FRAGMENT_CHARS), c.at);
      inputs.push({ event_id: c.event.id, fragment_index: i, scenario_id: c.scenario, client_id: c.event.data.client_id, at_ms: c.at, raw_text: raw, prepared: p, global_cluster_id: r.global_cluster_id, client_cluster_id: r.client_cluster_id });
    }
  }
  return { inputs, matured };
}

async function outboxMatured(deps: CaptureDeps, tx: Queryable, matured: readonly MaturedCluster[]): Promise<void> {
  await appendToOutbox(tx, 'pool', deps.subjects, matured.map((m) => maturedEvent(m, deps.clock)));
  if (matured.length > 0) {
    deps.log.info('clusters matured (zhou §6.2.1 dual gate)', { clusters: matured.map((m) => `${m.scenario_id}/${m.scope}/${m.cluster_id}`) });
  }
}

function maturedEvent(m: MaturedCluster, clock: Clock): EventEnvelope {
  return {
    id: randomUUID(),
    type: m.kind === 'grown' ? EventType.PoolGrown : EventType.PoolMatured,
    scenario_id: m.scenario_id,
    occurred_at: clock.now().toISOString(),
    source: 'semantic-pool',
    // A global cluster's samples carry `clients` (per-cluster pseudonyms) so induction counts clients (draft-zhou §7).
    data: { ...m, reasons: [...m.reasons], samples: m.samples.map((s) => ({ text: s.text, count: s.count, ...(s.clients ? { clients: [...s.clients] } : {}) })) },
  };
}
