/**
 * The mapping examples a template states in prose: draft-zhou §4.1 semantic
 * descriptions carry them ("Example mapping: 'from Beijing' -> 'PEK'",
 * "Example: 'make the teeth whiter' -> true"), and draft-chang §3.2 optional
 * sections carry more (`optional.examples`: "'next Monday' (asked on
 * 2026-04-30) -> '2026-05-04'"). Also the "Acceptable values: a (gloss), b"
 * sentence, whose glosses say what a value covers.
 *
 * A hand-written scanner, not a regex: descriptions are outside text, and an
 * apostrophe inside a quoted phrase ("the landlord's key") must not end it.
 */
import type { JsonValue } from '@parley/protocol';

export interface ExamplePair {
  /** The user's words of the example. */
  readonly source: string;
  readonly value: JsonValue;
}

/** Characters of a description scanned for examples (descriptions are for models; longer ones are cut). */
export const MAX_DESCRIPTION_CHARS = 8192;
const QUOTES = new Set(["'", '"', '\u2018', '\u2019', '\u201c', '\u201d']);

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}]/u.test(c);
}

/** A quote at `i` that opens a phrase: not between two word characters. */
function opens(s: string, i: number): boolean {
  return QUOTES.has(s[i] as string) && !isWordChar(s[i - 1]);
}
/** A quote at `i` that closes a phrase: not followed by a word character. */
function closes(s: string, i: number): boolean {
  return QUOTES.has(s[i] as string) && !isWordChar(s[i + 1]) && i > 0;
}

/** The quoted phrase ending at or before `end` (exclusive), skipping a parenthesis and spaces: [start, stop) of its inside. */
function quotedBefore(s: string, end: number): [number, number] | undefined {
  let i = end - 1;
  while (i >= 0 && s[i] === ' ') i--;
  // "'next Monday' (asked on 2026-04-30) ->": skip one parenthetical.
  if (s[i] === ')') {
    let depth = 0;
    for (; i >= 0; i--) {
      if (s[i] === ')') depth++;
      else if (s[i] === '(') {
        depth--;
        if (depth === 0) break;
      }
    }
    i--;
    while (i >= 0 && s[i] === ' ') i--;
  }
  if (i < 0 || !closes(s, i)) return undefined;
  const stop = i;
  for (let j = stop - 1; j >= 0 && stop - j <= 400; j--) {
    if (opens(s, j)) return [j + 1, stop];
  }
  return undefined;
}

/** Parses the value after an arrow: a quoted string, a [list], a number, true/false/null. */
function valueAt(s: string, from: number): JsonValue | undefined {
  let i = from;
  while (s[i] === ' ') i++;
  const c = s[i];
  if (c === undefined) return undefined;
  if (opens(s, i)) {
    for (let j = i + 1; j < s.length && j - i <= 400; j++) if (closes(s, j)) return s.slice(i + 1, j);
    return undefined;
  }
  if (c === '[') {
    const items: JsonValue[] = [];
    let j = i + 1;
    for (let n = 0; n < 100; n++) {
      while (s[j] === ' ' || s[j] === ',') j++;
      if (s[j] === ']') return items;
      const v = valueAt(s, j);
      if (v === undefined || Array.isArray(v)) return undefined;
      items.push(v);
      // Past the item just read.
      if (opens(s, j)) {
        let k = j + 1;
        while (k < s.length && !closes(s, k)) k++;
        j = k + 1;
      } else {
        while (j < s.length && s[j] !== ',' && s[j] !== ']') j++;
      }
    }
    return undefined;
  }
  let j = i;
  while (j < s.length && /[A-Za-z0-9.+-]/.test(s[j] as string) && j - i < 32) j++;
  const word = s.slice(i, j).replace(/\.$/, '');
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(word)) return Number(word);
  return undefined;
}

/** Every "'phrase' -> value" pair of a text (`->` or `→`). Values that cannot be read ("today + 2 days") are skipped. */
export function examplePairs(text: string): ExamplePair[] {
  const s = text.slice(0, MAX_DESCRIPTION_CHARS);
  const out: ExamplePair[] = [];
  let from = 0;
  for (;;) {
    const a = s.indexOf('->', from);
    const b = s.indexOf('\u2192', from);
    const at = a === -1 ? b : b === -1 ? a : Math.min(a, b);
    if (at === -1) break;
    const width = s[at] === '\u2192' ? 1 : 2;
    from = at + width;
    const q = quotedBefore(s, at);
    if (!q) continue;
    const value = valueAt(s, at + width);
    if (value === undefined) continue;
    const source = s.slice(q[0], q[1]).trim();
    if (source !== '') out.push({ source, value });
  }
  return out;
}

/** One gloss a description gives an enum value, and whether it is a side note rather than a name for it. */
export interface EnumGloss {
  readonly text: string;
  /**
   * A side note on the value, not a name for it: what follows a ';' in the parentheses ("full (…; slower)"), what
   * follows "e.g." (an example of the value), or a clause that opens with a word `isNoteWord` says is no noun
   * ("also run active tests …": a clause about what the value does).
   */
  readonly note: boolean;
}

/**
 * "Acceptable values: wireless (RAN, base stations), ip_network (IP/MPLS routers
 * and links), core" → glosses per enum value: wireless → ["RAN", "base
 * stations"], ip_network → ["IP/MPLS routers", "links"]. Only values in `enumValues`.
 */
export function enumGlosses(text: string, enumValues: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [v, gs] of enumGlossSegments(text, enumValues)) out.set(v, gs.map((g) => g.text));
  return out;
}

/** As `enumGlosses`, each gloss marked as a side note or not (see `EnumGloss.note`), by the parentheses' structure. */
export function enumGlossSegments(text: string, enumValues: readonly string[], isNoteWord: (word: string) => boolean = () => false): Map<string, EnumGloss[]> {
  const out = new Map<string, EnumGloss[]>();
  const s = text.slice(0, MAX_DESCRIPTION_CHARS);
  const known = new Set(enumValues);
  for (const v of enumValues) {
    let from = 0;
    for (;;) {
      const at = s.indexOf(`${v} (`, from);
      if (at === -1) break;
      from = at + 1;
      if (at > 0 && isWordChar(s[at - 1])) continue;
      const open = at + v.length + 1;
      const close = s.indexOf(')', open);
      if (close === -1 || close - open > 300) continue;
      const glosses: EnumGloss[] = [];
      // Clauses: the first names the value; those after a ';' are notes on it.
      s.slice(open + 1, close)
        .split(';')
        .forEach((clause, n) => {
          const first = /^\s*([A-Za-z]+)/.exec(clause)?.[1];
          // A clause opening with no noun (in lowercase: not an acronym) says what the value does.
          const noteClause = n > 0 || (first !== undefined && first === first.toLowerCase() && isNoteWord(first));
          // What follows "e.g." is an example of the value.
          clause.split(/\be\.g\./).forEach((part, m) => {
            for (const g of part.split(/,|\bor\b|\band\b|\bi\.e\./)) {
              const t = g.trim();
              if (t.length > 1 && t.length <= 60 && !known.has(t)) glosses.push({ text: t, note: noteClause || m > 0 });
            }
          });
        });
      if (glosses.length > 0) out.set(v, [...(out.get(v) ?? []), ...glosses]);
      break;
    }
  }
  return out;
}
