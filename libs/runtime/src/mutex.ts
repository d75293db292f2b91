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
  /**
   * Reads the state the units keep, as the last unit left it: at once when no
   * unit runs or waits, else in turn after them. A unit changes memory before
   * its transaction commits, so a read that did not wait could show what the
   * database does not hold yet, or what a failed commit takes back.
   */
  read<T>(fn: () => T): Promise<T>;
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
    read<T>(fn: () => T): Promise<T> {
      if (open > 0) return this.run(async () => fn());
      try {
        return Promise.resolve(fn());
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}
