// What another transaction's WAL flush costs a lone durable commit: client A commits one row at a time
// (an execute's commit, its gap the rest of a c1 execute's path); after each, client B commits a row of its
// own 0.3 ms later (the relay marking the execute's events published) either synchronously or with
// synchronous_commit = off. The two modes alternate in rounds, so both see the same machine.
// PROBE_ROUNDS (6), PROBE_N (200 commits per round).
import pg from 'pg';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 6);
const N = Number(process.env.PROBE_N ?? 200);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const table = `commit_contention_${process.pid}`;

async function round(a: pg.Client, b: pg.Client, async: boolean): Promise<number[]> {
  const lat: number[] = [];
  let relay: Promise<void> = Promise.resolve();
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await a.query(`INSERT INTO ${table} VALUES ($1)`, [i]);
    lat.push(performance.now() - t0);
    // The relay's pass, after the commit that nudged it, while the next execute is on its way.
    // One relay: a pass starts after the one before it ended (as the relay's loop does).
    relay = relay.then(async () => {
      await sleep(0.3);
      await b.query('BEGIN');
      await b.query(`UPDATE ${table} SET x = x WHERE x = $1`, [i]);
      if (async) await b.query('SET LOCAL synchronous_commit = off');
      await b.query('COMMIT');
    });
    await sleep(2); // the rest of a lone execute: hops to the agent and back
  }
  await relay;
  return lat;
}

const q = (v: number[], p: number) => [...v].sort((x, y) => x - y)[Math.floor(p * v.length)]!;
const a = new pg.Client({ connectionString: DATABASE_URL });
const b = new pg.Client({ connectionString: DATABASE_URL });
await a.connect();
await b.connect();
await a.query(`CREATE TABLE ${table} (x int)`);
try {
  const res: Record<string, number[][]> = { sync: [], async: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of r % 2 === 0 ? ['sync', 'async'] : ['async', 'sync']) res[mode]!.push(await round(a, b, mode === 'async'));
    await sleep(100);
  }
  for (const [mode, rounds] of Object.entries(res)) {
    const p50s = rounds.map((l) => q(l, 0.5).toFixed(2));
    const p90s = rounds.map((l) => q(l, 0.9).toFixed(2));
    console.log(`B ${mode.padEnd(5)}: A's commit p50 per round ${p50s.join(', ')} ms; p90 ${p90s.join(', ')} ms; all p50 ${q(rounds.flat(), 0.5).toFixed(2)} p90 ${q(rounds.flat(), 0.9).toFixed(2)}`);
  }
  console.log(`load average ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  await a.query(`DROP TABLE ${table}`);
  await a.end();
  await b.end();
}
