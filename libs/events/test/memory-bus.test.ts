import { describe, expect, it } from 'vitest';
import { createMemoryBus, createSubjects, realClock, subjectMatches, type BusClock } from '@parley/events';
import { collectEvents, delay, payloadExecuted } from '@parley/events/testing';
import { busContract } from './bus-contract';

const quietLogger = { warn: () => {}, error: () => {} };

busContract('memory', async () => {
  const subjects = createSubjects('parley');
  const bus = createMemoryBus({ subjects, logger: quietLogger });
  return { bus, subjects, cleanup: () => bus.close() };
});

/** The real clock, counting the timers it has running. */
function countingClock(): BusClock & { readonly active: number } {
  const live = new Set<unknown>();
  return {
    get active() {
      return live.size;
    },
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const h = realClock.setTimeout(() => {
        live.delete(h);
        fn();
      }, ms);
      live.add(h);
      return h;
    },
    clearTimeout(h) {
      live.delete(h);
      realClock.clearTimeout(h);
    },
  };
}

describe('memory bus', () => {
  const subjects = createSubjects('parley');
  const enc = (s: string) => new TextEncoder().encode(s);

  it('alternates between queue group members', async () => {
    const bus = createMemoryBus({ subjects });
    const subject = subjects.execute('s', 'a');
    const who: string[] = [];
    await bus.serve(subject, 'a', async () => (who.push('x'), enc('x')));
    await bus.serve(subject, 'a', async () => (who.push('y'), enc('y')));
    for (let i = 0; i < 4; i++) await bus.request(subject, enc(''), { timeoutMs: 100 });
    expect(who).toEqual(['x', 'y', 'x', 'y']);
    await bus.close();
  });

  it('sends a copy to each queue group and resolves with the first answer', async () => {
    const bus = createMemoryBus({ subjects });
    const subject = subjects.execute('s', 'a');
    let calls = 0;
    await bus.serve(subject, 'g1', async () => (calls++, enc('1')));
    await bus.serve(subject, 'g2', async () => (calls++, enc('2')));
    expect(new TextDecoder().decode(await bus.request(subject, enc(''), { timeoutMs: 100 }))).toBe('1');
    await delay(10);
    expect(calls).toBe(2);
    await bus.close();
  });

  it('does not call handlers inside publishEvent', async () => {
    const bus = createMemoryBus({ subjects });
    const c = await collectEvents(bus, { durable: 'd', filterSubjects: [] });
    await bus.publishEvent(payloadExecuted());
    expect(c.events).toHaveLength(0);
    await c.waitFor(1);
    await bus.close();
  });

  it('leaves no timer running after close(), even mid-retry and mid-request', async () => {
    const clock = countingClock();
    const bus = createMemoryBus({ subjects, clock, logger: quietLogger, drainTimeoutMs: 50 });
    await bus.consume({ durable: 'd', filterSubjects: [], retryDelayMs: 60_000 }, async () => {
      throw new Error('always');
    });
    await bus.publishEvent(payloadExecuted());
    const subject = subjects.execute('s', 'slow');
    await bus.serve(subject, 'slow', () => new Promise(() => {}));
    const pending = bus.request(subject, enc(''), { timeoutMs: 60_000 }).catch((e: unknown) => e);
    await delay(10);
    expect(clock.active).toBe(2);
    await bus.close();
    expect(clock.active).toBe(0);
    expect(await pending).toMatchObject({ type: 'unavailable' });
    expect(await bus.healthy()).toBe(false);
    await expect(bus.publishEvent(payloadExecuted())).rejects.toMatchObject({ type: 'unavailable' });
  });

  it('forgets an event id after the duplicate window', async () => {
    let now = 0;
    const clock: BusClock = { ...realClock, now: () => now };
    const bus = createMemoryBus({ subjects, clock, duplicateWindowMs: 1000 });
    const e = payloadExecuted();
    const c = await collectEvents(bus, { durable: 'd', filterSubjects: [] });
    await bus.publishEvent(e);
    now = 500;
    await bus.publishEvent(e);
    now = 1500;
    await bus.publishEvent(e);
    await c.waitFor(2);
    await delay(20);
    expect(c.events).toHaveLength(2);
    await bus.close();
  });

  it("reports as its stream's age limit the age of the oldest event it still holds, which a new durable could replay", async () => {
    let now = 1_000_000;
    const clock: BusClock = { ...realClock, now: () => now };
    const bus = createMemoryBus({ subjects, clock, maxEvents: 1 });
    // Nothing held: nothing can be replayed (never 0, which would mean "no age limit").
    expect(await bus.streamMaxAgeMs!()).toBe(1);
    await bus.publishEvent(payloadExecuted());
    now += 5 * 86_400_000;
    expect(await bus.streamMaxAgeMs!()).toBe(5 * 86_400_000);
    // The second event pushes the first out (no durable holds it): the horizon is the second's age.
    await bus.publishEvent(payloadExecuted());
    now += 1000;
    expect(await bus.streamMaxAgeMs!()).toBe(1000);
    await bus.close();
  });

  it('shares one cursor between two consumers of the same durable, one event at a time', async () => {
    const bus = createMemoryBus({ subjects });
    const events = Array.from({ length: 6 }, () => payloadExecuted());
    const order: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const handler = (tag: string) => async (e: { id: string }) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await delay(2);
      order.push(`${tag}:${e.id}`);
      inFlight--;
    };
    const a = await bus.consume({ durable: 'shared', filterSubjects: [] }, handler('a'));
    const b = await bus.consume({ durable: 'shared', filterSubjects: [] }, handler('b'));
    for (const e of events) await bus.publishEvent(e);
    await expect.poll(() => order.length).toBe(6);
    expect(order.map((o) => o.slice(2))).toEqual(events.map((e) => e.id));
    expect(new Set(order.map((o) => o[0]))).toEqual(new Set(['a', 'b']));
    expect(maxInFlight).toBe(1);
    await a.stop();
    await b.stop();
    await bus.close();
  });

  it('stop() waits for the event in flight and acknowledges it', async () => {
    const bus = createMemoryBus({ subjects });
    const events = [payloadExecuted(), payloadExecuted()];
    let done = 0;
    const sub = await bus.consume({ durable: 'd', filterSubjects: [] }, async () => {
      await delay(30);
      done++;
    });
    for (const e of events) await bus.publishEvent(e);
    await delay(5);
    await sub.stop();
    expect(done).toBe(1);
    const c = await collectEvents(bus, { durable: 'd', filterSubjects: [] });
    await c.waitFor(1);
    await delay(20);
    expect(c.events.map((e) => e.id)).toEqual([events[1]!.id]);
    await bus.close();
  });

  it('drops events beyond maxEvents only once every durable has acknowledged them', async () => {
    const bus = createMemoryBus({ subjects, maxEvents: 2 });
    const hold = await bus.consume({ durable: 'hold', filterSubjects: [] }, async () => {});
    await hold.stop();
    const events = Array.from({ length: 5 }, () => payloadExecuted());
    for (const e of events) await bus.publishEvent(e);
    const fresh = await collectEvents(bus, { durable: 'fresh', filterSubjects: [] });
    await fresh.waitFor(5);
    const holdAgain = await collectEvents(bus, { durable: 'hold', filterSubjects: [] });
    await holdAgain.waitFor(5);
    const last = payloadExecuted();
    await bus.publishEvent(last);
    await fresh.waitFor(6);
    await holdAgain.waitFor(6);
    const late = await collectEvents(bus, { durable: 'late', filterSubjects: [] });
    await late.waitFor(2);
    await delay(10);
    expect(late.events.map((e) => e.id)).toEqual([events[4]!.id, last.id]);
    await bus.close();
  });
});

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
    ['a.*', 'a.b.c', false],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['>', 'a', true],
    ['a.b', 'a.b.c', false],
    ['a.b.c', 'a.b', false],
    ['parley.v1.*.payload.executed', 'parley.v1.flight_booking.payload.executed', true],
    ['parley.v1.*.payload.executed', 'parley.v1.flight_booking.other.captured', false],
  ])('%s ~ %s = %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });
});
