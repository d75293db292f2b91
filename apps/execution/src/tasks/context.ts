import {
  AN_AGENT_NAME_PATTERN,
  MAX_AN_AGENT_NAME_LENGTH,
  TASK_ID_PATTERN,
  DEFAULT_MAX_ROUNDS,
  type ChunkAssembler,
  type ChunkAssemblerOptions,
  type NegotiationType,
} from '@parley/an';
import type { AgentProfileApi, NegotiationApi } from '@parley/contracts';
import type { Bus, Subjects } from '@parley/events';
import { ParleyError, type PayloadValidator } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { TaskFeed } from './live';
import { webhookUrlPolicy, type WebhookUrlPolicy } from './webhook-allow';
import { lockTask } from './store';

// What every handler of the task service (service.ts) shares: its dependencies,
// the clock, the per-task transaction, the caches, and small input helpers.

export interface TaskServiceDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  /** How long an agent has to answer a dispatched task, a proposal or a capability request. */
  timeoutMs: number;
  /** After every commit that may have added notifications of `taskId` (relay nudge, live streams, webhooks). */
  onChange(taskId: string): void;
  /** Wakes TaskResultSubscribe streams (live.ts). */
  feed: Pick<TaskFeed, 'wait'>;
  /** The registry's AgentProfileService (draft 004 §5.1), when deployed: CapabilityRequest answers from it first. */
  profiles?: Pick<AgentProfileApi, 'getProfile'>;
  /** Rounds a negotiation may take before it ends in round_limit (default 5). */
  maxNegotiationRounds?: number;
  /** Limits of chunked data params (default 16 MiB, 10 000 chunks per param). */
  chunks?: ChunkAssemblerOptions;
  /** Which webhook URLs may be registered (webhook-allow.ts; default: https to public hosts only). */
  webhookPolicy?: WebhookUrlPolicy;
}

/** The state one task service holds, passed to each handler. */
export interface TaskCtx {
  deps: TaskServiceDeps;
  db: Db;
  bus: Bus;
  subjects: Subjects;
  log: Logger;
  maxRounds: number;
  webhookPolicy: WebhookUrlPolicy;
  /** Payload validators by `agent/schema_id@etag` (at most 200, oldest evicted). */
  validators: Map<string, PayloadValidator>;
  /** One assembler per param being uploaded (least recently used evicted; rebuilt from data_chunks when stale). */
  assemblers: Map<string, { assembler: ChunkAssembler; next: number }>;
  /** The clock's time as an ISO string. */
  now(): string;
  /** Runs `fn` in a transaction holding the task's lock, then signals the change. */
  change<T>(taskId: string, fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export function createTaskCtx(deps: TaskServiceDeps): TaskCtx {
  const { db } = deps;
  return {
    deps,
    db,
    bus: deps.bus,
    subjects: deps.subjects,
    log: deps.log,
    maxRounds: deps.maxNegotiationRounds ?? DEFAULT_MAX_ROUNDS,
    webhookPolicy: deps.webhookPolicy ?? webhookUrlPolicy(),
    validators: new Map(),
    assemblers: new Map(),
    now: () => deps.clock.now().toISOString(),
    async change<T>(taskId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const r = await db.transaction(async (tx) => {
        await lockTask(tx, taskId);
        return fn(tx);
      });
      deps.onChange(taskId);
      return r;
    },
  };
}

/** Inline data sent with a dispatched task: at most this much per param and in total (NATS messages are small). */
export const MAX_DISPATCH_PARAM_CHARS = 256 * 1024;
export const MAX_DISPATCH_TOTAL_CHARS = 512 * 1024;
export const MAX_DATA_SLICE = 256 * 1024;
export const MAX_CONTEXT_PAGE = 1000;

export function plain(req: object, emptyAbsent: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) {
    if (v === undefined) continue;
    if (emptyAbsent.includes(k) && Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

export function forbidden(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('forbidden', message, { path, rule });
}

export function agentName(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ParleyError('invalid_params', `${path} is required`, { path, rule: 'required' });
  if (v.length > MAX_AN_AGENT_NAME_LENGTH || !AN_AGENT_NAME_PATTERN.test(v)) {
    throw new ParleyError('invalid_params', `${path} ${JSON.stringify(v.slice(0, 80))} is not an agent name`, { path, rule: 'name_format' });
  }
  return v;
}

export function taskIdOf(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ParleyError('invalid_params', `${path} is required`, { path, rule: 'required' });
  if (!TASK_ID_PATTERN.test(v)) throw new ParleyError('invalid_params', `${path} ${JSON.stringify(v.slice(0, 80))} is not a task id`, { path, rule: 'pattern' });
  return v;
}

export const COMMU: Record<NegotiationType, 'FeasibilityNegotiate' | 'FulfillmentNegotiate'> = {
  FEASIBILITY: 'FeasibilityNegotiate',
  FULFILLMENT: 'FulfillmentNegotiate',
};

export function samePair(a: readonly string[], b: readonly string[]): boolean {
  return (a[0] === b[0] && a[1] === b[1]) || (a[0] === b[1] && a[1] === b[0]);
}

