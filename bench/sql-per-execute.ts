// SQL statements and transactions per execute in `npm start`'s configuration (PGlite, the in-process bus), in this
// process: a deterministic measure of the commit path and the event flow behind it, where requests per second on a
// shared machine are noise. Runs N executes at concurrency 1 and at concurrency C, waits for the outbox relays and
// the durable consumers to finish with them, and prints statements and transactions per execute, by statement shape,
// less what the idle timers (relay polls, maintenance) ran in the same time.
//   SQL_EXECUTES (200)  SQL_CONCURRENCY (16)  DATABASE_URL (optional: PostgreSQL instead of PGlite)
// Last line: one JSON object.
process.env['PARLEY_COUNT_SQL'] = '1';

import { resetSqlCounts, sqlCounts } from '@parley/storage';
import { startParley, type EmbeddedParley } from '../apps/parley/src/embedded';
import { createLogger } from '@parley/runtime';

const N = Number(process.env['SQL_EXECUTES'] ?? 200);
const C = Number(process.env['SQL_CONCURRENCY'] ?? 16);
const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Phase {
  concurrency: number;
  statements_per_execute: number;
  transactions_per_execute: number;
  cpu_ms_per_execute: number;
  by_shape: [string, number][];
}

async function executeOnce(p: EmbeddedParley): Promise<void> {
  const res = await fetch(`${p.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.devKey}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 } }),
  });
  const body = (await res.json()) as { error?: unknown };
  if (!res.ok || body.error) throw new Error(`execute failed: ${res.status} ${JSON.stringify(body.error)}`);
}

/** Statements and transactions per second with no calls (polls and timers), to subtract from a phase. */
async function idleRate(): Promise<{ statements: number; transactions: number; shapes: Map<string, number> }> {
  resetSqlCounts();
  const t0 = Date.now();
  await sleep(3000);
  const s = (Date.now() - t0) / 1000;
  const c = sqlCounts();
  return { statements: c.statements / s, transactions: c.transactions / s, shapes: new Map([...c.byShape].map(([k, v]) => [k, v / s])) };
}

/** Waits until the bus's durable consumers have nothing pending or in flight for 600 ms. */
async function settle(p: EmbeddedParley): Promise<void> {
  let quiet = 0;
  while (quiet < 3) {
    await sleep(200);
    const lag = (await p.bus.consumerLag?.()) ?? [];
    quiet = lag.every((l) => l.pending === 0 && l.ackPending === 0) ? quiet + 1 : 0;
  }
}

async function phase(p: EmbeddedParley, concurrency: number, idle: Awaited<ReturnType<typeof idleRate>>): Promise<Phase> {
  resetSqlCounts();
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        next++;
        await executeOnce(p);
      }
    }),
  );
  await settle(p);
  const cpu = process.cpuUsage(cpu0);
  const s = (Date.now() - t0) / 1000;
  const c = sqlCounts();
  const per = (v: number) => Number((v / N).toFixed(2));
  const shapes = [...c.byShape]
    .map(([k, v]): [string, number] => [k, per(Math.max(0, v - (idle.shapes.get(k) ?? 0) * s))])
    .filter(([, v]) => v >= 0.01)
    .sort((a, b) => b[1] - a[1]);
  return {
    concurrency,
    statements_per_execute: per(c.statements - idle.statements * s),
    transactions_per_execute: per(c.transactions - idle.transactions * s),
    cpu_ms_per_execute: Number(((cpu.user + cpu.system) / 1000 / N).toFixed(2)),
    by_shape: shapes,
  };
}

async function main(): Promise<void> {
  const databaseUrl = process.env['DATABASE_URL'];
  const p = await startParley({ port: 0, rateLimit: null, log: createLogger({ level: 'error' }), metrics: null, ...(databaseUrl ? { databaseUrl } : {}) });
  try {
    for (let i = 0; i < 20; i++) await executeOnce(p);
    await settle(p);
    const idle = await idleRate();
    console.log(`idle: ${idle.statements.toFixed(1)} statements/s, ${idle.transactions.toFixed(1)} transactions/s (subtracted below)`);
    const out: Phase[] = [];
    for (const c of [1, C]) {
      const r = await phase(p, c, idle);
      out.push(r);
      console.log(`\nc${c}: ${r.statements_per_execute} statements, ${r.transactions_per_execute} transactions, ${r.cpu_ms_per_execute} ms CPU per execute (${N} executes, ${p.db.kind})`);
      for (const [shape, n] of r.by_shape) console.log(`  ${n.toFixed(2).padStart(6)}  ${shape}`);
    }
    console.log(JSON.stringify(Object.fromEntries(out.flatMap((r) => [[`statements_per_execute_c${r.concurrency}`, r.statements_per_execute], [`transactions_per_execute_c${r.concurrency}`, r.transactions_per_execute], [`cpu_ms_per_execute_c${r.concurrency}`, r.cpu_ms_per_execute]]))));
  } finally {
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
