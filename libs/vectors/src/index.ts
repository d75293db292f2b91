/**
 * @parley/vectors — the vector index port of the Differential Semantic Pool
 * (draft-zhou §6.2.1: `other` fragments as vectors, clustered by cosine
 * similarity), with an exact in-process index and a Qdrant adapter that pass
 * one contract suite (test/vector-index-contract.ts). Exactly the public API;
 * no `export *`.
 */

// The port.
export { COLLECTION_NAME_PATTERN, MAX_DIMENSIONS, MAX_LIMIT, PAYLOAD_KEY_PATTERN, UUID_PATTERN, VECTOR_RULES } from './port';
export type {
  FieldMatch,
  MatchValue,
  Payload,
  PayloadFilter,
  PayloadValue,
  ScoredPoint,
  SearchOptions,
  StoredPoint,
  VectorIndex,
  VectorPoint,
  VectorRule,
} from './port';

// The adapters.
export { createEmbeddedIndex } from './embedded';
export { QDRANT_UPSERT_BATCH, createQdrantIndex } from './qdrant';
export type { QdrantIndexOptions } from './qdrant';

// Choosing one from the environment.
export { createVectorIndexFromEnv } from './env';
