/**
 * Payload validation (zhou §3.1: the server agent validates incoming payloads
 * against the schema; §3.2 step 4: all REQUIRED keys MUST be present).
 *
 * One Ajv-compiled function per template, from payloadJsonSchema(), so the
 * payload rules (forbidden property names included) live in one JSON Schema.
 * The success path is that function plus a builder generated per template
 * (copy, defaults, per-presence-pattern metadata); `date` is checked by a scan
 * (formats.ts), not ajv-formats' regular expression. The all-errors validator
 * that explains a failure is compiled only on the first failure.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { ParleyError, type Violation } from './errors';
import { addPayloadFormats } from './formats';
import { FORBIDDEN_PROPERTY_NAMES, cloneJson, isPlainObject, joinPath, jsonTypeName, preview } from './json';
import { OTHER_KEY, type JsonObject, type JsonValue, type KeyDefinition, type SchemaTemplate } from './model';
import { payloadJsonSchema } from './payload-schema';
import { parseTemplate } from './template';


/**
 * keys_present, defaults_applied and key_type_correct depend only on which keys
 * are present, so they are frozen and shared by every result with the same
 * keys present: copy them before changing them.
 */
export interface ValidatedPayload {
  /**
   * A new object: the template's keys the client sent, in template order, plus
   * each absent optional key's non-null default_value (deep-copied). The input
   * is never mutated; nested values are shared with it, not copied.
   */
  payload: JsonObject;
  /** Keys the client sent, in template order (parseTemplate appends `other` when a template omits it). */
  keys_present: readonly string[];
  /** Optional keys that were absent and took their non-null default_value (zhou §4.1). */
  defaults_applied: readonly string[];
  /**
   * For each present key, whether its value matches key_type (integer = a whole
   * number); for `other`, whether it is a string or an array of strings (zhou
   * §4.3). Feeds value_type_correctness (zhou §6.2.3). A payload that passed
   * validation has only `true` here.
   */
  key_type_correct: Readonly<Record<string, boolean>>;
  /** `other` as trimmed, non-empty fragments (input to the differential semantic pool, zhou §6.2.1). */
  other_fragments: string[];
}

export interface PayloadValidator {
  readonly schemaId: string;
  readonly template: SchemaTemplate;
  /** The JSON Schema the validator was compiled from (payloadJsonSchema(template)). */
  readonly jsonSchema: JsonObject;
  /** Validates and returns the payload with defaults applied; throws `payload_invalid`. */
  validate(payload: unknown): ValidatedPayload;
  /** Every violation of a payload (empty when valid); never throws. */
  explain(payload: unknown): Violation[];
}

// Two shared Ajv instances: the fast one stops at the first error, the other
// collects them all for the error report. Compiled schemas are removed from
// Ajv's cache right away so an evicted validator can be garbage-collected.
let fastAjv: Ajv2020 | undefined;
let fullAjv: Ajv2020 | undefined;

function makeAjv(allErrors: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors, messages: allErrors });
  addPayloadFormats(ajv);
  return ajv;
}

function compileWith(ajv: Ajv2020, schema: JsonObject): ValidateFunction {
  const fn = ajv.compile(schema);
  ajv.removeSchema(schema);
  return fn;
}

interface KeyPlan {
  name: string;
  required: boolean;
  /** Set when the key is optional with a non-null default (zhou §4.1 default_value). */
  dflt?: JsonValue;
}

/** What depends only on which keys are present: computed once per presence pattern, then shared (frozen). */
interface PresenceMeta {
  keys_present: readonly string[];
  defaults_applied: readonly string[];
  key_type_correct: Readonly<Record<string, boolean>>;
}

/** Presence patterns remembered per validator; beyond this, metadata is computed per call. */
const MAX_PRESENCE_PATTERNS = 1024;

function planFor(k: KeyDefinition): KeyPlan {
  const plan: KeyPlan = { name: k.key_name, required: k.required === true };
  if (!k.required && k.key_name !== OTHER_KEY && k.default_value !== undefined && k.default_value !== null) plan.dflt = k.default_value;
  return plan;
}

type Builder = (src: Record<string, unknown>) => ValidatedPayload;

/**
 * Builds the function that turns a payload Ajv has accepted into a
 * ValidatedPayload. It is generated per template (as Ajv generates its
 * validators) so every property access has a constant name: a generic loop with
 * computed names costs more than the validation itself. Key names are embedded
 * only as JSON string literals; default values are passed in, never inlined.
 *
 * After Ajv accepted the payload every present value has its declared type
 * (and `other` is a string or an array of strings), so key_type_correct is true
 * for each present key; keys_present, defaults_applied and key_type_correct
 * depend only on which keys are present and are shared per presence pattern.
 */
function makeBuilder(plans: KeyPlan[]): Builder {
  const n = plans.length;
  // A dense array for up to 10 keys (1024 patterns), a bounded Map beyond.
  const dense: (PresenceMeta | undefined)[] | undefined = n <= 10 ? new Array<PresenceMeta | undefined>(2 ** n).fill(undefined) : undefined;
  const cache = new Map<number, PresenceMeta>();
  const metaFor = (mask: number): PresenceMeta => {
    const hit = dense ? dense[mask] : cache.get(mask);
    if (hit) return hit;
    const keys_present: string[] = [];
    const defaults_applied: string[] = [];
    plans.forEach((p, i) => {
      if (mask & (2 ** i)) {
        keys_present.push(p.name);
      } else if (p.dflt !== undefined) {
        defaults_applied.push(p.name);
      }
    });
    const meta: PresenceMeta = {
      keys_present: Object.freeze(keys_present),
      defaults_applied: Object.freeze(defaults_applied),
      // Own data members (Object.fromEntries), never a prototype write, whatever the key names.
      key_type_correct: Object.freeze(Object.fromEntries(keys_present.map((n) => [n, true]))),
    };
    if (dense) dense[mask] = meta;
    else if (cache.size < MAX_PRESENCE_PATTERNS) cache.set(mask, meta);
    return meta;
  };

  // Key names come from a parsed template (compilePayloadValidator runs
  // parseTemplate): snake_case, never __proto__/constructor/prototype, so
  // `out[name] = v` and `{ "name": v }` below are plain data properties (the
  // plain loop takes any other template all the same).
  if (n === 0 || n > 30 || plans.some((p) => (FORBIDDEN_PROPERTY_NAMES as readonly string[]).includes(p.name))) return genericBuilder(plans);
  const dflts = plans.map((p) => p.dflt);
  const dflt = (i: number) => (typeof dflts[i] === 'object' ? `clone(dflts[${i}])` : `dflts[${i}]`);
  const lines: string[] = [];
  plans.forEach((p, i) => lines.push(`var v${i} = src[${JSON.stringify(p.name)}];`));
  lines.push(`var mask = ${plans.map((_, i) => `(v${i} !== undefined ? ${2 ** i} : 0)`).join(' | ')};`);
  // The keys every accepted payload has (required ones, which Ajv found defined, and those with a default) up to
  // the first that may be absent are one object literal: the object is made with its shape at once, its
  // members in its own slots, instead of growing a property at a time. The rest are added in template order.
  const lead = plans.findIndex((p) => !p.required && p.dflt === undefined);
  const inLiteral = lead < 0 ? plans.length : lead;
  const members = plans.slice(0, inLiteral).map((p, i) => `${JSON.stringify(p.name)}: ${p.required ? `v${i}` : `v${i} !== undefined ? v${i} : ${dflt(i)}`}`);
  lines.push(`var out = { ${members.join(', ')} };`);
  plans.forEach((p, i) => {
    if (i < inLiteral) return;
    const key = JSON.stringify(p.name);
    lines.push(`if (v${i} !== undefined) { out[${key}] = v${i}; }${p.dflt !== undefined ? ` else { out[${key}] = ${dflt(i)}; }` : ''}`);
  });
  // The pattern's metadata straight from the dense table when there is one (a call less per payload).
  lines.push(dense ? `var m = dense[mask]; if (m === undefined) m = metaFor(mask);` : `var m = metaFor(mask);`);
  lines.push(`var o = src[${JSON.stringify(OTHER_KEY)}], f;`);
  // The common case, other as one string, inline; otherFragments() for the rest.
  lines.push(`if (typeof o === 'string') { o = o.trim(); f = o === '' ? [] : [o]; } else { f = otherFragments(o); }`);
  lines.push(`return { payload: out, keys_present: m.keys_present, defaults_applied: m.defaults_applied, key_type_correct: m.key_type_correct, other_fragments: f };`);
  const factory = new Function('dflts', 'clone', 'metaFor', 'otherFragments', 'dense', `'use strict'; return function buildValidatedPayload(src) {\n${lines.join('\n')}\n};`) as (
    d: unknown[],
    c: typeof cloneJson,
    m: typeof metaFor,
    o: typeof otherFragments,
    t: typeof dense,
  ) => Builder;
  return factory(dflts, cloneJson, metaFor, otherFragments, dense);
}

/** The same as the generated builder, as a plain loop: for templates with more than 30 keys. */
function genericBuilder(plans: KeyPlan[]): Builder {
  return (src) => {
    const out: JsonObject = {};
    const keys_present: string[] = [];
    const defaults_applied: string[] = [];
    for (const p of plans) {
      const v = src[p.name];
      if (v !== undefined) {
        out[p.name] = v as JsonValue;
        keys_present.push(p.name);
      } else if (p.dflt !== undefined) {
        out[p.name] = cloneJson(p.dflt);
        defaults_applied.push(p.name);
      }
    }
    const key_type_correct: Record<string, boolean> = Object.fromEntries(keys_present.map((n) => [n, true]));
    return { payload: out, keys_present, defaults_applied, key_type_correct, other_fragments: otherFragments(src[OTHER_KEY]) };
  };
}

/** Compiles a validator for a template (checked again with parseTemplate). Compile once per schema version; see ValidatorCache. */
export function compilePayloadValidator(input: SchemaTemplate): PayloadValidator {
  // Re-checked here (once per schema version) so a template that skipped
  // parseTemplate — read back from storage, built in code — cannot compile
  // into a validator that admits, say, a key named "constructor".
  const { template } = parseTemplate(input);
  const jsonSchema = payloadJsonSchema(template);
  fastAjv ??= makeAjv(false);
  const fast = compileWith(fastAjv, jsonSchema);
  let full: ValidateFunction | undefined;

  const plans = template.keys.map(planFor);
  const build = makeBuilder(plans);
  const byName = new Map(template.keys.map((k) => [k.key_name, k] as const));
  const knownKeys = plans.map((p) => p.name);

  function explainRich(payload: unknown): RichViolation[] {
    if (!isPlainObject(payload)) return [rootTypeViolation(payload)];
    fullAjv ??= makeAjv(true);
    full ??= compileWith(fullAjv, jsonSchema);
    if (guarded(full, payload)) return [];
    return toViolations(full.errors ?? [], payload, { schemaId: template.schema_id, byName, knownKeys });
  }

  // Violations carry only path, rule and message on the wire.
  const explain = (payload: unknown): Violation[] => explainRich(payload).map(({ path, rule, message }) => ({ path, rule, message }));

  function validate(payload: unknown): ValidatedPayload {
    if (!guarded(fast, payload)) throw payloadError(explainRich(payload), byName);
    return build(payload as Record<string, unknown>);
  }

  return { schemaId: template.schema_id, template, jsonSchema, validate, explain };
}

/**
 * Runs an Ajv validator; a payload nested so deeply that the recursive
 * forbidden-name check exhausts the stack is a payload error, not an internal one.
 */
function guarded(fn: ValidateFunction, payload: unknown): boolean {
  try {
    return fn(payload);
  } catch (e) {
    if (e instanceof RangeError) {
      throw new ParleyError('payload_invalid', 'payload is nested too deeply to validate', { path: 'payload', rule: 'max_depth' });
    }
    throw e;
  }
}

/** `other` as trimmed non-empty strings (zhou §4.3: a string or an array of strings). */
export function otherFragments(v: unknown): string[] {
  if (typeof v === 'string') {
    const s = v.trim();
    return s ? [s] : [];
  }
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v) {
    if (typeof x !== 'string') continue;
    const s = x.trim();
    if (s) out.push(s);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Error reporting: Ajv errors → violations with payload paths and rule ids.

const RULE_BY_KEYWORD: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_key',
  type: 'type',
  enum: 'enum',
  minimum: 'minimum',
  maximum: 'maximum',
  format: 'format',
  pattern: 'pattern',
  minLength: 'min_length',
  maxLength: 'max_length',
  minItems: 'min_items',
  maxItems: 'max_items',
  propertyNames: 'forbidden_key',
  not: 'forbidden_key',
};

/** The Parley rule name of an ajv keyword (the keyword itself when it has none); own members only. */
function ruleOf(keyword: string): string {
  return (Object.hasOwn(RULE_BY_KEYWORD, keyword) ? RULE_BY_KEYWORD[keyword] : undefined) ?? keyword;
}

const FORMAT_HINTS: Record<string, string> = {
  date: 'a date, YYYY-MM-DD, e.g. "2026-05-04"',
  'date-time': 'an RFC 3339 date-time with offset, e.g. "2026-05-04T09:00:00+08:00"',
  time: 'an RFC 3339 time with offset, e.g. "09:00:00+08:00"',
  email: 'an email address',
  uri: 'an absolute URI, e.g. "https://example.com/x"',
  uuid: 'a UUID, e.g. "123e4567-e89b-12d3-a456-426614174000"',
  ipv4: 'an IPv4 address, e.g. "192.0.2.1"',
  ipv6: 'an IPv6 address, e.g. "2001:db8::1"',
  hostname: 'a host name, e.g. "example.com"',
  duration: 'an ISO 8601 duration, e.g. "PT30M"',
};

interface Ctx {
  schemaId: string;
  byName: Map<string, KeyDefinition>;
  knownKeys: string[];
}

interface RichViolation extends Violation {
  allowed?: unknown[];
}

function rootTypeViolation(payload: unknown): Violation {
  return { path: 'payload', rule: 'type', message: `payload must be a JSON object of key-value pairs, got ${jsonTypeName(payload)}` };
}

/** Turns a JSON pointer into `payload.a.b` / `payload.list[2]`, using the data to tell indexes from names. */
function pointerToPath(pointer: string, data: unknown): { path: string; segments: string[]; value: unknown } {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = 'payload';
  let cur: unknown = data;
  for (const seg of segments) {
    if (Array.isArray(cur)) {
      path += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      path = joinPath(path, seg);
      cur = isPlainObject(cur) && Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
    }
  }
  return { path, segments, value: cur };
}

function firstSentence(s: string, max = 140): string {
  const m = /^(.+?[.!?])(\s|$)/.exec(s);
  const out = (m?.[1] ?? s).trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

function rangeNote(def: KeyDefinition | undefined, nested: boolean): string {
  if (!def || nested) return '';
  if (def.minimum !== undefined && def.maximum !== undefined) return `range ${def.minimum}-${def.maximum} from the schema; `;
  if (def.minimum !== undefined) return `minimum ${def.minimum} from the schema; `;
  if (def.maximum !== undefined) return `maximum ${def.maximum} from the schema; `;
  return '';
}

function toViolations(errors: ErrorObject[], payload: Record<string, unknown>, ctx: Ctx): RichViolation[] {
  const out: RichViolation[] = [];
  const seen = new Set<string>();
  const push = (v: RichViolation): void => {
    const id = `${v.path}\u0000${v.rule}`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push(v);
  };

  for (const e of errors) {
    const at = pointerToPath(e.instancePath, payload);
    const topKey = at.segments[0];
    const def = topKey === undefined ? undefined : ctx.byName.get(topKey);
    const nested = at.segments.length > 1;
    const got = at.value;
    const params = e.params as Record<string, unknown>;

    // zhou §4.3: anything wrong inside "other" is one rule: it must be a string or an array of strings.
    if (topKey === OTHER_KEY) {
      push({ path: 'payload.other', rule: 'other_type', message: `payload.other must be a string or an array of strings (zhou §4.3), got ${jsonTypeName(payload[OTHER_KEY])}` });
      continue;
    }

    switch (e.keyword) {
      case 'required': {
        const name = String(params.missingProperty);
        const d = ctx.byName.get(name);
        const what = d ? ` (${d.key_type}): ${firstSentence(d.semantic_description)}` : '';
        push({ path: joinPath(at.path, name), rule: 'required', message: `${joinPath(at.path, name)} is required${what}` });
        break;
      }
      case 'additionalProperties': {
        const name = String(params.additionalProperty);
        const path = joinPath(at.path, name);
        if ((FORBIDDEN_PROPERTY_NAMES as readonly string[]).includes(name)) {
          push(forbidden(path));
        } else {
          push({
            path,
            rule: 'unknown_key',
            message: `${path} is not a key of schema ${ctx.schemaId}; use only ${ctx.knownKeys.join(', ')}, and put intent that fits no key in "other" (zhou §4.3)`,
          });
        }
        break;
      }
      case 'propertyNames':
      case 'not': {
        const name = String(params.propertyName ?? (e as { propertyName?: string }).propertyName ?? '');
        push(forbidden(joinPath(at.path, name)));
        break;
      }
      case 'type':
        if (at.path === 'payload') push(rootTypeViolation(payload));
        else push({ path: at.path, rule: 'type', message: `${at.path} must be of type ${String(params.type)}, got ${jsonTypeName(got)} ${preview(got)}` });
        break;
      case 'enum': {
        const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
        push({
          path: at.path,
          rule: 'enum',
          message: `${at.path} must be one of ${allowed.map((a) => (typeof a === 'string' ? a : preview(a))).join(', ')} (got ${preview(got)})`,
          allowed,
        });
        break;
      }
      case 'minimum':
      case 'maximum':
        push({
          path: at.path,
          rule: e.keyword,
          message: `${at.path} must be ${String(params.comparison)} ${String(params.limit)} (${rangeNote(def, nested)}got ${preview(got)})`,
        });
        break;
      case 'format': {
        const f = String(params.format);
        push({ path: at.path, rule: 'format', message: `${at.path} must be ${(Object.hasOwn(FORMAT_HINTS, f) ? FORMAT_HINTS[f] : undefined) ?? `a valid "${f}"`} (format "${f}"; got ${preview(got)})` });
        break;
      }
      case 'pattern':
        push({ path: at.path, rule: 'pattern', message: `${at.path} must match the pattern ${String(params.pattern)} (got ${preview(got)})` });
        break;
      case 'minLength':
      case 'maxLength':
        push({
          path: at.path,
          rule: ruleOf(e.keyword),
          message: `${at.path} must be ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${String(params.limit)} characters long (got ${typeof got === 'string' ? [...got].length : preview(got)})`,
        });
        break;
      case 'minItems':
      case 'maxItems':
        push({
          path: at.path,
          rule: ruleOf(e.keyword),
          message: `${at.path} must have ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${String(params.limit)} items (got ${Array.isArray(got) ? got.length : preview(got)})`,
        });
        break;
      default:
        push({ path: at.path, rule: ruleOf(e.keyword), message: `${at.path} ${e.message ?? `fails ${e.keyword}`}` });
    }
  }

  // A forbidden property name is reported first: it is a security rejection,
  // and other errors at the same path are noise.
  const forbiddenPaths = new Set(out.filter((v) => v.rule === 'forbidden_key').map((v) => v.path));
  const rest = out.filter((v) => v.rule !== 'forbidden_key' && !forbiddenPaths.has(v.path));
  return [...out.filter((v) => v.rule === 'forbidden_key'), ...rest];
}

function forbidden(path: string): RichViolation {
  return {
    path,
    rule: 'forbidden_key',
    message: `${path} uses a forbidden property name: __proto__, constructor and prototype are rejected at any depth`,
  };
}

function payloadError(violations: RichViolation[], byName: Map<string, KeyDefinition>): ParleyError {
  const first = violations[0] ?? { path: 'payload', rule: 'schema', message: 'payload does not satisfy its schema' };
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more violation${violations.length > 2 ? 's' : ''})` : '';
  const details: Record<string, unknown> = {};
  if (first.allowed) details.allowed = first.allowed;
  const key = /^payload\.([a-z][a-z0-9_]*)/.exec(first.path)?.[1];
  const def = key ? byName.get(key) : undefined;
  if (def) details.semantic_description = def.semantic_description;
  const plain = violations.map((v) => ({ path: v.path, rule: v.rule, message: v.message }));
  const init = { path: first.path, rule: first.rule, violations: plain, ...(Object.keys(details).length > 0 ? { details } : {}) };
  return new ParleyError('payload_invalid', `${first.message}${more}`, init);
}

// ---------------------------------------------------------------------------

export interface ValidatorCacheStats {
  hits: number;
  misses: number;
  compiles: number;
  evictions: number;
}

/**
 * A small LRU of compiled validators keyed by a string such as
 * `${agent}/${schema_id}`. A schema version is immutable, so a key compiles once
 * for as long as it stays among the `maxEntries` most recently used.
 */
export class ValidatorCache {
  readonly maxEntries: number;
  readonly stats: ValidatorCacheStats = { hits: 0, misses: 0, compiles: 0, evictions: 0 };
  private readonly entries = new Map<string, PayloadValidator>();
  private readonly compile: (t: SchemaTemplate) => PayloadValidator;

  constructor(maxEntries = 1000, compile: (t: SchemaTemplate) => PayloadValidator = compilePayloadValidator) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('ValidatorCache maxEntries must be a positive integer');
    this.maxEntries = maxEntries;
    this.compile = compile;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached validator, marked most recently used; undefined on a miss. */
  get(key: string): PayloadValidator | undefined {
    const v = this.entries.get(key);
    if (v) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  /**
   * The cached validator for `key`, compiling `template` on a miss (or when the
   * cached one is for another schema_id). `template` may be a thunk so a hit
   * never loads it.
   */
  getOrCompile(key: string, template: SchemaTemplate | (() => SchemaTemplate)): PayloadValidator {
    const hit = this.get(key);
    if (hit && (typeof template === 'function' || hit.schemaId === template.schema_id)) {
      this.stats.hits++;
      return hit;
    }
    this.stats.misses++;
    const t = typeof template === 'function' ? template() : template;
    const v = this.compile(t);
    this.stats.compiles++;
    this.set(key, v);
    return v;
  }

  set(key: string, validator: PayloadValidator): void {
    this.entries.delete(key);
    this.entries.set(key, validator);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.stats.evictions++;
    }
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
