/**
 * A yes/no need said as an act on an object (draft-zhou §6.2.2, naming a candidate key): "remove the logo", "whiten
 * my teeth", "teeth whitening", "straighten the horizon". The need is the act, so it is named by the act and what it
 * is done to: `<object>_<act noun>` when WordNet links the verb's most frequent sense, a change, contact or creation,
 * to a noun of the act in noun.act, the verb's own noun included (remove → removal, whiten → whitening, press →
 * pressing, repair → repair; actNounOf), else `<verb>_<object>` for any other verb (straighten_horizon,
 * send_technician, cancel_order). The object is a noun the verb governs directly; a particle ("call me back") and a
 * noun of time ("sunday painting", "call back tomorrow") are never one. Needs said as possession ("I need a
 * wheelchair") are no act and keep `needs_<head>`.
 *
 * One act is one verb, or verbs of one sense family across clients: verbs that share their most frequent WordNet
 * synset (whiten / white), and the verbs of taking something away the inducer already knew as one family, named
 * `removal` (REMOVAL_VERBS and REMOVAL_PHRASE in induce.ts: remove, erase, delete, eliminate, hide, rid, retouch, and
 * also clean, clear, drop, cut, fix, reduce; get rid of, take … out).
 *
 * Pure: every word is read through the callbacks and the lexicon; outside words key Maps only.
 */
import type { LexPos, Lexicon } from './lexicon';

/** One word token of a fragment: its lemma, raw index, the cluster's reading of it, and its clause. */
export interface ActToken {
  readonly v: string;
  readonly i: number;
  readonly pos: LexPos | null;
  readonly clause: number;
  /**
   * The word stands where an imperative does: first in its clause, or after a word that leads a request ("please",
   * "can you", "I want to"), and not inflected ("whiter teeth", mended to "whiten", is). Not "we are going",
   * "make it feel", "I will pay".
   */
  readonly opens: boolean;
}

export interface ActFragment {
  readonly weight: number;
  readonly seq: readonly ActToken[];
  /** The fragment's raw tokens (lowercase), indexed by ActToken.i: what stands between a verb and its object. */
  readonly raws?: readonly string[];
  /** The fragment says a removal by a phrase or a removal verb anywhere (the removal family's own test). */
  readonly removal: boolean;
}

export interface ActWords {
  readonly lex: Lexicon;
  /** The removal family (remove, erase, hide, rid, …): named `removal`. */
  readonly isRemoval: (w: string) => boolean;
  /** A word that may be (part of) the object: a noun, or a noun modifier. */
  readonly isNoun: (w: string) => boolean;
  readonly isVerb: (w: string) => boolean;
  /** A readable adjective that may name the object beside it ("red eye"), never head it. */
  readonly isAdjective: (w: string) => boolean;
  /** The cluster's fragment mass saying the word anywhere: the object said most is the need's. */
  readonly said: (w: string) => number;
  /** A particle of a phrasal verb (a closed class: back, up, out, off, …): "call me back" does nothing to a back. */
  readonly isParticle?: (w: string) => boolean;
}

export interface ActReading {
  /** The verb said most of the family (a removal: `remove`). */
  readonly verb: string;
  /** The noun of the act (`removal`, `whitening`), or null when WordNet derives none. */
  readonly actNoun: string | null;
  /** The object's name words, head last (["power", "line"]), or [] when no object is said. */
  readonly object: readonly string[];
}

/** Share of the English fragment mass that must say a removal (as restrictions and removals were read: two fifths). */
const REMOVAL_SHARE = 0.4;
/**
 * Share that must say any other act: half, as for a choice (CHOICE_SHARE in induce.ts). Verbs beyond the removal family
 * are more often incidental to a need said otherwise ("make it carbon neutral" by 6 clients, "offset the carbon" by 5).
 */
const ACT_SHARE = 0.5;
/** Tokens read per fragment: a fragment is a sentence or two; a MiB of words is not read whole. */
const MAX_SEQ = 64;

/** Prepositions (a closed class): a noun after one is no direct object ("wait in the lounge", "pay by card"). */
const PREPOSITIONS: ReadonlySet<string> = new Set(['in', 'on', 'at', 'to', 'into', 'onto', 'for', 'with', 'by', 'from', 'of', 'about', 'off', 'out', 'through', 'over', 'under', 'before', 'after', 'during', 'via', 'like']);

/** Whether the token opens its clause as an imperative and no other word of the clause comes before it (acts.ts ActToken.opens). */
function opensClause(seq: readonly ActToken[], k: number): boolean {
  const t = seq[k] as ActToken;
  return t.opens && (k === 0 || (seq[k - 1] as ActToken).clause !== t.clause);
}

/**
 * Whether a preposition or a numeral stands between the verb at raw index `from` and the noun at `to`: the noun is no
 * direct object ("wait in the lounge"), or is counted ("show me 3 alternatives" asks for a number, not an act on one thing).
 */
function prepositional(f: ActFragment, from: number, to: number): boolean {
  for (let i = from + 1; i < to && i < from + 8; i++) {
    const raw = f.raws?.[i] ?? '';
    if (PREPOSITIONS.has(raw) || /^\d{1,6}$/.test(raw)) return true;
  }
  return false;
}

/** A noun whose most frequent sense WordNet files under time (lexnames noun.time: tomorrow, today, morning, week). */
function timeNoun(v: string, w: ActWords): boolean {
  return w.lex.lexFile?.(v, 'n') === 'noun.time';
}

/**
 * The noun run after the verb at `at` in its clause, an adjective right before it kept ("fix the red eyes" → red, eye);
 * a particle of the verb ("call me back", "call back tomorrow") and a noun of time are never in it.
 */
function runAfter(seq: readonly ActToken[], at: number, w: ActWords): string[] {
  const run: string[] = [];
  let adjective: ActToken | null = null;
  let last = -9;
  const clause = (seq[at] as ActToken).clause;
  for (let k = at + 1; k < seq.length; k++) {
    const t = seq[k] as ActToken;
    if (t.clause !== clause) break;
    // A noun of time ("call back tomorrow", "deliver it today") says when, not what the act is done to.
    if (timeNoun(t.v, w)) break;
    if (run.length === 0 && w.isParticle?.(t.v) === true) continue;
    if (w.isNoun(t.v) && (run.length === 0 || t.i === last + 1)) {
      if (run.length === 0 && adjective !== null && adjective.i === t.i - 1) run.push(adjective.v);
      run.push(t.v);
      last = t.i;
      continue;
    }
    if (run.length > 0 || w.isVerb(t.v)) break;
    adjective = w.isAdjective(t.v) ? t : null;
  }
  return run;
}

/** The direct object of the verb at `k`: its noun run, unless a preposition comes first ("wait in the lounge": none). */
function direct(f: ActFragment, seq: readonly ActToken[], k: number, w: ActWords): string[] {
  const run = runAfter(seq, k, w);
  if (run.length === 0) return run;
  const first = seq.slice(k + 1).find((t) => t.v === run[0]);
  return first !== undefined && prepositional(f, (seq[k] as ActToken).i, first.i) ? [] : run;
}

/** The noun run right before the act noun at `at` ("power line removal" → power, line). */
function runBefore(seq: readonly ActToken[], at: number, w: ActWords): string[] {
  const run: string[] = [];
  let next = (seq[at] as ActToken).i;
  for (let k = at - 1; k >= 0 && run.length < 3; k--) {
    const t = seq[k] as ActToken;
    // A noun of time says when ("sunday painting", "morning cleaning"), not what the act is done to.
    if (t.i !== next - 1 || !w.isNoun(t.v) || timeNoun(t.v, w)) break;
    run.unshift(t.v);
    next = t.i;
  }
  return run;
}

/** Determiners and possessives (a closed class): a word right before one governs what follows ("water the plants"). */
const DETERMINERS: ReadonlySet<string> = new Set(['the', 'a', 'an', 'my', 'our', 'your', 'his', 'her', 'their', 'its', 'this', 'that', 'these', 'those', 'all', 'every']);

/**
 * The verb a token may be as an imperative: a verb reading the cluster does not take for a noun, or a verb WordNet
 * knows right before a determiner, which a noun never stands before in a request ("water the plants": water governs
 * plants, though the cluster reads "water" as a noun).
 */
function imperativeVerb(f: ActFragment, t: ActToken, w: ActWords): boolean {
  if (w.lex.pos(t.v).v === 0) return false;
  return t.pos !== 'n' || DETERMINERS.has(f.raws?.[t.i + 1] ?? '');
}

/** The family of each verb: the removal family, else the first verb said whose most frequent synset holds it. */
function families(verbs: readonly string[], w: ActWords): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of verbs) {
    if (out.has(v)) continue;
    if (w.isRemoval(v)) {
      out.set(v, 'remove');
      continue;
    }
    const syn = w.lex.synonyms(v, 'v');
    const kin = [...out.keys()].find((o) => !w.isRemoval(o) && (syn.includes(o) || w.lex.synonyms(o, 'v').includes(v)));
    out.set(v, kin !== undefined ? (out.get(kin) as string) : v);
  }
  return out;
}

/**
 * Verbs whose most frequent sense WordNet files as a change, a contact or a creation (lexnames verb.change,
 * verb.contact, verb.creation): acts done to the object, which a noun of the act names (removal, whitening, pressing,
 * installation). Any other verb (motion, communication, possession, social, cognition, …: "send a technician",
 * "cancel my order") is named `<verb>_<object>`.
 */
const ACT_VERB_FILES: ReadonlySet<string> = new Set(['verb.change', 'verb.contact', 'verb.creation']);

/**
 * The noun of the act: a noun WordNet derives from the verb's most frequent sense, filed in noun.act, the verb's own
 * noun included, the most frequent first (press → pressing, not pressure; repair → repair, not reparation); null when there is none
 * or the verb is no act done to its object (ACT_VERB_FILES).
 */
export function actNounOf(lex: Lexicon, verb: string): string | null {
  const file = lex.lexFile?.(verb, 'v') ?? null;
  if (file !== null && !ACT_VERB_FILES.has(file)) return null;
  return (lex.derived?.(verb, 'v', 'n', 'noun.act') ?? []).find((d) => /^[a-z]{3,24}$/.test(d)) ?? null;
}

interface Said {
  readonly weight: number;
  readonly verb: string | null;
  /** The cluster reads the word as a verb (or said the act's noun): "whiten", not the adjective of "whiter teeth". */
  readonly verbal: boolean;
  readonly run: readonly string[];
}

/** What each fragment says of each family: the verb (or null for a removal phrase) and the object run. */
function sayings(fragments: readonly ActFragment[], w: ActWords): Map<string, Said[]> {
  const verbs: string[] = [];
  for (const f of fragments) f.seq.slice(0, MAX_SEQ).forEach((t, k, seq) => {
    if (w.isRemoval(t.v) || (opensClause(seq, k) && imperativeVerb(f, t, w) && direct(f, seq, k, w).length > 0)) verbs.push(t.v);
  });
  const fam = families(verbs, w);
  const actNouns = new Map<string, string>();
  for (const v of fam.keys()) {
    const n = actNounOf(w.lex, v);
    if (n !== null && !actNouns.has(n)) actNouns.set(n, v);
  }
  const out = new Map<string, Said[]>();
  const add = (family: string, s: Said): void => void out.set(family, [...(out.get(family) ?? []), s]);
  for (const f of fragments) {
    const seq = f.seq.slice(0, MAX_SEQ);
    const seen = new Set<string>();
    seq.forEach((t, k) => {
      const family = fam.get(t.v);
      const byNoun = actNouns.get(t.v);
      if (family !== undefined && !seen.has(family) && (w.isRemoval(t.v) || (opensClause(seq, k) && imperativeVerb(f, t, w)))) {
        seen.add(family);
        add(family, { weight: f.weight, verb: t.v, verbal: t.pos === 'v', run: w.isRemoval(t.v) ? runAfter(seq, k, w) : direct(f, seq, k, w) });
      } else if (byNoun !== undefined && !seen.has(fam.get(byNoun) as string)) {
        // The act's noun says the act after its object ("plant watering", "teeth whitening"), not alone.
        const run = runBefore(seq, k, w);
        if (run.length === 0) return;
        seen.add(fam.get(byNoun) as string);
        add(fam.get(byNoun) as string, { weight: f.weight, verb: byNoun, verbal: true, run });
      }
    });
    if (f.removal && !seen.has('remove')) add('remove', { weight: f.weight, verb: null, verbal: false, run: [] });
  }
  return out;
}

/**
 * The object: of the heads the act (`says`) governs, the one the cluster says most anywhere ("remove the brand logo", "hide
 * the brand name", "the logo must go" → logo), then the one governed most; a modifier joins it when two phrasings
 * and two fifths of its weight say it ("power lines").
 */
function objectOf(says: readonly Said[], all: readonly Said[], w: ActWords): string[] {
  const byHead = new Map<string, number>();
  for (const s of says) if (s.run.length > 0) byHead.set(s.run[s.run.length - 1] as string, (byHead.get(s.run[s.run.length - 1] as string) ?? 0) + s.weight);
  const best = [...byHead].sort((a, b) => w.said(b[0]) - w.said(a[0]) || b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (!best) return [];
  const mods = new Map<string, { w: number; n: number }>();
  // Its modifier is read from every act on that head ("correct the red eye", "fix the red eyes").
  for (const s of all) {
    if (s.run[s.run.length - 1] !== best[0] || s.run.length < 2) continue;
    const m = s.run[s.run.length - 2] as string;
    const e = mods.get(m) ?? { w: 0, n: 0 };
    mods.set(m, { w: e.w + s.weight, n: e.n + 1 });
  }
  const mod = [...mods].filter(([, e]) => e.n >= 2).sort((a, b) => b[1].w - a[1].w || (a[0] < b[0] ? -1 : 1))[0];
  return mod && mod[1].w * 5 >= best[1] * 2 ? [mod[0], best[0]] : [best[0]];
}

/**
 * The one act most of the English fragment mass (`englishMass`) says, with its object, or null: no removal said by two
 * fifths nor other act by half, or an act other than a removal said on no object ("fix it"). A removal keeps its name without an object
 * (the head then names it, as before).
 */
export function sayAct(fragments: readonly ActFragment[], englishMass: number, w: ActWords): ActReading | null {
  if (englishMass <= 0) return null;
  let found: { family: string; says: Said[]; mass: number } | null = null;
  const said = sayings(fragments, w);
  for (const [family, says] of said) {
    const m = says.reduce((n, s) => n + s.weight, 0);
    if (m < englishMass * (family === 'remove' ? REMOVAL_SHARE : ACT_SHARE)) continue;
    if (found === null || m > found.mass || (m === found.mass && family === 'remove')) found = { family, says, mass: m };
  }
  if (found === null) return null;
  const object = objectOf(found.says, [...said.values()].flat(), w);
  if (found.family !== 'remove' && object.length === 0) return null;
  // The act is named by the verb said most as a verb ("whiten" over the adjective of "whiter teeth").
  const byVerb = new Map<string, number>();
  const verbal = found.says.some((s) => s.verbal);
  for (const s of found.says) if (s.verb !== null && (s.verbal || !verbal)) byVerb.set(s.verb, (byVerb.get(s.verb) ?? 0) + s.weight);
  const verb = found.family === 'remove' ? 'remove' : ([...byVerb].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? found.family);
  // The removal family is named `removal` (as the removal rule named it), whatever the lexicon knows.
  return { verb, actNoun: found.family === 'remove' ? 'removal' : actNounOf(w.lex, verb), object };
}
