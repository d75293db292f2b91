/**
 * Pure parsers for the params of the gateway's JSON-RPC methods. Each returns
 * a typed, normalised value or throws `invalid_params` naming `params.<member>`
 * and a rule (`required`, `type`, `unknown_member`, `non_empty`, `max_length`,
 * `pattern`, `bcp47`, ...). Unknown members are rejected so a misspelt option is
 * an error, not silently ignored.
 */
import { ParleyError } from './errors';
import { isPlainObject, jsonTypeName } from './json';
import { normalizeLanguageTag } from './language';
import type { JsonObject } from './model';
import { MAX_SCENARIO_LENGTH, scenarioId, validateAgentName } from './scenario';
import { SCHEMA_ID_PATTERN } from './template';

/** Client ids: what a client calls itself (e.g. `user:42@app`), kept for DSP "distinct source" counts (zhou §6.2.1). */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9_.:@-]+$/;
export const MAX_CLIENT_ID_LENGTH = 128;
/** Agent tags (`list_agents` filter). */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;
export const MAX_TAG_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 2048;
export const MAX_DOMAIN_LENGTH = 128;
export const MAX_VERSION_LENGTH = 64;
export const MAX_LIST_LENGTH = 256;
/** Longest schema etag a client may echo (Parley's own are 16 hex digits). */
export const MAX_ETAG_LENGTH = 128;
/** Longest utterance an execute call may carry (the audit sampler's input, zhou §6.2.3). */
export const MAX_UTTERANCE_LENGTH = 4000;
/**
 * Idempotency keys of `execute` (a safe retry of zhou §3.2 steps (4)-(6)): 1 to
 * 128 characters of letters, digits and `_ . : ~ + / = @ -` — a UUID, a ULID, base64
 * or a caller's own `order-42:attempt` all fit; spaces, quotes and controls do not.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:~+/=@-]+$/;

/**
 * Checks an idempotency key wherever it arrives (`path`: `params.idempotency_key`,
 * `headers.idempotency-key`, `params._meta.idempotency_key`, `params.message.metadata.idempotency_key`);
 * undefined and null mean none. Throws `invalid_params` naming the path and the rule.
 */
export function parseIdempotencyKey(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(path, 'type', `${path} must be a string, got ${jsonTypeName(v)}`);
  if (v === '') fail(path, 'non_empty', `${path} must not be empty`);
  if (v.length > MAX_IDEMPOTENCY_KEY_LENGTH) fail(path, 'max_length', `${path} must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, got ${v.length}`);
  if (!IDEMPOTENCY_KEY_PATTERN.test(v)) {
    fail(path, 'pattern', `${path} must be letters, digits and _ . : ~ + / = @ - only (e.g. a UUID), got ${JSON.stringify(v.slice(0, 40))}`);
  }
  return v;
}

/** Figure 6: `{"scenario":"flight_booking","preferred_language":"en-US"}`. */
export interface GetSchemaTemplateParams {
  /** The scenario as sent. */
  scenario: string;
  /** Its canonical id (scenarioId). */
  scenario_id: string;
  /** Canonical-case BCP 47 tag, when sent. */
  preferred_language?: string;
  /** Pick this server agent when several serve the scenario. */
  agent?: string;
  client_id?: string;
  /**
   * ADOL B (draft-chang §3.2): "short" asks for a concise view of the template
   * for a model; "full" (the default) is the template as published.
   */
  view?: TemplateView;
  /**
   * ADOL A (draft-chang §3.1): return `{ template, $defs }` with repeated key bodies
   * referenced by `$ref`. Also asked as `refs: "local"`; `refs: "none"` (the
   * default) is the template with no `$ref`, for clients that do not resolve them.
   */
  compact?: boolean;
}

/** How `get_schema_template` may use `$ref` (draft-chang §3.1): `none` (default) or `local` (= `compact: true`). */
export const TEMPLATE_REFS = ['none', 'local'] as const;

/** The views `get_schema_template` offers (draft-chang §3.2). */
export const TEMPLATE_VIEWS = ['full', 'short'] as const;
export type TemplateView = (typeof TEMPLATE_VIEWS)[number];

/** Figure 8: `{"schema_id":"flight_booking_v1","payload":{...}}`. */
export interface ExecuteParams {
  schema_id: string;
  /** A JSON object; validated against the template later, not here. */
  payload: JsonObject;
  client_id?: string;
  agent?: string;
  /**
   * The etag of the effective template the client negotiated (zhou §6.2.2):
   * when it is stale the result carries a `schema_update_suggestion` (Figure 9).
   */
  schema_etag?: string;
  /**
   * The user's own words behind the payload, when the client shares them: the
   * audit sampler of zhou §6.2.3 (semantic_alignment_accuracy) judges patch keys
   * against it. Never stored with the execution.
   */
  utterance?: string;
  /**
   * Makes a retry safe: a repeat by the same client with the same key within
   * its lifetime returns the first result and executes nothing (parseIdempotencyKey).
   */
  idempotency_key?: string;
}

/** `get_schema_updates`: the schema polling endpoint of zhou §6.2.2 Online Update Delivery. */
export interface GetSchemaUpdatesParams {
  scenario: string;
  scenario_id: string;
  client_id?: string;
  agent?: string;
  /** The etag the client holds; when it is current nothing is returned but the etag. */
  since_etag?: string;
}

export interface RegisterAgentParams {
  name: string;
  description?: string;
  domain?: string;
  /** Deduplicated, in order. */
  tags?: string[];
  /** Canonical scenario ids, deduplicated, in order. */
  scenarios: string[];
  version?: string;
}

export interface PublishSchemaParams {
  agent: string;
  /** Unparsed: the caller runs parseTemplate on it. */
  template: JsonObject;
  /** Canonical-case BCP 47 tag of the semantic descriptions (default "en"). */
  language: string;
  response_schema?: JsonObject;
}

export interface ListAgentsParams {
  scenario?: string;
  /** Canonical id of `scenario`, when sent. */
  scenario_id?: string;
  tag?: string;
  domain?: string;
}

export interface ListSchemasParams {
  agent?: string;
  scenario?: string;
  scenario_id?: string;
  /** Retired schemas too (default: live ones only). */
  include_retired?: boolean;
}

/** `unregister_agent`: the agent to remove (its owner or an operator). */
export interface UnregisterAgentParams {
  name: string;
}

/** `get_agent`: `{"name": "acme-air"}` (the same params as unregister_agent). */
export function parseGetAgentParams(params: unknown): UnregisterAgentParams {
  return parseUnregisterAgentParams(params);
}

/** `retire_schema`: one schema of an agent, no longer negotiated nor executed (its owner or an operator). */
export interface RetireSchemaParams {
  agent: string;
  schema_id: string;
  reason?: string;
}

/** Longest retirement reason kept. */
export const MAX_RETIRE_REASON_LENGTH = 500;

function fail(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

/** params must be an object (by-name); `optional` methods also accept it omitted. */
function paramsObject(params: unknown, allowed: readonly string[], optional: boolean): Record<string, unknown> {
  if (params === undefined || params === null) {
    if (optional) return {};
    fail('params', 'required', `params is required: an object with ${allowed.join(', ')}`);
  }
  if (!isPlainObject(params)) fail('params', 'type', `params must be an object (named members), got ${jsonTypeName(params)}`);
  for (const k of Object.keys(params)) {
    if (!allowed.includes(k)) fail(`params.${k}`, 'unknown_member', `params.${k} is not a parameter of this method; allowed: ${allowed.join(', ')}`);
  }
  return params;
}

function str(p: Record<string, unknown>, name: string, opts: { required: true; max?: number; pattern?: RegExp; hint?: string }): string;
function str(p: Record<string, unknown>, name: string, opts: { required?: false; max?: number; pattern?: RegExp; hint?: string }): string | undefined;
function str(p: Record<string, unknown>, name: string, opts: { required?: boolean; max?: number; pattern?: RegExp; hint?: string }): string | undefined {
  const path = `params.${name}`;
  const v = Object.hasOwn(p, name) ? p[name] : undefined;
  if (v === undefined || v === null) {
    if (opts.required) fail(path, 'required', `${path} is required${opts.hint ? `: ${opts.hint}` : ''}`);
    return undefined;
  }
  if (typeof v !== 'string') fail(path, 'type', `${path} must be a string, got ${jsonTypeName(v)}`);
  if (v.trim() === '') fail(path, 'non_empty', `${path} must not be empty`);
  if (opts.max !== undefined && v.length > opts.max) fail(path, 'max_length', `${path} must be at most ${opts.max} characters, got ${v.length}`);
  if (opts.pattern && !opts.pattern.test(v)) fail(path, 'pattern', `${path} ${JSON.stringify(v.slice(0, 60))} must match ${opts.pattern.source}${opts.hint ? ` (${opts.hint})` : ''}`);
  return v;
}

function scenarioParam(p: Record<string, unknown>, required: boolean): { scenario: string; scenario_id: string } | undefined {
  const scenario = required
    ? str(p, 'scenario', { required: true, max: MAX_SCENARIO_LENGTH, hint: 'the scenario to interact in, e.g. "flight_booking"' })
    : str(p, 'scenario', { max: MAX_SCENARIO_LENGTH });
  if (scenario === undefined) return undefined;
  return { scenario, scenario_id: scenarioId(scenario, { path: 'params.scenario' }) };
}

function optionalAgent(p: Record<string, unknown>, name = 'agent'): string | undefined {
  const v = Object.hasOwn(p, name) ? p[name] : undefined;
  return v === undefined || v === null ? undefined : validateAgentName(v, `params.${name}`);
}

function clientId(p: Record<string, unknown>): string | undefined {
  return str(p, 'client_id', { max: MAX_CLIENT_ID_LENGTH, pattern: CLIENT_ID_PATTERN, hint: 'letters, digits and _ . : @ -' });
}

/** An etag as the client echoes it: opaque, printable, at most MAX_ETAG_LENGTH characters. */
function etagParam(p: Record<string, unknown>, name: string): string | undefined {
  return str(p, name, { max: MAX_ETAG_LENGTH, pattern: /^[\x21-\x7e]+$/, hint: 'the etag from get_schema_updates, as received' });
}

function objectParam(p: Record<string, unknown>, name: string, required: boolean): JsonObject | undefined {
  const path = `params.${name}`;
  const v = Object.hasOwn(p, name) ? p[name] : undefined;
  if (v === undefined || v === null) {
    if (required) fail(path, 'required', `${path} is required: a JSON object`);
    return undefined;
  }
  if (!isPlainObject(v)) fail(path, 'type', `${path} must be a JSON object, got ${jsonTypeName(v)}`);
  return v as JsonObject;
}

function stringList(p: Record<string, unknown>, name: string, required: boolean, each: (s: unknown, path: string) => string): string[] | undefined {
  const path = `params.${name}`;
  const v = Object.hasOwn(p, name) ? p[name] : undefined;
  if (v === undefined || v === null) {
    if (required) fail(path, 'required', `${path} is required: a non-empty array of strings`);
    return undefined;
  }
  if (!Array.isArray(v)) fail(path, 'type', `${path} must be an array of strings, got ${jsonTypeName(v)}`);
  if (required && v.length === 0) fail(path, 'non_empty', `${path} must contain at least one entry`);
  if (v.length > MAX_LIST_LENGTH) fail(path, 'max_items', `${path} must have at most ${MAX_LIST_LENGTH} entries`);
  const out: string[] = [];
  v.forEach((x, i) => {
    const s = each(x, `${path}[${i}]`);
    if (!out.includes(s)) out.push(s);
  });
  return out;
}

function tagValue(x: unknown, path: string): string {
  if (typeof x !== 'string') fail(path, 'type', `${path} must be a string, got ${jsonTypeName(x)}`);
  if (x.length > MAX_TAG_LENGTH || !TAG_PATTERN.test(x)) {
    fail(path, 'pattern', `${path} ${JSON.stringify(x.slice(0, 60))} must be a lowercase tag: letters, digits, "_" and "-", starting with a letter or digit, at most ${MAX_TAG_LENGTH} characters`);
  }
  return x;
}

function setIf<T extends object, K extends keyof T>(o: T, k: K, v: T[K] | undefined): void {
  if (v !== undefined) o[k] = v;
}

/** `get_schema_template` (zhou §3.2 step 3, Figure 6), with the optional ADOL views `view` and `compact` (chang §3.1, §3.2). */
export function parseGetSchemaTemplateParams(params: unknown): GetSchemaTemplateParams {
  const p = paramsObject(params, ['scenario', 'preferred_language', 'agent', 'client_id', 'view', 'compact', 'refs'], false);
  const s = scenarioParam(p, true) as { scenario: string; scenario_id: string };
  const out: GetSchemaTemplateParams = { scenario: s.scenario, scenario_id: s.scenario_id };
  const lang = p.preferred_language;
  if (lang !== undefined && lang !== null) out.preferred_language = normalizeLanguageTag(lang, 'params.preferred_language');
  setIf(out, 'agent', optionalAgent(p));
  setIf(out, 'client_id', clientId(p));
  const view = p.view;
  if (view !== undefined && view !== null) {
    if (typeof view !== 'string') fail('params.view', 'type', `params.view must be a string, got ${jsonTypeName(view)}`);
    if (!(TEMPLATE_VIEWS as readonly string[]).includes(view as string)) {
      fail('params.view', 'enum', `params.view must be one of ${TEMPLATE_VIEWS.join(', ')}, got ${JSON.stringify(String(view).slice(0, 60))}`);
    }
    out.view = view as TemplateView;
  }
  const compact = p.compact;
  if (compact !== undefined && compact !== null) {
    if (typeof compact !== 'boolean') fail('params.compact', 'type', `params.compact must be a boolean, got ${jsonTypeName(compact)}`);
    out.compact = compact as boolean;
  }
  const refs = p.refs;
  if (refs !== undefined && refs !== null) {
    if (!(TEMPLATE_REFS as readonly unknown[]).includes(refs)) {
      fail('params.refs', 'enum', `params.refs must be one of ${TEMPLATE_REFS.join(', ')}, got ${JSON.stringify(String(refs).slice(0, 60))}`);
    }
    if (refs === 'none' && out.compact === true) fail('params.refs', 'conflict', 'params.refs "none" asks for no $ref, params.compact true for $refs: send one of them');
    if (refs === 'local') out.compact = true;
  }
  return out;
}

/** `execute` (zhou §3.2 step 4, Figure 8). The payload is checked against its template later. */
export function parseExecuteParams(params: unknown): ExecuteParams {
  const p = paramsObject(params, ['schema_id', 'payload', 'client_id', 'agent', 'schema_etag', 'utterance', 'idempotency_key'], false);
  const schemaId = str(p, 'schema_id', { required: true, pattern: SCHEMA_ID_PATTERN, hint: 'the schema_id from get_schema_template, e.g. "flight_booking_v1"' });
  const payload = objectParam(p, 'payload', true) as JsonObject;
  const out: ExecuteParams = { schema_id: schemaId, payload };
  setIf(out, 'client_id', clientId(p));
  setIf(out, 'agent', optionalAgent(p));
  setIf(out, 'schema_etag', etagParam(p, 'schema_etag'));
  setIf(out, 'utterance', str(p, 'utterance', { max: MAX_UTTERANCE_LENGTH }));
  setIf(out, 'idempotency_key', parseIdempotencyKey(p.idempotency_key, 'params.idempotency_key'));
  return out;
}

/** `get_schema_updates` (zhou §6.2.2 "a dedicated schema polling endpoint"). */
export function parseGetSchemaUpdatesParams(params: unknown): GetSchemaUpdatesParams {
  const p = paramsObject(params, ['scenario', 'client_id', 'agent', 'since_etag'], false);
  const s = scenarioParam(p, true) as { scenario: string; scenario_id: string };
  const out: GetSchemaUpdatesParams = { scenario: s.scenario, scenario_id: s.scenario_id };
  setIf(out, 'client_id', clientId(p));
  setIf(out, 'agent', optionalAgent(p));
  setIf(out, 'since_etag', etagParam(p, 'since_etag'));
  return out;
}

/** `register_agent`: a server agent announces itself and the scenarios it serves. */
export function parseRegisterAgentParams(params: unknown): RegisterAgentParams {
  const p = paramsObject(params, ['name', 'description', 'domain', 'tags', 'scenarios', 'version'], false);
  const name = validateAgentName(p.name, 'params.name');
  const description = str(p, 'description', { max: MAX_DESCRIPTION_LENGTH });
  const domain = str(p, 'domain', { max: MAX_DOMAIN_LENGTH });
  const tags = stringList(p, 'tags', false, tagValue);
  const scenarios = stringList(p, 'scenarios', true, (x, path) => {
    if (typeof x !== 'string') fail(path, 'type', `${path} must be a string, got ${jsonTypeName(x)}`);
    if (x.length > MAX_SCENARIO_LENGTH) fail(path, 'max_length', `${path} must be at most ${MAX_SCENARIO_LENGTH} characters`);
    return scenarioId(x, { path });
  }) as string[];
  const version = str(p, 'version', { max: MAX_VERSION_LENGTH });
  const out: RegisterAgentParams = { name, scenarios };
  setIf(out, 'description', description);
  setIf(out, 'domain', domain);
  setIf(out, 'tags', tags);
  setIf(out, 'version', version);
  return out;
}

/** `publish_schema`: a server agent publishes a template (zhou §3.1 S(1)) in one language (zhou §4.2). */
export function parsePublishSchemaParams(params: unknown): PublishSchemaParams {
  const p = paramsObject(params, ['agent', 'template', 'language', 'response_schema'], false);
  const agent = validateAgentName(p.agent, 'params.agent');
  const template = objectParam(p, 'template', true) as JsonObject;
  const lang = p.language;
  const language = lang === undefined || lang === null ? 'en' : normalizeLanguageTag(lang, 'params.language');
  const out: PublishSchemaParams = { agent, template, language };
  setIf(out, 'response_schema', objectParam(p, 'response_schema', false));
  return out;
}

/** `list_agents`: params may be omitted. */
export function parseListAgentsParams(params: unknown): ListAgentsParams {
  const p = paramsObject(params, ['scenario', 'tag', 'domain'], true);
  const out: ListAgentsParams = {};
  const s = scenarioParam(p, false);
  if (s) {
    out.scenario = s.scenario;
    out.scenario_id = s.scenario_id;
  }
  const tag = p.tag;
  if (tag !== undefined && tag !== null) out.tag = tagValue(tag, 'params.tag');
  setIf(out, 'domain', str(p, 'domain', { max: MAX_DOMAIN_LENGTH }));
  return out;
}

/** `list_schemas`: params may be omitted. */
export function parseListSchemasParams(params: unknown): ListSchemasParams {
  const p = paramsObject(params, ['agent', 'scenario', 'include_retired'], true);
  const out: ListSchemasParams = {};
  setIf(out, 'agent', optionalAgent(p));
  const s = scenarioParam(p, false);
  if (s) {
    out.scenario = s.scenario;
    out.scenario_id = s.scenario_id;
  }
  const all = p.include_retired;
  if (all !== undefined && all !== null) {
    if (typeof all !== 'boolean') fail('params.include_retired', 'type', `params.include_retired must be a boolean, got ${jsonTypeName(all)}`);
    if (all) out.include_retired = true;
  }
  return out;
}

/** `unregister_agent`: `{"name": "acme-air"}`. */
export function parseUnregisterAgentParams(params: unknown): UnregisterAgentParams {
  const p = paramsObject(params, ['name'], false);
  return { name: validateAgentName(p.name, 'params.name') };
}

/** `retire_schema`: `{"agent": "acme-air", "schema_id": "acme_flight_v1", "reason": "…"}`. */
export function parseRetireSchemaParams(params: unknown): RetireSchemaParams {
  const p = paramsObject(params, ['agent', 'schema_id', 'reason'], false);
  const agent = validateAgentName(p.agent, 'params.agent');
  const schemaId = str(p, 'schema_id', { required: true, pattern: SCHEMA_ID_PATTERN, hint: 'the schema_id to retire, e.g. "acme_flight_v1"' });
  const out: RetireSchemaParams = { agent, schema_id: schemaId };
  setIf(out, 'reason', str(p, 'reason', { max: MAX_RETIRE_REASON_LENGTH }));
  return out;
}

/** The parsers by JSON-RPC method name. */
export const RPC_PARAM_PARSERS = {
  get_schema_template: parseGetSchemaTemplateParams,
  get_schema_updates: parseGetSchemaUpdatesParams,
  execute: parseExecuteParams,
  register_agent: parseRegisterAgentParams,
  publish_schema: parsePublishSchemaParams,
  list_agents: parseListAgentsParams,
  list_schemas: parseListSchemasParams,
  unregister_agent: parseUnregisterAgentParams,
  get_agent: parseGetAgentParams,
  retire_schema: parseRetireSchemaParams,
} as const;

export type RpcMethod = keyof typeof RPC_PARAM_PARSERS;
