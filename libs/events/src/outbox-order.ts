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
 * - a writer that may still fill the gap took its seq before the rows after it
 *   were committed, so it was in flight when the relay saw them, holding the
 *   lock every writer of the outbox takes before it draws a seq (and keeps to
 *   its end). The relay notes the transactions holding that lock, read after
 *   its snapshot, and holds the rows after the gap until every one of them has
 *   ended; then the gap is settled: a row that fills it is visible to the next
 *   claim, and a seq still missing belongs to a rolled-back transaction (or a
 *   row set aside or pruned) and never comes;
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
  /** The outbox's writers in flight after that snapshot (virtual transaction ids). */
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
 * the highest seq already handled; `settled` whether the gap being watched has
 * settled (its writers ended, or it was given up). A new watch has no writers
 * yet: the relay reads them (outbox.ts).
 */
export function cutAtGap(seqs: readonly bigint[], mark: bigint, watch: GapWatch | undefined, settled: boolean, nowMs: number): OrderedCut {
  // Rows the settled watch saw are free of every gap below them.
  const released = watch && settled ? watch.horizon : -1n;
  let expected = mark + 1n;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    // A seq below `expected` is a row that filled a gap given up earlier: late, published now.
    if (seq > expected && seq > released) {
      const same = watch !== undefined && !settled && watch.firstMissing === expected;
      return { publish: i, watch: same ? watch : { firstMissing: expected, horizon: seqs[seqs.length - 1]!, inFlight: [], since: nowMs } };
    }
    if (seq >= expected) expected = seq + 1n;
  }
  return { publish: seqs.length, watch: undefined };
}

/**
 * The relay's mark as one SQL expression over the quoted schema `s`: the
 * highest seq below the first pending one (two index probes), every seq under
 * which was published or set aside. Retention (retention.ts) deletes published
 * rows and keeps the highest seq it deleted in `outbox_pruned.up_to`; that seq,
 * cut below the first pending one, stands in for the rows it deleted. Every seq
 * at or below it that is not in the outbox was published and pruned, set
 * aside, rolled back, or drawn by a transaction in flight since before a row
 * published longer ago than the retention age was written: a gap given up long
 * ago (retention.ts keeps the age far above maxGapWaitMs). So pruning every row
 * below a gap, or the row the mark stood on, moves neither the mark nor the gap.
 */
export function outboxMarkSql(s: string): string {
  const firstPending = `(SELECT min(p.seq) FROM ${s}.outbox p WHERE p.published_at IS NULL)`;
  return `coalesce(greatest((SELECT max(o.seq) FROM ${s}.outbox o WHERE o.seq < ${firstPending}),
                            (SELECT least(f.up_to, ${firstPending} - 1) FROM ${s}.outbox_pruned f)), 0)`;
}
