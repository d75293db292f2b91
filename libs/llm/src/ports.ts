/**
 * The two LLM ports of schema self-evolution (draft-zhou §6.2):
 *
 * - `IntentInducer` — §6.2.2 Intent Induction: "Use an internal LLM or
 *   rule-based extractor to summarize the cluster's natural-language fragments
 *   into a candidate key_name, key_type, required flag, default_value, and
 *   semantic_description. The semantic_description MUST include mapping
 *   examples derived from real fragments in the cluster."
 * - `AuditJudge` — §6.2.3 semantic_alignment_accuracy: "The ratio of payloads
 *   where the key's value matches the intent expressed in the original
 *   natural-language request, as judged by an internal LLM or manual audit
 *   sampler."
 *
 * Both take client text, which §7 makes untrusted input: implementations must
 * sanitise it before it reaches a model.
 */
import type { InductionResult, InductionSample } from '@parley/evolution';
import type { KeyDefinition } from '@parley/protocol';

/** One triggered cluster (zhou §6.2.1) to summarise into a candidate key. */
export interface InductionInput {
  /** The scenario the cluster belongs to (human-readable or its id). */
  readonly scenario: string;
  /** The cluster's fragments with their counts (raw or already sanitised; they are sanitised again). */
  readonly samples: readonly InductionSample[];
  /**
   * Keys of the base schema and active patches. Context only: conflict
   * detection (zhou §6.2.2) stays with libs/evolution `detectConflict`.
   */
  readonly existing_keys: readonly KeyDefinition[];
}

export interface IntentInducer {
  readonly id: string;
  /**
   * A candidate key (required false, default_value null) or `{ ok: false }`
   * with the reason. Throws a `ParleyError`: `invalid_params` for malformed
   * input, `unavailable` when a dependency (the model endpoint) failed.
   */
  induce(input: InductionInput): Promise<InductionResult>;
}

/** One audit sample (zhou §6.2.3): a value a client sent for a patch key, and the request it came from. */
export interface AuditInput {
  readonly key: KeyDefinition;
  /** The JSON value the client sent for the key. */
  readonly value: unknown;
  /**
   * The client's original natural-language request. A sample without one
   * (null or blank) cannot be judged by a model: the judge throws
   * `invalid_params` and the sample stays with operators (the "manual audit
   * sampler" of §6.2.3).
   */
  readonly utterance: string | null;
}

export interface AuditVerdict {
  /** Whether the value matches the intent of the utterance. */
  readonly aligned: boolean;
  /** One short sentence, sanitised (zhou §7) before it is returned. */
  readonly rationale: string;
}

export interface AuditJudge {
  readonly id: string;
  /** Throws `invalid_params` for a sample it must not judge, `unavailable` when the model endpoint failed. */
  judge(input: AuditInput): Promise<AuditVerdict>;
}
