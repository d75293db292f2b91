/**
 * The concept a cluster's clients share (draft-zhou §6.2.1 "each cluster represents a distinct, recurring semantic
 * intent"): the noun most of its clients say, read through the lexicon so that synonyms are one concept ("baby" and
 * "infant" are one WordNet synset) and, with word vectors, close GloVe neighbours too. The pool uses it to join
 * paraphrases of one need that the embedder put in separate clusters, each under the heat gate (online
 * agglomeration by concept, libs/pool): two clusters of one pool with the same concept and centroids not far apart
 * are one cluster, so they cross the gate together and make one key.
 *
 * Only nouns count (content nouns over verbs and function words): a need is named by what it is about, and
 * the verbs clients use ("fix", "remove", "keep") are shared by many needs. A concept is a cluster's only when at
 * least two distinct clients say it and at least half of its clients do, so one client (a burst, a flood, a
 * personal need) never carries a concept, and a few one-off texts sharing a word do not either. Pure: the same
 * samples and lexicon give the same concept. Dictionaries keyed by fragment words are Maps (zhou §7).
 */
import { contentWords } from './induce';
import type { Lexicon } from './lexicon';

/** What `clusterConcept` reads of a sample: its sanitised text and the voices behind it. */
export interface ConceptSample {
  readonly text: string;
  /** Distinct clients (global pool) or fragments behind the text. */
  readonly count: number;
  /** Per-cluster client pseudonyms, when known: the voices are these. */
  readonly clients?: readonly string[];
}

export interface ClusterConcept {
  /** The concept's id: the first member, in code-point order, of the noun's most frequent synset. */
  readonly id: string;
  /** The noun (lemma) most of the concept's voices said, for GloVe relatedness. */
  readonly word: string;
  /** Distinct voices that said a noun of the concept. */
  readonly voices: number;
  /** Distinct voices over the cluster's samples. */
  readonly total: number;
}

/** Share of a cluster's voices that must say the concept. */
export const CONCEPT_SHARE = 0.5;
/** Voices that must say it at least. */
export const CONCEPT_MIN_VOICES = 2;
/**
 * GloVe cosine at which two nouns are one concept: stricter than the inducer's related nouns (0.65, induce.ts),
 * since a concept here joins whole clusters, and units of one dimension (hour, minute) sit just above 0.65.
 */
export const CONCEPT_RELATED = 0.7;
/** Longest text read per sample (samples are bounded already; this bounds hostile input here too). */
const MAX_TEXT = 2048;
/** Most anonymous voices one sample counts for (a sample's `count` is outside data). */
const MAX_ANON = 1_000_000_000;

/** The noun concept of a word, or null when the lexicon does not read it mainly as a noun. */
export function nounConcept(lex: Lexicon, word: string): { id: string; lemma: string } | null {
  if (word.length < 3 || word.length > 32 || !/^[a-z]+$/.test(word)) return null;
  const p = lex.pos(word);
  if (p.n === 0 || p.n < p.v || p.n < p.a || p.n < p.r) return null;
  const lemma = lex.lemma(word, 'n') ?? word;
  const syn = lex.synonyms(lemma, 'n').filter((w) => /^[a-z_]+$/.test(w));
  const id = syn.length > 0 ? [...syn].sort()[0] as string : lemma;
  return { id, lemma };
}

/**
 * The concepts of a scenario's own name ("photo_retouch": photo, retouch): every need of the scenario is about them,
 * so they tell no two needs apart and never join clusters.
 */
export function scenarioConcepts(scenario: string, lex: Lexicon): Set<string> {
  const out = new Set<string>();
  for (const w of scenario.toLowerCase().split(/[^a-z]+/).slice(0, 8)) {
    const c = nounConcept(lex, w);
    if (c !== null) out.add(c.id);
  }
  return out;
}

/** Voices behind a word: named clients (a set, so one client counts once) and anonymous ones (counted). */
interface Voices {
  readonly named: Set<string>;
  anon: number;
}

/**
 * The voices of one sample: its clients when labelled, else `count` anonymous voices (at least one). Anonymous voices
 * are a number, never one entry each: a hostile count (1e7, 1e12, MAX_SAFE_INTEGER) costs nothing and throws nothing.
 */
function voicesOfSample(s: ConceptSample): { named: readonly string[]; anon: number } {
  if (Array.isArray(s.clients) && s.clients.length > 0) return { named: s.clients.map((c) => String(c)), anon: 0 };
  const n = typeof s.count === 'number' && Number.isInteger(s.count) && s.count > 1 ? Math.min(s.count, MAX_ANON) : 1;
  return { named: [], anon: n };
}

const size = (v: Voices): number => v.named.size + v.anon;

/** The concept at least half of a cluster's voices (and two) say, or null; concepts in `exclude` are not read. */
export function clusterConcept(samples: readonly ConceptSample[], lex: Lexicon, exclude: ReadonlySet<string> = new Set()): ClusterConcept | null {
  const voicesOf = new Map<string, Voices>();
  const lemmaVotes = new Map<string, Map<string, number>>();
  const everyone: Voices = { named: new Set<string>(), anon: 0 };
  for (const s of samples) {
    if (s === null || typeof s !== 'object' || typeof s.text !== 'string') continue;
    const who = voicesOfSample(s);
    for (const w of who.named) everyone.named.add(w);
    everyone.anon += who.anon;
    const seen = new Set<string>();
    for (const word of contentWords(s.text.slice(0, MAX_TEXT)).words) {
      const c = nounConcept(lex, word);
      if (c === null || seen.has(c.id) || exclude.has(c.id)) continue;
      seen.add(c.id);
      const v = voicesOf.get(c.id) ?? { named: new Set<string>(), anon: 0 };
      for (const w of who.named) v.named.add(w);
      v.anon += who.anon;
      voicesOf.set(c.id, v);
      const votes = lemmaVotes.get(c.id) ?? new Map<string, number>();
      votes.set(c.lemma, (votes.get(c.lemma) ?? 0) + who.named.length + who.anon);
      lemmaVotes.set(c.id, votes);
    }
  }
  let best: ClusterConcept | null = null;
  for (const [id, v] of voicesOf) {
    const n = size(v);
    if (best !== null && (n < best.voices || (n === best.voices && id >= best.id))) continue;
    const votes = [...(lemmaVotes.get(id) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    best = { id, word: votes[0]?.[0] ?? id, voices: n, total: size(everyone) };
  }
  if (best === null || best.voices < CONCEPT_MIN_VOICES || best.voices < CONCEPT_SHARE * best.total) return null;
  return best;
}

/** Whether two clusters' concepts are one: the same synset, or GloVe neighbours when the lexicon has vectors. */
export function sameConcept(a: ClusterConcept | null, b: ClusterConcept | null, lex: Lexicon): boolean {
  if (a === null || b === null) return false;
  if (a.id === b.id) return true;
  const r = lex.related?.(a.word, b.word) ?? null;
  return r !== null && r >= CONCEPT_RELATED;
}
