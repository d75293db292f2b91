/**
 * `@parley/client/llm`: the LLM mapper (draft-zhou §6.1 with a model behind an
 * OpenAI-compatible chat endpoint). A subpath of its own so that importing
 * `@parley/client` does not load the LLM adapters. Exactly the public API.
 */
export { MAPPING_SYSTEM_PROMPT, createLlmMapperFromEnv, createOpenAiMapper, mappingAnswerSchema, mappingMessages } from './mapper';
export type { OpenAiMapperOptions } from './mapper';
