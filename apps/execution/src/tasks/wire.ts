/**
 * The JSON wire of AN tasks over NATS (draft 004 §5.2-5.4), between the
 * execution service and the agents (libs/agent-sdk/src/tasks.ts holds the
 * same shapes: services and the SDK may not import each other, so the two
 * copies are kept in step by apps/parley/test/an-tasks.test.ts, which runs
 * the SDK against this service). JSON, not protobuf, like the zhou dispatch
 * wire: an agent in any language needs only a NATS client.
 *
 * Execution → agent, on `subjects.task(agent)` in the agent's queue group:
 *   assign      → AssignReply      (sync: the result or the failure; async: accepted)
 *   cancel      → { ok: true }     (best effort: the task is canceled whatever the answer)
 *   negotiate   → NegotiateReply   (the agent's verdict on a proposal)
 *   capability  → CapabilityReply  (the agent's profile, 5.1)
 * Agent → execution, on `subjects.taskService()` (queue group `execution`):
 *   notify      → ServiceReply     (taskResultNotify: a status change)
 *   negotiate   → ServiceReply     (a proposal or a verdict from the agent)
 *   data        → ServiceReply     (a slice of a data param too large to travel with the task)
 */
import { ParleyError, type SerializedError } from '@parley/protocol';
import type { DataParam, NegotiationType, Task, TaskState, Verdict } from '@parley/an';

/** The task as its executing agent receives it: the model's Task plus its data params. */
export interface WireTask extends Task {
  /** The data params msg_data names; `data` left out (data_omitted) when too large for one message. */
  readonly data_params: readonly (DataParam & { readonly data_omitted?: boolean })[];
}

export type ToAgent =
  | { readonly kind: 'assign'; readonly task: WireTask }
  | { readonly kind: 'cancel'; readonly task_id: string; readonly send_from: string; readonly reason?: string }
  | {
      readonly kind: 'negotiate';
      readonly type: NegotiationType;
      readonly task_id: string;
      readonly round: number;
      readonly proposer: string;
      readonly proposal: readonly string[];
      /** The task, once assigned. */
      readonly task?: WireTask;
    }
  | { readonly kind: 'capability'; readonly send_from: string; readonly skills?: readonly string[] };

export type AssignReply =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | { readonly ok: true; readonly accepted: true; readonly status?: TaskState }
  | { readonly ok: false; readonly error: { readonly message: string; readonly code?: string } };

export type NegotiateReply =
  | { readonly ok: true; readonly verdict: Verdict; readonly reply?: readonly string[] }
  | { readonly ok: false; readonly error: { readonly message: string; readonly code?: string } };

export type CapabilityReply = { readonly ok: true; readonly profile: unknown } | { readonly ok: false; readonly error: { readonly message: string; readonly code?: string } };

export type FromAgent =
  | { readonly kind: 'notify'; readonly params: unknown }
  | { readonly kind: 'negotiate'; readonly type: NegotiationType; readonly params: unknown }
  | { readonly kind: 'data'; readonly task_id: string; readonly param_id: string; readonly send_from: string; readonly offset: number; readonly length?: number };

export type ServiceReply = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: SerializedError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeWire(v: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(v));
}

/** Parses an agent's reply; anything but a JSON object is `agent_response_invalid`. */
export function decodeAgentReply(bytes: Uint8Array, agent: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new ParleyError('agent_response_invalid', `Agent ${agent} answered with something that is not JSON`, { path: 'reply', rule: 'json', details: { agent } });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || typeof (v as { ok?: unknown }).ok !== 'boolean') {
    throw new ParleyError('agent_response_invalid', `Agent ${agent} answered without a boolean "ok"`, { path: 'reply.ok', rule: 'required', details: { agent } });
  }
  return v as Record<string, unknown>;
}

export function decodeFromAgent(bytes: Uint8Array): FromAgent {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new ParleyError('invalid_request', 'The message is not JSON', { path: 'message', rule: 'json' });
  }
  const kind = (v as { kind?: unknown } | null)?.kind;
  if (typeof v !== 'object' || v === null || (kind !== 'notify' && kind !== 'negotiate' && kind !== 'data')) {
    throw new ParleyError('invalid_request', 'message.kind must be notify, negotiate or data', { path: 'message.kind', rule: 'enum' });
  }
  return v as FromAgent;
}

/** The agent's failure text, bounded: what a client sees of it. */
export function agentFailure(e: unknown): { message: string; code?: string } {
  const o = (typeof e === 'object' && e !== null ? e : {}) as { message?: unknown; code?: unknown };
  const message = typeof o.message === 'string' && o.message !== '' ? o.message.slice(0, 2000) : 'the agent reported a failure';
  return typeof o.code === 'string' && o.code !== '' ? { message, code: o.code.slice(0, 128) } : { message };
}
