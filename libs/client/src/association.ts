/**
 * Scenario identification by association (draft-zhou §6.1, Figure 1 step 2): the user's words read against the text
 * of each scenario (its name, its keys' names, descriptions, enum values and examples, the agent's description and
 * tags) through WordNet, for wishes said with no word of the scenario ("my LinkedIn headshot", "make it fuzzy", "get
 * me on a jet"). A word of the request meets a scenario when one of its first senses (or a sense it derives from or
 * into, or the head of its adjective cluster) is one of the first senses of a word of the scenario's text, or one
 * of those words' derivations (fuzzy ~ blurred ~ blur); when a noun is a kind of such a sense (headshot, snapshot
 * are photographs; a jet is an airplane); or, weaker, through a definition (a word of the scenario's text defines
 * the request's word, or the request's word defines one of the scenario's).
 *
 * Evidence is weighed by how specific it is: by the scenarios it meets (inverse document frequency over the
 * scenarios' vocabularies, so a word every scenario's text has counts nothing) and by how many senses the word has
 * ("make", "look", "time" have dozens, each sense says little).
 *
 * Outside strings: words are matched by a bounded pattern and looked up only when short enough; at most
 * `MAX_PROBES` words of a request are asked; caches are Maps and WeakMaps.
 */
import type { Pos, Synset, WordNet } from '@parley/embeddings';
import type { SchemaTemplate } from '@parley/protocol';
import { Lexicon } from './offline/lexicon';
import { FUNCTION_WORDS, REQUEST_WORDS } from './offline/text';

const POS: readonly Pos[] = ['n', 'v', 'a', 'r'];
/** Senses per lemma and part of speech of a scenario's words that make its concepts. */
const TEXT_SENSES = 2;
/** Senses per lemma and part of speech of a request's word that are read. */
const WORD_SENSES = 2;
/** A word of the scenario's own text: it meets the scenario (for the frequency) but is no association. */
const LITERAL = 2;
/** What a meeting through a definition counts, against 1 for a shared or derived sense or a kind. */
export const GLOSS_STRENGTH = 0.5;
/** Senses (all parts of speech) from which a word counts less: each sense of a very polysemous word says little. */
const SPECIFIC_SENSES = 4;
/** Words of a request asked at most. */
const MAX_PROBES = 48;
/** Words of a scenario's text read at most. */
const MAX_TEXT_WORDS = 600;
/**
 * Scenario texts whose concepts are remembered at most: above the catalogue's bound (`MAX_CATALOG_ENTRIES`, 100), so
 * a full catalogue is read once, not on every request; past it the oldest is forgotten first.
 */
export const MAX_CACHED_TEXTS = 128;
/** Words whose meetings are remembered per scenario text at most. */
const MAX_CACHED_WORDS = 20_000;
/** Pieces of a scenario's text (keys, enum values, tags, examples of a key) read at most. */
const MAX_PIECES = 200;
/** Characters of a request read at most (of a scenario's text, four times as many). */
const MAX_CHARS = 4096;
/** Words looked up: lowercase letters, three to forty. */
const LOOKUP = /^[a-z][a-z'-]{2,39}$/;
/** Words of a template's or a definition's phrasing that say how it is written, not what it is about. */
const PHRASING = new Set(['example', 'mapping', 'acceptable', 'value', 'values', 'whether', 'enabled', 'means', 'range', 'format', 'key', 'use', 'used', 'one', 'per', 'item', 'true', 'false', 'none', 'other', 'escape', 'valve', 'unstructured', 'semantic', 'fragments', 'existing', 'cannot', 'mapped', 'keys', 'note', 'string', 'type', 'identifier', 'number', 'count', 'id', 'ids', 'style', 'level', 'flag', 'mode', 'kind', 'code', 'name', 'date', 'time', 'relating', 'pertaining', 'characteristic', 'especially', 'something', 'someone', 'having', 'being']);

/** Degree words before a quality ("more professional", "less tired"). */
const DEGREE = new Set(['more', 'less', 'fewer', 'much', 'bit', 'little', 'too']);
/** Verbs of causing or seeming that take a quality after them ("make it fuzzy", "look like", "feel like"). */
const RESULTATIVE = new Set(['make', 'makes', 'making', 'give', 'gives', 'look', 'looks', 'feel', 'feels', 'seem', 'seems', 'appear', 'appears', 'turn', 'render']);
/** Words that may open an imperative clause before its verb ("can you", "I'd like to", "please"): pronouns, modals. */
const CLAUSE_LEAD = new Set(['i', 'you', 'we', 'me', 'us', 'to', 'can', 'could', 'would', 'will', 'shall', 'please', 'kindly', 'just']);
/** Words after a resultative verb skipped to reach its quality ("make it", "make me look", "make this snapshot"). */
const RESULT_SPAN = 4;

/** Lexicographer files of values any scenario may take (times, quantities). */
const VALUE_FILES: ReadonlySet<string> = new Set(['noun.time', 'noun.quantity']);

/** One scenario's text as WordNet concepts ("n:123"), and its lemmas. */
interface TextConcepts {
  readonly concepts: ReadonlySet<string>;
  readonly lemmas: ReadonlySet<string>;
  /** The lemmas of its names and values alone: a definition meets a scenario only through one of them. */
  readonly names: ReadonlySet<string>;
  /**
   * The kinds of its names' nouns (`Lexicon.fieldOf`, none from a name too general to be the scenario's), not of its
   * values': a car is a kind of transport, not a fault of the transport domain.
   */
  readonly kinds: ReadonlySet<string>;
  /** Nouns (base forms) of the definitions of its names' and values' senses. */
  readonly defined: ReadonlySet<string>;
}

/** How a word meets a scenario's text (`meets`): its strength, and whether it is the scenario's own thing. */
interface Meeting {
  readonly m: number;
  readonly thing: boolean;
}

/** How a request's words meet each scenario: per scenario, the weight of evidence and the words that gave it. */
export interface AssociationEvidence {
  readonly weight: number;
  /** The words that gave it, strongest first (at most three). */
  readonly words: readonly string[];
  /** How many of them met the scenario by a sense, a derivation or a kind, not only through a definition. */
  readonly direct: number;
  /**
   * Whether a noun of the request is the scenario's own thing: a synonym of one of its names' nouns ("pic" for photo),
   * or a noun whose usual (first) sense is a kind of them and of nothing else ("snapshot", "mugshot"; not "blueprint",
   * first a plan, nor "photocopy", a copy as well). A quality alone ("blurry") may be said of anything.
   */
  readonly thing: boolean;
  /**
   * Whether the request's act (the verb a clause opens with, "print my snapshots", "delete the mugshot") is another
   * than the scenario's: its verb senses meet none of the scenario's words. A thing of the scenario acted on otherwise
   * is no wish of it.
   */
  readonly otherAct: boolean;
  /**
   * Whether the request asks for a change of quality (`asksChange`: "make it fuzzy", "look more professional",
   * "whiter"), the same for every scenario: beside one word met, a wish, not a thing named ("a snapshot").
   */
  readonly wish: boolean;
}

/** The association of a request with each of `texts` (a scenario's text each): one evidence per text, in order. */
export type Associate = (utterance: string, texts: readonly ScenarioText[]) => AssociationEvidence[];

/**
 * The text a scenario is read by: `names`, its own vocabulary (the scenario's name and its keys' names), `values`
 * (its enum values) and `prose` (the keys' descriptions and examples, the agent's description and tags).
 */
export interface ScenarioText {
  readonly names: string;
  readonly values: string;
  readonly prose: string;
}

/** A scenario's text (`ScenarioText`) from its template and the agent's registry entry. */
export function scenarioText(template: SchemaTemplate, description = '', tags: readonly string[] = []): ScenarioText {
  // Each piece of outside text read up to a bound, and at most `MAX_PIECES` of them.
  const cut = (x: unknown): string => (typeof x === 'string' ? x.slice(0, MAX_CHARS).replace(/_/g, ' ') : '');
  const names: string[] = [cut(template.scenario)];
  const values: string[] = [];
  const prose: string[] = [cut(description), ...tags.slice(0, MAX_PIECES).map(cut)];
  for (const k of (template.keys ?? []).slice(0, MAX_PIECES)) {
    if (k.key_name === 'other') continue;
    names.push(cut(k.key_name));
    values.push(...(k.enum ?? []).slice(0, MAX_PIECES).map((v) => cut(String(v))));
    prose.push(cut(k.semantic_description));
    const examples = (k.optional as { examples?: unknown } | undefined)?.examples;
    if (Array.isArray(examples)) prose.push(...examples.slice(0, MAX_PIECES).map(cut));
  }
  const join = (xs: string[]) => xs.join(' . ').slice(0, MAX_CHARS * 4);
  return { names: join(names), values: join(values), prose: join(prose) };
}

/**
 * The content words of `text`, lowercase, at most `max`: not function words, request words or the phrasing of a
 * template, nor a capitalised word inside a sentence (a name: "Beijing", "LinkedIn", "IATA" say a value, not what the
 * scenario is about).
 */
function contentWords(text: string, max: number): string[] {
  const out: string[] = [];
  for (const m of text.slice(0, MAX_CHARS * 4).matchAll(/[A-Za-z][A-Za-z']*/g)) {
    if (out.length >= max) break;
    const before = text.slice(Math.max(0, m.index - 3), m.index);
    if (/[A-Z]/.test(m[0]) && m.index > 0 && !/[.!?:]\s*$/.test(before)) continue;
    const w = m[0].toLowerCase();
    if (LOOKUP.test(w) && !FUNCTION_WORDS.has(w) && !REQUEST_WORDS.has(w) && !PHRASING.has(w)) out.push(w);
  }
  return out;
}

/** Content words of a WordNet definition (its quoted examples left out). */
function definitionWords(gloss: string): string[] {
  return contentWords(gloss.replace(/"[^"]*"/g, ' ').split(';')[0] ?? '', 40);
}

/**
 * How a request is read apart from any scenario: each word's most used parts of speech (`dominant`), the acts its
 * clauses open with (`acts`), and whether it asks for a change of quality (`asksChange`).
 */
function requestReading(
  wn: WordNet,
  senses: (w: string, pos: Pos, n: number) => [string, Synset][],
): { dominant: (w: string) => Pos[]; acts: (utterance: string) => string[]; asksChange: (words: readonly string[]) => boolean } {
  // The verbs the request's clauses open with, after a lead ("please", "can you"), but not a resultative or a request
  // word ("make", "get"): "print my snapshots", "send the mugshot"; none in "my snapshot is too dark".
  const acts = (utterance: string): string[] => {
    const out: string[] = [];
    for (const clause of utterance.toLowerCase().split(/[.,;:!?\n]/).slice(0, MAX_PROBES)) {
      const ws = [...clause.matchAll(/[a-z][a-z'-]*/g)].slice(0, MAX_PROBES).map((m) => m[0]);
      const first = ws.find((x) => !CLAUSE_LEAD.has(x) && !REQUEST_WORDS.has(x) && !/'/.test(x));
      if (first === undefined || RESULTATIVE.has(first) || FUNCTION_WORDS.has(first) || !LOOKUP.test(first)) continue;
      if (wn.baseForms(first, 'v').some((l) => wn.lookup(l, 'v')) && dominant(first).includes('v')) out.push(first);
    }
    return out;
  };
  // The parts of speech a word is mostly used in (most senses seen in WordNet's tagged corpus; all when none was seen):
  // "husband" is a noun, its verb ("use frugally", economy) is no reading of "my husband".
  const dominant = (w: string): Pos[] => {
    const tagged = POS.map((pos) => Math.max(0, ...wn.baseForms(w, pos).map((l) => wn.lookup(l, pos)?.tagSenseCount ?? 0)));
    const most = Math.max(...tagged);
    return POS.filter((_, i) => tagged[i] === most);
  };
  // A quality word: an adjective is one of its most used parts of speech.
  const quality = (w: string | undefined): boolean => w !== undefined && LOOKUP.test(w) && dominant(w).some((p) => p === 'a');
  // A comparative said in one word ("whiter", "brighter"): an adjective whose base form is shorter.
  // Not a word of its own ("after", "customer", "number", "layer": their morphy stems aft, custom, numb, lay are
  // adjectives), unless WordNet calls it a comparative ("better").
  const comparative = (w: string): boolean => {
    if (!/er$/.test(w) || !LOOKUP.test(w)) return false;
    if (POS.some((pos) => wn.lookup(w, pos))) return (['a', 'r'] as const).some((pos) => senses(w, pos, 1).some(([l, s]) => l === w && /^\(comparative of/.test(s.gloss)));
    return wn.baseForms(w, 'a').some((b) => b !== w && b.length < w.length && wn.lookup(b, 'a') !== undefined);
  };
  // A verb phrase of its own ("make sure", "make believe"), not a verb and its result; "make it" is read as a verb and its object.
  const idiom = (w: string, next: string | undefined): boolean => next !== undefined && !FUNCTION_WORDS.has(next) && LOOKUP.test(next) && wn.lookup(`${w}_${next}`, 'v') !== undefined;
  // The request asks for a change of quality: a comparative, a degree word before a quality, or a verb of causing or
  // seeming followed by a quality or "like" ("make it fuzzy", "feel like a movie poster").
  const asksChange = (words: readonly string[]): boolean =>
    words.some((w, i) => {
      if (comparative(w) || /.-like$/.test(w) || (DEGREE.has(w) && quality(words[i + 1]))) return true;
      if (!RESULTATIVE.has(w) || idiom(w, words[i + 1])) return false;
      return words.slice(i + 1, i + 1 + RESULT_SPAN).some((x, j) => quality(x) || (x === 'like' && j > 0) || (j === 0 && x === 'like'));
    });
  return { dominant, acts, asksChange };
}

/** The association reader over `wn`. */
export function createAssociate(wn: WordNet): Associate {
  const textCache = new Map<string, TextConcepts>();
  const lex = new Lexicon(wn);
  const senses = (w: string, pos: Pos, n: number): [string, Synset][] => {
    const out: [string, Synset][] = [];
    if (!LOOKUP.test(w)) return out;
    for (const lemma of wn.baseForms(w, pos)) {
      for (const o of (wn.lookup(lemma, pos)?.offsets ?? []).slice(0, n)) {
        const s = wn.synset(pos, o);
        if (s) out.push([lemma, s]);
      }
    }
    return out;
  };
  const { dominant, acts, asksChange } = requestReading(wn, senses);
  // A sense with those it derives from or into (for its `lemma`), and the head of its adjective cluster.
  const near = (lemma: string, s: Synset, into: Set<string>): void => {
    into.add(`${s.pos}:${s.offset}`);
    const index = s.words.indexOf(lemma);
    for (const p of s.pointers) {
      if (p.symbol === '+' && (p.source === 0 || p.source === index + 1)) into.add(`${p.pos}:${p.offset}`);
      if (p.symbol === '&' && s.satellite) into.add(`${p.pos}:${p.offset}`);
    }
  };
  // A word whose first senses say a time, a quantity or a place by name ("Monday", "morning", "two", "Lisbon"): a
  // value any scenario's slot takes, not what a scenario is about.
  const valueWord = (w: string): boolean =>
    POS.some((pos) => senses(w, pos, WORD_SENSES).some(([, s]) => VALUE_FILES.has(s.lexFile) || s.pointers.some((p) => p.symbol === '@i')));
  const conceptsOf = (text: ScenarioText): TextConcepts => {
    const cacheKey = [text.names, text.values, text.prose].map((x) => x.slice(0, MAX_CHARS * 4)).join('\u0000');
    const hit = textCache.get(cacheKey);
    if (hit) return hit;
    const concepts = new Set<string>();
    const lemmas = new Set<string>();
    const names = new Set<string>();
    // Concepts from the names only: the prose of descriptions reaches too far ("connection", "state", "process").
    // The words defining the names' senses: a request's word they use is said where the template's word is missing
    // ("cinematic" → cinema, "a medium that disseminates moving pictures": a movie is a picture).
    const defined = new Set<string>();
    const read = (t: string, into: Set<string>, withConcepts: boolean): void => {
      for (const w of new Set(contentWords(t, MAX_TEXT_WORDS))) {
        if (valueWord(w)) continue;
        for (const pos of POS) {
          for (const [lemma, s] of senses(w, pos, TEXT_SENSES)) {
            into.add(lemma);
            if (!withConcepts) continue;
            near(lemma, s, concepts);
            for (const d of definitionWords(s.gloss)) for (const b of wn.baseForms(d, 'n')) defined.add(b);
          }
        }
      }
    };
    read(text.names, names, true);
    read(text.values, names, true);
    read(text.prose, lemmas, false);
    for (const l of names) lemmas.add(l);
    const kinds = lex.fieldOf(contentWords(text.names, MAX_TEXT_WORDS), 'kinds');
    const out = { concepts, lemmas, names, kinds, defined };
    if (textCache.size >= MAX_CACHED_TEXTS) textCache.delete(textCache.keys().next().value as string);
    textCache.set(cacheKey, out);
    return out;
  };
  // How strongly `w` meets a scenario's concepts: 1 by a sense, a derivation or a kind; GLOSS_STRENGTH by a definition;
  // LITERAL when the word is the text's own (the mapper reads those, and refuses them where they say no request of it).
  const meets = (w: string, t: TextConcepts): Meeting => {
    if (POS.some((pos) => wn.baseForms(w, pos).some((l) => t.lemmas.has(l)))) return { m: LITERAL, thing: false };
    let gloss = 0;
    const thing = isThing(w, t);
    for (const pos of dominant(w)) {
      for (const [lemma, s] of senses(w, pos, WORD_SENSES)) {
        const own = new Set<string>();
        near(lemma, s, own);
        if ([...own].some((c) => t.concepts.has(c))) return { m: 1, thing };
        if (pos === 'n' && lex.inField(w, t.kinds)) return { m: 1, thing };
        if (gloss > 0) continue;
        // A definition of the request's word uses one of the names, or one of the names' definitions uses the word or
        // a synonym of it (one word, a noun sense).
        if (definitionWords(s.gloss).some((d) => t.names.has(d) || POS.some((q) => wn.baseForms(d, q).some((l) => t.names.has(l))))) gloss = GLOSS_STRENGTH;
        else if (pos === 'n' && s.words.some((m) => !m.includes('_') && t.defined.has(m))) gloss = GLOSS_STRENGTH;
      }
    }
    return { m: gloss, thing: false };
  };
  // The scenario's own thing (`AssociationEvidence.thing`): a noun sense that is one of its names' own, or a first sense
  // that is a kind of them whose every broader kind is theirs too.
  const isThing = (w: string, t: TextConcepts): boolean =>
    senses(w, 'n', WORD_SENSES).some(([, s], i) => {
      if (t.concepts.has(`n:${s.offset}`)) return true;
      if (i > 0 || !t.kinds.has(`n:${s.offset}`)) return false;
      const up = s.pointers.filter((p) => p.symbol === '@');
      return up.length > 0 && up.every((p) => t.kinds.has(`${p.pos}:${p.offset}`) || t.concepts.has(`${p.pos}:${p.offset}`));
    });
  // Whether a verb of the request meets the scenario: one of its words, or a verb sense (or its derivations) of its names.
  const actMeets = (v: string, t: TextConcepts): boolean =>
    POS.some((pos) => wn.baseForms(v, pos).some((l) => t.lemmas.has(l))) ||
    senses(v, 'v', WORD_SENSES).some(([lemma, s]) => {
      const own = new Set<string>();
      near(lemma, s, own);
      return [...own].some((c) => t.concepts.has(c));
    });
  // What each word meets, per scenario text (bounded: the words are outside strings).
  const met = new WeakMap<TextConcepts, Map<string, Meeting>>();
  const meetsCached = (w: string, t: TextConcepts): Meeting => {
    let m = met.get(t);
    if (!m) met.set(t, (m = new Map()));
    const hit = m.get(w);
    if (hit !== undefined) return hit;
    const out = meets(w, t);
    if (m.size >= MAX_CACHED_WORDS) m.clear();
    m.set(w, out);
    return out;
  };
  const senseCount = (w: string): number => POS.reduce((n, pos) => n + Math.max(0, ...wn.baseForms(w, pos).map((l) => wn.lookup(l, pos)?.offsets.length ?? 0)), 0);
  return (utterance, texts) => {
    const read = texts.map(conceptsOf);
    const words = [...new Set(contentWords(utterance.slice(0, MAX_CHARS), MAX_PROBES))];
    const all = [...utterance.slice(0, MAX_CHARS).toLowerCase().matchAll(/[a-z][a-z'-]*/g)].map((m) => m[0]).slice(0, MAX_PROBES * 4);
    const wish = asksChange(all);
    const opened = acts(utterance.slice(0, MAX_CHARS));
    const weights = read.map(() => [] as [string, number, number, boolean][]);
    const idfBase = Math.log(read.length + 1);
    for (const w of words) {
      if (valueWord(w)) continue;
      const met = read.map((t) => meetsCached(w, t));
      const df = met.filter(({ m }) => m > 0).length;
      if (df === 0) continue;
      const idf = Math.log((read.length + 1) / df) / idfBase;
      const n = senseCount(w);
      const specific = n <= SPECIFIC_SENSES ? 1 : SPECIFIC_SENSES / n;
      met.forEach(({ m, thing }, i) => {
        if (m > 0 && m !== LITERAL) weights[i]?.push([w, m * idf * specific, m, thing]);
      });
    }
    return weights.map((ws, i) => {
      const best = ws.sort((a, b) => b[1] - a[1]).slice(0, 3);
      const t = read[i] as TextConcepts;
      const otherAct = opened.some((v) => !actMeets(v, t));
      return { weight: Math.round(best.reduce((a, [, x]) => a + x, 0) * 1000) / 1000, words: best.map(([w]) => w), direct: best.filter(([, , m]) => m === 1).length, wish, thing: best.some(([, , , x]) => x), otherAct };
    });
  };
}
