import { randomUUID } from 'node:crypto';
import type { RegistryApi } from '@parley/contracts';
import { EventType, type Bus, type EventEnvelope, type PatchDocument } from '@parley/events';
import { DAY_MS, packagePatch, withKeyLifecycle, type KeyState, type SchemaPatch } from '@parley/evolution';
import type { KeyDefinition, SchemaTemplate } from '@parley/protocol';
import type { Queryable } from '@parley/storage';

/** 2026-05-01T00:00:00Z: the tests' clock origin, never the wall clock. */
export const T0 = Date.parse('2026-05-01T00:00:00Z');
export const DAY = DAY_MS;

/** A mutable clock the services read. */
export function testClock(start = T0): { now(): Date; set(ms: number): void; ms(): number } {
  let t = start;
  return { now: () => new Date(t), set: (ms) => void (t = ms), ms: () => t };
}

/**
 * The registry as negotiation sees it over gRPC (only getAgent is used):
 * every agent serves `scenarios`. Services never import each other, so
 * negotiation's tests stand the registry in with this.
 */
export function registryServing(scenarios: string[]): RegistryApi {
  const getAgent: RegistryApi['getAgent'] = async ({ name }) => ({
    agent: { name, scenarios, description: '', domain: '', tags: [], version: '', registered_at: '', updated_at: '', executions: 0, last_executed_at: '' },
  });
  return { getAgent } as unknown as RegistryApi;
}

export function baseTemplate(): SchemaTemplate {
  return {
    schema_id: 'flight_booking_v1',
    scenario: 'flight_booking',
    keys: [
      { key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport. Example: from Beijing -> PEK' },
      { key_name: 'destination', key_type: 'string', required: true, semantic_description: 'IATA code of the arrival airport.' },
      { key_name: 'cabin_class', key_type: 'string', required: false, default_value: 'economy', enum: ['economy', 'business', 'first'], semantic_description: 'Cabin class.' },
      { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Escape valve for unstructured semantic fragments that cannot be mapped to existing keys.' },
    ],
  };
}

export function key(name: string, description = `The ${name.replace(/_/g, ' ')}. Example: 'by the window' -> 'window'.`): KeyDefinition {
  return { key_name: name, key_type: 'string', required: false, semantic_description: description };
}

/** A patch as libs/evolution packages it (zhou §6.2.2). */
export function patch(id: string, opts: { scope?: 'global' | string; keys?: KeyDefinition[]; modified?: { key_name: string; semantic_description: string }[]; at?: number; expires?: number; base?: SchemaTemplate } = {}): SchemaPatch {
  return packagePatch({
    patch_id: id,
    base: opts.base ?? baseTemplate(),
    scope: opts.scope === undefined || opts.scope === 'global' ? 'global' : { client_id: opts.scope },
    timestamp: opts.at ?? T0 - DAY,
    ...(opts.expires !== undefined ? { expires_at: opts.expires } : {}),
    new_keys: opts.keys ?? [],
    modified_keys: opts.modified ?? [],
  });
}

/** Moves one key of a patch to `state` (zhou §6.2.3), as the evolution service's lifecycle does. */
export function withState(p: SchemaPatch, keyName: string, state: KeyState, at: number, acceptUntil: number | null = null): SchemaPatch {
  return withKeyLifecycle(p, keyName, { state, introduced_at: p.timestamp, state_since: at, accept_until: acceptUntil, history: [] });
}

/** The evolution service's document: the patch plus status, pinned, approval_reasons, revision. */
export function doc(p: SchemaPatch, revision: number, status: PatchDocument['status'] = 'active'): PatchDocument {
  return { ...(JSON.parse(JSON.stringify(p)) as Omit<PatchDocument, 'status' | 'pinned' | 'approval_reasons' | 'revision'>), status, pinned: false, approval_reasons: [], revision };
}

export function patchEvent(d: PatchDocument | Record<string, unknown>, type: 'patch.published' | 'patch.updated' | 'key.promoted' | 'key.deprecated' | 'key.withdrawn' = EventType.PatchPublished): EventEnvelope {
  return {
    id: randomUUID(),
    type,
    scenario_id: 'flight_booking',
    occurred_at: new Date(T0).toISOString(),
    source: 'evolution',
    data: { patch: d as PatchDocument, reasons: [], figures: {}, actor: 'test' },
  } as EventEnvelope;
}

/** Publishes events and waits until the patch consumer has processed each of them. */
export async function deliver(bus: Bus, db: Queryable, ...events: EventEnvelope[]): Promise<void> {
  for (const e of events) await bus.publishEvent(e);
  const ids = events.map((e) => e.id);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM negotiation.processed_events WHERE event_id = ANY($1::uuid[])', [ids]);
    if (Number(r.rows[0]?.n) === ids.length) return;
    if (Date.now() > deadline) throw new Error(`patch consumer processed ${String(r.rows[0]?.n)} of ${ids.length} events`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

export async function storedRevision(db: Queryable, patchId: string): Promise<number | undefined> {
  const r = await db.query<{ revision: number }>('SELECT revision FROM negotiation.patches WHERE patch_id = $1', [patchId]);
  return r.rows[0]?.revision;
}
