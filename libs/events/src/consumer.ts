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
  handler: (event: EventEnvelope, tx: Queryable) => Promise<void>,
): Promise<Stoppable> {
  if (!IDENT.test(opts.schema)) throw new Error(`invalid schema name "${opts.schema}"`);
  const sql = `INSERT INTO ${opts.schema}.processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`;
  const consumeOpts = { durable: opts.durable, filterSubjects: opts.filterSubjects, ...(opts.retryDelayMs === undefined ? {} : { retryDelayMs: opts.retryDelayMs }) };
  return opts.bus.consume(consumeOpts, (event) => {
    const work = (): Promise<void> =>
      opts.db
        .transaction(async (tx) => {
          const fresh = await tx.query(sql, [opts.durable, event.id]);
          if (fresh.rows.length === 1) await handler(event, tx);
        })
        .catch(async (err: unknown) => {
          if (opts.onRollback) await opts.onRollback(err);
          throw err;
        });
    return opts.serialize ? opts.serialize(work) : work();
  });
}
