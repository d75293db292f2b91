import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appendToOutbox, createOutboxRelay, createRetentionPruner, createSubjects, serviceEventFlow, type EventEnvelope, type OutboxRelay, type RetentionOptions } from '@parley/events';
import { delay, flakyBus, payloadExecuted } from '@parley/events/testing';
import { cutAtGap, outboxMarkSql } from '../src/outbox-order';
import type { OutboxBusEnv, OutboxEnv } from './outbox-contract';

const DAY = 86_400_000;
const ids = (events: readonly EventEnvelope[]) => events.map((e) => e.id);
const quiet = { warn: () => {}, error: () => {} };

/**
 * Retention of the outbox and the processed marks (libs/events/src/retention.ts), on one database
 * adapter: what it deletes, what it never deletes, and that the relay's seq mark and its gaps
 * (outbox-order.ts) come out of pruning as they went in.
 */
export function retentionContract(name: string, openEnv: () => Promise<OutboxEnv>, openBus: () => Promise<OutboxBusEnv>, opts: { replicas: boolean } = { replicas: false }): void {
  describe(`event-flow retention: ${name}`, () => {
    let env: OutboxEnv;
    let b: OutboxBusEnv;
    const relays: OutboxRelay[] = [];
    // The clock the pruner reads: tests move it by days.
    let t = Date.parse('2026-03-01T00:00:00Z');
    const clock = () => new Date(t);

    beforeAll(async () => {
      env = await openEnv();
    });
    afterAll(async () => {
      await env?.cleanup();
    });
    beforeEach(async () => {
      await env.db.exec('TRUNCATE execution.outbox RESTART IDENTITY; TRUNCATE execution.outbox_pruned; TRUNCATE registry.processed_events');
      b = await openBus();
      t = Date.parse('2026-03-01T00:00:00Z');
    });
    afterEach(async () => {
      await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
      await b.cleanup();
    });

    const pruner = (o: Partial<RetentionOptions> = {}) =>
      createRetentionPruner({ db: env.db, schema: 'execution', now: clock, outbox: true, outboxMaxAgeMs: 7 * DAY, processedMaxAgeMs: 0, logger: quiet, ...o });
    /** A row at `seq`, published at `publishedAt` (null: pending); the seq sequence moves past it. */
    const put = async (seq: number, publishedAt: Date | null) => {
      const e = payloadExecuted('retention');
      await env.db.query('INSERT INTO execution.outbox (seq, id, subject, event, created_at, published_at) VALUES ($1, $2, $3, $4::json, $5, $6)', [
        seq,
        e.id,
        b.subjects.event(e.scenario_id, e.type),
        JSON.stringify(e),
        new Date(t - 30 * DAY),
        publishedAt,
      ]);
      await env.db.query(`SELECT setval(pg_get_serial_sequence('execution.outbox', 'seq'), greatest($1::bigint, (SELECT max(seq) FROM execution.outbox)))`, [seq]);
      return e;
    };
    const seqs = async () => (await env.db.query<{ seq: string }>('SELECT o.seq::text AS seq FROM execution.outbox o ORDER BY o.seq')).rows.map((r) => Number(r.seq));
    const mark = async () => Number((await env.db.query<{ mark: string }>(`SELECT (${outboxMarkSql('execution')})::text AS mark`)).rows[0]!.mark);
    const upTo = async () => (await env.db.query<{ up_to: string }>('SELECT up_to::text AS up_to FROM execution.outbox_pruned')).rows.map((r) => Number(r.up_to));
    const old = (days: number) => new Date(t - days * DAY);

    it('deletes only rows published longer ago than the retention, in bounded batches, as the clock replays the days', async () => {
      for (let seq = 1; seq <= 4; seq++) await put(seq, old(10 - seq / 10));
      await put(5, old(1));
      // Pending for a month: never deleted, however old.
      await put(6, null);
      const pruned: { table: string; rows: number }[] = [];
      const p = pruner({ batchSize: 3, maxBatches: 1, onPruned: (i) => void pruned.push(i) });
      expect(await mark()).toBe(5);
      expect(await p.sweep()).toEqual({ outbox: 3, processed_events: 0, dead_letters: 0 });
      expect(await seqs()).toEqual([4, 5, 6]);
      expect(await upTo()).toEqual([3]);
      expect(await p.sweep()).toEqual({ outbox: 1, processed_events: 0, dead_letters: 0 });
      expect(await p.sweep()).toEqual({ outbox: 0, processed_events: 0, dead_letters: 0 });
      expect(await seqs()).toEqual([5, 6]);
      expect(await mark()).toBe(5);
      // A week on, row 5 (published a day before the first sweep) is due.
      t += 6 * DAY;
      expect((await p.sweep()).outbox).toBe(0);
      t += 2 * DAY;
      expect((await p.sweep()).outbox).toBe(1);
      t += 365 * DAY;
      expect((await p.sweep()).outbox).toBe(0);
      expect(await seqs()).toEqual([6]);
      expect(await upTo()).toEqual([5]);
      // The mark stood on row 5, now pruned: the relay still knows every seq up to 5 was handled.
      expect(await mark()).toBe(5);
      expect(pruned).toEqual([
        { table: 'outbox', rows: 3 },
        { table: 'outbox', rows: 1 },
        { table: 'outbox', rows: 1 },
      ]);
    });

    it('keeps the mark and the gap when every row below a gap is pruned, and a late row that fills it finds the mark it would have found', async () => {
      for (const seq of [1, 2, 3]) await put(seq, old(9));
      // seq 4 is drawn by a transaction still in flight: a gap.
      await put(5, null);
      expect(await mark()).toBe(3);
      expect((await pruner().sweep()).outbox).toBe(3);
      expect(await seqs()).toEqual([5]);
      expect(await mark()).toBe(3);
      expect(cutAtGap([5n], BigInt(await mark()), undefined, false, t)).toMatchObject({ publish: 0, watch: { firstMissing: 4n } });
      // The gap was given up, 5 and 6 published after it; days later all of them are pruned.
      await env.db.query('UPDATE execution.outbox SET published_at = $1 WHERE seq = 5', [old(8)]);
      await put(6, old(8));
      await put(7, null);
      expect(await mark()).toBe(6);
      expect((await pruner().sweep()).outbox).toBe(2);
      expect(await mark()).toBe(6);
      // Seq 4 commits at last: the mark below it is 3, as it would be had nothing been pruned.
      await put(4, null);
      expect(await mark()).toBe(3);
      expect(cutAtGap([4n, 7n], 3n, undefined, false, t).publish).toBeGreaterThanOrEqual(1);
    });

    it('moves the mark never below where it was, never to a pending row, and not at all when no seq is missing (random histories)', async () => {
      let seed = 7;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      for (let trial = 0; trial < 25; trial++) {
        await env.db.exec('TRUNCATE execution.outbox RESTART IDENTITY; TRUNCATE execution.outbox_pruned');
        const states: ('missing' | 'published' | 'pending')[] = [];
        for (let seq = 1; seq <= 12; seq++) {
          const r = rand();
          const state = r < 0.15 ? 'missing' : r < 0.8 ? 'published' : 'pending';
          states.push(state);
          if (state !== 'missing') await put(seq, state === 'published' ? old(rand() * 14) : null);
        }
        const before = await mark();
        await pruner({ batchSize: 1 + Math.floor(rand() * 4) }).sweep();
        const after = await mark();
        const firstPending = states.indexOf('pending') + 1;
        const why = `trial ${trial}: ${states.join(',')}`;
        expect(after, why).toBeGreaterThanOrEqual(before);
        if (firstPending > 0) expect(after, why).toBeLessThan(firstPending);
        if (firstPending > 0 && !states.slice(0, firstPending - 1).includes('missing')) expect(after, why).toBe(before);
        // Whatever moved, every seq it moved over had no row: nothing the relay could still publish is skipped.
        if (firstPending > 0) for (let seq = before + 1; seq <= after; seq++) expect(states[seq - 1], why).toBe('missing');
      }
    });

    it('publishes in seq order after the rows before them were pruned', async () => {
      const bus = flakyBus(b.bus);
      const r = createOutboxRelay({ db: env.db, schema: 'execution', bus, now: clock, logger: quiet });
      relays.push(r);
      const first = Array.from({ length: 3 }, () => payloadExecuted('kept'));
      await env.db.transaction((tx) => appendToOutbox(tx, 'execution', b.subjects, first));
      await r.drain();
      t = Date.now() + 8 * DAY;
      expect((await pruner().sweep()).outbox).toBe(3);
      const next = Array.from({ length: 4 }, () => payloadExecuted('kept'));
      await env.db.transaction((tx) => appendToOutbox(tx, 'execution', b.subjects, next));
      await r.drain();
      expect(ids(bus.published)).toEqual(ids([...first, ...next]));
      expect(await seqs()).toEqual([4, 5, 6, 7]);
    });

    it('deletes processed marks older than their retention, in batches, and keeps the recent ones', async () => {
      const mk = (consumer: string, daysAgo: number) =>
        env.db.query('INSERT INTO registry.processed_events (consumer, event_id, processed_at) VALUES ($1, $2, $3)', [consumer, payloadExecuted().id, old(daysAgo)]);
      for (let i = 0; i < 5; i++) await mk(i % 2 ? 'a' : 'b', 20 + i);
      await mk('a', 1);
      await mk('b', 13);
      const p = createRetentionPruner({ db: env.db, schema: 'registry', now: clock, outbox: false, outboxMaxAgeMs: 7 * DAY, processedMaxAgeMs: 14 * DAY, batchSize: 2, logger: quiet });
      expect(await p.sweep()).toEqual({ outbox: 0, processed_events: 5, dead_letters: 0 });
      const left = await env.db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.processed_events');
      expect(left.rows[0]!.n).toBe(2);
      t += 2 * DAY;
      expect((await p.sweep()).processed_events).toBe(1);
    });

    it("runs as a service's event flow: its retention from the config, its counts to the service's metric", async () => {
      const counted: [string, string, number][] = [];
      const metrics = { retentionPruned: (service: string, table: string, rows: number) => void counted.push([service, table, rows]) };
      const flow = serviceEventFlow({ db: env.db, schema: 'registry', subjects: createSubjects('parley'), now: clock, logger: quiet, processedRetentionMs: DAY, metrics, service: 'registry-svc' });
      await env.db.query('INSERT INTO registry.processed_events (consumer, event_id, processed_at) VALUES ($1, $2, $3), ($1, $4, $5)', ['c', payloadExecuted().id, old(2), payloadExecuted().id, new Date(t)]);
      expect(await flow.pruner.sweep()).toEqual({ outbox: 0, processed_events: 1, dead_letters: 0 });
      expect(counted).toEqual([['registry-svc', 'processed_events', 1]]);
    });

    const marks = async (n: number, daysAgo: number) => {
      for (let i = 0; i < n; i++) await env.db.query('INSERT INTO registry.processed_events (consumer, event_id, processed_at) VALUES ($1, $2, $3)', ['c', payloadExecuted().id, old(daysAgo)]);
    };
    const markCount = async () => (await env.db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.processed_events')).rows[0]!.n;

    it("keeps the marks while the LIVE stream's age limit (not the service's config) could still deliver their events", async () => {
      await marks(3, 20);
      let streamAge = 30 * DAY;
      const warned: string[] = [];
      const swept: unknown[] = [];
      const p = createRetentionPruner({
        db: env.db, schema: 'registry', now: clock, outbox: false, outboxMaxAgeMs: 0, processedMaxAgeMs: 14 * DAY, logger: { ...quiet, warn: (m: string) => void warned.push(m) },
        streamMaxAgeMs: async () => streamAge, onSwept: (i) => void swept.push(i),
      });
      // Another service (or an operator) set the shared stream to 30 days: marks of 20 days may still be replayed.
      expect((await p.sweep()).processed_events).toBe(0);
      // No age limit at all; a margin of a millisecond; an unreadable stream: kept too.
      for (const age of [0, 14 * DAY - 1, Number.NaN]) {
        streamAge = age;
        expect((await p.sweep()).processed_events, `stream age ${age}`).toBe(0);
      }
      expect(await markCount()).toBe(3);
      expect(warned).toEqual(Array(4).fill('event-flow retention: processed marks kept'));
      expect(swept.at(-1)).toEqual({ table: 'processed_events', behind: false, skipped: true });
      // Back to 7 days: 14 days is a real margin over it.
      streamAge = 7 * DAY;
      expect((await p.sweep()).processed_events).toBe(3);
      expect(swept.at(-1)).toEqual({ table: 'processed_events', behind: false, skipped: false });
    });

    it("reads the bus's live stream age limit through the service's event flow", async () => {
      await marks(2, 20);
      const flow = serviceEventFlow({ db: env.db, schema: 'registry', subjects: b.subjects, now: clock, logger: quiet, processedRetentionMs: 14 * DAY, bus: b.bus });
      expect(b.bus.streamMaxAgeMs).toBeTypeOf('function');
      const age = await b.bus.streamMaxAgeMs!();
      expect(age).toBeGreaterThan(0);
      // NATS: the stream's default 7 days, so the 20-day marks go; in-process: nothing older than its oldest event is held.
      expect((await flow.pruner.sweep()).processed_events).toBe(2);
    });

    it('sweeps again at the next check while a table is behind its batch cap, until caught up', async () => {
      for (let seq = 1; seq <= 7; seq++) await put(seq, old(9));
      const swept: { table: string; behind: boolean }[] = [];
      const p = pruner({ batchSize: 2, maxBatches: 1, intervalMs: DAY, checkEveryMs: 5, onSwept: (i) => void swept.push(i) });
      p.start();
      // The clock does not move: only being behind makes the later sweeps run.
      await expect.poll(seqs, { timeout: 5000 }).toEqual([]);
      await p.stop();
      expect(swept.slice(0, 4).map((x) => x.behind)).toEqual([true, true, true, false]);
    });

    it('stops between batches when stopped, and counts each batch as it commits', async () => {
      for (let seq = 1; seq <= 40; seq++) await put(seq, old(9));
      const counted: number[] = [];
      const self: { p?: ReturnType<typeof pruner> } = {};
      let stopping: Promise<void> | undefined;
      const p = pruner({ batchSize: 2, maxBatches: 100, intervalMs: DAY, onPruned: (i) => {
        counted.push(i.rows);
        // Stopped by the second batch's count: the sweep in flight ends there, not 18 batches later.
        if (counted.length === 2) stopping = self.p!.stop();
      } });
      self.p = p;
      p.start();
      await expect.poll(() => stopping !== undefined, { timeout: 5000 }).toBe(true);
      await stopping;
      expect(counted).toEqual([2, 2]);
      expect((await seqs()).length).toBe(36);
    });

    it('prunes each table on its own: a failing outbox prune neither skips the marks nor loses the batches counted', async () => {
      await env.db.exec('TRUNCATE execution.processed_events');
      for (const id of [payloadExecuted().id, payloadExecuted().id]) {
        await env.db.query('INSERT INTO execution.processed_events (consumer, event_id, processed_at) VALUES ($1, $2, $3)', ['c', id, old(20)]);
      }
      for (let seq = 1; seq <= 5; seq++) await put(seq, old(9));
      let outboxCalls = 0;
      const failing = Object.create(env.db) as typeof env.db;
      failing.query = (async (sql: string, params?: unknown[]) => {
        if (sql.includes('execution.outbox o') && ++outboxCalls > 1) throw new Error('outbox prune failed');
        return env.db.query(sql, params as never);
      }) as typeof env.db.query;
      const counted: [string, number][] = [];
      const p = pruner({ db: failing, processedMaxAgeMs: 14 * DAY, batchSize: 2, onPruned: (i) => void counted.push([i.table, i.rows]) });
      await expect(p.sweep()).rejects.toThrow('outbox prune failed');
      // The first outbox batch committed and was counted although the second threw; the marks were pruned all the same.
      expect(counted).toEqual([['outbox', 2], ['processed_events', 2]]);
      expect(await seqs()).toEqual([3, 4, 5]);
      expect((await env.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.processed_events')).rows[0]!.n).toBe(0);
    });

    it('sweeps when the clock says a sweep is due, not before', async () => {
      const p = pruner({ intervalMs: DAY, checkEveryMs: 5 });
      await put(1, old(8));
      p.start();
      await expect.poll(seqs, { timeout: 5000 }).toEqual([]);
      await put(2, old(8));
      await delay(100);
      // Real time passed, the clock did not: no sweep yet.
      expect(await seqs()).toEqual([2]);
      t += DAY;
      await expect.poll(seqs, { timeout: 5000 }).toEqual([]);
      await p.stop();
    });

    /** A dead letter set aside `daysAgo` days ago, resolved (`retried`/`discarded`) `resolvedDaysAgo` days ago, or still `dead`. */
    const deadLetter = async (status: 'dead' | 'retried' | 'discarded', daysAgo: number, resolvedDaysAgo?: number) => {
      const e = payloadExecuted('dl');
      await env.db.query(
        `INSERT INTO execution.dead_letters (source, event_id, event_type, scenario_id, event, event_bytes, error, attempts, dead_at, status, resolved_at, resolved_by)
         VALUES ('outbox', $1::uuid, $2, $3, $4::json, 10, 'refused', 8, $5, $6, $7, $8)`,
        [e.id, e.type, e.scenario_id, JSON.stringify(e), old(daysAgo), status, resolvedDaysAgo === undefined ? null : old(resolvedDaysAgo), status === 'dead' ? null : 'operator'],
      );
    };
    const deadLetterStates = async () =>
      (await env.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM execution.dead_letters GROUP BY status ORDER BY status')).rows.map((r) => [r.status, Number(r.n)]);

    it('deletes dead letters an operator resolved longer ago than their retention, never an unresolved one, however old', async () => {
      await env.db.exec('TRUNCATE execution.dead_letters');
      // Set aside a year ago and never resolved: an operator's open case, kept.
      await deadLetter('dead', 365);
      await deadLetter('dead', 40);
      // Resolved 40 and 31 days ago (due at 30 days); one resolved 10 days ago (not yet due).
      await deadLetter('retried', 60, 40);
      await deadLetter('discarded', 50, 31);
      await deadLetter('discarded', 45, 10);
      const counted: { table: string; rows: number }[] = [];
      const swept: unknown[] = [];
      const p = pruner({ outboxMaxAgeMs: 0, deadLettersMaxAgeMs: 30 * DAY, batchSize: 1, onPruned: (i) => void counted.push(i), onSwept: (i) => void swept.push(i) });
      expect(await p.sweep()).toEqual({ outbox: 0, processed_events: 0, dead_letters: 2 });
      expect(await deadLetterStates()).toEqual([['dead', 2], ['discarded', 1]]);
      expect(counted).toEqual([{ table: 'dead_letters', rows: 1 }, { table: 'dead_letters', rows: 1 }]);
      expect(swept).toEqual([{ table: 'dead_letters', behind: false, skipped: false }]);
      // Twenty days on (the clock, not real time) the one resolved 10 days before is exactly 30 days old: not
      // older than the retention yet. A day later it is due; the open ones stay.
      t += 20 * DAY;
      expect((await p.sweep()).dead_letters).toBe(0);
      t += DAY;
      expect((await p.sweep()).dead_letters).toBe(1);
      t += 10 * 365 * DAY;
      expect((await p.sweep()).dead_letters).toBe(0);
      expect(await deadLetterStates()).toEqual([['dead', 2]]);
    });

    it('keeps resolved dead letters forever with a retention of 0, and refuses one under a minute naming the option', async () => {
      await env.db.exec('TRUNCATE execution.dead_letters');
      await deadLetter('retried', 400, 399);
      expect((await pruner({ deadLettersMaxAgeMs: 0 }).sweep()).dead_letters).toBe(0);
      expect(await deadLetterStates()).toEqual([['retried', 1]]);
      expect(() => pruner({ deadLettersMaxAgeMs: 5000 })).toThrow(/^retention\.deadLettersMaxAgeMs must be 0 \(keep forever\)/);
    });

    it("ages out resolved dead letters as a service's event flow, by default after 30 days, counted under the service", async () => {
      await env.db.exec('TRUNCATE execution.dead_letters');
      await deadLetter('discarded', 40, 31);
      await deadLetter('discarded', 40, 29);
      const counted: [string, string, number][] = [];
      const metrics = { retentionPruned: (service: string, table: string, rows: number) => void counted.push([service, table, rows]) };
      const flow = serviceEventFlow({ db: env.db, schema: 'execution', subjects: createSubjects('parley'), now: clock, logger: quiet, outboxRetentionMs: 0, processedRetentionMs: 0, metrics, service: 'execution-svc' });
      expect((await flow.pruner.sweep()).dead_letters).toBe(1);
      expect(counted).toEqual([['execution-svc', 'dead_letters', 1]]);
      const off = serviceEventFlow({ db: env.db, schema: 'execution', subjects: createSubjects('parley'), now: () => new Date(t + 365 * DAY), logger: quiet, outboxRetentionMs: 0, processedRetentionMs: 0, deadLetterRetentionMs: 0 });
      expect((await off.pruner.sweep()).dead_letters).toBe(0);
    });

    it('stops a manual sweep in flight after its current batch and waits for it; the next manual sweep runs in full', async () => {
      for (let seq = 1; seq <= 10; seq++) await put(seq, old(9));
      const counted: number[] = [];
      const self: { p?: ReturnType<typeof pruner> } = {};
      let stopping: Promise<void> | undefined;
      let stopped = false;
      // The cancelled sweep reads no stream age for the marks (no NATS round trip in a shutdown) and
      // reports nothing of the outbox it cut short.
      let streamAgeReads = 0;
      const swept: string[] = [];
      const p = pruner({
        batchSize: 2,
        processedMaxAgeMs: 2 * DAY,
        streamMaxAgeMs: async () => (streamAgeReads++, 0),
        onSwept: (i) => void swept.push(i.table),
        onPruned: (i) => {
          counted.push(i.rows);
          if (counted.length === 2) stopping = self.p!.stop().then(() => void (stopped = true));
        },
      });
      self.p = p;
      const first = p.sweep();
      expect((await first).outbox).toBe(4);
      await stopping;
      expect(stopped).toBe(true);
      expect(streamAgeReads).toBe(0);
      expect(swept).toEqual([]);
      expect(await seqs()).toEqual([5, 6, 7, 8, 9, 10]);
      expect((await p.sweep()).outbox).toBe(6);
      expect(counted).toEqual([2, 2, 2, 2, 2]);
    });

    it('sweeps on demand after stop(): stop() ends the timer, not the pruner', async () => {
      await put(1, old(9));
      const p = pruner({ intervalMs: DAY, checkEveryMs: 5 });
      p.start();
      await expect.poll(seqs, { timeout: 5000 }).toEqual([]);
      await p.stop();
      await put(2, old(9));
      await put(3, old(9));
      // The timer is gone: nothing is swept by it however long we wait, even with the clock past the interval.
      t += 2 * DAY;
      await delay(50);
      expect(await seqs()).toEqual([2, 3]);
      // A manual sweep after stop() deletes what is due.
      expect((await p.sweep()).outbox).toBe(2);
      expect(await seqs()).toEqual([]);
      // And the pruner can be started again.
      await put(4, old(9));
      p.start();
      await expect.poll(seqs, { timeout: 5000 }).toEqual([]);
      await p.stop();
    });

    it('refuses a retention under a minute, or a batch that is not a positive integer, naming the option', () => {
      expect(() => pruner({ outboxMaxAgeMs: 5000 })).toThrow(/^retention\.outboxMaxAgeMs must be 0 \(keep forever\) or an integer from 60000 to 3153600000000, got 5000$/);
      // Beyond 100 years a cut-off Date is not representable: refused here, not on every sweep.
      expect(() => pruner({ outboxMaxAgeMs: Number.MAX_SAFE_INTEGER })).toThrow(/retention\.outboxMaxAgeMs must be 0/);
      expect(() => pruner({ processedMaxAgeMs: -1 })).toThrow(/retention\.processedMaxAgeMs must be 0/);
      expect(() => pruner({ batchSize: 0 })).toThrow(/^retention\.batchSize must be a positive integer, got 0$/);
      expect(() => pruner({ maxBatches: 1.5 })).toThrow(/retention\.maxBatches/);
    });

    if (opts.replicas) it('publishes rows at once after every row before them was pruned, while a writer behind them is in flight', async () => {
      const db2 = await env.openReplicaDb!();
      let release = () => {};
      try {
        const bus = flakyBus(b.bus);
        // A gap wait longer than the test: only a mark that survived pruning lets the rows through.
        const r = createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 5, maxGapWaitMs: 60_000, logger: quiet });
        relays.push(r);
        const first = [payloadExecuted('a'), payloadExecuted('a')];
        await env.db.transaction((tx) => appendToOutbox(tx, 'execution', b.subjects, first));
        await r.drain();
        t = Date.now() + 8 * DAY;
        expect((await pruner().sweep()).outbox).toBe(2);
        const next = [payloadExecuted('b'), payloadExecuted('b')];
        await env.db.transaction((tx) => appendToOutbox(tx, 'execution', b.subjects, next));
        const gate = new Promise<void>((res) => (release = res));
        let appended = false;
        const late = [payloadExecuted('c')];
        const held = db2.transaction(async (tx) => {
          await appendToOutbox(tx, 'execution', b.subjects, late);
          appended = true;
          await gate;
        });
        await expect.poll(() => appended).toBe(true);
        r.start();
        await expect.poll(() => ids(bus.published), { timeout: 5000 }).toEqual(ids([...first, ...next]));
        release();
        await held;
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([...first, ...next, ...late]));
      } finally {
        release();
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });
  });
}
