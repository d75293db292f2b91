/**
 * @parley/pool — the Differential Semantic Pool and the evolution engine of
 * draft-zhou §6.2 as one in-process orchestrator over the Embedder and
 * VectorIndex ports and the pure rules of libs/evolution. The future
 * apps/semantic-pool and apps/evolution services host this code and add
 * storage and events. Exactly the public API; no `export *`.
 */
export { POOL_RULES, createEvolutionEngine, patchView, poolError } from './engine';
export type {
  Clock,
  ClusterView,
  CreateEngineOptions,
  EngineConfig,
  EvolutionEngine,
  ExecutionInput,
  FragmentInput,
  HeatSample,
  IngestResult,
  PatchView,
  PoolRule,
  TickResult,
  TriggerReport,
} from './engine';
export { DRAFT_SIMILARITY_THRESHOLD, MEASURED_SIMILARITY_THRESHOLDS, similarityThresholdFor } from './thresholds';
