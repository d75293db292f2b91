import { ParleyError, scenarioId, type JsonObject, type KeyDefinition, type SchemaTemplate, type SerializedError } from '@parley/protocol';
import { identifyIn, type IdentifyOptions, type ScenarioCatalog, type ScenarioEntry, type ScenarioIdentification } from './identify';
import {
  finishMapping,
  payloadInvalid,
  prepareUtterance,
  referenceFrom,
  thresholdFrom,
  validatorCache,
  type Mapper,
  type MapUtteranceOptions,
  type UtteranceMapping,
} from './mapping';
import { FUNCTION_WORDS, REQUEST_WORDS } from './offline/text';
import { asJwks, createVerifier, type Jwks, type VerifyResult } from './verify';
import { RPC_CLIENT_METHODS, type ListAgentsParams, type ListAgentsResult, type ListSchemasParams, type ListSchemasResult, type PublishSchemaResult, type RegisterAgentParams, type RegisterAgentResult, type RpcMethodTypes, type RpcMethods } from './methods.gen';
import type { OpenRpcDocument } from '@parley/protocol';

// Every failure the client reports is a ParleyError (type, path, rule, violations, details) of the gateway's catalogue.
export { ParleyError, isParleyError, type ErrorType } from '@parley/protocol';
// draft-zhou §6.1 on the client: the Mapper port and what every mapper shares (adapters: ./offline, ./llm).
export { DEFAULT_CONFIDENCE_THRESHOLD, MAX_UTTERANCE_CHARS, prepareUtterance } from './mapping';
export type { BelowThreshold, Mapper, MapperOutput, MappedValue, MappingContext, MapUtteranceOptions, UtteranceMapping } from './mapping';
// draft-zhou Figure 1 step (2): scenario identification.
export { DATE_KEY_WEIGHT, DEFAULT_MIN_SCORE, FULL_KEYS, NAME_WEIGHT, SCORE_WEIGHTS, explainedShare, filledWeight, namesScenario, scenarioTool } from './identify';
export type { IdentifyOptions, ScenarioCatalog, ScenarioEntry, ScenarioIdentification, ScenarioScore } from './identify';

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

/** Entries of a catalogue at most (a registry may list many agents; each entry costs a negotiation). */
export const MAX_CATALOG_ENTRIES = 100;

/** Kept etags; bounded so a long-lived client that negotiates many schemas does not grow without end. */
const MAX_KEPT_ETAGS = 1000;

export function createParleyClient(baseUrl: string, opts: ParleyClientOptions = {}): ParleyClient {
  const url = new URL('/rpc', baseUrl).toString();
  const jwksUrl = new URL('/.well-known/jwks.json', baseUrl).toString();
  const verifying = opts.verify !== undefined && opts.verify !== false;
  const verifier = createVerifier(
    typeof opts.verify === 'object' && opts.verify !== null
      ? { jwks: opts.verify }
      : {
          fetchJwks: async () => {
            let res: Response;
            try {
              res = await fetch(jwksUrl, { headers: { accept: 'application/jwk-set+json, application/json', ...opts.headers }, signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000) });
            } catch (cause) {
              throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable for its signing keys`, { cause, details: { url: jwksUrl } });
            }
            let doc: unknown;
            try {
              doc = await res.json();
            } catch {
              doc = undefined;
            }
            const jwks = res.ok ? asJwks(doc) : undefined;
            if (!jwks) throw new ParleyError('unavailable', `The gateway served no JWKS at ${jwksUrl} (HTTP ${res.status})`, { details: { url: jwksUrl, status: res.status } });
            return jwks;
          },
        },
  );
  let nextId = 1;
  const etags = new Map<string, string>();
  const etagKey = (schemaId: string, clientId: string | undefined) => `${schemaId}\u0000${clientId ?? ''}`;

  async function call<T>(method: string, params: object = {}): Promise<T> {
    const id = nextId++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.apiKey !== undefined ? { authorization: `Bearer ${opts.apiKey}` } : {}), ...opts.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      });
    } catch (cause) {
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable`, { cause, details: { url } });
    }
    const text = await res.text();
    let body: { result?: T; error?: { message: string; data?: SerializedError } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch (cause) {
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause });
    }
    if (body.error) {
      throw ParleyError.fromJSON(body.error.data ?? { type: 'internal', message: body.error.message });
    }
    return body.result as T;
  }

  /** Throws signature_invalid naming `what` unless `r` is a good verification. */
  function mustVerify(r: VerifyResult, what: string, path: string, details: Record<string, unknown> = {}): string {
    if (r.ok) return r.kid;
    throw new ParleyError('signature_invalid', `${what} failed signature verification (draft-zhou §7): ${r.message}`, {
      path,
      rule: r.reason,
      details: { ...details, ...(r.kid !== undefined ? { kid: r.kid } : {}) },
    });
  }
  const missing = (what: string, path: string, details: Record<string, unknown> = {}) =>
    new ParleyError('signature_invalid', `${what} carries no signature (draft-zhou §7); a verifying client refuses it`, { path, rule: 'missing_signature', details });
  const withoutSignature = <T extends object>(o: T): Omit<T, 'signature'> => {
    const { signature: _signature, ...rest } = o as T & { signature?: unknown };
    return rest;
  };

  async function verifyTemplate(signed: SignedSchemaTemplate, expected: { client_id?: string; agent?: string } = {}): Promise<VerifiedTemplate> {
    const schemaId = signed?.template?.schema_id;
    const what = `The schema template ${typeof schemaId === 'string' ? `"${schemaId}"` : ''}`.trimEnd();
    if (typeof signed?.signature !== 'string' || signed.signature === '') throw missing(what, 'result.signature', { schema_id: schemaId });
    const r = await verifier.check(signed.template, signed.signature);
    const kid = mustVerify(r, what, 'result.template', { schema_id: schemaId });
    // What the template belongs to is signed in the protected header; the plain members must agree with it.
    const ctx = (r as Extract<VerifyResult, { ok: true }>).header.parley as { agent?: unknown; etag?: unknown; applied_patches?: unknown; client_id?: unknown } | undefined;
    const mismatch = (member: string, message: string) =>
      new ParleyError('signature_invalid', `${what}: ${message} (draft-zhou §7)`, { path: `result.${member}`, rule: 'context_mismatch', details: { schema_id: schemaId, kid } });
    if (!ctx || typeof ctx.agent !== 'string' || typeof ctx.etag !== 'string' || !Array.isArray(ctx.applied_patches) || (ctx.client_id !== undefined && typeof ctx.client_id !== 'string')) {
      throw mismatch('signature', 'the signature does not say whose template it is (no parley context in its header)');
    }
    const applied = ctx.applied_patches as string[];
    if (signed.etag !== undefined && signed.etag !== ctx.etag) throw mismatch('etag', `the etag "${signed.etag}" is not the signed one`);
    if (signed.applied_patches !== undefined && canonicalList(signed.applied_patches) !== canonicalList(applied)) throw mismatch('applied_patches', 'the applied patches are not the signed ones');
    if (signed.agent !== undefined && signed.agent !== ctx.agent) throw mismatch('agent', `the agent "${signed.agent}" is not the signed one`);
    if (expected.agent !== undefined && expected.agent !== ctx.agent) throw mismatch('agent', `it is agent "${ctx.agent}"'s template, not "${expected.agent}"'s`);
    if ((expected.client_id ?? undefined) !== (ctx.client_id ?? undefined)) {
      throw mismatch('client_id', ctx.client_id === undefined ? 'it is the global template, not the one of the client asked for' : `it is the template of another client ("${String(ctx.client_id)}")`);
    }
    return { kid, agent: ctx.agent, etag: ctx.etag, applied_patches: [...applied], client_id: ctx.client_id as string | undefined };
  }

  async function verifyPatch(patch: SchemaPatchDelivery, path = 'result.patch'): Promise<string> {
    const what = `The schema patch "${String(patch?.patch_id)}"`;
    if (typeof patch?.signature !== 'string' || patch.signature === '') throw missing(what, `${path}.signature`, { patch_id: patch?.patch_id });
    return mustVerify(await verifier.check(withoutSignature(patch), patch.signature), what, path, { patch_id: patch.patch_id });
  }

  async function verifySuggestion(s: SchemaUpdateSuggestion, path = 'result.schema_update_suggestion', details: Record<string, unknown> = {}): Promise<string> {
    const what = 'The schema_update_suggestion';
    if (typeof s?.signature !== 'string' || s.signature === '') throw missing(what, `${path}.signature`, details);
    return mustVerify(await verifier.check(withoutSignature(s), s.signature), what, path, { ...details, patch_ids: s.patch_ids });
  }

  async function getSchemaTemplateSigned(p: GetSchemaTemplateParams): Promise<SignedSchemaTemplate> {
    const signed = await call<SignedSchemaTemplate>('get_schema_template_signed', p as unknown as Record<string, unknown>);
    if (verifying) await verifyTemplate(signed, { ...(p.client_id !== undefined ? { client_id: p.client_id } : {}), ...(p.agent !== undefined ? { agent: p.agent } : {}) });
    return signed;
  }

  const getSchemaUpdates: ParleyClient['getSchemaUpdates'] = async (p) => {
    const u = await call<SchemaUpdates>('get_schema_updates', p);
    if (verifying) {
      for (const [i, patch] of (u.patches ?? []).entries()) await verifyPatch(patch, `result.patches[${i}]`);
    }
    return u;
  };

  function keepEtag(schemaId: string, clientId: string | undefined, etag: string | undefined): void {
    const key = etagKey(schemaId, clientId);
    etags.delete(key);
    if (etag !== undefined) {
      etags.set(key, etag);
      while (etags.size > MAX_KEPT_ETAGS) etags.delete(etags.keys().next().value as string);
    }
  }

  async function getSchemaTemplateWithEtag(p: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }> {
    if (verifying) {
      // One call: the template, its etag and the signature over both (draft-zhou §7).
      const signed = await getSchemaTemplateSigned(p);
      keepEtag(signed.template.schema_id, p.client_id, signed.etag);
      return { template: signed.template, etag: signed.etag };
    }
    // The etag is asked for first: if a patch lands between the two calls, the
    // client holds an older etag than its template and is merely told again
    // (a suggestion), never a newer one that would hide a change from it.
    let updates: SchemaUpdates | undefined;
    try {
      updates = await getSchemaUpdates({ scenario: p.scenario, ...(p.agent ? { agent: p.agent } : {}), ...(p.client_id ? { client_id: p.client_id } : {}) });
    } catch {
      // A gateway without the polling endpoint, or an error get_schema_template reports below.
      updates = undefined;
    }
    const template = await call<SchemaTemplate>('get_schema_template', p as unknown as Record<string, unknown>);
    // A new base version published in between: the etag describes another schema.
    const etag = updates && updates.parent_schema_id === template.schema_id ? updates.etag : undefined;
    keepEtag(template.schema_id, p.client_id, etag);
    return { template, etag };
  }

  async function execute<T extends JsonObject>(p: ExecuteParams): Promise<T & ExecuteExtras> {
    const etag = p.schema_etag ?? etags.get(etagKey(p.schema_id, p.client_id));
    const result = await call<T & ExecuteExtras>('execute', { ...p, ...(etag !== undefined ? { schema_etag: etag } : {}) });
    const s = result?.schema_update_suggestion;
    if (!verifying || s === undefined) return result;
    const { schema_update_suggestion: _s, ...rest } = result;
    if (s === null || typeof s !== 'object' || Array.isArray(s) || typeof s.signature !== 'string') {
      // Unsigned: the agent's own (Figure 9) or Parley's when patches could not be attributed; never Parley-vouched.
      return { ...rest, ...(rest.agent_schema_update_suggestion === undefined ? { agent_schema_update_suggestion: s as unknown as JsonObject } : {}) } as T & ExecuteExtras;
    }
    try {
      await verifySuggestion(s);
    } catch (e) {
      const err = e as ParleyError;
      throw new ParleyError(err.type, `${err.message}. The payload was executed: the result without the suggestion is in details.result`, {
        path: err.path,
        rule: err.rule,
        details: { ...err.details, result: rest },
      });
    }
    return result;
  }

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
  const isContent = (w: string) => !FUNCTION_WORDS.has(w) && !REQUEST_WORDS.has(w);

  async function mapUtterance(template: SchemaTemplate, utterance: string, o: MapUtteranceOptions = {}): Promise<UtteranceMapping> {
    if (o === null || typeof o !== 'object') throw new ParleyError('invalid_params', 'options must be an object', { path: 'options', rule: 'type' });
    const text = prepareUtterance(utterance);
    const reference = referenceFrom(o);
    const threshold = thresholdFrom(o.threshold);
    // Compiled first: a bad template is template_invalid before any mapping.
    const validator = validatorFor(template);
    const mapper = await mapperFor(o);
    const out = await mapper.map({ template, utterance: text, today: reference.today, timezone: reference.timezone, now: reference.now, threshold });
    return finishMapping(template, out, { threshold, mapper: mapper.id, scenario: o.scenario ?? scenarioId(template.scenario), reference }, validator);
  }

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
    return identifyIn(text, catalog, o, (e) => mapUtterance(e.template, text, { ...o, scenario: e.scenario }), isContent);
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
    schemaEtag: (schemaId, clientId) => etags.get(etagKey(schemaId, clientId)),
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

function canonicalList(v: unknown): string {
  return JSON.stringify(Array.isArray(v) ? v : null);
}
