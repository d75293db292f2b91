import type { Authenticator } from '@parley/auth';
import { DeadLetterServiceService, bindService, type CallContext, type DeadLetter, type DeadLetterApi, type ServiceBinding } from '@parley/contracts';
import {
  DEFAULT_CONSUMER_MAX_ATTEMPTS,
  DEFAULT_OUTBOX_MAX_ATTEMPTS,
  DEFAULT_STREAM_RETENTION,
  createDeadLetterOffice,
  type DeadLetterOffice,
  type DeadLetterView,
  type EventsLogger,
  type StreamRetention,
  type Subjects,
} from '@parley/events';
import { ParleyError } from '@parley/protocol';
import type { Db } from '@parley/storage';
import type { Clock } from './clock';
import { ConfigError, envInt, envOptional, type Env } from './config';
import type { Logger } from './logger';

/**
 * The event flow's limits from the environment (infra/README.md), the same for
 * every service:
 *
 * - PARLEY_STREAM_MAX_AGE_MS (7 days), PARLEY_STREAM_MAX_BYTES (256 MiB; -1 none),
 *   PARLEY_STREAM_MAX_MSGS (-1 none): the JetStream stream's retention, applied
 *   when it is created and updated in place when they change;
 * - PARLEY_OUTBOX_MAX_ATTEMPTS (8): publish tries before the relay sets a row
 *   aside (while the bus is healthy);
 * - PARLEY_CONSUMER_MAX_ATTEMPTS (5): failed deliveries before a durable
 *   consumer sets an event aside.
 */
export interface EventFlowConfig {
  retention: StreamRetention;
  outboxMaxAttempts: number;
  consumerMaxAttempts: number;
}

export function eventFlowFromEnv(env: Env): EventFlowConfig {
  const cap = (name: string, dflt: number): number => {
    const raw = envOptional(env, name);
    if (raw === undefined) return dflt;
    const n = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || (n < 1 && n !== -1)) throw new ConfigError(`${name} must be a positive integer or -1 (no limit), got "${raw}"`);
    return n;
  };
  return {
    retention: {
      maxAgeMs: envInt(env, 'PARLEY_STREAM_MAX_AGE_MS', DEFAULT_STREAM_RETENTION.maxAgeMs, { min: 0 }),
      maxBytes: cap('PARLEY_STREAM_MAX_BYTES', DEFAULT_STREAM_RETENTION.maxBytes),
      maxMsgs: cap('PARLEY_STREAM_MAX_MSGS', DEFAULT_STREAM_RETENTION.maxMsgs),
    },
    outboxMaxAttempts: envInt(env, 'PARLEY_OUTBOX_MAX_ATTEMPTS', DEFAULT_OUTBOX_MAX_ATTEMPTS, { min: 1, max: 1000 }),
    consumerMaxAttempts: envInt(env, 'PARLEY_CONSUMER_MAX_ATTEMPTS', DEFAULT_CONSUMER_MAX_ATTEMPTS, { min: 1, max: 1000 }),
  };
}

/** The limits a service runs with when nothing is configured (embedded mode, tests). */
export const DEFAULT_EVENT_FLOW: EventFlowConfig = {
  retention: DEFAULT_STREAM_RETENTION,
  outboxMaxAttempts: DEFAULT_OUTBOX_MAX_ATTEMPTS,
  consumerMaxAttempts: DEFAULT_CONSUMER_MAX_ATTEMPTS,
};

/** The names services answer ListDeadLetters with (and the gateway asks by). */
export const DEAD_LETTER_SERVICES = ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution'] as const;
export type DeadLetterServiceName = (typeof DEAD_LETTER_SERVICES)[number];

function toWire(v: DeadLetterView): DeadLetter {
  return {
    id: v.id,
    source: v.source,
    ...(v.consumer !== null ? { consumer: v.consumer } : {}),
    event_id: v.event_id,
    event_type: v.event_type,
    scenario_id: v.scenario_id,
    ...(v.subject !== null ? { subject: v.subject } : {}),
    error: v.error,
    attempts: v.attempts,
    event_bytes: v.event_bytes,
    dead_at: v.dead_at,
    status: v.status,
    ...(v.resolved_at !== null ? { resolved_at: v.resolved_at } : {}),
    ...(v.resolved_by !== null ? { resolved_by: v.resolved_by } : {}),
    ...(v.note !== null ? { note: v.note } : {}),
    event_preview: v.event_preview,
  };
}

const actor = (ctx: CallContext | undefined): string => ctx?.principal?.id ?? 'operator';

/**
 * DeadLetterService over a service's dead-letter office (bind it with
 * `bindService(DeadLetterServiceService, …)` on the service's gRPC server;
 * libs/auth POLICY keeps it to operators). Retries and discards are recorded
 * with the caller's principal.
 */
export function deadLetterApi(service: DeadLetterServiceName, office: DeadLetterOffice): DeadLetterApi {
  return {
    async listDeadLetters(req) {
      const status = req.status === undefined || req.status === '' ? 'dead' : req.status;
      const r = await office.list({
        status: status as 'dead',
        ...(req.scenario ? { scenario_id: req.scenario } : {}),
        ...(req.consumer ? { consumer: req.consumer } : {}),
        ...(req.after_id ? { after_id: req.after_id } : {}),
        ...(req.limit !== undefined ? { limit: req.limit } : {}),
      });
      return { service, dead_letters: r.dead_letters.map(toWire), counts: r.counts };
    },
    async retryDeadLetter(req, ctx) {
      const r = await office.retry(req.id, actor(ctx));
      return { dead_letter: toWire(r.dead_letter), retried: r.retried, ...(r.error !== undefined ? { error: r.error } : {}) };
    },
    async discardDeadLetter(req, ctx) {
      if (typeof req.reason !== 'string') throw new ParleyError('invalid_params', 'params.reason is required', { path: 'params.reason', rule: 'required' });
      return { dead_letter: toWire(await office.discard(req.id, actor(ctx), req.reason)) };
    },
  };
}

/** What a service's outbox relay and durable consumers share: its dead letters and the event-flow limits. */
export interface ServiceEventFlow {
  office: DeadLetterOffice;
  /** Spread into every consumeIdempotently call of the service. */
  consumer: { maxAttempts: number; logger: EventsLogger; deadLetters: DeadLetterOffice; now: () => Date };
  /** Spread into the service's createOutboxRelay call. */
  relay: { maxAttempts: number; logger: EventsLogger; deadLetters: DeadLetterOffice; now: () => Date };
  /** DeadLetterService for the service's gRPC server (operators only, libs/auth POLICY). */
  binding(authenticator: Authenticator): ServiceBinding;
}

export function serviceEventFlow(opts: {
  service: DeadLetterServiceName;
  /** The service's PostgreSQL schema (`pool` for semantic-pool). */
  schema: string;
  db: Db;
  subjects: Subjects;
  clock: Clock;
  log: Logger;
  config?: Partial<Pick<EventFlowConfig, 'outboxMaxAttempts' | 'consumerMaxAttempts'>>;
}): ServiceEventFlow {
  const now = () => opts.clock.now();
  const office = createDeadLetterOffice({ db: opts.db, schema: opts.schema, subjects: opts.subjects, now, logger: opts.log });
  return {
    office,
    consumer: { maxAttempts: opts.config?.consumerMaxAttempts ?? DEFAULT_CONSUMER_MAX_ATTEMPTS, logger: opts.log, deadLetters: office, now },
    relay: { maxAttempts: opts.config?.outboxMaxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS, logger: opts.log, deadLetters: office, now },
    binding: (authenticator) => bindService(DeadLetterServiceService, deadLetterApi(opts.service, office), { authenticator }),
  };
}
