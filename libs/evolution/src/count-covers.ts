/**
 * A count covers the yes/no need of the thing it counts (draft-zhou §6.2.2 one key per intent, types from evidence):
 * clients who say "with a baby" and clients who say "two infants" ask one thing, how many, and "needs a baby" is a
 * count of at least one. When the embedder splits them, the flag fires first on the fragments without a number and
 * the count later on those with one; the count is the better key. Read from the two key names only: the counted noun
 * (`<noun>_count`) and the flag's one content word (the name less `needs`, `wants`, `has`, `with`, wherever they
 * stand) are one concept when they are the same noun lemma, members of each other's first noun synset (baby /
 * infant: mutual membership, so photo / exposure, whose first synsets differ, is no pair), or one is the other's
 * direct WordNet hypernym in its first sense (puppy / dog). Co-hyponyms (cat / dog, tea / coffee, wife / husband)
 * are different things, and word vectors are not read: GloVe puts co-hyponyms side by side. A noun that is one of
 * the words of the scenario's id (photo in photo_retouch) is what every client of it talks about and names no
 * need of its own. Pure; words are looked up, never used as object keys.
 */
import type { KeyDefinition } from '@parley/protocol';
import type { Lexicon } from './lexicon';

/** Name words that say what kind of flag it is, not what it is about. */
const FLAG_AFFIXES: ReadonlySet<string> = new Set(['needs', 'wants', 'has', 'with']);
/** Longest key name read (key names are at most 64 characters; this bounds hostile input). */
const MAX_NAME = 128;

function words(k: KeyDefinition): string[] {
  return typeof k.key_name === 'string' ? k.key_name.slice(0, MAX_NAME).split('_').filter((w) => w !== '') : [];
}

/** The noun a count key counts (`infant_count` → infant; `lap_infant_count` → infant), or null. */
function countedOf(k: KeyDefinition): string | null {
  if (k.key_type !== 'integer') return null;
  const ws = words(k);
  if (ws.length < 2 || ws[ws.length - 1] !== 'count') return null;
  return ws[ws.length - 2] as string;
}

/** The noun a yes/no key is about (`needs_baby` → baby, `pet` → pet), or null: one content word only. */
function flagNoun(k: KeyDefinition): string | null {
  if (k.key_type !== 'boolean' || (Array.isArray(k.enum) && k.enum.length > 0)) return null;
  const ws = words(k).filter((w) => !FLAG_AFFIXES.has(w));
  return ws.length === 1 ? (ws[0] as string) : null;
}

/** The noun lemma of a name word, or null when WordNet has no noun sense for it. */
function nounLemma(lex: Lexicon, w: string): string | null {
  if (lex.pos(w).n === 0) return null;
  return lex.lemma(w, 'n') ?? w;
}

/** The noun lemmas of a scenario id's words (`photo_retouch` → photo, retouch): its own subject, no need. */
function scenarioNouns(scenario: string, lex: Lexicon): Set<string> {
  const out = new Set<string>();
  if (typeof scenario !== 'string') return out;
  for (const w of scenario.slice(0, MAX_NAME).toLowerCase().split(/[^a-z]+/).slice(0, 8)) {
    const l = w === '' ? null : nounLemma(lex, w);
    if (l !== null) out.add(l);
  }
  return out;
}

/** Whether `count` (an integer `<noun>_count`) counts what the flag `flag` is about: one need, the count the better key. */
export function countCoversFlag(count: KeyDefinition, flag: KeyDefinition, lex: Lexicon, scenario = ''): boolean {
  const a = countedOf(count);
  const b = flagNoun(flag);
  if (a === null || b === null) return false;
  const la = nounLemma(lex, a) ?? a;
  const lb = nounLemma(lex, b) ?? b;
  const own = scenarioNouns(scenario, lex);
  if (own.has(la) || own.has(lb)) return false;
  if (la === lb) return true;
  if (lex.pos(la).n === 0 || lex.pos(lb).n === 0) return false;
  if (lex.synonyms(la, 'n').includes(lb) && lex.synonyms(lb, 'n').includes(la)) return true;
  return lex.hypernyms(la, 'n', 1).includes(lb) || lex.hypernyms(lb, 'n', 1).includes(la);
}
