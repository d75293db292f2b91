import type { Bus } from './bus';
import { consoleLogger, type EventsLogger } from './log';
import { createMemoryCore, realClock } from './memory-core';
import { createMemoryRequests } from './memory-requests';
import { createMemoryStream } from './memory-stream';
import type { Subjects } from './subjects';
import type { BusClock } from './memory-core';

export { realClock, type BusClock } from './memory-core';

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

/**
 * The Bus port in this process, for the one-process embedded mode and unit
 * tests. Mirrors the NATS adapter's semantics: queue groups answer round-robin,
 * a durable consumer delivers one event at a time (or, through consumeBatch,
 * the events available, for a consumer that commits them together) in stream order and keeps
 * its cursor across stop()/consume() under the same name, a handler that
 * throws gets the same event again after `retryDelayMs` before any later one.
 *
 * The units: memory-requests.ts (request/reply), memory-stream.ts (the
 * stream and durable consumers), memory-core.ts (the clock, timers, closing).
 */
export function createMemoryBus(opts: MemoryBusOptions): Bus {
  const maxPayloadBytes = opts.maxPayloadBytes ?? 1024 * 1024;
  const core = createMemoryCore(opts.clock ?? realClock, opts.logger ?? consoleLogger, opts.drainTimeoutMs ?? 5000);
  const requests = createMemoryRequests(core);
  const stream = createMemoryStream(core, opts.subjects, {
    duplicateWindowMs: opts.duplicateWindowMs ?? 10 * 60_000,
    maxEvents: opts.maxEvents ?? 100_000,
    maxPayloadBytes,
  });
  return {
    request: requests.request,
    serve: requests.serve,
    publishEvent: stream.publishEvent,
    consume: stream.consume,
    consumeBatch: stream.consumeBatch,
    consumerLag: stream.consumerLag,
    maxEventBytes: () => maxPayloadBytes,
    // The stream lives in this process and has no age limit: the oldest event it still holds is as far back as a new durable can replay.
    streamMaxAgeMs: async () => stream.oldestAgeMs(),
    healthy: async () => !core.isClosed(),
    async close() {
      if (core.isClosed()) return;
      core.close();
      requests.abortPending();
      const consuming = stream.close();
      core.clearTimers();
      // An event handler that is running gets to finish (and its event acknowledged), as with stop().
      await consuming;
      await requests.drain();
    },
  };
}
