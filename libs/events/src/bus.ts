import type { EventEnvelope } from './events';

/** One durable consumer's backlog (JetStream num_pending, num_ack_pending, num_redelivered). */
export interface ConsumerLag {
  consumer: string;
  pending: number;
  ackPending: number;
  redelivered: number;
}

/** A running subscription or consumer; `stop()` drains in-flight work, then stops. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** Redelivery delay after a handler throws, on both adapters (ConsumeOptions.retryDelayMs). */
export const DEFAULT_RETRY_DELAY_MS = 1000;
/** Events handed to a batch handler at most at once, on both adapters (consumeBatch without maxBatch). */
export const DEFAULT_MAX_BATCH = 100;

/** consumeBatch's `maxBatch`, defaulted and checked the same way by both adapters. */
export function maxBatchOf(maxBatch: number | undefined): number {
  const max = maxBatch ?? DEFAULT_MAX_BATCH;
  if (!Number.isInteger(max) || max < 1) throw new RangeError('maxBatch must be a positive integer');
  return max;
}

export interface ConsumeOptions {
  /** Durable consumer name: survives restarts, resumes where it stopped. */
  durable: string;
  /** Subjects (wildcards allowed) to receive, built with `Subjects`. */
  filterSubjects: string[];
  /** Redelivery delay after a handler throws (default DEFAULT_RETRY_DELAY_MS, 1000 ms). */
  retryDelayMs?: number;
}

/**
 * The bus port. Two kinds of traffic:
 * - request/reply on core subjects (dispatch to server agents in queue groups),
 *   fire-and-forget, no persistence;
 * - events on a durable stream (JetStream in production), at-least-once to
 *   durable consumers, de-duplicated on publish by `event.id`.
 * Adapters: NATS (libs/events/src/nats-bus.ts) and in-process (memory-bus.ts).
 */
export interface Bus {
  /** Sends `body` to one member of the queue group on `subject`; rejects with ParleyError `agent_timeout` or `agent_unavailable`. */
  request(subject: string, body: Uint8Array, opts: { timeoutMs: number }): Promise<Uint8Array>;
  /** Answers requests on `subject` as a member of queue group `queue`. */
  serve(subject: string, queue: string, handler: (body: Uint8Array) => Promise<Uint8Array>): Promise<Stoppable>;
  /**
   * Stores an event durably; resolves once the stream has acknowledged it. Same id twice = stored once.
   * Calls made one after another without awaiting are sent, and stored, in call order (the outbox relay
   * pipelines a batch this way): an adapter starts sending before its first await.
   */
  publishEvent(event: EventEnvelope): Promise<void>;
  /** Delivers stored events to `handler` in stream order; acks when it resolves, redelivers when it throws. */
  consume(opts: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable>;
  /**
   * As consume, but hands the handler the events available, in stream order, up
   * to `maxBatch` (default DEFAULT_MAX_BATCH, 100) at once: all acked when it resolves, all
   * delivered again (from the first, in order) when it throws. Lets a consumer
   * commit a batch in one transaction. Both adapters have it (NATS: the
   * durable keeps maxBatch events in flight); absent, a consumer takes one
   * event at a time through consume.
   */
  consumeBatch?(opts: ConsumeOptions & { maxBatch?: number }, handler: (events: EventEnvelope[]) => Promise<void>): Promise<Stoppable>;
  /**
   * The largest encoded event publishEvent can carry (NATS: the server's
   * max_payload less room for headers); an event over it is refused however
   * often it is tried. Absent: unknown.
   */
  maxEventBytes?(): number;
  /**
   * The backlog of each durable consumer this bus consumes for (JetStream
   * consumer info; the in-process bus computes the same), read by the metrics
   * on scrape.
   */
  consumerLag?(): Promise<ConsumerLag[]>;
  /**
   * The longest the event stream can still hold an event, in ms, as it is now (0: no limit):
   * NATS reads the live stream's max_age (any service or operator may have changed it);
   * the in-process bus answers the age of the oldest event it still holds (at least 1 ms).
   * The retention of processed marks is gated by it (retention.ts). Absent: unknown.
   */
  streamMaxAgeMs?(): Promise<number>;
  /** Resolves true when connected and the stream exists. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}
