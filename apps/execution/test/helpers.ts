import { createHash } from 'node:crypto';
import { templateToWire, type NegotiationApi } from '@parley/contracts';
import type { Bus, EventEnvelope, Subjects } from '@parley/events';
import { DAY_MS, effectiveTemplate, packagePatch, patchForDelivery, patchesFor, withKeyLifecycle, type KeyState, type SchemaPatch } from '@parley/evolution';
import { ParleyError, decodeDispatchRequest, encodeDispatch, type JsonObject, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import type { Queryable } from '@parley/storage';

/** 2026-05-01T00:00:00Z: the tests' clock origin. */
export const T0 = Date.parse('2026-05-01T00:00:00Z');
export const DAY = DAY_MS;

export function testClock(start = T0): { now(): Date; set(ms: number): void } {
  let t = start;
  return { now: () => new Date(t), set: (ms) => void (t = ms) };
}

export function baseTemplate(): SchemaTemplate {
  return {
    schema_id: 'flight_booking_v1',
    scenario: 'flight_booking',
    keys: [
      { key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport.' },
      { key_name: 'destination', key_type: 'string', required: true, semantic_description: 'IATA code of the arrival airport.' },
      { key_name: 'cabin_class', key_type: 'string', required: false, default_value: 'economy', enum: ['economy', 'business', 'first'], semantic_description: 'Cabin class.' },
      { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Escape valve for unstructured semantic fragments that cannot be mapped to existing keys.' },
    ],
  };
}

export function key(name: string, over: Partial<KeyDefinition> = {}): KeyDefinition {
  return { key_name: name, key_type: 'string', required: false, semantic_description: `The ${name.replace(/_/g, ' ')}.`, ...over };
}

export function patch(id: string, opts: { scope?: string; keys?: KeyDefinition[]; modified?: { key_name: string; semantic_description: string }[]; at?: number } = {}): SchemaPatch {
  return packagePatch({
    patch_id: id,
    base: baseTemplate(),
    scope: opts.scope === undefined ? 'global' : { client_id: opts.scope },
    timestamp: opts.at ?? T0 - DAY,
    new_keys: opts.keys ?? [],
    modified_keys: opts.modified ?? [],
  });
}

export function withState(p: SchemaPatch, keyName: string, state: KeyState, at: number, acceptUntil: number | null = null): SchemaPatch {
  return withKeyLifecycle(p, keyName, { state, introduced_at: p.timestamp, state_since: at, accept_until: acceptUntil, history: [] });
}

export interface FakeNegotiation extends NegotiationApi {
  /** The active patches negotiation would serve (mutable). */
  patches: SchemaPatch[];
  calls: { getSchema: number; getSchemaUpdates: number };
}

/**
 * NegotiationService as execution sees it over gRPC, answering from the same
 * libs/evolution rules the real service uses (apps/negotiation/test covers the
 * real one): GetSchema with the client's effective template, its etag, applied
 * patches and withdrawn keys; GetSchemaUpdates with the patch deliveries.
 * Services never import each other, so execution's tests stand it in with this.
 */
export function fakeNegotiation(opts: { agent: string; base: SchemaTemplate; now: () => number; responseSchema?: JsonObject }): FakeNegotiation {
  const state = { patches: [] as SchemaPatch[], calls: { getSchema: 0, getSchemaUpdates: 0 } };
  const version = { agent: opts.agent, schema_id: opts.base.schema_id, scenario: opts.base.scenario, scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: !!opts.responseSchema, published_at: new Date(T0 - 10 * DAY).toISOString(), retired_at: '' };
  const view = (clientId: string | null) => {
    const eff = effectiveTemplate(opts.base, state.patches, clientId, opts.now());
    const etag = createHash('sha256').update(JSON.stringify([eff.template.keys, eff.applied_patches])).digest('hex').slice(0, 16);
    return { eff, etag };
  };
  const getSchema: NegotiationApi['getSchema'] = async (req) => {
    state.calls.getSchema++;
    if (req.schema_id !== opts.base.schema_id) throw new ParleyError('schema_not_found', `No schema with schema_id "${req.schema_id}"`, { path: 'params.schema_id', rule: 'exists' });
    const clientId = req.client_id ?? null;
    const { eff, etag } = view(clientId);
    const present = new Set(eff.template.keys.map((k) => k.key_name));
    const withdrawn = patchesFor(state.patches, clientId).flatMap((p) =>
      p.new_keys
        .filter((k) => k.lifecycle.state === 'withdrawn' && !present.has(k.definition.key_name))
        .map((k) => ({
          definition: templateToWire({ ...opts.base, keys: [k.definition] }).keys[0],
          patch_id: p.patch_id,
          accept_until: new Date(k.lifecycle.accept_until ?? k.lifecycle.state_since + 30 * DAY).toISOString(),
        })),
    );
    return {
      template: templateToWire({ schema_id: eff.template.schema_id, scenario: eff.template.scenario, keys: [...eff.template.keys] }),
      schema: version,
      ...(opts.responseSchema ? { response_schema: opts.responseSchema } : {}),
      applied_patches: [...eff.applied_patches],
      etag,
      withdrawn_keys: withdrawn,
    };
  };
  const getSchemaUpdates: NegotiationApi['getSchemaUpdates'] = async (req) => {
    state.calls.getSchemaUpdates++;
    const clientId = req.client_id ?? null;
    const { eff, etag } = view(clientId);
    const changed = req.since_etag !== etag;
    const patches = !changed
      ? []
      : eff.applied_patches.map((id) => {
          const p = state.patches.find((x) => x.patch_id === id) as SchemaPatch;
          const d = patchForDelivery(p, opts.now());
          const keys = d.new_keys.filter((k) => eff.key_origins[k.key_name] === id);
          return {
            patch_id: id,
            parent_schema_id: p.parent_schema_id,
            scenario_id: p.scenario,
            scope: p.scope === 'global' ? 'global' : p.scope.client_id,
            timestamp: new Date(p.timestamp).toISOString(),
            expires_at: new Date(p.expires_at).toISOString(),
            new_keys: templateToWire({ ...opts.base, keys }).keys,
            modified_keys: d.modified_keys.map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) })),
          };
        });
    return { etag, changed, parent_schema_id: opts.base.schema_id, patches };
  };
  return Object.assign(state, { getSchema, getSchemaUpdates }) as unknown as FakeNegotiation;
}

/** A server agent on the bus that answers every request and remembers the payloads it got. */
export async function serveAgent(bus: Bus, subjects: Subjects, agent: string, scenario: string): Promise<{ payloads: JsonObject[]; stop(): Promise<void> }> {
  const payloads: JsonObject[] = [];
  const sub = await bus.serve(subjects.execute(scenario, agent), agent, async (body) => {
    const req = decodeDispatchRequest(body);
    payloads.push(req.payload);
    return encodeDispatch({ ok: true, result: { booking_id: `BK-${payloads.length}`, status: 'confirmed' } });
  });
  return { payloads, stop: () => sub.stop() };
}

/** The outbox events of one execution, in order. */
export async function outboxEvents(db: Queryable, executionId: string): Promise<EventEnvelope[]> {
  const r = await db.query<{ event: EventEnvelope | string }>('SELECT event FROM execution.outbox ORDER BY seq');
  return r.rows
    .map((row) => (typeof row.event === 'string' ? (JSON.parse(row.event) as EventEnvelope) : row.event))
    .filter((e) => (e.data as { execution_id?: string }).execution_id === executionId);
}
