/**
 * ReDoS (draft-zhou §7: `other` and every outside string are untrusted): each
 * function of the registry that applies a regular expression to outside text
 * answers a MiB of pathological text ("a." repeated made the URL pattern
 * quadratic: 64 KB blocked the server for 1.9 s) in under 150 ms per MiB read, and
 * its first 64 KiB in under 100 ms, and the list is complete: a file of the
 * text-path libraries that holds a regex is in an entry or explained.
 *
 * The budgets are far above linear work and far below a ReDoS: a linear pass over
 * a MiB takes a few to a few tens of ms on this machine, while backtracking that
 * is quadratic in the length costs seconds at 64 KiB and minutes at a MiB. The
 * MiB budget leaves room for a loaded two-core machine (a run at load 8 measured
 * 57-59 ms for linear paths that take 20-30 ms at rest). The 64 KiB sample is the
 * whole work of a function that refuses longer text (scrubPersonalData's date-dense
 * 64 KiB took 51 ms among the suite's parallel files), so it has 100 ms: still an
 * eighteenth of what the quadratic pattern above took there.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ParleyError } from '@parley/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { REGEX_FILES_WITHOUT_OUTSIDE_TEXT, TEXT_PATHS, TEXT_PATH_LIBS } from './registry';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MIB = 1 << 20;
/** Per MiB read, for the MiB sample. */
const BUDGET_MIB_MS = 150;
/** Per read, for the 64 KiB sample. */
const BUDGET_SMALL_MS = 100;

/** `unit` repeated to one MiB (UTF-16 units), then `tail`. */
const mib = (unit: string, tail = ''): string => unit.repeat(Math.ceil((MIB - tail.length) / unit.length)).slice(0, MIB - tail.length) + tail;
/** The same shape at 64 KiB: the most some functions accept (longer is a typed refusal, timed above). */
const small = (s: string): string => s.slice(0, 65_536 - 1) + s.slice(-1);

/** Inputs known to hurt backtracking engines: repetitions with no end, separators, overlapping alternations. */
export const PATHOLOGICAL: readonly [string, string][] = [
  ['"a." repeated', mib('a.')],
  ['"a" repeated, then "!"', mib('a', '!')],
  ['"@" repeated', mib('@')],
  ['spaces', mib(' ')],
  ['spaces, then "x"', mib(' ', 'x')],
  ['"1 " repeated', mib('1 ')],
  ['"1-" repeated', mib('1-')],
  ['digits', mib('7')],
  ['"a@" repeated', mib('a@')],
  ['"a@b." repeated', mib('a@b.')],
  ['"<a" repeated', mib('<a')],
  ['"[a" repeated', mib('[a')],
  ['"id " then spaces', `id${mib(' ')}`.slice(0, MIB)],
  ['"passport " repeated', mib('passport ')],
  ['". " repeated', mib('. ')],
  ['"-" repeated, then "x"', mib('-', 'x')],
  ['"ignore " repeated', mib('ignore ')],
  ['"a " repeated', mib('a ')],
  ['"http" repeated', mib('http')],
  ['"::" repeated', mib('1:')],
  ['"aA" repeated (camelCase)', mib('aA')],
  ['"我" repeated', mib('我')],
  ['"место " repeated', mib('место ')],
  ['"\\u0000" repeated', mib('\u0000')],
  ['lone surrogates', mib('\ud800')],
  ['"constructor " repeated', mib('constructor ')],
  // Date-dense text: one replacement a date, each a callback and a string (markDates read a MiB of them in 227 ms).
  ['"12 may " repeated', mib('12 may ')],
  ['"1 May " repeated', mib('1 May ')],
  ['"1月1日" repeated', mib('1月1日')],
  ['"2026-1-1 " repeated', mib('2026-1-1 ')],
  ['"IMG_1 " repeated', mib('IMG_1 ')],
];

async function timed(run: () => unknown): Promise<number> {
  const t = performance.now();
  try {
    await run();
  } catch (e) {
    // A typed refusal ("too long") is an answer; anything else is a bug.
    if (!(e instanceof ParleyError)) throw e;
  }
  return performance.now() - t;
}

describe('every regex on outside text is linear: a MiB of pathological text in < 150 ms per MiB read, 64 KiB in < 100 ms', () => {
  beforeAll(async () => {
    // Warm-up (WordNet, caches, JIT): the budget is for the text, not for loading a dictionary.
    for (const p of TEXT_PATHS) await timed(() => p.run('window seat please'));
  }, 120_000);

  for (const p of TEXT_PATHS) {
    it(p.name, async () => {
      const slow: string[] = [];
      for (const [label, whole] of PATHOLOGICAL) {
        for (const [text, perRead] of [[whole, BUDGET_MIB_MS], [small(whole), BUDGET_SMALL_MS]] as const) {
          const budget = perRead * (p.reads ?? 1);
          // The best of up to five runs, stopping at the first under budget: a garbage collection or a busy core
          // on a loaded machine slows one run, a ReDoS slows every one (quadratic at a MiB is minutes, not ms).
          let ms = Infinity;
          for (let run = 0; run < 5 && ms >= budget; run++) ms = Math.min(ms, await timed(() => p.run(text)));
          if (ms >= budget) slow.push(`${label} (${text.length} units): ${ms.toFixed(0)} ms`);
        }
      }
      expect(slow).toEqual([]);
    }, 120_000);
  }
});

/** Files under `dir` ending in .ts. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Whether a source file holds a regular expression literal or constructs one. */
function hasRegex(file: string): boolean {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (n.kind === ts.SyntaxKind.RegularExpressionLiteral) found = true;
    else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'RegExp') found = true;
    else ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('the registry of text paths is complete', () => {
  it('names every file of the text-path libraries that holds a regex (or says why it sees no outside text)', () => {
    const covered = new Set(TEXT_PATHS.flatMap((p) => p.files));
    const missing = TEXT_PATH_LIBS.flatMap((d) => sources(join(ROOT, d)))
      .map((f) => relative(ROOT, f))
      .filter((f) => !f.includes('/gen/') && hasRegex(join(ROOT, f)) && !covered.has(f) && !REGEX_FILES_WITHOUT_OUTSIDE_TEXT.has(f));
    expect(missing).toEqual([]);
  });

  it('names only files that exist', () => {
    for (const f of [...TEXT_PATHS.flatMap((p) => p.files), ...REGEX_FILES_WITHOUT_OUTSIDE_TEXT.keys()]) expect(() => statSync(join(ROOT, f)), f).not.toThrow();
  });
});
