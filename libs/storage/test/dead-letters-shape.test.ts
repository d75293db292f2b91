import { describe, expect, it } from 'vitest';
import { SERVICE_SCHEMAS, loadMigrations, migrate, openDb } from '@parley/storage';

/**
 * One dead-letter mechanism for every service (libs/events dead-letters.ts): each
 * service schema gets the same `dead_letters` table, from a migration that differs
 * from the others only in the schema's name.
 */
describe('dead_letters in every service schema', () => {
  it('is created by one migration per service, identical but for the schema name', () => {
    const bodies = SERVICE_SCHEMAS.map((s) => {
      const m = loadMigrations(s).filter((x) => x.name.endsWith('_dead_letters'));
      expect(m, s).toHaveLength(1);
      return m[0]!.sql.replaceAll(`${s}.`, '<schema>.');
    });
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]).toContain('CREATE TABLE <schema>.dead_letters');
  });

  it('has the same columns in every schema once migrated', async () => {
    const db = await openDb('pglite://memory');
    try {
      for (const s of SERVICE_SCHEMAS) await migrate(db, s);
      const r = await db.query<{ table_schema: string; cols: string }>(
        `SELECT table_schema, string_agg(column_name || ':' || data_type, ',' ORDER BY ordinal_position) AS cols
         FROM information_schema.columns WHERE table_name = 'dead_letters' GROUP BY table_schema ORDER BY table_schema`,
      );
      expect(r.rows.map((x) => x.table_schema)).toEqual([...SERVICE_SCHEMAS].sort());
      expect(new Set(r.rows.map((x) => x.cols)).size).toBe(1);
    } finally {
      await db.close();
    }
  });
});
