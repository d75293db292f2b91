/**
 * A count covers the yes/no need of the thing it counts (draft-zhou §6.2.2 one key per intent, types from evidence):
 * clients who say "with a baby" and clients who say "two infants" ask one thing, how many, and "needs a baby" is a
 * count of at least one. When the embedder splits them, the flag fires first on the fragments without a number and
 * the count later on those with one; the count is the better key. Read from the two key names only: the counted noun
 * (`<noun>_count`) and the flag's noun (`needs_<noun>`, `wants_<noun>`, a bare noun) are one concept when they are the
 * same noun, one WordNet synset (concept.ts nounConcept: baby / infant), or, with word vectors, GloVe neighbours at
 * CONCEPT_RELATED or above. Pure; words are looked up, never used as object keys.
 */
import type { KeyDefinition } from '@parley/protocol';
import { CONCEPT_RELATED, nounConcept } from './concept';
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

/** Whether `count` (an integer `<noun>_count`) counts what the flag `flag` is about: one need, the count the better key. */
export function countCoversFlag(count: KeyDefinition, flag: KeyDefinition, lex: Lexicon): boolean {
  const a = countedOf(count);
  const b = flagNoun(flag);
  if (a === null || b === null) return false;
  if (a === b) return true;
  const ca = nounConcept(lex, a);
  const cb = nounConcept(lex, b);
  if (ca === null || cb === null) return false;
  if (ca.id === cb.id || ca.lemma === cb.lemma) return true;
  const r = lex.related?.(ca.lemma, cb.lemma) ?? null;
  return r !== null && r >= CONCEPT_RELATED;
}
