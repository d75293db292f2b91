import { migrate, openDb } from '@parley/storage';
import { createMemoryBus, createSubjects } from '@parley/events';
import { outboxContract, quietLogger, type OutboxBusEnv, type OutboxEnv } from './outbox-contract';
import { retentionContract } from './retention-contract';

const openEnv = async (): Promise<OutboxEnv> => {
  const db = await openDb('pglite://memory');
  await migrate(db, 'execution');
  await migrate(db, 'registry');
  return { db, cleanup: () => db.close() };
};
const openBus = async (): Promise<OutboxBusEnv> => {
  const subjects = createSubjects('parley');
  const bus = createMemoryBus({ subjects, logger: quietLogger });
  return { bus, subjects, cleanup: () => bus.close() };
};

outboxContract('PGlite + memory bus', openEnv, openBus);
retentionContract('PGlite + memory bus', openEnv, openBus);
