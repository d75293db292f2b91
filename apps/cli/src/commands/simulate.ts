/**
 * `parley simulate --input stream.jsonl [--json] [--assignments FILE] [--plot FILE.svg]
 *                  [--embedder offline] [--threshold X]`
 *
 * Replays timed `other` fragments (JSONL: `{ts, scenario, client_id, text}`,
 * other fields ignored; `ts` ISO 8601 or epoch ms) through the evolution engine
 * of libs/pool against the seeded scenarios (libs/examples), on a simulated
 * clock: thirty days in seconds (draft-zhou §6.2). Lines are processed in file
 * order; the clock never goes backwards (a line older than the one before is
 * an error naming it). The lifecycle (zhou §6.2.3) runs at every midnight UTC
 * the clock passes, gaps included, and once more at the midnight after the
 * last line. Executions are derived from the fragments (libs/pool
 * `derive_executions`: after a patch, a fragment of that intent is a use of
 * the key by a client that received it; other traffic continues).
 *
 * Prints triggers, patches, lifecycle transitions and heat per cluster per day;
 * `--json` prints one JSON object instead. `--assignments FILE` writes the
 * global-pool cluster id each input line joined (`-` for a fragment that
 * sanitising dropped or a line set aside), exactly one line per input line; the summary
 * `{clusters, patches, set_aside}` goes to FILE.summary.json beside it.
 * `--plot FILE.svg` writes heat over time per notable cluster as hand-written SVG.
 * A line that cannot be read or processed is set aside with its error and the run goes on;
 * they are listed on stderr at the end. Long runs (2,000 lines or more) report progress on stderr.
 * Exit codes: 0 done, 3 done with lines set aside, 2 bad arguments, an unreadable file or no fragments.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createOfflineEmbedder, loadWordNetLexicon } from '@parley/embeddings';
import { SCENARIOS } from '@parley/examples';
import { createEvolutionEngine, type ClusterView, type DecisionRecord, type EvolutionEngine, type PatchView, type TriggerReport } from '@parley/pool';
import { createEmbeddedIndex } from '@parley/vectors';

const DAY = 86_400_000;
const PLOT_STEP = 3 * 3_600_000;

/** Bad arguments or bad input: exit code 2. */
export class SimulateInputError extends Error {
  override readonly name = 'SimulateInputError';
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

interface Args {
  input: string;
  json: boolean;
  assignments: string | null;
  plot: string | null;
  embedder: 'offline';
  threshold: number | null;
}

const USAGE = 'usage: parley simulate --input stream.jsonl [--json] [--assignments FILE] [--plot FILE.svg] [--embedder offline] [--threshold X]';

function parseArgs(argv: string[]): Args {
  const a: Args = { input: '', json: false, assignments: null, plot: null, embedder: 'offline', threshold: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new SimulateInputError(`${arg} needs a value\n${USAGE}`);
      return v;
    };
    switch (arg) {
      case '--input':
        a.input = value();
        break;
      case '--json':
        a.json = true;
        break;
      case '--assignments':
        a.assignments = value();
        break;
      case '--plot':
        a.plot = value();
        break;
      case '--embedder': {
        const v = value();
        if (v !== 'offline') throw new SimulateInputError(`--embedder: only "offline" is available to simulate (got "${v}")`);
        a.embedder = v;
        break;
      }
      case '--threshold': {
        const raw = value();
        const v = Number(raw);
        if (!Number.isFinite(v) || v <= -1 || v > 1) throw new SimulateInputError(`--threshold must be a cosine score in (-1, 1], got "${raw}"`);
        a.threshold = v;
        break;
      }
      default:
        throw new SimulateInputError(`unknown option ${arg}\n${USAGE}`);
    }
  }
  if (!a.input) throw new SimulateInputError(`--input is required\n${USAGE}`);
  return a;
}

export interface StreamLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly at: number;
  readonly scenario: string;
  readonly client_id: string;
  readonly text: string;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A line set aside: it could not be read or processed; the run went on without it. */
export interface SetAside {
  readonly line: number;
  readonly error: string;
}

/**
 * Parses the JSONL stream; blank lines are skipped. A line that cannot be read
 * (not JSON, a missing field, an unknown scenario, a clock going backwards) is
 * set aside with its error in `setAside` when given (no single line stops the
 * run), else it throws SimulateInputError naming the line.
 */
export function parseStream(content: string, name: string, setAside?: SetAside[]): StreamLine[] {
  const out: StreamLine[] = [];
  let last = -Infinity;
  content.split('\n').forEach((raw, i) => {
    const n = i + 1;
    const bad = (msg: string): never => {
      throw new SimulateInputError(`${name}:${n}: ${msg}`, n);
    };
    if (raw.trim() === '') return;
    if (setAside) {
      try {
        readLine(raw, n, bad);
      } catch (e) {
        if (!(e instanceof SimulateInputError)) throw e;
        setAside.push({ line: n, error: e.message });
      }
      return;
    }
    readLine(raw, n, bad);
  });
  if (out.length === 0) throw new SimulateInputError(`${name}: no fragments${setAside && setAside.length > 0 ? ` (set aside: ${setAside.map((x) => x.error).join('; ')})` : ''}`);
  return out;

  function readLine(raw: string, n: number, bad: (msg: string) => never): void {
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      bad(`not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad('expected a JSON object {ts, scenario, client_id, text}');
    const o = v as Record<string, unknown>;
    let at: number;
    if (typeof o['ts'] === 'number') {
      if (!Number.isFinite(o['ts']) || !Number.isInteger(o['ts']) || o['ts'] < 0) return bad(`ts ${String(o['ts'])} is not an epoch-ms integer`);
      at = o['ts'];
    } else if (typeof o['ts'] === 'string') {
      if (!ISO_8601.test(o['ts'])) return bad(`ts "${o['ts']}" is not ISO 8601 with a time zone (e.g. 2026-03-01T09:30:00Z)`);
      at = Date.parse(o['ts']);
      if (!Number.isFinite(at)) return bad(`ts "${o['ts']}" is not a valid date`);
    } else {
      return bad('ts is missing (ISO 8601 string or epoch ms)');
    }
    for (const f of ['scenario', 'client_id', 'text'] as const) {
      if (typeof o[f] !== 'string' || (o[f] as string).trim() === '') bad(`${f} must be a non-empty string`);
    }
    // The simulated clock never goes backwards.
    if (at < last) bad(`ts ${new Date(at).toISOString()} is earlier than the line before (${new Date(last).toISOString()}); the clock must not go backwards`);
    last = at;
    out.push({ line: n, at, scenario: o['scenario'] as string, client_id: o['client_id'] as string, text: o['text'] as string });
  }
}

interface Simulation {
  engine: EvolutionEngine;
  /** Input line number → the global cluster it joined (`-`: dropped by sanitising or set aside). */
  assignments: Map<number, string>;
  setAside: SetAside[];
  start: number;
  end: number;
  events: { at: number; kind: 'trigger' | 'patch' | 'lifecycle'; text: string }[];
  daily: Map<string, number[]>;
  plot: Map<string, { at: number; heat: number }[]>;
  days: number[];
}

async function simulate(lines: readonly StreamLine[], name: string, threshold: number | null, setAside: SetAside[]): Promise<Simulation> {
  let now = (lines[0] as StreamLine).at;
  const clock = { now: () => now };
  const engine = await createEvolutionEngine({
    embedder: createOfflineEmbedder(),
    index: createEmbeddedIndex(),
    templates: SCENARIOS.map((s) => s.template),
    clock,
    config: { derive_executions: true, ...(threshold === null ? {} : { similarity_threshold: threshold }) },
    lexicon: await loadWordNetLexicon(),
  });
  const start = Math.floor(now / DAY) * DAY;
  const sim: Simulation = { engine, assignments: new Map(), setAside, start, end: start, events: [], daily: new Map(), plot: new Map(), days: [] };
  // Progress on stderr for long runs (stdout stays the report or the JSON).
  const progressEvery = lines.length >= 2000 ? Math.ceil(lines.length / 20) : 0;
  const t0 = performance.now();
  let nextMidnight = start + DAY;
  let nextSample = start;
  const heatSnapshot = (t: number, into: (id: string, heat: number) => void): void => {
    for (const c of engine.clusters(t)) into(c.id, c.heat);
  };
  const advanceTo = (t: number): void => {
    while (nextSample <= t || nextMidnight <= t) {
      if (nextSample < nextMidnight) {
        const at = nextSample;
        heatSnapshot(at, (id, heat) => pushPlot(sim, id, at, heat));
        nextSample += PLOT_STEP;
        continue;
      }
      // zhou §6.2.3: the evaluator runs at every midnight the clock passes.
      now = nextMidnight;
      const tick = engine.tick(nextMidnight);
      for (const d of tick.decisions) sim.events.push({ at: d.at, kind: 'lifecycle', text: describeDecision(d) });
      for (const p of tick.admitted) sim.events.push({ at: p.timestamp, kind: 'patch', text: `admitted from the queue: ${describePatch(engine.patches().find((x) => x.patch_id === p.patch_id) as PatchView)}` });
      const day = sim.days.length;
      sim.days.push(nextMidnight);
      heatSnapshot(nextMidnight, (id, heat) => {
        let row = sim.daily.get(id);
        if (!row) sim.daily.set(id, (row = []));
        row[day] = heat;
      });
      nextMidnight += DAY;
    }
  };
  for (const [k, l] of lines.entries()) {
    advanceTo(l.at);
    now = l.at;
    if (progressEvery > 0 && k > 0 && k % progressEvery === 0) process.stderr.write(`parley simulate: ${k}/${lines.length} lines, day ${Math.floor((l.at - start) / DAY)}, ${Math.round((performance.now() - t0) / 1000)} s\n`);
    let res;
    try {
      res = await engine.ingest({ ts: l.at, scenario: l.scenario, client_id: l.client_id, text: l.text });
    } catch (e) {
      // No single line stops the run: it is set aside with its error and reported at the end.
      sim.setAside.push({ line: l.line, error: `${name}:${l.line}: ${e instanceof Error ? e.message : String(e)}` });
      continue;
    }
    sim.assignments.set(l.line, res.global_cluster_id ?? '-');
    for (const t of res.triggers) sim.events.push({ at: t.at, kind: 'trigger', text: describeTrigger(t) });
    for (const p of res.patches) sim.events.push({ at: p.timestamp, kind: 'patch', text: describePatch(engine.patches().find((x) => x.patch_id === p.patch_id) as PatchView) });
  }
  const last = (lines[lines.length - 1] as StreamLine).at;
  advanceTo(Math.floor(last / DAY) * DAY + DAY);
  sim.end = nextMidnight - DAY;
  now = sim.end;
  return sim;
}

function pushPlot(sim: Simulation, id: string, at: number, heat: number): void {
  let s = sim.plot.get(id);
  if (!s) sim.plot.set(id, (s = []));
  s.push({ at, heat });
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? 'n/a' : `${Math.round(x * 1000) / 10}%`);

function describeTrigger(t: TriggerReport): string {
  const what = t.outcome === 'patched' || t.outcome === 'merged' ? `→ ${t.outcome} ${t.key_name ?? ''} (${t.patch_id ?? ''})` : `→ ${t.outcome}${t.key_name ? ` (${t.key_name})` : ''}: ${t.reasons[t.reasons.length - 1] ?? ''}`;
  return `cluster ${t.cluster_id} ${t.scenario}/${t.scope} fired: heat ${t.heat.toFixed(1)}, ${t.distinct_clients} client(s), gate branch ${t.branch ?? '-'} ${what}`;
}

function describePatch(p: PatchView): string {
  const keys = p.new_keys.map((k) => `+${k.key_name}:${k.key_type}${k.enum ? `[${k.enum.join('|')}]` : ''} (${k.state})`);
  const mods = p.modified_keys.map((m) => `~${m.key_name}`);
  return `patch ${p.patch_id} ${p.scenario} scope ${p.scope}: ${[...keys, ...mods].join(', ')}; expires ${iso(p.expires_at)}`;
}

function describeDecision(d: DecisionRecord): string {
  const f = d.figures as Record<string, number | null | undefined>;
  return `${d.patch_id}/${d.key_name} ${d.from} → ${d.to}: usage ${pct(f.usage_frequency)} (${f.payloads_with_key}/${f.payloads}), alignment ${pct(f.semantic_alignment_accuracy)} (${f.aligned}/${f.audited}), type ${pct(f.value_type_correctness)}, adoption ${pct(f.client_adoption_rate)}; ${d.reasons.join('; ')}`;
}

const iso = (t: number): string => new Date(t).toISOString().replace('.000Z', 'Z');

function clusterRecord(c: ClusterView): Record<string, unknown> {
  return { id: c.id, scenario: c.scenario, scope: c.scope, size: c.size, distinct_clients: c.distinct_clients, peak_heat: c.peak_heat, triggered: c.triggered, key_name: c.key_name };
}

function patchRecord(p: PatchView): Record<string, unknown> {
  return {
    patch_id: p.patch_id,
    scenario: p.scenario,
    scope: p.scope,
    timestamp: iso(p.timestamp),
    source_cluster_id: p.source_cluster_id,
    new_keys: p.new_keys.map((k) => ({ key_name: k.key_name, key_type: k.key_type, ...(k.enum ? { enum: k.enum } : {}), state: k.state })),
    modified_keys: p.modified_keys.map((m) => m.key_name),
  };
}

/** Clusters worth a line in the heat table and the plot: triggered ones and global ones that got warm. */
function notable(clusters: readonly ClusterView[], heatThreshold: number): ClusterView[] {
  return clusters
    .filter((c) => c.triggered || (c.scope === 'global' && c.peak_heat >= heatThreshold * 0.4))
    .sort((a, b) => b.peak_heat - a.peak_heat || (a.id < b.id ? -1 : 1))
    .slice(0, 12);
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939'];

/** Heat per cluster over time as SVG: one polyline per cluster, the heat threshold dashed, a legend. */
export function renderSvg(series: readonly { label: string; points: readonly { at: number; heat: number }[] }[], start: number, end: number, heatThreshold: number): string {
  const W = 960;
  const H = 480;
  const m = { l: 56, r: 16, t: 28, b: 40 };
  const legendH = 16 * series.length + 8;
  const maxHeat = Math.max(heatThreshold * 1.2, ...series.flatMap((s) => s.points.map((p) => p.heat)));
  const x = (t: number): number => m.l + ((t - start) / Math.max(1, end - start)) * (W - m.l - m.r);
  const y = (h: number): number => m.t + (1 - h / maxHeat) * (H - m.t - m.b);
  const f = (n: number): string => n.toFixed(1);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + legendH}" viewBox="0 0 ${W} ${H + legendH}" font-family="sans-serif" font-size="11">`);
  parts.push(`<title>Heat per cluster over time (draft-zhou §6.2.1)</title>`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H + legendH}" fill="white"/>`);
  parts.push(`<text x="${m.l}" y="16" font-size="13">Heat per cluster (half-life 24 h; dashed: evolution threshold ${heatThreshold})</text>`);
  parts.push(`<line x1="${m.l}" y1="${f(y(0))}" x2="${W - m.r}" y2="${f(y(0))}" stroke="black"/>`);
  parts.push(`<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${f(y(0))}" stroke="black"/>`);
  const days = Math.round((end - start) / DAY);
  const every = days > 15 ? 5 : 1;
  for (let d = 0; d <= days; d += every) {
    const xx = f(x(start + d * DAY));
    parts.push(`<line x1="${xx}" y1="${f(y(0))}" x2="${xx}" y2="${f(y(0) + 4)}" stroke="black"/><text x="${xx}" y="${f(y(0) + 16)}" text-anchor="middle">day ${d}</text>`);
  }
  const step = maxHeat > 200 ? 50 : maxHeat > 100 ? 25 : 10;
  for (let h = 0; h <= maxHeat; h += step) {
    parts.push(`<text x="${m.l - 6}" y="${f(y(h) + 4)}" text-anchor="end">${h}</text><line x1="${m.l}" y1="${f(y(h))}" x2="${W - m.r}" y2="${f(y(h))}" stroke="#eee"/>`);
  }
  parts.push(`<line x1="${m.l}" y1="${f(y(heatThreshold))}" x2="${W - m.r}" y2="${f(y(heatThreshold))}" stroke="#888" stroke-dasharray="6 4"/>`);
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] as string;
    const pts = s.points.map((p) => `${f(x(p.at))},${f(y(p.heat))}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts}"/>`);
    const ly = H + 4 + i * 16;
    parts.push(`<line x1="${m.l}" y1="${ly + 6}" x2="${m.l + 24}" y2="${ly + 6}" stroke="${color}" stroke-width="3"/><text x="${m.l + 30}" y="${ly + 10}">${esc(s.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n\nReplays timed \`other\` fragments (JSON lines {ts, scenario, client_id, text}) through schema self-evolution\n(draft-zhou §6.2) against the seeded scenarios, on a simulated clock.\n\nexit codes: 0 done, 2 bad arguments or bad input (the message names the line)\n`);
    return 0;
  }
  try {
    return await runOrThrow(argv);
  } catch (e) {
    if (e instanceof SimulateInputError) {
      process.stderr.write(`parley simulate: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

async function runOrThrow(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  let content: string;
  try {
    content = readFileSync(args.input, 'utf8');
  } catch (e) {
    throw new SimulateInputError(`cannot read ${args.input}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const setAside: SetAside[] = [];
  const lines = parseStream(content, args.input, setAside);
  const t0 = performance.now();
  const sim = await simulate(lines, args.input, args.threshold, setAside);
  const ms = Math.round(performance.now() - t0);
  const { engine } = sim;
  const clusters = engine.clusters(sim.end);
  const patches = engine.patches();
  const heatThreshold = engine.config.heat_threshold;
  const shown = notable(clusters, heatThreshold);
  const label = (c: ClusterView): string => `${c.id} ${c.scenario}/${c.scope}${c.key_name ? ` → ${c.key_name}` : ''} "${c.samples[0] ?? ''}"`;

  const final = { clusters: clusters.map(clusterRecord), patches: patches.map(patchRecord) };
  if (args.assignments) {
    // Exactly one line per input line (blank and set-aside lines are `-`); the summary goes beside it.
    const total = content.endsWith('\n') ? content.split('\n').length - 1 : content.split('\n').length;
    writeFileSync(args.assignments, `${Array.from({ length: total }, (_, i) => sim.assignments.get(i + 1) ?? '-').join('\n')}\n`);
    writeFileSync(`${args.assignments}.summary.json`, `${JSON.stringify({ ...final, set_aside: sim.setAside })}\n`);
  }
  if (args.plot) {
    const series = shown.map((c) => ({ label: label(c), points: sim.plot.get(c.id) ?? [] }));
    writeFileSync(args.plot, renderSvg(series, sim.start, sim.end, heatThreshold));
  }

  const triggers = engine.triggers();
  const decisions = engine.decisions();
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({
        input: args.input,
        fragments: lines.length,
        dropped: [...sim.assignments.values()].filter((a) => a === '-').length,
        set_aside: sim.setAside,
        from: iso(sim.start),
        to: iso(sim.end),
        days: sim.days.length,
        elapsed_ms: ms,
        embedder: engine.embedder_id,
        similarity_threshold: engine.config.similarity_threshold,
        triggers: triggers.map((t) => ({ at: iso(t.at), cluster_id: t.cluster_id, scenario: t.scenario, scope: t.scope, outcome: t.outcome, key_name: t.key_name, patch_id: t.patch_id, heat: Math.round(t.heat * 100) / 100, distinct_clients: t.distinct_clients, branch: t.branch })),
        decisions: decisions.map((d) => ({ at: iso(d.at), patch_id: d.patch_id, key_name: d.key_name, from: d.from, to: d.to, figures: d.figures, reasons: d.reasons })),
        heat_daily: Object.fromEntries(shown.map((c) => [c.id, sim.days.map((_, i) => sim.daily.get(c.id)?.[i] ?? 0)])),
        ...final,
      })}\n`,
    );
    return sim.setAside.length > 0 ? 3 : 0;
  }

  const out: string[] = [];
  const dayOf = (t: number): string => `day ${String(Math.floor((t - sim.start) / DAY)).padStart(2)} ${new Date(t).toISOString().slice(11, 16)}`;
  out.push(`parley simulate: ${lines.length} fragments from ${iso(sim.start)} to ${iso(sim.end)} (${sim.days.length} days) in ${ms} ms`);
  out.push(`  embedder ${engine.embedder_id}, similarity threshold ${engine.config.similarity_threshold}, heat threshold ${heatThreshold}, half-life ${engine.config.half_life_ms / 3_600_000} h`);
  out.push('', 'Events (zhou §6.2.1 triggers, §6.2.2 patches, §6.2.3 lifecycle)');
  if (sim.events.length === 0) out.push('  none');
  for (const e of [...sim.events].sort((a, b) => a.at - b.at)) out.push(`  ${dayOf(e.at)}  ${e.kind.padEnd(9)} ${e.text}`);
  out.push('', `Heat at midnight UTC, per day (triggered clusters and global clusters that reached ${heatThreshold * 0.4})`);
  out.push(`  ${'cluster'.padEnd(44)} ${sim.days.map((_, i) => String(i + 1).padStart(4)).join('')}`);
  for (const c of shown) {
    const row = sim.days.map((_, i) => String(Math.round(sim.daily.get(c.id)?.[i] ?? 0)).padStart(4)).join('');
    out.push(`  ${label(c).slice(0, 44).padEnd(44)} ${row}`);
  }
  const global = clusters.filter((c) => c.scope === 'global');
  out.push('', `Clusters: ${clusters.length} (${global.length} global, ${clusters.length - global.length} per-client), triggered: ${clusters.filter((c) => c.triggered).length}`);
  out.push(`Patches: ${patches.length}`);
  for (const p of patches) out.push(`  ${describePatch(p)}`);
  if (args.assignments) out.push(`Assignments: ${args.assignments}`);
  if (args.plot) out.push(`Plot: ${args.plot}`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (sim.setAside.length > 0) {
    process.stderr.write(`parley simulate: ${sim.setAside.length} line(s) set aside:\n${[...sim.setAside].sort((a, b) => a.line - b.line).map((s) => `  ${s.error}`).join('\n')}\n`);
    return 3;
  }
  return 0;
}
