/**
 * The drafts' own stories of schema self-evolution, end to end through the
 * services in one process (PGlite, the in-process bus): client agents
 * execute payloads whose `other` carries what the template lacks; the
 * semantic pool clusters it (draft-zhou §6.2.1), the evolution service
 * induces and publishes patches (§6.2.2), and negotiation serves each client
 * its effective template, base + global patches + its own, patch keys
 * flagged experimental (§6.2.3). Nothing here is stubbed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoRetouchExamplePayload } from '@parley/examples';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, rpc, waitFor, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

let parley: EmbeddedParley;
/** Time is an input: the stories that need hours to pass move this clock forward (the wall clock plus an offset). */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  parley = await startParley({ port: 0, clock, log: createLogger({ level: 'silent' }), evolution: { tickMs: 0, heatSampleMs: 0 } });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
});

interface Key {
  key_name: string;
  key_type: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  experimental?: boolean;
  semantic_description: string;
}

async function execute(clientId: string, params: { schema_id: string; payload: Record<string, unknown> }): Promise<Record<string, unknown>> {
  const r = await rpc(parley.url, 'execute', { ...params, client_id: clientId });
  expect(r.body.error).toBeUndefined();
  return r.body.result as Record<string, unknown>;
}

async function template(scenario: string, clientId: string): Promise<Key[]> {
  const r = await rpc(parley.url, 'get_schema_template', { scenario, client_id: clientId });
  expect(r.body.error).toBeUndefined();
  return r.body.result.keys as Key[];
}

const keyIn = (scenario: string, clientId: string, name: string) => async () => (await template(scenario, clientId)).find((k) => k.key_name === name);

const flight = (other: string) => ({ schema_id: 'flight_booking_v1', payload: { ...FIGURE_8.payload, other } });

describe('zhou §5.1 / §6.2: many clients ask for window or aisle seats', () => {
  it('yields one global seat_preference key with values window and aisle, experimental, that payloads may then use', async () => {
    for (let c = 1; c <= 6; c++) {
      await execute(`traveller-app-${c}`, flight(c % 2 ? 'window seat please' : 'aisle seat'));
    }
    const key = await waitFor('seat_preference in the template', keyIn('flight_booking', 'traveller-app-1', 'seat_preference'), 30_000);
    expect(key).toMatchObject({ key_type: 'string', experimental: true });
    expect(key.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
    expect(key.semantic_description).toMatch(/window seat please|aisle seat/); // mapping examples from real fragments
    // A global patch: a client that never sent a fragment sees it too.
    expect(await keyIn('flight_booking', 'newcomer', 'seat_preference')()).toBeDefined();
    // The key is now part of the negotiated schema: a payload may carry it (execution sees patch
    // changes within its resolution TTL, 1 s by default) …
    const accepted = await waitFor('execution to accept seat_preference', async () => {
      const r = await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', client_id: 'traveller-app-1', payload: { ...FIGURE_8.payload, other: undefined, seat_preference: 'window' } });
      return r.body.error ? undefined : r.body.result;
    });
    expect(accepted).toHaveProperty('booking_id');
    // … and a value outside the induced enum is a typed error naming the key.
    const bad = await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', client_id: 'traveller-app-1', payload: { ...FIGURE_8.payload, seat_preference: 'wing' } });
    expect(bad.body.error?.data).toMatchObject({ type: 'payload_invalid', path: 'payload.seat_preference' });
    // The operator sees the patch and the decision that published it.
    const patches = await rpc(parley.url, 'list_patches', { scenario: 'flight_booking' });
    expect(patches.body.result.patches.some((p: { scope: string; status: string }) => p.scope === 'global' && p.status === 'active')).toBe(true);
    const clusters = await rpc(parley.url, 'list_clusters', { scenario: 'flight_booking', scope: 'global' });
    expect(clusters.body.result.clusters.some((c: { key_name?: string; matured: boolean }) => c.key_name === 'seat_preference' && c.matured)).toBe(true);
  }, 60_000);
});

describe('zhou §5.2 note: "make the eyes a little bigger" is finer than the eye_enlargement switch', () => {
  it('yields an eye-size key on a relative integer scale', async () => {
    const texts = ['make the eyes a little bigger', 'eyes slightly bigger please', 'make the eyes bigger', 'make the eyes a little bigger', 'make the eyes a little bigger', 'make the eyes bigger'];
    for (const [i, text] of texts.entries()) {
      await execute(`photo-app-${i + 1}`, { schema_id: 'photo_retouch_v2', payload: { ...photoRetouchExamplePayload, other: text } });
    }
    const key = await waitFor('eye_size in the template', keyIn('photo_retouch', 'photo-app-1', 'eye_size'), 30_000);
    expect(key).toMatchObject({ key_type: 'integer', minimum: -3, maximum: 3, experimental: true });
    // Examples in closed-vocabulary tokens (zhou §7), never the users' sentences.
    expect(key.semantic_description).toContain('"eye size slightly more" -> 1');
    expect(key.semantic_description).not.toContain('make the eyes');
  }, 60_000);
});

describe('zhou §6.2.2 Personalized Adaptation: one frequent traveller, "extra legroom" and "quiet cabin"', () => {
  it('yields patches only that client sees, never global ones', async () => {
    // "Repeatedly submits": a client's own pool counts distinct hours, so the requests come an hour apart.
    for (let i = 0; i < 24; i++) {
      offsetMs += 3_600_000;
      await execute('frequent-flyer', flight(i % 2 ? 'extra legroom' : 'quiet cabin'));
    }
    const legroom = await waitFor('extra_legroom for its client', keyIn('flight_booking', 'frequent-flyer', 'extra_legroom'), 30_000);
    expect(legroom).toMatchObject({ key_type: 'boolean', experimental: true });
    await waitFor('quiet_cabin for its client', keyIn('flight_booking', 'frequent-flyer', 'quiet_cabin'), 30_000);
    // Nobody else sees them, and no global patch carries them.
    const others = (await template('flight_booking', 'traveller-app-2')).map((k) => k.key_name);
    expect(others).not.toContain('extra_legroom');
    expect(others).not.toContain('quiet_cabin');
    const global = await rpc(parley.url, 'list_patches', { scenario: 'flight_booking', scope: 'global' });
    const globalKeys = global.body.result.patches.flatMap((p: { new_keys: { definition: { key_name: string } }[] }) => p.new_keys.map((k) => k.definition.key_name));
    expect(globalKeys).not.toContain('extra_legroom');
    expect(globalKeys).not.toContain('quiet_cabin');
    // Another client sending the per-client key is refused as an unknown key.
    const bad = await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', client_id: 'traveller-app-2', payload: { ...FIGURE_8.payload, extra_legroom: true } });
    expect(bad.body.error?.data).toMatchObject({ type: 'payload_invalid', path: 'payload.extra_legroom' });
  }, 60_000);
});

describe('zhou §6.2.2 delivery: inline (Figure 9) and by polling', () => {
  it('a client with a stale etag gets schema_update_suggestion in the result; with the current one it does not', async () => {
    await waitFor('seat_preference', keyIn('flight_booking', 'traveller-app-3', 'seat_preference'), 30_000);
    // No `other` here: the example flight agent adds a suggestion of its own when `other` mentions a seat.
    const plain = { ...FIGURE_8.payload, other: undefined };
    const suggestion = await waitFor('a suggestion for a client without an etag', async () => {
      const stale = await execute('traveller-app-3', { schema_id: 'flight_booking_v1', payload: plain });
      return stale['schema_update_suggestion'] as { etag: string; new_keys: Key[]; patch_ids: string[] } | undefined;
    });
    expect(suggestion.new_keys.map((k) => k.key_name)).toContain('seat_preference');
    expect(suggestion.new_keys.find((k) => k.key_name === 'seat_preference')?.experimental).toBe(true);
    const polled = await rpc(parley.url, 'get_schema_updates', { scenario: 'flight_booking', client_id: 'traveller-app-3' });
    expect(polled.body.result.etag).toBe(suggestion?.etag);
    const current = await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', client_id: 'traveller-app-3', schema_etag: suggestion?.etag, payload: plain });
    expect(current.body.result.schema_update_suggestion).toBeUndefined();
    const unchanged = await rpc(parley.url, 'get_schema_updates', { scenario: 'flight_booking', client_id: 'traveller-app-3', since_etag: suggestion?.etag });
    expect(unchanged.body.result.changed).toBe(false);
  }, 60_000);
});
