import { lookup as dnsLookup } from 'node:dns/promises';
import { signWebhook } from '@parley/an';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { iso, listNotifications } from './store';
import { nonPublicAddress, webhookUrlPolicy, type WebhookUrlPolicy } from './webhook-allow';

/**
 * Delivers task notifications to webhook subscriptions (AN draft 004 §5.2
 * task-subscription, §4.2 asynchronous feedback).
 *
 * Guarantee: at-least-once, in seq order, per subscription, until the
 * subscription is disabled. Each notification is sent (POST or PUT, JSON body
 * = the TaskNotification plus `subscription_id`; headers
 * `Idempotency-Key: <task_id>:<seq>`, `Parley-Task-Id`, `Parley-Seq`) and the
 * subscription's cursor moves to its seq only when the receiver answers 2xx.
 * A failure (no connection, timeout, any other status, a 3xx: redirects are
 * not followed) stops that subscription at that notification and retries it
 * after an exponential backoff (`baseBackoffMs` · 2^(attempts-1), capped at
 * `maxBackoffMs`); nothing later overtakes it, nothing is skipped. A
 * subscriber that was down receives, once it answers again, everything it
 * missed, in order. A crash between a 2xx and the cursor update sends that
 * notification again: receivers drop duplicates by (task_id, seq), which is
 * also the `webhook-id`.
 *
 * Signed bodies (Standard Webhooks, libs/an webhook-signature.ts): every
 * attempt carries `webhook-id: <task_id>:<seq>`, `webhook-timestamp` (unix
 * seconds of the attempt, from the clock) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * keyed by the subscription's own secret, made at registration and returned
 * once (`webhook_secret`). Receivers check it with `verifyWebhookSignature`.
 * The secret is stored as is: the execution service has no data key to seal
 * it with (libs/runtime seal.ts; the semantic pool's PARLEY_DATA_KEY is not
 * given to it). Subscriptions from before the secrets existed go unsigned.
 *
 * Trust limits:
 * - The URL policy (webhook-allow.ts, `allow`, PARLEY_WEBHOOK_ALLOW) is
 *   checked at registration (service.ts) and again before each subscription's
 *   deliveries, since the policy may have changed since: a URL it no longer
 *   allows is not called, and the subscription is disabled
 *   (`state = 'disabled'`, `disabled_reason = 'not_allowed'`) with a warning.
 *   Under the default policy a host name is also resolved first and not
 *   called when it resolves to a non-public address (a failed attempt, retried
 *   like any other: DNS changes). That check precedes the request's own
 *   lookup, so it does not stop DNS rebinding: keep an egress firewall too.
 * - Retries are bounded: after `maxAttempts` consecutive failures (default 50:
 *   about 3.5 hours at the default backoff of 1 s doubling up to 5 min) the
 *   subscription is disabled (`disabled_reason = 'max_attempts'`, the last
 *   error kept) with an error logged, and nothing later is sent to it.
 *   Nothing acknowledged is lost: the notifications stay stored and queryable
 *   (TaskResultQuery, TaskResultSubscribe from any after_seq), and the
 *   subscriber may register again with after_seq = the last seq it received.
 *
 * Due subscriptions are claimed with a lease (`FOR UPDATE SKIP LOCKED`, then
 * `leased_until`), so replicas share the work and never post the same
 * subscription concurrently; an HTTP call never runs inside a transaction.
 * Time comes from the service's clock.
 */
export interface WebhookDeliverer {
  /** Starts the background loop (runs due deliveries now, then on nudge() or every pollMs). */
  start(): void;
  /** Deliver soon: call after committing new notifications. */
  nudge(): void;
  /** One pass over the due subscriptions; resolves with the notifications delivered. */
  deliverDue(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * What a deliverer delivers: the subscriptions (a table with the delivery
 * state columns `id, url, method, cursor, attempts, next_attempt_at,
 * leased_until, last_error, state, disabled_at, disabled_reason, secret`) and
 * the messages each has after its cursor, in order. AN task notifications are
 * one feed (`taskNotificationFeed`, the default); operators' event
 * subscriptions another (event-subscriptions.ts). The delivery rules above —
 * URL policy, signatures, order, backoff, the bound on retries, leases — are
 * this file's, whatever the feed.
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

/** AN task notifications to `execution.subscriptions` (protocol webhook), the feed of task webhooks. */
export const taskNotificationFeed: WebhookFeed = {
  kind: 'task',
  from: 'execution.subscriptions s JOIN execution.tasks t ON t.task_id = s.task_id',
  pending: "s.protocol = 'webhook' AND s.state = 'active' AND t.last_seq > s.cursor",
  ref: 's.task_id',
  table: 'execution.subscriptions',
  async list(db, sub, cursor, limit) {
    return (await listNotifications(db, sub.ref, cursor, limit)).map((n) => {
      const id = `${n.task_id}:${n.seq}`;
      return {
        seq: n.seq,
        id,
        body: JSON.stringify({ ...n, subscription_id: sub.id }),
        headers: { 'idempotency-key': id, 'parley-task-id': n.task_id, 'parley-seq': String(n.seq) },
      };
    });
  },
  stillReadable: 'its notifications stay queryable (TaskResultQuery, TaskResultSubscribe)',
};

export interface WebhookDelivererOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  /** What is delivered (default: AN task notifications). */
  feed?: WebhookFeed;
  /** Default 1000 ms. */
  pollMs?: number;
  /** First retry delay (default 1000 ms); doubles per consecutive failure. */
  baseBackoffMs?: number;
  /** Cap of the retry delay (default 5 min). */
  maxBackoffMs?: number;
  /** How long a claimed subscription is held by this replica (default 60 s). */
  leaseMs?: number;
  /** Timeout of one HTTP request (default 5000 ms). */
  requestTimeoutMs?: number;
  /** Subscriptions claimed per pass (default 20). */
  batchSize?: number;
  /**
   * Consecutive failed attempts after which a subscription is disabled and
   * never called again (default 50; PARLEY_WEBHOOK_MAX_ATTEMPTS).
   */
  maxAttempts?: number;
  /**
   * The URLs that may be called (webhook-allow.ts): a comma-separated pattern
   * list as in PARLEY_WEBHOOK_ALLOW, the patterns, or a policy. Absent: the
   * default policy (https to public hosts only).
   */
  allow?: string | readonly string[] | WebhookUrlPolicy;
  /** Resolves a host name to its addresses (default: the system resolver); the default policy refuses non-public ones. */
  lookup?: (host: string) => Promise<string[]>;
  fetch?: typeof fetch;
}

export const DEFAULT_WEBHOOK_MAX_ATTEMPTS = 50;

/** The policy of an `allow` option. */
export function toWebhookPolicy(allow: WebhookDelivererOptions['allow']): WebhookUrlPolicy {
  return typeof allow === 'object' && allow !== null && 'refusal' in allow ? allow : webhookUrlPolicy(allow as string | readonly string[] | undefined);
}

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

interface Claimed {
  id: string;
  /** What the subscription follows (the feed's `ref`: a task id, a scenario). */
  ref: string;
  method: string | null;
  url: string;
  cursor: number;
  attempts: number;
  secret: string | null;
}

export function createWebhookDeliverer(opts: WebhookDelivererOptions): WebhookDeliverer {
  const { db, clock, log } = opts;
  const pollMs = opts.pollMs ?? 1000;
  const baseBackoffMs = opts.baseBackoffMs ?? 1000;
  const maxBackoffMs = opts.maxBackoffMs ?? 5 * 60_000;
  const leaseMs = opts.leaseMs ?? 60_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? 5000;
  const batchSize = opts.batchSize ?? 20;
  const maxAttempts = opts.maxAttempts ?? DEFAULT_WEBHOOK_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  const policy = toWebhookPolicy(opts.allow);
  const lookup = opts.lookup ?? systemLookup;
  const doFetch = opts.fetch ?? fetch;
  const feed = opts.feed ?? taskNotificationFeed;
  const table = feed.table;
  /** Log fields naming a subscription: its id and what it follows. */
  const about = (s: Claimed): Record<string, unknown> => (feed.kind === 'task' ? { subscription_id: s.id, task_id: s.ref } : { subscription_id: s.id, kind: feed.kind, of: s.ref });

  let started = false;
  let stopped = false;
  let loop: Promise<void> | undefined;
  let nudged = false;
  let wake: (() => void) | undefined;
  const controller = new AbortController();

  const now = () => clock.now();

  async function claim(): Promise<Claimed[]> {
    const at = now();
    const until = new Date(at.getTime() + leaseMs).toISOString();
    return db.transaction(async (tx) => {
      const r = await tx.query<Claimed>(
        `SELECT s.id, ${feed.ref} AS ref, s.method, s.url, s.cursor, s.attempts, s.secret
           FROM ${feed.from}
          WHERE ${feed.pending} AND s.next_attempt_at <= $1
            AND (s.leased_until IS NULL OR s.leased_until <= $1)
          ORDER BY s.next_attempt_at LIMIT $2
          FOR UPDATE OF s SKIP LOCKED`,
        [at.toISOString(), batchSize],
      );
      if (r.rows.length > 0) {
        await tx.query(`UPDATE ${table} SET leased_until = $2 WHERE id = ANY($1::uuid[])`, [r.rows.map((x) => x.id), until]);
      }
      return r.rows.map((x) => ({ ...x, cursor: Number(x.cursor), attempts: Number(x.attempts) }));
    });
  }

  async function post(s: Claimed, n: WebhookMessage): Promise<string | undefined> {
    try {
      const { id, body } = n;
      const res = await doFetch(s.url, {
        method: s.method ?? 'POST',
        headers: {
          'content-type': 'application/json',
          ...n.headers,
          ...(s.secret !== null ? signWebhook(s.secret, { id, timestamp: Math.floor(now().getTime() / 1000), body }) : {}),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(requestTimeoutMs), controller.signal]),
      });
      await res.body?.cancel().catch(() => {});
      return res.status >= 200 && res.status < 300 ? undefined : `HTTP ${res.status}`;
    } catch (e) {
      const err = e as { message?: string; cause?: { code?: string; message?: string } };
      return `${err.message ?? String(e)}${err.cause ? ` (${err.cause.code ?? err.cause.message ?? ''})` : ''}`.slice(0, 500);
    }
  }

  /** Never called again; its notifications stay stored. */
  async function disable(s: Claimed, reason: 'max_attempts' | 'not_allowed', error: string, attempts: number): Promise<void> {
    await db.query(
      `UPDATE ${table} SET state = 'disabled', disabled_at = $2, disabled_reason = $3, last_error = $4, attempts = $5, leased_until = NULL
        WHERE id = $1`,
      [s.id, now().toISOString(), reason, error, attempts],
    );
  }

  /** A failed attempt: retry after the backoff, or disable after maxAttempts in a row. */
  async function failed(s: Claimed, seq: number, failure: string): Promise<void> {
    const attempts = s.attempts + 1;
    if (attempts >= maxAttempts) {
      await disable(s, 'max_attempts', failure, attempts);
      log.error(`webhook subscription disabled after too many failed deliveries; ${feed.stillReadable}`, { ...about(s), seq, attempts, error: failure });
      return;
    }
    const delay = Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.min(attempts - 1, 30));
    const next = new Date(now().getTime() + delay).toISOString();
    await db.query(
      `UPDATE ${table} SET attempts = $2, next_attempt_at = $3, last_error = $4, leased_until = NULL WHERE id = $1`,
      [s.id, attempts, next, failure],
    );
    log.info('webhook delivery failed; will retry', { ...about(s), seq, attempts, max_attempts: maxAttempts, retry_at: next, error: failure });
  }

  /**
   * Whether the subscription's URL may be called now. A URL the policy refuses
   * disables the subscription (answers false); a name resolving to a
   * non-public address (default policy) is a failed attempt (answers false).
   */
  async function callable(s: Claimed, seq: number): Promise<boolean> {
    const refusal = policy.refusal(s.url);
    if (refusal !== undefined) {
      const error = `webhook URL not allowed: ${refusal}`;
      await disable(s, 'not_allowed', error, s.attempts);
      log.warn('webhook subscription disabled: the webhook URL policy no longer allows its URL', { ...about(s), reason: refusal });
      return false;
    }
    const host = policy.resolveToCheck(s.url);
    if (host === undefined) return true;
    let addresses: string[];
    try {
      addresses = await lookup(host);
    } catch (e) {
      await failed(s, seq, `cannot resolve ${host}: ${(e as { code?: string; message?: string }).code ?? (e as Error).message}`);
      return false;
    }
    for (const a of addresses) {
      const kind = nonPublicAddress(a);
      if (kind !== undefined) {
        await failed(s, seq, `webhook URL not allowed: host ${host} resolves to ${a}, ${kind}`);
        return false;
      }
    }
    return true;
  }

  /** Sends what a subscription has not received yet, in order, until a failure. Returns how many were delivered. */
  async function deliver(s: Claimed): Promise<number> {
    let cursor = s.cursor;
    let delivered = 0;
    try {
      for (;;) {
        const batch = await feed.list(db, s, cursor, 100);
        if (batch.length === 0) break;
        if (delivered === 0 && !(await callable(s, batch[0]!.seq))) return 0;
        for (const n of batch) {
          if (stopped) return delivered;
          const failure = await post(s, n);
          if (failure !== undefined) {
            await failed(s, n.seq, failure);
            return delivered;
          }
          await db.query(`UPDATE ${table} SET cursor = $2, attempts = 0, last_error = NULL WHERE id = $1 AND cursor = $3`, [s.id, n.seq, cursor]);
          await feed.delivered?.(db, s, n.seq);
          s.attempts = 0;
          cursor = n.seq;
          delivered++;
        }
      }
      await db.query(`UPDATE ${table} SET leased_until = NULL WHERE id = $1`, [s.id]);
    } catch (e) {
      log.warn('webhook delivery pass failed; the lease expires and it is retried', { subscription_id: s.id, error: e });
    }
    return delivered;
  }

  async function deliverDue(): Promise<number> {
    const claimed = await claim();
    const counts = await Promise.all(claimed.map((s) => deliver(s)));
    return counts.reduce((a, b) => a + b, 0);
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (stopped || nudged) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    while (!stopped) {
      nudged = false;
      let delivered = 0;
      try {
        delivered = await deliverDue();
      } catch (e) {
        log.warn('webhook deliverer pass failed; retrying', { error: e });
      }
      if (stopped) break;
      if (delivered > 0) continue;
      // The earliest retry may be due before the next poll.
      await sleep(await untilNextDue());
    }
  }

  async function untilNextDue(): Promise<number> {
    try {
      const r = await db.query<{ at: unknown }>(
        `SELECT min(s.next_attempt_at) AS at FROM ${feed.from}
          WHERE ${feed.pending} AND s.leased_until IS NULL`,
      );
      const at = r.rows[0]?.at;
      if (at === null || at === undefined) return pollMs;
      return Math.max(0, Math.min(pollMs, Date.parse(iso(at)) - now().getTime()));
    } catch {
      return pollMs;
    }
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      loop = run();
    },
    nudge() {
      nudged = true;
      wake?.();
    },
    deliverDue,
    async stop() {
      stopped = true;
      controller.abort();
      wake?.();
      await loop;
    },
  };
}
