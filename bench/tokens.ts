// `npm run bench:tokens`: draft-chang ADOL token figures over the real MCP tools/list
// data sets in ../shared/data/mcp-tools (relative to the repo root; SOURCES.md there
// says where each came from, BASELINES.md holds the naive figures):
//  - per server: tokens of the tool list (o200k_base, compact JSON) as listed, after
//    $ref dedup (chang §3.1) in each mode, after the short view (§3.2), after both;
//  - where a query set exists (bench/data/<server>-queries.json; github-all-toolsnaps
//    reuses github's when every expected tool is in it): tool selection (§3.4) with the
//    offline embedder, recall@1/@5, and tokens per request (the tools returned for a
//    query, in the short view, averaged) against the full list.
// No services needed. The last line is one JSON object keyed by data-set file name.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  countTokens,
  evaluateSelection,
  measureTools,
  selectTools,
  shortView,
  toolsFromList,
  type McpTool,
  type TextEmbedder,
  type ToolsMeasure,
} from '@parley/adol';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = join(ROOT, '..', 'shared', 'data', 'mcp-tools');
const QUERIES = join(ROOT, 'bench', 'data');
const log = (s = ''): void => void process.stdout.write(`${s}\n`);

interface Query {
  query: string;
  tool: string;
  set?: string;
}

interface Selection {
  query_set: string;
  queries: number;
  recall_at_1: number;
  recall_at_5: number;
  holdout_recall_at_1?: number;
  holdout_recall_at_5?: number;
  mean_selected: number;
  recall_selected: number;
  tokens_per_request: number;
  tokens_per_request_saved_pct: number;
}

type Row = ToolsMeasure & Partial<Selection> & { selection_note?: string };

/** The offline embedder of @parley/embeddings, or why it cannot be had (it is built in parallel). */
async function offlineEmbedder(): Promise<TextEmbedder | string> {
  const specifier = '@parley/embeddings';
  try {
    const mod = (await import(specifier)) as { createOfflineEmbedder?: () => TextEmbedder & { warmUp?: () => Promise<unknown> } };
    if (typeof mod.createOfflineEmbedder !== 'function') return '@parley/embeddings has no createOfflineEmbedder yet';
    const e = mod.createOfflineEmbedder();
    await e.embed(['warm up']);
    return e;
  } catch (err) {
    return `@parley/embeddings is not usable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

function querySetFor(server: string, tools: McpTool[]): { file: string; queries: Query[] } | undefined {
  const names = new Set(tools.map((t) => t.name));
  for (const candidate of [server, server.split('-')[0]!]) {
    const file = join(QUERIES, `${candidate}-queries.json`);
    if (!existsSync(file)) continue;
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { queries?: Query[] } | Query[];
    const queries = Array.isArray(doc) ? doc : (doc.queries ?? []);
    if (queries.length > 0 && queries.every((q) => names.has(q.tool))) return { file: basename(file), queries };
  }
  return undefined;
}

async function selection(tools: McpTool[], full: number, qs: { file: string; queries: Query[] }, embedder: TextEmbedder): Promise<Selection> {
  const opts = { embedder };
  const all = await evaluateSelection(tools, qs.queries, opts);
  const holdout = qs.queries.filter((q) => q.set === 'holdout');
  const h = holdout.length ? await evaluateSelection(tools, holdout, opts) : undefined;
  // What reaches the model per request: the tools selection returns, in the short view.
  let tokens = 0;
  for (const q of qs.queries) {
    const chosen = await selectTools(tools, q.query, opts);
    tokens += countTokens(chosen.map((s) => shortView(s.tool)));
  }
  const perRequest = Math.round(tokens / qs.queries.length);
  return {
    query_set: qs.file,
    queries: all.queries,
    recall_at_1: round(all.recall_at_1, 3),
    recall_at_5: round(all.recall_at_5, 3),
    ...(h ? { holdout_recall_at_1: round(h.recall_at_1, 3), holdout_recall_at_5: round(h.recall_at_5, 3) } : {}),
    mean_selected: round(all.mean_selected, 2),
    recall_selected: round(all.recall_selected, 3),
    tokens_per_request: perRequest,
    tokens_per_request_saved_pct: round(((full - perRequest) / full) * 100, 1),
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function pct(full: number, n: number): string {
  return `${(((full - n) / full) * 100).toFixed(1)}%`;
}

async function main(): Promise<void> {
  if (!existsSync(DATA)) throw new Error(`data sets not found at ${DATA} (the repo root's parent must hold shared/data/mcp-tools)`);
  const files = readdirSync(DATA)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const embedder = await offlineEmbedder();
  const out: Record<string, Row> = {};

  log('ADOL token efficiency (draft-chang): o200k_base tokens of the compact tools/list JSON');
  log(`data: ${DATA}`);
  log();
  const head = ['server', 'tools', 'full', 'dedup', 'dedup shared', 'dedup list*', 'short', 'both', 'both list*'];
  const rows: string[][] = [];
  for (const file of files) {
    const tools = toolsFromList(JSON.parse(readFileSync(join(DATA, file), 'utf8')));
    const m = measureTools(tools);
    const row: Row = { ...m };
    const qs = querySetFor(file.replace(/\.json$/, ''), tools);
    if (qs && typeof embedder !== 'string') Object.assign(row, await selection(tools, m.tokens_full, qs, embedder));
    else if (qs) row.selection_note = `selection skipped: ${embedder}`;
    out[file] = row;
    const cell = (n: number): string => `${n} (${pct(m.tokens_full, n)})`;
    rows.push([
      file.replace(/\.json$/, ''),
      String(m.tools),
      String(m.tokens_full),
      cell(m.tokens_dedup),
      cell(m.tokens_dedup_shared),
      cell(m.tokens_dedup_list),
      cell(m.tokens_short),
      cell(m.tokens_both),
      cell(m.tokens_both_list),
    ]);
    if (!m.roundtrip_ok) log(`!! ${file}: a round trip FAILED (dedup ${m.roundtrip_dedup}, short ${m.roundtrip_short}, both ${m.roundtrip_both})`);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  log(fmt(head));
  for (const r of rows) log(fmt(r));
  log('dedup = $defs inside each schema (MCP-conformant); shared = content-addressed documents; * list = one $defs for the whole list (the baseline layout, not MCP)');
  log(`round trips (dedup → deref in 3 modes, short → full, both): ${Object.values(out).every((r) => r.roundtrip_ok) ? 'all ok' : 'FAILED, see above'}`);
  log();

  log('Tool selection (chang §3.4), offline embedder, hybrid ranking, default top 5; tokens per request = selected tools in the short view');
  for (const [file, r] of Object.entries(out)) {
    if (r.selection_note) log(`${file}: ${r.selection_note}`);
    else if (r.recall_at_5 !== undefined) {
      log(
        `${file}: ${r.queries} queries (${r.query_set}): recall@1 ${r.recall_at_1}, recall@5 ${r.recall_at_5}` +
          (r.holdout_recall_at_5 !== undefined ? ` (holdout: @1 ${r.holdout_recall_at_1}, @5 ${r.holdout_recall_at_5})` : '') +
          `, ${r.mean_selected} tools/request, ${r.tokens_per_request} tokens/request vs ${r.tokens_full} (${r.tokens_per_request_saved_pct}% fewer)`,
      );
    }
  }
  if (!Object.values(out).some((r) => r.query_set || r.selection_note)) log('no query set found in bench/data');
  log();
  log(JSON.stringify(out));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench:tokens: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
