import { ExecutionServiceService, TaskServiceService, bindService, startGrpcServer, type AgentProfileApi, type ExecutionApi, type TaskApi } from '@parley/contracts';
import { createOutboxRelay } from '@parley/events';
import { migrate } from '@parley/storage';
import { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService, type ExecutionServiceDeps } from './service';
import { startTasks, type RunningTasks, type TaskOptions } from './tasks/index';

export { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService } from './service';
export type { ExecutionServiceDeps } from './service';
export { createTaskService, createTaskFeed, createWebhookDeliverer, startTasks, toWireNotification, toWireTask } from './tasks/index';
export type { RunningTasks, TaskDeps, TaskFeed, TaskOptions, TaskService, TaskServiceDeps, WebhookDeliverer, WebhookDelivererOptions } from './tasks/index';

export type ExecutionDeps = Omit<ExecutionServiceDeps, 'onOutboxWrite' | 'cacheSize'> & {
  grpcHost?: string;
  grpcPort: number;
  /** Serve gRPC over TLS (PEM cert/key/ca, e.g. tlsFromEnv); default insecure. */
  grpcTls?: { cert: Buffer | string; key: Buffer | string; ca: Buffer | string } | null;
  /** AN tasks (draft 004 §5.2-5.4): negotiation rounds, chunk limits, live poll, webhook delivery. */
  tasks?: TaskOptions;
  /** The registry's AgentProfileService: CapabilityRequest answers from it before asking the agent. */
  profiles?: Pick<AgentProfileApi, 'getProfile'>;
};

export interface RunningExecution {
  port: number;
  api: ExecutionApi;
  /** TaskService (AN tasks), served on the same gRPC server. */
  tasks: TaskApi;
  /** The webhook deliverer and the live-stream feed of AN tasks. */
  taskRuntime: RunningTasks;
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
  const tasks = await startTasks({
    db: deps.db,
    bus: deps.bus,
    subjects: deps.subjects,
    negotiation: deps.negotiation,
    clock: deps.clock,
    log: deps.log.child({ component: 'tasks' }),
    timeoutMs: deps.timeoutMs,
    onOutboxWrite: () => relay.nudge(),
    ...(deps.profiles ? { profiles: deps.profiles } : {}),
    ...deps.tasks,
  });
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort, ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [bindService(ExecutionServiceService, api), bindService(TaskServiceService, tasks.api)],
  }).catch(async (e: unknown) => {
    await tasks.stop();
    throw e;
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
    tasks: tasks.api,
    taskRuntime: tasks,
    drainOutbox: () => relay.drain(),
    async stop() {
      // Ends the TaskResultSubscribe streams (clients resume with after_seq), then waits for unary calls.
      await server.stop();
      await tasks.stop();
      // Publish what completed before the stop; if the bus is down, give up after a
      // moment: the rows stay in the outbox and the next start publishes them.
      await Promise.race([relay.drain().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      await relay.stop().catch(() => {});
    },
  };
}
