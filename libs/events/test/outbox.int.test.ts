import { afterAll, beforeAll, describe } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { migrate, openDb } from '@parley/storage';
import { createTestDatabase, integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects } from '@parley/events';
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
});
