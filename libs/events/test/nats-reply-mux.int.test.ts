import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { integrationInfra, uniquePrefix } from '@parley/testkit';
import { createNatsBus, createSubjects, type NatsBus, type Subjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';

// The dispatch's request/reply through the bus's own reply subscription (nats-reply-mux.ts): nats.js's
// nc.request built a RequestError for every request it settled, the successful ones included.
const infra = integrationInfra('events-reply-mux');
const quietLogger = { warn: () => {}, error: () => {} };
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!infra)('NATS bus request/reply mux', () => {
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  const streams = new Set<string>();
  const buses: NatsBus[] = [];

  beforeAll(async () => {
    admin = await connect({ servers: infra!.natsUrl, name: 'events-mux-admin' });
    jsm = await jetstreamManager(admin);
  });
  afterAll(async () => {
    for (const b of buses) await b.close().catch(() => {});
    for (const s of streams) await jsm.streams.delete(s).catch(() => {});
    await admin?.drain();
  });

  const open = async (extra: { nc?: NatsConnection } = {}): Promise<{ bus: NatsBus; subjects: Subjects }> => {
    const subjects = createSubjects(uniquePrefix());
    streams.add(subjects.stream);
    const bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'events-mux', logger: quietLogger, ...extra });
    buses.push(bus);
    return { bus, subjects };
  };

  it('answers a request without nats.js request (no RequestError made per reply)', async () => {
    const { bus, subjects } = await open();
    const subject = subjects.execute('flight_booking', 'echo');
    await bus.serve(subject, 'echo', async (b) => enc(`echo ${dec(b)}`));
    const spy = vi.spyOn(bus.connection, 'request');
    expect(dec(await bus.request(subject, enc('hi'), { timeoutMs: 2000 }))).toBe('echo hi');
    expect(spy).not.toHaveBeenCalled();
  });

  it('gives each of many concurrent requests its own reply, answered out of order', async () => {
    const { bus, subjects } = await open();
    const subject = subjects.execute('flight_booking', 'slow');
    await bus.serve(subject, 'slow', async (b) => {
      const i = Number(dec(b));
      await delay((20 - (i % 20)) * 2);
      return enc(`r${i}`);
    });
    const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => bus.request(subject, enc(String(i)), { timeoutMs: 5000 }).then(dec)));
    expect(replies).toEqual(Array.from({ length: 100 }, (_, i) => `r${i}`));
  });

  it('ignores a reply that comes after its request timed out, and answers the next request', async () => {
    const { bus, subjects } = await open();
    const subject = subjects.execute('flight_booking', 'late');
    let first = true;
    await bus.serve(subject, 'late', async (b) => {
      if (first) {
        first = false;
        await delay(300);
      }
      return b;
    });
    await expect(bus.request(subject, enc('a'), { timeoutMs: 100 })).rejects.toMatchObject({ type: 'agent_timeout' });
    await delay(300);
    expect(dec(await bus.request(subject, enc('b'), { timeoutMs: 2000 }))).toBe('b');
  });

  it('settles a request in flight as unavailable when the bus closes, before its timeout', async () => {
    const { bus, subjects } = await open();
    const subject = subjects.execute('flight_booking', 'stuck');
    // Another connection serves it and never answers.
    const other = await connect({ servers: infra!.natsUrl, name: 'events-mux-silent' });
    other.subscribe(subject, { queue: 'stuck', callback: () => {} });
    await other.flush();
    const started = Date.now();
    const pending = bus.request(subject, enc('x'), { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await delay(100);
    await bus.close();
    const err = await pending;
    await other.close();
    expect(err).toBeInstanceOf(ParleyError);
    expect(err).toMatchObject({ type: 'unavailable', details: { subject } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails a request as unavailable once a shared connection was closed under the bus', async () => {
    const nc = await connect({ servers: infra!.natsUrl, name: 'events-mux-shared' });
    const { bus, subjects } = await open({ nc });
    const subject = subjects.execute('flight_booking', 'gone');
    await nc.close();
    await expect(bus.request(subject, enc('x'), { timeoutMs: 2000 })).rejects.toMatchObject({ type: 'unavailable', details: { subject } });
  });
});
