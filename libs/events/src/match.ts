/**
 * NATS subject matching: `*` matches exactly one token, `>` (last token only)
 * one or more. Used by the in-process bus, and by the NATS adapter when the
 * server is too old to filter a consumer on several subjects.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filterTokens(filter);
  // A filter without wildcards matches its own subject only (most filters, and the per-message hot path).
  if (f === undefined) return filter === subject;
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    const ft = f[i];
    if (ft === '>') return i === f.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (ft !== '*' && ft !== s[i]) return false;
  }
  return f.length === s.length;
}

/** Filters are few and fixed (consumers' and groups' subjects): their tokens are split once. */
const FILTER_CACHE_MAX = 1024;
const filters = new Map<string, string[] | undefined>();

/** The tokens of a filter with a wildcard, or undefined for a literal subject. */
function filterTokens(filter: string): string[] | undefined {
  if (filters.has(filter)) return filters.get(filter);
  const tokens = filter.split('.');
  const out = tokens.some((t) => t === '*' || t === '>') ? tokens : undefined;
  if (filters.size >= FILTER_CACHE_MAX) filters.clear();
  filters.set(filter, out);
  return out;
}

export function matchesAny(filters: readonly string[], subject: string): boolean {
  // An empty filter list means the whole stream, as for a JetStream consumer without filter.
  return filters.length === 0 || filters.some((f) => subjectMatches(f, subject));
}

/**
 * Whether every subject `inner` matches is matched by `outer` (both NATS filters). Token by token: `>` in
 * `outer` takes the rest when `inner` has at least one token left; `*` takes any one token but `>`; a literal
 * takes only itself.
 */
export function filterCovers(outer: string, inner: string): boolean {
  const o = outer.split('.');
  const n = inner.split('.');
  for (let i = 0; i < o.length; i++) {
    const ot = o[i];
    if (ot === '>') return i === o.length - 1 && n.length > i;
    const it = n[i];
    if (it === undefined || it === '>') return false;
    if (ot !== '*' && ot !== it) return false;
  }
  return o.length === n.length;
}
