import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadJsonSchema, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import {
  faultManagementExamplePayload,
  faultManagementTemplate,
  flightBookingExamplePayload,
  flightBookingTemplate,
  photoRetouchExamplePayload,
  photoRetouchTemplate,
} from '@parley/examples';
import { countTokens, dedupSchema, dedupSchemas, dedupTools, deref, derefSchemas, derefTools, type DedupMode, type DedupSchemasResult } from '../src/index';
import { DRAFT_07, compile, defsSchemaListArb, expectViolation, mutate, prng, sample, schemaListArb, toolListArb } from './helpers';

const BASE = 'https://parley.example';
const MODES: DedupMode[] = ['local', 'shared', 'list'];

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** Every `$ref` string in a value (schema positions or not). */
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

/** Validators for the compacted form of schema i, as a client of that mode would assemble it. */
function compiledCompacted(r: DedupSchemasResult, i: number): (v: unknown) => boolean {
  return compile(r.schemas[i]!, r.shared, r.listDefs);
}

describe('dedup → deref is the identity (chang §3.1)', () => {
  for (const mode of MODES) {
    it(`${mode} mode, generated schema lists with repeated fragments`, () => {
      let applied = 0;
      let sharedDocs = 0;
      fc.assert(
        fc.property(schemaListArb, (schemas) => {
          deepFreeze(schemas);
          const r = dedupSchemas(schemas, { mode, baseUrl: BASE });
          sharedDocs += r.shared.length;
          expect(derefSchemas(r)).toEqual(schemas);
          // Never worse than the input: a mode that does not pay leaves it alone.
          expect(r.stats.tokens_after).toBeLessThanOrEqual(r.stats.tokens_before);
          if (r.stats.applied) {
            applied++;
            expect(r.stats.tokens_after).toBeLessThan(r.stats.tokens_before);
          } else expect(r.schemas).toEqual(schemas);
        }),
        { numRuns: 150 },
      );
      // The generator must exercise the factoring at all (list and shared pay across schemas, local within one).
      expect(applied).toBeGreaterThan(0);
      if (mode === 'shared') expect(sharedDocs).toBeGreaterThan(0);
    });
  }

  it('tool lists: derefTools(dedupTools(tools)) equals the tools, in every mode', () => {
    fc.assert(
      fc.property(toolListArb, (tools) => {
        deepFreeze(tools);
        for (const mode of MODES) {
          const r = dedupTools(tools, { mode, baseUrl: BASE });
          expect(derefTools(r)).toEqual(tools);
          expect(r.stats.tokens_after).toBeLessThanOrEqual(r.stats.tokens_before);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('compacted schemas accept exactly the instances the originals accept', () => {
  for (const mode of MODES) {
    // Ajv compiles every schema of every run: slow on a loaded machine, so a longer guard than the default.
    it(`${mode} mode: Ajv (2020-12, or draft-07 where declared) on sampled valid and mutated instances`, { timeout: 90_000 }, () => {
      let valid = 0;
      let invalid = 0;
      let compared = 0;
      let sharedDocs = 0;
      fc.assert(
        fc.property(schemaListArb, fc.integer(), (schemas, seed) => {
          const r = dedupSchemas(schemas, { mode, baseUrl: BASE });
          const rnd = prng(seed);
          sharedDocs += r.shared.length;
          schemas.forEach((s, i) => {
            if (!r.stats.applied) return;
            const original = compile(s);
            const compacted = compiledCompacted(r, i);
            for (let n = 0; n < 6; n++) {
              const inst = sample(s, rnd);
              for (const x of [inst, mutate(inst, rnd), mutate(inst, rnd)]) {
                const ok = original(x);
                expect(compacted(x), JSON.stringify(x)).toBe(ok);
                if (ok) valid++;
                else invalid++;
                compared++;
              }
            }
          });
        }),
        { numRuns: mode === 'shared' ? 80 : 50 },
      );
      if (mode === 'shared') expect(sharedDocs).toBeGreaterThan(0);
      // Both outcomes must occur, or the comparison proves nothing.
      expect(compared).toBeGreaterThan(100);
      expect(valid).toBeGreaterThan(20);
      expect(invalid).toBeGreaterThan(20);
    });
  }
});

/** A fragment long enough that a reference pays: ~60 tokens. */
const BIG: JsonObject = {
  type: 'string',
  description: 'Sort field by number of matches of categories, defaults to best match',
  enum: ['comments', 'reactions', 'reactions-+1', 'reactions--1', 'reactions-smile', 'reactions-thinking_face', 'reactions-heart', 'reactions-tada', 'interactions', 'created', 'updated'],
};

/** A nested object fragment of ~200 tokens, like a search filter shared by several tools. */
const FILTER: JsonObject = {
  type: 'object',
  description: 'Filter the results. Every member is optional; members combine with AND.',
  properties: {
    sort: BIG,
    state: { type: 'string', enum: ['open', 'closed', 'all'], description: 'Filter by state' },
    labels: { type: 'array', items: { type: 'string' }, description: 'Only items carrying all of these labels' },
    since: { type: 'string', description: 'Only items updated at or after this time (ISO 8601 timestamp)' },
  },
  additionalProperties: false,
};

describe('what pays and what does not', () => {
  it('local: a large fragment repeated inside one schema moves to its $defs under a readable name', () => {
    const schema: JsonObject = { type: 'object', properties: { sort: BIG, then_by: BIG, fallback: BIG }, required: ['sort'] };
    const r = dedupSchema(schema);
    expect(r.stats.applied).toBe(true);
    const defs = r.schema.$defs as JsonObject;
    expect(Object.keys(defs)).toHaveLength(1);
    const name = Object.keys(defs)[0]!;
    expect(name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(refsIn(r.schema)).toEqual([`#/$defs/${name}`, `#/$defs/${name}`, `#/$defs/${name}`]);
    expect(countTokens(r.schema)).toBeLessThan(countTokens(schema));
    expect(r.stats.tokens_after).toBe(countTokens([r.schema]));
    expect(deref(r.schema, { added: r.added })).toEqual(schema);
  });

  it('small fragments whose $ref costs as much as they do are left inline (the naive baseline factors them)', () => {
    const small = { type: 'string', description: 'Repository owner' };
    const schema: JsonObject = { type: 'object', properties: Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, small])) };
    const r = dedupSchemas([schema, schema, schema], { mode: 'local' });
    expect(r.stats.applied).toBe(false);
    expect(r.schemas).toEqual([schema, schema, schema]);
    expect(refsIn(r.schemas)).toEqual([]);
  });

  it('2020-12: fragments that differ only in annotations share their core, the annotations stay beside the $ref', () => {
    const core = { type: 'string', enum: BIG.enum! };
    const schema: JsonObject = {
      type: 'object',
      properties: { a: { ...core, description: 'first' }, b: { ...core, description: 'second' }, c: { ...core, title: 'Third' } },
    };
    const r = dedupSchema(schema);
    expect(r.stats.applied).toBe(true);
    const props = r.schema.properties as Record<string, JsonObject>;
    expect(props.a).toEqual({ description: 'first', $ref: expect.stringMatching(/^#\/\$defs\//) });
    expect(props.c).toEqual({ title: 'Third', $ref: props.a!.$ref });
    expect(deref(r.schema, { added: r.added })).toEqual(schema);
  });

  it('draft-07 ignores siblings of $ref, so there every $ref stands alone', () => {
    const core = { type: 'string', enum: BIG.enum! };
    const schema: JsonObject = {
      $schema: DRAFT_07,
      type: 'object',
      properties: { a: { ...core, description: 'first' }, b: { ...core, description: 'second' }, c: core, d: core, e: core },
    };
    const r = dedupSchema(schema);
    expect(r.stats.applied).toBe(true);
    const objectsWithRef: JsonObject[] = [];
    const find = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(find);
      else if (v && typeof v === 'object') {
        if ('$ref' in v) objectsWithRef.push(v as JsonObject);
        Object.values(v).forEach(find);
      }
    };
    find(r.schema);
    expect(objectsWithRef.length).toBeGreaterThanOrEqual(3);
    for (const o of objectsWithRef) expect(Object.keys(o)).toEqual(['$ref']);
    expect((r.schema.properties as JsonObject).a).toEqual({ ...core, description: 'first' });
    expect(deref(r.schema, { added: r.added })).toEqual(schema);
  });

  it('shared: cross-schema fragments become content-addressed documents whose URL is the SHA-256 of their bytes', () => {
    // A reference to `<base>/schemas/sha256-<64 hex>.json` costs ~55 tokens (the hex alone ~40), so
    // only a large fragment pays: here a ~200-token filter object used by four tools.
    const schemas: JsonObject[] = ['s', 't', 'u', 'v'].map((k) => ({ type: 'object', properties: { [k]: FILTER, other: { type: 'number' } }, required: [k] }));
    const local = dedupSchemas(schemas, { mode: 'local' });
    expect(local.stats.applied).toBe(false); // no repetition inside one schema
    const r = dedupSchemas(schemas, { mode: 'shared', baseUrl: `${BASE}/`, urlForm: 'full' });
    expect(r.stats.applied).toBe(true);
    expect(r.shared).toHaveLength(1);
    const doc = r.shared[0]!;
    const hex = createHash('sha256').update(JSON.stringify(doc.schema)).digest('hex');
    expect(doc.url).toBe(`${BASE}/schemas/sha256-${hex}.json`);
    expect(doc.schema).toEqual(FILTER);
    // Each schema stays a plain 2020-12 document pointing at that URL; nothing is left under $defs.
    for (const s of r.schemas) {
      expect(refsIn(s)).toEqual([doc.url]);
      expect(s.$defs).toBeUndefined();
    }
    // Immutable and deterministic: the same content gives the same address.
    expect(dedupSchemas(schemas, { mode: 'shared', baseUrl: BASE, urlForm: 'full' }).shared).toEqual(r.shared);
    expect(r.stats.tokens_after).toBe(countTokens(r.schemas) + countTokens(r.shared));
    expect(derefSchemas(r)).toEqual(schemas);
    // A client holding only the wire form (schemas + documents) gets the same back.
    expect(r.schemas.map((s) => deref(s, { shared: r.shared }))).toEqual(schemas);
  });

  it('list: one $defs for all schemas, as in BASELINES.md', () => {
    const schemas: JsonObject[] = ['x', 'y', 'z'].map((k) => ({ type: 'object', properties: { [k]: BIG } }));
    const r = dedupSchemas(schemas, { mode: 'list' });
    expect(Object.keys(r.listDefs)).toHaveLength(1);
    const name = Object.keys(r.listDefs)[0]!;
    expect(refsIn(r.schemas)).toEqual([`#/$defs/${name}`, `#/$defs/${name}`, `#/$defs/${name}`]);
    expect(r.stats.tokens_after).toBe(countTokens(r.schemas) + countTokens({ $defs: r.listDefs }));
    expect(derefSchemas(r)).toEqual(schemas);
  });
});

describe('short shared URLs (chang §3.1 external reference at the cost of a local one)', () => {
  it('a document is `/s/<8 base64url of its SHA-256>`, relative unless a base URL is given, and pays where the long form did not', () => {
    // A ~60-token fragment in three schemas: 64 hex digits of a URL eat the saving, 8 characters do not.
    const schemas: JsonObject[] = ['x', 'y', 'z'].map((k) => ({ type: 'object', properties: { [k]: BIG } }));
    expect(dedupSchemas(schemas, { mode: 'shared', baseUrl: BASE, urlForm: 'full' }).stats.applied).toBe(false);
    const r = dedupSchemas(schemas, { mode: 'shared' });
    expect(r.stats.applied).toBe(true);
    expect(r.shared).toHaveLength(1);
    const doc = r.shared[0]!;
    const b64 = createHash('sha256').update(JSON.stringify(doc.schema)).digest('base64url').slice(0, 8);
    expect(doc.url).toBe(`/s/${b64}`);
    expect(refsIn(r.schemas)).toEqual([doc.url, doc.url, doc.url]);
    expect(dedupSchemas(schemas, { mode: 'shared', baseUrl: `${BASE}/` }).shared[0]!.url).toBe(`${BASE}/s/${b64}`);
    expect(derefSchemas(r)).toEqual(schemas);
    expect(r.schemas.map((s) => deref(s, { shared: r.shared }))).toEqual(schemas);
  });
});

describe('definitions the input already has (OpenAPI-generated servers)', () => {
  // The shape of a generated server: every tool carries every component schema, a few use some.
  const DEFS: JsonObject = {
    Category: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } } },
    Tag: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string', minLength: 1 } } },
    Pet: {
      type: 'object',
      required: ['name', 'photoUrls'],
      properties: {
        id: { type: 'integer', format: 'int64' },
        name: { type: 'string', example: 'doggie' },
        category: { $ref: '#/$defs/Category' },
        photoUrls: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
        status: { type: 'string', description: 'pet status in the store', enum: ['available', 'pending', 'sold'] },
      },
    },
    Order: { type: 'object', properties: { id: { type: 'integer' }, petId: { type: 'integer' }, quantity: { type: 'integer', minimum: 1 }, status: { type: 'string', enum: ['placed', 'approved', 'delivered'] }, complete: { type: 'boolean', default: false } } },
  };
  const tool = (props: JsonObject): JsonObject => ({ type: 'object', properties: props, $defs: structuredClone(DEFS) });
  const schemas: JsonObject[] = [
    tool({ body: { $ref: '#/$defs/Pet' } }),
    tool({ body: { $ref: '#/$defs/Pet' } }),
    tool({ body: { $ref: '#/$defs/Order' } }),
    tool({ petId: { type: 'integer', description: 'ID of pet to return' } }),
    tool({ orderId: { type: 'integer', description: 'ID of the order' } }),
    tool({ username: { type: 'string', description: 'The name that needs to be fetched' } }),
  ];

  it('local (MCP): each schema keeps only the definitions it references, transitively; deref restores the rest', () => {
    const r = dedupSchemas(schemas, { mode: 'local' });
    expect(Object.keys(r.schemas[0]!.$defs as JsonObject).sort()).toEqual(['Category', 'Pet', 'Tag']);
    expect(Object.keys(r.schemas[2]!.$defs as JsonObject)).toEqual(['Order']);
    for (const i of [3, 4, 5]) expect(r.schemas[i]!.$defs).toBeUndefined();
    expect(Object.keys(r.added[3]!.pruned!).sort()).toEqual(Object.keys(DEFS).sort());
    expect(r.added[3]!.defsRemoved).toBe(true);
    expect(r.stats.tokens_after).toBeLessThan(r.stats.tokens_before * 0.5);
    expect(derefSchemas(r)).toEqual(schemas);
    // What validates does not change: the pruned definitions were unreachable.
    const pet = { name: 'rex', photoUrls: ['u'], category: { id: 1, name: 'dogs' }, tags: [{ id: 2 }], status: 'sold' };
    for (const x of [{ body: pet }, { body: { ...pet, status: 'lost' } }, { body: { ...pet, tags: [{ id: 'x' }] } }, { body: { photoUrls: [] } }]) {
      expect(compile(r.schemas[0]!)(x)).toBe(compile(schemas[0]!)(x));
    }
  });

  it('shared and list: a definition several schemas carry moves out once, and the refs inside it follow it', () => {
    for (const mode of ['shared', 'list'] as const) {
      const r = dedupSchemas(schemas, { mode, baseUrl: BASE });
      const hoisted = r.added[0]!.hoisted!;
      expect(Object.keys(hoisted).sort(), mode).toEqual(['Category', 'Pet', 'Tag']);
      expect(r.schemas[0]!.$defs, mode).toBeUndefined();
      expect((r.schemas[0]!.properties as JsonObject).body, mode).toEqual({ $ref: hoisted.Pet });
      // Pet's own refs now name the moved Category and Tag, not `#/$defs/...` of some tool.
      const pet = mode === 'shared' ? r.shared.find((d) => d.url === hoisted.Pet)!.schema : (r.listDefs[hoisted.Pet!.slice('#/$defs/'.length)] as JsonObject);
      expect(refsIn(pet).sort(), mode).toEqual([hoisted.Category, hoisted.Tag].sort());
      expect(derefSchemas(r), mode).toEqual(schemas);
      const v = compile(r.schemas[0]!, r.shared, r.listDefs);
      const o = compile(schemas[0]!);
      for (const x of [{ body: { name: 'a', photoUrls: [], category: { id: 'no' } } }, { body: { name: 'a', photoUrls: [], tags: [{ id: 3 }] } }]) expect(v(x), mode).toBe(o(x));
    }
  });

  it('shared: two definitions with the same content under different names cannot share a URL, so one stays (and what references it)', () => {
    const twins = schemas.map((sc) => ({ ...sc, $defs: { ...(sc.$defs as JsonObject), Tag: (DEFS.Category as JsonObject) } }));
    const r = dedupSchemas(twins, { mode: 'shared' });
    const moved = Object.keys(r.added[0]!.hoisted ?? {});
    expect(moved).not.toContain('Pet');
    expect(moved.filter((n) => n === 'Category' || n === 'Tag').length).toBeLessThanOrEqual(1);
    expect(derefSchemas(r)).toEqual(twins);
    const list = dedupSchemas(twins, { mode: 'list' });
    expect(Object.keys(list.added[0]!.hoisted!).sort()).toEqual(['Category', 'Pet', 'Tag']);
    expect(derefSchemas(list)).toEqual(twins);
  });

  it('a definition that references itself moves in list mode, and stays local in shared mode (a hash cannot name a cycle)', () => {
    const node: JsonObject = { type: 'object', properties: { label: { type: 'string', description: 'What this node is called in the tree view' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } };
    const s = (p: string): JsonObject => ({ type: 'object', properties: { [p]: { $ref: '#/$defs/Node' } }, $defs: { Node: structuredClone(node) } });
    const schemas2 = [s('a'), s('b'), s('c')];
    const list = dedupSchemas(schemas2, { mode: 'list' });
    expect(list.added[0]!.hoisted).toEqual({ Node: '#/$defs/Node' });
    expect(derefSchemas(list)).toEqual(schemas2);
    const shared = dedupSchemas(schemas2, { mode: 'shared' });
    expect(shared.added[0]!.hoisted).toBeUndefined();
    expect(derefSchemas(shared)).toEqual(schemas2);
  });

  for (const mode of MODES) {
    it(`${mode}: generated lists with definitions blocks: dedup → deref is the identity and Ajv verdicts are unchanged`, { timeout: 90_000 }, () => {
      let moved = 0;
      let pruned = 0;
      let compared = 0;
      let valid = 0;
      fc.assert(
        fc.property(defsSchemaListArb, fc.integer(), (schemas, seed) => {
          deepFreeze(schemas);
          const r = dedupSchemas(schemas, { mode, baseUrl: BASE });
          expect(derefSchemas(r)).toEqual(schemas);
          expect(r.stats.tokens_after).toBeLessThanOrEqual(r.stats.tokens_before);
          for (const a of r.added) {
            if (a.hoisted) moved++;
            if (a.pruned) pruned++;
          }
          const rnd = prng(seed);
          schemas.forEach((s, i) => {
            const original = compile(s);
            const compacted = compile(r.schemas[i]!, r.shared, r.listDefs);
            for (let n = 0; n < 3; n++) {
              const inst = sample(s, rnd);
              for (const x of [inst, mutate(inst, rnd), mutate(inst, rnd)]) {
                const ok = original(x);
                expect(compacted(x), JSON.stringify(x)).toBe(ok);
                compared++;
                if (ok) valid++;
              }
            }
          });
        }),
        { numRuns: 60 },
      );
      expect(pruned).toBeGreaterThan(0);
      if (mode !== 'local') expect(moved).toBeGreaterThan(0);
      expect(valid).toBeGreaterThan(20);
      expect(compared - valid).toBeGreaterThan(20);
    });
  }
});

describe('schemas that already use references', () => {
  // One agent's templates (draft-zhou §4.1): two versions of flight booking, the second with
  // object and array keys, whose payload schemas use Parley's own `$defs.parley_safe_value` refs,
  // two of them with the same long description (a fragment that holds a `$ref` and repeats).
  const PREFS = 'Seat, meal and baggage preferences for this direction of travel, as free-form members, e.g. {"seat": "window", "meal": "vegetarian", "bags": 2}.';
  const v2: SchemaTemplate = {
    ...flightBookingTemplate,
    schema_id: 'flight_booking_v2',
    keys: [
      ...flightBookingTemplate.keys,
      { key_name: 'outbound_preferences', key_type: 'object', required: false, semantic_description: PREFS },
      { key_name: 'return_preferences', key_type: 'object', required: false, semantic_description: PREFS },
      { key_name: 'legs', key_type: 'array', required: false, semantic_description: 'Further legs of a multi-city trip.' },
    ],
  };
  const templates = [flightBookingTemplate, v2, photoRetouchTemplate, faultManagementTemplate];
  const payloads = [
    flightBookingExamplePayload,
    { ...flightBookingExamplePayload, outbound_preferences: { seat: 'window' }, return_preferences: { meal: 'veg' }, legs: [{ to: 'CAN' }] },
    photoRetouchExamplePayload,
    faultManagementExamplePayload,
  ];
  const schemas = templates.map((t) => payloadJsonSchema(t));

  it('the payload schemas of one agent keep their own $defs and refs through dedup → deref, in every mode', () => {
    expect(refsIn(schemas).length).toBeGreaterThan(0); // the premise: they do use $ref
    let applied = 0;
    for (const mode of MODES) {
      const r = dedupSchemas(schemas, { mode, baseUrl: BASE });
      if (r.stats.applied) applied++;
      expect(derefSchemas(r)).toEqual(schemas);
      r.schemas.forEach((s, i) => {
        const original = compile(schemas[i]!);
        const compacted = compile(s, r.shared, r.listDefs);
        const rnd = prng(i + 1);
        const p = payloads[i]!;
        expect(original(p)).toBe(true);
        for (const x of [p, mutate(p, rnd), mutate(p, rnd), mutate(p, rnd), { ...p, return_preferences: { constructor: 1 } }]) {
          expect(compacted(x)).toBe(original(x));
        }
      });
    }
    // The repeated preferences fragment pays (in local mode, inside v2; it holds a same-document ref, so it cannot be shared).
    expect(applied).toBeGreaterThan(0);
    const local = dedupSchemas(schemas, { mode: 'local' });
    expect(local.added[1]!.names).toHaveLength(1);
    expect(Object.keys(local.schemas[1]!.$defs as JsonObject).sort()).toEqual(['parley_safe_value', local.added[1]!.names[0]!].sort());
  });

  it('never replaces a sub-schema that an existing JSON Pointer passes through, nor moves $id/$anchor', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        a: { type: 'array', items: BIG },
        b: { type: 'array', items: BIG },
        c: { $ref: '#/properties/a/items' },
        d: { $anchor: 'dee', ...BIG },
        e: { $anchor: 'eee', ...BIG },
      },
    };
    const r = dedupSchema(schema);
    const props = r.schema.properties as Record<string, JsonObject>;
    // /properties/a is on the pointer's way: it stays an object with `items`.
    expect(props.a!.type).toBe('array');
    expect(props.a!.items).toBeDefined();
    expect(props.d!.$anchor).toBe('dee');
    expect(props.e!.$anchor).toBe('eee');
    expect(deref(r.schema, { added: r.added })).toEqual(schema);
    const v1 = compile(schema);
    const v2 = compile(r.schema);
    for (const x of [{ c: 'comments' }, { c: 'nope' }, { a: ['created'], c: 'created' }, { a: [1] }]) expect(v2(x)).toBe(v1(x));
  });
});

describe('wire-form deref and errors', () => {
  it('without the manifest, deref still inlines everything dedup made (for reference-free input)', () => {
    fc.assert(
      fc.property(schemaListArb, (schemas) => {
        const r = dedupSchemas(schemas, { mode: 'shared', baseUrl: BASE });
        expect(r.schemas.map((s) => deref(s, { shared: r.shared }))).toEqual(schemas);
      }),
      { numRuns: 60 },
    );
  });

  it('typed errors for a non-schema, for the full URL form without a base URL, and for an unknown URL form', () => {
    expectViolation(() => dedupSchemas([{ type: 'object' }, 3 as unknown as JsonObject]), 'invalid_params', 'schemas[1]', 'type');
    expectViolation(() => dedupSchemas([{ type: 'object' }], { mode: 'shared', urlForm: 'full' }), 'invalid_params', 'baseUrl', 'required');
    expectViolation(() => dedupSchemas([{ type: 'object' }], { mode: 'shared', urlForm: 'long' as never }), 'invalid_params', 'urlForm', 'enum');
  });
});

describe('malformed input', () => {
  it('a tool without an inputSchema object is a typed error naming it', () => {
    expectViolation(() => dedupTools([{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b' } as never]), 'invalid_params', '[1].inputSchema', 'required');
  });

  it('a schema with a malformed $ref pointer is left as it is (it could point anywhere)', () => {
    const schema: JsonObject = { type: 'object', properties: { a: BIG, b: BIG, c: BIG, d: { $ref: '#/%E0%A4%A' } } };
    const r = dedupSchema(schema);
    expect(r.stats.applied).toBe(false);
    expect(r.schema).toEqual(schema);
    const clean = dedupSchema({ ...schema, properties: { a: BIG, b: BIG, c: BIG } });
    expect(clean.stats.applied).toBe(true); // the same schema without the bad ref does compact
    expect(deref({ type: 'object', properties: { d: { $ref: '#/$defs/%E0%A4%A' } } })).toEqual({ type: 'object', properties: { d: { $ref: '#/$defs/%E0%A4%A' } } });
  });
});
