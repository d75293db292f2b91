/**
 * Schema templates: parsing every rule of draft-zhou §4.1 and §4.3, and the
 * shape comparison for §4.2 multilingual annotations.
 *
 * The parser collects every violation it can find (one per member) so a
 * publisher sees all of them at once; the error's own `path`/`rule` are the
 * first violation's.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ParleyError, type Violation } from './errors';
import {
  KEY_DEFINITION_MEMBERS,
  KEY_TYPES,
  OTHER_KEY,
  PATCH_ONLY_MEMBERS,
  TEMPLATE_MEMBERS,
  type JsonObject,
  type JsonValue,
  type KeyDefinition,
  type KeyType,
  type SchemaTemplate,
} from './model';
import { codePointLength, cloneJson, deepEqual, findForbiddenKey, isJsonValue, isPlainObject, joinPath, jsonTypeName, matchesKeyType, preview } from './json';
import { MAX_SCENARIO_LENGTH, scenarioId } from './scenario';

/** schema_id: a version identifier safe in URLs, subjects and file names (zhou §4.1 "uniquely identifies the schema version"). */
export const SCHEMA_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** key_name: snake_case (zhou §4.1 "using snake_case convention"). */
export const KEY_NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * Longest key_name. Not in the draft: 64 is the limit several LLM tool-calling
 * APIs put on property names, and payload schemas double as MCP inputSchemas.
 */
export const MAX_KEY_NAME_LENGTH = 64;

/**
 * Names no key may take: they reach Object.prototype machinery when a payload
 * is handled as a plain JS object (prototype pollution), or shadow its methods
 * once lowercased. Compared case-insensitively.
 */
export const RESERVED_KEY_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'hasownproperty',
  'isprototypeof',
  'propertyisenumerable',
  'tostring',
  'tolocalestring',
  'valueof',
] as const;

/** JSON Schema formats a string key may declare. */
export const SUPPORTED_FORMATS = ['date', 'date-time', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname', 'duration'] as const;
export type SupportedFormat = (typeof SUPPORTED_FORMATS)[number];

/** The description Parley gives an `other` key it appends (zhou §4.3, Figure 2 wording). */
export const STANDARD_OTHER_DESCRIPTION = 'Escape valve for unstructured semantic fragments that cannot be mapped to existing keys.';

/** The standard definition of the reserved `other` key (zhou §4.3). */
export function standardOtherKey(): KeyDefinition {
  return { key_name: OTHER_KEY, key_type: 'string', required: false, semantic_description: STANDARD_OTHER_DESCRIPTION };
}

export interface ParsedTemplate {
  /** A clone of the input, members in input order; `other` appended when missing. */
  template: SchemaTemplate;
  /** What the parser changed or wants the publisher to know. */
  notes: string[];
}

/** Which key types each constraint member fits (a retyped key drops the members that no longer fit). */
export const CONSTRAINT_FITS: Readonly<Record<string, readonly KeyType[]>> = {
  minimum: ['integer', 'number'],
  maximum: ['integer', 'number'],
  min_length: ['string'],
  max_length: ['string'],
  pattern: ['string'],
  format: ['string'],
  items_type: ['array'],
  min_items: ['array'],
  max_items: ['array'],
};
const CONSTRAINT_MEMBERS = ['enum', ...Object.keys(CONSTRAINT_FITS)] as const;

/** Hints for key types people write from other type systems. */
const KEY_TYPE_HINTS: Record<string, KeyType> = {
  float: 'number',
  double: 'number',
  decimal: 'number',
  int: 'integer',
  long: 'integer',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  date: 'string',
  list: 'array',
  dict: 'object',
  map: 'object',
};

class Violations {
  readonly list: Violation[] = [];
  add(path: string, rule: string, message: string): void {
    this.list.push({ path, rule, message });
  }
  get size(): number {
    return this.list.length;
  }
}

/**
 * Parses a schema template, enforcing every rule of zhou §4.1 and §4.3 plus
 * Parley's constraint members. Throws `template_invalid` listing all violations.
 */
export function parseTemplate(input: unknown): ParsedTemplate {
  const v = new Violations();
  if (!isPlainObject(input)) {
    // zhou §4.1: "A schema template is a JSON object".
    throw new ParleyError('template_invalid', `The schema template must be a JSON object, got ${jsonTypeName(input)}`, { path: 'template', rule: 'type' });
  }

  for (const member of Object.keys(input)) {
    if (!(TEMPLATE_MEMBERS as readonly string[]).includes(member) && input[member] !== undefined) {
      v.add(joinPath('', member), 'unknown_member', `${member} is not a schema template member; allowed: ${TEMPLATE_MEMBERS.join(', ')}`);
    }
  }

  // zhou §4.1: schema_id REQUIRED, a string identifying the schema version.
  const schemaId = input.schema_id;
  if (requiredString(v, 'schema_id', schemaId) && !SCHEMA_ID_PATTERN.test(schemaId as string)) {
    v.add('schema_id', 'schema_id_format', `schema_id ${preview(schemaId)} must be 1-128 characters of letters, digits, "_", "." or "-", starting with a letter or digit (e.g. "flight_booking_v1")`);
  }

  // zhou §4.1: scenario REQUIRED, a human-readable string; its slug is the canonical scenario id.
  const scenario = input.scenario;
  if (requiredString(v, 'scenario', scenario)) {
    const s = scenario as string;
    if (s.length > MAX_SCENARIO_LENGTH) {
      v.add('scenario', 'max_length', `scenario must be at most ${MAX_SCENARIO_LENGTH} characters, got ${s.length}`);
    } else {
      try {
        scenarioId(s, { type: 'template_invalid', path: 'scenario' });
      } catch (e) {
        v.add('scenario', 'scenario_slug', (e as Error).message);
      }
    }
  }

  // zhou §4.1: keys REQUIRED, an array of key definition objects.
  const keys = input.keys;
  const names = new Map<string, number>();
  if (keys === undefined) {
    v.add('keys', 'required', 'keys is required: an array of key definitions (zhou §4.1)');
  } else if (!Array.isArray(keys)) {
    v.add('keys', 'type', `keys must be an array of key definitions, got ${jsonTypeName(keys)}`);
  } else if (keys.length === 0) {
    v.add('keys', 'non_empty', 'keys must contain at least one key definition');
  } else {
    keys.forEach((def, i) => checkKeyDefinition(v, def, `keys[${i}]`, i, names));
  }

  if (v.size > 0) {
    const first = v.list[0] as Violation;
    const more = v.size > 1 ? ` (and ${v.size - 1} more violation${v.size > 2 ? 's' : ''})` : '';
    throw new ParleyError('template_invalid', `${first.path}: ${first.message}${more}`, { path: first.path, rule: first.rule, violations: v.list });
  }

  // Valid: clone, members in input order, dropping only undefined members.
  const template = cloneDefined(input) as unknown as SchemaTemplate;
  const notes: string[] = [];
  if (!names.has(OTHER_KEY)) {
    // zhou §4.3: "The key named "other" is reserved within every schema template".
    template.keys.push(standardOtherKey());
    notes.push(`zhou §4.3: the template had no "other" key; appended the standard optional string key "other" (every schema template reserves it).`);
  }
  return { template, notes };
}

/**
 * zhou §6.2.2 / §6.2.3: `experimental` and `deprecated` describe keys a schema
 * patch added; a base template (published, immutable) cannot carry them. Throws
 * `template_invalid` (rule `patch_only_member`) naming every flagged key, at
 * `<basePath>.keys[i].<member>`.
 */
export function assertNoPatchOnlyMembers(template: SchemaTemplate, basePath = 'template'): void {
  const v = new Violations();
  template.keys.forEach((k, i) => {
    for (const m of PATCH_ONLY_MEMBERS) {
      if ((k as unknown as Record<string, unknown>)[m] !== undefined) {
        v.add(
          `${basePath}.keys[${i}].${m}`,
          'patch_only_member',
          `${m} is a lifecycle flag of keys added by schema patches (zhou §6.2.3); a base template cannot carry it: publish the key without it`,
        );
      }
    }
  });
  if (v.size > 0) {
    const first = v.list[0] as Violation;
    const more = v.size > 1 ? ` (and ${v.size - 1} more violation${v.size > 2 ? 's' : ''})` : '';
    throw new ParleyError('template_invalid', `${first.path}: ${first.message}${more}`, { path: first.path, rule: first.rule, violations: v.list });
  }
}

/** Checks a REQUIRED non-empty string member; true when it is one. */
function requiredString(v: Violations, path: string, value: unknown): boolean {
  if (value === undefined) {
    v.add(path, 'required', `${path} is required (zhou §4.1)`);
    return false;
  }
  if (typeof value !== 'string') {
    v.add(path, 'type', `${path} must be a string, got ${jsonTypeName(value)}`);
    return false;
  }
  if (value.trim() === '') {
    v.add(path, 'non_empty', `${path} must not be empty`);
    return false;
  }
  return true;
}

function checkKeyDefinition(v: Violations, def: unknown, p: string, index: number, names: Map<string, number>): void {
  if (!isPlainObject(def)) {
    v.add(p, 'type', `${p} must be a key definition object, got ${jsonTypeName(def)}`);
    return;
  }
  const before = v.size;

  for (const member of Object.keys(def)) {
    if (!(KEY_DEFINITION_MEMBERS as readonly string[]).includes(member) && def[member] !== undefined) {
      v.add(joinPath(p, member), 'unknown_member', `${member} is not a key definition member; allowed: ${KEY_DEFINITION_MEMBERS.join(', ')}`);
    }
  }

  // zhou §4.1 key_name: REQUIRED, snake_case, unique within the schema.
  const name = def.key_name;
  let keyName: string | undefined;
  if (name === undefined) {
    v.add(`${p}.key_name`, 'required', `${p}.key_name is required (zhou §4.1)`);
  } else if (typeof name !== 'string') {
    v.add(`${p}.key_name`, 'type', `${p}.key_name must be a string, got ${jsonTypeName(name)}`);
  } else if ((RESERVED_KEY_NAMES as readonly string[]).includes(name.toLowerCase())) {
    v.add(`${p}.key_name`, 'reserved_name', `key_name ${preview(name)} is reserved (it collides with JavaScript object machinery); choose another name`);
  } else if (name.length > MAX_KEY_NAME_LENGTH) {
    v.add(`${p}.key_name`, 'max_length', `key_name must be at most ${MAX_KEY_NAME_LENGTH} characters, got ${name.length}`);
  } else if (!KEY_NAME_PATTERN.test(name)) {
    v.add(`${p}.key_name`, 'snake_case', `key_name ${preview(name)} must be snake_case: lowercase letters and digits in words joined by single "_", starting with a letter (e.g. "passenger_count")`);
  } else if (names.has(name)) {
    v.add(`${p}.key_name`, 'unique', `key_name "${name}" is already defined at keys[${names.get(name)}]; key names MUST be unique within the schema (zhou §4.1)`);
  } else {
    names.set(name, index);
    keyName = name;
  }

  // zhou §4.1 key_type: REQUIRED, a JSON Schema type identifier.
  const keyType = checkKeyType(v, `${p}.key_type`, def.key_type, true);

  // zhou §4.1 semantic_description: REQUIRED (and §4.2: every key MUST carry one).
  requiredString(v, `${p}.semantic_description`, def.semantic_description);

  // chang §3.2: the optional section is descriptive content, an object of anything JSON.
  if (def.optional !== undefined && !isPlainObject(def.optional)) {
    v.add(`${p}.optional`, 'type', `${p}.optional must be an object (the ADOL optional section, e.g. {"examples": [...]}), got ${jsonTypeName(def.optional)}`);
  }

  // zhou §7: the security-relevance flag is a boolean.
  if (def.security_relevant !== undefined && typeof def.security_relevant !== 'boolean') {
    v.add(`${p}.security_relevant`, 'type', `${p}.security_relevant must be a boolean (zhou §7: the key touches payment, identity or access control), got ${jsonTypeName(def.security_relevant)}`);
  }

  // zhou §6.2.3: the lifecycle flags are booleans, and a key is in one state at a time.
  for (const m of PATCH_ONLY_MEMBERS) {
    const f = def[m];
    if (f !== undefined && typeof f !== 'boolean') v.add(`${p}.${m}`, 'type', `${p}.${m} must be a boolean (zhou §6.2.3 "${m}: true"), got ${jsonTypeName(f)}`);
  }
  if (def.experimental === true && def.deprecated === true) {
    v.add(`${p}.deprecated`, 'flag_conflict', `${p} cannot be both experimental and deprecated: a patch key is in one lifecycle state at a time (zhou §6.2.3)`);
  }

  // zhou §4.1 required: REQUIRED boolean.
  const required = def.required;
  if (required === undefined) {
    v.add(`${p}.required`, 'required', `${p}.required is required: true when the key MUST be present in the payload (zhou §4.1)`);
  } else if (typeof required !== 'boolean') {
    v.add(`${p}.required`, 'type', `${p}.required must be a boolean, got ${jsonTypeName(required)}`);
  }

  const isOther = keyName === OTHER_KEY;
  if (isOther) {
    checkOtherKey(v, def, p, keyType);
  } else if (keyType !== undefined) {
    checkConstraints(v, def, p, keyType);
  }

  // zhou §4.1 default_value: OPTIONAL; "used when the key is omitted and not required".
  const dflt = def.default_value;
  if (dflt !== undefined && dflt !== null) {
    if (isOther) {
      v.add(`${p}.default_value`, 'default_value', 'the "other" key may not carry a default (only null): it holds what the client could not map (zhou §4.3)');
    } else if (required === true) {
      v.add(`${p}.default_value`, 'default_value', `a required key cannot carry a non-null default_value: a default applies only "when the key is omitted and not required" (zhou §4.1)`);
    } else if (v.size === before && keyType !== undefined) {
      // Only when the definition itself is sound, so one mistake is not reported twice.
      const problem = checkValue(def as unknown as KeyDefinition, dflt);
      if (problem) v.add(`${p}.default_value`, 'default_value', `default_value ${preview(dflt)} ${problem}`);
    }
  }
}

function checkKeyType(v: Violations, path: string, t: unknown, isRequired: boolean): KeyType | undefined {
  if (t === undefined) {
    if (isRequired) v.add(path, 'required', `${path} is required: a JSON Schema type (${KEY_TYPES.join(', ')})`);
    return undefined;
  }
  if (typeof t !== 'string') {
    v.add(path, 'type', `${path} must be a string, got ${jsonTypeName(t)}`);
    return undefined;
  }
  if ((KEY_TYPES as readonly string[]).includes(t)) return t as KeyType;
  const lower = t.toLowerCase();
  const hint = (KEY_TYPES as readonly string[]).includes(lower) ? lower : Object.hasOwn(KEY_TYPE_HINTS, lower) ? KEY_TYPE_HINTS[lower] : undefined;
  v.add(path, 'json_schema_type', `${preview(t)} is not a JSON Schema type identifier; use one of ${KEY_TYPES.join(', ')}${hint ? ` (use "${hint}" for ${preview(t)})` : ''}`);
  return undefined;
}

/** zhou §4.3 rules for the reserved `other` key. */
function checkOtherKey(v: Violations, def: Record<string, unknown>, p: string, keyType: KeyType | undefined): void {
  // zhou §4.3: 'The "other" key MUST be defined as OPTIONAL (required: false).'
  if (def.required === true) {
    v.add(`${p}.required`, 'other_optional', 'the "other" key MUST be defined as OPTIONAL (required: false) (zhou §4.3)');
  }
  // zhou §4.3: 'The value of the "other" key MUST be a string or an array of strings'.
  if (keyType !== undefined && keyType !== 'string' && keyType !== 'array') {
    v.add(`${p}.key_type`, 'other_type', `the "other" key must have key_type "string" or "array" (of strings), got "${keyType}" (zhou §4.3)`);
  }
  if (def.items_type !== undefined && def.items_type !== 'string') {
    v.add(`${p}.items_type`, 'other_type', `the "other" key holds strings: items_type may only be "string" (zhou §4.3)`);
  }
  // zhou §4.3 reserves "other" in every template: it is never a patch key, so it has no lifecycle (§6.2.3).
  for (const m of PATCH_ONLY_MEMBERS) {
    if (def[m] === true) v.add(`${p}.${m}`, 'other_flags', `the "other" key cannot be ${m}: it is reserved in every template (zhou §4.3), never added by a patch (§6.2.3)`);
  }
  // zhou §4.3: servers "MUST accept payloads containing the other key without
  // rejecting the request": a constraint on it could only cause rejections.
  for (const m of CONSTRAINT_MEMBERS) {
    if (m !== 'items_type' && def[m] !== undefined) {
      v.add(`${p}.${m}`, 'other_constraints', `the "other" key cannot carry constraint "${m}": servers MUST accept any string or array of strings in it (zhou §4.3)`);
    }
  }
}

function isNonNegativeInteger(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0;
}

/** Parley's constraint members: each must have the right type and fit key_type. */
function checkConstraints(v: Violations, def: Record<string, unknown>, p: string, keyType: KeyType): void {
  for (const [m, fits] of Object.entries(CONSTRAINT_FITS)) {
    const value = def[m];
    if (value === undefined) continue;
    const path = `${p}.${m}`;
    if (!fits.includes(keyType)) {
      v.add(path, 'constraint_type', `${m} applies only to key_type ${fits.map((f) => `"${f}"`).join(' or ')}, not "${keyType}"`);
      continue;
    }
    switch (m) {
      case 'minimum':
      case 'maximum':
        if (typeof value !== 'number' || !Number.isFinite(value)) v.add(path, 'type', `${m} must be a number, got ${jsonTypeName(value)}`);
        break;
      case 'min_length':
      case 'max_length':
      case 'min_items':
      case 'max_items':
        if (!isNonNegativeInteger(value)) v.add(path, 'type', `${m} must be a non-negative integer, got ${preview(value)}`);
        break;
      case 'pattern':
        if (typeof value !== 'string') {
          v.add(path, 'type', `pattern must be a string, got ${jsonTypeName(value)}`);
        } else {
          try {
            // The same flags Ajv compiles patterns with (unicodeRegExp).
            new RegExp(value, 'u');
          } catch (e) {
            v.add(path, 'pattern_syntax', `pattern ${preview(value)} is not a valid regular expression: ${(e as Error).message}`);
          }
        }
        break;
      case 'format':
        if (typeof value !== 'string') {
          v.add(path, 'type', `format must be a string, got ${jsonTypeName(value)}`);
        } else if (!(SUPPORTED_FORMATS as readonly string[]).includes(value)) {
          v.add(path, 'format_unsupported', `format ${preview(value)} is not supported; use one of ${SUPPORTED_FORMATS.join(', ')}`);
        }
        break;
      case 'items_type':
        checkKeyType(v, path, value, false);
        break;
    }
  }

  for (const [lo, hi] of [
    ['minimum', 'maximum'],
    ['min_length', 'max_length'],
    ['min_items', 'max_items'],
  ] as const) {
    const a = def[lo];
    const b = def[hi];
    if (typeof a === 'number' && typeof b === 'number' && a > b) {
      v.add(`${p}.${lo}`, 'range', `${lo} (${a}) must not exceed ${hi} (${b})`);
    }
  }

  const en = def.enum;
  if (en !== undefined) {
    if (!Array.isArray(en)) {
      v.add(`${p}.enum`, 'type', `enum must be an array of acceptable values, got ${jsonTypeName(en)}`);
    } else if (en.length === 0) {
      v.add(`${p}.enum`, 'non_empty', 'enum must list at least one acceptable value');
    } else {
      en.forEach((item, j) => {
        const path = `${p}.enum[${j}]`;
        if (!isJsonValue(item) || !matchesKeyType(item, keyType)) {
          v.add(path, 'enum_type', `enum value ${preview(item)} is not of key_type "${keyType}"`);
        } else if (en.slice(0, j).some((prev) => deepEqual(prev, item))) {
          v.add(path, 'unique', `enum value ${preview(item)} is listed twice`);
        } else if (findForbiddenKey(item, '')) {
          v.add(path, 'forbidden_key', `enum value ${preview(item)} contains a forbidden property name (__proto__, constructor, prototype)`);
        }
      });
    }
  }
}

type FormatFn = (s: string) => boolean;

function formatChecker(name: string): FormatFn | undefined {
  const f = (fullFormats as Record<string, unknown>)[name];
  const g = isPlainObject(f) && 'validate' in f ? f.validate : f;
  if (g instanceof RegExp) return (s) => g.test(s);
  if (typeof g === 'function') return g as FormatFn;
  return undefined;
}

/**
 * Checks a value against a (sound) key definition: key_type and constraints.
 * Returns what is wrong, or null. Used for default values; payloads go through Ajv.
 */
export function checkValue(def: KeyDefinition, value: unknown): string | null {
  if (!isJsonValue(value)) return 'is not a JSON value';
  if (!matchesKeyType(value, def.key_type)) return `must be of key_type "${def.key_type}", got ${jsonTypeName(value)}`;
  if (def.enum && !def.enum.some((e) => deepEqual(e, value))) return `must be one of ${def.enum.map((e) => preview(e)).join(', ')}`;
  if (typeof value === 'number') {
    if (def.minimum !== undefined && value < def.minimum) return `must be >= ${def.minimum}`;
    if (def.maximum !== undefined && value > def.maximum) return `must be <= ${def.maximum}`;
  }
  if (typeof value === 'string') {
    const n = codePointLength(value);
    if (def.min_length !== undefined && n < def.min_length) return `must be at least ${def.min_length} characters`;
    if (def.max_length !== undefined && n > def.max_length) return `must be at most ${def.max_length} characters`;
    if (def.pattern !== undefined && !new RegExp(def.pattern, 'u').test(value)) return `must match pattern ${def.pattern}`;
    if (def.format !== undefined) {
      const check = formatChecker(def.format);
      if (check && !check(value)) return `must be a valid "${def.format}"`;
    }
  }
  if (Array.isArray(value)) {
    if (def.min_items !== undefined && value.length < def.min_items) return `must have at least ${def.min_items} items`;
    if (def.max_items !== undefined && value.length > def.max_items) return `must have at most ${def.max_items} items`;
    const it = def.items_type;
    if (it !== undefined) {
      const bad = value.findIndex((x) => !matchesKeyType(x, it));
      if (bad >= 0) return `item [${bad}] must be of type "${it}"`;
    }
  }
  const forbidden = findForbiddenKey(value, '');
  if (forbidden) return `contains the forbidden property name at ${forbidden}`;
  return null;
}

/** Clones a JSON-ish object tree, dropping members whose value is undefined. */
function cloneDefined(v: unknown): JsonValue {
  if (Array.isArray(v)) return v.map((x) => cloneDefined(x));
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (x === undefined) continue;
      Object.defineProperty(out, k, { value: cloneDefined(x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return cloneJson(v as JsonValue);
}

// ---------------------------------------------------------------------------
// zhou §4.2: multilingual annotations. A language variant of a template may
// differ from its base only in semantic_description values.

export type KeyShape = Omit<KeyDefinition, 'semantic_description' | 'optional'>;
export interface TemplateShape {
  schema_id: string;
  scenario: string;
  keys: KeyShape[];
}

/**
 * Everything of a template except its semantic descriptions, in canonical
 * member order, `default_value: null` dropped (absent and null both mean "no
 * default"). Two templates have the same shape iff their shapes are deepEqual,
 * and JSON.stringify of a shape is a stable fingerprint.
 */
/** Members that describe rather than constrain: a language variant may differ in them (zhou §4.2). */
const DESCRIPTIVE_MEMBERS: ReadonlySet<string> = new Set(['semantic_description', 'optional']);

export function templateShape(t: SchemaTemplate): TemplateShape {
  return {
    schema_id: t.schema_id,
    scenario: t.scenario,
    keys: t.keys.map((k) => {
      const out: Record<string, unknown> = {};
      for (const m of KEY_DEFINITION_MEMBERS) {
        if (DESCRIPTIVE_MEMBERS.has(m)) continue;
        const x = (k as unknown as Record<string, unknown>)[m];
        if (x === undefined || (m === 'default_value' && x === null)) continue;
        out[m] = cloneJson(x as JsonValue);
      }
      return out as unknown as KeyShape;
    }),
  };
}

/**
 * Asserts that `variant` (the `language` annotation set) has the same shape as
 * `base`: same schema_id, scenario, key names and order, types, required flags,
 * defaults and constraints. Throws `template_invalid` (rule `variant_mismatch`).
 */
export function assertSameShape(base: SchemaTemplate, variant: SchemaTemplate, language: string): void {
  const a = templateShape(base);
  const b = templateShape(variant);
  const v = new Violations();
  const why = `a language variant may differ from its base only in semantic_description values (zhou §4.2)`;
  for (const m of ['schema_id', 'scenario'] as const) {
    if (a[m] !== b[m]) v.add(m, 'variant_mismatch', `${m} is ${preview(b[m])} in the "${language}" variant but ${preview(a[m])} in the base: ${why}`);
  }
  const n = Math.max(a.keys.length, b.keys.length);
  for (let i = 0; i < n; i++) {
    const ka = a.keys[i] as Record<string, unknown> | undefined;
    const kb = b.keys[i] as Record<string, unknown> | undefined;
    if (!ka || !kb) {
      v.add(`keys[${i}]`, 'variant_mismatch', `the "${language}" variant has ${b.keys.length} keys but the base has ${a.keys.length}: ${why}`);
      break;
    }
    for (const m of KEY_DEFINITION_MEMBERS) {
      if (DESCRIPTIVE_MEMBERS.has(m)) continue;
      if (!deepEqual(ka[m], kb[m])) {
        v.add(`keys[${i}].${m}`, 'variant_mismatch', `keys[${i}].${m} is ${preview(kb[m] ?? null)} in the "${language}" variant but ${preview(ka[m] ?? null)} in the base: ${why}`);
      }
    }
  }
  if (v.size > 0) {
    const first = v.list[0] as Violation;
    throw new ParleyError('template_invalid', first.message, { path: first.path, rule: first.rule, violations: v.list, details: { language } });
  }
}
