/**
 * Rule-based intent induction (zhou §6.2.2 "Intent Induction: Use an internal
 * LLM or rule-based extractor to summarize the cluster's natural-language
 * fragments into a candidate key_name, key_type, required flag, default_value,
 * and semantic_description. The semantic_description MUST include mapping
 * examples derived from real fragments in the cluster.")
 *
 * Deterministic rules over a `Lexicon` (WordNet through libs/embeddings; the
 * basic one knows no word) and client counts, no model:
 *
 * 1. Tokens. Every sample is sanitised again (zhou §7) and split into words,
 *    numbers (digits and number words: "two extra bags" is 2), times
 *    ("02:00"), identifiers ("NB-0231") and negators. Filler (articles,
 *    pronouns, politeness, modal and light verbs) is dropped. A word the
 *    lexicon does not know is mended to a word the cluster knows within edit
 *    distance 1 (2 for long words): "vegeterian" → vegetarian. Words are
 *    lemmatised (noun first), abbreviations and variants folded (jpg → jpeg,
 *    colour → color, blond → blonde; `VALUE_FORMS`), and a word's synset
 *    members count as the word ("suitcase" is a "bag").
 * 2. The concept. The head is the noun the most clients use, counting a word's
 *    hyponyms and synonyms as the word ("dinner" and "lunch" are a "meal");
 *    verbs, adjectives and the values below never head. A modifier that stands
 *    beside the head in most of its fragments joins it (compounds: "maintenance
 *    window", "extra legroom", "eye size").
 * 3. The values: modifiers that vary across clients. A word is a value when it
 *    is not the head, not a verb or filler, sits next to the head or is what
 *    its clients keep saying (client consistency), and is value-like (an
 *    adjective, a word the lexicon does not know, a member of a value table,
 *    or one sharing a hypernym with another value). Values are canonical
 *    lemmas, and each needs `min_value_clients` distinct clients (draft-zhou §7).
 *    With a lexicon, values and name words are readable English said in a
 *    fragment in its language (kinds.ts), values touch the head as written,
 *    and alternatives stand on one side of it (`sameSlot`).
 * 4. The type, from evidence: identifiers → array of strings (`<head>_ids`);
 *    two times → a time window, string with a pattern (`<head>_window`); one
 *    number in most fragments → integer or number (`_count`, `_percent`); a
 *    comparative with degree words → a relative scale -3..3 (`eye_size`, zhou
 *    §5.2); two or more values → string enum, named `<head>_<class>` when the
 *    values share a class (hair_color, file_format) or `<head>_preference`
 *    (only a choice among alternatives is a preference); otherwise boolean,
 *    named by the act said on its object (acts.ts: `<object>_<act noun>`,
 *    `tooth_whitening`, `logo_removal`, or `<verb>_<object>`), the compound
 *    (`extra_legroom`), else `needs_<head>`.
 * 5. Existing keys (one key per intent): a candidate whose concept word is a
 *    word of an existing key's name with a compatible type, or whose values
 *    overlap an existing enum, names that key in `refines`; conflict.ts turns
 *    it into a refinement.
 * 6. Closed vocabulary (zhou §7; descriptions are read by other clients'
 *    LLMs): the description is a generated template sentence over the key
 *    name, its type and its values, with mapping examples composed of those
 *    tokens only ("vegan meal" -> "vegan"). No fragment text is ever quoted.
 *    Name words and values must be short lowercase tokens seen from at least
 *    `min_value_clients` clients (when more are heard), ASCII; a candidate that breaks one of these lists
 *    why in `review`, and the evolver holds it for an operator.
 *
 * Counting in clients (draft-zhou §7): with client-labelled samples every weight
 * is a number of distinct clients, so one client is one voice.
 */
import { MAX_KEY_NAME_LENGTH, OTHER_KEY, RESERVED_KEY_NAMES, parseTemplate, type JsonValue, type KeyDefinition } from '@parley/protocol';
import { evolutionError } from './errors';
import { KIND_AFFIXES, NAME_AFFIXES } from './affixes';
import { countedNoun, foldVariants, foreignFragment, misspeltInflection, paradigmModifiers, phraseCompound, readableWord, sameSlot } from './kinds';

/** Particles of phrasal verbs ("get a technician out", "clean up"): they belong to the verb, never to a compound name. */
const PARTICLES: ReadonlySet<string> = new Set(['out', 'up', 'off', 'away', 'down', 'back', 'over', 'around', 'along', 'through']);
/** GloVe cosine at which two nouns of a cluster count as one concept (technician / engineer 0.70, photo / picture 0.71). */
const RELATED_NOUNS = 0.65;
/** A choice: at least this share of the fragment mass says one of its alternatives. */
const CHOICE_SHARE = 0.5;
/** Modifiers of one noun are alternatives when at most this share of each one's clients says another (kinds.ts paradigmModifiers). */
const PARADIGM_OVERLAP = 0.5;
import { BASIC_LEXICON, editDistance, knownWord, type LexPos, type Lexicon } from './lexicon';
import { joinCodes, joinOldCodes, sanitizeFragment } from './sanitize';
import { personNames } from './people';
import { COHYPONYM_DEPTH, sharedKind, valueNounKind } from './cohyponym';
import { frameChoices } from './frames';
import { sayAct, type ActReading } from './acts';
import { ordinalValue, positionKey, positionReading } from './positions';

export interface InductionSample {
  readonly text: string;
  /** Fragments with this text, or, in a global pool's samples, distinct clients that sent it. */
  readonly count: number;
  /** Per-cluster pseudonyms of the clients behind the text (a global pool); weights then count distinct labels. */
  readonly clients?: readonly string[];
}

export interface InductionOptions {
  /** Share of the weight that must carry one number for a numeric key. */
  readonly numeric_share: number;
  /** Share of the weight that must carry identifiers (a list key) or two times (a window key). */
  readonly structure_share: number;
  readonly max_enum_values: number;
  /** Values below this share of the weight are left out (noise). */
  readonly min_value_share: number;
  /** Mapping examples in the description. */
  readonly max_examples: number;
  readonly max_description_chars: number;
  /** With client-labelled samples from more than this many clients, a value or a name word needs this many (draft-zhou §7). */
  readonly min_value_clients: number;
  /** A neighbour joins the head as a compound when it stands beside it in this share of the head's weight. */
  readonly compound_share: number;
  /**
   * An unnamed cluster in a script written without spaces whose phrasings share no word is refused (several needs)
   * until this many distinct clients stand behind it (distinct samples, when samples carry no clients; repeats of one
   * client's text count once): so many kept together by the embedder are one need the word test cannot see. An integer >= 2.
   */
  readonly unshared_max_clients: number;
  /**
   * Read a choice from the slot of a governing word distinct clients fill differently (frames.ts: "business trip" /
   * "leisure trip"). Off by default: on dev it gained nothing and cost two figures, and its values took person names,
   * health and religion words, places and weekdays without review (the slot-frame review). A boolean.
   */
  readonly frame_choices?: boolean;
}

export const DEFAULT_INDUCTION_OPTIONS: InductionOptions = Object.freeze({
  numeric_share: 0.6,
  structure_share: 0.5,
  max_enum_values: 8,
  min_value_share: 0.05,
  max_examples: 3,
  max_description_chars: 600,
  min_value_clients: 2,
  compound_share: 0.6,
  unshared_max_clients: 20,
  frame_choices: false,
});

export interface InductionContext {
  readonly lexicon?: Lexicon;
  /** The scenario's keys the client already has (base + live patches): a match is refined, not duplicated. */
  readonly existing?: readonly KeyDefinition[];
}

export type InducedKind = 'enum' | 'boolean' | 'numeric' | 'scale' | 'string' | 'list' | 'window' | 'date';

export interface MappingExample {
  /** A phrase composed of closed-vocabulary tokens (name words and values), never fragment text. */
  readonly fragment: string;
  readonly value: JsonValue;
  readonly count: number;
}

export interface Candidate {
  /** A key definition that passes parseTemplate: required false, default_value null. */
  readonly key: KeyDefinition;
  readonly kind: InducedKind;
  /** The concept words the name is built from. */
  readonly head_words: readonly string[];
  /** Values with the distinct clients (or fragments) behind each. */
  readonly values: readonly { readonly value: JsonValue; readonly count: number }[];
  readonly examples: readonly MappingExample[];
  readonly fragments_used: number;
  readonly fragments_excluded: number;
  /** An existing key this candidate is the same intent as (zhou §6.2.2 conflict detection), or null. */
  readonly refines?: string | null;
  /** Why an operator must look before clients see it (closed-vocabulary rules, zhou §7); empty: none. */
  readonly review?: readonly string[];
  /** Distinct normalised phrasings among the samples. */
  readonly phrasings?: number;
  /**
   * A yes/no key named by the act said on its object (acts.ts: acne_removal, straighten_horizon): the verb and the
   * object's words, and the noun of the act naming it (null: `<verb>_<object>`). Its object is no value of a choice
   * (sibling oneSlot).
   */
  readonly act?: { readonly verb: string; readonly noun: string | null; readonly object: readonly string[] };
}

export type InductionResult = { readonly ok: true; readonly candidate: Candidate } | { readonly ok: false; readonly reason: string; readonly fragments_excluded: number };

/** Words that carry no intent. Lowercase, after apostrophes became spaces. Number words are not here: they are numbers. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then than so as of in on at by for from with to into onto over under about ' +
    'i me my mine we us our ours you your yours he she her hers him his it its they them their this that these those there here ' +
    'is are was were be been being am do does did done have has had having will would shall should can could may might must ' +
    'please pls plz kindly thanks thank ok okay want wants wanted wanting need needs needed like likes liked love prefer prefers preferred ' +
    'get got give gives make makes let some any all each every ones very really just also only more most much many lot lots ' +
    'possible possibly available ideally maybe perhaps near nearby next beside close around etc something anything thing things stuff ' +
    'would d ll m re s t ve im id ive youre always again instead too still even either ' +
    'hi hello hey yes sure well else whenever when where what which who whom how why use uses used using ' +
    'nothing everything anyone someone everyone nobody somebody anybody'
  ).split(' '),
);

/** Words that negate the request ("no window seat"). */
export const NEGATORS: ReadonlySet<string> = new Set(['no', 'not', 'without', 'never', 'dont', 'don', 'none', 'nope']);

const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ['zero', 0], ['one', 1], ['two', 2], ['three', 3], ['four', 4], ['five', 5], ['six', 6], ['seven', 7], ['eight', 8], ['nine', 9], ['ten', 10],
  ['eleven', 11], ['twelve', 12], ['thirteen', 13], ['fourteen', 14], ['fifteen', 15], ['sixteen', 16], ['seventeen', 17], ['eighteen', 18], ['nineteen', 19],
  ['twenty', 20], ['thirty', 30], ['forty', 40], ['fifty', 50], ['sixty', 60], ['seventy', 70], ['eighty', 80], ['ninety', 90], ['hundred', 100], ['thousand', 1000],
  ['single', 1], ['couple', 2], ['pair', 2], ['dozen', 12],
]);

/**
 * Variants folded into one value or word: abbreviations and informal or
 * regional spellings (the "abbreviation table" of the rules above).
 */
const VALUE_FORMS: ReadonlyMap<string, string> = new Map([
  ['jpg', 'jpeg'], ['tif', 'tiff'], ['colour', 'color'], ['colours', 'color'], ['grey', 'gray'], ['blond', 'blonde'], ['veggie', 'vegetarian'],
  ['favourite', 'favorite'], ['centre', 'center'], ['ref', 'reference'], ['programme', 'program'], ['aeroplane', 'airplane'], ['tv', 'television'], ['wifi', 'wifi'],
]);

/**
 * Adverbial idioms of a preposition and a noun ("in case", "at least", "in total"): the noun in them is grammar,
 * never the thing a need is about ("insurance in case I fall ill" is about insurance). General English usage, the
 * common fixed prepositional phrases of grammars of English; not drawn from any stream.
 */
const FIXED_PHRASES: ReadonlySet<string> = new Set([
  'in case', 'in total', 'in time', 'on time', 'at least', 'at most', 'at all', 'of course', 'so far', 'in fact', 'at first',
  'at last', 'in general', 'by far', 'on purpose', 'in advance', 'in addition', 'for example', 'for instance', 'at times',
  'in particular', 'by mistake', 'each other', 'one another', 'in short', 'in effect', 'in turn', 'on average', 'by default',
]);

/**
 * Articles and prepositions of the other languages clients write in (Spanish, French, German, Italian, Portuguese)
 * that WordNet happens to know as English words or symbols ("el", "en", "la", "des"): in a fragment they are not
 * English, so they neither make it read as English nor name a key. General knowledge of those languages' grammar.
 */
const FOREIGN_FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'el', 'la', 'las', 'los', 'del', 'en', 'por', 'para', 'una', 'unos', 'le', 'les', 'des', 'du', 'au', 'aux', 'avec', 'pour', 'dans',
  'der', 'das', 'dem', 'und', 'mit', 'ein', 'eine', 'einen', 'zum', 'zur', 'vom', 'bitte', 'il', 'della', 'nel', 'degli', 'em', 'uma', 'muito',
]);

/** Currency words: a number with one of them is an amount of money. */
const CURRENCY_WORDS: ReadonlySet<string> = new Set(['euro', 'euros', 'eur', 'usd', 'dollar', 'dollars', 'buck', 'bucks', 'gbp', 'pound', 'pounds', 'quid', 'chf', 'franc', 'francs', 'yen', 'jpy', 'yuan', 'rmb', 'cny', 'inr', 'rupee', 'rupees', 'cad', 'aud']);
/** Words that make an amount a ceiling ("under 400", "max", "budget"). */
const LIMIT_WORDS: ReadonlySet<string> = new Set(['under', 'below', 'max', 'maximum', 'most', 'cap', 'ceiling', 'limit', 'budget', 'upto', 'within', 'over', 'above', 'höchstens', 'máximo', 'maximal', 'moins', 'top', 'tops']);
/** Units a count may be stated in ("2 days", "three nights", "2048 px"): the key's suffix. */
const TIME_UNITS: ReadonlyMap<string, string> = new Map([
  ['minute', 'minutes'], ['minutes', 'minutes'], ['min', 'minutes'], ['mins', 'minutes'], ['minuten', 'minutes'], ['minutos', 'minutes'], ['hour', 'hours'], ['hours', 'hours'], ['hr', 'hours'], ['hrs', 'hours'], ['stunden', 'hours'], ['horas', 'hours'], ['day', 'days'], ['days', 'days'], ['night', 'nights'], ['nights', 'nights'], ['week', 'weeks'], ['weeks', 'weeks'], ['month', 'months'], ['months', 'months'], ['tag', 'days'], ['tage', 'days'], ['dia', 'days'], ['dias', 'days'], ['días', 'days'], ['jour', 'days'], ['jours', 'days'], ['px', 'px'], ['pixel', 'px'], ['pixels', 'px'],
]);

/** Value families the lexicon does not know as such: the token and the class that names the key. */
const VALUE_CLASSES: ReadonlyMap<string, string> = new Map([
  ...['jpeg', 'png', 'tiff', 'webp', 'gif', 'bmp', 'heic', 'raw', 'pdf', 'svg', 'psd', 'avif'].map((f) => [f, 'format'] as const),
  ...['red', 'blue', 'green', 'yellow', 'black', 'white', 'brown', 'blonde', 'gray', 'pink', 'purple', 'orange', 'silver', 'gold', 'auburn', 'ginger'].map((c) => [c, 'color'] as const),
]);

/**
 * WordNet hypernyms whose hyponyms name a key by another word: parts of the day are a time (`flight_time`); what a
 * thing is made of, a substance the lexicon files as one (`noun.substance`: aluminium, metal), is its material
 * (`frame_material`). Foods and drinks are substances too in WordNet's hierarchy, never in its files (coffee is
 * `noun.food`): the second member is the lexicographer file the value must be in, null for any.
 */
const HYPERNYM_CLASSES: ReadonlyMap<string, readonly [string, string | null]> = new Map([
  ['time_period', ['time', null]],
  ['substance', ['material', 'noun.substance']],
]);

/** Classes of values that name a key (`hair_color`); the others name it a preference. */
const NAMING_CLASSES: ReadonlySet<string> = new Set(['color', 'format', 'size', 'language', 'currency', 'material', 'shape']);

/** Verbs of taking something away, one act family in acts.ts: a yes/no need among them is a removal (`acne_removal`). */
const REMOVAL_VERBS: ReadonlySet<string> = new Set(['remove', 'delete', 'erase', 'clear', 'hide', 'rid', 'clean', 'eliminate', 'drop', 'cut', 'retouch', 'fix', 'reduce']);
/** Phrasal removals without a removal verb ("get rid of", "take them out"). */
const REMOVAL_PHRASE = /\b(?:rid of|(?:take|get|cut)(?: \w{1,20}){0,3} (?:out|off|away))\b/i;

/**
 * Comparatives that ask for a relative change along one dimension
 * ("make the eyes a little bigger", zhou §5.2's note on eye_enlargement).
 */
const COMPARATIVES: ReadonlyMap<string, { dimension: string; direction: 1 | -1 }> = new Map([
  ['bigger', { dimension: 'size', direction: 1 }], ['larger', { dimension: 'size', direction: 1 }], ['enlarge', { dimension: 'size', direction: 1 }],
  ['enlarged', { dimension: 'size', direction: 1 }], ['smaller', { dimension: 'size', direction: -1 }], ['shrink', { dimension: 'size', direction: -1 }],
  ['brighter', { dimension: 'brightness', direction: 1 }], ['darker', { dimension: 'brightness', direction: -1 }], ['longer', { dimension: 'length', direction: 1 }],
  ['shorter', { dimension: 'length', direction: -1 }], ['wider', { dimension: 'width', direction: 1 }], ['narrower', { dimension: 'width', direction: -1 }],
  ['warmer', { dimension: 'warmth', direction: 1 }], ['cooler', { dimension: 'warmth', direction: -1 }], ['sharper', { dimension: 'sharpness', direction: 1 }],
  ['softer', { dimension: 'sharpness', direction: -1 }],
]);
/** Degree words: 1 = slight, 3 = strong; a bare comparative is 2. */
const DEGREE: ReadonlyMap<string, 1 | 3> = new Map([
  ['little', 1], ['bit', 1], ['slightly', 1], ['slight', 1], ['tiny', 1], ['touch', 1], ['somewhat', 1],
  ['much', 3], ['lot', 3], ['way', 3], ['far', 3], ['significantly', 3], ['considerably', 3], ['really', 3],
]);
const SCALE_MAX = 3;

/** A token of a closed vocabulary: short, lowercase ASCII. */
const TOKEN = /^[a-z][a-z0-9]{1,23}$/;
const ID = /^(?=[a-z0-9_-]*\d)(?=[a-z0-9_-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)+$|^[a-z]{1,4}\d{3,}$/;
const TIME = /^(\d{1,2}):(\d{2})$|^(\d{1,2})(am|pm)$/;
/** Seven digits or more: an identifier (a ticket, a membership), never a count. */
const LONG_NUMBER = /^\d{7,}$/;
/** A proportion W:H or WxH, each side one or two digits. */
const RATIO = /^[1-9]\d?[x:][1-9]\d?$/;
/** A calendar date read back by `rawTokens` ("14 November", "Nov 28", "2026-11-21", "11月20日"): YYYY-MM-DD when a year was written, else MM-DD. */
const DATE = /^date:(?:(\d{4})-)?(\d{2})-(\d{2})$/;
/** English month names and their abbreviations (a closed class; "may" only beside a day number, as every form here). */
const MONTHS: ReadonlyMap<string, number> = new Map(
  ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].flatMap((m, k) => [
    [m, k + 1] as const,
    ...(m.length > 3 && m !== 'june' && m !== 'july' ? [[m.slice(0, 3), k + 1] as const] : []),
    ...(m === 'september' ? [['sept', 9] as const] : []),
  ]),
);
/**
 * Month names that are also everyday words ("the 2 may be late", "march 3 miles", "mar the finish", "an august
 * 10 members"): a month only when capitalised, or when the day is written as one ("2nd", "the 3 of").
 */
const WORD_MONTHS: ReadonlySet<string> = new Set(['may', 'march', 'mar', 'august']);
/** Days in each month (February in a leap year: a date said without a year may be one). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** A day number before a word, and a word before a day number: the word is a month when MONTHS has it. */
const DAY_MONTH = /\b(\d{1,2})(st|nd|rd|th)?( of)? ([A-Za-z]{3,9})\b\.?/g;
const MONTH_DAY = /\b([A-Za-z]{3,9})\.? (\d{1,2})(st|nd|rd|th)?\b/g;
/** How much of a text dates are read in: each pass is linear, but a date-dense MiB costs one callback a date. */
const DATE_SCAN_CHARS = 4096;

/** The identifiers of a text as the inducer reads them ("RQ-4410", "SCAN_0712" after sanitising), upper case. */
export function identifiers(text: string): string[] {
  return rawTokens(text.slice(0, 4096)).filter((t) => ID.test(t) && !DATE.test(t)).map((t) => t.toUpperCase());
}

/** One token for a valid month and day ("date:11-14", "date:2027-11-14"), or null: no 31 April, no 30 February. */
function dateToken(month: number, day: number, year?: string): string | null {
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= (MONTH_DAYS[month - 1] as number))) return null;
  if (year !== undefined && month === 2 && day === 29 && !leapYear(Number(year))) return null;
  return ` date:${year !== undefined ? `${year}-` : ''}${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')} `;
}

/** The Gregorian rule: every fourth year, but not a century unless divisible by 400 (1900 had no 29 February). */
function leapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** The month a word names beside a day number, or 0: an everyday word ("may") only capitalised or beside an ordinal day. */
function monthOf(word: string, ordinal: boolean): number {
  const w = word.toLowerCase();
  const m = MONTHS.get(w) ?? 0;
  if (m === 0 || !WORD_MONTHS.has(w) || ordinal) return m;
  return /^\p{Lu}\p{Ll}+$/u.test(word) ? m : 0;
}

/**
 * An everyday month word before a bare day number and a word that is no year ("May 12 people come", "March 3
 * miles"): the number counts what follows, unless a preposition of time stands before the month ("on May 12 we").
 */
function countNotDate(month: string, all: string, end: number): boolean {
  if (!WORD_MONTHS.has(month.toLowerCase())) return false;
  const before = /(?:^|\s)(on|by|until|till|from|since|before|after|in)\s+$/i.test(all.slice(Math.max(0, end - 40), end).replace(/\S+\.?\s+\d{1,2}$/, ''));
  if (before) return false;
  return /^\s+(?:of\s+)?(?:us|them|\p{L}{2,})/u.test(all.slice(end, end + 40)) && !/^\s*,?\s*(19|20)\d{2}\b/.test(all.slice(end, end + 8));
}

/**
 * Calendar dates as one token each, before clock times and proportions are read ("19 November" is not 19 minutes,
 * "2026-11-21" not a range): ISO dates (a 19xx or 20xx year, not inside an identifier: "INC-2024-11-05" stays
 * one), day and month name either way round, and the CJK 月/日 form. Only the first DATE_SCAN_CHARS are read.
 */
export function markDates(text: string): string {
  // No digit, no date; the CJK form only where its month sign is (each pass is linear, these keep them few).
  if (!/\d/.test(text)) return text;
  if (text.length > DATE_SCAN_CHARS) {
    // Cut at the last whitespace before the limit: a date is never read from half of itself.
    const ws = text.slice(0, DATE_SCAN_CHARS).search(/\s\S*$/);
    const cut = ws > 0 ? ws : DATE_SCAN_CHARS;
    return markDates(text.slice(0, cut)) + text.slice(cut);
  }
  const cjk = text.includes('月') ? text.replace(/(\d{1,2})月(\d{1,2})日/g, (m, mo: string, d: string) => dateToken(Number(mo), Number(d)) ?? m) : text;
  return cjk
    .replace(/(?<![\p{L}\p{N}\p{M}_-])((?:19|20)\d{2})-(\d{1,2})-(\d{1,2})(?![\p{L}\p{N}\p{M}_-])/gu, (m, y: string, mo: string, d: string) => dateToken(Number(mo), Number(d), y) ?? m)
    .replace(DAY_MONTH, (m, d: string, ord: string | undefined, of: string | undefined, mo: string) => dateToken(monthOf(mo, ord !== undefined || of !== undefined), Number(d)) ?? m)
    .replace(MONTH_DAY, (m, mo: string, d: string, ord: string | undefined, at: number, all: string) => (ord === undefined && countNotDate(mo, all, at + m.length) ? m : dateToken(monthOf(mo, ord !== undefined), Number(d)) ?? m));
}

interface Tok {
  readonly kind: 'word' | 'number' | 'time' | 'date' | 'id' | 'neg' | 'ratio';
  /** Canonical form (lemma) for words; the digits for numbers; HH:MM for times; the identifier as written (upper case). */
  readonly v: string;
  readonly n?: number;
  readonly pos?: LexPos | null;
  /** Index among the fragment's raw tokens (stop words included): compounds need neighbours. */
  readonly i?: number;
}

interface Parsed {
  readonly text: string;
  readonly voters: ReadonlyMap<string, number>;
  readonly toks: readonly Tok[];
  readonly words: readonly string[];
  readonly numbers: readonly number[];
  readonly times: readonly string[];
  /** Calendar dates, MM-DD. */
  readonly dates: readonly string[];
  readonly ids: readonly string[];
  /** Proportions ("4:5", "16x9", sanitised "4 5"), as W:H. */
  readonly ratios: readonly string[];
  readonly negated: boolean;
  readonly percent: boolean;
  /** A currency word: the number is money. */
  readonly currency: boolean;
  /** A ceiling word ("under", "max", "no more than"). */
  readonly limit: boolean;
  /** The time unit the number is stated in, if any. */
  readonly unit: string | null;
}

/** Plural to singular for the common English patterns; other words unchanged (used without a lexicon). */
export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** Tokenises a sanitised fragment: content words (singular, unique, in order), numbers, negation. */
export function contentWords(text: string): { words: string[]; numbers: number[]; negated: boolean } {
  const words: string[] = [];
  const numbers: number[] = [];
  let negated = false;
  for (const raw of rawTokens(text)) {
    if (/^\d+(\.\d+)?$/.test(raw)) numbers.push(Number(raw));
    else if (NUMBER_WORDS.has(raw)) numbers.push(NUMBER_WORDS.get(raw) as number);
    else if (NEGATORS.has(raw)) negated = true;
    else if (/^\p{L}[\p{L}\p{M}]*$/u.test(raw) && raw.length > 1 && !STOP_WORDS.has(raw)) {
      const w = singular(raw);
      if (!words.includes(w)) words.push(w);
    }
  }
  return { words, numbers, negated };
}

/** Capitals that are a word, not a code's letters ("NEED", "USD", "THE"): stop words, currency codes, number words and words the basic lexicon knows. */
function oldCodeWord(lower: string): boolean {
  return STOP_WORDS.has(lower) || CURRENCY_WORDS.has(lower) || NUMBER_WORDS.has(lower) || knownWord(BASIC_LEXICON, lower);
}

/** Clock words and units of length after "N by M" (closed classes): a time or two dimensions, no proportion. */
const BY_AFTER = 'am|pm|a\\.m|p\\.m|o|oclock|h|hrs?|hours?|mins?|minutes?|days?|weeks?|mm|cm|m|km|in|inch|inches|ft|foot|feet|yd|yards?|meters?|metres?|centimet(?:er|re)s?|millimet(?:er|re)s?|percent|pc|px|pixels?';
const BY_PROPORTION = new RegExp(`(^|[,;:(]\\s*|\\b(?:a|an|in|as|is|to)\\s+)(\\d{1,2}) by (\\d{1,2})(?![\\d:.,]|\\s*(?:${BY_AFTER})\\b)`, 'gi');

function rawTokens(text: string): string[] {
  const out: string[] = [];
  // Sanitising turns "02:00" into "02 00": a clock time is read back from an hour and two-digit minutes.
  // A personal-data placeholder (zhou §7: "[phone]", "[id-number]") stands for an identifier the user gave.
  // A code joined by an underscore ("SCAN_0712") is one identifier, as sanitising writes it (sanitize.ts joinCodes).
  const grouped = markDates(joinOldCodes(joinCodes(text), oldCodeWord))
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    // A unit glued to its number ("2048px", "90min") is a number and a unit.
    .replace(/(\d)(px|mins?|hrs?)\b/gi, '$1 $2').replace(/\[(email|phone|card|iban|id-number|ip)\]/g, ' pii-$1 ');
  const timed = grouped.replace(/(^|[^\d:])([01]?\d|2[0-3])[ :.]([0-5]\d)(?![\d:])/g, '$1$2:$3');
  // A proportion loses its colon to sanitising ("4:5" → "4 5"): two numbers, the second one digit, are W x H.
  // "4 by 5" standing alone after a comma or the start, or after an article or preposition ("a 2 by 1 banner"), is a
  // proportion W x H; "by" after a verb or "for N" is a deadline ("finish 3 by 5", "a table for 4 by 8"), a clock or
  // measure word after it makes it a time or two dimensions ("by 4 pm", "10 by 12 feet"), and "4 by 4" is a thing.
  const proportioned = timed.replace(/(^|[^\d:x])(\d{1,2}) (\d)(?![\d:])/g, '$1$2x$3').replace(BY_PROPORTION, (m, pre: string, a: string, b: string) => (a === b ? m : `${pre}${a}x${b}`));
  for (const m of proportioned.toLowerCase().replace(/['’]/g, ' ').matchAll(/[\p{L}\p{M}\p{N}]+(?:[-:.][\p{L}\p{M}\p{N}]+)*/gu)) {
    const t = m[0];
    // A window written "02:00-04:00" is two times.
    const range = /^(\d{1,2}:\d{2})-(\d{1,2}:\d{2})$/.exec(t);
    if (range) out.push(range[1] as string, range[2] as string);
    else out.push(t);
  }
  return out;
}

function dominant(p: Readonly<Record<LexPos, number>>): LexPos | null {
  const order: LexPos[] = ['n', 'a', 'v', 'r'];
  let best: LexPos | null = null;
  for (const k of order) if (p[k] > 0 && (best === null || p[k] > p[best])) best = k;
  return best;
}

/** The weight of some entries: each voter once (a client label weighs 1; an unlabelled sample one voter weighing its count). */
function weigh(ps: Iterable<{ readonly voters: ReadonlyMap<string, number> }>): number {
  const seen = new Map<string, number>();
  for (const p of ps) for (const [v, m] of p.voters) seen.set(v, Math.max(m, seen.get(v) ?? 0));
  let n = 0;
  for (const m of seen.values()) n += m;
  return n;
}
/** Fragment mass: each (text, client) once — for how texts are phrased, where one client's several texts each count. */
function mass(ps: Iterable<{ readonly voters: ReadonlyMap<string, number> }>): number {
  let n = 0;
  for (const p of ps) for (const m of p.voters.values()) n += m;
  return n;
}
function voterCount(ps: Iterable<{ readonly voters: ReadonlyMap<string, number> }>): number {
  const seen = new Set<string>();
  for (const p of ps) for (const v of p.voters.keys()) seen.add(v);
  return seen.size;
}

/**
 * Whether this yes/no key was named by an act on its object (Candidate.act): the key's provenance, re-derived from
 * its cluster's samples where only the key is kept (sibling oneSlot). The samples still say the act, and the key is
 * named as that act names (`<object>_<act noun>`, `<verb>_<object>`), though its object may have been read from
 * fewer samples (acne_removal, the samples now saying blemish_removal).
 */
export function namedByAct(key: KeyDefinition, samples: readonly InductionSample[], lexicon: Lexicon | null): boolean {
  if (key.key_type !== 'boolean') return false;
  const r = induceKey(samples, DEFAULT_INDUCTION_OPTIONS, lexicon ? { lexicon } : {});
  const act = r.ok ? r.candidate.act : undefined;
  if (!r.ok || act === undefined) return false;
  const words = key.key_name.split('_');
  return r.candidate.key.key_name === key.key_name || (act.noun !== null ? words[words.length - 1] === act.noun : words[0] === act.verb);
}

/**
 * zhou §6.2.2 intent induction over a cluster's samples: the fragments (step 1), the concept and its values
 * (steps 2-3), the name around the head, the type from evidence (step 4), then the candidate, its closed
 * vocabulary (zhou §7) and the existing key it refines (steps 5-6).
 */
export function induceKey(samples: readonly InductionSample[], options: InductionOptions = DEFAULT_INDUCTION_OPTIONS, context: InductionContext = {}): InductionResult {
  assertInductionOptions(options);
  const lex = context.lexicon ?? BASIC_LEXICON;
  const input = mergeSamples(samples);
  const words = clusterWords(input.merged, lex);
  const parsed = parseFragments(input.merged, words, input.all, lex);
  if (parsed.length === 0) return { ok: false, reason: 'no usable fragments after sanitising (zhou §7)', fragments_excluded: weigh(input.all) };
  parsed.sort((a, b) => weigh([b]) - weigh([a]) || a.text.length - b.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const ev = wordEvidence(parsed, input, words, lex, options);
  const concept = findConcept(ev);
  const { headWords, yesNoCompound } = compoundName(ev, concept);
  const typed = typeFromEvidence(ev, concept, headWords, yesNoCompound);
  // Fewer than two corroborated alternatives: a yes/no need after all.
  const induceBoolean = (): InductionResult => induceKey(samples, { ...options, max_enum_values: 0 }, context);
  return assembleCandidate(ev, input.all, concept, headWords, typed, context.existing ?? [], induceBoolean);
}

/** Options the rules cannot work with throw (a silent 0 or NaN would admit or refuse every unsegmented cluster). */
function assertInductionOptions(options: InductionOptions): void {
  const u: unknown = options.unshared_max_clients;
  if (typeof u !== 'number' || !Number.isSafeInteger(u) || u < 2) {
    throw evolutionError('config', 'options.unshared_max_clients', `unshared_max_clients must be an integer >= 2 (clients behind an unsegmented cluster whose phrasings share no word, zhou §6.2.2), got ${String(u)}`);
  }
  const f: unknown = options.frame_choices;
  if (f !== undefined && typeof f !== 'boolean') {
    throw evolutionError('config', 'options.frame_choices', `frame_choices must be a boolean (read a choice from a word's slot, frames.ts), got ${typeof f}`);
  }
}

/** Step 1 (zhou §6.2.2, §7): the samples sanitised again, identical texts merged; each client is one voice. */
interface SampleSet {
  readonly labelled: boolean;
  readonly merged: ReadonlyMap<string, { readonly text: string; readonly voters: ReadonlyMap<string, number> }>;
  /** The voters of every sample, usable or not: what `fragments_excluded` is counted against. */
  readonly all: { readonly voters: ReadonlyMap<string, number> }[];
}

function mergeSamples(samples: readonly InductionSample[]): SampleSet {
  const labelled = samples.some((s) => Array.isArray(s.clients) && s.clients.length > 0);
  const merged = new Map<string, { text: string; voters: Map<string, number> }>();
  const all: { voters: ReadonlyMap<string, number> }[] = [];
  samples.forEach((s, i) => {
    const count = Number.isInteger(s.count) && s.count > 0 ? s.count : 1;
    const voters = new Map<string, number>();
    if (Array.isArray(s.clients) && s.clients.length > 0) for (const c of s.clients) voters.set(`c:${String(c)}`, 1);
    else voters.set(`s:${i}`, count);
    const clean = typeof s.text === 'string' ? sanitizeFragment(s.text).text : null;
    if (clean === null) {
      all.push({ voters });
      return;
    }
    const k = clean.toLowerCase();
    const m = merged.get(k);
    if (m) for (const [v, n] of voters) m.voters.set(v, Math.max(n, m.voters.get(v) ?? 0));
    else merged.set(k, { text: clean, voters });
  });
  return { labelled, merged, all };
}

/** Step 1 (zhou §6.2.2): each text's raw tokens, and each raw word's canonical token (mended, lemmatised, folded). */
interface ClusterWords {
  readonly rawOf: Map<string, string[]>;
  readonly known: (w: string) => boolean;
  readonly wordTok: (raw: string) => Tok | null;
  /** Raw words the cluster shows to be a person's name (people.ts): never read as a word (zhou §7). */
  readonly people: ReadonlySet<string>;
}

function clusterWords(merged: SampleSet['merged'], lex: Lexicon): ClusterWords {
  // Raw words of the whole cluster: the vocabulary misspellings are mended against.
  const rawOf = new Map<string, string[]>();
  const vocabulary = new Map<string, number>();
  for (const { text, voters } of merged.values()) {
    const toks = rawTokens(text);
    rawOf.set(text, toks);
    for (const t of new Set(toks)) if (/^\p{L}+$/u.test(t)) vocabulary.set(t, (vocabulary.get(t) ?? 0) + voters.size);
  }
  const known = (w: string): boolean => knownWord(lex, w) || VALUE_CLASSES.has(w) || VALUE_FORMS.has(w);
  const mend = new Map<string, string>();
  const mended = (w: string): string => {
    const hit = mend.get(w);
    if (hit !== undefined) return hit;
    let out = misspeltInflection(lex, w, vocabulary) ?? w;
    if (out === w && w.length >= 5 && !known(w)) {
      const max = w.length >= 8 ? 2 : 1;
      let best: { w: string; d: number; n: number } | null = null;
      for (const [cand, n] of vocabulary) {
        if (cand === w || !known(cand)) continue;
        const d = editDistance(w, cand, max);
        if (d <= max && (best === null || d < best.d || (d === best.d && n > best.n))) best = { w: cand, d, n };
      }
      if (best) out = best.w;
    }
    mend.set(w, out);
    return out;
  };
  const canon = new Map<string, Tok | null>();
  const wordTok = (raw: string): Tok | null => {
    const hit = canon.get(raw);
    if (hit !== undefined) return hit;
    let t: Tok | null = null;
    if (raw.length > 1 && !STOP_WORDS.has(raw)) {
      const w0 = VALUE_FORMS.get(raw) ?? mended(raw);
      const w1 = VALUE_FORMS.get(w0) ?? w0;
      const p = lex.pos(w1);
      const d = dominant(p);
      // Lemma: a noun's first, then an adjective's, then a verb's; unknown words fold plurals.
      const lemma = (p.n > 0 ? lex.lemma(w1, 'n') : null) ?? (p.a > 0 ? lex.lemma(w1, 'a') : null) ?? (p.v > 0 ? lex.lemma(w1, 'v') : null) ?? (knownWord(lex, w1) ? w1 : singular(w1));
      const v = VALUE_FORMS.get(lemma) ?? lemma;
      t = STOP_WORDS.has(v) ? null : { kind: 'word', v, pos: d };
    }
    canon.set(raw, t);
    return t;
  };
  return { rawOf, known, wordTok, people: personNames(rawOf, lex, STOP_WORDS) };
}

/** Step 1 (zhou §6.2.2): the usable fragments as tokens (words, numbers, times, ids, ratios) and their cues. */
function parseFragments(merged: SampleSet['merged'], words: ClusterWords, all: SampleSet['all'], lex: Lexicon): Parsed[] {
  const { rawOf, known, wordTok, people } = words;
  const parsed: Parsed[] = [];
  for (const { text, voters } of merged.values()) {
    all.push({ voters });
    const toks: Tok[] = [];
    const raws = rawOf.get(text) ?? [];
    for (const [i, raw] of raws.entries()) {
      // A person's name is no word of the cluster's: never a value, a name word or a description word (zhou §7).
      if (people.has(raw)) continue;
      if (NEGATORS.has(raw)) toks.push({ kind: 'neg', v: raw, i });
      // "an hour", "a day": the article is the number one.
      else if ((raw === 'a' || raw === 'an') && TIME_UNITS.has(raws[i + 1] ?? '')) toks.push({ kind: 'number', v: raw, n: 1, i });
      else if (DATE.test(raw)) toks.push({ kind: 'date', v: raw.slice(5), i });
      else if (TIME.test(raw)) toks.push({ kind: 'time', v: hhmm(raw), i });
      else if (RATIO.test(raw)) toks.push({ kind: 'ratio', v: raw.replace('x', ':'), i });
      else if (LONG_NUMBER.test(raw)) toks.push({ kind: 'id', v: raw, i });
      else if (/^\d+(\.\d+)?$/.test(raw)) toks.push({ kind: 'number', v: raw, n: Number(raw), i });
      else if (NUMBER_WORDS.has(raw) && !propOne(raws, i, lex)) pushNumberWord(toks, raw, i);
      else if (ID.test(raw)) toks.push({ kind: 'id', v: raw.toUpperCase(), i });
      else if (raw.startsWith('pii-')) toks.push({ kind: 'id', v: raw.toUpperCase(), i });
      else if (FIXED_PHRASES.has(`${raws[i - 1] ?? ''} ${raw}`)) continue;
      else if (/^\p{L}[\p{L}\p{M}\p{N}]*$/u.test(raw)) {
        const t = wordTok(raw);
        if (t) toks.push({ ...t, i });
      } else for (const part of hyphenParts(raw, known)) {
        // "pick-up" is the word "pickup"; "tree-planting" is "tree" and "planting".
        const t = wordTok(part);
        if (t) toks.push({ ...t, i });
      }
    }
    const words = [...new Set(toks.filter((t) => t.kind === 'word').map((t) => t.v))];
    const numbers = toks.filter((t) => t.kind === 'number').map((t) => t.n as number);
    const times = toks.filter((t) => t.kind === 'time').map((t) => t.v);
    const dates = toks.filter((t) => t.kind === 'date').map((t) => t.v);
    const ids = toks.filter((t) => t.kind === 'id').map((t) => t.v);
    const ratios = toks.filter((t) => t.kind === 'ratio').map((t) => t.v);
    if (words.length === 0 && numbers.length === 0 && ids.length === 0 && times.length === 0 && dates.length === 0 && ratios.length === 0) continue;
    parsed.push({
      text,
      voters,
      toks,
      words,
      numbers,
      times,
      dates,
      ids,
      ratios,
      negated: toks.some((t) => t.kind === 'neg'),
      percent: /\d\s*(%|percent\b|per cent\b)/i.test(text),
      currency: raws.some((r) => CURRENCY_WORDS.has(r)),
      limit: raws.some((r) => LIMIT_WORDS.has(r)) || /\b(no more than|at most|up to|nothing over|go above)\b/i.test(text),
      unit: raws.map((r) => TIME_UNITS.get(r)).find((u) => u !== undefined) ?? null,
    });
  }
  return parsed;
}

/** Determiners after which "one" stands for a noun said before (a closed class: "the one", "this one", "which one"). */
const PROP_ONE_DETERMINERS: ReadonlySet<string> = new Set(['the', 'this', 'that', 'which', 'each', 'every', 'any', 'another', 'other', 'same']);
/** Determiners that open a noun phrase before its adjective ("a cheaper one", "my old one"): a closed class. */
const PROP_ONE_LEADS: ReadonlySet<string> = new Set(['a', 'an', 'the', 'this', 'that', 'my', 'your', 'our', 'his', 'her', 'their', 'its', 'another', 'which']);

/**
 * Whether `raws[i]` is "one" as English's prop-word, no numeral (zhou §6.2.2 types from evidence): after a determiner
 * or an adjective and before no noun ("the final one", "a cheaper one", "this one"), it stands for a noun said before
 * and counts nothing. "one bag", "only one", "at least one" stay numerals.
 */
function propOne(raws: readonly string[], i: number, lex: Lexicon): boolean {
  if (raws[i] !== 'one' || i === 0) return false;
  const prev = raws[i - 1] as string;
  const p = lex.pos(prev);
  // Determiner, adjective, "one": "the final one", "a cheaper one" (never "at least one", "only one": no determiner).
  const adjective = p.a > p.n && p.a > p.v && p.a > p.r && !LIMIT_WORDS.has(prev) && !NUMBER_WORDS.has(prev) && PROP_ONE_LEADS.has(raws[i - 2] ?? '');
  if (!PROP_ONE_DETERMINERS.has(prev) && !adjective) return false;
  const next = raws[i + 1];
  if (next === undefined) return true;
  const q = lex.pos(next);
  return !(q.n > 0 && q.n >= q.v && q.n >= q.a);
}

/** Steps 2-3 (zhou §6.2.2): what the cluster says about its words, counted in clients (draft-zhou §7). */
interface Evidence {
  readonly lex: Lexicon;
  readonly options: InductionOptions;
  readonly labelled: boolean;
  readonly parsed: readonly Parsed[];
  /** Whether a fragment is in the lexicon's language (kinds.ts foreignFragment): only those can say its words. */
  readonly english: (p: Parsed) => boolean;
  readonly rawOf: ReadonlyMap<string, string[]>;
  readonly people: ReadonlySet<string>;
  /** Weight of every usable fragment. */
  readonly total: number;
  readonly needClients: number;
  readonly phrasings: number;
  readonly posOf: ReadonlyMap<string, LexPos | null>;
  readonly vocab: readonly string[];
  /** A word and the nouns (synonyms, hyponyms) that count for it as a concept. */
  readonly family: ReadonlyMap<string, Set<string>>;
  /** Alternatives of one slot (values) and the nouns they modify (heads). */
  readonly slotWords: Set<string>;
  readonly phraseHeads: Set<string>;
  readonly isVerb: (w: string) => boolean;
  readonly isAdj: (w: string) => boolean;
  readonly withWord: (w: string) => Parsed[];
  readonly readable: (w: string) => boolean;
  readonly conceptSupport: (w: string) => Parsed[];
  /** Client consistency: how much a client that says the word keeps saying it. */
  readonly consistency: (w: string) => number | null;
}

function wordEvidence(parsed: readonly Parsed[], input: SampleSet, words: ClusterWords, lex: Lexicon, options: InductionOptions): Evidence {
  const { labelled } = input;
  const total = weigh(parsed);
  const voices = voterCount(parsed);
  const needClients = labelled && voices > options.min_value_clients ? options.min_value_clients : 1;
  const phrasings = new Set(parsed.map((p) => [...p.words].sort().join(' '))).size;

  const posOf = new Map<string, LexPos | null>();
  for (const p of parsed) for (const t of p.toks) if (t.kind === 'word' && !posOf.has(t.v)) posOf.set(t.v, t.pos ?? null);
  const isVerb = (w: string): boolean => posOf.get(w) === 'v' || posOf.get(w) === 'r' || COMPARATIVES.has(w) || DEGREE.has(w);
  const isAdj = (w: string): boolean => posOf.get(w) === 'a';
  const withWord = (w: string): Parsed[] => parsed.filter((p) => p.words.includes(w));
  const englishTexts = new Set<string>();
  const readable = readableWords(parsed, input, words, lex, withWord, englishTexts);

  // 2. The concept: nouns by distinct clients, a word's synonyms and hyponyms counting for it.
  const vocab = [...new Set(parsed.flatMap((p) => p.words))];
  const family = new Map<string, Set<string>>();
  for (const w of vocab) family.set(w, new Set([w]));
  for (const u of vocab) {
    if (posOf.get(u) !== 'n') continue;
    const up = new Set([...lex.synonyms(u, 'n'), ...lex.hypernyms(u, 'n', 2)]);
    for (const w of vocab) if (w !== u && up.has(w)) family.get(w)?.add(u);
    // Clients who use different nouns for one thing ("technician" / "engineer", "storm" / "rain"): nouns whose GloVe
    // vectors are close count for each other as a concept, when the lexicon has word vectors.
    // Where WordNet files one under the other ("dinner" is a "meal"), that order stands: the general word is not
    // counted for the specific one.
    if (lex.related) {
      for (const w of vocab) {
        if (w === u || posOf.get(w) !== 'n' || lex.hypernyms(w, 'n', 2).includes(u)) continue;
        if ((lex.related(u, w) ?? 0) >= RELATED_NOUNS) family.get(w)?.add(u);
      }
    }
  }
  const conceptSupport = (w: string): Parsed[] => parsed.filter((p) => p.words.some((x) => family.get(w)?.has(x)));

  // 3. Value candidates: client consistency (a client keeps saying its value), adjacency to a head word, value-likeness.
  const clientsTexts = new Map<string, Parsed[]>();
  for (const p of parsed) for (const v of p.voters.keys()) clientsTexts.set(v, [...(clientsTexts.get(v) ?? []), p]);
  const consistency = (w: string): number | null => {
    let sum = 0;
    let n = 0;
    for (const [, ps] of clientsTexts) {
      if (ps.length < 2 || !ps.some((p) => p.words.includes(w))) continue;
      sum += ps.filter((p) => p.words.includes(w)).length / ps.length;
      n++;
    }
    return n === 0 ? null : sum / n;
  };

  // Alternatives of one slot (values) and the nouns they modify (heads): substitution slots and noun phrases.
  const { slotWords, phraseHeads } = slotEvidence(parsed, {
    isVerb,
    isNoun: (w) => posOf.get(w) === 'n' || (lex.pos(w).n > 0 && !STOP_WORDS.has(w)),
    isAdj,
    canModify: (w) => !isVerb(w) && readable(w),
    needClients: labelled ? Math.max(2, needClients) : 1,
    sameValue: (a, b) => oneValue(lex, a, b),
  });
  return { lex, options, labelled, parsed, english: (p) => englishTexts.has(p.text), rawOf: words.rawOf, people: words.people, total, needClients, phrasings, posOf, vocab, family, slotWords, phraseHeads, isVerb, isAdj, withWord, readable, conceptSupport, consistency };
}

/**
 * Whether two modifiers a client may say for one value are wordings of it (zhou §6.2.2 canonical values), not two
 * alternatives: one a kind of the other in WordNet within COHYPONYM_DEPTH levels, a synonym of its hypernym
 * counting ("aluminium" is a metallic element, which "metal" names; "oak" is a wood), an adjective made of such a
 * noun counting as the noun ("wooden" of "wood", ADJ_ENDINGS), or one edit apart, four letters or longer ("woden").
 */
function oneValue(lex: Lexicon, a: string, b: string): boolean {
  if (a.length >= 4 && b.length >= 4 && editDistance(a, b, 1) <= 1) return true;
  const stems = (w: string): string[] => [w, ...ADJ_ENDINGS.filter((e) => w.length > e.length + 2 && w.endsWith(e)).map((e) => w.slice(0, -e.length)).filter((x) => lex.pos(x).n > 0)];
  const under = (x: string, y: string): boolean => {
    const up = lex.hypernyms(x, 'n', COHYPONYM_DEPTH);
    return stems(y).some((sy) => up.includes(sy) || lex.synonyms(sy, 'n').some((z) => up.includes(z)));
  };
  return stems(a).some((x) => under(x, b)) || stems(b).some((y) => under(y, a));
}

/**
 * Steps 3 and 6 (zhou §6.2.2, §7): whether a word may name the need or be a value. Name words and values: readable
 * English (kinds.ts), never a foreign leftover or an unmended misspelling, and said in at least one fragment in the
 * lexicon's language ("nada" is in WordNet, but only Spanish fragments say it).
 */
function readableWords(parsed: readonly Parsed[], input: SampleSet, words: ClusterWords, lex: Lexicon, withWord: (w: string) => Parsed[], englishTexts: Set<string>): (w: string) => boolean {
  const { rawOf, known } = words;
  const englishRaw = (t: string): boolean =>
    !FOREIGN_FUNCTION_WORDS.has(t) && (STOP_WORDS.has(t) || NEGATORS.has(t) || NUMBER_WORDS.has(t) || /^\d/.test(t) || ID.test(t) || (ASCII_WORD.test(t) && known(t)));
  const englishWords = new Set<string>();
  for (const p of parsed) {
    if (foreignFragment(rawOf.get(p.text) ?? [], englishRaw)) continue;
    englishTexts.add(p.text);
    for (const w of p.words) englishWords.add(w);
  }
  // A word the lexicon does not know ("legroom": WordNet 3.1 lacks it) still names the need when it is central to it:
  // carried by at least half the cluster's fragment mass, where a misspelling or a one-off brand never is.
  const totalWordMass = mass(parsed);
  const central = (w: string): boolean => ASCII_WORD.test(w) && mass(withWord(w)) * 2 >= totalWordMass;
  // A proper noun (a place, a person: capitalised inside a sentence, never written lower case) names no need.
  const proper = properNouns([...input.merged.values()].map((m) => m.text));
  // Asked for the same words inside loops over fragments: each answer is computed once.
  const readableSeen = new Map<string, boolean>();
  return (w: string): boolean => {
    let r = readableSeen.get(w);
    if (r === undefined) {
      // Two-letter words WordNet knows are symbols and abbreviations ("el", "en", "la"): never a name word or a value.
      r = w.length >= 3 && (readableWord(lex, w, (x) => VALUE_CLASSES.has(x) || VALUE_FORMS.has(x)) || central(w)) && (lex === BASIC_LEXICON || englishWords.has(w)) && !proper.has(w);
      readableSeen.set(w, r);
    }
    return r;
  };
}

/** Step 3 (zhou §6.2.2): the class two values share (hair color, file format), by value table or hypernym. */
function classOf(lex: Lexicon, w: string): string | null {
  const c = VALUE_CLASSES.get(w);
  if (c) return c;
  // An adjective made of a noun ("wooden" of "wood", ADJ_ENDINGS) is of the noun's class.
  const stems = lex.pos(w).n > 0 ? [] : ADJ_ENDINGS.filter((e) => w.length > e.length + 2 && w.endsWith(e)).map((e) => w.slice(0, -e.length)).filter((x) => lex.pos(x).n > 0);
  for (const [word, pos] of [[w, 'n'], [w, 'a'], ...stems.map((x) => [x, 'n'])] as [string, LexPos][]) {
    for (const h of lex.hypernyms(word, pos, 3)) {
      for (const k of NAMING_CLASSES) if (h === k || h.endsWith(`_${k}`)) return k;
      const named = HYPERNYM_CLASSES.get(h);
      if (named !== undefined && (named[1] === null || lex.lexFile?.(word, pos) === named[1])) return named[0];
    }
  }
  return null;
}

/** Step 3 (zhou §6.2.2): an adjective, a value-table word, an unknown word, or one sharing a hypernym with another candidate. */
function valueLike(ev: Evidence, w: string, others: readonly string[]): boolean {
  const { lex } = ev;
  if (ev.isAdj(w) || VALUE_CLASSES.has(w) || !knownWord(lex, w)) return true;
  const hw = new Set(lex.hypernyms(w, 'n', 3));
  return others.some((o) => o !== w && lex.hypernyms(o, 'n', 3).some((h) => hw.has(h)));
}

/**
 * A word that says when relative to now ("today", "tonight", "tomorrow", "now"): a noun that is also an adverb,
 * under time in WordNet. It dates a request, never names what is asked for, so it neither heads nor joins a name.
 */
function deicticTime(lex: Lexicon, w: string): boolean {
  if (lex.pos(w).r === 0) return false;
  const up = lex.hypernyms(w, 'n', 3);
  return up.includes('time') || up.includes('time_unit');
}

/**
 * A unit of measurement in WordNet ("mile", "kilo", "euro"; time units are filed elsewhere): what a quantity is
 * stated in, never the concept a need or an identifier is about.
 */
function measureUnit(lex: Lexicon, w: string): boolean {
  return lex.hypernyms(w, 'n', 5).includes('unit_of_measurement');
}

/** Step 2 (zhou §6.2.2): the head, the noun most clients use, the one the values stand beside among the best supported. */
function chooseHead(ev: Evidence, exclude: ReadonlySet<string>): string | null {
  const { vocab, phraseHeads, slotWords, isVerb, isAdj, readable, withWord, conceptSupport } = ev;
  // A noun the alternatives modify heads the need even when its verb sense is commoner ("morning train").
  // A head has three letters at least: two-letter words WordNet knows are symbols and abbreviations ("la", "en").
  const eligible = vocab.filter((w) => w.length >= 3 && !deicticTime(ev.lex, w) && !measureUnit(ev.lex, w) && !exclude.has(w) && (!isVerb(w) || phraseHeads.has(w)) && !isAdj(w) && !VALUE_CLASSES.has(w) && readable(w));
  const phrased = eligible.filter((w) => phraseHeads.has(w));
  const scored = (phrased.length > 0 ? phrased : eligible)
    .map((w) => ({ w, s: weigh(conceptSupport(w)), d: weigh(withWord(w)), m: mass(withWord(w)), a: slotWords.size > 0 ? mass(withWord(w).filter((p) => near(p, w, slotWords, 1))) : 0 }));
  const top = Math.max(0, ...scored.map((x) => x.s));
  // Among the best supported nouns (within 80% of the best), the one the values stand beside governs them.
  // Ties in clients (one client's cohort counts every word once) go to the word in more fragments ("legroom" beside "extra").
  const close = scored.filter((x) => x.s >= 0.8 * top);
  // When no one noun is said by half the concept's clients (each says its own: "rain", "storm", "lightning"), a
  // noun WordNet files the others under ("weather") is the shared concept; else the noun most say stays.
  const scattered = !close.some((x) => x.d * 2 >= top);
  const covers = new Map(close.map((x) => [x.w, scattered ? close.filter((y) => y.w !== x.w && ev.lex.hypernyms(y.w, 'n', 2).includes(x.w)).length : 0]));
  const best = close.sort((x, y) => y.a - x.a || (covers.get(y.w) ?? 0) - (covers.get(x.w) ?? 0) || y.s - x.s || y.d - x.d || y.m - x.m || (x.w < y.w ? -1 : 1))[0];
  return best?.w ?? null;
}

/**
 * A modifier touches its noun in the text as written ("a blue sky"), with nothing but other content words between
 * ("dramatic stormy clouds"); "my mother needs a wheelchair" puts a verb and an article between: no modifier.
 */
function touches(p: Parsed, a: string, bs: ReadonlySet<string>): boolean {
  const ws = p.toks.filter((t) => t.kind === 'word' || t.kind === 'number');
  for (let k = 0; k < ws.length; k++) {
    if ((ws[k] as Tok).v !== a) continue;
    for (const o of [ws[k - 1], ws[k + 1]]) if (o !== undefined && bs.has(o.v) && Math.abs((o.i ?? -9) - ((ws[k] as Tok).i ?? 0)) === 1) return true;
  }
  return false;
}

/** Whether `a` stands within `span` content words of one of `bs` in the fragment. */
function near(p: Parsed, a: string, bs: ReadonlySet<string>, span: number): boolean {
  const seq = p.toks.filter((t) => t.kind === 'word' || t.kind === 'number').map((t) => t.v);
  for (let i = 0; i < seq.length; i++) {
    if (seq[i] !== a) continue;
    for (let j = Math.max(0, i - span); j <= Math.min(seq.length - 1, i + span); j++) if (j !== i && bs.has(seq[j] as string)) return true;
  }
  return false;
}

/** Steps 2-3 (zhou §6.2.2): the head and the values, the alternatives that fill one slot beside it. */
interface Concept {
  readonly head: string | null;
  readonly values: readonly string[];
  /** Whether the values make a choice (two or more, or one noun adjunct) and enums are allowed. */
  readonly usable: boolean;
  readonly valueSet: ReadonlySet<string>;
  /** Whether a fragment says a value (or one of its spelling variants). */
  readonly says: (p: Parsed, v: string) => boolean;
}

function findConcept(ev: Evidence): Concept {
  const { vocab, family, slotWords, phraseHeads, isVerb, readable, withWord, labelled, needClients, options, total, posOf, parsed } = ev;
  let excluded = new Set<string>(slotWords);
  let head = chooseHead(ev, excluded);
  let values: string[] = [];
  for (let round = 0; round < 2; round++) {
    // The head's family, less the words a substitution slot shows to be alternatives ("halal" is a kind of food, and a value).
    const headSet = new Set([...(head ? family.get(head) ?? [head] : [])].filter((w) => w === head || !slotWords.has(w)));
    // A value stands beside the head or beside a class word after it ("hair color red").
    const adjacentTo = new Set([...headSet, ...NAMING_CLASSES]);
    const cands = vocab.filter((w) => !headSet.has(w) && !isVerb(w) && readable(w) && (voterCount(withWord(w)) >= needClients || !labelled));
    const picked = cands.filter((w) => {
      const ps = withWord(w);
      const adj = head ? mass(ps.filter((p) => touches(p, w, adjacentTo))) / Math.max(1, mass(ps)) : 0;
      const cons = ev.consistency(w);
      if (slotWords.has(w)) return true;
      return adj >= 0.3 && (valueLike(ev, w, cands) || (cons ?? 0) >= 0.75);
    });
    // Values are alternatives: drop one that co-occurs with the others in most of its fragments.
    // Slot words are alternatives by construction; another picked word that keeps their company is phrasing.
    values = picked.filter((w) => {
      if (slotWords.has(w)) return true;
      const ps = withWord(w);
      const co = ps.filter((p) => picked.some((o) => o !== w && p.words.includes(o)));
      return weigh(co) * 2 <= weigh(ps);
    });
    // A head that is itself one of the alternatives (a value everyone says in some phrasing) steps aside once.
    if (round === 0 && head && values.length >= 2 && VALUE_CLASSES.has(head)) {
      excluded = new Set([head]);
      head = chooseHead(ev, excluded);
      continue;
    }
    break;
  }
  // Values below min_value_share of the weight are noise (a lone "cockpit seat").
  // A noun the alternatives modify is the phrase's head, never one of them; a unit ("minute") or a number word
  // belongs to a count, never an alternative.
  values = values.filter((w) => weigh(withWord(w)) >= options.min_value_share * total && (!phraseHeads.has(w) || w === head) && !TIME_UNITS.has(w) && !NUMBER_WORDS.has(w));
  // Spelling variants of one value are one value ("matt" / "matte").
  // Two words WordNet knows are one value only when they share a synset (luster / lustre), never "gold" / "bold".
  const spellings = (a: string, b: string): boolean =>
    !knownWord(ev.lex, a) || !knownWord(ev.lex, b) || (['n', 'v', 'a', 'r'] as const).some((p) => ev.lex.synonyms(a, p).includes(b));
  const variants = foldVariants(values, (w) => voterCount(withWord(w)), editDistance, spellings);
  canonicalValues(ev, variants, head);
  // A word of the head's own family that another value modifies in most of its fragments ("the southern zone" beside
  // "the north region") stands where the head stands: another word for the head, not an alternative.
  if (head !== null) {
    const kin = family.get(head) ?? new Set([head]);
    const above = new Set([head, ...ev.lex.hypernyms(head, 'n', 3)]);
    // Of the head's family, or a sister term under one hypernym ("zone" and "region" are both locations).
    const headLike = (w: string): boolean => kin.has(w) || (posOf.get(w) === 'n' && ev.lex.hypernyms(w, 'n', 3).some((h) => above.has(h)));
    for (const w of [...variants.keys()]) {
      if (w === head || !headLike(w)) continue;
      const others = new Set([...variants].filter(([v]) => v !== w).flatMap(([, xs]) => xs));
      const ps = withWord(w);
      const modified = ps.filter((p) => {
        const ws = p.toks.filter((t) => t.kind === 'word');
        const k = ws.findIndex((t) => t.v === w);
        const b = ws[k - 1];
        const derived = b !== undefined && [...others].some((o) => ADJ_ENDINGS.some((e) => b.v === `${o}${e}`));
        return k > 0 && b !== undefined && (others.has(b.v) || derived) && (b.i ?? -9) === ((ws[k] as Tok).i ?? 0) - 1;
      });
      if (mass(modified) * 2 > mass(ps)) variants.delete(w);
    }
  }
  values = [...variants.keys()];
  const says = (p: Parsed, v: string): boolean => (variants.get(v) ?? [v]).some((x) => p.words.includes(x));
  // Alternatives fill one slot: modifiers on the same side of the head ("cloudless sky" / "blue sky"). A word on the
  // other side ("carbon neutral" beside "offset the carbon") is phrasing, not another value (kinds.ts sameSlot).
  if (head) values = sameSlot(values, head, parsed, slotWords, mass, (w) => posOf.get(w) === 'n');
  // Numbers, times and ids are evidence for the type below, not values. A single modifier that is not a
  // noun adjunct is part of the need's name ("extra legroom"), not a value.
  const usable = options.max_enum_values > 0 && (values.length >= 2 || (values.length === 1 && nounAdjunct(ev, head, values[0] as string)));
  const valueSet = new Set(usable ? values : []);
  return { head, values, usable, valueSet, says };
}

/** Derivational endings that make an adjective of a noun ("northern" of "north", "golden" of "gold"). */
const ADJ_ENDINGS = ['ern', 'en', 'ish', 'ic', 'al', 'y'];

/**
 * Values canonicalised (zhou §6.2.2, "values are the modifiers that vary across clients, canonicalised"), in place:
 * an adjective derived from another value's noun that is an adjective too is that value ("northern" → north, never
 * "formal" → form); a value that stands next to another, commoner value in most of its fragments and that too few
 * clients say alone is wording of that value ("light grey", "government agency"), folded into it.
 */
function canonicalValues(ev: Evidence, variants: Map<string, string[]>, head: string | null): void {
  const { lex, withWord } = ev;
  const clients = (v: string): number => voterCount((variants.get(v) ?? [v]).flatMap((x) => withWord(x)));
  for (const a of [...variants.keys()]) {
    // The noun is a modifier itself (north, gold: an adjective in WordNet too): "northern" is that modifier in
    // another form. A noun that is no adjective ("form" of "formal", "person" of "personal") is another meaning.
    const b = [...variants.keys()].find((x) => x !== a && x.length >= 4 && ADJ_ENDINGS.some((e) => a === `${x}${e}` || a === `${x}${x.slice(-1)}${e}`) && lex.pos(a).a > 0 && lex.pos(x).n > 0 && lex.pos(x).a > 0);
    if (b === undefined) continue;
    variants.set(b, [...(variants.get(b) ?? [b]), ...(variants.get(a) ?? [a])]);
    variants.delete(a);
  }
  // A value followed in most of its fragments by an adjective (never the head) grades that adjective ("light grey",
  // "neutral gray"): the value is the adjective, one value with its synonyms; unless enough clients say it alone.
  for (const a of [...variants.keys()]) {
    const ps = (variants.get(a) ?? [a]).flatMap((x) => withWord(x));
    const next = new Map<string, Parsed[]>();
    for (const p of ps) {
      const ws = p.toks.filter((t) => t.kind === 'word');
      const k = ws.findIndex((t) => (variants.get(a) ?? [a]).includes(t.v));
      const n = ws[k + 1];
      if (k >= 0 && n !== undefined && (n.i ?? -9) === ((ws[k] as Tok).i ?? 0) + 1 && n.v !== head && lex.pos(n.v).a > 0 && ev.readable(n.v)) next.set(n.v, [...(next.get(n.v) ?? []), p]);
    }
    const best = [...next].sort((x, y) => mass(y[1]) - mass(x[1]) || (x[0] < y[0] ? -1 : 1))[0];
    if (best === undefined || mass(best[1]) * 2 <= mass(ps)) continue;
    // A value enough clients say without that adjective ("the north region" beside "north east region") is a value.
    if (voterCount(ps.filter((p) => !best[1].includes(p))) >= Math.max(2, ev.needClients)) continue;
    const into = [...variants.keys()].find((v) => v !== a && (v === best[0] || lex.synonyms(v, 'a').includes(best[0]))) ?? best[0];
    const moved = variants.get(a) ?? [a];
    variants.delete(a);
    variants.set(into, [...new Set([...(variants.get(into) ?? [into]), ...moved])]);
  }
  const forms = (v: string): Set<string> => new Set(variants.get(v) ?? [v]);
  for (const a of [...variants.keys()]) {
    const mine = forms(a);
    const ps = [...mine].flatMap((x) => withWord(x));
    const partner = [...variants.keys()].find((b) => {
      if (b === a || !variants.has(b) || clients(b) <= clients(a)) return false;
      const theirs = forms(b);
      const beside = ps.filter((p) => {
        const ws = p.toks.filter((t) => t.kind === 'word');
        return ws.some((t, k) => mine.has(t.v) && [ws[k - 1], ws[k + 1]].some((o) => o !== undefined && theirs.has(o.v) && Math.abs((o.i ?? -9) - (t.i ?? 0)) === 1));
      });
      // A value enough clients say on its own ("the north region" beside "north east region") is a value.
      const alone = ps.filter((p) => !beside.includes(p));
      return mass(beside) * 2 > mass(ps) && voterCount(alone) < Math.max(2, ev.needClients);
    });
    if (partner === undefined) continue;
    // Wording of the partner: its fragments are the partner's (folded, never dropped).
    variants.set(partner, [...new Set([...forms(partner), ...mine])]);
    variants.delete(a);
  }
}

/**
 * A noun (or a word the lexicon does not know) standing before the head as
 * its modifier ("window seat", "vegetarian meal") names one of the
 * alternatives even when it is the only one heard so far: the key is a
 * choice whose other values arrive later (re-induction widens the enum).
 * An adjective there ("extra legroom") is part of the need's name.
 */
function nounAdjunct(ev: Evidence, head: string | null, w: string): boolean {
  const { lex } = ev;
  const pos = ev.posOf.get(w);
  // Without a lexicon nothing tells a noun from an adjective: a lone modifier is then part of the name.
  // A noun that is also a verb ("book wheelchair") may be the request's verb: one such word is no alternative.
  return pos !== 'a' && pos !== 'v' && pos !== 'r' && head !== null && lex.pos(w).v === 0 && (pos === 'n' || (lex !== BASIC_LEXICON && !knownWord(lex, w)));
}

/** Step 2 (zhou §6.2.2): a neighbour beside the head in most of its fragments joins the name (compounds). */
function compoundName(ev: Evidence, concept: Concept): { headWords: string[]; yesNoCompound: string[] | null } {
  const { head, valueSet } = concept;
  const { withWord, isVerb, isAdj, readable, options, needClients } = ev;
  const headWords: string[] = [];
  let yesNoCompound: string[] | null = null;
  if (head) {
    const hs = withWord(head);
    const before = new Map<string, Parsed[]>();
    const after = new Map<string, Parsed[]>();
    for (const p of hs) {
      const ws = p.toks.filter((t) => t.kind === 'word');
      const i = ws.findIndex((t) => t.v === head);
      const h = ws[i];
      // Neighbours in the raw text only: "maintenance window", not "dinner on board".
      const b = i > 0 && h && (ws[i - 1] as Tok).i === (h.i ?? 0) - 1 ? (ws[i - 1] as Tok).v : undefined;
      const a = h && ws[i + 1] && (ws[i + 1] as Tok).i === (h.i ?? 0) + 1 ? (ws[i + 1] as Tok).v : undefined;
      if (b && !valueSet.has(b) && !isVerb(b) && readable(b) && !deicticTime(ev.lex, b) && !PARTICLES.has(b)) before.set(b, [...(before.get(b) ?? []), p]);
      if (a && !valueSet.has(a) && !isVerb(a) && readable(a) && !deicticTime(ev.lex, a) && !PARTICLES.has(a)) after.set(a, [...(after.get(a) ?? []), p]);
    }
    const hw = mass(hs);
    const adjectives = (m: Map<string, Parsed[]>): Map<string, Parsed[]> => new Map([...m].filter(([w]) => isAdj(w)));
    const top = (m: Map<string, Parsed[]>): [string, number] | null => {
      const e = [...m].map(([w, ps]) => [w, mass(ps)] as [string, number]).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0];
      return e && e[1] >= options.compound_share * hw && voterCount(m.get(e[0]) ?? []) >= needClients ? e : null;
    };
    const b = top(before);
    const a = top(after);
    if (b) headWords.push(b[0]);
    headWords.push(head);
    if (a && (!b || a[1] > b[1])) headWords.push(a[0]);
    // A yes/no need names itself by the phrase its clients say most ("carbon neutral"), even below compound_share.
    if (!b && !a) yesNoCompound = phraseCompound(head, adjectives(before), adjectives(after), mass(hs), needClients, mass, voterCount);
  }
  return { headWords, yesNoCompound };
}

/** Step 4 (zhou §6.2.2): the key type, its name suffix and the values each fragment supports. */
interface Typed {
  readonly kind: InducedKind;
  readonly keyType: KeyDefinition['key_type'];
  readonly extra: Partial<KeyDefinition>;
  readonly suffix: string | null;
  readonly ratioChoice: boolean;
  /** The values are names clients capitalised (namedAlternatives): an operator checks none is a person's (zhou §7). */
  readonly names?: boolean;
  readonly namePrefix: string | null;
  /** Each value (JSON) and the fragments that say it. */
  readonly valueClients: ReadonlyMap<string, Parsed[]>;
  /** The name's words when the lexicon names the choice (cohyponym.ts: the values' shared hypernym), not the fragments. */
  readonly kindWords?: readonly string[];
  /** A yes/no need named by its act on its object (Candidate.act). */
  readonly act?: Candidate['act'];
}

/** Step 4 (zhou §6.2.2): the type from evidence: structure, scale, number, else a choice or a yes/no need. `headWords` may be renamed. */
function typeFromEvidence(ev: Evidence, concept: Concept, headWords: string[], yesNoCompound: string[] | null): Typed {
  const { parsed, lex, options, total, vocab, posOf, readable, withWord, isVerb, isAdj, needClients, rawOf } = ev;
  const totalMass = mass(parsed);
  const share = (f: (p: Parsed) => boolean): number => mass(parsed.filter(f)) / totalMass;
  const valueClients = new Map<string, Parsed[]>();
  const addValue = (v: JsonValue, p: Parsed): void => {
    const k = JSON.stringify(v);
    valueClients.set(k, [...(valueClients.get(k) ?? []), p]);
  };
  const scale = scaleOf(parsed, total, options);
  // A word with a noun sense may modify the anchor even when its verb sense is commoner ("booking reference").
  const nounModifier = (w: string): boolean => readable(w) && (lex.pos(w).n > 0 || !knownWord(lex, w));
  const st = structuredEvidence(parsed, {
    share,
    mass,
    rawOf,
    structureShare: options.structure_share,
    head: concept.head,
    // A unit of measurement ("miles", "kilos") is what a number counts, never what an identifier belongs to.
    noun: (w) => !isVerb(w) && !isAdj(w) && readable(w) && !measureUnit(lex, w),
    // A noun that is also a verb names a time too ("wake-up call at 06:15" → call_time).
    timeWord: (deadline) => (w) => !isAdj(w) && readable(w) && (deadline || !isVerb(w) || lex.pos(w).n > 0),
    nounModifier: (w) => nounModifier(w) && !measureUnit(lex, w),
  });
  if (st !== null) {
    if (st.name !== null) headWords.splice(0, headWords.length, ...st.name);
    for (const [v, p] of st.values) addValue(v, p);
    return { kind: st.kind, keyType: st.keyType, extra: st.extra, suffix: st.suffix, ratioChoice: st.ratio, namePrefix: null, valueClients };
  }
  if (scale !== null) {
    for (const p of parsed) {
      const v = adjustment(p);
      if (v !== null) addValue(v, p);
    }
    return { kind: 'scale', keyType: 'integer', extra: { minimum: -SCALE_MAX, maximum: SCALE_MAX }, suffix: scale, ratioChoice: false, namePrefix: null, valueClients };
  }
  const position = positionEvidence(ev);
  if (position !== null) {
    headWords.splice(0, headWords.length, position.noun);
    for (const [v, p] of position.values) addValue(v, p);
    return { kind: 'numeric', keyType: 'integer', extra: {}, suffix: position.suffix, ratioChoice: false, namePrefix: null, valueClients };
  }
  if (share((p) => p.numbers.length === 1) >= options.numeric_share) {
    const num = numericEvidence(parsed, {
      share,
      mass,
      headWords,
      // The word is one of the fragments that carry the unit ("dates are flexible, 3 days"), most clients first.
      unitWord: (inUnit) => vocab.filter((w) => inUnit.has(w) && posOf.get(w) !== 'v' && posOf.get(w) !== 'r' && readable(w)).map((w) => [w, weigh(withWord(w))] as const),
      counted: (nums) =>
        countedNoun(
          nums.map((p) => ({ p, seq: p.toks.filter((t) => t.kind === 'word' || t.kind === 'number').map((t) => ({ kind: t.kind, v: t.v, n: t.n, i: t.i, raw: t.i === undefined ? undefined : rawOf.get(p.text)?.[t.i] })) })),
          (w) => posOf.get(w) === 'n' && readable(w),
          (w) => isAdj(w) || posOf.get(w) === null,
          (w, raw, one) => raw !== undefined && lex.pos(w).n > 0 && readable(w) && !TIME_UNITS.has(w) && !NUMBER_WORDS.has(w) && !LIMIT_WORDS.has(w) && (one ? raw === w && lex.pos(w).a === 0 : raw !== w && lex.lemma(raw, 'n') === w),
        ),
      comparative: (raw) => COMPARISON_WORDS.has(raw) || (ASCII_WORD.test(raw) && /er$/.test(raw) && ![null, raw].includes(lex.lemma(raw, 'a'))),
      enoughClients: (ps) => voterCount(ps) >= needClients,
      nounModifier: (w) => nounModifier(w) && !isAdj(w) && !NUMBER_WORDS.has(w) && !TIME_UNITS.has(w),
    });
    if (num.name !== null) headWords.splice(0, headWords.length, ...num.name);
    for (const [v, p] of num.values) addValue(v, p);
    return { kind: 'numeric', keyType: num.keyType, extra: {}, suffix: num.suffix, ratioChoice: false, namePrefix: null, valueClients };
  }
  const { values, says } = concept;
  // A choice is stated: most of the fragment mass names one of the alternatives. Modifiers heard in a minority of
  // phrasings ("heavy rain", "strong winds" in a cluster about weather damage) are wording, not a choice (zhou §6.2.2).
  // One alternative said beside an act on it ("fix the red eyes", "correct the red eye") is the act's object, no choice.
  const usable = concept.usable && share((p) => values.some((v) => says(p, v))) >= CHOICE_SHARE && (values.length > 1 || actSaid(ev, nounModifier) === null);
  if (usable && values.length > options.max_enum_values) {
    // More alternatives than an enum should list: the value as the user states it (canonical words).
    for (const p of parsed) for (const v of values) if (says(p, v)) addValue(v, p);
    return { kind: 'string', keyType: 'string', extra: {}, suffix: 'detail', ratioChoice: false, namePrefix: null, valueClients };
  }
  if (usable) {
    // A class word said in the value's place ("a jade colour" beside "green eyes") names the class, no alternative:
    // it is the key's suffix (eye_color) when the other values still make a choice.
    // Said alone as an option ("colour print" / "monochrome print", "print in colour"), the class word is a value.
    const classWords = values.filter((v) => NAMING_CLASSES.has(v));
    if (classWords.length === 1 && values.length >= 3 && modifiedClassWord(parsed, classWords[0] as string, says)) {
      for (const p of parsed) for (const v of values) if (v !== classWords[0] && says(p, v)) addValue(v, p);
      return { kind: 'enum', keyType: 'string', extra: {}, suffix: classWords[0] as string, ratioChoice: false, namePrefix: null, valueClients };
    }
    for (const p of parsed) for (const v of values) if (says(p, v)) addValue(v, p);
    // Alternatives that are kinds of one thing name the choice by it (taxi / limousine / minivan → car_type).
    const kind = kindOfAlternatives(ev, concept);
    if (kind !== null) {
      headWords.splice(0, headWords.length);
      return { kind: 'enum', keyType: 'string', extra: {}, suffix: 'type', ratioChoice: false, namePrefix: null, valueClients, kindWords: kind };
    }
    return { kind: 'enum', keyType: 'string', extra: {}, suffix: enumSuffix(ev, concept, headWords), ratioChoice: false, namePrefix: null, valueClients };
  }
  // Names said by distinct clients, one a fragment (makers, carriers: "a Nokia box", "Ericsson baseband"): a choice
  // among them, though no phrase frame shows it (zhou §6.2.2, "enum when several alternatives are stated by distinct clients").
  const named = options.max_enum_values > 0 ? namedAlternatives(ev) : [];
  if (named.length >= 2) {
    for (const p of parsed) for (const v of named) if (p.words.includes(v)) addValue(v, p);
    const head = concept.head !== null && !named.includes(concept.head) ? concept.head : chooseHead(ev, new Set(named));
    // A value never names its key ("ericsson_preference"): the name keeps the other head words, or the head.
    const kept = headWords.filter((w) => !named.includes(w));
    headWords.splice(0, headWords.length, ...(kept.length > 0 ? kept : head !== null ? [head] : []));
    return { kind: 'enum', keyType: 'string', extra: {}, suffix: enumSuffix(ev, { ...concept, head, values: named }, headWords), ratioChoice: false, namePrefix: null, valueClients, names: true };
  }
  // Kinds of one thing said alone, no noun they modify ("I carry my violin", "two drums for the band"): a choice
  // named by the kind (cohyponym.ts valueNounKind: instrument_type), not a flag named by the commonest value.
  const alone = options.max_enum_values > 0 && labelled(ev) ? valueNounChoice(ev) : null;
  if (alone !== null) {
    for (const p of parsed) for (const v of alone.values) if (p.words.includes(v)) addValue(v, p);
    headWords.splice(0, headWords.length);
    return { kind: 'enum', keyType: 'string', extra: {}, suffix: 'type', ratioChoice: false, namePrefix: null, valueClients, kindWords: [alone.kind.split('_').pop() as string] };
  }
  // Alternatives distinct clients put in one slot of one word ("business trip" / "leisure trip", "pay by card" /
  // "pay on invoice"), though no WordNet sibling nor a shared head shows them (frames.ts): a choice, not a flag.
  const framed = options.frame_choices === true && options.max_enum_values > 0 && labelled(ev) ? framedChoice(ev, concept.head) : null;
  if (framed !== null) {
    for (const [v, ps] of framed.values) for (const p of ps) addValue(v, p);
    headWords.splice(0, headWords.length, framed.anchor);
    // zhou §7: a value a fragment capitalises anywhere ("Jack trip please") may be a person's name: reviewed, as named alternatives are.
    const names = capitalisedAnywhere(ev, [...framed.values.keys()]);
    return { kind: 'enum', keyType: 'string', extra: {}, suffix: choiceSuffix(lex, framed.anchor) ?? 'type', ratioChoice: false, namePrefix: null, valueClients, ...(names ? { names } : {}) };
  }
  for (const p of parsed) addValue(!p.negated, p);
  const { suffix, namePrefix, act } = flagName(ev, headWords, yesNoCompound, nounModifier);
  return { kind: 'boolean', keyType: 'boolean', extra: {}, suffix, ratioChoice: false, namePrefix, valueClients, ...(act ? { act } : {}) };
}

/**
 * Step 4 (zhou §6.2.2): a number that labels its noun ("floor 12", "the 3rd floor", "age 11"; positions.ts) in most of
 * the fragment mass is an integer named by that noun: the noun alone when WordNet files it as an attribute (the
 * number is the property's value: `age`, `level`), else `<noun>_number`. Null when the fragments say no position.
 */
function positionEvidence(ev: Evidence): { noun: string; suffix: string | null; values: readonly [number, Parsed][] } | null {
  const { lex, parsed, rawOf, readable, options, needClients } = ev;
  const attribute = (n: string): boolean => lex.lexFile?.(n, 'n') === 'noun.attribute';
  const noun = (raw: string): string | null => {
    if (!ASCII_WORD.test(raw) || raw.length < 3 || STOP_WORDS.has(raw) || LIMIT_WORDS.has(raw) || TIME_UNITS.has(raw) || NUMBER_WORDS.has(raw) || CURRENCY_WORDS.has(raw) || NEGATORS.has(raw) || ordinalValue(raw) !== null) return null;
    // A participle of a verb whose noun is an attribute states that attribute ("aged 3" is age 3).
    const verb = lex.lemma(raw, 'v');
    if (verb !== null && verb !== raw && ASCII_WORD.test(verb) && attribute(verb)) return verb;
    const n = lex.lemma(raw, 'n');
    // A plural before a number is the form-style count ("adults 2, children 1", "passengers 3"): no label, which
    // follows a singular noun ("gate 12", "room 101").
    if (n === null || n !== raw || !readable(n) || deicticTime(lex, n) || measureUnit(lex, n)) return null;
    const pos = lex.pos(n);
    return pos.n > 0 && pos.n >= pos.v && pos.n >= pos.a ? n : null;
  };
  const cardinal = (raw: string): number | null => (/^\d{1,6}$/.test(raw) ? Number(raw) : (NUMBER_WORDS.get(raw) ?? null));
  // A plural noun or a unit after the cardinal is what it counts ("storm 540 alarms", "bag 23 kg"): no label. A
  // plural is a word WordNet reads as an inflected noun and knows as a noun at least as well as a verb ("was",
  // "has" are verbs: "room 12 was noisy" is room 12).
  const counts = (raw: string): boolean => {
    if (TIME_UNITS.has(raw) || CURRENCY_WORDS.has(raw)) return true;
    if (!ASCII_WORD.test(raw)) return false;
    const n = lex.lemma(raw, 'n');
    if (n !== null && measureUnit(lex, n)) return true;
    const pos = lex.pos(raw);
    return n !== null && n !== raw && pos.n > 0 && pos.n >= pos.v;
  };
  // A number labels its noun only when it is the fragment's one number: "terminal 2, need 3 nights" is about nights.
  const readings = parsed.map((p) => {
    const raws = rawOf.get(p.text) ?? [];
    return { p, r: p.numbers.length <= 1 ? positionReading(raws, clauses(p.text, raws.length), cardinal, noun, counts) : null };
  });
  const key = positionKey(readings, (ps) => mass(ps), options.numeric_share, (ps) => voterCount(ps) >= needClients);
  return key === null ? null : { noun: key.noun, suffix: attribute(key.noun) ? null : 'number', values: key.values };
}

/** Whether a fragment writes one of `values` capitalised, sentence start included (a frame value is never read from case). */
function capitalisedAnywhere(ev: Evidence, values: readonly string[]): boolean {
  const want = new Set(values);
  for (const p of ev.parsed) for (const m of p.text.slice(0, 4096).matchAll(/\p{Lu}[\p{Ll}\p{M}]+/gu)) if (want.has(m[0].toLowerCase())) return true;
  return false;
}

function labelled(ev: Evidence): boolean {
  return ev.labelled;
}

/**
 * Share of the cluster's weight the fragments filling a frame's slot must carry to make it the need's choice: the
 * enum path's CHOICE_SHARE, so a minority filling a slot ("wheelchair for knee / hip" beside 26 voices asking for a
 * wheelchair) never turns the majority's flag into a choice.
 */
const FRAME_SHARE = CHOICE_SHARE;
/**
 * WordNet kinds whose words fill no frame slot (zhou §7: an enum value is shown to every client): health (a physical
 * condition, a body part), places (location) and dates (a calendar day or month: weekdays, feasts, religious months).
 * "seat for diabetes", "a trip to paris", "a trip on monday" state a personal detail or a slot's value, no choice.
 */
const FRAME_REFUSED_KINDS: ReadonlySet<string> = new Set(['physical_condition', 'body_part', 'location', 'calendar_day', 'calendar_month']);

/**
 * Step 4 (zhou §6.2.2): the choice a governing word's slot shows (frames.ts), over the fragments in the lexicon's
 * language; values are readable nouns or adjectives that are no verb, number, unit or removal object.
 */
function framedChoice(ev: Evidence, head: string | null): { anchor: string; values: ReadonlyMap<string, Parsed[]> } | null {
  const { parsed, posOf, readable, isVerb, family, needClients, lex } = ev;
  const content = (w: string): boolean => readable(w) && !STOP_WORDS.has(w) && !NUMBER_WORDS.has(w) && !TIME_UNITS.has(w) && !NEGATORS.has(w);
  const refused = (w: string): boolean => lex.hypernyms(w, 'n', 16).some((h) => FRAME_REFUSED_KINDS.has(h));
  // A clause break ("work trip, company pays") ends a frame: a word after it fills no slot of a word before it.
  const phrases = parsed.filter(ev.english).map((p) => {
    const clause = clauses(p.text, ev.rawOf.get(p.text)?.length ?? 0);
    const raws = ev.rawOf.get(p.text) ?? [];
    return { p, voters: p.voters, seq: p.toks.filter((t) => t.kind === 'word').map((t) => ({ v: t.v, i: (t.i ?? -9) + 2 * MAX_TOKENS_FRAME * (clause[t.i ?? 0] ?? 0), before: raws[(t.i ?? 0) - 1] ?? '' })) };
  });
  const found = frameChoices(
    phrases,
    {
      isNoun: (w) => posOf.get(w) === 'n',
      isVerb: (w) => posOf.get(w) === 'v',
      // A removal verb's objects are what is removed, each its own need ("remove the acne", "remove the scar").
      // A word with an adjective reading ("red" in "eyes red", "pupils glow red") is a value, never a slot's anchor.
      canAnchor: (w) => content(w) && !REMOVAL_VERBS.has(w) && (posOf.get(w) === 'n' || posOf.get(w) === 'v') && lex.pos(w).a === 0,
      // Before a noun its modifier: a noun, an adjective, or a word with an adjective reading ("express delivery"),
      // never a verb's participle ("printed receipt"); after it a noun.
      canFill: (w, side) => content(w) && !refused(w) && (side === '<' ? posOf.get(w) === 'n' || posOf.get(w) === 'a' || posOf.get(w) === null || lex.pos(w).a > 0 : !isVerb(w) && posOf.get(w) === 'n'),
      sameConcept: (a, b) => (family.get(a)?.has(b) ?? false) || (family.get(b)?.has(a) ?? false) || lex.synonyms(a, 'n').includes(b),
    },
    Math.max(2, needClients),
    FRAME_SHARE,
  );
  // The slot is the need's own: its anchor is the cluster's head (or of its family), or the head is one of its
  // fillers ("credit card" beside "pay by card"); a frame of a co-clustered phrasing ("portrait shape") is not.
  const own = (f: { anchor: string; values: ReadonlyMap<string, Parsed[]> }): boolean => head !== null && (f.anchor === head || (family.get(head)?.has(f.anchor) ?? false) || f.values.has(head));
  // The best-heard slot of a noun, or of a verb the fragments also say as a noun ("pay" / "payment").
  for (const f of found.filter(own)) {
    const named = posOf.get(f.anchor) === 'n' ? f : nominal(ev, f);
    if (named !== null) return named;
  }
  return null;
}

/** Raw-token index spacing between clauses, larger than any frame gap. */
const MAX_TOKENS_FRAME = 8;
/** Punctuation that ends a clause (a comma or stop followed by a space, a dash or slash between spaces, brackets). */
const CLAUSE_BREAK = /[,;:!?.()]\s|\s[-–—/]\s|[()]/u;

/** The clause index of each of a text's `n` raw tokens (rawTokens), or all zero when the pieces do not add up. */
function clauses(text: string, n: number): number[] {
  const out: number[] = [];
  text.slice(0, 4096).split(CLAUSE_BREAK).forEach((piece, c) => {
    for (let k = rawTokens(piece).length; k > 0; k--) out.push(c);
  });
  return out.length === n ? out : new Array<number>(n).fill(0);
}

/** English suffixes that make a noun of the act a verb names (a closed class: "payment", "settlement", "booking"). */
const NOMINALISERS: readonly string[] = ['ment', 'ation', 'tion', 'ion', 'ing', 'al', 'ance', 'ence'];

/**
 * A verb's slot names its key by the noun of its act the fragments say ("pay" → "payment", "settle" → "settlement"),
 * the verb and a nominalising suffix; a noun that only starts like it ("payee") names no act. Else none.
 */
function nominal(ev: Evidence, found: { anchor: string; values: ReadonlyMap<string, Parsed[]> }): { anchor: string; values: ReadonlyMap<string, Parsed[]> } | null {
  const a = found.anchor;
  const stems = a.endsWith('e') ? [a, a.slice(0, -1)] : [a];
  const isAct = (w: string): boolean => stems.some((st) => NOMINALISERS.some((x) => w === st + x));
  const noun = ev.vocab.find((w) => ev.posOf.get(w) === 'n' && w !== a && isAct(w) && ev.readable(w));
  return noun === undefined ? null : { anchor: noun, values: found.values };
}

/**
 * Step 4 (zhou §6.2.2): the words of the hypernym a choice's values are co-hyponyms under (cohyponym.ts), when no value
 * class names it (colours, formats: enumSuffix) and the values do not modify the head in most of their fragments (a
 * head the values stand beside names the choice itself: "aisle seat", "vegan meal"). Null otherwise.
 */
function kindOfAlternatives(ev: Evidence, concept: Concept): string[] | null {
  const { head, values, says } = concept;
  if (values.some((v) => classOf(ev.lex, v) !== null)) return null;
  if (head !== null) {
    const withValue = ev.parsed.filter((p) => values.some((v) => says(p, v)));
    const beside = withValue.filter((p) => values.some((v) => touches(p, v, new Set([head]))));
    if (mass(beside) * 2 >= mass(withValue)) return null;
  }
  const kind = sharedKind(ev.lex, values, head);
  // Named by the kind's last word, as the evolver names a choice joined from two keys (cohyponym.ts kindChoiceName).
  return kind === null ? null : [kind.split('_').pop() as string];
}

/**
 * A choice said by its values alone (zhou §6.2.2 step 3, "enum when several alternatives are stated by distinct
 * clients"): nouns `min_value_clients` clients say each (readable English, never a verb, an adjective, a proper noun
 * or a unit), kinds of one thing in WordNet (cohyponym.ts valueNounKind), at most max_enum_values of them, never two
 * in most of one value's fragments, together in the choice share of the fragment mass. No other noun may carry that
 * share: a noun most clients say beside the values ("cabin" in "my dog in the cabin", "frame" in "an oak frame") is
 * what the need is about, and the modifier path reads its values. Null otherwise.
 */
function valueNounChoice(ev: Evidence): { kind: string; values: string[] } | null {
  const { vocab, parsed, withWord, isVerb, isAdj, readable, posOf, options, needClients } = ev;
  const minClients = Math.max(2, needClients);
  const total = mass(parsed);
  const nouns = vocab.filter((w) => w.length >= 3 && posOf.get(w) === 'n' && !isVerb(w) && !isAdj(w) && readable(w) && !measureUnit(ev.lex, w) && !deicticTime(ev.lex, w) && !NUMBER_WORDS.has(w) && !TIME_UNITS.has(w));
  // A value refused ("no taxi please") is no alternative chosen: only fragments that say no negation count for it.
  const said = nouns.map((w) => ({ word: w, ps: withWord(w).filter((p) => !p.negated) })).filter((n) => voterCount(n.ps) >= minClients);
  const found = valueNounKind(ev.lex, said.map((n) => ({ word: n.word, weight: voterCount(n.ps) })));
  if (found === null || found.values.length > options.max_enum_values) return null;
  const values = [...found.values];
  // Alternatives: a value said beside another in most of its fragments is wording, not another choice.
  if (values.some((v) => {
    const ps = withWord(v);
    return mass(ps.filter((p) => values.some((o) => o !== v && p.words.includes(o)))) * 2 > mass(ps);
  })) return null;
  if (mass(parsed.filter((p) => !p.negated && values.some((v) => p.words.includes(v)))) < CHOICE_SHARE * total) return null;
  // Two needs in one cluster, not one choice: every value comes with a noun of its own, said in most of its
  // fragments and never beside another value ("a crib for the baby" / "a wheelchair at the gate").
  const ownContext = (v: string): boolean => {
    const ps = withWord(v).filter((p) => !p.negated);
    return said.some((n) => !values.includes(n.word) && mass(ps.filter((p) => p.words.includes(n.word))) * 2 > mass(ps) && values.every((o) => o === v || !withWord(o).some((p) => p.words.includes(n.word))));
  };
  if (values.every(ownContext)) return null;
  if (said.some((n) => !values.includes(n.word) && mass(n.ps) >= CHOICE_SHARE * total)) return null;
  return { kind: found.kind, values };
}

/**
 * Names as alternatives (zhou §6.2.2, §7): words a client capitalises inside a sentence (a maker, a carrier), said mostly in English fragments (never a capitalised German noun) by
 * `min_value_clients` clients each, most clients first, never two in one fragment. A choice when two or more
 * together carry the choice share of the fragment mass; empty otherwise. Proper nouns still name nothing.
 */
function namedAlternatives(ev: Evidence): string[] {
  const { vocab, parsed, withWord, isVerb, needClients, labelled } = ev;
  if (!labelled) return [];
  const minClients = Math.max(2, needClients);
  const capitalised = new Set<string>();
  // Inside a sentence only: a capital after ". " or at the start is the sentence's ("ok. Mother needs…").
  for (const p of parsed) for (const m of p.text.slice(0, 4096).matchAll(/(?<![.!?]\s*)\s(\p{Lu}[\p{Ll}\p{M}]+)/gu)) capitalised.add((m[1] as string).toLowerCase());
  const people = ev.people;
  const cands = vocab
    .filter((w) => ASCII_WORD.test(w) && w.length >= 3 && !isVerb(w) && !STOP_WORDS.has(w) && !NUMBER_WORDS.has(w) && capitalised.has(w) && !people.has(w))
    .map((w) => ({ w, ps: withWord(w) }))
    .filter(({ ps }) => voterCount(ps) >= minClients && mass(ps.filter(ev.english)) * 2 >= mass(ps))
    .sort((a, b) => voterCount(b.ps) - voterCount(a.ps) || (a.w < b.w ? -1 : 1));
  const picked: string[] = [];
  for (const c of cands) if (!c.ps.some((p) => picked.some((o) => p.words.includes(o)))) picked.push(c.w);
  if (picked.length < 2) return [];
  return mass(parsed.filter((p) => picked.some((o) => p.words.includes(o)))) >= CHOICE_SHARE * mass(parsed) ? picked : [];
}

/** Step 4 (zhou §6.2.2): an enum is `<head>_<class>` when most values share a class (file_format), else `<head>_preference`. */
function enumSuffix(ev: Evidence, concept: Concept, headWords: string[]): string | null {
  const { head, values } = concept;
  const classes = new Map<string, number>();
  for (const v of values) {
    const c = classOf(ev.lex, v);
    if (c) classes.set(c, (classes.get(c) ?? 0) + 1);
  }
  const cls = [...classes].sort((a, b) => b[1] - a[1])[0];
  if (cls && cls[1] * 2 > values.length) {
    if (cls[0] === 'format' && (!head || ['format', 'file', 'output', 'result', 'export', 'image', 'photo', 'picture'].includes(head))) {
      headWords.splice(0, headWords.length, head === 'image' || head === 'photo' || head === 'picture' ? 'image' : 'file');
    }
    return cls[0];
  }
  return choiceSuffix(ev.lex, head);
}

/**
 * Step 4 (zhou §6.2.2): what a choice without a value class is called, from what its head is in WordNet's noun
 * hierarchy. Something the service provides (an artifact, food, a material, a place: "seat", "meal", "paper") is
 * chosen, a `<head>_preference`. A noun that is itself an attribute or a place ("priority", "finish", "region", "area") is
 * named by itself: its values are its own grades or parts. A person or an act the user reports on ("customer",
 * "trip") is described, not chosen: `<head>_type`. Null suffix: the head alone.
 */
function choiceSuffix(lex: Lexicon, head: string | null): string | null {
  if (head === null) return 'preference';
  const up = lex.hypernyms(head, 'n', 8);
  if (up.length === 0) return 'preference';
  const at = (w: string): number => up.indexOf(w);
  if (at('attribute') >= 0 || (at('location') >= 0 && at('location') <= 2)) return null;
  if (at('person') >= 0 || at('act') >= 0 || at('event') >= 0) return 'type';
  // Things one is served or given (artifacts, food, substances, places: "seat", "meal", "paper") are chosen; any
  // other kind of thing (a communication, a natural phenomenon: "print", "sky") has a type.
  return ['artifact', 'food', 'substance', 'location'].some((w) => at(w) >= 0) ? 'preference' : 'type';
}

/** Words that lead a request to its verb ("please remove", "can you whiten", "I want to straighten"): a closed class. */
const REQUEST_LEADS: ReadonlySet<string> = new Set(['please', 'pls', 'plz', 'kindly', 'just', 'you', 'to', 'and', 'then', 'also', 'now']);

/** actSaid per induction: asked by the choice test and by the yes/no name. */
const actMemo = new WeakMap<Evidence, ActReading | null>();

/** The act on an object two fifths of the English fragment mass say (acts.ts), or null; read once per induction. */
function actSaid(ev: Evidence, nounModifier: (w: string) => boolean): ActReading | null {
  const hit = actMemo.get(ev);
  if (hit !== undefined) return hit;
  const out = readAct(ev, nounModifier);
  actMemo.set(ev, out);
  return out;
}

function readAct(ev: Evidence, nounModifier: (w: string) => boolean): ActReading | null {
  const { parsed, rawOf, readable, isVerb, isAdj, posOf } = ev;
  const english = parsed.filter(ev.english);
  const fragments = english.map((p) => {
    const raws = rawOf.get(p.text) ?? [];
    const clause = clauses(p.text, raws.length);
    const lower = raws.map((r) => r.toLowerCase());
    const seq = p.toks.filter((t) => t.kind === 'word').map((t) => {
      const at = t.i ?? -9;
      const raw = lower[at] ?? '';
      const before = lower[at - 1];
      const lead = at <= 0 || before === undefined || (clause[at - 1] ?? 0) !== (clause[at] ?? 0) || REQUEST_LEADS.has(before);
      const pos = t.pos ?? posOf.get(t.v) ?? null;
      // An inflected verb ("going", "paid", "travels") is no imperative; a base form or a word mended to the verb is.
      const inflected = raw !== t.v && ev.lex.lemma(raw, 'v') === t.v;
      return { v: t.v, i: at, pos, clause: clause[at] ?? 0, opens: lead && !inflected };
    });
    return { weight: mass([p]), seq, raws: lower, removal: p.words.some((w) => REMOVAL_VERBS.has(w)) || REMOVAL_PHRASE.test(p.text.slice(0, 4096)) };
  });
  return sayAct(fragments, mass(english), {
    lex: ev.lex,
    isRemoval: (w) => REMOVAL_VERBS.has(w),
    isNoun: nounModifier,
    isVerb,
    isAdjective: (w) => isAdj(w) && readable(w),
    said: (w) => mass(ev.withWord(w)),
    isParticle: (w) => PARTICLES.has(w),
  });
}

/** Step 4 (zhou §6.2.2): a yes/no need's name: the act on its object (`<object>_<act noun>`, `<verb>_<object>`), `<word>_only`, the compound said most, or `needs_<head>`. */
function flagName(ev: Evidence, headWords: string[], yesNoCompound: string[] | null, nounModifier: (w: string) => boolean): { suffix: string | null; namePrefix: string | null; act?: Candidate['act'] } {
  const { parsed, rawOf, readable, needClients } = ev;
  const restricted = onlyWord(parsed, rawOf, (w) => readable(w) && !NEGATORS.has(w), mass, needClients);
  // Phrasing, not voters: two fifths of the English fragment mass say one act, as for restrictions (onlyWord); one
  // client who once said "remote fix" is not one. Fragments in other languages cannot say an English verb either way.
  const act = actSaid(ev, nounModifier);
  if (act !== null) {
    // An act is named by what it is done to (acts.ts): "remove the power lines" → power_line_removal, "whiten my
    // teeth" → tooth_whitening, "straighten the horizon" → straighten_horizon.
    if (act.object.length > 0) headWords.splice(0, headWords.length, ...act.object);
    const said = { verb: act.verb, noun: act.actNoun, object: act.object };
    return act.actNoun !== null ? { suffix: act.actNoun, namePrefix: null, act: said } : { suffix: null, namePrefix: act.verb, act: said };
  }
  if (restricted !== null) {
    // A restriction ("nonstop only", "only direct flights", "diagnose only") is <word>_only.
    headWords.splice(0, headWords.length, restricted);
    return { suffix: 'only', namePrefix: null };
  }
  if (headWords.length < 2 && yesNoCompound) headWords.splice(0, headWords.length, ...yesNoCompound);
  else if (headWords.length < 2) {
    // A noun of time says when, not what is needed ("call back tomorrow"): the word firstWord reads names it.
    if (headWords.length === 1 && ev.lex.lexFile?.(headWords[0] as string, 'n') === 'noun.time') headWords.splice(0, 1, ...firstWord(ev, 'boolean'));
    return { suffix: null, namePrefix: 'needs' };
  }
  return { suffix: null, namePrefix: null };
}

/** Han ideographs, kana and Hangul: scripts whose words are one or two characters long, or written without spaces. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Hangul: a spaced script, compared by word. */
const HANGUL = /\p{Script=Hangul}/u;
/** Hiragana: in Japanese the script of endings and particles ("をください", "です"); content is in kanji and katakana. */
const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;

/**
 * The units two fragments may share, each with whether it stands at the fragment's edge: a word of four letters or
 * more (the function words of most languages are shorter: "con", "mit", "les", and few of them are in any stop
 * list); a Hangul word; in Han and kana, where words are one to three characters and unspaced, each pair of adjacent
 * characters of a run ("靠窗座位" → 靠窗, 窗座, 座位) that is not all hiragana.
 */
function shareUnits(words: readonly string[]): { u: string; edge: boolean }[] {
  const out: { u: string; edge: boolean }[] = [];
  words.forEach((w, wi) => {
    const chars = [...w];
    const first = wi === 0;
    const last = wi === words.length - 1;
    if (!CJK.test(w)) {
      if (chars.length >= 4 && !FOREIGN_FUNCTION_WORDS.has(w)) out.push({ u: w, edge: false });
      return;
    }
    if (HANGUL.test(w)) {
      if (chars.length >= 2) out.push({ u: w, edge: last });
      return;
    }
    for (let k = 0; k + 1 < chars.length && k < 64; k++) {
      const pair = `${chars[k] as string}${chars[k + 1] as string}`;
      if (CJK.test(chars[k] as string) && CJK.test(chars[k + 1] as string) && !HIRAGANA_ONLY.test(pair)) out.push({ u: pair, edge: (first && k === 0) || (last && k + 2 === chars.length) });
    }
  });
  return out;
}

/** Scripts written without spaces between words (Thai, Lao, Khmer, Myanmar, Tibetan, Han, kana): a run of four or more. */
const UNSPACED = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{4}/u;

/** Whether most of the fragment mass is written in a script without spaces: words the word test cannot see. */
function unsegmented(parsed: readonly Parsed[]): boolean {
  return mass(parsed.filter((p) => UNSPACED.test(p.text.slice(0, 4096)))) * 2 >= mass(parsed);
}

/**
 * Whether two of the fragments say one content word (any language; see shareUnits). A unit that stands at the
 * start or the end of every fragment saying it is the frame of a request ("我要…", "…谢谢", "…주세요", "…필요해요"),
 * not its content: in scripts whose words the inducer cannot tell apart, such a unit shares nothing.
 */
function sharedWord(parsed: readonly Parsed[]): boolean {
  const seen = new Map<string, { n: number; inner: boolean }>();
  const framed = withoutFrames(parsed.slice(0, 256).map((p) => p.words));
  for (const { words, frames } of framed) {
    const units = new Map<string, boolean>();
    for (const { u, edge } of shareUnits(words)) units.set(u, (units.get(u) ?? false) || !edge);
    for (const { u } of shareUnits(frames)) if (!units.has(u)) units.set(u, false);
    for (const [u, inner] of units) {
      const s = seen.get(u);
      seen.set(u, { n: (s?.n ?? 0) + 1, inner: (s?.inner ?? false) || inner });
    }
  }
  for (const { n, inner } of seen.values()) if (n >= 2 && inner) return true;
  return false;
}

/**
 * Unspaced runs without the frame they share with another fragment: the longest start of a fragment's first run
 * that another fragment's first run also starts with ("我想要…", "我想要…"), and the longest end of its last run
 * that another's last run ends with ("…をお願いします"), when something is left of the run. The frames are returned
 * apart: a unit said only inside frames shares nothing, one a frame holds and another fragment says inside its
 * content ("过道座位" after "请安排", and "过道的座位") is shared.
 */
function withoutFrames(all: readonly (readonly string[])[]): { words: string[]; frames: string[] }[] {
  const unspaced = (w: string | undefined): w is string => w !== undefined && CJK.test(w) && !HANGUL.test(w);
  const common = (a: string[], b: string[]): number => {
    let k = 0;
    while (k < a.length && k < b.length && a[k] === b[k]) k++;
    return k;
  };
  const firsts = all.map((ws) => (unspaced(ws[0]) ? [...ws[0].slice(0, 256)] : []));
  const lasts = all.map((ws) => (unspaced(ws[ws.length - 1]) ? [...(ws[ws.length - 1] as string).slice(-256)].reverse() : []));
  return all.map((ws, i) => {
    const out = [...ws];
    const frames: string[] = [];
    let pre = 0;
    let suf = 0;
    all.forEach((_, j) => {
      if (j === i) return;
      pre = Math.max(pre, common(firsts[i] as string[], firsts[j] as string[]));
      suf = Math.max(suf, common(lasts[i] as string[], lasts[j] as string[]));
    });
    const f = firsts[i] as string[];
    if (pre > 0 && pre < f.length && ws[0] !== undefined && [...ws[0]].length === f.length) {
      frames.push(f.slice(0, pre).join(''));
      out[0] = f.slice(pre).join('');
    }
    const l = lasts[i] as string[];
    const lastAt = out.length - 1;
    const lastChars = [...(out[lastAt] ?? '')];
    if (suf > 0 && suf < l.length && lastChars.length > suf) {
      frames.push(lastChars.slice(-suf).join(''));
      out[lastAt] = lastChars.slice(0, -suf).join('');
    }
    return { words: out, frames };
  });
}

/** Steps 5-6 (zhou §6.2.2, §7): the values kept, the key name, its closed-vocabulary description and what it refines. */
function assembleCandidate(
  ev: Evidence,
  all: SampleSet['all'],
  concept: Concept,
  headWords: string[],
  t: Typed,
  existing: readonly KeyDefinition[],
  induceBoolean: () => InductionResult,
): InductionResult {
  const { parsed, options, labelled, needClients } = ev;
  const { kind, keyType, extra, ratioChoice, namePrefix, valueClients } = t;
  let suffix = t.suffix;
  // Values kept: enough distinct clients each, at most max_enum_values, most clients first.
  const ranked = [...valueClients]
    .map(([k, ps]) => ({ value: JSON.parse(k) as JsonValue, count: weigh(ps), clients: voterCount(ps) }))
    .filter((v) => kind !== 'enum' || v.clients >= needClients)
    .sort((a, b) => b.count - a.count || (JSON.stringify(a.value) < JSON.stringify(b.value) ? -1 : 1));
  const enumValues = kind === 'enum' ? ranked.slice(0, options.max_enum_values).map((v) => v.value) : [];
  if (kind === 'enum' && (enumValues.length === 0 || (enumValues.length === 1 && !ratioChoice && !nounAdjunct(ev, concept.head, String(enumValues[0]))))) {
    // Fewer than two corroborated alternatives: a yes/no need after all.
    return induceBoolean();
  }

  let nameWords = t.kindWords ? [...t.kindWords] : headWords.length > 0 ? [...headWords] : firstWord(ev, kind);
  if (suffix && nameWords[nameWords.length - 1] === suffix) suffix = null;
  if (suffix === 'count' && nameWords.some((w) => ['number', 'amount', 'quantity', 'count'].includes(w))) suffix = null;
  // Without an ASCII content word there is nothing to prefix: the stable custom_intent_<hash> name.
  const keyName = buildKeyName(namePrefix && nameWords.some((w) => ASCII_WORD.test(w)) ? [namePrefix, ...nameWords] : nameWords, suffix, parsed);
  // An unnamed cluster whose phrasings share no word says different things (one language, several needs: "la reserva
  // PNR-…", "escala de 100 minutos", "recogida a las 06:00"): no intent to induce yet (zhou §6.2.2). It is induced
  // again when it grows; in a script written without spaces, where the word test sees no words, it gets its unnamed
  // key once unshared_max_clients stand behind it.
  if (keyName.startsWith('custom_intent_') && parsed.length >= 2 && !(voterCount(parsed) >= options.unshared_max_clients && unsegmented(parsed)) && !sharedWord(parsed)) {
    return { ok: false, reason: 'the fragments share no word: no one intent to induce yet (zhou §6.2.2)', fragments_excluded: 0 };
  }
  nameWords = keyName.split('_');
  const used = weigh(kind === 'boolean' || kind === 'list' ? parsed : [...valueClients.values()].flat());
  const phrase = (kind === 'scale' || headWords.length === 0 ? nameWords : headWords).join(' ');

  // 6. Closed vocabulary: examples and description from tokens only.
  const examples = examplesFor(kind, phrase, ranked, enumValues, options);
  const key: KeyDefinition = {
    key_name: keyName,
    key_type: keyType,
    required: false,
    default_value: null,
    semantic_description: describe(kind, keyName, phrase, keyType, enumValues, examples, used, labelled, extra, options),
    ...extra,
  };
  if (kind === 'enum') key.enum = enumValues;
  assertValidCandidate(key);
  const review = closedVocabulary(keyName, ratioChoice ? [] : headWords, enumValues, kind, parsed, needClients);
  // zhou §7: a choice among capitalised names may hold a person's name that no context showed: never published unreviewed.
  if (t.names === true && kind === 'enum') review.push(`values ${enumValues.map(String).join(', ')} are names clients capitalised: an operator checks none is a person's name`);
  const property = statesProperty(ev);
  const refines = matchExisting(existing, keyName, headWords, key, enumValues, (w) => property && unsaidAct(ev, w));
  return {
    ok: true,
    candidate: {
      key,
      kind,
      head_words: headWords,
      values: ranked.map((v) => ({ value: v.value, count: v.count })),
      examples,
      fragments_used: used,
      fragments_excluded: Math.max(0, weigh(all) - used),
      refines,
      review,
      phrasings: ev.phrasings,
      ...(t.act ? { act: t.act } : {}),
    },
  };
}

/** Step 2 (zhou §6.2.2): with no head, the readable word most clients say names the need. */
function firstWord(ev: Evidence, kind: InducedKind): string[] {
  const top = (ws: readonly string[]): string | undefined => ws.map((w) => [w, weigh(ev.withWord(w))] as const).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  const words = ev.vocab.filter((w) => w.length >= 3 && ev.readable(w));
  // A noun of time, a particle, or a word WordNet knows only as an adjective or adverb ("tomorrow", "back", "later")
  // says when or how, not what is needed: the need's verb names it before them ("call me back tomorrow" → needs_call).
  const said = (w: string): boolean => {
    const p = ev.lex.pos(w);
    const known = p.n + p.v + p.a + p.r > 0;
    return !PARTICLES.has(w) && ev.lex.lexFile?.(w, 'n') !== 'noun.time' && (!known || p.n > 0 || p.v > 0);
  };
  const best = top(words.filter((w) => !ev.isVerb(w) && said(w))) ?? top(words.filter((w) => ev.isVerb(w) && said(w))) ?? top(words.filter((w) => !ev.isVerb(w)));
  return best !== undefined ? [best] : kind === 'numeric' ? ['requested'] : [];
}

/**
 * A number word joins the number word right before it: "seventy five" is 75, "five hundred" 500, "two thousand"
 * 2000; otherwise it is a number of its own.
 */
function pushNumberWord(toks: Tok[], raw: string, i: number): void {
  const n = NUMBER_WORDS.get(raw) as number;
  const prev = toks[toks.length - 1];
  if (prev !== undefined && prev.kind === 'number' && prev.i === i - 1 && NUMBER_WORDS.has(prev.v.split(' ').pop() as string)) {
    const p = prev.n as number;
    const joined = n === 100 || n === 1000 ? (p < n ? p * n : null) : p >= 20 && p % 10 === 0 && p < 100 && n < 10 ? p + n : null;
    if (joined !== null) {
      toks[toks.length - 1] = { kind: 'number', v: `${prev.v} ${raw}`, n: joined, i };
      return;
    }
  }
  toks.push({ kind: 'number', v: raw, n, i });
}

/** The words of a hyphenated token: the joined word when the lexicon knows it ("pick-up" → pickup), else its parts; [] for anything else. */
export function hyphenParts(raw: string, known: (w: string) => boolean): string[] {
  if (raw.length > 64 || !/^\p{L}+(?:-\p{L}+){1,3}$/u.test(raw)) return [];
  const parts = raw.split('-');
  const joined = parts.join('');
  return known(joined) ? [joined] : parts;
}

interface Structure {
  readonly kind: InducedKind;
  readonly keyType: KeyDefinition['key_type'];
  readonly extra: Partial<KeyDefinition>;
  readonly suffix: string | null;
  /** The name words, or null to keep the concept's. */
  readonly name: string[] | null;
  readonly values: readonly (readonly [JsonValue, Parsed])[];
  /** A proportion choice: kept from one value on. */
  readonly ratio: boolean;
}

interface StructureContext {
  readonly share: (f: (p: Parsed) => boolean) => number;
  readonly mass: (ps: Iterable<Parsed>) => number;
  readonly rawOf: ReadonlyMap<string, string[]>;
  readonly structureShare: number;
  /** The concept head, for a bare identifier noun ("reference" → booking_reference). */
  readonly head: string | null;
  /** A noun that may name identifiers. */
  readonly noun: (w: string) => boolean;
  /** A word that may name a time (verbs too for a deadline: arrive_by). */
  readonly timeWord: (deadline: boolean) => (w: string) => boolean;
  readonly nounModifier: (w: string) => boolean;
}

/**
 * The type read off structured tokens when they carry the need (`structure_share` of the fragment mass):
 * identifiers (one a fragment: a string with their shape as pattern, named by the noun phrase next to them;
 * several: a list `<noun>_ids`), proportions (an `aspect_ratio` choice), two times (a window), one time (a time,
 * `<event>_by` after a deadline word). Null when none does.
 */
function structuredEvidence(parsed: readonly Parsed[], c: StructureContext): Structure | null {
  const values: [JsonValue, Parsed][] = [];
  const clock = '([01][0-9]|2[0-3]):[0-5][0-9]';
  if (c.share((p) => p.ids.length > 0) >= c.structureShare) {
    const withIds = parsed.filter((p) => p.ids.length > 0);
    const named = anchorPhrase(parsed, 'id', c.noun, c.nounModifier, c.mass);
    // Several identifiers in a fragment: a list ("sites affected: NB-1, NB-2" → site_ids).
    if (c.mass(withIds.filter((p) => p.ids.length >= 2)) * 4 >= c.mass(withIds)) {
      return { kind: 'list', keyType: 'array', extra: { items_type: 'string' }, suffix: 'ids', name: named.length > 0 ? named.slice(-1) : null, values, ratio: false };
    }
    // The users' identifiers give the pattern; a placeholder for scrubbed personal data gives none, nor a value.
    const given = withIds.flatMap((p) => p.ids);
    const pattern = given.some((id) => id.startsWith('PII-')) ? null : idPattern(given);
    // A bare "reference" or "number" takes the concept it is the identifier of ("booking" → booking_reference).
    const bare = named.length === 1 && ID_NOUNS.has(named[0] as string) && c.head !== null && c.head !== named[0];
    const name = named.length === 0 ? null : bare ? [c.head as string, ...named] : named;
    for (const p of withIds) if (!(p.ids[0] as string).startsWith('PII-')) values.push([p.ids[0] as string, p]);
    const idNoun = name !== null && ID_NOUNS.has(name[name.length - 1] as string);
    return { kind: 'string', keyType: 'string', extra: pattern !== null ? { pattern } : {}, suffix: idNoun ? null : 'id', name, values, ratio: false };
  }
  if (c.share((p) => p.ratios.length === 1) >= c.structureShare) {
    // Proportions W:H are an aspect ratio: a choice among the values clients name, however few so far.
    for (const p of parsed) if (p.ratios.length === 1) values.push([p.ratios[0] as string, p]);
    return { kind: 'enum', keyType: 'string', extra: { pattern: '^[1-9][0-9]?:[1-9][0-9]?$' }, suffix: 'ratio', name: ['aspect'], values, ratio: true };
  }
  if (c.share((p) => p.dates.length === 1) >= c.structureShare) {
    // A calendar date (zhou §6.2.2, types from evidence): an ISO 8601 date string, named by the noun next to it.
    const named = anchorPhrase(parsed, 'date', c.timeWord(false), c.nounModifier, c.mass);
    // The dates said are the values (examples): YYYY-MM-DD with a year, --MM-DD (ISO 8601 month and day) without.
    for (const p of parsed) if (p.dates.length === 1) values.push([(p.dates[0] as string).length === 5 ? `--${p.dates[0] as string}` : (p.dates[0] as string), p]);
    return { kind: 'date', keyType: 'string', extra: { format: 'date' }, suffix: 'date', name: named.length > 0 ? named.slice(-1) : null, values, ratio: false };
  }
  if (c.share((p) => p.times.length >= 2) >= c.structureShare) {
    for (const p of parsed) if (p.times.length >= 2) values.push([`${p.times[0]}-${p.times[1]}`, p]);
    // The window's head keeps the modifier the fragments stating a window say beside it ("maintenance window"),
    // though fragments of the cluster that state none say the head alone ("the window of the cabinet").
    const named = anchorPhrase(parsed.filter((p) => p.times.length >= 2), 'time', c.timeWord(false), c.nounModifier, c.mass);
    const name = named.length === 2 && c.head !== null && named[1] === c.head ? named : null;
    return { kind: 'window', keyType: 'string', extra: { pattern: `^${clock}-${clock}$` }, suffix: 'window', name, values, ratio: false };
  }
  if (c.share((p) => p.times.length === 1) >= c.structureShare) {
    // A deadline ("arrive by 10:00", "land before 9pm") is <event>_by; any other time <event>_time.
    const timed = parsed.filter((p) => p.times.length === 1);
    const deadline = c.mass(timed.filter((p) => DEADLINE_WORDS.has(rawBefore(c.rawOf.get(p.text) ?? [], p.toks.find((t) => t.kind === 'time')?.i ?? -1)))) * 2 >= c.mass(timed);
    const named = anchorPhrase(parsed, 'time', c.timeWord(deadline), c.nounModifier, c.mass);
    return { kind: 'window', keyType: 'string', extra: { pattern: `^${clock}$` }, suffix: deadline ? 'by' : 'time', name: named.length > 0 ? named.slice(-1) : null, values, ratio: false };
  }
  return null;
}

interface NumericContext {
  readonly share: (f: (p: Parsed) => boolean) => number;
  readonly mass: (ps: Iterable<Parsed>) => number;
  readonly headWords: readonly string[];
  /** Candidate words (with their client weight) among the words of the fragments stating the unit. */
  readonly unitWord: (inUnit: ReadonlySet<string>) => (readonly [string, number])[];
  /** The noun the numbers stand before (kinds.ts countedNoun). */
  readonly counted: (nums: readonly Parsed[]) => string | null;
  /** A comparative ("more", "less", "as", an adjective's -er form WordNet reads back: "faster", "cheaper"). */
  readonly comparative: (raw: string) => boolean;
  readonly enoughClients: (ps: readonly Parsed[]) => boolean;
  /** A word that may modify the concept ("battery" in "battery backup"). */
  readonly nounModifier: (w: string) => boolean;
}

/**
 * The concept's noun phrase: `word` with the noun right before it ("battery backup") or, when `word` itself
 * modifies the noun right after it ("boiler warranty"), with that noun, when the neighbour stands there in at
 * least two fifths of the word's fragment mass, in two phrasings or more.
 */
function unitPhrase(parsed: readonly Parsed[], word: string, c: NumericContext): string[] {
  const side = new Map<string, Parsed[]>();
  let total = 0;
  for (const p of parsed) {
    const at = p.toks.find((t) => t.kind === 'word' && t.v === word);
    if (at === undefined) continue;
    total += c.mass([p]);
    for (const [dir, d] of [['<', -1], ['>', 1]] as const) {
      const n = p.toks.find((t) => t.kind === 'word' && t.i === (at.i ?? -9) + d);
      if (n !== undefined && n.v !== word && c.nounModifier(n.v)) side.set(`${dir}${n.v}`, [...(side.get(`${dir}${n.v}`) ?? []), p]);
    }
  }
  const best = [...side].sort((a, b) => c.mass(b[1]) - c.mass(a[1]) || (a[0] < b[0] ? -1 : 1))[0];
  if (!best || best[1].length < 2 || c.mass(best[1]) * 5 < total * 2) return [word];
  const other = best[0].slice(1);
  return best[0].startsWith('<') ? [other, word] : [word, other];
}

/** The next finer unit of a duration and how many of it make one of the coarser (an hour is 60 minutes). */
const FINER_UNIT: ReadonlyMap<string, readonly [string, number]> = new Map([['hours', ['minutes', 60]], ['days', ['hours', 24]], ['weeks', ['days', 7]]]);
/** Fraction words say how much of the unit, never what is measured (a closed class). */
const FRACTION_WORDS: ReadonlySet<string> = new Set(['half', 'quarter']);

/**
 * The fraction a fragment says of its unit `top`, read beside the unit word itself: "N <unit> and a half" and
 * "N and a half <unit>" add a half, "half a(n) <unit>" halves; a fraction said of another unit or of another thing
 * ("half a mile walk", "five and a half" as an age) is not the duration's. Null when none.
 */
function unitFraction(text: string, top: string): 'and_half' | 'half_of' | null {
  const raws = rawTokens(text);
  const at = (k: number): string => raws[k] ?? '';
  for (let i = 0; i < raws.length; i++) {
    if (TIME_UNITS.get(at(i)) !== top) continue;
    if (at(i + 1) === 'and' && at(i + 2) === 'a' && at(i + 3) === 'half') return 'and_half';
    if (at(i - 3) === 'and' && at(i - 2) === 'a' && at(i - 1) === 'half') return 'and_half';
    if (at(i - 2) === 'half' && (at(i - 1) === 'a' || at(i - 1) === 'an')) return 'half_of';
  }
  return null;
}

/**
 * The unit an integer duration is kept in (zhou §6.2.2 types from evidence): the unit most fragments say, unless a
 * fragment states a fraction of it ("an hour and a half", "1.5 days"), which only the next finer unit holds as an
 * integer; then every value said in the coarser unit is converted (1.5 hours → 90 minutes), in place. When some value
 * is no whole number of the finer unit either (a week and a half is 10.5 days), nothing is converted: no value is
 * invented by rounding.
 */
function integerUnit(parsed: readonly Parsed[], top: string, values: [JsonValue, Parsed][]): string {
  const finer = FINER_UNIT.get(top);
  const fraction = (p: Parsed): boolean => p.unit === top && (unitFraction(p.text, top) !== null || !Number.isInteger(p.numbers[0]));
  if (finer === undefined || !parsed.some(fraction)) return top;
  let whole = true;
  const converted = values.map(([n, p]): JsonValue => {
    if (p.unit !== top || typeof n !== 'number') return n;
    const f = unitFraction(p.text, top);
    const said = f === 'half_of' ? n / 2 : f === 'and_half' && Number.isInteger(n) ? n + 0.5 : n;
    whole &&= Number.isInteger(said * finer[1]);
    return said * finer[1];
  });
  if (!whole) return top;
  values.forEach((v, k) => {
    v[0] = converted[k] as JsonValue;
  });
  return finer[0];
}

/** Words that make a multiplicative a factor of comparison ("3 times more", "twice as long"): a closed class. */
const COMPARISON_WORDS: ReadonlySet<string> = new Set(['more', 'less', 'fewer', 'as']);

/** The noun of English's multiplicative ("3 times", "four times"): what it counts are occurrences. */
const MULTIPLICATIVE_NOUN = 'time';

/**
 * One number in most fragments: an amount of money (number; `max_price` when enough state a ceiling), a count in
 * a unit of time (integer `<concept>_<unit>`: flexible_days, outage_minutes), a percentage, or a count of the noun
 * the numbers stand before (`alarm_count`).
 */
function numericEvidence(parsed: readonly Parsed[], c: NumericContext): { keyType: KeyDefinition['key_type']; suffix: string | null; name: string[] | null; values: [JsonValue, Parsed][] } {
  const nums = parsed.filter((p) => p.numbers.length === 1);
  const keyType = nums.every((p) => Number.isInteger(p.numbers[0])) ? 'integer' : 'number';
  const values = nums.map((p) => [p.numbers[0] as number, p] as [JsonValue, Parsed]);
  const suffix = c.share((p) => p.percent) > 0.5 ? 'percent' : keyType === 'integer' ? 'count' : 'amount';
  const unitMass = new Map<string, number>();
  for (const p of parsed) if (p.unit) unitMass.set(p.unit, (unitMass.get(p.unit) ?? 0) + c.mass([p]));
  const topUnit = [...unitMass].sort((a, b) => b[1] - a[1])[0];
  // Money: an amount (number), a ceiling when enough say so ("under 400 euros" → max_price).
  if (c.share((p) => p.currency) >= 0.3) return { keyType: 'number', suffix: null, name: c.share((p) => p.limit) >= 0.3 ? ['max', 'price'] : ['price'], values };
  if (topUnit && topUnit[1] / c.mass(parsed) >= 0.5) {
    const unitWords = new Set([...TIME_UNITS.keys()].map((u) => singular(u)));
    const inUnit = new Set(parsed.filter((p) => p.unit === topUnit[0]).flatMap((p) => p.words));
    const best = c
      .unitWord(inUnit)
      .filter(([w]) => !unitWords.has(w) && !TIME_UNITS.has(w) && !NUMBER_WORDS.has(w) && !LIMIT_WORDS.has(w) && !FRACTION_WORDS.has(w))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    const unit = integerUnit(parsed, topUnit[0], values);
    if (!best) return { keyType: 'integer', suffix: unit, name: ['requested'], values };
    return { keyType: 'integer', suffix: unit, name: unitPhrase(parsed.filter((p) => p.unit === topUnit[0]), best[0], c), values };
  }
  if (suffix === 'count') {
    // A count is of the noun its number stands before ("we got 1200 alarms", "3,100 active alarms"): that noun
    // names it when most of the numbered fragments say so, whatever noun the cluster says most.
    const counted = c.counted(nums);
    // "N times" is English's multiplicative: it counts the occasions of what the clause says happened (WordNet's
    // first sense of "time": an instance or single occasion for some event), so the count is of occurrences.
    // Before a comparative ("3 times faster", "three times more expensive") it is a factor, and counts nothing.
    const factor = (p: Parsed): boolean => {
      const raws = rawTokens(p.text);
      return raws.some((r, k) => r === 'times' && c.comparative(raws[k + 1] ?? ''));
    };
    if (counted === MULTIPLICATIVE_NOUN && c.mass(nums.filter(factor)) * 2 >= c.mass(nums)) return { keyType, suffix, name: null, values };
    const multiplicative = counted === MULTIPLICATIVE_NOUN;
    if (counted !== null && (multiplicative || !c.headWords.includes(counted))) {
      const ps = nums.filter((p) => p.words.includes(counted));
      if (c.mass(ps) * 2 >= c.mass(nums) && c.enoughClients(ps)) return { keyType, suffix, name: [multiplicative ? 'occurrence' : counted], values };
    }
  }
  return { keyType, suffix, name: null, values };
}

/**
 * The word a restriction is about: the content word right before "only" ("nonstop only"), or right after it
 * ("only direct flights"), when one word stands there in at least two fifths of the fragment mass, from
 * `needClients` clients. Null otherwise.
 */
function onlyWord(parsed: readonly Parsed[], rawOf: ReadonlyMap<string, string[]>, ok: (w: string) => boolean, mass: (ps: Iterable<Parsed>) => number, needClients: number): string | null {
  const by = new Map<string, Parsed[]>();
  for (const p of parsed) {
    const at = (rawOf.get(p.text) ?? []).indexOf('only');
    if (at < 0) continue;
    const tok = p.toks.find((t) => t.kind === 'word' && t.i === at - 1) ?? p.toks.find((t) => t.kind === 'word' && t.i === at + 1);
    if (tok !== undefined && ok(tok.v)) by.set(tok.v, [...(by.get(tok.v) ?? []), p]);
  }
  const best = [...by].sort((a, b) => mass(b[1]) - mass(a[1]) || (a[0] < b[0] ? -1 : 1))[0];
  if (!best) return null;
  const clients = new Set(best[1].flatMap((p) => [...p.voters.keys()]));
  return mass(best[1]) * 5 >= mass(parsed) * 2 && clients.size >= needClients ? best[0] : null;
}

/**
 * The alternatives of one slot and the nouns they modify. Substitution slots: two phrasings equal but for one
 * word name two alternatives ("my client eats halal food" / "… vegan food"), the strongest evidence of values,
 * whatever the head. Noun phrases: modifiers of one noun said by distinct clients ("glossy paper" / "satin paper",
 * kinds.ts paradigmModifiers); that noun is a phrase head, never a value. A slot word stays a value when it
 * modifies a noun somewhere or a value table knows it ("remove the acne" / "remove the background" swap the object
 * itself: other needs, not values).
 */
function slotEvidence(
  parsed: readonly Parsed[],
  c: { isVerb: (w: string) => boolean; isNoun: (w: string) => boolean; isAdj: (w: string) => boolean; canModify: (w: string) => boolean; needClients: number; sameValue?: (a: string, b: string) => boolean },
): { slotWords: Set<string>; phraseHeads: Set<string> } {
  const slotWords = new Set<string>();
  const phraseHeads = new Set<string>();
  const seqs = parsed.map((p) => p.toks.filter((t) => t.kind !== 'neg').map((t) => (t.kind === 'word' ? t.v : `#${t.kind}`)));
  const byShape = new Map<string, number[]>();
  seqs.forEach((seq, i) => {
    for (let j = 0; j < seq.length; j++) {
      const shape = `${seq.length}|${j}|${seq.filter((_, k) => k !== j).join(' ')}`;
      byShape.set(shape, [...(byShape.get(shape) ?? []), i]);
    }
  });
  for (const [shape, idx] of byShape) {
    const j = Number(shape.split('|')[1]);
    const words = new Set(idx.map((i) => (seqs[i] as string[])[j] as string));
    if (words.size < 2) continue;
    for (const w of words) if (!w.startsWith('#') && !c.isVerb(w)) slotWords.add(w);
  }
  const phrases = parsed.map((p) => ({ voters: p.voters, seq: p.toks.filter((t) => t.kind === 'word').map((t) => ({ v: t.v, i: t.i ?? -9 })) }));
  const paradigm = paradigmModifiers(phrases, c.isNoun, c.canModify, c.needClients, PARADIGM_OVERLAP, c.sameValue);
  for (const w of paradigm.modifiers) slotWords.add(w);
  for (const w of paradigm.heads) {
    slotWords.delete(w);
    phraseHeads.add(w);
  }
  for (const w of [...slotWords]) {
    if (VALUE_CLASSES.has(w)) continue;
    const modifies = parsed.some((p) => {
      const ws = p.toks.filter((t) => t.kind === 'word');
      return ws.some((t, k) => t.v === w && [ws[k - 1], ws[k + 1]].some((o) => o !== undefined && Math.abs((o.i ?? -9) - (t.i ?? 0)) === 1 && (!c.isVerb(o.v) || phraseHeads.has(o.v)) && !slotWords.has(o.v) && !c.isAdj(o.v)));
    });
    if (!modifies) slotWords.delete(w);
  }
  return { slotWords, phraseHeads };
}

/**
 * Words written capitalised inside a sentence ("the change in Frankfurt") and never in lower case in these texts:
 * proper nouns, lower-cased. A capital after sentence punctuation or at the start says nothing.
 */
export function properNouns(texts: readonly string[]): Set<string> {
  const capital = new Set<string>();
  const lower = new Set<string>();
  for (const text of texts) {
    for (const m of text.slice(0, 4096).matchAll(/(^|[.!?]\s*|\s)(\p{L}[\p{L}\p{M}]*)/gu)) {
      const w = m[2] as string;
      const first = w.charAt(0);
      if (first === first.toLowerCase()) lower.add(w.toLowerCase());
      else if (m[1] !== undefined && m[1] !== '' && !/[.!?]/.test(m[1]) && w.slice(1) === w.slice(1).toLowerCase()) capital.add(w.toLowerCase());
    }
  }
  return new Set([...capital].filter((w) => !lower.has(w)));
}

/** Nouns that already say "identifier": a key named by one needs no `_id` suffix. */
const ID_NOUNS: ReadonlySet<string> = new Set(['reference', 'number', 'code', 'id', 'identifier', 'locator']);
/** Words that make a time a deadline. */
const DEADLINE_WORDS: ReadonlySet<string> = new Set(['by', 'before', 'until', 'latest', 'till']);

function rawBefore(raws: readonly string[], i: number): string {
  return i > 0 ? (raws[i - 1] as string) : '';
}

/**
 * The noun phrase that names structured tokens (identifiers, times): the word standing nearest them across the
 * fragments (weighted by fragment mass over distance, within three tokens), with the word right before it when
 * that word stands there in at least two fifths of the nearest word's fragments ("booking reference", "power line").
 */
function anchorPhrase(parsed: readonly Parsed[], kind: 'id' | 'time' | 'date', ok: (w: string) => boolean, canModify: (w: string) => boolean, mass: (ps: Iterable<Parsed>) => number): string[] {
  const byNear = new Map<string, number>();
  for (const p of parsed) {
    const at = p.toks.filter((t) => t.kind === kind).map((t) => t.i ?? -9);
    if (at.length === 0) continue;
    for (const t of p.toks) {
      if (t.kind !== 'word' || !ok(t.v)) continue;
      const d = Math.min(...at.map((i) => Math.abs(i - (t.i ?? -99))));
      if (d >= 1 && d <= 3) byNear.set(t.v, (byNear.get(t.v) ?? 0) + mass([p]) / d);
    }
  }
  const nearest = [...byNear].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0];
  if (!nearest) return [];
  const head = nearest[0];
  const before = new Map<string, number>();
  let headMass = 0;
  for (const p of parsed) {
    const ws = p.toks.filter((t) => t.kind === 'word');
    const k = ws.findIndex((t) => t.v === head);
    if (k < 0) continue;
    headMass += mass([p]);
    const b = ws[k - 1];
    if (b !== undefined && b.i === ((ws[k] as Tok).i ?? 0) - 1 && canModify(b.v)) before.set(b.v, (before.get(b.v) ?? 0) + mass([p]));
  }
  const mod = [...before].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))[0];
  return mod && mod[1] * 5 >= headMass * 2 ? [mod[0], head] : [head];
}

/**
 * A JSON-schema pattern for identifiers of one shape (letters, digits, mixed runs between the same separators); a
 * letter run all of them share is kept as written ("PNR-7QK2L", "PNR-4XM9D" → ^PNR-[A-Z0-9]{5}$). Null when they
 * have different shapes.
 */
export function idPattern(ids: readonly string[]): string | null {
  const split = (id: string): string[] => id.slice(0, 64).split(/([-_])/);
  const shapes = ids.map(split);
  const first = shapes[0];
  if (first === undefined) return null;
  const cls = (seg: string): string => (/^[A-Z]+$/.test(seg) ? 'L' : /^\d+$/.test(seg) ? 'D' : 'M');
  const sig = (segs: readonly string[]): string => segs.map((g, k) => (k % 2 === 1 ? g : cls(g))).join('');
  if (!shapes.every((sh) => sig(sh) === sig(first))) return null;
  const parts = first.map((seg, k) => {
    if (k % 2 === 1) return seg === '-' ? '-' : '_';
    const col = shapes.map((sh) => sh[k] as string);
    if (col.every((x) => x === seg) && cls(seg) === 'L') return seg;
    const lo = Math.min(...col.map((x) => x.length));
    const hi = Math.max(...col.map((x) => x.length));
    const set = cls(seg) === 'L' ? '[A-Z]' : cls(seg) === 'D' ? '[0-9]' : '[A-Z0-9]';
    return `${set}{${lo === hi ? lo : `${lo},${hi}`}}`;
  });
  return `^${parts.join('')}$`;
}

function hhmm(raw: string): string {
  const m = TIME.exec(raw);
  if (!m) return raw;
  if (m[1] !== undefined) return `${(m[1] as string).padStart(2, '0')}:${m[2]}`;
  const h = Number(m[3]) % 12 + (m[4] === 'pm' ? 12 : 0);
  return `${String(h).padStart(2, '0')}:00`;
}

/** The dimension when at least numeric_share of the weight asks for a relative change along it; null otherwise. */
function scaleOf(parsed: readonly Parsed[], total: number, o: InductionOptions): string | null {
  const byDim = new Map<string, Parsed[]>();
  for (const p of parsed) {
    const raw = rawTokens(p.text);
    const comps = raw.filter((w) => COMPARATIVES.has(w));
    if (comps.length !== 1 || p.numbers.length > 0) continue;
    const dim = (COMPARATIVES.get(comps[0] as string) as { dimension: string }).dimension;
    byDim.set(dim, [...(byDim.get(dim) ?? []), p]);
  }
  const best = [...byDim].map(([d, ps]) => [d, weigh(ps)] as const).sort((a, b) => b[1] - a[1])[0];
  return best && best[1] >= o.numeric_share * total ? best[0] : null;
}

/** A fragment's position on the scale: direction × degree (1 slight, 2 plain, 3 strong). */
function adjustment(p: Parsed): number | null {
  const raw = rawTokens(p.text);
  const comps = raw.filter((w) => COMPARATIVES.has(w));
  if (comps.length !== 1) return null;
  const dir = (COMPARATIVES.get(comps[0] as string) as { direction: 1 | -1 }).direction;
  const degrees = raw.map((w) => DEGREE.get(w)).filter((d): d is 1 | 3 => d !== undefined);
  const degree = degrees.includes(1) ? 1 : degrees.includes(3) ? 3 : 2;
  return dir * degree * (p.negated ? 0 : 1) || 0;
}

const ASCII_WORD = /^[a-z][a-z0-9]*$/;

function buildKeyName(words: readonly string[], suffix: string | null, parsed: readonly Parsed[]): string {
  const ascii = words.filter((w) => ASCII_WORD.test(w));
  const tail = suffix && !ascii.includes(suffix) ? [suffix] : [];
  if (ascii.length === 0) return `custom_intent_${fnv1a(parsed.map((p) => p.text.toLowerCase()).sort().join('\n'))}`;
  const budget = MAX_KEY_NAME_LENGTH - (tail.length > 0 ? tail.join('_').length + 1 : 0);
  const kept: string[] = [];
  for (const w of ascii) {
    const next = [...kept, w].join('_');
    if (next.length > budget) break;
    kept.push(w);
  }
  if (kept.length === 0) kept.push((ascii[0] as string).slice(0, budget));
  let name = [...kept, ...tail].join('_');
  if (name === OTHER_KEY || (RESERVED_KEY_NAMES as readonly string[]).includes(name)) name = `${name}_request`;
  return name;
}

/** FNV-1a 32-bit, base 36: a stable short id for key names without ASCII words. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (const ch of s) {
    h ^= ch.codePointAt(0) as number;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}


/**
 * zhou §7 closed vocabulary for a key another inducer proposed (libs/llm): the
 * description and mapping examples built from the key name, its type and its
 * values only, the way the rule inducer builds its own. `values` are the values
 * with the clients (or fragments) behind each, most first. No fragment text and
 * no model prose reaches it.
 */
export function describeClosed(
  key: KeyDefinition,
  kind: InducedKind,
  values: readonly { readonly value: JsonValue; readonly count: number }[],
  used: number,
  labelled: boolean,
  options: InductionOptions = DEFAULT_INDUCTION_OPTIONS,
): { readonly semantic_description: string; readonly examples: readonly MappingExample[] } {
  const words = key.key_name.split('_');
  const content = words.filter((w) => !KIND_AFFIXES.has(w));
  const phrase = (content.length > 0 ? content : words).join(' ');
  const enumValues = kind === 'enum' ? (key.enum ?? []) : [];
  const examples = examplesFor(kind, phrase, values, enumValues, options);
  const extra: Partial<KeyDefinition> = key.pattern !== undefined ? { pattern: key.pattern } : {};
  return { semantic_description: describe(kind, key.key_name, phrase, key.key_type, enumValues, examples, used, labelled, extra, options), examples };
}

/** Mapping examples composed of closed-vocabulary tokens only: the name's words and the values. */
function examplesFor(kind: InducedKind, phrase: string, ranked: readonly { value: JsonValue; count: number }[], enumValues: readonly JsonValue[], o: InductionOptions): MappingExample[] {
  const safe = (s: string): boolean => /^[a-z0-9 :_-]{1,60}$/.test(s);
  const out: MappingExample[] = [];
  const push = (fragment: string, value: JsonValue, count: number): void => {
    if (out.length < o.max_examples && safe(fragment)) out.push({ fragment, value, count });
  };
  switch (kind) {
    case 'enum':
      for (const v of enumValues) push(`${String(v).replace(/_/g, ' ')} ${phrase}`, v, ranked.find((r) => r.value === v)?.count ?? 0);
      break;
    case 'boolean':
      push(phrase, true, ranked.find((r) => r.value === true)?.count ?? 0);
      push(`no ${phrase}`, false, ranked.find((r) => r.value === false)?.count ?? 0);
      break;
    case 'numeric':
      for (const r of ranked) if (typeof r.value === 'number') push(`${r.value} ${phrase}`, r.value, r.count);
      break;
    case 'scale':
      // Template words for the degree (never the user's): slightly / plain / much, more or less.
      for (const r of ranked) if (typeof r.value === 'number' && r.value !== 0) push(`${phrase} ${Math.abs(r.value) === 1 ? 'slightly ' : Math.abs(r.value) === 3 ? 'much ' : ''}${r.value > 0 ? 'more' : 'less'}`, r.value, r.count);
      break;
    case 'date':
      for (const r of ranked) if (typeof r.value === 'string') push(`${phrase} ${r.value}`, r.value, r.count);
      break;
    case 'window':
      for (const r of ranked) if (typeof r.value === 'string') push(`${phrase} ${r.value.replace('-', ' to ')}`, r.value, r.count);
      break;
    case 'list':
      // Placeholder identifiers in template words: the users' own identifiers are never quoted.
      push(`${phrase} A1 and B2`, ['A1', 'B2'], ranked[0]?.count ?? 0);
      break;
    case 'string':
      break;
  }
  return out;
}

function article(w: string): string {
  return /^[aeiou]/.test(w) ? 'an' : 'a';
}

function quote(v: JsonValue): string {
  return typeof v === 'string' ? `"${v}"` : JSON.stringify(v);
}

/** zhou §6.2.2 semantic_description as a template sentence over closed-vocabulary tokens (zhou §7: no fragment text). */
function describe(kind: InducedKind, keyName: string, phrase: string, keyType: string, values: readonly JsonValue[], examples: readonly MappingExample[], used: number, labelled: boolean, extra: Partial<KeyDefinition>, o: InductionOptions): string {
  const Phrase = phrase.charAt(0).toUpperCase() + phrase.slice(1);
  let head: string;
  switch (kind) {
    case 'enum':
      head = `${Phrase}: one of ${values.map(String).join(', ')}.`;
      break;
    case 'boolean':
      head = `Whether the user asks for ${phrase}: true when asked for, false when declined.`;
      break;
    case 'numeric':
      head = keyName.endsWith('_percent') ? `${Phrase} change in percent, ${article(keyType)} ${keyType}.` : `${Phrase} count, ${article(keyType)} ${keyType}.`;
      break;
    case 'scale':
      head = `${Phrase} adjustment relative to the original, an integer from -${SCALE_MAX} (much less) to ${SCALE_MAX} (much more); 0 leaves it unchanged, 1 is slight, 2 clear, 3 strong.`;
      break;
    case 'list':
      head = `The ${phrase} identifiers the user names, a list of strings, one per identifier as written.`;
      break;
    case 'window':
      head = extra.pattern?.includes('-') ? `${Phrase} as a time range HH:MM-HH:MM (24-hour clock).` : `${Phrase} as a time HH:MM (24-hour clock).`;
      break;
    case 'date':
      head = `${Phrase} as a calendar date YYYY-MM-DD; --MM-DD in an example is one said without a year.`;
      break;
    case 'string':
      head = `${Phrase}, as the user states it.`;
      break;
  }
  const origin = `Learned from ${used} ${labelled ? 'client' : 'client request'}${used === 1 ? '' : 's'} that used the "other" key.`;
  const ex = examples.length > 0 ? ` Example mapping: ${examples.map((e) => `"${e.fragment}" -> ${quote(e.value)}`).join('; ')}.` : '';
  const text = `${head} ${origin}${ex}`;
  return text.length <= o.max_description_chars ? text : text.slice(0, o.max_description_chars);
}

/**
 * zhou §7 closed vocabulary: what a served key may be built from. Returns the
 * rules a candidate breaks (empty: none): name words and values short
 * lowercase ASCII tokens (or a fixed suffix), each supported by enough
 * distinct clients (two once more than two are heard).
 */
function closedVocabulary(keyName: string, headWords: readonly string[], values: readonly JsonValue[], kind: InducedKind, parsed: readonly Parsed[], needClients: number): string[] {
  const out: string[] = [];
  const FIXED = new Set(['needs', 'wants', 'preference', 'count', 'ids', 'window', 'time', 'date', 'type', 'removal', 'aspect', 'ratio', 'id', 'by', 'percent', 'amount', 'size', 'color', 'format', 'file', 'image', 'brightness', 'length', 'width', 'warmth', 'sharpness', 'request', 'requested']);
  const support = (w: string): number => voterCount(parsed.filter((p) => p.words.includes(w) || p.ratios.includes(w)));
  const words = keyName.split('_');
  if (words.length > 5) out.push(`key name "${keyName}" has ${words.length} words (at most 5)`);
  for (const w of words) {
    if (FIXED.has(w) && !headWords.includes(w)) continue;
    if (!TOKEN.test(w)) out.push(`name word "${w}" is not a short lowercase token`);
    else if (headWords.includes(w) && support(w) < needClients) out.push(`name word "${w}" is used by ${support(w)} client(s), fewer than ${needClients}`);
  }
  if (kind === 'enum') {
    for (const v of values) {
      const s = String(v);
      if ((!/^[a-z0-9][a-z0-9_]{0,31}$/.test(s) && !RATIO.test(s)) || s.split('_').length > 2) out.push(`value "${s}" is not a short lowercase token`);
      else if (support(s) < needClients) out.push(`value "${s}" is used by ${support(s)} client(s), fewer than ${needClients}`);
    }
  }
  return out;
}

/**
 * One key per intent (zhou §6.2.2 conflict detection): the existing key this
 * candidate is, when its concept word is a word of that key's name and the
 * types agree, or its values overlap that key's enum by half. Null otherwise.
 */
function matchExisting(existing: readonly KeyDefinition[], keyName: string, headWords: readonly string[], key: KeyDefinition, values: readonly JsonValue[], unsaidAct: (w: string) => boolean = () => false): string | null {
  const headNoun = headWords[headWords.length - 1];
  const mine = new Set(keyName.split('_').map(singular));
  for (const k of existing) {
    if (k.key_name === OTHER_KEY) continue;
    if (k.key_name === keyName) return k.key_name;
    const words = new Set(k.key_name.split('_').map(singular));
    const typeOk = k.key_type === key.key_type || (k.key_type === 'number' && key.key_type === 'integer');
    // The existing key names an act on the noun ("eye_enlargement") the fragments never say: another need on it.
    const otherAct = [...words].some((w) => !mine.has(w) && unsaidAct(w));
    if (headNoun && words.has(singular(headNoun)) && typeOk && !otherAct && nestedNames(keyName, k.key_name)) return k.key_name;
    if (values.length > 0 && Array.isArray(k.enum) && k.enum.length > 0) {
      const overlap = values.filter((v) => (k.enum as readonly JsonValue[]).includes(v)).length;
      if (overlap >= Math.min(2, values.length, k.enum.length) && overlap * 2 >= values.length) return k.key_name;
    }
  }
  return null;
}

/**
 * Whether a class word is said in most of its fragments (by mass) after a word that modifies it ("a jade colour",
 * "green colour": the next raw token after a content word), which names the class; said first or after a function word
 * ("colour print", "print in colour") it is one option of the choice.
 */
function modifiedClassWord(parsed: readonly Parsed[], c: string, says: (p: Parsed, v: string) => boolean): boolean {
  const withC = parsed.filter((p) => says(p, c));
  const modified = withC.filter((p) => p.toks.some((t) => t.kind === 'word' && t.v === c && t.i !== undefined && p.toks.some((u) => u.kind === 'word' && u.i === (t.i as number) - 1 && u.v.length >= 3 && !PROP_ONE_LEADS.has(u.v))));
  return mass(modified) * 2 > mass(withC);
}

/**
 * Whether the fragments state a property of the thing, not a request: two or more words clients say that are values
 * of one naming class ("green", "hazel", "blue": colours). Only such a cluster is kept from refining a key named by
 * an act it never says (eye colours are no eye_enlargement); a bare need for the thing ("a wheelchair at the gate",
 * "the date is …") still refines the base key of that thing (wheelchair_assistance, departure_date).
 */
function statesProperty(ev: Evidence): boolean {
  const byClass = new Map<string, number>();
  for (const w of ev.vocab) {
    const c = classOf(ev.lex, w);
    if (c !== null && NAMING_CLASSES.has(c)) byClass.set(c, (byClass.get(c) ?? 0) + 1);
  }
  return [...byClass.values()].some((n) => n >= 2);
}

/**
 * Whether `w` is a noun of an act (WordNet files it in `noun.act`: enlargement, removal) that no fragment says, nor
 * a verb it is derived from or derives ("enlarge"): a key named by that act is about doing it, which these clients
 * never asked.
 */
function unsaidAct(ev: Evidence, w: string): boolean {
  const { lex } = ev;
  if (!ASCII_WORD.test(w) || lex.lexFile?.(w, 'n') !== 'noun.act') return false;
  const said = new Set(ev.vocab);
  const verbs = lex.derived?.(w, 'n', 'v') ?? [];
  return !said.has(w) && !verbs.some((v) => said.has(v));
}

/**
 * Two key names say one need only when the content words of one contain the other's (kind affixes aside):
 * `site_ids` is `affected_site_ids`, `cabin_preference` is `cabin_class`, but `red_eye_removal` is not
 * `eye_enlargement` (each says something the other does not: another action on the same noun).
 */
function nestedNames(a: string, b: string): boolean {
  const content = (n: string): Set<string> => new Set(n.split('_').filter((w) => !NAME_AFFIXES.has(w)).map(singular));
  const x = content(a);
  const y = content(b);
  const within = (p: Set<string>, q: Set<string>): boolean => [...p].every((w) => q.has(w));
  return within(x, y) || within(y, x);
}

/** The candidate must be a valid key definition (zhou §4.1), checked by the template parser itself. */
export function assertValidCandidate(key: KeyDefinition): void {
  if (key.key_name === OTHER_KEY) throw evolutionError('candidate_invalid', 'key.key_name', 'a candidate key can never be "other" (zhou §4.3 reserves it)');
  try {
    parseTemplate({ schema_id: 'evolution_candidate', scenario: 'evolution candidate', keys: [key] });
  } catch (e) {
    throw evolutionError('candidate_invalid', 'key', `the induced key is not a valid key definition: ${(e as Error).message}`, { key });
  }
}
