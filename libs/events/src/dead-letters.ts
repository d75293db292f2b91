import { ParleyError } from '@parley/protocol';
import type { Db, Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';
import type { EventEnvelope } from './events';
import { consoleLogger, errorText, type EventsLogger } from './log';
import type { Subjects } from './subjects';

/**
 * Dead letters: the one mechanism by which no single event can stop an event
 * pipeline (draft-zhou §6.2 event flow). Every service schema has the same
 * `<schema>.dead_letters` table (libs/storage/migrations/<service>/…_dead_letters.sql).
 * Three things set an event aside there, each in the transaction that takes
 * it out of the flow, so it is never lost:
 *
 * - the outbox insert guard: an event whose encoding exceeds MAX_EVENT_BYTES
 *   never enters the outbox (`source = 'outbox'`, attempts 0);
 * - the outbox relay: a row the bus refuses because of the row itself (larger
 *   than the bus's payload limit, or refused `maxAttempts` times while the bus
 *   is otherwise healthy) moves from the outbox to the dead letters;
 * - a durable consumer (consumeIdempotently): an event whose handler failed
 *   `maxAttempts` times is recorded with the error, marked processed and
 *   acknowledged, and the next event is handled.
 *
 * Each is logged as `event.dead_lettered` (a stable name to alert on) with the
 * number of dead letters still open. Operators list, retry and discard them
 * through `createDeadLetterOffice` (the services' DeadLetterService).
 */
export const DEAD_LETTER_LOG = 'event.dead_lettered';

/**
 * Largest encoded event that enters an outbox (256 KiB). Well under NATS's
 * default max_payload (1 MiB): events carry bounded data (fragments, values),
 * so only a bug or a new unbounded member reaches it, and then that one event
 * is set aside instead of stalling the relay.
 */
export const MAX_EVENT_BYTES = 256 * 1024;

export type DeadLetterSource = 'outbox' | 'consumer';
export type DeadLetterStatus = 'dead' | 'retried' | 'discarded';

export interface DeadLetterRecord {
  source: DeadLetterSource;
  /** The durable consumer's name (source `consumer` only). */
  consumer?: string;
  event: EventEnvelope;
  subject?: string;
  error: string;
  attempts: number;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

export function schemaIdent(schema: string): string {
  // Interpolated into SQL: only plain lower-case identifiers, as the service schemas are.
  if (!IDENT.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  return schema;
}

/** Bytes of the event as the bus carries it (libs/events codec: UTF-8 JSON). */
export function eventBytes(event: EventEnvelope): number {
  return Buffer.byteLength(JSON.stringify(event), 'utf8');
}

/** Inserts one dead letter in the caller's transaction; returns its id. */
export async function setAside(q: Queryable, schema: string, r: DeadLetterRecord, at: Date): Promise<string> {
  const s = schemaIdent(schema);
  const text = JSON.stringify(r.event);
  const res = await q.query<{ id: string }>(
    `INSERT INTO ${s}.dead_letters (source, consumer, event_id, event_type, scenario_id, subject, event, event_bytes, error, attempts, dead_at)
     VALUES ($1, $2, $3::uuid, $4, $5, $6, $7::json, $8, $9, $10, $11) RETURNING id::text AS id`,
    [r.source, r.source === 'consumer' ? (r.consumer ?? '') : null, r.event.id, r.event.type, r.event.scenario_id, r.subject ?? null, text, Buffer.byteLength(text, 'utf8'), r.error.slice(0, 4000), r.attempts, at.toISOString()],
  );
  return String(res.rows[0]?.id);
}

/** The statement setAside runs, for events too large to enter the outbox, as a data-modifying CTE body. */
export function deadLetterInsert(schema: string, subjects: Subjects, events: readonly EventEnvelope[], limit: number, firstParam: number): { sql: string; params: unknown[] } {
  const s = schemaIdent(schema);
  const values: string[] = [];
  const params: unknown[] = [];
  for (const e of events) {
    const n = firstParam + params.length;
    const text = JSON.stringify(e);
    const bytes = Buffer.byteLength(text, 'utf8');
    values.push(`('outbox', NULL, $${n}::uuid, $${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}::json, $${n + 5}::int, $${n + 6}, 0, now())`);
    params.push(e.id, e.type, e.scenario_id, subjects.event(e.scenario_id, e.type), text, bytes, tooLargeError(bytes, limit));
  }
  return {
    sql: `INSERT INTO ${s}.dead_letters (source, consumer, event_id, event_type, scenario_id, subject, event, event_bytes, error, attempts, dead_at) VALUES ${values.join(', ')}`,
    params,
  };
}

export function tooLargeError(bytes: number, limit: number): string {
  return `event_too_large: ${bytes} bytes exceed the limit of ${limit} bytes`;
}

/** Logs one dead letter under the stable name, with the dead letters still open in the schema. */
export async function reportDeadLetter(q: Queryable, schema: string, log: EventsLogger, r: Omit<DeadLetterRecord, 'event'> & { event: Pick<EventEnvelope, 'id' | 'type' | 'scenario_id'>; id?: string }): Promise<void> {
  let open: number | undefined;
  try {
    open = Number((await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schemaIdent(schema)}.dead_letters WHERE status = 'dead'`)).rows[0]?.n);
  } catch {
    open = undefined;
  }
  log.error(DEAD_LETTER_LOG, {
    schema,
    source: r.source,
    ...(r.consumer !== undefined ? { consumer: r.consumer } : {}),
    ...(r.id !== undefined ? { dead_letter_id: r.id } : {}),
    event_id: r.event.id,
    event_type: r.event.type,
    scenario_id: r.event.scenario_id,
    attempts: r.attempts,
    error: r.error.slice(0, 500),
    ...(open !== undefined ? { dead_letters_open: open } : {}),
  });
}

// ---------------------------------------------------------------------------
// The operator's view: list, retry, discard.

export interface DeadLetterView {
  id: string;
  source: DeadLetterSource;
  consumer: string | null;
  event_id: string;
  event_type: string;
  scenario_id: string;
  subject: string | null;
  error: string;
  attempts: number;
  event_bytes: number;
  dead_at: string;
  status: DeadLetterStatus;
  resolved_at: string | null;
  resolved_by: string | null;
  note: string | null;
  /** The start of the event's JSON (at most 1000 characters). */
  event_preview: string;
}

export interface DeadLetterCounts {
  dead: number;
  retried: number;
  discarded: number;
}

export interface DeadLetterFilter {
  /** Default `dead` (still set aside); `all` lists every status. */
  status?: DeadLetterStatus | 'all';
  scenario_id?: string;
  consumer?: string;
  /** Only ids after this one (paging); default 0. */
  after_id?: string;
  /** 1..1000, default 100. */
  limit?: number;
}

export interface RetryOutcome {
  dead_letter: DeadLetterView;
  /** True when the event is back in the flow (outbox) or was applied (consumer). */
  retried: boolean;
  /** Why it was not, when it was not (the dead letter stays `dead`, its attempts and error updated). */
  error?: string;
}

export interface DeadLetterOffice {
  readonly schema: string;
  list(filter?: DeadLetterFilter): Promise<{ dead_letters: DeadLetterView[]; counts: DeadLetterCounts }>;
  /**
   * An outbox dead letter goes back into the outbox (published after the events
   * already there); a consumer's is applied now by that consumer (it must run in
   * this process). Only a `dead` letter can be retried.
   */
  retry(id: string, actor: string): Promise<RetryOutcome>;
  /** Marks a `dead` letter discarded (kept for the record, never retried; deleted by the retention sweep PARLEY_DEAD_LETTER_RETENTION_MS after, retention.ts). */
  discard(id: string, actor: string, reason: string): Promise<DeadLetterView>;
  /** consumeIdempotently registers how to apply an event again, and unregisters on stop. */
  registerConsumer(durable: string, apply: (event: EventEnvelope, inTx: (tx: Queryable) => Promise<void>) => Promise<void>): () => void;
  /** The outbox relay registers its nudge, called after an outbox retry. */
  registerRelay(nudge: () => void): void;
}

export interface DeadLetterOfficeOptions {
  db: Db;
  schema: string;
  subjects: Subjects;
  /** Largest event an outbox retry puts back (default MAX_EVENT_BYTES). */
  maxEventBytes?: number;
  now?: () => Date;
  logger?: EventsLogger;
}

interface Row {
  id: string;
  source: DeadLetterSource;
  consumer: string | null;
  event_id: string;
  event_type: string;
  scenario_id: string;
  subject: string | null;
  error: string;
  attempts: number;
  event_bytes: number;
  dead_at: Date | string;
  status: DeadLetterStatus;
  resolved_at: Date | string | null;
  resolved_by: string | null;
  note: string | null;
  preview: string;
}

const COLUMNS = `id::text AS id, source, consumer, event_id::text AS event_id, event_type, scenario_id, subject, error, attempts, event_bytes, dead_at, status, resolved_at, resolved_by, note, left(event::text, 1000) AS preview`;
const STATUSES = ['dead', 'retried', 'discarded', 'all'] as const;
const ID = /^[1-9][0-9]{0,17}$/;

function iso(v: Date | string | null): string | null {
  return v === null ? null : isoTimestamp(v);
}

function view(r: Row): DeadLetterView {
  return {
    id: r.id,
    source: r.source,
    consumer: r.consumer,
    event_id: r.event_id,
    event_type: r.event_type,
    scenario_id: r.scenario_id,
    subject: r.subject,
    error: r.error,
    attempts: Number(r.attempts),
    event_bytes: Number(r.event_bytes),
    dead_at: iso(r.dead_at) as string,
    status: r.status,
    resolved_at: iso(r.resolved_at),
    resolved_by: r.resolved_by,
    note: r.note,
    event_preview: r.preview,
  };
}

function badParam(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function deadLetterId(id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id)) throw badParam('params.id', 'pattern', 'params.id must be a dead letter id as listed (a positive integer)');
  return id;
}

export function createDeadLetterOffice(opts: DeadLetterOfficeOptions): DeadLetterOffice {
  const s = schemaIdent(opts.schema);
  const { db, subjects } = opts;
  const now = opts.now ?? (() => new Date());
  const log = opts.logger ?? consoleLogger;
  const maxEventBytes = opts.maxEventBytes ?? MAX_EVENT_BYTES;
  // Keyed by durable names, which are this service's own; a Map still keeps them apart from Object's members.
  const consumers = new Map<string, (event: EventEnvelope, inTx: (tx: Queryable) => Promise<void>) => Promise<void>>();
  let nudge: (() => void) | undefined;

  async function load(q: Queryable, id: string, lock: boolean): Promise<Row & { event: unknown }> {
    const r = await q.query<Row & { event: unknown }>(`SELECT ${COLUMNS}, event FROM ${s}.dead_letters WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    const row = r.rows[0];
    if (!row) throw new ParleyError('dead_letter_not_found', `No dead letter ${id} in ${s}`, { path: 'params.id', rule: 'exists' });
    return row;
  }

  function mustBeDead(row: Row): void {
    if (row.status !== 'dead') {
      throw new ParleyError('illegal_transition', `Dead letter ${row.id} is already ${row.status}`, { path: 'params.id', rule: 'dead_only', details: { status: row.status } });
    }
  }

  async function reload(id: string): Promise<DeadLetterView> {
    return view(await load(db, id, false));
  }

  const resolve = (tx: Queryable, id: string, status: DeadLetterStatus, actor: string, note: string | null) =>
    tx.query(`UPDATE ${s}.dead_letters SET status = $2, resolved_at = $3, resolved_by = $4, note = $5 WHERE id = $1`, [id, status, now().toISOString(), actor.slice(0, 256), note]);

  return {
    schema: s,
    async list(filter = {}) {
      const status = filter.status ?? 'dead';
      if (!(STATUSES as readonly string[]).includes(status)) throw badParam('params.status', 'enum', `params.status must be one of ${STATUSES.join(', ')}`);
      const limit = filter.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw badParam('params.limit', 'range', 'params.limit must be an integer in 1..1000');
      const after = filter.after_id === undefined || filter.after_id === '' ? '0' : deadLetterId(filter.after_id);
      const r = await db.query<Row>(
        `SELECT ${COLUMNS} FROM ${s}.dead_letters
         WHERE id > $1::bigint AND ($2::text = 'all' OR status = $2) AND ($3::text IS NULL OR scenario_id = $3) AND ($4::text IS NULL OR consumer = $4)
         ORDER BY id LIMIT $5`,
        [after, status, filter.scenario_id ?? null, filter.consumer ?? null, limit],
      );
      const c = await db.query<{ status: DeadLetterStatus; n: number }>(
        `SELECT status, count(*)::int AS n FROM ${s}.dead_letters WHERE ($1::text IS NULL OR scenario_id = $1) AND ($2::text IS NULL OR consumer = $2) GROUP BY status`,
        [filter.scenario_id ?? null, filter.consumer ?? null],
      );
      const counts: DeadLetterCounts = { dead: 0, retried: 0, discarded: 0 };
      for (const row of c.rows) counts[row.status] = Number(row.n);
      return { dead_letters: r.rows.map(view), counts };
    },

    async retry(rawId, actor) {
      const id = deadLetterId(rawId);
      const head = await load(db, id, false);
      mustBeDead(head);
      if (head.source === 'outbox') {
        const event = (typeof head.event === 'string' ? JSON.parse(head.event) : head.event) as EventEnvelope;
        const bytes = eventBytes(event);
        if (bytes > maxEventBytes) {
          throw new ParleyError('illegal_transition', `Dead letter ${id} is ${bytes} bytes, over the limit of ${maxEventBytes}: it cannot be published; discard it`, {
            path: 'params.id',
            rule: 'max_event_bytes',
            details: { event_bytes: bytes, max_event_bytes: maxEventBytes },
          });
        }
        await db.transaction(async (tx) => {
          mustBeDead(await load(tx, id, true));
          await tx.query(`INSERT INTO ${s}.outbox (id, subject, event, created_at) VALUES ($1::uuid, $2, $3::json, $4) ON CONFLICT (id) DO NOTHING`, [
            event.id,
            subjects.event(event.scenario_id, event.type),
            JSON.stringify(event),
            now().toISOString(),
          ]);
          await resolve(tx, id, 'retried', actor, 'back in the outbox');
        });
        nudge?.();
        log.warn('event.dead_letter_retried', { schema: s, dead_letter_id: id, event_id: event.id, source: 'outbox', actor });
        return { dead_letter: await reload(id), retried: true };
      }
      const apply = consumers.get(head.consumer ?? '');
      if (!apply) {
        throw new ParleyError('unavailable', `The consumer ${head.consumer} does not run in this process; retry on the replica that runs it`, {
          path: 'params.id',
          rule: 'consumer_running',
          details: { consumer: head.consumer },
        });
      }
      const event = (typeof head.event === 'string' ? JSON.parse(head.event) : head.event) as EventEnvelope;
      try {
        await apply(event, async (tx) => {
          mustBeDead(await load(tx, id, true));
          await resolve(tx, id, 'retried', actor, 'applied by its consumer');
        });
      } catch (err) {
        const text = errorText(err);
        await db.query(`UPDATE ${s}.dead_letters SET attempts = attempts + 1, error = $2 WHERE id = $1 AND status = 'dead'`, [id, text.slice(0, 4000)]);
        log.warn('event.dead_letter_retry_failed', { schema: s, dead_letter_id: id, event_id: event.id, consumer: head.consumer, actor, error: text.slice(0, 500) });
        return { dead_letter: await reload(id), retried: false, error: text };
      }
      log.warn('event.dead_letter_retried', { schema: s, dead_letter_id: id, event_id: event.id, source: 'consumer', consumer: head.consumer, actor });
      return { dead_letter: await reload(id), retried: true };
    },

    async discard(rawId, actor, reason) {
      const id = deadLetterId(rawId);
      if (typeof reason !== 'string' || reason.trim() === '') throw badParam('params.reason', 'required', 'params.reason is required: every discard is kept with why');
      if (reason.length > 1000) throw badParam('params.reason', 'max_length', 'params.reason must be at most 1000 characters');
      await db.transaction(async (tx) => {
        mustBeDead(await load(tx, id, true));
        await resolve(tx, id, 'discarded', actor, reason.trim());
      });
      log.warn('event.dead_letter_discarded', { schema: s, dead_letter_id: id, actor });
      return reload(id);
    },

    registerConsumer(durable, apply) {
      consumers.set(durable, apply);
      return () => {
        if (consumers.get(durable) === apply) consumers.delete(durable);
      };
    },

    registerRelay(fn) {
      nudge = fn;
    },
  };
}
