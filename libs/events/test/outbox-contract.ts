import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '@parley/storage';
import { ParleyError } from '@parley/protocol';
import {
  appendToOutbox,
  consumeIdempotently,
  createDeadLetterOffice,
  createOutboxRelay,
  DEAD_LETTER_LOG,
  EventType,
  MAX_EVENT_BYTES,
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
      await env.db.exec(
        'TRUNCATE execution.outbox; TRUNCATE execution.dead_letters; TRUNCATE registry.processed_events; TRUNCATE registry.scenario_usage; TRUNCATE registry.dead_letters',
      );
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

    it('commits a pass that only marks rows published without waiting for its WAL flush on PostgreSQL (synchronously on PGlite), and a pass that sets a row aside at the configured level', async () => {
      // On PostgreSQL the database's level is not `on` (`local`, as an operator may choose with a synchronous standby),
      // so a pass forcing `on` rather than restoring the configured level would show here. New connections read it.
      const pg = env.db.kind === 'pg';
      const dbName = pg ? (await env.db.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d : '';
      if (pg) await env.db.exec(`ALTER DATABASE "${dbName}" SET synchronous_commit = local`);
      const base = pg ? await env.openReplicaDb!() : env.db;
      try {
        const configured = (await base.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
        expect(configured).toBe(pg ? 'local' : 'on');
        const { recorded, passes, settings, claimed } = recordPasses(base);
        const ASYNC = 'off';
        await append([payloadExecuted('sync'), payloadExecuted('sync')]);
        const r = relay(createOutboxRelay({ db: recorded, schema: 'execution', bus: b.bus, logger: quiet }));
        await r.drain();
        const published = passes.filter((p) => claimed.has(p));
        expect(published.length).toBeGreaterThan(0);
        // On a PostgreSQL server only: PGlite has no WAL writer that would flush an asynchronous commit later.
        expect(published.every((p) => (settings.get(p) === ASYNC) === pg)).toBe(true);
        // The claim sets it (no statement of its own): a pass that published rows runs the claim and nothing else.
        expect(published.every((p) => !p.some((q) => q.startsWith('SET ')))).toBe(true);
        // A pass that found nothing wrote nothing and kept the configured level.
        expect(passes.filter((p) => !claimed.has(p)).every((p) => settings.get(p) === configured)).toBe(true);
        const huge = payloadExecuted('sync', { data: { keys_present: ['x'.repeat(1_100_000)] } });
        await env.db.query('INSERT INTO execution.outbox (id, subject, event, created_at) VALUES ($1, $2, $3::json, now())', [huge.id, b.subjects.event('sync', huge.type), JSON.stringify(huge)]);
        passes.length = 0;
        r.nudge();
        await r.drain();
        const withDead = passes.filter((p) => p.some((q) => q.includes('dead_letters')));
        expect(withDead.length).toBeGreaterThan(0);
        // A pass that moved a row to the dead letters commits at the configured level, as every other write.
        expect(withDead.map((p) => settings.get(p))).toEqual(withDead.map(() => configured));
        expect(await r.pending()).toBe(0);
        // The setting is the transaction's own: the connection commits at the configured level afterwards.
        const shown = await base.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
        expect(shown.rows[0]!.synchronous_commit).toBe(configured);
      } finally {
        if (pg) {
          await base.close();
          await env.db.exec(`ALTER DATABASE "${dbName}" RESET synchronous_commit`);
        }
      }
    });

    for (const publishWindow of [1, undefined]) {
      const mode = publishWindow === 1 ? 'one row at a time' : 'a batch pipelined';
      it(`publishes committed events exactly once, in seq order, through bus failures (${mode})`, async () => {
        const first = Array.from({ length: 5 }, () => payloadExecuted('a'));
        const second = Array.from({ length: 3 }, () => payloadExecuted('b'));
        await append(first);
        await append(second);
        const bus = flakyBus(b.bus, { failFirst: 3 });
        const errors: { eventId?: string; attempts?: number }[] = [];
        const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, batchSize: 3, retryBaseMs: 10, onError: (_e, info) => errors.push(info), ...(publishWindow ? { publishWindow } : {}) }));
        const c = await collect(`outbox_order_${publishWindow ?? 'batch'}`);
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([...first, ...second]));
        // Pipelined, the outage refuses the whole first batch at once: one failure counted, on its first row,
        // the rows behind it unmarked with no attempt counted; then one row at a time until a batch passes.
        const counted = publishWindow === 1 ? [1, 2, 3] : [1];
        expect(bus.attempts).toBe(8 + 3);
        expect(errors.map((e) => e.eventId)).toEqual(counted.map(() => first[0]!.id));
        expect(errors.map((e) => e.attempts)).toEqual(counted);
        await c.waitFor(8);
        await delay(200);
        expect(ids(c.events)).toEqual(ids([...first, ...second]));
        const rows = await env.db.query<{ id: string; attempts: number; last_error: string | null; published: boolean }>(
          'SELECT id, attempts, last_error, published_at IS NOT NULL AS published FROM execution.outbox ORDER BY seq',
        );
        expect(rows.rows.every((row) => row.published)).toBe(true);
        expect(rows.rows[0]).toMatchObject({ id: first[0]!.id, attempts: counted.length, last_error: 'simulated bus outage' });
        expect(rows.rows.slice(1).every((row) => row.attempts === 0)).toBe(true);
      });
    }

    it('one row at a time: stops at a failing row so that later rows do not overtake it', async () => {
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
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus: failing, publishWindow: 1, retryBaseMs: 10, onError: () => {} }));
      await r.drain();
      expect(ids(bus.published)).toEqual(ids(events));
    });

    it('pipelined: rows sent behind a refused row stay unmarked and go again after it, in order, stored once; the relay says the stream may hold them ahead of it, then sends one at a time', async () => {
      const events = Array.from({ length: 6 }, () => payloadExecuted('pipe'));
      await append(events);
      const inner = flakyBus(b.bus);
      const sent: string[] = [];
      let refusals = 0;
      const bus: Bus = {
        ...inner,
        publishEvent: async (e) => {
          sent.push(e.id);
          // The bus refuses the third event twice and stores the rest: the case pipelining cannot keep in order.
          if (e.id === events[2]!.id && refusals++ < 2) throw new Error('no responders: stream leader changing');
          await inner.publishEvent(e);
        },
      };
      const warned: { msg: string; fields?: Record<string, unknown> }[] = [];
      const r = relay(
        createOutboxRelay({
          db: env.db,
          schema: 'execution',
          bus,
          retryBaseMs: 5,
          onError: () => {},
          logger: { warn: (msg, fields) => void warned.push({ msg, ...(fields ? { fields } : {}) }), error: () => {} },
        }),
      );
      const c = await collect('outbox_pipelined');
      await r.drain();
      const i = ids(events);
      // The whole batch went out at once; then the refused row alone, twice (one row at a time after a failure).
      // The rows the stream stored after it stay published and are not sent again: a re-send after a long outage
      // could outlive the stream's de-duplication window and be stored twice.
      expect(sent).toEqual([...i, i[2], i[2]]);
      await c.waitFor(6);
      await delay(200);
      expect(c.events.map((e) => e.id)).toEqual([i[0], i[1], i[3], i[4], i[5], i[2]]);
      expect(warned).toEqual([
        { msg: expect.stringMatching(/may precede it/), fields: expect.objectContaining({ schema: 'execution', event_id: i[2], stored_after: 3, first_stored_after: i[3] }) },
      ]);
      const rows = await env.db.query<{ id: string; attempts: number; published: boolean }>('SELECT id, attempts, published_at IS NOT NULL AS published FROM execution.outbox ORDER BY seq');
      expect(rows.rows.map((x) => [x.id, x.attempts, x.published])).toEqual(i.map((id, k) => [id, k === 2 ? 2 : 0, true]));
      expect(await r.pending()).toBe(0);
    });

    it('keeps every row pending while the bus is down, however often it fails, sets none aside, and rejects drain() on stop', async () => {
      await append([payloadExecuted(), payloadExecuted()]);
      const flaky = flakyBus(b.bus, { failFirst: Number.MAX_SAFE_INTEGER });
      // An outage: the bus also says it is unhealthy, so the failures are not the row's fault.
      const bus: Bus = { ...flaky, publishEvent: (e) => flaky.publishEvent(e), healthy: async () => false };
      const r = createOutboxRelay({ db: env.db, schema: 'execution', bus, retryBaseMs: 5, retryMaxMs: 20, maxAttempts: 2, onError: () => {} });
      const drained = r.drain();
      drained.catch(() => {});
      await expect.poll(() => flaky.attempts, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
      await r.stop();
      await expect(drained).rejects.toThrow(/stopped/);
      expect(await r.pending()).toBe(2);
      const rows = await env.db.query<{ attempts: number }>('SELECT attempts FROM execution.outbox ORDER BY seq');
      // The first batch sent both rows at once (one failure counted, on the first); then one row at a time.
      expect(rows.rows[0]!.attempts).toBeGreaterThanOrEqual(3);
      expect(rows.rows[1]!.attempts).toBe(0);
      expect(flaky.published).toEqual([]);
      expect(await deadLetters(env.db, 'execution')).toEqual([]);
    });

    it('sets aside a row larger than the bus can carry at once, and publishes the rows after it in order', async () => {
      const before = [payloadExecuted('big'), payloadExecuted('big')];
      const after = Array.from({ length: 5 }, () => payloadExecuted('big'));
      await append(before);
      // A fixture written past the insert guard, as a row from an older release could be: over the bus's max payload.
      const huge = payloadExecuted('big', { data: { keys_present: ['x'.repeat(1_100_000)] } });
      await env.db.query('INSERT INTO execution.outbox (id, subject, event, created_at) VALUES ($1, $2, $3::json, now())', [huge.id, b.subjects.event('big', huge.type), JSON.stringify(huge)]);
      await append(after);
      const bus = flakyBus(b.bus);
      const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, logger: { warn: () => {}, error: (msg, fields) => void logged.push({ msg, ...(fields ? { fields } : {}) }) } }));
      const c = await collect('outbox_big');
      await r.drain();
      expect(ids(bus.published)).toEqual(ids([...before, ...after]));
      expect(bus.attempts).toBe(7); // the huge row is never tried: no retry could publish it
      await c.waitFor(7);
      await delay(200);
      expect(ids(c.events)).toEqual(ids([...before, ...after]));
      const dead = await deadLetters(env.db, 'execution');
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ source: 'outbox', consumer: null, event_id: huge.id, event_type: 'payload.executed', scenario_id: 'big', status: 'dead', subject: b.subjects.event('big', huge.type) });
      expect(dead[0]!.error).toMatch(/^event_too_large: \d+ bytes exceed the limit of \d+ bytes$/);
      expect(dead[0]!.event_bytes).toBeGreaterThan(1_100_000);
      expect(await r.pending()).toBe(0);
      expect(logged).toEqual([{ msg: DEAD_LETTER_LOG, fields: expect.objectContaining({ schema: 'execution', source: 'outbox', event_id: huge.id, dead_letters_open: 1 }) }]);
    });

    it('sets aside a row the healthy bus refuses maxAttempts times, and the rest flows on in order', async () => {
      const events = Array.from({ length: 6 }, () => payloadExecuted('poison'));
      await append(events);
      const poison = events[2]!;
      const inner = flakyBus(b.bus);
      let refused = 0;
      const bus: Bus = {
        ...inner,
        publishEvent: async (e) => {
          if (e.id === poison.id) {
            refused++;
            throw new Error('subject not captured by any stream');
          }
          await inner.publishEvent(e);
        },
      };
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, retryBaseMs: 5, retryMaxMs: 20, maxAttempts: 3, onError: () => {}, logger: quiet }));
      await r.drain();
      expect(refused).toBe(3);
      // Stored once each, in order (the rows sent behind the poison in the first batch went again after it, de-duplicated).
      expect([...new Set(ids(inner.published))]).toEqual(ids(events.filter((e) => e !== poison)));
      const dead = await deadLetters(env.db, 'execution');
      expect(dead.map((d) => [d.event_id, d.attempts, d.error, d.status])).toEqual([[poison.id, 3, 'subject not captured by any stream', 'dead']]);
      const left = await env.db.query('SELECT id FROM execution.outbox WHERE id = $1', [poison.id]);
      expect(left.rows).toEqual([]);
    });

    it('guards the outbox at insert: an oversized event goes to the dead letters in the same transaction, the others to the outbox', async () => {
      const small = payloadExecuted('guard');
      const big = payloadExecuted('guard', { data: { keys_present: ['y'.repeat(MAX_EVENT_BYTES)] } });
      const logged: string[] = [];
      await env.db.transaction((tx) => appendToOutbox(tx, 'execution', b.subjects, [small, big], { logger: { warn: () => {}, error: (m) => void logged.push(m) } }));
      const outbox = await env.db.query<{ id: string }>('SELECT id FROM execution.outbox');
      expect(outbox.rows.map((r) => r.id)).toEqual([small.id]);
      const dead = await deadLetters(env.db, 'execution');
      expect(dead.map((d) => [d.event_id, d.source, d.attempts])).toEqual([[big.id, 'outbox', 0]]);
      expect(dead[0]!.error).toBe(`event_too_large: ${dead[0]!.event_bytes} bytes exceed the limit of ${MAX_EVENT_BYTES} bytes`);
      expect(logged).toEqual([DEAD_LETTER_LOG]);
      // Rolled back with the state change that caused it: neither table keeps anything.
      const bigger = payloadExecuted('guard', { data: { keys_present: ['z'.repeat(MAX_EVENT_BYTES)] } });
      await expect(
        env.db.transaction(async (tx) => {
          await appendToOutbox(tx, 'execution', b.subjects, [bigger], { logger: quiet });
          throw new Error('business rule failed');
        }),
      ).rejects.toThrow('business rule failed');
      expect((await deadLetters(env.db, 'execution')).map((d) => d.event_id)).toEqual([big.id]);
    });

    it('lets an operator list, retry (back into the outbox, then published) and discard outbox dead letters', async () => {
      const office = createDeadLetterOffice({ db: env.db, schema: 'execution', subjects: b.subjects, logger: quiet });
      const events = Array.from({ length: 3 }, () => payloadExecuted('office'));
      await append(events);
      const inner = flakyBus(b.bus);
      let refuse = true;
      const bus: Bus = {
        ...inner,
        publishEvent: async (e) => {
          if (refuse && e.id !== events[0]!.id) throw new Error('refused');
          await inner.publishEvent(e);
        },
      };
      const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, retryBaseMs: 5, maxAttempts: 1, onError: () => {}, logger: quiet, deadLetters: office }));
      await r.drain();
      const listed = await office.list();
      expect(listed.counts).toEqual({ dead: 2, retried: 0, discarded: 0 });
      expect(listed.dead_letters.map((d) => d.event_id)).toEqual([events[1]!.id, events[2]!.id]);
      expect(listed.dead_letters[0]!.event_preview).toContain(events[1]!.id);
      refuse = false;
      r.start();
      const retried = await office.retry(listed.dead_letters[0]!.id, 'ops');
      expect(retried).toMatchObject({ retried: true, dead_letter: { status: 'retried', resolved_by: 'ops' } });
      await expect.poll(() => ids(inner.published), { timeout: 5000 }).toEqual([events[0]!.id, events[1]!.id]);
      const discarded = await office.discard(listed.dead_letters[1]!.id, 'ops', 'a test event nobody needs');
      expect(discarded).toMatchObject({ status: 'discarded', note: 'a test event nobody needs' });
      expect((await office.list()).counts).toEqual({ dead: 0, retried: 1, discarded: 1 });
      expect((await office.list({ status: 'all' })).dead_letters.map((d) => d.status)).toEqual(['retried', 'discarded']);
      expect((await office.list({ status: 'all', scenario_id: 'elsewhere' })).dead_letters).toEqual([]);
      // Each changes a dead letter once; bad ids and params are typed errors that change nothing.
      await expect(office.retry(listed.dead_letters[0]!.id, 'ops')).rejects.toMatchObject({ type: 'illegal_transition', path: 'params.id', rule: 'dead_only' });
      await expect(office.discard(listed.dead_letters[0]!.id, 'ops', 'again')).rejects.toMatchObject({ type: 'illegal_transition', rule: 'dead_only' });
      await expect(office.retry('999999', 'ops')).rejects.toMatchObject({ type: 'dead_letter_not_found', path: 'params.id', rule: 'exists' });
      await expect(office.retry('1; DROP TABLE x', 'ops')).rejects.toMatchObject({ type: 'invalid_params', path: 'params.id', rule: 'pattern' });
      await expect(office.discard(listed.dead_letters[1]!.id, 'ops', ' ')).rejects.toMatchObject({ type: 'invalid_params', path: 'params.reason', rule: 'required' });
      await expect(office.list({ status: 'gone' as never })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.status', rule: 'enum' });
      await expect(office.list({ limit: 0 })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.limit', rule: 'range' });
      expect((await office.list({ status: 'all' })).counts).toEqual({ dead: 0, retried: 1, discarded: 1 });
    });

    it('sets aside an event whose handler keeps throwing, acknowledges it and handles the next ones; an operator applies it later', async () => {
      const office = createDeadLetterOffice({ db: env.db, schema: 'registry', subjects: b.subjects, logger: quiet });
      const events = Array.from({ length: 4 }, () => payloadExecuted('consumer'));
      const poison = events[1]!;
      let broken = true;
      const calls: string[] = [];
      const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
      subs.push(
        await consumeIdempotently(
          {
            bus: b.bus,
            db: env.db,
            schema: 'registry',
            durable: 'poisoned',
            filterSubjects: [b.subjects.eventAllScenarios(EventType.PayloadExecuted)],
            retryDelayMs: 10,
            maxAttempts: 3,
            deadLetters: office,
            logger: { warn: () => {}, error: (msg, fields) => void logged.push({ msg, ...(fields ? { fields } : {}) }) },
          },
          async (e, tx) => {
            calls.push(e.id);
            await bumpUsage(tx, e);
            if (broken && e.id === poison.id) throw new TypeError("Cannot read properties of undefined (reading 'vector')");
          },
        ),
      );
      for (const e of events) await b.bus.publishEvent(e);
      await expect.poll(() => calls.filter((id) => id === events[3]!.id).length, { timeout: 10_000 }).toBe(1);
      // The poison's three attempts, then the events after it, once each. When the bus hands over the first
      // event and the poison in one batch, that batch is rolled back and the first event applied again on
      // its own: its handler then runs twice, its effect still once (the usage counted below).
      expect(calls[0]).toBe(events[0]!.id);
      expect(calls.filter((id) => id === poison.id)).toHaveLength(3);
      expect(calls.filter((id) => id === events[0]!.id).length).toBeLessThanOrEqual(2);
      expect(calls.slice(calls.lastIndexOf(poison.id) + 1)).toEqual([events[2]!.id, events[3]!.id]);
      // The poison's writes were rolled back each time: three events counted (the last handler call is
      // seen before its transaction commits, so wait for the commit).
      await expect.poll(() => usage(env.db), { timeout: 5_000 }).toEqual({ consumer: 3 });
      const dead = await office.list();
      expect(dead.dead_letters.map((d) => [d.source, d.consumer, d.event_id, d.attempts, d.error])).toEqual([
        ['consumer', 'poisoned', poison.id, 3, "Cannot read properties of undefined (reading 'vector')"],
      ]);
      expect(logged).toEqual([{ msg: DEAD_LETTER_LOG, fields: expect.objectContaining({ schema: 'registry', source: 'consumer', consumer: 'poisoned', event_id: poison.id, attempts: 3, dead_letters_open: 1 }) }]);
      // Still broken: the retry reports why and changes nothing.
      const again = await office.retry(dead.dead_letters[0]!.id, 'ops');
      expect(again).toMatchObject({ retried: false, dead_letter: { status: 'dead', attempts: 4 } });
      expect(await usage(env.db)).toEqual({ consumer: 3 });
      // Fixed: the retry applies it exactly once, and a redelivery afterwards changes nothing.
      broken = false;
      expect(await office.retry(dead.dead_letters[0]!.id, 'ops')).toMatchObject({ retried: true, dead_letter: { status: 'retried', resolved_by: 'ops' } });
      expect(await usage(env.db)).toEqual({ consumer: 4 });
      await b.bus.publishEvent({ ...poison });
      await delay(200);
      expect(await usage(env.db)).toEqual({ consumer: 4 });
    });

    it('never sets an event aside for a failure the error calls retryable (a dependency is down, not the event)', async () => {
      let failures = 0;
      const seen: string[] = [];
      subs.push(
        await consumeIdempotently(
          { bus: b.bus, db: env.db, schema: 'registry', durable: 'outage', filterSubjects: [b.subjects.eventAllScenarios(EventType.PayloadExecuted)], retryDelayMs: 5, maxAttempts: 2, logger: quiet },
          async (e, tx) => {
            if (failures++ < 6) throw new ParleyError('unavailable', 'negotiation is unreachable');
            seen.push(e.id);
            await bumpUsage(tx, e);
          },
        ),
      );
      const e = payloadExecuted('outage');
      await b.bus.publishEvent(e);
      await expect.poll(() => seen, { timeout: 10_000 }).toEqual([e.id]);
      expect(failures).toBe(7);
      expect(await deadLetters(env.db, 'registry')).toEqual([]);
      // `seen` is pushed inside the handler's transaction, before it commits: wait for the commit.
      await expect.poll(() => usage(env.db), { timeout: 5_000 }).toEqual({ outage: 1 });
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

    it('at rest a poll is one look outside a transaction, and a row committed without a nudge is still published on a poll', async () => {
      const bus = flakyBus(b.bus);
      const seen = { transactions: 0, looks: 0 };
      const counted = new Proxy(env.db, {
        get(target, key) {
          const v = Reflect.get(target, key) as unknown;
          if (typeof v !== 'function') return v;
          if (key === 'transaction') return (...a: unknown[]) => (seen.transactions++, (v as (...x: unknown[]) => unknown).apply(target, a));
          if (key === 'query') return (sql: string, ...a: unknown[]) => (sql.includes('SELECT EXISTS') && seen.looks++, (v as (...x: unknown[]) => unknown).call(target, sql, ...a));
          return (v as (...x: unknown[]) => unknown).bind(target);
        },
      });
      const r = relay(createOutboxRelay({ db: counted, schema: 'execution', bus, pollIntervalMs: 10 }));
      r.start();
      await expect.poll(() => seen.looks, { timeout: 3000, interval: 10 }).toBeGreaterThanOrEqual(5);
      // The start's pass claims in a transaction (it publishes what a crash left); the polls after it only look.
      expect(seen.transactions).toBe(1);
      const e = payloadExecuted();
      await append([e]);
      await expect.poll(() => ids(bus.published), { timeout: 3000, interval: 10 }).toEqual([e.id]);
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
      // The handler has run for the last event; its transaction commits just after.
      await expect.poll(() => usage(env.db), { timeout: 5000 }).toEqual({ s0: 5, s1: 5 });
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
      // The counter moves as the second call starts: wait for its commit, then see it is not applied twice.
      await expect.poll(() => usage(env.db), { timeout: 5_000 }).toEqual({ roll: 1 });
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

    // A writer that took its seq first but commits last: two group commits in flight, or two services on one schema.
    if (opts.replicas) it('keeps seq order when a lower seq commits after a higher one, and lets a rolled-back seq go', async () => {
      const db2 = await env.openReplicaDb!();
      const gates: (() => void)[] = [];
      const holding = (events: EventEnvelope[], fail: boolean) =>
        db2.transaction(async (tx) => {
          await append(events, tx);
          await new Promise<void>((r) => gates.push(r));
          if (fail) throw new Error('rolled back on purpose');
        });
      try {
        const bus = flakyBus(b.bus);
        const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 5 }));
        r.start();
        const early = [payloadExecuted('early')];
        const held = holding(early, false);
        await expect.poll(() => gates.length).toBe(1);
        const late = [payloadExecuted('late')];
        await append(late);
        r.nudge();
        await delay(200);
        expect(ids(bus.published)).toEqual([]);
        gates[0]!();
        await held;
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([...early, ...late]));

        const lost = holding([payloadExecuted('lost')], true);
        await expect.poll(() => gates.length).toBe(2);
        const after = [payloadExecuted('after')];
        await append(after);
        r.nudge();
        await delay(100);
        expect(ids(bus.published)).toEqual(ids([...early, ...late]));
        gates[1]!();
        await expect(lost).rejects.toThrow('rolled back on purpose');
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([...early, ...late, ...after]));
      } finally {
        for (const g of gates) g();
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });

    if (opts.replicas) it('gives up waiting on a transaction left open past maxGapWaitMs, says so, and publishes its row when it commits', async () => {
      const db2 = await env.openReplicaDb!();
      let release = () => {};
      try {
        const bus = flakyBus(b.bus);
        const warnings: string[] = [];
        const logger = { warn: (m: string) => void warnings.push(m), error: () => {} };
        const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 5, maxGapWaitMs: 100, logger }));
        r.start();
        const gate = new Promise<void>((res) => (release = res));
        let appended = false;
        const early = [payloadExecuted('early')];
        const held = db2.transaction(async (tx) => {
          await append(early, tx);
          appended = true;
          await gate;
        });
        await expect.poll(() => appended).toBe(true);
        const late = [payloadExecuted('late')];
        await append(late);
        r.nudge();
        await expect.poll(() => ids(bus.published), { timeout: 5000 }).toEqual(ids(late));
        expect(warnings.some((w) => w.includes('gave up waiting'))).toBe(true);
        release();
        await held;
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([...late, ...early]));
      } finally {
        release();
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });

    // A writer holds the outbox's lock from before it draws its seq, before it has a transaction id of its own.
    if (opts.replicas) it('holds the rows behind a seq drawn by a writer that has no transaction id yet', async () => {
      const db2 = await env.openReplicaDb!();
      let release = () => {};
      try {
        const bus = flakyBus(b.bus);
        const r = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 5 }));
        r.start();
        const early = payloadExecuted('early');
        const gate = new Promise<void>((res) => (release = res));
        let drawn = false;
        const held = db2.transaction(async (tx) => {
          // The lock an INSERT takes first, then the seq its default draws: no row written yet, so no xid.
          await tx.query('LOCK TABLE execution.outbox IN ROW EXCLUSIVE MODE');
          const seq = (await tx.query<{ seq: string }>(`SELECT nextval(pg_get_serial_sequence('execution.outbox', 'seq'))::text AS seq`)).rows[0]!.seq;
          drawn = true;
          await gate;
          await tx.query('INSERT INTO execution.outbox (seq, id, subject, event, created_at) VALUES ($1, $2, $3, $4::json, now())', [
            seq,
            early.id,
            b.subjects.event(early.scenario_id, early.type),
            JSON.stringify(early),
          ]);
        });
        await expect.poll(() => drawn).toBe(true);
        const late = [payloadExecuted('late')];
        await append(late);
        r.nudge();
        await delay(200);
        expect(ids(bus.published)).toEqual([]);
        release();
        await held;
        await r.drain();
        expect(ids(bus.published)).toEqual(ids([early, ...late]));
      } finally {
        release();
        await Promise.allSettled(relays.splice(0).map((r) => r.stop()));
        await db2.close();
      }
    });

    if (opts.replicas) it('waits for no transaction that does not write the outbox, and gives a gap up on time with two replicas taking turns', async () => {
      const db2 = await env.openReplicaDb!();
      const releases: (() => void)[] = [];
      try {
        const bus = flakyBus(b.bus);
        const warnings: string[] = [];
        const logger = { warn: (m: string) => void warnings.push(m), error: () => {} };
        const r1 = relay(createOutboxRelay({ db: env.db, schema: 'execution', bus, pollIntervalMs: 5, maxGapWaitMs: 300, logger }));
        const r2 = relay(createOutboxRelay({ db: db2, schema: 'execution', bus, pollIntervalMs: 5, maxGapWaitMs: 300, logger }));
        r1.start();
        r2.start();
        // A transaction elsewhere holds an xid and stays open: it writes no outbox row, so no gap waits for it.
        const other = db2.transaction(async (tx) => {
          await tx.query('INSERT INTO registry.scenario_usage (agent, scenario_id, executions) VALUES ($1, $1, 1)', ['unrelated']);
          await new Promise<void>((res) => releases.push(res));
        });
        await expect.poll(() => releases.length).toBe(1);
        const rolledBack = db2.transaction(async (tx) => {
          await append([payloadExecuted('lost')], tx);
          throw new Error('rolled back on purpose');
        });
        await expect(rolledBack).rejects.toThrow('rolled back on purpose');
        const first = [payloadExecuted('first')];
        await append(first);
        r1.nudge();
        await expect.poll(() => ids(bus.published), { timeout: 5000 }).toEqual(ids(first));
        // The rolled-back seq settled when its writer ended: no gap was given up for the unrelated transaction.
        expect(warnings).toEqual([]);

        // A writer left open: both replicas watch it, and the gap is given up after maxGapWaitMs all the same.
        let appended = false;
        const early = [payloadExecuted('early')];
        const held = db2.transaction(async (tx) => {
          await append(early, tx);
          appended = true;
          await new Promise<void>((res) => releases.push(res));
        });
        await expect.poll(() => appended).toBe(true);
        const late = [payloadExecuted('late')];
        await append(late);
        const nudging = setInterval(() => (r1.nudge(), r2.nudge()), 2);
        try {
          await expect.poll(() => ids(bus.published), { timeout: 10_000 }).toEqual(ids([...first, ...late]));
          expect(warnings.some((w) => w.includes('gave up waiting'))).toBe(true);
        } finally {
          clearInterval(nudging);
        }
        for (const release of releases) release();
        await Promise.all([held, other]);
        await Promise.all([r1.drain(), r2.drain()]);
        expect(ids(bus.published)).toEqual(ids([...first, ...late, ...early]));
      } finally {
        for (const release of releases) release();
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
          // Sent at once, as a bus sends (Bus.publishEvent); the first acknowledgement is held back.
          publishEvent: async (e) => {
            const sent = shared.publishEvent(e);
            if (!blocked) {
              blocked = true;
              await gate;
            }
            await sent;
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

async function deadLetters(db: Db, schema: 'execution' | 'registry') {
  const r = await db.query<{ source: string; consumer: string | null; event_id: string; event_type: string; scenario_id: string; subject: string | null; error: string; attempts: number; event_bytes: number; status: string }>(
    `SELECT source, consumer, event_id::text AS event_id, event_type, scenario_id, subject, error, attempts, event_bytes, status FROM ${schema}.dead_letters ORDER BY id`,
  );
  return r.rows;
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

/**
 * The database with every relay transaction recorded: its statements by pass, the pass's `synchronous_commit` as it
 * commits (read just before COMMIT), and which passes claimed rows.
 */
function recordPasses(db: Db): { recorded: Db; passes: string[][]; settings: Map<string[], string>; claimed: Set<string[]> } {
  const passes: string[][] = [];
  const settings = new Map<string[], string>();
  const claimed = new Set<string[]>();
  const recorded = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
      return (fn: (tx: Queryable) => Promise<unknown>) =>
        target.transaction((tx) => {
          const sql: string[] = [];
          passes.push(sql);
          const spy = new Proxy(tx, {
            get: (t, k, r) =>
              k === 'query'
                ? async (text: string, params?: unknown[]) => {
                    sql.push(text);
                    const out = await t.query(text, params);
                    if (text.includes('SET published_at = now()') && out.rowCount > 0) claimed.add(sql);
                    return out;
                  }
                : Reflect.get(t, k, r),
          });
          return fn(spy).then(async (out) => {
            const shown = await tx.query<{ s: string }>(`SELECT current_setting('synchronous_commit') AS s`);
            settings.set(sql, shown.rows[0]!.s);
            return out;
          });
        });
    },
  }) as Db;
  return { recorded, passes, settings, claimed };
}
