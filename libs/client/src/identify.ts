/**
 * Step (2) of draft-zhou Figure 1: "Agent Discovery and Scenario
 * Identification" from the user's words, "leverag[ing] an agent registry"
 * (Parley's `list_agents`) and the templates of the scenarios found there; "if
 * no suitable server agent is found, the client agent SHOULD report the failure
 * to the end user" (an answer of `null` with the closest scenarios).
 *
 * Evidence, combined into one score per scenario (weights in `SCORE_WEIGHTS`):
 *  - selection (draft-chang §3.4, libs/adol `selectTools`): each (agent,
 *    scenario) is a tool whose text is the scenario's name, the agent's
 *    description, tags and domain, and the template's keys (names,
 *    descriptions, enum values); BM25, fused with the cosine of an embedder
 *    when one is given. It ranks, but its scores are relative to the best, so
 *    it weighs least, and only beside evidence of the scenario's own (a key
 *    filled, or the scenario's name said);
 *  - mapping: the template of each of the best-ranked scenarios maps the
 *    utterance (the mapper of step 4): the keys it fills, each by the mapper's
 *    confidence (a date counts little: "tomorrow" is in every kind of request) and the share of the user's
 *    content words the template explains (mapped to keys, or words of the
 *    template itself). Both are absolute: words no template explains and no
 *    key takes are no scenario's.
 */
import { OTHER_KEY, payloadJsonSchema, type SchemaTemplate } from '@parley/protocol';
import type { TextEmbedder } from '@parley/adol';
import type { UtteranceMapping } from './mapping';
import type { AssociationEvidence } from './association';

/** One (agent, scenario) a client may send to. */
export interface ScenarioEntry {
  /** Canonical scenario id. */
  scenario: string;
  agent: string;
  template: SchemaTemplate;
  /** The agent's description, tags and domain from the registry. */
  description?: string;
  tags?: string[];
  domain?: string;
  /** The template's etag (draft-zhou §6.2.2), sent back with execute. */
  etag?: string;
}

/** The scenarios a client can identify among (`client.scenarioCatalog()`). */
export interface ScenarioCatalog {
  readonly entries: readonly ScenarioEntry[];
}

export interface ScenarioScore {
  scenario: string;
  agent: string;
  /** The combined score the decision is made on, 0..1. */
  score: number;
  /** Selection score (draft-chang §3.4), relative to the best-ranked scenario. */
  selection: number;
  /** Share of the utterance's content words the template explains; undefined when not mapped. */
  explained?: number;
  /** Keys the mapping filled. */
  filled?: number;
}

export interface ScenarioIdentification {
  /** The scenario, or null when none explains the words. */
  scenario: string | null;
  agent: string | null;
  score: number;
  /** Every scenario considered, best first (the closest ones when `scenario` is null). */
  ranking: ScenarioScore[];
  /** The mapping of the chosen scenario's template (reused by `ask`). */
  mapping?: UtteranceMapping;
}

export interface IdentifyOptions {
  /** An embedder for hybrid selection (PARLEY_EMBEDDER's); BM25 alone without one. */
  embedder?: TextEmbedder;
  /** How many of the best-selected scenarios are mapped (default 5). */
  candidates?: number;
  /** Least combined score for a scenario to be chosen (default `DEFAULT_MIN_SCORE`). */
  minScore?: number;
}

/** The combined score: weights of the explained share, the keys filled and selection (they sum to 1). */
export const SCORE_WEIGHTS = { explained: 0.4, filled: 0.5, selection: 0.1 } as const;
/** Weight of filled keys from which selection counts. */
export const SELECTION_EVIDENCE = 0.3;
/** Filled keys that make the `filled` part whole. */
export const FULL_KEYS = 2;
/** What a date or date-time key counts among filled keys (dates are in every kind of request). */
export const DATE_KEY_WEIGHT = 0.3;
/** What the scenario's own name said in the words counts among filled keys ("brighten the whole photo"). */
export const NAME_WEIGHT = 0.5;
/**
 * What a name word said only by a synonym of its first WordNet noun sense, at the head of the request, counts
 * ("pics of my kids" for photo_retouch): first senses reach far ("exposure", "picture"), so much less than the name.
 */
export const SYNONYM_NAME_WEIGHT = 0.2;
/** What a phrase the template recognises without a value counts among filled keys (at most two count). */
export const RECOGNISED_WEIGHT = 0.5;
/**
 * What a word said by association with the template counts among filled keys (`UtteranceMapping.associated`: in the
 * field of meaning WordNet gives the template's names, "snapshot" or "fuzzy" for photo_retouch; at most
 * `MAX_ASSOCIATED` count). Half a phrase the template recognises: a field reaches further than the words. It counts,
 * and lets the selection score count, only beside other evidence (a key filled, a phrase recognised, or a second word
 * in the field): one word by association alone ("frame this", "a snapshot") is no request of the scenario.
 */
export const ASSOCIATED_WEIGHT = 0.25;
export const MAX_ASSOCIATED = 2;
/**
 * What is left of the score of a scenario when the request names a sister of its concept instead of the concept ("reserve
 * a train": riding is another way to travel than flying; WordNet sister terms through the nouns' acts, see
 * `MapperOutput.rivals`). The slots such requests fill (cities, a date, a count) are the neighbour's too, so they are
 * no evidence for this scenario against its sister. A factor, not a difference: the better the slots fit, the more a
 * sister's request looks like the scenario's (a perfect fit keeps 0.25, under `DEFAULT_MIN_SCORE`).
 */
export const RIVAL_FACTOR = 0.25;
/** Keys filled under their own enum or pattern (`strongKeys`) from which a sister said does not count against the scenario. */
export const STRONG_KEYS = 2;
/** Least confidence of such a key's value (an identifier read by its shape without a cue is about 0.8). */
export const STRONG_CONFIDENCE = 0.8;
/**
 * What the explained share counts when a mapping's only values are dates and nothing else of the scenario's was said
 * (no other key, not its name, no phrase it recognises): a date is in every kind of request, so the words the template
 * then explains are its vocabulary alone ("set an alarm for 7am" beside a template with an `alarm_type` key).
 */
export const DATE_ONLY_EXPLAINED = 0.5;
/** Measured on the development utterances (bench/ask.ts, BENCHMARKS.md). */
export const DEFAULT_MIN_SCORE = 0.3;
export const DEFAULT_CANDIDATES = 5;
/**
 * What association with a scenario's text counts among filled keys (`AssociationEvidence`, draft-zhou §6.1): the
 * margin by which the request's words meet this scenario's text more than any other's, so words every scenario's
 * text meets alike (a place, "look", "feel") say nothing for one of them.
 */
export const TEXT_ASSOCIATION_WEIGHT = 1;

/** Reads how a request's words meet each entry's text (`createAssociate` over the entries' `scenarioText`). */
export type AssociateEntries = (utterance: string, entries: readonly ScenarioEntry[]) => readonly AssociationEvidence[];

/**
 * The English glosses of the request's words said in another language (the glossary the offline mapper reads: "billet
 * d'avion" → ticket plane), in the order said; none for an English request.
 */
export type GlossRequest = (utterance: string) => readonly string[];

/**
 * The text selection ranks the scenarios on (draft-zhou §6.1): the request as written, then the glosses of its words
 * in other languages, so a request in French or Chinese meets the templates' English text as its English
 * counterpart does ("je voudrais un billet d'avion" meets flight_booking's "plane ticket"). The glosses add words;
 * none of the user's is taken away.
 */
export function selectionQuery(utterance: string, gloss?: GlossRequest): string {
  const glossed = gloss?.(utterance) ?? [];
  return glossed.length === 0 ? utterance : `${utterance} ${glossed.join(' ')}`;
}

/** The text selection ranks a scenario on. */
export function scenarioTool(e: ScenarioEntry): { name: string; description: string; inputSchema: unknown; tags: string[] } {
  const schema = payloadJsonSchema(e.template) as { properties?: Record<string, unknown> };
  const props = { ...(schema.properties ?? {}) };
  delete props[OTHER_KEY];
  return {
    name: e.scenario,
    description: [e.template.scenario.replace(/_/g, ' '), e.description ?? '', (e.tags ?? []).join(' '), e.domain ?? ''].filter((x) => x !== '').join('. '),
    inputSchema: { ...schema, properties: props },
    tags: e.tags ?? [],
  };
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase word spans of `s` ([start, end, word]). */
function wordSpans(s: string): [number, number, string][] {
  const out: [number, number, string][] = [];
  for (const m of s.matchAll(WORD)) out.push([m.index, m.index + m[0].length, m[0].toLowerCase()]);
  return out;
}

/**
 * Share of the utterance's content words that the mapping did not have to put
 * in `other` (they went to keys, or are the template's own words or the
 * wrapping of a request). `isContent` says which words count.
 */
export function explainedShare(utterance: string, m: UtteranceMapping, isContent: (word: string) => boolean): number {
  const words = wordSpans(utterance).filter(([, , w]) => isContent(w));
  if (words.length === 0) return 0;
  // Where each `other` phrase lies in the utterance (first unused occurrence).
  const covered: [number, number][] = [];
  for (const p of m.other) {
    let from = 0;
    for (;;) {
      const at = utterance.indexOf(p, from);
      if (at === -1) break;
      if (!covered.some(([a, b]) => a === at && b === at + p.length)) {
        covered.push([at, at + p.length]);
        break;
      }
      from = at + 1;
    }
  }
  const unexplained = words.filter(([a, b]) => covered.some(([x, y]) => a >= x && b <= y)).length;
  return 1 - unexplained / words.length;
}

/** Confidence at which a filled key counts nothing as evidence, and where it counts whole. */
export const EVIDENCE_FLOOR = 0.5;
export const EVIDENCE_FULL = 0.85;

/**
 * The weight of the keys a mapping filled: 1 each, a date or date-time
 * `DATE_KEY_WEIGHT`, scaled by how sure the mapper was: a value barely over the
 * threshold (one bare number read as a site, "good" as a synonym of `full`) is
 * weak evidence that the scenario is the user's; it counts in proportion
 * between `EVIDENCE_FLOOR` and `EVIDENCE_FULL`. With the `utterance`, a value read from an ordinal out of its
 * place (`valuesOutOfPlace`) weighs as a date does.
 */
export function filledWeight(template: SchemaTemplate, m: UtteranceMapping, utterance?: string, countsNoun: CountsNoun = pluralBySuffix): number {
  const formats = new Map(template.keys.map((k) => [k.key_name, k.format] as const));
  const misplaced = utterance === undefined ? new Set<string>() : valuesOutOfPlace(template, m, utterance, countsNoun);
  return Object.entries(m.confidence).reduce((sum, [k, c]) => {
    const base = formats.get(k) === 'date' || formats.get(k) === 'date-time' || misplaced.has(k) ? DATE_KEY_WEIGHT : 1;
    return sum + base * Math.min(1, Math.max(0, (c - EVIDENCE_FLOOR) / (EVIDENCE_FULL - EVIDENCE_FLOOR)));
  }, 0);
}

/**
 * Ordinal words, a closed class (English "first" to "tenth", and a numeral with an ordinal suffix, "1st", "3rd"): they
 * modify the noun after them ("first class", "the first ten seconds", "the 1st of December").
 */
const ORDINAL = /^(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,3}(?:st|nd|rd|th))$/;
/** A numeral alone. */
const NUMERAL = /^\d{1,12}$/;
/** An English plural noun's ending, after three letters at least ("euros", "customers"; not "is", "was"). */
const PLURAL = /^[a-z]{3,}s$/;

/**
 * Whether a numeral standing between `before` and `next` counts `next` as a noun ("300 euros", "12 customers"), not
 * a name followed by its verb ("incident 4410 affects"). The client gives one read from WordNet (a noun written in the
 * plural, no verb form alone: not "fails", "goes", "this", "loss"); without a lexicon, an -s ending (`PLURAL`).
 */
export type CountsNoun = (next: string, before: string) => boolean;
const pluralBySuffix: CountsNoun = (next) => PLURAL.test(next);

/** At most this many characters of an utterance are searched for the words after an ordinal. */
const MAX_PLACE_CHARS = 4096;

/**
 * Keys (not dates) whose value was read from an ordinal alone that does not stand before a word of the key's own
 * name or description (draft-zhou §6.1: a slot explains a word only in its own place): "first" in "first class" is a
 * cabin, in "trim the first ten seconds" it counts seconds; "1st" in "the 1st of December" is no incident. So too a
 * key that is no number whose value was read from a numeral alone that counts the noun after it (`countsNoun`), a noun
 * none of the key's own words, at every occurrence of the numeral ("200 euros" is no site id; "sites 4 and 200" and
 * "4 sites" are). A numeral right after its key's own word is in place whatever follows ("site 4410 keeps dropping").
 * Such a value is weak evidence of the scenario.
 */
export function valuesOutOfPlace(template: SchemaTemplate, m: UtteranceMapping, utterance: string, countsNoun: CountsNoun = pluralBySuffix): Set<string> {
  const out = new Set<string>();
  const words = wordSpans(utterance.slice(0, MAX_PLACE_CHARS)).map(([, , w]) => w);
  const singular = (w: string) => w.replace(/s$/, '');
  for (const key of template.keys) {
    const source = Object.hasOwn(m.sources, key.key_name) ? String(m.sources[key.key_name]).trim().toLowerCase() : undefined;
    const numeral = source !== undefined && NUMERAL.test(source) && key.key_type !== 'number' && key.key_type !== 'integer';
    if (source === undefined || key.format === 'date' || key.format === 'date-time' || !(ORDINAL.test(source) || numeral)) continue;
    const ownWords = wordSpans(`${key.key_name.replace(/_/g, ' ')} ${key.semantic_description}`).map(([, , w]) => w).filter((w) => w.length >= 3 && !ORDINAL.test(w));
    // A word of the key's own, singular or plural either way ("sites" for site, "station" for stations).
    const own = new Set(ownWords.map(singular));
    const ownWord = (w: string) => w.length >= 3 && own.has(singular(w));
    const at = words.flatMap((w, i) => (w === source ? [i] : []));
    const next = (i: number) => words[i + 1] ?? '';
    // A numeral right after its key's own word is in place, whatever follows ("site 4410 keeps dropping"); it counts a
    // noun elsewhere only when every one of its occurrences does ("site 12 down, 12 customers affected" names site 12).
    const counts = (i: number) => !ownWord(words[i - 1] ?? '') && !ownWord(next(i)) && countsNoun(next(i), words[i - 1] ?? '');
    const misplaced = numeral ? at.length > 0 && at.every(counts) : !at.some((i) => ownWord(next(i)));
    if (misplaced) out.add(key.key_name);
  }
  return out;
}

/** Identifies the scenario of `utterance` among `catalog`; `map` maps it with one entry's template. */
export async function identifyIn(
  utterance: string,
  catalog: ScenarioCatalog,
  opts: IdentifyOptions,
  map: (e: ScenarioEntry) => Promise<UtteranceMapping>,
  isContent: (word: string) => boolean,
  countsNoun: CountsNoun = pluralBySuffix,
  associate?: AssociateEntries,
  gloss?: GlossRequest,
): Promise<ScenarioIdentification> {
  const entries = catalog.entries;
  if (entries.length === 0) return { scenario: null, agent: null, score: 0, ranking: [] };
  const minScore = opts.minScore ?? DEFAULT_MIN_SCORE;
  const k = opts.candidates ?? DEFAULT_CANDIDATES;
  const { selectTools } = await import('@parley/adol');
  const tools = entries.map(scenarioTool);
  const ranked = await selectTools(tools, selectionQuery(utterance, gloss), { topK: tools.length, ...(opts.embedder ? { embedder: opts.embedder } : {}) });
  const best = Math.max(1e-9, ...ranked.map((r) => r.score));
  const evidence = associate?.(utterance, entries);
  const margins = associationMargins(evidence);
  const contentCount = Math.max(1, wordSpans(utterance.slice(0, MAX_PLACE_CHARS)).filter(([, , w]) => isContent(w)).length);
  const scored: (ScenarioScore & { mapping?: UtteranceMapping })[] = [];
  for (const [i, r] of ranked.entries()) {
    const e = entries[tools.indexOf(r.tool)] as ScenarioEntry;
    const sel = Math.max(0, r.score) / best;
    if (i >= k) {
      scored.push({ scenario: e.scenario, agent: e.agent, score: SCORE_WEIGHTS.selection * sel, selection: round(sel) });
      continue;
    }
    const mapping = await map(e);
    // A value read out of its place explains no word of the request (draft-zhou §6.1: a slot explains a word only in its place).
    const misplaced = valuesOutOfPlace(e.template, mapping, utterance, countsNoun);
    const mapped = Math.max(0, (mapping.explained ?? explainedShare(utterance, mapping, isContent)) - misplacedShare(utterance, mapping, misplaced, isContent));
    const keys = filledWeight(e.template, mapping, utterance, countsNoun);
    // Its name said, spelled or by a synonym of a name word's first noun sense the mapper found ("pics" for photo).
    const named = namesScenario(utterance, e.scenario) || (mapping.named?.length ?? 0) > 0;
    // Said only by a synonym of a name word's first noun sense, at the head of the request: weaker, and only beside
    // some evidence of the template's own (a key filled, a phrase it recognises): alone it reaches too far
    // ("a picture of my dog", "an error in my calendar").
    const bySynonym = !named && (mapping.namedBySynonym?.length ?? 0) > 0 && (keys > 0 || (mapping.recognised ?? 0) > 0);
    const onlyDates = keys > 0 && !named && (mapping.recognised ?? 0) === 0 && onlyDateKeys(e.template, mapping, misplaced);
    // The scenario's name said, and phrases its template knows without a value ("make the eyes a little bigger").
    // Said by association only: with the name said, the association adds nothing ("print twenty copies of this photo").
    const said = named ? 0 : Math.min(MAX_ASSOCIATED, mapping.associated ?? 0);
    const associated = said >= 2 || keys > 0 || (mapping.recognised ?? 0) > 0 ? said : 0;
    // As for the mapper's association: with the name said, words associated with the scenario add nothing ("print twenty
    // copies of this photo on glossy paper": a glossy is a photograph, the request is still no retouch).
    const byText = named ? 0 : TEXT_ASSOCIATION_WEIGHT * (margins[entries.indexOf(e)] ?? 0);
    // The words met explain the request as the mapper's own do, when they count whole (two words, or a wish).
    const metWords = byText > 0 ? wholeAssociation(evidence?.[entries.indexOf(e)]) : 0;
    const explained = Math.max(mapped, metWords === 0 ? 0 : Math.min(1, metWords / contentCount));
    const filled = byText + keys + (named ? NAME_WEIGHT : bySynonym ? SYNONYM_NAME_WEIGHT : 0) + RECOGNISED_WEIGHT * Math.min(2, mapping.recognised ?? 0) + ASSOCIATED_WEIGHT * associated;
    // Selection is relative to the best-ranked scenario, so it says nothing alone: it counts only beside some
    // evidence of the scenario's own (a key filled with some confidence, or its name said).
    // A date alone is no such evidence either: it is in every kind of request ("the weather in Oslo next Monday").
    const selection = (keys >= SELECTION_EVIDENCE && !onlyDates) || named || (mapping.recognised ?? 0) > 0 || associated > 0 || byText > 0 ? sel : 0;
    // A sister said beside values only this template's own kinds of key take (an enum value, an identifier of its
    // pattern) is context, not the request: a breakdown with an incident id and a severity is still a fault.
    const rival = (mapping.rivals?.length ?? 0) > 0 && strongKeys(e.template, mapping) < STRONG_KEYS ? RIVAL_FACTOR : 1;
    const score =
      rival *
      (SCORE_WEIGHTS.explained * explained * (onlyDates ? DATE_ONLY_EXPLAINED : 1) + SCORE_WEIGHTS.filled * Math.min(1, filled / FULL_KEYS) + SCORE_WEIGHTS.selection * selection);
    scored.push({ scenario: e.scenario, agent: e.agent, score, selection: round(sel), explained: round(explained), filled: Object.keys(mapping.confidence).length, mapping });
  }
  scored.sort((a, b) => b.score - a.score);
  const ranking = scored.map(({ mapping: _m, ...s }) => ({ ...s, score: round(s.score) }));
  const top = scored[0];
  if (!top || top.score < minScore || !top.mapping) return { scenario: null, agent: null, score: round(top?.score ?? 0), ranking };
  return { scenario: top.scenario, agent: top.agent, score: round(top.score), ranking, mapping: top.mapping };
}

/**
 * How many words gave an association that counts whole, else 0: a noun that is the scenario's own thing (a quality alone,
 * "my monitor looks blurry", may be said of anything), beside a wish or another word met by a sense, a derivation or a
 * kind (a definition alone reaches further: the internet is defined as a network, a home connection dropping is no
 * operator's fault); and no other act opening the request ("print my snapshots on glossy paper", "send the mugshot").
 */
function wholeAssociation(e: AssociationEvidence | undefined): number {
  return e !== undefined && e.words.length > 0 && e.thing && !e.otherAct && (e.direct >= 2 || e.wish) ? e.words.length : 0;
}

/**
 * Per entry, by how much its association weight exceeds every other entry's (0 when it does not); nothing when one word
 * alone gave it and the request asks for no change of quality: a thing named is no wish ("delete my snapshot", "a pic of
 * my dog", "guidance on my tax return"; but "make this snapshot feel like a movie poster").
 */
export function associationMargins(evidence: readonly AssociationEvidence[] | undefined): number[] {
  if (!evidence) return [];
  return evidence.map((e, i) => {
    const margin = Math.max(0, e.weight - Math.max(0, ...evidence.filter((_, j) => j !== i).map((x) => x.weight)));
    return wholeAssociation(e) > 0 ? margin : 0;
  });
}

/**
 * Keys filled with a value that parses under the key's own constraint (an enum value, a string matching its pattern),
 * at least `STRONG_CONFIDENCE`: evidence a sister's request would not give, as cities, a date or a count would.
 */
export function strongKeys(template: SchemaTemplate, m: UtteranceMapping): number {
  const constrained = new Set(template.keys.filter((k) => k.key_name !== OTHER_KEY && ((k.enum?.length ?? 0) > 0 || typeof k.pattern === 'string')).map((k) => k.key_name));
  // A value the validator refuses is no evidence of the template's own kinds of key.
  const refused = (k: string) => m.violations.some((v) => v.path === `payload.${k}` || v.path.startsWith(`payload.${k}.`) || v.path.startsWith(`payload.${k}[`));
  return Object.entries(m.confidence).filter(([k, c]) => constrained.has(k) && c >= STRONG_CONFIDENCE && !refused(k)).length;
}

/** Whether every key the mapping filled is a date or date-time, or a value read out of its place (`misplaced`). */
function onlyDateKeys(template: SchemaTemplate, m: UtteranceMapping, misplaced: ReadonlySet<string>): boolean {
  const formats = new Map(template.keys.map((k) => [k.key_name, k.format] as const));
  return Object.keys(m.confidence).every((k) => formats.get(k) === 'date' || formats.get(k) === 'date-time' || misplaced.has(k));
}

/**
 * Share of the utterance's content words that are the sources of the `misplaced` keys ("200" and "1st" in "transfer 200
 * euros to Anna on the 1st"): taken by a key, but not explained by it.
 */
export function misplacedShare(utterance: string, m: UtteranceMapping, misplaced: ReadonlySet<string>, isContent: (word: string) => boolean): number {
  if (misplaced.size === 0) return 0;
  const content = wordSpans(utterance).filter(([, , w]) => isContent(w)).length;
  const taken = [...misplaced].reduce((n, k) => n + (Object.hasOwn(m.sources, k) ? wordSpans(String(m.sources[k]).slice(0, MAX_PLACE_CHARS)).length : 0), 0);
  return content === 0 ? 0 : Math.min(1, taken / content);
}

/** Whether a word of the scenario's id stands in the words ("photo" for photo_retouch), ignoring plural -s. */
export function namesScenario(utterance: string, scenario: string): boolean {
  const words = new Set(wordSpans(utterance).map(([, , w]) => w.replace(/s$/, '')));
  return scenario.split('_').some((w) => w.length >= 3 && words.has(w.replace(/s$/, '')));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
