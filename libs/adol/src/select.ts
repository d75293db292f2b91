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
 * A tool is represented by fields, each weighted on its own: its name split into
 * words (and title), its description, its input schema's field names, descriptions
 * and enum values (nested ones too), and example requests attached to it
 * (`_meta["dev.parley/examples"]`, or `examples` on a Parley tool). A request is
 * ranked against them by several rankers, each robust in its own way:
 *  - `bm25`: BM25 over the tool text (exact rare words: "dependabot", "gist");
 *  - `dense`: the cosine of IDF-weighted sums of word embeddings (after Arora et
 *    al. 2017), or of whole-text embeddings (`representation: 'text'`);
 *  - `match`: soft word matching, each request word against its most similar
 *    word of the tool (late interaction, as ColBERT), through the embedder, so a
 *    paraphrase word ("folder") meets the tool's word ("directory") even where a
 *    sum of vectors would drown it; the action word of the request (its first
 *    content word, usually the verb) is matched against the tool name's words
 *    and counts double, so "rename the file" prefers move_file over read_file;
 *  - `examples`: the closest example request of a tool, where tools have them (attached by the operator; learned
 *    ones are not a ranker but a margin added after fusion: `learnedBoost`);
 *  - `values`: values the request holds (a URL, paths, a key name, a time...)
 *    against the shapes of value each tool's parameters take (values.ts), IDF
 *    over the list; only where the request holds one;
 *  - `concepts`: word senses, with a `lexicon` (concepts.ts): the request's words
 *    no tool name uses, as WordNet synsets, BM25 against the concepts of the
 *    tools' name words, its verb and object ("tick" meets "check_item");
 *  - `params` (opt-in): the input schema's field words read as senses (the tool's object), against the
 *    request's words no tool name uses;
 *  - `action`: verb–object structure (action.ts), the request's verb
 *    against each tool's act through the lexicon's verb senses, derivations and
 *    one troponym step ("relocate" meets move_file).
 * A description is read as its first sentence (what the tool does) and usage
 * notes after it, which weigh a quarter in the dense vector.
 * `match` is not fused by default (`DEFAULT_RANKERS`): with the offline embedder
 * `match` changed no development figure, while costing a similarity per request word
 * and vocabulary word. `action` is on by default since round 15 (a tool act's first-sense hypernym met by the
 * request's own sense, entailment, the two- and three-word verbs WordNet lists): with the offline embedder it brings
 * the gold tool inside the adaptive cut more often (dev 464 → 474 of 624; recall@1 254 → 264) for about 4% more
 * tokens per request (BENCHMARKS.md round 15).
 * `concepts` and `action` need a lexicon, which no default supplies.
 * The rankers are fused by standardising each one's scores over the list and
 * averaging them (`fusion: 'zscore'`): no weight is tuned to one list, every
 * ranker counts alike (`values` at 1.5, `concepts` at half: BENCHMARKS.md) whatever the scale of its scores, and the fused score says
 * how many standard deviations a tool stands above the list, which the adaptive
 * cut uses to return fewer tools when the best ones stand out. Reciprocal-rank
 * fusion (`'rrf'`, Cormack et al. 2009) and the former fixed mix of cosine and
 * BM25 (`'linear'`) remain as options; BENCHMARKS.md compares them.
 *
 * Pure: the embedder is passed in (any object with `id` and `embed`, which the
 * `Embedder` of @parley/embeddings satisfies: the offline one, an OpenAI-compatible
 * endpoint or a transformers.js sentence model). No IO here.
 */
import { ParleyError } from '@parley/protocol';
import type { SelectLexicon } from './concepts';
import { actionIndex, actionScores, actionWords, VERB_READING, type ActionIndex } from './action';
import { parameterShapes, readsOnly, requestValues, valueScores, type ValueShape } from './values';

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
  /** Example requests this tool serves (Parley's own tools; MCP tools carry them in `_meta["dev.parley/examples"]`). */
  examples?: string[];
  [k: string]: unknown;
}

/** The `_meta` member of an MCP tool that holds example requests for selection (reverse-DNS, as MCP asks of `_meta` keys). */
export const EXAMPLES_META_KEY = 'dev.parley/examples';

/** How tools are ranked against the query. */
export type SelectMode = 'hybrid' | 'semantic' | 'lexical';

/** How a tool (and the query) becomes one vector for the `dense` ranker. */
export type SelectRepresentation = 'words' | 'text';

/** How the rankers' scores become one. */
export type SelectFusion = 'rrf' | 'zscore' | 'linear';

/** The rankers fused in `hybrid` and `semantic` modes (BM25 only in `hybrid`; `examples` only where tools have them). */
export type SelectRanker = 'bm25' | 'dense' | 'match' | 'examples' | 'values' | 'concepts' | 'action' | 'gloss' | 'params';
/**
 * `match` (soft word matching with the action word against tool names) is left out by
 * default: with the offline embedder it did not change recall on any development set
 * (BENCHMARKS.md); it is there for embedders whose word similarities are denser. `action` is in (round 15),
 * scoring only when the lexicon has verb readings.
 */
export const DEFAULT_RANKERS: readonly SelectRanker[] = ['bm25', 'dense', 'examples', 'values', 'concepts', 'action'];

/** The adaptive cut's rule (`SelectOptions.autoCut`). */
export interface AutoCut {
  /** Fewest tools returned (when there are that many); default 1. */
  minK?: number;
  /** Standard deviations below the best beyond which a tool is left out (default `AUTO_CUT_SD`). */
  drop?: number;
  /** Fraction of the best's fused score below which a tool is left out (0 = off, the default); only when the best is above the mean. */
  ratio?: number;
  /**
   * Largest fall between two consecutive tools' fused scores; the tools after a larger one are left out (default
   * off). A larger fall within the first `minK` tools ends the list at `minK`.
   */
  gap?: number;
}

/** How many ranked tools are returned: `fixed` (`topK`), or `auto` (up to `topK`, fewer when the rest score far below the best). */
export type SelectCut = 'auto' | 'fixed';

export interface SelectOptions {
  /** Semantic selection: top K by similarity (default 5 when no threshold is given). */
  topK?: number;
  /** Keep only scores >= threshold (the fused score, see `ScoredTool.score`). */
  threshold?: number;
  /** Tag-based selection: keep tools having any of these tags (an empty list filters nothing). */
  tags?: string[];
  embedder?: TextEmbedder;
  /**
   * Ranking: `hybrid` (default with an embedder) fuses BM25 with the embedder's
   * rankers, `semantic` uses the embedder's rankers alone, `lexical` (default
   * without an embedder) BM25 alone and needs no embedder.
   */
  mode?: SelectMode;
  /**
   * `words` (default): the dense ranker sums word embeddings, IDF over the tool
   * list; `text`: one embedding of the whole text (for a sentence model). The
   * soft word matching ranker works on words either way.
   */
  representation?: SelectRepresentation;
  /**
   * `zscore` (default): each ranker's scores standardised over the list (mean 0,
   * standard deviation 1) and averaged; `rrf`: reciprocal-rank fusion, Σ 1/(60 + rank);
   * `linear`: the former fixed mix of the dense cosine and BM25 (`semanticWeight`).
   */
  fusion?: SelectFusion;
  /** The rankers to fuse (`zscore` and `rrf`); default `DEFAULT_RANKERS`. */
  rankers?: SelectRanker[];
  /**
   * `auto` (default where it applies: an embedder's rankers fused by `zscore`): up to
   * `topK` tools, less those more than `AUTO_CUT_SD` standard deviations below the
   * best; `fixed`: exactly `topK` (what `threshold` leaves).
   */
  cut?: SelectCut;
  /**
   * The adaptive cut's rule (`cut: 'auto'`), every member optional: at least `minK`, at most `topK`; within
   * those, a tool is kept while its fused score is within `drop` standard deviations of the best, at least
   * `ratio` times the best's (the fused score is centred on the list's mean, so this is a fraction of how far
   * the best stands out), and no gap of more than `gap` between two consecutive tools lies above it.
   * Defaults: `DEFAULT_AUTO_CUT`.
   */
  autoCut?: AutoCut;
  /** `linear` fusion only: weight of the cosine in `w·cosine + (1−w)·bm25/max(bm25)`. Default `DEFAULT_SEMANTIC_WEIGHT`. */
  semanticWeight?: number;
  /**
   * Word senses (`wordNetLexicon` over a WordNet reader): the `concepts` ranker matches the
   * request's words with the tool's name and description words by shared sense ("tick" ~
   * "check"), BM25 over concept ids. Fused with the embedder's rankers (`zscore`, `rrf`).
   */
  lexicon?: SelectLexicon;
  /**
   * Example requests learned from use (usage.ts `UsageStore.examples`), by tool name (§3.4, selection that learns
   * from use; `zscore` fusion with an embedder only). Not a ranker of the fusion: a tool whose learned example (with
   * the request's act) is closer to the request than every tool's own text gains that margin, in standard deviations
   * of the dense cosines, times LEARNED_WEIGHT (`learnedBoost`); with no such example the answer is exactly the one
   * without learning. A name the list does not hold is ignored. The list's caches are those of `tools`; only the
   * learned texts are embedded (cached per list).
   */
  learnedExamples?: ReadonlyMap<string, readonly string[]>;
}

export interface ScoredTool<T extends ToolLike = ToolLike> {
  tool: T;
  /**
   * What `threshold` is compared with: the fused score (`zscore`: the mean of the
   * rankers' standardised scores; `rrf`: Σ 1/(60 + rank); `linear`: the mix), BM25
   * over the best tool's BM25 (lexical, in [0, 1]), or the fraction of requested
   * tags the tool has (tags alone).
   */
  score: number;
  /** The cosine of query and tool vectors (the dense ranker), when an embedder ranked. */
  cosine?: number;
  /** BM25 of the query against the tool text over the best tool's BM25, in [0, 1], when BM25 ranked. */
  lexical?: number;
  /** Soft word matching, in [0, 1], when an embedder ranked. */
  match?: number;
}

/** Cosine share of the `linear` fusion (the former default). */
export const DEFAULT_SEMANTIC_WEIGHT = 0.9;
export const DEFAULT_TOP_K = 5;
/** The constant of reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009 use 60). */
export const RRF_K = 60;
/** Standardised-score fusion: every ranker counts alike on every list, and the fused score has a scale the cut can use. */
export const DEFAULT_FUSION: SelectFusion = 'zscore';
/**
 * The adaptive cut (`cut: 'auto'`): a tool whose fused score is more than this many
 * standard deviations below the best one's is left out. 1.5 keeps 2.6 tools a request
 * on average over the development sets (BENCHMARKS.md), against 5 for a fixed top 5.
 */
export const AUTO_CUT_SD = 1.5;
/** The adaptive cut's default rule (BENCHMARKS.md, "the adaptive cut, configurable"). */
export const DEFAULT_AUTO_CUT: Readonly<Required<AutoCut>> = Object.freeze({ minK: 1, drop: AUTO_CUT_SD, ratio: 0, gap: Number.POSITIVE_INFINITY });

/**
 * The adaptive cut over scores ranked best first (`cut: 'auto'`): how many of them to keep (at most `maxK`, an
 * integer >= 0). Pure, so a bench can try rules over one ranking. A `maxK` or rule `selectTools` would refuse is
 * `invalid_params` (rule `type` or `range`, as for `selectTools`).
 */
export function autoCutLength(ranked: readonly number[], maxK: number, rule: AutoCut = {}): number {
  if (typeof maxK !== 'number' || Number.isNaN(maxK)) throw invalid('maxK', 'type', 'autoCutLength: maxK must be a number');
  if (!Number.isInteger(maxK) || maxK < 0) throw invalid('maxK', 'range', 'autoCutLength: maxK must be an integer >= 0');
  validateAutoCut(rule);
  const minK = rule.minK ?? DEFAULT_AUTO_CUT.minK;
  const drop = rule.drop ?? DEFAULT_AUTO_CUT.drop;
  const ratio = rule.ratio ?? DEFAULT_AUTO_CUT.ratio;
  const gap = rule.gap ?? DEFAULT_AUTO_CUT.gap;
  const n = Math.min(maxK, ranked.length);
  if (n === 0) return 0;
  const best = ranked[0] as number;
  // A fall larger than `gap` leaves out every tool after it, even when it lies within the first minK (then minK are kept).
  let fell = false;
  let k = 1;
  while (k < n) {
    const s = ranked[k] as number;
    fell ||= (ranked[k - 1] as number) - s > gap;
    if (k >= minK && (fell || s < best - drop || (ratio > 0 && best > 0 && s < ratio * best))) break;
    k++;
  }
  return k;
}
/**
 * Weight of the `values` ranker in the `zscore` fusion (the others weigh 1): 1.5 lost no development set's
 * recall@5 against 1 with either offline embedder (WordNet features alone, and with word vectors) and gained one
 * request on GitHub (WordNet) or GitLab (word vectors); BENCHMARKS.md.
 */
export const VALUES_WEIGHT = 1.5;
/** Weight of the `concepts` ranker in the `zscore` fusion. */
export const CONCEPTS_WEIGHT = 0.5;
/** Weight of the `action` ranker (verb–object structure, action.ts) in the `zscore` fusion: one for every list. */
export const ACTION_WEIGHT = 0.5;
/** Fusion weight of the `gloss` ranker (definitions: looser evidence than a shared sense). */
export const GLOSS_WEIGHT = 0.25;
/**
 * Fusion weight of the `params` ranker (the object a tool's parameters name, read as senses; opt-in): as `concepts`.
 * Not on by default: on dev it gained GitHub's no-shared-word queries and lost GitHub word-sharing ones and GitLab
 * (BENCHMARKS.md, fifth round).
 */
export const PARAMS_WEIGHT = 0.5;

/** `auto` applies with the `zscore` fusion of an embedder's rankers (the only scores on a common scale); otherwise `fixed`. */
function cutOf(opts: SelectOptions): SelectCut {
  const fused = (opts.mode ?? (opts.embedder ? 'hybrid' : 'lexical')) !== 'lexical' && (opts.fusion ?? DEFAULT_FUSION) === 'zscore';
  return fused ? (opts.cut ?? 'auto') : 'fixed';
}

const OPTION_KEYS: ReadonlySet<string> = new Set(['topK', 'threshold', 'tags', 'embedder', 'lexicon', 'mode', 'representation', 'fusion', 'rankers', 'cut', 'autoCut', 'semanticWeight', 'learnedExamples']);
const AUTO_CUT_KEYS: ReadonlySet<string> = new Set(['minK', 'drop', 'ratio', 'gap']);

function validateAutoCut(rule: unknown): void {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) throw invalid('opts.autoCut', 'type', 'selectTools: autoCut must be an object');
  for (const k of Object.keys(rule)) if (!AUTO_CUT_KEYS.has(k)) throw invalid(`opts.autoCut.${k}`, 'unknown_option', `selectTools: unknown autoCut member "${k}"`);
  const { minK, drop, ratio, gap } = rule as AutoCut;
  // As the gateway names them (tools/list `_meta` min_k, cut_*): `type` for what is not a number, `range` for a number
  // out of bounds (a fractional minK included).
  for (const [name, v] of [['minK', minK], ['drop', drop], ['gap', gap], ['ratio', ratio]] as const) {
    if (v !== undefined && (typeof v !== 'number' || Number.isNaN(v))) throw invalid(`opts.autoCut.${name}`, 'type', `selectTools: autoCut.${name} must be a number`);
  }
  if (minK !== undefined && !(Number.isInteger(minK) && minK >= 1)) throw invalid('opts.autoCut.minK', 'range', 'selectTools: autoCut.minK must be an integer >= 1');
  for (const [name, v] of [['drop', drop], ['gap', gap]] as const) {
    if (v !== undefined && v < 0) throw invalid(`opts.autoCut.${name}`, 'range', `selectTools: autoCut.${name} must be >= 0`);
  }
  if (ratio !== undefined && !(ratio >= 0 && ratio <= 1)) throw invalid('opts.autoCut.ratio', 'range', 'selectTools: autoCut.ratio must be in [0, 1]');
}
const RANKERS: ReadonlySet<string> = new Set<SelectRanker>(['bm25', 'dense', 'match', 'examples', 'values', 'concepts', 'action', 'gloss', 'params']);
const CUTS: ReadonlySet<string> = new Set<SelectCut>(['auto', 'fixed']);
const MODES: ReadonlySet<string> = new Set<SelectMode>(['hybrid', 'semantic', 'lexical']);
const REPRESENTATIONS: ReadonlySet<string> = new Set<SelectRepresentation>(['words', 'text']);
const FUSIONS: ReadonlySet<string> = new Set<SelectFusion>(['rrf', 'zscore', 'linear']);

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function validate(opts: SelectOptions): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', 'selectTools: options must be an object');
  for (const k of Object.keys(opts)) {
    if (!OPTION_KEYS.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `selectTools: unknown option "${k}"`);
  }
  const { topK, threshold, tags, embedder, lexicon, mode, representation, fusion, rankers, cut, semanticWeight } = opts;
  if (lexicon !== undefined && (typeof lexicon !== 'object' || lexicon === null || typeof lexicon.concepts !== 'function' || typeof lexicon.id !== 'string')) {
    throw invalid('opts.lexicon', 'type', 'selectTools: lexicon must have an id and a concepts(word) method');
  }
  if (lexicon?.actions !== undefined && typeof lexicon.actions !== 'function') throw invalid('opts.lexicon', 'type', 'selectTools: lexicon.actions must be a method');
  if (rankers !== undefined) {
    if (!Array.isArray(rankers) || rankers.length === 0) throw invalid('opts.rankers', 'type', 'selectTools: rankers must be a non-empty array');
    rankers.forEach((r, i) => {
      if (!RANKERS.has(r)) throw invalid(`opts.rankers[${i}]`, 'enum', `selectTools: a ranker is one of ${[...RANKERS].join(', ')}`);
    });
  }
  if (opts.learnedExamples !== undefined && !(opts.learnedExamples instanceof Map)) throw invalid('opts.learnedExamples', 'type', 'selectTools: learnedExamples must be a Map of tool name to example requests');
  if (cut !== undefined && !CUTS.has(cut)) throw invalid('opts.cut', 'enum', `selectTools: cut must be one of ${[...CUTS].join(', ')}`);
  if (opts.autoCut !== undefined) validateAutoCut(opts.autoCut);
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
  if (fusion !== undefined && !FUSIONS.has(fusion)) throw invalid('opts.fusion', 'enum', `selectTools: fusion must be one of ${[...FUSIONS].join(', ')}`);
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

/**
 * UTF-16 units of a request or tool text that selection reads; the rest is
 * ignored, so a hostile text cannot make ranking slow.
 */
export const MAX_SELECTION_TEXT_CHARS = 16_384;

/** The first `MAX_SELECTION_TEXT_CHARS` units of `s`, a surrogate pair never split. */
function head(s: string): string {
  if (s.length <= MAX_SELECTION_TEXT_CHARS) return s;
  const c = s.charCodeAt(MAX_SELECTION_TEXT_CHARS - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? MAX_SELECTION_TEXT_CHARS - 1 : MAX_SELECTION_TEXT_CHARS);
}

/** Splits identifiers into words: `list_pull_requests` → "list pull requests", `pullNumber` → "pull Number". */
export function splitIdentifier(s: string): string {
  return head(s)
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

/** The parts of a tool's text, each weighted on its own. */
interface ToolFields {
  /** The name split into words, and the title. */
  name: string;
  /** The description's first sentence: what the tool does. */
  description: string;
  /** The rest of the description: usage notes ("Only works within allowed directories"). */
  notes: string;
  /** Input fields at any depth: name, description, string enum values. */
  properties: string;
  /** Example requests attached to the tool. */
  examples: string;
}

/** The example requests of a tool: `examples` (Parley's tools) and `_meta["dev.parley/examples"]` (any MCP tool). */
export function toolExamples(tool: ToolLike): string[] {
  const out: string[] = [];
  const add = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x.trim() !== '') out.push(x);
  };
  add(tool.examples);
  const meta = tool['_meta'];
  if (isRecord(meta) && Object.prototype.hasOwnProperty.call(meta, EXAMPLES_META_KEY)) add(meta[EXAMPLES_META_KEY]);
  return out;
}

/** Field names, descriptions and string enum values of an input schema, depth-first (properties, items, composition branches). */
function schemaLines(schema: unknown, lines: string[], depth: number): void {
  if (!isRecord(schema) || depth > 4 || lines.length > 200) return;
  const props = schema['properties'];
  if (isRecord(props)) {
    for (const prop of Object.keys(props)) {
      const sub = props[prop];
      const bits = [splitIdentifier(prop)];
      if (isRecord(sub)) {
        if (typeof sub['description'] === 'string') bits.push(sub['description']);
        if (Array.isArray(sub['enum'])) bits.push(sub['enum'].filter((e): e is string => typeof e === 'string').map(splitIdentifier).join(' '));
      }
      lines.push(bits.join(': '));
      schemaLines(sub, lines, depth + 1);
    }
  }
  if (isRecord(schema['items'])) schemaLines(schema['items'], lines, depth + 1);
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[k];
    if (Array.isArray(branches)) for (const b of branches) schemaLines(b, lines, depth + 1);
  }
}

/** A description's first sentence (to a full stop, ! or ? followed by white space) and the rest. Linear, no pattern. */
function leadAndNotes(d: string): { description: string; notes: string } {
  for (let i = 0; i + 1 < d.length; i++) {
    const c = d[i];
    if ((c === '.' || c === '!' || c === '?') && /\s/.test(d[i + 1] as string)) return { description: d.slice(0, i + 1), notes: d.slice(i + 1).trim() };
  }
  return { description: d, notes: '' };
}

function toolFields(tool: ToolLike): ToolFields {
  const name = [splitIdentifier(tool.name), typeof tool['title'] === 'string' ? tool['title'] : ''].join(' ').trim();
  const lines: string[] = [];
  schemaLines(tool.inputSchema, lines, 0);
  return {
    name,
    ...leadAndNotes(typeof tool.description === 'string' ? head(tool.description) : ''),
    properties: lines.join('\n'),
    examples: toolExamples(tool).join('\n'),
  };
}

/**
 * The text a tool is matched on (§3.4: "precomputed embeddings of all available
 * tools"): its name split into words and its title, its description, its input
 * fields (name, description and string enum values, nested ones too: `method:
 * create | update` says what a consolidated tool can do) and its example requests.
 */
export function toolText(tool: ToolLike): string {
  const f = toolFields(tool);
  return [f.name, f.description, f.notes, f.properties, f.examples].filter((x) => x.length > 0).join('\n');
}

/**
 * Weights of the fields in a tool's word vector: a word of the name says more
 * about what the tool does than one of a property description ("Repository
 * owner" is in 60 tools); an example request is a user's words for the tool.
 * A description's first sentence says what the tool does; the rest are usage
 * notes whose words ("Only works within allowed directories", "Returns a
 * git-style diff showing the changes") say little about which request it serves
 * and, in a list whose tools share them, pull unrelated requests to the wordiest
 * tools: a quarter of the lead's weight (BENCHMARKS.md; BM25 still reads them all).
 */
const FIELD_WEIGHTS: Readonly<Record<keyof ToolFields, number>> = { name: 2, description: 1, notes: 0.25, properties: 0.5, examples: 1 };
/** The same, as the ceiling of a word's soft match in the `match` ranker (its best field counts). */
const MATCH_FIELD_WEIGHTS: Readonly<Record<keyof ToolFields, number>> = { name: 1, description: 0.8, notes: 0.5, properties: 0.5, examples: 0.8 };
const FIELDS = Object.keys(FIELD_WEIGHTS) as (keyof ToolFields)[];

// ---------------------------------------------------------------------------
// Words.
// ---------------------------------------------------------------------------

const STOP: ReadonlySet<string> = new Set(
  `a an and are as at be by can could do does for from has have how i if in into is it its me my of on or our please
  should so that the their them then there these this those to too us was we were what when where which who why will with
  would you your want like need some any all am`.split(/\s+/),
);

/** Lowercase words of a text (letters and digits of any script; its first MAX_SELECTION_TEXT_CHARS units), identifiers split, stop words dropped. */
function words(text: string): string[] {
  return splitIdentifier(head(text))
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0 && !STOP.has(t));
}

/**
 * Abbreviations of tool-request language that BM25 would otherwise miss (an
 * embedder has its own). British spellings map to the American ones tool
 * descriptions use. A Map: the words come from requests and tools, and a word
 * such as "constructor" must not find Object.prototype's member.
 */
const LEXICAL_ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['pr', 'pull request'],
  ['prs', 'pull requests'],
  ['repo', 'repository'],
  ['repos', 'repositories'],
  ['org', 'organization'],
  ['orgs', 'organizations'],
  ['organisation', 'organization'],
  ['organisations', 'organizations'],
]);

/**
 * A light English stemmer (plural and verb endings), enough to meet "issues"/"issue", "merged"/"merge"; a final
 * "e" is dropped after, as Porter's step 5 does, so "staged", "stage" and "staging" meet, and "changed" meets
 * "changes" ("chang" all).
 */
function stem(w: string): string {
  const s = stemEndings(w);
  return s.length > 3 && s.endsWith('e') && !s.endsWith('ee') ? s.slice(0, -1) : s;
}

function stemEndings(w: string): string {
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(w)) return w;
  if (/(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s')) return w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) return w.slice(0, -3).replace(/(.)\1$/, '$1');
  if (w.endsWith('ed') && w.length > 4) return w.slice(0, -2).replace(/(.)\1$/, '$1');
  return w;
}

/** Scripts written without spaces (Han, Kana, Thai, …): a run of them is many words. */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * A word of a spaceless script as BM25 terms: its character bigrams (a single
 * character stays itself), the usual segmentation-free indexing of Chinese and
 * Japanese; any other word unchanged.
 */
function spacelessTerms(w: string): string[] {
  if (!SPACELESS.test(w)) return [w];
  const cps = [...w];
  if (cps.length < 2) return cps;
  const out: string[] = [];
  for (let i = 0; i + 1 < cps.length; i++) out.push(`${cps[i]}${cps[i + 1]}`);
  return out;
}

/** BM25 terms: words, abbreviations expanded, stemmed; spaceless-script words as character bigrams. */
export function lexicalTerms(text: string): string[] {
  return words(text)
    .flatMap((t) => (LEXICAL_ABBREVIATIONS.get(t) ?? t).split(' '))
    .flatMap(spacelessTerms)
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
  return bm25Of(texts.map(lexicalTerms));
}

/** A BM25 index over documents given as terms. */
function bm25Of(termLists: readonly (readonly string[])[]): Bm25Index {
  const docs = termLists.map((terms) => {
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    return tf;
  });
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const df = new Map<string, number>();
  for (const d of docs) for (const term of d.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  return { docs, lengths, avgLength, df };
}

function bm25Scores(index: Bm25Index, query: string): number[] {
  return bm25TermScores(index, lexicalTerms(query));
}

function bm25TermScores(index: Bm25Index, queryTerms: readonly string[]): number[] {
  const n = index.docs.length;
  const terms = [...new Set(queryTerms)];
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
  /** Per tool: word → the largest `MATCH_FIELD_WEIGHTS` of the fields it occurs in. */
  best: Map<string, number>[];
  /** Per tool: the words of its name (what the request's action word is matched with). */
  names: Set<string>[];
  /** Word → number of tools whose text has it. */
  df: Map<string, number>;
  vocabulary: string[];
  /** Word → its index in `vocabulary`. */
  position: Map<string, number>;
  /** Per tool: its example requests. */
  examples: string[][];
}

interface WordVectors {
  /** Per tool: the dense vector (IDF-weighted sum of its words, or its whole-text embedding). */
  tools: Float32Array[];
  /** The vocabulary's word embeddings, in `WordIndex.vocabulary` order. */
  words: Float32Array[];
  /** Per tool, per example: its dense vector. */
  examples: Float32Array[][];
}

interface ListCache {
  texts?: string[];
  bm25?: Bm25Index;
  words?: WordIndex;
  /** BM25 over concept ids of the tools' name and description words, per lexicon id (the `concepts` ranker). */
  concepts?: Map<string, Bm25Index>;
  /** The acts of the tools (verb concepts of name and description verbs), per lexicon id (the `action` ranker). */
  actions?: Map<string, ActionIndex>;
  /** Per lexicon id: BM25 over the definition words of the tools' name words, and over the name words themselves (the `gloss` ranker). */
  glosses?: Map<string, { definitions: Bm25Index; nameTerms: Set<string> }>;
  /** Per lexicon id: BM25 over concept ids of the words of the tools' input-schema fields (the `params` ranker). */
  params?: Map<string, Bm25Index>;
  /** Per tool: the shapes of value its parameters take (the `values` ranker). */
  shapes?: Set<ValueShape>[];
  /** Vectors per `${representation}|${embedder id}`. Promises: concurrent first requests embed once. */
  vectors: Map<string, Promise<WordVectors>>;
  /** Learned example requests' vectors (§3.4, learned.ts), per `${representation}|${embedder id}\u0000${text}`; bounded. */
  learned?: Map<string, Float32Array>;
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
    const docs: Map<string, number>[] = [];
    const best: Map<string, number>[] = [];
    const names: Set<string>[] = [];
    const examples: string[][] = [];
    for (const tool of tools) {
      const tf = new Map<string, number>();
      const top = new Map<string, number>();
      const fields = toolFields(tool);
      for (const field of FIELDS) {
        for (const w of words(fields[field])) {
          tf.set(w, (tf.get(w) ?? 0) + FIELD_WEIGHTS[field]);
          top.set(w, Math.max(top.get(w) ?? 0, MATCH_FIELD_WEIGHTS[field]));
        }
      }
      docs.push(tf);
      best.push(top);
      names.push(new Set(words(fields.name)));
      examples.push(toolExamples(tool));
    }
    const df = new Map<string, number>();
    for (const d of docs) for (const w of d.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    const vocabulary = [...df.keys()];
    c.words = { docs, best, names, df, vocabulary, position: new Map(vocabulary.map((w, i) => [w, i])), examples };
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

/** The dense vector of a text from word embeddings (IDF over the list; sublinear term frequency, as in BM25). */
function wordsVector(index: WordIndex, tf: ReadonlyMap<string, number>, byWord: (w: string) => Float32Array | undefined, dim: number): Float32Array {
  const ws = [...tf.keys()].filter((w) => byWord(w) !== undefined);
  const weights = ws.map((w) => {
    const f = tf.get(w) as number;
    return (f >= 1 ? 1 + Math.log(f) : f) * idf(index, w);
  });
  return weightedSum(weights, ws.map((w) => byWord(w) as Float32Array), dim);
}

function termFrequencies(ws: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const w of ws) tf.set(w, (tf.get(w) ?? 0) + 1);
  return tf;
}

function listVectors(tools: readonly ToolLike[], embedder: TextEmbedder, representation: SelectRepresentation): Promise<WordVectors> {
  const c = cacheFor(tools);
  const key = `${representation}|${embedder.id}`;
  let p = c.vectors.get(key);
  if (!p) {
    const index = wordIndexFor(tools, c);
    const exampleWords = index.examples.flatMap((ex) => ex.flatMap(words)).filter((w) => !index.position.has(w));
    const extra = [...new Set(exampleWords)];
    p = (async (): Promise<WordVectors> => {
      const vs = await embedChecked(embedder, [...index.vocabulary, ...extra]);
      const dim = vs[0]?.length ?? 0;
      const byWordMap = new Map<string, Float32Array>();
      [...index.vocabulary, ...extra].forEach((w, i) => byWordMap.set(w, vs[i] as Float32Array));
      const byWord = (w: string): Float32Array | undefined => byWordMap.get(w);
      const wordVecs = index.vocabulary.map((w) => byWordMap.get(w) as Float32Array);
      let toolVecs: Float32Array[];
      let exampleVecs: Float32Array[][];
      if (representation === 'text') {
        const flat = index.examples.flat();
        const [tv, ev] = await Promise.all([embedChecked(embedder, textsFor(tools, c)), embedChecked(embedder, flat)]);
        toolVecs = tv;
        let at = 0;
        exampleVecs = index.examples.map((ex) => ex.map(() => ev[at++] as Float32Array));
      } else {
        toolVecs = index.docs.map((tf) => wordsVector(index, tf, byWord, dim));
        exampleVecs = index.examples.map((ex) => ex.map((e) => wordsVector(index, termFrequencies(words(e)), byWord, dim)));
      }
      return { tools: toolVecs, words: wordVecs, examples: exampleVecs };
    })();
    // A failed embedding is not cached: the next request tries again.
    p.catch(() => c.vectors.delete(key));
    c.vectors.set(key, p);
  }
  return p;
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
// Rankers and fusion.
// ---------------------------------------------------------------------------

/** The query's content words, or its words when it has nothing but stop words ("who am I?"). */
function queryWords(query: string): string[] {
  const qs = [...new Set(words(query))];
  return qs.length > 0 ? qs : [...new Set(splitIdentifier(head(query)).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0))];
}

interface EmbedderScores {
  dense: number[];
  /** Undefined unless the `match` ranker is asked for. */
  match?: number[];
  /** Undefined when no tool of the list has example requests. */
  examples?: number[];
  /** The request's dense vector (what learned examples are compared with). */
  qdense: Float32Array;
}

async function embedderScores(tools: readonly ToolLike[], query: string, embedder: TextEmbedder, representation: SelectRepresentation, withMatch: boolean): Promise<EmbedderScores> {
  const c = cacheFor(tools);
  const index = wordIndexFor(tools, c);
  const qs = queryWords(query);
  const [vectors, qvs, qtext] = await Promise.all([
    listVectors(tools, embedder, representation),
    embedChecked(embedder, qs),
    representation === 'text' ? embedChecked(embedder, [query]) : Promise.resolve([] as Float32Array[]),
  ]);
  // A request with no word at all (punctuation only) still gets a vector of the list's dimension.
  const dim = qvs[0]?.length ?? vectors.words[0]?.length ?? vectors.tools[0]?.length ?? 0;
  const byQuery = new Map(qs.map((w, i) => [w, qvs[i] as Float32Array]));
  const qdense = representation === 'text' ? (qtext[0] as Float32Array) : wordsVector(index, termFrequencies(qs), (w) => byQuery.get(w), dim);
  const dense = vectors.tools.map((v) => cosine(qdense, v));

  const hasExamples = vectors.examples.some((e) => e.length > 0);
  const examples = hasExamples ? vectors.examples.map((ex) => ex.reduce((m, v) => Math.max(m, cosine(qdense, v)), 0)) : undefined;
  if (!withMatch) return { dense, qdense, ...(examples ? { examples } : {}) };

  // Soft matching: similarity of each query word to each vocabulary word, once per query.
  const qIdf = qs.map((w) => idf(index, w));
  const sims = qs.map((w, i) => {
    const qv = qvs[i] as Float32Array;
    const own = index.position.get(w);
    return vectors.words.map((v, j) => (j === own ? 1 : Math.max(0, cosine(qv, v))));
  });
  // The action word: the first content word of the request, usually its verb ("rename", "show").
  const action = 0;
  const match = index.best.map((best, t) => {
    let s = 0;
    let total = 0;
    qs.forEach((_, i) => {
      const row = sims[i] as number[];
      let m = 0;
      for (const [w, weight] of best) {
        const x = (row[index.position.get(w) as number] as number) * weight;
        if (x > m) m = x;
      }
      let k = qIdf[i] as number;
      if (i === action && qs.length > 1) {
        // Verb–object: the action word counts double, and only the tool's name can answer it fully.
        let n = 0;
        for (const w of index.names[t] as Set<string>) n = Math.max(n, row[index.position.get(w) as number] as number);
        m = Math.max(m * 0.5, n);
        k *= 2;
      }
      s += k * m;
      total += k;
    });
    return total > 0 ? s / total : 0;
  });
  return { dense, qdense, match, ...(examples ? { examples } : {}) };
}

/**
 * The `concepts` ranker: BM25 of the request's concepts against each tool's name concepts
 * (verb and object: what the tool does to what; a description's other words only blurred it on dev).
 */
function conceptScores(tools: readonly ToolLike[], query: string, lexicon: SelectLexicon): number[] {
  const c = cacheFor(tools);
  c.concepts ??= new Map();
  let index = c.concepts.get(lexicon.id);
  if (!index) {
    index = bm25Of(
      wordIndexFor(tools, c).names.map((ws) => [...ws].flatMap((w) => lexicon.concepts(w))),
    );
    c.concepts.set(lexicon.id, index);
  }
  // Only the request's words no tool name uses are read as senses: a name word is BM25's evidence already, and its
  // other senses would only blur it. A word only descriptions use ("make" in "Make line-based edits") is still read:
  // the concepts are those of the names, which BM25 over descriptions does not reach ("make a folder" ~ create_directory).
  const names = new Set(wordIndexFor(tools, c).names.flatMap((ws) => [...ws].flatMap(lexicalTerms)));
  const unknown = [...new Set(words(query))].filter((w) => !lexicalTerms(w).some((t) => names.has(t)));
  return bm25TermScores(index, unknown.flatMap((w) => lexicon.concepts(w)));
}

/** The `action` ranker (action.ts): the request's verbs against each tool's act, through the lexicon's verb senses. */
function actionRanker(tools: readonly ToolLike[], query: string, lexicon: SelectLexicon): number[] {
  const c = cacheFor(tools);
  c.actions ??= new Map();
  let index = c.actions.get(lexicon.id);
  if (!index) {
    index = actionIndex(
      tools.map((t) => words(typeof t.name === 'string' ? t.name : '')),
      // The description read as the request is (phrasal verbs joined: "Fill out an input field" → fill_out).
      tools.map((t) => actionWords(typeof t.description === 'string' ? t.description.slice(0, 512) : '', lexicon, STOP)),
      lexicon,
    );
    c.actions.set(lexicon.id, index);
  }
  return actionScores(index, actionWords(query, lexicon, STOP), lexicon);
}

/**
 * The `gloss` ranker (draft-chang §3.4, a tool's own terms read through their definitions; opt-in): a request word
 * meets a tool when it occurs in the dictionary definition of one of the tool's name words ("remove" in delete's
 * "remove or make invisible"; "store" in memory's definitions). BM25 over stemmed definition words, so a definition
 * word many tools carry counts little. Only the request's words no tool name uses are read, as in `concepts`. The
 * other direction (a name word inside the request word's definition) was tried and left out (BENCHMARKS.md).
 */
function glossScores(tools: readonly ToolLike[], query: string, lexicon: SelectLexicon): number[] {
  const glossWords = lexicon.glossWords?.bind(lexicon);
  if (!glossWords) return tools.map(() => 0);
  const c = cacheFor(tools);
  c.glosses ??= new Map();
  let index = c.glosses.get(lexicon.id);
  if (!index) {
    const names = wordIndexFor(tools, c).names.map((ws) => [...ws]);
    const terms = (ws: readonly string[]): string[] => ws.filter((w) => !STOP.has(w)).flatMap(lexicalTerms);
    index = {
      definitions: bm25Of(names.map((ws) => terms(ws.flatMap((w) => glossWords(w))))),
      nameTerms: new Set(names.flatMap((ws) => terms(ws))),
    };
    c.glosses.set(lexicon.id, index);
  }
  const nameTerms = index.nameTerms;
  // Definitions hold lowercase Latin words only: any other request word (a spaceless run, a 16 KiB token) cannot meet one.
  const unknown = [...new Set(words(query))]
    .filter((w) => w.length <= 40 && /^[a-z]+$/.test(w))
    .map((w) => lexicalTerms(w))
    .filter((ts) => !ts.some((t) => nameTerms.has(t)));
  return bm25TermScores(index.definitions, unknown.flat());
}

/**
 * The `params` ranker (draft-chang §3.4, the input schema as evidence of a tool's object; opt-in): the words of a
 * tool's input-schema fields (names split, descriptions, string enum values, nested ones too) read as WordNet senses and
 * derivations, BM25 over concept ids against the request's words no tool name uses, as `concepts` does for names
 * ("note" meets git_commit's `message`, "folder" a `directory` field). A concept every tool's fields have is dropped
 * before indexing, so a field every tool has counts nothing.
 */
function paramScores(tools: readonly ToolLike[], query: string, lexicon: SelectLexicon): number[] {
  const c = cacheFor(tools);
  c.params ??= new Map();
  let index = c.params.get(lexicon.id);
  if (!index) {
    const lists = tools.map((t) => {
      const lines: string[] = [];
      schemaLines(t.inputSchema, lines, 0);
      return [...new Set(words(lines.join(' ').slice(0, MAX_SELECTION_TEXT_CHARS)))].filter((w) => !STOP.has(w)).flatMap((w) => lexicon.concepts(w));
    });
    // A concept every tool has tells no tool apart; left in, its small idf and the lengths it adds would favour the
    // shortest schema once the fusion standardises the scores. It is dropped before indexing.
    const df = new Map<string, number>();
    for (const l of lists) for (const t of new Set(l)) df.set(t, (df.get(t) ?? 0) + 1);
    index = bm25Of(lists.map((l) => l.filter((t) => (df.get(t) as number) < tools.length)));
    c.params.set(lexicon.id, index);
  }
  const names = new Set(wordIndexFor(tools, c).names.flatMap((ws) => [...ws].flatMap(lexicalTerms)));
  const unknown = [...new Set(words(query))].filter((w) => !STOP.has(w) && !lexicalTerms(w).some((t) => names.has(t)));
  return bm25TermScores(index, unknown.flatMap((w) => lexicon.concepts(w)));
}

/** Ranks (1 = best; ties share the best rank of their group). */
function ranksOf(scores: readonly number[]): number[] {
  const order = scores.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
  const ranks = new Array<number>(scores.length);
  let rank = 0;
  order.forEach((o, pos) => {
    if (pos === 0 || o.s !== order[pos - 1]!.s) rank = pos + 1;
    ranks[o.i] = rank;
  });
  return ranks;
}

function rrf(rankers: readonly (readonly number[])[], n: number): number[] {
  const out = new Array<number>(n).fill(0);
  for (const scores of rankers) {
    const r = ranksOf(scores);
    for (let i = 0; i < n; i++) out[i] = (out[i] as number) + 1 / (RRF_K + (r[i] as number));
  }
  return out;
}

/** The mean over rankers of each tool's standardised score (how many standard deviations above the list's mean). */
function zmean(rankers: readonly (readonly number[])[], n: number, weights?: readonly number[]): number[] {
  const out = new Array<number>(n).fill(0);
  rankers.forEach((scores, r) => {
    const mean = scores.reduce((a, b) => a + b, 0) / Math.max(1, n);
    const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n));
    if (sd === 0) return;
    const w = weights?.[r] ?? 1;
    for (let i = 0; i < n; i++) out[i] = (out[i] as number) + (w * ((scores[i] as number) - mean)) / sd / rankers.length;
  });
  return out;
}

// ---------------------------------------------------------------------------
// Learned examples (draft-chang §3.4, selection that learns from use: usage.ts).
// ---------------------------------------------------------------------------

/**
 * Weight of a learned example's margin (how much closer the request is to it than to the closest tool text), in
 * standard deviations of the dense ranker's cosines, added to the fused score (BENCHMARKS.md, chosen on dev).
 */
export const LEARNED_WEIGHT = 1;
/** Most learned examples read per tool (usage.ts keeps fewer by default; a hand-made Map is bounded too). */
const MAX_LEARNED_PER_TOOL = 64;
/** Most learned example vectors kept per list (cleared when full). */
const MAX_LEARNED_VECTORS = 4096;

/** The act of a request: its first word that reads as a verb (action.ts), else its first content word. */
function actOf(text: string, lexicon: SelectLexicon | undefined): string | undefined {
  if (!lexicon?.actions) return words(text)[0];
  const ws = actionWords(text, lexicon, STOP).slice(0, 16);
  for (const w of ws) if ((lexicon.actions(w)?.verbal ?? 0) >= VERB_READING) return w;
  return ws[0];
}

/**
 * Whether two acts agree: the same word or stem, or (with a lexicon) a shared verb concept. A learned example that
 * shares the request's object but not its act ("jot down the meeting notes" for "read the meeting notes") is no
 * evidence for its tool. A side without an act says nothing against.
 */
function actsAgree(a: string | undefined, b: string | undefined, lexicon: SelectLexicon | undefined): boolean {
  if (a === undefined || b === undefined || a === b || stem(a) === stem(b)) return true;
  const ca = lexicon?.actions?.(a)?.concepts;
  const cb = lexicon?.actions?.(b)?.concepts;
  if (!Array.isArray(ca) || !Array.isArray(cb)) return false;
  const ids = new Set(ca.map((c) => c.id));
  return cb.some((c) => ids.has(c.id));
}

/** The dense vectors of learned example requests, as the list's own examples are embedded; cached per list. */
async function learnedVectors(tools: readonly ToolLike[], embedder: TextEmbedder, representation: SelectRepresentation, texts: readonly string[]): Promise<Map<string, Float32Array>> {
  const c = cacheFor(tools);
  const key = `${representation}|${embedder.id}\u0000`;
  const cache = (c.learned ??= new Map());
  const out = new Map<string, Float32Array>();
  const missing: string[] = [];
  for (const t of new Set(texts)) {
    const v = cache.get(key + t);
    if (v) out.set(t, v);
    else missing.push(t);
  }
  if (missing.length === 0) return out;
  let vs: Float32Array[];
  if (representation === 'text') vs = await embedChecked(embedder, missing);
  else {
    const vectors = await listVectors(tools, embedder, representation);
    const index = wordIndexFor(tools, c);
    const extra = [...new Set(missing.flatMap(words))].filter((w) => !index.position.has(w));
    const ev = await embedChecked(embedder, extra);
    const byExtra = new Map(extra.map((w, i) => [w, ev[i] as Float32Array]));
    const byWord = (w: string): Float32Array | undefined => {
      const at = index.position.get(w);
      return at !== undefined ? vectors.words[at] : byExtra.get(w);
    };
    const dim = vectors.tools[0]?.length ?? ev[0]?.length ?? 0;
    vs = missing.map((t) => wordsVector(index, termFrequencies(words(t)), byWord, dim));
  }
  if (cache.size + missing.length > MAX_LEARNED_VECTORS) cache.clear();
  missing.forEach((t, i) => {
    cache.set(key + t, vs[i] as Float32Array);
    out.set(t, vs[i] as Float32Array);
  });
  return out;
}

/**
 * What learned examples add to each tool's fused score (§3.4), or undefined when they add nothing (the fused scores
 * and so the adaptive cut stay exactly as without learning). Per tool: its closest learned example whose act agrees
 * with the request's, by how much closer the request is to it than to the closest tool's own text (the best dense
 * cosine), in standard deviations of the dense cosines, times LEARNED_WEIGHT; 0 when not closer. A margin counts by
 * its size: z-scoring a ranker with one non-zero value made any margin a full boost.
 */
async function learnedBoost(tools: readonly ToolLike[], read: string, opts: SelectOptions, emb: EmbedderScores): Promise<number[] | undefined> {
  const learned = opts.learnedExamples;
  if (!learned || learned.size === 0 || !opts.embedder) return undefined;
  const act = actOf(read, opts.lexicon);
  const per = tools.map((t) => {
    const xs = typeof t.name === 'string' ? learned.get(t.name) : undefined;
    if (!Array.isArray(xs)) return [];
    return xs.slice(0, MAX_LEARNED_PER_TOOL).filter((x): x is string => typeof x === 'string' && actsAgree(act, actOf(x, opts.lexicon), opts.lexicon));
  });
  if (per.every((xs) => xs.length === 0)) return undefined;
  const n = emb.dense.length;
  const mean = emb.dense.reduce((a, b) => a + b, 0) / Math.max(1, n);
  const sd = Math.sqrt(emb.dense.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n));
  if (!(sd > 0)) return undefined;
  const vecs = await learnedVectors(tools, opts.embedder, opts.representation ?? 'words', per.flat());
  const floor = Math.max(...emb.dense);
  const boost = per.map((xs) => {
    const best = xs.reduce((m, x) => Math.max(m, cosine(emb.qdense, vecs.get(x) as Float32Array)), Number.NEGATIVE_INFINITY);
    return best > floor ? (LEARNED_WEIGHT * (best - floor)) / sd : 0;
  });
  return boost.some((b) => b > 0) ? boost : undefined;
}

// ---------------------------------------------------------------------------
// Selection.
// ---------------------------------------------------------------------------

type Scores = Omit<ScoredTool, 'tool'>;

/** Scores every tool of `tools` against `query` (no cut). Indices follow `tools`. */
async function scoreAll(tools: readonly ToolLike[], query: string, opts: SelectOptions): Promise<Scores[]> {
  const mode = opts.mode ?? (opts.embedder ? 'hybrid' : 'lexical');
  const representation = opts.representation ?? 'words';
  const fusion = opts.fusion ?? DEFAULT_FUSION;
  let emb: EmbedderScores | undefined;
  let lex: number[] | undefined;
  const use = new Set(opts.rankers ?? DEFAULT_RANKERS);
  // Values in the request (a URL, paths, a key name) are evidence for the parameters that take them,
  // and a file's kind ("image" for a .jpg) is read as one more word of the request.
  const values = requestValues(query);
  const read = values.words.length > 0 ? `${query}\n${values.words.join(' ')}` : query;
  if (mode !== 'lexical') emb = await embedderScores(tools, read, opts.embedder as TextEmbedder, representation, fusion !== 'linear' && use.has('match'));
  if (mode !== 'semantic') {
    const c = cacheFor(tools);
    c.bm25 ??= buildBm25(textsFor(tools, c));
    const raw = bm25Scores(c.bm25, read);
    const max = Math.max(0, ...raw);
    lex = raw.map((s) => (max > 0 ? s / max : 0));
  }
  const n = tools.length;
  let fused: number[];
  if (!emb) fused = lex as number[];
  else if (fusion === 'linear') {
    const w = opts.semanticWeight ?? DEFAULT_SEMANTIC_WEIGHT;
    fused = emb.dense.map((c, i) => (lex ? w * c + (1 - w) * (lex[i] as number) : c));
  } else {
    const rankers: number[][] = [];
    const weights: number[] = [];
    if (use.has('dense')) rankers.push(emb.dense);
    if (emb.match) rankers.push(emb.match);
    if (use.has('examples') && emb.examples) rankers.push(emb.examples);
    if (use.has('bm25') && lex) rankers.push(lex);
    if (use.has('concepts') && opts.lexicon) {
      const v = conceptScores(tools, read, opts.lexicon);
      if (v.some((x) => x !== 0)) {
        rankers.push(v);
        weights[rankers.length - 1] = CONCEPTS_WEIGHT;
      }
    }
    if (use.has('action') && opts.lexicon?.actions) {
      const v = actionRanker(tools, read, opts.lexicon);
      if (v.some((x) => x !== 0)) {
        rankers.push(v);
        weights[rankers.length - 1] = ACTION_WEIGHT;
      }
    }
    if (use.has('gloss') && opts.lexicon?.glossWords) {
      const v = glossScores(tools, read, opts.lexicon);
      if (v.some((x) => x !== 0)) {
        rankers.push(v);
        weights[rankers.length - 1] = GLOSS_WEIGHT;
      }
    }
    if (use.has('params') && opts.lexicon) {
      const v = paramScores(tools, read, opts.lexicon);
      if (v.some((x) => x !== 0)) {
        rankers.push(v);
        weights[rankers.length - 1] = PARAMS_WEIGHT;
      }
    }
    if (use.has('values') && values.shapes.size > 0) {
      const c = cacheFor(tools);
      c.shapes ??= tools.map((t) => {
        const shapes = parameterShapes(t.inputSchema, typeof t.name === 'string' ? t.name : '');
        if (readsOnly(t)) shapes.add('question');
        return shapes;
      });
      const v = valueScores(c.shapes, values.shapes);
      if (v.some((x) => x !== 0)) {
        rankers.push(v);
        weights[rankers.length - 1] = VALUES_WEIGHT;
      }
    }
    // Nothing left to fuse (e.g. only `examples` on a list without any): the dense cosine ranks.
    if (rankers.length === 0) rankers.push(emb.dense);
    fused = fusion === 'rrf' ? rrf(rankers, n) : zmean(rankers, n, weights);
    // Learned examples (§3.4, selection that learns from use): added after fusion, only where one is closer to the
    // request than every tool's own text; nothing else changes (the other rankers' scale, the adaptive cut).
    if (fusion === 'zscore' && opts.learnedExamples) {
      const boost = await learnedBoost(tools, read, opts, emb);
      if (boost) fused = fused.map((s, i) => s + (boost[i] as number));
    }
  }
  return tools.map((_, i) => ({
    score: fused[i] as number,
    ...(emb ? { cosine: emb.dense[i] as number } : {}),
    ...(emb?.match ? { match: emb.match[i] as number } : {}),
    ...(lex ? { lexical: lex[i] as number } : {}),
  }));
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
  const top = ranked.slice(0, k);
  // The adaptive cut: on standardised scores, tools far below the best are not worth their tokens.
  if (cutOf(opts) === 'auto' && top.length > 0) return top.slice(0, autoCutLength(top.map((s) => s.score), k, opts.autoCut));
  return top;
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
  /** The tool that should serve the query, or the tools any of which would (alternatives). */
  tool: string | readonly string[];
}

export interface SelectionEvaluation {
  /** Share of queries whose expected tool (any alternative) ranks first. */
  recall_at_1: number;
  /** Share of queries whose expected tool is in the top 5. */
  recall_at_5: number;
  /** Mean reciprocal rank of the best-ranked expected tool. */
  mrr: number;
  /** Mean number of tools `selectTools` returns with the given options (what reaches the model). */
  mean_selected: number;
  /** Share of queries whose expected tool is among those returned with the given options. */
  recall_selected: number;
  queries: number;
  /** Per query, in order: the rank of its best-ranked expected tool (1-based). */
  ranks: number[];
  /** Queries whose expected tool is not in the top 5, with the rank it got (1-based). */
  misses: { query: string; tool: string; rank: number; top: string[] }[];
}

export async function evaluateSelection(tools: readonly ToolLike[], queries: readonly SelectionQuery[], opts: SelectOptions = {}): Promise<SelectionEvaluation> {
  validate(opts);
  const names = new Set(tools.map((t) => t.name));
  const expectedOf = (q: SelectionQuery): readonly string[] => (typeof q.tool === 'string' ? [q.tool] : q.tool);
  for (const [i, q] of queries.entries()) {
    const expected = expectedOf(q);
    if (expected.length === 0) throw invalid(`queries[${i}].tool`, 'required', 'evaluateSelection: a query needs an expected tool');
    for (const t of expected) if (!names.has(t)) throw invalid(`queries[${i}].tool`, 'unknown_tool', `evaluateSelection: no tool named "${t}" in the list`);
  }
  let at1 = 0;
  let at5 = 0;
  let rr = 0;
  let selected = 0;
  let hit = 0;
  const ranks: number[] = [];
  const misses: SelectionEvaluation['misses'] = [];
  for (const q of queries) {
    const expected = new Set(expectedOf(q));
    // Full ranking for recall@k, independent of the cut in opts.
    const ranking = await selectTools(tools, q.query, { ...opts, topK: tools.length, threshold: undefined, cut: 'fixed' });
    const rank = ranking.findIndex((s) => expected.has(s.tool.name)) + 1;
    ranks.push(rank);
    if (rank >= 1) rr += 1 / rank;
    if (rank === 1) at1++;
    if (rank >= 1 && rank <= 5) at5++;
    else misses.push({ query: q.query, tool: [...expected].join('|'), rank, top: ranking.slice(0, 5).map((s) => s.tool.name) });
    const chosen = await selectTools(tools, q.query, opts);
    selected += chosen.length;
    if (chosen.some((s) => expected.has(s.tool.name))) hit++;
  }
  const n = queries.length || 1;
  return { recall_at_1: at1 / n, recall_at_5: at5 / n, mrr: rr / n, mean_selected: selected / n, recall_selected: hit / n, queries: queries.length, ranks, misses };
}
