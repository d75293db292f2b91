import { ParleyError } from '@parley/protocol';
import type { Bus, ConsumeOptions, Stoppable } from './bus';
import { decodeEvent, encodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { consoleLogger, errorText, settleWithin, type EventsLogger } from './log';
import { matchesAny, subjectMatches } from './match';
import type { Subjects } from './subjects';

/** The time source of the in-process bus; tests pass a fake one to drive timeouts and retries. */
export interface BusClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: BusClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface MemoryBusOptions {
  subjects: Subjects;
  clock?: BusClock;
  /** Same id published again within this window is stored once (default 10 min, as the NATS adapter). */
  duplicateWindowMs?: number;
  /**
   * Stored events beyond this count are dropped oldest first, but only once every
   * durable consumer has acknowledged them (default 100 000): the embedded mode
   * runs for weeks, and an unconsumed event is never dropped.
   */
  maxEvents?: number;
  /** How long stop()/close() wait for request handlers still running (default 5 s). */
  drainTimeoutMs?: number;
  /**
   * The largest encoded event publishEvent stores (default 1 MiB, NATS's
   * default max_payload): larger ones are refused as NATS refuses them, so the
   * embedded mode meets the same limit the separate services do.
   */
  maxPayloadBytes?: number;
  logger?: EventsLogger;
}

const DEFAULT_RETRY_DELAY_MS = 1000;

interface Server {
  subject: string;
  queue: string;
  handler: (body: Uint8Array) => Promise<Uint8Array>;
  inFlight: Set<Promise<unknown>>;
}

interface Group {
  members: Server[];
  next: number;
}

interface Stored {
  seq: number;
  subject: string;
  bytes: Uint8Array;
}

interface Member {
  handler: (event: EventEnvelope) => Promise<void>;
  retryDelayMs: number;
  inFlight: Promise<void> | undefined;
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
}

/**
 * The Bus port in this process, for the one-process embedded mode and unit
 * tests. Mirrors the NATS adapter's semantics: queue groups answer round-robin,
 * a durable consumer delivers one event at a time in stream order and keeps
 * its cursor across stop()/consume() under the same name, a handler that
 * throws gets the same event again after `retryDelayMs` before any later one.
 */
export function createMemoryBus(opts: MemoryBusOptions): Bus {
  const { subjects } = opts;
  const clock = opts.clock ?? realClock;
  const log = opts.logger ?? consoleLogger;
  const duplicateWindowMs = opts.duplicateWindowMs ?? 10 * 60_000;
  const maxEvents = opts.maxEvents ?? 100_000;
  const drainTimeoutMs = opts.drainTimeoutMs ?? 5000;
  const maxPayloadBytes = opts.maxPayloadBytes ?? 1024 * 1024;

  const groups = new Map<string, Group>();
  const timers = new Set<unknown>();
  const pendingRequests = new Set<(e: Error) => void>();
  let entries: Stored[] = [];
  let nextSeq = 1;
  // Map keeps insertion order, so expired ids are always at the front.
  const seen = new Map<string, number>();
  const durables = new Map<string, Durable>();
  let closed = false;

  const closedError = () => new ParleyError('unavailable', 'The event bus is closed.');
  const assertOpen = () => {
    if (closed) throw closedError();
  };

  const later = (fn: () => void, ms: number): (() => void) => {
    const h = clock.setTimeout(() => {
      timers.delete(h);
      fn();
    }, ms);
    timers.add(h);
    return () => {
      if (timers.delete(h)) clock.clearTimeout(h);
    };
  };

  // ---- request / reply ---------------------------------------------------

  async function request(subject: string, body: Uint8Array, o: { timeoutMs: number }): Promise<Uint8Array> {
    assertOpen();
    const details = { subject, timeout_ms: o.timeoutMs };
    // Like NATS: every queue group whose subject matches gets one copy, the first reply wins.
    const chosen: Server[] = [];
    for (const g of groups.values()) {
      if (g.members.length === 0 || !subjectMatches(g.members[0]!.subject, subject)) continue;
      chosen.push(g.members[g.next++ % g.members.length]!);
    }
    if (chosen.length === 0) {
      throw new ParleyError('agent_unavailable', `No agent is serving ${subject}.`, { details });
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        pendingRequests.delete(abort);
        fn();
      };
      const abort = (e: Error) => settle(() => reject(e));
      const cancelTimer = later(
        () => settle(() => reject(new ParleyError('agent_timeout', `No answer on ${subject} within ${o.timeoutMs} ms.`, { details }))),
        o.timeoutMs,
      );
      pendingRequests.add(abort);
      for (const s of chosen) {
        const run = Promise.resolve()
          .then(() => s.handler(body.slice()))
          .then(
            (reply) => settle(() => resolve(reply.slice())),
            // No reply on a throw, as over NATS: the requester sees a timeout, the log says why.
            (err: unknown) => log.error('request handler threw; no reply sent', { subject, queue: s.queue, error: errorText(err) }),
          );
        s.inFlight.add(run);
        void run.finally(() => s.inFlight.delete(run));
      }
    });
  }

  async function serve(subject: string, queue: string, handler: (body: Uint8Array) => Promise<Uint8Array>): Promise<Stoppable> {
    assertOpen();
    const key = `${subject}\u0000${queue}`;
    const g = groups.get(key) ?? { members: [], next: 0 };
    groups.set(key, g);
    const me: Server = { subject, queue, handler, inFlight: new Set() };
    g.members.push(me);
    let stopped = false;
    return {
      async stop() {
        if (stopped) return;
        stopped = true;
        const i = g.members.indexOf(me);
        if (i >= 0) g.members.splice(i, 1);
        if (g.members.length === 0) groups.delete(key);
        await settleWithin(me.inFlight, drainTimeoutMs);
      },
    };
  }

  // ---- the stream ---------------------------------------------------------

  async function publishEvent(event: EventEnvelope): Promise<void> {
    assertOpen();
    const subject = subjects.event(event.scenario_id, event.type);
    const now = clock.now();
    for (const [id, at] of seen) {
      if (now - at < duplicateWindowMs) break;
      seen.delete(id);
    }
    if (seen.has(event.id)) return;
    const bytes = encodeEvent(event);
    if (bytes.length > maxPayloadBytes) {
      throw new ParleyError('unavailable', `Event ${event.id} was not stored: max_payload size exceeded (${bytes.length} > ${maxPayloadBytes} bytes)`, {
        details: { subject, event_id: event.id },
      });
    }
    seen.set(event.id, now);
    entries.push({ seq: nextSeq++, subject, bytes });
    trim();
    // Handlers run after publishEvent resolves, never inside it: the outbox relay
    // publishes inside a database transaction that a consumer handler may wait on.
    for (const d of durables.values()) queueMicrotask(() => void pump(d));
  }

  function trim(): void {
    if (entries.length <= maxEvents) return;
    let floor = Infinity;
    for (const d of durables.values()) floor = Math.min(floor, d.cursor);
    const excess = entries.length - maxEvents;
    let drop = 0;
    while (drop < excess && entries[drop]!.seq <= floor) drop++;
    if (drop > 0) entries = entries.slice(drop);
  }

  function nextEntry(d: Durable): Stored | undefined {
    const first = entries[0]?.seq ?? nextSeq;
    for (let i = Math.max(0, d.cursor + 1 - first); i < entries.length; i++) {
      const e = entries[i]!;
      if (matchesAny(d.filters, e.subject)) return e;
      // Skipped subjects count as consumed, as a filtered JetStream consumer's floor moves past them.
      d.cursor = e.seq;
    }
    return undefined;
  }

  async function pump(d: Durable): Promise<void> {
    if (d.pumping || closed) return;
    d.pumping = true;
    try {
      while (!closed && d.members.length > 0) {
        const entry = nextEntry(d);
        if (!entry) break;
        const m = d.members[d.next++ % d.members.length]!;
        let event: EventEnvelope;
        try {
          event = decodeEvent(entry.bytes);
        } catch (err) {
          log.error('undecodable event skipped', { durable: d.name, seq: entry.seq, error: errorText(err) });
          d.cursor = entry.seq;
          continue;
        }
        const run = Promise.resolve().then(() => m.handler(event));
        m.inFlight = run.then(
          () => {},
          () => {},
        );
        try {
          await run;
          d.cursor = entry.seq;
        } catch (err) {
          log.warn('event handler threw; redelivering', { durable: d.name, event_id: event.id, retry_ms: m.retryDelayMs, error: errorText(err) });
          await new Promise<void>((resolve) => {
            const cancel = later(() => wake(), m.retryDelayMs);
            const wake = () => {
              cancel();
              d.wakeRetry = undefined;
              resolve();
            };
            d.wakeRetry = wake;
          });
        } finally {
          m.inFlight = undefined;
        }
      }
    } finally {
      d.pumping = false;
    }
  }

  async function consume(o: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable> {
    assertOpen();
    let d = durables.get(o.durable);
    if (!d) {
      d = { name: o.durable, filters: [...o.filterSubjects], cursor: 0, members: [], next: 0, pumping: false, wakeRetry: undefined };
      durables.set(o.durable, d);
    } else {
      // Same durable, new filter: the consumer is updated in place, as NATS does.
      d.filters = [...o.filterSubjects];
    }
    const durable = d;
    const me: Member = { handler, retryDelayMs: o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS, inFlight: undefined };
    durable.members.push(me);
    queueMicrotask(() => void pump(durable));
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

  return {
    request,
    serve,
    publishEvent,
    consume,
    maxEventBytes: () => maxPayloadBytes,
    healthy: async () => !closed,
    async close() {
      if (closed) return;
      closed = true;
      for (const abort of [...pendingRequests]) abort(closedError());
      const consuming: Promise<unknown>[] = [];
      for (const d of durables.values()) {
        d.wakeRetry?.();
        for (const m of d.members) if (m.inFlight) consuming.push(m.inFlight);
      }
      const serving: Promise<unknown>[] = [];
      for (const g of groups.values()) for (const s of g.members) serving.push(...s.inFlight);
      for (const h of timers) clock.clearTimeout(h);
      timers.clear();
      // An event handler that is running gets to finish (and its event acknowledged), as with stop().
      await Promise.allSettled(consuming);
      await settleWithin(serving, drainTimeoutMs);
    },
  };
}
