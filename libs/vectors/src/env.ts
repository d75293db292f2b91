import { ParleyError } from '@parley/protocol';
import { createEmbeddedIndex } from './embedded';
import type { VectorIndex } from './port';
import { createQdrantIndex } from './qdrant';

const VARIABLE_OF: Record<string, string> = { url: 'QDRANT_URL', collectionPrefix: 'QDRANT_COLLECTION_PREFIX' };

/**
 * The vector index the environment asks for (draft-zhou §6.2.1's pool needs
 * one; which one is a deployment choice):
 * - `QDRANT_URL` set (e.g. `http://qdrant:6333`): Qdrant, with `QDRANT_API_KEY`
 *   and `QDRANT_COLLECTION_PREFIX` (both optional);
 * - otherwise the exact in-process index, which keeps nothing across restarts.
 * A malformed URL or prefix is an `invalid_params` error naming the variable.
 */
export function createVectorIndexFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): VectorIndex {
  const url = env['QDRANT_URL']?.trim();
  if (!url) return createEmbeddedIndex();
  const apiKey = env['QDRANT_API_KEY']?.trim();
  const collectionPrefix = env['QDRANT_COLLECTION_PREFIX']?.trim();
  try {
    return createQdrantIndex({ url, ...(apiKey ? { apiKey } : {}), ...(collectionPrefix ? { collectionPrefix } : {}) });
  } catch (e) {
    // Name the variable, not the option, so an operator knows what to fix.
    const variable = e instanceof ParleyError ? VARIABLE_OF[e.path] : undefined;
    if (e instanceof ParleyError && variable) {
      throw new ParleyError(e.type, `${variable}: ${e.message}`, { path: `env.${variable}`, rule: e.rule, cause: e });
    }
    throw e;
  }
}
