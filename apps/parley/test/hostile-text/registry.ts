/**
 * Every function through which outside text (draft-zhou §7: `other` fragments,
 * payload strings, utterances, tool names and descriptions, key names) reaches a
 * regular expression or a dictionary, in one list. The ReDoS test times each one
 * on pathological inputs and the property suite drives each one with hostile
 * strings; `REGEX_FILES` below is checked against the sources, so a file of the
 * text-path libraries that gains a regex and is in no entry fails the test.
 *
 * An entry is the function as outside text reaches it (the public entry point),
 * and names the source files whose patterns it exercises.
 */
import { createOfflineMapper } from '@parley/client/offline';
import { associateByWordNet, countsNounByWordNet, createParleyClient, glossByGlossary, scenarioText, selectionQuery, valuesOutOfPlace } from '@parley/client';
import { UsageStore, lexicalTerms, parameterShapes, requestValues, selectTools, splitIdentifier, toolText, wordNetLexicon, type SelectLexicon, type ToolLike } from '@parley/adol';
import { WordNet, createOfflineEmbedder, defaultDictDir, loadWordNetLexicon, scriptWords, tokenize } from '@parley/embeddings';
import { addToCluster, clusterConcept, coHyponymChoice, contextCosine, emptyCluster, evaluateNeedGroup, poolConfig, countCoversFlag, cutOnWord, frameChoices, sharedKind, editKeyDefinition, hyphenParts, idPattern, identifiers, induceKey, joinOldCodes, markDates, properNouns, sameListShape, keyNameSignature, profileCosine, refineDescription, sanitizeFragment, scrubPersonalData, valueNounKind, wordProfile, type Lexicon } from '@parley/evolution';
import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { createRuleInducer, prepareFragments } from '@parley/llm';
import { createSemanticPool, securityRelevance } from '@parley/pool';
import { createEmbeddedIndex } from '@parley/vectors';
import { ParleyError, isFullDate, negotiateLanguage, otherFragments, scenarioId } from '@parley/protocol';
import { renderSelection, selectionFigures } from '@parley/cli/tokens';
import { forwarded } from '@parley/cli/mcp';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listTools, parseCallToolMeta } from '@parley/gateway';

export interface TextPath {
  /** Library and function, as a reader finds it. */
  readonly name: string;
  /** Source files (repository paths) whose regular expressions this entry exercises. */
  readonly files: readonly string[];
  /** Runs the path on `text`; may throw a ParleyError (a typed refusal), never anything else. */
  run(text: string): unknown;
  /**
   * How many times `run` hands the whole text to the path (default 1): the ReDoS budget is per MiB read, so a run
   * that ingests it seven times has seven budgets (a superlinear regex at a MiB still takes minutes, not ms).
   */
  readonly reads?: number;
}

const embedder = createOfflineEmbedder();
let lexicon: Promise<Lexicon> | undefined;
const wordnetLexicon = (): Promise<Lexicon> => (lexicon ??= loadWordNetLexicon());
let senses: Promise<SelectLexicon> | undefined;
const wordSenses = (): Promise<SelectLexicon> => (senses ??= WordNet.load({ dictDir: defaultDictDir() }).then((wn) => wordNetLexicon(wn)));
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const TOOLS: ToolLike[] = [
  { name: 'book_seat', description: 'Book a window or aisle seat' },
  { name: 'order_meal', description: 'Order a vegetarian meal' },
];
/** Tools with parameters, for the values ranker. */
const SHAPED_TOOLS: ToolLike[] = [
  ...TOOLS,
  { name: 'open_page', description: 'Open a web page', inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } } },
];
const REF = { today: '2026-11-27', timezone: 'Europe/Paris' };
const seatKey = flightBookingTemplate.keys.find((k) => k.key_name !== 'other') ?? flightBookingTemplate.keys[0]!;

/** A path whose ordinary answer to most text is a typed refusal: the refusal is its result (anything else still throws). */
function refusalOrResult(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    if (e instanceof ParleyError) return { refused: e.type, path: e.path, rule: e.rule };
    throw e;
  }
}

export const TEXT_PATHS: readonly TextPath[] = [
  { name: 'evolution sanitizeFragment', files: ['libs/evolution/src/sanitize.ts', 'libs/evolution/src/pii.ts'], run: (t) => sanitizeFragment(t) },
  { name: 'evolution sanitizeFragment (max 4000)', files: ['libs/evolution/src/sanitize.ts'], run: (t) => sanitizeFragment(t, 4000) },
  { name: 'evolution cutOnWord', files: ['libs/evolution/src/sanitize.ts'], run: (t) => cutOnWord(t, 200) },
  { name: 'evolution scrubPersonalData', files: ['libs/evolution/src/pii.ts'], run: (t) => scrubPersonalData(t) },
  {
    name: 'evolution induceKey (WordNet lexicon)',
    files: ['libs/evolution/src/induce.ts', 'libs/evolution/src/people.ts', 'libs/evolution/src/kinds.ts', 'libs/evolution/src/lexicon.ts', 'libs/embeddings/src/lexicon.ts', 'libs/embeddings/src/wordnet.ts'],
    run: async (t) => induceKey([{ text: t, count: 2, clients: ['#1', '#2'] }, { text: 'window seat', count: 2, clients: ['#1', '#2'] }], undefined, { lexicon: await wordnetLexicon() }),
  },
  {
    // A yes/no need said as an act on an object (acts.ts): the text as the verb's object, as a verb, and as the act's noun.
    name: 'evolution induceKey act naming (WordNet lexicon)',
    files: ['libs/evolution/src/acts.ts', 'libs/evolution/src/induce.ts', 'libs/embeddings/src/lexicon.ts'],
    run: async (t) =>
      induceKey(
        [
          { text: `remove the ${t}`, count: 2, clients: ['#1', '#2'] },
          { text: `please ${t} the logo`, count: 2, clients: ['#3', '#4'] },
          { text: `${t} removal`, count: 2, clients: ['#5', '#6'] },
        ],
        undefined,
        { lexicon: await wordnetLexicon() },
      ),
  },
  // A number that labels its noun (positions.ts: "floor 12", "the 3rd floor", "aged 3") and "one" as a prop-word.
  {
    name: 'evolution induceKey positions and prop-word one (WordNet lexicon)',
    files: ['libs/evolution/src/positions.ts', 'libs/evolution/src/induce.ts', 'libs/embeddings/src/lexicon.ts'],
    run: async (t) =>
      induceKey(
        [
          { text: `${t} 12`, count: 2, clients: ['#1', '#2'] },
          { text: `the 3rd ${t}`, count: 2, clients: ['#3', '#4'] },
          { text: `aged ${t}, the final one`, count: 2, clients: ['#5', '#6'] },
          { text: `${t} 4 ${t}`, count: 2, clients: ['#7', '#8'] },
        ],
        undefined,
        { lexicon: await wordnetLexicon() },
      ),
  },
  // "N by M" as a proportion, a fraction read beside its unit, "N times" before a comparative (induce.ts).
  {
    name: 'evolution induceKey proportions, unit fractions and factors (WordNet lexicon)',
    files: ['libs/evolution/src/induce.ts', 'libs/embeddings/src/lexicon.ts'],
    run: async (t) =>
      induceKey(
        [
          { text: `a ${t}, 4 by 5 ${t}`, count: 2, clients: ['#1', '#2'] },
          { text: `2 hours and a half ${t} half an ${t}`, count: 2, clients: ['#3', '#4'] },
          { text: `3 times ${t} faster`, count: 2, clients: ['#5', '#6'] },
          { text: `${t} 3 weeks and a half`, count: 2, clients: ['#7', '#8'] },
        ],
        undefined,
        { lexicon: await wordnetLexicon() },
      ),
  },
  // GloVe relatedness of two fragment words (the inducer asks it of every pair of a cluster's nouns).
  {
    name: 'embeddings WordNet lexicon related (GloVe)',
    files: ['libs/embeddings/src/lexicon.ts', 'libs/embeddings/src/word-vectors.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      return [lex.related?.(t, 'seat') ?? null, lex.related?.('seat', t) ?? null, lex.related?.(t, t) ?? null];
    },
  },
  // Whether a fragment word's first noun sense is a named thing (WordNet instance link): sharedKind asks it of values.
  {
    name: 'embeddings WordNet lexicon instance',
    files: ['libs/embeddings/src/lexicon.ts', 'libs/evolution/src/lexicon.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      return [lex.instance?.(t, 'n') ?? null, lex.instance?.(t, 'v') ?? null, lex.instance?.(t.toLowerCase(), 'n') ?? null];
    },
  },
  // An operator's edit_patch: name, values and description are outside text too (typed in a console or a CLI).
  {
    name: 'evolution editKeyDefinition (operator edit)',
    files: ['libs/evolution/src/edit.ts'],
    run: (t) => refusalOrResult(() => editKeyDefinition({ key_name: 'max_price', key_type: 'number', required: false, semantic_description: 'Max price.' }, { rename: t, values: [t, '1'], description: t })),
  },
  {
    name: 'evolution editKeyDefinition (number values)',
    files: ['libs/evolution/src/edit.ts'],
    run: (t) => refusalOrResult(() => editKeyDefinition({ key_name: 'max_price', key_type: 'number', required: false, semantic_description: 'Max price.' }, { values: [t] })),
  },
  { name: 'evolution keyNameSignature', files: ['libs/evolution/src/names.ts'], run: (t) => keyNameSignature(t) },
  { name: 'evolution hyphenParts', files: ['libs/evolution/src/induce.ts'], run: (t) => hyphenParts(t, (w) => w.length > 3) },
  { name: 'evolution properNouns', files: ['libs/evolution/src/induce.ts'], run: (t) => properNouns([t, `in ${t}`]) },
  // Calendar dates read back as one token before clock times ("14 November", "Nov 28", "2026-11-21", "11月20日").
  { name: 'evolution markDates', files: ['libs/evolution/src/induce.ts'], run: (t) => markDates(`${t} 14 November`) },
  // Identifiers of a fragment, and two clusters' lists compared by shape (one key per intent for lists).
  { name: 'evolution identifiers', files: ['libs/evolution/src/induce.ts', 'libs/evolution/src/sanitize.ts'], run: (t) => identifiers(`${t} AB-1201 ${t}`) },
  { name: 'evolution joinOldCodes', files: ['libs/evolution/src/sanitize.ts'], run: (t) => joinOldCodes(`${t} PG 1042 ${t}`, (w) => w === 'constructor') },
  { name: 'evolution sameListShape', files: ['libs/evolution/src/sibling.ts', 'libs/evolution/src/induce.ts'], run: (t) => sameListShape([{ text: `${t} AB-1201, AB-1202`, count: 2 }], [{ text: t, count: 2 }]) },
  { name: 'evolution idPattern', files: ['libs/evolution/src/induce.ts'], run: (t) => idPattern([t, t.toUpperCase(), 'AB-12']) },
  {
    // Need groups (zhou §6.2.1 dual gate): the group is gated as one cluster, its samples chosen again from every
    // member's clients (fragment texts; client ids are outside strings too, kept in Maps).
    name: 'evolution evaluateNeedGroup (group samples and heat)',
    files: ['libs/evolution/src/need-group.ts', 'libs/evolution/src/cluster.ts', 'libs/evolution/src/sanitize.ts'],
    run: (t) => {
      const pool = { scenario: 'photo_retouch', scope: 'global' as const };
      const at = Date.UTC(2026, 10, 27);
      const fill = (id: string, clients: readonly string[]) => clients.reduce((c, client, i) => addToCluster(c, { text: t, client_id: client, at: at + i }, sanitizeFragment(t).text, 0.9), emptyCluster(id, pool, at));
      return evaluateNeedGroup([fill('g1', [t || 'x', 'constructor', '__proto__']), fill('g2', ['toString', t || 'y'])], at + 10, poolConfig()).evaluation;
    },
  },
  // Need groups' shared-context test: two clusters' word profiles, each without its most-said word when the other
  // lacks it (the value set aside), compared by cosine; the words are outside text, kept in Maps.
  { name: 'evolution contextCosine', files: ['libs/evolution/src/need-group.ts', 'libs/evolution/src/sibling.ts'], run: (t) => contextCosine(wordProfile([{ text: `${t} ${t} finish`, count: 2, clients: [t, 'constructor'] }]), wordProfile([{ text: `matte finish ${t}`, count: 1 }, { text: '__proto__ toString', count: 2, clients: ['a', 'b'] }])) },
  {
    // The pool's need-group path (semantic-pool.ts needGroupStep → nearUntriggered): a global cluster of two clients
    // below the gate reads its neighbours' sanitised samples for the shared context. A loose share and context make
    // every cluster a candidate, so the hostile clusters' samples are read on every fragment; bounded by
    // 2 × need_group_max neighbours of at most max_samples sanitised texts (max_fragment_chars each). A fixed text
    // said twice by six clients fires alone first, so the later groups meet a fired neighbour (the cut where a
    // group ends), and two last clients bring a new hostile-worded value after the first group has fired.
    name: 'pool need groups (nearUntriggered shared context)',
    files: ['libs/pool/src/semantic-pool.ts', 'libs/evolution/src/need-group.ts', 'libs/evolution/src/sibling.ts', 'libs/evolution/src/sanitize.ts'],
    // The hostile text is ingested seven times (two clients alone, two beside "matte finish", one more alone, two
    // beside "gloss finish").
    reads: 7,
    run: async (t) => {
      const pool = await createSemanticPool({ embedder, index: createEmbeddedIndex(), config: { similarity_threshold: 0.99, need_group_share: 0.01, need_group_context: 0.01, need_group_max: 4, min_phrasings: 1 } });
      const at = Date.UTC(2026, 10, 27);
      const fired = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].flatMap((c): [string, string][] => [[c, 'constructor __proto__ matte finish'], [c, 'constructor __proto__ matte finish']]);
      const plan: [string, string][] = [...fired, ['constructor', t], ['__proto__', t], ['a', `${t} matte finish`], ['toString', `${t} matte finish`], ['c', 'a matte finish please'], ['d', 'a matte finish please'], ['e', t], ['g', `gloss finish ${t}`], ['valueOf', `gloss finish ${t}`]];
      const out: unknown[] = [];
      for (const [i, [client, text]] of plan.entries()) {
        const r = await pool.ingest({ ts: at + i * 60_000, scenario: 'photo_retouch', client_id: client, text });
        out.push([r.global_cluster_id, r.matured.length]);
      }
      return [out, pool.clusters(at + 3_600_000).map((c) => [c.id, c.size, c.distinct_clients, c.group_leader ?? null])];
    },
  },
  {
    name: 'evolution clusterConcept (WordNet lexicon)',
    files: ['libs/evolution/src/concept.ts'],
    run: async (t) => clusterConcept([{ text: t, count: 2, clients: ['#1', t] }, { text: `${t} seat`, count: 1, clients: ['#2'] }], await wordnetLexicon()),
  },
  {
    // A choice's values named by the hypernym they are co-hyponyms under (taxi / limousine → car_type), and two keys
    // joined as one choice by their value words (key names and enum values are induced from fragments). The inducer
    // path that calls sharedKind on fragment words is the 'evolution induceKey' entry above.
    name: 'evolution sharedKind and coHyponymChoice (WordNet lexicon)',
    files: ['libs/evolution/src/cohyponym.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      const flag = { key_name: `needs_${t}`, key_type: 'boolean' as const, required: false, default_value: null, semantic_description: t };
      return [sharedKind(lex, [t, 'taxi'], t), coHyponymChoice(flag, { ...flag, key_name: 'car_type', key_type: 'string', enum: ['taxi', t] }, lex)];
    },
  },
  {
    // A count covers the flag of its noun (count-covers.ts): key names induced from fragments and the scenario id,
    // split and looked up through the lexicon, never used as object keys.
    name: 'evolution countCoversFlag (WordNet lexicon)',
    files: ['libs/evolution/src/count-covers.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      const key = (key_name: string, key_type: 'integer' | 'boolean') => ({ key_name, key_type, required: false, default_value: null, semantic_description: t });
      return [countCoversFlag(key(`${t}_count`, 'integer'), key(`needs_${t}`, 'boolean'), lex), countCoversFlag(key('bag_count', 'integer'), key(t, 'boolean'), lex, t)];
    },
  },
  {
    // A choice read from the slot its values fill (frames.ts): outside words as anchors and fillers, compared and
    // used as Map keys only.
    name: 'evolution frameChoices',
    files: ['libs/evolution/src/frames.ts'],
    run: (t) => frameChoices([{ p: t, seq: [{ v: t, i: 0 }, { v: 'trip', i: 1 }, { v: t, i: 3, before: 'for' }], voters: new Map([[t, 1], ['b', 1]]) }], { isNoun: () => true, isVerb: (w) => w === t, canAnchor: () => true, canFill: () => true, sameConcept: (a, b) => a === b }, 2, 0.1),
  },
  {
    // The inducer path that names a choice by its values' kind (kindOfAlternatives → sharedKind) and reads slot
    // frames (framedChoice → frameChoices): short samples that form such a choice, the hostile text beside them.
    name: 'evolution induceKey kind and frame choices (WordNet lexicon)',
    files: ['libs/evolution/src/induce.ts', 'libs/evolution/src/cohyponym.ts', 'libs/evolution/src/frames.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      const short = t.slice(0, 2048);
      return induceKey([{ text: 'a taxi from the airport', count: 2, clients: ['a', 'b'] }, { text: 'a limousine from the airport', count: 2, clients: ['c', 'd'] }, { text: `a ${short} trip`, count: 2, clients: ['e', short] }, { text: 'a business trip', count: 2, clients: ['g', 'h'] }], undefined, { lexicon: lex });
    },
  },
  {
    // A choice said by its values alone (valueNounKind: fragment nouns looked up, summed in a Map), and the inducer
    // path that reads it (valueNounChoice): kinds of one thing said as nouns, the hostile text beside them.
    name: 'evolution valueNounKind and the value-noun choice (WordNet lexicon)',
    files: ['libs/evolution/src/cohyponym.ts', 'libs/evolution/src/induce.ts'],
    run: async (t) => {
      const lex = await wordnetLexicon();
      const short = t.slice(0, 2048);
      return [
        valueNounKind(lex, [{ word: t, weight: 3 }, { word: 'guitar', weight: 2 }, { word: 'drum', weight: 2 }]),
        induceKey([{ text: 'I carry my violin', count: 2, clients: ['a', 'b'] }, { text: 'bringing my guitar', count: 2, clients: ['c', 'd'] }, { text: `my ${short} and a drum`, count: 2, clients: ['e', short] }], undefined, { lexicon: lex }),
      ];
    },
  },
  { name: 'evolution wordProfile', files: ['libs/evolution/src/sibling.ts'], run: (t) => profileCosine(wordProfile([{ text: t, count: 1 }]), wordProfile([{ text: `${t} sky`, count: 2, clients: ['a', 'b'] }])) },
  { name: 'evolution refineDescription', files: ['libs/evolution/src/conflict.ts'], run: (t) => refineDescription(seatKey, [{ fragment: t, value: 'window', count: 2 }], t) },
  { name: 'embeddings tokenize', files: ['libs/embeddings/src/text.ts'], run: (t) => tokenize(t) },
  { name: 'embeddings scriptWords', files: ['libs/embeddings/src/text.ts'], run: (t) => scriptWords(t) },
  { name: 'embeddings offline embed', files: ['libs/embeddings/src/offline.ts', 'libs/embeddings/src/text.ts', 'libs/embeddings/src/wordnet.ts', 'libs/embeddings/src/word-vectors.ts'], run: (t) => embedder.embed([t]) },
  {
    // chang §3.4, selection that learns from use: outside text as list id, tool name, client and request, then read back and selected with.
    name: 'adol UsageStore record, examples and attribution (learned examples)',
    files: ['libs/adol/src/usage.ts', 'libs/adol/src/select.ts'],
    reads: 3,
    run: async (t) => {
      const usage = new UsageStore({ now: () => 0, sharedClients: 2 });
      usage.record(t.slice(0, 256), t.slice(0, 256), t, t.slice(0, 256));
      usage.record('list', 'book_seat', t, 'client');
      usage.record('list', 'book_seat', t, t.slice(0, 256));
      usage.noteSelection('list', 'other', t.slice(0, 256), t, ['order_meal', t]);
      usage.record('list', 'order_meal', usage.takeAttribution('list', 'other', t.slice(0, 256), 'order_meal') ?? '', 'other');
      const learned = usage.examples('list', 'client');
      await selectTools(TOOLS, t, { embedder, topK: 2, learnedExamples: learned });
      return selectTools(TOOLS, 'window seat', { embedder, topK: 2, learnedExamples: learned });
    },
  },
  { name: 'gateway parseCallToolMeta (_meta["dev.parley/request"])', files: ['apps/gateway/src/adol-params.ts'], run: (t) => refusalOrResult(() => parseCallToolMeta({ 'dev.parley/request': t })) },
  { name: 'adol splitIdentifier', files: ['libs/adol/src/select.ts'], run: (t) => splitIdentifier(t) },
  { name: 'adol lexicalTerms', files: ['libs/adol/src/select.ts'], run: (t) => lexicalTerms(t) },
  { name: 'adol toolText', files: ['libs/adol/src/select.ts'], run: (t) => toolText({ name: t, description: t }) },
  { name: 'adol selectTools (request)', files: ['libs/adol/src/select.ts'], run: (t) => selectTools(TOOLS, t, { embedder, topK: 2 }) },
  { name: 'adol selectTools (tool text)', files: ['libs/adol/src/select.ts'], run: (t) => selectTools([...TOOLS, { name: 'hostile', description: t }], 'window seat', { embedder, topK: 2 }) },
  { name: 'adol requestValues', files: ['libs/adol/src/values.ts'], run: (t) => requestValues(t) },
  {
    name: 'adol parameterShapes (parameter names, formats, descriptions)',
    files: ['libs/adol/src/values.ts'],
    run: (t) => parameterShapes({ type: 'object', properties: { [t]: { type: 'string', format: t, description: t }, path: { type: 'array', items: { type: 'string', format: t }, description: t } } }, t),
  },
  {
    name: 'adol selectTools (values and word senses, request)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/values.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools(SHAPED_TOOLS, `${t} https://example.com`, { embedder, lexicon: await wordSenses(), topK: 2 }),
  },
  {
    name: 'adol selectTools (action ranker: verb–object, request)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/action.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools(SHAPED_TOOLS, `look up ${t}`, { embedder, lexicon: await wordSenses(), topK: 2, rankers: ['bm25', 'dense', 'action'] }),
  },
  {
    name: 'adol selectTools (action ranker: verb–object, tool name and description)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/action.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools([...SHAPED_TOOLS, { name: t.slice(0, 4096), description: t }], 'relocate the file', { embedder, lexicon: await wordSenses(), topK: 2, rankers: ['bm25', 'dense', 'action'] }),
  },
  {
    name: 'adol selectTools (gloss ranker: definitions of name words, request)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools(SHAPED_TOOLS, `remove ${t}`, { embedder, lexicon: await wordSenses(), topK: 2, rankers: ['bm25', 'dense', 'gloss'] }),
  },
  {
    name: 'adol selectTools (gloss ranker: definitions of name words, tool name)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools([...SHAPED_TOOLS, { name: t.slice(0, 4096), description: t }], 'erase the page', { embedder, lexicon: await wordSenses(), topK: 2, rankers: ['bm25', 'dense', 'gloss'] }),
  },
  {
    name: 'adol selectTools (values and word senses, tool parameters)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/values.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) =>
      selectTools([...SHAPED_TOOLS, { name: 'hostile', description: 'a tool', inputSchema: { type: 'object', properties: { [t]: { type: 'string', format: t }, link: { type: 'string', format: t, description: t.slice(0, 4096) } } } }], 'open https://example.com', {
        embedder,
        lexicon: await wordSenses(),
        topK: 2,
      }),
  },
  {
    name: 'adol selectTools (params ranker: input-schema field words as senses, request)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => selectTools(SHAPED_TOOLS, `note ${t}`, { embedder, lexicon: await wordSenses(), topK: 2, rankers: ['bm25', 'dense', 'params'] }),
  },
  {
    name: 'adol selectTools (params ranker: input-schema field names and descriptions)',
    files: ['libs/adol/src/select.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) =>
      selectTools([...SHAPED_TOOLS, { name: 'hostile', description: 'a tool', inputSchema: { type: 'object', properties: { [t]: { type: 'string', description: t.slice(0, 4096), enum: [t] } } } }], 'leave a note', {
        embedder,
        lexicon: await wordSenses(),
        topK: 2,
        rankers: ['bm25', 'dense', 'params'],
      }),
  },
  {
    // chang §3.2 with §3.4: a client fetches the full schema of the tool a short answer led it to call.
    name: 'gateway MCP tools/list _meta.names (tool names the client sends)',
    files: ['apps/gateway/src/mcp.ts', 'apps/gateway/src/adol-params.ts'],
    // A fixed catalogue holding only 'x': every other name must be refused with a typed error (a lookup through a
    // plain object would find `constructor` or `__proto__` and answer instead, which fails the property test).
    // The text as one name, and each of its words (so `constructor` inside a sentence is asked for on its own).
    run: async (t) => {
      const catalogue = [{ name: 'x', description: 'a tool', entry: { tool: { name: 'x', inputSchema: { type: 'object' } } } }] as unknown as Parameters<typeof listTools>[0];
      const ask = async (name: string): Promise<unknown> => {
        try {
          const r = await listTools(catalogue, { names: [name] });
          if (name !== 'x') throw new Error(`_meta.names answered ${r.tools.length} tools for a name the catalogue does not hold`);
          return r;
        } catch (e) {
          // The refusal is the ordinary answer here (the ordinary text is not 'x'); anything else still throws.
          if (e instanceof ParleyError) return { refused: e.type, path: e.path, rule: e.rule };
          throw e;
        }
      };
      const words = [...new Set(t.slice(0, 4096).split(' ').filter((w) => w !== ''))].slice(0, 16);
      return Promise.all([t, ...words].map(ask));
    },
  },
  {
    // The stdio bridge reads the gateway's HTTP error body back into its JSON-RPC error (the body is outside text).
    name: 'cli parley mcp: an HTTP error body forwarded as its JSON-RPC error',
    files: ['apps/cli/src/commands/mcp.ts'],
    run: (t) =>
      [t, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: t.slice(0, 4096), data: { [t.slice(0, 64)]: t.slice(0, 4096) } } }), `{${t}`].map((body) => {
        const e = forwarded(new StreamableHTTPError(413, `Error POSTing to endpoint: ${body}`)) as Error & { code?: unknown; data?: unknown };
        return { code: e.code, message: e.message.length, data: e.data === undefined ? 'none' : 'some' };
      }),
  },
  {
    name: 'cli parley tokens --query (selection, the adaptive cut and its table: request)',
    files: ['apps/cli/src/commands/tokens.ts', 'libs/adol/src/select.ts', 'libs/adol/src/values.ts', 'libs/adol/src/concepts.ts'],
    run: async (t) => {
      const tools = SHAPED_TOOLS.map((x) => ({ inputSchema: { type: 'object' }, ...x })) as Parameters<typeof selectionFigures>[0];
      const f = await selectionFigures(tools, { full: 100, plain: 100 }, { query: t, topK: 3, autoCut: { minK: 1, gap: 0.5, ratio: 0.3 } }, embedder, await wordSenses());
      return { f, table: renderSelection(f, 100) };
    },
  },
  {
    name: 'cli parley tokens --query (selection, the adaptive cut and its table: tool name and description)',
    files: ['apps/cli/src/commands/tokens.ts', 'libs/adol/src/select.ts'],
    // The description is cut to 64 KiB here: selection's patterns read at most 16,384 units of it (timed on a MiB in
    // the selectTools entries above), and what is left is the token count of the tools returned, which is linear but
    // costs about 90 ms a MiB on a slow core (gpt-tokenizer), and is counted for the chosen, the top-K and the wire sets.
    run: async (t) => {
      const tools = [...SHAPED_TOOLS, { name: t.slice(0, 4096), description: t.slice(0, 65_536) }].map((x) => ({ inputSchema: { type: 'object' }, ...x })) as Parameters<typeof selectionFigures>[0];
      const f = await selectionFigures(tools, { full: 100, plain: 100 }, { query: 'book a window seat', topK: 3, autoCut: { minK: 2 } }, embedder, await wordSenses());
      return { f, table: renderSelection(f, 100) };
    },
  },
  {
    name: 'client mapUtterance (offline mapper)',
    files: ['libs/client/src/mapping.ts', 'libs/client/src/asking.ts', 'libs/client/src/offline/mapper.ts', 'libs/client/src/offline/text.ts', 'libs/client/src/offline/dates.ts', 'libs/client/src/offline/plan.ts', 'libs/client/src/offline/spelling.ts', 'libs/client/src/offline/examples.ts', 'libs/client/src/offline/languages.ts', 'libs/client/src/offline/glossary.ts'],
    run: (t) => client.mapUtterance(flightBookingTemplate, t, REF),
  },
  {
    // Dictionary entries of several words read whole (draft-zhou §6.1, glossary.ts `PHRASE_GLOSSES`, `phraseAt`,
    // `glossedPhrase`): the outside string around and inside phrases of the glossary, and the glossary's phrases
    // repeated past the glosses read per utterance (`MAX_GLOSSED`). Cut as above: a MiB is refused at once.
    name: 'client mapUtterance (offline mapper, glossed phrases of several words)',
    files: ['libs/client/src/offline/glossary.ts'],
    run: async (t) => {
      const cut = t.length > 4000 ? t : t.slice(0, 1000);
      const refused = (e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e));
      return [
        await client.mapUtterance(faultManagementTemplate, `Basisstation ${cut} außer Betrieb, fuera de ${cut} servicio, fuera de servicio ${cut}`, REF).catch(refused),
        await client.mapUtterance(flightBookingTemplate, `${'clase turista '.repeat(80)}${cut} hors service`, REF).catch(refused),
      ];
    },
  },
  {
    // Self-corrections ("no wait, make it", "make that", "rather than") and clock times in words ("twenty past nine",
    // "6 this morning") around the outside text (draft-zhou §6.1).
    name: 'client mapUtterance (offline mapper, self-corrections and clock times in words)',
    files: ['libs/client/src/offline/corrections.ts', 'libs/client/src/offline/dates.ts'],
    // One mapping (the repairs read no template): a MiB is refused at once (MAX_UTTERANCE_CHARS); a shorter text is cut
    // to 300 characters, since the longest accepted utterance made of repairs and clock phrases is timed, with its own
    // bound, in libs/client/test/offline-hostile.test.ts. `repairSpans` and `applyCorrections` themselves are timed on
    // a MiB of hostile tokens (scanned over at most MAX_SCANNED_TOKENS) in libs/client/test/offline-corrections-hostile.test.ts:
    // tokenizing a MiB alone takes longer than the budget, and the mapper never tokenizes more than MAX_UTTERANCE_CHARS.
    run: (t) =>
      client
        .mapUtterance(faultManagementTemplate, `INC-1 site 4 down at ten to eight, ${t.length > 4000 ? t : t.slice(0, 300)} severity major, hmm, no, minor, rather than critical, 12 complaints, hmm, make it 15, from 5 this morning`, REF)
        .catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e))),
  },
  {
    // The user's words against what the template's enum values mean in WordNet (senses, degrees, adjective
    // clusters), a party said group by group (in digits too, with "with" after a verb), values in a negation's scope,
    // inflected verbs of the glossary, towns WordNet knows said in lowercase or slipped, people added to a party
    // (draft-zhou §6.1).
    name: 'client mapUtterance (offline mapper, enum senses, degrees, parties, inflected glosses, towns, added parties)',
    files: ['libs/client/src/offline/mapper.ts', 'libs/client/src/offline/lexicon.ts', 'libs/client/src/offline/plan.ts', 'libs/client/src/offline/glossary.ts', 'libs/client/src/offline/spelling.ts'],
    run: async (t) => [await client.mapUtterance(photoRetouchTemplate, t, REF), await client.mapUtterance(flightBookingTemplate, `${t.slice(0, 1000)} two adults and 1 kid, not the cheapest cabin; I fly with my wife and 2 sons from dehli to Vancuver, add our 2 kids`, REF).catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e)))],
  },
  {
    // Words said by association (draft-zhou §6.1, identification): the user's words asked against the field of meaning
    // WordNet gives the template's names and enum values (`Lexicon.fieldOf`, `Lexicon.inField`, `Plan.field`); the
    // outside string is both the utterance and an enum value (cut as above: compiling a MiB-long value is the
    // validator's cost).
    name: 'client mapUtterance (offline mapper, words in the field of meaning of the template)',
    files: ['libs/client/src/offline/lexicon.ts', 'libs/client/src/offline/plan.ts', 'libs/client/src/offline/mapper.ts', 'libs/client/src/identify.ts'],
    run: (t) =>
      client
        .mapUtterance({ ...photoRetouchTemplate, keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'filter_style' ? { ...k, enum: ['none', t.slice(0, 2000)] } : k)) }, `this snapshot ${t}`, REF)
        .catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e))),
  },
  {
    // Slots read out of their place (draft-zhou §6.1, identification): an ordinal value's source looked up among the
    // utterance's words after it (`valuesOutOfPlace`), the source and the utterance both outside text.
    name: 'client valuesOutOfPlace (identification, a value read away from its key\'s words)',
    files: ['libs/client/src/identify.ts'],
    run: async (t) => {
      const m = await client.mapUtterance(flightBookingTemplate, `trim the first ${t.slice(0, 2000)}`, REF).catch((e: unknown) => (e instanceof ParleyError ? undefined : Promise.reject(e)));
      return m === undefined ? undefined : [valuesOutOfPlace(flightBookingTemplate, m, t), valuesOutOfPlace(flightBookingTemplate, { ...m, sources: { cabin_class: t, constructor: t } }, `first ${t}`)];
    },
  },
  {
    // A numeral counting the word after it (draft-zhou §6.1, identification): both words beside it looked up in WordNet
    // (`countsNounByWordNet`), then a numeral's occurrences read in the outside text (`valuesOutOfPlace`).
    name: 'client countsNounByWordNet (identification, a numeral counting a noun)',
    files: ['libs/client/src/asking.ts', 'libs/client/src/identify.ts'],
    run: async (t) => {
      const countsNoun = await countsNounByWordNet();
      const m = await client.mapUtterance(faultManagementTemplate, `site 12 ${t.slice(0, 2000)}`, REF).catch((e: unknown) => (e instanceof ParleyError ? undefined : Promise.reject(e)));
      return [countsNoun(t, t), m === undefined ? undefined : valuesOutOfPlace(faultManagementTemplate, { ...m, sources: { affected_site_ids: '12', constructor: '12' } }, `${t} 12 ${t} site 12 ${t}`, countsNoun)];
    },
  },
  {
    // A request said in another language read for identification (draft-zhou §6.1): the word after an elided article
    // kept (text.ts), the glossary's English added to selection's query (`glossByGlossary`, `selectionQuery`), that
    // language's function words (`saidInOtherLanguage`) and a kind of the thing asked for that nothing reads
    // (`unreadKinds`: "un billete de <text>"). The outside string as the request (a MiB is refused at once,
    // MAX_UTTERANCE_CHARS; the gloss alone is read on at most 2,000 characters, as identification reads it) and inside
    // the genitive phrases; identification itself on the seeded scenarios.
    name: 'client identification in another language (elided articles, glosses for selection, unread kinds)',
    files: ['libs/client/src/offline/text.ts', 'libs/client/src/offline/glossary.ts', 'libs/client/src/offline/languages.ts', 'libs/client/src/offline/mapper.ts', 'libs/client/src/identify.ts', 'libs/client/src/asking.ts'],
    run: async (t) => {
      const cut = t.length > 4000 ? t : t.slice(0, 600);
      const gloss = await glossByGlossary();
      const refused = (e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e));
      const catalog = { entries: [flightBookingTemplate, photoRetouchTemplate, faultManagementTemplate].map((template) => ({ scenario: scenarioId(template.scenario), agent: 'a', template })) };
      return [
        selectionQuery(t.slice(0, 2000), gloss),
        await client.mapUtterance(flightBookingTemplate, `quiero un billete de ${cut} de ${cut} d'${cut} de Madrid a Sevilla para el viernes`, REF).catch(refused),
        await client.identifyScenario(`je voudrais un billet d'${cut} de la ${cut} pour lundi`, { ...REF, catalog }).catch(refused),
      ];
    },
  },
  {
    // A request read against each scenario's text through WordNet (draft-zhou §6.1, identification by association,
    // `associateByWordNet`): the outside string as the request and as a template's description, enum value and agent
    // description (each read only up to a bound).
    name: 'client associateByWordNet (identification, words meeting a scenario\'s text)',
    files: ['libs/client/src/association.ts', 'libs/client/src/asking.ts'],
    run: async (t) => {
      const associate = await associateByWordNet();
      const hostile = { ...photoRetouchTemplate, keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'filter_style' ? { ...k, enum: ['none', t], semantic_description: t } : k)) };
      const entries = [
        { scenario: 'photo_retouch', agent: 'a', template: hostile, description: t, tags: [t] },
        { scenario: 'fault_management', agent: 'a', template: faultManagementTemplate },
      ];
      return [associate(t, entries), associate(`my headshot ${t} fuzzy`, entries), scenarioText(hostile, t, [t, t]).names.length];
    },
  },
  {
    // A verb's complement or a sister (draft-zhou §6.1, identification): an -ing verb before a preposition of
    // direction asked whether it is itself another way to go (`Lexicon.actSisterOf`), the means after "by", the word
    // after "book" (the outside string in each place; refused over 2000 characters, as the entries above: a few hundred
    // pathological characters cost the whole mapping 70-110 ms, before these rules as after, on a shared machine).
    name: 'client mapUtterance (offline mapper, -ing verb of going, means after by, book <noun>)',
    files: ['libs/client/src/offline/lexicon.ts', 'libs/client/src/offline/mapper.ts'],
    run: (t) =>
      client
        .mapUtterance(flightBookingTemplate, `${t}ing to Oslo by ${t}, book ${t} tickets`, REF)
        .catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e))),
  },
  {
    // A template's own enum value read for the quality it names (`Lexicon.senseWords`, the quality route: "vintage" is
    // the oldness of wines, so "an old look"): the value is the outside string (draft-zhou §6.1).
    name: 'client mapUtterance (offline mapper, an enum value naming a degree of a quality)',
    files: ['libs/client/src/offline/lexicon.ts', 'libs/client/src/offline/plan.ts'],
    run: (t) =>
      client
        // The route reads enum values up to the longest utterance (plan.ts sayableValues); compiling a template with a
        // MiB-long enum value is the template validator's cost, not this route's, so the value is cut there.
        .mapUtterance({ ...photoRetouchTemplate, keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'filter_style' ? { ...k, enum: ['none', 'vintage', t.slice(0, 2000)] } : k)) }, 'give it an old look', REF)
        .catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e))),
  },
  {
    // An alarm said as an event of its thing (events.ts, `Lexicon.isPrivativeState`, `Lexicon.verbHypernyms`): the
    // outside string as the thing and the state of the utterance ("the <t> went <t>", "lost its <t>"), and as the
    // thing of an example phrase of the template (frames are read from the descriptions' examples); the description is
    // cut to 2000 characters, as the entries above cut theirs.
    name: 'client mapUtterance (offline mapper, an alarm said as an event of its thing)',
    files: ['libs/client/src/offline/events.ts', 'libs/client/src/offline/lexicon.ts', 'libs/client/src/offline/mapper.ts'],
    run: (t) =>
      client
        .mapUtterance(
          {
            ...faultManagementTemplate,
            keys: faultManagementTemplate.keys.map((k) =>
              k.key_name === 'alarm_type' ? { ...k, semantic_description: `${k.semantic_description ?? ''} Example mapping: 'the ${t.slice(0, 2000)} is down' -> 'thing_down'.` } : k,
            ),
          },
          `INC-1: the ${t} went ${t}, router AGG-1 lost its ${t}`,
          REF,
        )
        .catch((e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e))),
  },
  {
    // Key values read from the template's own values, levels and topics (draft-zhou §6.1): a snake_case example value
    // said apart around the outside string (`valuesApart`), a level and a refused level beside it (`numbers`,
    // `cjkLevel`, `refusedLevel`, whose "N means off" is read from a description the outside string ends), its words
    // read as clipped enum words (`clippedValues`). Cut as above.
    name: 'client mapUtterance (offline mapper, example values apart, levels, refused levels, clipped values)',
    files: ['libs/client/src/offline/mapper.ts'],
    run: async (t) => {
      const cut = t.slice(0, 2000);
      const refused = (e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e));
      const photo = {
        ...photoRetouchTemplate,
        keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'skin_smoothing' ? { ...k, semantic_description: `Range: 0-10, where 0 means off. ${cut}` } : k)),
      };
      return [
        await client.mapUtterance(faultManagementTemplate, `the link ${cut} went down, ${cut} loss, optical power ${cut} too low`, REF).catch(refused),
        await client.mapUtterance(photo, `no skin smoothing, ${cut}, level ${cut} 5, 磨皮五级 ${cut}`, REF).catch(refused),
        await client.mapUtterance(flightBookingTemplate, `premium ${cut.slice(0, 3)} ${cut}`, REF).catch(refused),
      ];
    },
  },
  {
    // A name made of the user's words held to the template's naming convention (draft-zhou §6.1, `namingConvention`,
    // `offConvention`, `Lexicon.isIngForm`): the outside string as a snake_case example value of the key's description
    // and as the words of an opening verb or an -ing form in the utterance. Cut as above.
    name: 'client mapUtterance (offline mapper, an alarm name off the template\'s naming convention)',
    files: ['libs/client/src/offline/mapper.ts', 'libs/client/src/offline/lexicon.ts'],
    run: async (t) => {
      const cut = t.slice(0, 2000);
      const refused = (e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e));
      const fault = {
        ...faultManagementTemplate,
        keys: faultManagementTemplate.keys.map((k) => (k.key_name === 'alarm_type' ? { ...k, semantic_description: `Type of the alarm, in snake_case. Example mapping: 'a' -> '${cut}'; 'b' -> 'lost_${cut}'; 'c' -> 'link_down'.` } : k)),
      };
      return [
        await client.mapUtterance(faultManagementTemplate, `switch ${cut} lost ${cut} cooling, ${cut}ing frames, ${cut} flapping`, REF).catch(refused),
        await client.mapUtterance(fault, `switch SW-4 lost cooling, ${cut}`, REF).catch(refused),
      ];
    },
  },
  {
    // Values said in other words (draft-zhou §6.1): the outside string's words read for their first WordNet meaning
    // (`Lexicon.meaningWords`, `enumMeanings`), framed as a likeness ("look like …", "…-like"), beside an agreeing word,
    // as an ordinal before a noun (`ordinalOutOfPlace`), a switch by its result's adjective (`resultAdjectives`). Cut as
    // above where a template value is the outside string.
    name: 'client mapUtterance (offline mapper, values by meaning, likeness, agreement, ordinals, result adjectives)',
    files: ['libs/client/src/offline/mapper.ts', 'libs/client/src/offline/lexicon.ts'],
    run: async (t) => {
      const cut = t.slice(0, 2000);
      const refused = (e: unknown) => (e instanceof ParleyError ? { refused: e.type } : Promise.reject(e));
      const photo = { ...photoRetouchTemplate, keys: photoRetouchTemplate.keys.map((k) => (k.key_name === 'filter_style' ? { ...k, enum: ['none', 'cinematic', 'warm', cut] } : k)) };
      return [
        await client.mapUtterance(photoRetouchTemplate, `make it look like a ${t}-like ${t}, a frosty, ${t} mood, ${t} eyes bigger ${t}, huge ${t} eyes`, REF).catch(refused),
        await client.mapUtterance(photo, `feel like a movie ${cut}, a cozy ${cut} tone`, REF).catch(refused),
        await client.mapUtterance(flightBookingTemplate, `Rome to Oslo in the first ${cut} of May`, REF).catch(refused),
      ];
    },
  },
  { name: 'llm prepareFragments', files: ['libs/llm/src/fragments.ts'], run: (t) => prepareFragments([{ text: t, count: 2 }], { maxFragments: 10, maxFragmentChars: 200 }) },
  { name: 'llm rule inducer', files: ['libs/llm/src/rule.ts', 'libs/llm/src/fragments.ts'], run: (t) => createRuleInducer().induce({ scenario: t, samples: [{ text: t, count: 3 }], existing_keys: [] }) },
  { name: 'pool securityRelevance', files: ['libs/pool/src/approval.ts'], run: (t) => securityRelevance({ key_name: 'seat', semantic_description: t }) },
  { name: 'protocol otherFragments', files: ['libs/protocol/src/payload.ts'], run: (t) => otherFragments([t, t]) },
  { name: 'protocol isFullDate (payload format date)', files: ['libs/protocol/src/formats.ts'], run: (t) => [isFullDate(t), isFullDate(t.slice(0, 10))] },
  { name: 'protocol negotiateLanguage', files: ['libs/protocol/src/language.ts'], run: (t) => negotiateLanguage(t, ['en', 'zh-CN'], 'en') },
];

/**
 * Files of the text-path libraries that hold a regular expression applied to
 * no outside text, with why. Every other file with a regex must be in an entry.
 */
export const REGEX_FILES_WITHOUT_OUTSIDE_TEXT: ReadonlyMap<string, string> = new Map([
  ['libs/embeddings/src/openai.ts', 'the endpoint URL from configuration'],
  ['libs/embeddings/src/transformers.ts', 'model names from configuration'],
  ['libs/embeddings/src/env.ts', 'environment variables'],
  ['libs/adol/src/dedup.ts', '$ref pointers of schemas the server publishes'],
  ['libs/adol/src/inline.ts', '$ref pointers of schemas the server publishes'],
  ['libs/adol/src/optional.ts', 'schema member names'],
  ['libs/adol/src/output.ts', 'output field paths the caller names'],
  ['libs/adol/src/schema.ts', 'JSON pointer tokens of published schemas'],
  ['libs/adol/src/json.ts', 'JSON canonical form'],
  ['libs/llm/src/chat.ts', 'the endpoint URL from configuration'],
  ['libs/llm/src/env.ts', 'environment variables'],
  ['libs/llm/src/inducer.ts', 'model answers, after prepareFragments'],
  ['libs/llm/src/judge.ts', 'model answers, sanitised by sanitizeFragment first'],
  ['libs/client/src/llm/mapper.ts', 'model answers'],
  ['libs/client/src/identify.ts', 'identification reuses the mapping path above'],
  ['libs/client/src/index.ts', 'base URL of the gateway'],
  ['libs/client/src/verify.ts', 'JWS compact form from the gateway'],
  ['libs/evolution/src/cluster.ts', 'cluster samples, sanitised first (sanitizeFragment above); one character-class pattern'],
  ['libs/pool/src/evolver-store.ts', 'audience labels of matured clusters ("global", "client:<id>"); one anchored prefix'],
  ['libs/pool/src/engine.ts', 'simulation configuration'],
]);

/** The libraries whose sources the completeness check scans. */
export const TEXT_PATH_LIBS: readonly string[] = ['libs/evolution/src', 'libs/embeddings/src', 'libs/adol/src', 'libs/client/src', 'libs/llm/src', 'libs/pool/src'];
