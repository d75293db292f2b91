import { ParleyError } from '@parley/protocol';

/** Rule ids this library reports in `ParleyError.rule` (type `invalid_params`). */
export const POOL_RULES = ['unknown_scenario', 'fragment_invalid', 'time', 'unknown_key', 'config'] as const;
export type PoolRule = (typeof POOL_RULES)[number];

export function poolError(rule: PoolRule, path: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}
