/**
 * The `action` ranker of tool selection (draft-chang §3.4, retrieval-based selection): verb–object structure.
 * A tool's name says what it does ("move_file", "git_create_branch", "updatePet") and its description's first
 * word usually repeats the act ("Switches branches", "Records changes"); a request says the act in its own verb
 * ("relocate photo.jpg", "make a folder", "erase the note", "the deletion of ..."). The two meet where WordNet
 * joins them: the same sense, a noun derived from the verb, or a troponym path ("relocate" is a way to
 * "move"). The request's first word that reads as a verb is its act (an imperative's verb, a question's main verb).
 * A concept many tools' acts reach (a generic "get", "change") counts little (IDF over the list).
 *
 * Pure: the lexicon is passed in. Words come from the caller's tokenizer; dictionaries keyed by them are Maps.
 */
import type { ActionReading, SelectLexicon } from './concepts';

export interface ActionIndex {
  /** Per tool: concept id → the best weight its acts reach it with (their own senses). */
  tools: Map<string, number>[];
  /**
   * Per tool: the concepts one step above its acts (their hypernyms), with the weight reached: matched only by a
   * request word's own senses, so the request may name the general act of a specific tool ("modify" for "update"),
   * never a sibling (both sides going up met at "change").
   */
  general?: Map<string, number>[];
  /** Concept id → its IDF over the list, scaled to (0, 1]. */
  idf: Map<string, number>;
}

/** Weight of the request's later verb readings against its first (an imperative's verb, or a question's main verb). */
export const LATER_VERB_WEIGHT = 0.5;
/**
 * A tool's act is read as its own senses only (depth 0); the request's words go one step up the troponym tree.
 * Expanding both sides made siblings meet ("make" and "get" under "change"), which lost requests on dev.
 */
const TOOL_DEPTH = 0;
/** A word reads as the act when at least this share of its senses in use are verbs ("make", "move"; not "file", "branch"). */
export const VERB_READING = 0.5;

function readingOf(lexicon: SelectLexicon, word: string): ActionReading | undefined {
  const r = lexicon.actions?.(word);
  return r && Array.isArray(r.concepts) && typeof r.verbal === 'number' ? r : undefined;
}

/** The forms of "be" (its paradigm, not a list fitted to requests). */
const BE_FORMS: ReadonlySet<string> = new Set(['be', 'am', 'is', 'are', 'was', 'were', 'been', 'being', "isn't", "aren't", "wasn't", "weren't"]);
/**
 * A word ending in a clitic of "be" (or of "has", or a possessive, which the tokenizer cannot tell apart): "what's",
 * "it's", "you're", "i'm". Either way the word after it is no act ("what's changed", "jdoe's email").
 */
const BE_CLITIC = /'(?:s|re|m)$/;
const isBe = (t: string | undefined): boolean => t !== undefined && (BE_FORMS.has(t) || BE_CLITIC.test(t));

/** Tokens of a request the action ranker reads (the rest is ignored: hostile text stays cheap). */
const MAX_ACTION_TOKENS = 256;

/**
 * The request's words as the action ranker reads them: lowercase letter runs in order (a typographic apostrophe read
 * as '), a word and the next one or two joined when WordNet lists the phrase as a verb (the longest first: "get rid
 * of" → get_rid_of, "look up" → look_up, "sign in" → sign_in; any phrase WordNet lists, idioms with an article such
 * as "get the picture" too), the `stop` words dropped, and no form of "be" nor the word right after one.
 */
export function actionWords(text: string, lexicon: SelectLexicon, stop: ReadonlySet<string>): string[] {
  if (typeof text !== 'string') return [];
  const tokens = (text.slice(0, 4096).toLowerCase().replace(/\u2019/g, "'").match(/[a-z][a-z'-]*/g) ?? []).slice(0, MAX_ACTION_TOKENS);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    // After a form of "be" a verb form is a passive participle or a predicate ("which files are modified"): a state,
    // not the act asked for (English grammar; the forms are the verb's own paradigm).
    // A form of "be" is never the act itself either ("which PRs have been merged" asks no "be").
    if (stop.has(t) || isBe(t) || (i > 0 && isBe(tokens[i - 1]))) continue;
    const next = tokens[i + 1];
    const after = tokens[i + 2];
    const known = (phrase: string): boolean => (readingOf(lexicon, phrase)?.concepts.length ?? 0) > 0;
    // The longest phrase WordNet lists as a verb: three words ("get rid of", "go in for", "get the picture"), else two.
    if (next !== undefined && after !== undefined && known(`${t}_${next}_${after}`)) {
      out.push(`${t}_${next}_${after}`);
      i += 2;
    } else if (next !== undefined && known(`${t}_${next}`)) {
      out.push(`${t}_${next}`);
      i++;
    } else out.push(t);
  }
  return out;
}

/** A plural noun's singular by its regular ending ("requests" → request); other words as they are. */
function singular(w: string): string {
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/**
 * The word of a name (its prefix left out) read as its verb: the first, unless the first two are a pair `compounds`
 * holds (the list's other names use it as an object: pull_request_read beside list_pull_requests), then the third.
 */
function nameHead(rest: readonly string[], compounds: ReadonlySet<string>): string | undefined {
  const [a, b] = rest;
  return a !== undefined && b !== undefined && compounds.has(`${a} ${singular(b)}`) ? rest[2] : a;
}

/**
 * The acts of each tool: the first word of its name when it can be a verb (after the words most of the list's names
 * share, as "git" in git_status; past a compound noun the other names use as an object, as "pull request" in
 * pull_request_read), and the first of the first two words of its description that can be one (a phrasal verb there
 * with its bare verb beside it). A tool act's general act is its first sense's hypernym.
 * `names[i]`: the words of tool i's name in order; `descriptions[i]`: the words of its description in order.
 */
export function actionIndex(names: readonly (readonly string[])[], descriptions: readonly (readonly string[])[], lexicon: SelectLexicon): ActionIndex {
  const n = names.length;
  const nameDf = new Map<string, number>();
  for (const ws of names) for (const w of new Set(ws)) nameDf.set(w, (nameDf.get(w) ?? 0) + 1);
  const prefix = (w: string): boolean => n >= 3 && (nameDf.get(w) ?? 0) > n / 2;
  // Word pairs the names use past their first word (after the prefix): objects ("list_pull_requests" → pull request).
  const compounds = new Set<string>();
  for (const ws of names) {
    const rest = ws.filter((w) => !prefix(w));
    for (let j = 1; j + 1 < rest.length && j < 16; j++) compounds.add(`${rest[j]} ${singular(rest[j + 1] as string)}`);
  }
  const verbal = (w: string | undefined): number => (w === undefined ? 0 : (readingOf(lexicon, w)?.verbal ?? 0));
  const general: Map<string, number>[] = [];
  const tools = names.map((ws, i) => {
    const acts: string[] = [];
    // Tool names begin with their verb by convention (read_file, createUser): the first word after the list's prefix,
    // unless it opens a compound noun the list's other names use as their object (then the word after the compound).
    const head = nameHead(ws.filter((w) => !prefix(w)), compounds);
    if (verbal(head) > 0) acts.push(head as string);
    // A description usually opens with it too, sometimes after an adverb ("Recursively search ...").
    const opening = (descriptions[i] ?? []).slice(0, 2).find((w) => verbal(w) > 0);
    if (opening !== undefined) acts.push(opening);
    // A phrasal verb keeps its verb as an act too: the request may part them ("log me out" for "Logs out ...").
    const bare = opening?.split('_')[0];
    if (bare !== undefined && bare !== opening && verbal(bare) > 0) acts.push(bare);
    const out = new Map<string, number>();
    const up = new Map<string, number>();
    for (const a of acts) {
      for (const c of readingOf(lexicon, a)?.concepts ?? []) {
        // The general act is read from the act's first sense only: a rare sense's hypernym ("add" as "state further"
        // → tell) would meet everyday request verbs.
        const into = c.depth <= TOOL_DEPTH ? out : c.depth === TOOL_DEPTH + 1 && c.first === true ? up : undefined;
        if (into && (into.get(c.id) ?? 0) < c.weight) into.set(c.id, c.weight);
      }
    }
    general.push(up);
    return out;
  });
  const df = new Map<string, number>();
  for (const t of tools) for (const id of t.keys()) df.set(id, (df.get(id) ?? 0) + 1);
  for (const t of general) for (const id of t.keys()) df.set(id, (df.get(id) ?? 0) + 1);
  const top = Math.log((n + 1) / 0.5);
  const idf = new Map<string, number>();
  for (const [id, d] of df) idf.set(id, Math.log((n + 1) / (d + 0.5)) / top);
  return { tools, general, idf };
}

/**
 * Per tool: over the request's first word that reads as a verb (weight 1) and its nouns that derive from verbs
 * (`LATER_VERB_WEIGHT`), Σ weight × the best concept it shares with the tool's acts (request weight × tool weight ×
 * IDF). All zero when no request word reaches any tool's act.
 */
export function actionScores(index: ActionIndex, requestWords: readonly string[], lexicon: SelectLexicon): number[] {
  const out = new Array<number>(index.tools.length).fill(0);
  let first = true;
  for (const w of new Set(requestWords)) {
    const r = readingOf(lexicon, w);
    if (!r || r.concepts.length === 0) continue;
    let weight: number;
    if (first && r.verbal >= VERB_READING) {
      weight = 1;
      first = false;
      // Later words that can be verbs are mostly participles and nouns ("a file named invoice"): left out.
    } else if (r.verbal > 0) continue;
    // A noun that derives from a verb ("the deletion of ...") is the act named as a thing.
    else weight = LATER_VERB_WEIGHT;
    index.tools.forEach((t, i) => {
      let best = 0;
      const up = index.general?.[i];
      for (const c of r.concepts) {
        // The request's own sense may meet the tool act's hypernym; the request's hypernyms meet the act itself only.
        const tw = Math.max(t.get(c.id) ?? 0, c.depth === 0 ? (up?.get(c.id) ?? 0) : 0);
        if (tw === 0) continue;
        const s = c.weight * tw * (index.idf.get(c.id) ?? 0);
        if (s > best) best = s;
      }
      out[i] = (out[i] as number) + weight * best;
    });
  }
  return out;
}
