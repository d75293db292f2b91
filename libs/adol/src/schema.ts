/**
 * Where the sub-schemas of a JSON Schema are. ADOL A (chang §3.1) replaces and
 * restores whole sub-schemas, and ADOL B (chang §3.2) moves keywords out of them, so
 * both must tell a schema position (`properties.x`, `items`, `anyOf[2]`) from data
 * that merely looks like a schema (`default`, `enum`, `const`, `examples`, and a
 * property that happens to be *named* `title` or `$ref`).
 *
 * The applicator keywords are those of JSON Schema 2020-12 (core and applicator
 * vocabularies), plus the draft-07 spellings (`definitions`, `dependencies`,
 * `additionalItems`, array-form `items`) that MCP servers built on
 * zod-to-json-schema still declare.
 */
import { isObject, type JsonObject, type JsonValue } from './json';

/** Keywords whose value is an object mapping names to sub-schemas. */
export const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions', 'dependencies'] as const;
/** Keywords whose value is one sub-schema. */
export const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;
/** Keywords whose value is an array of sub-schemas (`items` too, in draft-07 tuple form). */
export const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;

/**
 * Keywords that only annotate (JSON Schema 2020-12 meta-data vocabulary, and
 * `$comment`): they never change which instances are valid, so they may sit beside
 * a `$ref` while the validating part lives in `$defs` (chang §3.1 "internal reference").
 */
export const ANNOTATION_KEYWORDS = ['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment'] as const;

/** One place that holds a sub-schema. */
export interface Slot {
  /** The object or array holding the sub-schema. */
  container: JsonObject | JsonValue[];
  key: string | number;
  /** The applicator keyword (`properties`, `items`, `anyOf`, ...). */
  keyword: string;
  /** For map keywords, the member name (e.g. the property name). */
  name?: string;
}

/** The sub-schema slots directly under one schema object. Boolean schemas are not slots (nothing to factor or trim). */
export function childSlots(schema: JsonObject): Slot[] {
  const out: Slot[] = [];
  for (const kw of SCHEMA_MAP_KEYWORDS) {
    const m = schema[kw];
    if (!isObject(m)) continue;
    for (const name of Object.keys(m)) {
      // draft-07 `dependencies` mixes schemas with arrays of property names.
      if (isObject(m[name])) out.push({ container: m, key: name, keyword: kw, name });
    }
  }
  for (const kw of SCHEMA_KEYWORDS) {
    if (isObject(schema[kw])) out.push({ container: schema, key: kw, keyword: kw });
  }
  for (const kw of SCHEMA_ARRAY_KEYWORDS) {
    const a = schema[kw];
    if (!Array.isArray(a)) continue;
    a.forEach((x, i) => {
      if (isObject(x)) out.push({ container: a, key: i, keyword: kw });
    });
  }
  return out;
}

export function slotValue(s: Slot): JsonObject {
  const v = Array.isArray(s.container) ? s.container[s.key as number] : s.container[s.key as string];
  return v as JsonObject;
}

export function setSlot(s: Slot, v: JsonObject): void {
  if (Array.isArray(s.container)) s.container[s.key as number] = v;
  else if (s.key === '__proto__') Object.defineProperty(s.container, '__proto__', { value: v, enumerable: true, writable: true, configurable: true });
  else s.container[s.key as string] = v;
}

/** JSON Pointer token escaping (RFC 6901). */
export function pointerToken(k: string | number): string {
  return String(k).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function slotPath(parentPath: string, s: Slot): string {
  if (Array.isArray(s.container)) return `${parentPath}/${s.keyword}/${s.key}`;
  if (s.name !== undefined) return `${parentPath}/${pointerToken(s.keyword)}/${pointerToken(s.name)}`;
  return `${parentPath}/${pointerToken(s.keyword)}`;
}

/**
 * Calls `fn` for every sub-schema (pre-order), with its JSON Pointer from the
 * document root. Returning `false` from `fn` skips that sub-schema's children.
 */
export function walkSchema(root: JsonObject, fn: (node: JsonObject, slot: Slot | null, pointer: string) => boolean | void): void {
  const visit = (node: JsonObject, slot: Slot | null, pointer: string, depth: number): void => {
    if (depth > 256) return; // JSON from the wire is a tree; this only bounds pathological nesting.
    if (fn(node, slot, pointer) === false) return;
    for (const s of childSlots(node)) visit(slotValue(s), s, slotPath(pointer, s), depth + 1);
  };
  visit(root, null, '', 0);
}

export type Dialect = 'modern' | 'legacy';

/**
 * The dialect decides whether a `$ref` may carry sibling keywords: from 2019-09 on
 * they apply alongside it; up to draft-07 they are ignored. MCP (SEP-2106) makes
 * 2020-12 the default when `$schema` is absent.
 */
export function dialectOf(schema: JsonObject): Dialect {
  const s = schema.$schema;
  if (s === undefined) return 'modern';
  return typeof s === 'string' && /(2019-09|2020-12)/.test(s) ? 'modern' : 'legacy';
}
