import { context as otelContext } from '@opentelemetry/api';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { DEFAULT_RETRY_DELAY_MS, maxBatchOf, type ConsumeOptions, type Stoppable } from './bus';
import { decodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { errorText } from './log';
import { matchesAny } from './match';
import { ensureConsumer, planFilters } from './nats-consumers';
import { fromHeaders, type NatsCtx } from './nats-context';
import { endSpan, startProcess } from './tracing';

// Consuming a durable JetStream consumer for nats-bus.ts. The durable keeps up to `window` events in flight
// (max_ack_pending); the pull buffers them in stream order and the handler takes the events available, up to
// `maxBatch` at once (consume: one). All are acked after the handler resolves. When it throws, the same events are
// handed to it again, from the first, after `retryDelayMs`, kept alive meanwhile (`working`), before any later event:
// the order holds with any window. The pull restarts (re-creating the consumer) when it is interrupted or deleted
// under it; events a stopped process held are handed back first (see ensureConsumer).

const RESTART_BACKOFF_MAX_MS = 5000;

/** One event at a time; the durable's window is the bus's maxAckPending (default 1). */
export function consume(x: NatsCtx, o: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable> {
  return consumeBatches(x, o, 1, x.maxAckPending, (events) => handler(events[0]!));
}

/** The events available, up to `maxBatch` (default 100) at once; the durable's window is as large. */
export function consumeBatch(x: NatsCtx, o: ConsumeOptions & { maxBatch?: number }, handler: (events: EventEnvelope[]) => Promise<void>): Promise<Stoppable> {
  const max = maxBatchOf(o.maxBatch);
  return consumeBatches(x, o, max, Math.max(max, x.maxAckPending), handler);
}

interface Delivery {
  m: JsMsg;
  event: EventEnvelope;
}

async function consumeBatches(
  x: NatsCtx,
  o: ConsumeOptions,
  maxBatch: number,
  window: number,
  handler: (events: EventEnvelope[]) => Promise<void>,
): Promise<Stoppable> {
  x.assertOpen();
  const retryDelayMs = o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const plan = planFilters(x, [...o.filterSubjects]);
  await ensureConsumer(x, o.durable, plan.server, window, plan.client);
  let consumer = await x.js.consumers.get(x.subjects.stream, o.durable);

  const state = { stopping: false, messages: undefined as ConsumerMessages | undefined };
  const stopSignal = new AbortController();
  let buffer = pulled();
  const acks = { confirmedAt: Number.NEGATIVE_INFINITY };
  const handle = (batch: JsMsg[]) =>
    handleBatch(x, o.durable, { plan: plan.client, retryDelayMs, signal: stopSignal.signal, stopping: () => state.stopping, waiting: () => buffer.waiting(), acks, now: Date.now }, batch, handler);

  const loop = (async () => {
    let failures = 0;
    while (!state.stopping) {
      try {
        buffer = pulled();
        const current = await consumer.consume({
          max_messages: window,
          idle_heartbeat: x.idleHeartbeatMs,
          expires: Math.max(30_000, x.idleHeartbeatMs * 3),
          callback: (m) => buffer.push(m),
        });
        state.messages = current;
        void current.closed().then(
          () => buffer.end(),
          () => buffer.end(),
        );
        if (state.stopping) {
          await current.close();
          break;
        }
        watchStatus(current);
        for (let batch = await buffer.take(maxBatch); batch.length > 0; batch = await buffer.take(maxBatch)) {
          // Pulled before stop() but not handled: hand them back now rather than after ack_wait.
          if (state.stopping) {
            for (const m of batch) m.nak();
            continue;
          }
          await handle(batch);
          failures = 0;
        }
      } catch (err) {
        if (!state.stopping) x.log.warn('consumer interrupted; restarting', { durable: o.durable, error: errorText(err) });
      }
      if (state.stopping || x.nc.isClosed()) break;
      failures++;
      await sleep(Math.min(RESTART_BACKOFF_MAX_MS, 100 * 2 ** Math.min(failures, 6)), stopSignal.signal);
      if (state.stopping) break;
      try {
        await ensureConsumer(x, o.durable, plan.server, window, plan.client);
        consumer = await x.js.consumers.get(x.subjects.stream, o.durable);
      } catch (err) {
        x.log.warn('consumer could not be re-created; retrying', { durable: o.durable, error: errorText(err) });
      }
    }
  })();

  return x.track({
    async stop() {
      if (state.stopping) return loop;
      state.stopping = true;
      stopSignal.abort();
      await state.messages?.close().catch(() => {});
      await loop;
    },
  });
}

/** The client would keep pulling from a deleted consumer: close the pull, so the loop starts over and re-creates it. */
function watchStatus(current: ConsumerMessages): void {
  void (async () => {
    for await (const s of current.status()) {
      if (s.type === 'consumer_deleted' || s.type === 'consumer_not_found' || s.type === 'heartbeats_missed') {
        void current.close();
        return;
      }
    }
  })().catch(() => {});
}

/** What a pull delivered and the handler has not taken yet, in stream order. */
function pulled(): { push(m: JsMsg): void; end(): void; take(max: number): Promise<JsMsg[]>; waiting(): readonly JsMsg[] } {
  const items: JsMsg[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(m) {
      items.push(m);
      signal();
    },
    end() {
      ended = true;
      signal();
    },
    /** The events available, up to `max`, waiting for one; empty once the pull has ended and all are taken. */
    async take(max) {
      while (items.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      return items.splice(0, max);
    },
    /** Pulled and not yet taken: kept alive with the batch in hand, so ack_wait does not send them elsewhere. */
    waiting: () => items,
  };
}

/**
 * How long a durable acks batches its handler did not see without asking the server to confirm before it confirms
 * one (ms): a lost plain ack is then noticed and logged within about a second, at one request and reply a second
 * at most, not one per batch.
 */
export const CONFIRM_SKIPPED_EVERY_MS = 1000;

/** What handleBatch needs of the pull it serves (exported for the unit tests). */
export interface BatchContext {
  /** Filters the server could not apply (servers before 2.10 with several filters): the rest is acked unhandled. */
  plan: string[] | undefined;
  retryDelayMs: number;
  signal: AbortSignal;
  stopping(): boolean;
  /** Events pulled behind the batch (a window larger than the batch): the heartbeat keeps them alive too. */
  waiting(): readonly JsMsg[];
  /** When (`now()`, ms) this durable last asked the server to confirm an ack; shared by its batches. */
  acks: { confirmedAt: number };
  now(): number;
}

/**
 * Hands the decodable, matching events of `batch` to the handler until it resolves (again after `retryDelayMs`
 * each time it throws, the events kept alive meanwhile), then acks them; an undecodable one is terminated. A stop
 * while waiting to retry hands the events back (nak) instead.
 */
export async function handleBatch(x: NatsCtx, durable: string, c: BatchContext, batch: JsMsg[], handler: (events: EventEnvelope[]) => Promise<void>): Promise<void> {
  const live: Delivery[] = [];
  const skipped: JsMsg[] = [];
  for (const m of batch) {
    if (c.plan && !matchesAny(c.plan, m.subject)) {
      skipped.push(m);
      continue;
    }
    try {
      live.push({ m, event: decodeEvent(m.data) });
    } catch (err) {
      x.log.error('undecodable event terminated', { durable, seq: m.seq, subject: m.subject, error: errorText(err) });
      m.term('undecodable');
    }
  }
  if (live.length > 0) {
    // A slow handler must not be mistaken for a dead one and have its events redelivered elsewhere.
    const beat = setInterval(() => {
      for (const d of live) d.m.working();
      for (const m of c.waiting()) m.working();
    }, Math.max(1000, Math.floor(x.ackWaitMs / 3)));
    try {
      if (!(await deliverUntilHandled(x, durable, c, live, handler))) {
        for (const d of live) d.m.nak();
        return;
      }
    } finally {
      clearInterval(beat);
    }
  }
  // A batch the handler did not see (every event outside the filters, or undecodable) is acked without waiting for the
  // server's confirmation, unless none was confirmed for CONFIRM_SKIPPED_EVERY_MS. On a server without filter_subjects
  // this is every execute's events reaching a durable whose cover is the whole stream. An ack lost here has those
  // events delivered again and skipped again, and meanwhile holds their slot of the durable's window
  // (max_ack_pending) until ack_wait: with a window of 1 nothing else is delivered for that long (held up, not lost).
  // The periodic confirmation logs such a loss as main did ("ack not confirmed"), within about a second.
  if (live.length === 0 && c.now() - c.acks.confirmedAt < CONFIRM_SKIPPED_EVERY_MS) {
    for (const m of skipped) m.ack();
    return;
  }
  await ackAll(x, durable, c, [...skipped, ...live.map((d) => d.m)]);
}

/** Calls the handler with the events until it resolves (true), or until a stop while waiting to retry (false). */
async function deliverUntilHandled(x: NatsCtx, durable: string, c: BatchContext, live: Delivery[], handler: (events: EventEnvelope[]) => Promise<void>): Promise<boolean> {
  const events = live.map((d) => d.event);
  for (;;) {
    const traced = live.map((d) => startProcess({ subject: d.m.subject, messageId: d.event.id, group: durable }, fromHeaders(d.m.headers)));
    try {
      await otelContext.with(traced[0]!.ctx, () => handler(events));
      for (const t of traced) endSpan(t.span);
      return true;
    } catch (err) {
      for (const t of traced) endSpan(t.span, err);
      x.log.warn('event handler threw; redelivering', { durable, event_id: events[0]!.id, events: events.length, retry_ms: c.retryDelayMs, error: errorText(err) });
    }
    await sleep(c.retryDelayMs, c.signal);
    if (c.stopping()) return false;
  }
}

/** Acks in order; only the last is confirmed (the server takes one connection's acks in order). */
async function ackAll(x: NatsCtx, durable: string, c: BatchContext, ms: JsMsg[]): Promise<void> {
  const last = ms.at(-1);
  if (!last) return;
  for (const m of ms.slice(0, -1)) m.ack();
  c.acks.confirmedAt = c.now();
  try {
    await last.ackAck({ timeout: 5000 });
  } catch (err) {
    x.log.warn('ack not confirmed; the events may be delivered again', { durable, seq: last.seq, events: ms.length, error: errorText(err) });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
