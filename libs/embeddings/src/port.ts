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
  /** One L2-normalised vector per text, in order. An empty list gives an empty list. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * Cosine similarity. For the L2-normalised vectors of an `Embedder` this is the
 * dot product; the norms are still divided out so other vectors work too.
 * Zero vectors give 0. Vectors of different lengths are a programming error.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`cosine: vectors differ in length (${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}

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
