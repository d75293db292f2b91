import { ParleyError } from '@parley/protocol';
import type { EventsLogger } from './log';

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

/** What the request/reply half and the stream half of the in-process bus (memory-bus.ts) share. */
export interface MemoryCore {
  clock: BusClock;
  log: EventsLogger;
  /** How long stop()/close() wait for request handlers still running. */
  drainTimeoutMs: number;
  isClosed(): boolean;
  /** Throws `unavailable` once the bus is closed. */
  assertOpen(): void;
  closedError(): ParleyError;
  /** Runs `fn` after `ms` on the clock unless cancelled (the returned function) or the bus closes. */
  later(fn: () => void, ms: number): () => void;
  /** Cancels every timer (close()). */
  clearTimers(): void;
}

export function createMemoryCore(clock: BusClock, log: EventsLogger, drainTimeoutMs: number): MemoryCore & { close(): void } {
  const timers = new Set<unknown>();
  let closed = false;
  const closedError = () => new ParleyError('unavailable', 'The event bus is closed.');
  return {
    clock,
    log,
    drainTimeoutMs,
    isClosed: () => closed,
    closedError,
    assertOpen() {
      if (closed) throw closedError();
    },
    later(fn, ms) {
      const h = clock.setTimeout(() => {
        timers.delete(h);
        fn();
      }, ms);
      timers.add(h);
      return () => {
        if (timers.delete(h)) clock.clearTimeout(h);
      };
    },
    clearTimers() {
      for (const h of timers) clock.clearTimeout(h);
      timers.clear();
    },
    close() {
      closed = true;
    },
  };
}
