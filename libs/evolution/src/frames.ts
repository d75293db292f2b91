/**
 * A choice read from the frame its values fill (draft-zhou §6.2.2 step 4, "boolean only when no alternatives
 * appear"): distinct clients filling one slot of one governing word with different words ("a business trip" /
 * "a leisure trip" / "travelling for work"; "pay by credit card" / "we pay on invoice") state alternatives, though
 * the words are no WordNet siblings. The governing word (the anchor) is a noun, whose slot is the word just before
 * it ("business trip") or the noun phrase just after it, one function word between at most ("trip for work"); or a
 * verb, whose slot is only after it (its object: "pay by card"; the word before a verb is its subject, "our
 * company pays"). In a noun phrase after the anchor the filler is its last noun ("credit card" → card).
 *
 * A filler is kept when `minClients` distinct clients say it in that frame and no other kept filler; an anchor is a choice when two fillers
 * are kept, most fragments that say one say no other (alternatives, not a list), and the fragments saying a kept
 * filler carry `minShare` of the cluster's weight. Pure: phrases come in as token sequences; outside words are
 * only compared and used as `Map` keys.
 */

/** A word of a fragment: its canonical form and its index among the fragment's raw tokens. */
export interface FrameToken {
  readonly v: string;
  readonly i: number;
  /** The raw token just before this one (a function word the tokens leave out), lower case; '' when none. */
  readonly before?: string;
}

/**
 * English prepositions, a closed class: a filler after its anchor follows one ("trip for work", "pay by card");
 * an article or a possessive there makes a direct object ("settle the bill"), which is no choice's slot.
 */
export const PREPOSITIONS: ReadonlySet<string> = new Set(['by', 'with', 'on', 'in', 'for', 'via', 'through', 'at', 'to', 'from', 'of', 'as', 'into', 'onto', 'per']);

export interface FramePhrase<P> {
  readonly p: P;
  readonly seq: readonly FrameToken[];
  /** Distinct voices behind the fragment (client labels, or the fragment's own weight without labels). */
  readonly voters: ReadonlyMap<string, number>;
}

export interface FrameWords {
  readonly isNoun: (w: string) => boolean;
  readonly isVerb: (w: string) => boolean;
  /** Whether a word may govern a slot (a readable content word, no number or stop word). */
  readonly canAnchor: (w: string) => boolean;
  /** Whether a word may fill a slot on that side (`<` the modifier before a noun, `>` the phrase after the anchor). */
  readonly canFill: (w: string, side: '<' | '>') => boolean;
  /** Whether two words are one concept (the anchor's family: synonyms, hyponyms). */
  readonly sameConcept: (a: string, b: string) => boolean;
}

export interface FrameChoice<P> {
  readonly anchor: string;
  /** Each kept filler and the fragments that say it in the frame, most voices first. */
  readonly values: ReadonlyMap<string, P[]>;
}

/** Most tokens read per fragment (fragments are bounded already; this bounds hostile input here too). */
const MAX_TOKENS = 64;
/** At most one function word between the anchor and its filler after it ("trip for work", "pay by card"). */
const MAX_GAP = 2;

/** The fillers of the anchor at `k`, each with its side: `<` the modifier before a noun, `>` the phrase after. */
function fillersOf(seq: readonly FrameToken[], k: number, w: FrameWords): [string, '<' | '>'][] {
  const a = seq[k] as FrameToken;
  const out: [string, '<' | '>'][] = [];
  const before = seq[k - 1];
  // Before a noun, its modifier ("business trip"); never before a verb (its subject: "our company pays").
  if (w.isNoun(a.v) && !w.isVerb(a.v) && before !== undefined && a.i - before.i === 1) out.push([before.v, '<']);
  let j = k + 1;
  const first = seq[j];
  // After a noun, a filler follows a function word ("trip for work"); a noun right after it is the head the
  // anchor modifies ("card payment"), no filler. After a verb, its object, a function word between or not.
  const gap = first === undefined ? 0 : first.i - a.i;
  if (first !== undefined && w.isNoun(first.v) && ((gap === MAX_GAP && PREPOSITIONS.has(first.before ?? '')) || (gap === 1 && w.isVerb(a.v)))) {
    // The noun phrase after the anchor: its last noun heads it ("credit card").
    while (seq[j + 1] !== undefined && (seq[j + 1] as FrameToken).i - (seq[j] as FrameToken).i === 1 && w.isNoun((seq[j + 1] as FrameToken).v)) j++;
    out.push([(seq[j] as FrameToken).v, '>']);
  }
  return out.filter(([f, side]) => f !== a.v && w.canFill(f, side) && !w.sameConcept(a.v, f));
}

function weightOf(ps: readonly { voters: ReadonlyMap<string, number> }[]): number {
  let n = 0;
  for (const p of ps) for (const c of p.voters.values()) n += c;
  return n;
}

/** A slot's filler, the phrases saying it and their clients. */
interface Filled<P> {
  readonly f: string;
  readonly ps: FramePhrase<P>[];
  readonly vs: ReadonlySet<string>;
}

function votersOf(ps: readonly { voters: ReadonlyMap<string, number> }[]): Set<string> {
  const s = new Set<string>();
  for (const p of ps) for (const v of p.voters.keys()) s.add(v);
  return s;
}

/**
 * The fillers `minClients` clients say and no other filler of the slot: the same clients saying both values state
 * no alternative ("a business trip" and "a leisure trip" from one pair of clients). Repeated until it holds.
 */
function distinctlySaid<P>(fillers: Filled<P>[], minClients: number): Filled<P>[] {
  let kept = fillers;
  for (;;) {
    const by = new Map<string, number>();
    for (const x of kept) for (const v of x.vs) by.set(v, (by.get(v) ?? 0) + 1);
    const own = (x: Filled<P>): number => {
      let n = 0;
      for (const v of x.vs) if (by.get(v) === 1) n++;
      return n;
    };
    const next = kept.filter((x) => own(x) >= minClients);
    if (next.length === kept.length) return kept;
    kept = next;
  }
}

/**
 * The anchors whose slot distinct clients fill, most voices first, each with its kept fillers: an anchor shows
 * two alternatives said by `minClients` clients each over `minShare` of the weight. Empty: no choice.
 */
export function frameChoices<P>(phrases: readonly FramePhrase<P>[], w: FrameWords, minClients: number, minShare: number): FrameChoice<P>[] {
  const frames = new Map<string, Map<string, FramePhrase<P>[]>>();
  for (const ph of phrases) {
    const seq = ph.seq.slice(0, MAX_TOKENS);
    for (let k = 0; k < seq.length; k++) {
      const a = (seq[k] as FrameToken).v;
      if (!w.canAnchor(a)) continue;
      // One slot is one side of one word: "book wheelchair" and "a wheelchair to board" fill two.
      for (const [f, side] of fillersOf(seq, k, w)) {
        let slot = frames.get(`${side}${a}`);
        if (slot === undefined) frames.set(`${side}${a}`, (slot = new Map()));
        const ps = slot.get(f) ?? [];
        // Phrases arrive in order: a repeat of this filler in this phrase is the list's last entry (no scan).
        if (ps[ps.length - 1] !== ph) ps.push(ph);
        slot.set(f, ps);
      }
    }
  }
  const total = weightOf(phrases);
  const found: { anchor: string; values: Map<string, P[]>; score: number }[] = [];
  for (const [framed, slot] of frames) {
    const anchor = framed.slice(1);
    const heard: Filled<P>[] = [];
    for (const [f, ps] of slot) heard.push({ f, ps, vs: votersOf(ps) });
    const kept = distinctlySaid(heard.filter((x) => x.vs.size >= minClients), minClients).sort((x, y) => y.vs.size - x.vs.size || (x.f < y.f ? -1 : 1));
    if (kept.length < 2) continue;
    // Alternatives: a fragment that fills the slot twice ("card or invoice") lists, it does not choose.
    const fills = new Map<FramePhrase<P>, number>();
    for (const { ps } of kept) for (const ph of ps) fills.set(ph, (fills.get(ph) ?? 0) + 1);
    const saying = [...fills.keys()];
    const twice = saying.filter((ph) => (fills.get(ph) ?? 0) > 1);
    if (weightOf(twice) * 2 > weightOf(saying)) continue;
    if (weightOf(saying) < minShare * total) continue;
    if (found.some((f) => f.anchor === anchor)) continue;
    found.push({ anchor, values: new Map(kept.map(({ f, ps }) => [f, ps.map((ph) => ph.p)])), score: votersOf(saying).size });
  }
  return found.sort((x, y) => y.score - x.score || (x.anchor < y.anchor ? -1 : 1)).map(({ anchor, values }) => ({ anchor, values }));
}
