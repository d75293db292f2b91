import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  EXPERIMENTAL_KEY_COMMENT,
  ValidatorCache,
  compilePayloadValidator,
  parseTemplate,
  payloadJsonSchema,
  type JsonObject,
  type PayloadValidator,
  type SchemaTemplate,
} from '../src/index';
import { catchParley, deepFreeze, expectViolation, figure } from './helpers';

// A template with one key per constraint kind, and no "other" (parseTemplate appends it).
const TEMPLATE: SchemaTemplate = parseTemplate({
  schema_id: 'payload_test_v1',
  scenario: 'payload tests',
  keys: [
    { key_name: 'code', key_type: 'string', required: true, pattern: '^[A-Z]{3}$', semantic_description: 'Airport code. Example: PEK.' },
    { key_name: 'day', key_type: 'string', required: false, format: 'date', semantic_description: 'Day of travel, YYYY-MM-DD.' },
    { key_name: 'cabin', key_type: 'string', required: false, default_value: 'economy', enum: ['economy', 'business'], semantic_description: 'Cabin class.' },
    { key_name: 'count', key_type: 'integer', required: false, default_value: 1, minimum: 1, maximum: 9, semantic_description: 'Number of passengers. Range: 1-9.' },
    { key_name: 'note', key_type: 'string', required: false, min_length: 2, max_length: 5, semantic_description: 'A short note.' },
    { key_name: 'tags', key_type: 'array', required: false, items_type: 'string', min_items: 1, max_items: 3, semantic_description: 'Tags.' },
    { key_name: 'prefs', key_type: 'object', required: false, default_value: { seat: 'aisle', meals: ['veg'] }, semantic_description: 'Preferences.' },
    { key_name: 'legs', key_type: 'array', required: false, items_type: 'object', semantic_description: 'Legs.' },
    { key_name: 'anything', key_type: 'array', required: false, semantic_description: 'A list of anything.' },
    { key_name: 'ratio', key_type: 'number', required: false, semantic_description: 'A ratio.' },
    { key_name: 'flag', key_type: 'boolean', required: false, semantic_description: 'A flag.' },
  ],
}).template;

const V = compilePayloadValidator(TEMPLATE);
const ok = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ code: 'PEK', ...extra });
const bad = (payload: unknown, path: string, rule: string) => expectViolation(() => V.validate(payload), 'payload_invalid', path, rule);

describe('payload validation: rule ids and paths', () => {
  it('type: the payload must be a JSON object (path payload)', () => {
    for (const p of [null, [], 'x', 3, true, undefined]) {
      const e = bad(p, 'payload', 'type');
      expect(e.message).toContain('JSON object');
    }
  });

  it('§4.1/§3.2 required: all REQUIRED keys MUST be present in the payload', () => {
    const e = bad({}, 'payload.code', 'required');
    expect(e.message).toBe('payload.code is required (string): Airport code.');
    expect(e.details.semantic_description).toBe('Airport code. Example: PEK.');
  });

  it('unknown_key: keys outside the template are rejected, pointing the client to "other"', () => {
    const e = bad(ok({ seat: '12A' }), 'payload.seat', 'unknown_key');
    expect(e.message).toContain('"other"');
  });

  it('type: a value of the wrong key_type (integer = whole number)', () => {
    bad(ok({ count: 2.5 }), 'payload.count', 'type');
    bad(ok({ count: '2' }), 'payload.count', 'type');
    bad(ok({ flag: 'true' }), 'payload.flag', 'type');
    bad(ok({ prefs: [] }), 'payload.prefs', 'type');
    bad(ok({ code: null }), 'payload.code', 'type');
  });

  it('enum: names the allowed values, also in details.allowed', () => {
    const e = bad(ok({ cabin: 'first' }), 'payload.cabin', 'enum');
    expect(e.message).toBe('payload.cabin must be one of economy, business (got "first")');
    expect(e.details.allowed).toEqual(['economy', 'business']);
  });

  it('minimum / maximum: the message states the range from the schema', () => {
    expect(bad(ok({ count: 12 }), 'payload.count', 'maximum').message).toBe('payload.count must be <= 9 (range 1-9 from the schema; got 12)');
    expect(bad(ok({ count: 0 }), 'payload.count', 'minimum').message).toBe('payload.count must be >= 1 (range 1-9 from the schema; got 0)');
  });

  it('format: a date must be a real YYYY-MM-DD date', () => {
    const e = bad(ok({ day: 'next Monday' }), 'payload.day', 'format');
    expect(e.message).toContain('YYYY-MM-DD');
    bad(ok({ day: '2026-02-30' }), 'payload.day', 'format');
    expect(V.validate(ok({ day: '2028-02-29' })).payload.day).toBe('2028-02-29');
  });

  it('pattern', () => {
    expect(bad({ code: 'pek' }, 'payload.code', 'pattern').message).toContain('^[A-Z]{3}$');
  });

  it('min_length / max_length (counted in characters, not UTF-16 units)', () => {
    bad(ok({ note: 'a' }), 'payload.note', 'min_length');
    bad(ok({ note: 'abcdef' }), 'payload.note', 'max_length');
    expect(V.validate(ok({ note: '😀😀😀' })).payload.note).toBe('😀😀😀');
  });

  it('min_items / max_items', () => {
    bad(ok({ tags: [] }), 'payload.tags', 'min_items');
    bad(ok({ tags: ['a', 'b', 'c', 'd'] }), 'payload.tags', 'max_items');
  });

  it('nested paths: array items and object members', () => {
    bad(ok({ tags: ['a', 'b', 3] }), 'payload.tags[2]', 'type');
    bad(ok({ legs: [{ from: 'PEK' }, 'SHA'] }), 'payload.legs[1]', 'type');
    bad(ok({ prefs: JSON.parse('{"a":{"b":{"constructor":1}}}') }), 'payload.prefs.a.b.constructor', 'forbidden_key');
    bad(ok({ legs: [{}, { x: [JSON.parse('{"prototype":0}')] }] }), 'payload.legs[1].x[0].prototype', 'forbidden_key');
  });

  it('lists every violation, the first as path and rule', () => {
    const e = catchParley(() => V.validate({ cabin: 'first', count: 0, seat: 1 }));
    expect(e.violations.map((v) => `${v.path}:${v.rule}`).sort()).toEqual(['payload.cabin:enum', 'payload.code:required', 'payload.count:minimum', 'payload.seat:unknown_key']);
    expect(e.violations[0]).toMatchObject({ path: e.path, rule: e.rule });
    expect(e.message).toContain('and 3 more violations');
    expect(V.explain({ cabin: 'first', count: 0, seat: 1 })).toEqual(e.violations);
  });

  it('explain() returns no violations for a valid payload', () => {
    expect(V.explain(ok())).toEqual([]);
  });
});

describe('forbidden property names (__proto__, constructor, prototype) at any depth', () => {
  it('__proto__ at top level, as JSON.parse makes it an own property', () => {
    const p = JSON.parse('{"code":"PEK","__proto__":{"polluted":true}}') as unknown;
    expect(Object.keys(p as object)).toContain('__proto__');
    const e = bad(p, 'payload.__proto__', 'forbidden_key');
    // Reported once, as forbidden_key, not also as unknown_key.
    expect(e.violations).toHaveLength(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('constructor and prototype at top level', () => {
    bad(JSON.parse('{"code":"PEK","constructor":{"prototype":{}}}'), 'payload.constructor', 'forbidden_key');
    bad(ok({ prototype: 1 }), 'payload.prototype', 'forbidden_key');
  });

  it('__proto__ nested inside an object-typed key', () => {
    bad(ok({ prefs: JSON.parse('{"__proto__":{"polluted":true}}') }), 'payload.prefs.__proto__', 'forbidden_key');
    bad(ok({ prefs: JSON.parse('{"seat":{"__proto__":{}}}') }), 'payload.prefs.seat.__proto__', 'forbidden_key');
  });

  it('inside an array-typed key without items_type', () => {
    bad(ok({ anything: [1, JSON.parse('{"__proto__":1}')] }), 'payload.anything[1].__proto__', 'forbidden_key');
  });

  it('a payload nested too deeply for the recursive check is a payload error (rule max_depth), not a crash', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    bad(ok({ prefs: deep }), 'payload', 'max_depth');
  });

  it('is checked by the compiled schema (the $defs entry), not by an extra walk', () => {
    const schema = payloadJsonSchema(TEMPLATE);
    const ajv = new Ajv2020({ strict: false });
    const raw = ajv.compile(schema);
    expect(raw(ok({ prefs: JSON.parse('{"x":{"__proto__":{}}}') }))).toBe(false);
    expect(raw(ok({ prefs: { x: { proto: {} } } }))).toBe(true);
  });
});

describe('§4.3 "other": server agents MUST accept payloads containing it', () => {
  const withoutOther = compilePayloadValidator({
    schema_id: 'no_other_v1',
    scenario: 'no other',
    keys: [{ key_name: 'k', key_type: 'string', required: false, semantic_description: 'k' }],
  });
  const otherIsArray = compilePayloadValidator(
    parseTemplate({
      schema_id: 'arr_v1',
      scenario: 'arr',
      keys: [{ key_name: 'other', key_type: 'array', items_type: 'string', required: false, semantic_description: 'Fragments.' }],
    }).template,
  );

  it('§4.3 accepts other as a string, even when the template omits it', () => {
    expect(withoutOther.validate({ other: 'window seat' }).other_fragments).toEqual(['window seat']);
    expect(V.validate(ok({ other: 'info outside the current schema scope' })).keys_present).toContain('other');
  });

  it('§4.3 accepts other as an array of strings, even when the template omits it', () => {
    expect(withoutOther.validate({ other: ['window seat', 'quiet cabin'] }).other_fragments).toEqual(['window seat', 'quiet cabin']);
    expect(withoutOther.validate({ other: [] }).other_fragments).toEqual([]);
  });

  it('§4.3 accepts both forms whatever other\'s declared key_type', () => {
    expect(otherIsArray.validate({ other: 'one string' }).other_fragments).toEqual(['one string']);
    expect(otherIsArray.validate({ other: ['a'] }).key_type_correct).toEqual({ other: true });
    const fig2 = compilePayloadValidator(parseTemplate(figure(2)).template);
    const base = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' };
    expect(fig2.validate({ ...base, other: ['window seat', 'extra legroom'] }).other_fragments).toEqual(['window seat', 'extra legroom']);
  });

  it('§4.3 other_fragments are trimmed and empty fragments dropped', () => {
    expect(V.validate(ok({ other: ['  a ', '', '   ', 'b'] })).other_fragments).toEqual(['a', 'b']);
    expect(V.validate(ok({ other: '   ' })).other_fragments).toEqual([]);
    expect(V.validate(ok()).other_fragments).toEqual([]);
  });

  it('§4.3 other that is neither a string nor an array of strings is rejected (rule other_type)', () => {
    for (const o of [5, true, { text: 'x' }, ['a', 2], [['a']], null]) bad(ok({ other: o }), 'payload.other', 'other_type');
    expectViolation(() => withoutOther.validate({ other: { a: 1 } }), 'payload_invalid', 'payload.other', 'other_type');
  });
});

describe('ValidatedPayload', () => {
  it('§4.1 defaults: absent optional keys take their non-null default_value', () => {
    const r = V.validate(ok());
    expect(r.payload).toEqual({ code: 'PEK', cabin: 'economy', count: 1, prefs: { seat: 'aisle', meals: ['veg'] } });
    expect(r.defaults_applied).toEqual(['cabin', 'count', 'prefs']);
    expect(r.keys_present).toEqual(['code']);
  });

  it('§4.1 an absent optional key without default_value is left out: the server agent applies its own default logic or ignores it', () => {
    const r = V.validate(ok());
    for (const k of ['day', 'note', 'tags', 'legs', 'anything', 'ratio', 'flag', 'other']) expect(r.payload).not.toHaveProperty(k);
    expect(r.defaults_applied).not.toContain('day');
  });

  it('§4.1 defaults are not applied to keys the client sent', () => {
    const r = V.validate(ok({ cabin: 'business', count: 3 }));
    expect(r.payload).toMatchObject({ cabin: 'business', count: 3 });
    expect(r.defaults_applied).toEqual(['prefs']);
  });

  it('returns a new object and never mutates the input', () => {
    const input = deepFreeze(ok({ tags: ['a'] }));
    const snapshot = JSON.stringify(input);
    const r = V.validate(input);
    expect(r.payload).not.toBe(input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(input).not.toHaveProperty('cabin');
  });

  it('object defaults are deep copies: one result cannot change another or the template', () => {
    const a = V.validate(ok());
    const b = V.validate(ok());
    expect(a.payload.prefs).not.toBe(b.payload.prefs);
    ((a.payload.prefs as JsonObject).meals as string[]).push('halal');
    expect(b.payload.prefs).toEqual({ seat: 'aisle', meals: ['veg'] });
    expect(TEMPLATE.keys.find((k) => k.key_name === 'prefs')?.default_value).toEqual({ seat: 'aisle', meals: ['veg'] });
  });

  it('keys_present in template order; key_type_correct for each present key', () => {
    const r = V.validate({ flag: false, other: 'x', ratio: 0.5, code: 'SHA', count: 2 });
    expect(r.keys_present).toEqual(['code', 'count', 'ratio', 'flag', 'other']);
    expect(r.key_type_correct).toEqual({ code: true, count: true, ratio: true, flag: true, other: true });
  });

  it('the payload has its keys in template order, defaults in their place, whatever order the client sent', () => {
    const t = parseTemplate({
      schema_id: 'order_v1',
      scenario: 'order',
      keys: [
        { key_name: 'item', key_type: 'string', required: true, semantic_description: 'The item.' },
        { key_name: 'note', key_type: 'string', required: false, semantic_description: 'A note.' },
        { key_name: 'size', key_type: 'string', required: false, default_value: 'M', semantic_description: 'The size.' },
        { key_name: 'extras', key_type: 'object', required: false, default_value: { gift: false }, semantic_description: 'Extras.' },
      ],
    }).template;
    const v = compilePayloadValidator(t);
    const a = v.validate({ extras: { gift: true }, item: 'tee' });
    expect(Object.keys(a.payload)).toEqual(['item', 'size', 'extras']);
    expect(a.payload).toEqual({ item: 'tee', size: 'M', extras: { gift: true } });
    const b = v.validate({ other: 'x', size: 'L', note: 'n', item: 'tee' });
    expect(Object.keys(b.payload)).toEqual(['item', 'note', 'size', 'extras', 'other']);
    expect(b.defaults_applied).toEqual(['extras']);
    // An object default is a copy per payload, never the template's own.
    (b.payload.extras as Record<string, unknown>).gift = true;
    expect(v.validate({ item: 'tee' }).payload.extras).toEqual({ gift: false });
  });

  it('shared per-pattern metadata is frozen so no caller can corrupt another result', () => {
    const r = V.validate(ok());
    expect(Object.isFrozen(r.keys_present)).toBe(true);
    expect(Object.isFrozen(r.defaults_applied)).toBe(true);
    expect(Object.isFrozen(r.key_type_correct)).toBe(true);
    expect(() => (r.keys_present as string[]).push('x')).toThrow(TypeError);
    expect(V.validate(ok()).keys_present).toEqual(['code']);
  });

  for (const n of [12, 31]) {
    it(`behaves the same for a template of ${n} keys (${n > 30 ? 'generic builder' : 'presence patterns in a Map'})`, () => {
      const keys = Array.from({ length: n }, (_, i) => ({
        key_name: `k${i}`,
        key_type: 'integer' as const,
        required: i === 0,
        semantic_description: `Key ${i}.`,
        ...(i % 2 === 1 ? { default_value: i } : {}),
      }));
      const v = compilePayloadValidator({ schema_id: `wide_${n}`, scenario: 'wide', keys });
      const r = v.validate({ k0: 0, k1: 100, other: ['x'] });
      expect(r.keys_present).toEqual(['k0', 'k1', 'other']);
      expect(r.defaults_applied).toEqual(keys.filter((k, i) => i % 2 === 1 && i !== 1).map((k) => k.key_name));
      expect(r.payload.k1).toBe(100);
      expect(r.payload[`k${n - (n % 2 === 0 ? 1 : 2)}`]).toBe(n - (n % 2 === 0 ? 1 : 2));
      expect(r.key_type_correct).toEqual({ k0: true, k1: true, other: true });
      expect(r.other_fragments).toEqual(['x']);
      expectViolation(() => v.validate({ k1: 1 }), 'payload_invalid', 'payload.k0', 'required');
    });
  }

  it('a validator is for a valid template only', () => {
    expectViolation(
      () => compilePayloadValidator({ schema_id: 'x', scenario: 'x', keys: [{ key_name: 'constructor', key_type: 'string', required: false, semantic_description: 'x' }] }),
      'template_invalid',
      'keys[0].key_name',
      'reserved_name',
    );
  });

  it('exposes its schema_id, template and JSON Schema', () => {
    expect(V.schemaId).toBe('payload_test_v1');
    expect(V.template.keys.at(-1)?.key_name).toBe('other');
    expect(V.jsonSchema).toEqual(payloadJsonSchema(TEMPLATE));
  });
});

/** The parts of a payload JSON Schema the tests read. */
interface PayloadSchemaView {
  $schema: string;
  type: string;
  properties: Record<string, Record<string, unknown> & { items?: unknown }>;
  required: string[];
  additionalProperties: boolean;
  $defs?: Record<string, Record<string, unknown>>;
}
const view = (t: SchemaTemplate): PayloadSchemaView => payloadJsonSchema(t) as unknown as PayloadSchemaView;

describe('payloadJsonSchema: the one JSON Schema for validation and MCP inputSchema', () => {
  const schema = view(parseTemplate(figure(2)).template);

  it('an object with one property per key, required keys, no additional properties', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties)).toEqual(['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other']);
    expect(schema.required).toEqual(['origin', 'destination', 'departure_date']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('descriptions are the semantic descriptions; defaults only when non-null', () => {
    expect(schema.properties.passenger_count).toEqual({
      type: 'integer',
      description: "Number of passengers. Range: 1-9. Example mapping: 'two people' -> 2.",
      default: 1,
    });
    expect(schema.properties.origin).not.toHaveProperty('default');
  });

  it('constraint members become JSON Schema keywords', () => {
    const s = view(TEMPLATE);
    expect(s.properties.code).toMatchObject({ type: 'string', pattern: '^[A-Z]{3}$' });
    expect(s.properties.day).toMatchObject({ format: 'date' });
    expect(s.properties.cabin).toMatchObject({ enum: ['economy', 'business'], default: 'economy' });
    expect(s.properties.count).toMatchObject({ minimum: 1, maximum: 9 });
    expect(s.properties.note).toMatchObject({ minLength: 2, maxLength: 5 });
    expect(s.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 });
    expect(s.properties.prefs).toMatchObject({ type: 'object', $ref: '#/$defs/parley_safe_value' });
    expect(s.properties.legs?.items).toEqual({ type: 'object', $ref: '#/$defs/parley_safe_value' });
    expect(s.$defs?.parley_safe_value?.propertyNames).toEqual({ not: { enum: ['__proto__', 'constructor', 'prototype'] } });
  });

  it('§4.3 other is always allowed as a string or an array of strings, even when the template omits it', () => {
    const s = view({ schema_id: 'x', scenario: 'x', keys: [{ key_name: 'k', key_type: 'string', required: true, semantic_description: 'k' }] });
    expect(s.properties.other).toMatchObject({ type: ['string', 'array'], items: { type: 'string' } });
    expect(s.required).toEqual(['k']);
    expect(s).not.toHaveProperty('$defs');
  });
});

describe('payloadJsonSchema: §6.2.3 lifecycle flags of patch keys', () => {
  const flagged = parseTemplate({
    schema_id: 'flags_v1',
    scenario: 'flags',
    keys: [
      { key_name: 'origin', key_type: 'string', required: true, semantic_description: 'Origin.' },
      { key_name: 'seat_preference', key_type: 'string', required: false, semantic_description: 'Seat preference.', experimental: true },
      { key_name: 'meal', key_type: 'string', required: false, semantic_description: 'Meal.', deprecated: true },
      { key_name: 'lounge', key_type: 'boolean', required: false, semantic_description: 'Lounge access.', experimental: false },
    ],
  }).template;
  const s = view(flagged);

  it('a deprecated key carries the JSON Schema `deprecated: true` annotation; an experimental one the experimental $comment', () => {
    expect(s.properties.meal).toMatchObject({ type: 'string', deprecated: true });
    expect(s.properties.seat_preference).toMatchObject({ type: 'string', $comment: EXPERIMENTAL_KEY_COMMENT });
    expect(EXPERIMENTAL_KEY_COMMENT.startsWith('experimental: true')).toBe(true);
    expect(s.properties.origin).not.toHaveProperty('deprecated');
    expect(s.properties.origin).not.toHaveProperty('$comment');
    expect(s.properties.lounge).not.toHaveProperty('$comment');
  });

  it('compiles under Ajv strict mode (no unknown keywords), and the flags never change what validates', () => {
    // allowUnionTypes: `other` is `type: ["string", "array"]` (zhou §4.3), which strictTypes flags on its own.
    const strict = new Ajv2020({ strict: true, allowUnionTypes: true });
    const validate = strict.compile(payloadJsonSchema(flagged));
    expect(validate({ origin: 'PEK', seat_preference: 'window', meal: 'veg' })).toBe(true);
    expect(validate({ origin: 'PEK', seat_preference: 3 })).toBe(false);
    const v = compilePayloadValidator(flagged);
    expect(v.validate({ origin: 'PEK', seat_preference: 'window', meal: 'veg' }).keys_present).toEqual(['origin', 'seat_preference', 'meal']);
  });
});

describe('ValidatorCache', () => {
  const template = (id: string): SchemaTemplate => ({ schema_id: id, scenario: 's', keys: [{ key_name: 'k', key_type: 'string', required: false, semantic_description: 'k' }] });
  const counting = () => {
    let n = 0;
    const compile = (t: SchemaTemplate): PayloadValidator => {
      n++;
      return compilePayloadValidator(t);
    };
    return { compile, count: () => n };
  };

  it('compiles once per key', () => {
    const c = counting();
    const cache = new ValidatorCache(10, c.compile);
    const a = cache.getOrCompile('airline/s_v1', template('s_v1'));
    const b = cache.getOrCompile('airline/s_v1', template('s_v1'));
    expect(b).toBe(a);
    expect(c.count()).toBe(1);
    expect(cache.stats).toEqual({ hits: 1, misses: 1, compiles: 1, evictions: 0 });
    expect(b.validate({ k: 'x' }).payload).toEqual({ k: 'x' });
  });

  it('does not load the template on a hit when given a thunk', () => {
    const cache = new ValidatorCache();
    let loads = 0;
    const load = () => {
      loads++;
      return template('s_v1');
    };
    cache.getOrCompile('a/s_v1', load);
    cache.getOrCompile('a/s_v1', load);
    expect(loads).toBe(1);
    expect(cache.maxEntries).toBe(1000);
  });

  it('evicts the least recently used entry beyond maxEntries', () => {
    const c = counting();
    const cache = new ValidatorCache(2, c.compile);
    cache.getOrCompile('a/1', template('v1'));
    cache.getOrCompile('a/2', template('v2'));
    cache.getOrCompile('a/1', template('v1')); // a/1 is now the most recent
    cache.getOrCompile('a/3', template('v3')); // evicts a/2
    expect(cache.size).toBe(2);
    expect(cache.get('a/2')).toBeUndefined();
    expect(cache.get('a/1')?.schemaId).toBe('v1');
    expect(cache.stats.evictions).toBe(1);
    cache.getOrCompile('a/2', template('v2'));
    expect(c.count()).toBe(4);
  });

  it('recompiles when the cached validator is for another schema_id', () => {
    const c = counting();
    const cache = new ValidatorCache(10, c.compile);
    cache.getOrCompile('k', template('v1'));
    expect(cache.getOrCompile('k', template('v2')).schemaId).toBe('v2');
    expect(c.count()).toBe(2);
  });

  it('rejects a non-positive size', () => {
    expect(() => new ValidatorCache(0)).toThrow(RangeError);
  });
});
