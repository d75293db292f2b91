/**
 * JSON helpers for ADOL. Kept local (not from @parley/protocol's internals) because
 * ADOL needs canonical forms with memoisation and `__proto__`-safe writes: tool
 * lists come from arbitrary MCP servers, and `JSON.parse` happily produces an own
 * `__proto__` member that a plain `o[k] = v` would turn into a prototype change.
 */
import { isPlainObject, type JsonObject, type JsonValue } from '@parley/protocol';

export type { JsonObject, JsonValue };

/** libs/protocol's plain-object guard, narrowed to JSON objects. */
export const isObject = isPlainObject as (v: unknown) => v is JsonObject;

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Defines an own enumerable member, also when `k` is `__proto__`. */
export function setMember(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  // eslint-disable-next-line parley/no-plain-object-dictionary -- `__proto__`, the one key a plain assignment mishandles, is defined above
  else o[k] = v;
}

/** Deep copy of a JSON value (own enumerable string keys; `__proto__`-safe). */
export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => clone(x)) as T;
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setMember(out, k, clone(v[k]));
    return out as T;
  }
  return v;
}

/** Structural equality of JSON values; member order is ignored, array order is not. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  // NaN never occurs in JSON; -0 and 0 serialise alike.
  return typeof a === 'number' && typeof b === 'number' && a === b;
}

/**
 * Canonical JSON: members sorted by key (UTF-16 order), compact. Two values are
 * equal (deepEqual) iff their canonical forms are equal. `memo` caches the form of
 * each object/array by identity for one pass over an unchanging tree, which makes
 * canonicalising every sub-schema of a document linear instead of quadratic.
 */
export function canonical(v: unknown, memo?: WeakMap<object, string>): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  const hit = memo?.get(v);
  if (hit !== undefined) return hit;
  let s: string;
  if (Array.isArray(v)) s = `[${v.map((x) => canonical(x, memo)).join(',')}]`;
  else {
    const o = v as Record<string, unknown>;
    s = `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], memo)}`)
      .join(',')}}`;
  }
  memo?.set(v, s);
  return s;
}

/** A copy whose objects have their members in canonical (sorted) order, so `JSON.stringify` of it is `canonical`. */
export function sortedCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => sortedCopy(x)) as T;
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) setMember(out, k, sortedCopy(v[k]));
    return out as T;
  }
  return v;
}
