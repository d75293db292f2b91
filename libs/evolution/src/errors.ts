/**
 * Typed errors of the evolution rules. Parley has one error class
 * (`ParleyError`, discriminated by a catalogue type); the evolution rules use
 * `invalid_params` (a caller passed something the rules cannot work with) and
 * name what broke in `rule`, so the services map them without a new catalogue
 * entry. Note for the lead: an `evolution_conflict` type (gRPC
 * FAILED_PRECONDITION) would fit illegal lifecycle transitions better; adding
 * it belongs to libs/protocol.
 */
import { ParleyError } from '@parley/protocol';

/** Rule ids this library reports in `ParleyError.rule`. */
export const EVOLUTION_RULES = [
  'config',
  'time',
  'scope',
  'cluster_mismatch',
  'illegal_transition',
  'unknown_key',
  'patch_invalid',
  'candidate_invalid',
  'max_length',
] as const;
export type EvolutionRule = (typeof EVOLUTION_RULES)[number];

export function evolutionError(rule: EvolutionRule, path: string, message: string, details?: Record<string, unknown>): ParleyError {
  return new ParleyError('invalid_params', message, details ? { path, rule, details } : { path, rule });
}

/** A finite number (a time in epoch ms, a count). */
export function assertFinite(path: string, x: number): void {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw evolutionError('time', path, `${path} must be a finite number, got ${String(x)}`);
}

export function assertPositive(path: string, x: number): void {
  if (typeof x !== 'number' || !Number.isFinite(x) || x <= 0) throw evolutionError('config', path, `${path} must be a positive finite number, got ${String(x)}`);
}
