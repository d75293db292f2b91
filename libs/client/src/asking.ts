/**
 * draft-zhou §6.1 and Figure 1 steps (2)-(6) on the client: map an utterance
 * with a template, list the scenarios a client can send to, identify the
 * user's scenario and ask (identify, map, check, confirm, execute).
 */
import { ParleyError, scenarioId, type JsonObject, type SchemaTemplate } from '@parley/protocol';
import { identifyIn, type AssociateEntries, type CountsNoun, type GlossRequest, type IdentifyOptions, type ScenarioCatalog, type ScenarioEntry, type ScenarioIdentification } from './identify';
import type { AskOptions, AskResult, CatalogParams, ExecuteExtras, ExecuteParams, GetSchemaTemplateParams, ParleyClientOptions } from './index';
import { finishMapping, payloadInvalid, prepareUtterance, referenceFrom, thresholdFrom, validatorCache, type Mapper, type MapUtteranceOptions, type UtteranceMapping } from './mapping';
import { FUNCTION_WORDS, REQUEST_WORDS } from './offline/text';
import type { RpcCall } from './rpc';
import type { ScenarioText } from './association';
import type { Lexicon } from './offline/lexicon';

/** Entries of a catalogue at most (a registry may list many agents; each entry costs a negotiation). */
export const MAX_CATALOG_ENTRIES = 100;

export interface AskingDeps {
  call: RpcCall;
  getSchemaTemplateWithEtag(p: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }>;
  execute<T extends JsonObject>(p: ExecuteParams): Promise<T & ExecuteExtras>;
}

export interface Asking {
  mapUtterance(template: SchemaTemplate, utterance: string, o?: MapUtteranceOptions): Promise<UtteranceMapping>;
  scenarioCatalog(p?: CatalogParams): Promise<ScenarioCatalog>;
  identifyScenario(utterance: string, o?: IdentifyOptions & MapUtteranceOptions & CatalogParams & { catalog?: ScenarioCatalog }): Promise<ScenarioIdentification>;
  ask(utterance: string, o?: AskOptions): Promise<AskResult>;
}

/** Mapping and identification (the mapper of `opts`, else the offline one, loaded on first use). */
export function createMapping(opts: ParleyClientOptions): Pick<Asking, 'mapUtterance'> & { isContent: (w: string) => boolean; countsNoun: () => Promise<CountsNoun> } {
  // ---------------------------------------------------------------------------
  // draft-zhou §6.1 and Figure 1 steps (2)-(6) on the client.
  // ---------------------------------------------------------------------------
  const validatorFor = validatorCache();
  let defaultMapper: Promise<Mapper> | undefined;
  const mapperFor = (o: MapUtteranceOptions): Promise<Mapper> => {
    if (o.mapper) return Promise.resolve(o.mapper);
    if (opts.mapper) return Promise.resolve(opts.mapper);
    // Loaded on first use: WordNet and chrono-node stay out of a client that never maps.
    defaultMapper ??= import('./offline/index').then((m) => m.createOfflineMapper());
    defaultMapper.catch(() => {
      defaultMapper = undefined;
    });
    return defaultMapper;
  };
  const COORDINATORS: ReadonlySet<string> = new Set(['and', 'or', 'but', 'nor']);
  const isContent = (w: string) => !FUNCTION_WORDS.has(w) && !REQUEST_WORDS.has(w);

  async function mapUtterance(template: SchemaTemplate, utterance: string, o: MapUtteranceOptions = {}): Promise<UtteranceMapping> {
    if (o === null || typeof o !== 'object') throw new ParleyError('invalid_params', 'options must be an object', { path: 'options', rule: 'type' });
    const text = prepareUtterance(utterance);
    const reference = referenceFrom(o);
    const threshold = thresholdFrom(o.threshold);
    // Compiled first: a bad template is template_invalid before any mapping.
    const validator = validatorFor(template);
    const mapper = await mapperFor(o);
    const out = await mapper.map({ template, utterance: text, today: reference.today, timezone: reference.timezone, now: reference.now, dayOnly: reference.dayOnly === true, threshold });
    // Function words join neighbouring pieces of `other`; a coordinator separates a list's items.
    const glue = (w: string) => FUNCTION_WORDS.has(w) && !COORDINATORS.has(w);
    return finishMapping(template, out, { threshold, mapper: mapper.id, scenario: o.scenario ?? scenarioId(template.scenario), reference, utterance: text, glue }, validator);
  }

  return { mapUtterance, isContent, countsNoun: countsNounByWordNet };
}

let lexiconLoading: Promise<Lexicon> | undefined;

/** One lexicon over the WordNet data npm ships, for identification's readings below (loaded on first use). */
function wordNetLexicon(): Promise<Lexicon> {
  lexiconLoading ??= (async () => {
    const [{ Lexicon }, { WordNet, defaultDictDir }] = await Promise.all([import('./offline/lexicon'), import('@parley/embeddings')]);
    return new Lexicon(await WordNet.load({ dictDir: defaultDictDir() }));
  })();
  lexiconLoading.catch(() => {
    lexiconLoading = undefined;
  });
  return lexiconLoading;
}

let countsNounLoading: Promise<CountsNoun> | undefined;

/**
 * Whether a numeral counts the word after it, read from WordNet (loaded on first use, shared with the offline mapper):
 * a noun written in the plural ("euros", "customers"; not "fails", "goes", "this", "loss"); one that is also a verb's
 * -s form ("reports", "pounds") only when the numeral does not stand right after a name-like word, a noun that is no
 * verb or a word WordNet does not know ("incident 4410 affects", "BTS 4410 reports", but "pay 300 pounds"). Without
 * WordNet's files, identification reads an -s ending instead (`CountsNoun`).
 */
export function countsNounByWordNet(): Promise<CountsNoun> {
  countsNounLoading ??= (async () => {
    const lex = await wordNetLexicon();
    const label = (w: string) => w !== '' && (!lex.known(w) || (lex.hasNoun(w) && !lex.hasVerb(w)));
    return (next: string, before: string) => lex.isPluralNoun(next) && (!lex.isFiniteVerbForm(next) || !label(before));
  })();
  countsNounLoading.catch(() => {
    countsNounLoading = undefined;
  });
  return countsNounLoading;
}

let glossLoading: Promise<GlossRequest> | undefined;

/**
 * The English glosses of a request's words in other languages, as the offline mapper reads them (the glossary, with
 * WordNet saying which words are English already: "a client" stays English, "un billet d'avion" reads ticket plane),
 * loaded on first use. Identification ranks the scenarios on them too (`GlossRequest`). Without WordNet's files, none.
 */
export function glossByGlossary(): Promise<GlossRequest> {
  glossLoading ??= (async () => {
    const [lex, { glossedWords }, { tokenize }, { splitCjk }] = await Promise.all([wordNetLexicon(), import('./offline/glossary'), import('./offline/text'), import('./offline/languages')]);
    return (utterance: string) => glossedWords(splitCjk(tokenize(utterance)), (w) => lex.known(w));
  })();
  glossLoading.catch(() => {
    glossLoading = undefined;
  });
  return glossLoading;
}

let associateLoading: Promise<AssociateEntries> | undefined;

/**
 * How a request's words meet each scenario's text through WordNet (`createAssociate`, loaded on first use); the
 * scenarios' texts are read once per entry. Without WordNet's files identification goes without it.
 */
export function associateByWordNet(): Promise<AssociateEntries> {
  associateLoading ??= (async () => {
    const [{ createAssociate, scenarioText }, { WordNet, defaultDictDir }] = await Promise.all([import('./association'), import('@parley/embeddings')]);
    const associate = createAssociate(await WordNet.load({ dictDir: defaultDictDir() }));
    const texts = new WeakMap<ScenarioEntry, ScenarioText>();
    const textOf = (e: ScenarioEntry): ScenarioText => {
      let t = texts.get(e);
      if (t === undefined) texts.set(e, (t = scenarioText(e.template, e.description, e.tags)));
      return t;
    };
    return (utterance, entries) => associate(utterance, entries.map(textOf));
  })();
  associateLoading.catch(() => {
    associateLoading = undefined;
  });
  return associateLoading;
}

/** The catalogue, identification and `ask`, over the gateway calls in `deps`. */
export function createAsking(opts: ParleyClientOptions, deps: AskingDeps): Asking {
  const { call, getSchemaTemplateWithEtag, execute } = deps;
  const { mapUtterance, isContent, countsNoun } = createMapping(opts);

  async function scenarioCatalog(p: CatalogParams = {}): Promise<ScenarioCatalog> {
    const { agents } = await call<{ agents: Array<{ name: string; scenarios: string[]; tags?: string[]; domain?: string; description?: string }> }>('list_agents', {});
    const entries: ScenarioEntry[] = [];
    for (const a of agents ?? []) {
      for (const scenario of a.scenarios ?? []) {
        if (entries.length >= MAX_CATALOG_ENTRIES) break;
        try {
          const { template, etag } = await getSchemaTemplateWithEtag({ scenario, agent: a.name, ...p });
          entries.push({ scenario, agent: a.name, template, ...(a.description ? { description: a.description } : {}), tags: a.tags ?? [], ...(a.domain ? { domain: a.domain } : {}), ...(etag ? { etag } : {}) });
        } catch (e) {
          // An agent registered for a scenario it has not published yet: nothing to send it.
          if (e instanceof ParleyError && (e.type === 'scenario_not_found' || e.type === 'schema_not_found' || e.type === 'scenario_not_served')) continue;
          throw e;
        }
      }
    }
    return { entries };
  }

  async function identifyScenario(utterance: string, o: IdentifyOptions & MapUtteranceOptions & CatalogParams & { catalog?: ScenarioCatalog } = {}): Promise<ScenarioIdentification> {
    const text = prepareUtterance(utterance);
    referenceFrom(o);
    thresholdFrom(o.threshold);
    const catalog = o.catalog ?? (await scenarioCatalog({ ...(o.preferred_language ? { preferred_language: o.preferred_language } : {}), ...(o.client_id ? { client_id: o.client_id } : {}) }));
    const associate = await associateByWordNet().catch(() => undefined);
    const gloss = await glossByGlossary().catch(() => undefined);
    return identifyIn(text, catalog, o, (e) => mapUtterance(e.template, text, { ...o, scenario: e.scenario }), isContent, await countsNoun().catch(() => undefined), associate, gloss);
  }

  async function ask(utterance: string, o: AskOptions = {}): Promise<AskResult> {
    const text = prepareUtterance(utterance);
    let identification: ScenarioIdentification;
    let mapping: UtteranceMapping;
    let agent: string | undefined = o.agent;
    if (o.scenario !== undefined) {
      const { template } = await getSchemaTemplateWithEtag({
        scenario: o.scenario,
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.preferred_language ? { preferred_language: o.preferred_language } : {}),
        ...(o.client_id ? { client_id: o.client_id } : {}),
      });
      mapping = await mapUtterance(template, text, { ...o, scenario: scenarioId(template.scenario) });
      identification = { scenario: mapping.scenario, agent: o.agent ?? null, score: 1, ranking: [] };
    } else {
      identification = await identifyScenario(text, o);
      if (identification.scenario === null || !identification.mapping) {
        const closest = identification.ranking.slice(0, 3);
        const names = closest.map((s) => `${s.scenario} (${s.score.toFixed(2)})`).join(', ');
        throw new ParleyError('scenario_not_found', `No registered scenario matches these words${names ? `; the closest: ${names}` : ' (the registry lists none)'}. Name one with --scenario / options.scenario`, {
          path: 'utterance',
          rule: 'no_matching_scenario',
          details: { closest },
        });
      }
      mapping = identification.mapping;
      agent ??= identification.agent ?? undefined;
    }
    // Step (4): "All REQUIRED keys MUST be present": a payload the server would refuse is not sent.
    if (mapping.violations.length > 0) throw payloadInvalid(mapping, identification);
    if (o.dryRun) return { identification, mapping, executed: false, declined: false };
    if (o.confirm && !(await o.confirm(mapping, identification))) return { identification, mapping, executed: false, declined: true };
    const result = await execute({
      schema_id: mapping.schema_id,
      payload: mapping.payload,
      ...(agent ? { agent } : {}),
      ...(o.client_id ? { client_id: o.client_id } : {}),
      // The user's own words, for the §6.2.3 audit sampler.
      utterance: text,
    });
    return { identification, mapping, executed: true, declined: false, result };
  }

  return { mapUtterance, scenarioCatalog, identifyScenario, ask };
}
