import { serviceOnlyAuthenticator, testIdentity } from '@parley/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyFromWire, templateFromWire, templateToWire, type NegotiationApi } from '@parley/contracts';
import { createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { ParleyError, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { startNegotiation, type RunningNegotiation } from '../src/index';
import { DAY, T0, baseTemplate, deliver, doc, key, patch, patchEvent, registryServing, storedRevision, testClock, withState } from './helpers';

// Negotiation with schema patches (draft-zhou §6.2.2 Patch Packaging, Online Update
// Delivery, Personalized Adaptation; §6.2.3 flags and the backward-compatibility
// window), on PGlite and the in-process bus: the evolution service's events come
// in through the durable patch consumer.
const subjects = createSubjects('negpatch');
const clock = testClock();
let db: Db;
let bus: Bus;
let negotiation: RunningNegotiation;
let api: NegotiationApi;
/** Deliveries to the patch consumer are doubled: every event reaches the handler twice (at-least-once). */
let doubled = 0;

beforeAll(async () => {
  db = await createPgliteDb();
  const inner = createMemoryBus({ subjects });
  bus = {
    ...inner,
    request: (s, b, o) => inner.request(s, b, o),
    serve: (s, q, h) => inner.serve(s, q, h),
    publishEvent: (e) => inner.publishEvent(e),
    consume: (o, h) =>
      inner.consume(o, async (e) => {
        await h(e);
        doubled++;
        await h(e); // a redelivery, as after a crash before the ack
      }),
    // The in-process bus delivers batches to the idempotent consumer: each batch comes twice as well.
    consumeBatch: (o, h) =>
      inner.consumeBatch!(o, async (es) => {
        await h(es);
        doubled++;
        await h(es);
      }),
    healthy: () => inner.healthy(),
    close: () => inner.close(),
  };
  negotiation = await startNegotiation({
    db,
    bus,
    subjects,
    registry: registryServing(['flight_booking']),
    clock,
    log: createLogger({ level: 'silent' }),
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
  });
  api = negotiation.api;
  await api.publishSchema({ agent: 'skyways-air', template: templateToWire(baseTemplate()), language: 'en' });
});

afterAll(async () => {
  await negotiation.stop();
  await bus.close();
  await db.close();
});

beforeEach(async () => {
  clock.set(T0);
  await db.query('DELETE FROM negotiation.patches');
});

const names = (t: SchemaTemplate | undefined) => (t?.keys ?? []).map((k) => k.key_name);
const keyOf = (t: SchemaTemplate, name: string) => t.keys.find((k) => k.key_name === name) as KeyDefinition & { experimental?: boolean; deprecated?: boolean };

async function templateFor(clientId?: string) {
  const r = await api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '', ...(clientId ? { client_id: clientId } : {}) });
  return { ...r, t: templateFromWire(r.template!) };
}

async function schemaFor(clientId?: string) {
  const r = await api.getSchema({ schema_id: 'flight_booking_v1', ...(clientId ? { client_id: clientId } : {}) });
  return { ...r, t: templateFromWire(r.template!) };
}

async function send(...events: EventEnvelope[]): Promise<void> {
  await deliver(bus, db, ...events);
}

describe('§6.2.2 base schema: publishSchema refuses the patch-only flags (§6.2.3)', () => {
  it('experimental or deprecated on a base key is template_invalid at params.template.keys[i].<flag>, rule patch_only_member', async () => {
    for (const flag of ['experimental', 'deprecated'] as const) {
      const t = baseTemplate();
      const flagged = { ...t, schema_id: `flight_booking_flag_${flag}`, keys: t.keys.map((k, i) => (i === 2 ? { ...k, [flag]: true } : k)) };
      const e = await api.publishSchema({ agent: 'skyways-air', template: templateToWire(flagged), language: 'en' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ParleyError);
      expect({ type: (e as ParleyError).type, path: (e as ParleyError).path, rule: (e as ParleyError).rule }).toEqual({
        type: 'template_invalid',
        path: `params.template.keys[2].${flag}`,
        rule: 'patch_only_member',
      });
    }
    // Nothing was stored.
    const list = await api.listSchemas({ agent: 'skyways-air' });
    expect(list.schemas.map((s) => s.schema_id)).toEqual(['flight_booking_v1']);
  });
});

describe('the patch consumer (durable, idempotent, revision-ordered)', () => {
  it('stores a published patch; each event is applied once although delivered twice', async () => {
    const before = doubled;
    const e = patchEvent(doc(patch('p-seat', { keys: [key('seat_preference')] }), 1));
    await send(e);
    expect(doubled).toBeGreaterThan(before);
    expect(await storedRevision(db, 'p-seat')).toBe(1);
    const processed = await db.query('SELECT 1 FROM negotiation.processed_events WHERE event_id = $1', [e.id]);
    expect(processed.rowCount).toBe(1);
  });

  it('an older revision, arriving late or replayed under a new event id, changes nothing', async () => {
    const p1 = patch('p-order', { keys: [key('seat_preference')] });
    const p3 = withState(p1, 'seat_preference', 'stable', T0);
    await send(patchEvent(doc(p3, 3), 'key.promoted'));
    await send(patchEvent(doc(p1, 1)), patchEvent(doc(p1, 2, 'rejected'), 'patch.updated'), patchEvent(doc(p3, 3, 'rejected'), 'patch.updated'));
    expect(await storedRevision(db, 'p-order')).toBe(3);
    const { t } = await templateFor();
    // Still the revision-3 document: active, key promoted (no flag).
    expect(keyOf(t, 'seat_preference')).toBeDefined();
    expect(keyOf(t, 'seat_preference').experimental).toBeUndefined();
    // A newer revision does apply.
    await send(patchEvent(doc(p3, 4, 'rejected'), 'patch.updated'));
    expect(await storedRevision(db, 'p-order')).toBe(4);
    expect(names((await templateFor()).t)).not.toContain('seat_preference');
  });

  it('a malformed document is skipped (logged) and does not stop the consumer', async () => {
    const good = patch('p-after-bad', { keys: [key('meal_preference')] });
    const bad = { ...doc(patch('p-bad', { keys: [key('legroom')] }), 1), new_keys: [{ definition: { key_name: 'Bad Name', key_type: 'string', required: false, semantic_description: 'x' }, lifecycle: { state: 'experimental', introduced_at: T0, state_since: T0, accept_until: null, history: [] } }] };
    const requiredKey = { ...doc(patch('p-required', { keys: [key('legroom')] }), 1) };
    (requiredKey.new_keys[0] as { definition: KeyDefinition }).definition.required = true;
    await send(patchEvent(bad), patchEvent(requiredKey), patchEvent({ nonsense: true }), patchEvent(doc(good, 1)));
    expect(await storedRevision(db, 'p-bad')).toBeUndefined();
    expect(await storedRevision(db, 'p-required')).toBeUndefined();
    expect(await storedRevision(db, 'p-after-bad')).toBe(1);
  });

  it('a proposed patch (awaiting an operator) is not served; once active it is', async () => {
    const p = patch('p-proposed', { keys: [key('cabin_zone')] });
    await send(patchEvent(doc(p, 1, 'proposed')));
    expect(names((await templateFor()).t)).not.toContain('cabin_zone');
    await send(patchEvent(doc(p, 2, 'active'), 'patch.updated'));
    expect(names((await templateFor()).t)).toContain('cabin_zone');
  });
});

describe('§6.2.2 Personalized Adaptation: the effective template per client', () => {
  beforeEach(async () => {
    await send(
      patchEvent(doc(patch('g1', { keys: [key('seat_preference')] }), 1)),
      patchEvent(doc(patch('alice-1', { scope: 'alice', keys: [key('quiet_zone')], at: T0 - DAY / 2 }), 1)),
      patchEvent(doc(patch('bob-1', { scope: 'bob', keys: [key('extra_legroom')], at: T0 - DAY / 2 }), 1)),
    );
  });

  it('a client gets the base + global patches + its own; never another client\'s', async () => {
    const alice = await templateFor('alice');
    expect(names(alice.t)).toEqual(['origin', 'destination', 'cabin_class', 'seat_preference', 'quiet_zone', 'other']);
    expect(alice.applied_patches).toEqual(['g1', 'alice-1']);
    const bob = await templateFor('bob');
    expect(names(bob.t)).toEqual(['origin', 'destination', 'cabin_class', 'seat_preference', 'extra_legroom', 'other']);
    expect(bob.applied_patches).toEqual(['g1', 'bob-1']);
    expect(JSON.stringify(alice.template)).not.toContain('extra_legroom');
    expect(JSON.stringify(bob.template)).not.toContain('quiet_zone');
  });

  it('without client_id: the global view; getSchema agrees with getSchemaTemplate', async () => {
    const anon = await templateFor();
    expect(names(anon.t)).toEqual(['origin', 'destination', 'cabin_class', 'seat_preference', 'other']);
    expect(anon.applied_patches).toEqual(['g1']);
    const s = await schemaFor('alice');
    expect(names(s.t)).toEqual(names((await templateFor('alice')).t));
    expect(s.etag).toBe((await templateFor('alice')).etag);
    expect(s.applied_patches).toEqual(['g1', 'alice-1']);
    const carol = await schemaFor('carol'); // no patch of her own
    expect(carol.applied_patches).toEqual(['g1']);
  });

  it('base_only: the base exactly as published, whatever the patches (what the evolution service derives patches from)', async () => {
    const r = await api.getSchema({ schema_id: 'flight_booking_v1', base_only: true });
    expect(names(templateFromWire(r.template!))).toEqual(['origin', 'destination', 'cabin_class', 'other']);
    expect(r.applied_patches).toEqual([]);
    await expect(api.getSchema({ schema_id: 'flight_booking_v1', base_only: true, client_id: 'alice' })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.base_only', rule: 'exclusive' });
  });

  it('§6.2.3 new patch keys are flagged experimental: true; the template still parses and the wire keeps the flag', async () => {
    const { template, t } = await templateFor('alice');
    expect(keyOf(t, 'seat_preference').experimental).toBe(true);
    expect(keyOf(t, 'origin')).not.toHaveProperty('experimental');
    expect(template?.keys.find((k) => k.key_name === 'quiet_zone')?.experimental).toBe(true);
    expect(keyFromWire(template!.keys[3]!)).toMatchObject({ key_name: 'seat_preference', experimental: true });
  });

  it('the etag: equal for equal effective templates, different otherwise', async () => {
    const [anon, carol, alice, bob] = await Promise.all([templateFor(), templateFor('carol'), templateFor('alice'), templateFor('bob')]);
    expect(anon.etag).toMatch(/^[0-9a-f]{16}$/);
    expect(carol.etag).toBe(anon.etag); // carol sees exactly the global view
    expect(new Set([anon.etag, alice.etag, bob.etag]).size).toBe(3);
  });
});

describe('§6.2.3 lifecycle in the served template', () => {
  it('promotion removes the flag, deprecation sets deprecated: true, and each changes the etag', async () => {
    const p = patch('life', { keys: [key('seat_preference'), key('meal_preference')] });
    await send(patchEvent(doc(p, 1)));
    const e1 = (await templateFor()).etag;
    const promoted = withState(p, 'seat_preference', 'stable', T0);
    await send(patchEvent(doc(promoted, 2), 'key.promoted'));
    const r2 = await templateFor();
    expect(keyOf(r2.t, 'seat_preference')).not.toHaveProperty('experimental');
    expect(keyOf(r2.t, 'meal_preference').experimental).toBe(true);
    expect(r2.etag).not.toBe(e1);
    await send(patchEvent(doc(withState(promoted, 'meal_preference', 'deprecated', T0), 3), 'key.deprecated'));
    const r3 = await templateFor();
    expect(keyOf(r3.t, 'meal_preference').deprecated).toBe(true);
    expect(r3.etag).not.toBe(r2.etag);
  });

  it('a withdrawn key leaves the template and is listed in withdrawn_keys with its accept_until, also after the window', async () => {
    const p = patch('wd', { keys: [key('seat_preference'), key('meal_preference')] });
    const until = T0 + 30 * DAY;
    await send(patchEvent(doc(withState(p, 'meal_preference', 'withdrawn', T0, until), 2), 'key.withdrawn'));
    const s = await schemaFor('alice');
    expect(names(s.t)).not.toContain('meal_preference');
    expect(s.withdrawn_keys).toHaveLength(1);
    expect(s.withdrawn_keys[0]).toMatchObject({ patch_id: 'wd', accept_until: new Date(until).toISOString() });
    expect(s.withdrawn_keys[0]?.definition?.key_name).toBe('meal_preference');
    clock.set(until + DAY); // execution decides what a past window means
    const later = await schemaFor('alice');
    // (By then the patch has expired too, so its still-experimental seat_preference is in its own window.)
    expect(later.withdrawn_keys.find((w) => w.definition?.key_name === 'meal_preference')).toMatchObject({ patch_id: 'wd', accept_until: new Date(until).toISOString() });
  });

  it('a client never gets another client\'s withdrawn keys', async () => {
    const p = patch('bob-wd', { scope: 'bob', keys: [key('extra_legroom')] });
    await send(patchEvent(doc(withState(p, 'extra_legroom', 'withdrawn', T0, T0 + DAY), 2), 'key.withdrawn'));
    expect((await schemaFor('alice')).withdrawn_keys).toEqual([]);
    expect((await schemaFor()).withdrawn_keys).toEqual([]);
    expect((await schemaFor('bob')).withdrawn_keys.map((w) => w.definition?.key_name)).toEqual(['extra_legroom']);
  });

  it('§6.2.2 expiration date: refinements stop applying and still-experimental keys are withdrawn into the window', async () => {
    const expires = T0 + DAY;
    const p = patch('exp', { keys: [key('seat_preference')], modified: [{ key_name: 'destination', semantic_description: 'Arrival airport (IATA). Example: to Shanghai -> SHA.' }], expires });
    await send(patchEvent(doc(p, 1)));
    const before = await schemaFor();
    expect(keyOf(before.t, 'destination').semantic_description).toContain('to Shanghai');
    clock.set(expires);
    const after = await schemaFor();
    expect(keyOf(after.t, 'destination').semantic_description).toBe('IATA code of the arrival airport.');
    expect(names(after.t)).not.toContain('seat_preference');
    expect(after.applied_patches).toEqual([]);
    expect(after.withdrawn_keys[0]).toMatchObject({ patch_id: 'exp', accept_until: new Date(expires + 30 * DAY).toISOString() });
    expect(after.etag).toBe((await api.getSchema({ schema_id: 'flight_booking_v1' })).etag);
  });

  it('a patch on another base version does not apply', async () => {
    const other: SchemaTemplate = { ...baseTemplate(), schema_id: 'flight_booking_v0' };
    await send(patchEvent(doc(patch('old-base', { keys: [key('seat_preference')], base: other }), 1)));
    const r = await templateFor();
    expect(r.applied_patches).toEqual([]);
    expect(names(r.t)).not.toContain('seat_preference');
  });
});

describe('§6.2.2 "a dedicated schema polling endpoint": getSchemaUpdates', () => {
  beforeEach(async () => {
    const g = patch('g-poll', { keys: [key('seat_preference')], modified: [{ key_name: 'origin', semantic_description: 'Departure airport (IATA). Example: from Beijing -> PEK.' }] });
    await send(
      patchEvent(doc(withState(patch('g-poll', { keys: [key('seat_preference'), key('meal_preference')] }), 'meal_preference', 'withdrawn', T0, T0 + DAY), 1)),
      patchEvent(doc(g, 0)), // an older revision: ignored
      patchEvent(doc(patch('alice-poll', { scope: 'alice', keys: [key('quiet_zone')], at: T0 - DAY / 2 }), 1)),
      patchEvent(doc(patch('bob-poll', { scope: 'bob', keys: [key('extra_legroom')], at: T0 - DAY / 2 }), 1)),
    );
  });

  it('returns the client\'s patches (global and its own only), flagged, ISO times, withdrawn keys left out', async () => {
    const u = await api.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'alice' });
    expect(u.changed).toBe(true);
    expect(u.parent_schema_id).toBe('flight_booking_v1');
    expect(u.etag).toBe((await templateFor('alice')).etag);
    expect(u.patches.map((p) => [p.patch_id, p.scope])).toEqual([
      ['g-poll', 'global'],
      ['alice-poll', 'alice'],
    ]);
    const g = u.patches[0]!;
    expect(g.new_keys.map((k) => [k.key_name, k.experimental])).toEqual([['seat_preference', true]]); // meal_preference withdrawn
    expect(g.timestamp).toBe(new Date(T0 - DAY).toISOString());
    expect(g.expires_at).toBe(new Date(T0 + 29 * DAY).toISOString());
    expect(g.scenario_id).toBe('flight_booking');
    expect(JSON.stringify(u)).not.toContain('bob');
    expect(JSON.stringify(u)).not.toContain('extra_legroom');
  });

  it('changed: false and no patches when since_etag is current; a stale etag gets everything', async () => {
    const first = await api.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'bob' });
    const again = await api.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'bob', since_etag: first.etag });
    expect(again).toEqual({ etag: first.etag, changed: false, parent_schema_id: 'flight_booking_v1', patches: [] });
    await send(patchEvent(doc(withState(patch('bob-poll', { scope: 'bob', keys: [key('extra_legroom')], at: T0 - DAY / 2 }), 'extra_legroom', 'stable', T0), 2), 'key.promoted'));
    const moved = await api.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'bob', since_etag: first.etag });
    expect(moved.changed).toBe(true);
    expect(moved.etag).not.toBe(first.etag);
    expect(moved.patches.find((p) => p.patch_id === 'bob-poll')?.new_keys[0]).not.toHaveProperty('experimental');
  });

  it('unknown scenarios are scenario_not_found; a malformed client_id is invalid_params', async () => {
    await expect(api.getSchemaUpdates({ scenario: 'teleportation' })).rejects.toMatchObject({ type: 'scenario_not_found' });
    await expect(api.getSchemaUpdates({ scenario: 'flight_booking', client_id: 'has space' })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.client_id' });
    await expect(api.getSchema({ schema_id: 'flight_booking_v1', client_id: '' })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.client_id' });
  });
});
