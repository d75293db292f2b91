/**
 * Small, pure JSON helpers shared by the template parser and the payload
 * validator. Internal: not exported from index.ts.
 */
import type { JsonObject, JsonValue, KeyType } from './model';

/** Property names that would reach Object.prototype machinery if copied naively. */
export const FORBIDDEN_PROPERTY_NAMES = ['__proto__', 'constructor', 'prototype'] as const;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** True for values JSON can carry: finite numbers, strings, booleans, null, arrays and plain objects of those. */
export function isJsonValue(v: unknown, depth = 0): v is JsonValue {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  if (isPlainObject(v)) {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.keys(v).every((k) => isJsonValue(v[k], depth + 1));
  }
  return false;
}

/** Deep copy of a JSON value; own `__proto__` properties stay own data properties. */
export function cloneJson<T extends JsonValue>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    // defineProperty, not assignment: `out['__proto__'] = x` would set the prototype.
    Object.defineProperty(out, k, { value: cloneJson((v as JsonObject)[k] as JsonValue), enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!hasOwn(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Whether a value matches a JSON Schema type identifier (integer = a whole number). */
export function matchesKeyType(v: unknown, t: KeyType): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    case 'null':
      return v === null;
  }
}

/** The JSON type name of a value, for messages ("got string"). */
export function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Finds a forbidden property name anywhere inside a JSON value; returns its relative path or null. */
export function findForbiddenKey(v: unknown, path: string, depth = 0): string | null {
  if (depth > 64 || typeof v !== 'object' || v === null) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = findForbiddenKey(v[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const k of Object.keys(v)) {
    if ((FORBIDDEN_PROPERTY_NAMES as readonly string[]).includes(k)) return joinPath(path, k);
    const hit = findForbiddenKey((v as Record<string, unknown>)[k], joinPath(path, k), depth + 1);
    if (hit) return hit;
  }
  return null;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `payload` + `a` → `payload.a`; names that are not identifiers use bracket notation. */
export function joinPath(base: string, key: string): string {
  if (IDENT.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

/** A short, quoted rendering of a value for error messages. */
export function preview(v: unknown, max = 60): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Length in Unicode code points, as JSON Schema counts minLength/maxLength. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * A timestamp as ISO 8601: `pg` returns `timestamptz` columns as a Date, PGlite
 * and JSON paths may hand back a string. One conversion for every service.
 */
export function isoTimestamp(v: Date | string): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}
