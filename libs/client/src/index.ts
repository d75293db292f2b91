import type { JsonObject, KeyDefinition, SchemaTemplate } from '@parley/protocol';
import { createAsking } from './asking';
import type { IdentifyOptions, ScenarioCatalog, ScenarioIdentification } from './identify';
import type { Mapper, MapUtteranceOptions, UtteranceMapping } from './mapping';
import { createRpcCall, jwksFetcher } from './rpc';
import { createSchemaAccess } from './schemas';
import { createSignatureChecks } from './signatures';
import { createVerifier, type Jwks } from './verify';
import { RPC_CLIENT_METHODS, type ListAgentsParams, type ListAgentsResult, type ListSchemasParams, type ListSchemasResult, type PublishSchemaResult, type RegisterAgentParams, type RegisterAgentResult, type RpcMethodTypes, type RpcMethods } from './methods.gen';
import type { OpenRpcDocument } from '@parley/protocol';

// Every failure the client reports is a ParleyError (type, path, rule, violations, details) of the gateway's catalogue.
export { ParleyError, isParleyError, type ErrorType } from '@parley/protocol';
// draft-zhou §6.1 on the client: the Mapper port and what every mapper shares (adapters: ./offline, ./llm).
export { DEFAULT_CONFIDENCE_THRESHOLD, MAX_UTTERANCE_CHARS, prepareUtterance } from './mapping';
export type { BelowThreshold, Mapper, MapperOutput, MappedValue, MappingContext, MapUtteranceOptions, UtteranceMapping } from './mapping';
// draft-zhou Figure 1 step (2): scenario identification.
export { type AssociateEntries, type CountsNoun, type GlossRequest, selectionQuery, DATE_KEY_WEIGHT, TEXT_ASSOCIATION_WEIGHT, associationMargins, DEFAULT_MIN_SCORE, FULL_KEYS, NAME_WEIGHT, SCORE_WEIGHTS, explainedShare, filledWeight, namesScenario, valuesOutOfPlace, scenarioTool } from './identify';
export type { IdentifyOptions, ScenarioCatalog, ScenarioEntry, ScenarioIdentification, ScenarioScore } from './identify';

// The transport alone, for a caller that needs only the gateway's JSON-RPC call (the example agents).
export { createRpcCall, type RpcCall } from './rpc';
export { PARLEY_JWS_TYP, asJwks, canonicalJson, createVerifier, jwsHeader, verifyDetached } from './verify';
export type { Jwk, Jwks, JwsHeader, Verifier, VerifyFailure, VerifyResult } from './verify';
// A typed method for every documented JSON-RPC method, generated from the gateway's method table (`npm run gen:rpc`):
// `rpc.ListPatchesParams`, `rpc.Patch`, ... for the types, RPC_CLIENT_METHODS for the names.
export { RPC_CLIENT_METHODS } from './methods.gen';
export type { RpcMethodTypes, RpcMethods } from './methods.gen';
export type * as rpc from './methods.gen';
export type { OpenRpcDocument } from '@parley/protocol';

/**
 * What a client agent imports: a typed JSON-RPC 2.0 client for the gateway.
 * Errors come back as ParleyError with the server's type, path and rule, so a
 * client (or its LLM) can correct exactly the member that was wrong.
 *
 * Schema self-evolution (draft-zhou §6.2.2, §6.2.3): the template a client
 * negotiates is its effective one (base + patches, patch keys flagged
 * `experimental` / `deprecated`). The client keeps the etag of each template it
 * negotiated and sends it with `execute` (unless told otherwise), so a result
 * carries a `schema_update_suggestion` only when the template changed since;
 * `getSchemaUpdates` polls for changes.
 *
 * Signatures (draft-zhou §7): negotiation signs every template, patch delivery
 * and schema_update_suggestion it serves (Ed25519, detached JWS over the RFC 8785
 * canonical JSON). With `verify`, the client checks them against the JWKS and
 * throws `signature_invalid` for anything that does not verify: templates come
 * from `get_schema_template_signed` (one call: template, etag and signature
 * together), every polled patch is checked, and an execute result's suggestion is
 * checked. `verifyTemplate`, `verifyPatch` and `verifySuggestion` check objects
 * obtained otherwise, with or without `verify`.
 */
export interface ParleyClientOptions {
  /** Per-call timeout (default 15 s). */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /**
   * The caller's credential (draft-zhou §7): an API key (`pk_…`) or a JWT, sent as
   * `Authorization: Bearer <apiKey>` with every call. Parley takes the client id
   * from it; a `client_id` param, when given, must be the same id.
   */
  apiKey?: string;
  /**
   * Verify Parley's signatures (draft-zhou §7). `true`: against the gateway's
   * `/.well-known/jwks.json`, fetched once, cached, fetched again once when a
   * signature names an unknown key (rotation). A JWKS: against these keys only
   * (pinned; the stronger choice when the gateway itself is not trusted).
   */
  verify?: boolean | Jwks;
  /**
   * The mapper of `mapUtterance` and `ask` (draft-zhou §6.1). Default: the
   * offline mapper of `@parley/client/offline`, imported on first use.
   */
  mapper?: Mapper;
}

/** A key as patches deliver it: a template key, flagged per its §6.2.3 lifecycle state. */
export type PatchKeyDefinition = KeyDefinition & { experimental?: boolean; deprecated?: boolean };

/** Figure 9: what Parley adds to a result when the client's template is stale (draft-zhou §6.2.2). */
export interface SchemaUpdateSuggestion {
  /** The base schema the patches extend. */
  parent_schema_id?: string;
  /** The etag of the current effective template: negotiate again (or apply the patches) to hold it. */
  etag?: string;
  patch_ids?: string[];
  new_keys: PatchKeyDefinition[];
  modified_keys?: Array<{ key_name: string; semantic_description: string }>;
  /** Negotiation's signature (draft-zhou §7): a detached JWS over every other member. */
  signature?: string;
  [member: string]: unknown;
}

/** Members Parley may add to an execute result beside the agent's own. */
export interface ExecuteExtras {
  /** Parley's suggestion; with `verify`, present only when its signature verified. */
  schema_update_suggestion?: SchemaUpdateSuggestion;
  /**
   * The server agent's own suggestion (Figure 9), not signed by Parley: set when it
   * came beside Parley's signed one, and with `verify` for any unsigned suggestion.
   */
  agent_schema_update_suggestion?: JsonObject;
  /** Payload warnings that did not reject it, e.g. a withdrawn key accepted within its §6.2.3 window. */
  warnings?: string[];
}

export interface ExecuteParams {
  schema_id: string;
  payload: JsonObject;
  client_id?: string;
  agent?: string;
  /** The etag of the template the payload was built from; default: the one kept from getSchemaTemplate. */
  schema_etag?: string;
  /** The user's own words behind the payload (the §6.2.3 audit sampler judges patch keys against them). */
  utterance?: string;
}

export interface GetSchemaTemplateParams {
  scenario: string;
  preferred_language?: string;
  agent?: string;
  client_id?: string;
}

/** One patch as the polling endpoint delivers it (draft-zhou §6.2.2 Patch Packaging; ISO 8601 times). */
export interface SchemaPatchDelivery {
  patch_id: string;
  parent_schema_id: string;
  scenario_id: string;
  /** "global" or the client id the patch belongs to. */
  scope: string;
  timestamp: string;
  expires_at: string;
  new_keys: PatchKeyDefinition[];
  modified_keys: Array<{ key_name: string; semantic_description: string }>;
  /** Negotiation's signature (draft-zhou §7): a detached JWS over every other member. */
  signature?: string;
}

/** `get_schema_template_signed`: the full template and negotiation's signature of it (draft-zhou §7). */
export interface SignedSchemaTemplate {
  template: SchemaTemplate;
  /** A detached JWS over the template; its protected header's `parley` member signs agent, etag, applied_patches and client_id. */
  signature?: string;
  etag: string;
  applied_patches: string[];
  agent?: string;
  language?: string;
}

/** What a verified template signature vouches for, beside the template itself. */
export interface VerifiedTemplate {
  kid: string;
  agent: string;
  etag: string;
  applied_patches: string[];
  /** The client whose effective template it is; undefined for the global view. */
  client_id: string | undefined;
}

export interface SchemaUpdates {
  etag: string;
  /** False when `since_etag` was the current etag (then `patches` is empty). */
  changed: boolean;
  parent_schema_id: string;
  patches: SchemaPatchDelivery[];
}

/** Methods the client implements itself (etags, signatures), beside the generated ones. */
type OwnMethods = 'getSchemaTemplate' | 'getSchemaTemplateSigned' | 'getSchemaUpdates' | 'execute' | 'registerAgent' | 'publishSchema' | 'listAgents' | 'listSchemas';

/**
 * Every documented JSON-RPC method is a typed method here (RpcMethods, generated from the
 * gateway's method table: `listPatches`, `taskAssign`, `createApiKey`, ...); the ones below add
 * the client's own behaviour (etags kept, signatures verified).
 */
export interface ParleyClient extends Omit<RpcMethods, OwnMethods> {
  /** A documented method by its JSON-RPC name, typed. */
  call<M extends keyof RpcMethodTypes>(method: M, params?: RpcMethodTypes[M]['params']): Promise<RpcMethodTypes[M]['result']>;
  /** Any other method (an extension the gateway serves beyond the documented ones). */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** OpenRPC service discovery: the gateway's OpenRPC 1.3 document (`rpc.discover`, also GET /openrpc.json). */
  discover(): Promise<OpenRpcDocument>;
  /** The (effective) template; its etag is kept for `execute` (see `schemaEtag`). */
  getSchemaTemplate(params: GetSchemaTemplateParams): Promise<SchemaTemplate>;
  /** The template and its etag (undefined when the gateway has no polling endpoint). */
  getSchemaTemplateWithEtag(params: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }>;
  /** draft-zhou §6.2.2 schema polling: the etag of the client's effective template and, when it changed, its patches. */
  getSchemaUpdates(params: { scenario: string; client_id?: string; agent?: string; since_etag?: string }): Promise<SchemaUpdates>;
  /** The etag kept for a schema_id (and client_id) by the last getSchemaTemplate. */
  schemaEtag(schemaId: string, clientId?: string): string | undefined;
  execute<T extends JsonObject = JsonObject>(params: ExecuteParams): Promise<T & ExecuteExtras>;
  registerAgent(params: RegisterAgentParams): Promise<RegisterAgentResult>;
  /** The template as the protocol types it, or any JSON object (the gateway checks it: template_invalid). */
  publishSchema(params: { agent: string; template: SchemaTemplate | JsonObject; language?: string; response_schema?: JsonObject }): Promise<PublishSchemaResult>;
  listAgents(params?: ListAgentsParams): Promise<ListAgentsResult>;
  listSchemas(params?: ListSchemasParams): Promise<ListSchemasResult>;
  /** The template with its signature (`get_schema_template_signed`); verified when the client verifies. */
  getSchemaTemplateSigned(params: GetSchemaTemplateParams): Promise<SignedSchemaTemplate>;
  /**
   * Checks a signed template (draft-zhou §7); `expected` names the client_id and agent it was asked
   * for (a template signed for another client or agent fails). Throws `signature_invalid`.
   */
  verifyTemplate(signed: SignedSchemaTemplate, expected?: { client_id?: string; agent?: string }): Promise<VerifiedTemplate>;
  /** Checks a patch delivery's signature. Throws `signature_invalid`; returns the kid. */
  verifyPatch(patch: SchemaPatchDelivery): Promise<string>;
  /** Checks a schema_update_suggestion's signature. Throws `signature_invalid`; returns the kid. */
  verifySuggestion(suggestion: SchemaUpdateSuggestion): Promise<string>;
  /** The JWKS signatures are checked against (fetched from the gateway unless pinned). */
  jwks(): Promise<Jwks>;
  /**
   * draft-zhou §6.1 step (4) of Figure 1: the user's words as a payload of `template`, with a
   * confidence per key, what went to `other`, REQUIRED keys not said, and the server validator's
   * verdict. Throws `invalid_params` for a bad utterance or option, `template_invalid` for a bad template.
   */
  mapUtterance(template: SchemaTemplate, utterance: string, options?: MapUtteranceOptions): Promise<UtteranceMapping>;
  /** Every (agent, scenario) the registry lists with a published template (at most MAX_CATALOG_ENTRIES). */
  scenarioCatalog(params?: CatalogParams): Promise<ScenarioCatalog>;
  /** Step (2) of Figure 1: which scenario the words are for, or null with the closest ones. */
  identifyScenario(utterance: string, options?: IdentifyOptions & MapUtteranceOptions & CatalogParams & { catalog?: ScenarioCatalog }): Promise<ScenarioIdentification>;
  /**
   * Figure 1 from the user's words: identify the scenario (unless given), negotiate, map, check,
   * confirm, execute. Throws `scenario_not_found` (path `utterance`, rule `no_matching_scenario`,
   * `details.closest`) when no scenario explains the words, `payload_invalid` naming the key and
   * rule (`details.mapping`) before anything runs when the payload would be refused.
   */
  ask(utterance: string, options?: AskOptions): Promise<AskResult>;
}

export interface CatalogParams {
  preferred_language?: string;
  client_id?: string;
}

/** Options of `ask` (draft-zhou Figure 1, steps (2) to (6)). */
export interface AskOptions extends MapUtteranceOptions, IdentifyOptions, CatalogParams {
  /** The scenario: skips identification. */
  scenario?: string;
  /** The agent (when several serve the scenario). */
  agent?: string;
  /** The scenarios to identify among (default: `scenarioCatalog()` now). */
  catalog?: ScenarioCatalog;
  /** Stop before executing: map and check only. */
  dryRun?: boolean;
  /** Asked before executing, with the payload; false: nothing is executed. Absent: execute. */
  confirm?: (mapping: UtteranceMapping, identification: ScenarioIdentification) => boolean | Promise<boolean>;
}

export interface AskResult {
  identification: ScenarioIdentification;
  mapping: UtteranceMapping;
  executed: boolean;
  /** `confirm` said no. */
  declined: boolean;
  result?: JsonObject & ExecuteExtras;
}

export { MAX_CATALOG_ENTRIES, associateByWordNet, countsNounByWordNet, glossByGlossary } from './asking';
// draft-zhou §6.1: a request read against each scenario's text through WordNet (identification by association).
export { GLOSS_STRENGTH, createAssociate, scenarioText, type Associate, type AssociationEvidence, type ScenarioText } from './association';

export function createParleyClient(baseUrl: string, opts: ParleyClientOptions = {}): ParleyClient {
  const verifying = opts.verify !== undefined && opts.verify !== false;
  const verifier = createVerifier(typeof opts.verify === 'object' && opts.verify !== null ? { jwks: opts.verify } : { fetchJwks: jwksFetcher(baseUrl, opts) });
  const call = createRpcCall(baseUrl, opts);
  const checks = createSignatureChecks(verifier);
  const schemas = createSchemaAccess(call, verifying, checks);
  const { getSchemaTemplateSigned, getSchemaUpdates, getSchemaTemplateWithEtag, execute } = schemas;
  const { verifyTemplate, verifyPatch, verifySuggestion } = checks;
  const { mapUtterance, scenarioCatalog, identifyScenario, ask } = createAsking(opts, { call, getSchemaTemplateWithEtag, execute });

  // One typed method per documented JSON-RPC method (methods.gen.ts); the client's own override some below.
  const generated = Object.fromEntries(
    Object.entries(RPC_CLIENT_METHODS).map(([fn, method]) => [fn, (p?: object) => call(method, p ?? {})]),
  ) as unknown as RpcMethods;

  return {
    ...generated,
    call: call as ParleyClient['call'],
    discover: () => call<OpenRpcDocument>('rpc.discover'),
    mapUtterance,
    scenarioCatalog,
    identifyScenario,
    ask,
    getSchemaTemplate: async (p) => (await getSchemaTemplateWithEtag(p)).template,
    getSchemaTemplateWithEtag,
    getSchemaUpdates,
    schemaEtag: (schemaId, clientId) => schemas.schemaEtag(schemaId, clientId),
    execute,
    registerAgent: (p) => call('register_agent', p),
    publishSchema: (p) => call('publish_schema', p),
    listAgents: (p = {}) => call('list_agents', p),
    listSchemas: (p = {}) => call('list_schemas', p),
    getSchemaTemplateSigned,
    verifyTemplate,
    verifyPatch: (patch) => verifyPatch(patch),
    verifySuggestion: (s) => verifySuggestion(s),
    jwks: () => verifier.jwks(),
  };
}


