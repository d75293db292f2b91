import { ParleyError } from './errors';

/**
 * Member names that reach JavaScript object internals. A payload carrying one
 * at any depth is refused before anything else touches it: JSON.parse makes
 * `__proto__` an ordinary own member, but the next copy (a spread, a protobuf
 * Struct decode, a naive merge) turns it into a prototype change.
 */
export const FORBIDDEN_MEMBER_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Throws `payload_invalid` / `forbidden_key` naming the first forbidden member's path under `root`. */
export function assertNoForbiddenKeys(value: unknown, root: string): void {
  const path = findForbiddenKey(value, root);
  if (path !== undefined) {
    throw new ParleyError('payload_invalid', `${path} is not allowed: "${path.split(/[.[]/).pop()?.replace(/]$/, '')}" is a reserved member name`, {
      path,
      rule: 'forbidden_key',
    });
  }
}

/** Deeper nesting than this is refused outright (it is never a real payload, and it costs stack). */
export const MAX_PAYLOAD_DEPTH = 64;

function findForbiddenKey(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_PAYLOAD_DEPTH) {
    throw new ParleyError('payload_invalid', `${path} is nested deeper than ${MAX_PAYLOAD_DEPTH} levels`, { path, rule: 'max_depth' });
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findForbiddenKey(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return undefined;
  }
  for (const k of Object.keys(value)) {
    if (FORBIDDEN_MEMBER_NAMES.has(k)) return `${path}.${k}`;
    const hit = findForbiddenKey((value as Record<string, unknown>)[k], `${path}.${k}`, depth + 1);
    if (hit) return hit;
  }
  return undefined;
}
