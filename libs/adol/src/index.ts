/**
 * @parley/adol: the Agentic Data Optimization Layer of draft-chang
 * ("A Token-efficient Data Layer for Agentic Communication"), as pure functions
 * over MCP tool lists and Parley templates:
 *   A. schema deduplication with JSON references (chang §3.1)   dedup.ts
 *   B. adaptive optional inclusion, short/full views (chang §3.2) optional.ts
 *   C. controllable response verbosity, requireOutput (chang §3.3) output.ts
 *   D. retrieval-based tool selection (chang §3.4)               select.ts
 *      and selection that learns from use (requests that led to a call) usage.ts
 * plus the token meter (o200k_base) that every figure is measured with.
 * No IO; no clock but the one usage.ts takes as an input. Exactly the public API; no `export *`.
 */

// The token meter.
export { countTextTokens, countTokens } from './tokens';
export { DEFAULT_SCHEMA_BASE_URL, measureTools } from './measure';
export type { MeasureOptions, ToolsMeasure } from './measure';
// What the MCP face sends, and how its figures compare.
export { savedPct, wireTools } from './wire';
export type { WireOptions, WireRefs, WireTools } from './wire';

// MCP tools.
export { toolsFromList } from './tool';
export type { McpTool } from './tool';

// A. Schema deduplication (chang §3.1).
export { SHORT_HASH_LENGTH, dedupSchema, dedupSchemas, dedupTools, deref, derefSchemas, derefTools, sharedSchemaUrl, shortHash } from './dedup';
export type {
  AddedDefs,
  DedupMode,
  DedupOptions,
  SharedUrlForm,
  DedupSchemasResult,
  DedupStats,
  DedupToolsResult,
  DerefOptions,
  SharedSchema,
  ToolAddedDefs,
} from './dedup';

// A'. The dereferenced fallback: schemas with no $ref, for clients that do not resolve references.
export { inlineRefs, inlineToolRefs } from './inline';
export type { InlineCut, InlineRefsOptions, InlineRefsResult } from './inline';

// B. Adaptive optional inclusion (chang §3.2).
export {
  OPTIONAL_MEMBER,
  OPTIONAL_SECTION,
  fullView,
  mergeOptional,
  optionalSectionOf,
  shortView,
  splitOptional,
  templateFullView,
  templateShortView,
} from './optional';
export type { AdolTool, OptionalKeyDefinition, OptionalSection, OptionalTemplate, ShortTool } from './optional';

// C. Controllable response verbosity (chang §3.3).
export { REQUIRE_OUTPUT, filterOutput, filterToolResult, outputFields, requireOutputSchema, takeRequireOutput, withRequireOutput } from './output';
export type { OutputFieldsOptions } from './output';

// D. Tool selection (chang §3.4), and the cosine similarity it ranks by.
export { AUTO_CUT_SD, DEFAULT_AUTO_CUT, DEFAULT_FUSION, autoCutLength, DEFAULT_RANKERS, EXAMPLES_META_KEY, cosine, evaluateSelection, lexicalTerms, selectTools, splitIdentifier, toolExamples, toolText } from './select';
export type { AutoCut, ScoredTool, SelectCut, SelectFusion, SelectMode, SelectOptions, SelectRanker, SelectionEvaluation, SelectionQuery, TextEmbedder, ToolLike } from './select';
export { CONCEPTS_WEIGHT, GLOSS_WEIGHT, LEARNED_WEIGHT, VALUES_WEIGHT } from './select';
// Selection that learns from use (chang §3.4): requests that led to a call, as learned examples.
export { MAX_USAGE_ID_LENGTH, UsageStore, normalizeRequest, requestKey } from './usage';
export type { UsageOptions } from './usage';
// Representations selection reads: values in a request against parameter shapes, word senses.
export { VALUE_SHAPES, parameterShapes, requestValues, valueScores } from './values';
export type { RequestValues, ValueShape } from './values';
export { wordNetLexicon } from './concepts';
export type { LexPos, SelectLexicon, WordNetLexiconOptions, WordNetLike } from './concepts';
