import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCorrections, repairSpans, MAX_SCANNED_TOKENS, type CorrectableCandidate, type CorrectableKey } from '../src/offline/corrections';
import { tokenize, type Token } from '../src/offline/text';

// The self-corrections read the user's tokens (draft-zhou §6.1): on hostile text, including a MiB of it, they answer
// in bounded time (the repository's 50 ms per MiB budget; the markers are scanned over at most MAX_SCANNED_TOKENS
// tokens), never throw, and keep keys named by the user out of prototypes. The MiB is tokenized outside the timer:
// the mapper refuses such a text at the door, so only these functions are timed on it.
const MIB = 1 << 20;
const BUDGET_MS = 50;
const KEYS: readonly CorrectableKey[] = [
  { name: 'cabin_class', numeric: false, accepts: () => true, cueWords: new Set(['cabin', 'class']) },
  { name: 'passenger_count', numeric: true, accepts: (n) => Number.isInteger(n) && n >= 1 && n <= 9, cueWords: new Set(['passenger']) },
  { name: '__proto__', numeric: true, accepts: () => true, cueWords: new Set(['constructor']) },
];
const UNITS = ['no wait, ', 'rather than ', 'instead of ', 'instead ', 'a ', 'no , ', 'make that 3 ', 'wait, is 2? ', 'actually 2, ', '?', 'a', '\u0000', '\ud800', 'constructor ', '__proto__ '];

/** Candidates on the first tokens, as the mapper would push them, so the repairs have values to move. */
const candidates = (tokens: readonly Token[]): CorrectableCandidate[] =>
  tokens.slice(0, 64).flatMap((_, i) => [
    { key: 'cabin_class', value: i % 2 ? 'economy' : 'business', confidence: 0.8, tokens: [i], rule: 'enum' },
    { key: '__proto__', value: i, confidence: 0.7, tokens: [i], rule: 'number' },
  ]);

/** The best of up to five runs (a busy core slows one run, a quadratic scan slows every one). */
function bestMs(run: () => void): number {
  let best = Infinity;
  for (let r = 0; r < 5 && best >= BUDGET_MS; r++) {
    const t = performance.now();
    run();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

describe('self-corrections on hostile text', () => {
  it('repairSpans and applyCorrections read a MiB of regex-hostile repetitions in under 50 ms', () => {
    const slow: string[] = [];
    for (const unit of UNITS) {
      const tokens = tokenize(unit.repeat(Math.ceil(MIB / unit.length)).slice(0, MIB));
      const spans = bestMs(() => void repairSpans(tokens));
      const applied = bestMs(() => applyCorrections(tokens, candidates(tokens), KEYS, 0.5));
      if (spans >= BUDGET_MS || applied >= BUDGET_MS) slow.push(`${JSON.stringify(unit)}: ${spans.toFixed(0)} / ${applied.toFixed(0)} ms`);
      expect(repairSpans(tokens).every(([a, b]) => a < b && b <= MAX_SCANNED_TOKENS + 4)).toBe(true);
    }
    expect(slow).toEqual([]);
  }, 120_000);

  it('never throw on arbitrary text and leave the prototypes clean', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.array(fc.constantFrom(...UNITS, 'business', 'economy', '3', ',', 'please'), { maxLength: 200 }).map((a) => a.join(' ')),
    );
    fc.assert(
      fc.property(hostile, (text) => {
        const tokens = tokenize(text);
        const out = candidates(tokens);
        applyCorrections(tokens, out, KEYS, 0.5);
        for (const c of out) expect(c.confidence <= 1 && Number.isFinite(c.confidence)).toBe(true);
        expect(({} as Record<string, unknown>)['constructor']).toBe(Object);
        expect(Object.keys(Object.prototype)).toEqual([]);
      }),
      { numRuns: 300, seed: 1127 },
    );
  });
});
