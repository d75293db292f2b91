import type { Db, Queryable } from '@parley/storage';
import type { Bus, Stoppable } from './bus';
import type { EventEnvelope } from './events';

export interface IdempotentConsumeOptions {
  bus: Bus;
  db: Db;
  /** The service schema holding `processed_events` (e.g. `registry`). */
  schema: string;
  /** Durable consumer name; also the `consumer` column of processed_events. */
  durable: string;
  filterSubjects: string[];
  retryDelayMs?: number;
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
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * A durable consumer whose effects happen exactly once per event id although
 * delivery is at-least-once: the event id is recorded in `processed_events` in
 * the same transaction as the handler's writes. A redelivered event finds its
 * id there and changes nothing; a handler that throws rolls both back and the
 * event comes again. The bus acks only after the commit.
 */
export function consumeIdempotently(
  opts: IdempotentConsumeOptions,
  handler: (event: EventEnvelope, tx: Queryable, prepared: unknown) => Promise<void>,
): Promise<Stoppable> {
  if (!IDENT.test(opts.schema)) throw new Error(`invalid schema name "${opts.schema}"`);
  const sql = `INSERT INTO ${opts.schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`;
  const consumeOpts = { durable: opts.durable, filterSubjects: opts.filterSubjects, ...(opts.retryDelayMs === undefined ? {} : { retryDelayMs: opts.retryDelayMs }) };
  return opts.bus.consume(consumeOpts, async (event) => {
    const prepared = opts.prepare ? await opts.prepare(event) : undefined;
    const work = (): Promise<void> =>
      opts.db
        .transaction(async (tx) => {
          const fresh = await tx.query(sql, [opts.durable, event.id]);
          if (fresh.rows.length === 1) await handler(event, tx, prepared);
        })
        .catch(async (err: unknown) => {
          if (opts.onRollback) await opts.onRollback(err);
          throw err;
        });
    return opts.serialize ? opts.serialize(work) : work();
  });
}
