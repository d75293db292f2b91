import type { Db } from '@parley/storage';
import { DEFAULT_CONSUMER_MAX_ATTEMPTS } from './consumer';
import { createDeadLetterOffice, type DeadLetterOffice } from './dead-letters';
import type { EventsLogger } from './log';
import { DEFAULT_OUTBOX_MAX_ATTEMPTS } from './outbox';
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
  relay: EventFlowOptions;
}

/**
 * One service's event flow (draft-zhou §6.2): its dead-letter office over
 * `<schema>.dead_letters` and the limits (PARLEY_OUTBOX_MAX_ATTEMPTS,
 * PARLEY_CONSUMER_MAX_ATTEMPTS) its relay and consumers run with.
 */
export function serviceEventFlow(opts: {
  db: Db;
  schema: string;
  subjects: Subjects;
  now: () => Date;
  logger: EventsLogger;
  outboxMaxAttempts?: number;
  consumerMaxAttempts?: number;
}): ServiceEventFlow {
  const office = createDeadLetterOffice({ db: opts.db, schema: opts.schema, subjects: opts.subjects, now: opts.now, logger: opts.logger });
  const shared = { logger: opts.logger, deadLetters: office, now: opts.now };
  return {
    office,
    consumer: { maxAttempts: opts.consumerMaxAttempts ?? DEFAULT_CONSUMER_MAX_ATTEMPTS, ...shared },
    relay: { maxAttempts: opts.outboxMaxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS, ...shared },
  };
}
