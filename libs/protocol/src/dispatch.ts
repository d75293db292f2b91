import { ParleyError, type SerializedError } from './errors';
import { isPlainObject } from './json';
import type { JsonObject } from './model';

/**
 * The wire between the execution service and a server agent: JSON over NATS
 * request/reply on `<prefix>.v1.<scenario_id>.execute.<agent>`. JSON rather than
 * protobuf so that a server agent in any language needs only a NATS client.
 *
 * By the time a request reaches an agent the payload is validated and its
 * defaults applied (draft-zhou §3.1: the server agent validates; Parley does it
 * for the agent), so an agent's handler works on a complete, well-typed payload.
 */
export interface DispatchRequest {
  execution_id: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  payload: JsonObject;
  /** ISO 8601 instant after which the caller has given up. */
  deadline: string;
  /**
   * Present when the client sent an idempotency key: a retry of the same key
   * may dispatch the same execution_id again (after the first dispatch's outcome
   * was lost), so an agent with side effects answers a repeated execution_id
   * with its first answer (the agent SDK does so in each replica's memory).
   */
  idempotency_key?: string;
}

export type DispatchReply =
  | { ok: true; result: JsonObject }
  | { ok: false; error: { message: string; code?: string } };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeDispatch(msg: DispatchRequest | DispatchReply): Uint8Array {
  return encoder.encode(JSON.stringify(msg));
}

export function decodeDispatchRequest(body: Uint8Array): DispatchRequest {
  const v = parseJson(body, 'dispatch request');
  if (!isPlainObject(v) || typeof v.execution_id !== 'string' || typeof v.schema_id !== 'string' || !isPlainObject(v.payload)) {
    throw new ParleyError('invalid_request', 'Malformed dispatch request');
  }
  return v as unknown as DispatchRequest;
}

/** Reads an agent's reply; anything malformed is the agent's fault (`agent_response_invalid`). */
export function decodeDispatchReply(body: Uint8Array, agent: string): DispatchReply {
  const v = parseJson(body, 'agent reply', agent);
  if (isPlainObject(v) && v.ok === true && isPlainObject(v.result)) return { ok: true, result: v.result as JsonObject };
  if (isPlainObject(v) && v.ok === false && isPlainObject(v.error) && typeof v.error.message === 'string') {
    const error: { message: string; code?: string } = { message: v.error.message };
    if (typeof v.error.code === 'string') error.code = v.error.code;
    return { ok: false, error };
  }
  throw new ParleyError('agent_response_invalid', `Agent ${agent} replied with a malformed envelope`, {
    path: 'result',
    rule: 'dispatch_envelope',
    details: { agent },
  });
}

/** The error an agent's `{ok:false}` reply becomes for the client. */
export function agentError(agent: string, e: { message: string; code?: string }): ParleyError {
  const details: Record<string, unknown> = { agent };
  if (e.code) details.agent_code = e.code;
  return new ParleyError('agent_error', `Agent ${agent} failed: ${e.message.slice(0, 500)}`, { details });
}

function parseJson(body: Uint8Array, what: string, agent?: string): unknown {
  try {
    return JSON.parse(decoder.decode(body));
  } catch (cause) {
    const type = agent ? 'agent_response_invalid' : 'parse_error';
    const init: { cause: unknown; details?: Record<string, unknown> } = { cause };
    if (agent) init.details = { agent };
    throw new ParleyError(type, `${what} is not valid JSON`, init);
  }
}


export type { SerializedError };
