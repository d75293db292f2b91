/**
 * @parley/evolution — the pure rules of draft-zhou §6.2 schema self-evolution:
 * heat decay, the Differential Semantic Pool's cluster decisions, the dual-gate
 * trigger (§6.2.1), rule-based intent induction, conflict detection, patch
 * packaging and the effective template (§6.2.2), the key lifecycle and the
 * convergence guard (§6.2.3). No IO, no clock: every time is an input (epoch ms).
 * Exactly the public API; no `export *`.
 */

// Errors (typed ParleyErrors).
export { EVOLUTION_RULES, evolutionError } from './errors';
export type { EvolutionRule } from './errors';

// Configuration (§6.2.1 defaults).
export { DAY_MS, DEFAULT_POOL_CONFIG, HOUR_MS, NEED_GROUP_MAX_LIMIT, mergeThreshold, perClientOccurrenceCap, poolConfig, validatePoolConfig } from './config';
export type { PoolConfig } from './config';

// Cohorts.
export { clientScope, isGlobal, poolsForFragment, sameScope, scopeClient, scopeKey } from './scope';
export type { PoolKey, Scope } from './scope';

// Heat (§6.2.1 Heat Decay Counting).
export { addHeat, decayFactor, heatAt, msUntilHeatBelow, zeroHeat } from './heat';
export type { Heat } from './heat';

// Sanitising `other` (§7), personal data included.
export { DEFAULT_MAX_FRAGMENT_CHARS, cutOnWord, joinOldCodes, sanitizeFragment, sanitizeInputLimit } from './sanitize';
export type { SanitizeFlag, SanitizedFragment } from './sanitize';
// How much of `other` an event carries (§4.3 accepted whole, §6.2.1 bounded for the pool).
export { MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS, boundFragments } from './fragment-bounds';
export type { BoundedFragments, FragmentTruncation } from './fragment-bounds';
export { MAX_SCRUB_CHARS, PII_KINDS, PII_PLACEHOLDERS, PII_PLACEHOLDER_PATTERN, ibanValid, luhnValid, scrubPersonalData } from './pii';
export type { PiiKind, ScrubResult } from './pii';

// Clusters (§6.2.1 Semantic Vector Clustering).
export { addToCluster, assignFragment, centroidWeight, clientAddsHeat, distinctPhrasings, dominantClientShare, mergeClusters, clusterPool, clusterSamples, decideAssignment, emptyCluster, isGlobalCluster, markTriggered, mergeCentroid, windowStartBucket } from './cluster';
export type { AssignDecision, AssignInput, AssignResult, Cluster, ClusterClient, ClusterSample, Fragment, Neighbor, OccurrenceBucket, TriggerMark } from './cluster';

// The trigger (§6.2.1 Threshold-Based Triggering).
export { evaluateTrigger } from './trigger';
export { contextCosine, evaluateNeedGroup, needGroupHeat } from './need-group';
export type { NeedGroupEvaluation } from './need-group';
export type { TriggerEvaluation } from './trigger';

// Intent induction (§6.2.2).
export { DEFAULT_INDUCTION_OPTIONS, NEGATORS, STOP_WORDS, assertValidCandidate, contentWords, describeClosed, hyphenParts, idPattern, identifiers, induceKey, markDates, namedByAct, properNouns, singular } from './induce';
export { SIBLING_COSINE, choiceLike, oneSlot, profileCosine, sameListShape, samePatternIntent, wordProfile } from './sibling';
export type { Candidate, InducedKind, InductionContext, InductionOptions, InductionResult, InductionSample, MappingExample } from './induce';
export { BASIC_LEXICON, createTableLexicon, editDistance, knownWord } from './lexicon';
export type { LexPos, Lexicon, TableEntry } from './lexicon';

// Conflict detection (§6.2.2).
export { keyNameSignature, namesCollide } from './names';
export { KIND_AFFIXES, NAME_AFFIXES, SLOT_AFFIXES } from './affixes';
export { COHYPONYM_DEPTH, MIN_KIND_DEPTH, VALUE_NOUN_DEPTH, VALUE_NOUN_MIN_DEPTH, kindChoiceName, coHyponymChoice, coHyponymKeys, sharedKind, valueNounKind, type SaidNoun } from './cohyponym';
export { frameChoices, type FrameChoice, type FramePhrase, type FrameToken, type FrameWords } from './frames';
export type { CoHyponymChoice } from './cohyponym';
export { countCoversFlag } from './count-covers';
export { CONCEPT_MIN_VOICES, CONCEPT_RELATED, CONCEPT_SHARE, clusterConcept, nounConcept, sameConcept, scenarioConcepts } from './concept';
export type { ClusterConcept, ConceptSample } from './concept';
export { MAX_REFINED_DESCRIPTION_CHARS, detectConflict, existingKeysFor, newEnumValues, refineDescription, withValues } from './conflict';
export type { ConflictResult } from './conflict';

// Patches and the effective template (§6.2.2, §6.2.3 flags).
export { DEFAULT_PATCH_TTL_MS, KEY_STATES, acceptedKeys, effectiveTemplate, keyVisibility, packagePatch, patchForDelivery, patchesFor, withKeyLifecycle } from './patch';
export type {
  AcceptedKey,
  EffectiveKeyDefinition,
  EffectiveSchemaTemplate,
  EffectiveTemplate,
  IgnoredPatchItem,
  KeyLifecycle,
  KeyState,
  LifecycleTransition,
  ModifiedKey,
  PackagePatchInput,
  PatchKey,
  SchemaPatch,
} from './patch';

// The lifecycle and the convergence guard (§6.2.3).
export {
  DEFAULT_LIFECYCLE_CONFIG,
  activeExperimentalKeys,
  admitCandidate,
  applyDecision,
  evaluateKey,
  isLegalTransition,
  keyMetrics,
  lifecycleConfig,
  newKeyCounters,
  nextAdmissible,
  recordAudit,
  recordExecution,
  supersedeKey,
  transition,
} from './lifecycle';
export type {
  AdmitResult,
  CounterBucket,
  ExecutionObservation,
  GuardFigures,
  KeyCounters,
  KeyMetrics,
  LifecycleConfig,
  LifecycleDecision,
  QueuedCandidate,
  Thresholds,
} from './lifecycle';

// Operators' edits of a patch key (§6.2: updates are authorized; §6.2.2 additive refinements).
export { EDITABLE_KEY_TYPES, MAX_EDIT_DESCRIPTION_CHARS, MAX_EDIT_VALUES, editKeyDefinition, planKeyEdit } from './edit';
export type { EditPlan, EditedKey, KeyEdit } from './edit';
