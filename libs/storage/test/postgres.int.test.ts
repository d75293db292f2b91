import { afterAll, describe } from 'vitest';
import { createTestDatabase, integrationInfra } from '@parley/testkit';
import { openDb } from '@parley/storage';
import { storageContract } from './storage-contract';

const infra = integrationInfra('storage on PostgreSQL');
const dropped: Array<() => Promise<void>> = [];

describe.skipIf(!infra)('storage on PostgreSQL', () => {
  afterAll(async () => {
    for (const d of dropped) await d();
  });
  storageContract(async () => {
    const t = await createTestDatabase(infra!.databaseUrl);
    dropped.push(t.drop);
    return openDb(t.url);
  });
});
