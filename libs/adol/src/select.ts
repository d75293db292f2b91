/**
 * ADOL mechanism D (draft-chang §3.4 "Tool Selection Mechanism"): the client
 * says what it needs in its `tools/list` request and gets back only the tools
 * that serve it, instead of every tool's schema in the model's context (the
 * problem of §2.4 "Inefficient Tool Selection").
 *
 * The draft names two approaches, both here:
 *  1. semantic-based retrieval: embed the requirement, compare it with the
 *     precomputed embeddings of all tools, return the top K or those above a
 *     threshold (`embedder`, `topK`, `threshold`);
 *  2. tag-based retrieval: return the tools whose tags match (`tags`).
 *
 * What was measured and kept (GitHub MCP server, 86 tools, the queries of
 * bench/data/github-queries.json; figures in BENCHMARKS.md):
 *  - Tool and query vectors are IDF-weighted sums of word embeddings
 *    (`representation: 'words'`, after Arora et al. 2017, "A simple but
 *    tough-to-beat baseline for sentence embeddings"), the IDF taken over the
 *    tool list. Whole-text embeddings (`'text'`) let the words every GitHub tool
 *    shares ("repository", "owner") dominate short tool texts.
 *  - The cosine is fused with BM25 over the same tool text (`mode: 'hybrid'`),
 *    by a weighted sum: BM25 lifts exact rare words a general embedding smooths
 *    over ("dependabot", "gist") and improved recall@1; reciprocal-rank fusion
 *    was tried and gave a lower recall@1 at the same recall@5.
 *
 * Pure: the embedder is passed in (any object with `id` and `embed`, which the
 * `Embedder` of @parley/embeddings satisfies). No IO here.
 */
import { ParleyError } from '@parley/protocol';

export interface TextEmbedder {
  readonly id: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface ToolLike {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** Tags for tag-based selection (MCP tools carry none; Parley tools carry the scenario's tags). */
  tags?: string[];
  [k: string]: unknown;
}

/** How tools are ranked against the query. */
export type SelectMode = 'hybrid' | 'semantic' | 'lexical';

/** How a tool (and the query) becomes one vector. */
export type SelectRepresentation = 'words' | 'text';

export interface SelectOptions {
  /** Semantic selection: top K by similarity (default 5 when no threshold is given). */
  topK?: number;
  /** Semantic selection: keep only scores >= threshold. */
  threshold?: number;
  /** Tag-based selection: keep tools having any of these tags (an empty list filters nothing). */
  tags?: string[];
  embedder?: TextEmbedder;
  /**
   * Ranking: `hybrid` (default with an embedder) fuses the cosine with BM25,
   * `semantic` uses the cosine alone, `lexical` (default without an embedder)
   * BM25 alone and needs no embedder.
   */
  mode?: SelectMode;
  /**
   * `words` (default): IDF-weighted sum of the embeddings of the words, IDF over
   * the tool list; `text`: one embedding of the whole text. With the offline
   * embedder `words` is much better (BENCHMARKS.md); a sentence embedder may do
   * better with `text`.
   */
  representation?: SelectRepresentation;
  /** Hybrid only: weight of the cosine in `w·cosine + (1−w)·bm25/max(bm25)`. Default `DEFAULT_SEMANTIC_WEIGHT`. */
  semanticWeight?: number;
}

export interface ScoredTool<T extends ToolLike = ToolLike> {
  tool: T;
  /**
   * What `threshold` is compared with: the cosine (semantic), the fused score
   * (hybrid), BM25 over the best tool's BM25 for the query (lexical, in [0, 1]),
   * or the fraction of requested tags the tool has (tags alone).
   */
  score: number;
  /** The cosine of query and tool vectors, when an embedder ranked. */
  cosine?: number;
  /** BM25 of the query against the tool text over the best tool's BM25, in [0, 1], when BM25 ranked. */
  lexical?: number;
}

/** Cosine share of the hybrid score: best recall@1 and recall@5 on the GitHub dev queries among 0.5–1.0 (BENCHMARKS.md). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.9;
export const DEFAULT_TOP_K = 5;

const OPTION_KEYS: ReadonlySet<string> = new Set(['topK', 'threshold', 'tags', 'embedder', 'mode', 'representation', 'semanticWeight']);
const MODES: ReadonlySet<string> = new Set<SelectMode>(['hybrid', 'semantic', 'lexical']);
const REPRESENTATIONS: ReadonlySet<string> = new Set<SelectRepresentation>(['words', 'text']);

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function validate(opts: SelectOptions): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', 'selectTools: options must be an object');
  for (const k of Object.keys(opts)) {
    if (!OPTION_KEYS.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `selectTools: unknown option "${k}"`);
  }
  const { topK, threshold, tags, embedder, mode, representation, semanticWeight } = opts;
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 1)) throw invalid('opts.topK', 'minimum', 'selectTools: topK must be an integer >= 1');
  if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isFinite(threshold))) {
    throw invalid('opts.threshold', 'type', 'selectTools: threshold must be a finite number');
  }
  if (tags !== undefined && (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string'))) {
    throw invalid('opts.tags', 'type', 'selectTools: tags must be an array of strings');
  }
  if (embedder !== undefined && (typeof embedder !== 'object' || embedder === null || typeof embedder.embed !== 'function' || typeof embedder.id !== 'string')) {
    throw invalid('opts.embedder', 'type', 'selectTools: embedder must have an id and an embed(texts) method');
  }
  if (mode !== undefined && !MODES.has(mode)) throw invalid('opts.mode', 'enum', `selectTools: mode must be one of ${[...MODES].join(', ')}`);
  if (representation !== undefined && !REPRESENTATIONS.has(representation)) {
    throw invalid('opts.representation', 'enum', `selectTools: representation must be one of ${[...REPRESENTATIONS].join(', ')}`);
  }
  if (semanticWeight !== undefined && (typeof semanticWeight !== 'number' || !(semanticWeight >= 0 && semanticWeight <= 1))) {
    throw invalid('opts.semanticWeight', 'range', 'selectTools: semanticWeight must be in [0, 1]');
  }
  if ((mode === 'hybrid' || mode === 'semantic') && !embedder) {
    throw invalid('opts.embedder', 'required', `selectTools: mode "${mode}" needs an embedder`);
  }
}

// ---------------------------------------------------------------------------
// Tool text: what a tool is matched on.
// ---------------------------------------------------------------------------

/** Splits identifiers into words: `list_pull_requests` → "list pull requests", `pullNumber` → "pull Number". */
export function splitIdentifier(s: string): string {
  return s
    // Plural acronyms stay one word: PRs, APIs, IDs (not "P Rs").
    .replace(/\b([A-Z]{2,})s\b/g, (_m, a: string) => `${a.toLowerCase()}s`)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .trim();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The parts of a tool's text, each weighted on its own in the `words` representation. */
interface ToolFields {
  /** The name split into words, and the title. */
  name: string;
  description: string;
  /** Top-level input properties: name, description, string enum values. */
  properties: string;
}

function toolFields(tool: ToolLike): ToolFields {
  const name = [splitIdentifier(tool.name), typeof tool['title'] === 'string' ? tool['title'] : ''].join(' ').trim();
  const props = isRecord(tool.inputSchema) && isRecord(tool.inputSchema['properties']) ? tool.inputSchema['properties'] : {};
  const lines: string[] = [];
  for (const [prop, schema] of Object.entries(props)) {
    const bits = [splitIdentifier(prop)];
    if (isRecord(schema)) {
      if (typeof schema['description'] === 'string') bits.push(schema['description']);
      if (Array.isArray(schema['enum'])) bits.push(schema['enum'].filter((e): e is string => typeof e === 'string').map(splitIdentifier).join(' '));
    }
    lines.push(bits.join(': '));
  }
  return { name, description: typeof tool.description === 'string' ? tool.description : '', properties: lines.join('\n') };
}

/**
 * The text a tool is matched on (§3.4: "precomputed embeddings of all available
 * tools"): its name split into words and its title, its description, and for each
 * top-level input property its name, description and string enum values
 * (`method: create | update` says what a consolidated tool can do).
 */
export function toolText(tool: ToolLike): string {
  const f = toolFields(tool);
  return [f.name, f.description, f.properties].filter((x) => x.length > 0).join('\n');
}

/**
 * Weights of the fields in a tool's word vector: a word of the name says more
 * about what the tool does than one of a property description ("Repository
 * owner" is in 60 tools). Measured on the GitHub dev queries; 2/1/0.5 beat 1/1/1.
 */
const FIELD_WEIGHTS: Readonly<Record<keyof ToolFields, number>> = { name: 2, description: 1, properties: 0.5 };

// ---------------------------------------------------------------------------
// Words.
// ---------------------------------------------------------------------------

const STOP: ReadonlySet<string> = new Set(
  `a an and are as at be by can could do does for from has have how i if in into is it its me my of on or our please
  should so that the their them then there these this those to too us was we were what when where which who why will with
  would you your want like need some any all am`.split(/\s+/),
);

/** Lowercase words of a text, identifiers split, stop words dropped. */
function words(text: string): string[] {
  return splitIdentifier(text)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0 && !STOP.has(t));
}

/**
 * Abbreviations of tool-request language that BM25 would otherwise miss (an
 * embedder has its own). British spellings map to the American ones tool
 * descriptions use.
 */
const LEXICAL_ABBREVIATIONS: Readonly<Record<string, string>> = {
  pr: 'pull request',
  prs: 'pull requests',
  repo: 'repository',
  repos: 'repositories',
  org: 'organization',
  orgs: 'organizations',
  organisation: 'organization',
  organisations: 'organizations',
};

/** A light English stemmer (plural and verb endings), enough to meet "issues"/"issue", "merged"/"merge". */
function stem(w: string): string {
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(w)) return w;
  if (/(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s')) return w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3).replace(/(.)\1$/, '$1');
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2).replace(/(.)\1$/, '$1');
  return w;
}

/** BM25 terms: words, abbreviations expanded, stemmed. */
export function lexicalTerms(text: string): string[] {
  return words(text)
    // Own members only: a word such as "constructor" is not an abbreviation.
    .flatMap((t) => (Object.hasOwn(LEXICAL_ABBREVIATIONS, t) ? (LEXICAL_ABBREVIATIONS[t] as string) : t).split(' '))
    .map(stem);
}

// ---------------------------------------------------------------------------
// Lexical: BM25 (Robertson & Zaragoza 2009) over the tool text.
// ---------------------------------------------------------------------------

interface Bm25Index {
  docs: Map<string, number>[];
  lengths: number[];
  avgLength: number;
  df: Map<string, number>;
}

const K1 = 1.2;
const B = 0.75;

function buildBm25(texts: readonly string[]): Bm25Index {
  const docs = texts.map((t) => {
    const tf = new Map<string, number>();
    for (const term of lexicalTerms(t)) tf.set(term, (tf.get(term) ?? 0) + 1);
    return tf;
  });
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const df = new Map<string, number>();
  for (const d of docs) for (const term of d.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  return { docs, lengths, avgLength, df };
}

function bm25Scores(index: Bm25Index, query: string): number[] {
  const n = index.docs.length;
  const terms = [...new Set(lexicalTerms(query))];
  return index.docs.map((tf, i) => {
    let s = 0;
    const norm = K1 * (1 - B + (B * (index.lengths[i] as number)) / (index.avgLength || 1));
    for (const term of terms) {
      const f = tf.get(term);
      if (!f) continue;
      const df = index.df.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      s += (idf * f * (K1 + 1)) / (f + norm);
    }
    return s;
  });
}

// ---------------------------------------------------------------------------
// Caches per tool-list identity (§3.4: tool embeddings are precomputed, not per request).
// ---------------------------------------------------------------------------

interface WordIndex {
  /** Per tool: word → field-weighted term frequency. */
  docs: Map<string, number>[];
  /** Word → number of tools whose text has it. */
  df: Map<string, number>;
  vocabulary: string[];
}

interface ListCache {
  texts?: string[];
  bm25?: Bm25Index;
  words?: WordIndex;
  /** Tool vectors per `${representation}|${embedder id}`. Promises: concurrent first requests embed once. */
  vectors: Map<string, Promise<Float32Array[]>>;
}

/**
 * Keyed by the tools array itself: a list is embedded once per embedder for as
 * long as the caller holds it. Treat a list as immutable: a changed tool list
 * is a new array (as a new `tools/list` result is).
 */
const listCaches = new WeakMap<readonly ToolLike[], ListCache>();

function cacheFor(tools: readonly ToolLike[]): ListCache {
  let c = listCaches.get(tools);
  if (!c) {
    c = { vectors: new Map() };
    listCaches.set(tools, c);
  }
  return c;
}

function textsFor(tools: readonly ToolLike[], c: ListCache): string[] {
  c.texts ??= tools.map(toolText);
  return c.texts;
}

function wordIndexFor(tools: readonly ToolLike[], c: ListCache): WordIndex {
  if (!c.words) {
    const docs = tools.map((tool) => {
      const tf = new Map<string, number>();
      const fields = toolFields(tool);
      for (const field of Object.keys(FIELD_WEIGHTS) as (keyof ToolFields)[]) {
        for (const w of words(fields[field])) tf.set(w, (tf.get(w) ?? 0) + FIELD_WEIGHTS[field]);
      }
      return tf;
    });
    const df = new Map<string, number>();
    for (const d of docs) for (const w of d.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    c.words = { docs, df, vocabulary: [...df.keys()] };
  }
  return c.words;
}

/** Inverse document frequency over the tool list; a word no tool has gets the highest. */
function idf(index: WordIndex, word: string): number {
  return Math.log((index.docs.length + 1) / ((index.df.get(word) ?? 0) + 0.5));
}

async function embedChecked(embedder: TextEmbedder, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const vs = await embedder.embed(texts);
  if (!Array.isArray(vs) || vs.length !== texts.length || vs.some((v) => !(v instanceof Float32Array))) {
    throw new ParleyError('internal', `selectTools: embedder ${embedder.id} returned ${Array.isArray(vs) ? vs.length : 'no'} vectors for ${texts.length} texts`);
  }
  return vs;
}

/** Σ weight(w)·embedding(w); the caller's weights already hold the IDF. */
function weightedSum(weights: readonly number[], vectors: readonly Float32Array[], dim: number): Float32Array {
  const out = new Float32Array(dim);
  vectors.forEach((v, i) => {
    const k = weights[i] as number;
    if (k === 0) return;
    if (v.length !== dim) throw new ParleyError('internal', `selectTools: embedder vectors differ in length (${v.length} vs ${dim})`);
    for (let j = 0; j < dim; j++) out[j] = (out[j] as number) + k * (v[j] as number);
  });
  return out;
}

function toolVectors(tools: readonly ToolLike[], embedder: TextEmbedder, representation: SelectRepresentation): Promise<Float32Array[]> {
  const c = cacheFor(tools);
  const key = `${representation}|${embedder.id}`;
  let p = c.vectors.get(key);
  if (!p) {
    if (representation === 'text') {
      p = embedChecked(embedder, textsFor(tools, c));
    } else {
      const index = wordIndexFor(tools, c);
      p = embedChecked(embedder, index.vocabulary).then((vs) => {
        const byWord = new Map(index.vocabulary.map((w, i) => [w, vs[i] as Float32Array]));
        const dim = vs[0]?.length ?? 0;
        return index.docs.map((tf) => {
          const ws = [...tf.keys()];
          // Sublinear term frequency, as in BM25: a word said twice is not twice the evidence.
          const weights = ws.map((w) => {
            const f = tf.get(w) as number;
            return (f >= 1 ? 1 + Math.log(f) : f) * idf(index, w);
          });
          return weightedSum(weights, ws.map((w) => byWord.get(w) as Float32Array), dim);
        });
      });
    }
    // A failed embedding is not cached: the next request tries again.
    p.catch(() => c.vectors.delete(key));
    c.vectors.set(key, p);
  }
  return p;
}

async function queryVector(tools: readonly ToolLike[], query: string, embedder: TextEmbedder, representation: SelectRepresentation): Promise<Float32Array> {
  if (representation === 'text') return (await embedChecked(embedder, [query]))[0] as Float32Array;
  const index = wordIndexFor(tools, cacheFor(tools));
  let qs = [...new Set(words(query))];
  // A query of stop words only ("who am I?") keeps its words rather than becoming nothing.
  if (qs.length === 0) qs = [...new Set(splitIdentifier(query).toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0))];
  const vs = await embedChecked(embedder, qs);
  return weightedSum(
    qs.map((w) => idf(index, w)),
    vs,
    vs[0]?.length ?? 0,
  );
}

/** Cosine similarity of two vectors (0 when either is zero); the one definition Parley uses. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new ParleyError('internal', `cosine: vectors differ in length (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

// ---------------------------------------------------------------------------
// Selection.
// ---------------------------------------------------------------------------

type Scores = Omit<ScoredTool, 'tool'>;

/** Scores every tool of `tools` against `query` (no cut). Indices follow `tools`. */
async function scoreAll(tools: readonly ToolLike[], query: string, opts: SelectOptions): Promise<Scores[]> {
  const mode = opts.mode ?? (opts.embedder ? 'hybrid' : 'lexical');
  const representation = opts.representation ?? 'words';
  let cos: number[] | undefined;
  let lex: number[] | undefined;
  if (mode !== 'lexical') {
    const embedder = opts.embedder as TextEmbedder;
    const [vectors, q] = await Promise.all([toolVectors(tools, embedder, representation), queryVector(tools, query, embedder, representation)]);
    cos = vectors.map((v) => cosine(q, v));
  }
  if (mode !== 'semantic') {
    const c = cacheFor(tools);
    c.bm25 ??= buildBm25(textsFor(tools, c));
    const raw = bm25Scores(c.bm25, query);
    const max = Math.max(0, ...raw);
    lex = raw.map((s) => (max > 0 ? s / max : 0));
  }
  const w = opts.semanticWeight ?? DEFAULT_SEMANTIC_WEIGHT;
  return tools.map((_, i) => {
    const c = cos?.[i];
    const l = lex?.[i];
    const score = c === undefined ? (l as number) : l === undefined ? c : w * c + (1 - w) * l;
    return { score, ...(c !== undefined ? { cosine: c } : {}), ...(l !== undefined ? { lexical: l } : {}) };
  });
}

/**
 * Selects the tools of `tools` that serve `query` (draft-chang §3.4).
 *
 * - `tags` given: only tools having at least one of them are candidates
 *   (approach 2). With an empty `query` and no embedder or mode that is the
 *   whole answer: every matching tool, scored by the fraction of requested tags
 *   it has (best first), cut only by `threshold`/`topK` if given.
 * - Otherwise candidates are ranked against `query` (approach 1): best first,
 *   then cut to `threshold` (score >= threshold) and/or `topK`; with neither,
 *   the top `DEFAULT_TOP_K`.
 *
 * Ties keep the order of `tools`. Errors: `invalid_params` for an unknown or
 * malformed option or a missing query; whatever the embedder throws (e.g.
 * `unavailable`) passes through.
 */
export async function selectTools<T extends ToolLike>(tools: readonly T[], query: string, opts: SelectOptions = {}): Promise<ScoredTool<T>[]> {
  validate(opts);
  if (!Array.isArray(tools)) throw invalid('tools', 'type', 'selectTools: tools must be an array');
  if (typeof query !== 'string') throw invalid('query', 'type', 'selectTools: query must be a string');
  const wanted = opts.tags ? new Set(opts.tags) : undefined;
  const tagScore = (t: ToolLike): number => {
    if (!wanted || wanted.size === 0) return 1;
    const own = new Set(Array.isArray(t.tags) ? t.tags : []);
    return [...wanted].filter((x) => own.has(x)).length / wanted.size;
  };
  const candidates = wanted ? tools.filter((t) => tagScore(t) > 0) : [...tools];

  if (wanted !== undefined && query.trim() === '' && !opts.embedder && opts.mode === undefined) {
    const scored = stableSortDesc(candidates.map((tool) => ({ tool, score: tagScore(tool) })));
    return scored.filter((s) => opts.threshold === undefined || s.score >= opts.threshold).slice(0, opts.topK ?? scored.length);
  }
  if (query.trim() === '') throw invalid('query', 'required', 'selectTools: a query is needed to rank tools (or give only tags)');
  if (candidates.length === 0) return [];

  // Scored over the whole list, so IDF and the caches are those of the list whatever the tag filter.
  const all = await scoreAll(tools, query, opts);
  const position = new Map<ToolLike, number>(tools.map((t, i) => [t, i]));
  const scored = candidates.map((tool) => ({ tool, ...(all[position.get(tool) as number] as Scores) }));
  const ranked = stableSortDesc(scored).filter((s) => opts.threshold === undefined || s.score >= opts.threshold);
  const k = opts.topK ?? (opts.threshold === undefined ? DEFAULT_TOP_K : ranked.length);
  return ranked.slice(0, k);
}

function stableSortDesc<S extends { score: number }>(xs: S[]): S[] {
  return xs
    .map((x, i) => ({ x, i }))
    .sort((a, b) => b.x.score - a.x.score || a.i - b.i)
    .map(({ x }) => x);
}

// ---------------------------------------------------------------------------
// Evaluation: recall on a labelled query set (used by the tests and bench/tokens.ts).
// ---------------------------------------------------------------------------

export interface SelectionQuery {
  query: string;
  /** Name of the tool that should serve the query. */
  tool: string;
}

export interface SelectionEvaluation {
  /** Share of queries whose expected tool ranks first. */
  recall_at_1: number;
  /** Share of queries whose expected tool is in the top 5. */
  recall_at_5: number;
  /** Mean number of tools `selectTools` returns with the given options (what reaches the model). */
  mean_selected: number;
  /** Share of queries whose expected tool is among those returned with the given options. */
  recall_selected: number;
  queries: number;
  /** Queries whose expected tool is not in the top 5, with the rank it got (1-based). */
  misses: { query: string; tool: string; rank: number; top: string[] }[];
}

export async function evaluateSelection(tools: readonly ToolLike[], queries: readonly SelectionQuery[], opts: SelectOptions = {}): Promise<SelectionEvaluation> {
  validate(opts);
  const names = new Set(tools.map((t) => t.name));
  for (const [i, q] of queries.entries()) {
    if (!names.has(q.tool)) throw invalid(`queries[${i}].tool`, 'unknown_tool', `evaluateSelection: no tool named "${q.tool}" in the list`);
  }
  let at1 = 0;
  let at5 = 0;
  let selected = 0;
  let hit = 0;
  const misses: SelectionEvaluation['misses'] = [];
  for (const q of queries) {
    // Full ranking for recall@k, independent of the cut in opts.
    const ranking = await selectTools(tools, q.query, { ...opts, topK: tools.length, threshold: undefined });
    const rank = ranking.findIndex((s) => s.tool.name === q.tool) + 1;
    if (rank === 1) at1++;
    if (rank >= 1 && rank <= 5) at5++;
    else misses.push({ query: q.query, tool: q.tool, rank, top: ranking.slice(0, 5).map((s) => s.tool.name) });
    const chosen = await selectTools(tools, q.query, opts);
    selected += chosen.length;
    if (chosen.some((s) => s.tool.name === q.tool)) hit++;
  }
  const n = queries.length || 1;
  return { recall_at_1: at1 / n, recall_at_5: at5 / n, mean_selected: selected / n, recall_selected: hit / n, queries: queries.length, misses };
}
