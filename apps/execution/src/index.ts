import { ExecutionServiceService, bindService, startGrpcServer, type ExecutionApi } from '@parley/contracts';
import { createOutboxRelay } from '@parley/events';
import { migrate } from '@parley/storage';
import { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService, type ExecutionServiceDeps } from './service';

export { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService } from './service';
export type { ExecutionServiceDeps } from './service';

export type ExecutionDeps = Omit<ExecutionServiceDeps, 'onOutboxWrite' | 'cacheSize'> & {
  grpcHost?: string;
  grpcPort: number;
};

export interface RunningExecution {
  port: number;
  api: ExecutionApi;
  /** Publishes every pending outbox event (tests, shutdown). */
  drainOutbox(): Promise<void>;
  stop(): Promise<void>;
}

export async function startExecution(deps: ExecutionDeps): Promise<RunningExecution> {
  await migrate(deps.db, 'execution');
  const relay = createOutboxRelay({
    db: deps.db,
    schema: 'execution',
    bus: deps.bus,
    // Under load one relay transaction then carries the events of many executions.
    nudgeDelayMs: 5,
    onError: (e: unknown) => deps.log.warn('outbox publish failed; will retry', { error: e }),
  });
  relay.start();
  const api = createExecutionService({
    db: deps.db,
    bus: deps.bus,
    subjects: deps.subjects,
    negotiation: deps.negotiation,
    clock: deps.clock,
    log: deps.log,
    timeoutMs: deps.timeoutMs,
    onOutboxWrite: () => relay.nudge(),
    ...(deps.patchCacheTtlMs !== undefined ? { patchCacheTtlMs: deps.patchCacheTtlMs } : {}),
    ...(deps.resolutionCacheSize !== undefined ? { resolutionCacheSize: deps.resolutionCacheSize } : {}),
    ...(deps.auditSampleRate !== undefined ? { auditSampleRate: deps.auditSampleRate } : {}),
    ...(deps.random !== undefined ? { random: deps.random } : {}),
  });
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort,
    services: [bindService(ExecutionServiceService, api)],
  });
  deps.log.info('execution serving', {
    grpc_port: server.port,
    timeout_ms: deps.timeoutMs,
    patch_cache_ttl_ms: deps.patchCacheTtlMs ?? DEFAULT_PATCH_CACHE_TTL_MS,
    audit_sample_rate: deps.auditSampleRate ?? DEFAULT_AUDIT_SAMPLE_RATE,
  });
  return {
    port: server.port,
    api,
    drainOutbox: () => relay.drain(),
    async stop() {
      await server.stop();
      // Publish what completed before the stop; if the bus is down, give up after a
      // moment: the rows stay in the outbox and the next start publishes them.
      await Promise.race([relay.drain().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      await relay.stop().catch(() => {});
    },
  };
}
