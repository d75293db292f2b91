/**
 * One key per intent across clusters (zhou §6.2.2 conflict detection): the clustering may split one need into
 * several clusters (one per value said, "sunset sky" / "starry sky"; one per vocabulary). Before a new key is
 * made, the evolver asks whether the new cluster says what the cluster behind a live experimental key says:
 * the cosine of their word profiles (content lemmas of the samples, each weighted by the voices behind it), or, for
 * identifiers and times, the same pattern (`samePatternIntent`).
 */
import type { KeyDefinition } from '@parley/protocol';
import { SLOT_AFFIXES } from './affixes';
import { contentWords, idPattern, identifiers, type InductionSample } from './induce';

/** Content word → voices (distinct clients when labelled, else the sample count), over a cluster's samples. */
export function wordProfile(samples: readonly InductionSample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (typeof s.text !== 'string') continue;
    const voices = Array.isArray(s.clients) && s.clients.length > 0 ? s.clients.length : Number.isInteger(s.count) && s.count > 0 ? s.count : 1;
    for (const w of contentWords(s.text.slice(0, 4096)).words) out.set(w, (out.get(w) ?? 0) + voices);
  }
  return out;
}

/** Cosine of two word profiles, 0 when either is empty. */
export function profileCosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [w, x] of a) {
    na += x * x;
    const y = b.get(w);
    if (y !== undefined) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Profiles at least this similar are one intent. */
export const SIBLING_COSINE = 0.5;

/** Clock patterns the inducer writes for times and windows: shared by every time need, so no evidence of one intent by themselves. */
const CLOCK = '([01][0-9]|2[0-3]):[0-5][0-9]';

/**
 * Whether two keys are one structured intent: the same pattern derived from the users' identifiers
 * (^PNR-[A-Z0-9]{5}$ from two clusters is one booking code), or the same clock pattern under the same last name
 * word (pickup_time / driver_time; arrive_by is another need).
 */
export function samePatternIntent(a: KeyDefinition, b: KeyDefinition): boolean {
  if (a.pattern === undefined || a.pattern !== b.pattern || a.key_type !== b.key_type) return false;
  if (!a.pattern.includes(CLOCK)) return true;
  return a.key_name.split('_').pop() === b.key_name.split('_').pop();
}

/**
 * Whether two clusters list identifiers of one kind (zhou §6.2.2, one key per intent): the identifiers of their
 * fragments that hold two or more, together, have one pattern, and the two lists have the same letter prefixes
 * ("BX-1201, BX-1207" and "BX-0033, BX-0040"). A shape alone is no kind: "BG-1201" bag tags and "PN-7781" bookings are both two
 * letters and four digits. Lists carry no pattern of their own, so the samples are read. False when either lists none.
 */
export function sameListShape(a: readonly InductionSample[], b: readonly InductionSample[]): boolean {
  const listed = (ss: readonly InductionSample[]): string[] =>
    ss.flatMap((s) => {
      const ids = typeof s.text === 'string' ? identifiers(s.text) : [];
      return ids.length >= 2 ? ids.slice(0, 16) : [];
    }).slice(0, 512);
  const prefix = (id: string): string => /^[A-Z]*/.exec(id)?.[0] ?? '';
  const ia = listed(a);
  const ib = listed(b);
  const pa = new Set(ia.map(prefix).filter((x) => x !== ''));
  const pb = new Set(ib.map(prefix).filter((x) => x !== ''));
  // One kind: the same letter prefixes in both lists. A list that mixes bag tags and bookings ("BX-1201, PN-1207")
  // is no more a list of bookings than of tags.
  const shared = pa.size > 0 && pa.size === pb.size && [...pa].every((x) => pb.has(x));
  return ia.length > 0 && ib.length > 0 && shared && idPattern([...ia, ...ib]) !== null;
}

/** A yes/no key or a string choice: the keys a cluster split by value yields. */
export function choiceLike(k: KeyDefinition): boolean {
  return k.key_type === 'boolean' || (k.key_type === 'string' && Array.isArray(k.enum) && k.enum.length > 0);
}

function slotWords(k: KeyDefinition, byAct: (k: KeyDefinition) => boolean): Set<string> {
  // An act on an object is the need itself, no value of a choice (acts.ts): acne_removal is no file format.
  if (k.key_type === 'boolean' && byAct(k)) return new Set();
  const out = new Set(k.key_name.split('_').filter((w) => w !== '' && !SLOT_AFFIXES.has(w)));
  for (const v of k.enum ?? []) if (typeof v === 'string') out.add(v);
  return out;
}

/**
 * Whether two clusters fill one slot: the key induced over both clusters' samples (`joint`) is a choice whose
 * values hold a word of each cluster's own key (a name word or a value), and not the same one: "golden_sunset"
 * and "sky_preference [cloudless, blue]" are one sky choice when the joint key is sky [sunset, cloudless, blue].
 * `byAct` tells the yes/no keys induction named by an act on an object (Candidate.act: acne_removal,
 * straighten_horizon): their words fill no slot.
 */
export function oneSlot(joint: KeyDefinition, a: KeyDefinition, b: KeyDefinition, byAct: (k: KeyDefinition) => boolean = () => false): boolean {
  if (joint.key_type !== 'string' || !Array.isArray(joint.enum) || joint.enum.length < 2) return false;
  const values = joint.enum.filter((v): v is string => typeof v === 'string');
  const wa = slotWords(a, byAct);
  const wb = slotWords(b, byAct);
  const ha = values.filter((v) => wa.has(v));
  const hb = values.filter((v) => wb.has(v));
  return ha.length > 0 && hb.length > 0 && new Set([...ha, ...hb]).size >= 2;
}
