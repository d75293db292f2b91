import { lookup as dnsLookup } from 'node:dns/promises';
import { signWebhook } from '@parley/an';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { listNotifications } from './store';
import { advanceCursor, claimDue, disableSubscription, nextDueAt, releaseLease, scheduleRetry, type Claimed, type WebhookFeed, type WebhookMessage } from './webhook-store';

export type { WebhookFeed, WebhookMessage } from './webhook-store';
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
 * Time comes from the service's clock. The SQL is webhook-store.ts; the
 * HTTP attempt, the policy check, a subscription's pass and the loop are below.
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

/** What every step of a delivery pass reads: the options resolved, the feed, the clock. */
interface Delivery {
  db: Db;
  log: Logger;
  feed: WebhookFeed;
  policy: WebhookUrlPolicy;
  lookup: (host: string) => Promise<string[]>;
  fetch: typeof fetch;
  now(): Date;
  baseBackoffMs: number;
  maxBackoffMs: number;
  leaseMs: number;
  requestTimeoutMs: number;
  batchSize: number;
  maxAttempts: number;
  /** Aborted by stop(): requests in flight end at once. */
  signal: AbortSignal;
  stopped(): boolean;
}

/** Log fields naming a subscription: its id and what it follows. */
function about(d: Delivery, s: Claimed): Record<string, unknown> {
  return d.feed.kind === 'task' ? { subscription_id: s.id, task_id: s.ref } : { subscription_id: s.id, kind: d.feed.kind, of: s.ref };
}

/** One HTTP attempt; answers undefined on a 2xx, else what went wrong. */
async function post(d: Delivery, s: Claimed, n: WebhookMessage): Promise<string | undefined> {
  try {
    const { id, body } = n;
    const res = await d.fetch(s.url, {
      method: s.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        ...n.headers,
        ...(s.secret !== null ? signWebhook(s.secret, { id, timestamp: Math.floor(d.now().getTime() / 1000), body }) : {}),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(d.requestTimeoutMs), d.signal]),
    });
    await res.body?.cancel().catch(() => {});
    return res.status >= 200 && res.status < 300 ? undefined : `HTTP ${res.status}`;
  } catch (e) {
    const err = e as { message?: string; cause?: { code?: string; message?: string } };
    return `${err.message ?? String(e)}${err.cause ? ` (${err.cause.code ?? err.cause.message ?? ''})` : ''}`.slice(0, 500);
  }
}

/** A failed attempt: retry after the backoff, or disable after maxAttempts in a row. */
async function failed(d: Delivery, s: Claimed, seq: number, failure: string): Promise<void> {
  const attempts = s.attempts + 1;
  if (attempts >= d.maxAttempts) {
    await disableSubscription(d.db, d.feed.table, s.id, d.now(), 'max_attempts', failure, attempts);
    d.log.error(`webhook subscription disabled after too many failed deliveries; ${d.feed.stillReadable}`, { ...about(d, s), seq, attempts, error: failure });
    return;
  }
  const delay = Math.min(d.maxBackoffMs, d.baseBackoffMs * 2 ** Math.min(attempts - 1, 30));
  const next = new Date(d.now().getTime() + delay).toISOString();
  await scheduleRetry(d.db, d.feed.table, s.id, attempts, next, failure);
  d.log.info('webhook delivery failed; will retry', { ...about(d, s), seq, attempts, max_attempts: d.maxAttempts, retry_at: next, error: failure });
}

/**
 * Whether the subscription's URL may be called now. A URL the policy refuses
 * disables the subscription (answers false); a name resolving to a
 * non-public address (default policy) is a failed attempt (answers false).
 */
async function callable(d: Delivery, s: Claimed, seq: number): Promise<boolean> {
  const refusal = d.policy.refusal(s.url);
  if (refusal !== undefined) {
    const error = `webhook URL not allowed: ${refusal}`;
    await disableSubscription(d.db, d.feed.table, s.id, d.now(), 'not_allowed', error, s.attempts);
    d.log.warn('webhook subscription disabled: the webhook URL policy no longer allows its URL', { ...about(d, s), reason: refusal });
    return false;
  }
  const host = d.policy.resolveToCheck(s.url);
  if (host === undefined) return true;
  let addresses: string[];
  try {
    addresses = await d.lookup(host);
  } catch (e) {
    await failed(d, s, seq, `cannot resolve ${host}: ${(e as { code?: string; message?: string }).code ?? (e as Error).message}`);
    return false;
  }
  for (const a of addresses) {
    const kind = nonPublicAddress(a);
    if (kind !== undefined) {
      await failed(d, s, seq, `webhook URL not allowed: host ${host} resolves to ${a}, ${kind}`);
      return false;
    }
  }
  return true;
}

/** Sends what a subscription has not received yet, in order, until a failure. Returns how many were delivered. */
async function deliver(d: Delivery, s: Claimed): Promise<number> {
  let cursor = s.cursor;
  let delivered = 0;
  try {
    for (;;) {
      const batch = await d.feed.list(d.db, s, cursor, 100);
      if (batch.length === 0) break;
      if (delivered === 0 && !(await callable(d, s, batch[0]!.seq))) return 0;
      for (const n of batch) {
        if (d.stopped()) return delivered;
        const failure = await post(d, s, n);
        if (failure !== undefined) {
          await failed(d, s, n.seq, failure);
          return delivered;
        }
        await advanceCursor(d.db, d.feed.table, s.id, cursor, n.seq);
        await d.feed.delivered?.(d.db, s, n.seq);
        s.attempts = 0;
        cursor = n.seq;
        delivered++;
      }
    }
    await releaseLease(d.db, d.feed.table, s.id);
  } catch (e) {
    d.log.warn('webhook delivery pass failed; the lease expires and it is retried', { subscription_id: s.id, error: e });
  }
  return delivered;
}

/** One pass: claim the due subscriptions, deliver to each. */
async function deliverDue(d: Delivery): Promise<number> {
  const claimed = await claimDue(d.db, d.feed, d.now(), d.leaseMs, d.batchSize);
  const counts = await Promise.all(claimed.map((s) => deliver(d, s)));
  return counts.reduce((a, b) => a + b, 0);
}

export function createWebhookDeliverer(opts: WebhookDelivererOptions): WebhookDeliverer {
  const pollMs = opts.pollMs ?? 1000;
  const maxAttempts = opts.maxAttempts ?? DEFAULT_WEBHOOK_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  let started = false;
  let stopped = false;
  let loop: Promise<void> | undefined;
  let nudged = false;
  let wake: (() => void) | undefined;
  const controller = new AbortController();
  const d: Delivery = {
    db: opts.db,
    log: opts.log,
    feed: opts.feed ?? taskNotificationFeed,
    policy: toWebhookPolicy(opts.allow),
    lookup: opts.lookup ?? systemLookup,
    fetch: opts.fetch ?? fetch,
    now: () => opts.clock.now(),
    baseBackoffMs: opts.baseBackoffMs ?? 1000,
    maxBackoffMs: opts.maxBackoffMs ?? 5 * 60_000,
    leaseMs: opts.leaseMs ?? 60_000,
    requestTimeoutMs: opts.requestTimeoutMs ?? 5000,
    batchSize: opts.batchSize ?? 20,
    maxAttempts,
    signal: controller.signal,
    stopped: () => stopped,
  };

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

  /** How long to sleep: until the earliest retry when it is due before the next poll. */
  async function untilNextDue(): Promise<number> {
    try {
      const at = await nextDueAt(d.db, d.feed);
      return at === undefined ? pollMs : Math.max(0, Math.min(pollMs, at - d.now().getTime()));
    } catch {
      return pollMs;
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      nudged = false;
      let delivered = 0;
      try {
        delivered = await deliverDue(d);
      } catch (e) {
        d.log.warn('webhook deliverer pass failed; retrying', { error: e });
      }
      if (stopped) break;
      if (delivered > 0) continue;
      await sleep(await untilNextDue());
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
    deliverDue: () => deliverDue(d),
    async stop() {
      stopped = true;
      controller.abort();
      wake?.();
      await loop;
    },
  };
}
