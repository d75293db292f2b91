/**
 * Seq order across concurrent writers.
 *
 * A row's seq is taken when it is inserted, but the row becomes visible when its
 * transaction commits: a writer holding seq 10 can commit after one holding
 * seq 11 (two group commits in flight, two services' writers). A relay that
 * published whatever it could see would put 11 on the stream before 10. So the
 * relay publishes in seq order only up to the first gap, a seq above the last
 * one published that it cannot see, and watches that gap:
 *
 * - a writer that may still fill the gap was in flight when the relay first saw
 *   the rows after it (it took its seq before them, so it had begun before they
 *   committed). The relay notes the transactions its snapshot counted in flight
 *   and holds the rows after the gap until every one of them has ended; then the
 *   gap is settled: a row that fills it is visible by now, and a seq still
 *   missing belongs to a rolled-back transaction and never comes;
 * - a gap held longer than `maxGapWaitMs` (a transaction left open elsewhere
 *   on the database) is given up and logged, so no transaction can stall the
 *   stream; a row that fills it later is still published, after the ones
 *   behind it. This is the one case where the stream order leaves seq order.
 */
export interface GapWatch {
  /** The first seq the relay could not see. */
  firstMissing: bigint;
  /** The highest seq the relay saw when it found the gap: every gap below it settles together. */
  horizon: bigint;
  /** The transactions (xid8 text) in flight in that snapshot. */
  inFlight: readonly string[];
  /** When the gap was found (the relay's clock, ms). */
  since: number;
}

export interface OrderedCut {
  /** How many of the rows, in seq order, may be published now. */
  publish: number;
  /** The gap the rows after them wait on, if any. */
  watch: GapWatch | undefined;
}

/**
 * Where the rows (their seqs, ascending) must stop to keep seq order. `mark` is
 * the highest seq already published; `inFlight` the transactions in flight in
 * the snapshot that saw the rows; `settled` whether the gap being watched has
 * settled (its transactions ended, or it was given up).
 */
export function cutAtGap(seqs: readonly bigint[], mark: bigint, inFlight: readonly string[], watch: GapWatch | undefined, settled: boolean, nowMs: number): OrderedCut {
  // Rows the settled watch saw are free of every gap below them.
  const released = watch && settled ? watch.horizon : -1n;
  let expected = mark + 1n;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    // A seq below `expected` is a row that filled a gap given up earlier: late, published now.
    if (seq > expected && seq > released) {
      const same = watch !== undefined && !settled && watch.firstMissing === expected;
      return { publish: i, watch: same ? watch : { firstMissing: expected, horizon: seqs[seqs.length - 1]!, inFlight, since: nowMs } };
    }
    if (seq >= expected) expected = seq + 1n;
  }
  return { publish: seqs.length, watch: undefined };
}
