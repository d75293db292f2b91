import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countSql, migrate, openDb, resetSqlCounts, sqlCounts, type Db, type Queryable } from '@parley/storage';
import { AppliedBefore, consumeIdempotently, createDeadLetterOffice, type ProcessedMarks, createMemoryBus, createSubjects, EventType, type Bus, type EventEnvelope, type Stoppable, type Subjects } from '@parley/events';
import { delay, payloadExecuted } from '@parley/events/testing';
import { quietLogger } from './outbox-contract';

// Batches of the in-process bus (Bus.consumeBatch) and the idempotent consumer
// that commits each batch in one transaction, its processed marks in one statement.

const quiet = { warn: () => {}, error: () => {} };

async function bumpUsage(tx: Queryable, e: EventEnvelope): Promise<void> {
  await tx.query(
    `INSERT INTO registry.scenario_usage (agent, scenario_id, executions, last_executed_at) VALUES ('a', $1, 1, $2)
     ON CONFLICT (agent, scenario_id) DO UPDATE SET executions = registry.scenario_usage.executions + 1`,
    [e.scenario_id, e.occurred_at],
  );
}

async function usage(db: Db): Promise<Record<string, number>> {
  const r = await db.query<{ scenario_id: string; executions: number }>('SELECT scenario_id, executions::int AS executions FROM registry.scenario_usage ORDER BY scenario_id');
  return Object.fromEntries(r.rows.map((row) => [row.scenario_id, row.executions]));
}

describe('memory bus: consumeBatch', () => {
  let bus: Bus;
  let subjects: Subjects;
  const subs: Stoppable[] = [];
  beforeEach(() => {
    subjects = createSubjects('parley');
    bus = createMemoryBus({ subjects, logger: quietLogger });
  });
  afterEach(async () => {
    for (const s of subs.splice(0)) await s.stop();
    await bus.close();
  });

  it('hands over the events available in stream order, up to maxBatch, and the whole batch again from its first event when the handler throws', async () => {
    const events = Array.from({ length: 5 }, (_, i) => payloadExecuted(`s${i}`));
    for (const e of events) await bus.publishEvent(e);
    const seen: string[][] = [];
    let fail = true;
    subs.push(
      await bus.consumeBatch!({ durable: 'b', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)], retryDelayMs: 10, maxBatch: 3 }, async (batch) => {
        seen.push(batch.map((e) => e.id));
        if (fail) {
          fail = false;
          throw new Error('first try fails');
        }
      }),
    );
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(3);
    const ids = events.map((e) => e.id);
    expect(seen).toEqual([ids.slice(0, 3), ids.slice(0, 3), ids.slice(3)]);
  });

  it('refuses a maxBatch that is not a positive integer', async () => {
    await expect(bus.consumeBatch!({ durable: 'x', filterSubjects: ['>'], maxBatch: 0 }, async () => {})).rejects.toThrow(/maxBatch must be a positive integer/);
  });
});

describe('consumeIdempotently on a bus that delivers batches', () => {
  let db: Db;
  let bus: Bus;
  let subjects: Subjects;
  const subs: Stoppable[] = [];
  beforeEach(async () => {
    db = countSql(await openDb('pglite://memory'));
    await migrate(db, 'registry');
    subjects = createSubjects('parley');
    // No duplicate window: the same id can reach the consumer twice, as a redelivery would.
    bus = createMemoryBus({ subjects, logger: quietLogger, duplicateWindowMs: 0 });
  });
  afterEach(async () => {
    for (const s of subs.splice(0)) await s.stop();
    await bus.close();
    await db.close();
  });

  it('applies the events available in one transaction with one processed_events statement, and an id twice once', async () => {
    const events = Array.from({ length: 6 }, () => payloadExecuted('batch'));
    for (const e of events) await bus.publishEvent(e);
    await bus.publishEvent({ ...events[2]! });
    resetSqlCounts();
    const calls: string[] = [];
    subs.push(
      await consumeIdempotently({ bus, db, schema: 'registry', durable: 'usage', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)] }, async (e, tx) => {
        calls.push(e.id);
        await bumpUsage(tx, e);
      }),
    );
    await expect.poll(() => calls.length, { timeout: 5000 }).toBe(6);
    await delay(100);
    expect(calls).toEqual(events.map((e) => e.id));
    expect(await usage(db)).toEqual({ batch: 6 });
    const c = sqlCounts();
    expect(c.transactions).toBe(1);
    expect([...c.byShape.keys()].filter((k) => k.includes('processed_events'))).toEqual([
      'INSERT INTO registry.processed_events (consumer, event_id) SELECT $, unnest($::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id',
    ]);
  });

  it('acknowledges the events `concerns` declines without a transaction or a mark, and applies the others once, a redelivered one too', async () => {
    const skipped = Array.from({ length: 4 }, () => payloadExecuted('elsewhere'));
    const applied = Array.from({ length: 2 }, () => payloadExecuted('mine'));
    resetSqlCounts();
    const calls: string[] = [];
    const judged: string[] = [];
    subs.push(
      await consumeIdempotently(
        {
          bus,
          db,
          schema: 'registry',
          durable: 'usage_concerned',
          filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)],
          concerns: (e) => (judged.push(e.id), e.scenario_id === 'mine'),
        },
        async (e, tx) => {
          calls.push(e.id);
          await bumpUsage(tx, e);
        },
      ),
    );
    // Alone (one per delivery), then together with the others, then a redelivery of an applied one.
    await bus.publishEvent(skipped[0]!);
    await expect.poll(() => judged.length, { timeout: 5000 }).toBe(1);
    await delay(50);
    expect(sqlCounts().transactions).toBe(0);
    for (const e of [skipped[1]!, applied[0]!, skipped[2]!, applied[1]!, skipped[3]!]) await bus.publishEvent(e);
    await expect.poll(() => calls.length, { timeout: 5000 }).toBe(2);
    await bus.publishEvent({ ...applied[0]! });
    await expect.poll(() => judged.length, { timeout: 5000 }).toBe(7);
    await delay(100);
    expect(calls).toEqual(applied.map((e) => e.id));
    expect(await usage(db)).toEqual({ mine: 2 });
    const marks = await db.query<{ event_id: string }>("SELECT event_id::text FROM registry.processed_events WHERE consumer = 'usage_concerned' ORDER BY event_id");
    expect(marks.rows.map((r) => r.event_id)).toEqual(applied.map((e) => e.id).sort());
  });

  it('counts an event whose `concerns` throws as concerned: the handler decides, and the delivery is not stuck', async () => {
    const events = Array.from({ length: 3 }, () => payloadExecuted('judged'));
    const calls: string[] = [];
    subs.push(
      await consumeIdempotently(
        {
          bus,
          db,
          schema: 'registry',
          durable: 'usage_concerns_throws',
          filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)],
          concerns: (e) => {
            if (e.id === events[1]!.id) throw new Error('cannot judge');
            return true;
          },
        },
        async (e, tx) => {
          calls.push(e.id);
          await bumpUsage(tx, e);
        },
      ),
    );
    for (const e of events) await bus.publishEvent(e);
    await expect.poll(() => calls.length, { timeout: 5000 }).toBe(3);
    expect(calls).toEqual(events.map((e) => e.id));
  });

  it('hands the new events of a batch to handleBatch in one call, and takes them one at a time through the handler when it fails', async () => {
    const events = Array.from({ length: 5 }, () => payloadExecuted('batch'));
    for (const e of events) await bus.publishEvent(e);
    await bus.publishEvent({ ...events[1]! });
    const batches: string[][] = [];
    const single: string[] = [];
    let failBatch = true;
    subs.push(
      await consumeIdempotently(
        {
          bus,
          db,
          schema: 'registry',
          durable: 'usage-batched',
          filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)],
          retryDelayMs: 10,
          handleBatch: async (taken, tx) => {
            batches.push(taken.map(({ event }) => event.id));
            for (const { event } of taken) await bumpUsage(tx, event);
            if (failBatch) throw new Error('batch refused');
          },
        },
        async (e, tx) => {
          // A lone event (a batch of one) always comes this way; the ones of the refused batch must too.
          if (e.scenario_id === 'batch') single.push(e.id);
          await bumpUsage(tx, e);
        },
      ),
    );
    await expect.poll(() => single.length, { timeout: 5000 }).toBe(5);
    failBatch = false;
    for (let i = 0; i < 3; i++) await bus.publishEvent(payloadExecuted('later'));
    await expect.poll(async () => (await usage(db))['later'], { timeout: 5000 }).toBe(3);
    // The refused batch (its duplicate id taken once) rolled back, each event then applied alone, once.
    expect(batches[0]).toEqual(events.map((e) => e.id));
    expect(single).toEqual(events.map((e) => e.id));
    expect(await usage(db)).toEqual({ batch: 5, later: 3 });
  });

  it('counts a failure inside a batch against the event that failed: the ones before it commit, it is set aside at maxAttempts, the ones after it follow once', async () => {
    const events = Array.from({ length: 4 }, () => payloadExecuted('batch'));
    const poison = events[1]!;
    for (const e of events) await bus.publishEvent(e);
    const office = createDeadLetterOffice({ db, schema: 'registry', subjects, logger: quiet });
    const calls: string[] = [];
    subs.push(
      await consumeIdempotently(
        { bus, db, schema: 'registry', durable: 'poisoned', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)], retryDelayMs: 10, maxAttempts: 3, deadLetters: office, logger: quiet },
        async (e, tx) => {
          calls.push(e.id);
          await bumpUsage(tx, e);
          if (e.id === poison.id) throw new TypeError('cannot apply');
        },
      ),
    );
    await expect.poll(async () => (await usage(db))['batch'], { timeout: 10_000 }).toBe(3);
    await delay(100);
    // The first batch ran events[0] and the poison (rolled back); events[0] was applied again alone, then each
    // redelivery handed the poison over once more until it was set aside; events[2] and [3] came after it once.
    expect(calls).toEqual([events[0]!.id, poison.id, events[0]!.id, poison.id, poison.id, events[2]!.id, events[3]!.id]);
    const dead = await office.list();
    expect(dead.dead_letters.map((d) => [d.event_id, d.attempts, d.error])).toEqual([[poison.id, 3, 'cannot apply']]);
  });

  // applyMarked: the marks and the effect in one data-modifying statement, as the registry's usage consumer.
  const countMarked = (calls: string[][]) => async (taken: { event: EventEnvelope }[], mdb: Db, marks: ProcessedMarks) => {
    calls.push(taken.map(({ event }) => event.id));
    const ids = taken.map(({ event }) => event.id);
    await mdb.query(
      `WITH ${marks.cte}
       INSERT INTO registry.scenario_usage (agent, scenario_id, executions, last_executed_at)
       SELECT 'a', e.scenario_id, count(*), max(e.at) FROM unnest($3::uuid[], $4::text[], $5::timestamptz[]) AS e(id, scenario_id, at)
       JOIN fresh ON fresh.event_id = e.id GROUP BY e.scenario_id
       ON CONFLICT (agent, scenario_id) DO UPDATE SET executions = registry.scenario_usage.executions + EXCLUDED.executions`,
      [...marks.params(ids), ids, taken.map(({ event }) => event.scenario_id), taken.map(({ event }) => event.occurred_at)],
    );
  };
  const markedIds = async (consumer: string) =>
    (await db.query<{ event_id: string }>('SELECT event_id::text FROM registry.processed_events WHERE consumer = $1 ORDER BY event_id', [consumer])).rows.map((r) => r.event_id);

  it('applyMarked: a batch in one statement and no transaction, an id twice once, and a redelivered batch changes nothing', async () => {
    const events = Array.from({ length: 5 }, () => payloadExecuted('marked'));
    for (const e of events) await bus.publishEvent(e);
    await bus.publishEvent({ ...events[3]! });
    resetSqlCounts();
    const calls: string[][] = [];
    subs.push(
      await consumeIdempotently(
        { bus, db, schema: 'registry', durable: 'usage-marked', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)], applyMarked: countMarked(calls) },
        async () => {
          throw new Error('the handler is for replays only');
        },
      ),
    );
    await expect.poll(async () => (await usage(db))['marked'], { timeout: 5000 }).toBe(5);
    await delay(100);
    const first = sqlCounts();
    expect(first.transactions).toBe(0);
    // Besides the test's own SELECTs: one statement per call, marks and counts together.
    const writes = [...first.byShape].filter(([k]) => !k.startsWith('SELECT'));
    expect(writes.map(([k, n]) => [k.slice(0, 52), n])).toEqual([['WITH fresh AS (INSERT INTO registry.processed_events', calls.length]]);
    expect(calls.flat().filter((id) => id === events[3]!.id)).toHaveLength(1);
    const marksBefore = await markedIds('usage-marked');
    expect(marksBefore).toEqual(events.map((e) => e.id).sort());

    // The same batch again, as after a crash between the commit and the ack: handed over, nothing changes.
    const seen = calls.length;
    for (const e of events) await bus.publishEvent({ ...e });
    await expect.poll(() => calls.slice(seen).flat().length, { timeout: 5000 }).toBe(events.length);
    await delay(100);
    expect(await usage(db)).toEqual({ marked: 5 });
    expect(await markedIds('usage-marked')).toEqual(marksBefore);
    // And a new event after it still counts.
    const later = payloadExecuted('marked');
    await bus.publishEvent(later);
    await expect.poll(async () => (await usage(db))['marked'], { timeout: 5000 }).toBe(6);
  });

  it('applyMarked: an event its statement fails on is set aside at maxAttempts while the rest of its batch applies once', async () => {
    const events = Array.from({ length: 4 }, () => payloadExecuted('marked-poison'));
    // Not a time: the statement's timestamptz cast fails, and the whole statement with it.
    const poison: EventEnvelope = { ...events[1]!, occurred_at: 'not a time' };
    events[1] = poison;
    for (const e of events) await bus.publishEvent(e);
    const office = createDeadLetterOffice({ db, schema: 'registry', subjects, logger: quiet });
    const calls: string[][] = [];
    subs.push(
      await consumeIdempotently(
        {
          bus,
          db,
          schema: 'registry',
          durable: 'marked-poisoned',
          filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)],
          retryDelayMs: 10,
          maxAttempts: 3,
          deadLetters: office,
          logger: quiet,
          applyMarked: countMarked(calls),
        },
        async () => {
          throw new Error('the handler is for replays only');
        },
      ),
    );
    await expect.poll(async () => (await office.list()).dead_letters.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await usage(db))['marked-poison'], { timeout: 5000 }).toBe(3);
    await delay(100);
    expect(await usage(db)).toEqual({ 'marked-poison': 3 });
    const dead = await office.list();
    expect(dead.dead_letters.map((d) => [d.event_id, d.attempts])).toEqual([[poison.id, 3]]);
    expect(dead.dead_letters[0]!.error).toMatch(/time|timestamp/i);
    // Every event marked once (the poison by being set aside); none counted twice.
    expect(await markedIds('marked-poisoned')).toEqual(events.map((e) => e.id).sort());
  });

  it('applyMarked: AppliedBefore rolls back, and the events are taken with their marks read first, not counted as failures', async () => {
    const events = Array.from({ length: 3 }, () => payloadExecuted('before'));
    for (const e of events) await bus.publishEvent(e);
    const handled: string[] = [];
    const rolledBack: unknown[] = [];
    let marked = 0;
    subs.push(
      await consumeIdempotently(
        {
          bus,
          db,
          schema: 'registry',
          durable: 'applied-before',
          filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)],
          maxAttempts: 1,
          logger: quiet,
          onRollback: async (err) => void rolledBack.push(err),
          // As the pool: memory first, then the statement tells which were new; here it claims all were applied before.
          applyMarked: async (taken, mdb, marks) => {
            marked++;
            await mdb.transaction(async (tx) => {
              await tx.query(`WITH ${marks.cte} SELECT event_id FROM fresh`, marks.params(taken.map(({ event }) => event.id)));
              throw new AppliedBefore(taken.map(({ event }) => event.id));
            });
          },
        },
        async (e, tx) => {
          handled.push(e.id);
          await bumpUsage(tx, e);
        },
      ),
    );
    await expect.poll(() => handled.length, { timeout: 5000 }).toBe(3);
    await delay(100);
    expect(marked).toBeGreaterThan(0);
    expect(rolledBack.every((e) => e instanceof AppliedBefore)).toBe(true);
    expect(await usage(db)).toEqual({ before: 3 });
    expect((await db.query("SELECT count(*)::int AS n FROM registry.dead_letters")).rows).toEqual([{ n: 0 }]);
    expect(await markedIds('applied-before')).toEqual(events.map((e) => e.id).sort());
  });
});
