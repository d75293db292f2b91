import { describe, expect, it } from 'vitest';
import { cutAtGap, type GapWatch } from '../src/outbox-order';

const seqs = (...n: number[]) => n.map(BigInt);

describe('where the relay stops to keep seq order', () => {
  it('publishes every row when the seqs follow the last one published', () => {
    expect(cutAtGap(seqs(5, 6, 7), 4n, undefined, false, 0)).toEqual({ publish: 3, watch: undefined });
  });

  it('stops at the first seq it cannot see and starts a watch on it (the relay reads its writers)', () => {
    const cut = cutAtGap(seqs(5, 7, 8), 4n, undefined, false, 1000);
    expect(cut.publish).toBe(1);
    expect(cut.watch).toEqual({ firstMissing: 6n, horizon: 8n, inFlight: [], since: 1000 });
  });

  it('holds a gap just above the mark, before any row', () => {
    expect(cutAtGap(seqs(12), 10n, undefined, false, 0)).toMatchObject({ publish: 0, watch: { firstMissing: 11n, horizon: 12n } });
  });

  it('keeps the first watch (its snapshot and start) while the same gap is unsettled', () => {
    const watch: GapWatch = { firstMissing: 6n, horizon: 8n, inFlight: ['900'], since: 1000 };
    const cut = cutAtGap(seqs(5, 7, 8, 9), 4n, watch, false, 2000);
    expect(cut.publish).toBe(1);
    expect(cut.watch).toBe(watch);
  });

  it('releases every row the settled watch saw, and watches a new gap above its horizon afresh', () => {
    const watch: GapWatch = { firstMissing: 6n, horizon: 9n, inFlight: ['900'], since: 1000 };
    const cut = cutAtGap(seqs(7, 9, 11), 5n, watch, true, 3000);
    expect(cut.publish).toBe(2);
    expect(cut.watch).toEqual({ firstMissing: 10n, horizon: 11n, inFlight: [], since: 3000 });
  });

  it('publishes a late row below the mark (a gap given up earlier) in place', () => {
    expect(cutAtGap(seqs(3, 8, 9), 7n, undefined, false, 0)).toEqual({ publish: 3, watch: undefined });
  });

  it('publishes nothing and watches nothing when there are no rows', () => {
    expect(cutAtGap([], 7n, undefined, false, 0)).toEqual({ publish: 0, watch: undefined });
  });
});
