/**
 * Parley's A2A face: the JSON-RPC binding of A2A at `POST /a2a` (any
 * registered agent) and `POST /a2a/<agent>` (one agent), on the gateway's own
 * node:http server, with @a2a-js/sdk's types and codecs for the v1.0 wire.
 *
 * Methods: `SendMessage` (A2A v1.0) and `message/send` (v0.3). Both carry a
 * message whose data part is
 *   - an envelope `{ "scenario"?, "schema_id"?, "agent"?, "payload": {...}, "client_id"?, "requireOutput"? }`, or
 *   - the payload itself, with `scenario` / `schema_id` / `agent` / `client_id` /
 *     `requireOutput` in the message's `metadata`.
 * A data object is an envelope when it has an object `payload` and no member
 * outside the envelope's. The payload runs through ExecutionService.Execute
 * (zhou §3.2 steps 4-6) and the reply is a Message whose data part is the
 * result; `requireOutput` (chang §3.3, which covers A2A as well as MCP) keeps
 * only the named fields. Failures are JSON-RPC errors with the code from
 * ERROR_CATALOGUE and a message naming the key path and rule.
 *
 * Parley answers every message at once and keeps no tasks: streaming answers
 * UnsupportedOperationError (-32004, the card says `streaming: false`), task
 * methods TaskNotFoundError (-32001).
 */
import { randomUUID } from 'node:crypto';
import { Message, SendMessageResponse } from '@a2a-js/sdk';
import type { AgentProfile as ProfileMessage, AgentProfileApi, ExecutionApi } from '@parley/contracts';
import { AGENT_NAME_PATTERN, FORBIDDEN_MEMBER_NAMES, ParleyError, SCHEMA_ID_PATTERN, assertNoForbiddenKeys, findEdgeViolation, isPlainObject, parseIdempotencyKey, scenarioId, toParleyError, validateAgentName, type JsonObject } from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import { checkRequireOutput, filterResult } from './adol';
import { parseCallToolMeta } from './adol-params';
import { agentCard, profileCard, type CardOptions, type ParleyAgentCard, type ParleyAgentCardJson } from './a2a-card';
import { agentNotFound, type CatalogEntry, type ToolCatalog } from './catalog';
import { describeError, errorData, internalFailure, jsonRpcCode } from './errors';
import { execute } from './execute';

/** A2A's own JSON-RPC error codes (A2A spec, JSON-RPC binding) for conditions outside Parley's catalogue. */
export const A2A_ERROR_CODES = { TASK_NOT_FOUND: -32001, UNSUPPORTED_OPERATION: -32004, EXTENDED_CARD_NOT_CONFIGURED: -32007 } as const;

const ENVELOPE_MEMBERS = ['scenario', 'schema_id', 'agent', 'payload', 'client_id', 'requireOutput'];
const STREAM_METHODS = new Set(['SendStreamingMessage', 'message/stream', 'SubscribeToTask', 'tasks/resubscribe']);
const TASK_METHODS = new Set(['GetTask', 'tasks/get', 'CancelTask', 'tasks/cancel', 'ListTasks']);
const CARD_METHODS = new Set(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

type Dialect = 'v1' | 'v03';
type Id = string | number | null;

export interface A2aReply {
  /** HTTP status: 200, or 404 for an unknown agent. */
  status: number;
  body: unknown;
}

export interface A2aFaceOptions {
  catalog: ToolCatalog;
  execution: ExecutionApi;
  log: Logger;
}

/** A JSON-RPC error carrying a ParleyError; `code` overrides the catalogue's for A2A-defined conditions. */
class RpcFailure extends Error {
  constructor(
    readonly err: ParleyError,
    readonly code?: number,
  ) {
    super(err.message);
  }
}

function errorBody(id: Id, e: unknown): Record<string, unknown> {
  const err = e instanceof RpcFailure ? e.err : toParleyError(e);
  const code = e instanceof RpcFailure && e.code !== undefined ? e.code : jsonRpcCode(err);
  return { jsonrpc: '2.0', id, error: { code, message: describeError(err), data: errorData(err) } };
}

/** Refuses a reserved member name (FORBIDDEN_MEMBER_NAMES) at the top of `v` as /rpc refuses it in params: invalid_params, rule forbidden_key. */
function refuseReservedMembers(v: unknown, path: string): void {
  if (!isPlainObject(v)) return;
  for (const k of Object.keys(v)) {
    if (FORBIDDEN_MEMBER_NAMES.has(k)) throw new ParleyError('invalid_params', `${path}.${k} is not allowed: "${k}" is a reserved member name`, { path: `${path}.${k}`, rule: 'forbidden_key' });
  }
}

interface Target {
  schemaId: string;
  agent?: string;
  entry?: CatalogEntry;
}

interface Routing {
  scenario?: unknown;
  schema_id?: unknown;
  agent?: unknown;
  client_id?: unknown;
  requireOutput?: unknown;
}

/**
 * Picks the schema to execute: schema_id as given, else the scenario's latest schema, else the agent's only scenario
 * (the rules of `execute` with a scenario or a schema_id, zhou §3.2), within the endpoint's agent when the URL names one.
 */
async function resolveTarget(catalog: ToolCatalog, r: Routing, base: string, urlAgent: string | undefined): Promise<Target> {
  let agent = urlAgent;
  if (r.agent !== undefined && r.agent !== null) {
    const named = validateAgentName(r.agent, `${base}.agent`);
    if (urlAgent && named !== urlAgent) {
      throw new ParleyError('invalid_params', `${base}.agent "${named}" differs from the agent of this endpoint, "${urlAgent}"`, { path: `${base}.agent`, rule: 'matches_endpoint' });
    }
    agent = named;
  }
  const entries = await catalog.entries();
  if (r.schema_id !== undefined && r.schema_id !== null) {
    if (typeof r.schema_id !== 'string' || !SCHEMA_ID_PATTERN.test(r.schema_id)) {
      throw new ParleyError('invalid_params', `${base}.schema_id must be a schema_id such as "flight_booking_v1"`, { path: `${base}.schema_id`, rule: 'pattern' });
    }
    const sid = r.schema_id;
    const entry = entries.find((e) => e.source.schema.schema_id === sid && (!agent || e.source.agent.name === agent));
    return { schemaId: sid, ...(agent ? { agent } : {}), ...(entry ? { entry } : {}) };
  }
  let candidates = agent ? entries.filter((e) => e.source.agent.name === agent) : entries;
  if (r.scenario !== undefined && r.scenario !== null) {
    if (typeof r.scenario !== 'string') throw new ParleyError('invalid_params', `${base}.scenario must be a string`, { path: `${base}.scenario`, rule: 'type' });
    const sid = scenarioId(r.scenario, { path: `${base}.scenario` });
    candidates = candidates.filter((e) => e.source.schema.scenario_id === sid);
    if (candidates.length === 0) {
      throw agent
        ? new ParleyError('scenario_not_served', `Agent "${agent}" serves no published scenario "${sid}"`, { path: `${base}.scenario`, rule: 'served' })
        : new ParleyError('scenario_not_found', `No schema is published for scenario "${sid}"`, { path: `${base}.scenario`, rule: 'exists' });
    }
  } else if (candidates.length !== 1) {
    throw new ParleyError('invalid_params', `${base}.scenario or ${base}.schema_id is required${agent ? `: agent "${agent}" serves ${candidates.length} scenarios` : ''}`, {
      path: `${base}.scenario`,
      rule: 'required',
    });
  }
  if (candidates.length > 1) {
    // Same rule as `execute` with a schema_id only: name the agent when several match (ARCHITECTURE.md).
    throw new ParleyError('ambiguous_agent', `Several agents serve this scenario; name one with ${base}.agent or use /a2a/<agent>`, {
      path: `${base}.agent`,
      rule: 'required_when_ambiguous',
      details: { agents: candidates.map((e) => e.source.agent.name) },
    });
  }
  const entry = candidates[0] as CatalogEntry;
  return { schemaId: entry.source.schema.schema_id, agent: entry.source.agent.name, entry };
}

/** The reply Message in the request's dialect: v0.3 JSON, or v1.0 through the SDK's codec. */
function replyMessage(dialect: Dialect, contextId: string, result: JsonObject, meta: Record<string, unknown>): unknown {
  if (dialect === 'v03') {
    // v0.3 Message (kind-discriminated parts, lowercase role).
    return { kind: 'message', messageId: randomUUID(), contextId, role: 'agent', parts: [{ kind: 'data', data: result }], metadata: meta };
  }
  // v1.0: the SDK's own codec writes the SendMessageResponse wire form ({"message": {...}}).
  return SendMessageResponse.toJSON({
    payload: {
      $case: 'message',
      value: Message.fromJSON({
        messageId: randomUUID(),
        contextId,
        role: 'ROLE_AGENT',
        parts: [{ data: result, mediaType: 'application/json' }],
        metadata: meta,
      }),
    },
  });
}

export function createA2aFace(opts: A2aFaceOptions) {
  const { catalog, execution, log } = opts;

  async function sendMessage(params: unknown, dialect: Dialect, urlAgent: string | undefined): Promise<unknown> {
    if (!isPlainObject(params) || !isPlainObject(params.message)) {
      throw new ParleyError('invalid_params', 'params.message is required: the message to send', { path: 'params.message', rule: 'required' });
    }
    const message = params.message;
    const parts = message.parts;
    if (!Array.isArray(parts)) throw new ParleyError('invalid_params', 'params.message.parts must be an array', { path: 'params.message.parts', rule: 'type' });
    // Both dialects put structured content under `data` (v0.3 adds kind: "data").
    const dataIdx = parts.findIndex((p) => isPlainObject(p) && isPlainObject(p.data));
    if (dataIdx < 0) {
      throw new ParleyError(
        'invalid_params',
        'params.message.parts needs a data part carrying the payload: {"data": {"scenario": ..., "payload": {...}}} (v0.3: {"kind": "data", "data": ...})',
        { path: 'params.message.parts', rule: 'data_part' },
      );
    }
    const data = (parts[dataIdx] as { data: Record<string, unknown> }).data;
    const dataPath = `params.message.parts[${dataIdx}].data`;
    const envelope = isPlainObject(data.payload) && Object.keys(data).every((k) => ENVELOPE_MEMBERS.includes(k));
    // Like /rpc's params: a reserved member name (__proto__, constructor, prototype) in the metadata is refused, not dropped.
    refuseReservedMembers(message.metadata, 'params.message.metadata');
    const metadata = isPlainObject(message.metadata) ? message.metadata : {};
    const routing: Routing = envelope ? data : metadata;
    const routingPath = envelope ? dataPath : 'params.message.metadata';
    const payload = (envelope ? data.payload : data) as JsonObject;
    const payloadPath = envelope ? `${dataPath}.payload` : dataPath;

    const target = await resolveTarget(catalog, routing, routingPath, urlAgent);
    const o = parseCallToolMeta({ requireOutput: routing.requireOutput, client_id: routing.client_id }, routingPath);
    // The fields a schema advertises are known only for a tool's latest version; an older schema_id advertises none.
    const advertised = target.entry?.outputFields ?? [];
    if (o.requireOutput) checkRequireOutput(o.requireOutput, advertised, `${routingPath}.requireOutput`);
    assertNoForbiddenKeys(payload, payloadPath);
    // A safe retry (draft-zhou §3.2 (4)-(6)): the message's metadata may carry an idempotency key.
    const key = parseIdempotencyKey(metadata.idempotency_key, 'params.message.metadata.idempotency_key');
    const r = await execute(execution, {
      schema_id: target.schemaId,
      payload,
      ...(target.agent ? { agent: target.agent } : {}),
      ...(o.clientId !== undefined ? { client_id: o.clientId } : {}),
      ...(key !== undefined ? { idempotency_key: key } : {}),
    });
    const full = (r.result ?? {}) as JsonObject;
    const result = o.requireOutput ? filterResult(full, o.requireOutput, advertised, `${routingPath}.requireOutput`) : full;

    const contextId = typeof message.contextId === 'string' && message.contextId ? message.contextId : randomUUID();
    const meta = { agent: r.agent, schema_id: target.schemaId, scenario_id: r.scenario_id, execution_id: r.execution_id };
    return replyMessage(dialect, contextId, result, meta);
  }

  async function dispatch(method: string, params: unknown, urlAgent: string | undefined): Promise<unknown> {
    if (method === 'SendMessage') return sendMessage(params, 'v1', urlAgent);
    if (method === 'message/send') return sendMessage(params, 'v03', urlAgent);
    if (STREAM_METHODS.has(method)) {
      throw new RpcFailure(
        new ParleyError('method_not_found', `${method} is not supported: Parley answers each message at once (capabilities.streaming is false); use SendMessage or message/send`, {
          path: 'method',
          rule: 'streaming_unsupported',
        }),
        A2A_ERROR_CODES.UNSUPPORTED_OPERATION,
      );
    }
    if (TASK_METHODS.has(method)) {
      throw new RpcFailure(
        new ParleyError('method_not_found', `${method}: Parley replies with Messages and keeps no tasks, so there is no task to find`, { path: 'params.id', rule: 'task_exists' }),
        A2A_ERROR_CODES.TASK_NOT_FOUND,
      );
    }
    if (CARD_METHODS.has(method)) {
      throw new RpcFailure(new ParleyError('method_not_found', 'Parley has no extended agent card', { path: 'method', rule: 'extended_card' }), A2A_ERROR_CODES.EXTENDED_CARD_NOT_CONFIGURED);
    }
    throw new ParleyError('method_not_found', `Unknown A2A method "${method.slice(0, 64)}"; Parley serves SendMessage (v1.0) and message/send (v0.3)`, {
      path: 'method',
      rule: 'known_method',
    });
  }

  return {
    /** Handles one parsed JSON-RPC body posted to /a2a (urlAgent undefined) or /a2a/<agent>. */
    async handle(body: unknown, urlAgent: string | undefined): Promise<A2aReply> {
      const id: Id = isPlainObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
      if (!isPlainObject(body)) return { status: 200, body: errorBody(null, new ParleyError('invalid_request', 'A request must be one JSON-RPC object (A2A uses no batches)', { path: 'request', rule: 'type' })) };
      if (body.jsonrpc !== '2.0') return { status: 200, body: errorBody(id, new ParleyError('invalid_request', 'jsonrpc must be exactly "2.0"', { path: 'jsonrpc', rule: 'equals_2.0' })) };
      if (typeof body.method !== 'string' || body.method === '') {
        return { status: 200, body: errorBody(id, new ParleyError('invalid_request', 'method must be a non-empty string', { path: 'method', rule: 'type' })) };
      }
      // Every string that crosses the edge: no NUL, no unpaired surrogate, bounded nesting (libs/protocol edge-strings).
      const unclean = findEdgeViolation(body.params, 'params');
      if (unclean) return { status: 200, body: errorBody(id, unclean) };
      try {
        if (urlAgent !== undefined && !(await catalog.agent(urlAgent))) {
          return { status: 404, body: errorBody(id, agentNotFound(urlAgent, 'url')) };
        }
        const result = await dispatch(body.method, body.params, urlAgent);
        return { status: 200, body: { jsonrpc: '2.0', id, result } };
      } catch (e) {
        const err = e instanceof RpcFailure ? e.err : toParleyError(e);
        if (err.type === 'internal') return { status: 200, body: errorBody(id, internalFailure(e, log, { face: 'a2a', method: body.method.slice(0, 64) })) };
        return { status: 200, body: errorBody(id, e) };
      }
    },
  };
}

/**
 * Names an `/a2a/<name>` URL may carry: draft-zhou agent names (lowercase) and
 * AN profile names (draft 004 §5.1, e.g. `IETF-Acme-Wireless-v1`), at most 128 characters.
 */
export const A2A_AGENT_PATH_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The card at `/a2a/<name>/.well-known/agent-card.json`: with an AN agent profile
 * (draft 004 §5.1) the profile's card, merged with the registered agent of that
 * name if there is one (a2a-card.ts `profileCard`); else the registered agent's
 * card as before; undefined when there is neither.
 */
export async function resolveAgentCard(
  name: string,
  deps: { catalog: ToolCatalog; profiles?: AgentProfileApi | undefined },
  opts: CardOptions,
): Promise<ParleyAgentCard | ParleyAgentCardJson | undefined> {
  const agent = AGENT_NAME_PATTERN.test(name) ? await deps.catalog.agent(name) : undefined;
  let profile: ProfileMessage | undefined;
  if (deps.profiles && A2A_AGENT_PATH_PATTERN.test(name)) {
    try {
      profile = (await deps.profiles.getProfile({ name })).profile;
    } catch (e) {
      if (!(e instanceof ParleyError && e.type === 'agent_not_found')) throw e;
    }
  }
  if (!agent && !profile) return undefined;
  const entries = await deps.catalog.entries();
  return profile ? profileCard(profile, agent, entries, opts) : agentCard(agent as NonNullable<typeof agent>, entries, opts);
}
