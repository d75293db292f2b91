import type { AgentProfileApi, NegotiationApi, TaskApi } from '@parley/contracts';
import type { Bus, Stoppable, Subjects } from '@parley/events';
import type { ChunkAssemblerOptions } from '@parley/an';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { createTaskFeed, type TaskFeed } from './live';
import { createTaskService } from './service';
import { createWebhookDeliverer, toWebhookPolicy, type WebhookDeliverer, type WebhookDelivererOptions } from './webhooks';

export { createTaskService, toWireNotification, toWireTask, type TaskService, type TaskServiceDeps } from './service';
export { createTaskFeed, type TaskFeed } from './live';
export { DEFAULT_WEBHOOK_MAX_ATTEMPTS, createWebhookDeliverer, toWebhookPolicy, type WebhookDeliverer, type WebhookDelivererOptions } from './webhooks';
export { WebhookAllowError, nonPublicAddress, webhookUrlPolicy, type WebhookUrlPolicy } from './webhook-allow';

/** Tunables of AN tasks (all optional). */
export interface TaskOptions {
  /** Rounds a negotiation may take (default 5). */
  maxNegotiationRounds?: number;
  /** Limits of chunked data params. */
  chunks?: ChunkAssemblerOptions;
  /** Poll period of live TaskResultSubscribe streams, the fallback of the change signal (default 1000 ms). */
  livePollMs?: number;
  /**
   * Webhooks: the URL policy (`allow`, PARLEY_WEBHOOK_ALLOW; checked at
   * registration and before delivery), the retry bound (`maxAttempts`,
   * PARLEY_WEBHOOK_MAX_ATTEMPTS), poll period, backoff, lease, request timeout.
   */
  webhooks?: Omit<WebhookDelivererOptions, 'db' | 'clock' | 'log'>;
}

export interface TaskDeps extends TaskOptions {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  timeoutMs: number;
  /** Nudges the outbox relay after a commit that wrote task.status events. */
  onOutboxWrite: () => void;
  profiles?: Pick<AgentProfileApi, 'getProfile'>;
}

export interface RunningTasks {
  api: TaskApi;
  feed: TaskFeed;
  webhooks: WebhookDeliverer;
  stop(): Promise<void>;
}

/**
 * AN tasks in the execution process: the TaskService implementation, the
 * agents' NATS entry (`subjects.taskService()`, queue group `execution`: status
 * notifications and negotiation messages from agents), the change feed of the
 * live streams and the webhook deliverer.
 */
export async function startTasks(deps: TaskDeps): Promise<RunningTasks> {
  // One policy for registration (the service) and delivery (the deliverer); a bad pattern throws before anything starts.
  const webhookPolicy = toWebhookPolicy(deps.webhooks?.allow);
  const feed = createTaskFeed({ bus: deps.bus, subjects: deps.subjects, log: deps.log, ...(deps.livePollMs !== undefined ? { pollMs: deps.livePollMs } : {}) });
  await feed.start();
  const webhooks = createWebhookDeliverer({ db: deps.db, clock: deps.clock, log: deps.log, ...deps.webhooks, allow: webhookPolicy });
  const service = createTaskService({
    db: deps.db,
    bus: deps.bus,
    subjects: deps.subjects,
    negotiation: deps.negotiation,
    clock: deps.clock,
    log: deps.log,
    timeoutMs: deps.timeoutMs,
    webhookPolicy,
    feed,
    onChange(taskId) {
      deps.onOutboxWrite();
      feed.changed(taskId);
      webhooks.nudge();
    },
    ...(deps.profiles ? { profiles: deps.profiles } : {}),
    ...(deps.maxNegotiationRounds !== undefined ? { maxNegotiationRounds: deps.maxNegotiationRounds } : {}),
    ...(deps.chunks ? { chunks: deps.chunks } : {}),
  });
  let served: Stoppable | undefined;
  try {
    served = await deps.bus.serve(deps.subjects.taskService(), 'execution', (body) => service.fromAgent(body));
  } catch (e) {
    await feed.stop();
    throw e;
  }
  webhooks.start();
  return {
    api: service.api,
    feed,
    webhooks,
    async stop() {
      await served?.stop();
      await webhooks.stop();
      await feed.stop();
    },
  };
}
