// Per-operation cost of the pieces of the execute path changed in the perf round of 2026-11-27, old beside new,
// in one process: repeatable where end-to-end CPU per execute on a shared machine is not. Each figure is the
// median of 7 timed rounds (ns per operation). `npx tsx bench/execute-path-micro.ts`; last line: one JSON object.
import { createHash, hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { subjectMatches } from '../libs/events/src/match';
import { realArray } from '../apps/semantic-pool/src/store';

const require = createRequire(import.meta.url);
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (v: unknown) => unknown };

function nsPerOp(n: number, fn: (i: number) => unknown): number {
  let sink = 0;
  const rounds: number[] = [];
  for (let r = 0; r < 8; r++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (fn(i)) sink++;
    if (r > 0) rounds.push(Number(process.hrtime.bigint() - t) / n);
  }
  if (sink < 0) console.log(sink);
  return Math.round(rounds.sort((a, b) => a - b)[3] as number);
}

/** The matcher before: both strings split on every call. */
function subjectMatchesBefore(filter: string, subject: string): boolean {
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

const vector = Array.from({ length: 2048 }, (_, i) => Math.fround(Math.sin(i) / 7));
const amount = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const bearer = `pk_${'a'.repeat(16)}_${'s'.repeat(43)}`;
const filters = ['parley.execution.completed', 'parley.pool.*.matured', 'parley.registry.>'];
const subject = 'parley.execution.completed';

const out = {
  pool_vector_param_ns: { before: nsPerOp(200, () => prepareValue([...vector])), after: nsPerOp(200, () => realArray(vector)) },
  agent_amount_format_ns: {
    before: nsPerOp(20_000, (i) => (2450 * i).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })),
    after: nsPerOp(20_000, (i) => amount.format(2450 * i)),
  },
  bearer_digest_ns: {
    before: nsPerOp(50_000, () => createHash('sha256').update(bearer, 'utf8').digest()),
    after: nsPerOp(50_000, () => hash('sha256', bearer, 'buffer')),
  },
  subject_filter_ns: {
    before: nsPerOp(200_000, () => filters.some((f) => subjectMatchesBefore(f, subject))),
    after: nsPerOp(200_000, () => filters.some((f) => subjectMatches(f, subject))),
  },
};
for (const [k, v] of Object.entries(out)) console.log(`${k.padEnd(24)} ${String(v.before).padStart(9)} → ${String(v.after).padStart(7)} ns`);
console.log(JSON.stringify(out));
