import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, integrationInfra } from '@parley/testkit';
import { migrate, openDb } from '@parley/storage';

// An operator who builds a retention index with CREATE INDEX CONCURRENTLY before upgrading may be left
// with an INVALID index of that name when the build fails; the migration must not take it as done.
const infra = integrationInfra('retention index migration on PostgreSQL');
const dropped: Array<() => Promise<void>> = [];

describe.skipIf(!infra)('retention index migration on PostgreSQL', () => {
  afterAll(async () => {
    for (const d of dropped) await d();
  });

  it('drops an INVALID index of the same name and builds it again', async () => {
    const t = await createTestDatabase(infra!.databaseUrl);
    dropped.push(t.drop);
    const db = await openDb(t.url);
    try {
      await migrate(db, 'execution');
      // What a failed concurrent build leaves behind: the index exists, marked not valid.
      await db.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'execution.outbox_published_at'::regclass`);
      const row = await db.query<{ version: number }>(`SELECT version FROM execution.schema_migrations WHERE name = '010_retention_indexes'`);
      expect(row.rows).toHaveLength(1);
      await db.query(`DELETE FROM execution.schema_migrations WHERE version = $1`, [row.rows[0]!.version]);
      expect(await migrate(db, 'execution')).toEqual([row.rows[0]!.version]);
      const valid = await db.query<{ indisvalid: boolean }>(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'execution.outbox_published_at'::regclass`);
      expect(valid.rows).toEqual([{ indisvalid: true }]);
    } finally {
      await db.close();
    }
  });
});
