/**
 * apps/semantic-pool on PGlite (one connection) and the in-process bus: its two
 * consumers take the service's mutex and the database in the same order, so a
 * patch.published arriving while an other.captured is being embedded waits its
 * turn instead of holding the connection the captured unit needs (a deadlock
 * that hung every later query of an embedded Parley).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOfflineEmbedder, type Embedder } from '@parley/embeddings';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { serviceOnlyAuthenticator, testIdentity } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';
import { startSemanticPool, type RunningSemanticPool } from '../src/index';

const T0 = Date.UTC(2026, 5, 1, 8);
const subjects = createSubjects('lockorder');
const log = createLogger({ level: 'error' });

let db: Db;
let bus: Bus;
let running: RunningSemanticPool | undefined;
let release!: () => void;
let reached!: Promise<void>;

/** The offline embedder, held at every call until the test releases it (as a remote embedder's latency holds a unit). */
function heldEmbedder(): Embedder {
  const offline = createOfflineEmbedder();
  let embedding!: () => void;
  reached = new Promise<void>((resolve) => (embedding = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    id: offline.id,
    dimensions: offline.dimensions,
    async embed(texts) {
      embedding();
      await gate;
      return offline.embed(texts);
    },
  };
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms`)), ms).unref())]);

beforeEach(async () => {
  db = await createPgliteDb();
  bus = createMemoryBus({ subjects, logger: { warn: () => {}, error: () => {} } });
});

afterEach(async () => {
  release?.();
  await running?.stop();
  running = undefined;
  await bus.close();
  await db.close();
});

describe('the semantic pool consumers on one connection', () => {
  it('a patch.published during an embedding waits for the mutex outside the transaction: both commit, later queries answer', async () => {
    running = await startSemanticPool({
      db,
      bus,
      subjects,
      authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
      embedder: heldEmbedder(),
      index: createEmbeddedIndex(),
      clock: { now: () => new Date(T0 + 60_000) },
      log,
      heatSampleMs: 0,
      rawPurgeMs: 0,
      grpcHost: '127.0.0.1',
      grpcPort: 0,
    });
    const captured: EventEnvelope = {
      id: randomUUID(),
      type: EventType.OtherCaptured,
      scenario_id: 'flight_booking',
      occurred_at: new Date(T0).toISOString(),
      source: 'test',
      data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'c1', fragments: ['window seat please'] },
    };
    await bus.publishEvent(captured);
    await reached;
    const patch = { patch_id: randomUUID(), scenario: 'flight_booking', source_cluster_id: 'cluster-1', new_keys: [{ definition: { key_name: 'seat_preference' } }], modified_keys: [] };
    await bus.publishEvent({ id: randomUUID(), type: EventType.PatchPublished, scenario_id: 'flight_booking', occurred_at: new Date(T0).toISOString(), source: 'test', data: { patch, reasons: [], figures: {}, actor: 'test' } } as unknown as EventEnvelope);
    // Give the outcomes consumer time to reach its transaction before the embedding ends.
    await new Promise((r) => setTimeout(r, 300));
    release();
    await expect.poll(async () => (await within(db.query<{ n: string }>('SELECT count(*) AS n FROM pool.inputs'), 5_000, 'a query after both events')).rows.map((r) => Number(r.n)), { timeout: 10_000 }).toEqual([1]);
    const outcomes = await within(db.query<{ cluster_id: string; outcome: string }>('SELECT cluster_id, outcome FROM pool.outcomes'), 5_000, 'the outcome query');
    expect(outcomes.rows).toEqual([{ cluster_id: 'cluster-1', outcome: 'patched' }]);
  });
});
