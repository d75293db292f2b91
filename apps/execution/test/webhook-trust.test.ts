import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@parley/an';
import { createMemoryBus, createSubjects, type Bus } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { listNotifications } from '../src/tasks/store';
import { createWebhookDeliverer, type WebhookDelivererOptions } from '../src/tasks/webhooks';
import { T0, testClock } from './helpers';
import { failure, newTask, notify, serveAsyncAgent, startReceiver, subscriptionRow, taskApi, SENDER } from './webhook-fixture';

// Trust (draft-zhou §7), webhooks: the URL allow-list at registration and at
// delivery, signed bodies (Standard Webhooks) verified by a receiver with the
// secret from registration, and the retry bound, on PGlite and the
// in-process bus. Every deliverer here is driven by deliverDue() on an
// injected clock, so retries come due exactly when the clock says.
const subjects = createSubjects('whtrust');
const clock = testClock(T0);
let db: Db;
let bus: Bus;
let agent: Awaited<ReturnType<typeof serveAsyncAgent>>;
const logs: { level: string; msg: string; [k: string]: unknown }[] = [];
const log = createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line) as (typeof logs)[number]) });
const LOOPBACK = 'http://127.0.0.1:*';
const deps = () => ({ db, bus, subjects, clock, log });
/** Moves the clock forward (never back: subscriptions come due at the time they were made); the new time in ms. */
const tick = (ms: number) => {
  clock.set(clock.now().getTime() + ms);
  return clock.now().getTime();
};

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db, 'execution');
  bus = createMemoryBus({ subjects });
  agent = await serveAsyncAgent(bus, subjects);
}, 60_000); // PGlite starts slowly on a loaded machine

afterAll(async () => {
  await agent?.stop();
  await bus?.close();
  await db?.close();
});

// deliverDue() claims every due subscription of the database: each test starts with none.
afterEach(async () => {
  await db.query('DELETE FROM execution.subscriptions');
  logs.length = 0;
});

function deliverer(opts: Partial<WebhookDelivererOptions> = {}) {
  return createWebhookDeliverer({ db, clock, log, baseBackoffMs: 1000, maxBackoffMs: 60_000, ...opts });
}

const count = async (table: string) => Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM execution.${table}`)).rows[0]!.n);
const counts = async () => ({ tasks: await count('tasks'), subscriptions: await count('subscriptions'), messages: await count('task_messages'), notifications: await count('task_notifications') });

/** A fetch that answers from `statuses` in turn (the last one repeats) and remembers every call. */
function scriptedFetch(...statuses: number[]): typeof fetch & { calls: { url: string; headers: Record<string, string>; body: string }[] } {
  const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
  const f = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), headers: { ...(init?.headers as Record<string, string>) }, body: String(init?.body) });
    const status = statuses[Math.min(calls.length - 1, statuses.length - 1)]!;
    return new Response(null, { status });
  }) as typeof fetch;
  return Object.assign(f, { calls });
}

describe('the URL allow-list at registration', () => {
  it('refuses a webhook the default policy does not allow, with the task or later, and stores nothing', async () => {
    const api = taskApi(deps());
    const before = await counts();
    const kindsBefore = agent.kinds.length;
    for (const url of ['https://169.254.169.254/latest/meta-data/', 'http://hooks.example.com/x', 'https://[::1]/hook', 'https://10.0.0.5/hook']) {
      const e = await failure(newTask(api, { protocol: 'webhook', url }));
      expect(e, url).toMatchObject({ type: 'invalid_params', path: 'params.subscription.url', rule: 'webhook_allowed' });
    }
    expect(await counts()).toEqual(before);
    expect(agent.kinds.length).toBe(kindsBefore); // refused before the agent is even pinged

    const { id } = await newTask(api);
    const after = await counts();
    for (const url of ['https://169.254.169.254/', 'http://127.0.0.1:8080/hook', 'https://[fd00::1]/', 'https://localhost/hook', 'https://192.168.0.10/']) {
      const e = await failure(api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'webhook', url }, after_seq: 0 }));
      expect(e, url).toMatchObject({ type: 'invalid_params', path: 'params.subscription.url', rule: 'webhook_allowed' });
      expect(e.message).toContain('not an allowed webhook URL');
    }
    expect(await counts()).toEqual(after); // no subscription, no context message, no notification
  });

  it('with patterns, allows exactly what they match; NATS subscriptions are not concerned', async () => {
    const api = taskApi(deps(), 'https://*.example.com,https://hooks.acme.io:8443/parley/');
    const { id } = await newTask(api);
    const register = (url: string) => api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'webhook', url }, after_seq: 0 });
    expect((await register('https://noc.example.com/hook')).webhook_secret).toMatch(/^whsec_/);
    expect((await register('https://hooks.acme.io:8443/parley/tasks')).webhook_secret).toMatch(/^whsec_/);
    for (const url of ['https://example.com/hook', 'https://hooks.acme.io/parley/tasks', 'https://hooks.acme.io:8443/admin', 'https://hooks.elsewhere.io/']) {
      expect(await failure(register(url)), url).toMatchObject({ path: 'params.subscription.url', rule: 'webhook_allowed' });
    }
    const nats = await api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'nats' }, after_seq: 0 });
    expect(nats.webhook_secret).toBeUndefined();
    expect(await count('subscriptions')).toBe(3);
  });
});

describe('signed deliveries', () => {
  it('a receiver verifies every notification with the secret from registration; a body tampered in transit fails', async () => {
    const receiver = await startReceiver();
    try {
      const api = taskApi(deps(), LOOPBACK);
      // One subscription made with the task, two registered later (one behind a tampering hop).
      const withTask = await newTask(api, { protocol: 'webhook', url: `${receiver.url}/assigned` });
      const id = withTask.id;
      const honest = await api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'webhook', url: `${receiver.url}/honest` }, after_seq: 0 });
      const tampered = await api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'webhook', url: `${receiver.url}/tampered`, method: 'PUT' }, after_seq: 0 });
      const secrets: Record<string, string> = { '/assigned': withTask.webhook_secret!, '/honest': honest.webhook_secret!, '/tampered': tampered.webhook_secret! };
      for (const s of Object.values(secrets)) expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(new Set(Object.values(secrets)).size).toBe(3); // one secret per subscription
      // The secret is answered once; the task itself does not carry it.
      const q = await api.taskResultQuery({ task_id: id, send_from: SENDER });
      expect(JSON.stringify(q)).not.toContain('whsec_');

      await notify(api, id, 'blocked');
      await notify(api, id, 'processing');
      // A man in the middle rewrites the status of what goes to /tampered.
      const mitm = ((url: string | URL | Request, init?: RequestInit) =>
        fetch(url, String(url).endsWith('/tampered') ? { ...init, body: String(init?.body).replace(/"status":"[a-z-]+"/, '"status":"finished"') } : init)) as typeof fetch;
      tick(60_000);
      const sentAt = Math.floor(clock.now().getTime() / 1000);
      expect(await deliverer({ allow: LOOPBACK, fetch: mitm }).deliverDue()).toBe(12);

      const at = (path: string) => receiver.received.filter((r) => r.path === path);
      for (const path of ['/assigned', '/honest', '/tampered']) {
        const got = at(path);
        expect(got.map((r) => r.headers['parley-seq'])).toEqual(['1', '2', '3', '4']);
        for (const r of got) {
          const seq = r.headers['parley-seq'];
          expect(r.headers).toMatchObject({ 'webhook-id': `${id}:${seq}`, 'webhook-timestamp': String(sentAt), 'idempotency-key': `${id}:${seq}`, 'parley-task-id': id });
          expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
          const v = verifyWebhookSignature(secrets[path]!, r.headers, r.raw, { now: clock.now() });
          if (path === '/tampered') expect(v).toEqual({ ok: false, reason: 'no_matching_signature', header: 'webhook-signature' });
          else expect(v).toEqual({ ok: true, id: `${id}:${seq}`, timestamp: sentAt });
          // Another subscription's secret never verifies it.
          expect(verifyWebhookSignature(secrets[path === '/honest' ? '/assigned' : '/honest']!, r.headers, r.raw, { now: clock.now() }).ok).toBe(false);
        }
      }
      expect(JSON.parse(at('/tampered')[0]!.raw.toString()).status).toBe('finished'); // the tampering did happen
      expect(JSON.parse(at('/honest')[0]!.raw.toString())).toMatchObject({ task_id: id, seq: 1, status: 'created', subscription_id: honest.subscription_id });

      // The receiver's clock decides freshness: ten minutes later the same request is refused.
      const late = verifyWebhookSignature(secrets['/honest']!, at('/honest')[0]!.headers, at('/honest')[0]!.raw, { now: clock.now().getTime() + 600_000 });
      expect(late).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance', header: 'webhook-timestamp' });
    } finally {
      await receiver.close();
    }
  });

  it('signs every retry afresh: same webhook-id, the timestamp of the attempt', async () => {
    const api = taskApi(deps(), LOOPBACK);
    const { id, subscription_id, webhook_secret } = await newTask(api, { protocol: 'webhook', url: 'http://127.0.0.1:9/hook' });
    const f = scriptedFetch(503, 204);
    const d = deliverer({ allow: LOOPBACK, fetch: f });
    const t1 = tick(100_000);
    expect(await d.deliverDue()).toBe(0);
    const t2 = tick(1000);
    expect(await d.deliverDue()).toBe(2);
    const first = f.calls.filter((c) => c.headers['webhook-id'] === `${id}:1`);
    expect(first.map((c) => c.headers['webhook-timestamp'])).toEqual([String(Math.floor(t1 / 1000)), String(Math.floor(t2 / 1000))]);
    for (const c of f.calls) expect(verifyWebhookSignature(webhook_secret!, c.headers, c.body, { now: t2 }).ok).toBe(true);
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'active', cursor: 2, attempts: 0 });
  });
});

describe('the allow-list at delivery', () => {
  it('a URL the policy no longer allows is not called: the subscription is disabled, with a log line', async () => {
    const api = taskApi(deps(), LOOPBACK);
    const { subscription_id } = await newTask(api, { protocol: 'webhook', url: 'http://127.0.0.1:9/hook' });
    const f = scriptedFetch(204);
    const at = tick(200_000);
    // Restarted with a stricter PARLEY_WEBHOOK_ALLOW.
    expect(await deliverer({ allow: 'https://*.example.com', fetch: f }).deliverDue()).toBe(0);
    expect(f.calls).toHaveLength(0);
    const row = await subscriptionRow(db, subscription_id!);
    expect(row).toMatchObject({ state: 'disabled', disabled_reason: 'not_allowed', disabled_at: new Date(at).toISOString(), cursor: 0 });
    expect(row.last_error).toMatch(/not allowed: it matches no pattern/);
    expect(logs.filter((l) => l.level === 'warn' && l.subscription_id === subscription_id)).toHaveLength(1);

    // Disabled stays disabled, whatever the policy says later.
    tick(10 * 60_000);
    expect(await deliverer({ allow: LOOPBACK, fetch: f }).deliverDue()).toBe(0);
    expect(f.calls).toHaveLength(0);
  });

  it('under the default policy, a name resolving to a non-public address is not called (a failed attempt); a public one is', async () => {
    const api = taskApi(deps()); // default policy: https to public hosts
    const { id, subscription_id, webhook_secret } = await newTask(api, { protocol: 'webhook', url: 'https://hooks.example.com/parley' });
    const f = scriptedFetch(204);
    const looked: string[] = [];
    tick(1000);
    const rebound = deliverer({ fetch: f, lookup: async (h) => (looked.push(h), ['93.184.216.34', '10.0.0.7']) });
    expect(await rebound.deliverDue()).toBe(0);
    expect(looked).toEqual(['hooks.example.com']);
    expect(f.calls).toHaveLength(0);
    const row = await subscriptionRow(db, subscription_id!);
    expect(row).toMatchObject({ state: 'active', attempts: 1, cursor: 0 });
    expect(row.last_error).toContain('resolves to 10.0.0.7, a private address');

    tick(2000);
    expect(await deliverer({ fetch: f, lookup: async () => ['93.184.216.34'] }).deliverDue()).toBe(2);
    expect(f.calls.map((c) => [c.url, c.headers['webhook-id']])).toEqual([
      ['https://hooks.example.com/parley', `${id}:1`],
      ['https://hooks.example.com/parley', `${id}:2`],
    ]);
    for (const c of f.calls) expect(verifyWebhookSignature(webhook_secret!, c.headers, c.body, { now: clock.now() }).ok).toBe(true);
  });
});

describe('the retry bound', () => {
  it('disables a subscription after maxAttempts consecutive failures on the clock; nothing later is sent; the notifications stay queryable', async () => {
    const api = taskApi(deps(), LOOPBACK);
    const { id, subscription_id } = await newTask(api, { protocol: 'webhook', url: 'http://127.0.0.1:9/hook' });
    const f = scriptedFetch(500);
    const d = deliverer({ allow: LOOPBACK, fetch: f, maxAttempts: 3 });
    const t1 = tick(1000);
    await d.deliverDue();
    expect(f.calls).toHaveLength(1);
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'active', attempts: 1, next_attempt_at: new Date(t1 + 1000).toISOString(), last_error: 'HTTP 500' });
    // Not due before the backoff has passed.
    await d.deliverDue();
    clock.set(t1 + 999);
    await d.deliverDue();
    expect(f.calls).toHaveLength(1);
    clock.set(t1 + 1000);
    await d.deliverDue();
    expect(f.calls).toHaveLength(2);
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'active', attempts: 2, next_attempt_at: new Date(t1 + 3000).toISOString() });
    clock.set(t1 + 3000);
    await d.deliverDue();
    expect(f.calls).toHaveLength(3);
    expect(f.calls.every((c) => c.headers['webhook-id'] === `${id}:1`)).toBe(true);
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({
      state: 'disabled',
      disabled_reason: 'max_attempts',
      disabled_at: new Date(t1 + 3000).toISOString(),
      attempts: 3,
      cursor: 0,
      last_error: 'HTTP 500',
    });
    const errors = logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ subscription_id, task_id: id, attempts: 3 });

    // The task goes on; the receiver is healthy again; nothing is sent to the disabled subscription.
    await notify(api, id, 'finished');
    const ok = scriptedFetch(204);
    tick(86_400_000);
    expect(await deliverer({ allow: LOOPBACK, fetch: ok, maxAttempts: 3 }).deliverDue()).toBe(0);
    expect(ok.calls).toHaveLength(0);
    // Nothing acknowledged is lost: every notification is still there to query.
    expect((await listNotifications(db, id, 0, 100)).map((n) => n.status)).toEqual(['created', 'processing', 'finished']);
    expect((await api.taskResultQuery({ task_id: id, send_from: SENDER })).latest).toMatchObject({ seq: 3, status: 'finished' });
  });

  it('counts failures in a row only: a delivery in between starts the count again', async () => {
    const api = taskApi(deps(), LOOPBACK);
    const { id, subscription_id } = await newTask(api, { protocol: 'webhook', url: 'http://127.0.0.1:9/hook' });
    // seq 1: fail, fail, ok; seq 2: fail, fail, ok: six attempts, never three failures in a row.
    const f = scriptedFetch(500, 500, 204, 500, 500, 204);
    const d = deliverer({ allow: LOOPBACK, fetch: f, maxAttempts: 3, baseBackoffMs: 10, maxBackoffMs: 10 });
    for (let i = 0; i < 6; i++) {
      tick(10);
      await d.deliverDue();
    }
    expect(f.calls.map((c) => c.headers['parley-seq'])).toEqual(['1', '1', '1', '2', '2', '2']);
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'active', attempts: 0, cursor: 2 });
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(id).toBeTruthy();
  });

  it('defaults to 50 and refuses a bound below 1', async () => {
    const api = taskApi(deps(), LOOPBACK);
    const { subscription_id } = await newTask(api, { protocol: 'webhook', url: 'http://127.0.0.1:9/hook' });
    const f = scriptedFetch(500);
    const d = deliverer({ allow: LOOPBACK, fetch: f, baseBackoffMs: 1, maxBackoffMs: 1 });
    for (let i = 0; i < 49; i++) {
      tick(1);
      await d.deliverDue();
    }
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'active', attempts: 49 });
    tick(1);
    await d.deliverDue();
    expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ state: 'disabled', disabled_reason: 'max_attempts', attempts: 50 });
    expect(f.calls).toHaveLength(50);
    expect(() => deliverer({ maxAttempts: 0 })).toThrow(RangeError);
  });
});
