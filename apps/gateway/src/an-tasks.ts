import type { TaskApi, TaskAssignRequest } from '@parley/contracts';
import {
  parseCapabilityRequest,
  parseNegotiate,
  parseNotify,
  parseResultQuery,
  parseSubscribe,
  parseTaskAssign,
  parseTaskCancel,
  type NegotiationType,
} from '@parley/an';
import { ParleyError } from '@parley/protocol';
import type { Backends, Handler } from './handler';

/**
 * AN tasks (autonomous-networks multi-agent draft §4.2-4.5, §5.2-5.4) on the
 * gateway's JSON-RPC endpoint, served by the execution service's TaskService.
 * One method per commuType:
 *
 * | method | commuType | result |
 * |---|---|---|
 * | `capability_request {send_from, send_to, skills?}` | CapabilityRequest | `{profile, source}` (registry or agent) |
 * | `task_assign {send_from, send_to, content?, scenario?, schema_id?, payload?, task_async?, expected_response?, term_explains?, msg_data?, data_params?, subscription?, task_id?}` | taskAssign | `{task, subscription_id?, webhook_secret?}`: sync, the final status and result; async, created/processing |
 * | `task_cancel {task_id, send_from, reason?}` | taskCancel | `{task}` |
 * | `feasibility_negotiate` / `fulfillment_negotiate {task_id?, send_from, send_to, content, verdict?, reply?}` | Feasibility/FulfillmentNegotiate | `{task_id, type, outcome, rounds, data?}` |
 * | `task_result_query {task_id, send_from}` | taskResultQuery | `{task, latest?}` |
 * | `task_result_subscribe {task_id, send_from, subscription: {protocol: webhook, method?, url} or {protocol: nats}, after_seq?}` | taskResultSubscribe | `{subscription_id, protocol, cursor, subject?, webhook_secret?}` |
 * | `task_result_notify {task_id, send_from, status, required?, result?}` | taskResultNotify | `{notification, task}` |
 * | `task_context {task_id, after_seq?, limit?}` | (5.2 context) | `{messages}` in order |
 * | `upload_chunk {send_from, chunk: {param_id, seq, data, finished}, param? (with seq 0), task_id?}` | (5.2 data-params) | `{param_id, received, finished, data_size?}` |
 *
 * Streaming subscriptions are gRPC only (TaskService.TaskResultSubscribe with
 * `after_seq`); over JSON-RPC a subscriber registers a webhook (notifications
 * POSTed in seq order, at least once: drop duplicates by task_id and seq;
 * signed with the `webhook_secret` answered once at registration, Standard
 * Webhooks headers; the URL must pass the execution service's
 * PARLEY_WEBHOOK_ALLOW) or
 * a NATS subscription (`<prefix>.v1.<subscriber>.task.status` on the event
 * stream). Params are parsed here with libs/an's parsers (the service parses
 * them again): `invalid_params` naming `params.<member>` and the rule.
 */

export type { TaskApi };

function tasksOf(b: Backends): TaskApi {
  if (!b.tasks) throw new ParleyError('unavailable', 'AN tasks are not available: this gateway has no TaskService backend', { details: { backend: 'tasks' } });
  return b.tasks;
}

function fail(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

function objectParams(params: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) fail('params', 'type', 'params must be an object');
  for (const k of Object.keys(params)) {
    if (!allowed.includes(k)) fail(`params.${k.slice(0, 64)}`, 'unknown_member', `params.${k.slice(0, 64)} is not a parameter of this method; allowed: ${allowed.join(', ')}`);
  }
  return params as Record<string, unknown>;
}

function count(v: unknown, path: string, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > 0xffffffff) fail(path, 'non_negative_integer', `${path} must be an integer of at least ${min}`);
  return v;
}

function string(v: unknown, path: string, required: boolean): string | undefined {
  if (v === undefined) {
    if (required) fail(path, 'required', `${path} is required`);
    return undefined;
  }
  if (typeof v !== 'string') fail(path, 'type', `${path} must be a string`);
  return v;
}

/** The wire request of task_assign from its parsed params. */
function assignRequest(params: unknown): TaskAssignRequest {
  const p = parseTaskAssign(params);
  return {
    send_from: p.send_from,
    send_to: p.send_to,
    task_async: p.task_async,
    term_explains: p.term_explains.map((t) => ({ ...t })),
    msg_data: [...p.msg_data],
    data_params: p.data_params.map((d) => ({ ...d })),
    ...(p.task_id !== undefined ? { task_id: p.task_id } : {}),
    ...(p.content !== undefined ? { content: p.content } : {}),
    ...(p.scenario !== undefined ? { scenario: p.scenario } : {}),
    ...(p.schema_id !== undefined ? { schema_id: p.schema_id } : {}),
    ...(p.payload !== undefined ? { payload: { ...p.payload } } : {}),
    ...(p.expected_response !== undefined ? { expected_response: p.expected_response } : {}),
    ...(p.subscription ? { subscription: { ...p.subscription } } : {}),
  };
}

function negotiate(type: NegotiationType): Handler {
  return async (params, b) => {
    const p = parseNegotiate(params, type);
    const req = {
      send_from: p.send_from,
      send_to: p.send_to,
      content: [...p.content],
      reply: [...(p.reply ?? [])],
      ...(p.task_id !== undefined ? { task_id: p.task_id } : {}),
      ...(p.verdict !== undefined ? { verdict: p.verdict } : {}),
    };
    return type === 'FEASIBILITY' ? tasksOf(b).feasibilityNegotiate(req) : tasksOf(b).fulfillmentNegotiate(req);
  };
}

export const AN_TASK_METHODS = {
  async capability_request(params, b) {
    const p = parseCapabilityRequest(params);
    return tasksOf(b).capabilityRequest({ send_from: p.send_from, send_to: p.send_to, skills: [...(p.skills ?? [])] });
  },
  async task_assign(params, b) {
    return tasksOf(b).taskAssign(assignRequest(params));
  },
  async task_cancel(params, b) {
    const p = parseTaskCancel(params);
    return tasksOf(b).taskCancel({ task_id: p.task_id, send_from: p.send_from, ...(p.reason !== undefined ? { reason: p.reason } : {}) });
  },
  feasibility_negotiate: negotiate('FEASIBILITY'),
  fulfillment_negotiate: negotiate('FULFILLMENT'),
  async task_result_query(params, b) {
    const p = parseResultQuery(params);
    return tasksOf(b).taskResultQuery({ task_id: p.task_id, send_from: p.send_from });
  },
  async task_result_subscribe(params, b) {
    const p = parseSubscribe(params);
    if (p.subscription.protocol === 'grpc') {
      fail('params.subscription.protocol', 'use_stream', 'Streaming subscriptions are gRPC only (TaskService.TaskResultSubscribe with after_seq); over JSON-RPC subscribe a webhook or nats');
    }
    return tasksOf(b).registerTaskSubscription({ task_id: p.task_id, send_from: p.send_from, subscription: { ...p.subscription }, after_seq: p.after_seq ?? 0 });
  },
  async task_result_notify(params, b) {
    const p = parseNotify(params);
    return tasksOf(b).taskResultNotify({
      task_id: p.task_id,
      send_from: p.send_from,
      status: p.status,
      ...(p.required !== undefined ? { required: p.required } : {}),
      ...(p.result !== undefined ? { result: { ...p.result } } : {}),
    });
  },
  async task_context(params, b) {
    const p = objectParams(params, ['task_id', 'after_seq', 'limit']);
    const taskId = string(p.task_id, 'params.task_id', true) as string;
    const after = count(p.after_seq, 'params.after_seq');
    const limit = count(p.limit, 'params.limit', 1);
    return tasksOf(b).taskContext({ task_id: taskId, after_seq: after ?? 0, ...(limit !== undefined ? { limit } : {}) });
  },
  async upload_chunk(params, b) {
    const p = objectParams(params, ['send_from', 'task_id', 'param', 'chunk']);
    const sendFrom = string(p.send_from, 'params.send_from', true) as string;
    const taskId = string(p.task_id, 'params.task_id', false);
    const c = p.chunk;
    if (c === undefined) fail('params.chunk', 'required', 'params.chunk is required: {param_id, seq, data, finished}');
    if (typeof c !== 'object' || c === null || Array.isArray(c)) fail('params.chunk', 'type', 'params.chunk must be an object');
    const chunk = objectParams(c, ['param_id', 'seq', 'data', 'finished']);
    const paramId = string(chunk.param_id, 'params.chunk.param_id', true) as string;
    const seq = count(chunk.seq, 'params.chunk.seq');
    if (seq === undefined) fail('params.chunk.seq', 'required', 'params.chunk.seq is required');
    const data = string(chunk.data, 'params.chunk.data', true) as string;
    if (typeof chunk.finished !== 'boolean') fail('params.chunk.finished', chunk.finished === undefined ? 'required' : 'type', 'params.chunk.finished must be a boolean');
    let param: Record<string, unknown> | undefined;
    if (p.param !== undefined) {
      if (typeof p.param !== 'object' || p.param === null || Array.isArray(p.param)) fail('params.param', 'type', 'params.param must be an object');
      param = objectParams(p.param, ['id', 'data_type', 'description', 'data_size', 'format', 'url', 'data', 'chunked', 'finished']);
      for (const k of ['id', 'data_type', 'description', 'format', 'url', 'data'] as const) string(param[k], `params.param.${k}`, false);
      count(param.data_size, 'params.param.data_size');
      for (const k of ['chunked', 'finished'] as const) {
        if (param[k] !== undefined && typeof param[k] !== 'boolean') fail(`params.param.${k}`, 'type', `params.param.${k} must be a boolean`);
      }
    }
    return tasksOf(b).uploadChunk({
      send_from: sendFrom,
      chunk: { param_id: paramId, seq, data, finished: chunk.finished },
      ...(taskId !== undefined ? { task_id: taskId } : {}),
      ...(param ? { param: param as never } : {}),
    });
  },
} satisfies Record<string, Handler>;
