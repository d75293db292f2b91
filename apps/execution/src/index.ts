import type { Authenticator } from '@parley/auth';
import { EventSubscriptionServiceService, ExecutionServiceService, TaskServiceService, bindDeadLetters, bindService, startGrpcServer, type AgentProfileApi, type EventSubscriptionApi, type TaskApi } from '@parley/contracts';
import { createOutboxRelay, serviceEventFlow } from '@parley/events';
import type { EventFlowConfig } from '@parley/runtime';
import { migrate } from '@parley/storage';
import { executionGuards, taskGuards } from './access';
import { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService, type ExecutionService, type ExecutionServiceDeps } from './service';
import { DEFAULT_WEBHOOK_MAX_ATTEMPTS, startTasks, toWebhookPolicy, type RunningTasks, type TaskOptions } from './tasks/index';
import { startEventWebhooks, type RunningEventWebhooks } from './event-subscriptions';

export { EVENT_PATTERNS, SUBSCRIBABLE_EVENTS, createEventSubscriptionApi, eventSubscriptionFeed, queueEvent, startEventWebhooks, type RunningEventWebhooks } from './event-subscriptions';

export { DEFAULT_AUDIT_SAMPLE_RATE, DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_PATCH_CACHE_TTL_MS, createExecutionService } from './service';
export type { ExecutionService, ExecutionServiceDeps } from './service';
export { requestHash, type IdempotencyStore } from './idempotency';
export {
  DEFAULT_WEBHOOK_MAX_ATTEMPTS,
  WebhookAllowError,
  createTaskService,
  createTaskFeed,
  createWebhookDeliverer,
  nonPublicAddress,
  startTasks,
  toWireNotification,
  toWireTask,
  webhookUrlPolicy,
} from './tasks/index';
export type { RunningTasks, TaskDeps, TaskFeed, TaskOptions, TaskService, TaskServiceDeps, WebhookDeliverer, WebhookDelivererOptions, WebhookUrlPolicy } from './tasks/index';

export type ExecutionDeps = Omit<ExecutionServiceDeps, 'onOutboxWrite' | 'cacheSize'> & {
  grpcHost?: string;
  grpcPort: number;
  /** Serve gRPC over TLS (PEM cert/key/ca, e.g. tlsFromEnv); default insecure. */
  grpcTls?: { cert: Buffer | string; key: Buffer | string; ca: Buffer | string } | null;
  /**
   * AN tasks (draft 004 §5.2-5.4): negotiation rounds, chunk limits, live poll, webhook delivery.
   * `tasks.webhooks.allow` is the webhook URL policy (PARLEY_WEBHOOK_ALLOW; absent: https to public
   * hosts only, so development setups that call back to 127.0.0.1 list it), `tasks.webhooks.maxAttempts`
   * the consecutive failures after which a webhook subscription is disabled (default 50).
   */
  tasks?: TaskOptions;
  /** The registry's AgentProfileService: CapabilityRequest answers from it before asking the agent. */
  profiles?: Pick<AgentProfileApi, 'getProfile'>;
  /** Authenticates every gRPC call (draft-zhou §7 authentication; libs/runtime createAuthenticator). */
  authenticator: Authenticator;
  /** Publish tries before the relay sets a row aside (PARLEY_OUTBOX_MAX_ATTEMPTS); retention (PARLEY_OUTBOX_RETENTION_MS, PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS); the relay's poll (PARLEY_OUTBOX_POLL_MS). */
  eventFlow?: Partial<Pick<EventFlowConfig, 'outboxMaxAttempts' | 'outboxRetentionMs' | 'processedRetentionMs' | 'deadLetterRetentionMs' | 'retentionSweepMs' | 'outboxPollMs'>>;
  /** How often expired idempotency keys are deleted (default 1 h). */
  idempotencyPurgeMs?: number;
};

export interface RunningExecution {
  port: number;
  /** ExecutionService, and its idempotency keys. */
  api: ExecutionService;
  /** TaskService (AN tasks), served on the same gRPC server. */
  tasks: TaskApi;
  /** The webhook deliverer and the live-stream feed of AN tasks. */
  taskRuntime: RunningTasks;
  /** Operators' webhooks for schema evolution events (EventSubscriptionService, on the same gRPC server). */
  eventSubscriptions: EventSubscriptionApi;
  eventWebhooks: RunningEventWebhooks;
  /** Publishes every pending outbox event (tests, shutdown). */
  drainOutbox(): Promise<void>;
  stop(): Promise<void>;
}

export async function startExecution(deps: ExecutionDeps): Promise<RunningExecution> {
  // A malformed webhook URL policy fails the start before anything runs.
  const webhookPolicy = toWebhookPolicy(deps.tasks?.webhooks?.allow);
  await migrate(deps.db, 'execution');
  // Dead letters (zhou §6.2 event flow): a row the bus cannot take is set aside, never retried forever ahead of the rest.
  const flow = serviceEventFlow({ db: deps.db, schema: 'execution', subjects: deps.subjects, now: () => deps.clock.now(), logger: deps.log, ...deps.eventFlow, outbox: true, bus: deps.bus, metrics: deps.metrics });
  const relay = createOutboxRelay({
    db: deps.db,
    schema: 'execution',
    bus: deps.bus,
    ...flow.relay,
    // One relay transaction carries the events of the executions committed within 25 ms of the first: under load
    // many, and at c1 several (an execute every few ms), so the relay's pass and the consumers' deliveries it
    // causes are not one per execute. No execute waits for it (it runs after the commit that answered the call);
    // its events reach the stream up to 25 ms later.
    nudgeDelayMs: 25,
    onError: (e: unknown) => {
      deps.metrics?.outboxFailed('execution');
      deps.log.warn('outbox publish failed; will retry', { error: e });
    },
    ...(deps.metrics ? { onPublished: (p: { lagSeconds: number }) => deps.metrics?.outboxPublished('execution', p.lagSeconds) } : {}),
  });
  relay.start();
  const unwatch = deps.metrics?.watchOutbox('execution', deps.db, 'execution');
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
    ...(deps.auditScenarios !== undefined ? { auditScenarios: deps.auditScenarios } : {}),
    ...(deps.random !== undefined ? { random: deps.random } : {}),
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    ...(deps.idempotencyTtlMs !== undefined ? { idempotencyTtlMs: deps.idempotencyTtlMs } : {}),
  });
  // Expired idempotency keys are free already (begin() reuses them); the sweep only keeps the table small.
  const purge = () =>
    void api.idempotency
      .purge(deps.clock.now())
      .then((n) => n > 0 && deps.log.info('expired idempotency keys deleted', { keys: n }))
      .catch((e: unknown) => deps.log.warn('idempotency key sweep failed', { error: e }));
  const purgeTimer = setInterval(purge, deps.idempotencyPurgeMs ?? 3_600_000);
  purgeTimer.unref();
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
    webhooks: { ...deps.tasks?.webhooks, allow: webhookPolicy },
  });
  // Operators' webhooks for patch.*, key.* and pool.matured: the same URL policy and retry bound as task webhooks.
  const { allow: _allow, ...webhookTunables } = deps.tasks?.webhooks ?? {};
  const events = await startEventWebhooks({
    db: deps.db,
    bus: deps.bus,
    subjects: deps.subjects,
    clock: deps.clock,
    log: deps.log.child({ component: 'event-webhooks' }),
    policy: webhookPolicy,
    webhooks: webhookTunables,
  });
  const observe = deps.metrics ? { observe: deps.metrics.grpc } : {};
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort, ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [
      bindService(ExecutionServiceService, api, { authenticator: deps.authenticator, guards: executionGuards, ...observe }),
      bindService(TaskServiceService, tasks.api, { authenticator: deps.authenticator, guards: taskGuards(deps.db), ...observe }),
      bindService(EventSubscriptionServiceService, events.api, { authenticator: deps.authenticator, ...observe }),
      bindDeadLetters('execution', flow.office, deps.authenticator),
    ],
  }).catch(async (e: unknown) => {
    await events.stop();
    await tasks.stop();
    throw e;
  });
  flow.pruner.start();
  deps.log.info('execution serving', {
    grpc_port: server.port,
    timeout_ms: deps.timeoutMs,
    patch_cache_ttl_ms: deps.patchCacheTtlMs ?? DEFAULT_PATCH_CACHE_TTL_MS,
    audit_sample_rate: deps.auditSampleRate ?? DEFAULT_AUDIT_SAMPLE_RATE,
    audit_scenarios: deps.auditScenarios?.length ? deps.auditScenarios : 'none (no payload value is stored)',
    webhook_allow: webhookPolicy.patterns.length > 0 ? webhookPolicy.patterns.join(',') : 'default (https to public hosts)',
    webhook_max_attempts: deps.tasks?.webhooks?.maxAttempts ?? DEFAULT_WEBHOOK_MAX_ATTEMPTS,
    idempotency_ttl_ms: deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS,
  });
  return {
    port: server.port,
    api,
    tasks: tasks.api,
    taskRuntime: tasks,
    eventSubscriptions: events.api,
    eventWebhooks: events,
    drainOutbox: () => relay.drain(),
    async stop() {
      await flow.pruner.stop();
      unwatch?.();
      clearInterval(purgeTimer);
      // Ends the TaskResultSubscribe streams (clients resume with after_seq), then waits for unary calls.
      await server.stop();
      await events.stop();
      await tasks.stop();
      // Publish what completed before the stop; if the bus is down, give up after a
      // moment: the rows stay in the outbox and the next start publishes them.
      await Promise.race([relay.drain().catch(() => {}), new Promise((r) => setTimeout(r, 3000).unref())]);
      await relay.stop().catch(() => {});
    },
  };
}
