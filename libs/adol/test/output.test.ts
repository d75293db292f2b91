import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isParleyError, type JsonObject, type JsonValue } from '@parley/protocol';
import {
  REQUIRE_OUTPUT,
  dedupSchema,
  filterOutput,
  filterToolResult,
  outputFields,
  requireOutputSchema,
  takeRequireOutput,
  withRequireOutput,
  type McpTool,
} from '../src/index';
import { catchParley, compile, expectViolation, loadTools, prng, sample } from './helpers';

/** chang §2.3's weather example, with a nested booking and an array of items. */
const outputSchema: JsonObject = {
  type: 'object',
  properties: {
    temperature: { type: 'number' },
    humidity: { type: 'number' },
    visibility: { type: 'number' },
    booking: { type: 'object', properties: { id: { type: 'string' }, seat: { type: 'string' }, gate: { type: 'object', properties: { terminal: { type: 'string' }, number: { type: 'integer' } } } } },
    items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name'] } },
    'a.b': { type: 'string' },
  },
  required: ['temperature'],
};

const result: JsonObject = {
  temperature: 21.5,
  humidity: 40,
  visibility: 10,
  booking: { id: 'BK-1', seat: '12A', gate: { terminal: 'T3', number: 7 } },
  items: [
    { name: 'tea', price: 2 },
    { name: 'cake', price: 4, extra: true },
  ],
  'a.b': 'x',
};

describe('advertised output fields (chang §3.3)', () => {
  it('lists top-level, nested (dotted) and array-item (items[].x) paths in schema order', () => {
    expect(outputFields(outputSchema)).toEqual([
      'temperature',
      'humidity',
      'visibility',
      'booking',
      'booking.id',
      'booking.seat',
      'booking.gate',
      'booking.gate.terminal',
      'booking.gate.number',
      'items',
      'items[].name',
      'items[].price',
    ]);
    expect(outputFields(outputSchema, { maxDepth: 1 })).toEqual(['temperature', 'humidity', 'visibility', 'booking', 'items']);
    expect(outputFields(undefined)).toEqual([]);
  });

  it('follows composition branches and the $refs that dedup writes', () => {
    const s: JsonObject = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/pt' }, b: { $ref: '#/$defs/pt' } },
      anyOf: [{ properties: { c: { type: 'string' } } }],
      $defs: { pt: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
    };
    expect(outputFields(s)).toEqual(['a', 'a.x', 'a.y', 'b', 'b.x', 'b.y', 'c']);
    // Advertised fields do not change when dedup compacts the schema.
    const big: JsonObject = { type: 'object', properties: { from: { type: 'object', properties: { street: { type: 'string', description: 'Street and number of the address' }, city: { type: 'string', description: 'City of the address' }, zip: { type: 'string', description: 'Postal code of the address' } } } } };
    (big.properties as JsonObject).to = (big.properties as JsonObject).from!;
    (big.properties as JsonObject).via = (big.properties as JsonObject).from!;
    const compact = dedupSchema(big);
    expect(compact.stats.applied).toBe(true);
    expect(outputFields(compact.schema)).toEqual(outputFields(big));
  });

  it('a tool gets the draft’s requireOutput argument, and the client takes it off before calling', () => {
    const tool: McpTool = { name: 'weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, outputSchema };
    const t = withRequireOutput(tool);
    const prop = (t.inputSchema.properties as JsonObject)[REQUIRE_OUTPUT] as JsonObject;
    expect(prop).toEqual(requireOutputSchema(outputFields(outputSchema)));
    expect(prop.type).toBe('array');
    expect(prop.uniqueItems).toBe(true);
    expect((prop.items as JsonObject).enum).toContain('booking.seat');
    expect(t.inputSchema.required).toEqual(['city']); // optional: omitting it means the full output
    expect(withRequireOutput({ name: 'x', inputSchema: { type: 'object' } })).toEqual({ name: 'x', inputSchema: { type: 'object' } });
    // The LLM's arguments validate against the extended schema; the server gets them without requireOutput.
    const args = { city: 'Beijing', requireOutput: ['temperature', 'humidity'] };
    expect(compile(t.inputSchema)(args)).toBe(true);
    expect(compile(t.inputSchema)({ city: 'Beijing', requireOutput: ['wind'] })).toBe(false);
    expect(takeRequireOutput(args)).toEqual({ arguments: { city: 'Beijing' }, requireOutput: ['temperature', 'humidity'] });
    expect(takeRequireOutput({ city: 'x' })).toEqual({ arguments: { city: 'x' } });
  });

  it('real output schemas advertise fields (memory: entities[].name ...)', () => {
    const memory = loadTools('memory.json');
    const readGraph = memory.find((t) => t.name === 'read_graph')!;
    const fields = outputFields(readGraph.outputSchema);
    expect(fields).toContain('entities');
    expect(fields).toContain('entities[].name');
    expect(fields).toContain('relations[].relationType');
  });
});

describe('filterOutput (chang §3.3)', () => {
  const advertised = outputFields(outputSchema);

  it("keeps only the requested fields: the draft's temperature + humidity", () => {
    expect(filterOutput(result, ['temperature', 'humidity'], advertised)).toEqual({ temperature: 21.5, humidity: 40 });
  });

  it('nested paths keep their parents, array paths apply to every element', () => {
    expect(filterOutput(result, ['booking.seat'], advertised)).toEqual({ booking: { seat: '12A' } });
    expect(filterOutput(result, ['booking.gate.terminal', 'booking.id'], advertised)).toEqual({ booking: { id: 'BK-1', gate: { terminal: 'T3' } } });
    expect(filterOutput(result, ['items[].name'], advertised)).toEqual({ items: [{ name: 'tea' }, { name: 'cake' }] });
    // A whole field wins over a part of it, in either order.
    expect(filterOutput(result, ['booking', 'booking.seat'], advertised)).toEqual({ booking: result.booking });
    expect(filterOutput(result, ['items[].name', 'items'], advertised)).toEqual({ items: result.items });
    // Result order, not request order.
    expect(Object.keys(filterOutput(result, ['items', 'temperature'], advertised) as JsonObject)).toEqual(['temperature', 'items']);
  });

  it('an advertised field the result lacks is simply absent; an empty request gives an empty object', () => {
    expect(filterOutput({ temperature: 1 }, ['temperature', 'booking.seat', 'items[].price'], advertised)).toEqual({ temperature: 1 });
    expect(filterOutput({ booking: null, items: 'n/a' }, ['booking.seat', 'items[].name'], advertised)).toEqual({ booking: null, items: 'n/a' });
    expect(filterOutput(result, [], advertised)).toEqual({});
    expect(result.booking).toEqual({ id: 'BK-1', seat: '12A', gate: { terminal: 'T3', number: 7 } }); // input untouched
  });

  it('an unknown field is a typed invalid_params error naming params.requireOutput[i]', () => {
    const e = expectViolation(() => filterOutput(result, ['temperature', 'wind_speed'], advertised), 'invalid_params', 'params.requireOutput[1]', 'unknown_output_field');
    expect(isParleyError(e)).toBe(true);
    expect(e.message).toContain('wind_speed');
    expect(e.message).toContain('booking.seat'); // tells the model what exists
    expect(e.details).toMatchObject({ field: 'wind_speed' });
    expectViolation(() => filterOutput(result, ['booking.seats'], advertised), 'invalid_params', 'params.requireOutput[0]', 'unknown_output_field');
    expectViolation(() => filterOutput(result, ['items.name'], advertised), 'invalid_params', 'params.requireOutput[0]', 'unknown_output_field');
    // Not advertised (its name has a dot), so not requestable.
    expectViolation(() => filterOutput(result, ['a.b'], advertised), 'invalid_params', 'params.requireOutput[0]', 'unknown_output_field');
    expectViolation(() => filterOutput(result, ['temperature', 3], advertised), 'invalid_params', 'params.requireOutput[1]', 'type');
    expectViolation(() => filterOutput(result, 'temperature' as unknown as string[], advertised), 'invalid_params', 'params.requireOutput', 'type');
    expect(catchParley(() => filterOutput(result, ['x'], advertised)).retryable).toBe(false);
  });

  it('property: the filtered result is the original restricted to the requested paths', () => {
    fc.assert(
      fc.property(fc.subarray(advertised), fc.integer(), (fields, seed) => {
        const r = prng(seed);
        const value = sample(outputSchema, r) as JsonObject;
        const out = filterOutput(value, fields, advertised) as JsonObject;
        // Every leaf kept is at the same place in the original.
        const check = (o: JsonValue, orig: JsonValue): void => {
          if (Array.isArray(o)) o.forEach((x, i) => check(x, (orig as JsonValue[])[i]!));
          else if (o && typeof o === 'object') for (const [k, x] of Object.entries(o)) check(x, (orig as JsonObject)[k]!);
          else expect(o).toEqual(orig);
        };
        check(out, value);
        // Every requested top-level field that the value has is kept.
        for (const f of fields) {
          const top = f.split('.')[0]!.replace('[]', '');
          if (top in value) expect(out).toHaveProperty([top]);
        }
        // Nothing unrequested at the top.
        const tops = new Set(fields.map((f) => f.split('.')[0]!.replace('[]', '')));
        for (const k of Object.keys(out)) expect(tops.has(k)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('filterToolResult trims structuredContent and the text block that serialises it', () => {
    const call: JsonObject = {
      content: [
        { type: 'text', text: JSON.stringify(result) },
        { type: 'text', text: 'Forecast issued 10:00.' },
      ],
      structuredContent: result,
    };
    const out = filterToolResult(call, ['temperature'], advertised);
    expect(out.structuredContent).toEqual({ temperature: 21.5 });
    expect(out.content).toEqual([
      { type: 'text', text: '{"temperature":21.5}' },
      { type: 'text', text: 'Forecast issued 10:00.' },
    ]);
    expect(filterToolResult({ content: [] }, ['temperature'], advertised)).toEqual({ content: [] });
  });
});
