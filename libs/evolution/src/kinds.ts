/**
 * Word checks for naming keys and choosing values on streams the rule inducer
 * was not tuned for (zhou §6.2.2 intent induction, §7 closed vocabulary).
 *
 * With a real lexicon (WordNet through libs/embeddings) a key's name words and
 * its enum values must be English words the lexicon knows, written in ASCII:
 * a foreign-language leftover ("auch", "diagnóstico") or a misspelling nobody
 * mended ("priorty") names nothing another client's LLM could read. Without a
 * lexicon (`BASIC_LEXICON`) nothing can be told apart and every word passes.
 */
import { BASIC_LEXICON, editDistance, knownWord, type LexPos, type Lexicon } from './lexicon';

const ASCII_WORD = /^[a-z][a-z0-9]*$/;
const POSES: readonly LexPos[] = ['n', 'v', 'a', 'r'];

/** Whether `w` may be a name word or an enum value: ASCII and, with a lexicon, a word it knows (or `extra` vouches for). */
export function readableWord(lex: Lexicon, w: string, extra: (w: string) => boolean = () => false): boolean {
  if (!ASCII_WORD.test(w)) return false;
  if (lex === BASIC_LEXICON) return true;
  return knownWord(lex, w) || extra(w);
}

/**
 * Whether the lexicon knows `w` only as an inflection of another word
 * (Morphy reads "offest" as off + -est): such a word beside a base form one
 * edit away in the same cluster ("offset") is a misspelling of that base form.
 */
export function inflectionOnly(lex: Lexicon, w: string): boolean {
  if (lex === BASIC_LEXICON || !knownWord(lex, w)) return false;
  return POSES.every((p) => {
    const l = lex.lemma(w, p);
    return l === null || l !== w;
  });
}

/** A base-form word of `vocabulary` one edit (transposition included) from an inflection-only `w`, most used first (ties by the word: order-free); null when none. */
export function misspeltInflection(lex: Lexicon, w: string, vocabulary: ReadonlyMap<string, number>): string | null {
  if (w.length < 5 || !inflectionOnly(lex, w)) return null;
  let best: { w: string; n: number } | null = null;
  for (const [cand, n] of vocabulary) {
    if (cand === w || cand.length < w.length || !knownWord(lex, cand) || inflectionOnly(lex, cand)) continue;
    if (editDistance(w, cand, 1) <= 1 && (best === null || n > best.n || (n === best.n && cand < best.w))) best = { w: cand, n };
  }
  return best?.w ?? null;
}

interface SlotFragment {
  readonly toks: readonly { readonly kind: string; readonly v: string }[];
  readonly voters: ReadonlyMap<string, number>;
}

/**
 * The values that are alternatives of one slot: of the candidate modifiers,
 * those standing on the side of the head (before or after it) where most of
 * the candidates' fragment mass stands. Values a substitution slot proved
 * (`proven`) always stay. With no majority side (a tie) only the proven
 * values stay: two modifiers that never share a position are two phrasings
 * of one yes/no need, not a choice (zhou §6.2.2 "key_type" from evidence).
 * A noun after the head is the head of its own phrase ("colour film"), so
 * it is never a value unless proven.
 */
export function sameSlot(
  values: readonly string[],
  head: string,
  fragments: readonly SlotFragment[],
  proven: ReadonlySet<string>,
  mass: (ps: readonly SlotFragment[]) => number,
  isNoun: (w: string) => boolean = () => false,
): string[] {
  const side = new Map<string, { before: number; after: number }>();
  for (const v of values) {
    const s = { before: 0, after: 0 };
    for (const p of fragments) {
      const seq = p.toks.filter((t) => t.kind === 'word').map((t) => t.v);
      const hi = seq.indexOf(head);
      const vi = seq.indexOf(v);
      if (hi < 0 || vi < 0) continue;
      if (vi < hi) s.before += mass([p]);
      else s.after += mass([p]);
    }
    side.set(v, s);
  }
  let before = 0;
  let after = 0;
  for (const s of side.values()) {
    if (s.before > s.after) before += s.before;
    else if (s.after > s.before) after += s.after;
  }
  const keep = before > after ? 'before' : after > before ? 'after' : null;
  return values.filter((v) => {
    if (proven.has(v)) return true;
    const s = side.get(v) as { before: number; after: number };
    if (s.before === 0 && s.after === 0) return true;
    // English modifiers precede their noun: a noun after the head heads its own phrase ("colour film"), it is no value.
    if (isNoun(v) && s.after > s.before) return false;
    return keep === 'before' ? s.before > s.after : keep === 'after' ? s.after > s.before : false;
  });
}

/**
 * Whether a fragment is in another language than the lexicon's: a word
 * written with letters outside ASCII ("diagnóstico", "später", "星空"), or
 * fewer than half its tokens English (`english`: filler, numbers, words the
 * lexicon knows). Its words still count as evidence of the need and of the
 * type; they never name a key or become a value (zhou §7: other clients'
 * LLMs read the name and the values).
 */
export function foreignFragment(tokens: readonly string[], english: (t: string) => boolean): boolean {
  if (tokens.length === 0) return false;
  if (tokens.some((t) => /\p{L}/u.test(t) && /[^\x00-\x7f]/.test(t))) return true;
  return tokens.filter(english).length * 2 < tokens.length;
}

/** Share of the head's fragment mass a neighbour needs to name a yes/no key with the head (`phraseCompound`). */
export const YES_NO_COMPOUND_SHARE = 0.4;

/**
 * The words of the phrase a yes/no need is said in most: the head and the
 * neighbour (right before or right after it) heard most often beside it,
 * when that neighbour stands there in at least `YES_NO_COMPOUND_SHARE` of
 * the head's fragment mass and from `needClients` distinct clients ("make it
 * carbon neutral" → carbon_neutral, rather than needs_carbon). Null when no
 * neighbour qualifies. `before` and `after` hold readable adjectives only
 * (induce.ts): a noun or verb beside the head ("book wheelchair", "colour
 * film") is another phrase, not the need's name.
 */
export function phraseCompound<P>(
  head: string,
  before: ReadonlyMap<string, readonly P[]>,
  after: ReadonlyMap<string, readonly P[]>,
  headMass: number,
  needClients: number,
  mass: (ps: readonly P[]) => number,
  clients: (ps: readonly P[]) => number,
): string[] | null {
  let best: { words: string[]; m: number } | null = null;
  for (const [side, m] of [['before', before], ['after', after]] as const) {
    for (const [w, ps] of m) {
      const ms = mass(ps);
      if (ms < YES_NO_COMPOUND_SHARE * headMass || clients(ps) < needClients) continue;
      const words = side === 'before' ? [w, head] : [head, w];
      if (best === null || ms > best.m || (ms === best.m && words.join('_') < best.words.join('_'))) best = { words, m: ms };
    }
  }
  return best?.words ?? null;
}

/**
 * The noun a count counts: in each fragment, the first noun after its number
 * with only modifiers between ("3,100 active alarms" → alarm), the one most
 * fragments name (ties by the word); null when no fragment has one. English
 * states a quantity before its noun, so a noun before the number ("alarm
 * storm 540") is not counted.
 */
export function countedNoun<P>(
  fragments: readonly { readonly p: P; readonly seq: readonly { readonly kind: string; readonly v: string; readonly raw?: string; readonly n?: number; readonly i?: number }[] }[],
  isNoun: (w: string) => boolean,
  isModifier: (w: string) => boolean,
  agreesWithNumeral: (w: string, raw: string | undefined, one: boolean) => boolean = () => false,
): string | null {
  const votes = new Map<string, number>();
  for (const { seq } of fragments) {
    const at = seq.findIndex((t) => t.kind === 'number');
    if (at < 0) continue;
    for (let k = at + 1; k < seq.length; k++) {
      const t = seq[k] as { kind: string; v: string; raw?: string; i?: number };
      // Right after a cardinal a noun that agrees with it is the counted noun even when it is mostly a verb ("two
      // stops", "3 hops", "one stop"): after "one" the noun's own form, after any other number its plural. A word
      // inflected as a verb ("stolen", "printed"), an adjective ("spare", "double") or an uninflected word after
      // another number ("we 2 travel") does not agree: it modifies the noun that follows, or is no count at all.
      // After "one" a noun right behind the word is the head ("one stop flight" counts flights).
      if (t.kind === 'word' && k === at + 1 && !isNoun(t.v) && agreesWithNumeral(t.v, t.raw, (seq[at] as { n?: number }).n === 1)) {
        const next = seq[k + 1];
        const head = (seq[at] as { n?: number }).n === 1 && next !== undefined && next.kind === 'word' && t.i !== undefined && next.i === t.i + 1 && isNoun(next.v) ? next.v : t.v;
        votes.set(head, (votes.get(head) ?? 0) + 1);
        break;
      }
      if (t.kind === 'word' && isNoun(t.v)) {
        votes.set(t.v, (votes.get(t.v) ?? 0) + 1);
        break;
      }
      if (t.kind !== 'word' || !isModifier(t.v)) break;
    }
  }
  const best = [...votes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return best ? best[0] : null;
}

/**
 * Alternatives of one slot read off noun phrases (zhou §6.2.2 values): the words standing right before one noun
 * ("glossy paper", "satin paper", "matte paper") from at least `needClients` clients each, kept when their
 * clients are mostly distinct (a client says one of them, not several: alternatives, not phrasings of one need).
 * `sameValue(a, b)` tells two words of one value (one a kind of the other): their shared clients count as no overlap.
 * Returns the modifiers of every noun with at least two such modifiers, and those nouns (the phrases' heads).
 */
export function paradigmModifiers(
  fragments: readonly { readonly voters: ReadonlyMap<string, number>; readonly seq: readonly { readonly v: string; readonly i: number }[] }[],
  isNoun: (w: string) => boolean,
  canModify: (w: string) => boolean,
  needClients: number,
  maxOverlap: number,
  sameValue: (a: string, b: string) => boolean = () => false,
): { readonly modifiers: Set<string>; readonly heads: Set<string> } {
  const byNoun = new Map<string, Map<string, Set<string>>>();
  for (const f of fragments) {
    for (let k = 0; k + 1 < f.seq.length; k++) {
      const a = f.seq[k] as { v: string; i: number };
      const b = f.seq[k + 1] as { v: string; i: number };
      if (b.i !== a.i + 1 || a.v === b.v || !isNoun(b.v) || !canModify(a.v)) continue;
      const mods = byNoun.get(b.v) ?? new Map<string, Set<string>>();
      const cs = mods.get(a.v) ?? new Set<string>();
      for (const v of f.voters.keys()) cs.add(v);
      mods.set(a.v, cs);
      byNoun.set(b.v, mods);
    }
  }
  const out = new Set<string>();
  const heads = new Set<string>();
  for (const [noun, mods] of byNoun) {
    const strong = [...mods].filter(([, cs]) => cs.size >= Math.max(2, needClients));
    if (strong.length < 2) continue;
    const kept = strong.filter(([w, cs]) => {
      const others = new Set<string>();
      // A client saying one value in two words ("aluminium frame", "metal frame": aluminium is a metal) says one value.
      for (const [o, ocs] of strong) if (o !== w && !sameValue(w, o)) for (const c of ocs) others.add(c);
      let shared = 0;
      for (const c of cs) if (others.has(c)) shared++;
      return shared <= maxOverlap * cs.size;
    });
    if (kept.length < 2) continue;
    heads.add(noun);
    for (const [w] of kept) out.add(w);
  }
  for (const h of heads) out.delete(h);
  return { modifiers: out, heads };
}

/**
 * Spelling variants among values folded into one (zhou §6.2.2 canonical values): values within Damerau edit
 * distance 1 of each other ("matt"/"matte", "luster"/"lustre"), four letters or longer, become the variant said by
 * the most clients. Returns canonical value → its variants (itself included), in the order of `values`.
 */
export function foldVariants(
  values: readonly string[],
  clients: (w: string) => number,
  distance: (a: string, b: string, max: number) => number,
  /** Whether two words one edit apart may be one value: two different known words ("gold" / "bold") are not. */
  variants: (a: string, b: string) => boolean = () => true,
): Map<string, string[]> {
  const order = [...values].sort((a, b) => clients(b) - clients(a) || (a < b ? -1 : a > b ? 1 : 0));
  const canon = new Map<string, string>();
  for (const v of order) {
    const to = v.length >= 4 ? order.find((c) => canon.get(c) === c && c.length >= 4 && distance(v, c, 1) <= 1 && variants(v, c)) : undefined;
    canon.set(v, to ?? v);
  }
  const out = new Map<string, string[]>();
  for (const v of values) {
    const c = canon.get(v) as string;
    out.set(c, [...(out.get(c) ?? []), v]);
  }
  return out;
}
