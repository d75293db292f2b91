import type { Db } from '@parley/storage';
import { iso } from './store';

// The SQL of webhook delivery (webhooks.ts): claiming due subscriptions under a
// lease, moving the cursor, scheduling a retry, disabling. Every statement runs
// on the feed's subscriptions table, aliased `s` where the feed joins.

/**
 * What a deliverer delivers: the subscriptions (a table with the delivery
 * state columns `id, url, method, cursor, attempts, next_attempt_at,
 * leased_until, last_error, state, disabled_at, disabled_reason, secret`) and
 * the messages each has after its cursor, in order. AN task notifications are
 * one feed (`taskNotificationFeed`, the default); operators' event
 * subscriptions another (event-subscriptions.ts). The delivery rules — URL
 * policy, signatures, order, backoff, the bound on retries, leases — are
 * webhooks.ts's, whatever the feed.
 */
export interface WebhookFeed {
  /** What the subscriptions are of, for logs (`task`, `event`). */
  readonly kind: string;
  /** The subscriptions table, aliased `s`, with whatever it joins: `execution.subscriptions s JOIN execution.tasks t ON …`. */
  readonly from: string;
  /** When a subscription has messages past its cursor (besides being due and unleased). */
  readonly pending: string;
  /** The column naming what a subscription follows (a task id, a scenario), for logs. */
  readonly ref: string;
  /** The subscriptions table alone (for updates). */
  readonly table: string;
  /** The messages of a subscription after `cursor` (at most `limit`), in order. */
  list(db: Db, sub: { id: string; ref: string }, cursor: number, limit: number): Promise<WebhookMessage[]>;
  /** After a message was acknowledged (2xx): e.g. drop what no one needs any more. */
  delivered?(db: Db, sub: { id: string }, seq: number): Promise<void>;
  /** Where a disabled subscription's messages can still be read, for the log. */
  readonly stillReadable: string;
}

/** One message of a feed: its position, its Standard Webhooks id (stable across retries), body and extra headers. */
export interface WebhookMessage {
  seq: number;
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** A subscription claimed for one delivery pass. */
export interface Claimed {
  id: string;
  /** What the subscription follows (the feed's `ref`: a task id, a scenario). */
  ref: string;
  method: string | null;
  url: string;
  cursor: number;
  attempts: number;
  secret: string | null;
}

/** Claims up to `limit` due, unleased subscriptions with pending messages (`FOR UPDATE SKIP LOCKED`, then `leased_until`). */
export async function claimDue(db: Db, feed: WebhookFeed, at: Date, leaseMs: number, limit: number): Promise<Claimed[]> {
  const until = new Date(at.getTime() + leaseMs).toISOString();
  return db.transaction(async (tx) => {
    const r = await tx.query<Claimed>(
      `SELECT s.id, ${feed.ref} AS ref, s.method, s.url, s.cursor, s.attempts, s.secret
         FROM ${feed.from}
        WHERE ${feed.pending} AND s.next_attempt_at <= $1
          AND (s.leased_until IS NULL OR s.leased_until <= $1)
        ORDER BY s.next_attempt_at LIMIT $2
        FOR UPDATE OF s SKIP LOCKED`,
      [at.toISOString(), limit],
    );
    if (r.rows.length > 0) {
      await tx.query(`UPDATE ${feed.table} SET leased_until = $2 WHERE id = ANY($1::uuid[])`, [r.rows.map((x) => x.id), until]);
    }
    return r.rows.map((x) => ({ ...x, cursor: Number(x.cursor), attempts: Number(x.attempts) }));
  });
}

/** A 2xx for the message at `seq`: the cursor moves from `from` to it and the failure count resets. */
export async function advanceCursor(db: Db, table: string, id: string, from: number, seq: number): Promise<void> {
  await db.query(`UPDATE ${table} SET cursor = $2, attempts = 0, last_error = NULL WHERE id = $1 AND cursor = $3`, [id, seq, from]);
}

export async function releaseLease(db: Db, table: string, id: string): Promise<void> {
  await db.query(`UPDATE ${table} SET leased_until = NULL WHERE id = $1`, [id]);
}

/** A failed attempt: the next one at `next` (ISO). */
export async function scheduleRetry(db: Db, table: string, id: string, attempts: number, next: string, failure: string): Promise<void> {
  await db.query(`UPDATE ${table} SET attempts = $2, next_attempt_at = $3, last_error = $4, leased_until = NULL WHERE id = $1`, [id, attempts, next, failure]);
}

/** Never called again; its messages stay stored. */
export async function disableSubscription(db: Db, table: string, id: string, at: Date, reason: 'max_attempts' | 'not_allowed', error: string, attempts: number): Promise<void> {
  await db.query(
    `UPDATE ${table} SET state = 'disabled', disabled_at = $2, disabled_reason = $3, last_error = $4, attempts = $5, leased_until = NULL
      WHERE id = $1`,
    [id, at.toISOString(), reason, error, attempts],
  );
}

/** When the earliest unleased subscription with pending messages is due (ms since the epoch), if any. */
export async function nextDueAt(db: Db, feed: WebhookFeed): Promise<number | undefined> {
  const r = await db.query<{ at: unknown }>(
    `SELECT min(s.next_attempt_at) AS at FROM ${feed.from}
      WHERE ${feed.pending} AND s.leased_until IS NULL`,
  );
  const at = r.rows[0]?.at;
  return at === null || at === undefined ? undefined : Date.parse(iso(at));
}
