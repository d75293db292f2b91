/**
 * Rule-based intent induction (zhou §6.2.2 "Intent Induction: Use an internal
 * LLM or rule-based extractor to summarize the cluster's natural-language
 * fragments into a candidate key_name, key_type, required flag, default_value,
 * and semantic_description. The semantic_description MUST include mapping
 * examples derived from real fragments in the cluster.")
 *
 * Deterministic rules, no model:
 * 1. Every sample is sanitised again (zhou §7; samples may come from storage)
 *    and tokenised: lowercase words, stop words removed, plurals folded
 *    ("seats" → "seat"); "no/not/without/never" mark a negation.
 * 2. Head words: content words in at least `head_share` (60%) of the fragments,
 *    weighted by count, in the order of the most frequent fragment. They name
 *    the need ("seat"). Value words: a fragment's other content words ("window").
 * 3. The type:
 *    - numeric: ≥ 80% of the weight carries exactly one number → integer
 *      (number if any has decimals), named `<head>_percent` when most state
 *      a percentage, else `<head>_count` for integers;
 *    - boolean: no fragment has value words (they all say the same thing) →
 *      boolean, named `<head>` ("extra legroom" → `extra_legroom`), value
 *      false when negated;
 *    - scale: the value words are one comparative ("bigger", "smaller") and
 *      degree words ("a little", "much") → integer -3..3, named
 *      `<head>_<dimension>` ("make the eyes a little bigger" → eye_size = 1);
 *    - enum: the value words form at most `max_enum_values` distinct values
 *      (each at least `min_value_share` of the weight; rarer ones are noise)
 *      → string with `enum`, named `<head>_preference`;
 *    - otherwise string without enum, named `<head>_detail`.
 * 4. key_name: ASCII snake_case words only, ≤ 64 characters, cut on a word;
 *    never `other` or a reserved name; without ASCII words a stable
 *    `custom_intent_<hash>`.
 * 5. required false, default_value null (a patch key never breaks a client
 *    that does not know it, zhou §6.2), semantic_description with "Example
 *    mapping: 'fragment' -> value" for the most frequent fragment of each value.
 * The candidate is checked with `parseTemplate` before it is returned.
 *
 * Counting in clients (issue 6, one client cannot steer a cluster; zhou
 * §6.2.1 counts "unique client agents"): when the samples say which clients
 * sent them (`clients`, per-cluster pseudonyms, as a global pool's samples
 * do), every weight above — a word's share, a value's share, the numeric and
 * scale shares, the ranking of values and examples — is the number of
 * distinct clients, not of fragments, so a client that sends a thousand times
 * is one voice. And when more than `min_value_clients` clients are heard, a
 * value (an enum member, a mapping example) needs at least
 * `min_value_clients` of them: what one client alone asks for in a global
 * cluster is its personal need (its own pool serves it, §6.2.2 Personalized
 * Adaptation), not a collective one — the rule the global gate applies to
 * occurrences (trigger.ts). Samples without `clients` are weighted by `count`
 * as before (a client's own pool, direct callers).
 */
import { MAX_KEY_NAME_LENGTH, OTHER_KEY, RESERVED_KEY_NAMES, parseTemplate, type JsonValue, type KeyDefinition } from '@parley/protocol';
import { evolutionError } from './errors';
import { cutOnWord, sanitizeFragment } from './sanitize';

export interface InductionSample {
  readonly text: string;
  /**
   * How many fragments had this text (weights the rules when `clients` is
   * absent); in a global pool's samples, how many distinct clients sent it.
   */
  readonly count: number;
  /**
   * Opaque labels of the distinct clients behind this text (a global pool
   * passes per-cluster pseudonyms, never client ids). When any sample has
   * them, weights count distinct labels instead of `count` (issue 6).
   */
  readonly clients?: readonly string[];
}

export interface InductionOptions {
  /** Share of the weight a word needs to be a head word. */
  readonly head_share: number;
  /** Share of the weight that must carry one number for a numeric key. */
  readonly numeric_share: number;
  readonly max_enum_values: number;
  /** Values below this share of the weight are left out of an enum (noise). */
  readonly min_value_share: number;
  /** Mapping examples in the description. */
  readonly max_examples: number;
  /** Characters of a fragment quoted in an example. */
  readonly max_example_chars: number;
  readonly max_description_chars: number;
  /**
   * With client-labelled samples from more than this many clients, a value
   * needs this many distinct clients to enter an enum or an example (issue 6).
   */
  readonly min_value_clients: number;
}

export const DEFAULT_INDUCTION_OPTIONS: InductionOptions = Object.freeze({
  head_share: 0.6,
  numeric_share: 0.8,
  max_enum_values: 6,
  min_value_share: 0.05,
  max_examples: 3,
  max_example_chars: 60,
  max_description_chars: 600,
  min_value_clients: 2,
});

export type InducedKind = 'enum' | 'boolean' | 'numeric' | 'scale' | 'string';

/**
 * Comparatives that ask for a relative change along one dimension
 * ("make the eyes a little bigger", zhou §5.2's note on eye_enlargement): the
 * dimension names the key, the word gives the direction.
 */
const COMPARATIVES: Readonly<Record<string, { dimension: string; direction: 1 | -1 }>> = {
  bigger: { dimension: 'size', direction: 1 },
  larger: { dimension: 'size', direction: 1 },
  enlarge: { dimension: 'size', direction: 1 },
  enlarged: { dimension: 'size', direction: 1 },
  smaller: { dimension: 'size', direction: -1 },
  shrink: { dimension: 'size', direction: -1 },
  brighter: { dimension: 'brightness', direction: 1 },
  darker: { dimension: 'brightness', direction: -1 },
  longer: { dimension: 'length', direction: 1 },
  shorter: { dimension: 'length', direction: -1 },
  wider: { dimension: 'width', direction: 1 },
  narrower: { dimension: 'width', direction: -1 },
  warmer: { dimension: 'warmth', direction: 1 },
  cooler: { dimension: 'warmth', direction: -1 },
  sharper: { dimension: 'sharpness', direction: 1 },
  softer: { dimension: 'sharpness', direction: -1 },
};
/** Degree words: 1 = slight, 3 = strong; a bare comparative is 2. */
const DEGREE: Readonly<Record<string, 1 | 3>> = { little: 1, bit: 1, slightly: 1, slight: 1, tiny: 1, touch: 1, somewhat: 1, much: 3, lot: 3, way: 3, far: 3, significantly: 3, considerably: 3, really: 3 };
/** The scale of an induced adjustment key: -SCALE_MAX .. SCALE_MAX, 0 unchanged. */
const SCALE_MAX = 3;

export interface MappingExample {
  /** Sanitised fragment text as quoted in the description. */
  readonly fragment: string;
  readonly value: JsonValue;
  readonly count: number;
}

export interface Candidate {
  /** A key definition that passes parseTemplate: required false, default_value null. */
  readonly key: KeyDefinition;
  readonly kind: InducedKind;
  readonly head_words: readonly string[];
  /** Values with their weight (enum and boolean kinds). */
  readonly values: readonly { readonly value: JsonValue; readonly count: number }[];
  readonly examples: readonly MappingExample[];
  /** Fragments used / left out (dropped by sanitisation, no content words, rare values). */
  readonly fragments_used: number;
  readonly fragments_excluded: number;
}

export type InductionResult = { readonly ok: true; readonly candidate: Candidate } | { readonly ok: false; readonly reason: string; readonly fragments_excluded: number };

/** Words that carry no intent. Lowercase, after apostrophes became spaces. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then than so as of in on at by for from with to into onto over under about ' +
    'i me my mine we us our ours you your yours he she it its they them their this that these those there here ' +
    'is are was were be been being am do does did done have has had having will would shall should can could may might must ' +
    'please pls plz kindly thanks thank ok okay want wants wanted wanting need needs needed like likes liked love prefer prefers preferred ' +
    'get got give gives make let some any all each every one ones very really just also only more most much many lot lots ' +
    'possible possibly available ideally maybe perhaps if near nearby next beside close by around etc something anything thing things stuff ' +
    'would d ll m re s t ve im id ive youre'
  ).split(' '),
);

/** Words that negate the request ("no window seat"). */
export const NEGATORS: ReadonlySet<string> = new Set(['no', 'not', 'without', 'never', 'dont', 'don', 'none', 'nope']);

interface Parsed {
  readonly text: string;
  /** Its weight alone: distinct clients when labelled, else fragments. */
  readonly count: number;
  /** Who stands behind the text: a client label (weight 1) or, unlabelled, one anonymous voter weighing `count`. */
  readonly voters: ReadonlyMap<string, number>;
  /** Content words, singular, in order, unique. */
  readonly words: readonly string[];
  readonly numbers: readonly number[];
  readonly negated: boolean;
}

/** Plural to singular for the common English patterns; other words unchanged. */
export function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && /(ches|shes|xes|sses)$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/** Tokenises a sanitised fragment. */
export function contentWords(text: string): { words: string[]; numbers: number[]; negated: boolean } {
  const words: string[] = [];
  const numbers: number[] = [];
  let negated = false;
  for (const tok of text.toLowerCase().split(/[^\p{L}\p{M}\p{N}.]+/u)) {
    const t = tok.replace(/^\.+|\.+$/g, '');
    if (t === '') continue;
    if (/^\d+(\.\d+)?$/.test(t)) {
      numbers.push(Number(t));
      continue;
    }
    for (const part of t.split('.')) {
      if (part === '' || (part.length === 1 && !/\p{N}/u.test(part))) continue;
      if (NEGATORS.has(part)) negated = true;
      else if (!STOP_WORDS.has(part)) {
        const w = singular(part);
        if (!words.includes(w)) words.push(w);
      }
    }
  }
  return { words, numbers, negated };
}

/**
 * The weight of some entries: each voter once (a client label weighs 1; an
 * unlabelled sample is one voter weighing its count), so a client behind many
 * texts counts once (issue 6).
 */
function weigh(ps: Iterable<{ readonly voters: ReadonlyMap<string, number> }>): number {
  const seen = new Map<string, number>();
  for (const p of ps) {
    for (const [v, m] of p.voters) {
      const x = seen.get(v);
      if (x === undefined || m > x) seen.set(v, m);
    }
  }
  let n = 0;
  for (const m of seen.values()) n += m;
  return n;
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Distinct voters of some entries (clients when labelled). */
function voterCount(ps: Iterable<{ readonly voters: ReadonlyMap<string, number> }>): number {
  const seen = new Set<string>();
  for (const p of ps) for (const v of p.voters.keys()) seen.add(v);
  return seen.size;
}

/** zhou §6.2.2 intent induction over a cluster's samples. */
export function induceKey(samples: readonly InductionSample[], options: InductionOptions = DEFAULT_INDUCTION_OPTIONS): InductionResult {
  const parsed: Parsed[] = [];
  // Every entry, usable or not, for the excluded weight.
  const all: { voters: Map<string, number> }[] = [];
  const labelled = samples.some((s) => Array.isArray(s.clients) && s.clients.length > 0);
  // Same text after sanitising: one entry (the count adds up; the client labels join).
  const merged = new Map<string, { text: string; voters: Map<string, number> }>();
  samples.forEach((s, i) => {
    const count = Number.isInteger(s.count) && s.count > 0 ? s.count : 1;
    const voters = new Map<string, number>();
    // Labels are namespaced apart from the anonymous voters of unlabelled samples.
    if (Array.isArray(s.clients) && s.clients.length > 0) for (const c of s.clients) voters.set(`c:${String(c)}`, 1);
    else voters.set(`s:${i}`, count);
    const clean = sanitizeFragment(s.text).text;
    if (clean === null) {
      all.push({ voters });
      return;
    }
    const k = clean.toLowerCase();
    const m = merged.get(k);
    if (m) {
      for (const [v, n] of voters) m.voters.set(v, Math.max(n, m.voters.get(v) ?? 0));
    } else merged.set(k, { text: clean, voters });
  });
  for (const { text, voters } of merged.values()) {
    all.push({ voters });
    const cw = contentWords(text);
    if (cw.words.length === 0 && cw.numbers.length === 0) continue;
    parsed.push({ text, count: weigh([{ voters }]), voters, ...cw });
  }
  if (parsed.length === 0) return { ok: false, reason: 'no usable fragments after sanitising (zhou §7)', fragments_excluded: weigh(all) };
  // Deterministic order: most frequent first, then shorter, then alphabetical.
  parsed.sort((a, b) => b.count - a.count || a.text.length - b.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const total = weigh(parsed);
  // Issue 6: among more than min_value_clients clients, a value one client alone asks for is not the cluster's.
  const voices = voterCount(parsed);
  const needClients = labelled && voices > options.min_value_clients ? options.min_value_clients : 1;
  const corroborated = (entries: readonly Parsed[]): boolean => voterCount(entries) >= needClients;

  const withWord = new Map<string, Parsed[]>();
  for (const p of parsed) for (const w of p.words) push(withWord, w, p);
  const df = new Map<string, number>([...withWord].map(([w, ps]) => [w, weigh(ps)]));
  const top = parsed[0] as Parsed;
  const frequentWords = [...df.entries()].filter(([, n]) => n >= options.head_share * total).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  // A frequent word is a value, not part of the name, when the fragments
  // without it say something else in its place ("window seat" vs "aisle seat":
  // "window" is a value; "extra legroom" vs "legroom please": "extra" is not).
  // The most frequent word always names the need.
  const heads = frequentWords.filter((w, i) => {
    if (i === 0) return true;
    const substitutes = weigh(parsed.filter((p) => !p.words.includes(w) && p.words.some((x) => !frequentWords.includes(x))));
    return substitutes < options.min_value_share * total;
  });
  const headWords = [...top.words.filter((w) => heads.includes(w)), ...heads.filter((w) => !top.words.includes(w)).sort((a, b) => (df.get(b) ?? 0) - (df.get(a) ?? 0) || (a < b ? -1 : 1))];
  const valueOf = (p: Parsed): string[] => p.words.filter((w) => !headWords.includes(w));
  const byValue = new Map<string, Parsed[]>();
  for (const p of parsed) push(byValue, valueOf(p).join('_'), p);
  // Issue 6: a value only one client states, among more than min_value_clients, is noise here.
  const noise = (p: Parsed): boolean => valueOf(p).length > 0 && !corroborated(byValue.get(valueOf(p).join('_')) ?? []);

  const numericWeight = weigh(parsed.filter((p) => p.numbers.length === 1));
  let kind: InducedKind;
  let keyType: KeyDefinition['key_type'] = 'string';
  const values = new Map<string, { value: JsonValue; entries: Parsed[]; best: Parsed }>();
  const usedEntries: Parsed[] = [];
  const addValue = (value: JsonValue, p: Parsed): void => {
    const k = JSON.stringify(value);
    const v = values.get(k);
    if (v) v.entries.push(p);
    else values.set(k, { value, entries: [p], best: p });
    usedEntries.push(p);
  };

  if (numericWeight >= options.numeric_share * total) {
    kind = 'numeric';
    const nums = parsed.filter((p) => p.numbers.length === 1);
    keyType = nums.every((p) => Number.isInteger(p.numbers[0])) ? 'integer' : 'number';
    for (const p of nums) addValue(p.numbers[0] as number, p);
  } else if (scaleOf(parsed, valueOf, options) !== null) {
    // zhou §5.2 note: fine-grained adjustment requests ("a little bigger") are a
    // relative scale on one dimension, not a switch or a list of phrasings.
    kind = 'scale';
    keyType = 'integer';
    for (const p of parsed) {
      const v = adjustment(p, valueOf);
      if (v !== null) addValue(v, p);
    }
  } else if (parsed.every((p) => valueOf(p).length === 0 || noise(p)) && parsed.some((p) => valueOf(p).length === 0)) {
    kind = 'boolean';
    keyType = 'boolean';
    for (const p of parsed) if (valueOf(p).length === 0) addValue(!p.negated, p);
  } else {
    const frequent = [...byValue.entries()].filter(([v, ps]) => v !== '' && weigh(ps) >= options.min_value_share * total && corroborated(ps));
    if (frequent.length >= 1 && frequent.length <= options.max_enum_values) {
      kind = 'enum';
      const keep = new Set(frequent.map(([v]) => v));
      for (const p of parsed) {
        const v = valueOf(p).join('_');
        if (keep.has(v)) addValue(v, p);
      }
    } else {
      kind = 'string';
      for (const p of parsed) {
        const v = valueOf(p).join(' ');
        if (v !== '') addValue(v, p);
      }
    }
  }
  const used = weigh(usedEntries);
  const excluded = weigh(all) - used;

  const ranked = [...values.values()]
    .map((v) => ({ value: v.value, count: weigh(v.entries), best: v.best, corroborated: corroborated(v.entries) }))
    .sort((a, b) => b.count - a.count || (JSON.stringify(a.value) < JSON.stringify(b.value) ? -1 : 1));
  // Issue 6: examples quote values several clients asked for, when there are any.
  const exampleValues = ranked.some((v) => v.corroborated) ? ranked.filter((v) => v.corroborated) : ranked;
  // A scale or an amount is named by what changes, not by how: "eyes bigger" → eye_size,
  // "enlarge eye size by 20%" → eye_size_percent.
  const nameHeads = kind === 'scale' || kind === 'numeric' ? headWords.filter((w) => COMPARATIVES[w] === undefined && DEGREE[w] === undefined) : headWords;
  const nameWords = nameHeads.length > 0 ? nameHeads : firstWords(parsed, kind);
  const suffix =
    kind === 'scale'
      ? (scaleOf(parsed, valueOf, options) as string)
      : kind === 'enum'
        ? 'preference'
        : kind === 'string'
          ? 'detail'
          : kind === 'numeric' && percentOf(parsed)
            ? 'percent'
            : kind === 'numeric' && keyType === 'integer'
              ? 'count'
              : null;
  const keyName = buildKeyName(nameWords, suffix, parsed);
  const examples: MappingExample[] = exampleValues.slice(0, options.max_examples).map((v) => ({
    fragment: cutOnWord(v.best.text, options.max_example_chars),
    value: v.value,
    count: v.count,
  }));
  const key: KeyDefinition = {
    key_name: keyName,
    key_type: keyType,
    required: false,
    default_value: null,
    semantic_description: describe(kind, kind === 'scale' ? [...nameWords, suffix as string] : nameWords, ranked.map((v) => v.value), examples, used, labelled, options),
  };
  if (kind === 'enum') key.enum = ranked.map((v) => v.value);
  if (kind === 'scale') {
    key.minimum = -SCALE_MAX;
    key.maximum = SCALE_MAX;
  }
  assertValidCandidate(key);
  return {
    ok: true,
    candidate: {
      key,
      kind,
      head_words: headWords,
      values: ranked.map((v) => ({ value: v.value, count: v.count })),
      examples,
      fragments_used: used,
      fragments_excluded: excluded,
    },
  };
}

/** Whether most of a numeric cluster's weight states its number as a percentage ("by 20%"). */
function percentOf(parsed: readonly Parsed[]): boolean {
  const total = weigh(parsed);
  const pct = weigh(parsed.filter((p) => /\d\s*(%|percent\b|per cent\b)/i.test(p.text)));
  return pct * 2 > total;
}

/** Comparative words of a fragment (with their stems: "enlarge" is kept as is). */
function comparativesIn(words: readonly string[]): string[] {
  return words.filter((w) => COMPARATIVES[w] !== undefined);
}

/**
 * The dimension when the cluster asks for relative changes along one
 * dimension: at least `numeric_share` of the weight has a comparative of that
 * dimension and nothing else among its value words but degree words. Null otherwise.
 */
function scaleOf(parsed: readonly Parsed[], valueOf: (p: Parsed) => string[], o: InductionOptions): string | null {
  const total = weigh(parsed);
  const byDim = new Map<string, Parsed[]>();
  for (const p of parsed) {
    const words = [...valueOf(p), ...p.words.filter((w) => !valueOf(p).includes(w))];
    const comps = comparativesIn(words);
    if (comps.length !== 1) continue;
    const rest = valueOf(p).filter((w) => COMPARATIVES[w] === undefined && DEGREE[w] === undefined);
    if (rest.length > 0) continue;
    const dim = (COMPARATIVES[comps[0] as string] as { dimension: string }).dimension;
    push(byDim, dim, p);
  }
  const best = [...byDim.entries()].map(([d, ps]) => [d, weigh(ps)] as const).sort((a, b) => b[1] - a[1])[0];
  return best && best[1] >= o.numeric_share * total ? best[0] : null;
}

/** A fragment's position on the scale: direction × degree (1 slight, 2 plain, 3 strong). */
function adjustment(p: Parsed, valueOf: (p: Parsed) => string[]): number | null {
  const comps = comparativesIn(p.words);
  if (comps.length !== 1) return null;
  if (valueOf(p).some((w) => COMPARATIVES[w] === undefined && DEGREE[w] === undefined)) return null;
  const dir = (COMPARATIVES[comps[0] as string] as { direction: 1 | -1 }).direction;
  // Degree words may be stop words ("much"), so they are read off the text itself.
  const raw = p.text.toLowerCase().split(/[^a-z]+/);
  const degrees = raw.map((w) => DEGREE[w]).filter((d): d is 1 | 3 => d !== undefined);
  const degree = degrees.includes(1) ? 1 : degrees.includes(3) ? 3 : 2;
  return dir * degree * (p.negated ? 0 : 1) || 0;
}

/** Without head words: the most frequent word overall names the need. */
function firstWords(parsed: readonly Parsed[], kind: InducedKind): string[] {
  const withWord = new Map<string, Parsed[]>();
  for (const p of parsed) for (const w of p.words) push(withWord, w, p);
  const best = [...withWord.entries()].map(([w, ps]) => [w, weigh(ps)] as const).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (!best) return kind === 'numeric' ? ['requested'] : [];
  return [best[0]];
}

const ASCII_WORD = /^[a-z][a-z0-9]*$/;

function buildKeyName(words: readonly string[], suffix: string | null, parsed: readonly Parsed[]): string {
  const ascii = words.filter((w) => ASCII_WORD.test(w));
  const tail = suffix && !ascii.includes(suffix) && !(suffix === 'count' && ascii.some((w) => ['number', 'amount', 'quantity'].includes(w))) ? [suffix] : [];
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

function quoteValue(v: JsonValue): string {
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
}

function describe(kind: InducedKind, words: readonly string[], values: readonly JsonValue[], examples: readonly MappingExample[], used: number, labelled: boolean, o: InductionOptions): string {
  const phrase = words.join(' ') || 'requested feature';
  const cap = phrase.charAt(0).toUpperCase() + phrase.slice(1);
  // Labelled samples count clients (issue 6); others count requests.
  const origin = labelled ? `Learned from ${used} client${used === 1 ? '' : 's'} that used the "other" key.` : `Learned from ${used} client request${used === 1 ? '' : 's'} that used the "other" key.`;
  let head: string;
  switch (kind) {
    case 'enum':
      head = `${cap} preference. Acceptable values: ${values.map((v) => String(v)).join(', ')}.`;
      break;
    case 'boolean':
      head = `Whether ${phrase} is requested.`;
      break;
    case 'numeric':
      head = /%/.test(examples.map((e) => e.fragment).join(' ')) ? `${cap} change in percent.` : `${cap}${words.includes('count') ? '' : ' count'} as a number.`;
      break;
    case 'scale':
      head = `${cap} adjustment relative to the original, an integer from -${SCALE_MAX} (much less) to ${SCALE_MAX} (much more); 0 leaves it unchanged, 1 is slight, 2 clear, 3 strong.`;
      break;
    case 'string':
      head = `${cap} details, as the client states them.`;
      break;
  }
  const ex = examples.map((e) => `'${e.fragment}' -> ${quoteValue(e.value)}`).join('; ');
  const text = `${head} ${origin} Example mapping: ${ex}.`;
  return text.length <= o.max_description_chars ? text : `${cutOnWord(text, o.max_description_chars - 1)}…`;
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
