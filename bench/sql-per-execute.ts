// SQL statements and transactions per execute, and CPU per execute: a deterministic measure of the commit path and
// the event flow behind it, where requests per second on a shared machine are noise. Runs N executes at concurrency
// 1 and at concurrency C, waits for the outbox relays and the durable consumers to finish with them, and prints
// statements (BEGIN/COMMIT not included) and transactions per execute, by statement shape, less what the idle
// timers (relay polls, maintenance) ran in the same time.
//   default:        `npm start`'s configuration in this process (PGlite and the in-process bus, or PostgreSQL with
//                   DATABASE_URL and NATS JetStream with NATS_URL).
//   SQL_SEPARATE=1: the design card's deployment, each service its own process on PostgreSQL + NATS (registry,
//                   negotiation, execution, semantic pool, evolution, gateway, the example agent), each counting its
//                   own statements (bench/sql-probe.ts) and CPU; DATABASE_URL / NATS_URL default to the local ones.
//   SQL_EXECUTES (200)  SQL_CONCURRENCY (16)  SQL_PROFILE=DIR (SQL_SEPARATE: a --cpu-prof profile of each service in DIR/<name>)
// Last line: one JSON object.
process.env['PARLEY_COUNT_SQL'] = '1';

import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { resetSqlCounts, sqlCounts } from '@parley/storage';
import { createLogger } from '@parley/runtime';
import { REPO_ROOT, createTestDatabase, freePort, startProcess, testIdentity, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { startParley } from '../apps/parley/src/embedded';

const N = Number(process.env['SQL_EXECUTES'] ?? 200);
const C = Number(process.env['SQL_CONCURRENCY'] ?? 16);
const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts of one moment: statements, transactions, shapes, and CPU milliseconds by process. */
interface Snapshot {
  statements: number;
  transactions: number;
  shapes: Map<string, number>;
  cpu: Map<string, number>;
}

/** A system under test: where to call execute, how to read its counts, when its event flow is quiet. */
interface System {
  kind: string;
  url: string;
  key: string;
  snapshot(): Promise<Snapshot>;
  /** Durable consumers' backlog: true when nothing is pending or in flight. */
  quiet(): Promise<boolean>;
  stop(): Promise<void>;
}

interface Phase {
  concurrency: number;
  statements_per_execute: number;
  transactions_per_execute: number;
  cpu_ms_per_execute: number;
  cpu_ms_by_process: Record<string, number>;
  by_shape: [string, number][];
}

async function executeOnce(s: System): Promise<void> {
  const res = await fetch(`${s.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 } }),
  });
  const body = (await res.json()) as { error?: unknown };
  if (!res.ok || body.error) throw new Error(`execute failed: ${res.status} ${JSON.stringify(body.error)}`);
}

function diff(a: Snapshot, b: Snapshot): Snapshot {
  const sub = (x: Map<string, number>, y: Map<string, number>) => new Map([...y].map(([k, v]) => [k, v - (x.get(k) ?? 0)]));
  return { statements: b.statements - a.statements, transactions: b.transactions - a.transactions, shapes: sub(a.shapes, b.shapes), cpu: sub(a.cpu, b.cpu) };
}

/** Statements and transactions per second with no calls (polls and timers), to subtract from a phase. */
async function idleRate(s: System): Promise<Snapshot> {
  const a = await s.snapshot();
  const t0 = Date.now();
  await sleep(3000);
  const d = diff(a, await s.snapshot());
  const sec = (Date.now() - t0) / 1000;
  const per = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / sec]));
  return { statements: d.statements / sec, transactions: d.transactions / sec, shapes: per(d.shapes), cpu: per(d.cpu) };
}

/** Waits until the durable consumers have nothing pending or in flight for 600 ms. */
async function settle(s: System): Promise<void> {
  let quiet = 0;
  while (quiet < 3) {
    await sleep(200);
    quiet = (await s.quiet()) ? quiet + 1 : 0;
  }
}

async function phase(s: System, concurrency: number, idle: Snapshot): Promise<Phase> {
  const a = await s.snapshot();
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        next++;
        await executeOnce(s);
      }
    }),
  );
  await settle(s);
  const d = diff(a, await s.snapshot());
  const sec = (Date.now() - t0) / 1000;
  const per = (v: number) => Number((v / N).toFixed(2));
  const shapes = [...d.shapes]
    .map(([k, v]): [string, number] => [k, per(Math.max(0, v - (idle.shapes.get(k) ?? 0) * sec))])
    .filter(([, v]) => v >= 0.01)
    .sort((x, y) => y[1] - x[1]);
  // CPU under load, the idle timers' share left in (it is small beside the calls, and the machine is shared).
  const cpu = Object.fromEntries([...d.cpu].map(([k, v]) => [k, per(v)]));
  return {
    concurrency,
    statements_per_execute: per(d.statements - idle.statements * sec),
    transactions_per_execute: per(d.transactions - idle.transactions * sec),
    cpu_ms_per_execute: per([...d.cpu.values()].reduce((x, y) => x + y, 0)),
    cpu_ms_by_process: cpu,
    by_shape: shapes,
  };
}

async function inProcess(): Promise<System> {
  const databaseUrl = process.env['DATABASE_URL'];
  const natsUrl = process.env['NATS_URL'];
  const p = await startParley({
    port: 0,
    rateLimit: null,
    log: createLogger({ level: 'error' }),
    metrics: null,
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(natsUrl ? { natsUrl, prefix: uniquePrefix() } : {}),
  });
  resetSqlCounts();
  return {
    kind: `one process, ${p.db.kind}${natsUrl ? ' + NATS' : ', in-process bus'}`,
    url: p.url,
    key: p.devKey,
    async snapshot() {
      const c = sqlCounts();
      const cpu = process.cpuUsage();
      return { statements: c.statements, transactions: c.transactions, shapes: new Map(c.byShape), cpu: new Map([['parley', (cpu.user + cpu.system) / 1000]]) };
    },
    async quiet() {
      const lag = (await p.bus.consumerLag?.()) ?? [];
      return lag.every((l) => l.pending === 0 && l.ackPending === 0);
    },
    stop: () => p.stop(),
  };
}

/** Each process's counts through its probe (SIGUSR2 → SQL_PROBE_FILE). */
async function probe(procs: { p: ServiceProcess; file: string }[]): Promise<Snapshot> {
  const before = procs.map(({ file }) => (statSafe(file) ?? 0));
  for (const { p } of procs) p.child.kill('SIGUSR2');
  const out: Snapshot = { statements: 0, transactions: 0, shapes: new Map(), cpu: new Map() };
  for (const [i, { p, file }] of procs.entries()) {
    for (let t = 0; (statSafe(file) ?? 0) === before[i]; t++) {
      if (t > 200) throw new Error(`${p.name} wrote no SQL counts`);
      await sleep(10);
    }
    const c = JSON.parse(readFileSync(file, 'utf8')) as { statements: number; transactions: number; byShape: [string, number][]; cpu_ms: number };
    out.statements += c.statements;
    out.transactions += c.transactions;
    for (const [k, v] of c.byShape) out.shapes.set(k, (out.shapes.get(k) ?? 0) + v);
    out.cpu.set(p.name, c.cpu_ms);
  }
  return out;
}

function statSafe(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs + statSync(file).size / 1e9;
  } catch {
    return undefined;
  }
}

async function separate(): Promise<System> {
  const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
  const db = await createTestDatabase(process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const prefix = uniquePrefix();
  const identity = testIdentity();
  const procs: { p: ServiceProcess; file: string }[] = [];
  const ports = await Promise.all(Array.from({ length: 13 }, freePort));
  const [rg, ng, eg, pg, vg, rh, nh, eh, ph, vh, gw, ah] = ports;
  const common = {
    ...identity.env,
    DATABASE_URL: db.url,
    NATS_URL: natsUrl,
    PARLEY_SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    PARLEY_COUNT_SQL: '1',
    PARLEY_METRICS: 'false',
    PARLEY_STORE_RAW_FRAGMENTS: 'false',
  };
  const profile = process.env['SQL_PROFILE'];
  const probeArgs = (name: string) => [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, name)}`] : []), '--import', 'tsx', '--import', join(REPO_ROOT, 'bench/sql-probe.ts')];
  const start = async (name: string, entry: string, env: Record<string, string>, ready: string, counted = true) => {
    const file = join(tmpdir(), `sql-probe-${prefix}-${name}.json`);
    const p = startProcess(name, entry, { ...common, ...env, SQL_PROBE_FILE: file }, counted ? probeArgs(name) : []);
    if (counted) procs.push({ p, file });
    all.push(p);
    await waitReady(ready, p, 120_000);
  };
  const all: ServiceProcess[] = [];
  const registry = { REGISTRY_ADDR: `127.0.0.1:${rg}` };
  try {
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
    await start('negotiation', 'apps/negotiation/src/main.ts', { ...registry, GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}` }, `http://127.0.0.1:${nh}/readyz`);
    await start('execution', 'apps/execution/src/main.ts', { ...registry, GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}` }, `http://127.0.0.1:${eh}/readyz`);
    await start('semantic-pool', 'apps/semantic-pool/src/main.ts', { ...registry, GRPC_PORT: `${pg}`, HEALTH_PORT: `${ph}` }, `http://127.0.0.1:${ph}/readyz`);
    await start('evolution', 'apps/evolution/src/main.ts', { ...registry, GRPC_PORT: `${vg}`, HEALTH_PORT: `${vh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}` }, `http://127.0.0.1:${vh}/readyz`);
    const gateway = `http://127.0.0.1:${gw}`;
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      {
        ...registry,
        PORT: `${gw}`,
        NEGOTIATION_ADDR: `127.0.0.1:${ng}`,
        EXECUTION_ADDR: `127.0.0.1:${eg}`,
        SEMANTIC_POOL_ADDR: `127.0.0.1:${pg}`,
        EVOLUTION_ADDR: `127.0.0.1:${vg}`,
        RATE_LIMIT_PER_SECOND: '0',
        PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0',
      },
      `${gateway}/readyz`,
    );
    await start('agent', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gateway, HEALTH_PORT: `${ah}` }, `http://127.0.0.1:${ah}/healthz`, false);
  } catch (err) {
    for (const p of all.reverse()) await p.stop();
    await db.drop();
    throw err;
  }
  const nc: NatsConnection = await connect({ servers: natsUrl, name: 'sql-per-execute' });
  const jsm = await jetstreamManager(nc);
  const stream = `${prefix.toUpperCase()}_EVENTS`;
  const system: System = {
    kind: 'separate services, PostgreSQL + NATS',
    url: `http://127.0.0.1:${gw}`,
    key: identity.operatorKey,
    snapshot: () => probe(procs),
    async quiet() {
      for await (const c of jsm.consumers.list(stream)) if (c.num_pending > 0 || c.num_ack_pending > 0) return false;
      return true;
    },
    async stop() {
      await jsm.streams.delete(stream).catch(() => {});
      await nc.close();
      for (const p of all.reverse()) await p.stop();
      for (const { file } of procs) rmSync(file, { force: true });
      await db.drop();
    },
  };
  // The agent registers and publishes its schema after it is healthy: wait until an execute goes through.
  for (let i = 0; ; i++) {
    try {
      await executeOnce(system);
      break;
    } catch (err) {
      if (i > 150) throw err;
      await sleep(200);
    }
  }
  return system;
}

async function main(): Promise<void> {
  const s = process.env['SQL_SEPARATE'] === '1' ? await separate() : await inProcess();
  try {
    for (let i = 0; i < 20; i++) await executeOnce(s);
    await settle(s);
    const idle = await idleRate(s);
    console.log(`${s.kind}\nidle: ${idle.statements.toFixed(1)} statements/s, ${idle.transactions.toFixed(1)} transactions/s (subtracted below)`);
    console.log(`  idle CPU ms/s by process: ${[...idle.cpu].map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
    for (const [shape, n] of [...idle.shapes].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1])) console.log(`  ${n.toFixed(2).padStart(6)}/s  ${shape.slice(0, 140)}`);
    const out: Phase[] = [];
    for (const c of [1, C]) {
      const r = await phase(s, c, idle);
      out.push(r);
      console.log(`\nc${c}: ${r.statements_per_execute} statements, ${r.transactions_per_execute} transactions, ${r.cpu_ms_per_execute} ms CPU per execute (${N} executes)`);
      console.log(`  CPU ms per execute by process: ${Object.entries(r.cpu_ms_by_process).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      for (const [shape, n] of r.by_shape) console.log(`  ${n.toFixed(2).padStart(6)}  ${shape}`);
    }
    console.log(
      JSON.stringify(
        Object.fromEntries(
          out.flatMap((r) => [
            [`statements_per_execute_c${r.concurrency}`, r.statements_per_execute],
            [`transactions_per_execute_c${r.concurrency}`, r.transactions_per_execute],
            [`cpu_ms_per_execute_c${r.concurrency}`, r.cpu_ms_per_execute],
            [`cpu_ms_by_process_c${r.concurrency}`, r.cpu_ms_by_process],
          ]),
        ),
      ),
    );
  } finally {
    await s.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
