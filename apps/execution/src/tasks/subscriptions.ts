import { randomUUID } from 'node:crypto';
import { isTerminal, parseSubscribe, generateWebhookSecret, type Task } from '@parley/an';
import type { TaskApi } from '@parley/contracts';
import { outboxInsert } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import type { Queryable } from '@parley/storage';
import { plain, type TaskCtx } from './context';
import { toWireNotification } from './to-wire';
import { appendMessage, clip, listNotifications, statusEvents, loadTask, requireTask } from './store';

// Subscriptions (draft 004 §5.2 task-subscription): webhook and NATS subscriptions stored with a cursor,
// gRPC streams that read the notifications after it and follow live changes (live.ts).

/** A webhook URL the policy refuses is invalid_params at params.subscription.url, rule webhook_allowed. */
export function assertWebhookAllowed(c: TaskCtx, s: Task['subscription'] & object): void {
  if (s.protocol !== 'webhook' || s.url === undefined) return;
  const refusal = c.webhookPolicy.refusal(s.url);
  if (refusal === undefined) return;
  throw new ParleyError('invalid_params', `params.subscription.url ${JSON.stringify(s.url.slice(0, 200))} is not an allowed webhook URL: ${refusal}`, {
    path: 'params.subscription.url',
    rule: 'webhook_allowed',
  });
}

/**
 * Stores a subscription; a webhook gets its signing secret. The secret is
 * stored as is: the execution service holds no data key to seal it with.
 */
export async function insertSubscription(tx: Queryable, taskId: string, subscriber: string, s: Task['subscription'] & object, cursor: number, at: string): Promise<{ id: string; secret?: string }> {
  const id = randomUUID();
  const secret = s.protocol === 'webhook' ? generateWebhookSecret() : undefined;
  await tx.query(
    `INSERT INTO execution.subscriptions (id, task_id, subscriber, protocol, method, url, cursor, attempts, next_attempt_at, created_at, secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8, $9)`,
    [id, taskId, subscriber, s.protocol, s.method ?? null, s.url ?? null, cursor, at, secret ?? null],
  );
  return { id, ...(secret ? { secret } : {}) };
}

export async function registerTaskSubscription(c: TaskCtx, req: Parameters<TaskApi['registerTaskSubscription']>[0]) {
  const p = parseSubscribe(plain(req));
  if (p.subscription.protocol === 'grpc') {
    throw new ParleyError('invalid_params', 'gRPC subscriptions are streams: call TaskResultSubscribe with after_seq instead', {
      path: 'params.subscription.protocol',
      rule: 'use_stream',
    });
  }
  const sub = p.subscription;
  assertWebhookAllowed(c, sub);
  const cursor = p.after_seq ?? 0;
  const registered = await c.change(p.task_id, async (tx) => {
    const cur = await requireTask(tx, p.task_id);
    const at = c.now();
    const subId = await insertSubscription(tx, cur.task_id, p.send_from, sub, cursor, at);
    if (sub.protocol === 'nats') {
      // What happened before the subscription, after its cursor, goes to the new subscriber's subject too.
      const missed = await listNotifications(tx, cur.task_id, cursor, 10_000);
      const events = missed.flatMap((n) => statusEvents(n, [p.send_from]));
      if (events.length > 0) {
        const ob = outboxInsert('execution', c.subjects, events, 1);
        await tx.query(ob.sql, ob.params);
      }
    }
    await appendMessage(tx, {
      task_id: cur.task_id,
      send_from: p.send_from,
      send_to: p.send_from === cur.send_to ? cur.send_from : cur.send_to,
      commu_type: 'taskResultSubscribe',
      request: { content: clip(sub.protocol === 'webhook' ? `webhook ${sub.method ?? 'POST'} ${sub.url ?? ''}` : `nats ${c.subjects.taskStatus(p.send_from)}`) },
      time: at,
    });
    return subId;
  });
  return {
    subscription_id: registered.id,
    protocol: sub.protocol,
    cursor,
    ...(sub.protocol === 'nats' ? { subject: c.subjects.taskStatus(p.send_from) } : {}),
    ...(registered.secret ? { webhook_secret: registered.secret } : {}),
  };
}

export async function* taskResultSubscribe(c: TaskCtx, req: Parameters<TaskApi['taskResultSubscribe']>[0], ctx?: Parameters<TaskApi['taskResultSubscribe']>[1]) {
  const p = parseSubscribe({ ...plain(req), subscription: { protocol: 'grpc' } });
  await requireTask(c.db, p.task_id);
  let cursor = p.after_seq ?? 0;
  const signal = ctx?.signal;
  while (!signal?.aborted) {
    // Registered before reading, so a change committed in between is not slept through.
    const woken = c.deps.feed.wait(p.task_id, signal);
    const batch = await listNotifications(c.db, p.task_id, cursor, 100);
    for (const n of batch) {
      if (signal?.aborted) return;
      yield toWireNotification(n);
      cursor = n.seq;
    }
    if (batch.length > 0) continue;
    const t = await loadTask(c.db, p.task_id);
    // The task ended and everything was sent: the stream is complete.
    if (!t || (isTerminal(t.status) && cursor >= t.last_seq)) return;
    await woken;
  }
}
