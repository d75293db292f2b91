// `npx tsx bench/selection-cut.ts [--val] [--top N] [--min-recall R] [--rule minK,drop,ratio,gap ...] [--lead L,...] [--budget B,...]`: the adaptive cut's rule (draft-chang §3.4, `autoCut` of
// libs/adol selectTools) swept over the dev request sets (bench/data/selection *.dev, *.own, *.para and the GitHub
// queries; `--val` adds the validation sets *.val*.json, reported apart and never used to choose). Each request is
// ranked once (the default rankers, offline embedder, WordNet lexicon); every rule of the grid is then applied to
// that ranking with `autoCutLength`, so the sweep costs one ranking per request. Per rule: mean over sets of the
// recall within the cut (the expected tool among those returned) and of the tokens per request fewer than the full
// list (the returned tools in the short view, summed per tool), and the same for a fixed top 5. Never reads
// bench/heldout. Prints the rules on the dev Pareto front, best tokens first (those of at least --min-recall), and
// each --rule asked for (`--rule 2,1.4,0,0.5`; `inf` for off) whether on the front or not. Two rules outside the
// library, per set: `--lead L` (one tool when the best's fused score leads the second's by more than L, else the
// default rule; how often the one kept is wrong) and `--budget B` (the longest prefix whose short-view tokens stay
// within B of the full list's, at least one tool, with and without the default drop rule).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autoCutLength, countTokens, selectTools, shortView, toolsFromList, wordNetLexicon, type AutoCut, type McpTool, type SelectOptions, type TextEmbedder } from '@parley/adol';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LISTS = join(ROOT, 'bench', 'data', 'mcp-tools');
const SELECTION = join(ROOT, 'bench', 'data', 'selection');
const log = (s = ''): void => void process.stdout.write(`${s}\n`);

interface Ranked {
  scores: number[];
  tokens: number[];
  hit: boolean[];
}
interface SetRun {
  name: string;
  full: number;
  requests: Ranked[];
}

function sets(val: boolean): { name: string; list: string; requests: { text: string; expected: string[] }[] }[] {
  const out: { name: string; list: string; requests: { text: string; expected: string[] }[] }[] = [];
  const q = JSON.parse(readFileSync(join(ROOT, 'bench', 'data', 'github-queries.json'), 'utf8')) as { queries: { query: string; tool: string }[] };
  out.push({ name: 'github / queries', list: 'github.json', requests: q.queries.map((x) => ({ text: x.query, expected: [x.tool] })) });
  for (const f of readdirSync(SELECTION).filter((x) => x.endsWith('.json')).sort()) {
    const split = f.replace(/\.json$/, '').split('.').slice(1).join('.');
    if (split.startsWith('val') !== val) continue;
    const doc = JSON.parse(readFileSync(join(SELECTION, f), 'utf8')) as { list: string; requests: { text: string; expected: string[] }[] };
    out.push({ name: `${doc.list.replace(/\.json$/, '')} / ${split}`, list: doc.list, requests: doc.requests });
  }
  return val ? out.filter((s) => s.name.includes('/ val')) : out;
}

async function rank(embedder: TextEmbedder, opts: SelectOptions, val: boolean): Promise<SetRun[]> {
  const runs: SetRun[] = [];
  for (const s of sets(val)) {
    const tools = toolsFromList(JSON.parse(readFileSync(join(LISTS, s.list), 'utf8'))) as McpTool[];
    const own = new Map(tools.map((t) => [t, countTokens([shortView(t)])]));
    const full = countTokens(tools);
    const requests: Ranked[] = [];
    for (const r of s.requests) {
      const ranking = await selectTools(tools, r.text, { ...opts, embedder, topK: tools.length, cut: 'fixed' });
      requests.push({ scores: ranking.map((x) => x.score), tokens: ranking.map((x) => own.get(x.tool) ?? 0), hit: ranking.map((x) => r.expected.includes(x.tool.name)) });
    }
    runs.push({ name: s.name, full, requests });
  }
  return runs;
}

/** Mean over sets of recall within the cut and of tokens fewer than the full list (%), for a cut length per request. */
function measure(runs: readonly SetRun[], cutLength: (r: Ranked) => number): { recall: number; saved: number; perSet: { recall: number; saved: number }[] } {
  const perSet = runs.map((s) => {
    let hit = 0;
    let tokens = 0;
    for (const r of s.requests) {
      const k = cutLength(r);
      if (r.hit.slice(0, k).some(Boolean)) hit++;
      tokens += r.tokens.slice(0, k).reduce((a, b) => a + b, 0);
    }
    const n = Math.max(1, s.requests.length);
    return { recall: hit / n, saved: 100 * (1 - tokens / n / s.full) };
  });
  const mean = (f: (x: { recall: number; saved: number }) => number): number => perSet.reduce((a, x) => a + f(x), 0) / Math.max(1, perSet.length);
  return { recall: mean((x) => x.recall), saved: mean((x) => x.saved), perSet };
}

function grid(): AutoCut[] {
  const out: AutoCut[] = [];
  for (const minK of [1, 2, 3])
    for (const drop of [0.5, 0.75, 1, 1.25, 1.4, 1.5, 1.6, 1.75, 2, 2.5, Number.POSITIVE_INFINITY])
      for (const ratio of [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
        for (const gap of [Number.POSITIVE_INFINITY, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1, 1.25, 1.5]) out.push({ minK, drop, ratio, gap });
  return out;
}

const label = (c: AutoCut): string => `minK ${c.minK} drop ${c.drop} ratio ${c.ratio} gap ${c.gap}`;

/** A refused argument: named on stderr, exit code 2, before any ranking. */
class ArgError extends Error {}

/**
 * The comma-separated numbers after `flag` (none when the flag is absent), each finite and within [min, max]; a
 * missing or non-numeric value is refused, never read as NaN or 0 (which printed empty rows).
 */
function numbersAfter(a: string[], flag: string, min: number, max: number): number[] {
  const i = a.indexOf(flag);
  if (i < 0) return [];
  const raw = a[i + 1];
  if (raw === undefined || raw.startsWith('--')) throw new ArgError(`${flag} needs a value (numbers from ${min} to ${max}, comma-separated)`);
  return raw.split(',').map((v) => {
    const n = /^\d+(\.\d+)?$|^\.\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
    if (!Number.isFinite(n) || n < min || n > max) throw new ArgError(`${flag}: ${JSON.stringify(v.slice(0, 20))} is not a number from ${min} to ${max}`);
    return n;
  });
}

async function main(): Promise<void> {
  const a = process.argv.slice(2);
  const top = Number(a[a.indexOf('--top') + 1]) || 25;
  const minRecall = a.includes("--min-recall") ? Number(a[a.indexOf("--min-recall") + 1]) : 0;
  // The rules outside the library, checked before the ranking (which takes minutes).
  const budgets = numbersAfter(a, '--budget', 0, 1);
  const leads = numbersAfter(a, '--lead', 0, 100);
  const emb = (await import('@parley/embeddings')) as typeof import('@parley/embeddings');
  const embedder = emb.createOfflineEmbedder();
  const lexicon = wordNetLexicon(await emb.WordNet.load({ dictDir: emb.defaultDictDir() }));
  const dev = await rank(embedder, { lexicon }, false);
  const val = a.includes('--val') && existsSync(SELECTION) ? await rank(embedder, { lexicon }, true) : [];
  const fixed5 = (r: Ranked): number => Math.min(5, r.scores.length);
  const rows = [{ rule: 'fixed top 5', cut: undefined as AutoCut | undefined }, ...grid().map((c) => ({ rule: label(c), cut: c as AutoCut | undefined }))].map((x) => {
    const f = x.cut ? (r: Ranked): number => autoCutLength(r.scores, 5, x.cut) : fixed5;
    return { ...x, dev: measure(dev, f), val: val.length > 0 ? measure(val, f) : undefined };
  });
  const front = rows.filter((r) => !rows.some((o) => o.dev.recall >= r.dev.recall && o.dev.saved > r.dev.saved + 1e-9));
  front.sort((p, q) => q.dev.saved - p.dev.saved);
  log(`dev sets: ${dev.map((s) => s.name).join(', ')}`);
  if (val.length > 0) log(`validation sets (not used to choose): ${val.map((s) => s.name).join(', ')}`);
  const show = (x: (typeof rows)[number]): string =>
    `${x.rule.padEnd(44)} dev recall ${x.dev.recall.toFixed(4)} saved ${x.dev.saved.toFixed(2)}%` + (x.val ? ` | val recall ${x.val.recall.toFixed(3)} saved ${x.val.saved.toFixed(1)}%` : '');
  const current = rows.find((r) => r.rule === label({ minK: 1, drop: 1.5, ratio: 0, gap: Number.POSITIVE_INFINITY }))!;
  log(show(rows[0]!));
  log(`${show(current)}   (the former default; ${rows.length - 1} rules in the grid)`);
  log('Pareto front on dev (recall within the cut, tokens saved):');
  for (const r of front.filter((x) => x.dev.recall >= minRecall).slice(0, top)) log(show(r));
  for (const [i, x] of a.entries()) {
    if (x !== '--rule') continue;
    const [minK, drop, ratio, gap] = (a[i + 1] ?? '').split(',').map((v) => (v === 'inf' ? Number.POSITIVE_INFINITY : Number(v)));
    const rule = { minK: minK ?? 1, drop: drop ?? 1.5, ratio: ratio ?? 0, gap: gap ?? Number.POSITIVE_INFINITY };
    const f = (r: Ranked): number => autoCutLength(r.scores, 5, rule);
    log(`asked: ${show({ rule: label(rule), cut: rule, dev: measure(dev, f), val: val.length > 0 ? measure(val, f) : undefined })}`);
  }
  // `--budget 0.1,0.15`: a token-budget cap computed here only (libs/adol has no such option): the longest prefix of
  // what the rule keeps whose short-view tokens stay within that share of the full list's tokens, at least one tool.
  const within = (r: Ranked, k: number, cap: number): number => {
    let sum = 0;
    let j = 0;
    while (j < k && sum + r.tokens[j]! <= cap) sum += r.tokens[j++]!;
    return Math.max(1, j);
  };
  const fullOf = new Map([...dev, ...val].flatMap((s) => s.requests.map((r) => [r, s.full] as const)));
  for (const b of budgets)
    for (const [name, rule] of [['default drop 1.5', {}], ['no drop', { drop: Number.POSITIVE_INFINITY }]] as const) {
      const f = (r: Ranked): number => within(r, autoCutLength(r.scores, 5, rule), b * fullOf.get(r)!);
      const d = measure(dev, f);
      const v = val.length > 0 ? measure(val, f) : undefined;
      log(`budget ${b} + ${name}: dev recall ${d.recall.toFixed(4)} saved ${d.saved.toFixed(2)}%${v ? ` | val recall ${v.recall.toFixed(3)} saved ${v.saved.toFixed(1)}%` : ''}`);
      for (const [i, s] of dev.entries()) log(`    dev ${s.name.padEnd(34)} ${d.perSet[i]!.recall.toFixed(3)} ${d.perSet[i]!.saved.toFixed(1)}%`);
      if (v) for (const [i, s] of val.entries()) log(`    val ${s.name.padEnd(34)} ${v.perSet[i]!.recall.toFixed(3)} ${v.perSet[i]!.saved.toFixed(1)}%`);
    }
  // `--lead 0.5,1`: one tool when the best stands more than that far (fused score) above the second, else the default rule.
  for (const l of leads) {
    const f = (r: Ranked): number => (r.scores.length > 1 && r.scores[0]! - r.scores[1]! > l ? 1 : autoCutLength(r.scores, 5, {}));
    const d = measure(dev, f);
    const v = val.length > 0 ? measure(val, f) : undefined;
    const led = dev.flatMap((s) => s.requests).filter((r) => f(r) === 1 && autoCutLength(r.scores, 5, {}) > 1);
    log(`lead ${l}: dev recall ${d.recall.toFixed(4)} saved ${d.saved.toFixed(2)}%${v ? ` | val recall ${v.recall.toFixed(3)} saved ${v.saved.toFixed(1)}%` : ''}; dev requests cut to one by the lead ${led.length}, first right ${led.filter((r) => r.hit[0]).length}, right one 2nd-5th ${led.filter((r) => !r.hit[0] && r.hit.slice(1, 5).some(Boolean)).length}`);
    for (const [i, s] of dev.entries()) log(`    dev ${s.name.padEnd(34)} ${d.perSet[i]!.recall.toFixed(3)} ${d.perSet[i]!.saved.toFixed(1)}%`);
  }
  for (const [i, s] of dev.entries()) log(`  dev ${s.name.padEnd(34)} fixed 5: ${rows[0]!.dev.perSet[i]!.recall.toFixed(3)} ${rows[0]!.dev.perSet[i]!.saved.toFixed(1)}%  former: ${current.dev.perSet[i]!.recall.toFixed(3)} ${current.dev.perSet[i]!.saved.toFixed(1)}%`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    if (e instanceof ArgError) {
      process.stderr.write(`selection-cut: ${e.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`selection-cut: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
