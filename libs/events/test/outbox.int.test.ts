import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { migrate, openDb } from '@parley/storage';
import { createTestDatabase, integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects, serviceEventFlow } from '@parley/events';
import { outboxContract, quietLogger, type OutboxBusEnv, type OutboxEnv } from './outbox-contract';
import { retentionContract } from './retention-contract';
import { deadLettersPruneSql, outboxPruneSql } from '../src/retention';

const infra = integrationInfra('events-outbox');

describe.skipIf(!infra)('outbox on PostgreSQL and NATS', () => {
  let admin: NatsConnection;
  beforeAll(async () => {
    admin = await connect({ servers: infra!.natsUrl, name: 'events-outbox-int-admin' });
  });
  afterAll(async () => {
    await admin?.drain();
  });

  const openEnv = async (): Promise<OutboxEnv> => {
    const testDb = await createTestDatabase(infra!.databaseUrl);
    const db = await openDb(testDb.url, { applicationName: 'events-outbox-int' });
    await migrate(db, 'execution');
    await migrate(db, 'registry');
    return {
      db,
      openReplicaDb: () => openDb(testDb.url, { applicationName: 'events-outbox-int-replica' }),
      async cleanup() {
        await db.close();
        await testDb.drop();
      },
    };
  };
  const openBus = async (): Promise<OutboxBusEnv> => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await createNatsBus({ servers: infra!.natsUrl, subjects, logger: quietLogger });
    return {
      bus,
      subjects,
      async cleanup() {
        await bus.close();
        const jsm = await jetstreamManager(admin);
        await jsm.streams.delete(subjects.stream).catch(() => {});
      },
    };
  };

  outboxContract('PostgreSQL + NATS bus', openEnv, openBus, { replicas: true });
  retentionContract('PostgreSQL + NATS bus', openEnv, openBus, { replicas: true });

  /** Every node of an EXPLAIN (FORMAT JSON) plan, depth first. */
  const planNodes = (plan: Record<string, unknown>): Record<string, unknown>[] => [plan, ...((plan['Plans'] as Record<string, unknown>[] | undefined) ?? []).flatMap(planNodes)];
  const explain = async (db: OutboxEnv['db'], sql: string, params: unknown[]) => {
    const r = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const raw = r.rows[0]!['QUERY PLAN'];
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
    return planNodes(doc[0]!.Plan);
  };
  const scansOf = (nodes: Record<string, unknown>[], table: string) =>
    nodes.filter((n) => n['Relation Name'] === table && String(n['Node Type']).includes('Scan')).map((n) => `${String(n['Node Type'])}${n['Index Name'] ? ` ${String(n['Index Name'])}` : ''}`);

  it('prunes a large outbox and dead-letter table through their indexes, not a scan of the table', async () => {
    const env = await openEnv();
    try {
      const DAY = 86_400_000;
      const now = Date.parse('2026-03-01T00:00:00Z');
      // 100 000 rows published over the last six days (none due at seven), then 100 000 older ones (all due), and pending rows.
      const fill = (from: number, publishedBase: number | null) =>
        env.db.query(
          `INSERT INTO execution.outbox (id, subject, event, created_at, published_at)
           SELECT gen_random_uuid(), 's', '{}'::json, $2::timestamptz, CASE WHEN $3::timestamptz IS NULL THEN NULL ELSE $3::timestamptz + g * interval '5 seconds' END
           FROM generate_series($1::int, $1::int + 99999) g`,
          [from, new Date(now - 30 * DAY), publishedBase === null ? null : new Date(publishedBase)],
        );
      await fill(0, now - 6 * DAY);
      await env.db.query(`INSERT INTO execution.outbox (id, subject, event, created_at) SELECT gen_random_uuid(), 's', '{}'::json, $1 FROM generate_series(1, 100)`, [new Date(now)]);
      await env.db.exec('ANALYZE execution.outbox');
      const cutoff = new Date(now - 7 * DAY);
      const none = await explain(env.db, outboxPruneSql('execution'), [cutoff, 1000]);
      expect(scansOf(none, 'outbox')).toContain('Index Scan outbox_published_at');
      expect(scansOf(none, 'outbox').filter((x) => x.startsWith('Seq Scan')), 'nothing due').toEqual([]);
      await fill(200_000, now - 20 * DAY);
      await env.db.exec('ANALYZE execution.outbox');
      const many = await explain(env.db, outboxPruneSql('execution'), [cutoff, 1000]);
      expect(scansOf(many, 'outbox').filter((x) => x.startsWith('Seq Scan')), '100 000 rows due').toEqual([]);
      // Taken in index order: no sort of every due row to find the batch.
      expect(many.filter((n) => n['Node Type'] === 'Sort')).toEqual([]);

      // 50 000 resolved dead letters (none due) and 1 000 open ones.
      await env.db.query(
        `INSERT INTO execution.dead_letters (source, event_id, event_type, scenario_id, event, event_bytes, error, attempts, dead_at, status, resolved_at, resolved_by)
         SELECT 'outbox', gen_random_uuid(), 'payload.executed', 's', '{}'::json, 2, 'e', 8, $1, CASE WHEN g % 51 = 0 THEN 'dead' ELSE 'discarded' END,
                CASE WHEN g % 51 = 0 THEN NULL ELSE $1::timestamptz + g * interval '1 second' END, CASE WHEN g % 51 = 0 THEN NULL ELSE 'op' END
         FROM generate_series(1, 51000) g`,
        [new Date(now - 10 * DAY)],
      );
      await env.db.exec('ANALYZE execution.dead_letters');
      const dl = await explain(env.db, deadLettersPruneSql('execution'), [new Date(now - 30 * DAY), 1000]);
      expect(scansOf(dl, 'dead_letters')).toContain('Index Scan dead_letters_resolved_at');
      expect(scansOf(dl, 'dead_letters').filter((x) => x.startsWith('Seq Scan'))).toEqual([]);
    } finally {
      await env.cleanup();
    }
  }, 120_000);

  it("reports the stream's live max_age after another service or an operator changed it, and the pruner keeps the marks", async () => {
    const b = await openBus();
    const env = await openEnv();
    try {
      const DAY = 86_400_000;
      expect(await b.bus.streamMaxAgeMs!()).toBe(7 * DAY);
      // As `nats stream edit --max-age 30d` would, or a service started later with another PARLEY_STREAM_MAX_AGE_MS.
      const jsm = await jetstreamManager(admin);
      const cfg = (await jsm.streams.info(b.subjects.stream)).config;
      await jsm.streams.update(b.subjects.stream, { ...cfg, max_age: nanos(30 * DAY) });
      expect(await b.bus.streamMaxAgeMs!()).toBe(30 * DAY);
      const now = Date.parse('2026-03-01T00:00:00Z');
      await env.db.query('INSERT INTO registry.processed_events (consumer, event_id, processed_at) VALUES ($1, gen_random_uuid(), $2)', ['c', new Date(now - 20 * DAY)]);
      const flow = serviceEventFlow({ db: env.db, schema: 'registry', subjects: b.subjects, now: () => new Date(now), logger: quietLogger, processedRetentionMs: 14 * DAY, bus: b.bus });
      expect((await flow.pruner.sweep()).processed_events).toBe(0);
      await jsm.streams.update(b.subjects.stream, { ...cfg, max_age: 0 });
      expect(await b.bus.streamMaxAgeMs!()).toBe(0);
      expect((await flow.pruner.sweep()).processed_events).toBe(0);
    } finally {
      await env.cleanup();
      await b.cleanup();
    }
  });
});
