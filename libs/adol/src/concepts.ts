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
}

export type LexPos = 'n' | 'v' | 'a' | 'r';

/** What `wordNetLexicon` needs of a WordNet reader. */
export interface WordNetLike {
  baseForms(word: string, pos: LexPos): string[];
  lookup(lemma: string, pos: LexPos): { readonly offsets: readonly number[] } | undefined;
  synset(pos: LexPos, offset: number): { readonly pointers: readonly { readonly symbol: string; readonly offset: number; readonly pos: LexPos }[] } | undefined;
}

export interface WordNetLexiconOptions {
  /** Senses per part of speech, most frequent first (default 3). */
  senses?: number;
  /** Also the direct hypernyms of those senses (default false: they join words too loosely). */
  hypernyms?: boolean;
}

/** A word WordNet can hold: lowercase letters, digits, hyphens, apostrophes; at most 40 characters. */
const LEXICON_WORD = /^[a-z][a-z0-9'-]{0,39}$/;
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
  };
}
