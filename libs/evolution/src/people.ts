/**
 * Person names in fragments (draft-zhou §7: personal data never reaches a shared key). One filter for the whole
 * inducer: a raw word this finds is dropped before any value, name word or description is read from the fragment.
 */
import type { Lexicon } from './lexicon';

/** Titles before a person's name (a closed class: "Mr Schmidt", "Dr. Lee"); the titles are no values either. */
export const TITLES: ReadonlySet<string> = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'madam', 'herr', 'frau', 'mme', 'mlle', 'monsieur', 'madame', 'senor', 'senora', 'sr', 'sra']);

/** Verbs whose object is a person (a closed class of addressing: "ask", "call", "send", "contact"). */
const ADDRESS_VERBS: ReadonlySet<string> = new Set(['ask', 'call', 'send', 'tell', 'contact', 'email', 'phone', 'text', 'ring', 'notify', 'meet', 'thank', 'assign']);

/** Prepositions whose object may be a person ("pickup by peter", "seat next to maria", "meeting with anna"). */
const PERSON_PREPOSITIONS: ReadonlySet<string> = new Set(['by', 'with', 'to', 'for']);

/** Copulas: "the engineer should be peter", "driver is maria". */
const COPULAS: ReadonlySet<string> = new Set(['be', 'is', 'was', 'are', 'will', 'should', 'would', 'can', 'must']);

/** The copulas that end a link ("should be", "is"). */
const BE: ReadonlySet<string> = new Set(['be', 'is', 'was', 'are']);

/** Articles and possessives: what a name never follows. */
const DETERMINERS: ReadonlySet<string> = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'his', 'her', 'their', 'this', 'that', 'these', 'those', 'each', 'every', 'some', 'any']);

const CONJUNCTIONS: ReadonlySet<string> = new Set(['and', 'or', '&']);

/**
 * Raw words the fragments show to be a person's name, lowercase as in the raw tokens: a title (a trailing full
 * stop ignored) and the word after it; the object of a verb of addressing; a word after a noun for a person
 * ("engineer peter", WordNet's person hypernym), after such a noun and a copula ("the driver should be peter"),
 * or before it with "the" ("maria the engineer"); after by/with/to a word WordNet does not know (after "for" as
 * well), or knows only as a noun for a person ("by peter"). A word joined by and/or to a name is a name, and so is
 * a word in the place a name has in a fragment with the same two words before it ("pickup by peter", "pickup by
 * maria"): the alternatives of one slot are of one class.
 */
export function personNames(rawOf: ReadonlyMap<string, readonly string[]>, lex: Lexicon, stop: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  const person = new Map<string, boolean>();
  const isPerson = (w: string): boolean => {
    let hit = person.get(w);
    if (hit === undefined) {
      hit = /^\p{L}+$/u.test(w) && lex.pos(w).n > 0 && lex.hypernyms(w, 'n', 8).some((h) => h === 'person' || h === 'causal_agent');
      person.set(w, hit);
    }
    return hit;
  };
  const unknown = (w: string): boolean => {
    if (!/^\p{L}{3,}$/u.test(w) || stop.has(w)) return false;
    const p = lex.pos(w);
    const base = w.endsWith('s') ? lex.pos(w.slice(0, -1)) : p;
    return p.n + p.v + p.a + p.r === 0 && base.n + base.v + base.a + base.r === 0;
  };
  const nameLike = (w: string): boolean => unknown(w) || isPerson(w) || lex.hypernyms(w, 'n', 8).some((h) => h === 'location' || h === 'region');
  const texts = [...rawOf.values()].slice(0, 4096);
  // A name takes no article or possessive: a word the cluster says after one ("the child", "my wife") is a noun.
  const determined = new Set<string>();
  for (const raw of texts) for (let k = 1; k < raw.length && k < 512; k++) if (DETERMINERS.has(raw[k - 1] as string)) determined.add(raw[k] as string);
  // Names WordNet knows are people with one or two senses ("peter", "schmidt"); "child", "student" have more.
  const personOnly = (w: string): boolean => isPerson(w) && lex.pos(w).v === 0 && lex.pos(w).n <= 2 && !stop.has(w);
  const add = (o: string | undefined): void => {
    if (o !== undefined && /^\p{L}/u.test(o) && !stop.has(o) && !determined.has(o)) out.add(o);
  };
  for (const raw of texts) {
    for (let k = 0; k < raw.length && k < 512; k++) {
      const w = raw[k] as string;
      if (TITLES.has(w.replace(/\.$/, ''))) {
        out.add(w);
        const o = raw[k + 1];
        if (o !== undefined && /^\p{L}/u.test(o) && !stop.has(o)) out.add(o);
        continue;
      }
      if (ADDRESS_VERBS.has(w)) add(raw[k + 1] === 'for' ? raw[k + 2] : raw[k + 1]);
      if (PERSON_PREPOSITIONS.has(w)) {
        const o = raw[k + 1];
        if (o !== undefined && (unknown(o) || (w !== 'for' && personOnly(o)))) add(o);
      }
      // A person noun that is also an adjective ("extra", "senior") may be modifying what follows ("extra
      // legroom"): no name by position after it.
      if (!isPerson(w) || lex.pos(w).a > 0) continue;
      // After the noun ("engineer peter"), after it and a copula ("the engineer should be peter"), or before it with
      // "the" ("maria the engineer"); a word right before it modifies it ("a Brother printer"), and is no name for that.
      let j = k + 1;
      while (j < raw.length && j < k + 4 && COPULAS.has(raw[j] as string)) j++;
      const after = raw[j];
      const linked = j === k + 1 || BE.has(raw[j - 1] as string);
      // A person noun right after one is a compound ("customer engineer"); after a copula it is the name said.
      // Right after the noun only a word WordNet does not know, or knows as names are known (a person, a place), is a
      // name: "a vegan meal", "child seat" are a noun and what it modifies.
      if (after !== undefined && linked && (j > k + 1 || (!isPerson(after) && nameLike(after))) && !isCommon(lex, after)) add(after);
      if (raw[k - 1] === 'the') add(raw[k - 2]);
    }
  }
  if (out.size === 0) return out;
  // Names joined by and/or, and names in one slot of one frame.
  const frames = new Set<string>();
  for (const raw of texts) for (let k = 2; k < raw.length && k < 512; k++) if (out.has(raw[k] as string)) frames.add(`${raw[k - 2] as string} ${raw[k - 1] as string}`);
  for (let pass = 0; pass < 2; pass++) {
    for (const raw of texts) {
      for (let k = 0; k < raw.length && k < 512; k++) {
        const w = raw[k] as string;
        if (CONJUNCTIONS.has(w) && k > 0 && k + 1 < raw.length) {
          const a = raw[k - 1] as string;
          const b = raw[k + 1] as string;
          if (out.has(a) && !isCommon(lex, b)) add(b);
          if (out.has(b) && !isCommon(lex, a)) add(a);
        }
        if (k >= 2 && frames.has(`${raw[k - 2] as string} ${raw[k - 1] as string}`) && !isCommon(lex, w)) add(w);
      }
    }
  }
  return out;
}

/** A word WordNet knows as a verb, an adjective or an adverb, or as a noun with many senses: no name by position alone. */
function isCommon(lex: Lexicon, w: string): boolean {
  const p = lex.pos(w);
  return p.v > 0 || p.r > 0 || p.n > 2 || (p.a > 0 && p.n === 0);
}
