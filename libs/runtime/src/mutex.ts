/**
 * One-at-a-time execution inside a process. The evolution services keep their
 * state in memory as a fold of a stored input log; a mutex makes "apply to
 * memory, then append to the log" one step, so the log's order is the order
 * the state saw.
 */
export interface Mutex {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<T>): Promise<T> {
      const next = tail.then(fn, fn);
      tail = next.catch(() => undefined);
      return next;
    },
  };
}
