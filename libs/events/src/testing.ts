/** Test helpers for code that publishes or consumes events (import from `@parley/events/testing`). */
import { randomUUID } from 'node:crypto';
import type { Bus, ConsumeOptions, Stoppable } from './bus';
import { EventType, type EventEnvelope, type OtherCapturedData, type PayloadExecutedData } from './events';

export interface CollectedEvents extends Stoppable {
  /** Every delivery that the handler accepted, in delivery order (duplicates included). */
  readonly events: EventEnvelope[];
  /** Resolves with `events` once it holds at least `n`; rejects after `timeoutMs` (default 5000). */
  waitFor(n: number, timeoutMs?: number): Promise<EventEnvelope[]>;
}

/**
 * A durable consumer that records what it receives. `onEvent` runs first; if it
 * throws, the event is not recorded and the bus redelivers it.
 */
export async function collectEvents(
  bus: Bus,
  opts: ConsumeOptions & { onEvent?: (event: EventEnvelope) => void | Promise<void> },
): Promise<CollectedEvents> {
  const events: EventEnvelope[] = [];
  const waiters = new Set<() => void>();
  const { onEvent, ...consumeOpts } = opts;
  const sub = await bus.consume(consumeOpts, async (e) => {
    await onEvent?.(e);
    events.push(e);
    for (const w of [...waiters]) w();
  });
  return {
    events,
    stop: () => sub.stop(),
    waitFor(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (events.length < n) return;
          clearTimeout(t);
          waiters.delete(check);
          resolve(events);
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${opts.durable}: received ${events.length} of ${n} events within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

type EnvelopeOverrides<D> = Partial<Omit<EventEnvelope, 'type' | 'data'>> & { data?: Partial<D> };

/** A test event: envelope and data filled with plausible values, any member overridable. */
function testEvent<T extends EventEnvelope['type']>(type: T, scenarioId: string, over: EnvelopeOverrides<unknown>, data: Record<string, unknown>): EventEnvelope {
  const { data: dataOver, ...env } = over;
  return {
    id: randomUUID(),
    type,
    scenario_id: scenarioId,
    occurred_at: new Date().toISOString(),
    source: 'test',
    ...env,
    data: {
      execution_id: randomUUID(),
      agent: 'test-agent',
      schema_id: `${scenarioId}_v1`,
      scenario_id: scenarioId,
      client_id: 'test-client',
      ...data,
      ...(dataOver as object | undefined),
    },
  } as EventEnvelope;
}

export function payloadExecuted(scenarioId = 'flight_booking', over: EnvelopeOverrides<PayloadExecutedData> = {}): EventEnvelope {
  return testEvent(EventType.PayloadExecuted, scenarioId, over, { keys_present: ['a'], key_type_correct: { a: true }, defaults_applied: [], duration_ms: 1 });
}

export function otherCaptured(scenarioId = 'flight_booking', over: EnvelopeOverrides<OtherCapturedData> = {}): EventEnvelope {
  return testEvent(EventType.OtherCaptured, scenarioId, over, { fragments: ['extra'] });
}

export interface FlakyBus extends Bus {
  /** Events whose publishEvent call succeeded, in call order (a re-publish appears twice). */
  readonly published: EventEnvelope[];
  /** publishEvent calls, failed ones included. */
  readonly attempts: number;
  /** Fail the next `n` publishEvent calls. */
  failNext(n: number): void;
}

/** Wraps a bus to record publishes and make chosen ones fail, as a NATS outage would. */
export function flakyBus(inner: Bus, opts: { failFirst?: number } = {}): FlakyBus {
  let failLeft = opts.failFirst ?? 0;
  let attempts = 0;
  const published: EventEnvelope[] = [];
  return {
    published,
    get attempts() {
      return attempts;
    },
    failNext(n) {
      failLeft = n;
    },
    request: (s, b, o) => inner.request(s, b, o),
    serve: (s, q, h) => inner.serve(s, q, h),
    async publishEvent(e) {
      attempts++;
      if (failLeft > 0) {
        failLeft--;
        throw new Error('simulated bus outage');
      }
      await inner.publishEvent(e);
      published.push(e);
    },
    consume: (o, h) => inner.consume(o, h),
    ...(inner.maxEventBytes ? { maxEventBytes: () => (inner.maxEventBytes as () => number)() } : {}),
    ...(inner.streamMaxAgeMs ? { streamMaxAgeMs: () => (inner.streamMaxAgeMs as () => Promise<number>)() } : {}),
    healthy: () => inner.healthy(),
    close: () => inner.close(),
  };
}
