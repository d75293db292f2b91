import { ParleyError } from '@parley/protocol';
import { createOfflineEmbedder } from './offline';
import { createOpenAIEmbedder } from './openai';
import type { Embedder } from './port';
import { createTransformersEmbedder } from './transformers';

/** The embedders `PARLEY_EMBEDDER` can name. */
export const EMBEDDER_KINDS = ['offline', 'openai', 'transformers'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

function invalidEnv(name: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path: `env.${name}`, rule });
}

/** The variable's value: own members only (an env object is a dictionary of outside names). */
function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

function required(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const v = envValue(env, name)?.trim();
  if (!v) throw invalidEnv(name, 'required', `${name} is required when PARLEY_EMBEDDER=openai`);
  return v;
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['', '0', 'false', 'no', 'off']);

function flag(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const raw = envValue(env, name)?.trim().toLowerCase() ?? '';
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw invalidEnv(name, 'enum', `${name} must be true/false, 1/0, yes/no or on/off (got "${envValue(env, name)}")`);
}

/**
 * The embedder the environment asks for:
 * - `PARLEY_EMBEDDER=offline` (the default; also when unset or empty): the
 *   offline WordNet embedder, no network;
 * - `PARLEY_EMBEDDER=openai`: an OpenAI-compatible endpoint with
 *   `PARLEY_EMBEDDINGS_URL` (API root, e.g. `https://api.openai.com/v1`) and
 *   `PARLEY_EMBEDDINGS_MODEL` (both required), `PARLEY_EMBEDDINGS_API_KEY` and
 *   `PARLEY_EMBEDDINGS_DIMENSIONS` (optional);
 * - `PARLEY_EMBEDDER=transformers`: a local ONNX model run by transformers.js,
 *   `PARLEY_EMBEDDINGS_MODEL` a hub id or a model directory (default
 *   `Xenova/all-MiniLM-L6-v2`), `PARLEY_EMBEDDINGS_LOCAL_ONLY=true` to never
 *   download. This factory stays synchronous: the model loads on the first
 *   `embed()`, and a load failure surfaces there as `unavailable`/`model_load`.
 * Anything else is an `invalid_params` error naming the variable.
 */
export function createEmbedderFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Embedder {
  const kind = (env['PARLEY_EMBEDDER']?.trim() || 'offline').toLowerCase();
  switch (kind) {
    case 'offline':
      return createOfflineEmbedder();
    case 'openai': {
      const rawDims = env['PARLEY_EMBEDDINGS_DIMENSIONS']?.trim();
      const dimensions = rawDims ? Number(rawDims) : undefined;
      if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 1)) {
        throw invalidEnv('PARLEY_EMBEDDINGS_DIMENSIONS', 'minimum', `PARLEY_EMBEDDINGS_DIMENSIONS must be an integer >= 1 (got "${rawDims}")`);
      }
      const apiKey = env['PARLEY_EMBEDDINGS_API_KEY']?.trim();
      return createOpenAIEmbedder({
        baseUrl: required(env, 'PARLEY_EMBEDDINGS_URL'),
        model: required(env, 'PARLEY_EMBEDDINGS_MODEL'),
        ...(apiKey ? { apiKey } : {}),
        ...(dimensions !== undefined ? { dimensions } : {}),
      });
    }
    case 'transformers': {
      const model = env['PARLEY_EMBEDDINGS_MODEL']?.trim();
      return createTransformersEmbedder({
        ...(model ? { model } : {}),
        localOnly: flag(env, 'PARLEY_EMBEDDINGS_LOCAL_ONLY'),
      });
    }
    default:
      throw invalidEnv('PARLEY_EMBEDDER', 'enum', `PARLEY_EMBEDDER must be one of ${EMBEDDER_KINDS.join(', ')} (got "${env['PARLEY_EMBEDDER']}")`);
  }
}
