/**
 * The ADOL mechanisms (draft-chang §3) as the gateway's faces use them: one
 * small adapter over @parley/adol, so MCP, A2A and `get_schema_template` share
 * one behaviour with the rest of Parley (the `parley tokens` meter measures
 * the same transforms).
 *
 *   A  $ref compaction ............ compactTemplate (gateway-local, see below)
 *   B  short views ................ shortTool (adol shortView), shortTemplate
 *   C  requireOutput .............. advertisedFields, checkRequireOutput, filterResult (adol outputFields, filterOutput)
 *   D  tool selection ............. selectEntries (adol selectTools)
 */
import {
  filterOutput as adolFilterOutput,
  outputFields,
  selectTools,
  shortView,
  templateShortView,
  wordNetLexicon,
  type AutoCut,
  type McpTool,
  type SelectLexicon,
  type TextEmbedder,
  type ToolLike,
} from '@parley/adol';
import { WordNet, defaultDictDir } from '@parley/embeddings';
import { ParleyError, type JsonObject, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

// ---------------------------------------------------------------------------
// A. Schema deduplication with JSON references (chang §3.1)
// ---------------------------------------------------------------------------

/** A key definition in a compacted template: either whole, or its name plus a reference to a shared body. */
export type CompactKey = KeyDefinition | { key_name: string; $ref: string };

/** The wire shape of `get_schema_template` with `compact: true`. */
export interface CompactTemplate {
  template: { schema_id: string; scenario: string; keys: CompactKey[] };
  /** Shared key bodies (every member but key_name), by name; empty when nothing repeats. */
  $defs: Record<string, JsonObject>;
}

/**
 * chang §3.1 "internal reference", applied to a zhou §4.1 template: key
 * definitions whose bodies (everything but `key_name`) are identical are
 * written once under `$defs` and referenced as `{ "key_name": ..., "$ref":
 * "#/$defs/<name>" }`. A body seen once stays inline, so a template without
 * repetition comes back unchanged with empty `$defs` (compaction never costs
 * tokens). Local to the gateway: @parley/adol's dedup works on JSON Schemas,
 * and a template is not one.
 */
export function compactTemplate(t: SchemaTemplate): CompactTemplate {
  const bodyOf = (k: KeyDefinition): JsonObject => {
    const { key_name: _name, ...body } = k;
    return body as unknown as JsonObject;
  };
  const counts = new Map<string, number>();
  for (const k of t.keys) {
    const sig = stableStringify(bodyOf(k));
    counts.set(sig, (counts.get(sig) ?? 0) + 1);
  }
  const $defs: Record<string, JsonObject> = {};
  const nameBySig = new Map<string, string>();
  const keys: CompactKey[] = t.keys.map((k) => {
    const body = bodyOf(k);
    const sig = stableStringify(body);
    if ((counts.get(sig) ?? 0) < 2) return k;
    let name = nameBySig.get(sig);
    if (!name) {
      // Named after the first key that uses it: readable, and unique because key names are.
      name = k.key_name;
      nameBySig.set(sig, name);
      $defs[name] = body;
    }
    return { key_name: k.key_name, $ref: `#/$defs/${name}` };
  });
  return { template: { schema_id: t.schema_id, scenario: t.scenario, keys }, $defs };
}

/** JSON with object members sorted, so equal values have equal strings. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

// ---------------------------------------------------------------------------
// B. Adaptive optional inclusion: short views (chang §3.2)
// ---------------------------------------------------------------------------

/**
 * chang §3.2 `tools/list --short`: @parley/adol's short view, which leaves out
 * what a client can call without (title, annotations, outputSchema, _meta,
 * schema titles, descriptions of properties that are not required).
 */
export function shortTool(tool: Tool): Tool {
  // JSON round trip: the wire form only (the view carries its removed section out of band).
  return JSON.parse(JSON.stringify(shortView(tool as unknown as McpTool))) as Tool;
}

/**
 * chang §3.2 applied to a zhou §4.1 template: the authored `optional` sections
 * of its keys go (adol templateShortView); everything else stays.
 */
export function shortTemplate(t: SchemaTemplate): SchemaTemplate {
  // Only the optional sections go: every key keeps its semantic_description,
  // which zhou §4.1 makes REQUIRED and which is what a client's LLM maps with.
  return templateShortView(t);
}

// ---------------------------------------------------------------------------
// C. Controllable response verbosity: requireOutput (chang §3.3)
// ---------------------------------------------------------------------------

/** The output fields a tool advertises for requireOutput (adol outputFields: top-level and nested paths). */
export function advertisedFields(outputSchema: JsonObject | undefined): string[] {
  return outputFields(outputSchema);
}

/** adol reports `params.requireOutput[i]`; the faces carry requireOutput elsewhere, so the path is re-based. */
function rebase(e: unknown, base: string): unknown {
  if (!(e instanceof ParleyError) || !e.path.startsWith('params.requireOutput')) return e;
  const path = base + e.path.slice('params.requireOutput'.length);
  const message = e.message.replace(/^params\.requireOutput(\[\d+\])?/, (m) => base + m.slice('params.requireOutput'.length));
  return new ParleyError(e.type, message, { path, rule: e.rule, details: e.details });
}

/**
 * Refuses, before anything executes, a requireOutput naming a field the tool
 * does not advertise (a wrong name must not cost a booking).
 */
export function checkRequireOutput(fields: readonly string[], advertised: readonly string[], base: string): void {
  try {
    adolFilterOutput({}, fields, advertised);
  } catch (e) {
    throw rebase(e, base);
  }
}

/** chang §3.3: the result trimmed to the requested fields (whole fields, or nested paths with their parents). */
export function filterResult(result: JsonObject, fields: readonly string[], advertised: readonly string[], base: string): JsonObject {
  try {
    return adolFilterOutput(result, fields, advertised) as JsonObject;
  } catch (e) {
    throw rebase(e, base);
  }
}

// ---------------------------------------------------------------------------
// D. Tool selection (chang §3.4)
// ---------------------------------------------------------------------------

export interface SelectionRequest {
  query?: string;
  topK: number;
  cut?: 'auto' | 'fixed';
  /** The adaptive cut's rule (adol `autoCut`), from `_meta` min_k / cut_drop / cut_ratio / cut_gap. */
  autoCut?: AutoCut;
  tags?: string[];
  /** chang §3.4, selection that learns from use: the client's learned examples by tool name (adol UsageStore.examples). */
  learned?: ReadonlyMap<string, readonly string[]>;
}

let wordSenses: Promise<SelectLexicon | undefined> | undefined;

/**
 * WordNet word senses for selection's `concepts` ranker (a request's words the
 * list does not use, matched through synsets and derivations), loaded once per
 * process; selection goes on without it if the dict files cannot be read.
 * `npm run bench:tokens` measures selection with the same lexicon.
 */
function selectionLexicon(): Promise<SelectLexicon | undefined> {
  wordSenses ??= WordNet.load({ dictDir: defaultDictDir() }).then(
    (wn) => wordNetLexicon(wn),
    () => undefined,
  );
  return wordSenses;
}

/**
 * chang §3.4 through adol selectTools: tags keep the tools having any of them
 * (approach 2); a query ranks the rest (approach 1: hybrid with an embedder
 * and WordNet word senses, BM25 without) and keeps the top K. `selectable` is
 * built once per catalogue so adol's per-list caches are reused.
 */
export async function selectEntries<E>(selectable: readonly (ToolLike & { entry: E })[], req: SelectionRequest, embedder?: TextEmbedder): Promise<E[]> {
  if (req.query === undefined && !req.tags) return selectable.map((s) => s.entry);
  const hybrid = embedder !== undefined && req.query !== undefined;
  const lexicon = hybrid ? await selectionLexicon() : undefined;
  const scored = await selectTools(selectable, req.query ?? '', {
    ...(req.tags ? { tags: req.tags } : {}),
    ...(req.query !== undefined ? { topK: req.topK } : {}),
    ...(req.cut ? { cut: req.cut } : {}),
    ...(req.autoCut ? { autoCut: req.autoCut } : {}),
    ...(hybrid ? { embedder } : {}),
    ...(lexicon ? { lexicon } : {}),
    ...(req.learned && req.query !== undefined ? { learnedExamples: req.learned } : {}),
  });
  return scored.map((s) => s.tool.entry);
}
