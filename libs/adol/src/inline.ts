/**
 * The dereferenced fallback of ADOL A (chang §3.1): schemas with no `$ref` at
 * all, for clients that do not resolve references. Many MCP clients pass a
 * tool's inputSchema to a model or a validator as it is and never resolve
 * `$ref`; MCP 2026-07-28 (SEP-2106) allows same-document `#/$defs` refs but a
 * client is not obliged to handle them, and forbids it to dereference network
 * refs on its own. So a server that does not know its client handles refs
 * serves this form.
 *
 * Every reference is replaced by what it points at: same-document JSON Pointers
 * (`#/$defs/x`, `#/properties/a`), list-level definitions, and shared documents
 * by URL (when given). Siblings of a `$ref` apply beside it from 2019-09 on, so
 * they are merged with the target (as `allOf` where both name a keyword); in
 * draft-07 they were ignored, so the target alone stands. Definitions maps go
 * once nothing points at them.
 *
 * What cannot be inlined: a recursive reference (a tree, or Parley's own
 * `parley_safe_value`, which rejects forbidden property names at any depth) is
 * unrolled once and then cut to `{}` (any value); an unresolvable one (an
 * anchor, a `$dynamicRef`, a network ref with no document) is cut to `{}` too.
 * Such a schema accepts more than the original (`exact: false`, and `cut` says
 * where): the server still validates with the full schema.
 */
import { ParleyError } from '@parley/protocol';
import { clone, hasOwn, isObject, setMember, type JsonObject } from './json';
import { childSlots, dialectOf, setSlot, slotValue, walkSchema, type Dialect } from './schema';
import type { SharedSchema } from './dedup';
import type { McpTool } from './tool';

export interface InlineRefsOptions {
  /** Shared documents by URL (`shared` dedup): their refs are inlined too. */
  shared?: readonly SharedSchema[];
  /** List-level definitions (`list` dedup): `#/$defs/<name>` the schema does not hold resolves here. */
  listDefs?: JsonObject;
}

export interface InlineCut {
  /** The reference that was cut to `{}`. */
  ref: string;
  reason: 'recursive' | 'unresolved';
}

export interface InlineRefsResult {
  /** The schema, with no `$ref`, `$dynamicRef` or `$recursiveRef` and no definitions maps. */
  schema: JsonObject;
  /** Nothing was cut: the schema accepts exactly what the input accepted. */
  exact: boolean;
  cut: InlineCut[];
}

const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;
const DEFS_KEYWORDS = ['$defs', 'definitions'] as const;

function decodeToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The value a JSON Pointer fragment (`#/a/b`, URI-escaped) names in `root`, if it is a schema object. */
function pointerTarget(root: JsonObject, ref: string): JsonObject | undefined {
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) return undefined;
  let at: unknown = root;
  for (const token of fragment.slice(1).split('/').map(decodeToken)) {
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(token)) at = at[Number(token)];
    else if (isObject(at) && hasOwn(at, token)) at = at[token];
    else return undefined;
  }
  return isObject(at) ? at : undefined;
}

/** A schema with every reference inlined (see the module comment). The input is not changed. */
export function inlineRefs(schema: JsonObject, opts: InlineRefsOptions = {}): InlineRefsResult {
  if (!isObject(schema)) throw new ParleyError('invalid_params', 'inlineRefs: the schema must be a JSON Schema object', { path: 'schema', rule: 'type' });
  const shared = new Map<string, JsonObject>();
  for (const s of opts.shared ?? []) {
    const { $schema: _dialect, ...content } = s.schema;
    shared.set(s.url, content);
  }
  const dialect: Dialect = dialectOf(schema);
  const cut: InlineCut[] = [];

  /** What a ref names, and the document its own refs resolve in. */
  const resolve = (ref: string, doc: JsonObject): { target: JsonObject; doc: JsonObject; id: string } | undefined => {
    const sh = shared.get(ref);
    if (sh) return { target: sh, doc: sh, id: ref };
    if (!ref.startsWith('#')) return undefined;
    const own = pointerTarget(doc, ref);
    if (own) return { target: own, doc, id: `${doc === schema ? '' : 'shared'}${ref}` };
    const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
    if (m && opts.listDefs) {
      const name = decodeToken(decodeURIComponent(m[1]!));
      const d = opts.listDefs[name];
      if (hasOwn(opts.listDefs, name) && isObject(d)) return { target: d, doc: { $defs: opts.listDefs }, id: `list${ref}` };
    }
    return undefined;
  };

  const expand = (node: JsonObject, doc: JsonObject, stack: readonly string[]): JsonObject => {
    const refKw = REF_KEYWORDS.find((k) => typeof node[k] === 'string');
    let out: JsonObject;
    if (refKw) {
      const ref = node[refKw] as string;
      const siblings: JsonObject = {};
      for (const k of Object.keys(node)) if (k !== refKw) setMember(siblings, k, node[k]);
      const r = refKw === '$ref' ? resolve(ref, doc) : undefined;
      let target: JsonObject;
      if (!r) {
        cut.push({ ref, reason: 'unresolved' });
        target = {};
      } else if (stack.includes(r.id)) {
        cut.push({ ref, reason: 'recursive' });
        target = {};
      } else target = expand(clone(r.target), r.doc, [...stack, r.id]);
      const sib = expandChildren(siblings, doc, stack);
      if (dialect === 'legacy') out = target;
      else if (Object.keys(sib).length === 0) out = target;
      else if (Object.keys(target).length === 0) out = sib;
      else if (Object.keys(sib).some((k) => hasOwn(target, k))) out = { ...sib, allOf: [...(Array.isArray(sib.allOf) ? sib.allOf : []), target] };
      else {
        out = {};
        for (const k of Object.keys(sib)) setMember(out, k, sib[k]);
        for (const k of Object.keys(target)) setMember(out, k, target[k]);
      }
      return out;
    }
    return expandChildren(node, doc, stack);
  };

  const expandChildren = (node: JsonObject, doc: JsonObject, stack: readonly string[]): JsonObject => {
    const out: JsonObject = {};
    for (const k of Object.keys(node)) if (!(DEFS_KEYWORDS as readonly string[]).includes(k)) setMember(out, k, node[k]);
    for (const s of childSlots(out)) setSlot(s, expand(slotValue(s), doc, stack));
    return out;
  };

  // The root keeps `$schema` and the rest; definitions maps go (nothing points at them any more).
  const result = expand(clone(schema), schema, []);
  let leftover = false;
  walkSchema(result, (n) => {
    if (REF_KEYWORDS.some((k) => hasOwn(n, k))) leftover = true;
  });
  if (leftover) throw new ParleyError('internal', 'inlineRefs left a reference in place');
  return { schema: result, exact: cut.length === 0, cut };
}

/** `inlineRefs` over a tool list: every inputSchema and outputSchema with no `$ref`. */
export function inlineToolRefs<T extends McpTool>(tools: readonly T[], opts: InlineRefsOptions = {}): { tools: T[]; exact: boolean; cut: (InlineCut & { tool: string })[] } {
  const cut: (InlineCut & { tool: string })[] = [];
  const out = tools.map((t) => {
    const copy = { ...t };
    for (const member of ['inputSchema', 'outputSchema'] as const) {
      const s = t[member];
      if (!isObject(s)) continue;
      const r = inlineRefs(s, opts);
      (copy as McpTool)[member] = r.schema;
      for (const c of r.cut) cut.push({ ...c, tool: t.name });
    }
    return copy;
  });
  return { tools: out, exact: cut.length === 0, cut };
}
