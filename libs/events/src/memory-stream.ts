import { context as otelContext } from '@opentelemetry/api';
import { ParleyError } from '@parley/protocol';
import { DEFAULT_RETRY_DELAY_MS, maxBatchOf, type Bus, type ConsumeOptions, type ConsumerLag, type Stoppable } from './bus';
import { decodeEvent, encodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { errorText } from './log';
import { matchesAny } from './match';
import type { MemoryCore } from './memory-core';
import type { Subjects } from './subjects';
import { endSpan, startProcess, startSend, type Carrier } from './tracing';

// The stream of the in-process bus (memory-bus.ts), as JetStream keeps it: events
// stored once per id within the duplicate window, durable consumers delivering one
// event at a time (consume) or the events available, up to maxBatch (consumeBatch),
// in stream order with their cursor kept across stop()/consume(), a handler that
// throws getting the same event (or batch, from its first event) again after `retryDelayMs`.


interface Stored {
  seq: number;
  subject: string;
  bytes: Uint8Array;
  /** Trace headers (W3C traceparent …), as a JetStream message carries them. */
  headers: Carrier | undefined;
  /** When it was stored (the bus clock). */
  at: number;
}

interface Member {
  /** Receives one event (consume) or up to `max` available ones in stream order (consumeBatch); all are acked together. */
  handler: (events: EventEnvelope[]) => Promise<void>;
  max: number;
  retryDelayMs: number;
  inFlight: Promise<void> | undefined;
  /** Events of the delivery in flight. */
  inFlightEvents: number;
}

interface Durable {
  name: string;
  filters: string[];
  /** Last stream sequence acknowledged or skipped by the filter; the next delivery is after it. */
  cursor: number;
  members: Member[];
  next: number;
  pumping: boolean;
  /** Cuts a redelivery wait short when the last member stops or the bus closes. */
  wakeRetry: (() => void) | undefined;
  /** The event at the cursor failed and is being delivered again. */
  redelivering: boolean;
}

/** The stored events and the durable consumers. */
interface StreamState {
  entries: Stored[];
  nextSeq: number;
  /** Event id → when it was stored; Map keeps insertion order, so expired ids are always at the front. */
  seen: Map<string, number>;
  durables: Map<string, Durable>;
}

export interface StreamLimits {
  duplicateWindowMs: number;
  maxEvents: number;
  maxPayloadBytes: number;
}

export interface MemoryStream extends Pick<Bus, 'publishEvent' | 'consume' | 'consumeBatch' | 'consumerLag'> {
  /** The age of the oldest event still stored (at least 1 ms): a durable created now could be handed nothing older. */
  oldestAgeMs(): number;
  /** Wakes consumers waiting to redeliver and waits for the handlers running (their events are acknowledged). */
  close(): Promise<void>;
}

export function createMemoryStream(core: MemoryCore, subjects: Subjects, limits: StreamLimits): MemoryStream {
  const { assertOpen } = core;
  const { duplicateWindowMs, maxEvents, maxPayloadBytes } = limits;
  const s: StreamState = { entries: [], nextSeq: 1, seen: new Map(), durables: new Map() };

  async function publishEvent(event: EventEnvelope): Promise<void> {
    assertOpen();
    const subject = subjects.event(event.scenario_id, event.type);
    const now = core.clock.now();
    for (const [id, at] of s.seen) {
      if (now - at < duplicateWindowMs) break;
      s.seen.delete(id);
    }
    if (s.seen.has(event.id)) return;
    const bytes = encodeEvent(event);
    if (bytes.length > maxPayloadBytes) {
      throw new ParleyError('unavailable', `Event ${event.id} was not stored: max_payload size exceeded (${bytes.length} > ${maxPayloadBytes} bytes)`, {
        details: { subject, event_id: event.id },
      });
    }
    s.seen.set(event.id, now);
    const { span, carrier } = startSend({ subject, messageId: event.id });
    s.entries.push({ seq: s.nextSeq++, subject, bytes, headers: carrier, at: now });
    endSpan(span);
    trim(s, maxEvents);
    // Handlers run after publishEvent resolves, never inside it: the outbox relay
    // publishes inside a database transaction that a consumer handler may wait on.
    for (const d of s.durables.values()) queueMicrotask(() => void pump(core, s, d));
  }

  function oldestAgeMs(): number {
    const first = s.entries[0];
    return first ? Math.max(1, core.clock.now() - first.at) : 1;
  }

  function consume(o: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable> {
    return consumeBatch({ ...o, maxBatch: 1 }, (events) => handler(events[0]!));
  }

  async function consumeBatch(o: ConsumeOptions & { maxBatch?: number }, handler: (events: EventEnvelope[]) => Promise<void>): Promise<Stoppable> {
    assertOpen();
    const max = maxBatchOf(o.maxBatch);
    let d = s.durables.get(o.durable);
    if (!d) {
      d = { name: o.durable, filters: [...o.filterSubjects], cursor: 0, members: [], next: 0, pumping: false, wakeRetry: undefined, redelivering: false };
      s.durables.set(o.durable, d);
    } else {
      // Same durable, new filter: the consumer is updated in place, as NATS does.
      d.filters = [...o.filterSubjects];
    }
    const durable = d;
    const me: Member = { handler, max, retryDelayMs: o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS, inFlight: undefined, inFlightEvents: 0 };
    durable.members.push(me);
    queueMicrotask(() => void pump(core, s, durable));
    let stopped = false;
    return {
      async stop() {
        if (stopped) return;
        stopped = true;
        const i = durable.members.indexOf(me);
        if (i >= 0) durable.members.splice(i, 1);
        if (durable.members.length === 0) durable.wakeRetry?.();
        await me.inFlight;
      },
    };
  }

  /** What a durable has not received yet, delivered without an ack, redelivered (as JetStream consumer info). */
  async function consumerLag(): Promise<ConsumerLag[]> {
    const out: ConsumerLag[] = [];
    for (const d of s.durables.values()) {
      let pending = 0;
      for (const e of s.entries) if (e.seq > d.cursor && matchesAny(d.filters, e.subject)) pending++;
      const inFlight = d.members.reduce((n, m) => n + m.inFlightEvents, 0);
      out.push({ consumer: d.name, pending: Math.max(0, pending - inFlight), ackPending: inFlight, redelivered: d.redelivering ? 1 : 0 });
    }
    return out;
  }

  return {
    publishEvent,
    consume,
    consumeBatch,
    consumerLag,
    oldestAgeMs,
    async close() {
      const consuming: Promise<unknown>[] = [];
      for (const d of s.durables.values()) {
        d.wakeRetry?.();
        for (const m of d.members) if (m.inFlight) consuming.push(m.inFlight);
      }
      await Promise.allSettled(consuming);
    },
  };
}

function trim(s: StreamState, maxEvents: number): void {
  if (s.entries.length <= maxEvents) return;
  let floor = Infinity;
  for (const d of s.durables.values()) floor = Math.min(floor, d.cursor);
  const excess = s.entries.length - maxEvents;
  let drop = 0;
  while (drop < excess && s.entries[drop]!.seq <= floor) drop++;
  if (drop > 0) s.entries = s.entries.slice(drop);
}

interface Delivery {
  entry: Stored;
  event: EventEnvelope;
}

/**
 * Up to `max` events after the durable's cursor that its filters match, in
 * stream order. Unmatched entries before the first one count as consumed (a
 * filtered JetStream consumer's floor moves past them), as does an undecodable
 * entry at the front (logged); one further in ends the batch, to be skipped
 * at the front of the next.
 */
function nextDeliveries(core: MemoryCore, s: StreamState, d: Durable, max: number): Delivery[] {
  const out: Delivery[] = [];
  const first = s.entries[0]?.seq ?? s.nextSeq;
  for (let i = Math.max(0, d.cursor + 1 - first); i < s.entries.length && out.length < max; i++) {
    const e = s.entries[i]!;
    if (!matchesAny(d.filters, e.subject)) {
      if (out.length === 0) d.cursor = e.seq;
      continue;
    }
    try {
      out.push({ entry: e, event: decodeEvent(e.bytes) });
    } catch (err) {
      if (out.length > 0) break;
      core.log.error('undecodable event skipped', { durable: d.name, seq: e.seq, error: errorText(err) });
      d.cursor = e.seq;
    }
  }
  return out;
}

async function pump(core: MemoryCore, s: StreamState, d: Durable): Promise<void> {
  if (d.pumping || core.isClosed()) return;
  d.pumping = true;
  try {
    while (!core.isClosed() && d.members.length > 0) {
      const m = d.members[d.next % d.members.length]!;
      const batch = nextDeliveries(core, s, d, m.max);
      if (batch.length === 0) break;
      d.next++;
      const last = batch[batch.length - 1]!.entry.seq;
      const spans = batch.map(({ entry, event }) => startProcess({ subject: entry.subject, messageId: event.id, group: d.name }, entry.headers));
      const run = otelContext.with(spans[0]!.ctx, () => Promise.resolve().then(() => m.handler(batch.map((b) => b.event))));
      m.inFlightEvents = batch.length;
      m.inFlight = run.then(
        () => {},
        () => {},
      );
      try {
        await run;
        for (const { span } of spans) endSpan(span);
        d.cursor = last;
      } catch (err) {
        for (const { span } of spans) endSpan(span, err);
        d.redelivering = true;
        core.log.warn('event handler threw; redelivering', { durable: d.name, event_id: batch[0]!.event.id, events: batch.length, retry_ms: m.retryDelayMs, error: errorText(err) });
        await new Promise<void>((resolve) => {
          const cancel = core.later(() => wake(), m.retryDelayMs);
          const wake = () => {
            cancel();
            d.wakeRetry = undefined;
            resolve();
          };
          d.wakeRetry = wake;
        });
      } finally {
        m.inFlight = undefined;
        m.inFlightEvents = 0;
      }
      if (d.cursor === last) d.redelivering = false;
    }
  } finally {
    d.pumping = false;
  }
}
