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
 * - `<schema>.dead_letters`: letters an operator resolved (`retried` or
 *   `discarded`, dead-letters.ts) longer than `deadLettersMaxAgeMs` ago, by
 *   `resolved_at` (stamped by the service's clock). A letter still `dead` is an
 *   open case and is never deleted, whatever its age.
 *
 * Rows go in batches of `batchSize`, each its own statement, at most
 * `maxBatches` a sweep per table, so a sweep never holds long locks or one huge
 * transaction; a sweep that stops at the cap leaves the table behind and the
 * next check (`checkEveryMs`) sweeps again rather than waiting `intervalMs`.
 * Each table is pruned on its own (one failing does not skip the others) and
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
  /** Resolved (`retried`, `discarded`) dead letters resolved longer ago than this are deleted (0 or absent: kept forever); `dead` ones never are. */
  deadLettersMaxAgeMs?: number;
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

export type RetainedTable = 'outbox' | 'processed_events' | 'dead_letters';

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
  /**
   * Stops the timer and waits for the sweeps in flight (the timer's and manual ones), which stop after
   * their current batch. Only the schedule ends: `sweep()` afterwards runs in full, and `start()` starts
   * the timer again.
   */
  stop(): Promise<void>;
  /** One sweep now, whatever the schedule: the rows deleted per table. Rejects (after every table ran) when one failed. */
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
    ['deadLettersMaxAgeMs', opts.deadLettersMaxAgeMs ?? 0],
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
  const deadLettersMaxAgeMs = opts.deadLettersMaxAgeMs ?? 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** The timer's sweep in flight (one at a time). */
  let running: Promise<unknown> | undefined;
  let last: number | undefined;
  /** Every sweep in flight (the timer's and manual ones): stop() cancels them after their current batch and waits for them. */
  const inFlight = new Map<{ cancelled: boolean }, Promise<unknown>>();
  /** The last sweep stopped at maxBatches on some table: sweep again at the next check. */
  let behind = false;

  function sweep(): Promise<Record<RetainedTable, number>> {
    const run = { cancelled: false };
    const p = sweepOnce(run);
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    inFlight.set(run, settled);
    void settled.then(() => inFlight.delete(run));
    return p;
  }

  async function sweepOnce(run: { cancelled: boolean }): Promise<Record<RetainedTable, number>> {
    const at = opts.now().getTime();
    const pruned: Record<RetainedTable, number> = { outbox: 0, processed_events: 0, dead_letters: 0 };
    const errors: unknown[] = [];
    let anyBehind = false;
    // A sweep stop() cancelled goes on to no further table (no NATS round trip for the marks during a
    // shutdown) and reports nothing for the table it cut short: its rows are not known to be done.
    const table = async (name: RetainedTable, prune: () => Promise<{ behind: boolean; skipped: boolean }>) => {
      if (run.cancelled) return;
      try {
        const r = await prune();
        if (run.cancelled) return;
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
      await table('outbox', async () => ({ behind: await batches(run, 'outbox', pruned, () => pruneOutboxBatch(opts.db, s, before, batchSize)), skipped: false }));
    }
    if (opts.processedMaxAgeMs > 0) await table('processed_events', () => pruneMarks(run, at, pruned));
    if (deadLettersMaxAgeMs > 0) {
      const before = new Date(at - deadLettersMaxAgeMs);
      await table('dead_letters', async () => ({ behind: await batches(run, 'dead_letters', pruned, () => pruneDeadLettersBatch(opts.db, s, before, batchSize)), skipped: false }));
    }
    if (!run.cancelled) behind = anyBehind;
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `event-flow retention: ${errors.length} tables failed to prune`);
    return pruned;
  }

  async function pruneMarks(run: { cancelled: boolean }, at: number, pruned: Record<RetainedTable, number>): Promise<{ behind: boolean; skipped: boolean }> {
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
    return { behind: await batches(run, 'processed_events', pruned, () => pruneProcessedBatch(opts.db, s, before, batchSize)), skipped: false };
  }

  /** Runs batches until one is short, the cap is reached (true: behind) or stop() cancels the sweep; counts each batch as it commits. */
  async function batches(run: { cancelled: boolean }, name: RetainedTable, pruned: Record<RetainedTable, number>, one: () => Promise<number>): Promise<boolean> {
    for (let i = 0; i < maxBatches; i++) {
      if (run.cancelled) return false;
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
      if (timer || (opts.outboxMaxAgeMs === 0 && opts.processedMaxAgeMs === 0 && deadLettersMaxAgeMs === 0)) return;
      timer = setInterval(tick, checkEveryMs);
      timer.unref?.();
      tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      // Only the sweeps in flight now are cancelled: a sweep() called later runs in full.
      const waiting = [...inFlight];
      for (const [run] of waiting) run.cancelled = true;
      await Promise.all([running, ...waiting.map(([, done]) => done)]);
    },
    sweep,
  };
}

/**
 * The statement that deletes up to `$2` outbox rows published before `$1`, oldest publication first,
 * and raises `outbox_pruned.up_to` to the highest seq deleted. A row the relay holds (claimed, its mark
 * not committed) is skipped, not waited for. The rows are taken in the order of the partial index
 * `outbox_published_at (published_at, seq) WHERE published_at IS NOT NULL`, so a batch reads about as
 * many index entries as it deletes, and none when nothing is due, however large the table (ordering by
 * seq instead would read every due row, or scan the table, to sort them). Deleting by publication rather
 * than by seq leaves the mark's argument whole (outbox-order.ts): a seq missing below `up_to` was drawn
 * before the row at `up_to`, which was published longer ago than the retention, so its gap was given up
 * long since.
 */
export function outboxPruneSql(s: string): string {
  return `WITH doomed AS (SELECT seq FROM ${s}.outbox WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY published_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED),
          gone AS (DELETE FROM ${s}.outbox o USING doomed d WHERE o.seq = d.seq RETURNING o.seq),
          floor AS (INSERT INTO ${s}.outbox_pruned AS f (id, up_to) SELECT true, max(seq) FROM gone HAVING count(*) > 0
                    ON CONFLICT (id) DO UPDATE SET up_to = greatest(f.up_to, excluded.up_to))
     SELECT count(*)::int AS n FROM gone`;
}

/** Runs outboxPruneSql: the rows deleted. */
export async function pruneOutboxBatch(db: Db, s: string, before: Date, limit: number): Promise<number> {
  const r = await db.query<{ n: number }>(outboxPruneSql(s), [before, limit]);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * The statement that deletes up to `$2` dead letters an operator resolved (`retried`, `discarded`)
 * before `$1`, oldest resolution first; a `dead` one never. It reads the partial index
 * `dead_letters_resolved_at (resolved_at) WHERE status <> 'dead'`, whose predicate it repeats.
 */
export function deadLettersPruneSql(s: string): string {
  return `WITH doomed AS (SELECT id FROM ${s}.dead_letters WHERE status <> 'dead' AND resolved_at < $1 ORDER BY resolved_at LIMIT $2 FOR UPDATE SKIP LOCKED),
          gone AS (DELETE FROM ${s}.dead_letters d USING doomed x WHERE d.id = x.id RETURNING 1)
     SELECT count(*)::int AS n FROM gone`;
}

/** Runs deadLettersPruneSql: the rows deleted. */
export async function pruneDeadLettersBatch(db: Db, s: string, before: Date, limit: number): Promise<number> {
  const r = await db.query<{ n: number }>(deadLettersPruneSql(s), [before, limit]);
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
