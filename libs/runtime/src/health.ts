import { createServer, type Server } from 'node:http';
import type { Metrics } from './metrics';

/**
 * Liveness and readiness over HTTP for Kubernetes probes:
 *   GET /healthz  200 while the process runs (503 once shutdown begins)
 *   GET /readyz   200 when every readiness check passes, else 503 with the failing names
 *   GET /metrics  Prometheus exposition of the process's metrics (libs/runtime metrics.ts), when given
 */
export type ReadinessCheck = () => Promise<boolean>;

export interface HealthState {
  checks: Record<string, ReadinessCheck>;
  shuttingDown: boolean;
}

export async function probe(state: HealthState): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
  const results: Record<string, boolean> = {};
  await Promise.all(
    Object.entries(state.checks).map(async ([name, check]) => {
      results[name] = await Promise.race([
        check().catch(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref()),
      ]);
    }),
  );
  return { ready: !state.shuttingDown && Object.values(results).every(Boolean), checks: results };
}

/** Handles /healthz and /readyz on an existing request; returns false for other paths. */
export async function handleHealth(state: HealthState, url: string, res: import('node:http').ServerResponse): Promise<boolean> {
  if (url === '/healthz') {
    res.writeHead(state.shuttingDown ? 503 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: state.shuttingDown ? 'shutting_down' : 'ok' }));
    return true;
  }
  if (url === '/readyz') {
    const p = await probe(state);
    res.writeHead(p.ready ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: p.ready ? 'ready' : 'not_ready', checks: p.checks }));
    return true;
  }
  return false;
}

/** Answers GET /metrics with the exposition text (reading the scrape-time sources first). */
export async function handleMetrics(metrics: Metrics, res: import('node:http').ServerResponse): Promise<void> {
  try {
    const text = await metrics.scrape();
    res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
    res.end(text);
  } catch {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('metrics unavailable\n');
  }
}

export async function startHealthServer(
  state: HealthState,
  port: number,
  host = '0.0.0.0',
  opts: { metrics?: Metrics } = {},
): Promise<{ port: number; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (opts.metrics && path === '/metrics' && req.method === 'GET') {
      void handleMetrics(opts.metrics, res);
      return;
    }
    void handleHealth(state, path, res).then((handled) => {
      if (!handled) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
