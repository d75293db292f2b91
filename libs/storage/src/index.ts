export type { Db, Queryable, QueryResult } from './db';
export { createPgDb, type PgDbOptions } from './pg-db';
export { createPgliteDb } from './pglite-db';
export { migrate, loadMigrations, SERVICE_SCHEMAS, type ServiceSchema, type Migration } from './migrate';
export { openDb } from './open';
export { countSql, countSqlIfAsked, countingSqlFromEnv, resetSqlCounts, sqlCounts, sqlShape, type SqlCounts } from './counting';
export { afterCommit } from './after-commit';
