import { ParleyError } from '@parley/protocol';

/** Euclidean length, to check that embedders return unit vectors. */
export function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}

/** Awaits `p` (or calls `fn`), which must fail with a ParleyError, and returns it. */
export async function catchParley(p: Promise<unknown> | (() => unknown)): Promise<ParleyError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof ParleyError) return e;
    throw e;
  }
  throw new Error('expected a ParleyError, nothing was thrown');
}
