import { describe, expect, it } from 'vitest';
import {
  KEY_TYPES,
  OTHER_KEY,
  STANDARD_OTHER_DESCRIPTION,
  SUPPORTED_FORMATS,
  assertNoPatchOnlyMembers,
  assertSameShape,
  parseTemplate,
  templateShape,
  type KeyDefinition,
  type SchemaTemplate,
} from '../src/index';
import { catchParley, deepFreeze, expectViolation } from './helpers';

type Def = Record<string, unknown>;

const OTHER: Def = { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Anything that fits no key.' };

/** A valid template: a required string, an optional integer with a default, and other. */
function tpl(extraKeys: Def[] = [], over: Def = {}): Record<string, unknown> {
  return {
    schema_id: 'test_v1',
    scenario: 'test scenario',
    keys: [
      { key_name: 'name', key_type: 'string', required: true, semantic_description: 'A name. Example: "Ann".' },
      { key_name: 'count', key_type: 'integer', required: false, default_value: 1, semantic_description: 'How many. Range: 1-9.' },
      ...extraKeys,
      OTHER,
    ],
    ...over,
  };
}

/** A template whose only non-other key is `def` (at keys[0]). */
function one(def: Def): Record<string, unknown> {
  return { schema_id: 'test_v1', scenario: 'test', keys: [{ key_name: 'k', semantic_description: 'A key.', required: false, ...def }, OTHER] };
}

const invalid = (input: unknown, path: string, rule: string) => expectViolation(() => parseTemplate(input), 'template_invalid', path, rule);

describe('§4.1 schema template: top-level members', () => {
  it('§4.1 a schema template is a JSON object', () => {
    for (const bad of [null, [], 'template', 42, true]) invalid(bad, 'template', 'type');
    expect(parseTemplate(tpl()).template.schema_id).toBe('test_v1');
  });

  it('§4.1 schema_id is REQUIRED', () => {
    const t = tpl();
    delete t.schema_id;
    invalid(t, 'schema_id', 'required');
  });

  it('§4.1 schema_id MUST be a non-empty string', () => {
    invalid(tpl([], { schema_id: 7 }), 'schema_id', 'type');
    invalid(tpl([], { schema_id: '' }), 'schema_id', 'non_empty');
    invalid(tpl([], { schema_id: '   ' }), 'schema_id', 'non_empty');
  });

  it('§4.1 schema_id identifies a version: letters, digits, _ . -, at most 128 characters', () => {
    for (const bad of ['flight booking v1', '-v1', '_v1', 'v1/2', 'ü_v1', 'a'.repeat(129)]) invalid(tpl([], { schema_id: bad }), 'schema_id', 'schema_id_format');
    for (const good of ['flight_booking_v1', 'photo_retouch_v2', 'a', 'A.b-c_1', '1x', 'a'.repeat(128)]) {
      expect(parseTemplate(tpl([], { schema_id: good })).template.schema_id).toBe(good);
    }
  });

  it('§4.1 scenario is REQUIRED', () => {
    const t = tpl();
    delete t.scenario;
    invalid(t, 'scenario', 'required');
  });

  it('§4.1 scenario MUST be a non-empty string of at most 128 characters with a canonical id', () => {
    invalid(tpl([], { scenario: ['flight'] }), 'scenario', 'type');
    invalid(tpl([], { scenario: '' }), 'scenario', 'non_empty');
    invalid(tpl([], { scenario: 'x'.repeat(129) }), 'scenario', 'max_length');
    invalid(tpl([], { scenario: '--- !!' }), 'scenario', 'scenario_slug');
    // zhou §4.1 gives both spellings as examples: "flight booking", "photo_retouch".
    for (const good of ['flight booking', 'photo_retouch', 'Flight-Booking', 'x'.repeat(128)]) {
      expect(parseTemplate(tpl([], { scenario: good })).template.scenario).toBe(good);
    }
  });

  it('§4.1 keys is REQUIRED', () => {
    const t = tpl();
    delete t.keys;
    invalid(t, 'keys', 'required');
  });

  it('§4.1 keys MUST be a non-empty array of key definition objects', () => {
    invalid(tpl([], { keys: {} }), 'keys', 'type');
    invalid(tpl([], { keys: [] }), 'keys', 'non_empty');
    invalid(tpl([], { keys: [OTHER, 'name'] }), 'keys[1]', 'type');
    invalid(tpl([], { keys: [null] }), 'keys[0]', 'type');
  });

  it('§4.1 unknown top-level members are rejected', () => {
    invalid(tpl([], { version: 2 }), 'version', 'unknown_member');
    invalid(JSON.parse('{"schema_id":"a","scenario":"b","keys":[{"key_name":"other","key_type":"string","required":false,"semantic_description":"x"}],"__proto__":{}}'), '__proto__', 'unknown_member');
  });
});

describe('§4.1 key definition members', () => {
  it('§4.1 each key definition accepts only known members', () => {
    invalid(one({ key_type: 'string', experimental_flag: true }), 'keys[0].experimental_flag', 'unknown_member');
    invalid(one({ key_type: 'string', description: 'not semantic_description' }), 'keys[0].description', 'unknown_member');
  });

  it('§4.1 key_name is REQUIRED', () => {
    invalid({ schema_id: 'a', scenario: 'b', keys: [{ key_type: 'string', required: true, semantic_description: 'x' }] }, 'keys[0].key_name', 'required');
  });

  it('§4.1 key_name MUST be a string', () => {
    invalid(one({ key_name: 5, key_type: 'string' }), 'keys[0].key_name', 'type');
  });

  it('§4.1 key_name MUST use snake_case', () => {
    for (const bad of ['CabinClass', 'cabinClass', 'cabin-class', 'cabin class', 'cabin__class', '_cabin', 'cabin_', '1cabin', 'Cabin_class', 'café', '']) {
      invalid(one({ key_name: bad, key_type: 'string' }), 'keys[0].key_name', 'snake_case');
    }
    for (const good of ['a', 'cabin_class', 'eye_size_scale', 'ipv4_address', 'x1_2', 'passenger_count']) {
      expect(parseTemplate(one({ key_name: good, key_type: 'string' })).template.keys[0]?.key_name).toBe(good);
    }
  });

  it('§4.1 key_name is at most 64 characters (payload schemas double as LLM tool input schemas)', () => {
    invalid(one({ key_name: 'a'.repeat(65), key_type: 'string' }), 'keys[0].key_name', 'max_length');
    expect(parseTemplate(one({ key_name: 'a'.repeat(64), key_type: 'string' })).template.keys).toHaveLength(2);
  });

  it('§4.1 key names MUST be unique within the schema', () => {
    const e = invalid(tpl([{ key_name: 'name', key_type: 'string', required: false, semantic_description: 'Again.' }]), 'keys[2].key_name', 'unique');
    expect(e.message).toContain('keys[0]');
    // Two "other" keys are duplicates too.
    invalid(tpl([OTHER]), 'keys[3].key_name', 'unique');
  });

  it('§4.1 key_name may not be a JavaScript-reserved property name', () => {
    for (const bad of ['constructor', 'prototype', '__proto__', 'hasownproperty', 'tostring', 'valueof']) {
      invalid(one({ key_name: bad, key_type: 'string' }), 'keys[0].key_name', 'reserved_name');
    }
  });

  it('§4.1 key_type is REQUIRED', () => {
    invalid(one({}), 'keys[0].key_type', 'required');
  });

  it('§4.1 key_type MUST be a JSON Schema type identifier', () => {
    const e = invalid(one({ key_type: 'float' }), 'keys[0].key_type', 'json_schema_type');
    expect(e.message).toContain('use "number"');
    expect(invalid(one({ key_type: 'double' }), 'keys[0].key_type', 'json_schema_type').message).toContain('use "number"');
    expect(invalid(one({ key_type: 'int' }), 'keys[0].key_type', 'json_schema_type').message).toContain('use "integer"');
    expect(invalid(one({ key_type: 'String' }), 'keys[0].key_type', 'json_schema_type').message).toContain('use "string"');
    invalid(one({ key_type: 'datetime' }), 'keys[0].key_type', 'json_schema_type');
    invalid(one({ key_type: ['string', 'null'] }), 'keys[0].key_type', 'type');
    for (const t of KEY_TYPES) expect(parseTemplate(one({ key_type: t })).template.keys[0]?.key_type).toBe(t);
  });

  it('§4.1 semantic_description is REQUIRED', () => {
    invalid({ schema_id: 'a', scenario: 'b', keys: [{ key_name: 'k', key_type: 'string', required: true }] }, 'keys[0].semantic_description', 'required');
  });

  it('§4.2 every key definition MUST carry a non-empty semantic_description string', () => {
    invalid(one({ key_type: 'string', semantic_description: '' }), 'keys[0].semantic_description', 'non_empty');
    invalid(one({ key_type: 'string', semantic_description: ' \n ' }), 'keys[0].semantic_description', 'non_empty');
    invalid(one({ key_type: 'string', semantic_description: { en: 'x' } }), 'keys[0].semantic_description', 'type');
  });

  it('§4.1 required is REQUIRED', () => {
    invalid({ schema_id: 'a', scenario: 'b', keys: [{ key_name: 'k', key_type: 'string', semantic_description: 'x' }] }, 'keys[0].required', 'required');
  });

  it('§4.1 required MUST be a boolean', () => {
    invalid(one({ key_type: 'string', required: 'true' }), 'keys[0].required', 'type');
    invalid(one({ key_type: 'string', required: 1 }), 'keys[0].required', 'type');
    expect(parseTemplate(one({ key_type: 'string', required: true })).template.keys[0]?.required).toBe(true);
  });

  it('§4.1 default_value is OPTIONAL: absent and null both mean no default', () => {
    expect(parseTemplate(one({ key_type: 'string' })).template.keys[0]).not.toHaveProperty('default_value');
    expect(parseTemplate(one({ key_type: 'string', default_value: null })).template.keys[0]?.default_value).toBeNull();
    // Figure 2 gives required keys `"default_value": null`.
    expect(parseTemplate(one({ key_type: 'string', required: true, default_value: null })).template.keys[0]?.required).toBe(true);
  });

  it('§4.1 default_value MUST satisfy key_type', () => {
    invalid(one({ key_type: 'integer', default_value: '1' }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'integer', default_value: 1.5 }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'boolean', default_value: 0 }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'object', default_value: [] }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'array', items_type: 'string', default_value: ['a', 1] }), 'keys[0].default_value', 'default_value');
    const ok: Array<[string, unknown]> = [
      ['string', 'x'],
      ['integer', 3],
      ['number', 2.5],
      ['boolean', false],
      ['array', [1, 'a']],
      ['object', { a: { b: 1 } }],
    ];
    for (const [t, d] of ok) expect(parseTemplate(one({ key_type: t, default_value: d })).template.keys[0]?.default_value).toEqual(d);
  });

  it('§4.1 default_value MUST satisfy the key\'s constraints', () => {
    invalid(one({ key_type: 'string', enum: ['a', 'b'], default_value: 'c' }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'integer', minimum: 1, maximum: 9, default_value: 0 }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'integer', minimum: 1, maximum: 9, default_value: 10 }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'string', format: 'date', default_value: '2026-02-30' }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'string', pattern: '^[A-Z]{3}$', default_value: 'pek' }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'string', max_length: 2, default_value: 'abc' }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'array', min_items: 2, default_value: ['a'] }), 'keys[0].default_value', 'default_value');
    invalid(one({ key_type: 'object', default_value: JSON.parse('{"a":{"__proto__":{"x":1}}}') }), 'keys[0].default_value', 'default_value');
    expect(parseTemplate(one({ key_type: 'string', format: 'date', default_value: '2026-05-04' })).template.keys[0]?.default_value).toBe('2026-05-04');
    expect(parseTemplate(one({ key_type: 'integer', minimum: 1, maximum: 9, default_value: 9 })).template.keys[0]?.default_value).toBe(9);
  });

  it('§4.1 a required key cannot carry a non-null default_value (defaults apply "when the key is omitted and not required")', () => {
    invalid(one({ key_type: 'string', required: true, default_value: 'x' }), 'keys[0].default_value', 'default_value');
  });
});

describe('Parley constraint members (machine-checkable forms of §4.1 semantic descriptions)', () => {
  it('minimum/maximum apply only to integer and number keys', () => {
    invalid(one({ key_type: 'string', minimum: 1 }), 'keys[0].minimum', 'constraint_type');
    invalid(one({ key_type: 'boolean', maximum: 1 }), 'keys[0].maximum', 'constraint_type');
    invalid(one({ key_type: 'integer', minimum: '1' }), 'keys[0].minimum', 'type');
    expect(parseTemplate(one({ key_type: 'number', minimum: 1.0, maximum: 1.5 })).template.keys[0]).toMatchObject({ minimum: 1, maximum: 1.5 });
  });

  it('min_length/max_length/pattern/format apply only to string keys', () => {
    invalid(one({ key_type: 'integer', min_length: 1 }), 'keys[0].min_length', 'constraint_type');
    invalid(one({ key_type: 'array', max_length: 1 }), 'keys[0].max_length', 'constraint_type');
    invalid(one({ key_type: 'number', pattern: '^1' }), 'keys[0].pattern', 'constraint_type');
    invalid(one({ key_type: 'integer', format: 'date' }), 'keys[0].format', 'constraint_type');
    invalid(one({ key_type: 'string', min_length: -1 }), 'keys[0].min_length', 'type');
    invalid(one({ key_type: 'string', max_length: 1.5 }), 'keys[0].max_length', 'type');
  });

  it('items_type/min_items/max_items apply only to array keys', () => {
    invalid(one({ key_type: 'string', items_type: 'string' }), 'keys[0].items_type', 'constraint_type');
    invalid(one({ key_type: 'object', min_items: 1 }), 'keys[0].min_items', 'constraint_type');
    invalid(one({ key_type: 'array', items_type: 'float' }), 'keys[0].items_type', 'json_schema_type');
    expect(parseTemplate(one({ key_type: 'array', items_type: 'string', min_items: 1, max_items: 3 })).template.keys[0]).toMatchObject({ items_type: 'string' });
  });

  it('lower bounds must not exceed upper bounds', () => {
    invalid(one({ key_type: 'integer', minimum: 9, maximum: 1 }), 'keys[0].minimum', 'range');
    invalid(one({ key_type: 'string', min_length: 3, max_length: 2 }), 'keys[0].min_length', 'range');
    invalid(one({ key_type: 'array', min_items: 3, max_items: 2 }), 'keys[0].min_items', 'range');
    expect(parseTemplate(one({ key_type: 'integer', minimum: 3, maximum: 3 })).template.keys[0]).toMatchObject({ minimum: 3, maximum: 3 });
  });

  it('pattern must compile as a regular expression', () => {
    invalid(one({ key_type: 'string', pattern: '([a-z' }), 'keys[0].pattern', 'pattern_syntax');
    invalid(one({ key_type: 'string', pattern: 3 }), 'keys[0].pattern', 'type');
  });

  it('format must be a supported format', () => {
    invalid(one({ key_type: 'string', format: 'phone' }), 'keys[0].format', 'format_unsupported');
    invalid(one({ key_type: 'string', format: 'regex' }), 'keys[0].format', 'format_unsupported');
    for (const f of SUPPORTED_FORMATS) expect(parseTemplate(one({ key_type: 'string', format: f })).template.keys[0]?.format).toBe(f);
  });

  it('enum must be a non-empty array of unique values of key_type', () => {
    invalid(one({ key_type: 'string', enum: 'economy' }), 'keys[0].enum', 'type');
    invalid(one({ key_type: 'string', enum: [] }), 'keys[0].enum', 'non_empty');
    invalid(one({ key_type: 'string', enum: ['a', 1] }), 'keys[0].enum[1]', 'enum_type');
    invalid(one({ key_type: 'integer', enum: [1, 2.5] }), 'keys[0].enum[1]', 'enum_type');
    invalid(one({ key_type: 'string', enum: ['a', 'b', 'a'] }), 'keys[0].enum[2]', 'unique');
    expect(parseTemplate(one({ key_type: 'integer', enum: [1, 2, 3] })).template.keys[0]?.enum).toEqual([1, 2, 3]);
  });
});

describe('§4.3 the reserved "other" key', () => {
  it('§4.3 "other" is reserved within every schema template: appended with a note when missing', () => {
    const { template, notes } = parseTemplate({ schema_id: 'a_v1', scenario: 'a', keys: [{ key_name: 'k', key_type: 'string', required: true, semantic_description: 'x' }] });
    expect(template.keys.map((k) => k.key_name)).toEqual(['k', 'other']);
    expect(template.keys[1]).toEqual({ key_name: 'other', key_type: 'string', required: false, semantic_description: STANDARD_OTHER_DESCRIPTION });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('§4.3');
  });

  it('§4.3 a template that defines "other" keeps its own definition and gets no note', () => {
    const { template, notes } = parseTemplate(tpl());
    expect(notes).toEqual([]);
    expect(template.keys.filter((k) => k.key_name === OTHER_KEY)).toEqual([OTHER]);
  });

  it('§4.3 the "other" key MUST be defined as OPTIONAL (required: false)', () => {
    const e = invalid(tpl([], { keys: [{ ...OTHER, required: true }] }), 'keys[0].required', 'other_optional');
    expect(e.message).toContain('§4.3');
  });

  it('§4.3 the value of "other" MUST be a string or an array of strings: key_type string or array', () => {
    for (const t of ['integer', 'number', 'boolean', 'object', 'null']) invalid(tpl([], { keys: [{ ...OTHER, key_type: t }] }), 'keys[0].key_type', 'other_type');
    invalid(tpl([], { keys: [{ ...OTHER, key_type: 'array', items_type: 'integer' }] }), 'keys[0].items_type', 'other_type');
    expect(parseTemplate(tpl([], { keys: [{ ...OTHER, key_type: 'array', items_type: 'string' }] })).template.keys[0]?.key_type).toBe('array');
    expect(parseTemplate(tpl([], { keys: [{ ...OTHER, key_type: 'array' }] })).template.keys[0]?.key_type).toBe('array');
  });

  it('§4.3 "other" carries no default other than null', () => {
    invalid(tpl([], { keys: [{ ...OTHER, default_value: 'none' }] }), 'keys[0].default_value', 'default_value');
    expect(parseTemplate(tpl([], { keys: [{ ...OTHER, default_value: null }] })).template.keys[0]?.default_value).toBeNull();
  });

  it('§4.3 servers MUST accept any string in "other": no constraint members on it', () => {
    invalid(tpl([], { keys: [{ ...OTHER, max_length: 100 }] }), 'keys[0].max_length', 'other_constraints');
    invalid(tpl([], { keys: [{ ...OTHER, enum: ['a'] }] }), 'keys[0].enum', 'other_constraints');
  });
});

describe('parseTemplate: result and error report', () => {
  it('lists every violation, the first one as the error path and rule', () => {
    const e = catchParley(() =>
      parseTemplate({
        schema_id: '',
        scenario: 'ok',
        keys: [
          { key_name: 'Bad', key_type: 'float', required: 'yes', semantic_description: 'x' },
          { key_name: 'other', key_type: 'string', required: true, semantic_description: 'x' },
        ],
      }),
    );
    expect(e.type).toBe('template_invalid');
    expect(e.violations.map((v) => `${v.path}:${v.rule}`)).toEqual([
      'schema_id:non_empty',
      'keys[0].key_name:snake_case',
      'keys[0].key_type:json_schema_type',
      'keys[0].required:type',
      'keys[1].required:other_optional',
    ]);
    expect({ path: e.path, rule: e.rule }).toEqual({ path: 'schema_id', rule: 'non_empty' });
    expect(e.message).toContain('and 4 more violations');
    expect(e.toJSON().violations).toHaveLength(5);
  });

  it('returns a clone with members in input order and does not touch the input', () => {
    const input = deepFreeze(
      tpl([{ key_name: 'tags', semantic_description: 'Tags.', key_type: 'array', required: false, items_type: 'string', default_value: ['a'] }]),
    );
    const { template } = parseTemplate(input);
    expect(template).toEqual(input);
    expect(template).not.toBe(input);
    expect(template.keys[2]).not.toBe((input.keys as Def[])[2]);
    expect(template.keys[2]?.default_value).not.toBe(((input.keys as Def[])[2] as Def).default_value);
    expect(Object.keys(template.keys[2] as object)).toEqual(['key_name', 'semantic_description', 'key_type', 'required', 'items_type', 'default_value']);
  });

  it('drops members whose value is undefined (they do not survive JSON either)', () => {
    const { template } = parseTemplate(tpl([], { keys: [{ ...OTHER, default_value: undefined }] }));
    expect(Object.keys(template.keys[0] as object)).not.toContain('default_value');
  });
});

describe('§4.2 multilingual annotations: a language variant has the base template\'s shape', () => {
  const base = parseTemplate(
    tpl([{ key_name: 'cabin', key_type: 'string', required: false, default_value: 'economy', enum: ['economy', 'business'], semantic_description: 'Cabin class.' }]),
  ).template;
  const translate = (t: SchemaTemplate): SchemaTemplate => ({ ...t, keys: t.keys.map((k) => ({ ...k, semantic_description: `（中文）${k.semantic_description}` })) });
  const withKey = (t: SchemaTemplate, i: number, patch: Partial<KeyDefinition>): SchemaTemplate => ({ ...t, keys: t.keys.map((k, j) => (j === i ? { ...k, ...patch } : k)) });

  it('§4.2 a variant that changes only semantic_description values passes', () => {
    expect(() => assertSameShape(base, translate(base), 'zh-CN')).not.toThrow();
    expect(templateShape(translate(base))).toEqual(templateShape(base));
  });

  it('§4.2 a variant may not change a key_type, required flag, default or constraint', () => {
    const v = translate(base);
    const e = expectViolation(() => assertSameShape(base, withKey(v, 1, { key_type: 'number' }), 'zh-CN'), 'template_invalid', 'keys[1].key_type', 'variant_mismatch');
    expect(e.message).toContain('zh-CN');
    expect(e.details).toEqual({ language: 'zh-CN' });
    expectViolation(() => assertSameShape(base, withKey(v, 0, { required: false }), 'zh-CN'), 'template_invalid', 'keys[0].required', 'variant_mismatch');
    expectViolation(() => assertSameShape(base, withKey(v, 2, { default_value: 'business' }), 'zh-CN'), 'template_invalid', 'keys[2].default_value', 'variant_mismatch');
    expectViolation(() => assertSameShape(base, withKey(v, 2, { enum: ['economy', 'first'] }), 'zh-CN'), 'template_invalid', 'keys[2].enum', 'variant_mismatch');
    expectViolation(() => assertSameShape(base, withKey(v, 1, { maximum: 9 }), 'zh-CN'), 'template_invalid', 'keys[1].maximum', 'variant_mismatch');
  });

  it('§4.2 a variant keeps schema_id, scenario, key names and key order', () => {
    const v = translate(base);
    expectViolation(() => assertSameShape(base, { ...v, schema_id: 'test_v2' }, 'fr'), 'template_invalid', 'schema_id', 'variant_mismatch');
    expectViolation(() => assertSameShape(base, { ...v, scenario: 'other scenario' }, 'fr'), 'template_invalid', 'scenario', 'variant_mismatch');
    const swapped = { ...v, keys: [v.keys[1], v.keys[0], ...v.keys.slice(2)] as KeyDefinition[] };
    expectViolation(() => assertSameShape(base, swapped, 'fr'), 'template_invalid', 'keys[0].key_name', 'variant_mismatch');
    expectViolation(() => assertSameShape(base, { ...v, keys: v.keys.slice(0, 2) }, 'fr'), 'template_invalid', 'keys[2]', 'variant_mismatch');
  });

  it('templateShape drops semantic_description, treats default_value null as absent and orders members canonically', () => {
    const a = templateShape({ schema_id: 's', scenario: 'x', keys: [{ semantic_description: 'd', required: false, key_type: 'string', key_name: 'other', default_value: null }] });
    expect(JSON.stringify(a)).toBe('{"schema_id":"s","scenario":"x","keys":[{"key_name":"other","key_type":"string","required":false}]}');
  });
});

describe('the ADOL optional section of a key definition (draft-chang §3.2)', () => {
  it('accepts an object of descriptive content and keeps it as published', () => {
    const t = parseTemplate(one({ key_type: 'string', optional: { examples: ["'from Beijing' -> 'PEK'"], notes: 'city names map to the main airport' } })).template;
    expect(t.keys[0]?.optional).toEqual({ examples: ["'from Beijing' -> 'PEK'"], notes: 'city names map to the main airport' });
  });

  it('rejects an optional section that is not an object', () => {
    invalid(one({ key_type: 'string', optional: ['examples'] }), 'keys[0].optional', 'type');
    invalid(one({ key_type: 'string', optional: 'more examples' }), 'keys[0].optional', 'type');
  });

  it('lets a language variant differ in its optional sections, as in its descriptions', () => {
    const base = parseTemplate(tpl()).template;
    const variant = structuredClone(base) as SchemaTemplate;
    variant.keys[0] = { ...variant.keys[0]!, optional: { examples: ['"Anna" -> "Anna"'] } };
    expect(() => assertSameShape(base, variant, 'de')).not.toThrow();
  });
});

describe('§6.2.3 lifecycle flags experimental / deprecated (patch-only members)', () => {
  it('parses them as optional booleans on a key definition (an effective template carries them)', () => {
    const { template } = parseTemplate(tpl([
      { key_name: 'seat_preference', key_type: 'string', required: false, semantic_description: 'Seat preference.', experimental: true },
      { key_name: 'meal', key_type: 'string', required: false, semantic_description: 'Meal.', deprecated: true },
    ]));
    expect(template.keys[2]).toMatchObject({ key_name: 'seat_preference', experimental: true });
    expect(template.keys[3]).toMatchObject({ key_name: 'meal', deprecated: true });
  });

  it('a flag must be a boolean (rule type)', () => {
    invalid(one({ key_type: 'string', experimental: 'yes' }), 'keys[0].experimental', 'type');
    invalid(one({ key_type: 'string', deprecated: 1 }), 'keys[0].deprecated', 'type');
  });

  it('a key is not experimental and deprecated at once (rule flag_conflict)', () => {
    invalid(one({ key_type: 'string', experimental: true, deprecated: true }), 'keys[0].deprecated', 'flag_conflict');
  });

  it('§4.3 the reserved "other" key never carries a lifecycle flag (rule other_flags)', () => {
    invalid({ schema_id: 'a', scenario: 'b', keys: [{ ...OTHER, experimental: true }] }, 'keys[0].experimental', 'other_flags');
  });

  it('assertNoPatchOnlyMembers refuses a base template carrying either flag, naming each key (§6.2.2 base schema, §6.2.3)', () => {
    const { template } = parseTemplate(tpl([{ key_name: 'seat', key_type: 'string', required: false, semantic_description: 'Seat.', experimental: false }]));
    const e = expectViolation(() => assertNoPatchOnlyMembers(template, 'params.template'), 'template_invalid', 'params.template.keys[2].experimental', 'patch_only_member');
    expect(e.message).toContain('§6.2.3');
    const plain = parseTemplate(tpl()).template;
    expect(() => assertNoPatchOnlyMembers(plain)).not.toThrow();
  });

  it('the flags are part of a template shape (a language variant cannot differ in them)', () => {
    const a = parseTemplate(tpl([{ key_name: 'seat', key_type: 'string', required: false, semantic_description: 'Seat.' }])).template;
    const b = parseTemplate(tpl([{ key_name: 'seat', key_type: 'string', required: false, semantic_description: 'Siège.', deprecated: true }])).template;
    expect(() => assertSameShape(a, b, 'fr')).toThrow(/deprecated/);
  });
});

describe('§7 the security_relevant flag of a key definition', () => {
  it('a base template may flag a key; the flag must be a boolean (rule type)', () => {
    const { template } = parseTemplate(tpl([{ key_name: 'card_number', key_type: 'string', required: false, semantic_description: 'Payment card number.', security_relevant: true }]));
    expect(template.keys[2]).toMatchObject({ key_name: 'card_number', security_relevant: true });
    expect(() => assertNoPatchOnlyMembers(template)).not.toThrow();
    invalid(one({ key_type: 'string', security_relevant: 'yes' }), 'keys[0].security_relevant', 'type');
  });
});
