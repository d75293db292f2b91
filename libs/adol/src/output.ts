/**
 * ADOL C, controllable response verbosity (chang §2.3, §3.3).
 *
 * chang §3.3: a tool advertises the output fields that may be requested, the LLM
 * names the ones it needs in `requireOutput`, and the client "filters the output
 * according to requireOutput and returns the trimmed result to the LLM".
 *
 * Field names. The draft's example names top-level fields (`temperature`,
 * `humidity`); Parley also advertises nested ones, from the tool's `outputSchema`:
 * `booking` and `booking.seat` for a nested object, `items` and `items[].name`
 * for the objects of an array. Requesting a field returns it whole; requesting a
 * nested one returns only that part, with its parents. A field the result lacks
 * (optional in the schema) is simply absent. A field that is not advertised is an
 * error, so a model that guessed a name learns the right ones. Property names that
 * contain `.`, `[` or `]` cannot be written as paths and are not advertised.
 */
import { ParleyError } from '@parley/protocol';
import { hasOwn, isObject, setMember, type JsonObject, type JsonValue } from './json';
import type { McpTool } from './tool';

/** The name of the argument that carries the request (chang §3.3 Figure "RequireOutput Schema"). */
export const REQUIRE_OUTPUT = 'requireOutput';

export interface OutputFieldsOptions {
  /** Deepest path, in segments (`a.b[].c` has 3). Default 4. */
  maxDepth?: number;
}

const PATH_UNSAFE = /[.[\]]/;

/**
 * The fields of an output schema that may be requested, in schema order: for
 * each property its path, then the paths below it. Follows `allOf`/`anyOf`/
 * `oneOf` branches and same-document `$ref`s (`#/$defs/x`, as ADOL A writes them).
 */
export function outputFields(outputSchema: JsonObject | undefined, opts: OutputFieldsOptions = {}): string[] {
  if (!isObject(outputSchema)) return [];
  const maxDepth = opts.maxDepth ?? 4;
  const out: string[] = [];
  const seen = new Set<string>();
  const resolve = (s: JsonObject, stack: readonly JsonObject[]): JsonObject | undefined => {
    if (typeof s.$ref !== 'string') return s;
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(s.$ref);
    const defs = m ? outputSchema[m[1]!] : undefined;
    const t = m && isObject(defs) ? defs[decodeURIComponent(m[2]!).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    return isObject(t) && !stack.includes(t) ? t : undefined;
  };
  // The object schemas a value may match: the schema itself and its composition branches.
  const branches = (s: JsonObject, stack: readonly JsonObject[]): JsonObject[] => {
    const r = resolve(s, stack);
    if (!r) return [];
    const list = [r];
    for (const kw of ['allOf', 'anyOf', 'oneOf'] as const) {
      const a = r[kw];
      if (Array.isArray(a)) for (const b of a) if (isObject(b)) list.push(...branches(b, [...stack, r]));
    }
    return list;
  };
  const visit = (s: JsonObject, prefix: string, depth: number, stack: readonly JsonObject[]): void => {
    if (depth >= maxDepth || stack.length > 32) return;
    for (const b of branches(s, stack)) {
      const props = b.properties;
      if (!isObject(props)) continue;
      for (const name of Object.keys(props)) {
        const child = props[name];
        if (PATH_UNSAFE.test(name) || !isObject(child)) continue;
        const path = prefix ? `${prefix}.${name}` : name;
        if (!seen.has(path)) {
          seen.add(path);
          out.push(path);
        }
        const inner = [...stack, b];
        visit(child, path, depth + 1, inner);
        for (const c of branches(child, inner)) {
          if (isObject(c.items)) visit(c.items, `${path}[]`, depth + 1, [...inner, c]);
        }
      }
    }
  };
  visit(outputSchema, '', 0, []);
  return out;
}

/** The `requireOutput` argument's schema for a tool with these fields (chang §3.3 Figure "RequireOutput Schema"). */
export function requireOutputSchema(fields: readonly string[]): JsonObject {
  return {
    description: "A list of output field names that the LLM expects to be returned from the tool's complete output.",
    type: 'array',
    items: { type: 'string', enum: [...fields] },
    uniqueItems: true,
  };
}

/**
 * The tool with a `requireOutput` argument added to its input schema (not
 * required), when it has an output schema with fields. A tool that already has an
 * input named `requireOutput` is returned unchanged: its own argument wins.
 */
export function withRequireOutput(tool: McpTool): McpTool {
  const fields = outputFields(tool.outputSchema);
  const props = tool.inputSchema.properties;
  if (fields.length === 0 || (isObject(props) && hasOwn(props, REQUIRE_OUTPUT))) return tool;
  return {
    ...tool,
    inputSchema: { ...tool.inputSchema, properties: { ...(isObject(props) ? props : {}), [REQUIRE_OUTPUT]: requireOutputSchema(fields) } },
  };
}

/** Splits the `requireOutput` argument off a call's arguments (the server never sees it). */
export function takeRequireOutput(args: JsonObject | undefined): { arguments: JsonObject; requireOutput?: JsonValue } {
  if (!isObject(args) || !hasOwn(args, REQUIRE_OUTPUT)) return { arguments: args ?? {} };
  const { [REQUIRE_OUTPUT]: requireOutput, ...rest } = args;
  return requireOutput === undefined ? { arguments: rest } : { arguments: rest, requireOutput };
}

interface Selection {
  /** The whole value at this field. */
  all: boolean;
  /** The field is an array whose elements are selected from (`items[]`). */
  each: boolean;
  children: Map<string, Selection>;
}

function node(): Selection {
  return { all: false, each: false, children: new Map() };
}

function parsePath(path: string): { name: string; each: boolean }[] {
  return path.split('.').map((seg) => (seg.endsWith('[]') ? { name: seg.slice(0, -2), each: true } : { name: seg, each: false }));
}

function pick(value: JsonValue, sel: Map<string, Selection>): JsonValue {
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  // Result order, not request order: the server's order is the one its text follows.
  for (const k of Object.keys(value)) {
    const s = sel.get(k);
    if (!s) continue;
    setMember(out, k, select(value[k]!, s));
  }
  return out;
}

function select(v: JsonValue, s: Selection): JsonValue {
  if (s.all) return v;
  if (s.each && Array.isArray(v)) return v.map((el) => pick(el, s.children));
  return pick(v, s.children);
}

/**
 * chang §3.3: the result trimmed to the requested fields. `advertised` is the
 * tool's field list (`outputFields`). Throws `invalid_params` at
 * `params.requireOutput[i]` (rule `unknown_output_field`) for a field that is not
 * advertised, and (rule `type`) when the request is not an array of strings.
 */
export function filterOutput(result: JsonValue, requireOutput: readonly unknown[], advertised: readonly string[]): JsonValue {
  if (!Array.isArray(requireOutput)) {
    throw new ParleyError('invalid_params', 'params.requireOutput must be an array of output field names', { path: 'params.requireOutput', rule: 'type' });
  }
  const known = new Set(advertised);
  const root = node();
  requireOutput.forEach((f, i) => {
    const path = `params.requireOutput[${i}]`;
    if (typeof f !== 'string') throw new ParleyError('invalid_params', `${path} must be a string`, { path, rule: 'type' });
    if (!known.has(f)) {
      const list = advertised.length ? advertised.slice(0, 40).join(', ') + (advertised.length > 40 ? ', ...' : '') : '(none)';
      throw new ParleyError('invalid_params', `${path}: "${f}" is not an output field of this tool; it advertises: ${list}`, {
        path,
        rule: 'unknown_output_field',
        details: { field: f, advertised: [...advertised] },
      });
    }
    let cur = root;
    for (const seg of parsePath(f)) {
      let next = cur.children.get(seg.name);
      if (!next) cur.children.set(seg.name, (next = node()));
      if (seg.each) next.each = true;
      cur = next;
    }
    cur.all = true;
  });
  return pick(result, root.children);
}

/** An MCP `CallToolResult` trimmed by `filterOutput`: `structuredContent`, and text blocks that serialise it. */
export function filterToolResult(result: JsonObject, requireOutput: readonly unknown[], advertised: readonly string[]): JsonObject {
  if (!hasOwn(result, 'structuredContent')) return result;
  const before = result.structuredContent!;
  const after = filterOutput(before, requireOutput, advertised);
  const out: JsonObject = { ...result, structuredContent: after };
  if (Array.isArray(result.content)) {
    const serialised = JSON.stringify(before);
    out.content = result.content.map((b) => {
      if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string') return b;
      let same = b.text === serialised;
      if (!same) {
        try {
          same = JSON.stringify(JSON.parse(b.text)) === serialised;
        } catch {
          same = false;
        }
      }
      return same ? { ...b, text: JSON.stringify(after) } : b;
    });
  }
  return out;
}
