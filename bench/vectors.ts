// `npx tsx bench/vectors.ts`: the embedded vector index, measured.
// draft-zhou §6.2.1's semantic pool searches one scenario's `other` fragments (or
// cluster centroids) for neighbours above a cosine threshold. The embedded index
// does that by an exact scan over a flat Float32Array; this prints what a search
// costs at 10k and 100k points, at 384 dimensions (a MiniLM-class sentence
// transformer, the draft's example) and 2048 (the offline WordNet embedder's
// default): median and p95 of a top-10 search, of one filtered to a third of the
// points (one cohort), and of one with minScore 0.85; plus upsert throughput and
// the bytes the vectors occupy. Random unit vectors, seeded. No services needed.
// Set VECTORS_BENCH_QUICK=1 for 10k only. The last line is one JSON object with the figures.
import { randomUUID } from 'node:crypto';
import { createEmbeddedIndex, type VectorPoint } from '@parley/vectors';
import { seededRandom as prng } from '@parley/testkit';

const log = (s = ''): void => void process.stdout.write(`${s}\n`);
const r2 = (x: number): number => Math.round(x * 100) / 100;


function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function timeQueries(n: number, f: (i: number) => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 3; i++) await f(i); // warm-up: let the JIT compile the scan
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median: r2(quantile(ms, 0.5)), p95: r2(quantile(ms, 0.95)) };
}

interface Row {
  points: number;
  dimensions: number;
  vector_mb: number;
  upsert_points_per_s: number;
  search_ms: { median: number; p95: number };
  filtered_ms: { median: number; p95: number };
  threshold_ms: { median: number; p95: number };
}

async function run(points: number, dimensions: number): Promise<Row> {
  const rand = prng(points ^ dimensions);
  const vec = (): Float32Array => Float32Array.from({ length: dimensions }, () => rand() * 2 - 1);
  const index = createEmbeddedIndex();
  await index.ensureCollection('bench', dimensions);
  const cohorts = ['acme', 'globex', 'initech'];
  let upsertMs = 0;
  const batch = 1000;
  for (let i = 0; i < points; i += batch) {
    const chunk: VectorPoint[] = [];
    for (let j = i; j < Math.min(points, i + batch); j++) chunk.push({ id: randomUUID(), vector: vec(), payload: { cohort: cohorts[j % 3] as string, client_id: `c${j % 50}` } });
    const t = performance.now();
    await index.upsert('bench', chunk);
    upsertMs += performance.now() - t;
  }
  const queries = Array.from({ length: 8 }, vec);
  const n = points * dimensions >= 50_000_000 ? 15 : 40;
  const q = (i: number): Float32Array => queries[i % queries.length] as Float32Array;
  const search_ms = await timeQueries(n, (i) => index.search('bench', q(i), { limit: 10 }));
  const filtered_ms = await timeQueries(n, (i) => index.search('bench', q(i), { limit: 10, filter: { must: [{ key: 'cohort', match: 'globex' }] } }));
  const threshold_ms = await timeQueries(n, (i) => index.search('bench', q(i), { limit: 10, minScore: 0.85 }));
  await index.close();
  return {
    points,
    dimensions,
    vector_mb: r2((points * dimensions * 4) / 2 ** 20),
    upsert_points_per_s: Math.round(points / (upsertMs / 1000)),
    search_ms,
    filtered_ms,
    threshold_ms,
  };
}

const sizes = process.env['VECTORS_BENCH_QUICK'] ? [10_000] : [10_000, 100_000];
const rows: Row[] = [];
log(`embedded vector index, exact cosine scan; node ${process.version}`);
log('points  dims  vectors MB  upsert pts/s  top-10 ms (median/p95)  cohort-filtered ms  minScore 0.85 ms');
for (const points of sizes) {
  for (const dimensions of [384, 2048]) {
    const r = await run(points, dimensions);
    rows.push(r);
    const f = (m: { median: number; p95: number }): string => `${m.median}/${m.p95}`.padEnd(20);
    log(
      `${String(points).padStart(6)}  ${String(dimensions).padStart(4)}  ${String(r.vector_mb).padStart(10)}  ${String(r.upsert_points_per_s).padStart(12)}  ${f(r.search_ms)}    ${f(r.filtered_ms)}${f(r.threshold_ms)}`,
    );
  }
}
const perMillion = rows.map((r) => (r.search_ms.median / (r.points * r.dimensions)) * 1e6);
log(`scan cost: ${r2(Math.min(...perMillion))}–${r2(Math.max(...perMillion))} ms per million multiply-adds (points × dimensions)`);
log(JSON.stringify({ bench: 'vectors', node: process.version, rows }));
