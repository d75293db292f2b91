import type { Db } from './db';
import { createPgDb } from './pg-db';
import { createPgliteDb } from './pglite-db';

/**
 * Opens the database a URL names:
 *   postgres://... or postgresql://...   a PostgreSQL server (pg pool)
 *   pglite://memory                      PGlite in memory (the embedded default)
 *   pglite:///abs/dir or pglite://./dir  PGlite persisted in a directory
 */
export async function openDb(url: string, opts: { applicationName?: string; poolSize?: number } = {}): Promise<Db> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const o: { connectionString: string; applicationName?: string; max?: number } = { connectionString: url };
    if (opts.applicationName) o.applicationName = opts.applicationName;
    if (opts.poolSize) o.max = opts.poolSize;
    return createPgDb(o);
  }
  if (url.startsWith('pglite://')) {
    const rest = url.slice('pglite://'.length);
    return createPgliteDb(rest === '' || rest === 'memory' ? undefined : rest);
  }
  throw new Error(`DATABASE_URL must start with postgres://, postgresql:// or pglite:// (got "${url.split(':')[0]}:")`);
}
