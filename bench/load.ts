// Shared by the benchmark scripts: a closed-loop load generator and latency quantiles.

/** Seconds per load measurement (BENCH_SECONDS, default 5). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export interface LoadResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
}

/** p50, p99 and max of a list of milliseconds, rounded to 0.01 ms. */
export function quantiles(values: number[]): { p50: number; p99: number; max: number } {
  const v = [...values].sort((a, b) => a - b);
  const q = (p: number) => Number((v[Math.min(v.length - 1, Math.floor(p * v.length))] ?? 0).toFixed(2));
  return { p50: q(0.5), p99: q(0.99), max: Number((v.at(-1) ?? 0).toFixed(2)) };
}

/**
 * `concurrency` callers run `once` back to back for one second of warm-up and
 * SECONDS of measurement; a call that resolves false or throws is an error.
 */
export async function load(concurrency: number, once: () => Promise<boolean>): Promise<LoadResult> {
  const warmUntil = performance.now() + 1000;
  const endAt = warmUntil + SECONDS * 1000;
  const lat: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < endAt) {
        const t0 = performance.now();
        const ok = await once().catch(() => false);
        const t1 = performance.now();
        if (t0 >= warmUntil) {
          if (ok) lat.push(t1 - t0);
          else errors++;
        }
      }
    }),
  );
  const q = quantiles(lat);
  return { rps: Math.round(lat.length / SECONDS), p50_ms: q.p50, p99_ms: q.p99, errors };
}
