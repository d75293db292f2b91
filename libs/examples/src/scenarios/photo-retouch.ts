/**
 * Photo retouching: draft-zhou §5.2, Figure 10 (template), Figure 5 (payload).
 *
 * The template is Figure 10 exactly as printed; constraint members follow each
 * printed definition. The response schema is Parley's design (the draft prints
 * no photo result).
 */
import type { JsonObject, SchemaTemplate } from '@parley/protocol';
import { JSON_SCHEMA_2020_12, schemaUpdateSuggestionSchema, type ScenarioDefinition } from './common';

export const photoRetouchTemplate: SchemaTemplate = {
  schema_id: 'photo_retouch_v2',
  scenario: 'photo_retouch',
  keys: [
    {
      key_name: 'skin_smoothing',
      key_type: 'integer',
      required: false,
      default_value: 0,
      semantic_description: "Skin smoothing intensity. Range: 0-10, where 0 means off. Example: 'light skin smoothing' -> 3.",
      // "Range: 0-10"
      minimum: 0,
      maximum: 10,
    },
    {
      key_name: 'teeth_whitening',
      key_type: 'boolean',
      required: false,
      default_value: false,
      semantic_description: "Whether teeth whitening is enabled. Example: 'make the teeth whiter' -> true.",
    },
    {
      key_name: 'background_blur',
      key_type: 'boolean',
      required: false,
      default_value: false,
      semantic_description: "Whether background blur is enabled. Example: 'blur the background' -> true.",
    },
    {
      key_name: 'filter_style',
      key_type: 'string',
      required: false,
      default_value: 'none',
      semantic_description: "Filter style. Acceptable values: none, vintage, cinematic, warm, cool. Example: 'vintage style' -> 'vintage'.",
      // "Acceptable values: none, vintage, cinematic, warm, cool"
      enum: ['none', 'vintage', 'cinematic', 'warm', 'cool'],
    },
    {
      key_name: 'eye_enlargement',
      key_type: 'boolean',
      required: false,
      default_value: false,
      semantic_description: 'Whether eye enlargement is enabled. Note: this key is a boolean switch; use other for fine-grained adjustment requests.',
    },
    {
      key_name: 'other',
      key_type: 'string',
      required: false,
      semantic_description:
        "Photo-editing requirements that cannot be mapped to existing keys. Example: 'make the eyes a little bigger' -> 'increase eye size proportionally'.",
    },
  ],
};

const STATUSES = ['queued', 'processing', 'completed', 'failed'];

/** A retouch job: what was applied, and which `other` requests could not be (zhou §4.3, §5.2 note). */
export const photoRetouchResponseSchema: JsonObject = {
  $schema: JSON_SCHEMA_2020_12,
  title: 'photo_retouch_v2 result',
  type: 'object',
  required: ['job_id', 'status', 'applied'],
  properties: {
    job_id: { type: 'string', minLength: 1, description: 'Retouch job id, e.g. "RT-20260504-0042".' },
    status: { type: 'string', enum: STATUSES, description: `One of ${STATUSES.join(', ')}.` },
    output_url: { type: 'string', format: 'uri', description: 'Where the retouched photo can be fetched once completed.' },
    applied: {
      type: 'object',
      description: 'The settings that took effect, key by key.',
      properties: {
        skin_smoothing: { type: 'integer', minimum: 0, maximum: 10 },
        teeth_whitening: { type: 'boolean' },
        background_blur: { type: 'boolean' },
        filter_style: { type: 'string' },
        eye_enlargement: { type: 'boolean' },
      },
    },
    not_applied: {
      type: 'array',
      items: { type: 'string' },
      description: 'Fragments of "other" the agent could not carry out (zhou §4.3: accepted, but outside the schema).',
    },
    schema_update_suggestion: schemaUpdateSuggestionSchema(),
  },
};

/** Figure 5 payload. */
export const photoRetouchExamplePayload: JsonObject = {
  skin_smoothing: 7,
  teeth_whitening: true,
  background_blur: true,
  filter_style: 'vintage',
  eye_enlargement: false,
  other: 'increase eye size proportionally',
};

/** The result for Figure 5, with the §5.2 note's suggested eye_size_scale key. */
export const photoRetouchExampleResponse: JsonObject = {
  job_id: 'RT-20260504-0042',
  status: 'completed',
  output_url: 'https://photos.example.com/jobs/RT-20260504-0042/output.jpg',
  applied: { skin_smoothing: 7, teeth_whitening: true, background_blur: true, filter_style: 'vintage', eye_enlargement: false },
  not_applied: ['increase eye size proportionally'],
  schema_update_suggestion: {
    new_keys: [
      {
        key_name: 'eye_size_scale',
        key_type: 'number',
        required: false,
        semantic_description: "Eye size scale factor. Range: 1.0-1.5, where 1.0 means unchanged. Example: 'make the eyes a little bigger' -> 1.1.",
      },
    ],
  },
};

export const photoRetouchScenario: ScenarioDefinition = {
  template: photoRetouchTemplate,
  responseSchema: photoRetouchResponseSchema,
  description: 'Retouch a photo: skin smoothing, teeth whitening, background blur, filters (draft-zhou §5.2, Figure 10).',
  tags: ['photo', 'image-editing', 'retouch'],
  domain: 'media',
  examplePayload: photoRetouchExamplePayload,
  exampleResponse: photoRetouchExampleResponse,
};
