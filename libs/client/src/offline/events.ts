/**
 * An alarm said as an event (draft-zhou §6.1): "the link got severed", "base station 4410 went offline", "base
 * stations 4410 to 4413 unreachable", "router AGG-12 lost its uplink". The template's example names say a thing and
 * its state (base_station_out_of_service, link_down); the user says the thing and what happened to it. Each snake_case
 * example value is read as a frame: its thing (the value's words before the state, and the example phrase's head noun
 * before it: "the backhaul line is down" → link, line), its state (the value's last words the phrase ends with: down),
 * and what the template's other examples say of the same thing or state ("sites … are out of service" makes a site a
 * base station's thing; "the line … was cut" makes cut a link's state). An utterance's thing, said before a state word
 * in its clause (or as the object right after a verb of losing: "lost its uplink"), names the frame's value when the
 * state word is the frame's own state, a WordNet hypernym of it ("severed": cut), another failure frame's own state
 * ("sites down"), or a word WordNet defines as a privation (`Lexicon.isPrivativeState`: "offline", "unreachable"; an
 * attribute value such as "dark" only after a verb of becoming). The thing is the head of the subject noun phrase,
 * its last noun before a preposition: never a noun qualifying the head, never one inside a prepositional phrase. A state
 * only one frame learned after a concrete noun WordNet ties to the frame's thing (`Lexicon.nounKin`) names that frame. Only one frame's thing may match, and only a
 * frame whose state is no degree ("optical_power_low" asks a magnitude): otherwise nothing is named, and the words stay
 * for `other` rather than an invented name. Every loop is bounded by the tokens times a fixed reach.
 */
import type { Lexicon } from './lexicon';
import { FUNCTION_WORDS, hasCjk, isClausePunct, type Token } from './text';

export interface EventFrame {
  readonly value: string;
  /** Lemmas of the thing ("station", "link", "line", "site"). */
  readonly things: ReadonlySet<string>;
  /** One-word states (down, cut): the value's own or the template's. */
  readonly states: ReadonlySet<string>;
  /** The states the template's other examples say of the thing ("the line … was cut"). */
  readonly learned: ReadonlySet<string>;
  /** The value's state is no value of a WordNet attribute (down, out of service; not low, a degree's). */
  readonly failure: boolean;
}

/** An example of the template: its words (lowercase, every word and number, no punctuation) and its value. */
export interface ExampleWords {
  readonly words: readonly string[];
  readonly value: unknown;
}

export interface EventCandidate {
  readonly value: string;
  readonly confidence: number;
  /** The state word: the thing's words may be another key's too (a site list's cue, a domain's gloss), so shared. */
  readonly tokens: number[];
  readonly shared: number[];
}

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
/** A frame's own state with its thing: surer than a privation WordNet defines, both under a value said by its own words (0.62). */
export const EVENT_OWN_STATE_CONFIDENCE = 0.58;
export const EVENT_PRIVATIVE_CONFIDENCE = 0.56;
/** A learned state after a concrete thing no frame names: under a name made of the user's words ("fiber_cut"), which wins. */
export const EVENT_CONCRETE_CONFIDENCE = 0.51;
/** Tokens looked back from the state word for its thing ("the link from router AGG-21 to core router CR-09 got severed"). */
const THING_REACH = 12;
/** Tokens looked ahead of a verb for its object ("lost its uplink"). */
const OBJECT_REACH = 3;
/** Words that end the clause looking back: subordinators and joiners of another predicate (a closed class). */
const CLAUSE_BREAKS: ReadonlySet<string> = new Set(['but', 'or', 'so', 'because', 'since', 'as', 'if', 'unless', 'until', 'after', 'before', 'when', 'whereas', 'which', 'who', 'while', 'though', 'although', 'then']);

/** Auxiliaries and the verbs of becoming that carry a state ("is down", "got severed", "went offline"): a closed class. */
const AUXILIARIES: ReadonlySet<string> = new Set(['be', 'have', 'do', 'get', 'go', 'become']);
/** English's negators: they deny a state, they are none ("never" is "not ever" to WordNet). A closed class. */
const NEGATORS: ReadonlySet<string> = new Set(['no', 'not', 'never', 'none', 'nor', 'neither', 'without', 'nothing', 'nobody']);
const hasDigit = (s: string) => /\d/.test(s);
const lemmaOf = (lex: Lexicon, w: string) => lex.lemmas(w).find((l) => l !== w && w.startsWith(l.slice(0, Math.max(1, l.length - 1)))) ?? w;

/** The last noun of `words` before `end` that is no function word nor number ("the backhaul line is" → line). */
function headNounBefore(lex: Lexicon, words: readonly string[], end: number): string | undefined {
  for (let i = end - 1; i >= 0 && end - i <= THING_REACH; i--) {
    const w = words[i] as string;
    if (FUNCTION_WORDS.has(w) || hasDigit(w) || !/^[a-z]/.test(w)) continue;
    if (lex.lemmas(w).some((l) => AUXILIARIES.has(l))) continue;
    if (lex.hasNoun(w)) return lemmaOf(lex, w);
    if (!lex.describesState(w)) return undefined;
  }
  return undefined;
}

/** Where `part` occurs in `words` as a run, or -1. */
function runAt(words: readonly string[], part: readonly string[]): number {
  outer: for (let i = 0; i + part.length <= words.length; i++) {
    for (let j = 0; j < part.length; j++) if (words[i + j] !== part[j]) continue outer;
    return i;
  }
  return -1;
}

/** The key's example values read as frames, with what the template's other examples say of their things and states. */
export function eventFrames(lex: Lexicon, own: readonly ExampleWords[], all: readonly ExampleWords[]): EventFrame[] {
  const frames: { value: string; things: Set<string>; states: Set<string>; learned: Set<string>; failure: boolean; state: string[] }[] = [];
  for (const ex of own) {
    if (typeof ex.value !== 'string' || ex.value.length > 64 || !SNAKE.test(ex.value) || frames.some((f) => f.value === ex.value)) continue;
    const vw = ex.value.split('_');
    const pw = ex.words.map((w) => w.toLowerCase());
    let n = 0;
    while (n < vw.length - 1 && n < pw.length && vw[vw.length - 1 - n] === pw[pw.length - 1 - n]) n++;
    if (n === 0) continue;
    const state = vw.slice(vw.length - n);
    // A name that opens with a verb ("lost_power") says no thing.
    if (lex.isPastVerbForm(vw[vw.length - n - 1] as string)) continue;
    const things = new Set<string>([lemmaOf(lex, vw[vw.length - n - 1] as string)]);
    const head = headNounBefore(lex, pw, pw.length - n);
    if (head) things.add(head);
    const last = state[state.length - 1] as string;
    // A state that is a value of an attribute ("low": of degree, height) is a magnitude's, not a failure's.
    const failure = !lex.isAttributeValue(last);
    frames.push({ value: ex.value, things, states: new Set(n === 1 ? [last] : []), learned: new Set(), failure, state });
  }
  const ownThing = (w: string) => frames.filter((f) => f.things.has(w));
  for (const ex of all) {
    if (own.some((o) => o.value === ex.value && o.words.join(' ') === ex.words.join(' '))) continue;
    const pw = ex.words.map((w) => w.toLowerCase());
    for (const f of frames) {
      // "sites 1021, 1022 and 1035 are out of service": a site is this frame's thing, unless another frame's already.
      const at = runAt(pw, f.state);
      const head = at > 0 ? headNounBefore(lex, pw, at) : undefined;
      if (head && ownThing(head).length === 0) f.things.add(head);
    }
    // "the line between … was cut": the phrase's last word is a state of the one frame whose thing it says.
    // Only a state said after an auxiliary ("was cut"), not the object of another verb ("needs the landlord key").
    const lastWord = pw[pw.length - 1];
    const before = pw[pw.length - 2] ?? '';
    const said = frames.filter((f) => pw.some((w) => f.things.has(lemmaOf(lex, w))));
    if (lastWord && said.length === 1 && lex.hasVerb(lastWord) && lex.lemmas(before).some((l) => AUXILIARIES.has(l))) {
      (said[0] as (typeof frames)[number]).states.add(lastWord);
      (said[0] as (typeof frames)[number]).learned.add(lastWord);
    }
  }
  return frames.map(({ value, things, states, learned, failure }) => ({ value, things, states, learned, failure }));
}

/** The frames whose thing the word says: the same lemma, or a compound that ends in it ("uplink": link). */
function framesOfThing(lex: Lexicon, frames: readonly EventFrame[], word: string): EventFrame[] {
  const lemma = lemmaOf(lex, word);
  return frames.filter((f) => [...f.things].some((t) => t === lemma || lex.sameLemma(word, t) || (word.length > t.length + 1 && word.endsWith(t) && lex.known(word.slice(0, word.length - t.length)))));
}

const saysState = (lex: Lexicon, f: EventFrame, word: string) => [...f.states].some((s) => lex.sameLemma(word, s) || lex.verbHypernyms(word).has(s));

/**
 * How the word says a frame's state: its own (or a hypernym of the verb is), a privation or another failure frame's
 * own state ("sites down": down is the link's failure, said of a site), or not at all.
 */
function stateStrength(lex: Lexicon, frames: readonly EventFrame[], f: EventFrame, word: string, becoming: boolean): number {
  if (saysState(lex, f, word)) return EVENT_OWN_STATE_CONFIDENCE;
  if (!f.failure) return 0;
  return lex.isPrivativeState(word, becoming) || frames.some((g) => g !== f && g.failure && saysState(lex, g, word)) ? EVENT_PRIVATIVE_CONFIDENCE : 0;
}

/** Verbs of becoming ("went dark", "became unreachable"): a closed class; "be" and "get" may say a lasting state. */
const BECOMING: ReadonlySet<string> = new Set(['go', 'become', 'turn']);
/** Whether a verb of becoming says the state word at `j` ("went dark"): an attribute value then is a change into it. */
function afterBecoming(lex: Lexicon, tokens: readonly Token[], j: number): boolean {
  const before = tokens[j - 1];
  return before !== undefined && before.kind === 'word' && lex.lemmas(before.lower).some((l) => BECOMING.has(l));
}

function skippable(t: Token): boolean {
  return t.kind !== 'word' || FUNCTION_WORDS.has(t.lower) || hasDigit(t.text) || t.upper;
}

/** The thing said before the state word at `j` in its clause, and its frames. */
function thingBefore(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[], j: number): [number, EventFrame[]] | undefined {
  for (let i = j - 1; i >= 0 && j - i <= THING_REACH; i--) {
    const t = tokens[i] as Token;
    if (clauseEnds(tokens, i) || NEGATORS.has(t.lower)) return undefined;
    if (skippable(t)) continue;
    const found = framesOfThing(lex, frames, t.lower);
    // The thing is the head of the subject noun phrase (draft-zhou §6.1): a noun inside a phrase after the head is
    // skipped ("the warranty for base station 4410", "the link from router AGG-21"), one qualifying a head is refused.
    if (found.length > 0 && inPhrase(tokens, i)) continue;
    if (found.length > 0) return complementOf(lex, tokens, frames, i) || modifies(lex, tokens, frames, i, j) ? undefined : [i, found];
    // The clause's subject is the nearest head noun: one naming no frame ("site 7710 traffic is down") ends the search,
    // unless it sits in a place phrase ("the link from router AGG-21 to core router CR-09").
    if (isSubjectHead(lex, tokens, i) && !inPhrase(tokens, i)) return undefined;
  }
  return undefined;
}

/** Whether the word at `i` reads as a noun heading its clause: a noun no verb form, or one right before an auxiliary ("traffic is"). */
function isSubjectHead(lex: Lexicon, tokens: readonly Token[], i: number): boolean {
  const w = (tokens[i] as Token).lower;
  if (!lex.hasNoun(w) || lex.lemmas(w).some((l) => AUXILIARIES.has(l))) return false;
  if (!lex.isFiniteVerbForm(w)) return true;
  const next = tokens[i + 1];
  // A noun that can be a verb heads its phrase before an auxiliary or a preposition ("the site lights at 4410 are").
  return next !== undefined && next.kind === 'word' && (PREPOSITIONS.has(next.lower) || lex.lemmas(next.lower).some((l) => AUXILIARIES.has(l)));
}

/** Whether the word at `i` follows a preposition, past determiners, numbers, names and up to two modifiers. */
function inPhrase(tokens: readonly Token[], i: number): boolean {
  for (let q = i - 1, mods = 0; q >= 0 && mods <= MAX_MODIFIERS; q--) {
    const t = tokens[q] as Token;
    if (PREPOSITIONS.has(t.lower)) return true;
    if (t.kind !== 'word' || clauseEnds(tokens, q)) return false;
    if (!DETERMINERS.has(t.lower) && !hasDigit(t.text) && !t.upper) mods++;
  }
  return false;
}

/**
 * Whether the clause ends at `i` looking back: clause punctuation, a subordinator, or a comma or "and" before a new
 * word ("the link flaps, and the temperature went down"); a comma or "and" between numbers lists them ("sites 2201,
 * 2202 and 2203 went dark").
 */
function clauseEnds(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i] as Token;
  if (CLAUSE_BREAKS.has(t.lower) || (isClausePunct(t) && t.text !== ',')) return true;
  if (t.text !== ',' && t.lower !== 'and') return false;
  const next = tokens[i + 1];
  return next !== undefined && next.kind === 'word' && !hasDigit(next.text) && !next.upper && next.lower !== 'and';
}

/** Whether the thing at `i` qualifies the noun after it ("the link checker … shows down arrows"), the head. */
function modifies(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[], i: number, j: number): boolean {
  const next = tokens[i + 1];
  if (!next || i + 1 >= j || next.kind !== 'word' || FUNCTION_WORDS.has(next.lower) || hasDigit(next.text) || next.upper) return false;
  if (!lex.hasNoun(next.lower) || framesOfThing(lex, frames, next.lower).length > 0) return false;
  // A noun that can be a verb heads the pair when an auxiliary follows it ("the link upgrade got cut").
  const after = tokens[i + 2];
  return !lex.isFiniteVerbForm(next.lower) || (after !== undefined && after.kind === 'word' && (PREPOSITIONS.has(after.lower) || lex.lemmas(after.lower).some((l) => AUXILIARIES.has(l))));
}

/** Prepositions that attach a noun to the noun before it ("the landlord of site 7710"): a closed class. */
const PREPOSITIONS: ReadonlySet<string> = new Set(['of', 'at', 'to', 'for', 'near', 'behind', 'from', 'in', 'on', 'with', 'by', 'between', 'about']);
/** Modifiers looked past before a thing ("at the old base station"). */
const MAX_MODIFIERS = 2;
const DETERMINERS: ReadonlySet<string> = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those', 'its', 'their', 'our', 'my', 'your', 'his', 'her']);

/** Whether the thing at `i` completes another noun, the state's real subject ("the landlord of site 7710 is unreachable"). */
function complementOf(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[], i: number): boolean {
  let p = i - 1;
  while (p >= 0 && DETERMINERS.has((tokens[p] as Token).lower)) p--;
  // A place the clause opens with ("at base station 5, the fibre broke"): a preposition before the thing and its
  // modifiers, with no noun before it.
  for (let q = p, mods = 0; q >= 0 && mods <= MAX_MODIFIERS; q--, mods++) {
    const t = tokens[q] as Token;
    if (PREPOSITIONS.has(t.lower)) {
      const before = tokens[q - 1];
      if (!before || before.kind !== 'word') return true;
      break;
    }
    if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower)) break;
  }
  const prep = tokens[p];
  const head = tokens[p - 1];
  if (!prep || !head || !PREPOSITIONS.has(prep.lower) || head.kind !== 'word') return false;
  // Any content word (a noun WordNet may not know: "the backhaul to site 4471"), not a verb ("went down at site 7").
  return !FUNCTION_WORDS.has(head.lower) && !lex.isFiniteVerbForm(head.lower) && framesOfThing(lex, frames, head.lower).length === 0;
}

/** The object right after a verb of privation ("lost its uplink"), and its frames. */
function objectAfter(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[], j: number): [number, EventFrame[]] | undefined {
  for (let i = j + 1; i < tokens.length && i - j <= OBJECT_REACH; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'word') return undefined;
    const found = framesOfThing(lex, frames, t.lower);
    if (found.length > 0) return [i, found];
    if (!FUNCTION_WORDS.has(t.lower)) return undefined;
  }
  return undefined;
}

/** The noun right after a verb, past determiners ("lost its uplink", "lost power"), or undefined. */
function objectNoun(lex: Lexicon, tokens: readonly Token[], j: number): number | undefined {
  for (let i = j + 1; i < tokens.length && i - j <= OBJECT_REACH; i++) {
    const t = tokens[i] as Token;
    // A noun in a prepositional phrase is no object ("unlocked at site 4410"): the thing is never inside one.
    if (t.kind !== 'word' || PREPOSITIONS.has(t.lower) || (!FUNCTION_WORDS.has(t.lower) && !lex.hasNoun(t.lower))) return undefined;
    if (!FUNCTION_WORDS.has(t.lower)) return i;
  }
  return undefined;
}

/**
 * A state only one frame learned from the template's other examples ("cut": the template's line was cut) after a
 * concrete thing no frame names ("the fibre … was cut"): that frame, just over the threshold.
 */
function physicalBefore(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[], j: number): [number, EventFrame[]] | undefined {
  const w = (tokens[j] as Token).lower;
  const owning = frames.filter((f) => [...f.learned].some((s) => lex.sameLemma(w, s) || lex.verbHypernyms(w).has(s)));
  if (owning.length !== 1) return undefined;
  for (let i = j - 1; i >= 0 && j - i <= THING_REACH; i--) {
    const t = tokens[i] as Token;
    if (clauseEnds(tokens, i) || NEGATORS.has(t.lower)) return undefined;
    if (skippable(t) || lex.lemmas(t.lower).some((l) => AUXILIARIES.has(l))) continue;
    if (!lex.hasNoun(t.lower)) continue;
    // The frame's thing or a noun WordNet ties to it ("fibre" … "line"), not any object ("the fence was cut").
    const kin = lex.nounKin(t.lower);
    const frame = owning[0] as EventFrame;
    if (lex.isPhysical(t.lower) && [...frame.things].some((x) => kin.has(x) || lex.nounKin(x).has(lemmaOf(lex, t.lower)))) return [i, owning];
    // The nearest noun is the subject ("the budget for the link upgrade got cut"), unless in a place phrase.
    if (isSubjectHead(lex, tokens, i) && !inPhrase(tokens, i)) return undefined;
  }
  return undefined;
}

/** Under the threshold: events that name two values ("fibre cut …, many sites down") leave the name unsure. */
export const EVENT_UNSURE_CONFIDENCE = 0.3;

/**
 * Every event the utterance says of a frame's thing, as the frame's value (see the file's comment). Events naming
 * different values are all unsure: the words go to `other` rather than one of them be picked.
 */
export function eventNames(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[]): EventCandidate[] {
  const out = eventReadings(lex, tokens, frames);
  if (new Set(out.map((e) => e.value)).size <= 1) return out;
  return out.map((e) => ({ ...e, confidence: EVENT_UNSURE_CONFIDENCE }));
}

function eventReadings(lex: Lexicon, tokens: readonly Token[], frames: readonly EventFrame[]): EventCandidate[] {
  const out: EventCandidate[] = [];
  if (frames.length === 0) return out;
  for (let j = 0; j < tokens.length; j++) {
    const t = tokens[j] as Token;
    // English word order, or a CJK predicate after its subject ("基站 801 退服"); a word glossed from another language
    // ("обрыв", a noun before the fibre it breaks) is said in that language's order.
    if (t.kind !== 'word' || (t.lower !== t.text.toLowerCase() && !hasCjk(t.text)) || NEGATORS.has(t.lower) || (FUNCTION_WORDS.has(t.lower) && !frames.some((f) => f.states.has(t.lower)))) continue;
    // A verb with an object says what its subject lost or did ("site 9100 lost power"): the state is the object's.
    const object = lex.isFiniteVerbForm(t.lower) ? objectNoun(lex, tokens, j) : undefined;
    const thing = object === undefined ? thingBefore(lex, tokens, frames, j) : objectAfter(lex, tokens, frames, j);
    const concrete = thing || object !== undefined ? undefined : physicalBefore(lex, tokens, frames, j);
    for (const r of [thing, concrete]) {
      if (!r || r[1].length !== 1) continue;
      const f = r[1][0] as EventFrame;
      const confidence = r === concrete ? EVENT_CONCRETE_CONFIDENCE : stateStrength(lex, frames, f, t.lower, afterBecoming(lex, tokens, j));
      if (confidence > 0) out.push({ value: f.value, confidence, tokens: [j], shared: [r[0]] });
    }
  }
  return out;
}
