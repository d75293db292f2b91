/**
 * @parley/pool — schema self-evolution (draft-zhou §6.2) over the Embedder
 * and VectorIndex ports and the pure rules of libs/evolution, in two halves
 * the services host apart — the Differential Semantic Pool (§6.2.1,
 * apps/semantic-pool) and the evolver (§6.2.2-§6.2.3, apps/evolution) — and
 * composed in one process for simulation. Exactly the public API; no `export *`.
 */
export { POOL_RULES, poolError } from './errors';
export type { PoolRule } from './errors';
export { createSemanticPool, collectionOf } from './semantic-pool';
export type {
  ClusterOutcome,
  ClusterView,
  CreateSemanticPoolOptions,
  FragmentInput as PoolFragment,
  HeatSample,
  MaturedCluster,
  PoolIngestResult,
  PreparedFragment,
  SemanticPool,
  SemanticPoolConfig,
} from './semantic-pool';
export { createEvolver } from './evolver';
export { APPLY_RULES } from './evolver-induction';
export type {
  AuditInput,
  ChangeKind,
  CreateEvolverOptions,
  DecisionRecord,
  EditAction,
  EditOutcome,
  Evolver,
  EvolverConfig,
  EvolverInduction,
  ExecutionInput,
  InduceFn,
  OperatorAction,
  PatchChange,
  PatchRecord,
  PatchStatus,
  TickOutcome,
  TriggerReport,
} from './evolver';
export { securityRelevance } from './approval';
export { createEvolutionEngine, patchView } from './engine';
export type { Clock, CreateEngineOptions, EngineConfig, EvolutionEngine, FragmentInput, IngestResult, PatchView, TickResult } from './engine';
export { DRAFT_SIMILARITY_THRESHOLD, MEASURED_SIMILARITY_THRESHOLDS, similarityThresholdFor } from './thresholds';
