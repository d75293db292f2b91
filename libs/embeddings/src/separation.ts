/**
 * How well similarity scores separate labelled pairs: the figures the embedding
 * benchmark prints and the tests assert, and what a clustering threshold is
 * chosen from.
 */

export interface LabelledScore {
  score: number;
  /** True when the pair has the same intent. */
  same: boolean;
}

export interface Separation {
  pairs: number;
  same: { count: number; mean: number; median: number };
  different: { count: number; mean: number; median: number };
  /** mean(same) − mean(different). */
  margin: number;
  /** Probability that a random same-intent pair scores above a random different-intent pair (ties count half). */
  rocAuc: number;
  /** The threshold (score ≥ t ⇒ same) with the best accuracy on these pairs, and that accuracy. */
  bestThreshold: number;
  bestAccuracy: number;
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function separation(scores: readonly LabelledScore[]): Separation {
  const same = scores.filter((s) => s.same).map((s) => s.score);
  const diff = scores.filter((s) => !s.same).map((s) => s.score);
  // ROC AUC by the Mann–Whitney U statistic (quadratic: the sets are small).
  let wins = 0;
  for (const a of same) for (const b of diff) wins += a > b ? 1 : a === b ? 0.5 : 0;
  const rocAuc = same.length && diff.length ? wins / (same.length * diff.length) : Number.NaN;
  // Best threshold: try midpoints between consecutive distinct scores.
  const sorted = [...new Set(scores.map((s) => s.score))].sort((a, b) => a - b);
  const candidates = [(sorted[0] ?? 0) - 1e-6, ...sorted.slice(1).map((s, i) => ((sorted[i] as number) + s) / 2), (sorted[sorted.length - 1] ?? 0) + 1e-6];
  let bestThreshold = Number.NaN;
  let bestAccuracy = -1;
  for (const t of candidates) {
    const correct = scores.reduce((n, s) => n + ((s.score >= t) === s.same ? 1 : 0), 0);
    const acc = scores.length ? correct / scores.length : Number.NaN;
    if (acc > bestAccuracy) {
      bestAccuracy = acc;
      bestThreshold = t;
    }
  }
  return {
    pairs: scores.length,
    same: { count: same.length, mean: mean(same), median: median(same) },
    different: { count: diff.length, mean: mean(diff), median: median(diff) },
    margin: mean(same) - mean(diff),
    rocAuc,
    bestThreshold,
    bestAccuracy,
  };
}
