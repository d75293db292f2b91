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
 *   that with a margin are safe to drop. Every service shares the one stream and
 *   the last to start (or an operator with the nats CLI) sets its limits, so the
 *   age is read from the LIVE stream (`streamMaxAgeMs`, the bus) at each sweep:
 *   marks are kept, and the sweep says so (log, `onSwept` skipped), when the
 *   stream has no age limit, the age cannot be read, or the retention is under
 *   the age plus MARK_MARGIN_MS (which also covers the service clock the cut-off
 *   is taken from against the database's now() that stamped the marks).
 *
 * Rows go in batches of `batchSize`, each its own statement, at most
 * `maxBatches` a sweep per table, so a sweep never holds long locks or one huge
 * transaction; a sweep that stops at the cap leaves the table behind and the
 * next check (`checkEveryMs`) sweeps again rather than waiting `intervalMs`.
 * Each table is pruned on its own (one failing does not skip the other) and
 * every batch is counted as it commits. The cut-off is the injected clock's
 * time minus the age.
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
  /** Processed marks older than this are deleted (0: kept forever), while the live stream allows it (`streamMaxAgeMs`). */
  processedMaxAgeMs: number;
  /**
   * The event stream's age limit as it is now, in ms (0: none), read before each marks prune
   * (Bus.streamMaxAgeMs). Absent: the marks are pruned by `processedMaxAgeMs` alone (tests, tools).
   */
  streamMaxAgeMs?: () => Promise<number>;
  /** How often a sweep runs, by the clock (default 1 h). */
  intervalMs?: number;
  /** How often the timer asks the clock whether a sweep is due (default a minute, at most intervalMs). */
  checkEveryMs?: number;
  /** Rows deleted per statement (default 1000). */
  batchSize?: number;
  /** Statements per table and sweep at most (default 100): the rest waits for the next check. */
  maxBatches?: number;
  /** Sweeps that deleted rows are logged at info when the logger has it; failures and skipped marks at warn. */
  logger?: RetentionLogger;
  /** Called after each batch that deleted rows (metrics). */
  onPruned?: (info: { table: RetainedTable; rows: number }) => void;
  /**
   * Called after each table's sweep: `behind` when it stopped at `maxBatches` (more rows are due),
   * `skipped` when the marks were kept because the live stream may still deliver their events.
   */
  onSwept?: (info: { table: RetainedTable; behind: boolean; skipped: boolean }) => void;
}

export type RetainedTable = 'outbox' | 'processed_events';

type RetentionLogger = EventsLogger & { info?: (msg: string, fields?: Record<string, unknown>) => void };

/** The least retention ages: far above the relay's gap wait (outbox-order.ts), so a pruned seq is never one a gap still waits for. */
export const MIN_RETENTION_MS = 60_000;
/** The greatest retention ages: 100 years (a Date far beyond is not representable). */
export const MAX_RETENTION_MS = 100 * 365 * 86_400_000;
/** Processed marks are pruned only when their retention is at least the stream's age limit plus this (clock skew, redelivery in flight). */
export const MARK_MARGIN_MS = 3_600_000;

export interface RetentionPruner {
  /** Sweeps when due by the clock (or at once while behind), checked every `checkEveryMs`. */
  start(): void;
  /** Stops the timer and waits for a sweep in flight, which stops after its current batch. */
  stop(): Promise<void>;
  /** One sweep now, whatever the schedule: the rows deleted per table. Rejects (after both tables ran) when one failed. */
  sweep(): Promise<Record<RetainedTable, number>>;
}

/** Why the marks must be kept for a stream age limit of `streamMaxAgeMs`, or undefined when `processedMaxAgeMs` may prune them. */
export function marksHeldReason(processedMaxAgeMs: number, streamMaxAgeMs: number): string | undefined {
  if (!Number.isFinite(streamMaxAgeMs) || streamMaxAgeMs < 0) return `the stream's age limit is unknown (${streamMaxAgeMs})`;
  if (streamMaxAgeMs === 0) return 'the stream has no age limit: a recreated durable may replay any event';
  if (processedMaxAgeMs < streamMaxAgeMs + MARK_MARGIN_MS) {
    return `the retention (${processedMaxAgeMs} ms) is under the stream's age limit (${streamMaxAgeMs} ms) plus the margin (${MARK_MARGIN_MS} ms)`;
  }
  return undefined;
}

function checkOptions(opts: RetentionOptions, ints: readonly (readonly [string, number])[]): void {
  for (const [key, v] of [
    ['outboxMaxAgeMs', opts.outboxMaxAgeMs],
    ['processedMaxAgeMs', opts.processedMaxAgeMs],
  ] as const) {
    if (!Number.isSafeInteger(v) || (v !== 0 && (v < MIN_RETENTION_MS || v > MAX_RETENTION_MS))) {
      throw new RangeError(`retention.${key} must be 0 (keep forever) or an integer from ${MIN_RETENTION_MS} to ${MAX_RETENTION_MS}, got ${v}`);
    }
  }
  for (const [key, v] of ints) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`retention.${key} must be a positive integer, got ${v}`);
  }
}

export function createRetentionPruner(opts: RetentionOptions): RetentionPruner {
  const s = schemaIdent(opts.schema);
  const batchSize = opts.batchSize ?? 1000;
  const maxBatches = opts.maxBatches ?? 100;
  const intervalMs = opts.intervalMs ?? 3_600_000;
  const checkEveryMs = Math.min(opts.checkEveryMs ?? 60_000, intervalMs);
  checkOptions(opts, [['batchSize', batchSize], ['maxBatches', maxBatches], ['intervalMs', intervalMs], ['checkEveryMs', checkEveryMs]]);
  const log: RetentionLogger = opts.logger ?? consoleLogger;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> | undefined;
  let last: number | undefined;
  let stopped = false;
  /** The last sweep stopped at maxBatches on some table: sweep again at the next check. */
  let behind = false;

  async function sweep(): Promise<Record<RetainedTable, number>> {
    const at = opts.now().getTime();
    const pruned: Record<RetainedTable, number> = { outbox: 0, processed_events: 0 };
    const errors: unknown[] = [];
    let anyBehind = false;
    const table = async (name: RetainedTable, run: () => Promise<{ behind: boolean; skipped: boolean }>) => {
      try {
        const r = await run();
        anyBehind ||= r.behind;
        opts.onSwept?.({ table: name, ...r });
      } catch (err) {
        errors.push(err);
        log.warn('event-flow retention: prune failed, will try again', { schema: opts.schema, table: name, rows: pruned[name], error: errorText(err) });
      } finally {
        if (pruned[name] > 0) log.info?.('event-flow retention: rows deleted', { schema: opts.schema, table: name, rows: pruned[name] });
      }
    };
    if (opts.outbox && opts.outboxMaxAgeMs > 0) {
      const before = new Date(at - opts.outboxMaxAgeMs);
      await table('outbox', async () => ({ behind: await batches('outbox', pruned, () => pruneOutboxBatch(opts.db, s, before, batchSize)), skipped: false }));
    }
    if (opts.processedMaxAgeMs > 0) await table('processed_events', () => pruneMarks(at, pruned));
    behind = anyBehind;
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `event-flow retention: ${errors.length} tables failed to prune`);
    return pruned;
  }

  async function pruneMarks(at: number, pruned: Record<RetainedTable, number>): Promise<{ behind: boolean; skipped: boolean }> {
    if (opts.streamMaxAgeMs) {
      let reason: string | undefined;
      try {
        reason = marksHeldReason(opts.processedMaxAgeMs, await opts.streamMaxAgeMs());
      } catch (err) {
        reason = `the stream's age limit could not be read (${errorText(err)})`;
      }
      if (reason !== undefined) {
        log.warn('event-flow retention: processed marks kept', { schema: opts.schema, reason });
        return { behind: false, skipped: true };
      }
    }
    const before = new Date(at - opts.processedMaxAgeMs);
    return { behind: await batches('processed_events', pruned, () => pruneProcessedBatch(opts.db, s, before, batchSize)), skipped: false };
  }

  /** Runs batches until one is short, the cap is reached (true: behind) or the pruner stops; counts each batch as it commits. */
  async function batches(name: RetainedTable, pruned: Record<RetainedTable, number>, one: () => Promise<number>): Promise<boolean> {
    for (let i = 0; i < maxBatches; i++) {
      if (stopped) return false;
      const n = await one();
      pruned[name] += n;
      if (n > 0) opts.onPruned?.({ table: name, rows: n });
      if (n < batchSize) return false;
    }
    return true;
  }

  function tick(): void {
    if (running) return;
    const now = opts.now().getTime();
    if (!behind && last !== undefined && now - last < intervalMs) return;
    last = now;
    running = sweep()
      .catch((err: unknown) => log.warn('event-flow retention: sweep failed, will try again', { schema: opts.schema, error: errorText(err) }))
      .finally(() => (running = undefined));
  }

  return {
    start() {
      if (timer || (opts.outboxMaxAgeMs === 0 && opts.processedMaxAgeMs === 0)) return;
      stopped = false;
      timer = setInterval(tick, checkEveryMs);
      timer.unref?.();
      tick();
    },
    async stop() {
      stopped = true;
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
