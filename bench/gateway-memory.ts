// `npm run bench:memory` (`npx tsx bench/gateway-memory.ts`): the gateway's resident memory while one principal
// sends 200 concurrent 1 MB bodies. Runs `npm start` (apps/parley/src/main.ts, every service in one process, so
// RSS is the whole of Parley) as a child process per configuration, waits until it has started and idled for two
// seconds, then opens CONCURRENCY (200) connections at once, each POSTing a body of BODY_BYTES (1,000,000) to
// /rpc with the development key (`list_agents` with one 1 MB string member: the body is read, parsed and refused
// as invalid_params, so the figure is what reading and parsing bodies costs, not an agent's work), and samples
// the child's VmRSS from /proc every 20 ms until every answer is in. Configurations:
//  - unbounded: RATE_LIMIT_PER_SECOND=0 and PARLEY_MAX_INFLIGHT_PER_PRINCIPAL=0 (what the gateway did before its
//    in-flight bound: every body is read at once);
//  - rate limit only: the default rate limit (50/s, burst 100: one token is charged before the body is read),
//    no in-flight bound;
//  - defaults: the rate limit and at most 32 requests of a principal in flight, both before bodies are read.
// Prints a table (baseline RSS, peak RSS, growth, answers by HTTP status, seconds) and a JSON line. Linux only.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { mintApiKey } from '@parley/auth';

const ROOT = join(import.meta.dirname, '..');
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 200);
const BODY_BYTES = Number(process.env.BODY_BYTES ?? 1_000_000);

const CONFIGS: { name: string; env: Record<string, string> }[] = [
  { name: 'unbounded', env: { RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' } },
  { name: 'rate limit only', env: { PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' } },
  { name: 'defaults', env: {} },
];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

interface Row {
  config: string;
  baselineMb: number;
  peakMb: number;
  growthMb: number;
  statuses: Record<string, number>;
  /** Answers by error type (`ok` for a result). */
  types: Record<string, number>;
  seconds: number;
}

async function measure(name: string, env: Record<string, string>): Promise<Row> {
  const port = await freePort();
  const key = mintApiKey().key;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/parley/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: key, LOG_LEVEL: 'error', PARLEY_METRICS: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  try {
    const until = Date.now() + 180_000;
    while (!out.includes('Press Ctrl-C to stop.')) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`npm start did not start:\n${out.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const pid = child.pid as number;
    const baselineMb = rssMb(pid);
    let peakMb = baselineMb;
    const sampler = setInterval(() => {
      try {
        peakMb = Math.max(peakMb, rssMb(pid));
      } catch {
        // the process is gone
      }
    }, 20);
    const filler = 'x'.repeat(BODY_BYTES - 80);
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_agents', params: { x: filler } }));
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const statuses: Record<string, number> = {};
    const types: Record<string, number> = {};
    const started = performance.now();
    await Promise.all(
      Array.from(
        { length: CONCURRENCY },
        () =>
          new Promise<void>((resolve) => {
            const req = request(
              { host: '127.0.0.1', port, path: '/rpc', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': body.length } },
              (res) => {
                statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
                let text = '';
                res.on('data', (c: Buffer) => (text += c.toString('utf8')));
                res.on('end', () => {
                  const type = /"type":"([a-z_]+)"/.exec(text)?.[1] ?? 'ok';
                  types[type] = (types[type] ?? 0) + 1;
                  resolve();
                });
              },
            );
            req.on('error', (e) => {
              statuses[`error ${(e as NodeJS.ErrnoException).code ?? e.message}`] = (statuses[`error ${(e as NodeJS.ErrnoException).code ?? e.message}`] ?? 0) + 1;
              resolve();
            });
            req.end(body);
          }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 200));
    clearInterval(sampler);
    agent.destroy();
    return { config: name, baselineMb, peakMb, growthMb: peakMb - baselineMb, statuses, types, seconds };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const rows: Row[] = [];
// BENCH_CONFIGS=unbounded,defaults runs only those.
const only = process.env.BENCH_CONFIGS?.split(',').map((x) => x.trim());
for (const c of CONFIGS.filter((x) => !only || only.includes(x.name))) {
  const r = await measure(c.name, c.env);
  rows.push(r);
  process.stderr.write(`${c.name}: done\n`);
}
const f = (n: number) => n.toFixed(0).padStart(6);
console.log(`gateway RSS (npm start, one process) under ${CONCURRENCY} concurrent ${(BODY_BYTES / 1e6).toFixed(1)} MB bodies from one principal`);
console.log('| configuration | baseline MB | peak MB | growth MB | answers | seconds |');
console.log('|---|---:|---:|---:|---|---:|');
for (const r of rows) {
  const answers = [...Object.entries(r.statuses).map(([k, v]) => `${v}× HTTP ${k}`), ...Object.entries(r.types).map(([k, v]) => `${v}× ${k}`)].join(', ');
  console.log(`| ${r.config} | ${f(r.baselineMb)} | ${f(r.peakMb)} | ${f(r.growthMb)} | ${answers} | ${r.seconds.toFixed(2)} |`);
}
console.log(JSON.stringify({ concurrency: CONCURRENCY, body_bytes: BODY_BYTES, rows }));
