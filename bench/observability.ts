// `npm run bench:observability` (`npx tsx bench/observability.ts`): what Prometheus metrics and OpenTelemetry
// tracing cost on `execute`, from one run on this machine. The execute of bench/run.ts (Figure 8 over keep-alive
// HTTP through the gateway, gRPC to execution, NATS request/reply to the example agent, the outbox and its
// consumers), at concurrency 1 and 64, against embedded Parleys (apps/parley startParley: every service and the
// load generator in this one process, still over gRPC on loopback), one row after another:
//  1. off: no metrics (PARLEY_METRICS=off) and no tracing SDK (the @opentelemetry/api calls are no-ops);
//  2. metrics: Parley's metrics recorded on every request, and /metrics scraped every SCRAPE_MS (default 5 s,
//     a busy Prometheus) during the load, so the scrape-time SQL and consumer reads are in the figure;
//  3. metrics + tracing: as 2, with the tracing SDK on, every span sampled (AlwaysOn), through a
//     BatchSpanProcessor (as production) into an in-memory exporter (export cost without a network);
//  4. off again: the first row repeated, so a machine that drifts during the run shows; every ratio is against
//     the mean of rows 1 and 4.
// Each row gets a Parley of its own on a fresh PostgreSQL database and NATS subject prefix, stopped after it
// (no row inherits another's asynchronous tail). Beside rps, p50 and p99, each row shows this process's CPU
// time per call (all of Parley but PostgreSQL and NATS), less sensitive than rps to whatever else the machine
// runs. The payload is Figure 8's without `other` (as bench/trust.ts: in one process the semantic pool would
// embed every fragment on the request path's event loop). DATABASE_URL / NATS_URL (default the local ones);
// OBS_BENCH_INFRA=memory uses PGlite and the in-process bus; BENCH_SECONDS (5) per measurement. The last line
// is one JSON object with the figures.
import { Agent as HttpAgent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { AlwaysOnSampler, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { createLogger, createMetrics, installTracing, type Tracing } from '@parley/runtime';
import { FIGURE_8, createTestDatabase, uniquePrefix } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../apps/parley/src/embedded';
import { SECONDS, load, type LoadResult } from './load';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const MEMORY = process.env.OBS_BENCH_INFRA === 'memory';
const SCRAPE_MS = Number(process.env.SCRAPE_MS ?? 5000);
const CONCURRENCY = [1, 64] as const;
const log = (s: string) => process.stdout.write(s + '\n');
const { other: _other, ...PAYLOAD } = FIGURE_8.payload;

interface Row {
  id: 'off' | 'metrics' | 'tracing' | 'off_again';
  label: string;
  metrics: boolean;
  tracing: boolean;
}
const ROWS: Row[] = [
  { id: 'off', label: 'off (no metrics, no tracing SDK)', metrics: false, tracing: false },
  { id: 'metrics', label: `metrics (scraped every ${SCRAPE_MS / 1000} s)`, metrics: true, tracing: false },
  { id: 'tracing', label: 'metrics + tracing (in-memory exporter)', metrics: true, tracing: true },
  { id: 'off_again', label: 'off again', metrics: false, tracing: false },
];

async function settle(): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < 5000) {
    const a = performance.eventLoopUtilization();
    await new Promise((r) => setTimeout(r, 250));
    if (performance.eventLoopUtilization(a).utilization < 0.05) return;
  }
}

async function deleteStream(stream: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL, name: 'bench-observability-cleanup' });
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
}

async function instance(row: Row, cleanup: Array<() => Promise<void>>): Promise<EmbeddedParley> {
  const db = MEMORY ? undefined : await createTestDatabase(DATABASE_URL);
  if (db) cleanup.push(db.drop);
  const parley = await startParley({
    port: 0,
    log: createLogger({ level: 'error' }),
    prefix: uniquePrefix(),
    ...(db ? { databaseUrl: db.url, natsUrl: NATS_URL } : {}),
    evolution: { tickMs: 0, heatSampleMs: 0 },
    rateLimit: null,
    metrics: row.metrics ? createMetrics() : null,
  });
  if (!MEMORY) cleanup.push(() => deleteStream(parley.subjects.stream));
  return parley;
}

function httpExecute(url: string, key: string, agent: HttpAgent): () => Promise<boolean> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: FIGURE_8.schema_id, client_id: 'bench', payload: PAYLOAD } });
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${key}` };
  return () =>
    new Promise<boolean>((resolve, reject) => {
      const req = request(`${url}/rpc`, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).includes('"error"')));
      });
      req.on('error', reject);
      req.end(body);
    });
}

async function main(): Promise<void> {
  const started = performance.now();
  const load0 = loadavg().map((x) => x.toFixed(1)).join(' ');
  log(`Parley observability overhead — node ${process.version}, ${SECONDS}s per measurement, ${MEMORY ? 'PGlite + in-process bus' : 'PostgreSQL + NATS JetStream'}, ${cpus().length} cores, load average ${load0}`);
  const results: Record<string, LoadResult & { cpu_ms: number; spans_per_call?: number; scrape_ms?: number; scrape_bytes?: number }> = {};
  const cleanup: Array<() => Promise<void>> = [];
  try {
    log(`\n  ${'row'.padEnd(42)} ${'c'.padStart(3)} ${'rps'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'ratio'.padStart(8)} ${'cpu ms/call'.padStart(12)} ${'cpu rat.'.padStart(8)} ${'errors'.padStart(6)}`);
    const ratio = (k: string, c: number) => results[k]!.rps / ((results[`off_c${c}`]!.rps + results[`off_again_c${c}`]!.rps) / 2);
    const cpuRatio = (k: string, c: number) => results[k]!.cpu_ms / ((results[`off_c${c}`]!.cpu_ms + results[`off_again_c${c}`]!.cpu_ms) / 2);
    for (const c of CONCURRENCY) {
      for (const row of ROWS) {
        let tracing: Tracing | undefined;
        const exporter = new InMemorySpanExporter();
        if (row.tracing) tracing = installTracing({ processors: [new BatchSpanProcessor({ exporter })], serviceName: 'parley-bench', sampler: new AlwaysOnSampler(), description: 'in-memory' });
        const p = await instance(row, cleanup);
        const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
        let scraper: ReturnType<typeof setInterval> | undefined;
        const scrapes: { ms: number; bytes: number }[] = [];
        try {
          const once = httpExecute(p.url, p.devKey, agent);
          let ok = false;
          for (let i = 0; i < 50 && !ok; i++) {
            ok = await once().catch(() => false);
            if (!ok) await new Promise((res) => setTimeout(res, 200));
          }
          if (!ok) throw new Error(`row "${row.label}" does not execute`);
          await settle();
          exporter.reset();
          if (row.metrics) {
            scraper = setInterval(() => {
              const t0 = performance.now();
              void fetch(`${p.url}/metrics`)
                .then((r) => r.text())
                .then((t) => scrapes.push({ ms: performance.now() - t0, bytes: Buffer.byteLength(t) }))
                .catch(() => {});
            }, SCRAPE_MS);
          }
          let calls = 0;
          const cpu0 = process.cpuUsage();
          const res = await load(c, () => (calls++, once()));
          const cpu = process.cpuUsage(cpu0);
          if (scraper) clearInterval(scraper);
          await tracing?.forceFlush();
          results[`${row.id}_c${c}`] = {
            ...res,
            cpu_ms: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(2)),
            ...(row.tracing ? { spans_per_call: Number((exporter.getFinishedSpans().length / calls).toFixed(1)) } : {}),
            ...(scrapes.length ? { scrape_ms: Number((scrapes.reduce((s, x) => s + x.ms, 0) / scrapes.length).toFixed(1)), scrape_bytes: scrapes.at(-1)!.bytes } : {}),
          };
        } finally {
          if (scraper) clearInterval(scraper);
          agent.destroy();
          await p.stop();
          await tracing?.shutdown();
          exporter.reset();
        }
      }
      for (const row of ROWS) {
        const k = `${row.id}_c${c}`;
        const r = results[k]!;
        log(
          `  ${row.label.padEnd(42)} ${String(c).padStart(3)} ${String(r.rps).padStart(6)} ${r.p50_ms.toFixed(2).padStart(8)} ${r.p99_ms.toFixed(2).padStart(8)} ${ratio(k, c).toFixed(2).padStart(8)} ${r.cpu_ms.toFixed(2).padStart(12)} ${cpuRatio(k, c).toFixed(2).padStart(8)} ${String(r.errors).padStart(6)}`,
        );
      }
      const t = results[`tracing_c${c}`]!;
      const m = results[`metrics_c${c}`]!;
      log(`  c${c}: ${t.spans_per_call ?? 0} spans per execute (every span sampled); /metrics ${m.scrape_bytes ?? 0} bytes, ${m.scrape_ms ?? 0} ms per scrape under load`);
    }
    log(`  total ${Math.round((performance.now() - started) / 1000)} s; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end, ${load0} at the start`);
    const figures: Record<string, number> = {};
    for (const c of CONCURRENCY) {
      for (const row of ROWS) {
        const k = `${row.id}_c${c}`;
        const v = results[k]!;
        figures[`${k}_rps`] = v.rps;
        figures[`${k}_p50_ms`] = v.p50_ms;
        figures[`${k}_p99_ms`] = v.p99_ms;
        figures[`${k}_ratio`] = Number(ratio(k, c).toFixed(3));
        figures[`${k}_cpu_ms`] = v.cpu_ms;
        figures[`${k}_cpu_ratio`] = Number(cpuRatio(k, c).toFixed(3));
      }
      figures[`spans_per_call_c${c}`] = results[`tracing_c${c}`]!.spans_per_call ?? 0;
      figures[`scrape_ms_c${c}`] = results[`metrics_c${c}`]!.scrape_ms ?? 0;
    }
    figures.errors = Object.values(results).reduce((sum, r) => sum + r.errors, 0);
    log(JSON.stringify(figures));
  } finally {
    for (const step of cleanup) await step().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
