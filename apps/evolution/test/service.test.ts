/**
 * apps/evolution on PGlite and the in-process bus (draft-zhou §6.2.2,
 * §6.2.3): matured clusters become patches in the outbox, operators decide,
 * the lifecycle runs on an injected clock, audits feed alignment, and a
 * restart folds the input log back into the same state.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { templateToWire, type NegotiationApi } from '@parley/contracts';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope, type PoolMaturedData } from '@parley/events';
import { flightBookingTemplate } from '@parley/examples';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { waitFor, serviceOnlyAuthenticator, testIdentity } from '@parley/testkit';
import { startEvolution, type RunningEvolution } from '../src/index';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);
const subjects = createSubjects('evt');
const log = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'error') ?? 'error' });

/** Negotiation as the evolver sees it: the flight-booking base, nothing else. */
const negotiation = {
  async listSchemas() {
    return { schemas: [{ agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario: 'flight_booking', scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: false, published_at: '2026-01-01T00:00:00.000Z' }] };
  },
  async getSchema() {
    return { template: templateToWire(flightBookingTemplate), applied_patches: [], etag: 'x', withdrawn_keys: [] };
  },
} as unknown as NegotiationApi;

function maturedEvent(texts: [string, number][], at: number, scope = 'global', cluster = 'c1'): EventEnvelope {
  const data: PoolMaturedData = {
    cluster_id: cluster,
    scenario_id: 'flight_booking',
    scope,
    size: texts.reduce((n, [, c]) => n + c, 0),
    heat: 61,
    distinct_clients: 5,
    occurrences_in_window: 9,
    branch: 'distinct_clients',
    reasons: ['heat 61 >= 50', '5 distinct clients >= 5'],
    matured_at: at,
    samples: texts.map(([text, count]) => ({ text, count })),
  };
  return { id: randomUUID(), type: EventType.PoolMatured, scenario_id: 'flight_booking', occurred_at: new Date(at).toISOString(), source: 'test', data };
}

let db: Db;
let bus: Bus;
let now = T0;
const clock = { now: () => new Date(now) };
let running: RunningEvolution | undefined;

const start = () =>
  startEvolution({ db, bus, subjects, negotiation, clock, log, tickMs: 0, grpcHost: '127.0.0.1', grpcPort: 0, authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken) });
const outbox = async () => (await db.query<{ event: EventEnvelope | string }>('SELECT event FROM evolution.outbox ORDER BY seq')).rows.map((r) => (typeof r.event === 'string' ? (JSON.parse(r.event) as EventEnvelope) : r.event));

beforeEach(async () => {
  now = T0;
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects });
  running = await start();
});

afterEach(async () => {
  await running?.stop();
  await bus.close();
  await db.close();
});

const SEAT: [string, number][] = [
  ['window seat please', 4],
  ['aisle seat', 3],
  ['a window seat', 2],
];

describe('evolution service (zhou §6.2.2-§6.2.3)', () => {
  it('turns a pool.matured event into seat_preference, published through the outbox once, however often it is delivered', async () => {
    const ev = maturedEvent(SEAT, T0);
    await bus.publishEvent(ev);
    await bus.publishEvent(ev); // redelivery: same event id
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches.length ? true : undefined));
    const { patches } = await running!.api.listPatches({ scenario: 'flight_booking' });
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({ scope: 'global', status: 'active', pinned: false, parent_schema_id: 'flight_booking_v1', source_cluster_id: 'c1' });
    expect(patches[0]?.new_keys[0]?.definition?.key_name).toBe('seat_preference');
    expect(patches[0]?.new_keys[0]?.definition?.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
    expect(patches[0]?.new_keys[0]?.state).toBe('experimental');
    await running!.drainOutbox();
    const events = await outbox();
    expect(events.map((e) => e.type)).toEqual([EventType.PatchPublished]);
    const doc = (events[0]?.data as { patch: { revision: number; status: string } }).patch;
    expect(doc).toMatchObject({ revision: 1, status: 'active' });
  });

  it('operator decisions need a reason, are stored with the actor, and unknown patches are typed errors', async () => {
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    const id = (await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0]?.patch_id as string;
    await expect(running!.api.pinPatch({ patch_id: id, pinned: true, reason: ' ' })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.reason', rule: 'required' });
    await expect(running!.api.approvePatch({ patch_id: 'p404', reason: 'x' })).rejects.toMatchObject({ type: 'patch_not_found', path: 'params.patch_id' });
    await expect(running!.api.approvePatch({ patch_id: id, reason: 'x' })).rejects.toBeInstanceOf(ParleyError); // already active
    const pinned = await running!.api.pinPatch({ patch_id: id, pinned: true, reason: 'keep for the fair' });
    expect(pinned.patch).toMatchObject({ pinned: true, revision: 2 });
    const { decisions } = await running!.api.listDecisions({ scenario: 'flight_booking' });
    expect(decisions.map((d) => [d.action, d.actor])).toEqual([
      ['publish', 'inducer'],
      ['pin', 'operator'],
    ]);
    expect(decisions[1]?.reasons).toEqual(['keep for the fair']);
  });

  it('edit_patch: a rename of a published key is a new key plus the deprecation of the old, through the outbox; logged, so a restart folds the same state', async () => {
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    const id = (await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0]?.patch_id as string;
    now = T0 + DAY;
    const ctx = { actor: 'ops-anna' };
    await expect(running!.api.editPatch({ patch_id: id, key: 'seat_preference', rename: 'cabin_class', values: [], reason: 'r' }, ctx as never)).rejects.toMatchObject({ type: 'invalid_params', path: 'params.rename', rule: 'key_exists' });
    await expect(running!.api.editPatch({ patch_id: id, key: 'seat_preference', rename: 'seat_choice', values: [], reason: ' ' }, ctx as never)).rejects.toMatchObject({ path: 'params.reason', rule: 'required' });
    await expect(running!.api.editPatch({ patch_id: id, key: 'seat_preference', values: [], reason: 'nothing' }, ctx as never)).rejects.toMatchObject({ path: 'params', rule: 'required' });
    const r = await running!.api.editPatch({ patch_id: id, key: 'seat_preference', rename: 'seat_choice', values: [], reason: 'the agreed name' }, ctx as never);
    expect(r.outcome).toBe('replace');
    expect(r.patch?.new_keys[0]).toMatchObject({ definition: expect.objectContaining({ key_name: 'seat_choice' }), state: 'experimental' });
    expect(r.replaced).toMatchObject({ patch_id: id });
    expect(r.replaced?.new_keys[0]?.state).toBe('deprecated');
    const { decisions } = await running!.api.listDecisions({ scenario: 'flight_booking' });
    expect(decisions.map((d) => [d.action, d.key_name, d.actor])).toEqual([
      ['publish', '', 'inducer'],
      ['publish', '', 'ops-anna'],
      ['edit', 'seat_choice', 'ops-anna'],
      ['deprecate', 'seat_preference', 'ops-anna'],
    ]);
    expect(decisions[2]?.reasons[0]).toBe('the agreed name');
    await running!.drainOutbox();
    // Signed by negotiation like every patch: the new key as patch.published, the old one as key.deprecated.
    expect((await outbox()).map((e) => e.type)).toEqual([EventType.PatchPublished, EventType.PatchPublished, EventType.KeyDeprecated]);
    const before = await running!.api.listPatches({ scenario: 'flight_booking' });
    await running!.stop();
    running = await start();
    expect(await running.api.listPatches({ scenario: 'flight_booking' })).toEqual(before);
    expect((await running.api.listDecisions({ scenario: 'flight_booking' })).decisions).toHaveLength(4);
  });

  it('pool.grown: values the grown cluster supports arrive as a refinement, logged as a grown input (zhou §6.2.2 over the cluster\'s life)', async () => {
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    const grown = maturedEvent([...SEAT, ['middle seat please', 3], ['a middle seat', 2]], T0 + DAY);
    await bus.publishEvent({ ...grown, type: EventType.PoolGrown, data: { ...(grown.data as PoolMaturedData), kind: 'grown' } } as EventEnvelope);
    await waitFor('the refinement', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches.length === 2 ? true : undefined));
    const { patches } = await running!.api.listPatches({ scenario: 'flight_booking' });
    expect(patches[1]?.modified_keys).toEqual([expect.objectContaining({ key_name: 'seat_preference', enum: expect.arrayContaining(['window', 'aisle', 'middle']) })]);
    expect((await db.query<{ kind: string }>('SELECT kind FROM evolution.inputs ORDER BY seq')).rows.map((r) => r.kind)).toEqual(['base', 'matured', 'grown']);
  });

  it('runs the §6.2.3 lifecycle on its clock from payload.executed events, and a restart folds the log into the same state', async () => {
    // An execution before any patch exists touches no counter: acknowledged without a transaction or a mark.
    const early = randomUUID();
    await bus.publishEvent({
      id: early,
      type: EventType.PayloadExecuted,
      scenario_id: 'flight_booking',
      occurred_at: new Date(T0).toISOString(),
      source: 'test',
      data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'n0', keys_present: ['origin'], key_type_correct: { origin: true }, defaults_applied: [], duration_ms: 1 },
    });
    // Hostile scenario ids in the data (the subject's token is checked, the data is not; the longest just under the
    // bus's 1 MiB): declined the same way.
    const hostile = ['__proto__', 'constructor', 'toString', 'flight\u0000booking', 'flight_\ud800', 'x'.repeat(1024 * 1024 - 4096), `${'a'.repeat(50_000)}!`].map((scenario) => ({ scenario, id: randomUUID() }));
    for (const h of hostile) {
      await bus.publishEvent({
        id: h.id,
        type: EventType.PayloadExecuted,
        scenario_id: 'flight_booking',
        occurred_at: new Date(T0).toISOString(),
        source: 'test',
        data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: h.scenario, client_id: 'n0', keys_present: ['origin'], key_type_correct: { origin: true }, defaults_applied: [], duration_ms: 1 },
      });
    }
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    // A week of payloads without the key from 20 clients: usage 0% < 5%.
    for (let i = 0; i < 40; i++) {
      const at = T0 + Math.floor((i * 6 * DAY) / 40) + 1000;
      await bus.publishEvent({
        id: randomUUID(),
        type: EventType.PayloadExecuted,
        scenario_id: 'flight_booking',
        occurred_at: new Date(at).toISOString(),
        source: 'test',
        data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: `n${i % 20}`, keys_present: ['origin', 'destination'], key_type_correct: { origin: true, destination: true }, defaults_applied: [], duration_ms: 1 },
      });
    }
    await waitFor('executions logged', async () => (Number((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM evolution.inputs WHERE kind = 'execution'")).rows[0]?.n) === 40 ? true : undefined));
    const marked = await db.query<{ event_id: string }>("SELECT event_id::text FROM evolution.processed_events WHERE consumer LIKE '%evolution-executions'");
    expect(marked.rows).toHaveLength(40);
    expect(marked.rows.map((r) => r.event_id)).not.toContain(early);
    for (const h of hostile) expect(marked.rows.map((r) => r.event_id)).not.toContain(h.id);
    now = T0 + 3 * DAY;
    expect(await running!.tick()).toBe(0); // still in trial
    now = T0 + 8 * DAY;
    expect(await running!.tick()).toBe(1);
    const before = await running!.api.listPatches({ scenario: 'flight_booking' });
    expect(before.patches[0]?.new_keys[0]?.state).toBe('deprecated');
    expect(before.patches[0]?.new_keys[0]?.metrics?.usage_frequency).toBe(0);
    const decided = (await running!.api.listDecisions({ scenario: 'flight_booking' })).decisions.at(-1);
    expect(decided).toMatchObject({ action: 'deprecate', actor: 'evaluator' });
    expect(decided?.reasons.join(' ')).toMatch(/usage_frequency 0% < 5%/);
    await running!.drainOutbox();
    expect((await outbox()).map((e) => e.type)).toEqual([EventType.PatchPublished, EventType.KeyDeprecated]);

    // Restart: a new service on the same database rebuilds from evolution.inputs.
    await running!.stop();
    running = await start();
    const after = await running.api.listPatches({ scenario: 'flight_booking' });
    expect(after).toEqual(before);
    expect((await running.api.listDecisions({ scenario: 'flight_booking' })).decisions).toHaveLength(2);
    now = T0 + 23 * DAY;
    expect(await running.tick()).toBe(1); // grace over: withdrawn
    expect((await running.api.getPatch({ patch_id: after.patches[0]?.patch_id as string })).patch?.new_keys[0]?.state).toBe('withdrawn');
  });

  it('one key per intent across clusters: a second cluster saying the same need refines the first key, and a restart folds the same state (zhou §6.2.2)', async () => {
    await bus.publishEvent(maturedEvent([['vegetarian meal please', 3], ['a vegan meal', 2], ['vegan meal for me', 1]], T0, 'global', 'c-a'));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    now = T0 + DAY;
    await bus.publishEvent(maturedEvent([['a halal meal', 2], ['kosher meal please', 2], ['halal meal on the plane', 1]], T0 + DAY, 'global', 'c-b'));
    await waitFor('the refinement', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches.length === 2 ? true : undefined));
    const before = await running!.api.listPatches({ scenario: 'flight_booking' });
    expect(before.patches.flatMap((p) => p.new_keys.map((k) => k.definition?.key_name))).toEqual(['meal_preference']);
    expect(before.patches[1]?.modified_keys.map((k) => k.key_name)).toEqual(['meal_preference']);
    // The sibling decision is logged with the induction: a replay applies it and never induces again.
    const bodies = (await db.query<{ body: { induction: { sibling_key?: string } } | string }>("SELECT body FROM evolution.inputs WHERE kind = 'matured' ORDER BY seq")).rows.map((r) => (typeof r.body === 'string' ? (JSON.parse(r.body) as { induction: { sibling_key?: string } }) : r.body));
    expect(bodies.map((b) => b.induction.sibling_key)).toEqual([undefined, 'meal_preference']);
    const decisions = (await running!.api.listDecisions({ scenario: 'flight_booking' })).decisions;
    expect(decisions.map((d) => d.action)).toEqual(['publish', 'publish', 'refine']);
    await running!.stop();
    running = await start();
    expect(await running.api.listPatches({ scenario: 'flight_booking' })).toEqual(before);
    expect((await running.api.listDecisions({ scenario: 'flight_booking' })).decisions).toEqual(decisions);
  });

  it('audit samples wait for a verdict; an operator judges them once, and the verdict counts toward alignment', async () => {
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    const id = (await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0]?.patch_id as string;
    const sampleId = randomUUID();
    await bus.publishEvent({
      id: randomUUID(),
      type: EventType.AuditSampled,
      scenario_id: 'flight_booking',
      occurred_at: new Date(T0 + DAY).toISOString(),
      source: 'test',
      data: { sample_id: sampleId, execution_id: randomUUID(), agent: 'skyways-air', scenario_id: 'flight_booking', client_id: 'c1', patch_id: id, key_name: 'seat_preference', value: 'window', utterance: 'I want to look out of the window' },
    });
    await waitFor('a pending sample', async () => ((await running!.api.listAuditSamples({ scenario: 'flight_booking', verdict: 'pending' })).samples[0] ?? undefined));
    const judged = await running!.api.judgeAuditSample({ sample_id: sampleId, aligned: true, note: 'matches' });
    expect(judged.sample).toMatchObject({ verdict: 'aligned', judged_by: 'operator', value: 'window', utterance: 'I want to look out of the window' });
    await expect(running!.api.judgeAuditSample({ sample_id: sampleId, aligned: false, note: '' })).rejects.toMatchObject({ type: 'illegal_transition', rule: 'pending_only' });
    await expect(running!.api.judgeAuditSample({ sample_id: randomUUID(), aligned: true, note: '' })).rejects.toMatchObject({ type: 'audit_sample_not_found' });
    const key = (await running!.api.getPatch({ patch_id: id })).patch?.new_keys[0];
    expect(key?.metrics?.audits).toBe(1);
  });

  it('operator reads wait for the unit of work in hand: what memory holds before a commit that fails is never shown', async () => {
    await bus.publishEvent(maturedEvent(SEAT, T0));
    await waitFor('a patch', async () => ((await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0] ?? undefined));
    const id = (await running!.api.listPatches({ scenario: 'flight_booking' })).patches[0]?.patch_id as string;
    let fail!: () => void;
    let applied!: () => void;
    const commit = new Promise<void>((resolve) => (fail = resolve));
    const inMemory = new Promise<void>((resolve) => (applied = resolve));
    // As a consumer's unit of work does: memory changes first, then the transaction fails and the log is folded again.
    const unit = running!.service.serialize(async () => {
      running!.service.evolver().reject({ at: T0, patch_id: id, actor: 'nobody', reason: 'a rejection whose commit fails' });
      applied();
      await commit;
      await running!.service.rebuild();
    });
    await inMemory;
    const reads = Promise.all([
      running!.api.listPatches({ scenario: 'flight_booking' }),
      running!.api.getPatch({ patch_id: id }),
      running!.api.listDecisions({ scenario: 'flight_booking' }),
    ]);
    fail();
    await unit;
    const [listed, one, decisions] = await reads;
    expect(listed.patches[0]?.status).toBe('active');
    expect(one.patch?.status).toBe('active');
    expect(decisions.decisions.map((d) => d.actor)).not.toContain('nobody');
  });
});
