/**
 * Properties of every text path (draft-zhou §7: outside text is untrusted): the
 * registry's functions, the offline embedder and the semantic pool's fold, driven
 * by fast-check with arbitrary unicode, JS property names, NUL, lone surrogates,
 * regex-hostile repetitions and (as explicit examples) a MiB of text. Each call
 * returns or throws a typed ParleyError (never a TypeError or RangeError), within
 * a bound, leaves Object.prototype as it was, and the next ordinary input gives
 * exactly what it gave before the hostile one.
 */
import fc from 'fast-check';
import { createOfflineEmbedder } from '@parley/embeddings';
import { createSemanticPool, type SemanticPool } from '@parley/pool';
import { ParleyError } from '@parley/protocol';
import { createEmbeddedIndex } from '@parley/vectors';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEXT_PATHS, type TextPath } from './registry';

const ORDINARY = 'I would like a window seat please';
const JS_NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'propertyIsEnumerable', 'toLocaleString'];
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
const CALL_BOUND_MS = 2000;

/** Hostile text: arbitrary unicode, property names, controls, surrogates, separators, repetitions, mixed scripts. */
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...JS_NAMES, '\u0000', '\ud800', '\udfff', '\ud83d', '\u202e', '\ufeff', '\u200b', '我想要靠窗的座位', 'место у окна', 'مقعد بجانب النافذة', '창가 좌석', '窓側の席', '${x}', '{{x}}', '<|im_start|>'),
  fc.tuple(fc.constantFrom('a.', 'a', '@', ' ', '1 ', '1-', '<a', '[a', 'id ', '. ', '-', 'aA', '我', '\u0000', '\ud800', 'constructor '), fc.integer({ min: 1, max: 2000 })).map(([u, n]) => u.repeat(n)),
);
const hostile = fc.array(piece, { minLength: 1, maxLength: 6 }).map((xs) => xs.join(' '));
const MIB_EXAMPLES = ['a.'.repeat(1 << 19), `${'a'.repeat((1 << 20) - 1)}!`, '@'.repeat(1 << 20), 'constructor '.repeat(87_381), '\ud800'.repeat(1 << 20)];

/** A JSON-comparable view of a result (typed arrays as arrays). */
function view(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v));
}

/** Runs `p` on `text`: a result or a ParleyError, within the bound; anything else fails. */
async function answer(p: TextPath, text: string): Promise<unknown> {
  const started = performance.now();
  let out: unknown;
  try {
    out = await p.run(text);
  } catch (e) {
    expect(e, `${p.name} threw ${(e as Error)?.name}: ${(e as Error)?.message}`).toBeInstanceOf(ParleyError);
    out = e;
  }
  expect(performance.now() - started, p.name).toBeLessThan(CALL_BOUND_MS);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
  return out;
}

describe('every text path on hostile text', () => {
  const baseline = new Map<string, string>();
  beforeAll(async () => {
    for (const p of TEXT_PATHS) baseline.set(p.name, view(await p.run(ORDINARY)));
  }, 120_000);

  for (const p of TEXT_PATHS) {
    it(`${p.name}: typed answer, bounded, and the next ordinary input unchanged`, async () => {
      const check = async (text: string): Promise<void> => {
        await answer(p, text);
        expect(view(await p.run(ORDINARY)), `${p.name} after ${JSON.stringify(text.slice(0, 40))}`).toBe(baseline.get(p.name));
      };
      for (const t of MIB_EXAMPLES) await check(t);
      await fc.assert(fc.asyncProperty(hostile, check), { numRuns: 30, seed: 1127 });
    }, 240_000);
  }
});

describe('the offline embedder on hostile text', () => {
  it('gives a finite unit vector, never the zero vector, to any text', async () => {
    const e = createOfflineEmbedder();
    const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    await fc.assert(
      fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 4 }), async (texts) => {
        const vs = await e.embed(texts);
        expect(vs).toHaveLength(texts.length);
        for (const v of vs) {
          expect(v.every((x) => Number.isFinite(x))).toBe(true);
          expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-4);
        }
      }),
      { numRuns: 40, seed: 1127 },
    );
    for (const t of [...MIB_EXAMPLES, '', ' ', '\u0000']) expect(Math.abs(norm((await e.embed([t]))[0]!) - 1)).toBeLessThan(1e-4);
  }, 120_000);
});

describe('the semantic pool fold on hostile fragments', () => {
  let pool: SemanticPool;
  let ts = Date.UTC(2026, 5, 1);
  beforeAll(async () => {
    pool = await createSemanticPool({ embedder: createOfflineEmbedder(), index: createEmbeddedIndex() });
  });

  it('ingests or refuses with a typed error, and the next ordinary fragment joins the window-seat cluster', async () => {
    const first = await pool.ingest({ ts: ts++, scenario: 'flight_booking', client_id: 'c0', text: 'window seat please' });
    expect(first.global_cluster_id).not.toBeNull();
    const check = async (text: string): Promise<void> => {
      const started = performance.now();
      try {
        const r = await pool.ingest({ ts: ts++, scenario: 'flight_booking', client_id: 'c1', text });
        // Sanitising may drop a fragment (nothing left); a kept one is clustered.
        expect(r.sanitized === null || r.global_cluster_id !== null).toBe(true);
      } catch (e) {
        expect(e).toBeInstanceOf(ParleyError);
      }
      expect(performance.now() - started).toBeLessThan(CALL_BOUND_MS);
      const next = await pool.ingest({ ts: ts++, scenario: 'flight_booking', client_id: 'c2', text: 'a window seat' });
      expect(next.global_cluster_id).not.toBeNull();
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTO_NAMES);
    };
    for (const t of MIB_EXAMPLES) await check(t);
    await fc.assert(fc.asyncProperty(hostile, check), { numRuns: 40, seed: 1127 });
  }, 240_000);
});
