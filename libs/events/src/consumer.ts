import { ParleyError } from '@parley/protocol';
import type { Db, Queryable } from '@parley/storage';
import type { Bus, Stoppable } from './bus';
import { reportDeadLetter, schemaIdent, setAside, type DeadLetterOffice } from './dead-letters';
import type { EventEnvelope } from './events';
import { consoleLogger, errorText, type EventsLogger } from './log';

export interface IdempotentConsumeOptions {
  bus: Bus;
  db: Db;
  /** The service schema holding `processed_events` and `dead_letters` (e.g. `registry`). */
  schema: string;
  /** Durable consumer name; also the `consumer` column of processed_events and dead_letters. */
  durable: string;
  filterSubjects: string[];
  retryDelayMs?: number;
  /**
   * Failed deliveries of one event after which it is set aside in
   * `<schema>.dead_letters` with its error, marked processed and acknowledged,
   * so the next event is handled (default DEFAULT_CONSUMER_MAX_ATTEMPTS). A
   * failure the error itself calls retryable (ParleyError `retryable`: a
   * dependency is unavailable, not this event) is retried without counting:
   * setting events aside would not help, and would take every event out of
   * order while the dependency is down.
   */
  maxAttempts?: number;
  /** Where dead letters are logged (`event.dead_lettered`; default the console). */
  logger?: EventsLogger;
  /** The schema's dead-letter office: lets an operator apply a dead letter again through this consumer. */
  deadLetters?: DeadLetterOffice;
  /** The time a dead letter is stamped with (default the system clock). */
  now?: () => Date;
  /**
   * Runs each delivery's transaction through this (e.g. a mutex's `run`), for
   * a consumer whose handler also changes in-memory state that must follow
   * the committed order.
   */
  serialize?: <T>(work: () => Promise<T>) => Promise<T>;
  /**
   * Called when the transaction fails, commit included, before the event is
   * left for redelivery: a handler that changed memory ahead of the database
   * restores it here.
   */
  onRollback?: (err: unknown) => Promise<void>;
  /**
   * Work that must not run inside the transaction (calls to other services,
   * an LLM): runs first, for every delivery, and its result is handed to the
   * handler. With a single-connection database (PGlite) a call that waits on
   * another service's query inside the transaction would never finish.
   */
  prepare?: (event: EventEnvelope) => Promise<unknown>;
  /**
   * Events applied in one transaction at most, when the bus delivers batches
   * (Bus.consumeBatch; default 100): under load one
   * transaction and one processed_events statement carry many events.
   */
  maxBatch?: number;
  /**
   * Applies the new events of a batch together (e.g. one multi-row statement)
   * instead of calling the handler for each. A failure is nobody's in
   * particular: the events are then taken one at a time through the handler.
   */
  handleBatch?: (events: { event: EventEnvelope; prepared: unknown }[], tx: Queryable) => Promise<void>;
  /**
   * Applies new events and records their ids in one statement, a data-modifying
   * CTE, instead of a processed-marks statement and then the handler: used for
   * every delivery (one event or a batch) but an operator's replay of a dead
   * letter. It gets the events (ids distinct) and `marks`, whose `cte` inserts
   * ids into processed_events ON CONFLICT DO NOTHING and names those it
   * inserted `fresh(event_id)`; the statement must apply the effect of only the
   * ids in `fresh`, so a redelivery changes nothing. Its writes commit together:
   * one statement on `db` (no transaction), or `db.transaction`. A handler that
   * changed memory ahead of the statement and finds there that some of the
   * events were applied before throws `AppliedBefore` inside its transaction:
   * the events are then taken again the ordinary way (marks first), not counted
   * as failures. Any other failure is handled as handleBatch's.
   */
  applyMarked?: (events: { event: EventEnvelope; prepared: unknown }[], db: Db, marks: ProcessedMarks) => Promise<void>;
  /**
   * Whether the handler would change anything for `event` now. An event it
   * says no to is acknowledged without a transaction or a processed mark (a
   * mark records an effect, and there is none to record); the events of a
   * delivery it says yes to are applied as always. Give it only for a handler
   * that, for such an event, writes nothing and changes no memory, and make it
   * pure and cheap: it runs for every delivery, outside `serialize`. A
   * redelivery is judged again, which for an event that had no effect is the
   * same as a first delivery, so each effect still happens once.
   */
  concerns?: (event: EventEnvelope) => boolean;
}

/**
 * The processed marks of an `applyMarked` statement: `cte` is
 * `fresh AS (INSERT INTO <schema>.processed_events … RETURNING event_id)`, to
 * follow `WITH`, taking `$1` and `$2`; `params(ids)` gives those two (the
 * statement's own parameters start at `$3`).
 */
export interface ProcessedMarks {
  cte: string;
  params(ids: readonly string[]): [string, string[]];
}

/**
 * Thrown by an `applyMarked` handler (inside its transaction, so nothing
 * commits) when its statement found events applied before after the handler
 * had changed memory for them: the consumer takes them again with their marks
 * read first. Not a failure of the events.
 */
export class AppliedBefore extends Error {
  constructor(readonly eventIds: readonly string[]) {
    super(`events applied before: ${eventIds.join(', ')}`);
    this.name = 'AppliedBefore';
  }
}

/** Failed deliveries before an event is set aside (about 4 s at the default 1 s redelivery delay). */
export const DEFAULT_CONSUMER_MAX_ATTEMPTS = 5;

/** Whether a failure is about a dependency rather than the event (not counted toward maxAttempts). */
function transient(err: unknown): boolean {
  return err instanceof ParleyError && err.retryable;
}

/**
 * A durable consumer whose effects happen exactly once per event id although
 * delivery is at-least-once: the event id is recorded in `processed_events` in
 * the same transaction as the handler's writes. A redelivered event finds its
 * id there and changes nothing; a handler that throws rolls both back and the
 * event comes again, up to `maxAttempts` times, after which it is set aside
 * (dead_letters and processed_events in one transaction) and acknowledged. The
 * bus acks only after a commit. A bus that delivers batches (Bus.consumeBatch)
 * gets the events available applied in one transaction, their marks in one
 * statement; a batch that fails is taken again one event at a time.
 */
export async function consumeIdempotently(
  opts: IdempotentConsumeOptions,
  handler: (event: EventEnvelope, tx: Queryable, prepared: unknown) => Promise<void>,
): Promise<Stoppable> {
  const schema = schemaIdent(opts.schema);
  const maxAttempts = opts.maxAttempts ?? DEFAULT_CONSUMER_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer');
  const log = opts.logger ?? consoleLogger;
  const now = opts.now ?? (() => new Date());
  const markMany = `INSERT INTO ${schema}.processed_events (consumer, event_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id`;
  const mark = `INSERT INTO ${schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`;
  const consumeOpts = { durable: opts.durable, filterSubjects: opts.filterSubjects, ...(opts.retryDelayMs === undefined ? {} : { retryDelayMs: opts.retryDelayMs }) };
  // Counted failures of the event being delivered (one at a time per durable, so this stays tiny).
  const failures = new Map<string, number>();

  const marks: ProcessedMarks = {
    cte: `fresh AS (INSERT INTO ${schema}.processed_events (consumer, event_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id)`,
    params: (ids) => [opts.durable, [...ids]],
  };
  const fused = { db: opts.db, marks, prepare: opts.prepare, onRollback: opts.onRollback, serialize: opts.serialize };

  /**
   * Applies `event` once: its effect and its processed mark commit together
   * (one applyMarked statement, or the mark then the handler; `again` first
   * clears the mark and takes the handler's way).
   */
  const apply = async (event: EventEnvelope, again?: (tx: Queryable) => Promise<void>): Promise<void> => {
    if (opts.applyMarked && !again) {
      try {
        return await applyMarkedMany(fused, opts.applyMarked, [event], { index: -1 });
      } catch (err) {
        if (!(err instanceof AppliedBefore)) throw err;
      }
    }
    const prepared = opts.prepare ? await opts.prepare(event) : undefined;
    const work = (): Promise<void> =>
      opts.db
        .transaction(async (tx) => {
          if (again) await tx.query(`DELETE FROM ${schema}.processed_events WHERE consumer = $1 AND event_id = $2`, [opts.durable, event.id]);
          const fresh = await tx.query(mark, [opts.durable, event.id]);
          if (fresh.rows.length === 1) await handler(event, tx, prepared);
          if (again) await again(tx);
        })
        .catch(async (err: unknown) => {
          if (opts.onRollback) await opts.onRollback(err);
          throw err;
        });
    return opts.serialize ? opts.serialize(work) : work();
  };

  const setEventAside = async (event: EventEnvelope, err: unknown, attempts: number): Promise<void> => {
    const error = errorText(err);
    const id = await opts.db.transaction(async (tx) => {
      const fresh = await tx.query(mark, [opts.durable, event.id]);
      // Applied after all (a redelivery raced the last failure): nothing to set aside.
      if (fresh.rows.length === 0) return undefined;
      return setAside(tx, schema, { source: 'consumer', consumer: opts.durable, event, error, attempts }, now());
    });
    if (id !== undefined) await reportDeadLetter(opts.db, schema, log, { source: 'consumer', consumer: opts.durable, event, error, attempts, id });
  };

  /** Counts a failed delivery of `event`: rethrows (the bus delivers it again) until maxAttempts, then sets it aside. */
  const failed = async (event: EventEnvelope, err: unknown): Promise<void> => {
    if (transient(err)) throw err;
    const attempts = (failures.get(event.id) ?? 0) + 1;
    if (attempts < maxAttempts) {
      if (failures.size > 1000) failures.clear();
      failures.set(event.id, attempts);
      throw err;
    }
    failures.delete(event.id);
    // Throws (and the event comes again) only if the database cannot take the dead letter either.
    await setEventAside(event, err, attempts);
  };

  const one = async (event: EventEnvelope): Promise<void> => {
    try {
      await apply(event);
    } catch (err) {
      return failed(event, err);
    }
    failures.delete(event.id);
  };

  /**
   * The events available, applied in one transaction: their processed marks in
   * one statement (those it returns are new), then the handler for each new one
   * in order. When the handler (or prepare) fails on one of them, the failure is
   * that event's: the events before it are applied again as a batch, its
   * failure is counted (redelivery from it, or set aside at maxAttempts and the
   * rest applied). A failure of the marks or the commit takes each event alone.
   * The bus's redelivery finds the events committed meanwhile marked.
   */
  const batch = async (events: EventEnvelope[]): Promise<void> => {
    if (events.length === 0) return;
    if (events.length === 1) return one(events[0]!);
    const at = { index: -1 };
    try {
      const o = { db: opts.db, markMany, durable: opts.durable, prepare: opts.prepare, onRollback: opts.onRollback, handleBatch: opts.handleBatch };
      const work = () => applyMany(o, events, handler, at);
      const ordinary = () => (opts.serialize ? opts.serialize(work) : work());
      if (!opts.applyMarked) await ordinary();
      else {
        // Events applied before found by the statement: taken again with their marks read first.
        await applyMarkedMany(fused, opts.applyMarked, events, at).catch((err: unknown) => {
          if (!(err instanceof AppliedBefore)) throw err;
          at.index = -1;
          return ordinary();
        });
      }
    } catch (err) {
      if (transient(err)) throw err;
      if (at.index < 0) {
        for (const e of events) await one(e);
        return;
      }
      await batch(events.slice(0, at.index));
      await failed(events[at.index]!, err);
      await batch(events.slice(at.index + 1));
      return;
    }
    for (const e of events) failures.delete(e.id);
  };
  // Events with no effect are acknowledged with the delivery, without a transaction (opts.concerns).
  // A `concerns` that throws counts the event as concerned: the normal path then counts its failures and sets it aside.
  const concerns = opts.concerns
    ? (e: EventEnvelope): boolean => {
        try {
          return opts.concerns!(e);
        } catch {
          return true;
        }
      }
    : undefined;
  const deliverBatch = concerns ? (events: EventEnvelope[]) => batch(events.filter((e) => concerns(e))) : batch;
  const deliverOne = concerns ? async (event: EventEnvelope) => (concerns(event) ? one(event) : undefined) : one;
  const sub = opts.bus.consumeBatch
    ? await opts.bus.consumeBatch({ ...consumeOpts, ...(opts.maxBatch === undefined ? {} : { maxBatch: opts.maxBatch }) }, deliverBatch)
    : await opts.bus.consume(consumeOpts, deliverOne);
  const unregister = opts.deadLetters?.registerConsumer(opts.durable, (event, inTx) => apply(event, inTx));
  return {
    async stop() {
      unregister?.();
      await sub.stop();
    },
  };
}

/**
 * One transaction for a batch of events: the processed marks in one statement,
 * then the handler for each event it marked new, in order. `at.index` names the
 * event whose prepare or handler is running, -1 outside them (the marks, the
 * commit), so a caller knows whose failure it was.
 */
async function applyMany(
  o: Pick<IdempotentConsumeOptions, 'db' | 'durable' | 'prepare' | 'onRollback' | 'handleBatch'> & { markMany: string },
  events: EventEnvelope[],
  handler: (event: EventEnvelope, tx: Queryable, prepared: unknown) => Promise<void>,
  at: { index: number },
): Promise<void> {
  const prepared: unknown[] = [];
  if (o.prepare) {
    for (at.index = 0; at.index < events.length; at.index++) prepared.push(await o.prepare(events[at.index]!));
    at.index = -1;
  }
  await o.db
    .transaction(async (tx) => {
      const marked = await tx.query<{ event_id: string }>(o.markMany, [o.durable, events.map((e) => e.id)]);
      const fresh = new Set(marked.rows.map((r) => String(r.event_id).toLowerCase()));
      if (o.handleBatch) {
        // Deleted as taken: an id twice in one batch is applied once.
        const taken = events.flatMap((event, i) => (fresh.delete(event.id.toLowerCase()) ? [{ event, prepared: prepared[i] }] : []));
        if (taken.length > 0) await o.handleBatch(taken, tx);
        return;
      }
      for (at.index = 0; at.index < events.length; at.index++) {
        // Deleted as handled: an id twice in one batch is applied once.
        if (fresh.delete(events[at.index]!.id.toLowerCase())) await handler(events[at.index]!, tx, prepared[at.index]);
      }
      at.index = -1;
    })
    .catch(async (err: unknown) => {
      if (o.onRollback) await o.onRollback(err);
      throw err;
    });
}

/**
 * One applyMarked call for `events` (ids made distinct, first kept): their
 * prepare first, outside `serialize` as applyMany's, then the handler's
 * statement. `at.index` names the event whose prepare runs, -1 otherwise.
 */
async function applyMarkedMany(
  o: Pick<IdempotentConsumeOptions, 'db' | 'prepare' | 'onRollback' | 'serialize'> & { marks: ProcessedMarks },
  applyMarked: NonNullable<IdempotentConsumeOptions['applyMarked']>,
  events: EventEnvelope[],
  at: { index: number },
): Promise<void> {
  const seen = new Set<string>();
  const distinct = events.filter((e) => {
    const id = e.id.toLowerCase();
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const taken: { event: EventEnvelope; prepared: unknown }[] = [];
  for (const event of distinct) {
    if (o.prepare) at.index = events.indexOf(event);
    taken.push({ event, prepared: o.prepare ? await o.prepare(event) : undefined });
  }
  at.index = -1;
  const work = (): Promise<void> =>
    applyMarked(taken, o.db, o.marks).catch(async (err: unknown) => {
      if (o.onRollback) await o.onRollback(err);
      throw err;
    });
  await (o.serialize ? o.serialize(work) : work());
}
