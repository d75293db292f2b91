import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { SemanticPoolServiceService, createGrpcClient, type PoolCluster } from '@parley/contracts';
import { createOfflineEmbedder } from '@parley/embeddings';
import { EventType, createNatsBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { createSemanticPool } from '@parley/pool';
import { createTestDatabase, freePort, integrationInfra, seededRandom, startProcess, testIdentity, uniquePrefix, waitFor, waitReady, type ServiceProcess } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';

/**
 * draft-zhou §6.2.1 on real NATS JetStream + PostgreSQL: the semantic-pool
 * process is killed (SIGKILL, no shutdown) in the middle of a stream of
 * `other.captured` events and started again. Afterwards every cluster's size,
 * distinct clients, peak heat, heat and maturity equal those of an
 * uninterrupted run of the same code over the same stream: nothing lost,
 * nothing counted twice.
 */
const infra = integrationInfra('e2e: semantic pool kill and restart');
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1, 6);

interface Fragment {
  at: number;
  client: string;
  text: string;
}

/** Three days of flight-booking `other` fragments: three intents from many clients and some noise. */
function stream(): Fragment[] {
  const rnd = seededRandom(20261121);
  const intents = [
    ['window seat please', 'a window seat', 'seat by the window'],
    ['aisle seat', 'an aisle seat please'],
    ['vegetarian meal', 'vegan meal please'],
  ];
  const noise = ['my cat is called Tom', 'bring a blue umbrella', 'sunny weather at arrival', 'quiet hotel near the airport'];
  const out: Fragment[] = [];
  for (let i = 0; i < 120; i++) {
    const at = T0 + Math.floor(i * (72 * HOUR) / 120);
    const client = `client-${1 + Math.floor(rnd() * 9)}`;
    const bucket = rnd() < 0.15 ? noise : (intents[Math.floor(rnd() * intents.length)] as string[]);
    out.push({ at, client, text: bucket[Math.floor(rnd() * bucket.length)] as string });
  }
  return out;
}

describe.skipIf(!infra)('semantic pool: kill -9 mid-stream and restart (zhou §6.2.1, nothing lost, nothing counted twice)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Client;
  let bus: Bus;
  let proc: ServiceProcess | undefined;
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const fragments = stream();
  let grpcPort = 0;
  let healthPort = 0;
  // draft-zhou §7: the pool authenticates every gRPC call. No registry runs here, so the test reads the
  // clusters with the services' token (ListClusters is for operators and services).
  const identity = testIdentity();

  const start = async (): Promise<ServiceProcess> => {
    const p = startProcess('semantic-pool', 'apps/semantic-pool/src/main.ts', {
      ...identity.env,
      DATABASE_URL: db.url,
      NATS_URL: infra!.natsUrl,
      PARLEY_SUBJECT_PREFIX: prefix,
      GRPC_PORT: `${grpcPort}`,
      HEALTH_PORT: `${healthPort}`,
      PARLEY_EMBEDDER: 'offline',
      PARLEY_HEAT_SAMPLE_MS: '0',
      PARLEY_DATA_KEY: Buffer.alloc(32, 7).toString('base64'), // raw fragments are sealed; a fixed test key survives the restart
    });
    await waitReady(`http://127.0.0.1:${healthPort}/readyz`, p);
    return p;
  };
  const stored = async (): Promise<number> => Number((await sql.query('SELECT count(*)::int AS n FROM pool.inputs')).rows[0].n);
  const publish = async (from: number, to: number): Promise<void> => {
    for (const f of fragments.slice(from, to)) {
      const e: EventEnvelope = {
        id: randomUUID(),
        type: EventType.OtherCaptured,
        scenario_id: 'flight_booking',
        occurred_at: new Date(f.at).toISOString(),
        source: 'test',
        data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: f.client, fragments: [f.text] },
      };
      await bus.publishEvent(e);
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase(infra!.databaseUrl);
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'pool-restart-test' });
    [grpcPort, healthPort] = await Promise.all([freePort(), freePort()]);
  }, 60_000);

  afterAll(async () => {
    await proc?.stop();
    await bus?.close();
    await sql?.end();
    await db?.drop();
  });

  it('ends with the clusters and heat of an uninterrupted run', async () => {
    proc = await start();
    const half = 60;
    await publish(0, half);
    // Kill it while it is working through the first half.
    await waitFor('the pool to store some fragments', async () => ((await stored()) >= 20 ? true : undefined), 30_000);
    proc.child.kill('SIGKILL');
    await new Promise((r) => proc!.child.once('exit', r));
    const atKill = await stored();
    expect(atKill).toBeGreaterThanOrEqual(20);
    await publish(half, fragments.length);
    proc = await start();
    await waitFor('every fragment to be stored', async () => ((await stored()) === fragments.length ? true : undefined), 60_000);
    expect(proc.output()).toMatch(/rebuilt from its input log/);

    // The uninterrupted reference: the same pool code over the same stream, in one go.
    const reference = await createSemanticPool({ embedder: createOfflineEmbedder(), index: createEmbeddedIndex() });
    let matured = 0;
    for (const f of fragments) matured += (await reference.ingest({ ts: f.at, scenario: 'flight_booking', client_id: f.client, text: f.text })).matured.length;

    const anonymous = createGrpcClient(SemanticPoolServiceService, `127.0.0.1:${grpcPort}`);
    try {
      await expect(anonymous.api.listClusters({ scenario: 'flight_booking', limit: 10 })).rejects.toMatchObject({ type: 'unauthenticated', rule: 'credentials_required' });
    } finally {
      anonymous.close();
    }
    const client = createGrpcClient(SemanticPoolServiceService, `127.0.0.1:${grpcPort}`, { credential: identity.serviceToken });
    try {
      const got = (await client.api.listClusters({ scenario: 'flight_booking', limit: 1000 })).clusters;
      const now = Date.now();
      const want = reference.clusters(now);
      const shape = (c: { id: string; scope: string; size: number; distinct_clients: number; peak_heat: number }) => ({ id: c.id, scope: c.scope, size: c.size, distinct_clients: c.distinct_clients, peak_heat: c.peak_heat });
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
      expect(got.map(shape).sort(byId)).toEqual(want.map(shape).sort(byId));
      const heat = new Map(want.map((c) => [c.id, c]));
      for (const c of got as PoolCluster[]) {
        expect(Math.abs(c.heat - (heat.get(c.id)?.heat ?? -1))).toBeLessThanOrEqual(0.02);
        expect(c.matured).toBe(heat.get(c.id)?.triggered);
      }
      expect(got.reduce((n, c) => n + c.size, 0)).toBe(2 * fragments.length); // every fragment in its global and its client pool
      expect(matured).toBeGreaterThan(0);
      // One pool.matured event per matured cluster, none repeated by the redelivery after the kill
      // (pool.grown events, a matured cluster's later growth, may name a cluster again).
      const events = await sql.query(`SELECT count(*)::int AS n, count(DISTINCT (event::jsonb -> 'data' ->> 'cluster_id'))::int AS d FROM pool.outbox WHERE event::jsonb ->> 'type' = 'pool.matured'`);
      expect(events.rows[0]).toEqual({ n: matured, d: matured });
    } finally {
      client.close();
    }
  }, 180_000);
});
