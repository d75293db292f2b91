import { closeAfterCommit, openAfterCommit } from './after-commit';
import pg from 'pg';
import { countSqlIfAsked } from './counting';
import type { Db, QueryResult, Queryable } from './db';

/** `pg` returns bigint/int8 as strings by default; counts and versions here fit in a JS number. */
pg.types.setTypeParser(20, (v) => Number(v));

export interface PgDbOptions {
  connectionString: string;
  /** Pool size (default 10). */
  max?: number;
  /** Name reported in pg_stat_activity. */
  applicationName?: string;
}

/** The Db port on a PostgreSQL server through a node-postgres pool. */
export function createPgDb(opts: PgDbOptions): Db {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'parley',
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const run = async <R>(q: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    const r = await q.query(sql, params as unknown[] | undefined);
    return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
  };
  return countSqlIfAsked({
    kind: 'pg',
    query: (sql, params) => run(pool, sql, params),
    exec: async (sql) => void (await pool.query(sql)),
    async transaction(fn) {
      const client = await pool.connect();
      const tx: Queryable = {
        query: (sql, params) => run(client, sql, params),
        exec: async (sql) => void (await client.query(sql)),
      };
      openAfterCommit(tx);
      let committed = false;
      try {
        await client.query('BEGIN');
        const out = await fn(tx);
        await client.query('COMMIT');
        committed = true;
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
        closeAfterCommit(tx, committed);
      }
    },
    close: () => pool.end(),
  });
}
