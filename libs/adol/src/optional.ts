/**
 * ADOL B, adaptive optional inclusion (chang §2.2, §3.2).
 *
 * chang §3.2: "an additional field `optional` is introduced in the server's tool
 * configuration file, which contains schema content that is not mandatory. If the
 * client requests a 'short' list ..., the server SHOULD omit unnecessary optional
 * contents included in the `optional` field and return a concise tool schema."
 *
 * Shape, for MCP tools. `optional` is an OVERLAY of the tool: a partial copy whose
 * members are deep-merged into the tool to give the full view. Objects merge member
 * by member; an array is addressed by an object keyed by decimal index (`{"anyOf":
 * {"1": {...}}}`); anything else may only fill a member the tool lacks (a clash is
 * an `optional_conflict` error, never a silent overwrite). Example:
 *
 *   { "name": "list_issues", "description": "...",
 *     "inputSchema": { "type": "object", "properties": { "owner": {"type": "string", "description": "Repository owner"},
 *                                                          "perPage": {"type": "number", "minimum": 1} },
 *                      "required": ["owner"] },
 *     "optional": { "annotations": {"readOnlyHint": true},
 *                   "inputSchema": { "properties": { "perPage": { "description": "Results per page" } } } } }
 *
 * A server may author `optional` itself (then `shortView` drops it and `fullView`
 * merges it). A plain MCP tool has none, so `splitOptional` derives one losslessly
 * from what a client can do without (chang §2.2 names output schemas and metadata):
 * `title`, `annotations`, `outputSchema`, `icons`, `_meta`, `execution` (kept when
 * `taskSupport` is `"required"`: a client must know that to call the tool at all),
 * every `title` keyword of the input schema, and the `description` of every property
 * that is not in its parent's `required`. `fullView(splitOptional(t))` is deep-equal
 * to `t`; member order of the restored objects may differ (JSON does not order members).
 *
 * For Parley schema templates (draft-zhou §4.1), a key definition, or the template,
 * may carry `optional: { ... }` with content a client can do without, e.g.
 * `{"examples": ["PEK", "SHA"], "notes": "IATA codes, not city names"}`. The short
 * view drops every such section; the full view keeps them as they are (their
 * members are not key-definition members and are not merged).
 */
import { ParleyError, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { clone, hasOwn, isObject, setMember, type JsonObject, type JsonValue } from './json';
import { childSlots, slotValue } from './schema';
import type { McpTool } from './tool';

/** The member that holds the optional section (chang §3.2). */
export const OPTIONAL_MEMBER = 'optional';

/**
 * Where `shortView` keeps the section it removed, in process: a non-enumerable
 * symbol member, so `JSON.stringify` (the wire) never sees it while
 * `fullView(shortView(t))` still restores `t`. A copy made with JSON or spread
 * loses it, on purpose: a client that received the short view must ask for the full one.
 */
export const OPTIONAL_SECTION: unique symbol = Symbol.for('parley.adol.optional');

export type OptionalSection = JsonObject;

/** A tool as a server configures it (chang §3.2): an MCP tool plus its optional section. */
export type AdolTool = McpTool & { optional?: OptionalSection };

/** The short view: what goes on the wire, with the removed section carried out of band. */
export type ShortTool = McpTool & { readonly [OPTIONAL_SECTION]?: OptionalSection };

/** Top-level tool members a client can do without. */
const OPTIONAL_TOOL_MEMBERS = ['title', 'annotations', 'outputSchema', 'icons', '_meta', 'execution'] as const;

function conflict(path: string, type: 'invalid_params' | 'template_invalid' = 'invalid_params'): ParleyError {
  return new ParleyError(type, `${path}: the optional section clashes with a member the definition already has`, { path, rule: 'optional_conflict' });
}

/**
 * Deep-merges an optional section (overlay) into a value. Pure; neither input is
 * changed. Throws `optional_conflict` when the overlay would overwrite a value.
 */
export function mergeOptional(target: JsonValue | undefined, overlay: JsonValue, path = 'optional'): JsonValue {
  if (target === undefined) return clone(overlay);
  if (isObject(target) && isObject(overlay)) {
    const out = clone(target);
    for (const k of Object.keys(overlay)) setMember(out, k, mergeOptional(hasOwn(out, k) ? out[k] : undefined, overlay[k]!, `${path}.${k}`));
    return out;
  }
  if (Array.isArray(target) && isObject(overlay)) {
    const out = clone(target);
    for (const k of Object.keys(overlay)) {
      const i = /^(0|[1-9][0-9]*)$/.test(k) ? Number(k) : -1;
      if (i < 0 || i >= out.length) throw conflict(`${path}.${k}`);
      out[i] = mergeOptional(out[i], overlay[k]!, `${path}.${k}`) as JsonValue;
    }
    return out;
  }
  throw conflict(path);
}

/**
 * Moves `title` keywords and descriptions of non-required properties out of a
 * schema (in place) and returns them as an overlay, or undefined when there were none.
 */
function trimSchema(node: JsonObject): JsonObject | undefined {
  const ov: JsonObject = {};
  if (hasOwn(node, 'title')) {
    ov.title = node.title!;
    delete node.title;
  }
  const required = new Set(Array.isArray(node.required) ? node.required.filter((x): x is string => typeof x === 'string') : []);
  for (const slot of childSlots(node)) {
    const child = slotValue(slot);
    let childOv = trimSchema(child);
    if (slot.keyword === 'properties' && slot.name !== undefined && !required.has(slot.name) && hasOwn(child, 'description')) {
      childOv ??= {};
      childOv.description = child.description!;
      delete child.description;
    }
    if (!childOv) continue;
    if (Array.isArray(slot.container)) {
      const m = (ov[slot.keyword] ??= {}) as JsonObject;
      m[String(slot.key)] = childOv;
    } else if (slot.name !== undefined) {
      const m = (ov[slot.keyword] ??= {}) as JsonObject;
      setMember(m, slot.name, childOv);
    } else ov[slot.keyword] = childOv;
  }
  return Object.keys(ov).length > 0 ? ov : undefined;
}

function assertSection(v: unknown, path: string, type: 'invalid_params' | 'template_invalid' = 'invalid_params'): asserts v is OptionalSection {
  if (!isObject(v)) throw new ParleyError(type, `${path} must be an object (chang §3.2 optional section)`, { path, rule: 'type' });
}

/**
 * The server's configuration form of a tool: content a client can do without
 * moved into `optional` (see the module comment). A tool that already has an
 * `optional` section is returned as it is (copied): its author decided.
 */
export function splitOptional(tool: McpTool | AdolTool): AdolTool {
  const out = clone(tool) as AdolTool;
  if (hasOwn(out, OPTIONAL_MEMBER)) {
    assertSection(out.optional, 'optional');
    return out;
  }
  const section: OptionalSection = {};
  for (const k of OPTIONAL_TOOL_MEMBERS) {
    if (!hasOwn(out, k)) continue;
    if (k === 'execution' && isObject(out.execution) && out.execution.taskSupport === 'required') continue;
    section[k] = out[k]!;
    delete out[k];
  }
  if (isObject(out.inputSchema)) {
    const ov = trimSchema(out.inputSchema);
    if (ov) section.inputSchema = ov;
  }
  if (Object.keys(section).length > 0) out.optional = section;
  return out;
}

/** chang §3.2 `tools/list --short`: the tool without its optional section (derived by `splitOptional` when the tool has none). */
export function shortView(tool: McpTool | AdolTool): ShortTool {
  const split = splitOptional(tool);
  const { optional, ...rest } = split;
  if (optional) Object.defineProperty(rest, OPTIONAL_SECTION, { value: optional, enumerable: false });
  return rest as ShortTool;
}

/** The full tool: the optional section (authored, or carried by a short view) merged back in. */
export function fullView(tool: McpTool | AdolTool | ShortTool): McpTool {
  const carried = (tool as ShortTool)[OPTIONAL_SECTION];
  const { optional, ...rest } = tool as AdolTool;
  const section: unknown = hasOwn(tool, OPTIONAL_MEMBER) ? optional : carried;
  if (section === undefined) return clone(rest) as McpTool;
  assertSection(section, 'optional');
  return mergeOptional(rest as JsonObject, section) as McpTool;
}

/** The optional section a tool has or would have (empty when a client needs all of it). */
export function optionalSectionOf(tool: McpTool | AdolTool | ShortTool): OptionalSection {
  const carried = (tool as ShortTool)[OPTIONAL_SECTION];
  if (carried) return clone(carried);
  return splitOptional(tool).optional ?? {};
}

// ---------------------------------------------------------------------------
// Parley templates
// ---------------------------------------------------------------------------

/** A key definition (draft-zhou §4.1) with an optional section (chang §3.2). */
export type OptionalKeyDefinition = KeyDefinition & { optional?: OptionalSection };

/** A schema template whose keys (and itself) may carry optional sections. */
export type OptionalTemplate = Omit<SchemaTemplate, 'keys'> & { keys: OptionalKeyDefinition[]; optional?: OptionalSection };

function checkTemplateSections(t: OptionalTemplate): void {
  if (hasOwn(t, OPTIONAL_MEMBER)) assertSection(t.optional, 'optional', 'template_invalid');
  if (!Array.isArray(t.keys)) throw new ParleyError('template_invalid', 'keys must be an array', { path: 'keys', rule: 'type' });
  t.keys.forEach((k, i) => {
    if (isObject(k) && hasOwn(k, OPTIONAL_MEMBER)) assertSection(k.optional, `keys[${i}].optional`, 'template_invalid');
  });
}

/** chang §3.2 short view of a template: every key's (and the template's) `optional` section dropped. */
export function templateShortView(t: OptionalTemplate): SchemaTemplate {
  checkTemplateSections(t);
  const { optional: _o, keys, ...rest } = clone(t);
  return {
    ...rest,
    keys: keys.map((k) => {
      const { optional: _ko, ...key } = k;
      return key;
    }),
  } as SchemaTemplate;
}

/** The full view of a template: as published, optional sections kept. */
export function templateFullView(t: OptionalTemplate): OptionalTemplate {
  checkTemplateSections(t);
  return clone(t);
}
