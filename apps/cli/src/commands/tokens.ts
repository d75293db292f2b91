/**
 * `parley tokens FILE [--json] [--base-url URL] [--query TEXT [--top-k N] [--cut auto|fixed] [--min-k N]
 * [--cut-drop SD] [--cut-ratio F] [--cut-gap G]]`: token counts (o200k_base, compact
 * JSON) of an MCP tools/list before and after each ADOL mechanism of draft-chang
 * (A: $ref dedup, §3.1; B: short view, §3.2) and both, with the round trips that
 * make them lossless checked. With --query, also tool selection (§3.4, D) as Parley's gateway does it (the
 * embedder PARLEY_EMBEDDER configures, default the offline one, and WordNet word senses): the tools the adaptive
 * cut returns for that request, and their tokens in the short view beside a fixed top K's. FILE is a tools/list result (`{ tools: [...] }`), a
 * JSON-RPC response carrying one (`result.tools`), or an array of tools.
 *
 * Exit codes: 0 done (even when a round trip fails: that is a finding, printed and
 * in the JSON); 2 usage or bad input (missing file, invalid JSON, not a tool list, with --query a
 * PARLEY_EMBEDDER setting the embedders package refuses: checked before anything is printed).
 */
import { readFile } from 'node:fs/promises';
import { autoCutLength, countTokens, measureTools, savedPct, selectTools, shortView, toolsFromList, wireTools, wordNetLexicon, type AutoCut, type McpTool, type SelectOptions, type ToolsMeasure } from '@parley/adol';
import { WordNet, createEmbedderFromEnv, defaultDictDir } from '@parley/embeddings';
import { isParleyError } from '@parley/protocol';
import { progress } from '../progress';

const USAGE = `usage: parley tokens FILE [--json] [--base-url URL] [--query TEXT [--top-k N] [--cut auto|fixed]
                     [--min-k N] [--cut-drop SD] [--cut-ratio F] [--cut-gap G]]

  FILE          an MCP tools/list result ({"tools":[...]}), a JSON-RPC response with
                result.tools, or a JSON array of tools (e.g. bench/data/mcp-tools/github.json)
  --json        end the output with one line of JSON (the figures below)
  --base-url    prefix of shared schema documents' addresses (default none: relative /s/<hash>,
                as Parley's gateway lists them); its length is part of every shared reference's cost
  --query TEXT  also select tools for this request (draft-chang §3.4), as the gateway's tools/list
                _meta.query does: the tools returned, their tokens in the short view, and a fixed top K's
                (a request starting with -- goes as --query=TEXT); the embedder is PARLEY_EMBEDDER's
  --top-k N     at most N tools (default 5)
  --cut MODE    auto (default: up to top-k, fewer when the best stand out) or fixed (exactly top-k)
  --min-k N     the adaptive cut returns at least N tools (default 1)
  --cut-drop SD ... leaves out tools more than SD standard deviations below the best (default 1.5)
  --cut-ratio F ... and those under F times the best's fused score (default 0: off)
  --cut-gap G   ... and every tool after a fall larger than G between two consecutive tools (default off;
                a fall within the first N of --min-k ends the list at N)
  N is decimal digits; SD, F and G decimal digits with at most one point.
`;

class UsageError extends Error {}

export interface Args {
  file: string;
  json: boolean;
  baseUrl?: string;
  select?: { query: string; topK: number; cut?: 'auto' | 'fixed'; autoCut: AutoCut };
}

/** Largest --top-k / --min-k (the gateway's top_k bound). */
const MAX_K = 100;
const MAX_QUERY = 1024;

/** Whole numbers: decimal digits only (no sign, exponent, hex or binary prefix, white space). */
const INTEGER = /^[0-9]+$/;
/** Decimal numbers: digits and at most one point. */
const DECIMAL = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/** A numeric flag's value: `--flag V` or `--flag=V`, written as `pattern` allows; NaN when missing or written otherwise. */
function flagValue(argv: string[], i: number, pattern: RegExp): [number, number] {
  const a = argv[i]!;
  const raw = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
  return [raw === undefined || !pattern.test(raw) ? Number.NaN : Number(raw), a.includes('=') ? i : i + 1];
}

/** The selection flags (`--query` and the cut's); returns the index of the last argument read, or -1 when `a` is none of them. */
function selectionFlag(argv: string[], i: number, sel: { query?: string; topK?: number; cut?: 'auto' | 'fixed'; autoCut: AutoCut }): number {
  const a = argv[i]!;
  const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
  if (name === '--query') {
    const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
    // `--query --json` is a missing request, not the request "--json" (one starting with -- goes as --query=TEXT).
    if (v === undefined || v.trim() === '' || (!a.includes('=') && v.startsWith('--'))) throw new UsageError('--query needs the request text');
    if (v.length > MAX_QUERY) throw new UsageError(`--query must be at most ${MAX_QUERY} characters`);
    sel.query = v;
    return a.includes('=') ? i : i + 1;
  }
  if (name === '--cut') {
    const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
    if (v !== 'auto' && v !== 'fixed') throw new UsageError('--cut is auto or fixed');
    sel.cut = v;
    return a.includes('=') ? i : i + 1;
  }
  if (name === '--top-k' || name === '--min-k') {
    const [v, last] = flagValue(argv, i, INTEGER);
    if (!Number.isInteger(v) || v < 1 || v > MAX_K) throw new UsageError(`${name} needs an integer from 1 to ${MAX_K}`);
    if (name === '--top-k') sel.topK = v;
    else sel.autoCut.minK = v;
    return last;
  }
  if (name === '--cut-drop' || name === '--cut-gap' || name === '--cut-ratio') {
    const [v, last] = flagValue(argv, i, DECIMAL);
    const max = name === '--cut-ratio' ? 1 : MAX_K;
    if (!Number.isFinite(v) || v < 0 || v > max) throw new UsageError(`${name} needs a number from 0 to ${max}`);
    sel.autoCut[name === '--cut-drop' ? 'drop' : name === '--cut-gap' ? 'gap' : 'ratio'] = v;
    return last;
  }
  return -1;
}

function parseArgs(argv: string[]): Args | 'help' {
  let file: string | undefined;
  let json = false;
  let baseUrl: string | undefined;
  const sel: { query?: string; topK?: number; cut?: 'auto' | 'fixed'; autoCut: AutoCut } = { autoCut: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') return 'help';
    const read = a.startsWith('--') ? selectionFlag(argv, i, sel) : -1;
    if (read >= 0) i = read;
    else if (a === '--json') json = true;
    else if (a === '--base-url' || a.startsWith('--base-url=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!v || !/^https?:\/\/\S+$/.test(v)) throw new UsageError('--base-url needs an http(s) URL');
      baseUrl = v;
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else if (file === undefined) file = a;
    else throw new UsageError(`one FILE only (got ${file} and ${a})`);
  }
  if (file === undefined) throw new UsageError('FILE is missing');
  if (sel.autoCut.minK !== undefined && sel.autoCut.minK > (sel.topK ?? 5)) throw new UsageError(`--min-k (${sel.autoCut.minK}) must not exceed --top-k (${sel.topK ?? 5})`);
  if (sel.query === undefined && (sel.topK !== undefined || sel.cut !== undefined || Object.keys(sel.autoCut).length > 0)) {
    throw new UsageError('--top-k, --cut, --min-k, --cut-drop, --cut-ratio and --cut-gap apply with --query');
  }
  const select = sel.query !== undefined ? { query: sel.query, topK: sel.topK ?? 5, ...(sel.cut ? { cut: sel.cut } : {}), autoCut: sel.autoCut } : undefined;
  return { file, json, ...(baseUrl ? { baseUrl } : {}), ...(select ? { select } : {}) };
}

function pct(full: number, n: number): string {
  return full === 0 ? '-' : `${(((full - n) / full) * 100).toFixed(1)}%`;
}

export function renderTable(file: string, m: ToolsMeasure & { tokens_no_refs?: number }): string {
  const rows: [string, number][] = [
    ...(m.tokens_no_refs !== undefined ? ([['A    no $ref at all (every reference inlined)', m.tokens_no_refs]] as [string, number][]) : []),
    ['A    dedup, $defs inside each schema (MCP)', m.tokens_dedup],
    ['A    dedup, shared schema documents (Parley)', m.tokens_dedup_shared],
    ['A    dedup, one $defs for the list (baseline layout)', m.tokens_dedup_list],
    ['B    short view', m.tokens_short],
    ['A+B  short view + $defs inside each schema', m.tokens_both],
    ['A+B  short view + shared schema documents', m.tokens_both_shared],
    ['A+B  short view + one $defs for the list', m.tokens_both_list],
  ];
  const w = Math.max(...rows.map((r) => r[0].length), 20);
  const line = (label: string, n: number, saved: string): string => `${label.padEnd(w)}  ${String(n).padStart(7)}  ${saved.padStart(6)}`;
  const ok = (b: boolean): string => (b ? 'ok' : 'FAILED');
  return [
    `${file}: ${m.tools} tools (o200k_base tokens of compact JSON; draft-chang ADOL)`,
    '',
    `${'mechanism'.padEnd(w)}  ${'tokens'.padStart(7)}  ${'saved'.padStart(6)}`,
    line('     full (as listed)', m.tokens_full, '-'),
    ...rows.map(([label, n]) => line(label, n, pct(m.tokens_full, n))),
    '',
    `round trips: dedup → deref ${ok(m.roundtrip_dedup)}, short → full ${ok(m.roundtrip_short)}, both ${ok(m.roundtrip_both)}`,
  ].join('\n');
}

export interface SelectionFigures {
  query: string;
  embedder: string;
  cut: 'auto' | 'fixed';
  auto_cut: AutoCut;
  tools: { name: string; score: number; tokens: number }[];
  /** The returned tools in the short view, and a fixed top K's. */
  tokens: number;
  saved_pct: number;
  top_k: number;
  top_k_tokens: number;
  top_k_saved_pct: number;
  /**
   * What a client receives through Parley's MCP face: the answer (the returned tools in the short view, references
   * inlined, as tools/list sends them with `short: true`), and that answer plus the full schema of the first returned
   * tool, fetched with `_meta.names` by a client that wants it before calling.
   */
  client_tokens: number;
  client_saved_pct: number;
  client_with_fetch_tokens: number;
  client_with_fetch_saved_pct: number;
  /**
   * The same two against what the MCP face sends for a plain tools/list (every tool in full, references inlined:
   * `tokens_no_refs`), the list a client would otherwise receive. On a list with `$defs` the figures against the
   * list as listed overstate what selection saves (the face's inlining alone drops unused definitions).
   */
  plain_list_tokens: number;
  client_saved_vs_plain_pct: number;
  client_with_fetch_saved_vs_plain_pct: number;
}

/** The two lists selection's figures are measured against: as listed (`tokens_full`), and as a plain tools/list through the MCP face sends it (`tokens_no_refs`). */
export interface SelectionBaselines {
  full: number;
  plain: number;
}

/** The embedder PARLEY_EMBEDDER configures, read with the arguments: a setting the embedders package refuses is a usage error. */
async function embedderFromEnv(): Promise<NonNullable<SelectOptions['embedder']>> {
  try {
    return createEmbedderFromEnv(process.env);
  } catch (e) {
    if (isParleyError(e)) throw new UsageError(e.message);
    throw e;
  }
}

/** Tool selection for `--query` (draft-chang §3.4) as the gateway runs it: the configured embedder, WordNet senses when readable. */
async function selection(tools: McpTool[], base: SelectionBaselines, sel: NonNullable<Args['select']>, embedder: NonNullable<SelectOptions['embedder']>): Promise<SelectionFigures> {
  const lexicon = await WordNet.load({ dictDir: defaultDictDir() }).then(
    (wn) => wordNetLexicon(wn),
    () => undefined,
  );
  return selectionFigures(tools, base, sel, embedder, lexicon);
}

/** The figures of `--query`: the tools the cut returns (and their tokens in the short view) beside a fixed top K's. */
export async function selectionFigures(
  tools: McpTool[],
  base: SelectionBaselines,
  sel: NonNullable<Args['select']>,
  embedder: NonNullable<SelectOptions['embedder']>,
  lexicon?: SelectOptions['lexicon'],
): Promise<SelectionFigures> {
  const opts: SelectOptions = { embedder, topK: sel.topK, ...(lexicon ? { lexicon } : {}), ...(sel.cut ? { cut: sel.cut } : {}), autoCut: sel.autoCut };
  // One ranking: the fixed top K, and the adaptive cut applied to its scores (what selectTools' auto cut does).
  const fixed = await selectTools(tools, sel.query, { ...opts, cut: 'fixed' });
  const chosen = sel.cut === 'fixed' ? fixed : fixed.slice(0, autoCutLength(fixed.map((s) => s.score), sel.topK, sel.autoCut));
  const tokens = countTokens(chosen.map((s) => shortView(s.tool)));
  const topTokens = countTokens(fixed.map((s) => shortView(s.tool)));
  // What the MCP face sends (adol wireTools, as the gateway's listTools): the answer with short: true, then the fetch.
  const client = countTokens(wireTools(chosen.map((s) => s.tool), { short: true }).tools);
  const fetched = chosen[0] ? countTokens(wireTools([chosen[0].tool]).tools) : 0;
  const saved = (n: number): number => savedPct(base.full, n);
  const savedPlain = (n: number): number => savedPct(base.plain, n);
  return {
    query: sel.query,
    embedder: embedder.id,
    cut: sel.cut ?? 'auto',
    auto_cut: sel.autoCut,
    tools: chosen.map((s) => ({ name: s.tool.name, score: Math.round(s.score * 1000) / 1000, tokens: countTokens([shortView(s.tool)]) })),
    tokens,
    saved_pct: saved(tokens),
    top_k: sel.topK,
    top_k_tokens: topTokens,
    top_k_saved_pct: saved(topTokens),
    client_tokens: client,
    client_saved_pct: saved(client),
    client_with_fetch_tokens: client + fetched,
    client_with_fetch_saved_pct: saved(client + fetched),
    plain_list_tokens: base.plain,
    client_saved_vs_plain_pct: savedPlain(client),
    client_with_fetch_saved_vs_plain_pct: savedPlain(client + fetched),
  };
}

export function renderSelection(s: SelectionFigures, full: number): string {
  const w = Math.max(4, ...s.tools.map((t) => t.name.length));
  return [
    `selection (draft-chang §3.4) for ${JSON.stringify(s.query.length > 80 ? `${s.query.slice(0, 77)}...` : s.query)}: embedder ${s.embedder}, cut ${s.cut} ${JSON.stringify(s.auto_cut)}`,
    `${'tool'.padEnd(w)}  ${'score'.padStart(7)}  ${'tokens (short)'.padStart(14)}`,
    ...s.tools.map((t) => `${t.name.padEnd(w)}  ${t.score.toFixed(3).padStart(7)}  ${String(t.tokens).padStart(14)}`),
    `returned ${s.tools.length} tools: ${s.tokens} tokens, ${s.saved_pct}% fewer than the full list (${full}); a fixed top ${s.top_k}: ${s.top_k_tokens} tokens, ${s.top_k_saved_pct}% fewer`,
    `a client receives ${s.client_tokens} tokens (${s.client_saved_pct}% fewer; the answer with references inlined), ${s.client_with_fetch_tokens} (${s.client_with_fetch_saved_pct}% fewer) if it also fetches the full schema of ${s.tools[0]?.name ?? 'no tool'} (_meta.names)`,
    `against a plain tools/list as the MCP face sends it (${s.plain_list_tokens} tokens, references inlined): ${s.client_saved_vs_plain_pct}% fewer, ${s.client_with_fetch_saved_vs_plain_pct}% with the fetch`,
  ].join('\n');
}

export async function run(argv: string[]): Promise<number> {
  let args: Args | 'help';
  let embedder: NonNullable<SelectOptions['embedder']> | undefined;
  try {
    args = parseArgs(argv);
    if (args !== 'help' && args.select) embedder = await embedderFromEnv();
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`parley tokens: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let text: string;
  try {
    text = await readFile(args.file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    process.stderr.write(`parley tokens: cannot read ${args.file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}\n`);
    return 2;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    process.stderr.write(`parley tokens: ${args.file} is not valid JSON: ${(e as Error).message}\n`);
    return 2;
  }
  let tools;
  try {
    tools = toolsFromList(doc);
  } catch (e) {
    if (!isParleyError(e)) throw e;
    process.stderr.write(`parley tokens: ${args.file} is not an MCP tool list: ${e.message}\n`);
    return 2;
  }
  progress('tokens', `counting o200k tokens of ${tools.length} tools, before and after each mechanism…`);
  const m = { ...measureTools(tools, args.baseUrl ? { baseUrl: args.baseUrl } : {}), tokens_no_refs: countTokens(wireTools(tools).tools) };
  process.stdout.write(`${renderTable(args.file, m)}\n`);
  let selected: SelectionFigures | undefined;
  if (args.select && embedder) {
    progress('tokens', 'selecting tools for the query…');
    selected = await selection(tools, { full: m.tokens_full, plain: m.tokens_no_refs }, args.select, embedder);
    process.stdout.write(`\n${renderSelection(selected, m.tokens_full)}\n`);
  }
  if (args.json) process.stdout.write(`${JSON.stringify({ file: args.file, ...m, ...(selected ? { selection: selected } : {}) })}\n`);
  return 0;
}
