import { SCENARIOS } from '@parley/examples';
import { scenarioId, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import type { CatalogEntry } from '../src/catalog';
import { deriveTool, type ToolSource } from '../src/mcp-tools';

/** The seeded agents of the examples, as the registry lists them after `npm start`. */
export const SEED_AGENTS: Record<string, string> = {
  flight_booking: 'skyways-air',
  photo_retouch: 'pixel-studio',
  fault_management: 'an-cross-domain-fault',
};

export function sourceOf(template: SchemaTemplate, agent: string, over: Partial<ToolSource['agent']> = {}, responseSchema?: JsonObject, version = 1): ToolSource {
  return {
    agent: { name: agent, description: '', domain: '', tags: [], version: '1.0.0', ...over },
    schema: { schema_id: template.schema_id, scenario: template.scenario, scenario_id: scenarioId(template.scenario), version },
    template,
    ...(responseSchema ? { responseSchema } : {}),
  };
}

export function entryOf(src: ToolSource): CatalogEntry {
  return { ...deriveTool(src), source: src };
}

/** Catalogue entries of the three seeded scenarios. */
export function seededEntries(): CatalogEntry[] {
  return SCENARIOS.map((s) =>
    entryOf(sourceOf(s.template, SEED_AGENTS[s.template.scenario] as string, { description: s.description, domain: s.domain, tags: s.tags }, s.responseSchema)),
  );
}
