import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadJsonSchema, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import { flightBookingExamplePayload, flightBookingTemplate } from '@parley/examples';
import { dedupSchemas, inlineRefs, inlineToolRefs, type DedupMode } from '../src/index';
import { compile, defsSchemaListArb, expectViolation, loadTools, mutate, prng, sample, schemaListArb } from './helpers';

function refsIn(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refsIn(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refsIn(x, out);
    }
  }
  return out;
}

describe('inlineRefs: schemas with no $ref for clients that do not resolve references', () => {
  for (const mode of ['local', 'shared', 'list'] as DedupMode[]) {
    it(`${mode} dedup output, inlined, has no $ref and validates exactly like the original (non-recursive)`, { timeout: 90_000 }, () => {
      let compared = 0;
      let valid = 0;
      fc.assert(
        fc.property(fc.oneof(schemaListArb, defsSchemaListArb), fc.integer(), (schemas, seed) => {
          const r = dedupSchemas(schemas, { mode });
          const rnd = prng(seed);
          schemas.forEach((s, i) => {
            const flat = inlineRefs(r.schemas[i]!, { shared: r.shared, listDefs: r.listDefs });
            expect(refsIn(flat.schema)).toEqual([]);
            expect(flat.schema.$defs).toBeUndefined();
            const original = compile(s);
            const inlined = compile(flat.schema);
            for (let n = 0; n < 3; n++) {
              const inst = sample(s, rnd);
              for (const x of [inst, mutate(inst, rnd)]) {
                const ok = original(x);
                // Cut recursion only widens: what the original accepts is still accepted.
                if (flat.exact) expect(inlined(x), JSON.stringify(x)).toBe(ok);
                else if (ok) expect(inlined(x)).toBe(true);
                compared++;
                if (ok) valid++;
              }
            }
          });
        }),
        { numRuns: 40 },
      );
      expect(valid).toBeGreaterThan(10);
      expect(compared - valid).toBeGreaterThan(10);
    });
  }

  it('a recursive definition is unrolled once and then cut to {} (Parley’s own parley_safe_value), reported as not exact', () => {
    const t: SchemaTemplate = {
      ...flightBookingTemplate,
      keys: [...flightBookingTemplate.keys, { key_name: 'preferences', key_type: 'object', required: false, semantic_description: 'Seat and meal preferences' }],
    };
    const schema = payloadJsonSchema(t);
    expect(refsIn(schema).length).toBeGreaterThan(0);
    const r = inlineRefs(schema);
    expect(refsIn(r.schema)).toEqual([]);
    expect(r.exact).toBe(false);
    expect(r.cut.every((c) => c.reason === 'recursive' && c.ref === '#/$defs/parley_safe_value')).toBe(true);
    const prefs = (r.schema.properties as Record<string, JsonObject>).preferences!;
    // One level of the forbidden-names rule survives.
    expect(prefs.type).toBe('object');
    expect(prefs.propertyNames).toBeDefined();
    const v = compile(r.schema);
    expect(v({ ...flightBookingExamplePayload, preferences: { seat: 'window' } })).toBe(true);
    expect(v({ ...flightBookingExamplePayload, preferences: { constructor: 1 } })).toBe(false);
    expect(v({ ...flightBookingExamplePayload, unknown_key: 1 })).toBe(false);
  });

  it('siblings of a $ref merge with the target in 2020-12 (allOf where both name a keyword), and are dropped in draft-07', () => {
    const modern = inlineRefs({ type: 'object', properties: { a: { description: 'A', $ref: '#/$defs/x' }, b: { minLength: 2, $ref: '#/$defs/x' } }, $defs: { x: { type: 'string', minLength: 1 } } });
    expect(modern.schema).toEqual({ type: 'object', properties: { a: { description: 'A', type: 'string', minLength: 1 }, b: { minLength: 2, allOf: [{ type: 'string', minLength: 1 }] } } });
    const legacy = inlineRefs({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { description: 'ignored', $ref: '#/definitions/x' } }, definitions: { x: { type: 'string' } } });
    expect(legacy.schema).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } });
  });

  it('pointers into the body, unresolvable refs and $dynamicRef: inlined, or cut and reported', () => {
    const r = inlineRefs({ type: 'object', properties: { a: { type: 'integer', maximum: 3 }, b: { $ref: '#/properties/a' }, c: { $ref: 'https://elsewhere.example/x.json' }, d: { $dynamicRef: '#meta' } } });
    expect(r.schema.properties).toEqual({ a: { type: 'integer', maximum: 3 }, b: { type: 'integer', maximum: 3 }, c: {}, d: {} });
    expect(r.cut).toEqual([
      { ref: 'https://elsewhere.example/x.json', reason: 'unresolved' },
      { ref: '#meta', reason: 'unresolved' },
    ]);
  });

  it('a real generated list (OpenAPI Petstore): every tool without refs, exact, and definitions gone', () => {
    const tools = loadTools('openapi-petstore.json');
    const r = inlineToolRefs(tools);
    expect(r.exact).toBe(true);
    expect(refsIn(r.tools)).toEqual([]);
    for (const t of r.tools) expect(t.inputSchema.$defs).toBeUndefined();
    const addPet = r.tools.find((t) => t.name === 'addPet')!;
    expect(((addPet.inputSchema.properties as JsonObject).body as JsonObject).required).toEqual(['name', 'photoUrls']);
  });

  it('a non-object schema is a typed error', () => {
    expectViolation(() => inlineRefs(3 as unknown as JsonObject), 'invalid_params', 'schema', 'type');
  });
});
