/**
 * Self-corrections (draft-zhou §6.1: the payload holds what the user asked for): "economy, no wait, business",
 * "two seats, actually make that three", "severity major, no, critical". When a key that takes one value is given
 * two, and a word of repair stands between them, the later value is the one the user means; the earlier one is not
 * sent (it stays a second value of a filled key, so its words reach `other`: nothing the user said is dropped).
 * A bare number right after a repair word ("make that three") takes the key of the number it corrects, only when it
 * ends its clause ("actually 2 bags" counts bags, not the passengers). A repair value must close its phrase (end,
 * punctuation, "please", "instead", "then", "class" or a word of the key's name next): "sorry, first time doing this"
 * repairs nothing; nor does a repair before a question ("wait, is first cheaper?"). A candidate below the mapping
 * threshold is never promoted. "business instead" (the usual English order) repairs towards the value right before it.
 *
 * The repair words are a small closed class of discourse markers (English and the languages the mapper glosses),
 * read the same for every template.
 */
import { FUNCTION_WORDS, numberAt, type Token } from './text';

/** A value candidate as the offline mapper's rules push them (mapper.ts `Candidate`). */
export interface CorrectableCandidate {
  key: string | undefined;
  value: unknown;
  confidence: number;
  tokens: number[];
  rule: string;
}

/** The keys a correction may concern: single-valued ones, and whether a bare number may take the key. */
export interface CorrectableKey {
  readonly name: string;
  /** An integer or number key: "make that three" carries a number to it. */
  readonly numeric: boolean;
  readonly accepts: (n: number) => boolean;
  /** Lowercase words of the key's name and units ("class", "people"): a value followed by one closes its phrase. */
  readonly cueWords: ReadonlySet<string>;
}

/**
 * Repair markers, as lowercase token sequences; ',' is the comma token ("no, critical" repairs, "no filter" does not).
 * "instead of" and "rather than" compare, they do not repair: `markerSpans` refuses them (COMPARING).
 */
const REPAIRS: readonly (readonly string[])[] = [
  ['no', 'wait'],
  ['wait'],
  ['no', ','],
  ['actually'],
  ['sorry'],
  ['oops'],
  ['i', 'mean'],
  ['i', 'meant'],
  ['rather'],
  ['instead'],
  ['correction'],
  ['scratch', 'that'],
  ['make', 'that'],
  ['make', 'it'],
  ['change', 'that', 'to'],
  ['change', 'it', 'to'],
  ['non', ','],
  ['plutôt'],
  ['pardon'],
  ['perdón'],
  ['mejor', 'dicho'],
  ['nein'],
  ['eigentlich'],
  ['lieber'],
];
/** Words after a marker that make it a comparison, not a repair ("instead of", "rather than"). */
const COMPARING: ReadonlySet<string> = new Set(['of', 'than']);
/** Comparisons that refuse the value after them ("business rather than economy", "economy instead of business"). */
const REFUSING: readonly (readonly string[])[] = [
  ['rather', 'than'],
  ['instead', 'of'],
  ['plutôt', 'que'],
  ['au', 'lieu', 'de'],
  ['en', 'vez', 'de'],
  ['en', 'lugar', 'de'],
  ['statt'],
  ['anstatt'],
];
/** At most this many tokens between a repair's end and the value it introduces ("no wait, make it business"). */
const REPAIR_REACH = 4;
/** At most this many repair markers are read in one utterance (bounded work on long text). */
const MAX_REPAIRS = 32;
/**
 * At most this many tokens are scanned for markers: more than the longest utterance the mapper accepts
 * (MAX_UTTERANCE_CHARS in mapping.ts), so the work on a MiB of tokens stays bounded whoever calls.
 */
export const MAX_SCANNED_TOKENS = 8192;
/** Words after a value that close its phrase, beside punctuation, the end and the key's own name words. */
const CLOSING: ReadonlySet<string> = new Set(['please', 'instead', 'then', 'class', 'and']);

/** Whether the phrase of a value ending before token `to` closes there (so the value is a repair, not a modifier). */
function closesAt(tokens: readonly Token[], to: number, k: CorrectableKey): boolean {
  const t = tokens[to];
  if (!t) return true;
  if (t.kind === 'punct') return t.text !== '-' && t.text !== '/';
  if (t.kind !== 'word') return false;
  return CLOSING.has(t.lower) || k.cueWords.has(t.lower) || (t.lower.endsWith('s') && k.cueWords.has(t.lower.slice(0, -1)));
}

/** Whether a question mark ends the clause after token `from` ("wait, is first cheaper?"): at most 64 tokens looked at. */
function asksAfter(tokens: readonly Token[], from: number): boolean {
  for (let i = from; i < tokens.length && i - from < 64; i++) {
    const t = tokens[i] as Token;
    if (t.text === '?') return true;
    if (t.kind === 'punct' && t.text !== ',' && t.text !== '-' && t.text !== "'") return false;
  }
  return false;
}

/** Where repair markers stand: [from, to) token spans, in order. */
export function repairSpans(tokens: readonly Token[]): [number, number][] {
  return markerSpans(tokens, REPAIRS, COMPARING);
}

/** Where the given marker sequences stand: [from, to) token spans, in order, at most MAX_REPAIRS; one look-up a token. */
function markerSpans(tokens: readonly Token[], markers: readonly (readonly string[])[], refuseAfter: ReadonlySet<string>): [number, number][] {
  const byFirst = new Map<string, (readonly string[])[]>();
  for (const seq of markers) {
    const list = byFirst.get(seq[0] as string);
    if (list) list.push(seq);
    else byFirst.set(seq[0] as string, [seq]);
  }
  const out: [number, number][] = [];
  const end = Math.min(tokens.length, MAX_SCANNED_TOKENS);
  for (let i = 0; i < end && out.length < MAX_REPAIRS; i++) {
    for (const seq of byFirst.get((tokens[i] as Token).lower) ?? []) {
      if (!seq.every((w, k) => tokens[i + k]?.lower === w || (w === ',' && tokens[i + k]?.text === ','))) continue;
      if (refuseAfter.has(tokens[i + seq.length]?.lower ?? '')) continue;
      out.push([i, i + seq.length]);
      i += seq.length - 1;
      break;
    }
  }
  return out;
}

/** Whether only function words, punctuation and repair words stand in [from, to), at most REPAIR_REACH tokens. */
function closeAfter(tokens: readonly Token[], from: number, to: number, repairing: ReadonlySet<number>): boolean {
  if (to < from || to - from > REPAIR_REACH) return false;
  for (let i = from; i < to; i++) {
    const t = tokens[i] as Token;
    if (repairing.has(i)) continue;
    if (t.kind === 'word' && !FUNCTION_WORDS.has(t.lower)) return false;
    if (t.kind !== 'word' && t.kind !== 'punct') return false;
  }
  return true;
}

/**
 * Applies the user's repairs to the candidates in place: for a key given a value before a repair and another right
 * after it, the later one outranks the earlier; a bare number right after a repair joins the numeric key a number
 * before it filled.
 */
export function applyCorrections(tokens: readonly Token[], out: CorrectableCandidate[], keys: readonly CorrectableKey[], threshold = 0.5): void {
  const byName = new Map(keys.map((k) => [k.name, k] as const));
  refuseCompared(tokens, out, byName);
  const repairs = repairSpans(tokens);
  if (repairs.length === 0) return;
  insteadAfter(tokens, out, byName, repairs, threshold);
  const repairing = new Set(repairs.flatMap(([a, b]) => range(a, b)));
  const first = (c: CorrectableCandidate) => c.tokens[0] as number;
  const last = (c: CorrectableCandidate) => c.tokens[c.tokens.length - 1] as number;
  for (const [rFrom, rTo] of repairs) {
    // The values said before the repair, per key: the latest one is what is repaired.
    const before = new Map<string, CorrectableCandidate>();
    for (const c of out) {
      if (c.key === undefined || c.tokens.length === 0 || last(c) >= rFrom || !byName.has(c.key)) continue;
      const prev = before.get(c.key);
      if (!prev || last(c) > last(prev) || (last(c) === last(prev) && c.confidence > prev.confidence)) before.set(c.key, c);
    }
    if (asksAfter(tokens, rTo)) continue;
    for (const [key, old] of before) {
      const k = byName.get(key) as CorrectableKey;
      let fresh = out.filter(
        (c) => c.key === key && c.tokens.length > 0 && c.confidence >= threshold && first(c) >= rTo && closeAfter(tokens, rTo, first(c), repairing) && closesAt(tokens, last(c) + 1, k),
      );
      if (fresh.length === 0 && k.numeric) {
        // "make that three": the first number after the repair, across function words.
        let at = rTo;
        while (at < tokens.length && at - rTo <= REPAIR_REACH && closeAfter(tokens, rTo, at, repairing) && !numberAt(tokens, at)) at++;
        const n = at < tokens.length ? numberAt(tokens, at) : undefined;
        if (n && closeAfter(tokens, rTo, n.from, repairing) && k.accepts(n.value) && closesAt(tokens, n.to, k)) {
          const added: CorrectableCandidate = { key, value: n.value, confidence: old.confidence, tokens: range(rFrom, n.to), rule: 'correction' };
          out.push(added);
          fresh = [added];
        }
      }
      const best = fresh.sort((a, b) => b.confidence - a.confidence)[0];
      if (!best || JSON.stringify(best.value) === JSON.stringify(old.value)) continue;
      best.confidence = Math.max(best.confidence, old.confidence);
      // The repair's words are the new value's ("no wait, make it business"), not content for `other`.
      if (first(best) > rFrom) best.tokens = [...range(rFrom, first(best)), ...best.tokens];
      for (const c of out) if (c.key === key && c !== best && last(c) < rFrom) c.confidence = Math.min(c.confidence, best.confidence - 0.01);
    }
  }
}

/**
 * "economy …, let's do business instead": a lone "instead" closing a clause repairs towards the value right before
 * it, when its key was given another value earlier.
 */
function insteadAfter(tokens: readonly Token[], out: CorrectableCandidate[], byName: ReadonlyMap<string, CorrectableKey>, repairs: readonly [number, number][], threshold: number): void {
  for (const [rFrom, rTo] of repairs) {
    if (tokens[rFrom]?.lower !== 'instead' || rTo !== rFrom + 1) continue;
    const after = tokens[rTo];
    if (after && after.kind !== 'punct') continue;
    for (const fresh of out) {
      if (fresh.key === undefined || fresh.tokens[fresh.tokens.length - 1] !== rFrom - 1 || fresh.confidence < threshold || !byName.has(fresh.key)) continue;
      const said = JSON.stringify(fresh.value);
      const at = fresh.tokens[0] as number;
      const olds = out.filter((c) => c.key === fresh.key && c.tokens.length > 0 && (c.tokens[c.tokens.length - 1] as number) < at && JSON.stringify(c.value) !== said);
      if (olds.length === 0) continue;
      fresh.confidence = Math.max(fresh.confidence, ...olds.map((c) => c.confidence));
      fresh.tokens = [...fresh.tokens, rFrom];
      for (const c of olds) c.confidence = Math.min(c.confidence, fresh.confidence - 0.01);
    }
  }
}

/** "business rather than economy": the value right after the comparison gives way to another value of its key. */
function refuseCompared(tokens: readonly Token[], out: CorrectableCandidate[], byName: ReadonlyMap<string, CorrectableKey>): void {
  const spans = markerSpans(tokens, REFUSING, new Set());
  if (spans.length === 0) return;
  const none: ReadonlySet<number> = new Set();
  const byKey = new Map<string, CorrectableCandidate[]>();
  for (const c of out) {
    if (c.key === undefined || !byName.has(c.key) || c.tokens.length === 0) continue;
    const list = byKey.get(c.key);
    if (list) list.push(c);
    else byKey.set(c.key, [c]);
  }
  for (const [, to] of spans) {
    for (const same of byKey.values()) {
      for (const refused of same) {
        const at = refused.tokens[0] as number;
        if (at < to || !closeAfter(tokens, to, at, none)) continue;
        const said = JSON.stringify(refused.value);
        const rivals = same.filter((c) => c !== refused && JSON.stringify(c.value) !== said && !c.tokens.includes(at));
        if (rivals.length > 0) refused.confidence = Math.min(refused.confidence, Math.max(...rivals.map((c) => c.confidence)) - 0.01);
      }
    }
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}
