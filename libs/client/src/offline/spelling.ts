/**
 * Typing slips ("econmy", "backround", "tomorow", "wendesday"): a word WordNet
 * does not know is read as the template word (or date word) it is one edit
 * away from (two for long words), when exactly one such word is closest; a short
 * one ("ppl", "tmrw") as the one such word whose letters it keeps in order. The
 * user's text is never changed: only the lowercase form the rules match on.
 */
import type { Lexicon } from './lexicon';
import { FUNCTION_WORDS, REQUEST_WORDS, type Token } from './text';

/** Words of dates, so chrono reads "tomorow" and "wendesday". */
export const DATE_WORDS: readonly string[] = `monday tuesday wednesday thursday friday saturday sunday january february march april may june july
  august september october november december today tomorrow yesterday tonight morning afternoon evening night week weekend month next last
  noon midnight`.split(/\s+/).filter((w) => w !== '');

const MIN_LENGTH = 4;
const MAX_LENGTH = 24;

/** Optimal string alignment distance, stopping early once it exceeds `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur: number[] = [i];
    let best = cur[0] as number;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prev2[j - 2] as number) + 1);
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[n] as number;
}

/** The words a slip may be corrected to, by length (candidates are compared with words of similar length only). */
export function spellingIndex(words: Iterable<string>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const w of words) {
    if (w.length < MIN_LENGTH || w.length > MAX_LENGTH || !/^[a-z]+$/.test(w)) continue;
    const list = out.get(w.length) ?? [];
    if (!list.includes(w)) list.push(w);
    out.set(w.length, list);
  }
  return out;
}

/** The correction of `word`, or undefined when it is known, too short, or not one clear slip away. */
export function correct(word: string, index: ReadonlyMap<number, readonly string[]>, lex: Lexicon): string | undefined {
  if (word.length < 3 || word.length > MAX_LENGTH || !/^[a-z]+$/.test(word) || FUNCTION_WORDS.has(word) || REQUEST_WORDS.has(word)) return undefined;
  if (index.get(word.length)?.includes(word) || lex.known(word)) return undefined;
  if (word.length < MIN_LENGTH) return abbreviationOf(word, index);
  const max = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestD = max + 1;
  let ties = 0;
  for (let len = word.length - max; len <= word.length + max; len++) {
    for (const w of index.get(len) ?? []) {
      const d = editDistance(word, w, max);
      if (d < bestD) {
        best = w;
        bestD = d;
        ties = 0;
      } else if (d === bestD && w !== best && !(best !== undefined && lex.match(w, best) > 0)) ties++;
    }
  }
  if (bestD <= max && ties === 0) return best;
  return abbreviationOf(word, index);
}

/**
 * Texting abbreviations ("ppl", "tmrw", "pls"): 3 to 5 consonants, all in order in the shortest longer word
 * with the same first letter. A word with a vowel is a word, often of another language ("von", "vers"), not
 * a clipped English one.
 */
function abbreviationOf(word: string, index: ReadonlyMap<number, readonly string[]>): string | undefined {
  if (word.length < 3 || word.length > 5 || /[aeiou]/.test(word)) return undefined;
  // The shortest such word, when it is the only one of its length.
  for (let len = word.length + 2; len <= word.length * 3; len++) {
    const hits = (index.get(len) ?? []).filter((w) => w[0] === word[0] && inOrder(word, w));
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) return undefined;
  }
  return undefined;
}

function inOrder(short: string, long: string): boolean {
  let j = 0;
  for (const ch of long) if (ch === short[j]) j++;
  return j === short.length;
}

/** `tokens` with slips corrected in `lower` (text and offsets unchanged). */
export function correctTokens(tokens: readonly Token[], index: ReadonlyMap<number, readonly string[]>, lex: Lexicon): Token[] {
  return tokens.map((t) => {
    if (t.kind !== 'word') return t;
    const fixed = correct(t.lower, index, lex);
    return fixed ? { ...t, lower: fixed } : t;
  });
}
