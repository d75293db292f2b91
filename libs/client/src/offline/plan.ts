/**
 * What the offline mapper reads out of a template, once per template: for each
 * key, how its values look in words. Only the template is used (draft-zhou §4.1:
 * the semantic description is what "constrains the client agent's generation
 * space"): key names, types, enum values and their glosses, formats, patterns,
 * ranges, and the mapping examples of descriptions and optional sections.
 *
 * An example is read by what it shows:
 *  - `date`: a date key's example ('next Monday' -> '2026-05-04') is never
 *    copied; dates are computed. A date-time example with "<name> time" and an
 *    offset teaches that name's offset ("Beijing time" → +08:00).
 *  - `unit`: a number said in the example is the value ('two people' -> 2): the
 *    words beside it become the key's units ("people").
 *  - `copy`: the value is words of the example ('incident INC-… from …' ->
 *    'INC-…', 'sites 1021, 1022 and 1035 …' -> [...]): the words before it are
 *    cues, the value's shape (letters/digits) what to look for.
 *  - `composite`: the value joins copied identifiers with glue
 *    ('… AGG-03 and … CR-01 was cut' -> 'AGG-03<->CR-01').
 *  - `entity`: a name follows cue words ('from Beijing' -> 'PEK'): the cue says
 *    which key, the name is looked up in every entity example of the template.
 *  - `phrase`: anything else ('make the teeth whiter' -> true, 'optical power
 *    too low' -> 'optical_power_low'): matched as a phrase, by lemmas and
 *    WordNet relations.
 */
import { OTHER_KEY, type JsonValue, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { offsetOf, type Orientation } from './dates';
import { enumGlossSegments, examplePairs, type ExamplePair } from './examples';
import type { Lexicon } from './lexicon';
import { DATE_WORDS, spellingIndex } from './spelling';
import { FUNCTION_WORDS, REQUEST_WORDS, tokenize, type Token } from './text';

export type KeyKind = 'enum' | 'boolean' | 'number' | 'date' | 'datetime' | 'list' | 'string';

/** A way to say an enum value: its words, and how much saying them means it. */
export interface EnumForm {
  readonly value: JsonValue;
  readonly words: readonly string[];
  /** `sense`: a word the value's WordNet sense evokes (`Lexicon.senseWords`), matched by `Lexicon.evokes`. */
  readonly via: 'value' | 'gloss' | 'synonym' | 'sense';
  /** A `sense` word from the definition of the value's sense ("blues" for cool), not a WordNet pointer. */
  readonly definition?: boolean;
  /** A gloss from a side note of the description on the value ("slower" of "full (…; slower)"), not a name for it. */
  readonly note?: boolean;
  /** Per word: written in capitals in the template (an acronym), so only a word in capitals says it. */
  readonly upper?: readonly boolean[];
  /** Per word: a prepositional phrase follows it in the gloss ("symptoms in several domains"), so it is no name alone. */
  readonly qualified?: readonly boolean[];
  /** A one-word gloss that other keys' descriptions say too ("links" of ip_network beside suspected_link's link): less sure. */
  readonly spread?: boolean;
}

/** An enum value defined by a degree of an adjective: `sign` 1 for more or most, -1 for less or least. */
export interface Grade {
  readonly value: string;
  readonly adjective: string;
  readonly sign: 1 | -1;
  /** Whether the definition says the highest or lowest degree ("the most expensive"): a comparative the user says ("more expensive") is not it. */
  readonly superlative: boolean;
}

export interface PhraseExample {
  readonly words: readonly string[];
  readonly value: JsonValue;
  readonly source: string;
}

export interface Composite {
  /** The glue between the copied parts ("<->"). */
  readonly glue: string;
  readonly parts: number;
  /** Content words of the example around the parts ("line", "between", "cut"). */
  readonly context: readonly string[];
  readonly shapes: readonly string[];
  /** The function word between the parts in the example ("and" of "between X and Y"). */
  readonly connector?: string;
}

export interface KeyPlan {
  readonly def: KeyDefinition;
  readonly name: string;
  readonly kind: KeyKind;
  readonly integer: boolean;
  /** Content words of the key name ("teeth_whitening" → teeth, whitening). */
  readonly nameWords: readonly string[];
  /** Words that introduce or qualify a value: name words and the examples' cue words. */
  readonly cues: readonly string[];
  /** Words said after a number in the examples ("people", "customers"). */
  readonly units: readonly string[];
  readonly enumForms: readonly EnumForm[];
  readonly phrases: readonly PhraseExample[];
  /** Shapes of copied example values ("A-9-9", "9"). */
  readonly shapes: readonly string[];
  readonly composite?: Composite;
  /** Cue word sequences before an entity ("from", "out of", "depart from"). */
  readonly entityCues: readonly (readonly string[])[];
  /** Example values are codes such as PEK: a code the user writes is taken as is. */
  readonly codeShape?: string;
  /** A count of people ("passengers", "people", "customers"): "three of us", "a family of four" count too. */
  readonly countsPeople: boolean;
  readonly orientation: Orientation;
  readonly pattern?: RegExp;
  /**
   * Enum values WordNet defines by a degree of a quality, read from the definition of the value said with the key's
   * cue ("economy class": "… less expensive than first class …" → economy, expensive, -1; "first class": "the most
   * expensive accommodations" → first, +1).
   */
  readonly grades: readonly Grade[];
  /**
   * The key takes a name in snake_case made of the user's words: its examples map words to snake_case values
   * ('optical power too low' -> 'optical_power_low') and it takes no copied identifier or name.
   */
  readonly snakeNames: boolean;
}

export interface Plan {
  readonly keys: readonly KeyPlan[];
  /** Examples of the `other` key: phrases that belong in `other` even when a key seems to match. */
  readonly otherPhrases: readonly PhraseExample[];
  /** Lowercase entity name → value, from every entity example of the template. */
  readonly entities: ReadonlyMap<string, JsonValue>;
  /** The words of those names ("shanghai", "hongqiao"): names even where the template says them too. */
  readonly entityWords: ReadonlySet<string>;
  /** "<name> time" → minutes east of UTC, from date-time examples. */
  readonly zoneAliases: ReadonlyMap<string, number>;
  /** Words of the template (scenario, key names, descriptions but `other`'s): not new content for `other`. */
  readonly vocabulary: ReadonlySet<string>;
  /**
   * The scenario's and the keys' names, their enum values and WordNet relations of the names: words a user says to
   * name what the template is about ("photo", "flight"). A leftover made of them only is no new content; a word of a
   * description is ("fix the lighting": "light" is only an example's word).
   */
  readonly nameVocabulary: ReadonlySet<string>;
  /**
   * The field of meaning of the scenario's and the keys' names and the enum values (`Lexicon.fieldOf`): a word in it
   * is about what the template is about, said by association ("snapshot" for photo_retouch). Identification only.
   */
  readonly field: ReadonlySet<string>;
  /** Lemma → number of keys whose name or description says it: a word every key says tells little. */
  readonly keyFrequency: ReadonlyMap<string, number>;
  /** The words a slip is corrected to: the template's own and the words of dates (spelling.ts). */
  readonly spelling: ReadonlyMap<number, readonly string[]>;
}

/** Key-name words that say what kind of value, not what it is about. */
const GENERIC_NAME_WORDS = new Set(['count', 'number', 'id', 'ids', 'type', 'style', 'level', 'value', 'enabled', 'flag', 'is', 'has', 'at', 'date', 'time', 'name', 'code', 'mode', 'kind']);
/** Verbs that carry little of a phrase's meaning ("make the teeth whiter"). */
export const LIGHT_WORDS: ReadonlySet<string> = new Set(['make', 'get', 'give', 'do', 'have', 'run', 'let', 'put', 'take', 'just', 'tell', 'set', 'go', 'use', 'keep']);
/** Description words that say an event lies behind ("when the fault occurred"). */
const PAST_MARKERS = /\b(occurred|happened|started|began|raised|detected|observed|was|were|since|last)\b/i;
/** A snake_case name ("link_down"). */
export const SNAKE_CASE = /^[a-z]+(_[a-z]+)+$/;
/** Patterns run on tokens this long at most. */
export const MAX_PATTERN_INPUT = 128;

/** Content words of a phrase, lowercase. */
export function contentWords(tokens: readonly Token[]): string[] {
  return tokens.filter((t) => (t.kind === 'word' || t.kind === 'cjk') && !FUNCTION_WORDS.has(t.lower)).map((t) => t.lower);
}

/** Identifier shape: letter runs → A, digit runs → 9, other characters kept ("INC-2026-0193" → "A-9-9"). */
export function shapeOf(s: string): string {
  let out = '';
  let last = '';
  for (const ch of s) {
    const c = /\p{L}/u.test(ch) ? 'A' : /\p{Nd}/u.test(ch) ? '9' : ch;
    if (c === last && (c === 'A' || c === '9')) continue;
    out += c;
    last = c;
  }
  return out;
}

/**
 * Whether a template pattern is safe to run on user text: no quantified group
 * that itself holds a quantifier or an alternation (the shapes of catastrophic
 * backtracking, e.g. `(a+)+`, `(a|aa)*`), no backreferences, bounded length.
 */
export function safePattern(p: string): boolean {
  if (p.length > 200 || /\\[1-9k]/.test(p)) return false;
  const stack: { quantified: boolean; alternation: boolean }[] = [];
  let lastGroup: { quantified: boolean; alternation: boolean } | undefined;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      lastGroup = undefined;
      continue;
    }
    if (c === '[') {
      // Skip a character class.
      i++;
      while (i < p.length && p[i] !== ']') {
        if (p[i] === '\\') i++;
        i++;
      }
      lastGroup = undefined;
      continue;
    }
    if (c === '(') {
      stack.push({ quantified: false, alternation: false });
      continue;
    }
    if (c === ')') {
      lastGroup = stack.pop();
      if (!lastGroup) return false;
      const parent = stack[stack.length - 1];
      if (parent && (lastGroup.quantified || lastGroup.alternation)) parent.quantified ||= lastGroup.quantified;
      continue;
    }
    if (c === '|') {
      const top = stack[stack.length - 1];
      if (top) top.alternation = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (lastGroup && (lastGroup.quantified || lastGroup.alternation) && c !== '?') return false;
      const top = stack[stack.length - 1];
      if (top && c !== '?') top.quantified = true;
      lastGroup = undefined;
      if (c === '{') while (i < p.length && p[i] !== '}') i++;
      continue;
    }
    lastGroup = undefined;
  }
  return stack.length === 0;
}

function kindOf(def: KeyDefinition): KeyKind {
  if (Array.isArray(def.enum) && def.enum.length > 0) return 'enum';
  if (def.key_type === 'boolean') return 'boolean';
  if (def.key_type === 'integer' || def.key_type === 'number') return 'number';
  if (def.key_type === 'array') return 'list';
  if (def.format === 'date') return 'date';
  if (def.format === 'date-time') return 'datetime';
  return 'string';
}

function examplesOf(def: KeyDefinition): ExamplePair[] {
  const texts = [def.semantic_description];
  const ex = def.optional?.['examples'];
  if (Array.isArray(ex)) for (const e of ex.slice(0, 20)) if (typeof e === 'string') texts.push(e);
  const seen = new Set<string>();
  const out: ExamplePair[] = [];
  for (const p of texts.flatMap(examplePairs)) {
    const k = `${p.source}\u0000${JSON.stringify(p.value)}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(p);
  }
  return out;
}

function identifierLike(t: Token): boolean {
  return t.kind === 'ident' || (t.kind === 'number' && t.text.length >= 3) || (t.kind === 'word' && t.upper && t.text.length >= 2);
}

/** Leading capitalised words, codes or CJK of `tokens` (a name), as [from, to). */
function nameRun(tokens: readonly Token[], from: number): number {
  let j = from;
  while (j < tokens.length && j - from < 4) {
    const t = tokens[j] as Token;
    if (t.kind === 'cjk' || (t.kind === 'word' && t.capital) || (t.kind === 'word' && t.upper)) j++;
    else break;
  }
  return j;
}

const NUMBER_WORDS = new Set(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety', 'hundred', 'dozen']);

/** What one key's examples teach, gathered example by example (see the kinds of example above). */
interface KeyLearning {
  readonly kind: KeyKind;
  readonly cues: Set<string>;
  readonly units: Set<string>;
  readonly phrases: PhraseExample[];
  readonly shapes: Set<string>;
  readonly entityCues: string[][];
  composite?: Composite;
  codeShape?: string;
}
/** What examples teach about the whole template: entity names and "<name> time" offsets. */
interface TemplateLearning {
  readonly entities: Map<string, JsonValue>;
  readonly zoneAliases: Map<string, number>;
}

/** Reads one example of a key: a date, unit, copy, composite, entity or phrase example. */
function readExample(ex: ExamplePair, acc: KeyLearning, shared: TemplateLearning): void {
  const { kind, cues, units, phrases, shapes, entityCues } = acc;
  const { entities, zoneAliases } = shared;
    const toks = tokenize(ex.source);
    const words = contentWords(toks);
    const lowerSource = ex.source.toLowerCase();
    if (kind === 'date' || kind === 'datetime') {
      if (typeof ex.value === 'string') {
        const minutes = offsetOf(ex.value);
        const at = toks.findIndex((t, i) => t.lower === 'time' && i > 0 && toks[i - 1]?.kind === 'word');
        if (minutes !== undefined && at > 0) {
          for (let len = 1; len <= 3 && at - len >= 0; len++) {
            const name = toks.slice(at - len, at);
            if (name.every((t) => t.kind === 'word' && t.capital)) zoneAliases.set(name.map((t) => t.lower).join(' '), minutes);
          }
        }
      }
      return;
    }
    if (kind === 'number' && typeof ex.value === 'number') {
      const at = toks.findIndex((t) => (t.kind === 'number' && Number(t.text) === ex.value) || NUMBER_WORDS.has(t.lower));
      if (at !== -1) {
        for (const t of toks.slice(at + 1)) if (t.kind === 'word' && !FUNCTION_WORDS.has(t.lower) && !NUMBER_WORDS.has(t.lower)) units.add(t.lower);
        return;
      }
    }
    // Copied values: the value (or each item) is a token of the example.
    const items = Array.isArray(ex.value) ? ex.value : [ex.value];
    const copied = items.every((v) => typeof v === 'string' && toks.some((t) => t.text === v));
    if (copied && items.length > 0 && items.every((v) => typeof v === 'string' && toks.some((t) => t.text === v && identifierLike(t)))) {
      for (const v of items) shapes.add(shapeOf(v as string));
      const first = toks.findIndex((t) => t.text === items[0]);
      for (const t of toks.slice(Math.max(0, first - 2), first)) if (t.kind === 'word' && !FUNCTION_WORDS.has(t.lower)) cues.add(t.lower);
      if (kind === 'string' && toks.some((t, i) => t.text === items[0] && i > 0 && toks[i - 1]?.kind === 'word' && (toks[i - 1] as Token).capital)) {
        // 'out of New York JFK' -> 'JFK': a name with its code.
        acc.codeShape = shapeOf(items[0] as string);
        const start = toks.findIndex((t) => t.kind === 'word' && t.capital);
        if (start > 0) {
          entityCues.push(toks.slice(0, start).map((t) => t.lower));
          const name = toks.slice(start, first).map((t) => t.lower).join(' ');
          if (name && !entities.has(name)) entities.set(name, ex.value);
        }
        entities.set((items[0] as string).toLowerCase(), ex.value);
      }
      return;
    }
    if (typeof ex.value === 'string' && kind === 'string') {
      // Composite: identifiers of the example joined by glue.
      const ids = toks.filter((t) => identifierLike(t) && (ex.value as string).includes(t.text));
      if (ids.length >= 2) {
        let rest = ex.value;
        for (const id of ids) rest = rest.replace(id.text, '\u0000');
        const glue = rest.split('\u0000').filter((g) => g !== '');
        if (rest.startsWith('\u0000') && rest.endsWith('\u0000') && new Set(glue).size === 1) {
          const between = toks.slice(toks.indexOf(ids[0] as Token) + 1, toks.indexOf(ids[1] as Token));
          const connector = between.find((t) => FUNCTION_WORDS.has(t.lower))?.lower;
          acc.composite = {
            glue: glue[0] as string,
            parts: ids.length,
            context: words.filter((w) => !ids.some((id) => id.lower === w)),
            shapes: ids.map((t) => shapeOf(t.text)),
            ...(connector ? { connector } : {}),
          };
          return;
        }
      }
      // Entity: cue words, then a name ('from Beijing', 'depart from 广州').
      const nameAt = toks.findIndex((t) => t.kind === 'cjk' || (t.kind === 'word' && t.capital && !(t === toks[0] && FUNCTION_WORDS.has(t.lower))));
      if (nameAt > 0 && nameRun(toks, nameAt) === toks.length) {
        entityCues.push(toks.slice(0, nameAt).map((t) => t.lower));
        entities.set(toks.slice(nameAt).map((t) => t.lower).join(' '), ex.value);
        if (/^[A-Z]{2,4}$/.test(ex.value)) acc.codeShape = shapeOf(ex.value);
        return;
      }
    }
    if (kind === 'enum' && typeof ex.value === 'string' && lowerSource.includes(ex.value.toLowerCase().replace(/_/g, ' '))) {
      // 'business class' -> 'business': the value itself, with a cue beside it.
      for (const w of words) if (w !== ex.value.toLowerCase()) cues.add(w);
      return;
    }
    if (words.length > 0) phrases.push({ words, value: ex.value, source: ex.source });
    // A snake_case value says its meaning too ('link_down'): its words are a phrase for it.
    if (kind === 'string' && typeof ex.value === 'string' && SNAKE_CASE.test(ex.value)) {
      const valueWords = ex.value.split('_').filter((w) => !FUNCTION_WORDS.has(w));
      if (valueWords.length >= 2 && valueWords.join(' ') !== words.join(' ')) phrases.push({ words: valueWords, value: ex.value, source: ex.value.replace(/_/g, ' ') });
    }
}

/** The longest utterance the mapper reads (MAX_UTTERANCE_CHARS in mapping.ts): a longer enum value can never be said. */
const MAX_SAYABLE_CHARS = 2000;

/** A key's string enum values a user could say, the ones the mapper reads (a template is outside text: zhou §6.1). */
function sayableValues(def: KeyDefinition): string[] {
  return (def.enum ?? []).filter((v): v is string => typeof v === 'string' && v.length <= MAX_SAYABLE_CHARS);
}

/** Prepositions that open a phrase qualifying the noun before them in a value's gloss ("symptoms in several domains"). */
const GLOSS_PREPOSITIONS: ReadonlySet<string> = new Set(['in', 'of', 'on', 'at', 'across', 'between', 'among', 'from', 'with', 'within', 'over', 'for']);

/** The ways to say each enum value: the value's words, the glosses the description gives it, WordNet synonyms. */
function enumFormsOf(def: KeyDefinition, lex: Lexicon): EnumForm[] {
  const enumForms: EnumForm[] = [];
  const values = sayableValues(def);
  const glosses = enumGlossSegments(def.semantic_description, values, (w) => lex.noNoun(w));
  for (const v of values) {
    const words = v.toLowerCase().split(/[_\s-]+/).filter((w) => w !== '');
    if (words.length === 0) continue;
    enumForms.push({ value: v, words, via: 'value' });
    for (const { text: g, note } of glosses.get(v) ?? []) {
      const gw = tokenize(g).filter((t) => t.kind === 'word' || t.kind === 'cjk').map((t) => t.lower).filter((w) => !FUNCTION_WORDS.has(w));
      // An acronym of the description ("RAN") is said in capitals: "ran" is another word.
      const all = tokenize(g).filter((t) => t.kind === 'word' || t.kind === 'cjk');
      const caps = all.filter((t) => !FUNCTION_WORDS.has(t.lower)).map((t) => t.upper);
      // A head noun a prepositional phrase qualifies ("symptoms" of "symptoms in several domains"): the phrase says
      // the value; the head alone is a common noun.
      const qualified = all.flatMap((t, n) => (FUNCTION_WORDS.has(t.lower) ? [] : [GLOSS_PREPOSITIONS.has(all[n + 1]?.lower ?? '')]));
      if (gw.length > 0 && gw.length <= 4) {
        enumForms.push({ value: v, words: gw, via: 'gloss', ...(note ? { note } : {}), ...(caps.some(Boolean) ? { upper: caps } : {}), ...(qualified.some(Boolean) ? { qualified } : {}) });
      }
    }
    if (words.length === 1) {
      for (const s of lex.related(words[0] as string)) {
        if (s === words[0] || s.includes('_') || values.includes(s) || lex.sameLemma(s, words[0] as string)) continue;
        enumForms.push({ value: v, words: [s], via: 'synonym' });
      }
    }
  }
  return [...enumForms, ...senseForms(values, lex)];
}

/** "less expensive", "most expensive": a degree word then an adjective, in a definition. */
/**
 * The most one-word values of a closed list read through their WordNet senses and definitions: every value is read
 * against every other, so a server-sent list of a thousand values would take minutes to plan. Larger lists are
 * catalogues (codes, names), not scales a sense tells apart; their values are still matched as written.
 */
export const MAX_SENSE_VALUES = 64;
const DEGREE = /\b(less|least|more|most) ([a-z]+)/g;
/** Definition words two compounds' senses share to be read as parallel ("accommodations", "ship", "train", "plane"). */
const PARALLEL_DEFINITION_WORDS = 2;

/**
 * The grades of a closed list's values (`KeyPlan.grades`): each one-word value said with a cue word of the key
 * ("economy" + "class", the cue of 'business class' -> 'business'), when WordNet defines that compound; only a
 * definition parallel to another value's (sharing `PARALLEL_DEFINITION_WORDS` words) counts, so "first class" is
 * read as the accommodations, not the mail.
 */
function gradesOf(def: KeyDefinition, cues: readonly string[], lex: Lexicon): Grade[] {
  const values = sayableValues(def).filter((v) => /^[a-z]+$/i.test(v));
  // A list longer than a scale is a catalogue: its values are not read by their definitions (each is compared with every other).
  if (values.length > MAX_SENSE_VALUES) return [];
  const words = (g: string) => new Set(g.toLowerCase().replace(/"[^"]*"/g, ' ').match(/[a-z]{4,}/g) ?? []);
  const senses = values.map((v) => ({ v, glosses: cues.filter((q) => /^[a-z]+$/.test(q)).flatMap((q) => lex.compoundGlosses(v, q)) }));
  const out: Grade[] = [];
  for (const { v, glosses } of senses) {
    for (const g of glosses) {
      const mine = words(g);
      const parallel = senses.some((o) => o.v !== v && o.glosses.some((og) => [...words(og)].filter((w) => mine.has(w)).length >= PARALLEL_DEFINITION_WORDS));
      if (!parallel) continue;
      for (const m of g.replace(/"[^"]*"/g, ' ').toLowerCase().matchAll(DEGREE)) {
        const sign = m[1] === 'more' || m[1] === 'most' ? 1 : -1;
        if (lex.polarity(m[2] as string, m[2] as string) === 1) out.push({ value: v, adjective: m[2] as string, sign, superlative: m[1] === 'most' || m[1] === 'least' });
      }
    }
  }
  return out;
}

/**
 * The words each one-word enum value's WordNet sense evokes (`Lexicon.senseWords`: "cinematic" → film, "cool" →
 * cold, blues), kept only when they evoke that value alone and no other value is a form or relation of them.
 * `planTemplate` then drops those the template's own descriptions say (its words have their own rules).
 */
function senseForms(values: readonly string[], lex: Lexicon): EnumForm[] {
  const single = values.filter((v) => /^[a-z]+$/i.test(v));
  // Each value's sense is chosen against every sibling's, and each word it evokes is checked against every value.
  if (single.length > MAX_SENSE_VALUES) return [];
  const byWord = new Map<string, { values: string[]; definition: boolean }>();
  for (const v of single) {
    for (const { word: w, gloss } of lex.senseWords(v, single)) {
      if (values.some((o) => lex.match(w, o.toLowerCase()) > 0 && o !== v)) continue;
      const seen = byWord.get(w);
      byWord.set(w, { values: [...(seen?.values ?? []), v], definition: gloss && (seen?.definition ?? true) });
    }
  }
  const out: EnumForm[] = [];
  for (const [w, { values: vs, definition }] of byWord) if (vs.length === 1) out.push({ value: vs[0] as string, words: [w], via: 'sense', ...(definition ? { definition } : {}) });
  return out;
}

/** The key's pattern, when it is safe to run on user text. */
function patternOf(def: KeyDefinition): RegExp | undefined {
  let pattern: RegExp | undefined;
  if (typeof def.pattern === 'string' && safePattern(def.pattern)) {
    try {
      pattern = new RegExp(def.pattern, 'u');
    } catch {
      pattern = undefined;
    }
  }
  return pattern;
}

/** Content words inside the parentheses of a description (its first 8 KiB), lowercase. */
function parentheticalWords(description: string): string[] {
  const text = description.slice(0, 8192);
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('(', from);
    if (open === -1) break;
    const close = text.indexOf(')', open);
    if (close === -1) break;
    out.push(...contentWords(tokenize(text.slice(open + 1, close))));
    from = close + 1;
  }
  return out;
}

/**
 * The words of a value's gloss said alone (draft-zhou §6.1, the description's own words): a word of a gloss of
 * several words ("microwave" of "transport (optical or microwave transmission)", "MPLS" of "IP/MPLS routers") names
 * its value when it is a noun (or an acronym in capitals), no other value's forms hold it and no other key's
 * description says it ("routers", "stations" and "domains" are said of sites and incidents too). And a one-word gloss
 * other keys' descriptions say too is marked `spread` ("links": a microwave link is still transport).
 */
function glossParts(forms: readonly EnumForm[], keyFrequency: ReadonlyMap<string, number>, lex: Lexicon): EnumForm[] {
  const out = forms.map((f) => (f.via === 'gloss' && f.words.length === 1 && lex.lemmas(f.words[0] as string).some((l) => (keyFrequency.get(l) ?? 0) > 1) ? { ...f, spread: true } : f));
  const owners = new Map<string, Set<JsonValue>>();
  for (const f of forms) for (const w of f.words) owners.set(w, (owners.get(w) ?? new Set()).add(f.value));
  const single = new Set(out.filter((o) => o.words.length === 1).map((o) => o.words[0] as string));
  for (const f of forms) {
    if (f.via !== 'gloss' || f.note === true || f.words.length < 2) continue;
    f.words.forEach((w, n) => {
      const acronym = f.upper?.[n] === true;
      if (owners.get(w)?.size !== 1 || (!acronym && (f.qualified?.[n] === true || !lex.hasNoun(w) || w.length < 4))) return;
      if (lex.lemmas(w).some((l) => (keyFrequency.get(l) ?? 0) > 1)) return;
      if (single.has(w)) return;
      single.add(w);
      out.push({ value: f.value, words: [w], via: 'gloss', ...(acronym ? { upper: [true] } : {}) });
    });
  }
  return out;
}

/** Analyses `template` for the offline mapper. */
export function planTemplate(template: SchemaTemplate, lex: Lexicon): Plan {
  const keys: KeyPlan[] = [];
  const shared: TemplateLearning = { entities: new Map<string, JsonValue>(), zoneAliases: new Map<string, number>() };
  const { entities, zoneAliases } = shared;
  const vocabulary = new Set<string>();
  const keyFrequency = new Map<string, number>();
  const written = new Set<string>(DATE_WORDS);
  const addVocabulary = (text: string, into?: Set<string>) => {
    for (const t of tokenize(text.slice(0, 8192))) {
      if (t.kind !== 'word' || FUNCTION_WORDS.has(t.lower)) continue;
      written.add(t.lower);
      for (const l of lex.lemmas(t.lower)) {
        // Base forms too ("whiter" → white): a slip of "whiten" or "white" is one edit from those, not from "whiter".
        written.add(l);
        vocabulary.add(l);
        into?.add(l);
      }
    }
  };
  addVocabulary(template.scenario.replace(/_/g, ' '));
  let otherPhrases: PhraseExample[] = [];

  for (const def of template.keys) {
    const examples = examplesOf(def);
    if (def.key_name === OTHER_KEY) {
      otherPhrases = examples.map((e) => ({ words: contentWords(tokenize(e.source)), value: e.value, source: e.source }));
      continue;
    }
    const own = new Set<string>();
    addVocabulary(def.key_name.replace(/_/g, ' '), own);
    addVocabulary(def.semantic_description, own);
    for (const l of own) keyFrequency.set(l, (keyFrequency.get(l) ?? 0) + 1);
    const kind = kindOf(def);
    const nameWords = def.key_name.split('_').filter((w) => w.length > 0 && !GENERIC_NAME_WORDS.has(w));
    const acc: KeyLearning = { kind, cues: new Set<string>(nameWords), units: new Set<string>(), phrases: [], shapes: new Set<string>(), entityCues: [] };

    for (const ex of examples) readExample(ex, acc, shared);
    // "Identifiers of the affected sites or network elements (base stations, routers)": the kinds of thing a list
    // of identifiers names cue its items too ("router CR-05").
    if (kind === 'list') for (const w of parentheticalWords(def.semantic_description)) acc.cues.add(w);

    const enumForms = kind === 'enum' ? enumFormsOf(def, lex) : [];
    const grades = kind === 'enum' ? gradesOf(def, [...acc.cues], lex) : [];
    const pattern = patternOf(def);
    keys.push({
      def,
      name: def.key_name,
      kind,
      integer: def.key_type === 'integer',
      nameWords,
      cues: [...acc.cues],
      units: [...acc.units],
      enumForms,
      grades,
      phrases: acc.phrases,
      shapes: [...acc.shapes],
      ...(acc.composite ? { composite: acc.composite } : {}),
      entityCues: acc.entityCues,
      ...(acc.codeShape ? { codeShape: acc.codeShape } : {}),
      orientation: PAST_MARKERS.test(def.semantic_description) ? 'past' : 'future',
      snakeNames:
        kind === 'string' &&
        !pattern &&
        acc.shapes.size === 0 &&
        !acc.composite &&
        acc.entityCues.length === 0 &&
        examples.filter((e) => typeof e.value === 'string' && SNAKE_CASE.test(e.value) && !e.source.includes(e.value)).length >= 2,
      countsPeople: kind === 'number' && [...nameWords, ...acc.units].some((w) => lex.isPerson(w)),
      ...(pattern ? { pattern } : {}),
    });
  }
  // Words WordNet relates to the scenario's and the keys' names ("picture" to "photo"): not new content either.
  // (Not to every word of every description: their synonyms reach far, "cat" among them.)
  const names = [template.scenario, ...template.keys.filter((k) => k.key_name !== OTHER_KEY).map((k) => k.key_name)].flatMap((n) => n.toLowerCase().split(/[_\s-]+/));
  const nameVocabulary = new Set<string>(REQUEST_WORDS);
  for (const v of names) {
    for (const l of lex.lemmas(v)) nameVocabulary.add(l);
    for (const r of lex.related(v)) {
      if (r.includes('_')) continue;
      vocabulary.add(r);
      nameVocabulary.add(r);
    }
  }
  for (const k of keys) for (const f of k.enumForms) if (f.via === 'value') for (const w of f.words) nameVocabulary.add(w);
  // A word a value's sense evokes that some description of the template says is the template's own word, read by
  // the rules for those ("link" evoked by a value while a key's description speaks of links).
  for (const k of keys) {
    const forms = k.enumForms as EnumForm[];
    for (let i = forms.length - 1; i >= 0; i--) {
      const f = forms[i] as EnumForm;
      if (f.via === 'sense' && f.words.some((w) => lex.lemmas(w).some((l) => keyFrequency.has(l)))) forms.splice(i, 1);
    }
  }
  for (const k of keys) {
    const forms = k.enumForms as EnumForm[];
    const next = glossParts(forms, keyFrequency, lex);
    forms.length = 0;
    for (const f of next) forms.push(f);
  }
  for (const w of REQUEST_WORDS) vocabulary.add(w);
  // The scenario's own words with their kinds ("photo" → snapshot, headshot; not a generic name word's); an enum
  // value with its first sense and derived lemmas only (the kinds of "warning" or "business" are not the template's).
  const field = lex.fieldOf(template.scenario.toLowerCase().split(/[_\s-]+/).filter((w) => !GENERIC_NAME_WORDS.has(w)), 'kinds');
  // Each key's values read in the part of speech they share ("vintage", "cinematic": adjectives).
  for (const k of template.keys) {
    if (k.key_name === OTHER_KEY) continue;
    const words = (k.enum ?? []).filter((v): v is string => typeof v === 'string').flatMap((v) => v.toLowerCase().split(/[_\s-]+/)).filter((w) => !GENERIC_NAME_WORDS.has(w));
    if (words.length > 0) lex.fieldOf(words, 'senses', field, lex.sharedPos(words));
  }
  const entityWords = new Set([...entities.keys()].flatMap((e) => e.split(' ')));
  return { keys, otherPhrases, entities, entityWords, zoneAliases, vocabulary, nameVocabulary, field, keyFrequency, spelling: spellingIndex(written) };
}
