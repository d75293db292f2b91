import { migrate, openDb } from '@parley/storage';
import { createMemoryBus, createSubjects } from '@parley/events';
import { outboxContract, quietLogger } from './outbox-contract';
import { retentionContract } from './retention-contract';

outboxContract(
  'PGlite + memory bus',
  async () => {
    const db = await openDb('pglite://memory');
    await migrate(db, 'execution');
    await migrate(db, 'registry');
    return { db, cleanup: () => db.close() };
  },
  async () => {
    const subjects = createSubjects('parley');
    const bus = createMemoryBus({ subjects, logger: quietLogger });
    return { bus, subjects, cleanup: () => bus.close() };
  },
);

retentionContract(
  'PGlite',
  async () => {
    const db = await openDb('pglite://memory');
    await migrate(db, 'execution');
    await migrate(db, 'registry');
    return { db, cleanup: () => db.close() };
  },
  async () => {
    const subjects = createSubjects('parley');
    const bus = createMemoryBus({ subjects, logger: quietLogger });
    return { bus, subjects, cleanup: () => bus.close() };
  },
);
