/**
 * Template → MCP tool: the pure derivation behind the gateway's MCP face.
 *
 * Every (agent, scenario) with a published schema becomes one tool. Its
 * `inputSchema` is `payloadJsonSchema(template)` — the same JSON Schema
 * execution validates against (libs/protocol/src/payload-schema.ts), so what
 * a model is told and what Parley enforces cannot drift.
 */
import { requireOutputSchema } from '@parley/adol';
import { payloadJsonSchema, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { advertisedFields } from './adol';

/** Separator between agent and scenario id in a tool name. */
export const TOOL_NAME_SEPARATOR = '__';
/**
 * Longest tool name emitted. MCP allows 1-128 characters of [A-Za-z0-9_.-]
 * (SEP-986); several LLM function-calling APIs stop at 64, so Parley stays
 * within 64 and shortens longer names with a hash suffix.
 */
export const MAX_TOOL_NAME_LENGTH = 64;
/** MCP `_meta` key of Parley's own facts about a tool (reverse-DNS prefix, as MCP recommends for `_meta`). */
export const TOOL_META_KEY = 'dev.parley/tool';
/** chang §3.3: the tool schema carries `requireOutput`, the output fields a caller may ask for. */
export const REQUIRE_OUTPUT_META_KEY = 'requireOutput';

/** What the registry knows about the serving agent. */
export interface ToolAgent {
  name: string;
  description: string;
  domain: string;
  tags: string[];
  version: string;
}

/** The schema version a tool executes (the latest of its agent and scenario). */
export interface ToolSchemaVersion {
  schema_id: string;
  scenario: string;
  scenario_id: string;
  version: number;
}

export interface ToolSource {
  agent: ToolAgent;
  schema: ToolSchemaVersion;
  /** The template in its default language (GetSchema). */
  template: SchemaTemplate;
  /** The scenario's response schema (zhou §3.2 step 5), when one is published. */
  responseSchema?: JsonObject | undefined;
}

export interface DerivedTool {
  tool: Tool;
  /** The output fields requireOutput may name (adol outputFields of the outputSchema); empty without one. */
  outputFields: string[];
  /** The agent's tags (chang §3.4 tag-based retrieval). */
  tags: string[];
}

/** FNV-1a, 32 bit: a stable short hash for shortened names (not security). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/**
 * `<agent>__<scenario_id>`. Both parts are already in MCP's tool-name alphabet
 * (agent names `[a-z][a-z0-9_-]*`, scenario ids snake_case slugs), and a
 * scenario id never contains `__` (the slug collapses runs of `_`), so the
 * last `__` always splits a name unambiguously. Names over
 * MAX_TOOL_NAME_LENGTH keep their first 55 characters plus `_` and 8 hex
 * digits of a hash of the full name.
 */
export function toolName(agent: string, scenarioId: string): string {
  const full = `${agent}${TOOL_NAME_SEPARATOR}${scenarioId}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = fnv1a(full).toString(16).padStart(8, '0');
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
}

/** "flight_booking" / "flight booking" → "Flight booking". */
export function humanizeScenario(scenario: string): string {
  const s = scenario.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function withoutDialect(schema: JsonObject): JsonObject {
  // SEP-1613: JSON Schema 2020-12 is MCP's default dialect, so `$schema` says
  // nothing a client does not already assume; dropping it saves tokens (chang §2.2).
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Schema keywords whose value is a schema, a list of schemas or a map of schemas (JSON Schema 2020-12). */
const ONE_SCHEMA = ['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/** A copy of a schema with every `required` keyword removed (property *names* "required" stay). */
function withoutRequired(node: unknown): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node as JsonObject)) {
    if (k === 'required' && Array.isArray(v)) continue;
    if (ONE_SCHEMA.includes(k)) out[k] = withoutRequired(v) as JsonObject;
    else if (SCHEMA_LIST.includes(k) && Array.isArray(v)) out[k] = v.map(withoutRequired) as JsonObject[];
    else if (SCHEMA_MAP.includes(k) && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, withoutRequired(sub)])) as JsonObject;
    } else out[k] = v;
  }
  return out;
}

/**
 * The tool's outputSchema: the scenario's response schema when it describes an
 * object (MCP requires `type: "object"` at the root), minus `$schema` and minus
 * its `required` lists. They go because a requireOutput call (chang §3.3)
 * returns a subset of the fields, top-level or nested, and MCP clients validate
 * `structuredContent` against outputSchema (the official SDK does). Parley
 * still enforces the full response schema on every agent result
 * (`agent_response_invalid`, zhou §3.2 step 5) before any filtering.
 */
export function outputSchemaFor(responseSchema: JsonObject | undefined): JsonObject | undefined {
  if (!responseSchema || responseSchema.type !== 'object') return undefined;
  return withoutRequired(withoutDialect(responseSchema)) as JsonObject;
}

/** Derives the MCP tool of one (agent, scenario). Pure. */
export function deriveTool(src: ToolSource): DerivedTool {
  const { agent, schema, template } = src;
  const name = toolName(agent.name, schema.scenario_id);
  const lead = agent.description.trim() || `${humanizeScenario(schema.scenario)}.`;
  const description =
    `${/[.!?]$/.test(lead) ? lead : `${lead}.`} Served by agent "${agent.name}" through Parley: scenario "${schema.scenario}", ` +
    `schema ${schema.schema_id} (version ${schema.version}). The arguments are the payload (draft-zhou §3.2 step 4): ` +
    `map the request onto the keys as their descriptions say, and put anything that fits no key in "other" (draft-zhou §4.3).`;

  const tool: Tool = {
    name,
    title: `${humanizeScenario(schema.scenario)} (${agent.name})`,
    description,
    inputSchema: withoutDialect(payloadJsonSchema(template)) as Tool['inputSchema'],
    // Execution hands the payload to a server agent outside Parley that acts on
    // it (books, retouches, diagnoses): not read-only, and an open world. Whether
    // it is destructive or idempotent is the agent's business, so those hints
    // keep MCP's conservative defaults.
    annotations: { readOnlyHint: false, openWorldHint: true },
  };
  const outputSchema = outputSchemaFor(src.responseSchema);
  const outputFields = advertisedFields(outputSchema);
  if (outputSchema) tool.outputSchema = outputSchema as Tool['outputSchema'];
  const meta: Record<string, unknown> = {
    [TOOL_META_KEY]: {
      agent: agent.name,
      scenario: schema.scenario,
      scenario_id: schema.scenario_id,
      schema_id: schema.schema_id,
      version: schema.version,
      ...(agent.domain ? { domain: agent.domain } : {}),
      tags: [...agent.tags],
    },
  };
  if (outputFields.length > 0) meta[REQUIRE_OUTPUT_META_KEY] = requireOutputSchema(outputFields);
  tool._meta = meta;
  return { tool, tags: [...agent.tags], outputFields };
}
