/**
 * Alternatives that are kinds of one thing (draft-zhou §6.2.2 step 4, "names from concepts, not frequent words"):
 * when the values of a choice are WordNet co-hyponyms, siblings under one hypernym (taxi, limousine and minivan are
 * cars; kosher and halal are foods), that hypernym is what the client chooses, and it names the key
 * (`car_type`) instead of whatever word the phrasings happened to share ("waiting", "arrival"). Read through the
 * lexicon's most frequent noun sense only, within `COHYPONYM_DEPTH` levels of every value; a kind with fewer than
 * `MIN_KIND_DEPTH` ancestors above it on the value's own chain is too general to name a choice ("artifact",
 * "instrumentality", "abstraction", "substance": a screen and a tower are both artifacts, not one choice).
 * Pure; words are looked up, never used as object keys.
 */
import type { KeyDefinition } from '@parley/protocol';
import { NAME_AFFIXES, SLOT_AFFIXES } from './affixes';
import type { Lexicon } from './lexicon';

/** Levels above each value a shared hypernym may sit: the parent or the grandparent. */
export const COHYPONYM_DEPTH = 2;
/**
 * Ancestors a kind needs above it, on the first value's hypernym chain, to name a choice: "car" (twelve above
 * taxi's "car"), "device" and "chromatic_color" (six) do; "artifact" (four), "instrumentality" (five), "food"
 * (four) do not. Depth in the hierarchy, not a list of general words.
 */
export const MIN_KIND_DEPTH = 6;
/** How far up a value's chain is read to measure a kind's depth (WordNet noun chains are at most ~20 deep). */
const CHAIN_DEPTH = 24;
/** Most values read (an enum is bounded already; this bounds hostile input here too). */
const MAX_VALUES = 16;
/** A value or a hypernym lemma this lexicon reads: short lowercase letters, `_` between words. */
const LEMMA = /^[a-z]{2,24}(?:_[a-z]{2,24}){0,2}$/;

/**
 * The value's noun hypernyms, nearest first, when the lexicon reads it mainly as a noun and as a kind; else null. A
 * named thing (the lexicon's `instance`: paris and london are instances of national_capital, einstein of physicist)
 * is an open value, a destination or a name, never one alternative of a choice an operator would accept.
 */
function nounHypernyms(lex: Lexicon, word: string, depth: number = COHYPONYM_DEPTH): readonly string[] | null {
  if (typeof word !== 'string' || !LEMMA.test(word)) return null;
  const p = lex.pos(word);
  if (p.n === 0 || p.n < p.v || p.n < p.a) return null;
  if (lex.instance?.(word, 'n') === true) return null;
  return lex.hypernyms(word, 'n', depth).filter((h) => typeof h === 'string' && LEMMA.test(h));
}

/**
 * Ancestors above `kind`, read level by level from `value` (hypernyms within 1, 2, … levels): the value's shortest
 * path to the root ("entity") less its shortest path to the kind. A kind with several parents counts its nearest way
 * up ("person" is a causal agent three levels under the root, though its organism chain is longer), never a position
 * in a flattened list of every parent. A lexicon without WordNet's root on `value`'s chain (a deployment glossary:
 * sedan → car → vehicle) has no depth to measure: then MIN_KIND_DEPTH. Every value is measured and the least counts.
 */
function kindDepth(lex: Lexicon, value: string, kind: string): number {
  const chain = lex.hypernyms(value, 'n', CHAIN_DEPTH);
  if (!chain.includes(kind)) return 0;
  if (!chain.includes('entity')) return MIN_KIND_DEPTH;
  let atKind = -1;
  for (let d = 1; d <= CHAIN_DEPTH; d++) {
    const up = lex.hypernyms(value, 'n', d);
    if (atKind < 0 && up.includes(kind)) atKind = d;
    if (up.includes('entity')) return atKind < 0 ? 0 : d - atKind;
  }
  return 0;
}

/**
 * The nearest hypernym every value sits under (within COHYPONYM_DEPTH levels), or null: fewer than two values, a
 * value the lexicon does not read as a noun, two values that are one synset (spellings of one value, not
 * alternatives), or no shared ancestor that close. `head` (the noun the values modify, when there is one) already
 * names the kind when it is that ancestor or above it: null then too ("north", "south" under region → `region`).
 */
export function sharedKind(lex: Lexicon, values: readonly string[], head: string | null = null): string | null {
  const vs = values.slice(0, MAX_VALUES);
  if (vs.length < 2) return null;
  const ups: (readonly string[])[] = [];
  for (const v of vs) {
    const u = nounHypernyms(lex, v);
    if (u === null || u.length === 0) return null;
    ups.push(u);
  }
  for (let i = 0; i < vs.length; i++) {
    for (let j = i + 1; j < vs.length; j++) if (lex.synonyms(vs[i] as string, 'n').includes(vs[j] as string)) return null;
  }
  const first = ups[0] as readonly string[];
  const kind = first.find((h) => ups.every((u) => u.includes(h)) && !vs.includes(h)) ?? null;
  if (kind === null) return null;
  if (vs.some((v) => kindDepth(lex, v, kind) < MIN_KIND_DEPTH)) return null;
  // A head that is the kind, above it, or itself a kind of it ("meal" is a food: halal / kosher meal stays a meal choice).
  if (head === null) return kind;
  const above = (w: string): readonly string[] => lex.hypernyms(w, 'n', COHYPONYM_DEPTH + 1);
  if (head === kind || ups.every((u) => u.includes(head)) || above(kind).includes(head) || above(head).includes(kind)) return null;
  return kind;
}

/**
 * Levels above each value a kind may sit when the values are said alone, with no noun they modify ("I carry my
 * violin", "two drums for the band"): a violin is a bowed stringed instrument, a stringed instrument, then a musical
 * instrument, three levels up; a guitar and a drum two. The kind's depth (MIN_KIND_DEPTH) still bounds how general.
 */
export const VALUE_NOUN_DEPTH = 3;
/**
 * Ancestors a kind needs above it when the values are said alone: one more than MIN_KIND_DEPTH, since no noun the
 * values modify corroborates the choice. "musical_instrument" and "vehicle" (seven) name one; "animal" (six above
 * it on "pet"'s chain: "pet" and "dog" are both animals, and a pet in the cabin is no choice of animal) does not.
 */
export const VALUE_NOUN_MIN_DEPTH = MIN_KIND_DEPTH + 1;

/** WordNet's node for made things (artifact.n.01), the only values a choice said by its values alone takes. */
const MADE_THING = 'artifact';

/** A noun a cluster's clients say, and the weight (distinct clients, fragment mass) behind it. */
export interface SaidNoun {
  readonly word: string;
  readonly weight: number;
}

/**
 * The choice a cluster states by its values alone (draft-zhou §6.2.2, "names from concepts, not frequent words"):
 * among the nouns clients say, two or more that are kinds of one thing (WordNet co-hyponyms within
 * VALUE_NOUN_DEPTH levels, the kind at least VALUE_NOUN_MIN_DEPTH deep on each value's chain, every value a made
 * thing under WordNet's `artifact` when the lexicon reaches WordNet's root), flat alternatives of
 * one level (no said noun is a kind of a value: "puppy" under "dog" is a wording of one animal, not another choice; two
 * values of one synset are spellings), the kind heaviest by the weight of its values, the nearer kind on a tie.
 * Returns the kind and its values (heaviest first), or null. Pure; words are looked up, never used as object keys.
 */
export function valueNounKind(lex: Lexicon, nouns: readonly SaidNoun[]): { readonly kind: string; readonly values: readonly string[] } | null {
  // One entry a word, its weights summed (a Map: words are outside strings).
  const summed = new Map<string, number>();
  for (const n of nouns) if (typeof n.word === 'string' && Number.isFinite(n.weight) && n.weight > 0) summed.set(n.word, (summed.get(n.word) ?? 0) + n.weight);
  const ns = [...summed].map(([word, weight]) => ({ word, weight })).sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1)).slice(0, MAX_VALUES);
  const chains = new Map<string, readonly string[]>();
  for (const n of ns) {
    const up = nounHypernyms(lex, n.word, VALUE_NOUN_DEPTH);
    if (up !== null && up.length > 0) chains.set(n.word, up);
  }
  const kinds: string[] = [];
  for (const up of chains.values()) for (const h of up) if (!kinds.includes(h)) kinds.push(h);
  let best: { kind: string; values: string[]; weight: number; at: number } | null = null;
  for (const kind of kinds) {
    const values = ns.filter((n) => n.word !== kind && chains.get(n.word)?.includes(kind) === true).map((n) => n.word);
    if (values.length < 2) continue;
    // Flat: no said noun is a kind of a value ("puppy" beside "dog": kinds at several levels are wordings of one
    // need, not alternatives), no two values one synset.
    if (values.some((v) => ns.some((o) => o.word !== v && ((chains.get(o.word) ?? []).includes(v) || (values.includes(o.word) && lex.synonyms(v, 'n').includes(o.word)))))) continue;
    // A glossary without WordNet's root has no depth to measure (kindDepth): its kinds stand. In WordNet, a made thing
    // only (under `artifact`: an instrument, a vehicle): stuff (shampoo and soap are cleansing agents), weather (rain,
    // snow), animals, food and people said alone are what is asked for or reported, not one alternative of a kind.
    if (values.some((v) => {
      const chain = lex.hypernyms(v, 'n', CHAIN_DEPTH);
      return chain.includes('entity') && (!chain.includes(MADE_THING) || kindDepth(lex, v, kind) < VALUE_NOUN_MIN_DEPTH);
    })) continue;
    // One sense of the kind: its own parent lies on every value's chain ("vessel" the watercraft sits under craft, which
    // a bottle's chain never reaches: the container "vessel" is another synset of the same word).
    const parents = lex.hypernyms(kind, 'n', 1);
    if (parents.length > 0 && values.some((v) => !lex.hypernyms(v, 'n', CHAIN_DEPTH).some((h) => parents.includes(h)))) continue;
    const weight = ns.filter((n) => values.includes(n.word)).reduce((a, n) => a + n.weight, 0);
    const at = Math.min(...values.map((v) => (chains.get(v) ?? []).indexOf(kind)));
    if (best === null || weight > best.weight || (weight === best.weight && at < best.at)) best = { kind, values, weight, at };
  }
  return best === null ? null : { kind: best.kind, values: best.values };
}

/**
 * A choice-like key's words: its values (an enum) or its name's words less the kind affixes (a flag), the rest, and
 * the action or bound words its name carries (`removal`, `only`: SLOT_AFFIXES beyond the name affixes).
 */
function keyWords(k: KeyDefinition): { values: string[]; rest: string[]; action: string[] } {
  const all = typeof k.key_name === 'string' ? k.key_name.slice(0, 256).split('_').filter((w) => w !== '') : [];
  const name = all.filter((w) => !SLOT_AFFIXES.has(w));
  const action = all.filter((w) => SLOT_AFFIXES.has(w) && !NAME_AFFIXES.has(w));
  if (k.key_type === 'string' && Array.isArray(k.enum) && k.enum.length > 0) return { values: k.enum.slice(0, MAX_VALUES).filter((v): v is string => typeof v === 'string'), rest: name, action };
  return k.key_type === 'boolean' ? { values: name, rest: [], action } : { values: [], rest: name, action };
}

/** The name a choice of `kind` takes: `<head>_<kind's last word>`, or `<kind's last word>_type` (one rule for the inducer and the evolver). */
export function kindChoiceName(kind: string, head: string | null): string[] {
  const last = kind.split('_').pop() as string;
  return head !== null && head !== last ? [head, last] : [last, 'type'];
}


/** The choice two keys split by value make together: its name, its values and the head words, or null. */
export interface CoHyponymChoice {
  /** `<head>_<kind>` when the names share a head ("lip_color"), else `<kind>_type` ("car_type"). */
  readonly key_name: string;
  readonly values: readonly string[];
  readonly head_words: readonly string[];
}

/**
 * Whether two keys of one scenario and audience are one choice split by value (zhou §6.2.2 one key per intent), and
 * which: a value word of each (a flag's name word, an enum's value) is a co-hyponym of the other under one hypernym
 * (`sharedKind`: needs_taxi beside needs_limousine, both cars; car_type [taxi, limousine] beside needs_minivan), and
 * the words left of both names (the heads) are shared or absent. The choice is named by the shared head and the
 * kind's last word (a chromatic_color is a color), its values are both keys' values. Null: not one choice.
 */
export function coHyponymChoice(a: KeyDefinition, b: KeyDefinition, lex: Lexicon): CoHyponymChoice | null {
  const wa = keyWords(a);
  const wb = keyWords(b);
  // What is done with the thing is part of the need: red_eye_removal is no value of eye_color [blue, green].
  if (wa.action.some((w) => !wb.action.includes(w)) || wb.action.some((w) => !wa.action.includes(w))) return null;
  for (const x of wa.values) {
    for (const y of wb.values) {
      const kind = x === y ? null : sharedKind(lex, [x, y]);
      if (kind === null) continue;
      // A head is what the values modify: never another value (a co-hyponym) nor the kind itself ("color" in
      // eye_color [red] and background_color [gray] is the kind: eye and background are the heads, and differ).
      const kinds = new Set([...lex.hypernyms(x, 'n', COHYPONYM_DEPTH + 1), ...lex.hypernyms(y, 'n', COHYPONYM_DEPTH + 1)].flatMap((h) => [h, h.split('_').pop() as string]));
      const heads = (ws: readonly string[]): string[] => ws.filter((w) => w !== x && w !== y && !kinds.has(w) && sharedKind(lex, [w, x]) === null && sharedKind(lex, [w, y]) === null);
      const ha = heads([...wa.rest, ...wa.values]);
      const hb = heads([...wb.rest, ...wb.values]);
      const shared = ha.filter((w) => hb.includes(w));
      if (!((ha.length === 0 && hb.length === 0) || shared.length > 0)) continue;
      const values = [...new Set([...(a.key_type === 'boolean' ? [x] : wa.values), ...(b.key_type === 'boolean' ? [y] : wb.values)])];
      const head = shared[0];
      return { key_name: kindChoiceName(kind, head ?? null).join('_'), values, head_words: head !== undefined ? [head] : [] };
    }
  }
  return null;
}

/** Whether two keys are one choice split by value (`coHyponymChoice` is not null). */
export function coHyponymKeys(a: KeyDefinition, b: KeyDefinition, lex: Lexicon): boolean {
  return coHyponymChoice(a, b, lex) !== null;
}
