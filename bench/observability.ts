// `npm run bench:observability` (`npx tsx bench/observability.ts`): what Prometheus metrics and OpenTelemetry
// tracing cost on `execute`, as ratios from one run on this machine. The execute of bench/run.ts (Figure 8 over
// keep-alive HTTP through the gateway, gRPC to execution, NATS request/reply to the example agent, the outbox and
// its consumers), at concurrency 1 and 64, against embedded Parleys (apps/parley startParley: every service and
// the load generator in this one process, still over gRPC on loopback). Three configurations:
//  - off: a Parley without metrics (as PARLEY_METRICS=off) and no tracing SDK (the @opentelemetry/api calls
//    are no-ops);
//  - metrics: a second Parley recording its metrics on every request, /metrics scraped every SCRAPE_MS
//    (default 5 s, a busy Prometheus) during the load, so the scrape-time SQL and consumer reads count;
//  - metrics + tracing: that Parley with the tracing SDK installed for the measurement, every span sampled
//    (AlwaysOn), through a BatchSpanProcessor (as production) into an in-memory exporter (export cost without a
//    network).
// Both Parleys run side by side on fresh PostgreSQL databases and NATS subject prefixes (one pair per
// concurrency), and the three configurations are measured in ROUNDS rounds (default 3), the order rotated each
// round, so a machine whose load drifts during the run hits each of them alike; each figure is the median of its
// rounds and every ratio is against the median of `off`. Beside rps, p50 and p99 each measurement shows this
// process's CPU time per call (all of Parley but PostgreSQL and NATS). The payload is Figure 8's without `other`
// (as bench/trust.ts: in one process the semantic pool would embed every fragment on the request path's event
// loop). DATABASE_URL / NATS_URL (default the local ones); OBS_BENCH_INFRA=memory uses PGlite and the in-process
// bus; BENCH_SECONDS (5) per measurement. The last line is one JSON object with the figures.
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

const ROUNDS = Number(process.env.ROUNDS ?? 3);
type Config = 'off' | 'metrics' | 'tracing';
const CONFIGS: Config[] = ['off', 'metrics', 'tracing'];
const LABEL: Record<Config, string> = {
  off: 'off (no metrics, no tracing SDK)',
  metrics: `metrics (scraped every ${SCRAPE_MS / 1000} s)`,
  tracing: 'metrics + tracing (in-memory exporter)',
};

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

async function instance(withMetrics: boolean, cleanup: Array<() => Promise<void>>): Promise<EmbeddedParley> {
  const db = MEMORY ? undefined : await createTestDatabase(DATABASE_URL);
  if (db) cleanup.push(db.drop);
  const parley = await startParley({
    port: 0,
    log: createLogger({ level: 'error' }),
    prefix: uniquePrefix(),
    ...(db ? { databaseUrl: db.url, natsUrl: NATS_URL } : {}),
    evolution: { tickMs: 0, heatSampleMs: 0 },
    rateLimit: null,
    metrics: withMetrics ? createMetrics() : null,
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

interface Measured extends LoadResult {
  cpu_ms: number;
  spans_per_call?: number;
  scrape_ms?: number;
}

const median = (xs: number[]): number => {
  const v = [...xs].sort((x, y) => x - y);
  const m = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  return Number(m.toFixed(2));
};

/** One measurement of one configuration on its Parley. */
async function measure(config: Config, p: EmbeddedParley, c: number, agent: HttpAgent): Promise<Measured> {
  let tracing: Tracing | undefined;
  const exporter = new InMemorySpanExporter();
  let scraper: ReturnType<typeof setInterval> | undefined;
  const scrapes: number[] = [];
  try {
    if (config === 'tracing') tracing = installTracing({ processors: [new BatchSpanProcessor({ exporter })], serviceName: 'parley-bench', sampler: new AlwaysOnSampler(), description: 'in-memory' });
    const once = httpExecute(p.url, p.devKey, agent);
    await settle();
    if (config !== 'off') {
      scraper = setInterval(() => {
        const t0 = performance.now();
        void fetch(`${p.url}/metrics`)
          .then((r) => r.text())
          .then(() => scrapes.push(performance.now() - t0))
          .catch(() => {});
      }, SCRAPE_MS);
    }
    let calls = 0;
    const cpu0 = process.cpuUsage();
    const res = await load(c, () => (calls++, once()));
    const cpu = process.cpuUsage(cpu0);
    await tracing?.forceFlush();
    return {
      ...res,
      cpu_ms: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(2)),
      ...(tracing ? { spans_per_call: Number((exporter.getFinishedSpans().length / calls).toFixed(1)) } : {}),
      ...(scrapes.length ? { scrape_ms: Number((scrapes.reduce((x, y) => x + y, 0) / scrapes.length).toFixed(1)) } : {}),
    };
  } finally {
    if (scraper) clearInterval(scraper);
    await tracing?.shutdown();
    exporter.reset();
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const load0 = loadavg().map((x) => x.toFixed(1)).join(' ');
  log(`Parley observability overhead — node ${process.version}, ${SECONDS}s per measurement, ${ROUNDS} rounds, ${MEMORY ? 'PGlite + in-process bus' : 'PostgreSQL + NATS JetStream'}, ${cpus().length} cores, load average ${load0}`);
  const cleanup: Array<() => Promise<void>> = [];
  const figures: Record<string, number> = {};
  let errors = 0;
  try {
    for (const c of CONCURRENCY) {
      const plain = await instance(false, cleanup);
      const observed = await instance(true, cleanup);
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
      const rounds: Record<Config, Measured[]> = { off: [], metrics: [], tracing: [] };
      try {
        for (const p of [plain, observed]) {
          const once = httpExecute(p.url, p.devKey, agent);
          let ok = false;
          for (let i = 0; i < 50 && !ok; i++) {
            ok = await once().catch(() => false);
            if (!ok) await new Promise((res) => setTimeout(res, 200));
          }
          if (!ok) throw new Error('an instance does not execute');
        }
        log(`\n  c${c}: ${'round'.padEnd(6)} ${'configuration'.padEnd(42)} ${'rps'.padStart(6)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'cpu ms/call'.padStart(12)}`);
        for (let r = 0; r < ROUNDS; r++) {
          const order = CONFIGS.map((_, i) => CONFIGS[(i + r) % CONFIGS.length]!);
          for (const config of order) {
            const m = await measure(config, config === 'off' ? plain : observed, c, agent);
            rounds[config].push(m);
            errors += m.errors;
            log(`       ${String(r + 1).padEnd(6)} ${LABEL[config].padEnd(42)} ${String(m.rps).padStart(6)} ${m.p50_ms.toFixed(2).padStart(8)} ${m.p99_ms.toFixed(2).padStart(8)} ${m.cpu_ms.toFixed(2).padStart(12)}`);
          }
        }
      } finally {
        agent.destroy();
        await observed.stop();
        await plain.stop();
      }
      const med = (config: Config, k: 'rps' | 'p50_ms' | 'p99_ms' | 'cpu_ms') => median(rounds[config].map((m) => m[k]));
      log(`  c${c} medians:`);
      for (const config of CONFIGS) {
        const rps = med(config, 'rps');
        const cpu = med(config, 'cpu_ms');
        const ratio = rps / med('off', 'rps');
        const cpuRatio = cpu / med('off', 'cpu_ms');
        log(`       ${LABEL[config].padEnd(42)} ${String(rps).padStart(6)} rps ${ratio.toFixed(2)}x   p50 ${med(config, 'p50_ms').toFixed(2)} ms   p99 ${med(config, 'p99_ms').toFixed(2)} ms   cpu ${cpu.toFixed(2)} ms/call ${cpuRatio.toFixed(2)}x`);
        figures[`${config}_c${c}_rps`] = rps;
        figures[`${config}_c${c}_p50_ms`] = med(config, 'p50_ms');
        figures[`${config}_c${c}_p99_ms`] = med(config, 'p99_ms');
        figures[`${config}_c${c}_cpu_ms`] = cpu;
        figures[`${config}_c${c}_rps_ratio`] = Number(ratio.toFixed(3));
        figures[`${config}_c${c}_cpu_ratio`] = Number(cpuRatio.toFixed(3));
      }
      const offRps = rounds.off.map((m) => m.rps);
      figures[`off_c${c}_rps_spread`] = Number(((Math.max(...offRps) - Math.min(...offRps)) / med('off', 'rps')).toFixed(3));
      figures[`spans_per_call_c${c}`] = median(rounds.tracing.map((m) => m.spans_per_call ?? 0));
      figures[`scrape_ms_c${c}`] = median(rounds.metrics.map((m) => m.scrape_ms ?? 0));
      log(`       off varied by ${(figures[`off_c${c}_rps_spread`]! * 100).toFixed(0)}% of its median across rounds (the noise floor); ${figures[`spans_per_call_c${c}`]} spans per execute; ${figures[`scrape_ms_c${c}`]} ms per /metrics scrape under load`);
    }
    log(`  total ${Math.round((performance.now() - started) / 1000)} s; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end, ${load0} at the start`);
    figures.errors = errors;
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
