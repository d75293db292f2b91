import type { Db } from '@parley/storage';
import { schemaIdent } from './dead-letters';
import { consoleLogger, errorText, type EventsLogger } from './log';

/**
 * Retention of a service schema's event-flow tables, which would otherwise grow
 * for as long as the service runs (draft-zhou §6.2 event flow):
 *
 * - `<schema>.outbox`: rows published longer than `outboxMaxAgeMs` ago. A row
 *   not yet published is never deleted. The highest seq deleted is kept in
 *   `<schema>.outbox_pruned`, which the relay's seq mark reads beside the rows
 *   (outbox-order.ts), so pruning every row below a gap, or the row the mark
 *   stood on, changes neither the mark nor where a gap is found.
 * - `<schema>.processed_events`: the idempotent consumers' marks, recorded
 *   longer than `processedMaxAgeMs` ago. A mark only matters while the event can
 *   be delivered again: the stream keeps a message at most its max age (a
 *   recreated durable replays the stream from its start), so marks older than
 *   that with a margin are safe to drop (libs/runtime eventFlowFromEnv keeps
 *   the retention above the stream's age limit, and keeps the marks forever
 *   when the stream has none).
 *
 * Rows go in batches of `batchSize`, each its own statement, at most
 * `maxBatches` a sweep, so a sweep never holds long locks or one huge
 * transaction. The cut-off is the injected clock's time minus the age.
 */
export interface RetentionOptions {
  db: Db;
  /** The service schema (e.g. `execution`). */
  schema: string;
  /** The clock the cut-offs are taken from (time is an input: tests replay days in milliseconds). */
  now: () => Date;
  /** Whether the schema has an outbox (services that only consume have none). */
  outbox: boolean;
  /** Published outbox rows older than this are deleted (0: kept forever). */
  outboxMaxAgeMs: number;
  /** Processed marks older than this are deleted (0: kept forever). */
  processedMaxAgeMs: number;
  /** How often a sweep runs, by the clock (default 1 h). */
  intervalMs?: number;
  /** How often the timer asks the clock whether a sweep is due (default a minute, at most intervalMs). */
  checkEveryMs?: number;
  /** Rows deleted per statement (default 1000). */
  batchSize?: number;
  /** Statements per table and sweep at most (default 100): the rest waits for the next sweep. */
  maxBatches?: number;
  /** Sweeps that deleted rows are logged at info when the logger has it; failures at warn. */
  logger?: RetentionLogger;
  /** Called after each sweep that deleted rows from a table (metrics). */
  onPruned?: (info: { table: RetainedTable; rows: number }) => void;
}

export type RetainedTable = 'outbox' | 'processed_events';

type RetentionLogger = EventsLogger & { info?: (msg: string, fields?: Record<string, unknown>) => void };

/** The least retention ages: far above the relay's gap wait (outbox-order.ts), so a pruned seq is never one a gap still waits for. */
export const MIN_RETENTION_MS = 60_000;

export interface RetentionPruner {
  /** Sweeps when due by the clock, checked every `checkEveryMs`. */
  start(): void;
  /** Stops the timer and waits for a sweep in flight. */
  stop(): Promise<void>;
  /** One sweep now, whatever the schedule: the rows deleted per table. */
  sweep(): Promise<Record<RetainedTable, number>>;
}

export function createRetentionPruner(opts: RetentionOptions): RetentionPruner {
  const s = schemaIdent(opts.schema);
  const batchSize = opts.batchSize ?? 1000;
  const maxBatches = opts.maxBatches ?? 100;
  const intervalMs = opts.intervalMs ?? 3_600_000;
  const checkEveryMs = Math.min(opts.checkEveryMs ?? 60_000, intervalMs);
  for (const [key, v, min] of [
    ['outboxMaxAgeMs', opts.outboxMaxAgeMs, MIN_RETENTION_MS],
    ['processedMaxAgeMs', opts.processedMaxAgeMs, MIN_RETENTION_MS],
  ] as const) {
    if (!Number.isSafeInteger(v) || (v !== 0 && v < min)) throw new RangeError(`retention.${key} must be 0 (keep forever) or an integer >= ${min}, got ${v}`);
  }
  for (const [key, v] of [['batchSize', batchSize], ['maxBatches', maxBatches], ['intervalMs', intervalMs], ['checkEveryMs', checkEveryMs]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`retention.${key} must be a positive integer, got ${v}`);
  }
  const log: RetentionLogger = opts.logger ?? consoleLogger;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;
  let last: number | undefined;

  async function sweep(): Promise<Record<RetainedTable, number>> {
    const at = opts.now().getTime();
    const pruned: Record<RetainedTable, number> = { outbox: 0, processed_events: 0 };
    if (opts.outbox && opts.outboxMaxAgeMs > 0) pruned.outbox = await batches(() => pruneOutboxBatch(opts.db, s, new Date(at - opts.outboxMaxAgeMs), batchSize));
    if (opts.processedMaxAgeMs > 0) pruned.processed_events = await batches(() => pruneProcessedBatch(opts.db, s, new Date(at - opts.processedMaxAgeMs), batchSize));
    for (const table of ['outbox', 'processed_events'] as const) {
      if (pruned[table] === 0) continue;
      opts.onPruned?.({ table, rows: pruned[table] });
      log.info?.('event-flow retention: rows deleted', { schema: opts.schema, table, rows: pruned[table] });
    }
    return pruned;
  }

  async function batches(one: () => Promise<number>): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await one();
      total += n;
      if (n < batchSize) break;
    }
    return total;
  }

  function tick(): void {
    if (running) return;
    const now = opts.now().getTime();
    if (last !== undefined && now - last < intervalMs) return;
    last = now;
    running = sweep()
      .catch((err: unknown) => log.warn('event-flow retention: sweep failed, will try again', { schema: opts.schema, error: errorText(err) }))
      .finally(() => (running = undefined));
  }

  return {
    start() {
      if (timer || (opts.outboxMaxAgeMs === 0 && opts.processedMaxAgeMs === 0)) return;
      timer = setInterval(tick, checkEveryMs);
      timer.unref?.();
      tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
    sweep,
  };
}

/**
 * Deletes up to `limit` outbox rows published before `before`, lowest seq first, and raises
 * `outbox_pruned.up_to` to the highest seq deleted, in one statement. A row the relay holds
 * (claimed, its mark not committed) is skipped, not waited for.
 */
export async function pruneOutboxBatch(db: Db, s: string, before: Date, limit: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    `WITH doomed AS (SELECT seq FROM ${s}.outbox WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED),
          gone AS (DELETE FROM ${s}.outbox o USING doomed d WHERE o.seq = d.seq RETURNING o.seq),
          floor AS (INSERT INTO ${s}.outbox_pruned AS f (id, up_to) SELECT true, max(seq) FROM gone HAVING count(*) > 0
                    ON CONFLICT (id) DO UPDATE SET up_to = greatest(f.up_to, excluded.up_to))
     SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** Deletes up to `limit` processed marks recorded before `before`. */
export async function pruneProcessedBatch(db: Db, s: string, before: Date, limit: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    `WITH doomed AS (SELECT consumer, event_id FROM ${s}.processed_events WHERE processed_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED),
          gone AS (DELETE FROM ${s}.processed_events p USING doomed d WHERE p.consumer = d.consumer AND p.event_id = d.event_id RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before, limit],
  );
  return Number(r.rows[0]?.n ?? 0);
}
