/**
 * The embedder port. Parley embeds short texts to compare their meaning: tool
 * descriptions and requests for ADOL tool selection (draft-chang §3.4, "the
 * server computes an embedding for the requirement and compares it with
 * precomputed embeddings of all available tools"), and later `other` fragments
 * for schema evolution (draft-zhou §6.2.1). Adapters: the offline WordNet
 * embedder (default), an OpenAI-compatible endpoint, later transformers.js.
 */
export interface Embedder {
  /**
   * Names the vector space: vectors from embedders with different ids must not
   * be compared or cached together. E.g. `offline-wordnet-v1`,
   * `openai:text-embedding-3-small`.
   */
  readonly id: string;
  readonly dimensions: number;
  /** What the vectors are made of, for logs and health (e.g. the offline embedder says whether its word vectors are in). */
  readonly description?: string;
  /** One L2-normalised vector per text, in order. An empty list gives an empty list. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Cosine similarity (0 when either vector is zero); defined once, in libs/adol. */
export { cosine } from '@parley/adol';

/** Scales `v` in place to unit L2 norm (a zero vector stays zero) and returns it. */
export function l2normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += (v[i] as number) * (v[i] as number);
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  }
  return v;
}
