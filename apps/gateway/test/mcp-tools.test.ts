import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { flightBookingResponseSchema, flightBookingTemplate } from '@parley/examples';
import { payloadJsonSchema, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import { checkRequireOutput, compactTemplate, filterResult, shortTemplate, shortTool } from '../src/adol';
import { parseCallToolMeta, parseListToolsMeta, parseToolExamples } from '../src/adol-params';
import { listTools } from '../src/mcp';
import { MAX_TOOL_NAME_LENGTH, REQUIRE_OUTPUT_META_KEY, TOOL_META_KEY, deriveTool, toolName } from '../src/mcp-tools';
import { selectableOf } from '../src/catalog';
import { seededEntries, sourceOf } from './helpers';

const tokens = (v: unknown) => countTokens(JSON.stringify(v));
const flight = () =>
  deriveTool(
    sourceOf(flightBookingTemplate, 'skyways-air', { description: 'Book a flight (draft-zhou §5.1).', domain: 'travel', tags: ['travel', 'flight'] }, flightBookingResponseSchema),
  );

/** Catches a thrown ParleyError's type, path and rule. */
function violation(fn: () => unknown): { type: string; path: string; rule: string } {
  try {
    fn();
  } catch (e) {
    const err = e as { type: string; path: string; rule: string };
    return { type: err.type, path: err.path, rule: err.rule };
  }
  throw new Error('expected a violation');
}

describe('template → MCP tool (deriveTool)', () => {
  it('names the tool <agent>__<scenario_id> in the MCP tool-name alphabet', () => {
    const { tool } = flight();
    expect(tool.name).toBe('skyways-air__flight_booking');
    expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(toolName('acme', 'flight_booking')).toBe('acme__flight_booking');
  });

  it('shortens names past 64 characters deterministically, keeping them distinct', () => {
    const long = 'a'.repeat(63);
    const n1 = toolName(long, 'flight_booking');
    const n2 = toolName(long, 'flight_bookings');
    expect(n1.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(n1).toMatch(/^a{55}_[0-9a-f]{8}$/);
    expect(n1).toBe(toolName(long, 'flight_booking'));
    expect(n1).not.toBe(n2);
  });

  it('derives inputSchema from payloadJsonSchema: keys, descriptions, required, enum, range, other', () => {
    const { tool } = flight();
    const input = tool.inputSchema as JsonObject;
    // The one source of truth: the payload schema execution validates with, minus only the dialect.
    const { $schema: _dialect, ...expected } = payloadJsonSchema(flightBookingTemplate);
    expect(input).toEqual(expected);
    expect(input.$schema).toBeUndefined();
    expect(input.type).toBe('object');
    expect(input.required).toEqual(['origin', 'destination', 'departure_date']);
    expect(input.additionalProperties).toBe(false);
    const props = input.properties as Record<string, JsonObject>;
    expect(Object.keys(props)).toEqual(['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other']);
    expect(props.cabin_class?.enum).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(props.cabin_class?.default).toBe('economy');
    expect(props.passenger_count).toMatchObject({ type: 'integer', minimum: 1, maximum: 9 });
    expect(props.departure_date?.format).toBe('date');
    expect(props.origin?.description).toBe(flightBookingTemplate.keys[0]?.semantic_description);
    // zhou §4.3: other is a string or an array of strings, whatever the template declares.
    expect(props.other).toMatchObject({ type: ['string', 'array'], items: { type: 'string' } });
  });

  it('takes title and description from the agent and the scenario', () => {
    const { tool } = flight();
    expect(tool.title).toBe('Flight booking (skyways-air)');
    expect(tool.description).toMatch(/^Book a flight \(draft-zhou §5\.1\)\. Served by agent "skyways-air"/);
    expect(tool.description).toContain('schema flight_booking_v1 (version 1)');
    expect(tool.description).toContain('"other"');
    expect(tool.annotations).toEqual({ readOnlyHint: false, openWorldHint: true });
  });

  it('derives outputSchema from the response schema, without $schema and required lists (requireOutput returns subsets)', () => {
    const d = flight();
    const out = d.tool.outputSchema as JsonObject;
    expect(out.type).toBe('object');
    expect(out.$schema).toBeUndefined();
    expect(out.required).toBeUndefined();
    const props = out.properties as Record<string, JsonObject>;
    expect(Object.keys(props)).toEqual(Object.keys(flightBookingResponseSchema.properties as object));
    expect(props.departure_time).toEqual({ type: 'string', format: 'date-time', description: 'RFC 3339 date-time with offset.' });
    // Nested required lists go too; a property *named* "required" stays.
    const item = ((props.schema_update_suggestion?.properties as Record<string, JsonObject>).new_keys?.items ?? {}) as JsonObject;
    expect(item.required).toBeUndefined();
    expect((item.properties as Record<string, JsonObject>).required).toEqual({ type: 'boolean' });
    // requireOutput may name top-level fields and nested paths (adol outputFields).
    expect(d.outputFields.slice(0, 8)).toEqual(Object.keys(flightBookingResponseSchema.properties as object));
    expect(d.outputFields).toContain('schema_update_suggestion.new_keys[].key_name');
    // chang §3.3: the tool advertises the fields requireOutput may name.
    const ro = (d.tool._meta as Record<string, JsonObject>)[REQUIRE_OUTPUT_META_KEY];
    expect(ro).toMatchObject({ type: 'array', uniqueItems: true, items: { type: 'string', enum: d.outputFields } });
    expect((d.tool._meta as Record<string, JsonObject>)[TOOL_META_KEY]).toMatchObject({
      agent: 'skyways-air',
      scenario_id: 'flight_booking',
      schema_id: 'flight_booking_v1',
      version: 1,
      tags: ['travel', 'flight'],
    });
  });

  it('has no outputSchema or requireOutput without an object response schema', () => {
    const none = deriveTool(sourceOf(flightBookingTemplate, 'acme'));
    expect(none.tool.outputSchema).toBeUndefined();
    expect(none.outputFields).toEqual([]);
    expect((none.tool._meta as Record<string, unknown>)[REQUIRE_OUTPUT_META_KEY]).toBeUndefined();
    const scalar = deriveTool(sourceOf(flightBookingTemplate, 'acme', {}, { type: 'string' }));
    expect(scalar.tool.outputSchema).toBeUndefined();
  });

  it('falls back to the scenario when the agent has no description', () => {
    const t: SchemaTemplate = { schema_id: 'x_v1', scenario: 'order coffee', keys: [{ key_name: 'size', key_type: 'string', required: true, semantic_description: 'Cup size.' }] };
    const d = deriveTool(sourceOf(t, 'cafe'));
    expect(d.tool.name).toBe('cafe__order_coffee');
    expect(d.tool.description).toMatch(/^Order coffee\. Served by agent "cafe"/);
    // An object-typed key brings the $defs its $ref needs.
    const withObject = deriveTool(sourceOf({ ...t, keys: [...t.keys, { key_name: 'extras', key_type: 'object', required: false, semantic_description: 'Extras.' }] }, 'cafe'));
    expect((withObject.tool.inputSchema as JsonObject).$defs).toBeDefined();
  });
});

describe('ADOL views of tools and templates', () => {
  it("short tool (chang §3.2, adol shortView) keeps what a call needs and costs fewer tokens", () => {
    const { tool } = flight();
    const s = shortTool(tool);
    expect(s.name).toBe(tool.name);
    expect(s.description).toBe(tool.description);
    expect(s.outputSchema).toBeUndefined();
    expect(s.annotations).toBeUndefined();
    expect(s._meta).toBeUndefined();
    expect(s.title).toBeUndefined();
    const input = s.inputSchema as JsonObject;
    expect(input.required).toEqual(['origin', 'destination', 'departure_date']);
    expect(input.additionalProperties).toBe(false);
    const props = input.properties as Record<string, JsonObject>;
    // Required keys keep their semantic descriptions; optional ones keep type and constraints.
    expect(props.origin?.description).toBe(flightBookingTemplate.keys[0]?.semantic_description);
    expect(props.cabin_class?.description).toBeUndefined();
    expect(props.cabin_class?.enum).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(props.passenger_count).toMatchObject({ type: 'integer', minimum: 1, maximum: 9 });
    expect(tokens(s)).toBeLessThan(tokens(tool) * 0.5);
  });

  it('short template keeps keys, types, required, constraints and every semantic_description (zhou §4.1)', () => {
    const s = shortTemplate(flightBookingTemplate);
    expect(s.keys.map((k) => k.key_name)).toEqual(flightBookingTemplate.keys.map((k) => k.key_name));
    expect(s.keys.map((k) => k.required)).toEqual(flightBookingTemplate.keys.map((k) => k.required));
    expect(s.keys.map((k) => k.semantic_description)).toEqual(flightBookingTemplate.keys.map((k) => k.semantic_description));
    expect(s.keys[3]?.enum).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(s.keys[4]).toMatchObject({ key_name: 'passenger_count', minimum: 1, maximum: 9, default_value: 1 });
  });

  it('compact template (chang §3.1) writes repeated key bodies once under $defs', () => {
    const body = { key_type: 'string', required: true, semantic_description: 'IATA airport code, e.g. PEK.', pattern: '^[A-Z]{3}$' } as const;
    const t: SchemaTemplate = {
      schema_id: 'legs_v1',
      scenario: 'multi leg',
      keys: [
        { key_name: 'from_airport', ...body },
        { key_name: 'to_airport', ...body },
        { key_name: 'via_airport', ...body },
        { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Escape valve.' },
      ],
    };
    const c = compactTemplate(t);
    expect(c.$defs).toEqual({ from_airport: body });
    expect(c.template.keys.slice(0, 3)).toEqual([
      { key_name: 'from_airport', $ref: '#/$defs/from_airport' },
      { key_name: 'to_airport', $ref: '#/$defs/from_airport' },
      { key_name: 'via_airport', $ref: '#/$defs/from_airport' },
    ]);
    expect(c.template.keys[3]).toEqual(t.keys[3]);
    expect(tokens(c)).toBeLessThan(tokens(t));
    // Nothing repeats in Figure 2: the template comes back as is, with empty $defs.
    expect(compactTemplate(flightBookingTemplate)).toEqual({ template: flightBookingTemplate, $defs: {} });
  });

  it('requireOutput (chang §3.3) keeps only the named fields and refuses unknown ones by name, at the caller\'s path', () => {
    const { outputFields } = flight();
    const result = { booking_id: 'BK-1', status: 'confirmed', seat: '12A', schema_update_suggestion: { new_keys: [{ key_name: 'seat_preference', key_type: 'string' }] } };
    expect(filterResult(result, ['seat', 'booking_id'], outputFields, 'params._meta.requireOutput')).toEqual({ booking_id: 'BK-1', seat: '12A' });
    expect(filterResult(result, ['schema_update_suggestion.new_keys[].key_name'], outputFields, 'x')).toEqual({
      schema_update_suggestion: { new_keys: [{ key_name: 'seat_preference' }] },
    });
    expect(() => checkRequireOutput(['seat'], outputFields, 'params._meta.requireOutput')).not.toThrow();
    expect(violation(() => checkRequireOutput(['seat', 'gate'], outputFields, 'params._meta.requireOutput'))).toEqual({
      type: 'invalid_params',
      path: 'params._meta.requireOutput[1]',
      rule: 'unknown_output_field',
    });
    // A tool without an output schema advertises nothing to ask for.
    expect(violation(() => checkRequireOutput(['seat'], [], 'params.message.metadata.requireOutput')).path).toBe('params.message.metadata.requireOutput[0]');
  });
});

describe('tools/list with ADOL options in params._meta', () => {
  const entries = seededEntries();
  const selectable = selectableOf(entries);
  const names = async (meta: unknown) => (await listTools(selectable, meta)).tools.map((t) => t.name);

  it('without options lists every tool in full (a standard client sees standard MCP)', async () => {
    const r = await listTools(selectable, undefined);
    expect(r.tools).toEqual(entries.map((e) => e.tool));
    expect(r.tools.every((t) => t.outputSchema !== undefined)).toBe(true);
  });

  it('tags select tools carrying any of them (chang §3.4, approach 2)', async () => {
    expect(await names({ tags: ['travel'] })).toEqual(['skyways-air__flight_booking']);
    expect((await names({ tags: ['photo', 'telecom'] })).sort()).toEqual(['an-cross-domain-fault__fault_management', 'pixel-studio__photo_retouch']);
    expect(await names({ tags: ['gardening'] })).toEqual([]);
  });

  it('query + top_k rank tools by the requirement (chang §3.4, approach 1)', async () => {
    expect(await names({ query: 'book a flight from Beijing to Shanghai', top_k: 1 })).toEqual(['skyways-air__flight_booking']);
    expect(await names({ query: 'whiten teeth and blur the background of my photo', top_k: 1 })).toEqual(['pixel-studio__photo_retouch']);
    expect(await names({ query: 'base stations down after a backhaul link failure', top_k: 1 })).toEqual(['an-cross-domain-fault__fault_management']);
    expect(await names({ query: 'book a flight', top_k: 1, tags: ['photo'] })).not.toContain('skyways-air__flight_booking');
  });

  it('example requests an operator attached steer selection, and never reach the listed tools', async () => {
    const query = 'my grandmother wants to visit us in May';
    expect(await names({ query, top_k: 1 })).not.toEqual(['skyways-air__flight_booking']);
    const examples = parseToolExamples(JSON.parse('{"skyways-air__flight_booking": ["my grandmother wants to visit in spring"], "constructor": ["x"], "__proto__": ["y"]}'));
    const withExamples = selectableOf(entries, examples);
    const r = await listTools(withExamples, { query, top_k: 1 });
    expect(r.tools.map((t) => t.name)).toEqual(['skyways-air__flight_booking']);
    expect(JSON.stringify(r.tools)).not.toContain('grandmother');
    expect(examples.get('constructor')).toEqual(['x']);
    expect(examples.get('__proto__')).toEqual(['y']);
  });

  it('parses cut and refuses malformed example files naming the member and rule', () => {
    expect(parseListToolsMeta({ query: 'x', cut: 'fixed' }).cut).toBe('fixed');
    expect(violation(() => parseListToolsMeta({ query: 'x', cut: 'some' }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut', rule: 'enum' });
    expect(violation(() => parseListToolsMeta({ cut: 'auto' }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut', rule: 'requires_query' });
    expect(violation(() => parseToolExamples([]))).toEqual({ type: 'invalid_params', path: 'tool_examples', rule: 'type' });
    expect(violation(() => parseToolExamples({ a: 'one' }))).toEqual({ type: 'invalid_params', path: 'tool_examples["a"]', rule: 'type' });
    expect(violation(() => parseToolExamples({ a: [' '] }))).toEqual({ type: 'invalid_params', path: 'tool_examples["a"][0]', rule: 'non_empty' });
  });

  it('parses the adaptive cut rule (min_k, cut_drop, cut_ratio, cut_gap) and applies it', async () => {
    expect(parseListToolsMeta({ query: 'x', min_k: 2, cut_drop: 0.5, cut_ratio: 0.6, cut_gap: 1 }).autoCut).toEqual({ minK: 2, drop: 0.5, ratio: 0.6, gap: 1 });
    expect(parseListToolsMeta({ query: 'x' }).autoCut).toBeUndefined();
    expect(violation(() => parseListToolsMeta({ min_k: 2 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'requires_query' });
    expect(violation(() => parseListToolsMeta({ query: 'x', min_k: 0 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'range' });
    expect(violation(() => parseListToolsMeta({ query: 'x', min_k: 1.5 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'range' });
    expect(violation(() => parseListToolsMeta({ query: 'x', cut_drop: '1' }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut_drop', rule: 'type' });
    expect(violation(() => parseListToolsMeta({ query: 'x', cut_gap: -1 }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut_gap', rule: 'range' });
    expect(violation(() => parseListToolsMeta({ query: 'x', cut_ratio: 2 }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut_ratio', rule: 'range' });
    // A rule that cannot apply is refused, not ignored: min_k above top_k (its default 5 too), any member with cut "fixed".
    expect(violation(() => parseListToolsMeta({ query: 'x', min_k: 7, top_k: 3 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'range' });
    expect(violation(() => parseListToolsMeta({ query: 'x', min_k: 6 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'range' });
    expect(parseListToolsMeta({ query: 'x', min_k: 3, top_k: 3 }).autoCut).toEqual({ minK: 3 });
    expect(violation(() => parseListToolsMeta({ query: 'x', cut: 'fixed', min_k: 2 }))).toEqual({ type: 'invalid_params', path: 'params._meta.min_k', rule: 'requires_auto_cut' });
    expect(violation(() => parseListToolsMeta({ query: 'x', cut: 'fixed', cut_gap: 1 }))).toEqual({ type: 'invalid_params', path: 'params._meta.cut_gap', rule: 'requires_auto_cut' });
    expect(parseListToolsMeta({ query: 'x', cut: 'auto', cut_drop: 1 }).autoCut).toEqual({ drop: 1 });
    // At least min_k tools come back, however far the rest fall below the best.
    const query = 'book a flight from Beijing to Shanghai';
    // The cut applies to an embedder's fused scores: a small bag of words stands in for the offline one.
    const bag = {
      id: 'test-bag',
      embed: async (texts: string[]) =>
        texts.map((t) => {
          const v = new Float32Array(32);
          for (const w of t.toLowerCase().split(/[^a-z]+/)) if (w) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 32, 7)]! += 1;
          return v;
        }),
    };
    const tight = await listTools(selectable, { query, top_k: 3, cut_drop: 0 }, bag);
    const atLeast = await listTools(selectable, { query, top_k: 3, cut_drop: 0, min_k: 3 }, bag);
    expect(tight.tools.length).toBe(1);
    expect(atLeast.tools.length).toBe(3);
    expect(atLeast.tools[0]!.name).toBe(tight.tools[0]!.name);
    // With no embedder the gateway ranks by BM25 alone, whose scores the cut cannot use: exactly top_k, as documented.
    expect((await listTools(selectable, { query, top_k: 3, cut_drop: 0 })).tools).toHaveLength(3);
  });

  it('names fetch the full schema of the tools named (the one a short answer led to), in catalogue order (chang §3.2 with §3.4)', async () => {
    const [a, b] = [entries[0]!.tool.name, entries[1]!.tool.name];
    const r = await listTools(selectable, { names: [b, a] });
    expect(r.tools.map((t) => t.name)).toEqual([a, b]);
    expect(r.tools[0]).toEqual(entries[0]!.tool);
    const short = await listTools(selectable, { names: [a], short: true });
    expect(tokens(short)).toBeLessThan(tokens({ tools: [r.tools[0]!] }));
    expect(tokens({ tools: [r.tools[0]!] })).toBeLessThan(tokens(await listTools(selectable, {})));
  });

  it('refuses names it does not hold, and names beside query or tags, naming the member and rule', async () => {
    const e = await listTools(selectable, { names: [entries[0]!.tool.name, 'constructor'] }).catch((x: unknown) => x);
    expect(e).toMatchObject({ type: 'invalid_params', path: 'params._meta.names[1]', rule: 'unknown_tool' });
    expect(violation(() => parseListToolsMeta({ names: ['a'], query: 'x' }))).toEqual({ type: 'invalid_params', path: 'params._meta.names', rule: 'exclusive' });
    expect(violation(() => parseListToolsMeta({ names: ['a'], tags: ['travel'] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names', rule: 'exclusive' });
    expect(violation(() => parseListToolsMeta({ names: [] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names', rule: 'non_empty' });
    expect(violation(() => parseListToolsMeta({ names: ['a', 'a'] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names[1]', rule: 'unique' });
    expect(violation(() => parseListToolsMeta({ names: [''] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names[0]', rule: 'length' });
    expect(violation(() => parseListToolsMeta({ names: 'a' }))).toEqual({ type: 'invalid_params', path: 'params._meta.names', rule: 'type' });
  });

  it('a refused name or tag is never echoed: control characters and bidi overrides stay out of the message', () => {
    const message = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('expected a refusal');
    };
    // Names hold MCP tool-name characters only, at most as long as the names Parley emits (64).
    for (const hostile of ['x\u001b[2J', 'evil\u202egnp.exe', 'a\nb', 'constructor\u0000']) {
      expect(violation(() => parseListToolsMeta({ names: [hostile, hostile] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names[0]', rule: 'pattern' });
      const m = message(() => parseListToolsMeta({ names: [hostile, hostile] }));
      expect(m).not.toContain(hostile);
      expect(m).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
      const t = message(() => parseListToolsMeta({ tags: [hostile] }));
      expect(t).not.toContain(hostile);
      expect(t).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
    }
    expect(violation(() => parseListToolsMeta({ names: ['a'.repeat(65)] }))).toEqual({ type: 'invalid_params', path: 'params._meta.names[0]', rule: 'length' });
    const twice = 'a'.repeat(64);
    expect(message(() => parseListToolsMeta({ names: [twice, twice] }))).toBe('params._meta.names[1] repeats an earlier entry');
    expect(violation(() => parseListToolsMeta({ tags: ['travel', 'travel'] }))).toEqual({ type: 'invalid_params', path: 'params._meta.tags[1]', rule: 'unique' });
  });

  it('short applies after selection and keeps the names', async () => {
    const full = await listTools(selectable, {});
    const short = await listTools(selectable, { short: true });
    expect(short.tools.map((t) => t.name)).toEqual(full.tools.map((t) => t.name));
    expect(tokens(short)).toBeLessThan(tokens(full) * 0.6);
  });

  it('rejects malformed options naming the _meta member and the rule', () => {
    expect(violation(() => parseListToolsMeta({ short: 'yes' }))).toEqual({ type: 'invalid_params', path: 'params._meta.short', rule: 'type' });
    expect(violation(() => parseListToolsMeta({ query: '  ' }))).toEqual({ type: 'invalid_params', path: 'params._meta.query', rule: 'non_empty' });
    expect(violation(() => parseListToolsMeta({ query: 'x', top_k: 0 }))).toEqual({ type: 'invalid_params', path: 'params._meta.top_k', rule: 'range' });
    expect(violation(() => parseListToolsMeta({ query: 'x', top_k: 1.5 }))).toEqual({ type: 'invalid_params', path: 'params._meta.top_k', rule: 'type' });
    expect(violation(() => parseListToolsMeta({ top_k: 3 }))).toEqual({ type: 'invalid_params', path: 'params._meta.top_k', rule: 'requires_query' });
    expect(violation(() => parseListToolsMeta({ tags: ['Travel'] }))).toEqual({ type: 'invalid_params', path: 'params._meta.tags[0]', rule: 'pattern' });
    expect(violation(() => parseListToolsMeta({ tags: 'travel' }))).toEqual({ type: 'invalid_params', path: 'params._meta.tags', rule: 'type' });
    expect(violation(() => parseListToolsMeta({ refs: 'global' }))).toEqual({ type: 'invalid_params', path: 'params._meta.refs', rule: 'enum' });
    // Other _meta members (a progress token, another extension's) are not ADOL's business; no refs unless asked.
    expect(parseListToolsMeta({ progressToken: 7, 'com.example/x': 1 })).toEqual({ short: false, refs: 'none', topK: 5 });
    expect(parseListToolsMeta({ refs: 'shared' }).refs).toBe('shared');
  });

  it('parses tools/call options: requireOutput (unique, non-empty strings) and client_id', () => {
    expect(parseCallToolMeta({ requireOutput: ['a', 'b'], client_id: 'me@app' })).toEqual({ requireOutput: ['a', 'b'], clientId: 'me@app' });
    expect(violation(() => parseCallToolMeta({ requireOutput: ['a', 'a'] }))).toEqual({ type: 'invalid_params', path: 'params._meta.requireOutput[1]', rule: 'unique' });
    expect(violation(() => parseCallToolMeta({ requireOutput: [] }))).toEqual({ type: 'invalid_params', path: 'params._meta.requireOutput', rule: 'non_empty' });
    expect(violation(() => parseCallToolMeta({ requireOutput: [3] }))).toEqual({ type: 'invalid_params', path: 'params._meta.requireOutput[0]', rule: 'type' });
    expect(violation(() => parseCallToolMeta({ client_id: 'has space' }))).toEqual({ type: 'invalid_params', path: 'params._meta.client_id', rule: 'pattern' });
  });
});

describe('template views (chang §3.2) on a template with optional sections', () => {
  it('short drops every optional section and nothing else; full keeps them', () => {
    const withOptional = flightBookingTemplate.keys.filter((k) => k.optional !== undefined);
    expect(withOptional.length).toBeGreaterThan(0);
    const s = shortTemplate(flightBookingTemplate);
    expect(s.keys.some((k) => k.optional !== undefined)).toBe(false);
    expect(s.keys).toEqual(flightBookingTemplate.keys.map(({ optional: _o, ...k }) => k));
    expect(tokens(s)).toBeLessThan(tokens(flightBookingTemplate));
  });
});
