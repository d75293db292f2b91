import { afterAll, beforeAll, describe } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { migrate, openDb } from '@parley/storage';
import { createTestDatabase, integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects } from '@parley/events';
import { outboxContract, quietLogger } from './outbox-contract';

const infra = integrationInfra('events-outbox');

describe.skipIf(!infra)('outbox on PostgreSQL and NATS', () => {
  let admin: NatsConnection;
  beforeAll(async () => {
    admin = await connect({ servers: infra!.natsUrl, name: 'events-outbox-int-admin' });
  });
  afterAll(async () => {
    await admin?.drain();
  });

  outboxContract(
    'PostgreSQL + NATS bus',
    async () => {
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
    },
    async () => {
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
    },
    { replicas: true },
  );
});
