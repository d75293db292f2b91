/**
 * Self-corrections (draft-zhou §6.1: the payload holds what the user asked for): "economy, no wait, business",
 * "two seats, actually make that three", "severity major, no, critical". When a key that takes one value is given
 * two, and a word of repair stands between them, the later value is the one the user means; the earlier one is not
 * sent (it stays a second value of a filled key, so its words reach `other`: nothing the user said is dropped).
 * A bare number right after a repair word ("make that three") takes the key of the number it corrects.
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
}

/**
 * Repair markers, as lowercase token sequences; ',' is the comma token ("no, critical" repairs, "no filter" does not).
 * "instead of" and "rather than" compare, they do not repair: `notRepair` refuses them.
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
  for (let i = 0; i < tokens.length && out.length < MAX_REPAIRS; i++) {
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
export function applyCorrections(tokens: readonly Token[], out: CorrectableCandidate[], keys: readonly CorrectableKey[]): void {
  const byName = new Map(keys.map((k) => [k.name, k] as const));
  refuseCompared(tokens, out, byName);
  const repairs = repairSpans(tokens);
  if (repairs.length === 0) return;
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
    for (const [key, old] of before) {
      const k = byName.get(key) as CorrectableKey;
      let fresh = out.filter((c) => c.key === key && c.tokens.length > 0 && first(c) >= rTo && closeAfter(tokens, rTo, first(c), repairing));
      if (fresh.length === 0 && k.numeric) {
        // "make that three": the first number after the repair, across function words.
        let at = rTo;
        while (at < tokens.length && at - rTo <= REPAIR_REACH && closeAfter(tokens, rTo, at, repairing) && !numberAt(tokens, at)) at++;
        const n = at < tokens.length ? numberAt(tokens, at) : undefined;
        if (n && closeAfter(tokens, rTo, n.from, repairing) && k.accepts(n.value)) {
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
