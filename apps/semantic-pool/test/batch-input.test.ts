/**
 * apps/semantic-pool's input consumer on a bus that delivers batches (draft-zhou §6.2.1 fed by the §6.2 event
 * flow): a backlog of other.captured events reaches the input log in a few multi-row statements, in stream order,
 * and memory after it is what a rebuild from the log makes of it.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createOfflineEmbedder } from '@parley/embeddings';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { countSql, createPgliteDb, resetSqlCounts, sqlCounts, type Db } from '@parley/storage';
import { serviceOnlyAuthenticator, testIdentity, waitFor } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';
import { startSemanticPool, type RunningSemanticPool } from '../src/index';

const T0 = Date.UTC(2026, 5, 1, 8);
const subjects = createSubjects('poolbatch');
const log = createLogger({ level: 'error', write: () => {} });
let db: Db;
let bus: Bus;
let running: RunningSemanticPool | undefined;

function captured(client: string, fragments: string[], at: number): EventEnvelope {
  return {
    id: randomUUID(),
    type: EventType.OtherCaptured,
    scenario_id: 'flight_booking',
    occurred_at: new Date(at).toISOString(),
    source: 'test',
    data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: client, fragments },
  };
}

beforeEach(async () => {
  db = countSql(await createPgliteDb());
  // No duplicate window: an id published again reaches the consumer, as a redelivery would.
  bus = createMemoryBus({ subjects, logger: { warn: () => {}, error: () => {} }, duplicateWindowMs: 0 });
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  await bus.close();
  await db.close();
});

it('writes a backlog of other.captured events to the input log in few statements, in stream order, and memory matches a rebuild', async () => {
  const phrases = ['window seat please', 'aisle seat please', 'vegetarian meal', 'extra legroom', 'window seat, thanks'];
  const events = Array.from({ length: 40 }, (_, i) => captured(`client-${i % 7}`, [phrases[i % 5]!, `note ${i}`], T0 + i * 1000));
  for (const e of events) await bus.publishEvent(e);
  resetSqlCounts();
  running = await startSemanticPool({
    db,
    bus,
    subjects,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    embedder: createOfflineEmbedder(),
    index: createEmbeddedIndex(),
    clock: { now: () => new Date(T0 + 60_000) },
    log,
    heatSampleMs: 0,
    rawPurgeMs: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
  });
  const logged = async () => (await db.query<{ event_id: string; fragment_index: number }>('SELECT event_id::text AS event_id, fragment_index FROM pool.inputs ORDER BY seq')).rows;
  await waitFor('the backlog in the input log', async () => ((await logged()).length === 80 ? true : undefined));
  expect((await logged()).map((r) => `${r.event_id}/${r.fragment_index}`)).toEqual(events.flatMap((e) => [`${e.id}/0`, `${e.id}/1`]));
  // Each delivery's processed marks and input rows are one statement; no mark goes alone.
  const shapes = [...sqlCounts().byShape];
  const count = (prefix: string) => shapes.filter(([shape]) => shape.startsWith(prefix)).reduce((n, [, c]) => n + c, 0);
  const inserts = count('WITH fresh AS (INSERT INTO pool.processed_events');
  expect(inserts).toBeGreaterThan(0);
  expect(inserts).toBeLessThan(events.length / 4);
  expect(count('INSERT INTO pool.inputs')).toBe(0);
  expect(count('INSERT INTO pool.processed_events')).toBe(0);

  const live = await running.api.listClusters({ scenario: 'flight_booking', limit: 1000 });
  await running.service.rebuild();
  const rebuilt = await running.api.listClusters({ scenario: 'flight_booking', limit: 1000 });
  expect(rebuilt.clusters.map((c) => [c.id, c.size, c.distinct_clients, c.samples])).toEqual(live.clusters.map((c) => [c.id, c.size, c.distinct_clients, c.samples]));
  expect(live.clusters.reduce((n, c) => n + (c.scope === 'global' ? c.size : 0), 0)).toBe(80);
});

it('a redelivered batch of events already in the log changes neither the log nor memory, and the events after it are taken once', async () => {
  const phrases = ['window seat please', 'aisle seat please', 'vegetarian meal'];
  const events = Array.from({ length: 12 }, (_, i) => captured(`client-${i % 4}`, [phrases[i % 3]!, `note ${i}`], T0 + i * 1000));
  running = await startSemanticPool({
    db,
    bus,
    subjects,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    embedder: createOfflineEmbedder(),
    index: createEmbeddedIndex(),
    clock: { now: () => new Date(T0 + 60_000) },
    log,
    heatSampleMs: 0,
    rawPurgeMs: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
  });
  const rows = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool.inputs')).rows[0]!.n;
  const clusters = async () => (await running!.api.listClusters({ scenario: 'flight_booking', limit: 1000 })).clusters.map((c) => [c.id, c.size, c.distinct_clients, c.samples]);
  for (const e of events) await bus.publishEvent(e);
  await waitFor('the events in the input log', async () => ((await rows()) === 24 ? true : undefined));
  const before = await clusters();
  // The same events again (a crash between the commit and the ack), then one new event behind them.
  for (const e of events.slice(4, 10)) await bus.publishEvent({ ...e });
  const later = captured('client-9', ['aisle seat please'], T0 + 20_000);
  await bus.publishEvent(later);
  await waitFor('the new event in the input log', async () => ((await rows()) === 25 ? true : undefined));
  await new Promise((r) => setTimeout(r, 200));
  expect(await rows()).toBe(25);
  const after = await clusters();
  await running.service.rebuild();
  expect(await clusters()).toEqual(after);
  // Memory holds each fragment once: the redelivered ones were not folded in again (or were folded out by a rebuild).
  const live = await running.api.listClusters({ scenario: 'flight_booking', limit: 1000 });
  expect(live.clusters.reduce((n, c) => n + (c.scope === 'global' ? c.size : 0), 0)).toBe(25);
  expect(before.length).toBeGreaterThan(0);
  const marks = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool.processed_events');
  expect(marks.rows[0]!.n).toBe(13);
});
