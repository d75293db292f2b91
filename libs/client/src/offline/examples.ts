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

/**
 * "Acceptable values: wireless (RAN, base stations), ip_network (IP/MPLS routers
 * and links), core" → glosses per enum value: wireless → ["RAN", "base
 * stations"], ip_network → ["IP/MPLS routers", "links"]. Only values in `enumValues`.
 */
export function enumGlosses(text: string, enumValues: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
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
      const inner = s.slice(open + 1, close);
      const glosses = inner
        .split(/,|;|\bor\b|\band\b|\be\.g\.|\bi\.e\./)
        .map((g) => g.trim())
        .filter((g) => g.length > 1 && g.length <= 60 && !known.has(g));
      if (glosses.length > 0) out.set(v, [...(out.get(v) ?? []), ...glosses]);
      break;
    }
  }
  return out;
}
