/**
 * Test helpers: realistic schema and tool-list arbitraries (fast-check), a small
 * instance sampler that produces valid instances of the schemas those arbitraries
 * make, a mutator that makes mostly-invalid ones, Ajv compilers for both dialects,
 * and the location of the real MCP tools/list data sets.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { expect } from 'vitest';
import { ParleyError, type ErrorType } from '@parley/protocol';
import type { McpTool, SharedSchema } from '../src/index';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

// ---------------------------------------------------------------------------
// Real data sets
// ---------------------------------------------------------------------------

/** The tool lists vendored into the repository (bench/data/mcp-tools; SOURCES.md there says where each came from). */
export const DATA_DIR = fileURLToPath(new URL('../../../bench/data/mcp-tools/', import.meta.url));

export function dataFiles(): string[] {
  if (!existsSync(DATA_DIR)) throw new Error(`MCP tools/list data sets not found at ${DATA_DIR} (see bench/data/mcp-tools/SOURCES.md)`);
  const files = readdirSync(DATA_DIR).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new Error(`no *.json data sets in ${DATA_DIR}`);
  return files;
}

export function loadTools(file: string): McpTool[] {
  return JSON.parse(readFileSync(`${DATA_DIR}${file}`, 'utf8')) as McpTool[];
}

/** BASELINES.md's table, by server: total tokens and the naive `$defs` saving. */
export function baselines(): Map<string, { tools: number; total: number; defsSaved: number; shortSaved: number }> {
  const text = readFileSync(`${DATA_DIR}BASELINES.md`, 'utf8');
  const out = new Map<string, { tools: number; total: number; defsSaved: number; shortSaved: number }>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | server | tools | total | desc | propDesc | inputSchema | outputSchema | annotations | meta | repeated | $defs saved | short saved |
    if (cells.length < 13 || !/^\d+$/.test(cells[2] ?? '')) continue;
    const num = (s: string | undefined): number => Number((s ?? '').split(' ')[0]);
    out.set(cells[1]!, { tools: num(cells[2]), total: num(cells[3]), defsSaved: num(cells[11]), shortSaved: num(cells[12]) });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export function catchParley(fn: () => unknown): ParleyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, nothing was thrown');
}

export function expectViolation(fn: () => unknown, type: ErrorType, path: string, rule: string): ParleyError {
  const e = catchParley(fn);
  expect({ type: e.type, path: e.path, rule: e.rule }, e.message).toEqual({ type, path, rule });
  return e;
}

// ---------------------------------------------------------------------------
// Ajv
// ---------------------------------------------------------------------------

/** A validator for one schema document in its dialect, with shared documents registered by URL. */
export function compile(schema: Obj, shared: readonly SharedSchema[] = [], extraDefs?: Obj): (v: unknown) => boolean {
  const legacy = typeof schema.$schema === 'string' && schema.$schema.includes('draft-07');
  const ajv = legacy ? new Ajv({ strict: false, validateFormats: false }) : new Ajv2020({ strict: false, validateFormats: false });
  // A shared document declares draft-07 only when cut from draft-07 schemas, which are the only ones that reference it.
  for (const s of shared) if ((typeof s.schema.$schema === 'string' && s.schema.$schema.includes('draft-07')) === legacy) ajv.addSchema(s.schema, s.url);
  let doc = schema;
  if (extraDefs && Object.keys(extraDefs).length) doc = { ...schema, $defs: { ...((schema.$defs as Obj | undefined) ?? {}), ...extraDefs } };
  const v = ajv.compile(doc);
  return (x: unknown) => v(x) as boolean;
}

// ---------------------------------------------------------------------------
// A tiny PRNG so that instance sampling is reproducible from a fast-check seed.
// ---------------------------------------------------------------------------

export { seededRandom as prng } from '@parley/testkit';

const pickOf = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const intIn = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

/**
 * A valid instance of a schema made by `schemaArb` (resolving `#/$defs/x` refs
 * in `root`): the keyword set is the one the arbitraries use.
 */
export function sample(schema: Obj, r: () => number, root: Obj = schema, depth = 0): Json {
  if (typeof schema.$ref === 'string') {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref)!;
    return sample((root[m[1]!] as Obj)[m[2]!] as Obj, r, root, depth + 1);
  }
  if (Array.isArray(schema.anyOf)) return sample(pickOf(r, schema.anyOf) as Obj, r, root, depth + 1);
  if (Array.isArray(schema.enum)) return pickOf(r, schema.enum);
  switch (schema.type) {
    case 'string': {
      const lo = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const hi = typeof schema.maxLength === 'number' ? schema.maxLength : lo + 6;
      return 'abcdefghij'.slice(0, intIn(r, lo, Math.min(hi, 10)));
    }
    case 'integer':
    case 'number': {
      const lo = typeof schema.minimum === 'number' ? schema.minimum : -50;
      const hi = typeof schema.maximum === 'number' ? schema.maximum : lo + 100;
      return intIn(r, lo, hi);
    }
    case 'boolean':
      return r() < 0.5;
    case 'array': {
      const lo = typeof schema.minItems === 'number' ? schema.minItems : 0;
      // Deep down (recursive definitions) arrays stay as short as they may.
      const n = depth > 6 ? lo : intIn(r, lo, Math.max(lo, typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, 3) : 3));
      return Array.from({ length: n }, () => (schema.items ? sample(schema.items as Obj, r, root, depth + 1) : 'x'));
    }
    case 'object': {
      const props = (schema.properties as Obj | undefined) ?? {};
      const req = new Set((schema.required as string[] | undefined) ?? []);
      const out: Obj = {};
      for (const k of Object.keys(props)) {
        if (req.has(k) || (depth < 4 && r() < 0.5)) Object.defineProperty(out, k, { value: sample(props[k] as Obj, r, root, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    default:
      return 'any';
  }
}

/** A copy of `v` with one random change: a wrong type, a dropped or extra member, an out-of-range number, a longer string. */
export function mutate(v: Json, r: () => number): Json {
  const copy = JSON.parse(JSON.stringify(v)) as Json;
  const spots: { parent: Obj | Json[]; key: string | number }[] = [];
  const walk = (x: Json): void => {
    if (Array.isArray(x)) {
      x.forEach((e, i) => {
        spots.push({ parent: x, key: i });
        walk(e);
      });
    } else if (x && typeof x === 'object') {
      for (const k of Object.keys(x)) {
        spots.push({ parent: x, key: k });
        walk(x[k]!);
      }
    }
  };
  walk(copy);
  const replacements: Json[] = [12345, -999, 'zzzzzzzzzzzzzzzz', true, null, [], {}];
  if (spots.length === 0 || r() < 0.15) return pickOf(r, replacements);
  const s = pickOf(r, spots);
  const op = r();
  if (!Array.isArray(s.parent) && op < 0.3) delete (s.parent as Obj)[s.key as string];
  else if (!Array.isArray(s.parent) && op < 0.45) (s.parent as Obj).unexpected_member = 1;
  else (s.parent as Record<string | number, Json>)[s.key] = pickOf(r, replacements);
  return copy;
}

// ---------------------------------------------------------------------------
// Arbitraries: schemas that look like MCP tool schemas, with repeated fragments.
// ---------------------------------------------------------------------------

const PROP_NAMES = ['owner', 'repo', 'page', 'perPage', 'query', 'state', 'sort', 'order', 'labels', 'body', 'path', 'ref', 'title', 'description', '$ref', 'items', 'a/b', 'x~y'] as const;
const WORDS = ['Repository owner', 'Repository name', 'Page number for pagination (min 1)', 'Results per page for pagination (min 1, max 100)', 'Sort order', 'Filter by state', 'A path', 'The git ref', 'Labels to apply'] as const;

const description = fc.constantFrom(...WORDS);
const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

function clean(o: Record<string, unknown>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v as Json;
  return out;
}

const stringSchema: fc.Arbitrary<Obj> = fc
  .record({
    description: maybe(description),
    title: maybe(fc.constantFrom('Owner', 'Name')),
    enum: maybe(fc.uniqueArray(fc.constantFrom('open', 'closed', 'all', 'asc', 'desc', 'created', 'updated'), { minLength: 2, maxLength: 5 })),
    minLength: maybe(fc.integer({ min: 0, max: 3 })),
    maxLength: maybe(fc.integer({ min: 4, max: 9 })),
  })
  .map((r) => {
    const s = clean({ ...r, type: 'string' });
    if (s.enum) {
      delete s.minLength;
      delete s.maxLength;
    }
    return s;
  });

const numberSchema: fc.Arbitrary<Obj> = fc
  .record({
    type: fc.constantFrom('number', 'integer'),
    description: maybe(description),
    minimum: maybe(fc.integer({ min: 0, max: 5 })),
    maximum: maybe(fc.integer({ min: 10, max: 100 })),
    default: maybe(fc.integer({ min: 5, max: 10 })),
  })
  .map((r) => clean(r));

const boolSchema: fc.Arbitrary<Obj> = fc.record({ description: maybe(description) }).map((r) => clean({ ...r, type: 'boolean' }));

const leaf: fc.Arbitrary<Obj> = fc.oneof({ weight: 3, arbitrary: stringSchema }, { weight: 2, arbitrary: numberSchema }, { weight: 1, arbitrary: boolSchema });

/** A sub-schema: a leaf, an array of leaves, a small object, or an anyOf. */
export const fragmentArb: fc.Arbitrary<Obj> = fc.letrec<{ frag: Obj; obj: Obj }>((tie) => ({
  frag: fc.oneof(
    { weight: 5, arbitrary: leaf },
    { weight: 2, arbitrary: fc.record({ items: tie('frag'), description: maybe(description), minItems: maybe(fc.integer({ min: 0, max: 2 })) }).map((r) => clean({ type: 'array', ...r })) },
    { weight: 1, arbitrary: tie('obj') },
    { weight: 1, arbitrary: fc.tuple(leaf, leaf).map(([a, b]) => ({ anyOf: [a, b] }) as Obj) },
  ),
  obj: fc
    .record({
      props: fc.dictionary(fc.constantFrom(...PROP_NAMES), tie('frag'), { minKeys: 1, maxKeys: 4 }),
      req: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      closed: fc.boolean(),
      description: maybe(description),
    })
    .map(({ props, req, closed, description: d }) => {
      const names = Object.keys(props);
      const o: Obj = { type: 'object', properties: props };
      const required = names.filter((_, i) => req[i]);
      if (required.length) o.required = required;
      if (closed) o.additionalProperties = false;
      if (d) o.description = d;
      return o;
    }),
})).frag;

/** A larger object fragment (~80-200 tokens), like a filter or an address shared by several tools: the kind that pays even as a URL reference. */
export const largeFragmentArb: fc.Arbitrary<Obj> = fc
  .record({
    props: fc.dictionary(fc.constantFrom(...PROP_NAMES), leaf.map((l) => ({ description: 'Only items whose member matches this value exactly', ...l })), { minKeys: 3, maxKeys: 5 }),
    description: description,
  })
  .map(({ props, description: d }) => ({ type: 'object', description: d, properties: props }) as Obj);

/**
 * A list of tool input schemas built from a shared pool of fragments, so that
 * identical sub-schemas (and ones differing only in `description`) repeat within
 * and across schemas, as in real MCP servers (BASELINES.md: 12.8% of GitHub's
 * properties are repeats). Some schemas declare draft-07, as zod-to-json-schema does.
 */
export const schemaListArb: fc.Arbitrary<Obj[]> = fc
  .record({
    pool: fc.array(fc.oneof({ weight: 3, arbitrary: fragmentArb }, { weight: 1, arbitrary: largeFragmentArb }), { minLength: 1, maxLength: 4 }),
    legacy: fc.boolean(),
  })
  .chain(({ pool, legacy }) =>
    fc.array(
      fc
        .record({
          props: fc.dictionary(
            fc.constantFrom(...PROP_NAMES),
            fc.oneof(
              { weight: 4, arbitrary: fc.nat({ max: pool.length - 1 }).map((i) => structuredClone(pool[i]!)) },
              { weight: 2, arbitrary: fc.tuple(fc.nat({ max: pool.length - 1 }), description).map(([i, d]) => ({ ...structuredClone(pool[i]!), description: d })) },
              { weight: 1, arbitrary: fragmentArb },
            ),
            { minKeys: 1, maxKeys: 7 },
          ),
          req: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
          draft07: fc.boolean(),
          title: maybe(fc.constantFrom('ListIssues', 'GetFile')),
        })
        .map(({ props, req, draft07, title }) => {
          const s: Obj = {};
          if (legacy && draft07) s.$schema = DRAFT_07;
          s.type = 'object';
          s.properties = props;
          const required = Object.keys(props).filter((_, i) => req[i]);
          if (required.length) s.required = required;
          if (title) s.title = title;
          return s;
        }),
      { minLength: 1, maxLength: 8 },
    ),
  );

/** MCP tools around those schemas, with the members a short view moves out. */
export const toolListArb: fc.Arbitrary<McpTool[]> = schemaListArb.chain((schemas) =>
  fc.tuple(
    ...schemas.map((inputSchema, i) =>
      fc
        .record({
          title: maybe(fc.constantFrom('List issues', 'Get file')),
          annotations: maybe(fc.record({ readOnlyHint: fc.boolean(), title: maybe(fc.constantFrom('Read', 'Write')) }).map((a) => clean(a))),
          outputSchema: maybe(fragmentArb.map((f) => ({ type: 'object', properties: { result: f } }) as Obj)),
          icons: maybe(fc.constant([{ src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' }] as Json[])),
          execution: maybe(fc.constantFrom({ taskSupport: 'forbidden' }, { taskSupport: 'required' })),
          _meta: maybe(fc.constant({ 'io.example/x': 1 } as Obj)),
        })
        .map((m) => ({ name: `tool_${i}`, description: `Tool ${i}`, inputSchema, ...clean(m) }) as McpTool),
    ),
  ),
);

/**
 * Schemas shaped like an OpenAPI-generated MCP server's (FastMCP before it pruned):
 * every schema carries the same `$defs` block of component schemas, which
 * reference each other (`Pet` → `Category`, and a recursive `Node`), and each
 * schema references some of them or none. Some schemas carry a variant block
 * (one definition changed), so not every block is identical.
 */
export const defsSchemaListArb: fc.Arbitrary<Obj[]> = fc
  .record({
    leaves: fc.array(fc.oneof(largeFragmentArb, fragmentArb), { minLength: 2, maxLength: 4 }),
    recursive: fc.boolean(),
    twin: fc.boolean(),
    useDefinitions: fc.boolean(),
  })
  .chain(({ leaves, recursive, twin, useDefinitions }) => {
    const kw = useDefinitions ? 'definitions' : '$defs';
    const defs: Obj = {};
    leaves.forEach((l, i) => (defs[`Leaf${i}`] = l));
    defs.Pair = { type: 'object', description: 'Two components', properties: { first: { $ref: `#/${kw}/Leaf0` }, second: { $ref: `#/${kw}/Leaf1` } }, required: ['first'] };
    defs.PairList = { type: 'array', items: { $ref: `#/${kw}/Pair` }, maxItems: 3 };
    // The same content under another name (Petstore's Category and Tag).
    if (twin) defs.Twin = structuredClone(leaves[0]!);
    if (recursive) defs.Node = { type: 'object', properties: { value: { $ref: `#/${kw}/Leaf0` }, children: { type: 'array', items: { $ref: `#/${kw}/Node` } } }, required: ['value'] };
    const names = Object.keys(defs);
    const variant: Obj = { ...defs, Leaf1: { type: 'string', description: 'A variant', enum: ['x', 'y'] } };
    return fc.array(
      fc.record({
        refs: fc.uniqueArray(fc.constantFrom(...names, ...names.map((n) => `*${n}`)), { maxLength: 3 }),
        plain: fc.dictionary(fc.constantFrom('owner', 'repo', 'page', 'query'), fragmentArb, { maxKeys: 2 }),
        variantBlock: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
        draft07: fc.boolean(),
      }),
      { minLength: 1, maxLength: 6 },
    ).map((tools) =>
      tools.map(({ refs, plain, variantBlock, draft07 }) => {
        const properties: Obj = { ...plain };
        // `*Name` is an array of the definition; `Name` the definition itself.
        for (const r of refs) properties[r.startsWith('*') ? `many${r.slice(1)}` : `one${r}`] = r.startsWith('*') ? { type: 'array', items: { $ref: `#/${kw}/${r.slice(1)}` } } : { $ref: `#/${kw}/${r}` };
        const s: Obj = {};
        if (useDefinitions && draft07) s.$schema = DRAFT_07;
        s.type = 'object';
        s.properties = properties;
        s[kw] = structuredClone(variantBlock ? variant : defs);
        return s;
      }),
    );
  });
