import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db';

/** Services that own tables; each owns the PostgreSQL schema of the same name. */
export const SERVICE_SCHEMAS = ['registry', 'negotiation', 'execution', 'pool', 'evolution'] as const;
export type ServiceSchema = (typeof SERVICE_SCHEMAS)[number];

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Migrations of one service: `migrations/<service>/NNN_name.sql`, applied in NNN order. */
export function loadMigrations(service: ServiceSchema): Migration[] {
  const dir = join(MIGRATIONS_DIR, service);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f.replace(/\.sql$/, ''), sql: readFileSync(join(dir, f), 'utf8') }));
}

/**
 * Applies the service's pending migrations, each in its own transaction, under
 * a transaction-scoped advisory lock so that replicas starting together apply
 * each migration once. Runs on every service start.
 */
export async function migrate(db: Db, service: ServiceSchema): Promise<number[]> {
  const applied: number[] = [];
  const lockKey = hashKey(`parley.migrate.${service}`);
  await db.query(`CREATE SCHEMA IF NOT EXISTS ${service}`);
  await db.query(
    `CREATE TABLE IF NOT EXISTS ${service}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const m of loadMigrations(service)) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey]);
      const done = await tx.query(`SELECT 1 FROM ${service}.schema_migrations WHERE version = $1`, [m.version]);
      if (done.rowCount > 0) return;
      await tx.exec(m.sql);
      await tx.query(`INSERT INTO ${service}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      applied.push(m.version);
    });
  }
  return applied;
}

function hashKey(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
