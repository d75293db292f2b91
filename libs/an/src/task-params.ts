/**
 * Params of each commuType operation (AN draft 004 §5.2 msg-header / msg-tail,
 * §5.3 task-negotiate, §5.4 notification), shared by the JSON-RPC and gRPC
 * faces. Each parser takes untrusted input and returns a typed, normalised
 * value (defaults filled, no `undefined` members) or throws ParleyError
 * `invalid_params` naming `params.<member>` and the rule broken. Unknown
 * members are refused (with a hint for the draft's own spellings).
 *
 * Every parser accepts an optional `commu_type` member (the msg-header's
 * commuType); when present it must name the operation parsed (rule
 * `commu_type`). It is not returned.
 */
import { SCHEMA_ID_PATTERN, assertNoForbiddenKeys } from '@parley/protocol';
import {
  TASK_STATES,
  VERDICTS,
  type CommuType,
  type DataParam,
  type NegotiationType,
  type TaskPrompt,
  type TaskState,
  type TaskSubscription,
  type TermExplain,
  type Verdict,
} from './model';
import { Checker, MAX_SHORT_LENGTH, put } from './check';
import { parseDataParam } from './data-params';
import { hasPromptSections, parsePromptContent } from './prompt';

/** Task ids: 1-128 letters, digits, `.`, `_`, `:`, `-`, starting with a letter or digit. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const SUBSCRIPTION_PROTOCOLS = ['grpc', 'nats', 'webhook'] as const;
export const WEBHOOK_METHODS = ['POST', 'PUT'] as const;

const check: Checker = new Checker('invalid_params');

/** The draft's spellings → Parley's member names. */
const HINTS: Readonly<Record<string, string>> = {
  'task-id': 'task_id',
  taskId: 'task_id',
  'task-sendFrom': 'send_from',
  'task-sendfrom': 'send_from',
  sendFrom: 'send_from',
  'task-sendTo': 'send_to',
  'task-sendto': 'send_to',
  sendTo: 'send_to',
  commuType: 'commu_type',
  'task-async': 'task_async',
  taskAsync: 'task_async',
  'expected-response': 'expected_response',
  'term-explains': 'term_explains',
  'msg-data': 'msg_data',
  'data-params': 'data_params',
  dataParams: 'data_params',
  'task-subscription': 'subscription',
  task_subscription: 'subscription',
  'schema-id': 'schema_id',
  afterSeq: 'after_seq',
  explaination: 'explanation',
  'subscript-protocol': 'protocol',
  'subscript-method': 'method',
  'subscript-url': 'url',
};

// ---------------------------------------------------------------------------
// Result types
// ---------------------------------------------------------------------------

/** taskAssign (5.2): a task as its assigner sends it. */
export interface TaskAssignParams {
  /** Absent: the receiving side assigns one. */
  readonly task_id?: string;
  readonly send_from: string;
  readonly send_to: string;
  /** 4.2: asynchronous feedback (default false: the result comes in the response). */
  readonly task_async: boolean;
  readonly content?: string;
  /** Parsed from content when it carries the Figure 7 sections. */
  readonly prompt?: TaskPrompt;
  readonly scenario?: string;
  readonly schema_id?: string;
  readonly payload?: Readonly<Record<string, unknown>>;
  readonly expected_response?: string;
  readonly term_explains: readonly TermExplain[];
  /** Ids of data_params the task refers to. */
  readonly msg_data: readonly string[];
  readonly data_params: readonly DataParam[];
  readonly subscription?: TaskSubscription;
}

export interface TaskCancelParams {
  readonly task_id: string;
  readonly send_from: string;
  readonly reason?: string;
}

/** FeasibilityNegotiate / FulfillmentNegotiate (5.3 Figure 8). */
export interface NegotiateParams {
  /** Required for FULFILLMENT; a FEASIBILITY check may come before any task exists. */
  readonly task_id?: string;
  readonly send_from: string;
  readonly send_to: string;
  /** The proposal (Figure 8's `content` leaf-list). */
  readonly content: readonly string[];
  /** Present when the message answers a proposal. */
  readonly verdict?: Verdict;
  /** The counter-proposal (required with counter) or the reason. */
  readonly reply?: readonly string[];
}

export interface ResultQueryParams {
  readonly task_id: string;
  readonly send_from: string;
}

export interface SubscribeParams {
  readonly task_id: string;
  readonly send_from: string;
  readonly subscription: TaskSubscription;
  /** Resume after this notification seq (the last one seen). */
  readonly after_seq?: number;
}

/** taskResultNotify (5.4). */
export interface NotifyParams {
  readonly task_id: string;
  readonly send_from: string;
  readonly status: TaskState;
  /** What the agent needs; required with status input-required, refused otherwise. */
  readonly required?: string;
  readonly result?: Readonly<Record<string, unknown>>;
}

export interface CapabilityRequestParams {
  readonly send_from: string;
  readonly send_to: string;
  /** Ask about these skills only. */
  readonly skills?: readonly string[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// ---------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------

function begin(input: unknown, path: string, members: readonly string[], commu: readonly CommuType[]): Record<string, unknown> {
  const o = check.object(input, path);
  check.members(o, [...members, 'commu_type'], path, HINTS);
  if (o.commu_type !== undefined) check.oneOf(o.commu_type, commu, `${path}.commu_type`);
  return o;
}

function taskId(v: unknown, path: string): string {
  return check.string(v, path, {
    pattern: TASK_ID_PATTERN,
    hint: '1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
  });
}

function jsonObject(v: unknown, path: string): Record<string, unknown> {
  const o = check.object(v, path);
  assertNoForbiddenKeys(o, path);
  return o;
}

/** A task-subscription (5.2): grpc, nats or webhook; a webhook needs an http(s) url and POST (default) or PUT. */
export function parseSubscription(input: unknown, path: string): TaskSubscription {
  const o = check.object(input, path);
  check.members(o, ['protocol', 'method', 'url'], path, HINTS);
  const protocol = check.oneOf(o.protocol, SUBSCRIPTION_PROTOCOLS, `${path}.protocol`);
  if (protocol !== 'webhook') {
    for (const k of ['method', 'url'] as const) {
      if (o[k] !== undefined) check.fail(`${path}.${k}`, 'webhook_only', `${path}.${k} applies to webhook subscriptions only, not ${protocol}`);
    }
    return { protocol };
  }
  if (o.url === undefined) check.fail(`${path}.url`, 'required', `${path}.url is required for a webhook subscription: an http(s) URL`);
  const url = check.url(o.url, `${path}.url`);
  const method =
    o.method === undefined
      ? 'POST'
      : check.oneOf(typeof o.method === 'string' ? o.method.toUpperCase() : o.method, WEBHOOK_METHODS, `${path}.method`);
  return { protocol, method, url };
}

function termExplain(input: unknown, path: string): TermExplain {
  const o = check.object(input, path);
  check.members(o, ['term', 'explanation'], path, HINTS);
  return {
    term: check.string(o.term, `${path}.term`, { maxLength: MAX_SHORT_LENGTH }),
    explanation: check.text(o.explanation, `${path}.explanation`),
  };
}

// ---------------------------------------------------------------------------
// Parsers
// ---------------------------------------------------------------------------

const ASSIGN_MEMBERS = [
  'task_id',
  'send_from',
  'send_to',
  'task_async',
  'content',
  'scenario',
  'schema_id',
  'payload',
  'expected_response',
  'term_explains',
  'msg_data',
  'data_params',
  'subscription',
] as const;

/**
 * taskAssign (5.2, 4.2, 4.4). Rules beyond the shapes: `content_or_payload`
 * (a task carries content, a payload or both), `payload_schema` (a payload
 * names its schema_id or scenario), `prompt_section_missing` (content that
 * has prompt sections must have all three), `unknown_data_param` (msg_data
 * names a data_params id not given), `unique`.
 */
export function parseTaskAssign(input: unknown, path = 'params'): TaskAssignParams {
  const o = begin(input, path, ASSIGN_MEMBERS, ['taskAssign']);
  const out: Mutable<TaskAssignParams> = {
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    send_to: check.agentName(o.send_to, `${path}.send_to`),
    task_async: check.optBoolean(o.task_async, `${path}.task_async`, false),
    term_explains: [],
    msg_data: [],
    data_params: [],
  };
  if (o.task_id !== undefined) out.task_id = taskId(o.task_id, `${path}.task_id`);
  if (o.content !== undefined) {
    const content = check.text(o.content, `${path}.content`);
    out.content = content;
    if (hasPromptSections(content)) out.prompt = parsePromptContent(content, `${path}.content`);
  }
  put(out, 'scenario', check.optString(o.scenario, `${path}.scenario`, { maxLength: 128 }));
  put(
    out,
    'schema_id',
    check.optString(o.schema_id, `${path}.schema_id`, { pattern: SCHEMA_ID_PATTERN, hint: 'a published schema_id such as fault_management_v1' }),
  );
  if (o.payload !== undefined) {
    out.payload = jsonObject(o.payload, `${path}.payload`);
    if (out.schema_id === undefined && out.scenario === undefined) {
      check.fail(`${path}.schema_id`, 'payload_schema', `${path}.payload needs ${path}.schema_id (or ${path}.scenario) to name the schema it follows (4.4)`);
    }
  }
  if (out.content === undefined && out.payload === undefined) {
    check.fail(
      path,
      'content_or_payload',
      `${path} carries neither content nor payload: a task needs natural-language content, a structured payload, or both (4.4)`,
    );
  }
  put(out, 'expected_response', check.optString(o.expected_response, `${path}.expected_response`, { maxBytes: 64 * 1024 }));
  if (o.term_explains !== undefined) out.term_explains = check.list(o.term_explains, `${path}.term_explains`, termExplain, (t) => t.term, 256);
  if (o.data_params !== undefined) out.data_params = check.list(o.data_params, `${path}.data_params`, parseDataParam, (d) => d.id, 256);
  if (o.msg_data !== undefined) {
    const ids = new Set(out.data_params.map((d) => d.id));
    out.msg_data = check.list(
      o.msg_data,
      `${path}.msg_data`,
      (x, p) => {
        const id = check.string(x, p, { maxLength: 128 });
        if (!ids.has(id)) {
          check.fail(p, 'unknown_data_param', `${p} ${JSON.stringify(id)} names no data param of ${path}.data_params`, { id });
        }
        return id;
      },
      (s) => s,
      256,
    );
  }
  if (o.subscription !== undefined) out.subscription = parseSubscription(o.subscription, `${path}.subscription`);
  return out;
}

/** taskCancel (5.2): the assigner withdraws a task. */
export function parseTaskCancel(input: unknown, path = 'params'): TaskCancelParams {
  const o = begin(input, path, ['task_id', 'send_from', 'reason'], ['taskCancel']);
  const out: Mutable<TaskCancelParams> = {
    task_id: taskId(o.task_id, `${path}.task_id`),
    send_from: check.agentName(o.send_from, `${path}.send_from`),
  };
  put(out, 'reason', check.optString(o.reason, `${path}.reason`, { maxBytes: 4096 }));
  return out;
}

/**
 * FeasibilityNegotiate / FulfillmentNegotiate (5.3 Figure 8). `type` comes
 * from the operation; an input `type` member must agree (rule
 * `negotiation_type`). Rules: `required` (task_id for FULFILLMENT),
 * `non_empty` (content), `counter_requires_reply`, `reply_without_verdict`.
 */
export function parseNegotiate(input: unknown, type: NegotiationType, path = 'params'): NegotiateParams {
  const commu: CommuType = type === 'FEASIBILITY' ? 'FeasibilityNegotiate' : 'FulfillmentNegotiate';
  const o = begin(input, path, ['task_id', 'send_from', 'send_to', 'type', 'content', 'verdict', 'reply'], [commu]);
  if (o.type !== undefined && o.type !== type) {
    check.fail(`${path}.type`, 'negotiation_type', `${path}.type ${JSON.stringify(o.type)} does not match the operation: ${commu} negotiates ${type}`);
  }
  if (type === 'FULFILLMENT' && o.task_id === undefined) {
    check.fail(`${path}.task_id`, 'required', `${path}.task_id is required: FULFILLMENT negotiation is about an assigned task (5.3)`);
  }
  const out: Mutable<NegotiateParams> = {
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    send_to: check.agentName(o.send_to, `${path}.send_to`),
    content: [],
  };
  if (o.task_id !== undefined) out.task_id = taskId(o.task_id, `${path}.task_id`);
  const content = check.list(o.content, `${path}.content`, (x, p) => check.text(x, p), undefined, 64);
  if (content.length === 0) check.fail(`${path}.content`, 'non_empty', `${path}.content must hold the proposal: at least one item`);
  out.content = content;
  if (o.verdict !== undefined) out.verdict = check.oneOf(o.verdict, VERDICTS, `${path}.verdict`);
  if (o.reply !== undefined) {
    if (out.verdict === undefined) {
      check.fail(`${path}.reply`, 'reply_without_verdict', `${path}.reply answers a proposal: send it with a verdict`);
    }
    out.reply = check.list(o.reply, `${path}.reply`, (x, p) => check.text(x, p), undefined, 64);
  }
  if (out.verdict === 'counter' && (out.reply === undefined || out.reply.length === 0)) {
    check.fail(`${path}.reply`, 'counter_requires_reply', `${path}.reply is required with verdict counter: the counter-proposal`);
  }
  return out;
}

/** taskResultQuery (5.2). */
export function parseResultQuery(input: unknown, path = 'params'): ResultQueryParams {
  const o = begin(input, path, ['task_id', 'send_from'], ['taskResultQuery']);
  return { task_id: taskId(o.task_id, `${path}.task_id`), send_from: check.agentName(o.send_from, `${path}.send_from`) };
}

/** taskResultSubscribe (5.2 task-subscription, 4.2 asynchronous feedback). */
export function parseSubscribe(input: unknown, path = 'params'): SubscribeParams {
  const o = begin(input, path, ['task_id', 'send_from', 'subscription', 'after_seq'], ['taskResultSubscribe']);
  const out: Mutable<SubscribeParams> = {
    task_id: taskId(o.task_id, `${path}.task_id`),
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    subscription: parseSubscription(o.subscription, `${path}.subscription`),
  };
  if (o.after_seq !== undefined) out.after_seq = check.count(o.after_seq, `${path}.after_seq`);
  return out;
}

/**
 * taskResultNotify (5.4 Figure 9). Rules: `enum` (status),
 * `requires_required` (input-required needs `required`),
 * `required_only_when_input_required`.
 */
export function parseNotify(input: unknown, path = 'params'): NotifyParams {
  const o = begin(input, path, ['task_id', 'send_from', 'status', 'required', 'result'], ['taskResultNotify']);
  const out: Mutable<NotifyParams> = {
    task_id: taskId(o.task_id, `${path}.task_id`),
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    status: check.oneOf(o.status, TASK_STATES, `${path}.status`),
  };
  if (o.required !== undefined) {
    out.required = check.text(o.required, `${path}.required`);
    if (out.status !== 'input-required') {
      check.fail(`${path}.required`, 'required_only_when_input_required', `${path}.required says what an input-required task needs; the status is ${out.status}`);
    }
  } else if (out.status === 'input-required') {
    check.fail(`${path}.required`, 'requires_required', `${path}.required is required with status input-required: what the agent needs`);
  }
  if (o.result !== undefined) out.result = jsonObject(o.result, `${path}.result`);
  return out;
}

/** CapabilityRequest (5.2, 4.1 capability negotiation). */
export function parseCapabilityRequest(input: unknown, path = 'params'): CapabilityRequestParams {
  const o = begin(input, path, ['send_from', 'send_to', 'skills'], ['CapabilityRequest']);
  const out: Mutable<CapabilityRequestParams> = {
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    send_to: check.agentName(o.send_to, `${path}.send_to`),
  };
  if (o.skills !== undefined) out.skills = check.stringList(o.skills, `${path}.skills`, { maxLength: MAX_SHORT_LENGTH }, 256);
  return out;
}
