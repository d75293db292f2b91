/**
 * Trust (draft-zhou §7), Abuse, in the service: one client flooding a cluster other
 * clients opened cannot steer it, and the state the fix adds (per-client
 * samples, per-client centroid weights) is still a deterministic fold of
 * `pool.inputs`: a rebuild from the log gives the same clusters, samples and
 * centroids bit for bit (draft-zhou §6.2.1; ARCHITECTURE "State as a fold of a log").
 *
 * PGlite, the embedded vector index, a bag-of-content-words embedder; the
 * service is driven through `onOtherCaptured` in transactions, as the consumer
 * does, and rebuilt with `rebuild()`, as a start does.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Embedder } from '@parley/embeddings';
import { EventType, createSubjects, type EventEnvelope, type PoolMaturedData } from '@parley/events';
import { contentWords } from '@parley/evolution';
import { collectionOf } from '@parley/pool';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { createEmbeddedIndex, type VectorIndex } from '@parley/vectors';
import { createPoolService, type PoolService } from '../src/service';

const T0 = Date.UTC(2026, 5, 1, 8);
const MIN = 60_000;
const VOCAB = ['window', 'seat', 'aisle', 'color', 'colour', 'purple', 'coloured'];

/** One axis per content word of a fixed vocabulary (stop words out, plurals folded). */
function embedder(calls: { n: number }): Embedder {
  return {
    id: 'test-bag-of-content-words',
    dimensions: VOCAB.length,
    async embed(texts) {
      calls.n += texts.length;
      return texts.map((t) => {
        const v = new Float32Array(VOCAB.length);
        for (const w of contentWords(t).words) {
          const i = VOCAB.indexOf(w);
          if (i >= 0) v[i] = (v[i] as number) + 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  };
}

let db: Db;
let index: VectorIndex;
let service: PoolService;
let now = T0;
const calls = { n: 0 };

beforeEach(async () => {
  db = await createPgliteDb();
  await migrate(db, 'pool');
  index = createEmbeddedIndex();
  calls.n = 0;
  service = await createPoolService({
    db,
    subjects: createSubjects('steer'),
    embedder: embedder(calls),
    index,
    clock: { now: () => new Date(now) },
    log: createLogger({ level: 'error', write: () => undefined }),
    // The gate's flood defences (per-client heat, one client's dominance) are off so the cluster fires and what it hands on can be examined.
    config: { similarity_threshold: 0.3, client_heat_interval_ms: 0, max_dominant_share: 1, merge_threshold: 1 },
    raw: { sealer: null, retentionMs: 30 * 86_400_000 },
  });
}, 60_000);

afterEach(async () => {
  await db.close();
});

async function capture(client: string, at: number, fragments: string[]): Promise<void> {
  now = at;
  const event = {
    id: randomUUID(),
    type: EventType.OtherCaptured,
    scenario_id: 'flight_booking',
    occurred_at: new Date(at).toISOString(),
    source: 'test',
    data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: client, fragments },
  } as EventEnvelope & { type: 'other.captured' };
  await service.serialize(() => db.transaction((tx) => service.onOtherCaptured(event, tx)));
}

const ATTACK = ['I want seat_color purple', 'seat colour purple', 'purple seat color', 'purple coloured seats'];

async function world(): Promise<void> {
  await capture('h1', T0, ['window seat please']);
  await capture('h2', T0 + MIN, ['aisle seat if possible']);
  await capture('h3', T0 + 2 * MIN, ['an aisle seat']);
  await capture('h1', T0 + 3 * MIN, ['a window seat']);
  // 1,024 fragments in 32 events of 32 (the most one event carries).
  for (let e = 0; e < 32; e++) await capture('mallory', T0 + (5 + e) * MIN, Array.from({ length: 32 }, (_, i) => ATTACK[(e * 32 + i) % ATTACK.length] as string));
  await capture('h2', T0 + 40 * MIN, ['seat by the window']);
  await capture('h3', T0 + 41 * MIN, ['aisle seats']);
}

async function matured(): Promise<PoolMaturedData[]> {
  const rows = (await db.query<{ event: EventEnvelope | string }>('SELECT event FROM pool.outbox ORDER BY seq')).rows;
  return rows.map((r) => (typeof r.event === 'string' ? (JSON.parse(r.event) as EventEnvelope) : r.event)).filter((e) => e.type === EventType.PoolMatured).map((e) => e.data as PoolMaturedData);
}

async function centroids(ids: readonly string[]): Promise<number[][]> {
  const hits = await index.search(collectionOf('flight_booking'), [0, 1, 0, 0, 0, 0, 0], { limit: 100 });
  const byCluster = new Map(hits.map((h) => [String(h.payload['cluster_id']), h.id]));
  return (await index.get(collectionOf('flight_booking'), ids.map((id) => byCluster.get(id) as string))).map((p) => Array.from(p.vector));
}

describe('draft-zhou §7 in apps/semantic-pool: a flood cannot steer a cluster, and the fold still replays exactly', () => {
  it('pool.matured carries capped, client-counted samples with pseudonyms; a rebuild from the log gives the same clusters and centroids bit for bit', async () => {
    await world();
    const global = (await matured()).filter((m) => m.scope === 'global');
    expect(global).toHaveLength(1);
    const m = global[0] as PoolMaturedData;
    expect(m.distinct_clients).toBe(4);
    const purple = m.samples.filter((s) => /purple/.test(s.text));
    expect(purple.length).toBeGreaterThan(0);
    expect(purple.length).toBeLessThanOrEqual(3);
    for (const s of m.samples as { text: string; count: number; clients?: string[] }[]) expect(s.count).toBe(s.clients?.length);
    expect(JSON.stringify(m.samples)).not.toMatch(/mallory|"h[123]"/);

    const at = T0 + 60 * MIN;
    const before = service.pool().clusters(at);
    const ids = before.map((c) => c.id);
    const points = await centroids(ids);
    const embedded = calls.n;
    await service.rebuild();
    // The rebuild used the stored vectors, never the embedder.
    expect(calls.n).toBe(embedded);
    expect(service.pool().clusters(at)).toEqual(before);
    expect(await centroids(ids)).toEqual(points);
    // The view's top three texts: one per client among equals, so at most one is the flooder's.
    const view = service.pool().cluster(m.cluster_id, at);
    expect(view?.samples).toHaveLength(3);
    expect((view?.samples ?? []).filter((t) => /purple/.test(t)).length).toBeLessThanOrEqual(1);
  }, 120_000);

  it('a rebuild re-embeds stored vectors of another length (another embedder wrote them) rather than mixing or failing', async () => {
    await capture('h1', T0, ['window seat please']);
    await capture('h2', T0 + MIN, ['aisle seat if possible']);
    await capture('h3', T0 + 2 * MIN, ['a window seat']);
    const at = T0 + 10 * MIN;
    const before = service.pool().clusters(at);
    // As if an embedder with one more dimension had written the log.
    await db.query('UPDATE pool.inputs SET vector = vector || ARRAY[0]::real[] WHERE vector IS NOT NULL');
    const embedded = calls.n;
    await service.rebuild();
    expect(calls.n).toBe(embedded + 3);
    expect(service.pool().clusters(at)).toEqual(before);
  }, 120_000);
});
