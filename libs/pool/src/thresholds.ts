/**
 * The similarity threshold of the Differential Semantic Pool, per embedder.
 *
 * zhou §6.2.1 gives "cosine similarity >= 0.85" as its example, a figure for
 * sentence-transformer embeddings, where paraphrases score 0.8–0.95. Scores are
 * not comparable across vector spaces: the offline WordNet embedder
 * (`offline-wordnet-v1`, libs/embeddings) spreads the same pairs much lower.
 * BENCHMARKS.md "Embeddings (offline default)" measured it on 89 labelled
 * `other`-style pairs: at 0.85 precision 1.000 but recall 0.021 (nearly every
 * fragment would found its own cluster and no gate would ever open); the
 * recommended clustering threshold is 0.15 (best F1 on a 0.05 grid and at least
 * the p99 of unrelated pairs, 0.119): precision 0.680, recall 0.708. So:
 *
 * - `offline-wordnet-v1` → 0.15 (measured);
 * - `offline-wordnet-glove-v1` (the same features with SIF-weighted GloVe word
 *   vectors, cos = 0.3·cos_wordnet + 0.7·cos_glove) → 0.40, chosen on the dev
 *   evolution streams (`npm run bench:evolution`: purity, intents triggered,
 *   no noise or burst trigger over 0.20–0.50; BENCHMARKS.md);
 * - any other id (sentence-transformers, transformers.js, OpenAI-compatible
 *   endpoints we have not measured) → the draft's 0.85.
 *
 * An explicit `similarity_threshold` in the engine config always wins.
 */
export const DRAFT_SIMILARITY_THRESHOLD = 0.85;

export const MEASURED_SIMILARITY_THRESHOLDS: Readonly<Record<string, number>> = Object.freeze({
  'offline-wordnet-v1': 0.15,
  'offline-wordnet-glove-v1': 0.4,
});

export function similarityThresholdFor(embedderId: string): number {
  return (Object.hasOwn(MEASURED_SIMILARITY_THRESHOLDS, embedderId) ? MEASURED_SIMILARITY_THRESHOLDS[embedderId] : undefined) ?? DRAFT_SIMILARITY_THRESHOLD;
}
