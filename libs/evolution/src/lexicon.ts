/**
 * The lexicon port intent induction reads words through (zhou §6.2.2 "Use an
 * internal LLM or rule-based extractor"): parts of speech, lemmas, synonym
 * sets and hypernyms. libs/embeddings implements it over WordNet 3.1
 * (`createWordNetLexicon`); this library stays pure and falls back to
 * `BASIC_LEXICON`, which knows nothing (every word an unknown noun), when no
 * lexicon is given.
 *
 * Dictionaries keyed by outside words are Maps (fragment words are untrusted,
 * zhou §7): nothing here indexes a plain object with a fragment's word.
 */
export type LexPos = 'n' | 'v' | 'a' | 'r';

export interface Lexicon {
  /**
   * Evidence per part of speech for a word (any inflection): 0 when the word
   * is not in that part of speech, else 1 + its tagged-sense count (a rough
   * frequency). All zeros: an unknown word.
   */
  pos(word: string): Readonly<Record<LexPos, number>>;
  /** The word's base form in `pos` (Morphy), or null when it has none there. */
  lemma(word: string, pos: LexPos): string | null;
  /** The members of the word's most frequent synset in `pos` (lemmas, `_` for spaces); [] when unknown. */
  synonyms(word: string, pos: LexPos): readonly string[];
  /**
   * The first lemma of each hypernym of the word's most frequent sense, nearest first, up to `depth` levels. WordNet's
   * instance links (`@i`: paris is an instance of national_capital) are read as hypernyms too; `instance` tells them apart.
   */
  hypernyms(word: string, pos: LexPos, depth: number): readonly string[];
  /**
   * Optional: whether the word's most frequent sense in `pos` is an instance (a named place, person, company: WordNet
   * links it to its kind by an instance hypernym, `@i`) rather than a kind (taxi, monday, dog). False when unknown.
   * Lexicons without instance links leave it out.
   */
  instance?(word: string, pos: LexPos): boolean;
  /**
   * Optional distributional relatedness of two words in [-1, 1] (the cosine of their GloVe vectors in
   * libs/embeddings), or null when either word has no vector. Lexicons without word vectors leave it out.
   */
  related?(a: string, b: string): number | null;
  /**
   * Optional: the lemmas WordNet links by derivation (`+`) to the word's most frequent sense in `from`, in part of
   * speech `to`, and in lexicographer file `lexFile` when given (remove, noun.act → removal; whiten → whitener,
   * whitening), most frequent first. [] when unknown. Lexicons without derivational links leave it out.
   */
  derived?(word: string, from: LexPos, to: LexPos, lexFile?: string): readonly string[];
  /**
   * Optional: the lexicographer file of the word's most frequent sense in `pos` (WordNet lexnames: `noun.time`,
   * `noun.act`, `verb.change`), or null when unknown.
   */
  lexFile?(word: string, pos: LexPos): string | null;
}

const NONE: Readonly<Record<LexPos, number>> = Object.freeze({ n: 0, v: 0, a: 0, r: 0 });

/** A lexicon that knows no word: induction still works, on client counts and the tables of induce.ts alone. */
export const BASIC_LEXICON: Lexicon = Object.freeze({
  pos: () => NONE,
  lemma: () => null,
  synonyms: () => [],
  hypernyms: () => [],
});

/** Whether the lexicon knows the word in any part of speech. */
export function knownWord(lex: Lexicon, word: string): boolean {
  const p = lex.pos(word);
  return p.n + p.v + p.a + p.r > 0;
}

/**
 * Damerau–Levenshtein distance (optimal string alignment), bounded: returns
 * `max + 1` as soon as the distance must exceed `max`. For misspellings
 * ("vegeterian", "wheelchiar") against the words the cluster already knows.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = a.length;
  const m = b.length;
  let prev2: number[] = new Array<number>(m + 1).fill(0);
  let prev: number[] = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur: number[] = new Array<number>(m + 1).fill(0);
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prev2[j - 2] as number) + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[m] as number;
}

export interface TableEntry {
  readonly pos: LexPos;
  readonly synonyms?: readonly string[];
  readonly hypernyms?: readonly string[];
  /** The word is an instance of its hypernyms (a named place or person), not a kind of them. */
  readonly instance?: boolean;
  /** Words derived from this one (`derived`: whiten → whitening); each is returned for the part of speech its own entry has. */
  readonly derived?: readonly string[];
  /** Its lexicographer file (`noun.act`, `noun.time`, `verb.change`), as WordNet's lexnames. */
  readonly lexFile?: string;
}

/**
 * A lexicon from a small table (word → part of speech, synonyms, hypernyms):
 * for deployments that ship a domain glossary instead of WordNet, and for
 * tests of the induction rules. Words are looked up as given and with a
 * trailing plural "s" removed; the table is copied into a Map.
 */
export function createTableLexicon(table: Readonly<Record<string, TableEntry>>): Lexicon {
  const m = new Map<string, TableEntry>(Object.entries(table));
  const find = (w: string): [string, TableEntry] | undefined => {
    const e = m.get(w);
    if (e) return [w, e];
    const s = w.endsWith('s') ? w.slice(0, -1) : null;
    const f = s !== null ? m.get(s) : undefined;
    return f && s !== null ? [s, f] : undefined;
  };
  return {
    pos(word) {
      const e = find(word);
      return e ? { ...NONE, [e[1].pos]: 2 } : NONE;
    },
    lemma(word, pos) {
      const e = find(word);
      return e && e[1].pos === pos ? e[0] : null;
    },
    synonyms(word, pos) {
      const e = find(word);
      return e && e[1].pos === pos ? [e[0], ...(e[1].synonyms ?? [])] : [];
    },
    hypernyms(word, pos, depth) {
      const e = find(word);
      return e && e[1].pos === pos && depth > 0 ? [...(e[1].hypernyms ?? [])] : [];
    },
    instance(word, pos) {
      const e = find(word);
      return e !== undefined && e[1].pos === pos && e[1].instance === true;
    },
    derived(word, from, to, lexFile) {
      const e = find(word);
      const ok = (d: string) => (m.get(d)?.pos ?? 'n') === to && (lexFile === undefined || m.get(d)?.lexFile === lexFile);
      return e && e[1].pos === from ? (e[1].derived ?? []).filter(ok) : [];
    },
    lexFile(word, pos) {
      const e = find(word);
      return e && e[1].pos === pos ? (e[1].lexFile ?? null) : null;
    },
  };
}
