/**
 * What Parley's MCP face sends, and the one way its token figures are compared
 * (draft-chang §3.1, §3.2, §3.4).
 */

/**
 * Percent fewer tokens than `baseline`, to one decimal, for `total` tokens over `count` requests: computed on the
 * unrounded mean, so every column measured over the same requests rounds the same way (a figure from a mean
 * rounded to whole tokens first can differ by a few tenths on a small list).
 */
export function savedPct(baseline: number, total: number, count = 1): number {
  if (baseline <= 0 || count <= 0) return 0;
  return Math.round(((baseline - total / count) / baseline) * 1000) / 10;
}
