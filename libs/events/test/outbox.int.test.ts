import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { migrate, openDb } from '@parley/storage';
import { createTestDatabase, integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects, serviceEventFlow } from '@parley/events';
import { outboxContract, quietLogger, type OutboxBusEnv, type OutboxEnv } from './outbox-contract';
import { retentionContract } from './retention-contract';

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
