/**
 * The ADOL request parameters of the MCP face (draft-chang §3), read from the
 * request's `params._meta`.
 *
 * Why `_meta`: MCP reserves it for extension data on every request, the
 * official SDK keeps it (its `_meta` schema is loose) while it strips unknown
 * top-level params, and a server that does not know ADOL ignores it. So a
 * Parley-aware client can send these to any MCP server without breaking, and a
 * standard client that sends none of them gets standard MCP. The names are the
 * draft's own (`short` for "tool/list --short" §3.2, `requireOutput` §3.3,
 * `query`/`top_k`/`tags` for the two retrieval approaches of §3.4), unprefixed,
 * because they are ADOL's vocabulary rather than Parley's.
 *
 * Other `_meta` members (progressToken, other extensions) are ignored.
 */
import { CLIENT_ID_PATTERN, ParleyError, TAG_PATTERN, parseIdempotencyKey } from '@parley/protocol';
import { MAX_TOOL_NAME_LENGTH } from './mcp-tools';

export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 100;
export const MAX_QUERY_LENGTH = 1024;
const MAX_TAGS = 32;
const MAX_FIELDS = 256;

/**
 * chang §3.1, how a tools/list may use `$ref`: `none` = no reference at all (every
 * schema inlined; the default, see DEFAULT_REFS); `local` = same-document
 * `#/$defs` refs inside each tool (MCP 2026-07-28, SEP-2106); `shared` = also
 * content-addressed documents the gateway serves at `/s/<hash>`.
 */
export type RefsMode = 'none' | 'local' | 'shared';
export const REFS_MODES: readonly RefsMode[] = ['none', 'local', 'shared'];
/**
 * The default is no references: many MCP clients hand a tool's inputSchema to a
 * model or validator without resolving `$ref`, and a stateless server cannot know
 * its client (no initialize/clientInfo reaches it with a tools/list), so only a
 * client that says it resolves them (`refs`) gets them.
 */
export const DEFAULT_REFS: RefsMode = 'none';

/** `tools/list` options: ADOL A (refs), B (short) and D (query + top_k, tags). */
export interface ListToolsOptions {
  short: boolean;
  refs: RefsMode;
  query?: string;
  topK: number;
  /** chang §3.4: `auto` (default) returns up to top_k tools, fewer when the best stand out; `fixed` exactly top_k. */
  cut?: 'auto' | 'fixed';
  /**
   * chang §3.4, the adaptive cut's rule (`min_k`, `cut_drop`, `cut_ratio`, `cut_gap`; adol's `autoCut`): at least
   * min_k tools; the others while within cut_drop standard deviations of the best, at least cut_ratio of the best's
   * score, and after no fall larger than cut_gap (one within the first min_k ends the list at min_k). Unset members
   * keep adol's defaults. min_k may not exceed top_k, and no member goes with cut "fixed" (both `invalid_params`).
   * The cut applies to an embedder's fused scores only: a gateway with no embedder ranks by BM25 alone and returns
   * exactly top_k (the rule is accepted and has no effect there).
   */
  autoCut?: { minK?: number; drop?: number; ratio?: number; gap?: number };
  tags?: string[];
  /**
   * chang §3.2 with §3.4: the tools of these names only, so that a client that received a selection in the short
   * view fetches the full schema of the one tool it calls, not the whole list. Not with query or tags (`exclusive`);
   * a name the catalogue does not hold is refused by the MCP face (`unknown_tool`), never silently dropped.
   */
  names?: string[];
}

/** Most tool names one `tools/list` may ask for (`_meta.names`). */
export const MAX_NAMES = 32;
/** Longest tool name accepted in `_meta.names`: the longest Parley emits (mcp-tools MAX_TOOL_NAME_LENGTH). */
const MAX_NAME_LENGTH = MAX_TOOL_NAME_LENGTH;
/** The characters of an MCP tool name (SEP-986), the only ones Parley's tool names use. */
const TOOL_NAME_CHARS = /^[A-Za-z0-9_.-]+$/;

/** `tools/call` options: ADOL C (requireOutput), and the caller's id for zhou §6.2.1 source counts. */
export interface CallToolOptions {
  requireOutput?: string[];
  clientId?: string;
  /** A safe retry of the call (`_meta.idempotency_key`): a repeat with the key answers once. */
  idempotencyKey?: string;
  /**
   * chang §3.4, selection that learns from use: the request this call serves (`_meta["dev.parley/request"]`), which
   * becomes a learned example of the tool for this client (adol UsageStore).
   */
  request?: string;
}

/** The `_meta` member of tools/call naming the request the call serves (reverse-DNS, as MCP asks of `_meta` keys). */
export const REQUEST_META_KEY = 'dev.parley/request';

const fail = (path: string, rule: string, message: string): never => {
  throw new ParleyError('invalid_params', message, { path, rule });
};

function metaObject(meta: unknown, base: string): Record<string, unknown> {
  if (meta === undefined || meta === null) return {};
  if (typeof meta !== 'object' || Array.isArray(meta)) fail(base, 'type', `${base} must be an object`);
  return meta as Record<string, unknown>;
}

function stringArray(v: unknown, path: string, max: number, each: (s: string, p: string) => void): string[] {
  if (!Array.isArray(v)) fail(path, 'type', `${path} must be an array of strings`);
  const arr = v as unknown[];
  if (arr.length > max) fail(path, 'max_items', `${path} must have at most ${max} entries`);
  const out: string[] = [];
  arr.forEach((x, i) => {
    const p = `${path}[${i}]`;
    if (typeof x !== 'string') fail(p, 'type', `${p} must be a string`);
    each(x as string, p);
    // The message names the entry by its path only: outside text (control characters, bidi overrides) never reaches it.
    if (out.includes(x as string)) fail(p, 'unique', `${p} repeats an earlier entry`);
    out.push(x as string);
  });
  return out;
}

/** Largest cut_drop / cut_gap accepted (standard deviations of the fused score; beyond a few nothing is cut). */
const MAX_CUT_SD = 100;

/** The `_meta` members of the adaptive cut's rule. */
const CUT_MEMBERS: readonly string[] = ['min_k', 'cut_drop', 'cut_ratio', 'cut_gap'];

/** `min_k`, `cut_drop`, `cut_ratio`, `cut_gap` of `params._meta` (each only with a query). */
function parseAutoCut(m: Record<string, unknown>, base: string, hasQuery: boolean): ListToolsOptions['autoCut'] {
  const rule: NonNullable<ListToolsOptions['autoCut']> = {};
  const member = (name: string): number | undefined => {
    const v = m[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${base}.${name}`, 'type', `${base}.${name} must be a number`);
    if (!hasQuery) fail(`${base}.${name}`, 'requires_query', `${base}.${name} only applies with ${base}.query`);
    return v as number;
  };
  const minK = member('min_k');
  if (minK !== undefined) {
    if (!Number.isInteger(minK) || minK < 1 || minK > MAX_TOP_K) fail(`${base}.min_k`, 'range', `${base}.min_k must be an integer between 1 and ${MAX_TOP_K}`);
    rule.minK = minK;
  }
  for (const [name, key] of [['cut_drop', 'drop'], ['cut_gap', 'gap']] as const) {
    const v = member(name);
    if (v === undefined) continue;
    if (v < 0 || v > MAX_CUT_SD) fail(`${base}.${name}`, 'range', `${base}.${name} must be between 0 and ${MAX_CUT_SD}`);
    rule[key] = v;
  }
  const ratio = member('cut_ratio');
  if (ratio !== undefined) {
    if (ratio < 0 || ratio > 1) fail(`${base}.cut_ratio`, 'range', `${base}.cut_ratio must be between 0 and 1`);
    rule.ratio = ratio;
  }
  return Object.keys(rule).length > 0 ? rule : undefined;
}

/** Parses the ADOL options of `tools/list` from `params._meta`; invalid values are `invalid_params` naming the member. */
export function parseListToolsMeta(meta: unknown, base = 'params._meta'): ListToolsOptions {
  const m = metaObject(meta, base);
  const out: ListToolsOptions = { short: false, refs: DEFAULT_REFS, topK: DEFAULT_TOP_K };
  if (m.short !== undefined && m.short !== null) {
    if (typeof m.short !== 'boolean') fail(`${base}.short`, 'type', `${base}.short must be a boolean`);
    out.short = m.short as boolean;
  }
  if (m.query !== undefined && m.query !== null) {
    const q = m.query;
    if (typeof q !== 'string') fail(`${base}.query`, 'type', `${base}.query must be a string`);
    if ((q as string).trim() === '') fail(`${base}.query`, 'non_empty', `${base}.query must not be empty`);
    if ((q as string).length > MAX_QUERY_LENGTH) fail(`${base}.query`, 'max_length', `${base}.query must be at most ${MAX_QUERY_LENGTH} characters`);
    out.query = q as string;
  }
  if (m.top_k !== undefined && m.top_k !== null) {
    const k = m.top_k;
    if (typeof k !== 'number' || !Number.isInteger(k)) fail(`${base}.top_k`, 'type', `${base}.top_k must be an integer`);
    if ((k as number) < 1 || (k as number) > MAX_TOP_K) fail(`${base}.top_k`, 'range', `${base}.top_k must be between 1 and ${MAX_TOP_K}`);
    if (out.query === undefined) fail(`${base}.top_k`, 'requires_query', `${base}.top_k only applies with ${base}.query`);
    out.topK = k as number;
  }
  if (m.cut !== undefined && m.cut !== null) {
    if (m.cut !== 'auto' && m.cut !== 'fixed') fail(`${base}.cut`, 'enum', `${base}.cut must be "auto" or "fixed"`);
    if (out.query === undefined) fail(`${base}.cut`, 'requires_query', `${base}.cut only applies with ${base}.query`);
    out.cut = m.cut as 'auto' | 'fixed';
  }
  const autoCut = parseAutoCut(m, base, out.query !== undefined);
  if (autoCut) {
    // A rule that cannot apply is refused rather than ignored: min_k above top_k (at most top_k come back), or any
    // member beside cut "fixed" (exactly top_k, no rule).
    if (autoCut.minK !== undefined && autoCut.minK > out.topK) fail(`${base}.min_k`, 'range', `${base}.min_k (${autoCut.minK}) must not exceed ${base}.top_k (${out.topK})`);
    if (out.cut === 'fixed') {
      const name = CUT_MEMBERS.find((n) => m[n] !== undefined && m[n] !== null) as string;
      fail(`${base}.${name}`, 'requires_auto_cut', `${base}.${name} only applies with ${base}.cut "auto" (cut "fixed" returns exactly top_k)`);
    }
    out.autoCut = autoCut;
  }
  if (m.refs !== undefined && m.refs !== null) {
    if (!(REFS_MODES as readonly unknown[]).includes(m.refs)) fail(`${base}.refs`, 'enum', `${base}.refs must be one of ${REFS_MODES.map((x) => `"${x}"`).join(', ')}`);
    out.refs = m.refs as RefsMode;
  }
  if (m.tags !== undefined && m.tags !== null) {
    out.tags = stringArray(m.tags, `${base}.tags`, MAX_TAGS, (s, p) => {
      if (!TAG_PATTERN.test(s) || s.length > 64) fail(p, 'pattern', `${p} must be a lowercase tag (letters, digits, "_" and "-")`);
    });
  }
  if (m.names !== undefined && m.names !== null) {
    const path = `${base}.names`;
    const clash = out.query !== undefined ? 'query' : out.tags ? 'tags' : undefined;
    if (clash) fail(path, 'exclusive', `${path} asks for tools by name; it does not go with ${base}.${clash}`);
    out.names = stringArray(m.names, path, MAX_NAMES, (s, p) => {
      if (s === '' || s.length > MAX_NAME_LENGTH) fail(p, 'length', `${p} must be a tool name of 1 to ${MAX_NAME_LENGTH} characters`);
      if (!TOOL_NAME_CHARS.test(s)) fail(p, 'pattern', `${p} must be a tool name (letters, digits, "_", "." and "-")`);
    });
    if (out.names.length === 0) fail(path, 'non_empty', `${path} must name at least one tool`);
  }
  return out;
}

/** Parses the ADOL options of `tools/call` from `params._meta`. */
export function parseCallToolMeta(meta: unknown, base = 'params._meta'): CallToolOptions {
  const m = metaObject(meta, base);
  const out: CallToolOptions = {};
  if (m.requireOutput !== undefined && m.requireOutput !== null) {
    out.requireOutput = stringArray(m.requireOutput, `${base}.requireOutput`, MAX_FIELDS, (s, p) => {
      if (s === '') fail(p, 'non_empty', `${p} must not be empty`);
    });
    if (out.requireOutput.length === 0) fail(`${base}.requireOutput`, 'non_empty', `${base}.requireOutput must name at least one field`);
  }
  if (m.client_id !== undefined && m.client_id !== null) {
    const c = m.client_id;
    if (typeof c !== 'string' || !CLIENT_ID_PATTERN.test(c) || c.length > 128) {
      fail(`${base}.client_id`, 'pattern', `${base}.client_id must be 1-128 letters, digits and _ . : @ -`);
    }
    out.clientId = c as string;
  }
  const key = parseIdempotencyKey(m.idempotency_key, `${base}.idempotency_key`);
  if (key !== undefined) out.idempotencyKey = key;
  const request = Object.prototype.hasOwnProperty.call(m, REQUEST_META_KEY) ? m[REQUEST_META_KEY] : undefined;
  if (request !== undefined && request !== null) {
    const path = `${base}["${REQUEST_META_KEY}"]`;
    if (typeof request !== 'string') fail(path, 'type', `${path} must be a string`);
    if ((request as string).trim() === '') fail(path, 'non_empty', `${path} must not be empty`);
    if ((request as string).length > MAX_QUERY_LENGTH) fail(path, 'max_length', `${path} must be at most ${MAX_QUERY_LENGTH} characters`);
    out.request = request as string;
  }
  return out;
}

/** Largest number of example requests kept per tool, and their length. */
const MAX_EXAMPLES = 32;
const MAX_EXAMPLE_LENGTH = 512;

/**
 * Example requests an operator attaches to Parley's tools for selection (chang
 * §3.4): a JSON object mapping a tool name (`<agent>__<scenario_id>`) to an array
 * of requests a user would phrase for it, e.g.
 * `{"skyways-air__flight_booking": ["get me to Shanghai on Monday"]}`. They join the
 * tool's text for selection only (never the listed tool). A Map: tool names are
 * outside strings. Malformed input is `invalid_params` naming the member and rule.
 */
export function parseToolExamples(doc: unknown, base = 'tool_examples'): Map<string, string[]> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail(base, 'type', `${base} must be an object mapping tool names to arrays of example requests`);
  const out = new Map<string, string[]>();
  for (const name of Object.keys(doc as object)) {
    const path = `${base}[${JSON.stringify(name)}]`;
    const v = (doc as Record<string, unknown>)[name];
    const examples = stringArray(v, path, MAX_EXAMPLES, (x, p) => {
      if (x.trim() === '') fail(p, 'non_empty', `${p} must not be empty`);
      if (x.length > MAX_EXAMPLE_LENGTH) fail(p, 'max_length', `${p} must be at most ${MAX_EXAMPLE_LENGTH} characters`);
    });
    out.set(name, examples);
  }
  return out;
}
