/**
 * Environment configuration. Each service reads its settings through these
 * helpers once at start; a missing or malformed value stops the start with a
 * message naming the variable.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export function envString(env: Env, name: string, fallback?: string): string {
  const v = env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

export function envOptional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

export function envInt(env: Env, name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would read " " as 0, and accept "0x10", "1e5" or "5.0".
  const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) throw new ConfigError(`${name} must be an integer (got "${raw.slice(0, 64)}")`);
  if (range.min !== undefined && n < range.min) throw new ConfigError(`${name} must be >= ${range.min} (got ${n})`);
  if (range.max !== undefined && n > range.max) throw new ConfigError(`${name} must be <= ${range.max} (got ${n})`);
  return n;
}

/** A finite number, or undefined when the variable is unset or empty (range checks are the caller's). */
export function envNumber(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new ConfigError(`${name} must be a number (got "${raw}")`);
  return n;
}
