import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParleyError } from '@parley/protocol';
import { EventType, type Bus, type EventEnvelope, type Stoppable, type Subjects } from '@parley/events';
import { collectEvents, delay, otherCaptured, payloadExecuted } from '@parley/events/testing';

export interface BusUnderTest {
  bus: Bus;
  subjects: Subjects;
  /** Another Bus instance on the same stream, as a restarted process would have; defaults to the same bus. */
  reopen?: () => Promise<Bus>;
  cleanup(): Promise<void>;
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const ids = (events: readonly EventEnvelope[]) => events.map((e) => e.id);

/** Time after the expected deliveries in which an extra (duplicate) one would have shown up. */
const QUIET_MS = 300;

/**
 * The behaviour every Bus adapter must have; run against the in-process bus
 * (unit) and the NATS bus (integration).
 */
export function busContract(name: string, factory: () => Promise<BusUnderTest>): void {
  describe(`Bus contract: ${name}`, () => {
    let t: BusUnderTest;
    const toStop: Stoppable[] = [];
    const track = <S extends Stoppable>(s: S): S => {
      toStop.push(s);
      return s;
    };

    beforeEach(async () => {
      t = await factory();
    });
    afterEach(async () => {
      await Promise.allSettled(toStop.splice(0).map((s) => s.stop()));
      await t.cleanup();
    });

    it('names the largest event it carries and refuses a larger one with a typed error, storing nothing', async () => {
      const limit = t.bus.maxEventBytes?.();
      expect(limit).toBeGreaterThan(64 * 1024);
      const c = track(await collectEvents(t.bus, { durable: 'too_large', filterSubjects: [t.subjects.eventAllScenarios(EventType.PayloadExecuted)] }));
      const big = payloadExecuted('limits', { data: { keys_present: ['x'.repeat(limit! + 2048)] } });
      const err = await t.bus.publishEvent(big).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ type: 'unavailable', details: { event_id: big.id } });
      expect((err as Error).message).toMatch(/max_payload/);
      const fits = payloadExecuted('limits', { data: { keys_present: ['x'.repeat(limit! - 2048)] } });
      await t.bus.publishEvent(fits);
      await c.waitFor(1);
      await delay(QUIET_MS);
      expect(ids(c.events)).toEqual([fits.id]);
    });

    it('answers a request through a served subject', async () => {
      const subject = t.subjects.execute('flight_booking', 'agent_a');
      track(await t.bus.serve(subject, 'agent_a', async (body) => enc(`echo:${dec(body)}`)));
      const reply = await t.bus.request(subject, enc('hello'), { timeoutMs: 2000 });
      expect(dec(reply)).toBe('echo:hello');
    });

    it('spreads requests over the members of a queue group and answers each once', async () => {
      const subject = t.subjects.execute('flight_booking', 'agent_b');
      const handled = { a: 0, b: 0 };
      for (const member of ['a', 'b'] as const) {
        track(
          await t.bus.serve(subject, 'agent_b', async (body) => {
            handled[member]++;
            return enc(`${member}:${dec(body)}`);
          }),
        );
      }
      const n = 40;
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => t.bus.request(subject, enc(String(i)), { timeoutMs: 3000 }).then(dec)),
      );
      replies.forEach((r, i) => expect(r).toMatch(new RegExp(`^[ab]:${i}$`)));
      await delay(QUIET_MS);
      expect(handled.a + handled.b).toBe(n);
      expect(handled.a).toBeGreaterThan(0);
      expect(handled.b).toBeGreaterThan(0);
    });

    it('rejects with agent_unavailable when no member serves the subject', async () => {
      const subject = t.subjects.execute('flight_booking', 'nobody');
      const err = await t.bus.request(subject, enc('x'), { timeoutMs: 1000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ type: 'agent_unavailable', details: { subject, timeout_ms: 1000 } });
    });

    it('rejects with agent_unavailable once the last member has stopped', async () => {
      const subject = t.subjects.execute('flight_booking', 'leaving');
      const s = await t.bus.serve(subject, 'leaving', async (b) => b);
      await t.bus.request(subject, enc('x'), { timeoutMs: 2000 });
      await s.stop();
      await expect(t.bus.request(subject, enc('x'), { timeoutMs: 1000 })).rejects.toMatchObject({ type: 'agent_unavailable' });
    });

    it('rejects with agent_timeout when the member never answers', async () => {
      const subject = t.subjects.execute('flight_booking', 'silent');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      track(
        await t.bus.serve(subject, 'silent', async () => {
          await gate;
          return enc('too late');
        }),
      );
      const started = Date.now();
      const err = await t.bus.request(subject, enc('x'), { timeoutMs: 250 }).catch((e: unknown) => e);
      release();
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ type: 'agent_timeout', details: { subject, timeout_ms: 250 } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    });

    it('stores an event published twice with the same id once', async () => {
      const e = payloadExecuted('dedup');
      await t.bus.publishEvent(e);
      await t.bus.publishEvent(e);
      await t.bus.publishEvent({ ...e, source: 'a retry with another body' });
      const c = track(await collectEvents(t.bus, { durable: 'dedup', filterSubjects: [t.subjects.event('dedup', EventType.PayloadExecuted)] }));
      await c.waitFor(1);
      await delay(QUIET_MS);
      expect(ids(c.events)).toEqual([e.id]);
      expect(c.events[0]).toEqual(e);
    });

    it('delivers each event once, in publish order, to a durable consumer', async () => {
      const filter = [t.subjects.eventAllScenarios(EventType.PayloadExecuted)];
      const before = Array.from({ length: 5 }, (_, i) => payloadExecuted(`s${i % 2}`));
      for (const e of before) await t.bus.publishEvent(e);
      const c = track(await collectEvents(t.bus, { durable: 'ordered', filterSubjects: filter }));
      const after = Array.from({ length: 5 }, (_, i) => payloadExecuted(`s${i % 3}`));
      for (const e of after) await t.bus.publishEvent(e);
      await c.waitFor(10);
      await delay(QUIET_MS);
      expect(ids(c.events)).toEqual(ids([...before, ...after]));
    });

    it('stores events published without awaiting each other in call order, a repeated id once (the relay pipelines a batch)', async () => {
      const filter = [t.subjects.eventAllScenarios(EventType.PayloadExecuted)];
      const events = Array.from({ length: 40 }, (_, i) => payloadExecuted(`p${i % 3}`));
      // Every publish started before any is acknowledged; a re-send of an earlier one among them.
      await Promise.all([...events.slice(0, 20), events[5]!, ...events.slice(20)].map((e) => t.bus.publishEvent(e)));
      const c = track(await collectEvents(t.bus, { durable: 'pipelined', filterSubjects: filter }));
      await c.waitFor(40);
      await delay(QUIET_MS);
      expect(ids(c.events)).toEqual(ids(events));
    });

    it('gives every durable consumer its own cursor', async () => {
      const filter = [t.subjects.eventAllScenarios(EventType.PayloadExecuted)];
      const events = [payloadExecuted(), payloadExecuted(), payloadExecuted()];
      for (const e of events) await t.bus.publishEvent(e);
      const a = track(await collectEvents(t.bus, { durable: 'first', filterSubjects: filter }));
      const b = track(await collectEvents(t.bus, { durable: 'second', filterSubjects: filter }));
      await a.waitFor(3);
      await b.waitFor(3);
      expect(ids(a.events)).toEqual(ids(events));
      expect(ids(b.events)).toEqual(ids(events));
    });

    it('resumes a restarted durable consumer where it stopped, without repeats', async () => {
      const filter = [t.subjects.event('resume', EventType.PayloadExecuted)];
      const first = [payloadExecuted('resume'), payloadExecuted('resume'), payloadExecuted('resume')];
      const c1 = await collectEvents(t.bus, { durable: 'resumer', filterSubjects: filter });
      for (const e of first) await t.bus.publishEvent(e);
      await c1.waitFor(3);
      await c1.stop();

      const whileDown = [payloadExecuted('resume'), payloadExecuted('resume'), payloadExecuted('resume')];
      for (const e of whileDown) await t.bus.publishEvent(e);

      const bus2 = t.reopen ? await t.reopen() : t.bus;
      const c2 = track(await collectEvents(bus2, { durable: 'resumer', filterSubjects: filter }));
      await c2.waitFor(3);
      const later = payloadExecuted('resume');
      await t.bus.publishEvent(later);
      await c2.waitFor(4);
      await delay(QUIET_MS);
      expect(ids(c1.events)).toEqual(ids(first));
      expect(ids(c2.events)).toEqual(ids([...whileDown, later]));
    });

    it('redelivers an event whose handler threw, before any later event', async () => {
      const filter = [t.subjects.event('retry', EventType.PayloadExecuted)];
      const events = [payloadExecuted('retry'), payloadExecuted('retry'), payloadExecuted('retry')];
      const seen: string[] = [];
      let failuresLeft = 2;
      const c = track(
        await collectEvents(t.bus, {
          durable: 'retrier',
          filterSubjects: filter,
          retryDelayMs: 50,
          onEvent: (e) => {
            seen.push(e.id);
            if (e.id === events[1]!.id && failuresLeft > 0) {
              failuresLeft--;
              throw new Error('transient failure');
            }
          },
        }),
      );
      for (const e of events) await t.bus.publishEvent(e);
      await c.waitFor(3);
      await delay(QUIET_MS);
      const [e0, e1, e2] = ids(events);
      expect(ids(c.events)).toEqual([e0, e1, e2]);
      expect(seen).toEqual([e0, e1, e1, e1, e2]);
    });

    it('filters deliveries by scenario and event type subjects', async () => {
      const aExec = payloadExecuted('scen_a');
      const bExec = payloadExecuted('scen_b');
      const aOther = otherCaptured('scen_a');
      const bOther = otherCaptured('scen_b');
      for (const e of [aExec, bExec, aOther, bOther]) await t.bus.publishEvent(e);

      const onlyA = track(await collectEvents(t.bus, { durable: 'only_a', filterSubjects: [t.subjects.event('scen_a', EventType.PayloadExecuted)] }));
      const mixed = track(
        await collectEvents(t.bus, {
          durable: 'mixed',
          filterSubjects: [t.subjects.event('scen_a', EventType.PayloadExecuted), t.subjects.event('scen_b', EventType.OtherCaptured)],
        }),
      );
      const allOther = track(await collectEvents(t.bus, { durable: 'all_other', filterSubjects: [t.subjects.eventAllScenarios(EventType.OtherCaptured)] }));
      // Two filters one subject covers (a NATS 2.9 server gets `<prefix>.v1.*.payload.executed`, the bus the rest).
      const bothExec = track(
        await collectEvents(t.bus, { durable: 'both_exec', filterSubjects: [t.subjects.event('scen_b', EventType.PayloadExecuted), t.subjects.event('scen_a', EventType.PayloadExecuted)] }),
      );
      await onlyA.waitFor(1);
      await mixed.waitFor(2);
      await allOther.waitFor(2);
      await bothExec.waitFor(2);
      await delay(QUIET_MS);
      expect(ids(onlyA.events)).toEqual([aExec.id]);
      expect(ids(mixed.events)).toEqual([aExec.id, bOther.id]);
      expect(ids(allOther.events)).toEqual([aOther.id, bOther.id]);
      expect(ids(bothExec.events)).toEqual([aExec.id, bExec.id]);
    });

    it('hands a batch consumer the events available in stream order, up to maxBatch, and a batch whose handler threw again from its first event before any later one', async () => {
      const filter = [t.subjects.event('batch', EventType.PayloadExecuted)];
      const events = Array.from({ length: 7 }, () => payloadExecuted('batch'));
      for (const e of events.slice(0, 5)) await t.bus.publishEvent(e);
      const seen: string[][] = [];
      let failuresLeft = 2;
      track(
        await t.bus.consumeBatch!({ durable: 'batcher', filterSubjects: filter, retryDelayMs: 50, maxBatch: 3 }, async (batch) => {
          seen.push(ids(batch));
          if (failuresLeft > 0) {
            failuresLeft--;
            throw new Error('transient failure');
          }
        }),
      );
      for (const e of events.slice(5)) await t.bus.publishEvent(e);
      await expect.poll(() => seen.slice(2).flat().length, { timeout: 5000 }).toBe(7);
      await delay(QUIET_MS);
      // The failed batch twice more, unchanged; then every event once, in stream order, in batches of at most 3.
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
      expect(seen[0]![0]).toBe(events[0]!.id);
      expect(seen.slice(2).flat()).toEqual(ids(events));
      expect(Math.max(...seen.map((b) => b.length))).toBeLessThanOrEqual(3);
    });

    it('resumes a restarted batch consumer where it stopped, without repeats, and gathers a backlog into batches', async () => {
      const filter = [t.subjects.event('bresume', EventType.PayloadExecuted)];
      const first = Array.from({ length: 3 }, () => payloadExecuted('bresume'));
      const got1: string[] = [];
      const c1 = await t.bus.consumeBatch!({ durable: 'bresumer', filterSubjects: filter }, async (batch) => void got1.push(...ids(batch)));
      for (const e of first) await t.bus.publishEvent(e);
      await expect.poll(() => got1.length, { timeout: 5000 }).toBe(3);
      await c1.stop();

      const whileDown = Array.from({ length: 20 }, () => payloadExecuted('bresume'));
      for (const e of whileDown) await t.bus.publishEvent(e);
      const bus2 = t.reopen ? await t.reopen() : t.bus;
      const batches: string[][] = [];
      track(await bus2.consumeBatch!({ durable: 'bresumer', filterSubjects: filter, maxBatch: 50 }, async (batch) => void batches.push(ids(batch))));
      await expect.poll(() => batches.flat().length, { timeout: 5000 }).toBe(20);
      await delay(QUIET_MS);
      expect(got1).toEqual(ids(first));
      expect(batches.flat()).toEqual(ids(whileDown));
      // A backlog comes in fewer calls than events.
      expect(batches.length).toBeLessThan(20);
    });

    it('refuses a maxBatch that is not a positive integer', async () => {
      for (const maxBatch of [0, -1, 1.5]) {
        await expect(t.bus.consumeBatch!({ durable: 'badbatch', filterSubjects: [t.subjects.streamSubjects()[0]!], maxBatch }, async () => {})).rejects.toThrow(RangeError);
      }
    });

    it('reports healthy while open', async () => {
      expect(await t.bus.healthy()).toBe(true);
    });
  });
}
