import type { Db } from '@parley/storage';
import type { Bus } from './bus';
import { DEFAULT_CONSUMER_MAX_ATTEMPTS } from './consumer';
import { createDeadLetterOffice, type DeadLetterOffice } from './dead-letters';
import type { EventsLogger } from './log';
import { DEFAULT_OUTBOX_MAX_ATTEMPTS } from './outbox';
import { createRetentionPruner, type RetainedTable, type RetentionPruner } from './retention';
import type { Subjects } from './subjects';

/** The options one service's outbox relay and durable consumers share. */
export interface EventFlowOptions {
  maxAttempts: number;
  logger: EventsLogger;
  deadLetters: DeadLetterOffice;
  now: () => Date;
}

/** A service's dead letters and the option bundles its relay and consumers spread in. */
export interface ServiceEventFlow {
  office: DeadLetterOffice;
  /** Spread into every consumeIdempotently call of the service. */
  consumer: EventFlowOptions;
  /** Spread into the service's createOutboxRelay call. */
  relay: EventFlowOptions & { pollIntervalMs?: number };
  /** Deletes published outbox rows, processed marks and resolved dead letters past their retention (retention.ts); the service starts and stops it. */
  pruner: RetentionPruner;
}

/** Published outbox rows are kept a week (PARLEY_OUTBOX_RETENTION_MS). */
export const DEFAULT_OUTBOX_RETENTION_MS = 7 * 86_400_000;
/** Dead letters an operator resolved (retried, discarded) are kept 30 days after (PARLEY_DEAD_LETTER_RETENTION_MS); open ones forever. */
export const DEFAULT_DEAD_LETTER_RETENTION_MS = 30 * 86_400_000;
/** Processed marks are kept twice the stream's default age limit (PARLEY_PROCESSED_RETENTION_MS; retention.ts). */
export const DEFAULT_PROCESSED_RETENTION_MS = 14 * 86_400_000;

/**
 * One service's event flow (draft-zhou §6.2): its dead-letter office over
 * `<schema>.dead_letters`, the limits (PARLEY_OUTBOX_MAX_ATTEMPTS,
 * PARLEY_CONSUMER_MAX_ATTEMPTS) its relay and consumers run with, and the
 * pruner of its outbox (`outbox`: the schema has one), processed marks and
 * resolved dead letters (PARLEY_OUTBOX_RETENTION_MS, PARLEY_PROCESSED_RETENTION_MS,
 * PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS).
 */
export function serviceEventFlow(opts: {
  db: Db;
  schema: string;
  subjects: Subjects;
  now: () => Date;
  logger: EventsLogger;
  outboxMaxAttempts?: number;
  consumerMaxAttempts?: number;
  outbox?: boolean;
  outboxRetentionMs?: number;
  processedRetentionMs?: number;
  deadLetterRetentionMs?: number;
  retentionSweepMs?: number;
  /** How often the relay looks for rows no nudge announced (createOutboxRelay's pollIntervalMs, default 1000). */
  outboxPollMs?: number;
  /** The bus whose live stream age limit gates the marks' pruning (Bus.streamMaxAgeMs; retention.ts). */
  bus?: Pick<Bus, 'streamMaxAgeMs'>;
  /** Counts the rows each batch deletes and each sweep's state (libs/runtime Metrics.retentionPruned, retentionState), under `service` (default the schema). */
  metrics?: { retentionPruned(service: string, table: RetainedTable, rows: number): void; retentionState?(service: string, table: RetainedTable, state: { behind: boolean; skipped: boolean }): void } | undefined;
  service?: string;
}): ServiceEventFlow {
  const office = createDeadLetterOffice({ db: opts.db, schema: opts.schema, subjects: opts.subjects, now: opts.now, logger: opts.logger });
  const shared = { logger: opts.logger, deadLetters: office, now: opts.now };
  return {
    office,
    consumer: { maxAttempts: opts.consumerMaxAttempts ?? DEFAULT_CONSUMER_MAX_ATTEMPTS, ...shared },
    relay: { maxAttempts: opts.outboxMaxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS, ...shared, ...(opts.outboxPollMs !== undefined ? { pollIntervalMs: opts.outboxPollMs } : {}) },
    pruner: createRetentionPruner({
      db: opts.db,
      schema: opts.schema,
      now: opts.now,
      outbox: opts.outbox ?? false,
      outboxMaxAgeMs: opts.outboxRetentionMs ?? DEFAULT_OUTBOX_RETENTION_MS,
      processedMaxAgeMs: opts.processedRetentionMs ?? DEFAULT_PROCESSED_RETENTION_MS,
      deadLettersMaxAgeMs: opts.deadLetterRetentionMs ?? DEFAULT_DEAD_LETTER_RETENTION_MS,
      ...(opts.retentionSweepMs !== undefined ? { intervalMs: opts.retentionSweepMs } : {}),
      logger: opts.logger,
      ...(opts.bus?.streamMaxAgeMs ? { streamMaxAgeMs: opts.bus.streamMaxAgeMs.bind(opts.bus) } : {}),
      ...(opts.metrics
        ? {
            onPruned: (p: { table: RetainedTable; rows: number }) => opts.metrics?.retentionPruned(opts.service ?? opts.schema, p.table, p.rows),
            onSwept: (p: { table: RetainedTable; behind: boolean; skipped: boolean }) => opts.metrics?.retentionState?.(opts.service ?? opts.schema, p.table, p),
          }
        : {}),
    }),
  };
}
