import type { Db, Queryable } from '@parley/storage';
import type { Bus } from './bus';
import { MAX_EVENT_BYTES, deadLetterInsert, eventBytes, reportDeadLetter, schemaIdent, setAside, tooLargeError, type DeadLetterOffice } from './dead-letters';
import type { EventEnvelope } from './events';
import { consoleLogger, errorText, type EventsLogger } from './log';
import type { Subjects } from './subjects';
import { context as otelContext } from '@opentelemetry/api';
import { contextOf, currentCarrier, type Carrier } from './tracing';
import { cutAtGap, outboxMarkSql, type GapWatch } from './outbox-order';

/**
 * Writes events to `<schema>.outbox` in the caller's transaction, so they exist
 * if and only if the state change that caused them commits. Call
 * `relay.nudge()` after the commit to publish them without waiting for a poll.
 *
 * The size guard: an event whose encoding exceeds `maxEventBytes` (default
 * MAX_EVENT_BYTES) is written to `<schema>.dead_letters` instead, in the same
 * transaction, so it can never stall the relay; the state change still commits.
 */
export async function appendToOutbox(
  tx: Queryable,
  schema: string,
  subjects: Subjects,
  events: readonly EventEnvelope[],
  opts: { maxEventBytes?: number; logger?: EventsLogger } = {},
): Promise<void> {
  if (events.length === 0) return;
  const { sql, params, tooLarge } = outboxInsert(schema, subjects, events, 1, opts);
  await tx.query(sql, params);
  appended.add(tx);
  if (tooLarge.length > 0) await reportTooLarge(tx, schema, tooLarge, opts);
}

/** The transactions appendToOutbox wrote rows in. */
const appended = new WeakSet<Queryable>();

/**
 * Whether appendToOutbox wrote rows in `tx`: a consumer whose handler only
 * sometimes appends events nudges its relay after the commit only then, rather
 * than costing the relay a poll per event consumed.
 */
export function appendedToOutbox(tx: Queryable): boolean {
  return appended.has(tx);
}

/** Logs the events outboxInsert set aside (call after running its statement, in the same transaction). */
export async function reportTooLarge(tx: Queryable, schema: string, tooLarge: readonly EventEnvelope[], opts: { maxEventBytes?: number; logger?: EventsLogger } = {}): Promise<void> {
  const limit = opts.maxEventBytes ?? MAX_EVENT_BYTES;
  for (const e of tooLarge) {
    await reportDeadLetter(tx, schema, opts.logger ?? consoleLogger, { source: 'outbox', event: e, error: tooLargeError(eventBytes(e), limit), attempts: 0 });
  }
}

/**
 * The statement appendToOutbox runs, with its parameters numbered from
 * `firstParam`, for a caller that folds it into a statement of its own: `with`
 * names data-modifying CTEs (`name AS (INSERT …)`) that run in the same
 * statement, so the state change and its events commit atomically in one
 * round trip. The rows get consecutive seq numbers in the order given. Events
 * over the size limit go to `<schema>.dead_letters` in the same statement and
 * are returned in `tooLarge` (pass them to reportTooLarge).
 */
export function outboxInsert(
  schema: string,
  subjects: Subjects,
  events: readonly EventEnvelope[],
  firstParam: number,
  opts: { with?: readonly string[]; maxEventBytes?: number } = {},
): { sql: string; params: unknown[]; tooLarge: EventEnvelope[] } {
  const s = schemaIdent(schema);
  const limit = opts.maxEventBytes ?? MAX_EVENT_BYTES;
  // Each event is encoded once: its size decides where it goes, its text is what is stored.
  const fits: { e: EventEnvelope; text: string }[] = [];
  const tooLarge: EventEnvelope[] = [];
  for (const e of events) {
    const text = JSON.stringify(e);
    // A UTF-16 length within the limit cannot exceed it in UTF-8 bytes by more than 3x; count bytes only near it.
    if (text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit) fits.push({ e, text });
    else tooLarge.push(e);
  }
  const ctes = [...(opts.with ?? [])];
  const params: unknown[] = [];
  if (tooLarge.length > 0) {
    const dl = deadLetterInsert(s, subjects, tooLarge, limit, firstParam);
    ctes.push(`too_large AS (${dl.sql})`);
    params.push(...dl.params);
  }
  let main = 'SELECT 1';
  if (fits.length > 0) {
    // The trace context of the change (OpenTelemetry; null without one): the relay's publication continues it.
    const carrier = currentCarrier();
    const trace = carrier ? JSON.stringify(carrier) : null;
    const values: string[] = [];
    for (const { e, text } of fits) {
      const n = firstParam + params.length;
      values.push(`($${n}::uuid, $${n + 1}, $${n + 2}::json, now(), $${n + 3})`);
      params.push(e.id, subjects.event(e.scenario_id, e.type), text, trace);
    }
    main = `INSERT INTO ${s}.outbox (id, subject, event, created_at, trace_context) VALUES ${values.join(', ')}`;
  }
  return { sql: ctes.length > 0 ? `WITH ${ctes.join(', ')} ${main}` : main, params, tooLarge };
}

export interface OutboxRelayOptions {
  db: Db;
  /** The service schema holding the `outbox` table (e.g. `execution`). */
  schema: string;
  bus: Bus;
  /** Rows claimed per transaction (default 100). */
  batchSize?: number;
  /** Poll for rows committed without a nudge, e.g. by another replica (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * How long a nudge waits before the relay runs (default 0). A few milliseconds
   * let one relay transaction carry the events of many commits under load, at
   * the price of that much publication delay.
   */
  nudgeDelayMs?: number;
  /** First retry delay after a failed publish; doubles per consecutive failure (default 200 ms). */
  retryBaseMs?: number;
  /** Cap of the retry delay (default 30 s). */
  retryMaxMs?: number;
  /** Called on every failed publish or database error; the relay retries regardless (default: logged as a warning). */
  onError?: (err: unknown, info: { eventId?: string; attempts?: number }) => void;
  /**
   * Tries after which a row the bus keeps refusing is set aside in
   * `<schema>.dead_letters`, provided the bus reports itself healthy right
   * after the last failure (an outage sets nothing aside: every row waits)
   * (default DEFAULT_OUTBOX_MAX_ATTEMPTS). A row larger than the bus's payload
   * limit is set aside at once: no retry can publish it.
   */
  maxAttempts?: number;
  /** Where dead letters are logged (`event.dead_lettered`; default the console). */
  logger?: EventsLogger;
  /** The schema's dead-letter office: an operator's outbox retry nudges this relay. */
  deadLetters?: DeadLetterOffice;
  /** The time a dead letter is stamped with (default the system clock). */
  now?: () => Date;
  /** Called for every event published, with the seconds since its row was committed (metrics). */
  onPublished?: (info: { eventId: string; lagSeconds: number }) => void;
  /**
   * How long rows wait behind a seq that a transaction still in flight may fill
   * before that gap is given up and logged (default 5000 ms; see outbox-order.ts).
   */
  maxGapWaitMs?: number;
  /**
   * Rows of a batch sent before the relay waits for their acks (default the batch size; 1 sends the next row
   * only once the stream has acknowledged the one before). The rows go out in seq order and their acks are
   * read in that order, so a batch costs about one round trip to the stream instead of one per row. When the
   * bus refuses a row, the rows sent behind it stay unmarked and are sent again after it; if the stream stored
   * some of them meanwhile they precede it on the stream (logged; see warnOvertaken). Above 1 the relay trades
   * that narrow case for throughput; 1 keeps seq order through every failure.
   */
  publishWindow?: number;
}

/** Tries before a row the bus keeps refusing (while healthy) is set aside; with the default back-off about 25 s. */
export const DEFAULT_OUTBOX_MAX_ATTEMPTS = 8;
/** How often a relay looks for rows no nudge announced, by default (PARLEY_OUTBOX_POLL_MS). */
export const DEFAULT_OUTBOX_POLL_MS = 1000;

export interface OutboxRelay {
  /** Starts the background loop: publishes pending rows now, then on nudge() or every pollIntervalMs. */
  start(): void;
  /** Publish soon; call after committing a transaction that appended events. */
  nudge(): void;
  /** Resolves when no row is pending (tests, graceful shutdown); retries failures meanwhile. Works without start(). */
  drain(): Promise<void>;
  /** Finishes the batch in flight and stops; pending drain() calls reject. */
  stop(): Promise<void>;
  /** Rows not yet published. */
  pending(): Promise<number>;
}

interface Row {
  seq: number | string;
  id: string;
  event: EventEnvelope | string;
  bytes: number | string;
  trace_context: string | null;
  /** Seconds since the row was written (the database's clock, which wrote created_at). */
  age_s: number | string | null;
  /** The highest seq below the first pending one: handled before this claim. */
  mark: number | string;
}

/**
 * Publishes the outbox to the bus in seq order and marks rows published.
 *
 * Each batch is claimed with `FOR UPDATE SKIP LOCKED` in a transaction that
 * stays open while the batch is published and the rows are marked, so a
 * replica never publishes rows another one holds. On top of that a
 * transaction-scoped advisory lock lets only one replica publish at a time:
 * with row locks alone a second replica would publish the next batch
 * concurrently and the stream order would no longer follow seq.
 *
 * Seq order holds across concurrent writers too: rows wait behind a seq that a
 * transaction still in flight may fill, until it has ended (outbox-order.ts).
 *
 * A crash after publishing and before the commit leaves the rows pending; the
 * next attempt re-publishes them and JetStream's de-duplication (msg id =
 * event id, within the stream's duplicate window) drops the copies.
 *
 * A batch's rows are sent in seq order without waiting for each ack
 * (`publishWindow`), and their acks read in the same order. A publish failure
 * stops the batch at that row: it and the rows behind it stay unmarked (later
 * rows must not be marked ahead of it), attempts/last_error are recorded on it,
 * and the relay retries with capped exponential backoff, one row at a time
 * until a batch passes whole. Rows behind it that the stream stored meanwhile
 * are sent again after it and de-duplicated (see warnOvertaken for the order). No row can stop the ones behind it for good: a row larger than the
 * bus's payload limit, or one refused `maxAttempts` times while the bus is
 * healthy, moves to `<schema>.dead_letters` in the batch's transaction
 * (logged as `event.dead_lettered`), and the rows after it go on in order.
 * While the bus is down nothing is set aside: every row waits. Rows are never
 * dropped; published ones are deleted after their retention age by the
 * service's pruner (retention.ts), which keeps the seq mark (outboxMarkSql).
 */
export function createOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const s = schemaIdent(opts.schema);
  const { db, bus } = opts;
  const batchSize = opts.batchSize ?? 100;
  const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_OUTBOX_POLL_MS;
  const nudgeDelayMs = opts.nudgeDelayMs ?? 0;
  let nudgeTimer: ReturnType<typeof setTimeout> | undefined;
  const retryBaseMs = opts.retryBaseMs ?? 200;
  const retryMaxMs = opts.retryMaxMs ?? 30_000;
  const onError =
    opts.onError ??
    ((err: unknown, info: { eventId?: string; attempts?: number }) =>
      consoleLogger.warn('outbox relay: publish failed, will retry', { schema: s, ...info, error: errorText(err) }));
  const lockKey = hashKey(`parley.outbox.${s}`);
  const maxAttempts = opts.maxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer');
  const publishWindow = opts.publishWindow ?? batchSize;
  if (!Number.isInteger(publishWindow) || publishWindow < 1) throw new RangeError('publishWindow must be a positive integer');
  const log = opts.logger ?? consoleLogger;
  const now = opts.now ?? (() => new Date());

  let started = false;
  let stopped = false;
  let loop: Promise<void> | undefined;
  let nudged = false;
  let wake: (() => void) | undefined;
  let failures = 0;
  const drainers: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const batch: Batch = { db, bus, s, batchSize, lockKey, maxAttempts, onError, onPublished: opts.onPublished, log, now, maxGapWaitMs: opts.maxGapWaitMs ?? 5000, gap: undefined, publishWindow, cautious: false };

  async function pending(): Promise<number> {
    const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${s}.outbox WHERE published_at IS NULL`);
    return Number(r.rows[0]?.n ?? 0);
  }

  function sleep(ms: number, interruptible: boolean): Promise<void> {
    return new Promise((resolve) => {
      if (stopped || (interruptible && nudged)) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      // A nudge must not cut a failure backoff short, or a dead bus would be hammered on every commit.
      wake = interruptible ? done : () => stopped && done();
    });
  }

  async function run(): Promise<void> {
    let polled = false;
    while (!stopped && (started || drainers.length > 0)) {
      // `polled` is set only after a clean pass's poll sleep (a failed pass backs off and loops with it false).
      const byPoll = polled && !nudged && drainers.length === 0 && batch.gap === undefined;
      nudged = false;
      polled = false;
      let claimed = 0;
      let failed = false;
      let held = false;
      try {
        if (!(byPoll && (await nothingPending(db, s)))) ({ claimed, failed, held } = await publishBatch(batch));
      } catch (err) {
        failed = true;
        onError(err, {});
      }
      if (stopped) break;
      if (held && !failed) {
        // Rows wait behind a seq a transaction in flight may still fill: look again as soon as it may have ended.
        await sleep(GAP_RECHECK_MS, false);
        continue;
      }
      if (failed) {
        failures++;
        const backoff = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 20));
        await sleep(backoff * (0.75 + Math.random() * 0.5), false);
        continue;
      }
      failures = 0;
      if (claimed === batchSize) continue;
      if (drainers.length > 0) {
        let left = 1;
        try {
          left = await pending();
        } catch (err) {
          onError(err, {});
        }
        if (left === 0) {
          for (const d of drainers.splice(0)) d.resolve();
        } else {
          // Rows held by another replica or committed just now: look again shortly.
          await sleep(Math.min(pollIntervalMs, 50), false);
          continue;
        }
      }
      if (!started) break;
      await sleep(pollIntervalMs, true);
      polled = true;
    }
  }

  function ensureLoop(): void {
    if (loop || stopped) return;
    loop = run().finally(() => {
      loop = undefined;
      // A drain() or start() that arrived while the loop was exiting.
      if (!stopped && (started || drainers.length > 0)) ensureLoop();
    });
  }

  const relay: OutboxRelay = {
    start() {
      if (stopped) throw new Error('outbox relay was stopped');
      started = true;
      ensureLoop();
    },
    nudge() {
      if (nudgeDelayMs <= 0) {
        nudged = true;
        wake?.();
        return;
      }
      if (nudgeTimer) return;
      nudgeTimer = setTimeout(() => {
        nudgeTimer = undefined;
        nudged = true;
        wake?.();
      }, nudgeDelayMs);
      nudgeTimer.unref?.();
    },
    drain() {
      if (stopped) return Promise.reject(new Error('outbox relay was stopped'));
      const p = new Promise<void>((resolve, reject) => drainers.push({ resolve, reject }));
      nudged = true;
      wake?.();
      ensureLoop();
      return p;
    },
    async stop() {
      stopped = true;
      if (nudgeTimer) clearTimeout(nudgeTimer);
      wake?.();
      await loop;
      for (const d of drainers.splice(0)) d.reject(new Error('outbox relay stopped before the outbox was drained'));
    },
    pending,
  };
  opts.deadLetters?.registerRelay(() => relay.nudge());
  return relay;
}

/**
 * The look a pass the poll started takes first (no nudge, no drain, no gap watched, the last pass ended cleanly):
 * one statement, with no BEGIN/COMMIT, advisory lock or claim around it, asks whether any row is pending. At rest
 * that is the whole pass. A row committed after the look is found by the nudge its writer sends or by the next poll.
 */
async function nothingPending(db: OutboxRelayOptions['db'], s: string): Promise<boolean> {
  const r = await db.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${s}.outbox WHERE published_at IS NULL) AS any`);
  return r.rows[0]?.any !== true;
}

/** What one publishing batch of the relay needs (createOutboxRelay resolves it from the options). */
interface Batch {
  db: OutboxRelayOptions['db'];
  bus: OutboxRelayOptions['bus'];
  /** The quoted schema identifier. */
  s: string;
  batchSize: number;
  lockKey: number;
  maxAttempts: number;
  onError(err: unknown, info: { eventId?: string; attempts?: number }): void;
  onPublished?: OutboxRelayOptions['onPublished'];
  log: EventsLogger;
  now(): Date;
  maxGapWaitMs: number;
  /** The gap the relay is waiting on, across batches (outbox-order.ts). */
  gap: GapWatch | undefined;
  /** Rows sent before the first of them is acknowledged (OutboxRelayOptions.publishWindow). */
  publishWindow: number;
  /** The last batch stopped at a failed publish: send one row at a time until a batch passes whole. */
  cautious: boolean;
}

/** How soon a relay holding rows behind a gap looks again. */
const GAP_RECHECK_MS = 5;

/**
 * One batch, in one transaction: the advisory lock (one publishing replica) taken by
 * the statement that claims the rows in seq order and marks them published, each published or (too large, or refused
 * maxAttempts times by a healthy bus) set aside; a failure stops the batch.
 */
async function publishBatch(b: Batch): Promise<{ claimed: number; failed: boolean; held: boolean }> {
  const { db, bus, s, batchSize, lockKey, maxAttempts, onError, log } = b;
  return db.transaction(async (tx) => {
    // Whether the gap being watched has settled, asked before the claim so that its snapshot sees every row that
    // filled it (outbox-order.ts). Until it has, nothing is claimed: the rows behind it are not marked and unmarked
    // on every look.
    const settled = b.gap ? await gapSettled(b, tx, b.gap) : false;
    if (b.gap && !settled) return { claimed: 0, failed: false, held: true };
    // The advisory lock, the claim and the published mark in one statement: the uncorrelated subquery is an
    // InitPlan, run once before any row is locked (when another replica holds the lock it filters every row out);
    // the mark is seen by no one unless the transaction commits, after the rows are published. A row that is
    // not published is unmarked before the commit.
    // `seen` reads the statement's snapshot, before its own marks (outboxMarkSql).
    // On a PostgreSQL server the claim also sets the transaction's commit asynchronous (see the end of the pass):
    // `seen` calls set_config once, when the first claimed row is returned, so a pass that claims nothing commits as
    // before (it wrote nothing), and the setting costs no round trip of its own.
    const asyncCommit = db.kind === 'pg' ? `, set_config('synchronous_commit', 'off', true) AS async_commit` : '';
    const claimed = await tx.query<Row>(
      `WITH seen AS (SELECT ${outboxMarkSql(s)} AS mark${asyncCommit})
       UPDATE ${s}.outbox SET published_at = now() WHERE seq IN (
         SELECT seq FROM ${s}.outbox WHERE published_at IS NULL AND (SELECT pg_try_advisory_xact_lock($2))
          ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING seq, id, event, octet_length(event::text) AS bytes, trace_context, EXTRACT(EPOCH FROM clock_timestamp() - created_at) AS age_s,
                 (SELECT mark FROM seen) AS mark`,
      [batchSize, lockKey],
    );
    const all = claimed.rows.sort((x, y) => (BigInt(x.seq) < BigInt(y.seq) ? -1 : 1));
    const first = all[0];
    const cut = first ? cutAtGap(all.map((r) => BigInt(r.seq)), BigInt(first.mark), b.gap, settled, b.now().getTime()) : { publish: 0, watch: undefined };
    // No rows (none pending, or another replica holds the lock) leaves the watch as it was, so its clock runs on.
    if (first) b.gap = cut.watch && cut.watch !== b.gap ? { ...cut.watch, inFlight: await outboxWriters(tx, s) } : cut.watch;
    const rows = all.slice(0, cut.publish);
    const busLimit = bus.maxEventBytes?.();
    // After a failure the rows go one at a time until a batch passes whole (see publishWindow).
    const window = b.cautious ? 1 : b.publishWindow;
    const dead: { event: EventEnvelope; error: string; attempts: number; id: string }[] = [];
    let failed = false;
    let next = 0;
    const stored = new Set<string>();
    for (let start = 0; start < rows.length && !failed; start += window) {
      const chunk = rows.slice(start, start + window).map((row) => sendRow(bus, row, busLimit));
      for (let i = 0; i < chunk.length; i++) {
        next++;
        const { row, event, outcome } = chunk[i]!;
        const result = await outcome;
        if (result.kind === 'too_large') {
          // No retry can publish it: set it aside now, and go on with the next row.
          dead.push({ event, ...(await moveToDeadLetters(b, tx, row, event, tooLargeError(result.bytes, busLimit as number), 1)) });
          continue;
        }
        if (result.kind === 'published') {
          b.onPublished?.({ eventId: row.id, lagSeconds: Number(row.age_s ?? 0) });
          continue;
        }
        const text = errorText(result.error);
        const r = await tx.query<{ attempts: number }>(
          `UPDATE ${s}.outbox SET attempts = attempts + 1, last_error = $2, published_at = NULL WHERE seq = $1 RETURNING attempts`,
          [row.seq, text.slice(0, 2000)],
        );
        const attempts = Number(r.rows[0]?.attempts ?? 0);
        onError(result.error, { eventId: row.id, attempts });
        // The row, not the bus, is the problem when the bus is healthy the moment after refusing it.
        if (attempts >= maxAttempts && (await bus.healthy().catch(() => false))) {
          dead.push({ event, ...(await moveToDeadLetters(b, tx, row, event, text, attempts)) });
          continue;
        }
        failed = true;
        // Rows the stream stored after the refused one stay marked published: sent again after it, they could
        // outlive the stream's de-duplication window (a long outage) and be stored twice.
        for (const seq of await warnOvertaken(b, row, chunk.slice(i + 1))) stored.add(seq);
        break;
      }
    }
    // A batch that sent nothing (every row held behind a gap) says nothing about the bus.
    if (failed || rows.length > 0) b.cautious = failed;
    // The rows behind a failure wait for the retry, and the rows behind a gap for the gap, in order.
    const behind = [...(failed ? rows.slice(next) : []), ...all.slice(cut.publish)].map((r) => String(r.seq)).filter((seq) => !stored.has(seq));
    if (behind.length > 0) await tx.query(`UPDATE ${s}.outbox SET published_at = NULL WHERE seq = ANY($1::bigint[])`, [behind]);
    for (const d of dead) await reportDeadLetter(tx, s, log, { source: 'outbox', event: d.event, error: d.error, attempts: d.attempts, id: d.id });
    // A pass that moved no row to the dead letters (it marked rows published, counted a failed publish or unmarked
    // rows held behind a gap) commits without waiting for its WAL flush on a PostgreSQL server (set by the claim): lost in a crash,
    // marks come back unset and the rows are sent again, dropped by the stream's de-duplication (msg id = event id)
    // and by the consumers' processed marks; a lost attempt count only delays a dead letter. Nothing acknowledged
    // depends on them, and the flush they no longer wait for is one fewer in the queue of the commits that do (an
    // execute's own, the consumers'). Not on PGlite: single-user, it has no WAL writer to flush an asynchronous
    // commit later, so the marks would stay unwritten until the next synchronous commit, however long that takes.
    // A pass that set rows aside commits them at the configured level (database, role, server), as every other
    // write: `TO DEFAULT` restores it (`remote_apply`, `local`, …), where a literal `on` would override it.
    if (dead.length > 0 && db.kind === 'pg') await tx.query('SET LOCAL synchronous_commit TO DEFAULT');
    return { claimed: rows.length, failed, held: cut.publish < all.length };
  });
}

/** What became of one row's publish. */
type Sent = { kind: 'published' } | { kind: 'failed'; error: unknown } | { kind: 'too_large'; bytes: number };

/**
 * Starts publishing one claimed row (unless it is larger than the bus can carry), without waiting for its ack: the
 * relay sends a chunk of rows in seq order and then reads their acks in the same order. Each bus sends its
 * publishEvent calls in call order (Bus.publishEvent), so the stream stores them in seq order.
 */
function sendRow(bus: Bus, row: Row, busLimit: number | undefined): { row: Row; event: EventEnvelope; outcome: Promise<Sent> } {
  const event = (typeof row.event === 'string' ? JSON.parse(row.event) : row.event) as EventEnvelope;
  // The stored JSON text is what the bus carries (events are written as JSON.stringify output).
  const bytes = Number(row.bytes);
  if (busLimit !== undefined && bytes > busLimit) return { row, event, outcome: Promise.resolve({ kind: 'too_large', bytes }) };
  let sent: Promise<void>;
  try {
    // Published in the trace of the transaction that wrote it: the bus's `send` span is its child.
    sent = otelContext.with(contextOf(traceCarrier(row.trace_context)), () => bus.publishEvent(event));
  } catch (error) {
    sent = Promise.reject(error);
  }
  return { row, event, outcome: sent.then((): Sent => ({ kind: 'published' }), (error: unknown): Sent => ({ kind: 'failed', error })) };
}

/**
 * The rows sent after `failed` in its chunk: they stay unmarked and are sent again after it, in order, where the
 * stream's de-duplication drops the copies of those it stored. Those it stored (their acks came back) are on the
 * stream ahead of the failed row, unless it was stored after all and only its ack was lost, or they had been
 * stored before (a re-publish): this is said, since it is the one way pipelining departs from seq order. It
 * takes the bus refusing one event and then storing the next (a clustered stream changing leader, a server
 * restarting between the two), and after it the relay sends one row at a time until a batch passes whole.
 */
async function warnOvertaken(b: Batch, failed: Row, after: { row: Row; outcome: Promise<Sent> }[]): Promise<Set<string>> {
  const outcomes = await Promise.all(after.map((a) => a.outcome));
  const storedRows = after.filter((_, i) => outcomes[i]!.kind === 'published').map((a) => a.row);
  for (const row of storedRows) b.onPublished?.({ eventId: row.id, lagSeconds: Number(row.age_s ?? 0) });
  const stored = storedRows.map((r) => r.id);
  if (stored.length === 0) return new Set();
  b.log.warn('outbox relay: events sent after one the bus refused were stored; on the stream they may precede it', {
    schema: b.s,
    event_id: failed.id,
    stored_after: stored.length,
    first_stored_after: stored[0],
  });
  return new Set(storedRows.map((r) => String(r.seq)));
}

/**
 * The transactions, other than this one, that hold the lock every writer of the
 * outbox takes before it draws a seq (`RowExclusiveLock`, held to its end): the
 * only ones that can still fill a gap. Read after the claim's snapshot, so a
 * writer missing here has ended, and the next claim sees its row.
 */
async function outboxWriters(tx: Queryable, s: string): Promise<string[]> {
  const r = await tx.query<{ writers: string[] }>(
    `SELECT coalesce(array_agg(DISTINCT virtualtransaction), '{}') AS writers FROM pg_locks
      WHERE locktype = 'relation' AND relation = $1::regclass AND mode = 'RowExclusiveLock' AND pid IS DISTINCT FROM pg_backend_pid()`,
    [`${s}.outbox`],
  );
  return r.rows[0]?.writers ?? [];
}

/**
 * Whether every writer in flight when the gap was found has ended, or the gap
 * has waited `maxGapWaitMs` (then it is given up, and logged).
 */
async function gapSettled(b: Batch, tx: Queryable, gap: GapWatch): Promise<boolean> {
  if (gap.inFlight.length === 0) return true;
  const r = await tx.query<{ busy: boolean }>(`SELECT EXISTS (SELECT 1 FROM pg_locks WHERE virtualtransaction = ANY($1::text[])) AS busy`, [gap.inFlight]);
  if (r.rows[0]?.busy !== true) return true;
  if (b.now().getTime() - gap.since < b.maxGapWaitMs) return false;
  b.log.warn('outbox relay: gave up waiting for a seq a transaction still in flight may fill; the rows after it go on', {
    schema: b.s,
    first_missing_seq: String(gap.firstMissing),
    waited_ms: b.now().getTime() - gap.since,
  });
  return true;
}

/** Moves one claimed row from the outbox to the dead letters (in the batch's transaction). */
async function moveToDeadLetters(b: Batch, tx: Queryable, row: Row, event: EventEnvelope, error: string, attempts: number): Promise<{ id: string; error: string; attempts: number }> {
  const subject = (await tx.query<{ subject: string }>(`DELETE FROM ${b.s}.outbox WHERE seq = $1 RETURNING subject`, [row.seq])).rows[0]?.subject;
  const id = await setAside(tx, b.s, { source: 'outbox', event, ...(subject !== undefined ? { subject } : {}), error, attempts }, b.now());
  return { id, error, attempts };
}

function hashKey(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

function traceCarrier(raw: string | null): Carrier | null {
  if (raw === null) return null;
  try {
    const v = JSON.parse(raw) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    const out: Carrier = {};
    for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
    return out;
  } catch {
    return null;
  }
}
