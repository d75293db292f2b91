import { describe, expect, it, vi } from 'vitest';
import type { JsMsg } from '@nats-io/jetstream';
import { payloadExecuted } from '@parley/events/testing';
import { encodeEvent } from '../src/codec';
import type { EventEnvelope } from '../src/events';
import type { NatsCtx } from '../src/nats-context';
import { CONFIRM_SKIPPED_EVERY_MS, handleBatch, type BatchContext } from '../src/nats-consume';

// The ack choice of a durable whose server lets through events outside its filters (a NATS 2.9 cover), with fake
// messages: it does not depend on the server's version.

const WANTED = 'p.v1.*.patch.published';
const wanted = (seq: number) => fake(seq, 'p.v1.flight_booking.patch.published');
const outside = (seq: number) => fake(seq, 'p.v1.flight_booking.payload.executed');

function fake(seq: number, subject: string, confirm: () => Promise<boolean> = async () => true) {
  return { seq, subject, data: encodeEvent(payloadExecuted('flight_booking')), headers: undefined, ack: vi.fn(), ackAck: vi.fn(confirm), nak: vi.fn(), term: vi.fn(), working: vi.fn() };
}
type Fake = ReturnType<typeof fake>;

function setup(confirmedAt: number, now = 10_000) {
  const warn = vi.fn();
  const x = { log: { warn, error: vi.fn() }, ackWaitMs: 30_000 } as unknown as NatsCtx;
  const c: BatchContext = { plan: [WANTED], retryDelayMs: 10, signal: new AbortController().signal, stopping: () => false, waiting: () => [], acks: { confirmedAt }, now: () => now };
  const seen: EventEnvelope[][] = [];
  const run = (batch: Fake[]) => handleBatch(x, 'patches', c, batch as unknown as JsMsg[], async (events) => void seen.push(events));
  return { c, warn, seen, run };
}

describe('the acks of a batch on a durable whose server lets through events outside its filters', () => {
  it('acks a batch its handler saw none of plainly, without asking the server to confirm, when one was confirmed less than a second ago', async () => {
    const { c, seen, run } = setup(10_000 - CONFIRM_SKIPPED_EVERY_MS + 1);
    const batch = [outside(2), outside(3), outside(4)];
    await run(batch);
    expect(seen).toEqual([]);
    for (const m of batch) {
      expect(m.ack).toHaveBeenCalledTimes(1);
      expect(m.ackAck).not.toHaveBeenCalled();
    }
    expect(c.acks.confirmedAt).toBe(10_000 - CONFIRM_SKIPPED_EVERY_MS + 1);
  });

  it('confirms the last ack of a batch mixing handled and skipped events, and acks the others plainly', async () => {
    const { c, seen, run } = setup(10_000);
    const batch = [outside(5), wanted(6), outside(7), wanted(8)];
    await run(batch);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toHaveLength(2);
    const confirmed = batch.filter((m) => m.ackAck.mock.calls.length > 0);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]!.seq).toBe(8);
    expect(batch.filter((m) => m.ack.mock.calls.length === 1).map((m) => m.seq)).toEqual([5, 6, 7]);
    expect(c.acks.confirmedAt).toBe(10_000);
  });

  it('confirms the last ack of a skipped-only batch once no ack was confirmed for a second, and the first of a durable', async () => {
    for (const confirmedAt of [10_000 - CONFIRM_SKIPPED_EVERY_MS, Number.NEGATIVE_INFINITY]) {
      const { c, run } = setup(confirmedAt);
      const batch = [outside(2), outside(3)];
      await run(batch);
      expect(batch[0]!.ack).toHaveBeenCalledTimes(1);
      expect(batch[0]!.ackAck).not.toHaveBeenCalled();
      expect(batch[1]!.ackAck).toHaveBeenCalledTimes(1);
      expect(batch[1]!.ack).not.toHaveBeenCalled();
      expect(c.acks.confirmedAt).toBe(10_000);
    }
  });

  it('logs an ack of a skipped-only batch the server did not confirm, as for a handled batch', async () => {
    const { warn, run } = setup(Number.NEGATIVE_INFINITY);
    const lost = fake(9, 'p.v1.flight_booking.payload.executed', () => Promise.reject(new Error('TIMEOUT')));
    await run([outside(8), lost]);
    expect(warn).toHaveBeenCalledWith('ack not confirmed; the events may be delivered again', expect.objectContaining({ durable: 'patches', seq: 9, events: 2 }));
  });
});
