import { templateFromWire, templateToWire } from '@parley/contracts';
import {
  ERROR_CATALOGUE,
  ParleyError,
  assertNoForbiddenKeys,
  findEdgeViolation,
  isPlainObject,
  parseExecuteParams,
  parseGetSchemaTemplateParams,
  parseListAgentsParams,
  parseListSchemasParams,
  parsePublishSchemaParams,
  parseRegisterAgentParams,
  parseRetireSchemaParams,
  parseUnregisterAgentParams,
  parseGetAgentParams,
  parseTemplate,
  toParleyError,
} from '@parley/protocol';
import { compactTemplate, shortTemplate } from './adol';
import { execute } from './execute';
import { keyFromWire, type ExecuteResponse } from '@parley/contracts';
import { parseGetSchemaUpdatesParams, type JsonObject, type JsonValue } from '@parley/protocol';
import { API_KEY_METHODS, DEAD_LETTER_METHODS, OPERATOR_METHODS } from './operator';
import { AN_TASK_METHODS } from './an-tasks';
import { AN_PROFILE_METHODS } from './an-profiles';
import { EVENT_SUBSCRIPTION_METHODS } from './event-subscriptions';
import { openRpcDocument } from './openrpc';
import type { Backends, Handler, RequestContext } from './handler';

export type { Backends, Handler, RequestContext } from './handler';

// The JSON-RPC 2.0 face of Parley (https://www.jsonrpc.org/specification). Method names and params follow
// draft-zhou Appendix A (`get_schema_template`, Figure 6; the payload exchange of Figure 8 as `execute`). Every
// method parses its params at the edge (libs/protocol rpc-params) and then calls the owning service over gRPC.

/** Longest `Parley-Signature` header sent; a longer signature (many applied patches) is left to get_schema_template_signed. */
const MAX_SIGNATURE_HEADER = 6000;


export const METHODS = {
  /**
   * draft-zhou §3.2 step (3), Figures 6 and 7: the result is the template itself.
   * ADOL views (draft-chang §3): `view: "short"` (§3.2) trims it for a model;
   * `compact: true` (§3.1) returns `{ template, $defs }` with repeated key
   * bodies written once. Neither changes what is validated or executed.
   */
  async get_schema_template(params, b, ctx) {
    const { view, compact, ...p } = parseGetSchemaTemplateParams(params);
    // With client_id the template is that client's effective one (draft-zhou §6.2.2: base + global
    // patches + its own, patch keys flagged §6.2.3); without, the global view. Still the template itself.
    const r = await b.negotiation.getSchemaTemplate({ ...p, preferred_language: p.preferred_language ?? '' });
    if (!r.template) throw new ParleyError('internal', 'Negotiation returned no template');
    const template = templateFromWire(r.template);
    if (ctx.observed && r.schema) ctx.observed.scenario = r.schema.scenario_id;
    // draft-zhou §7: negotiation's signature of the full template (agent, etag and applied patches in its
    // protected header), as an HTTP header of a single request; the result stays Figure 7's template.
    if (r.signature && view !== 'short' && !compact && ctx.responseHeaders && r.signature.length <= MAX_SIGNATURE_HEADER) {
      ctx.responseHeaders['parley-signature'] = r.signature;
    }
    const shown = view === 'short' ? shortTemplate(template) : template;
    return compact ? compactTemplate(shown) : shown;
  },
  /**
   * draft-zhou §7: the full template with negotiation's signature, for clients that verify
   * (libs/client `verify`): `{ template, signature, etag, applied_patches, agent, language }`.
   * The signature is a detached JWS over the template; etag, applied_patches, agent and
   * client_id are signed in its protected header (`parley`).
   */
  async get_schema_template_signed(params, b) {
    const { view, compact, ...p } = parseGetSchemaTemplateParams(params);
    if (view === 'short' || compact) {
      throw new ParleyError('invalid_params', 'The signature covers the full template: view "short" and compact are not available signed', {
        path: view === 'short' ? 'params.view' : 'params.compact',
        rule: 'signed_full_view',
      });
    }
    const r = await b.negotiation.getSchemaTemplate({ ...p, preferred_language: p.preferred_language ?? '' });
    if (!r.template) throw new ParleyError('internal', 'Negotiation returned no template');
    return {
      template: templateFromWire(r.template),
      ...(r.signature ? { signature: r.signature } : {}),
      etag: r.etag,
      applied_patches: r.applied_patches,
      ...(r.schema ? { agent: r.schema.agent } : {}),
      language: r.language,
    };
  },
  /** draft-zhou §3.2 steps (4)-(6), Figures 8 and 9: the result is the server agent's result. */
  async execute(params, b, ctx) {
    const p = parseExecuteParams(params);
    // The Idempotency-Key header of a single request (http.ts) names the same key as the param, or stands for it.
    if (ctx.idempotencyKey !== undefined) {
      if (p.idempotency_key !== undefined && p.idempotency_key !== ctx.idempotencyKey) {
        throw new ParleyError('invalid_params', 'params.idempotency_key and the Idempotency-Key header name different keys: send one, or the same in both', {
          path: 'params.idempotency_key',
          rule: 'matches_header',
        });
      }
      p.idempotency_key = ctx.idempotencyKey;
    }
    // Checked before the payload is re-encoded for gRPC: a protobuf Struct cannot
    // carry a `__proto__` member faithfully, so it must be refused here.
    assertNoForbiddenKeys(p.payload, 'payload');
    const r: ExecuteResponse = await execute(b.execution, p);
    // A repeat answered with the first result says so in a header (single requests; the result is the agent's).
    if (r.replayed && ctx.responseHeaders) ctx.responseHeaders['idempotent-replayed'] = 'true';
    if (ctx.observed) ctx.observed.scenario = r.scenario_id;
    // Figure 9: the agent's result, with Parley's schema_update_suggestion (draft-zhou §6.2.2, present when
    // the client's schema_etag is stale) as a sibling member, merged with one the agent wrote itself (its
    // keys first, Parley's patch members win) unless Parley's is signed (§7; then the agent's own becomes
    // `agent_schema_update_suggestion`), and `warnings` (e.g. a withdrawn key accepted within its
    // §6.2.3 window) when there are any.
    const result: JsonObject = { ...((r.result ?? {}) as JsonObject) };
    const suggestion = r.schema_update_suggestion as JsonObject | undefined;
    if (suggestion && typeof suggestion.signature === 'string') {
      // draft-zhou §7: Parley's suggestion is signed by negotiation and passes untouched (a merge would break
      // the signature and let an agent shadow a signed key); the agent's own suggestion, if any, moves beside it.
      const own = result.schema_update_suggestion;
      if (own !== null && typeof own === 'object' && !Array.isArray(own)) result.agent_schema_update_suggestion = own;
      result.schema_update_suggestion = suggestion;
    } else if (suggestion) {
      const own = result.schema_update_suggestion;
      if (own !== null && typeof own === 'object' && !Array.isArray(own)) {
        const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
        const nameOf = (x: JsonValue): JsonValue | undefined => (x !== null && typeof x === 'object' && !Array.isArray(x) ? x.key_name : undefined);
        const merge = (a: JsonValue[], more: JsonValue[]): JsonValue[] => {
          const seen = new Set(a.map(nameOf));
          return [...a, ...more.filter((x) => !seen.has(nameOf(x)))];
        };
        result.schema_update_suggestion = {
          ...own,
          ...suggestion,
          new_keys: merge(list(own.new_keys), list(suggestion.new_keys)),
          modified_keys: merge(list(own.modified_keys), list(suggestion.modified_keys)),
        };
      } else {
        result.schema_update_suggestion = suggestion;
      }
    }
    if (r.warnings?.length) result.warnings = [...(Array.isArray(result.warnings) ? result.warnings : []), ...r.warnings];
    return result;
  },
  /**
   * draft-zhou §6.2.2 Online Update Delivery, "a dedicated schema polling endpoint":
   * the etag of the client's effective template and, unless `since_etag` is that
   * etag, the patches it consists of (new keys flagged per §6.2.3, ISO times), each
   * with negotiation's `signature` (§7: a detached JWS over the patch minus that member).
   */
  async get_schema_updates(params, b) {
    const p = parseGetSchemaUpdatesParams(params);
    const r = await b.negotiation.getSchemaUpdates({
      scenario: p.scenario,
      ...(p.client_id !== undefined ? { client_id: p.client_id } : {}),
      ...(p.agent !== undefined ? { agent: p.agent } : {}),
      ...(p.since_etag !== undefined ? { since_etag: p.since_etag } : {}),
    });
    return {
      etag: r.etag,
      changed: r.changed,
      parent_schema_id: r.parent_schema_id,
      patches: r.patches.map((d) => ({ ...d, new_keys: d.new_keys.map(keyFromWire) })),
    };
  },
  async register_agent(params, b) {
    const p = parseRegisterAgentParams(params);
    const r = await b.registry.registerAgent({
      agent: {
        name: p.name,
        description: p.description ?? '',
        domain: p.domain ?? '',
        tags: p.tags ?? [],
        scenarios: p.scenarios,
        version: p.version ?? '',
        registered_at: '',
        updated_at: '',
        executions: 0,
        last_executed_at: '',
      },
    });
    return { agent: r.agent, created: r.created };
  },
  async get_agent(params, b) {
    const { name } = parseGetAgentParams(params);
    return { agent: (await b.registry.getAgent({ name })).agent };
  },
  async list_agents(params, b) {
    return { agents: (await b.registry.listAgents(parseListAgentsParams(params))).agents };
  },
  async publish_schema(params, b) {
    const p = parsePublishSchemaParams(params);
    // Validate at the edge too: the typed proto message would silently drop a
    // misspelt member, and the client deserves the exact path of its mistake.
    const { template } = parseTemplate(p.template);
    const r = await b.negotiation.publishSchema({
      agent: p.agent,
      template: templateToWire(template),
      language: p.language ?? 'en',
      ...(p.response_schema ? { response_schema: p.response_schema } : {}),
    });
    return { schema: r.schema, created: r.created, notes: r.notes };
  },
  async list_schemas(params, b) {
    const { include_retired, ...p } = parseListSchemasParams(params);
    return { schemas: (await b.negotiation.listSchemas({ ...p, ...(include_retired ? { include_retired } : {}) })).schemas };
  },
  /**
   * Removes an agent (its owner or an operator): its schemas are retired first, so nothing of it is
   * negotiated or executed once it is gone, then the registry forgets it and the scenarios it served.
   */
  async unregister_agent(params, b) {
    const { name } = parseUnregisterAgentParams(params);
    // Fails with agent_not_found (and changes nothing) for an agent the registry does not know.
    await b.registry.getAgent({ name });
    const retired = await b.negotiation.retireSchema({ agent: name, reason: 'agent unregistered' });
    const r = await b.registry.unregisterAgent({ name });
    return { agent: r.agent, retired_schemas: retired.schemas.map((s) => s.schema_id) };
  },
  /**
   * Retires one published schema (its owner or an operator): no longer negotiated (the agent's latest live
   * version is, if any) nor listed; executing with its schema_id is `schema_not_found`, rule `retired`.
   * Retiring it again changes nothing (`changed: false`); publishing the same template again brings it back.
   */
  async retire_schema(params, b) {
    const p = parseRetireSchemaParams(params);
    const r = await b.negotiation.retireSchema({ agent: p.agent, schema_id: p.schema_id, reason: p.reason ?? '' });
    return { schema: r.schemas[0], changed: r.newly_retired > 0 };
  },
  // AN agent profiles (draft 004 §5.1, §4.1 registration and discovery): an-profiles.ts.
  ...AN_PROFILE_METHODS,
  // AN tasks (draft 004 §5.2-5.4: assign, cancel, negotiate, notify, subscribe, context, chunks): an-tasks.ts.
  ...AN_TASK_METHODS,
  // The operator's face of schema self-evolution (draft-zhou §6.2, §7): operator.ts.
  ...OPERATOR_METHODS,
  // API keys (draft-zhou §7), operators only: operator.ts.
  ...API_KEY_METHODS,
  // Webhooks for patch.*, key.* and pool.matured, operators only: event-subscriptions.ts.
  ...EVENT_SUBSCRIPTION_METHODS,
  // Dead letters of every service (draft-zhou §6.2 event flow), operators only: operator.ts.
  ...DEAD_LETTER_METHODS,
  /**
   * OpenRPC service discovery (https://spec.open-rpc.org/#service-discovery-method): the document
   * built from the method table (libs/protocol rpc-methods.ts; openrpc.ts), also at GET /openrpc.json.
   */
  async 'rpc.discover'(params, _b, ctx) {
    if (params !== undefined && (typeof params !== 'object' || params === null || Object.keys(params).length > 0)) {
      throw new ParleyError('invalid_params', 'rpc.discover takes no params', { path: 'params', rule: 'empty' });
    }
    return openRpcDocument(ctx.version, ctx.rpcUrl).doc;
  },
  /** Who the gateway takes the caller for (draft-zhou §7): the principal its credential stands for. */
  async whoami(params, _b, ctx) {
    if (params !== undefined && (typeof params !== 'object' || params === null || Object.keys(params).length > 0)) {
      throw new ParleyError('invalid_params', 'whoami takes no params', { path: 'params', rule: 'empty' });
    }
    const p = ctx.principal;
    if (!p) throw new ParleyError('unauthenticated', 'No caller was authenticated', { path: 'headers.authorization', rule: 'credentials_required' });
    return {
      principal: p.id,
      tenant: p.tenant,
      roles: p.roles,
      agents: p.agents,
      scenarios: p.scenarios,
      via: p.via,
      ...(p.expires_at !== undefined ? { expires_at: new Date(p.expires_at).toISOString() } : {}),
    };
  },
} satisfies Record<string, Handler>;

export type MethodName = keyof typeof METHODS;

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data: Record<string, unknown> };
}

/** The one mapping from a ParleyError to a JSON-RPC error object (codes from ERROR_CATALOGUE). */
export function errorResponse(id: JsonRpcId, e: unknown): JsonRpcResponse {
  const err = toParleyError(e);
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ERROR_CATALOGUE[err.type].jsonrpc, message: err.message, data: { ...err.toJSON(), retryable: err.retryable } },
  };
}

/**
 * Handles one parsed request object. Returns undefined for a notification
 * (no `id`), which gets no response per JSON-RPC 2.0 §4.1.
 */
export async function handleOne(
  req: unknown,
  b: Backends,
  /** Logs an `internal` failure with its cause; the error it returns (with a correlation id) is what the client gets. */
  onInternal: (e: unknown, method: string) => ParleyError | void,
  /** Called after a method succeeds (the gateway invalidates its MCP/A2A catalogue on writes). */
  onSuccess?: (method: MethodName) => void,
  /** The HTTP request's context (its Authorization header, the operator check); the same for every member of a batch. */
  ctx: RequestContext = {},
): Promise<JsonRpcResponse | undefined> {
  if (!isPlainObject(req)) return errorResponse(null, new ParleyError('invalid_request', 'A request must be a JSON object', { path: 'request', rule: 'type' }));
  const id = req.id;
  const validId = id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  const replyId: JsonRpcId = validId && id !== undefined ? (id as JsonRpcId) : null;
  const envelopeError = (path: string, rule: string, msg: string) => errorResponse(replyId, new ParleyError('invalid_request', msg, { path, rule }));
  if (!validId) return envelopeError('id', 'type', 'id must be a string, a number or null');
  if (req.jsonrpc !== '2.0') return envelopeError('jsonrpc', 'equals_2.0', 'jsonrpc must be exactly "2.0"');
  if (typeof req.method !== 'string' || req.method === '') return envelopeError('method', 'type', 'method must be a non-empty string');
  if (req.params !== undefined && !isPlainObject(req.params)) {
    return errorResponse(replyId, new ParleyError('invalid_params', 'params must be an object (by-name parameters)', { path: 'params', rule: 'type' }));
  }
  const notification = id === undefined;
  const method = req.method;
  // Every string that crosses the edge: no NUL, no unpaired surrogate, bounded nesting (libs/protocol edge-strings).
  const unclean = findEdgeViolation(req.params, 'params');
  if (unclean) return notification ? undefined : errorResponse(replyId, unclean);
  if (!Object.prototype.hasOwnProperty.call(METHODS, method)) {
    const r = errorResponse(replyId, new ParleyError('method_not_found', `Unknown method "${method.slice(0, 64)}"`, {
      path: 'method',
      rule: 'known_method',
      details: { methods: Object.keys(METHODS) },
    }));
    return notification ? undefined : r;
  }
  try {
    const result = await (METHODS[method as MethodName] as Handler)(req.params ?? {}, b, ctx);
    onSuccess?.(method as MethodName);
    // JSON-RPC 2.0 §5: a success response always has a result member; undefined would vanish in JSON.
    return notification ? undefined : { jsonrpc: '2.0', id: replyId, result: result ?? null };
  } catch (e) {
    const err = toParleyError(e);
    const out = err.type === 'internal' ? (onInternal(e, method) ?? err) : err;
    return notification ? undefined : errorResponse(replyId, out);
  }
}
