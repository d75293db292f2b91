/**
 * A number that names a place in a series or the value of a property, not how many there are (draft-zhou §6.2.2,
 * names from concepts; types from evidence). English says a quantity before its noun ("three floors", "two hops":
 * kinds.ts countedNoun) but a label after it ("floor 12", "gate 5", "level six", "age 11") and a position as an
 * ordinal before it ("the 3rd floor", "second floor"). Such a number is an integer named by its noun: by the noun
 * alone when WordNet files it as an attribute (age, level, height: the number is that property's value), else
 * `<noun>_number` (floor_number, gate_number). Pure: the lexicon is read through the predicates given.
 */

/** English ordinal words to twelfth: a closed class (larger ones are written in digits, "14th"). */
const ORDINAL_WORDS: ReadonlyMap<string, number> = new Map([
  ['first', 1], ['second', 2], ['third', 3], ['fourth', 4], ['fifth', 5], ['sixth', 6],
  ['seventh', 7], ['eighth', 8], ['ninth', 9], ['tenth', 10], ['eleventh', 11], ['twelfth', 12],
]);
/** A digit ordinal ("3rd", "12th", "21st"). */
const ORDINAL_DIGITS = /^(\d{1,3})(?:st|nd|rd|th)$/;

/** The value of an ordinal token, or null. */
export function ordinalValue(raw: string): number | null {
  const m = ORDINAL_DIGITS.exec(raw);
  if (m) return Number(m[1]);
  return ORDINAL_WORDS.get(raw) ?? null;
}

export interface PositionReading {
  /** The noun the number labels (its lemma). */
  readonly noun: string;
  readonly value: number;
  /** Said as an ordinal before the noun ("the 3rd floor"), not as a cardinal after it ("floor 12"). */
  readonly ordinal: boolean;
}

/** "first time", "second time": the ordinal multiplicative, an occasion, never a place in a series of times. */
const MULTIPLICATIVE_NOUN = 'time';

/**
 * The position a fragment states, read off its raw tokens (with the clause of each: a number never labels a noun of
 * another clause, "my boy, age 11, flies"): a noun right before a cardinal ("floor 12"), unless a noun the cardinal
 * counts follows it ("storm 540 alarms"), or an ordinal right before a noun ("3rd floor"). `noun` gives a word's noun
 * lemma when it can be such a noun, `cardinal` a cardinal's value. The first reading of the fragment; null when none.
 */
export function positionReading(
  raws: readonly string[],
  clause: readonly number[],
  cardinal: (raw: string) => number | null,
  noun: (raw: string) => string | null,
  counts: (raw: string) => boolean,
): PositionReading | null {
  const same = (a: number, b: number): boolean => (clause[a] ?? 0) === (clause[b] ?? 0);
  for (let k = 0; k + 1 < raws.length; k++) {
    const a = raws[k] as string;
    const b = raws[k + 1] as string;
    if (!same(k, k + 1)) continue;
    const ord = ordinalValue(a);
    if (ord !== null) {
      const n = noun(b);
      if (n !== null && n !== MULTIPLICATIVE_NOUN) return { noun: n, value: ord, ordinal: true };
      continue;
    }
    const v = cardinal(b);
    if (v === null) continue;
    const n = noun(a);
    const after = raws[k + 2];
    if (n !== null && !(after !== undefined && same(k + 1, k + 2) && counts(after))) return { noun: n, value: v, ordinal: false };
  }
  return null;
}

/** What the readings of a cluster name, when they are its evidence; null otherwise. */
export interface PositionKey<P> {
  readonly noun: string;
  readonly values: readonly [number, P][];
}

/**
 * The noun most readings label, when the fragments that read as positions carry `share` of the mass, that noun at
 * least half of theirs, from `enough` clients, with two values at least (a position is one of several: a cluster
 * that only says "first class" names no position). An ordinal before a noun reads as a position only when some
 * fragment also labels that noun with a cardinal after it ("floor 12" beside "the 3rd floor"): English fixes many
 * ordinal + noun pairs as one word ("first class", "second hand", "third party", "first choice"), and those never
 * take a cardinal label ("class 2" is no way to say a travel class). The values are the winning noun's only.
 */
export function positionKey<P>(
  readings: readonly { readonly p: P; readonly r: PositionReading | null }[],
  mass: (ps: readonly P[]) => number,
  share: number,
  enough: (ps: readonly P[]) => boolean,
): PositionKey<P> | null {
  const all = readings.map((x) => x.p);
  const labelled = new Set(readings.flatMap((x) => (x.r !== null && !x.r.ordinal ? [x.r.noun] : [])));
  const read = readings.filter((x): x is { p: P; r: PositionReading } => x.r !== null && (!x.r.ordinal || labelled.has(x.r.noun)));
  if (read.length === 0 || mass(read.map((x) => x.p)) < share * mass(all)) return null;
  const byNoun = new Map<string, { p: P; r: PositionReading }[]>();
  for (const x of read) byNoun.set(x.r.noun, [...(byNoun.get(x.r.noun) ?? []), x]);
  const best = [...byNoun].sort((a, b) => mass(b[1].map((x) => x.p)) - mass(a[1].map((x) => x.p)) || (a[0] < b[0] ? -1 : 1))[0];
  if (best === undefined) return null;
  const ps = best[1].map((x) => x.p);
  if (mass(ps) * 2 < mass(read.map((x) => x.p)) || !enough(ps)) return null;
  if (new Set(best[1].map((x) => x.r.value)).size < 2) return null;
  return { noun: best[0], values: best[1].map((x) => [x.r.value, x.p] as [number, P]) };
}
