import { shareAfterCommit } from './after-commit';
import type { Db, Queryable } from './db';

/**
 * Statement and transaction counts of the databases opened while counting is
 * on (PARLEY_COUNT_SQL=1, or `countSql(db)`): what `bench/sql-per-execute.ts`
 * reports per execute. Off by default; when off, nothing is wrapped.
 */
export interface SqlCounts {
  /** Statements run through `query`/`exec`, inside or outside a transaction (BEGIN/COMMIT not included). */
  statements: number;
  /** Transactions opened with `transaction()`. */
  transactions: number;
  /** Statements by shape: whitespace folded, parameter lists collapsed, cut at 150 characters. */
  byShape: Map<string, number>;
}

const counts: SqlCounts = { statements: 0, transactions: 0, byShape: new Map() };

/** The process's counts (all counted databases together). */
export function sqlCounts(): SqlCounts {
  return counts;
}

/** Starts counting again from zero. */
export function resetSqlCounts(): void {
  counts.statements = 0;
  counts.transactions = 0;
  counts.byShape.clear();
}

/** Whether databases opened now are counted (PARLEY_COUNT_SQL=1). */
export function countingSqlFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['PARLEY_COUNT_SQL'] === '1';
}

/** A statement's shape: `VALUES ($1, $2), ($3, $4)` and the like fold to one group, whitespace to single spaces. */
export function sqlShape(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  const folded = flat.replace(/\(\$\d+[^()]*\)(\s*,\s*\(\$\d+[^()]*\))+/g, '($…)…').replace(/\$\d+/g, '$');
  return folded.length > 150 ? `${folded.slice(0, 150)}…` : folded;
}

function note(sql: string): void {
  counts.statements++;
  const shape = sqlShape(sql);
  counts.byShape.set(shape, (counts.byShape.get(shape) ?? 0) + 1);
}

function countQueryable(q: Queryable): Queryable {
  return {
    query(sql, params) {
      note(sql);
      return q.query(sql, params);
    },
    exec(sql) {
      note(sql);
      return q.exec(sql);
    },
  };
}

/** `db` with every statement and transaction counted into sqlCounts(). */
export function countSql(db: Db): Db {
  const outer = countQueryable(db);
  return {
    kind: db.kind,
    query: outer.query,
    exec: outer.exec,
    transaction(fn) {
      counts.transactions++;
      return db.transaction((tx) => {
        const counted = countQueryable(tx);
        shareAfterCommit(counted, tx);
        return fn(counted);
      });
    },
    close: () => db.close(),
  };
}

/** `db` counted when PARLEY_COUNT_SQL=1, else `db` itself. */
export function countSqlIfAsked(db: Db): Db {
  return countingSqlFromEnv() ? countSql(db) : db;
}
