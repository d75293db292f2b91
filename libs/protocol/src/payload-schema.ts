/**
 * The JSON Schema (2020-12) of a payload, derived from a schema template. It is
 * the one source of truth for payload validation here and for the MCP tool
 * `inputSchema` elsewhere, so both always agree.
 */
import { FORBIDDEN_PROPERTY_NAMES, cloneJson } from './json';
import { OTHER_KEY, type JsonObject, type JsonValue, type KeyDefinition, type KeyType, type SchemaTemplate } from './model';
import { STANDARD_OTHER_DESCRIPTION } from './template';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * How a payload schema marks an experimental key (zhou §6.2.3 'advertised with
 * an "experimental: true" flag'). JSON Schema 2020-12 has a standard `deprecated`
 * annotation but none for "experimental", and an unknown keyword such as
 * `x-parley-experimental` fails Ajv's strict mode (and other strict validators)
 * in clients that compile the schema; `$comment` is a core keyword every
 * validator accepts and ignores. The text starts with `experimental: true` so a
 * program can recognise it.
 */
export const EXPERIMENTAL_KEY_COMMENT = 'experimental: true (draft-zhou §6.2.3): added by a schema patch and on trial; it may be promoted, deprecated or withdrawn';

/** Name of the `$defs` entry that rejects forbidden property names at any depth. */
export const SAFE_VALUE_DEF = 'parley_safe_value';
const SAFE_REF = `#/$defs/${SAFE_VALUE_DEF}`;

/**
 * Any JSON value whose objects, at any depth, have no property named
 * `__proto__`, `constructor` or `prototype`. The object keywords apply only to
 * objects and `items` only to arrays, so one definition covers every value.
 */
function safeValueDef(): JsonObject {
  return {
    propertyNames: { not: { enum: [...FORBIDDEN_PROPERTY_NAMES] } },
    additionalProperties: { $ref: SAFE_REF },
    items: { $ref: SAFE_REF },
  };
}

/** zhou §4.3: other is a string or an array of strings, whatever the template declares. */
function otherPropertySchema(def: KeyDefinition | undefined): JsonObject {
  return {
    description: def?.semantic_description ?? STANDARD_OTHER_DESCRIPTION,
    type: ['string', 'array'],
    items: { type: 'string' },
  };
}

function itemsSchema(t: KeyType | undefined): JsonObject {
  if (t === undefined) return { $ref: SAFE_REF };
  if (t === 'object' || t === 'array') return { type: t, $ref: SAFE_REF };
  return { type: t };
}

function keyPropertySchema(k: KeyDefinition): { schema: JsonObject; usesSafe: boolean } {
  const s: JsonObject = { type: k.key_type, description: k.semantic_description };
  let usesSafe = false;
  if (k.enum !== undefined) s.enum = cloneJson(k.enum);
  if (k.minimum !== undefined) s.minimum = k.minimum;
  if (k.maximum !== undefined) s.maximum = k.maximum;
  if (k.format !== undefined) s.format = k.format;
  if (k.pattern !== undefined) s.pattern = k.pattern;
  if (k.min_length !== undefined) s.minLength = k.min_length;
  if (k.max_length !== undefined) s.maxLength = k.max_length;
  if (k.key_type === 'array') {
    s.items = itemsSchema(k.items_type);
    usesSafe = k.items_type === undefined || k.items_type === 'object' || k.items_type === 'array';
  }
  if (k.min_items !== undefined) s.minItems = k.min_items;
  if (k.max_items !== undefined) s.maxItems = k.max_items;
  if (k.key_type === 'object') {
    s.$ref = SAFE_REF;
    usesSafe = true;
  }
  if (k.default_value !== undefined && k.default_value !== null) s.default = cloneJson(k.default_value);
  // zhou §6.2.3 lifecycle flags, as JSON Schema annotations (they never change what validates).
  if (k.deprecated === true) s.deprecated = true;
  if (k.experimental === true) s.$comment = EXPERIMENTAL_KEY_COMMENT;
  return { schema: s, usesSafe };
}

/**
 * The payload's JSON Schema: an object with one property per key (description
 * = semantic_description, type and Parley's constraints, default when
 * non-null, `deprecated: true` / the experimental `$comment` for flagged patch
 * keys), `required` from the REQUIRED keys (zhou §3.2 step 4), no other
 * properties, and `other` always allowed as a string or an array of strings
 * (zhou §4.3), even when the template omits it.
 */
export function payloadJsonSchema(template: SchemaTemplate): JsonObject {
  const properties: JsonObject = {};
  const required: JsonValue[] = [];
  let usesSafe = false;
  let other: KeyDefinition | undefined;
  for (const k of template.keys) {
    if (k.key_name === OTHER_KEY) {
      other = k;
      properties[OTHER_KEY] = otherPropertySchema(k);
    } else {
      const p = keyPropertySchema(k);
      properties[k.key_name] = p.schema;
      usesSafe ||= p.usesSafe;
    }
    // zhou §4.3: other is never required, whatever an unparsed template says.
    if (k.required && k.key_name !== OTHER_KEY) required.push(k.key_name);
  }
  if (!other) properties[OTHER_KEY] = otherPropertySchema(undefined);

  const schema: JsonObject = {
    $schema: JSON_SCHEMA_DIALECT,
    title: template.schema_id,
    description: `Payload for scenario "${template.scenario}" (schema ${template.schema_id}).`,
    type: 'object',
    properties,
    required,
    // Unknown keys are rejected: unmapped intent belongs in "other" (zhou §4.3).
    // This also rejects a top-level __proto__/constructor/prototype, since no
    // key may take those names (template rule reserved_name).
    additionalProperties: false,
  };
  if (usesSafe) schema.$defs = { [SAFE_VALUE_DEF]: safeValueDef() };
  return schema;
}
