/**
 * apps/semantic-pool on PGlite and the in-process bus: a fragment the pool
 * cannot take never stops it (draft-zhou §6.2.1 fed by §6.2 event flow). The
 * pool's state is a fold of its `pool.inputs` log and a failed transaction
 * folds the log again; an embedder that throws on one text (injected here) must
 * not leave that event in the log, must not hold the events behind it, and must
 * leave it where an operator sees it and can apply it once the embedder is fixed.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOfflineEmbedder, type Embedder } from '@parley/embeddings';
import { EventType, createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, type Db } from '@parley/storage';
import { serviceOnlyAuthenticator, testIdentity, waitFor } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';
import { startSemanticPool, type RunningSemanticPool } from '../src/index';

const T0 = Date.UTC(2026, 5, 1, 8);
const subjects = createSubjects('poison');
const lines: string[] = [];
const log = createLogger({ level: 'info', write: (l) => lines.push(l) });

let db: Db;
let bus: Bus;
let running: RunningSemanticPool | undefined;
let broken = true;
let embedCalls = 0;

/** The offline embedder, except that it throws on any text with "trombone" in it while `broken`. */
function throwingEmbedder(): Embedder {
  const offline = createOfflineEmbedder();
  return {
    id: offline.id,
    dimensions: offline.dimensions,
    async embed(texts) {
      embedCalls++;
      if (broken && texts.some((t) => t.includes('trombone'))) throw new TypeError('wordnet lookup is not a function');
      return offline.embed(texts);
    },
  };
}

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

const start = async () =>
  (running = await startSemanticPool({
    db,
    bus,
    subjects,
    authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    embedder: throwingEmbedder(),
    index: createEmbeddedIndex(),
    clock: { now: () => new Date(T0 + 60_000) },
    log,
    heatSampleMs: 0,
    rawPurgeMs: 0,
    grpcHost: '127.0.0.1',
    grpcPort: 0,
    eventFlow: { consumerMaxAttempts: 3 },
    retryDelayMs: 10,
  }));

const logged = async () => (await db.query<{ event_id: string; fragment_index: number; sanitized: string | null }>('SELECT event_id::text AS event_id, fragment_index, sanitized FROM pool.inputs ORDER BY seq')).rows;
const clusterTexts = async () =>
  (await running!.api.listClusters({ scenario: 'flight_booking', limit: 100 })).clusters.filter((c) => c.scope === 'global').flatMap((c) => c.samples).sort();

beforeEach(async () => {
  broken = true;
  embedCalls = 0;
  lines.length = 0;
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

describe('a poison fragment in the semantic pool', () => {
  it('is set aside after its attempts, never enters the log, and the fragments after it are clustered', async () => {
    const first = captured('c1', ['window seat please'], T0);
    // One good fragment and one the embedder throws on, in one event: the event is one unit.
    const poison = captured('c2', ['aisle seat', 'a trombone case under my seat'], T0 + 1000);
    const after = [captured('c3', ['extra legroom'], T0 + 2000), captured('c4', ['vegetarian meal'], T0 + 3000)];
    for (const e of [first, poison, ...after]) await bus.publishEvent(e);
    await waitFor('the fragments after the poison', async () => ((await logged()).length === 3 ? true : undefined));

    expect((await logged()).map((r) => [r.event_id, r.sanitized])).toEqual([
      [first.id, 'window seat please'],
      [after[0]!.id, 'extra legroom'],
      [after[1]!.id, 'vegetarian meal'],
    ]);
    // list_clusters shows what came after; nothing of the poison event (not even its good fragment) was folded in.
    expect(await clusterTexts()).toEqual(['extra legroom', 'vegetarian meal', 'window seat please']);

    const dead = await running!.deadLetters.list();
    expect(dead.counts).toEqual({ dead: 1, retried: 0, discarded: 0 });
    expect(dead.dead_letters[0]).toMatchObject({
      source: 'consumer',
      consumer: 'poison-semantic-pool',
      event_id: poison.id,
      event_type: 'other.captured',
      scenario_id: 'flight_booking',
      attempts: 3,
      error: 'wordnet lookup is not a function',
    });
    const entry = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'event.dead_lettered');
    expect(entry).toMatchObject({ level: 'error', schema: 'pool', consumer: 'poison-semantic-pool', event_id: poison.id, dead_letters_open: 1 });

    // Memory is the fold of the log: a restart rebuilds exactly what list_clusters showed.
    const live = await clusterTexts();
    await running!.stop();
    await start();
    expect(await clusterTexts()).toEqual(live);

    // Redelivered (at-least-once), it changes nothing: it is marked processed with its dead letter.
    await bus.publishEvent({ ...poison });
    await new Promise((r) => setTimeout(r, 200));
    expect(await logged()).toHaveLength(3);

    // Once the embedder is fixed, an operator applies it: both fragments enter the log once.
    broken = false;
    const retried = await running!.deadLetters.retry(dead.dead_letters[0]!.id, 'ops');

    expect(retried).toMatchObject({ retried: true, dead_letter: { status: 'retried' } });
    expect((await logged()).filter((r) => r.event_id === poison.id).map((r) => [r.fragment_index, r.sanitized])).toEqual([
      [0, 'aisle seat'],
      [1, 'a trombone case under my seat'],
    ]);
    expect(await clusterTexts()).toEqual(['a trombone case under my seat', 'aisle seat', 'extra legroom', 'vegetarian meal', 'window seat please']);
  });
});
