import type { Logger } from './logger';

export interface Running {
  stop(): Promise<void>;
}

/**
 * Runs a service until SIGTERM/SIGINT, then stops it gracefully: readiness
 * turns false first (so Kubernetes stops routing), in-flight work drains, and
 * the process exits. A second signal or the grace timeout forces the exit.
 */
export function runUntilSignal(name: string, log: Logger, start: () => Promise<Running>, graceMs = 15_000): void {
  let running: Running | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      log.warn('second signal, exiting now', { signal });
      process.exit(1);
    }
    stopping = true;
    log.info('shutting down', { service: name, signal });
    const force = setTimeout(() => {
      log.error('graceful shutdown timed out', { service: name, grace_ms: graceMs });
      process.exit(1);
    }, graceMs);
    force.unref();
    void (running?.stop() ?? Promise.resolve()).then(
      () => {
        clearTimeout(force);
        log.info('stopped', { service: name });
        process.exit(0);
      },
      (e: unknown) => {
        log.error('error during shutdown', { service: name, error: e });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  start().then(
    (r) => {
      running = r;
      if (stopping) void r.stop();
    },
    (e: unknown) => {
      log.error('failed to start', { service: name, error: e, detail: e instanceof Error ? e.message : String(e) });
      process.exit(1);
    },
  );
}
