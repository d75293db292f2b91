import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { verifyWebhookSignature } from '@parley/an';
import { createNatsBus, createSubjects, type Bus } from '@parley/events';
import { createLogger, systemClock } from '@parley/runtime';
import { migrate, openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, uniquePrefix } from '@parley/testkit';
import { startTasks, type RunningTasks } from '../src/tasks/index';
import { baseTemplate, fakeNegotiation } from './helpers';
import { SENDER, failure, newTask, notify, serveAsyncAgent, startReceiver, subscriptionRow } from './webhook-fixture';

// Webhook trust (draft-zhou §7) on PostgreSQL and NATS, with the running deliverer
// of startTasks: the 003 migration, refusal by the allow-list, every delivery
// signed and verified by the receiver with the secret from registration, and
// a subscription disabled after maxAttempts failures in a row.
const infra = integrationInfra('execution-webhooks');

describe.skipIf(!infra)('webhook trust on PostgreSQL and NATS', () => {
  const subjects = createSubjects(uniquePrefix());
  const LOOPBACK = 'http://127.0.0.1:*';
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Db;
  let bus: Bus;
  let tasks: RunningTasks;
  let agent: Awaited<ReturnType<typeof serveAsyncAgent>>;
  const errors: Record<string, unknown>[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(testDb.url, { applicationName: 'execution-webhooks-int' });
    await migrate(db, 'execution');
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'execution-webhooks-int' });
    agent = await serveAsyncAgent(bus, subjects);
    tasks = await startTasks({
      db,
      bus,
      subjects,
      negotiation: fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => Date.now() }),
      clock: systemClock,
      log: createLogger({
        level: 'error',
        write: (line) => errors.push(JSON.parse(line) as Record<string, unknown>),
      }),
      timeoutMs: 3000,
      onOutboxWrite: () => {},
      webhooks: { allow: LOOPBACK, pollMs: 50, baseBackoffMs: 20, maxBackoffMs: 40, maxAttempts: 3, requestTimeoutMs: 1000 },
    });
  });

  afterAll(async () => {
    await tasks?.stop();
    await agent?.stop();
    await bus?.close();
    const nc = await connect({ servers: infra!.natsUrl });
    await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
    await nc.drain();
    await db?.close();
    await testDb?.drop();
  });

  const subscriptions = async () => Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.subscriptions')).rows[0]!.n);

  it('refuses a URL outside the allow-list and stores nothing', async () => {
    const before = await subscriptions();
    const { id } = await newTask(tasks.api);
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5:8080/hook', 'https://hooks.example.com/x']) {
      expect(await failure(tasks.api.registerTaskSubscription({ task_id: id, send_from: SENDER, subscription: { protocol: 'webhook', url }, after_seq: 0 })), url).toMatchObject({
        type: 'invalid_params',
        path: 'params.subscription.url',
        rule: 'webhook_allowed',
      });
    }
    expect(await subscriptions()).toBe(before);
  });

  it('delivers every change signed; the receiver verifies each with the secret it got at registration', async () => {
    const receiver = await startReceiver();
    try {
      const { id, subscription_id, webhook_secret } = await newTask(tasks.api, { protocol: 'webhook', url: `${receiver.url}/hook` });
      expect(webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await subscriptionRow(db, subscription_id!)).secret).toBe(webhook_secret);
      await notify(tasks.api, id, 'blocked');
      await notify(tasks.api, id, 'processing');
      await notify(tasks.api, id, 'finished');
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(5);
      const results = receiver.received.map((r) => verifyWebhookSignature(webhook_secret!, r.headers, r.raw, { now: Date.now() }));
      expect(results.map((v) => (v.ok ? v.id : v.reason))).toEqual([1, 2, 3, 4, 5].map((s) => `${id}:${s}`));
      const tampered = Buffer.from(receiver.received[4]!.raw.toString().replace('"finished"', '"failed"'));
      expect(verifyWebhookSignature(webhook_secret!, receiver.received[4]!.headers, tampered, { now: Date.now() })).toMatchObject({ ok: false, reason: 'no_matching_signature' });
      // The receiver records a request before it answers, and the cursor moves after the answer: wait for that commit.
      await expect.poll(() => subscriptionRow(db, subscription_id!), { timeout: 10_000 }).toMatchObject({ state: 'active', cursor: 5, attempts: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('disables a subscription after maxAttempts failures in a row and sends it nothing more', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const { id, subscription_id } = await newTask(tasks.api, { protocol: 'webhook', url: `${receiver.url}/down` });
      await expect.poll(async () => (await subscriptionRow(db, subscription_id!)).state, { timeout: 10_000 }).toBe('disabled');
      expect(await subscriptionRow(db, subscription_id!)).toMatchObject({ disabled_reason: 'max_attempts', attempts: 3, cursor: 0, last_error: 'HTTP 500' });
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([`${id}:1`, `${id}:1`, `${id}:1`]);
      expect(errors.filter((e) => e.subscription_id === subscription_id)).toHaveLength(1);
      await notify(tasks.api, id, 'finished');
      await new Promise((r) => setTimeout(r, 400)); // several poll periods
      expect(receiver.received).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });
});
