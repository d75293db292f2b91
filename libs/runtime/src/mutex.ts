/**
 * One-at-a-time execution inside a process. The evolution services keep their
 * state in memory as a fold of a stored input log; a mutex makes "apply to
 * memory, then append to the log" one step, so the log's order is the order
 * the state saw.
 */
export interface Mutex {
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether no unit of work runs or waits: what is in memory then is what the last unit left. */
  idle(): boolean;
}

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  let open = 0;
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      open++;
      const next = tail.then(fn, fn).finally(() => open--);
      tail = next.catch(() => undefined);
      return next;
    },
    idle: () => open === 0,
  };
}
