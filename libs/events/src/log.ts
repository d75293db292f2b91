/** Where the adapters report failures they handle themselves (a handler that threw, a retry). */
export interface EventsLogger {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export const consoleLogger: EventsLogger = {
  warn: (msg, fields) => console.warn(`[parley/events] ${msg}`, fields ?? ''),
  error: (msg, fields) => console.error(`[parley/events] ${msg}`, fields ?? ''),
};

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/** Waits for `promises` to settle, but no longer than `ms`: shutdown must not hang on a handler that never returns. */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let t: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((r) => (t = setTimeout(r, ms)))]);
  clearTimeout(t);
}
