// Where a lone execute waits: c1 (and optionally c64) against one configuration, several short rounds,
// the quietest kept. PROBE_MODE=separate (the design card's services on PostgreSQL + NATS), pg (`npm start`'s
// entry on PostgreSQL + NATS) or embedded (`npm start` defaults, PGlite). PROBE_ROUNDS (3), BENCH_SECONDS (5),
// PROBE_C64=1 adds a c64 round, PROBE_IDLE_SPANS (3) the idle spans. Prints p50/p99 and the CPU ms per call of the system under test, and the
// processes' idle CPU per second with no calls.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent as HttpAgent, request } from 'node:http';
import { createTestDatabase, freePort, startProcess, testIdentity, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { SECONDS, load } from './load';
import { parseStraceSummary, startTracer } from './strace-probe';
import { cpuSeconds } from './proc';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MODE = process.env.PROBE_MODE ?? 'separate';
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);
const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 } });

// PROBE_PROFILE=DIR: a --cpu-prof profile of every process, one directory each.
const profileArgs = (name: string): string[] => (process.env['PROBE_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['PROBE_PROFILE']}/${name}`] : []);

function poster(url: string, key: string): () => Promise<boolean> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)), authorization: `Bearer ${key}` };
  return () =>
    new Promise<boolean>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).includes('"error"')));
      });
      req.on('error', reject);
      req.end(BODY);
    });
}

/** PostgreSQL's WAL flushes so far (pg_stat_wal.wal_sync: commits that waited for one, and the WAL writer's). */
async function walSyncs(): Promise<number> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    return Number((await c.query('SELECT wal_sync FROM pg_stat_wal')).rows[0].wal_sync);
  } finally {
    await c.end();
  }
}

async function until(ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no successful execute');
}

async function startSystem(procs: ServiceProcess[]): Promise<{ url: string; key: string; drop: () => Promise<void> }> {
  const identity = testIdentity();
  if (MODE !== 'separate') {
    const db = MODE === 'pg' ? await createTestDatabase(DATABASE_URL) : undefined;
    const port = await freePort();
    const env: Record<string, string> = { PORT: `${port}`, PARLEY_DEV_KEY: identity.operatorKey, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0', LOG_LEVEL: 'warn', PARLEY_DEMO: '0' };
    if (db) Object.assign(env, { DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: uniquePrefix() });
    const p = startProcess(MODE, 'apps/parley/src/main.ts', env, profileArgs(MODE));
    procs.push(p);
    await waitReady(`http://127.0.0.1:${port}/readyz`, p, 120_000);
    return { url: `http://127.0.0.1:${port}/rpc`, key: identity.operatorKey, drop: async () => void (await db?.drop()) };
  }
  const db = await createTestDatabase(DATABASE_URL);
  const prefix = uniquePrefix();
  const [rg, ng, eg, rh, nh, eh, gw, ah] = await Promise.all(Array.from({ length: 8 }, freePort));
  const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'warn' };
  const start = async (name: string, entry: string, env: Record<string, string>, ready: string) => {
    const p = startProcess(name, entry, { ...common, ...env }, profileArgs(name));
    procs.push(p);
    await waitReady(ready, p);
  };
  await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
  await start('negotiation', 'apps/negotiation/src/main.ts', { GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${nh}/readyz`);
  await start('execution', 'apps/execution/src/main.ts', { GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${eh}/readyz`);
  const gateway = `http://127.0.0.1:${gw}`;
  await start('gateway', 'apps/gateway/src/main.ts', { PORT: `${gw}`, REGISTRY_ADDR: `127.0.0.1:${rg}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, EXECUTION_ADDR: `127.0.0.1:${eg}`, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' }, `${gateway}/readyz`);
  await start('agent', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gateway, HEALTH_PORT: `${ah}` }, `http://127.0.0.1:${ah}/healthz`);
  return { url: `${gateway}/rpc`, key: identity.operatorKey, drop: () => db.drop() };
}

/**
 * PROBE_STRACE=N: `strace -c -f` on every process while N executes run one after another, then while the
 * system rests for 3 s; prints syscalls (and the event loop's wake-ups, epoll_pwait) per execute and per
 * second at rest, by process. Counts, not times: they do not move with the machine's load.
 */
async function straceCounts(procs: ServiceProcess[], run: () => Promise<void>, label: string, per: number, unit: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'probe-strace-'));
  const started = await Promise.allSettled(procs.map((p) => startTracer(p.child.pid!, join(dir, p.name))));
  const tracers = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const refused = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (refused) {
    await Promise.all(tracers.map((t) => t.stop()));
    throw refused.reason;
  }
  await new Promise((r) => setTimeout(r, 1000));
  await run();
  const stopped = await Promise.all(tracers.map((t) => t.stop()));
  const rows = procs.map((p, i) => {
    const s = stopped[i]!;
    const text = existsSync(join(dir, p.name)) ? readFileSync(join(dir, p.name), 'utf8') : '';
    const sum = s.early ? undefined : parseStraceSummary(text);
    if (!sum) return `${p.name} not measured (${s.early ? `strace exited early, code ${s.code ?? s.signal}: ptrace permission?` : 'strace wrote no summary'})`;
    const rate = (n: number) => (n / per).toFixed(1);
    const { calls } = sum;
    return `${p.name} ${rate(sum.total)} (epoll ${rate(calls('epoll_pwait'))}, writes ${rate(calls('write') + calls('writev') + calls('sendmsg') + calls('sendto'))}, reads ${rate(calls('read') + calls('recvmsg') + calls('recvfrom'))})`;
  });
  process.stdout.write(`  syscalls per ${unit}, ${label}: ${rows.join('; ')}\n`);
}

async function main(): Promise<void> {
  const procs: ServiceProcess[] = [];
  const sys = await startSystem(procs);
  try {
    const once = poster(sys.url, sys.key);
    await until(once);
    const own = () => procs.reduce((s, p) => s + cpuSeconds(p.child.pid), 0);
    const idle: string[] = [];
    const spans = Math.max(1, Math.floor(Number(process.env.PROBE_IDLE_SPANS ?? 3)) || 3);
    let each: number[] = [];
    for (let k = 0; k < spans; k++) {
      const p0 = procs.map((p) => cpuSeconds(p.child.pid));
      await new Promise((r) => setTimeout(r, 3000));
      each = procs.map((p, i) => ((cpuSeconds(p.child.pid) - p0[i]!) * 1000) / 3);
      idle.push(each.reduce((s, x) => s + x, 0).toFixed(1));
    }
    process.stdout.write(`${MODE}: idle ${idle.join(', ')} ms CPU/s (${spans} 3 s spans after the first execute); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`);
    process.stdout.write(`  last span by process: ${procs.map((p, i) => `${p.name} ${each[i]!.toFixed(1)}`).join(', ')}\n`);
    const straceN = Number(process.env.PROBE_STRACE ?? 0);
    if (straceN > 0) {
      await straceCounts(procs, () => new Promise((r) => setTimeout(r, 3000)), 'at rest (3 s)', 3, 's');
      await straceCounts(procs, async () => {
        for (let i = 0; i < straceN; i++) await once();
        await new Promise((r) => setTimeout(r, 1000));
      }, `${straceN} executes at c1 and 1 s after`, straceN, 'execute');
    }
    const conc = process.env.PROBE_C64 ? [1, 64] : [1];
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of conc) {
        const c0 = own();
        const per0 = procs.map((p) => cpuSeconds(p.child.pid));
        const w0 = await walSyncs();
        const r = await load(c, once);
        const calls = Math.max(1, r.rps * (SECONDS + 1));
        const syncs = MODE === 'embedded' ? '' : ` WAL flushes ${((await walSyncs()) - w0) / calls > 0 ? (((await walSyncs()) - w0) / calls).toFixed(2) : '0'}/call (machine-wide)`;
        process.stdout.write(`  c${c} round ${round + 1}: ${r.rps} rps p50 ${r.p50_ms} ms p99 ${r.p99_ms} ms CPU ${(((own() - c0) * 1000) / calls).toFixed(2)} ms/call${syncs} errors ${r.errors}\n`);
        process.stdout.write(`    by process: ${procs.map((p, i) => `${p.name} ${(((cpuSeconds(p.child.pid) - per0[i]!) * 1000) / calls).toFixed(2)}`).join(', ')}\n`);
      }
    }
  } finally {
    for (const p of [...procs].reverse()) await p.stop();
    await sys.drop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
