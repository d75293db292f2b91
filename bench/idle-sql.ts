// What `npm start` (PGlite, in-process bus) runs with no calls: statements per second by shape, after start-up settles.
import { createLogger } from '@parley/runtime';
import { resetSqlCounts, sqlCounts } from '@parley/storage';
import { startParley } from '../apps/parley/src/embedded';

// Databases opened from here on count their statements (read when startParley opens PGlite).
process.env['PARLEY_COUNT_SQL'] = '1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p = await startParley({ port: 0, rateLimit: null, log: createLogger({ level: 'error' }), metrics: null });
await sleep(Number(process.env.SETTLE_MS ?? 8000));
resetSqlCounts();
const c0 = process.cpuUsage();
const t0 = Date.now();
await sleep(Number(process.env.IDLE_MS ?? 10000));
const sec = (Date.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
const c = sqlCounts();
console.log(`idle: ${(c.statements / sec).toFixed(2)} statements/s, ${(c.transactions / sec).toFixed(2)} transactions/s, ${((cpu.user + cpu.system) / 1000 / sec).toFixed(1)} ms CPU/s`);
for (const [shape, n] of [...c.byShape].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / sec).toFixed(2).padStart(6)}/s  ${shape.slice(0, 160)}`);
await p.stop();
process.exit(0);
