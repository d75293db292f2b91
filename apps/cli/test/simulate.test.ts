/**
 * `parley simulate` as a user runs it: the real bin (apps/cli/bin/parley.mjs) as a child
 * process, on the sample stream bench/data/stream.jsonl and on small crafted streams
 * (draft-zhou §6.2.1 triggers, §6.2.2 global and per-client patches, §6.2.3 lifecycle).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findWordVectors } from '@parley/embeddings';
import { REPO, parley } from './run-cli';

const STREAM = join(REPO, 'bench/data/stream.jsonl');


interface ClusterRec {
  id: string;
  scenario: string;
  scope: string;
  size: number;
  distinct_clients: number;
  peak_heat: number;
  triggered: boolean;
  key_name: string | null;
}
interface PatchRec {
  patch_id: string;
  scenario: string;
  scope: string;
  timestamp: string;
  new_keys: { key_name: string; key_type: string; enum?: string[]; state: string }[];
  modified_keys: string[];
}
interface Final {
  clusters: ClusterRec[];
  patches: PatchRec[];
}
interface JsonOut extends Final {
  fragments: number;
  days: number;
  similarity_threshold: number;
  embedder: string;
  triggers: { at: string; cluster_id: string; scope: string; outcome: string; key_name: string | null; branch: string | null }[];
  decisions: { at: string; patch_id: string; key_name: string; from: string; to: string }[];
  heat_daily: Record<string, number[]>;
}

const lastLine = (s: string): string => {
  const lines = s.trimEnd().split('\n');
  return lines[lines.length - 1] as string;
};

const tmp = mkdtempSync(join(tmpdir(), 'parley-simulate-'));
function file(name: string, content: string): string {
  const p = join(tmp, name);
  writeFileSync(p, content);
  return p;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 5);
const line = (at: number, client: string, text: string, scenario = 'flight_booking'): string => JSON.stringify({ ts: new Date(at).toISOString(), scenario, client_id: client, text });

describe('parley simulate on bench/data/stream.jsonl', () => {
  const assignments = join(tmp, 'assignments.txt');
  const plot = join(tmp, 'heat.svg');
  let res: { code: number | null; stdout: string; stderr: string };
  let out: JsonOut;
  let final: Final;
  let input: { client_id: string; scenario: string; text: string }[];
  let assigned: string[];

  beforeAll(async () => {
    res = await parley('simulate', '--input', STREAM, '--json', '--assignments', assignments, '--plot', plot);
    out = JSON.parse(lastLine(res.stdout)) as JsonOut;
    // Exactly one line per input line; the summary is the file beside it.
    assigned = readFileSync(assignments, 'utf8').trimEnd().split('\n');
    final = JSON.parse(readFileSync(`${assignments}.summary.json`, 'utf8')) as Final;
    input = readFileSync(STREAM, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { client_id: string; scenario: string; text: string });
  }, 60_000);

  it('exits 0 with the offline embedder at its measured threshold over thirty days', () => {
    expect(res.code, res.stderr).toBe(0);
    // With the word-vector cache built (npm ci) the offline embedder is WordNet + GloVe, threshold 0.40; else WordNet-only, 0.15.
    const glove = findWordVectors().status === 'found';
    expect(out.embedder).toBe(glove ? 'offline-wordnet-glove-v1' : 'offline-wordnet-v1');
    expect(out.similarity_threshold).toBe(glove ? 0.4 : 0.15);
    expect(out.fragments).toBe(input.length);
    expect(out.days).toBe(30);
  });

  it('zhou §6.2.1/§6.2.2: exactly one global flight_booking patch, adding a seat key (window/aisle)', () => {
    const global = final.patches.filter((p) => p.scenario === 'flight_booking' && p.scope === 'global');
    expect(global).toHaveLength(1);
    const keys = (global[0] as PatchRec).new_keys;
    expect(keys.map((k) => k.key_name)).toEqual([expect.stringMatching(/seat/)]);
    expect(keys[0]?.enum).toEqual(expect.arrayContaining(['window', 'aisle']));
    const trig = out.triggers.find((t) => t.key_name === keys[0]?.key_name && t.scope === 'global');
    expect(trig?.branch).toBe('distinct_clients');
  });

  it('zhou §6.2.2 Personalized Adaptation: the frequent flyer gets a per-client legroom patch, and there is no global legroom patch', () => {
    const personal = final.patches.filter((p) => p.scope === 'exec-assistant-jane');
    expect(personal).toHaveLength(1);
    expect(personal[0]?.new_keys.map((k) => k.key_name)).toEqual([expect.stringMatching(/legroom/)]);
    const globalLegroom = final.patches.filter((p) => p.scope === 'global' && [...p.new_keys.map((k) => k.key_name), ...p.modified_keys].some((k) => /legroom/.test(k)));
    expect(globalLegroom).toEqual([]);
    // The flyer's fragments fill one global cluster too; one client never opens its gate.
    const flyerGlobal = new Set(input.map((l, i) => (l.client_id === 'exec-assistant-jane' ? assigned[i] : null)).filter((x): x is string => x !== null));
    expect(flyerGlobal.size).toBe(1);
    const c = final.clusters.find((x) => x.id === [...flyerGlobal][0]) as ClusterRec;
    expect(c.scope).toBe('global');
    expect(c.distinct_clients).toBe(1);
    // One client adds heat to a global cluster at most twice per half-life: it stays under the gate.
    expect(c.peak_heat).toBeLessThan(50);
    expect(c.triggered).toBe(false);
  });

  it('photo users asking for bigger eyes get a global eye-size key', () => {
    const photo = final.patches.filter((p) => p.scenario === 'photo_retouch');
    expect(photo).toHaveLength(1);
    expect(photo[0]?.scope).toBe('global');
    expect(photo[0]?.new_keys[0]?.key_name).toMatch(/^eye_size/);
  });

  it('zhou §6.2.1: sporadic noise never triggers, and the hot burst decays without triggering', () => {
    const noiseIds = new Set(input.map((l, i) => (l.client_id.startsWith('walk-in-') ? assigned[i] : null)).filter((x): x is string => x !== null && x !== '-'));
    expect(noiseIds.size).toBeGreaterThan(10);
    for (const id of noiseIds) {
      const c = final.clusters.find((x) => x.id === id) as ClusterRec;
      expect(c.triggered, id).toBe(false);
      expect(c.peak_heat, id).toBeLessThan(50);
    }
    const burstIds = new Set(input.map((l, i) => (l.client_id.startsWith('noc-') ? assigned[i] : null)).filter((x): x is string => x !== null));
    expect(burstIds.size).toBe(1);
    const burst = final.clusters.find((x) => x.id === [...burstIds][0]) as ClusterRec;
    expect(burst.peak_heat).toBeGreaterThanOrEqual(50);
    expect(burst.triggered).toBe(false);
    const daily = out.heat_daily[burst.id] as number[];
    expect(Math.max(...daily)).toBeGreaterThan(20);
    expect(daily[daily.length - 1]).toBeLessThan(1);
    expect(final.patches).toHaveLength(3);
  });

  it('zhou §6.2.3: used keys are promoted after the 7-day trial, not before', () => {
    for (const p of final.patches) {
      const d = out.decisions.find((x) => x.patch_id === p.patch_id);
      expect(d?.to, p.patch_id).toBe('stable');
      const waited = Date.parse(d?.at ?? '') - Date.parse(p.timestamp);
      expect(waited).toBeGreaterThanOrEqual(7 * DAY);
      expect(waited).toBeLessThan(8 * DAY + 1);
    }
  });

  it('--assignments: exactly one cluster id per input line; the {clusters, patches} summary in FILE.summary.json agrees with --json', () => {
    expect(assigned).toHaveLength(input.length);
    const ids = new Set(final.clusters.map((c) => c.id));
    for (const a of assigned) if (a !== '-') expect(ids.has(a), a).toBe(true);
    // Every assigned id names a global-pool cluster of the line's scenario.
    input.forEach((l, i) => {
      const id = assigned[i] as string;
      if (id === '-') return;
      const c = final.clusters.find((x) => x.id === id) as ClusterRec;
      expect(c.scope).toBe('global');
      expect(c.scenario).toBe(l.scenario);
    });
    expect(final.patches).toEqual(out.patches);
    expect(final.clusters).toEqual(out.clusters);
    // zhou §7: the prompt-injection fragment is dropped, never clustered.
    const inj = input.findIndex((l) => /ignore previous instructions/i.test(l.text));
    expect(assigned[inj]).toBe('-');
  });

  it('--plot: well-formed SVG with one polyline per notable cluster and a legend', () => {
    expect(existsSync(plot)).toBe(true);
    const svg = readFileSync(plot, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const polylines = svg.match(/<polyline [^>]*points="[^"]+"\/>/g) ?? [];
    expect(polylines.length).toBeGreaterThanOrEqual(4);
    expect(svg).toContain('seat_preference');
    // XML-ish: every opened element is closed (self-closing or paired), no stray '<' or '&'.
    const opened = (svg.match(/<(?!\/)[a-z]+[^>]*[^/]>/g) ?? []).length;
    const closed = (svg.match(/<\/[a-z]+>/g) ?? []).length;
    expect(opened).toBe(closed);
    expect(svg).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
  });
});

describe('parley simulate on crafted streams', () => {
  it('prints triggers, patches and the daily heat table in text mode; ticks daily across a gap', async () => {
    const rows: string[] = [];
    // Five clients ask for a window or an aisle seat twice in one morning: the collective gate opens.
    for (let c = 1; c <= 5; c++) for (const h of [8, 9]) rows.push(line(T0 + h * 3_600_000 + c * 60_000, `c${c}`, c % 2 === 0 ? 'aisle seat please' : 'window seat please'));
    // Ten days later, one client alone, twelve times in a day: its own pool only.
    for (let i = 0; i < 12; i++) rows.push(line(T0 + 10 * DAY + i * 3_600_000, 'solo', 'extra legroom'));
    const r = await parley('simulate', '--input', file('crafted.jsonl', `${rows.sort().join('\n')}\n`));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/flight_booking\/global fired: .* → patched seat_preference/);
    expect(r.stdout).toMatch(/flight_booking\/solo fired: .* → patched extra_legroom/);
    expect(r.stdout).toMatch(/\(11 days\)/);
    expect(r.stdout).toMatch(/Patches: 2/);
    expect(r.stdout).not.toMatch(/scope global: \+extra_legroom/);
  });

  it('accepts epoch-ms ts and ignores other fields; --threshold changes the clustering', async () => {
    const rows = ['window seat please', 'seat by the window', 'aisle seat'].map((t, i) => JSON.stringify({ ts: T0 + i * 1000, scenario: 'flight booking', client_id: `x${i}`, text: t, note: 'ignored' }));
    const p = file('epoch.jsonl', `${rows.join('\n')}\n`);
    const loose = await parley('simulate', '--input', p, '--json');
    // "window seat please" and "seat by the window" have the same content words: 0.97 with the word vectors.
    const strict = await parley('simulate', '--input', p, '--json', '--threshold', '0.99');
    expect(loose.code, loose.stderr).toBe(0);
    expect(strict.code, strict.stderr).toBe(0);
    const globals = (o: string): number => (JSON.parse(lastLine(o)) as JsonOut).clusters.filter((c) => c.scope === 'global').length;
    expect(globals(loose.stdout)).toBe(1);
    expect(globals(strict.stdout)).toBe(3);
    expect((JSON.parse(lastLine(strict.stdout)) as JsonOut).similarity_threshold).toBe(0.99);
  });

  it.each([
    ['a line out of order', [line(T0 + 2000, 'a', 'window seat'), line(T0 + 3000, 'b', 'aisle seat'), line(T0 + 1000, 'c', 'window seat')], /:3: .*earlier than the line before/],
    ['a line that is not JSON', [line(T0, 'a', 'window seat'), '{"ts": oops}'], /:2: not JSON/],
    ['an unknown scenario', [line(T0, 'a', 'window seat'), line(T0 + 1, 'a', 'x', 'teleportation')], /:2: unknown scenario "teleportation"/],
    ['a ts without a time zone', [JSON.stringify({ ts: '2026-01-05T10:00:00', scenario: 'flight_booking', client_id: 'a', text: 'x' })], /:1: ts .* not ISO 8601/],
    ['a missing client_id', [JSON.stringify({ ts: T0, scenario: 'flight_booking', text: 'x' })], /:1: client_id must be a non-empty string/],
  ])('bad input (%s): the line is set aside with its error and the run goes on (exit 3), or exit 2 when no line is left', async (name, rows, pattern) => {
    const p = file(`bad-${name.replace(/\W+/g, '-')}.jsonl`, `${rows.join('\n')}\n`);
    const assignments = join(tmp, `bad-${name.replace(/\W+/g, '-')}.txt`);
    const r = await parley('simulate', '--input', p, '--assignments', assignments);
    expect(r.stderr).toContain(p);
    expect(r.stderr).toMatch(pattern);
    if (rows.length === 1) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      return;
    }
    // No single line stops the run: the report is printed, the set-aside line is listed, exit 3.
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/1 line\(s\) set aside/);
    expect(r.stdout).toMatch(/^parley simulate: /);
    const a = readFileSync(assignments, 'utf8').trimEnd().split('\n');
    expect(a).toHaveLength(rows.length);
    expect(JSON.parse(readFileSync(`${assignments}.summary.json`, 'utf8')).set_aside).toHaveLength(1);
  });

  it('bad arguments exit 2 with the usage', async () => {
    const none = await parley('simulate');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--input is required/);
    const emb = await parley('simulate', '--input', STREAM, '--embedder', 'openai');
    expect(emb.code).toBe(2);
    expect(emb.stderr).toMatch(/only "offline"/);
    const th = await parley('simulate', '--input', STREAM, '--threshold', 'high');
    expect(th.code).toBe(2);
    const missing = await parley('simulate', '--input', join(tmp, 'nope.jsonl'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read/);
  });
});
