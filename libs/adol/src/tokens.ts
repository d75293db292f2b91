/**
 * The token meter. chang §1.2 and §2 state the problem in tokens of the model's
 * context, so every ADOL figure here is in tokens: o200k_base (the GPT-4o/GPT-5
 * family's encoding; gpt-tokenizer 4.0.0) of compact `JSON.stringify`, the same
 * measure as /work/shared/data/mcp-tools/BASELINES.md, so figures compare directly.
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/** Tokens of a text. */
export function countTextTokens(text: string): number {
  return countO200k(text);
}

/** Tokens of a JSON value as compact `JSON.stringify` (`undefined` counts as nothing). */
export function countTokens(value: unknown): number {
  const s = JSON.stringify(value);
  return s === undefined ? 0 : countO200k(s);
}

/**
 * A memoising counter for the dedup optimiser, which asks for the same small
 * strings (a fragment, a `$ref` object) many times across greedy rounds.
 */
export class TokenCache {
  private readonly cache = new Map<string, number>();
  private readonly limit: number;

  constructor(limit = 200_000) {
    this.limit = limit;
  }

  text(s: string): number {
    let n = this.cache.get(s);
    if (n === undefined) {
      n = countO200k(s);
      if (this.cache.size >= this.limit) this.cache.clear();
      this.cache.set(s, n);
    }
    return n;
  }

  json(v: unknown): number {
    const s = JSON.stringify(v);
    return s === undefined ? 0 : this.text(s);
  }
}
