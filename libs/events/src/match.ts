/**
 * NATS subject matching: `*` matches exactly one token, `>` (last token only)
 * one or more. Used by the in-process bus, and by the NATS adapter when the
 * server is too old to filter a consumer on several subjects.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    const ft = f[i];
    if (ft === '>') return i === f.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (ft !== '*' && ft !== s[i]) return false;
  }
  return f.length === s.length;
}

export function matchesAny(filters: readonly string[], subject: string): boolean {
  // An empty filter list means the whole stream, as for a JetStream consumer without filter.
  return filters.length === 0 || filters.some((f) => subjectMatches(f, subject));
}
