import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTemplate, type JsonObject } from '@parley/protocol';
import { flightBookingTemplate } from '@parley/examples';
import {
  OPTIONAL_SECTION,
  countTokens,
  fullView,
  mergeOptional,
  optionalSectionOf,
  shortView,
  splitOptional,
  templateFullView,
  templateShortView,
  type AdolTool,
  type McpTool,
  type OptionalTemplate,
} from '../src/index';
import { expectViolation, toolListArb } from './helpers';

/** Every schema object of an inputSchema, with whether it is a property its parent requires. */
function schemaNodes(s: JsonObject, out: { node: JsonObject; requiredProperty: boolean | null }[] = [], requiredProperty: boolean | null = null): typeof out {
  out.push({ node: s, requiredProperty });
  const req = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  if (s.properties && typeof s.properties === 'object') {
    for (const [k, v] of Object.entries(s.properties as JsonObject)) schemaNodes(v as JsonObject, out, req.has(k));
  }
  if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) schemaNodes(s.items as JsonObject, out);
  if (Array.isArray(s.anyOf)) for (const b of s.anyOf) schemaNodes(b as JsonObject, out);
  return out;
}

describe('short view → full view is the identity (chang §3.2)', () => {
  it('generated tools: fullView(shortView(t)) deep-equals t, and the short view keeps only what a client needs', () => {
    let moved = 0;
    fc.assert(
      fc.property(toolListArb, (tools) => {
        for (const t of tools) {
          const short = shortView(t);
          expect(fullView(short)).toEqual(t);
          // What goes on the wire.
          const wire = JSON.parse(JSON.stringify(short)) as McpTool;
          for (const k of ['title', 'annotations', 'outputSchema', 'icons', '_meta', 'optional']) expect(wire).not.toHaveProperty(k);
          // A client must know that a tool needs task augmentation; everything else about execution it can do without.
          if ((t.execution as JsonObject | undefined)?.taskSupport === 'required') expect(wire.execution).toEqual(t.execution);
          else expect(wire).not.toHaveProperty('execution');
          for (const { node, requiredProperty } of schemaNodes(wire.inputSchema)) {
            expect(node).not.toHaveProperty('title');
            if (requiredProperty === false) expect(node).not.toHaveProperty('description');
          }
          // Required properties keep their descriptions.
          for (const { node, requiredProperty } of schemaNodes(t.inputSchema)) {
            if (requiredProperty === true && node.description !== undefined) expect(JSON.stringify(wire.inputSchema)).toContain(JSON.stringify(node.description));
          }
          expect(countTokens(wire)).toBeLessThanOrEqual(countTokens(t));
          // The wire form plus the section restores the tool too (what a server holds in its configuration).
          expect(fullView({ ...wire, optional: optionalSectionOf(short) })).toEqual(t);
          expect(fullView(splitOptional(t))).toEqual(t);
          if (countTokens(wire) < countTokens(t)) moved++;
        }
      }),
      { numRuns: 150 },
    );
    expect(moved).toBeGreaterThan(0);
  });

  it('the section rides out of band: JSON, spread and the wire never see it', () => {
    const t: McpTool = { name: 't', title: 'T', description: 'd', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
    const short = shortView(t);
    expect(Object.keys(short)).toEqual(['name', 'description', 'inputSchema']);
    expect(short[OPTIONAL_SECTION]).toEqual({ title: 'T', annotations: { readOnlyHint: true } });
    // A copy has no section: it is already full as far as anyone can tell.
    expect(fullView({ ...short })).toEqual({ name: 't', description: 'd', inputSchema: { type: 'object' } });
  });
});

describe('the optional section of a plain MCP tool', () => {
  const tool: McpTool = {
    name: 'search_issues',
    title: 'Search issues',
    description: 'Search issues',
    inputSchema: {
      type: 'object',
      title: 'SearchIssues',
      properties: {
        query: { type: 'string', description: 'Search query', title: 'Query' },
        // A property NAMED title/description is data, not a keyword: it stays.
        title: { type: 'string', description: 'Filter by title', default: { title: 'x' } },
        sort: { anyOf: [{ type: 'string', enum: ['title', 'created'] }, { type: 'null', title: 'None' }], description: 'Sort field' },
        filter: {
          type: 'object',
          description: 'Filter',
          properties: { state: { type: 'string', description: 'open or closed' }, label: { type: 'string', description: 'A label' } },
          required: ['state'],
        },
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, title: 'Search' },
    icons: [{ src: 'data:image/png;base64,AAAA' }],
    _meta: { 'io.example/x': 1 },
    execution: { taskSupport: 'forbidden' },
  };

  it('has exactly the optional content, as an overlay of the tool', () => {
    const split = splitOptional(tool);
    expect(split.optional).toEqual({
      title: 'Search issues',
      annotations: { readOnlyHint: true, title: 'Search' },
      icons: [{ src: 'data:image/png;base64,AAAA' }],
      _meta: { 'io.example/x': 1 },
      execution: { taskSupport: 'forbidden' },
      inputSchema: {
        title: 'SearchIssues',
        properties: {
          query: { title: 'Query' },
          title: { description: 'Filter by title' },
          sort: { anyOf: { '1': { title: 'None' } }, description: 'Sort field' },
          filter: { description: 'Filter', properties: { label: { description: 'A label' } } },
        },
      },
    });
    const props = split.inputSchema.properties as Record<string, JsonObject>;
    expect(props.query).toEqual({ type: 'string', description: 'Search query' });
    expect(props.title).toEqual({ type: 'string', default: { title: 'x' } });
    expect(props.sort).toEqual({ anyOf: [{ type: 'string', enum: ['title', 'created'] }, { type: 'null' }] });
    expect((props.filter!.properties as JsonObject).state).toEqual({ type: 'string', description: 'open or closed' });
    expect(fullView(split)).toEqual(tool);
  });

  it('an authored section: the short view drops it, the full view merges it (long examples stay off the wire)', () => {
    const authored: AdolTool = {
      name: 'book',
      description: 'Book a flight',
      inputSchema: { type: 'object', properties: { origin: { type: 'string', description: 'IATA code' } }, required: ['origin'] },
      optional: { inputSchema: { properties: { origin: { examples: ['PEK', 'SHA', 'JFK'] } } }, annotations: { openWorldHint: true } },
    };
    const short = shortView(authored);
    expect(JSON.parse(JSON.stringify(short))).toEqual({ name: 'book', description: 'Book a flight', inputSchema: authored.inputSchema });
    const full = fullView(authored);
    expect(full).toEqual({
      name: 'book',
      description: 'Book a flight',
      inputSchema: { type: 'object', properties: { origin: { type: 'string', description: 'IATA code', examples: ['PEK', 'SHA', 'JFK'] } }, required: ['origin'] },
      annotations: { openWorldHint: true },
    });
    expect(fullView(short)).toEqual(full);
    // The author's section is kept as written, not re-derived.
    expect(splitOptional(authored)).toEqual(authored);
  });

  it('a section that would overwrite a member is an error, not a silent change', () => {
    const bad: AdolTool = { name: 'b', description: 'short', inputSchema: { type: 'object' }, optional: { description: 'long' } };
    expectViolation(() => fullView(bad), 'invalid_params', 'optional.description', 'optional_conflict');
    expectViolation(() => mergeOptional([1, 2], { '2': 3 }), 'invalid_params', 'optional.2', 'optional_conflict');
    expectViolation(() => fullView({ name: 'c', inputSchema: { type: 'object' }, optional: 'x' } as unknown as AdolTool), 'invalid_params', 'optional', 'type');
  });
});

describe('template views (Parley templates, draft-zhou §4.1 + chang §3.2)', () => {
  const template: OptionalTemplate = {
    ...structuredClone(flightBookingTemplate),
    optional: { notes: 'Fares are quoted in the currency of the origin.' },
  };
  template.keys[0] = { ...template.keys[0]!, optional: { examples: ['PEK', 'SHA', 'JFK', 'Beijing'], notes: 'A city name maps to its main airport.' } };

  it('the short view drops every optional section and is a valid draft-zhou template', () => {
    const short = templateShortView(template);
    // The seeded template carries optional sections of its own: all of them go.
    expect(short).toEqual({ ...flightBookingTemplate, keys: flightBookingTemplate.keys.map(({ optional: _o, ...k }) => k) });
    expect(JSON.stringify(short)).not.toContain('"optional"');
    expect(parseTemplate(short).template.keys.map((k) => k.key_name)).toContain('origin');
    expect(countTokens(short)).toBeLessThan(countTokens(template));
  });

  it('the full view keeps them as they are', () => {
    const full = templateFullView(template);
    expect(full).toEqual(template);
    expect(full).not.toBe(template);
    expect(full.keys[0]!.optional).toEqual({ examples: ['PEK', 'SHA', 'JFK', 'Beijing'], notes: 'A city name maps to its main airport.' });
  });

  it('an optional section must be an object', () => {
    const bad = structuredClone(template) as OptionalTemplate;
    (bad.keys[2] as unknown as JsonObject).optional = ['x'];
    expectViolation(() => templateShortView(bad), 'template_invalid', 'keys[2].optional', 'type');
  });
});
