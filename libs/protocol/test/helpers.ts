import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ParleyError, type ErrorType } from '../src/index';

/** Runs `fn`, which must throw a ParleyError, and returns it. */
export function catchParley(fn: () => unknown): ParleyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, nothing was thrown');
}

/** Asserts that `fn` throws a ParleyError of `type` naming `path` and `rule`; returns it for more checks. */
export function expectViolation(fn: () => unknown, type: ErrorType, path: string, rule: string): ParleyError {
  const e = catchParley(fn);
  expect({ type: e.type, path: e.path, rule: e.rule }, e.message).toEqual({ type, path, rule });
  expect(e.violations[0]).toMatchObject({ path, rule });
  expect(e.message.length).toBeGreaterThan(0);
  return e;
}

/** A draft figure, verbatim (see fixtures/README.md). */
export function figureText(n: number): string {
  return readFileSync(new URL(`./fixtures/figure-${String(n).padStart(2, '0')}.json`, import.meta.url), 'utf8');
}

export function figure<T = Record<string, unknown>>(n: number): T {
  return JSON.parse(figureText(n)) as T;
}

/** Deep-freezes a value so a test notices any mutation (writes throw in strict mode). */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}
