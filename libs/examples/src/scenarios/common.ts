/**
 * What every seeded scenario provides, and the response-schema parts they share.
 */
import type { JsonObject, SchemaTemplate } from '@parley/protocol';

export interface ScenarioDefinition {
  /** The schema template a server agent publishes (zhou §4.1); passes parseTemplate. */
  template: SchemaTemplate;
  /** JSON Schema 2020-12 of the execution result (zhou §3.2 step 5: "a pre-negotiated response schema"). */
  responseSchema: JsonObject;
  /** One line for agent listings. */
  description: string;
  /** Lowercase tags (`^[a-z0-9][a-z0-9_-]*$`) for list_agents. */
  tags: string[];
  domain: string;
  /** A payload that validates against the template (a draft figure where there is one). */
  examplePayload: JsonObject;
  /** A result that validates against responseSchema (a draft figure where there is one). */
  exampleResponse: JsonObject;
}

export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The optional `schema_update_suggestion` of an execution result (zhou §3.2
 * step 6, Figure 9; §6.2.2 patches carry new_keys and/or modified_keys).
 */
export function schemaUpdateSuggestionSchema(): JsonObject {
  const keyDefinition: JsonObject = {
    type: 'object',
    required: ['key_name'],
    properties: {
      key_name: { type: 'string' },
      key_type: { type: 'string' },
      required: { type: 'boolean' },
      semantic_description: { type: 'string' },
    },
  };
  return {
    type: 'object',
    description: 'Optional schema update suggestion (draft-zhou §3.2 step 6): keys the server agent proposes to add or refine.',
    properties: {
      new_keys: { type: 'array', items: keyDefinition },
      modified_keys: { type: 'array', items: keyDefinition },
    },
  };
}
