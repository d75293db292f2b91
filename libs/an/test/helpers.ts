/** Test helpers for libs/an: catch a ParleyError and check what it names. */
import { ParleyError, type ErrorType } from '@parley/protocol';
import { expect } from 'vitest';

export function catchParleyError(fn: () => unknown): ParleyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, but nothing was thrown');
}

export interface Expected {
  type: ErrorType;
  path: string;
  rule: string;
}

/** Runs fn, expects a ParleyError of `type` at `path` breaking `rule`, and returns it. */
export function expectError(fn: () => unknown, expected: Expected): ParleyError {
  const e = catchParleyError(fn);
  expect({ type: e.type, path: e.path, rule: e.rule }).toEqual(expected);
  expect(e.message.length).toBeGreaterThan(0);
  return e;
}

/** As expectError, for a parser of `input`; also checks that the input was left unchanged. */
export function expectRefused<T>(parse: (input: unknown) => T, input: unknown, expected: Expected): ParleyError {
  const before = structuredClone(input);
  const e = expectError(() => parse(input), expected);
  expect(input).toEqual(before);
  return e;
}

/** A deep copy of `o` with `patch` applied at the top level (undefined deletes a member). */
export function withMembers(o: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(o);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}
