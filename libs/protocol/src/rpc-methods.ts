/**
 * Every JSON-RPC method the gateway serves on `POST /rpc`, described once: name,
 * summary, params and result as JSON Schema (2020-12 subset), the errors of the
 * catalogue (errors.ts) it may answer beyond the common ones, and the gRPC
 * methods it reaches (their roles are libs/auth POLICY's). From this table come
 * the OpenRPC 1.3 document (`rpc.discover`, `GET /openrpc.json`; openrpc.ts) and
 * the typed client methods (libs/client/src/methods.gen.ts, `npm run gen:rpc`).
 *
 * Adding a method: write its handler (apps/gateway/src/rpc.ts or a file it
 * spreads into METHODS), add its entry here, run `npm run gen:rpc`. The gateway's
 * test (apps/gateway/test/openrpc.test.ts) fails for a handler without an entry,
 * an entry without a handler, or params that differ from what the handler accepts.
 *
 * Results that are a service's answer as is reference the parley.v1 messages
 * (`wire('Patch')`: rpc-wire.gen.ts, generated from proto/). Params list exactly
 * the members the handler accepts (additionalProperties false: an unknown member
 * is `invalid_params`, rule `unknown_member`).
 */
import type { ErrorType } from './errors';
import { WIRE_SCHEMAS } from './rpc-wire.gen';

export type JsonSchema = { [k: string]: unknown };

export interface RpcMethodSpec {
  readonly name: string;
  readonly summary: string;
  readonly description?: string;
  /** OpenRPC tag: which part of Parley (and which draft) the method belongs to. */
  readonly tag: RpcTag;
  readonly params: JsonSchema;
  readonly result: JsonSchema;
  /** Errors of the catalogue this method answers beyond COMMON_ERRORS. */
  readonly errors: readonly ErrorType[];
  /**
   * The gRPC methods it calls (`<Service>/<Method>`, libs/auth POLICY keys): the
   * roles that may call it are theirs. Empty: any authenticated caller.
   */
  readonly grpc: readonly string[];
}

export const RPC_TAGS = {
  negotiation: 'Schema negotiation and execution (draft-zhou §3.2, §6.2.2, §7)',
  registry: 'Agents and schemas: registration, discovery, retirement (draft-zhou §3.2 step (2), §4.1)',
  an: 'Autonomous-network agent profiles and tasks (draft 004 §5.1-§5.4)',
  evolution: 'Operators: schema self-evolution (draft-zhou §6.2), dead letters, API keys, event webhooks',
  identity: 'Who the caller is',
} as const;
export type RpcTag = keyof typeof RPC_TAGS;

/** Errors any method may answer (access, limits, a dependency down, a bug). */
export const COMMON_ERRORS: readonly ErrorType[] = ['invalid_params', 'unauthenticated', 'forbidden', 'rate_limited', 'unavailable', 'internal'];

// ---------------------------------------------------------------------------
// Schema helpers
// ---------------------------------------------------------------------------

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

type WireName = keyof typeof WIRE_SCHEMAS;
/** A parley.v1 message as the service answers it. */
const wire = (name: WireName): JsonSchema => ref(name);

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
const strings = (description: string, items: JsonSchema = { type: 'string' }): JsonSchema => ({ type: 'array', description, items });
const oneOfStrings = (description: string, values: readonly string[]): JsonSchema => ({ type: 'string', description, enum: [...values] });

/** Params: by-name, exactly these members. */
function params(properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}), additionalProperties: false };
}

/** A result object (clients must ignore members they do not know). */
function result(properties: Record<string, JsonSchema>, required: readonly string[] = Object.keys(properties)): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required: [...required] } : {}) };
}

/** Params taken member for member from a parley.v1 request message, with the members the method requires. */
function wireParams(name: WireName, required: readonly string[], extra: Record<string, JsonSchema> = {}): JsonSchema {
  const props = (WIRE_SCHEMAS[name] as { properties: Record<string, JsonSchema> }).properties;
  return params({ ...props, ...extra }, required);
}

/** Draft 004's msg-header commuType, accepted (and checked) beside an AN task method's params; the method names it already. */
const commuType = (value: string): Record<string, JsonSchema> => ({ commu_type: { type: 'string', const: value, description: `The draft 004 msg-header commuType: "${value}".` } });

const SCENARIO = str('The scenario, as a name ("Flight Booking") or its canonical snake_case id ("flight_booking").', { minLength: 1, maxLength: 128 });
const AGENT = str('A server agent name (its schema namespace, draft-zhou §4.1).', { pattern: '^[a-z][a-z0-9_-]{0,62}$' });
const CLIENT_ID = str('The client id (must be the caller\'s own when a credential names one).', { pattern: '^[A-Za-z0-9_.:@-]+$', maxLength: 128 });
const SCHEMA_ID = str('A schema_id, e.g. "flight_booking_v1".', { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' });
const LANGUAGE = str('A BCP 47 language tag (draft-zhou §4.2), e.g. "en-US".');
const ETAG = str('An etag as get_schema_updates or get_schema_template_signed returned it.', { pattern: '^[\\x21-\\x7e]+$', maxLength: 128 });
const ID = (what: string): JsonSchema => str(what, { pattern: '^[\\x21-\\x7e]+$', maxLength: 256 });
const LIMIT = int('At most this many entries.', { minimum: 1, maximum: 1000 });
const REASON = str('Why, stored with the decision.', { minLength: 1, maxLength: 2048 });
const SCOPE = str('"global" or a client id.', { pattern: '^[A-Za-z0-9_.:@-]+$', maxLength: 128 });
const TAG = str('A lowercase tag.', { pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 64 });
const DEAD_LETTER_SERVICES = ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution'] as const;
const DEAD_LETTER_ID = str('A dead letter id as list_dead_letters shows it.', { pattern: '^[1-9][0-9]{0,17}$' });
const AN_DATA_TYPES = ['text', 'image', 'audio', 'video'] as const;
const AN_NEGOTIATION_TYPES = ['FEASIBILITY', 'FULFILLMENT'] as const;

// ---------------------------------------------------------------------------
// Shared schemas (components.schemas beside the parley.v1 messages)
// ---------------------------------------------------------------------------

const KEY_TYPE = { type: 'string', enum: ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null'] };

export const SHARED_SCHEMAS = {
  TemplateKey: {
    title: 'TemplateKey',
    description: 'A key definition of a schema template (draft-zhou §4.1), with Parley\'s constraint members, the §6.2.3 lifecycle flags and the ADOL optional section.',
    type: 'object',
    properties: {
      key_name: str('snake_case, unique within the template.'),
      key_type: { ...KEY_TYPE, description: 'A JSON Schema type identifier.' },
      required: bool('The payload must carry it.'),
      default_value: { description: 'Absent and null both mean "no default".' },
      semantic_description: str('What the value means, in the template\'s language (§4.2).'),
      enum: { type: 'array', items: {}, description: 'Acceptable values.' },
      minimum: { type: 'number' },
      maximum: { type: 'number' },
      format: str('A JSON Schema format for string keys, e.g. "date".'),
      pattern: str('A regular expression string values must match.'),
      min_length: int('', { minimum: 0 }),
      max_length: int('', { minimum: 0 }),
      items_type: { ...KEY_TYPE, description: 'Element type of an array key.' },
      min_items: int('', { minimum: 0 }),
      max_items: int('', { minimum: 0 }),
      security_relevant: bool('Touches payment, identity or access control (§7): patches to it wait for an operator.'),
      experimental: bool('Added by a schema patch, on trial (§6.2.3).'),
      deprecated: bool('Withdrawn by a schema patch, in its grace period (§6.2.3).'),
      optional: { type: 'object', additionalProperties: true, description: 'Content a client can do without (draft-chang §3.2).' },
    },
    required: ['key_name', 'key_type', 'required', 'semantic_description'],
  },
  Template: {
    title: 'Template',
    description: 'A schema template (draft-zhou §4.1, Figures 2 and 7).',
    type: 'object',
    properties: {
      schema_id: str('Unique within the server agent\'s namespace.'),
      scenario: str('The human-readable scenario; its snake_case slug is the canonical scenario id.'),
      keys: { type: 'array', items: ref('TemplateKey') },
    },
    required: ['schema_id', 'scenario', 'keys'],
  },
  CompactTemplate: {
    title: 'CompactTemplate',
    description: 'A template with repeated key bodies written once in $defs and referenced by $ref (draft-chang §3.1).',
    type: 'object',
    properties: { template: { type: 'object', additionalProperties: true }, $defs: { type: 'object', additionalProperties: true } },
    required: ['template', '$defs'],
  },
  PatchDelivery: {
    title: 'PatchDelivery',
    description: 'One schema patch as the polling endpoint delivers it (draft-zhou §6.2.2 Patch Packaging; ISO 8601 times).',
    type: 'object',
    properties: {
      patch_id: str(''),
      parent_schema_id: str('The base schema the patch extends.'),
      scenario_id: str(''),
      scope: str('"global" or the client id the patch belongs to.'),
      timestamp: str(''),
      expires_at: str(''),
      new_keys: { type: 'array', items: ref('TemplateKey') },
      modified_keys: { type: 'array', items: wire('ModifiedKey') },
      signature: str('Negotiation\'s detached JWS over every other member (draft-zhou §7).'),
    },
    required: ['patch_id', 'parent_schema_id', 'scenario_id', 'scope', 'timestamp', 'expires_at', 'new_keys', 'modified_keys'],
  },
  SchemaUpdateSuggestion: {
    title: 'SchemaUpdateSuggestion',
    description: 'What Parley adds to a result when the client\'s template is stale (draft-zhou §6.2.2, Figure 9).',
    type: 'object',
    properties: {
      parent_schema_id: str(''),
      etag: str('The etag of the current effective template.'),
      patch_ids: strings(''),
      new_keys: { type: 'array', items: ref('TemplateKey') },
      modified_keys: { type: 'array', items: wire('ModifiedKey') },
      signature: str('Negotiation\'s detached JWS over every other member (draft-zhou §7).'),
    },
    required: ['new_keys'],
    additionalProperties: true,
  },
} as const satisfies Record<string, JsonSchema>;

const TEMPLATE_PARAMS = {
  scenario: SCENARIO,
  preferred_language: LANGUAGE,
  agent: str('The server agent, when several serve the scenario.', { pattern: '^[a-z][a-z0-9_-]{0,62}$' }),
  client_id: str('The client whose effective template (base + its patches, §6.2.2) to negotiate; without it, the global one.', { pattern: '^[A-Za-z0-9_.:@-]+$', maxLength: 128 }),
  view: oneOfStrings('"short": a concise view for a model (draft-chang §3.2); "full" (default): as published.', ['full', 'short']),
  compact: bool('Return { template, $defs } with repeated key bodies written once (draft-chang §3.1).'),
  refs: oneOfStrings('"local" is compact: true; "none" (default) no $ref.', ['none', 'local']),
};
const NEGOTIATE_EXTRA_F = { type: { type: 'string', const: 'FEASIBILITY', description: 'The negotiation type, when sent: the method names it.' }, ...commuType('FeasibilityNegotiate') };
const NEGOTIATE_EXTRA_U = { type: { type: 'string', const: 'FULFILLMENT', description: 'The negotiation type, when sent: the method names it.' }, ...commuType('FulfillmentNegotiate') };
const NEGOTIATE_ERRORS: readonly ErrorType[] = ['scenario_not_found', 'schema_not_found', 'agent_not_found', 'ambiguous_agent', 'scenario_not_served'];

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

export const RPC_METHODS = [
  // --- draft-zhou §3.2: negotiation and execution -------------------------------------------
  {
    name: 'get_schema_template',
    summary: 'Negotiate the schema template of a scenario (draft-zhou §3.2 step (3), Figures 6 and 7).',
    description: 'The result is the template itself (the client\'s effective one with client_id, §6.2.2); view "short" and compact are ADOL views (draft-chang §3). A single request also gets negotiation\'s signature in the Parley-Signature header.',
    tag: 'negotiation',
    params: params(TEMPLATE_PARAMS, ['scenario']),
    result: { anyOf: [ref('Template'), ref('CompactTemplate')] },
    errors: NEGOTIATE_ERRORS,
    grpc: ['NegotiationService/GetSchemaTemplate'],
  },
  {
    name: 'get_schema_template_signed',
    summary: 'The full template with negotiation\'s signature, etag and applied patches (draft-zhou §7).',
    tag: 'negotiation',
    params: params(TEMPLATE_PARAMS, ['scenario']),
    result: result(
      {
        template: ref('Template'),
        signature: str('A detached JWS over the template; its protected header\'s `parley` member signs agent, etag, applied_patches and client_id.'),
        etag: str('The etag of this effective template.'),
        applied_patches: strings('The patches applied to the base template.'),
        agent: str('The server agent whose template it is.'),
        language: str('The template\'s language.'),
      },
      ['template', 'etag', 'applied_patches'],
    ),
    errors: NEGOTIATE_ERRORS,
    grpc: ['NegotiationService/GetSchemaTemplate'],
  },
  {
    name: 'execute',
    summary: 'Send a payload to the server agent of a schema and get its result (draft-zhou §3.2 steps (4)-(6), Figures 8 and 9).',
    description: 'The payload is validated against the template first (payload_invalid names the key and rule). The result is the agent\'s own, with Parley\'s schema_update_suggestion when schema_etag is stale (§6.2.2) and warnings. The Idempotency-Key header or idempotency_key makes a retry safe.',
    tag: 'negotiation',
    params: params(
      {
        schema_id: SCHEMA_ID,
        payload: { type: 'object', additionalProperties: true, description: 'The key-value payload (Figure 8).' },
        client_id: CLIENT_ID,
        agent: AGENT,
        schema_etag: { ...ETAG, description: 'The etag of the template the payload was built from: a stale one brings a schema_update_suggestion.' },
        utterance: str('The user\'s own words behind the payload, for the §6.2.3 audit sampler; never stored with the execution.', { maxLength: 4000 }),
        idempotency_key: str('A repeat with the same key by the same client returns the first result and executes nothing.', { pattern: '^[A-Za-z0-9_.:~+/=@-]+$', maxLength: 128 }),
      },
      ['schema_id', 'payload'],
    ),
    result: {
      type: 'object',
      description: 'The server agent\'s result, with Parley\'s members beside its own.',
      properties: {
        schema_update_suggestion: ref('SchemaUpdateSuggestion'),
        agent_schema_update_suggestion: { type: 'object', additionalProperties: true, description: 'The agent\'s own suggestion, beside Parley\'s signed one.' },
        warnings: strings('Payload warnings that did not reject it.'),
      },
      additionalProperties: true,
    },
    errors: ['schema_not_found', 'payload_invalid', 'agent_not_found', 'ambiguous_agent', 'agent_timeout', 'agent_unavailable', 'agent_error', 'agent_response_invalid', 'idempotency_conflict', 'idempotency_in_progress'],
    grpc: ['ExecutionService/Execute'],
  },
  {
    name: 'get_schema_updates',
    summary: 'Poll for schema changes: the etag of the effective template and its patches (draft-zhou §6.2.2 Online Update Delivery).',
    tag: 'negotiation',
    params: params({ scenario: SCENARIO, client_id: CLIENT_ID, agent: AGENT, since_etag: { ...ETAG, description: 'The etag held: when current, nothing but the etag comes back.' } }, ['scenario']),
    result: result({
      etag: str('The etag of the effective template.'),
      changed: bool('False when since_etag was current (then patches is empty).'),
      parent_schema_id: str('The base schema the patches extend.'),
      patches: { type: 'array', items: ref('PatchDelivery') },
    }),
    errors: NEGOTIATE_ERRORS,
    grpc: ['NegotiationService/GetSchemaUpdates'],
  },
  // --- Agents and schemas --------------------------------------------------------------------
  {
    name: 'register_agent',
    summary: 'A server agent announces itself and the scenarios it serves (create or update).',
    tag: 'registry',
    params: params(
      {
        name: AGENT,
        description: str('', { maxLength: 2048 }),
        domain: str('', { maxLength: 128 }),
        tags: strings('Deduplicated, in order.', TAG),
        scenarios: { ...strings('The scenarios served (canonical ids kept).', SCENARIO), minItems: 1, maxItems: 256 },
        version: str('', { maxLength: 64 }),
      },
      ['name', 'scenarios'],
    ),
    result: result({ agent: wire('Agent'), created: bool('True when the call created the agent.') }),
    errors: ['agent_invalid'],
    grpc: ['RegistryService/RegisterAgent'],
  },
  {
    name: 'get_agent',
    summary: 'One registered agent.',
    tag: 'registry',
    params: params({ name: AGENT }, ['name']),
    result: result({ agent: wire('Agent') }),
    errors: ['agent_not_found'],
    grpc: ['RegistryService/GetAgent'],
  },
  {
    name: 'list_agents',
    summary: 'Agent discovery (draft-zhou §3.2 step (2)): registered agents, filtered by scenario, tag and domain.',
    tag: 'registry',
    params: params({ scenario: SCENARIO, tag: TAG, domain: str('', { maxLength: 128 }) }),
    result: result({ agents: { type: 'array', items: wire('Agent') } }),
    errors: [],
    grpc: ['RegistryService/ListAgents'],
  },
  {
    name: 'publish_schema',
    summary: 'A server agent publishes a schema template (draft-zhou §3.1 S(1)) in one language (§4.2).',
    tag: 'registry',
    params: params(
      {
        agent: AGENT,
        template: ref('Template'),
        language: { ...LANGUAGE, description: 'The language of the semantic descriptions (default "en").' },
        response_schema: { type: 'object', additionalProperties: true, description: 'A JSON Schema the agent\'s results must satisfy.' },
      },
      ['agent', 'template'],
    ),
    result: result({ schema: wire('SchemaVersion'), created: bool('False when the same template was published already.'), notes: strings('What negotiation noticed.') }),
    errors: ['template_invalid', 'agent_not_found', 'scenario_not_served', 'schema_immutable'],
    grpc: ['NegotiationService/PublishSchema'],
  },
  {
    name: 'list_schemas',
    summary: 'Published schemas, by agent and scenario.',
    tag: 'registry',
    params: params({ agent: AGENT, scenario: SCENARIO, include_retired: bool('Retired schemas too (default: live ones only).') }),
    result: result({ schemas: { type: 'array', items: wire('SchemaVersion') } }),
    errors: [],
    grpc: ['NegotiationService/ListSchemas'],
  },
  {
    name: 'unregister_agent',
    summary: 'Remove an agent (its owner or an operator): its schemas are retired, then the registry forgets it.',
    tag: 'registry',
    params: params({ name: AGENT }, ['name']),
    result: result({ agent: wire('Agent'), retired_schemas: strings('The schema_ids retired with it.') }),
    errors: ['agent_not_found'],
    grpc: ['RegistryService/GetAgent', 'NegotiationService/RetireSchema', 'RegistryService/UnregisterAgent'],
  },
  {
    name: 'retire_schema',
    summary: 'Retire one published schema (its owner or an operator): no longer negotiated, listed or executed.',
    tag: 'registry',
    params: params({ agent: AGENT, schema_id: SCHEMA_ID, reason: str('', { maxLength: 500 }) }, ['agent', 'schema_id']),
    result: result({ schema: wire('SchemaVersion'), changed: bool('False when it was retired already.') }),
    errors: ['schema_not_found', 'agent_not_found'],
    grpc: ['NegotiationService/RetireSchema'],
  },
  // --- AN agent profiles and tasks (draft 004) -------------------------------------------------
  {
    name: 'register_profile',
    summary: 'Register or replace an AN agent profile (draft 004 §5.1, §4.1 registration).',
    tag: 'an',
    params: params({ profile: wire('AgentProfile') }, ['profile']),
    result: result({ profile: wire('AgentProfile'), created: bool('') }),
    errors: ['agent_invalid'],
    grpc: ['AgentProfileService/RegisterProfile'],
  },
  {
    name: 'get_profile',
    summary: 'One AN agent profile.',
    tag: 'an',
    params: params({ name: str('An AN agent name.', { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', maxLength: 128 }) }, ['name']),
    result: result({ profile: wire('AgentProfile') }),
    errors: ['agent_not_found'],
    grpc: ['AgentProfileService/GetProfile'],
  },
  {
    name: 'discover_profiles',
    summary: 'AN discovery (draft 004 §4.1) by domain, skill tag, skill name, input mode and negotiation type (AND-ed).',
    tag: 'an',
    params: params({
      domain: str('', { maxLength: 256 }),
      tag: str('Matches any skill\'s tags.', { maxLength: 256 }),
      skill: str('A skill name.', { maxLength: 256 }),
      input_mode: oneOfStrings('', AN_DATA_TYPES),
      negotiate: oneOfStrings('', AN_NEGOTIATION_TYPES),
    }),
    result: result({ profiles: { type: 'array', items: wire('AgentProfile') } }),
    errors: [],
    grpc: ['AgentProfileService/DiscoverProfiles'],
  },
  {
    name: 'capability_request',
    summary: 'Ask for an agent\'s capabilities (draft 004 CapabilityRequest).',
    tag: 'an',
    params: wireParams('TaskCapabilityRequest', ['send_from', 'send_to'], commuType('CapabilityRequest')),
    result: wire('TaskCapabilityResponse'),
    errors: ['agent_not_found'],
    grpc: ['TaskService/CapabilityRequest'],
  },
  {
    name: 'task_assign',
    summary: 'Assign a task to an agent (draft 004 taskAssign): synchronous (final status and result) or asynchronous.',
    tag: 'an',
    params: wireParams('TaskAssignRequest', ['send_from', 'send_to'], commuType('taskAssign')),
    result: wire('TaskAssignResponse'),
    errors: ['agent_not_found', 'schema_not_found', 'payload_invalid', 'agent_timeout', 'agent_unavailable', 'agent_error'],
    grpc: ['TaskService/TaskAssign'],
  },
  {
    name: 'task_cancel',
    summary: 'Cancel a task (draft 004 taskCancel).',
    tag: 'an',
    params: wireParams('TaskCancelRequest', ['task_id', 'send_from'], commuType('taskCancel')),
    result: wire('TaskCancelResponse'),
    errors: ['task_not_found', 'illegal_transition'],
    grpc: ['TaskService/TaskCancel'],
  },
  {
    name: 'feasibility_negotiate',
    summary: 'One round of feasibility negotiation (draft 004 FeasibilityNegotiate).',
    tag: 'an',
    params: wireParams('TaskNegotiateRequest', ['send_from', 'send_to', 'content'], NEGOTIATE_EXTRA_F),
    result: wire('TaskNegotiateResponse'),
    errors: ['task_not_found', 'illegal_transition', 'agent_timeout', 'agent_unavailable'],
    grpc: ['TaskService/FeasibilityNegotiate'],
  },
  {
    name: 'fulfillment_negotiate',
    summary: 'One round of fulfillment negotiation (draft 004 FulfillmentNegotiate).',
    tag: 'an',
    params: wireParams('TaskNegotiateRequest', ['send_from', 'send_to', 'content'], NEGOTIATE_EXTRA_U),
    result: wire('TaskNegotiateResponse'),
    errors: ['task_not_found', 'illegal_transition', 'agent_timeout', 'agent_unavailable'],
    grpc: ['TaskService/FulfillmentNegotiate'],
  },
  {
    name: 'task_result_query',
    summary: 'A task\'s status and latest notification (draft 004 taskResultQuery).',
    tag: 'an',
    params: wireParams('TaskResultQueryRequest', ['task_id', 'send_from'], commuType('taskResultQuery')),
    result: wire('TaskResultQueryResponse'),
    errors: ['task_not_found'],
    grpc: ['TaskService/TaskResultQuery'],
  },
  {
    name: 'task_result_subscribe',
    summary: 'Subscribe to a task\'s notifications by webhook or NATS (draft 004 taskResultSubscribe; streams are gRPC only).',
    tag: 'an',
    params: wireParams('RegisterTaskSubscriptionRequest', ['task_id', 'send_from', 'subscription'], commuType('taskResultSubscribe')),
    result: wire('RegisterTaskSubscriptionResponse'),
    errors: ['task_not_found'],
    grpc: ['TaskService/RegisterTaskSubscription'],
  },
  {
    name: 'task_result_notify',
    summary: 'The executing agent reports a task\'s status and result (draft 004 taskResultNotify).',
    tag: 'an',
    params: wireParams('TaskResultNotifyRequest', ['task_id', 'send_from', 'status'], commuType('taskResultNotify')),
    result: wire('TaskResultNotifyResponse'),
    errors: ['task_not_found', 'illegal_transition'],
    grpc: ['TaskService/TaskResultNotify'],
  },
  {
    name: 'task_context',
    summary: 'A task\'s messages in order (draft 004 §5.2 context).',
    tag: 'an',
    params: params({ task_id: str(''), after_seq: int('Messages after this seq.', { minimum: 0 }), limit: int('', { minimum: 1 }) }, ['task_id']),
    result: wire('TaskContextResponse'),
    errors: ['task_not_found'],
    grpc: ['TaskService/TaskContext'],
  },
  {
    name: 'upload_chunk',
    summary: 'Upload one chunk of a large data param (draft 004 §5.2 data-params).',
    tag: 'an',
    params: params(
      {
        send_from: str(''),
        task_id: str(''),
        param: wire('DataParam'),
        chunk: params({ param_id: str(''), seq: int('', { minimum: 0 }), data: str(''), finished: bool('') }, ['param_id', 'seq', 'data', 'finished']),
      },
      ['send_from', 'chunk'],
    ),
    result: wire('UploadChunkResponse'),
    errors: ['task_not_found'],
    grpc: ['TaskService/UploadChunk'],
  },
  // --- Operators: schema self-evolution (draft-zhou §6.2) -------------------------------------
  {
    name: 'list_clusters',
    summary: 'The scenario\'s Differential Semantic Pool clusters, hottest first (draft-zhou §6.2.1).',
    tag: 'evolution',
    params: params({ scenario: SCENARIO, scope: SCOPE, min_heat: { type: 'number', minimum: 0 }, limit: LIMIT }, ['scenario']),
    result: wire('ListClustersResponse'),
    errors: [],
    grpc: ['SemanticPoolService/ListClusters'],
  },
  {
    name: 'get_cluster',
    summary: 'One pool cluster; include_raw adds its raw fragments (sealed at rest, §7).',
    tag: 'evolution',
    params: params({ scenario: SCENARIO, id: ID('A cluster id as list_clusters shows it.'), include_raw: bool('') }, ['scenario', 'id']),
    result: wire('GetClusterResponse'),
    errors: ['cluster_not_found'],
    grpc: ['SemanticPoolService/GetCluster'],
  },
  {
    name: 'list_patches',
    summary: 'Schema patches of a scenario and the candidates the convergence guard holds back (draft-zhou §6.2.2, §6.2.3).',
    tag: 'evolution',
    params: params({ scenario: SCENARIO, status: oneOfStrings('', ['proposed', 'active', 'rejected']), scope: SCOPE }, ['scenario']),
    result: wire('ListPatchesResponse'),
    errors: [],
    grpc: ['EvolutionService/ListPatches'],
  },
  {
    name: 'get_patch',
    summary: 'One schema patch with its keys\' lifecycle and metrics.',
    tag: 'evolution',
    params: params({ patch_id: ID('A patch id as list_patches shows it.') }, ['patch_id']),
    result: wire('GetPatchResponse'),
    errors: ['patch_not_found'],
    grpc: ['EvolutionService/GetPatch'],
  },
  {
    name: 'approve_patch',
    summary: 'Approve a patch held for an operator (draft-zhou §7: security-relevant keys).',
    tag: 'evolution',
    params: params({ patch_id: ID('A patch id as list_patches shows it.'), reason: REASON }, ['patch_id', 'reason']),
    result: wire('GetPatchResponse'),
    errors: ['patch_not_found', 'illegal_transition'],
    grpc: ['EvolutionService/ApprovePatch'],
  },
  {
    name: 'reject_patch',
    summary: 'Reject a patch.',
    tag: 'evolution',
    params: params({ patch_id: ID('A patch id as list_patches shows it.'), reason: REASON }, ['patch_id', 'reason']),
    result: wire('GetPatchResponse'),
    errors: ['patch_not_found', 'illegal_transition'],
    grpc: ['EvolutionService/RejectPatch'],
  },
  {
    name: 'pin_patch',
    summary: 'Pin a patch\'s keys in their lifecycle state (the evaluator leaves them), or unpin them.',
    tag: 'evolution',
    params: params({ patch_id: ID('A patch id as list_patches shows it.'), pinned: bool(''), reason: REASON }, ['patch_id', 'pinned', 'reason']),
    result: wire('GetPatchResponse'),
    errors: ['patch_not_found', 'illegal_transition'],
    grpc: ['EvolutionService/PinPatch'],
  },
  {
    name: 'edit_patch',
    summary: 'An operator\'s correction of one key of a patch: rename, enum values, type or description (draft-zhou §6.2 authorized updates).',
    description:
      'A proposed patch is edited in place; on a published experimental key new values or a new description become a refinement (values only grow); a rename, or a type change with a rename, becomes a new key and the old one is deprecated. Recorded as a decision with who and why.',
    tag: 'evolution',
    params: params(
      {
        patch_id: ID('A patch id as list_patches shows it.'),
        key: str('The key of the patch to edit.', { maxLength: 64 }),
        rename: str('A new snake_case name.', { maxLength: 64 }),
        values: strings('The enum values (numbers are parsed for integer and number keys).', { type: ['string', 'number'], maxLength: 64 }),
        type: oneOfStrings('', ['string', 'integer', 'number', 'boolean', 'array', 'object']),
        description: str('', { maxLength: 2048 }),
        reason: REASON,
      },
      ['patch_id', 'key', 'reason'],
    ),
    result: wire('EditPatchResponse'),
    errors: ['patch_not_found', 'illegal_transition'],
    grpc: ['EvolutionService/EditPatch'],
  },
  {
    name: 'list_decisions',
    summary: 'The decision log (lifecycle transitions and operator decisions) in seq order.',
    tag: 'evolution',
    params: params({ scenario: SCENARIO, patch_id: ID(''), after_seq: int('', { minimum: 0 }), limit: LIMIT }, ['scenario']),
    result: wire('ListDecisionsResponse'),
    errors: [],
    grpc: ['EvolutionService/ListDecisions'],
  },
  {
    name: 'list_audit_samples',
    summary: 'Samples for semantic-alignment accuracy (draft-zhou §6.2.3).',
    tag: 'evolution',
    params: params({ scenario: SCENARIO, patch_id: ID(''), verdict: oneOfStrings('', ['pending', 'aligned', 'misaligned']), limit: LIMIT }, ['scenario']),
    result: wire('ListAuditSamplesResponse'),
    errors: [],
    grpc: ['EvolutionService/ListAuditSamples'],
  },
  {
    name: 'judge_audit_sample',
    summary: 'Judge an audit sample aligned or not (draft-zhou §6.2.3).',
    tag: 'evolution',
    params: params({ sample_id: ID('An audit sample id as list_audit_samples shows it.'), aligned: bool(''), note: str('', { maxLength: 2048 }) }, ['sample_id', 'aligned']),
    result: wire('JudgeAuditSampleResponse'),
    errors: ['audit_sample_not_found', 'illegal_transition'],
    grpc: ['EvolutionService/JudgeAuditSample'],
  },
  {
    name: 'list_dead_letters',
    summary: 'Events set aside by one service or every one, with counts by status (draft-zhou §6.2 event flow).',
    tag: 'evolution',
    params: params({
      service: oneOfStrings('', DEAD_LETTER_SERVICES),
      scenario: SCENARIO,
      consumer: str('A durable consumer name as listed.', { pattern: '^[A-Za-z0-9_.-]+$', maxLength: 256 }),
      status: oneOfStrings('', ['dead', 'retried', 'discarded', 'all']),
      after_id: { ...DEAD_LETTER_ID, description: 'Pages within one service (needs service).' },
      limit: LIMIT,
    }),
    result: result({
      services: { type: 'array', items: wire('ListDeadLettersResponse') },
      total_dead: int('Events still set aside, summed.', { minimum: 0 }),
      unavailable: { type: 'array', items: result({ service: str(''), error: str('') }) },
    }),
    errors: [],
    grpc: ['DeadLetterService/ListDeadLetters'],
  },
  {
    name: 'retry_dead_letter',
    summary: 'Retry a dead letter now.',
    tag: 'evolution',
    params: params({ service: oneOfStrings('', DEAD_LETTER_SERVICES), id: DEAD_LETTER_ID }, ['service', 'id']),
    result: wire('RetryDeadLetterResponse'),
    errors: ['dead_letter_not_found', 'illegal_transition'],
    grpc: ['DeadLetterService/RetryDeadLetter'],
  },
  {
    name: 'discard_dead_letter',
    summary: 'Mark a dead letter discarded, with why: never retried, kept for the dead-letter retention (PARLEY_DEAD_LETTER_RETENTION_MS, 30 days by default).',
    tag: 'evolution',
    params: params({ service: oneOfStrings('', DEAD_LETTER_SERVICES), id: DEAD_LETTER_ID, reason: REASON }, ['service', 'id', 'reason']),
    result: wire('DiscardDeadLetterResponse'),
    errors: ['dead_letter_not_found', 'illegal_transition'],
    grpc: ['DeadLetterService/DiscardDeadLetter'],
  },
  {
    name: 'create_api_key',
    summary: 'A new API key for a principal with roles (and a server agent\'s agents and scenarios); the key is shown once.',
    tag: 'evolution',
    params: params(
      {
        principal: CLIENT_ID,
        roles: strings('', { type: 'string', enum: ['operator', 'server_agent', 'client_agent'] }),
        agents: strings('Agent names, exact, "prefix*" or "*".'),
        scenarios: strings('Scenario ids, exact, "prefix*" or "*".'),
        description: str('', { maxLength: 500 }),
        expires_at: str('ISO 8601 date-time.', { maxLength: 40 }),
      },
      ['principal'],
    ),
    result: wire('CreateApiKeyResponse'),
    errors: [],
    grpc: ['ApiKeyService/CreateApiKey'],
  },
  {
    name: 'list_api_keys',
    summary: 'API keys (never the keys themselves), by principal.',
    tag: 'evolution',
    params: params({ principal: CLIENT_ID, include_revoked: bool('') }),
    result: wire('ListApiKeysResponse'),
    errors: [],
    grpc: ['ApiKeyService/ListApiKeys'],
  },
  {
    name: 'revoke_api_key',
    summary: 'Revoke an API key at once (services stop accepting it within their credential cache time).',
    tag: 'evolution',
    params: params({ key_id: str('The 16 hex digits after pk_.', { pattern: '^[0-9a-f]{16}$' }) }, ['key_id']),
    result: wire('RevokeApiKeyResponse'),
    errors: ['api_key_not_found'],
    grpc: ['ApiKeyService/RevokeApiKey'],
  },
  {
    name: 'create_event_subscription',
    summary: 'A webhook for schema evolution events (patch.*, key.*, pool.matured); the Standard Webhooks secret is shown once.',
    tag: 'evolution',
    params: params(
      {
        scenario: str('', { maxLength: 128 }),
        events: strings('Event type patterns, e.g. ["patch.*", "key.*", "pool.matured"].'),
        url: str('The receiver (must pass the execution service\'s PARLEY_WEBHOOK_ALLOW).', { maxLength: 2048 }),
        method: str('', { maxLength: 8 }),
        description: str('', { maxLength: 500 }),
      },
      ['scenario', 'events', 'url'],
    ),
    result: wire('CreateEventSubscriptionResponse'),
    errors: [],
    grpc: ['EventSubscriptionService/CreateEventSubscription'],
  },
  {
    name: 'list_event_subscriptions',
    summary: 'Event webhooks, by scenario.',
    tag: 'evolution',
    params: params({ scenario: str('', { maxLength: 128 }) }),
    result: wire('ListEventSubscriptionsResponse'),
    errors: [],
    grpc: ['EventSubscriptionService/ListEventSubscriptions'],
  },
  {
    name: 'delete_event_subscription',
    summary: 'Delete an event webhook.',
    tag: 'evolution',
    params: params({ id: str('', { maxLength: 64 }) }, ['id']),
    result: wire('DeleteEventSubscriptionResponse'),
    errors: ['event_subscription_not_found'],
    grpc: ['EventSubscriptionService/DeleteEventSubscription'],
  },
  // --- Identity --------------------------------------------------------------------------------
  {
    name: 'whoami',
    summary: 'The principal the caller\'s credential stands for.',
    tag: 'identity',
    params: params({}),
    result: result(
      {
        principal: str(''),
        tenant: str(''),
        roles: strings(''),
        agents: strings(''),
        scenarios: strings(''),
        via: str('How the caller was authenticated.'),
        expires_at: str('ISO 8601, when the credential expires.'),
      },
      ['principal', 'tenant', 'roles', 'agents', 'scenarios', 'via'],
    ),
    errors: [],
    grpc: [],
  },
] as const satisfies readonly RpcMethodSpec[];

export type RpcMethodName = (typeof RPC_METHODS)[number]['name'];

/** The method table by name (a null-prototype map: names come from outside). */
export const RPC_METHOD_SPECS: ReadonlyMap<string, RpcMethodSpec> = new Map(RPC_METHODS.map((m) => [m.name, m as RpcMethodSpec]));
