/**
 * Words of an utterance for the offline mapper: tokens with their character
 * offsets (so a phrase is always the user's own text, sliced), number words,
 * and the few closed word classes the rules need (function words, negations,
 * request words). One linear scan, no backtracking regexes; the input is
 * already bounded by `prepareUtterance`.
 */

export type TokenKind = 'word' | 'number' | 'ident' | 'punct' | 'cjk';

export interface Token {
  /** The token as written. */
  readonly text: string;
  /** Lowercase; clitics resolved ("n't" → "not"). */
  readonly lower: string;
  readonly start: number;
  readonly end: number;
  readonly kind: TokenKind;
  /** Written with a capital first letter (a name, or the first word of a sentence). */
  readonly capital: boolean;
  /** All capitals, two letters or more, e.g. PEK, RAN, IP. */
  readonly upper: boolean;
  /** Glued to the previous token with no space between ("cross-domain", "IP/MPLS"). */
  readonly glued: boolean;
}

const JOINERS = new Set(['-', '_', '.', ':', '/', "'", '\u2019', '+']);
const CLAUSE_PUNCT = new Set([',', ';', '.', '!', '?', ':', '(', ')', '[', ']', '"', '\u201c', '\u201d']);

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x3040 && cp <= 0x30ff) || // kana
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7af) || // hangul
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2fa1f)
  );
}

/** Whether the text holds a kana, CJK ideograph or hangul character (the tokenizer's `cjk` class). */
export function hasCjk(text: string): boolean {
  for (const ch of text) if (isCjk(ch.codePointAt(0) as number)) return true;
  return false;
}

const LETTER = /\p{L}|\p{M}/u;
const DIGIT = /\p{Nd}/u;

function classOf(ch: string): 'letter' | 'digit' | 'cjk' | 'space' | 'other' {
  const cp = ch.codePointAt(0) as number;
  if (cp === 0x20) return 'space';
  if (isCjk(cp)) return 'cjk';
  if (cp < 0x80) {
    if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a)) return 'letter';
    if (cp >= 0x30 && cp <= 0x39) return 'digit';
    return /\s/.test(ch) ? 'space' : 'other';
  }
  if (DIGIT.test(ch)) return 'digit';
  if (LETTER.test(ch)) return 'letter';
  return /\s/u.test(ch) ? 'space' : 'other';
}

/**
 * Tokens of `s`. A run of letters and digits, with `- _ . : / ' +` inside it,
 * is one identifier when it holds a digit (INC-2026-0193, AGG-03, 09:12,
 * 2026-12-20, 3.5); otherwise it is split into words at those joiners
 * ("cross-domain" → cross, domain; "don't" → do, not; "landlord's" → landlord).
 * CJK runs are one token each; other visible characters are punctuation.
 */
export function tokenize(s: string): Token[] {
  const chars = Array.from(s);
  const offsets: number[] = [];
  let o = 0;
  for (const c of chars) {
    offsets.push(o);
    o += c.length;
  }
  offsets.push(o);
  const out: Token[] = [];
  let i = 0;
  let prevEnd = -1;
  const push = (start: number, end: number, kind: TokenKind, lowerOverride?: string) => {
    const text = s.slice(start, end);
    const first = text[0] ?? '';
    const letters = text.replace(/[^A-Za-z]/g, '');
    out.push({
      text,
      lower: lowerOverride ?? text.toLowerCase(),
      start,
      end,
      kind,
      capital: first !== first.toLowerCase(),
      upper: kind === 'word' && letters.length >= 2 && letters === letters.toUpperCase() && text === text.toUpperCase(),
      glued: start === prevEnd,
    });
    prevEnd = end;
  };
  while (i < chars.length) {
    const c = chars[i] as string;
    const cls = classOf(c);
    if (cls === 'space') {
      i++;
      continue;
    }
    if (cls === 'cjk') {
      let j = i;
      while (j < chars.length && classOf(chars[j] as string) === 'cjk') j++;
      push(offsets[i] as number, offsets[j] as number, 'cjk');
      i = j;
      continue;
    }
    if (cls === 'other') {
      push(offsets[i] as number, offsets[i + 1] as number, 'punct');
      i++;
      continue;
    }
    // A run of letters/digits with inner joiners.
    let j = i;
    let hasDigit = false;
    for (;;) {
      while (j < chars.length) {
        const k = classOf(chars[j] as string);
        if (k !== 'letter' && k !== 'digit') break;
        if (k === 'digit') hasDigit = true;
        j++;
      }
      const next = chars[j];
      const after = chars[j + 1];
      if (next !== undefined && JOINERS.has(next) && after !== undefined) {
        const ka = classOf(after);
        if (ka === 'letter' || ka === 'digit') {
          j++;
          continue;
        }
      }
      break;
    }
    const start = offsets[i] as number;
    const end = offsets[j] as number;
    if (hasDigit) {
      const text = s.slice(start, end);
      push(start, end, /^\d+(?:\.\d+)?$/.test(text) ? 'number' : 'ident');
    } else {
      splitWords(s, chars, offsets, i, j, push);
    }
    i = j;
  }
  return out;
}

/** English clitics after an apostrophe ("'s", "'re", "n't"): dropped, or read as "not". */
const ENGLISH_CLITICS: ReadonlySet<string> = new Set(['s', 't', 're', 've', 'll', 'd', 'm']);
/**
 * An elided article or preposition of French or Italian before an apostrophe: one to five letters ending in a
 * consonant ("l'", "d'", "qu'", "dell'", "nell'", "un'"), not a vowel ("O'Hare", "o'clock", "ma'am" stay as they were).
 */
const ELIDED = /^\p{L}{0,4}[^\P{L}aeiouy]$/u;

/** Splits a letters-only run at its joiners; resolves English clitics. */
function splitWords(s: string, chars: string[], offsets: number[], from: number, to: number, push: (start: number, end: number, kind: TokenKind, lower?: string) => void): void {
  let a = from;
  let piece = from;
  for (let k = from; k <= to; k++) {
    const c = chars[k];
    if (k < to && !JOINERS.has(c as string)) continue;
    if (k > a) {
      const start = offsets[a] as number;
      const end = offsets[k] as number;
      const apostrophe = a > from && (chars[a - 1] === "'" || chars[a - 1] === '\u2019');
      const word = s.slice(start, end).toLowerCase();
      // The piece right before the apostrophe ("d" of "d'avion", "dell" of "dell'aereo").
      const before = apostrophe ? chars.slice(piece, a - 1).join('').toLowerCase() : '';
      if (apostrophe && !ENGLISH_CLITICS.has(word) && ELIDED.test(before)) {
        // French and Italian elision: the word after the article or preposition is a word ("billet d'avion", "l'image").
        push(start, end, 'word');
      } else if (apostrophe) {
        // don't → do + not; can't → ca + not (ca is dropped as a function word); 's 're 've 'll 'd 'm dropped.
        if (word === 't') {
          const prev = chars.slice(from, a - 1).join('').toLowerCase();
          if (prev.endsWith('n')) push(start, end, 'word', 'not');
        }
      } else if (k < to && chars[k] !== undefined && (chars[k] === "'" || chars[k] === '\u2019') && chars[k + 1]?.toLowerCase() === 't' && word.endsWith('n') && k + 2 >= to) {
        // "don" of don't, "can" of can't: the word without its n.
        push(start, end - 1, 'word', word.slice(0, -1) || word);
      } else {
        push(start, end, 'word');
      }
    }
    piece = a;
    a = k + 1;
  }
}

/** Clause boundaries: phrases never run across them. */
export function isClausePunct(t: Token): boolean {
  return t.kind === 'punct' && CLAUSE_PUNCT.has(t.text);
}

function wordSet(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter((w) => w.length > 0));
}

/**
 * Function words: they never carry a value by themselves and never make a
 * phrase worth sending to `other`. "down", "out", "off", "up" and negations are
 * not here: "link down", "out of service" and "no blur" depend on them.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = wordSet(`
  a an the this that these those it its it's i me my mine we us our ours you your yours he him his she her hers they them their theirs
  is are was were be been being am do does did doing done have has had having will would shall should can could may might must ca wo
  of in on at by for with from to into onto about as than then so such there here which who whom whose what when where why how
  since until till around approximately roughly after before via per
  and or but if because while also too very just only even already please kindly thanks thank
  some any all each every both either neither one ones own same other another more most much many few lot lots
  s t d ll m re ve o y
`);

/** Negations, scoped to the words after them up to a clause boundary. */
export const NEGATIONS: ReadonlySet<string> = wordSet('no not without never none nor neither skip avoid disable disabled off');

/**
 * Words that wrap a request rather than say what it is ("could you book me…",
 * "I need…", "help me…"): never novel content for `other`.
 */
export const REQUEST_WORDS: ReadonlySet<string> = wordSet(`
  want wants wanted wanting need needs needed needing like would love wish hope help make makes made get gets got give gives gave
  let put set take takes do please go going can could book books booked booking order ordering ask asking request requesting
  add adds apply applies use uses turn change edit fix include switch
  i'd id i'm im ok okay hi hello hey just really also now asap quickly something thing things stuff way able
`);

/** Spelled-out numbers. */
const UNITS: ReadonlyMap<string, number> = new Map([
  ['zero', 0], ['one', 1], ['two', 2], ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9],
  ['ten', 10], ['eleven', 11], ['twelve', 12], ['thirteen', 13], ['fourteen', 14], ['fifteen', 15], ['sixteen', 16],
  ['seventeen', 17], ['eighteen', 18], ['nineteen', 19], ['single', 1], ['pair', 2], ['couple', 2], ['dozen', 12], ['none', 0],
]);
const TENS: ReadonlyMap<string, number> = new Map([
  ['twenty', 20], ['thirty', 30], ['forty', 40], ['fourty', 40], ['fifty', 50], ['sixty', 60], ['seventy', 70], ['eighty', 80], ['ninety', 90],
]);
const SCALES: ReadonlyMap<string, number> = new Map([['hundred', 100], ['thousand', 1000]]);

export interface NumberSpan {
  readonly value: number;
  /** Token indices [from, to). */
  readonly from: number;
  readonly to: number;
}

/**
 * Numbers in digits or words starting at token `i`: "4", "3.5", "twelve",
 * "twenty-one" (split as twenty, one), "a dozen", "two hundred and five".
 * Undefined when token `i` starts no number.
 */
export function numberAt(tokens: readonly Token[], i: number): NumberSpan | undefined {
  const t = tokens[i];
  if (!t) return undefined;
  if (t.kind === 'number') {
    const v = Number(t.text);
    return Number.isFinite(v) ? { value: v, from: i, to: i + 1 } : undefined;
  }
  if (t.kind !== 'word') return undefined;
  let j = i;
  // "a dozen", "a couple of", "a hundred"
  if (t.lower === 'a' || t.lower === 'an') {
    const n = tokens[i + 1];
    if (n && (n.lower === 'dozen' || n.lower === 'couple' || n.lower === 'pair' || SCALES.has(n.lower))) j = i + 1;
    else return undefined;
  }
  let total = 0;
  let current = 0;
  let any = false;
  let end = j;
  while (j < tokens.length) {
    const w = tokens[j] as Token;
    if (w.kind !== 'word') break;
    const unit = UNITS.get(w.lower);
    const ten = TENS.get(w.lower);
    const scale = SCALES.get(w.lower);
    if (unit !== undefined && !(w.lower === 'none' && any)) {
      if (w.lower === 'none' || w.lower === 'single' || w.lower === 'pair' || w.lower === 'couple' || w.lower === 'dozen') {
        if (any && w.lower !== 'dozen') break;
        current = w.lower === 'dozen' && any ? current * 12 : unit;
        any = true;
        end = j + 1;
        j++;
        // "a couple of"
        if ((w.lower === 'couple' || w.lower === 'pair') && tokens[j]?.lower === 'of') j++;
        break;
      }
      if (current % 10 !== 0 && any) break;
      current += unit;
    } else if (ten !== undefined) {
      if (any && current % 100 !== 0) break;
      current += ten;
    } else if (scale !== undefined) {
      current = (current === 0 ? 1 : current) * scale;
      if (scale >= 1000) {
        total += current;
        current = 0;
      }
    } else if (w.lower === 'and' && any && SCALES.has(tokens[j - 1]?.lower ?? '') && tokens[j + 1] && (UNITS.has((tokens[j + 1] as Token).lower) || TENS.has((tokens[j + 1] as Token).lower))) {
      j++;
      continue;
    } else break;
    any = true;
    end = j + 1;
    j++;
  }
  if (!any) return undefined;
  return { value: total + current, from: i, to: end };
}

/** Lowercase letters and digits of a phrase, words separated by one space. */
export function normalizePhrase(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
