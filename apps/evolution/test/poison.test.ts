/**
 * apps/evolution on PGlite and the in-process bus: a matured cluster the
 * evolver cannot take never stops it (draft-zhou §6.2.2 fed by the §6.2 event
 * flow). Its state is a fold of `evolution.inputs`; an inducer that throws on
 * one cluster (injected here) must not leave that input in the log, must not
 * hold the clusters behind it, and must leave it for an operator to apply.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { templateToWire, type NegotiationApi } from '@parley/contracts';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope, type PoolMaturedData } from '@parley/events';
import { induceKey } from '@parley/evolution';
import { flightBookingTemplate } from '@parley/examples';
import type { InduceFn } from '@parley/pool';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { serviceOnlyAuthenticator, testIdentity, waitFor } from '@parley/testkit';
import { startEvolution, type RunningEvolution } from '../src/index';

const T0 = Date.UTC(2026, 5, 1);
const subjects = createSubjects('evpoison');
const log = createLogger({ level: 'error', write: () => {} });

const negotiation = {
  async listSchemas() {
    return { schemas: [{ agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario: 'flight_booking', scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: false, published_at: '2026-01-01T00:00:00.000Z' }] };
  },
  async getSchema() {
    return { template: templateToWire(flightBookingTemplate), applied_patches: [], etag: 'x', withdrawn_keys: [] };
  },
} as unknown as NegotiationApi;

function matured(cluster: string, texts: [string, number][], at: number): EventEnvelope {
  const data: PoolMaturedData = {
    cluster_id: cluster,
    scenario_id: 'flight_booking',
    scope: 'global',
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
let running: RunningEvolution | undefined;
let broken = true;
/** The rule inducer, except that it throws on the cluster about meals while `broken`. */
const induce: InduceFn = async (input) => {
  if (broken && input.samples.some((s) => s.text.includes('meal'))) throw new RangeError('inducer: invalid array length');
  return induceKey(input.samples);
};

const start = async () =>
  (running = await startEvolution({
    db,
    bus,
    subjects,
    negotiation,
    clock: { now: () => new Date(T0) },
    log,
    induce,
    tickMs: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    eventFlow: { consumerMaxAttempts: 2 },
    retryDelayMs: 10,
  }));

const keys = async () =>
  (await running!.api.listPatches({ scenario: 'flight_booking' })).patches.map((p) => [p.source_cluster_id, p.new_keys[0]?.definition?.key_name]).sort();
const inputs = async () => (await db.query<{ event_id: string | null; kind: string }>('SELECT event_id::text AS event_id, kind FROM evolution.inputs ORDER BY seq')).rows;

beforeEach(async () => {
  broken = true;
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects, logger: { warn: () => {}, error: () => {} } });
  await start();
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await bus.close();
  await db.close();
});

describe('a poison matured cluster in evolution', () => {
  it('is set aside after its attempts, never enters the input log, and the clusters after it become patches', async () => {
    const seat = matured('c-seat', [['window seat please', 4], ['aisle seat', 3], ['a window seat', 2]], T0);
    const meal = matured('c-meal', [['vegetarian meal', 4], ['vegan meal please', 3]], T0 + 1000);
    const legroom = matured('c-legroom', [['extra legroom', 5], ['more legroom please', 4]], T0 + 2000);
    for (const e of [seat, meal, legroom]) await bus.publishEvent(e);
    await waitFor('the cluster after the poison', async () => ((await keys()).length === 2 ? true : undefined));

    expect((await keys()).map(([c]) => c)).toEqual(['c-legroom', 'c-seat']);
    expect((await inputs()).filter((i) => i.kind === 'matured').map((i) => i.event_id)).toEqual([seat.id, legroom.id]);
    const dead = await running!.deadLetters.list();
    expect(dead.dead_letters.map((d) => [d.consumer, d.event_id, d.attempts, d.error])).toEqual([['evpoison-evolution-matured', meal.id, 2, 'inducer: invalid array length']]);

    // The fold of the log gives the same state after a restart.
    const live = await keys();
    await running!.stop();
    await start();
    expect(await keys()).toEqual(live);

    // Fixed, the operator applies it: logged once, a patch from it.
    broken = false;
    expect(await running!.deadLetters.retry(dead.dead_letters[0]!.id, 'ops')).toMatchObject({ retried: true });
    expect((await keys()).map(([c]) => c)).toEqual(['c-legroom', 'c-meal', 'c-seat']);
    expect((await inputs()).filter((i) => i.kind === 'matured').map((i) => i.event_id)).toEqual([seat.id, legroom.id, meal.id]);
  });
});
