import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '@parley/storage';
import {
  appendToOutbox,
  consumeIdempotently,
  createOutboxRelay,
  EventType,
  type Bus,
  type EventEnvelope,
  type OutboxRelay,
  type Stoppable,
  type Subjects,
} from '@parley/events';
import { collectEvents, delay, flakyBus, payloadExecuted } from '@parley/events/testing';

export interface OutboxEnv {
  /** A migrated database (execution and registry schemas). */
  db: Db;
  /** Another connection pool on the same database, as a second replica has (required with `replicas: true`). */
  openReplicaDb?: () => Promise<Db>;
  cleanup(): Promise<void>;
}

export interface OutboxBusEnv {
  bus: Bus;
  subjects: Subjects;
  cleanup(): Promise<void>;
}

const ids = (events: readonly EventEnvelope[]) => events.map((e) => e.id);
const quiet = { warn: () => {}, error: () => {} };
export { quiet as quietLogger };

/** The outbox relay and the idempotent consumer, on one database adapter and one bus adapter. */
export function outboxContract(
  name: string,
  openEnv: () => Promise<OutboxEnv>,
  openBus: () => Promise<OutboxBusEnv>,
  opts: { replicas: boolean } = { replicas: false },
): void {
  describe(`outbox and idempotent consumer: ${name}`, () => {
    let env: OutboxEnv;
    let b: OutboxBusEnv;
    const relays: OutboxRelay[] = [];
    const subs: Stoppable[] = [];
    const relay = (r: OutboxRelay) => (relays.push(r), r);

    beforeAll(async () => {
      env = await openEnv();
    });
    afterAll(async () => {
      await env?.cleanup();
    });
    beforeEach(async () => {
      await env.db.exec('TRUNCATE execution.outbox; TRUNCATE registry.processed_events; TRUNCATE registry.scenario_usage');
      b = await openBus();
    });
    afterEach(async () => {
      await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
      await Promise.allSettled(subs.splice(0).map((s) => s.stop()));
      await b.cleanup();
    });

    const append = (events: EventEnvelope[], tx?: Queryable) =>
      tx ? appendToOutbox(tx, 'execution', b.subjects, events) : env.db.transaction((t) => appendToOutbox(t, 'execution', b.subjects, events));
    const collect = async (durable: string) => {
      const c = await collectEvents(b.bus, { durable, filterSubjects: [b.subjects.eventAllScenarios(EventType.PayloadExecuted)] });
      subs.push(c);
      return c;
    };

    it('never publishes events appended in a rolled-back transaction', async () => {
      const kept = [payloadExecuted(), payloadExecuted()];
      const rolledBack = [payloadExecuted(), payloadExecuted()];
      await append(kept);
      await expect(
        env.db.transaction(async (tx) => {
          await append(rolledBack, tx);
          throw new Error('business rule failed');
        }),
      ).rejects.toThrow('business rule failed');
      const bus = flakyBus(b.bus);
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus }));
      await r.drain();
      expect(ids(bus.published)).toEqual(ids(kept));
      expect(await r.pending()).toBe(0);
      const rows = await env.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.outbox');
      expect(rows.rows[0]!.n).toBe(2);
    });

    it('publishes committed events exactly once, in seq order, through bus failures', async () => {
      const first = Array.from({ length: 5 }, () => payloadExecuted('a'));
      const second = Array.from({ length: 3 }, () => payloadExecuted('b'));
      await append(first);
      await append(second);
      const bus = flakyBus(b.bus, { failFirst: 3 });
      const errors: { eventId?: string; attempts?: number }[] = [];
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, batchSize: 3, retryBaseMs: 10, onError: (_e, info) => errors.push(info) }));
      const c = await collect('outbox_order');
      await r.drain();
      expect(ids(bus.published)).toEqual(ids([...first, ...second]));
      expect(bus.attempts).toBe(8 + 3);
      expect(errors.map((e) => e.eventId)).toEqual([first[0]!.id, first[0]!.id, first[0]!.id]);
      expect(errors.map((e) => e.attempts)).toEqual([1, 2, 3]);
      await c.waitFor(8);
      await delay(200);
      expect(ids(c.events)).toEqual(ids([...first, ...second]));
      const rows = await env.db.query<{ id: string; attempts: number; last_error: string | null; published: boolean }>(
        'SELECT id, attempts, last_error, published_at IS NOT NULL AS published FROM execution.outbox ORDER BY seq',
      );
      expect(rows.rows.every((row) => row.published)).toBe(true);
      expect(rows.rows[0]).toMatchObject({ id: first[0]!.id, attempts: 3, last_error: 'simulated bus outage' });
      expect(rows.rows.slice(1).every((row) => row.attempts === 0)).toBe(true);
    });

    it('stops at a failing row so that later rows do not overtake it', async () => {
      const events = Array.from({ length: 4 }, () => payloadExecuted());
      await append(events);
      const bus = flakyBus(b.bus);
      let calls = 0;
      const failing: Bus = {
        ...bus,
        publishEvent: async (e) => {
          // The third event fails twice: the first two are out, the fourth must wait.
          if (e.id === events[2]!.id && calls++ < 2) throw new Error('nats down');
          await bus.publishEvent(e);
        },
      };
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus: failing, retryBaseMs: 10, onError: () => {} }));
      await r.drain();
      expect(ids(bus.published)).toEqual(ids(events));
    });

    it('keeps failing rows pending, never drops them, and rejects drain() on stop', async () => {
      await append([payloadExecuted(), payloadExecuted()]);
      const bus = flakyBus(b.bus, { failFirst: Number.MAX_SAFE_INTEGER });
      const r = createOutboxRelay({ db: env.db, schema: 'execution', bus, retryBaseMs: 5, retryMaxMs: 20, onError: () => {} });
      const drained = r.drain();
      drained.catch(() => {});
      await expect.poll(() => bus.attempts, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
      await r.stop();
      await expect(drained).rejects.toThrow(/stopped/);
      expect(await r.pending()).toBe(2);
      const rows = await env.db.query<{ attempts: number }>('SELECT attempts FROM execution.outbox ORDER BY seq');
      expect(rows.rows[0]!.attempts).toBeGreaterThanOrEqual(3);
      expect(rows.rows[1]!.attempts).toBe(0);
      expect(bus.published).toEqual([]);
    });

    it('publishes soon after nudge() without waiting for the poll interval', async () => {
      const bus = flakyBus(b.bus);
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 60_000 }));
      r.start();
      await delay(50);
      const e = payloadExecuted();
      await append([e]);
      r.nudge();
      await expect.poll(() => ids(bus.published), { timeout: 3000, interval: 10 }).toEqual([e.id]);
    });

    it('picks up rows committed without a nudge on its poll', async () => {
      const bus = flakyBus(b.bus);
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 50 }));
      r.start();
      const e = payloadExecuted();
      await append([e]);
      await expect.poll(() => ids(bus.published), { timeout: 3000, interval: 10 }).toEqual([e.id]);
      // The relay marks rows published in the transaction after the publish: poll, don't race it.
      await expect.poll(() => r.pending(), { timeout: 3000, interval: 10 }).toBe(0);
    });

    it('runs a relay and an idempotent consumer on the same database without blocking each other', async () => {
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus: b.bus, pollIntervalMs: 20 }));
      r.start();
      const seen: string[] = [];
      subs.push(
        await consumeIdempotently(
          { bus: b.bus, db: env.db, schema: 'registry', durable: 'usage', filterSubjects: [b.subjects.eventAllScenarios(EventType.PayloadExecuted)] },
          async (e, tx) => {
            seen.push(e.id);
            await bumpUsage(tx, e);
          },
        ),
      );
      const events = Array.from({ length: 10 }, (_, i) => payloadExecuted(`s${i % 2}`));
      for (const e of events) {
        await append([e]);
        r.nudge();
      }
      await expect.poll(() => seen.length, { timeout: 5000 }).toBe(10);
      expect(seen).toEqual(ids(events));
      expect(await usage(env.db)).toEqual({ s0: 5, s1: 5 });
    });

    it('applies a redelivered duplicate once', async () => {
      const stub = replayingBus();
      const calls: string[] = [];
      await consumeIdempotently({ bus: stub, db: env.db, schema: 'registry', durable: 'usage', filterSubjects: [] }, async (e, tx) => {
        calls.push(e.id);
        await bumpUsage(tx, e);
      });
      const e = payloadExecuted('dup');
      await stub.deliver(e);
      await stub.deliver(e);
      await stub.deliver({ ...e });
      expect(calls).toEqual([e.id]);
      expect(await usage(env.db)).toEqual({ dup: 1 });
      const other = await env.db.query('SELECT 1 FROM registry.processed_events WHERE consumer = $1', ['usage']);
      expect(other.rows).toHaveLength(1);
    });

    it('keeps the same event apart per consumer name', async () => {
      const stub = replayingBus();
      let n = 0;
      for (const durable of ['first', 'second']) {
        await consumeIdempotently({ bus: stub, db: env.db, schema: 'registry', durable, filterSubjects: [] }, async () => void n++);
      }
      await stub.deliver(payloadExecuted());
      expect(n).toBe(2);
    });

    it('rolls back the effect and the processed mark together when the handler throws, then applies the redelivery', async () => {
      let attempt = 0;
      subs.push(
        await consumeIdempotently(
          { bus: b.bus, db: env.db, schema: 'registry', durable: 'flaky', filterSubjects: [b.subjects.eventAllScenarios(EventType.PayloadExecuted)], retryDelayMs: 20 },
          async (e, tx) => {
            await bumpUsage(tx, e);
            if (attempt++ === 0) throw new Error('fails after writing');
          },
        ),
      );
      await b.bus.publishEvent(payloadExecuted('roll'));
      await expect.poll(() => attempt, { timeout: 5000 }).toBe(2);
      await delay(100);
      expect(await usage(env.db)).toEqual({ roll: 1 });
    });

    // Registered only where it can run, so that the unit run reports no skipped test.
    if (opts.replicas) it('publishes every event exactly once with two relay replicas running concurrently', async () => {
      const db2 = await env.openReplicaDb!();
      try {
        const shared = flakyBus(b.bus);
        const perRelay = [0, 0];
        const counting = (i: 0 | 1): Bus => ({
          ...shared,
          publishEvent: async (e) => {
            perRelay[i]!++;
            await shared.publishEvent(e);
            await delay(1);
          },
        });
        const r1 = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus: counting(0), batchSize: 7, pollIntervalMs: 5 }));
        const r2 = relay(createOutboxRelay({ db: db2, schema: 'execution', bus: counting(1), batchSize: 7, pollIntervalMs: 5 }));
        r1.start();
        r2.start();
        const c = await collect('two_relays');
        const all: EventEnvelope[] = [];
        for (let i = 0; i < 30; i++) {
          const batch = Array.from({ length: 5 }, () => payloadExecuted(`s${i % 3}`));
          all.push(...batch);
          await append(batch);
          (i % 2 ? r1 : r2).nudge();
        }
        await Promise.all([r1.drain(), r2.drain()]);
        expect(shared.published).toHaveLength(all.length);
        expect(new Set(ids(shared.published)).size).toBe(all.length);
        // One relay publishes at a time, so the stream order is the seq order.
        expect(ids(shared.published)).toEqual(ids(all));
        expect(perRelay[0]! + perRelay[1]!).toBe(all.length);
        await c.waitFor(all.length, 10_000);
        await delay(200);
        expect(ids(c.events)).toEqual(ids(all));
      } finally {
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });

    if (opts.replicas) it('lets no other replica publish while one holds a batch', async () => {
      const db2 = await env.openReplicaDb!();
      let release = () => {};
      try {
        const shared = flakyBus(b.bus);
        const gate = new Promise<void>((r) => (release = r));
        let blocked = false;
        const slow: Bus = {
          ...shared,
          publishEvent: async (e) => {
            if (!blocked) {
              blocked = true;
              await gate;
            }
            await shared.publishEvent(e);
          },
        };
        const counted = { n: 0 };
        const other: Bus = { ...shared, publishEvent: async (e) => void (counted.n++, await shared.publishEvent(e)) };
        const events = Array.from({ length: 6 }, () => payloadExecuted());
        await append(events);
        const r1 = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus: slow, batchSize: 2 }));
        const r2 = relay(createOutboxRelay({ db: db2, schema: 'execution', bus: other, batchSize: 2, pollIntervalMs: 10 }));
        const d1 = r1.drain();
        await expect.poll(() => blocked).toBe(true);
        const d2 = r2.drain();
        // Row locks alone would let the second replica publish rows 3..6 ahead of rows 1..2.
        await delay(300);
        expect(counted.n).toBe(0);
        release();
        await Promise.all([d1, d2]);
        expect(ids(shared.published)).toEqual(ids(events));
      } finally {
        release();
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });
  });
}

async function bumpUsage(tx: Queryable, e: EventEnvelope): Promise<void> {
  await tx.query(
    `INSERT INTO registry.scenario_usage (agent, scenario_id, executions, last_executed_at) VALUES ($1, $2, 1, $3)
     ON CONFLICT (agent, scenario_id) DO UPDATE SET executions = registry.scenario_usage.executions + 1, last_executed_at = EXCLUDED.last_executed_at`,
    [e.type === 'payload.executed' ? e.data.agent : '', e.scenario_id, e.occurred_at],
  );
}

async function usage(db: Db): Promise<Record<string, number>> {
  const r = await db.query<{ scenario_id: string; executions: number }>('SELECT scenario_id, executions::int AS executions FROM registry.scenario_usage ORDER BY scenario_id');
  return Object.fromEntries(r.rows.map((row) => [row.scenario_id, row.executions]));
}

/** A bus whose consumers receive exactly what the test hands them, as often as it likes (at-least-once delivery). */
function replayingBus(): Bus & { deliver(e: EventEnvelope): Promise<void> } {
  const handlers: ((e: EventEnvelope) => Promise<void>)[] = [];
  const no = () => Promise.reject(new Error('not used'));
  return {
    async deliver(e) {
      for (const h of handlers) await h(e);
    },
    request: no,
    serve: no,
    publishEvent: no,
    async consume(_o, h) {
      handlers.push(h);
      return { stop: async () => void handlers.splice(handlers.indexOf(h), 1) };
    },
    healthy: async () => true,
    close: async () => {},
  };
}
