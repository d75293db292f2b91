import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects, EventType, type Bus, type NatsBus, type Subjects } from '@parley/events';
import { collectEvents, delay, otherCaptured, payloadExecuted } from '@parley/events/testing';
import { busContract } from './bus-contract';

const infra = integrationInfra('events-nats');
const quietLogger = { warn: () => {}, error: () => {} };

describe.skipIf(!infra)('NATS bus', () => {
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  const streams = new Set<string>();

  beforeAll(async () => {
    admin = await connect({ servers: infra!.natsUrl, name: 'events-int-admin' });
    jsm = await jetstreamManager(admin);
  });
  afterAll(async () => {
    // Deleting a stream deletes its consumers.
    for (const s of streams) await jsm.streams.delete(s).catch(() => {});
    await admin?.drain();
  });

  const open = async (subjects: Subjects, extra: Partial<Parameters<typeof createNatsBus>[0]> = {}): Promise<NatsBus> => {
    streams.add(subjects.stream);
    return createNatsBus({ servers: infra!.natsUrl, subjects, name: 'events-int', logger: quietLogger, ...extra });
  };

  busContract('nats', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects);
    const others: Bus[] = [];
    return {
      bus,
      subjects,
      reopen: async () => {
        const b = await open(subjects);
        others.push(b);
        return b;
      },
      async cleanup() {
        for (const b of others) await b.close();
        await bus.close();
        await jsm.streams.delete(subjects.stream).catch(() => {});
        streams.delete(subjects.stream);
      },
    };
  });

  it('creates the stream with file storage, the event subjects and the duplicate window', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects, { duplicateWindowMs: 60_000 });
    const si = await jsm.streams.info(subjects.stream);
    expect(si.config.storage).toBe('file');
    expect([...si.config.subjects].sort()).toEqual([...subjects.streamSubjects()].sort());
    expect(si.config.duplicate_window).toBe(nanos(60_000));
    // Execute subjects are not captured: a stream would answer them with a PubAck.
    expect(si.config.subjects.some((s) => s.split('.').includes('execute'))).toBe(false);
    await bus.close();
  });

  it('ensures the stream idempotently when several processes start at once, and updates a changed config', async () => {
    const subjects = createSubjects(uniquePrefix());
    const buses = await Promise.all(Array.from({ length: 5 }, () => open(subjects)));
    expect(await Promise.all(buses.map((b) => b.healthy()))).toEqual([true, true, true, true, true]);
    const changed = await open(subjects, { duplicateWindowMs: 30_000, retention: { maxAgeMs: 3_600_000 } });
    const si = await jsm.streams.info(subjects.stream);
    expect(si.config.duplicate_window).toBe(nanos(30_000));
    expect(si.config.max_age).toBe(nanos(3_600_000));
    for (const b of [...buses, changed]) await b.close();
  });

  it('bounds the stream by default (7 days, 256 MiB), applies configured limits and updates them in place; a bus without limits leaves them', async () => {
    const subjects = createSubjects(uniquePrefix());
    const first = await open(subjects);
    let si = await jsm.streams.info(subjects.stream);
    expect(si.config).toMatchObject({ retention: 'limits', discard: 'old', max_age: nanos(7 * 86_400_000), max_bytes: 256 * 1024 ** 2, max_msgs: -1 });
    const p = payloadExecuted('retention');
    await first.publishEvent(p);
    const configured = await open(subjects, { retention: { maxAgeMs: 86_400_000, maxBytes: 8 * 1024 ** 2, maxMsgs: 10_000 } });
    si = await jsm.streams.info(subjects.stream);
    expect(si.config).toMatchObject({ max_age: nanos(86_400_000), max_bytes: 8 * 1024 ** 2, max_msgs: 10_000 });
    // Updated in place: the stream and what it holds stay.
    expect(si.state.messages).toBe(1);
    // An agent or tool started without limits does not undo the services' configuration.
    const agent = await open(subjects);
    si = await jsm.streams.info(subjects.stream);
    expect(si.config).toMatchObject({ max_age: nanos(86_400_000), max_bytes: 8 * 1024 ** 2, max_msgs: 10_000 });
    await expect(open(createSubjects(uniquePrefix()), { retention: { maxBytes: 0 } })).rejects.toThrow(/retention.maxBytes/);
    await expect(open(createSubjects(uniquePrefix()), { retention: { maxAgeMs: 60_000 } })).rejects.toThrow(/duplicateWindowMs/);
    for (const b of [first, configured, agent]) await b.close();
  });

  it('keeps subjects another release added to the stream', async () => {
    const subjects = createSubjects(uniquePrefix());
    const extra = `${subjects.prefix}.v1.*.future.event`;
    streams.add(subjects.stream);
    await jsm.streams.add({ name: subjects.stream, subjects: [...subjects.streamSubjects(), extra] });
    const bus = await open(subjects);
    const si = await jsm.streams.info(subjects.stream);
    expect(si.config.subjects).toContain(extra);
    await bus.close();
  });

  it('exposes its connection and becomes unhealthy once closed', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects);
    expect(bus.connection.isClosed()).toBe(false);
    await bus.close();
    expect(bus.connection.isClosed()).toBe(true);
    expect(await bus.healthy()).toBe(false);
  });

  it('leaves a shared connection open on close()', async () => {
    const subjects = createSubjects(uniquePrefix());
    const nc = await connect({ servers: infra!.natsUrl });
    const bus = await open(subjects, { nc });
    await bus.close();
    expect(nc.isClosed()).toBe(false);
    await nc.drain();
  });

  it('is unhealthy when the stream has been deleted', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects);
    await jsm.streams.delete(subjects.stream);
    expect(await bus.healthy()).toBe(false);
    await bus.close();
  });

  it('configures the durable consumer for ordered, explicit-ack delivery and keeps its position when its filter changes', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects, { ackWaitMs: 10_000 });
    const events = [payloadExecuted('x'), payloadExecuted('x')];
    for (const e of events) await bus.publishEvent(e);
    const c = await collectEvents(bus, { durable: 'proj', filterSubjects: [subjects.event('x', EventType.PayloadExecuted)] });
    await c.waitFor(2);
    await c.stop();
    const ci = await jsm.consumers.info(subjects.stream, 'proj');
    expect(ci.config).toMatchObject({ ack_policy: 'explicit', deliver_policy: 'all', max_ack_pending: 1, ack_wait: nanos(10_000) });

    const c2 = await collectEvents(bus, { durable: 'proj', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)] });
    const next = payloadExecuted('y');
    await bus.publishEvent(next);
    await c2.waitFor(1);
    await delay(300);
    expect(c2.events.map((e) => e.id)).toEqual([next.id]);
    await c2.stop();
    await bus.close();
  });

  it('stops after the event in flight and lets a restart continue at once, not after the ack wait', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects);
    const events = Array.from({ length: 5 }, () => payloadExecuted('s'));
    for (const e of events) await bus.publishEvent(e);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const inHandler = new Promise<void>((r) => (reached = r));
    const c1 = await collectEvents(bus, { durable: 'handback', filterSubjects: [], onEvent: () => (reached(), gate) });
    // The first event is in the handler (not a fixed sleep: a loaded machine may deliver it later).
    await inHandler;
    const stopping = c1.stop();
    release();
    await stopping;
    expect(c1.events.map((e) => e.id)).toEqual([events[0]!.id]);
    const c2 = await collectEvents(bus, { durable: 'handback', filterSubjects: [] });
    // Well inside the 30 s ack wait that a restart must not sit out.
    await c2.waitFor(4, 10_000);
    expect(c2.events.map((e) => e.id)).toEqual(events.slice(1).map((e) => e.id));
    await c2.stop();
    await bus.close();
  });

  it('keeps stream order with a window of several events in flight when a handler throws, and gives a batch back on stop while it waits to retry', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects, { maxAckPending: 5, ackWaitMs: 1500 });
    const events = Array.from({ length: 4 }, () => payloadExecuted('w'));
    for (const e of events) await bus.publishEvent(e);
    let failuresLeft = 2;
    const c = await collectEvents(bus, {
      durable: 'windowed',
      filterSubjects: [],
      retryDelayMs: 50,
      onEvent: (e) => {
        if (e.id === events[1]!.id && failuresLeft-- > 0) throw new Error('transient failure');
      },
    });
    await c.waitFor(4);
    expect(c.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    await c.stop();

    const more = Array.from({ length: 3 }, () => payloadExecuted('w'));
    for (const e of more) await bus.publishEvent(e);
    let calls = 0;
    const failing = await bus.consumeBatch!({ durable: 'windowed', filterSubjects: [], retryDelayMs: 60_000 }, async () => {
      calls++;
      throw new Error('down');
    });
    await expect.poll(() => calls, { timeout: 5000 }).toBe(1);
    const stopped = Date.now();
    await failing.stop();
    expect(Date.now() - stopped).toBeLessThan(5000);
    // What the stopped consumer held comes back: handed back, or redelivered after the ack wait.
    const got: string[] = [];
    const again = await bus.consumeBatch!({ durable: 'windowed', filterSubjects: [] }, async (batch) => void got.push(...batch.map((e) => e.id)));
    await expect.poll(() => new Set(got).size, { timeout: 10_000 }).toBe(3);
    expect(new Set(got)).toEqual(new Set(more.map((e) => e.id)));
    await again.stop();
    await bus.close();
  });

  it('keeps a batch durable\'s window in flight, and the events a process died holding come back after the ack wait to the durable as it was', async () => {
    const subjects = createSubjects(uniquePrefix());
    const nc = await connect({ servers: infra!.natsUrl, name: 'events-int-doomed' });
    const doomed = await open(subjects, { nc, ackWaitMs: 2000 });
    const events = Array.from({ length: 4 }, () => payloadExecuted('s'));
    for (const e of events) await doomed.publishEvent(e);
    const held: string[] = [];
    // The handler never finishes: the process "dies" (its connection goes) with the batch in flight.
    await doomed.consumeBatch!({ durable: 'orphaned', filterSubjects: [], maxBatch: 10 }, async (batch) => {
      held.push(...batch.map((e) => e.id));
      await new Promise(() => {});
    });
    await expect.poll(() => held.length, { timeout: 5000 }).toBeGreaterThan(0);
    const before = await jsm.consumers.info(subjects.stream, 'orphaned');
    expect(before.config.max_ack_pending).toBe(10);
    await nc.close();
    const later = payloadExecuted('s');
    const bus = await open(subjects, { ackWaitMs: 2000 });
    await bus.publishEvent(later);
    const got: string[] = [];
    await bus.consumeBatch!({ durable: 'orphaned', filterSubjects: [] }, async (batch) => void got.push(...batch.map((e) => e.id)));
    await expect.poll(() => new Set(got).size, { timeout: 15_000 }).toBe(5);
    expect(new Set(got)).toEqual(new Set([...events, later].map((e) => e.id)));
    // Replicas share a durable: starting a consumer never deletes it for the events another one holds.
    const after = await jsm.consumers.info(subjects.stream, 'orphaned');
    expect(after.created).toBe(before.created);
    await bus.close();
  });

  it('keeps a durable of an earlier release whose filter is wider than the one it would ask for (a rolling upgrade)', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects);
    // An earlier release's replica made the durable with no server filter (the whole stream) and filtered on the client.
    await jsm.consumers.add(subjects.stream, { durable_name: 'upgraded', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
    const before = await jsm.consumers.info(subjects.stream, 'upgraded');
    const aExec = payloadExecuted('scen_a');
    const bExec = payloadExecuted('scen_b');
    const noise = otherCaptured('scen_a');
    for (const e of [aExec, noise, bExec]) await bus.publishEvent(e);
    const c = await collectEvents(bus, {
      durable: 'upgraded',
      filterSubjects: [subjects.event('scen_a', EventType.PayloadExecuted), subjects.event('scen_b', EventType.PayloadExecuted)],
    });
    await c.waitFor(2);
    await delay(300);
    expect(c.events.map((e) => e.id)).toEqual([aExec.id, bExec.id]);
    // Not deleted and re-created: the earlier replica's pulls go on, and it has no reason to re-create it back.
    const after = await jsm.consumers.info(subjects.stream, 'upgraded');
    expect(after.created).toBe(before.created);
    await c.stop();
    await bus.close();
  });

  it('re-creates a durable consumer deleted under it (replaying from the stream start)', async () => {
    const subjects = createSubjects(uniquePrefix());
    const bus = await open(subjects, { idleHeartbeatMs: 500 });
    const first = payloadExecuted('s');
    await bus.publishEvent(first);
    const c = await collectEvents(bus, { durable: 'phoenix', filterSubjects: [] });
    await c.waitFor(1);
    await jsm.consumers.delete(subjects.stream, 'phoenix');
    const second = payloadExecuted('s');
    await bus.publishEvent(second);
    await c.waitFor(3, 10_000);
    expect(c.events.map((e) => e.id)).toEqual([first.id, first.id, second.id]);
    await c.stop();
    await bus.close();
  });
});
