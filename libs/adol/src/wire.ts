/**
 * What Parley's MCP face sends, and the one way its token figures are compared
 * (draft-chang §3.1, §3.2, §3.4).
 */
import { dedupTools, type SharedSchema } from './dedup';
import { inlineToolRefs } from './inline';
import { shortView } from './optional';
import type { McpTool } from './tool';

/**
 * Percent fewer tokens than `baseline`, to one decimal, for `total` tokens over `count` requests: computed on the
 * unrounded mean, so every column measured over the same requests rounds the same way (a figure from a mean
 * rounded to whole tokens first can differ by a few tenths on a small list).
 */
export function savedPct(baseline: number, total: number, count = 1): number {
  if (baseline <= 0 || count <= 0) return 0;
  return Math.round(((baseline - total / count) / baseline) * 1000) / 10;
}

/** How a tools/list answer uses `$ref` (chang §3.1): none at all (every schema inlined), `#/$defs` inside each tool, or also shared documents. */
export type WireRefs = 'none' | 'local' | 'shared';

export interface WireOptions {
  /** chang §3.2: the short view of every tool. */
  short?: boolean;
  /** Default `none`, the MCP face's default. */
  refs?: WireRefs;
  /** `shared`: prefix of the documents' URLs (default none: relative `/s/<hash>`). */
  baseUrl?: string;
}

export interface WireTools {
  tools: McpTool[];
  /** `refs: "shared"`: the documents the answer references, to be served at their URLs. */
  shared: SharedSchema[];
}

/**
 * The tools exactly as Parley's MCP face sends them in a tools/list answer: the short view when asked (§3.2),
 * then references (§3.1): by default none (every reference inlined, for clients that do not resolve `$ref`),
 * else deduplication in `local` or `shared` mode. The one definition the gateway's `listTools`, `parley tokens` and
 * `npm run bench:tokens` all use, so a token figure is of what a client receives.
 */
export function wireTools(tools: readonly McpTool[], opts: WireOptions = {}): WireTools {
  // JSON round trip: the wire form only (a short view carries its removed section out of band).
  const viewed = opts.short ? tools.map((t) => JSON.parse(JSON.stringify(shortView(t))) as McpTool) : [...tools];
  const refs = opts.refs ?? 'none';
  if (refs === 'none') return { tools: inlineToolRefs(viewed).tools, shared: [] };
  const r = dedupTools(viewed, { mode: refs, ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}) });
  return { tools: r.tools, shared: r.shared };
}
