import { existsSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Where integration tests find PostgreSQL and NATS JetStream.
 *
 * - A container runtime is reachable (DOCKER_HOST set or /var/run/docker.sock
 *   exists): testcontainers starts postgres:16 and nats:2 -js for the run.
 * - Otherwise: the running services, PARLEY_IT_DATABASE_URL (default
 *   postgres://postgres@127.0.0.1:5432/postgres) and PARLEY_IT_NATS_URL
 *   (default nats://127.0.0.1:4222).
 *
 * Unreachable services fail the run when CI is set; elsewhere the integration
 * suites are skipped with a loud message naming what was missing.
 */
export interface Infra {
  /** Admin URL of a PostgreSQL server (tests create their own databases on it). */
  databaseUrl: string;
  natsUrl: string;
  source: 'testcontainers' | 'local';
}

const ENV_DB = 'PARLEY_IT_DATABASE_URL';
const ENV_NATS = 'PARLEY_IT_NATS_URL';
const ENV_UNAVAILABLE = 'PARLEY_IT_UNAVAILABLE';

export function isCI(): boolean {
  const v = process.env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function containerRuntimeAvailable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function tcpReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = tcpConnect({ host: u.hostname, port: Number(u.port || 4222), timeout: timeoutMs });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
    s.once('timeout', () => { s.destroy(); resolve(false); });
  });
}

async function pgReachable(url: string): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Resolves the infrastructure once per test run (vitest globalSetup) and exports it through env vars. */
export async function resolveInfra(): Promise<{ infra?: Infra; stop: () => Promise<void>; problem?: string }> {
  if (containerRuntimeAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pgc = await new PostgreSqlContainer('postgres:16-alpine').start();
    const natsc = await new GenericContainer('nats:2.10-alpine')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    const infra: Infra = {
      databaseUrl: pgc.getConnectionUri(),
      natsUrl: `nats://${natsc.getHost()}:${natsc.getMappedPort(4222)}`,
      source: 'testcontainers',
    };
    return { infra, stop: async () => { await natsc.stop(); await pgc.stop(); } };
  }
  const databaseUrl = process.env[ENV_DB] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const natsUrl = process.env[ENV_NATS] ?? 'nats://127.0.0.1:4222';
  const problems: string[] = [];
  const pgProblem = await pgReachable(databaseUrl);
  if (pgProblem) problems.push(`PostgreSQL at ${redact(databaseUrl)}: ${pgProblem}`);
  if (!(await tcpReachable(natsUrl))) problems.push(`NATS at ${natsUrl}: not reachable`);
  if (problems.length) return { stop: async () => {}, problem: problems.join('; ') };
  return { infra: { databaseUrl, natsUrl, source: 'local' }, stop: async () => {} };
}

export function exportInfra(r: { infra?: Infra; problem?: string }): void {
  if (r.infra) {
    process.env[ENV_DB] = r.infra.databaseUrl;
    process.env[ENV_NATS] = r.infra.natsUrl;
    delete process.env[ENV_UNAVAILABLE];
  } else {
    process.env[ENV_UNAVAILABLE] = r.problem ?? 'unknown';
  }
}

/**
 * For integration test files: the infrastructure, or undefined (after a loud
 * warning) when it is missing outside CI. In CI a missing service throws.
 */
export function integrationInfra(suite: string): Infra | undefined {
  const problem = process.env[ENV_UNAVAILABLE];
  const databaseUrl = process.env[ENV_DB];
  const natsUrl = process.env[ENV_NATS];
  if (!problem && databaseUrl && natsUrl) return { databaseUrl, natsUrl, source: 'local' };
  const why = problem ?? 'integration infrastructure not resolved (run through the vitest config)';
  if (isCI()) throw new Error(`[${suite}] integration tests cannot reach their services in CI: ${why}`);
  console.warn(`\n!!! SKIPPING integration suite "${suite}": ${why}\n!!! Start PostgreSQL and NATS (-js) or a container runtime to run it.\n`);
  return undefined;
}

/** A fresh database on the server for one test file; `drop()` removes it. */
export async function createTestDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `parley_t_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A subject prefix no other test run uses, so suites share one NATS server safely. */
export function uniquePrefix(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable url)';
  }
}
