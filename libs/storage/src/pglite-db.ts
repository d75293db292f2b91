import { closeAfterCommit, openAfterCommit } from './after-commit';
import { PGlite } from '@electric-sql/pglite';
import { countSqlIfAsked } from './counting';
import type { Db, Queryable } from './db';

/**
 * The Db port on PGlite: PostgreSQL compiled to WASM, in this process. The
 * embedded mode runs every service's SQL unchanged on it. `dataDir` undefined
 * keeps the database in memory.
 */
export async function createPgliteDb(dataDir?: string): Promise<Db> {
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  const wrap = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query(sql, params) {
      const r = await target.query(sql, params as unknown[] | undefined);
      return { rows: r.rows as never[], rowCount: Math.max(r.rows.length, r.affectedRows ?? 0) };
    },
    exec: async (sql) => void (await target.exec(sql)),
  });
  return countSqlIfAsked({
    kind: 'pglite',
    ...wrap(db),
    async transaction(fn) {
      let handle: Queryable | undefined;
      let committed = false;
      try {
        const out = await db.transaction((tx) => {
          handle = wrap(tx);
          openAfterCommit(handle);
          return fn(handle);
        });
        committed = true;
        return out;
      } finally {
        if (handle) closeAfterCommit(handle, committed);
      }
    },
    close: () => db.close(),
  });
}
