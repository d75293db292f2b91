import { randomUUID } from 'node:crypto';
import {
  AN_AGENT_NAME_PATTERN,
  MAX_AN_AGENT_NAME_LENGTH,
  TASK_ID_PATTERN,
  answer,
  assertNegotiationAllowed,
  assertTransition,
  canTransition,
  createChunkAssembler,
  isTerminal,
  openNegotiation,
  parseAgentProfile,
  parseCapabilityRequest,
  parseDataParam,
  parseNegotiate,
  parseNotify,
  parseResultQuery,
  parseSubscribe,
  parseTaskAssign,
  parseTaskCancel,
  propose,
  DEFAULT_MAX_ROUNDS,
  generateWebhookSecret,
  type AgentProfile,
  type ChunkAssembler,
  type ChunkAssemblerOptions,
  type ContextMessage,
  type DataParam,
  type NegotiationRound,
  type NegotiationState,
  type NegotiationType,
  type Task,
  type TaskAssignParams,
  type TaskNotification,
  type TaskState,
} from '@parley/an';
import {
  templateFromWire,
  type AgentProfile as WireProfile,
  type AgentProfileApi,
  type ContextMessage as WireContextMessage,
  type NegotiationApi,
  type NegotiationRound as WireRound,
  type Task as WireTaskMessage,
  type TaskApi,
  type TaskNegotiateResponse,
  type TaskNotification as WireNotification,
} from '@parley/contracts';
import { outboxInsert, type Bus, type Subjects } from '@parley/events';
import { ParleyError, compilePayloadValidator, toParleyError, type PayloadValidator } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { TaskFeed } from './live';
import { webhookUrlPolicy, type WebhookUrlPolicy } from './webhook-allow';
import {
  appendMessage,
  clip,
  latestNotification,
  listMessages,
  listNotifications,
  loadNegotiation,
  loadTask,
  lockTask,
  requireTask,
  saveNegotiation,
  statusEvents,
  taskNotFound,
  transition,
  insertTask,
  type StoredTask,
} from './store';
import { agentFailure, decodeAgentReply, decodeFromAgent, encodeWire, type ServiceReply, type WireTask } from './wire';

/**
 * AN tasks (draft 004 §4.2-4.5, §5.2-5.4) in the execution service.
 *
 * - TaskAssign validates (params by libs/an; Figure 7 prompt sections; a
 *   structured payload by the schema negotiated for it, 4.4), stores the task
 *   (created), its data params and its first context message, commits, then
 *   dispatches it to `send_to` over NATS request/reply. Recording before
 *   dispatching means an agent's first notification can never overtake its
 *   task. Sync (task_async false): the agent answers with the result and the
 *   task goes created → processing → finished (or failed); the response
 *   carries the final status and result. Async: the agent acknowledges, the
 *   response returns at once (created or processing), and the agent reports
 *   every later change with TaskResultNotify. When nobody listens on send_to
 *   (agent_unavailable), does not answer in time (agent_timeout) or answers
 *   nonsense (agent_response_invalid), the task fails (created → failed, the
 *   error as result) and the call answers that error with details.task_id.
 * - Every state change is checked by assertTransition (illegal →
 *   `illegal_transition`, nothing changed) and stored as the task's next
 *   notification with its task.status outbox events in the same transaction
 *   (store.ts `transition`).
 * - Context (5.2): every message (assign, the agent's answers and
 *   notifications, cancel, each negotiation call, queries, subscriptions) is
 *   appended in order.
 * - Negotiation (5.3, libs/an negotiation.ts): a call proposes or answers the
 *   open round. A proposal is stored, then forwarded to the other party over
 *   NATS; its verdict closes the round at once. When that party does not
 *   listen (or does not answer in time) the round stays open and the party
 *   answers it with a later call carrying a verdict.
 *
 * - Subscriptions (5.2 task-subscription): a webhook URL must pass the URL
 *   policy (webhook-allow.ts; else `invalid_params` at
 *   `params.subscription.url`, rule `webhook_allowed`, nothing stored); each
 *   webhook subscription gets its own signing secret, answered once as
 *   `webhook_secret` (webhooks.ts signs every delivery with it).
 *
 * Time comes from the clock. Every input error is a typed ParleyError naming
 * the path and rule; a refused call changes nothing.
 */
export interface TaskServiceDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  /** How long an agent has to answer a dispatched task, a proposal or a capability request. */
  timeoutMs: number;
  /** After every commit that may have added notifications of `taskId` (relay nudge, live streams, webhooks). */
  onChange(taskId: string): void;
  /** Wakes TaskResultSubscribe streams (live.ts). */
  feed: Pick<TaskFeed, 'wait'>;
  /** The registry's AgentProfileService (draft 004 §5.1), when deployed: CapabilityRequest answers from it first. */
  profiles?: Pick<AgentProfileApi, 'getProfile'>;
  /** Rounds a negotiation may take before it ends in round_limit (default 5). */
  maxNegotiationRounds?: number;
  /** Limits of chunked data params (default 16 MiB, 10 000 chunks per param). */
  chunks?: ChunkAssemblerOptions;
  /** Which webhook URLs may be registered (webhook-allow.ts; default: https to public hosts only). */
  webhookPolicy?: WebhookUrlPolicy;
}

export interface TaskService {
  api: TaskApi;
  /** Handles one message an agent sent on `subjects.taskService()` (notify, negotiate, data); never throws. */
  fromAgent(body: Uint8Array): Promise<Uint8Array>;
}

/** Inline data sent with a dispatched task: at most this much per param and in total (NATS messages are small). */
const MAX_DISPATCH_PARAM_CHARS = 256 * 1024;
const MAX_DISPATCH_TOTAL_CHARS = 512 * 1024;
const MAX_DATA_SLICE = 256 * 1024;
const MAX_CONTEXT_PAGE = 1000;

function plain(req: object, emptyAbsent: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) {
    if (v === undefined) continue;
    if (emptyAbsent.includes(k) && Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

function forbidden(path: string, rule: string, message: string): ParleyError {
  return new ParleyError('forbidden', message, { path, rule });
}

function agentName(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ParleyError('invalid_params', `${path} is required`, { path, rule: 'required' });
  if (v.length > MAX_AN_AGENT_NAME_LENGTH || !AN_AGENT_NAME_PATTERN.test(v)) {
    throw new ParleyError('invalid_params', `${path} ${JSON.stringify(v.slice(0, 80))} is not an agent name`, { path, rule: 'name_format' });
  }
  return v;
}

function taskIdOf(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ParleyError('invalid_params', `${path} is required`, { path, rule: 'required' });
  if (!TASK_ID_PATTERN.test(v)) throw new ParleyError('invalid_params', `${path} ${JSON.stringify(v.slice(0, 80))} is not a task id`, { path, rule: 'pattern' });
  return v;
}

const COMMU: Record<NegotiationType, 'FeasibilityNegotiate' | 'FulfillmentNegotiate'> = {
  FEASIBILITY: 'FeasibilityNegotiate',
  FULFILLMENT: 'FulfillmentNegotiate',
};

// ---------------------------------------------------------------------------
// Model → wire
// ---------------------------------------------------------------------------

export function toWireTask(t: StoredTask): WireTaskMessage {
  return {
    task_id: t.task_id,
    send_from: t.send_from,
    send_to: t.send_to,
    task_async: t.task_async,
    status: t.status,
    term_explains: t.term_explains.map((x) => ({ ...x })),
    msg_data: [...t.msg_data],
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_seq: t.last_seq,
    ...(t.content !== undefined ? { content: t.content } : {}),
    ...(t.prompt ? { prompt: { ...t.prompt } } : {}),
    ...(t.scenario !== undefined ? { scenario: t.scenario } : {}),
    ...(t.schema_id !== undefined ? { schema_id: t.schema_id } : {}),
    ...(t.payload ? { payload: { ...t.payload } } : {}),
    ...(t.expected_response !== undefined ? { expected_response: t.expected_response } : {}),
    ...(t.subscription ? { subscription: { ...t.subscription } } : {}),
    ...(t.result ? { result: { ...t.result } } : {}),
  };
}

export function toWireNotification(n: TaskNotification): WireNotification {
  return {
    task_id: n.task_id,
    seq: n.seq,
    send_from: n.send_from,
    send_to: n.send_to,
    commu_type: n.commu_type,
    task_async: n.task_async,
    status: n.status,
    start_time: n.start_time,
    at: n.at,
    ...(n.previous_status !== null ? { previous_status: n.previous_status } : {}),
    ...(n.required !== undefined ? { required: n.required } : {}),
    ...(n.result ? { result: { ...n.result } } : {}),
  };
}

function toWireRound(r: NegotiationRound): WireRound {
  return {
    task_id: r.task_id,
    type: r.type,
    round: r.round,
    proposer: r.proposer,
    proposal: [...r.proposal],
    reply: [...(r.reply ?? [])],
    at: r.at,
    ...(r.verdict !== undefined ? { verdict: r.verdict } : {}),
  };
}

function toWireMessage(m: ContextMessage): WireContextMessage {
  const info = (i: ContextMessage['request']) => (i ? { data_params: [...(i.data_params ?? [])], ...(i.content !== undefined ? { content: i.content } : {}) } : undefined);
  const request = info(m.request);
  const response = info(m.response);
  return {
    task_id: m.task_id,
    seq: m.seq,
    send_from: m.send_from,
    send_to: m.send_to,
    commu_type: m.commu_type,
    time: m.time,
    ...(request ? { request } : {}),
    ...(response ? { response } : {}),
  };
}

function toWireProfile(p: AgentProfile | WireProfile, skills?: readonly string[]): WireProfile {
  const wanted = skills && skills.length > 0 ? new Set(skills) : undefined;
  const src = p as WireProfile & AgentProfile;
  return {
    name: src.name,
    description: src.description,
    version: src.version,
    provider: src.provider,
    skills: src.skills.filter((s) => !wanted || wanted.has(s.name)).map((s) => ({ ...s, tags: [...s.tags], input_modes: [...s.input_modes], output_modes: [...s.output_modes] })),
    capability: src.capability
      ? { streaming: src.capability.streaming, push_notifications: src.capability.push_notifications, negotiate: [...src.capability.negotiate] }
      : { streaming: false, push_notifications: false, negotiate: [] },
    authentication: src.authentication.map((a) => ({ ...a })),
    registered_at: src.registered_at ?? '',
    updated_at: src.updated_at ?? '',
    ...(src.alias !== undefined ? { alias: src.alias } : {}),
    ...(src.type !== undefined ? { type: src.type } : {}),
    ...(src.domain !== undefined ? { domain: src.domain } : {}),
    ...(src.management_object !== undefined ? { management_object: src.management_object } : {}),
  };
}

// ---------------------------------------------------------------------------

export function createTaskService(deps: TaskServiceDeps): TaskService {
  const { db, bus, subjects, log } = deps;
  const maxRounds = deps.maxNegotiationRounds ?? DEFAULT_MAX_ROUNDS;
  const now = () => deps.clock.now().toISOString();
  const validators = new Map<string, PayloadValidator>();
  /** One assembler per param being uploaded (least recently used evicted; rebuilt from data_chunks when stale). */
  const assemblers = new Map<string, { assembler: ChunkAssembler; next: number }>();

  /** Runs `fn` in a transaction holding the task's lock, then signals the change. */
  async function change<T>(taskId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const r = await db.transaction(async (tx) => {
      await lockTask(tx, taskId);
      return fn(tx);
    });
    deps.onChange(taskId);
    return r;
  }

  // ---- 4.4 the structured side of a task --------------------------------

  async function validatePayload(p: TaskAssignParams): Promise<{ payload: Record<string, unknown>; schema_id: string; scenario: string } | undefined> {
    if (!p.payload) return undefined;
    let template;
    let schema;
    let etag: string;
    if (p.schema_id !== undefined) {
      const ask = (agent?: string) =>
        deps.negotiation.getSchema({ schema_id: p.schema_id as string, client_id: p.send_from, ...(agent !== undefined ? { agent } : {}) });
      const r = await ask().catch((e: unknown) => {
        if (e instanceof ParleyError && e.type === 'ambiguous_agent') return ask(p.send_to);
        throw e;
      });
      ({ template, schema, etag } = r);
    } else {
      const r = await deps.negotiation.getSchemaTemplate({ scenario: p.scenario as string, preferred_language: '', client_id: p.send_from });
      ({ template, schema, etag } = r);
    }
    if (!template || !schema) throw new ParleyError('internal', 'Negotiation returned no template');
    const key = `${schema.agent}/${schema.schema_id}@${etag}`;
    let v = validators.get(key);
    if (!v) {
      v = compilePayloadValidator(templateFromWire(template));
      validators.set(key, v);
      while (validators.size > 200) validators.delete(validators.keys().next().value as string);
    }
    return { payload: v.validate(p.payload).payload as Record<string, unknown>, schema_id: schema.schema_id, scenario: schema.scenario_id };
  }

  // ---- 5.2 data params ----------------------------------------------------

  async function storeDataParams(tx: Queryable, params: readonly DataParam[], owner: string, taskId: string, at: string): Promise<void> {
    for (const [i, d] of params.entries()) {
      const path = `params.data_params[${i}]`;
      const r = await tx.query<{ owner: string; chunked: boolean; finished: boolean; task_id: string | null }>(
        'SELECT owner, chunked, finished, task_id FROM execution.data_params WHERE id = $1',
        [d.id],
      );
      const row = r.rows[0];
      if (d.chunked === true && d.data === undefined && d.url === undefined) {
        // Uploaded before with UploadChunk: the task refers to it.
        if (!row || !row.chunked) {
          throw new ParleyError('invalid_params', `${path} names chunked data ${JSON.stringify(d.id)} that was not uploaded: send its chunks with upload_chunk first`, {
            path: `${path}.id`,
            rule: 'exists',
          });
        }
        if (row.owner !== owner) throw forbidden(`${path}.id`, 'data_owner', `${path}: data param ${JSON.stringify(d.id)} was uploaded by another agent`);
        if (!row.finished) {
          throw new ParleyError('invalid_params', `${path}: the upload of ${JSON.stringify(d.id)} is not finished (its last chunk has not arrived)`, {
            path: `${path}.id`,
            rule: 'chunks_unfinished',
          });
        }
        if (row.task_id !== null && row.task_id !== taskId) {
          throw new ParleyError('invalid_params', `${path}: data param ${JSON.stringify(d.id)} belongs to task ${row.task_id}`, { path: `${path}.id`, rule: 'unique' });
        }
        await tx.query('UPDATE execution.data_params SET task_id = $2 WHERE id = $1', [d.id, taskId]);
        continue;
      }
      if (row) throw new ParleyError('invalid_params', `${path}.id ${JSON.stringify(d.id)} is taken by another data param`, { path: `${path}.id`, rule: 'unique' });
      await tx.query(
        `INSERT INTO execution.data_params (id, owner, task_id, data_type, description, data_size, format, url, data, chunked, finished, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, true, $11)`,
        [d.id, owner, taskId, d.data_type, d.description ?? null, d.data_size ?? null, d.format ?? null, d.url ?? null, d.data ?? null, d.chunked === true, at],
      );
    }
  }

  /** The task's data params (those it carried or linked, msg_data first). */
  async function taskDataParams(q: Queryable, t: Task): Promise<WireTask['data_params']> {
    const r = await q.query<{ id: string; data_type: DataParam['data_type']; description: string | null; data_size: string | number | null; format: string | null; url: string | null; data: string | null; chunked: boolean }>(
      'SELECT id, data_type, description, data_size, format, url, data, chunked FROM execution.data_params WHERE task_id = $1 ORDER BY array_position($2::text[], id), id',
      [t.task_id, [...t.msg_data]],
    );
    let total = 0;
    return r.rows.map((x) => {
      const base = {
        id: x.id,
        data_type: x.data_type,
        ...(x.description !== null ? { description: x.description } : {}),
        ...(x.data_size !== null ? { data_size: Number(x.data_size) } : {}),
        ...(x.format !== null ? { format: x.format } : {}),
        ...(x.url !== null ? { url: x.url } : {}),
        ...(x.chunked ? { chunked: true, finished: true } : {}),
      };
      if (x.data === null) return base;
      if (x.data.length > MAX_DISPATCH_PARAM_CHARS || total + x.data.length > MAX_DISPATCH_TOTAL_CHARS) return { ...base, data_omitted: true };
      total += x.data.length;
      return { ...base, data: x.data };
    });
  }

  async function wireTaskOf(t: StoredTask): Promise<WireTask> {
    const { last_seq: _seq, ...task } = t;
    return { ...task, data_params: await taskDataParams(db, t) };
  }

  // ---- 5.2 taskAssign -----------------------------------------------------

  async function taskAssign(input: unknown): Promise<{ task: StoredTask; subscription_id?: string; webhook_secret?: string }> {
    const p = parseTaskAssign(input);
    if (p.subscription) assertWebhookAllowed(p.subscription);
    const structured = await validatePayload(p);
    // An agent nobody serves is refused before anything is stored: bad input changes nothing.
    await probeExecutor(p.send_to);
    const at = now();
    const taskId = p.task_id ?? randomUUID();
    const task: Task = {
      task_id: taskId,
      send_from: p.send_from,
      send_to: p.send_to,
      task_async: p.task_async,
      status: 'created',
      term_explains: p.term_explains,
      msg_data: p.msg_data,
      created_at: at,
      updated_at: at,
      ...(p.content !== undefined ? { content: p.content } : {}),
      ...(p.prompt ? { prompt: p.prompt } : {}),
      ...(structured ? structured : { ...(p.scenario !== undefined ? { scenario: p.scenario } : {}), ...(p.schema_id !== undefined ? { schema_id: p.schema_id } : {}) }),
      ...(p.expected_response !== undefined ? { expected_response: p.expected_response } : {}),
      ...(p.subscription ? { subscription: p.subscription } : {}),
    };
    let registered: { id: string; secret?: string } | undefined;
    const created = await change(taskId, async (tx) => {
      if (await loadTask(tx, taskId)) {
        throw new ParleyError('invalid_params', `A task with task_id ${JSON.stringify(taskId)} exists already`, { path: 'params.task_id', rule: 'unique' });
      }
      // A feasibility negotiation before assignment (5.3 1)) shares the task's id: it must have reached agreement, between the same agents.
      const feasibility = await loadNegotiation(tx, taskId, 'FEASIBILITY');
      if (feasibility) {
        if (!samePair([feasibility.send_from, feasibility.send_to], [p.send_from, p.send_to])) {
          throw forbidden('params.task_id', 'negotiation_party', `Task ${taskId} was negotiated between ${feasibility.send_from} and ${feasibility.send_to}`);
        }
        if (feasibility.state.outcome !== 'agreed') {
          throw new ParleyError('illegal_transition', `The feasibility negotiation of ${taskId} ended ${feasibility.state.outcome === 'open' ? 'not yet' : `in ${feasibility.state.outcome}`}: only an agreed task can be assigned under its id`, {
            path: 'params.task_id',
            rule: 'negotiation_not_agreed',
            details: { outcome: feasibility.state.outcome },
          });
        }
      }
      await insertTask(tx, task);
      await storeDataParams(tx, p.data_params, p.send_from, taskId, at);
      await appendMessage(tx, {
        task_id: taskId,
        send_from: p.send_from,
        send_to: p.send_to,
        commu_type: 'taskAssign',
        request: {
          content: clip(p.content ?? JSON.stringify(structured?.payload ?? {})),
          ...(p.msg_data.length > 0 ? { data_params: [...p.msg_data] } : {}),
        },
        time: at,
      });
      if (p.subscription && p.subscription.protocol !== 'grpc') registered = await insertSubscription(tx, taskId, p.send_from, p.subscription, 0, at);
      return (await transition(tx, subjects, { ...task, last_seq: 0 }, { from: null, to: 'created', at })).task;
    });
    return {
      task: await dispatch(created),
      ...(registered ? { subscription_id: registered.id } : {}),
      ...(registered?.secret ? { webhook_secret: registered.secret } : {}),
    };
  }

  /**
   * Whether any agent serves tasks as `agent`: a `ping` on its task subject. Any
   * answer counts (an agent on an older SDK answers an unknown kind with an
   * error); no responder or no answer is agent_unavailable naming params.send_to.
   */
  async function probeExecutor(agent: string): Promise<void> {
    try {
      await bus.request(subjects.task(agent), encodeWire({ kind: 'ping' }), { timeoutMs: Math.min(deps.timeoutMs, 2000) });
    } catch (e) {
      const err = toParleyError(e);
      if (err.type !== 'agent_unavailable' && err.type !== 'agent_timeout') throw err;
      throw new ParleyError('agent_unavailable', `No agent serves tasks as ${JSON.stringify(agent)}`, { path: 'params.send_to', rule: 'listening', details: { agent }, cause: e });
    }
  }

  /** Sends the task to its executing agent and applies the answer. */
  async function dispatch(task: StoredTask): Promise<StoredTask> {
    let reply: Record<string, unknown>;
    try {
      const raw = await bus.request(subjects.task(task.send_to), encodeWire({ kind: 'assign', task: await wireTaskOf(task) }), { timeoutMs: deps.timeoutMs });
      reply = decodeAgentReply(raw, task.send_to);
    } catch (e) {
      throw await failDispatch(task, toParleyError(e));
    }
    type Outcome = { to: TaskState; result?: Record<string, unknown>; say: string; accepted?: true };
    let outcome: Outcome;
    if (reply.ok === false) {
      const error = agentFailure(reply.error);
      outcome = { to: 'failed', result: { error }, say: `failed: ${error.message}` };
    } else if (reply.accepted === true && task.task_async) {
      const status = reply.status ?? 'created';
      if (status !== 'created' && status !== 'processing') {
        throw await failDispatch(task, new ParleyError('agent_response_invalid', `Agent ${task.send_to} accepted the task with status ${JSON.stringify(status)}; created or processing expected`, { path: 'reply.status', rule: 'enum' }));
      }
      outcome = { to: status, say: `accepted (${status})`, accepted: true };
    } else if (typeof reply.result === 'object' && reply.result !== null && !Array.isArray(reply.result)) {
      outcome = { to: 'finished', result: reply.result as Record<string, unknown>, say: `finished: ${JSON.stringify(reply.result)}` };
    } else {
      const why = reply.accepted === true ? 'accepted a synchronous task instead of answering with its result' : 'answered without a result object';
      throw await failDispatch(task, new ParleyError('agent_response_invalid', `Agent ${task.send_to} ${why}`, { path: 'reply.result', rule: 'required' }));
    }
    return change(task.task_id, async (tx) => {
      let cur = await requireTask(tx, task.task_id);
      const at = now();
      await appendMessage(tx, { task_id: cur.task_id, send_from: cur.send_to, send_to: cur.send_from, commu_type: 'taskResultNotify', response: { content: clip(outcome.say) }, time: at });
      // Canceled (or reported terminal by the agent) meanwhile: the late answer stays in the context only.
      if (isTerminal(cur.status) || cur.status === outcome.to) return cur;
      // An accepting agent may report its next state before this answer is recorded
      // (it works on at once); its report wins and the acceptance changes nothing.
      if (outcome.accepted && cur.status !== 'created') return cur;
      // Sync tasks go through processing (created → processing → finished | failed); async refusals fail at once.
      const viaProcessing = outcome.to === 'finished' || (outcome.to === 'failed' && !cur.task_async);
      if (viaProcessing && cur.status !== 'processing') cur = (await transition(tx, subjects, cur, { from: cur.status, to: 'processing', at })).task;
      return (await transition(tx, subjects, cur, { from: cur.status, to: outcome.to, at, ...(outcome.result ? { result: outcome.result } : {}) })).task;
    });
  }

  /** The task could not be handed over: it fails (the error as its result) and the call answers the error. */
  async function failDispatch(task: StoredTask, err: ParleyError): Promise<ParleyError> {
    try {
      await change(task.task_id, async (tx) => {
        const cur = await requireTask(tx, task.task_id);
        if (isTerminal(cur.status)) return;
        await transition(tx, subjects, cur, { from: cur.status, to: 'failed', at: now(), result: { error: { type: err.type, message: err.message } } });
      });
    } catch (e) {
      log.error('could not record the failed dispatch of a task', { task_id: task.task_id, error: e });
    }
    return new ParleyError(err.type, err.message, {
      ...(err.path ? { path: err.path } : {}),
      ...(err.rule ? { rule: err.rule } : {}),
      details: { ...err.details, task_id: task.task_id },
      cause: err,
    });
  }

  // ---- subscriptions ------------------------------------------------------

  const webhookPolicy = deps.webhookPolicy ?? webhookUrlPolicy();

  /** A webhook URL the policy refuses is invalid_params at params.subscription.url, rule webhook_allowed. */
  function assertWebhookAllowed(s: Task['subscription'] & object): void {
    if (s.protocol !== 'webhook' || s.url === undefined) return;
    const refusal = webhookPolicy.refusal(s.url);
    if (refusal === undefined) return;
    throw new ParleyError('invalid_params', `params.subscription.url ${JSON.stringify(s.url.slice(0, 200))} is not an allowed webhook URL: ${refusal}`, {
      path: 'params.subscription.url',
      rule: 'webhook_allowed',
    });
  }

  /**
   * Stores a subscription; a webhook gets its signing secret. The secret is
   * stored as is: the execution service holds no data key to seal it with.
   */
  async function insertSubscription(tx: Queryable, taskId: string, subscriber: string, s: Task['subscription'] & object, cursor: number, at: string): Promise<{ id: string; secret?: string }> {
    const id = randomUUID();
    const secret = s.protocol === 'webhook' ? generateWebhookSecret() : undefined;
    await tx.query(
      `INSERT INTO execution.subscriptions (id, task_id, subscriber, protocol, method, url, cursor, attempts, next_attempt_at, created_at, secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8, $9)`,
      [id, taskId, subscriber, s.protocol, s.method ?? null, s.url ?? null, cursor, at, secret ?? null],
    );
    return { id, ...(secret ? { secret } : {}) };
  }

  // ---- 5.4 taskResultNotify ------------------------------------------------

  async function notify(input: unknown): Promise<{ notification: TaskNotification; task: StoredTask }> {
    const p = parseNotify(input);
    return change(p.task_id, async (tx) => {
      const cur = await requireTask(tx, p.task_id);
      if (cur.send_to !== p.send_from) {
        throw forbidden('params.send_from', 'task_executor', `Only the executing agent (${cur.send_to}) reports the status of task ${cur.task_id}`);
      }
      const at = now();
      let from = cur;
      // A report on an async task whose acceptance is still on its way back to us: the
      // report itself says the agent took the task, so created → processing happens first
      // (only when the report is legal from processing and not from created).
      if (cur.status === 'created' && cur.task_async && !canTransition('created', p.status) && canTransition('processing', p.status)) {
        from = (await transition(tx, subjects, cur, { from: 'created', to: 'processing', at })).task;
      }
      assertTransition(from.status, p.status, 'params.status');
      const say = [p.status, p.required, p.result ? JSON.stringify(p.result) : undefined].filter((x) => x !== undefined).join(': ');
      await appendMessage(tx, { task_id: cur.task_id, send_from: p.send_from, send_to: cur.send_from, commu_type: 'taskResultNotify', response: { content: clip(say) }, time: at });
      return transition(tx, subjects, from, {
        from: from.status,
        to: p.status,
        at,
        ...(p.required !== undefined ? { required: p.required } : {}),
        ...(p.result ? { result: p.result } : {}),
      });
    });
  }

  // ---- 5.3 negotiation ----------------------------------------------------

  function negotiationResult(state: NegotiationState): TaskNegotiateResponse {
    const last = state.rounds.at(-1);
    return {
      task_id: state.task_id,
      type: state.type,
      outcome: state.outcome,
      rounds: state.rounds.map(toWireRound),
      ...(state.outcome === 'agreed' && last ? { data: { agreed: [...last.proposal], round: last.round, proposer: last.proposer } } : {}),
    };
  }

  async function negotiate(type: NegotiationType, input: unknown): Promise<TaskNegotiateResponse> {
    const p = parseNegotiate(input, type);
    if (p.send_from === p.send_to) {
      throw new ParleyError('invalid_params', 'params.send_to must be another agent than params.send_from', { path: 'params.send_to', rule: 'distinct_parties' });
    }
    const taskId = p.task_id ?? randomUUID();
    const commu = COMMU[type];
    const stored = await change(taskId, async (tx) => {
      const task = await loadTask(tx, taskId);
      if (!task && type === 'FULFILLMENT') throw taskNotFound(taskId);
      assertNegotiationAllowed(type, task?.status ?? null, 'params.task_id');
      const existing = await loadNegotiation(tx, taskId, type);
      const parties = task ? [task.send_from, task.send_to] : existing ? [existing.send_from, existing.send_to] : [p.send_from, p.send_to];
      if (!samePair(parties, [p.send_from, p.send_to])) {
        throw forbidden('params.send_from', 'negotiation_party', `The ${type} negotiation of ${taskId} is between ${parties[0]} and ${parties[1]}`);
      }
      const at = now();
      let state = existing?.state ?? openNegotiation(taskId, type, maxRounds);
      const content = clip(p.content.join('\n'));
      let message: Omit<ContextMessage, 'seq'>;
      if (p.verdict === undefined) {
        state = propose(state, { proposer: p.send_from, proposal: p.content, at });
        message = { task_id: taskId, send_from: p.send_from, send_to: p.send_to, commu_type: commu, request: { content }, time: at };
      } else {
        const last = state.rounds.at(-1);
        if (last && last.verdict === undefined && last.proposer === p.send_from) {
          throw new ParleyError('illegal_transition', `${p.send_from} cannot answer its own proposal (round ${last.round}); ${p.send_to} does`, {
            path: 'params.verdict',
            rule: 'own_proposal',
          });
        }
        state = answer(state, { verdict: p.verdict, ...(p.reply ? { reply: p.reply } : {}), at });
        message = { task_id: taskId, send_from: p.send_from, send_to: p.send_to, commu_type: commu, request: { content }, response: { content: clip([p.verdict, ...(p.reply ?? [])].join(': ')) }, time: at };
      }
      await saveNegotiation(tx, { state, send_from: existing?.send_from ?? p.send_from, send_to: existing?.send_to ?? p.send_to }, !existing, at);
      await appendMessage(tx, message);
      return { state, task };
    });
    if (p.verdict !== undefined) return negotiationResult(stored.state);

    // Forward the proposal; a party that does not listen answers with a later call.
    const round = stored.state.rounds.at(-1) as NegotiationRound;
    let reply: Record<string, unknown>;
    try {
      const raw = await bus.request(
        subjects.task(p.send_to),
        encodeWire({ kind: 'negotiate', type, task_id: taskId, round: round.round, proposer: round.proposer, proposal: round.proposal, ...(stored.task ? { task: await wireTaskOf(stored.task) } : {}) }),
        { timeoutMs: deps.timeoutMs },
      );
      reply = decodeAgentReply(raw, p.send_to);
    } catch (e) {
      const err = toParleyError(e);
      if (err.type !== 'agent_unavailable' && err.type !== 'agent_timeout') throw err;
      log.debug('negotiation proposal not answered over NATS; the round stays open for a later call', { task_id: taskId, type, to: p.send_to, reason: err.type });
      return negotiationResult(stored.state);
    }
    if (reply.ok !== true) {
      log.info('agent could not evaluate a proposal; the round stays open', { task_id: taskId, type, agent: p.send_to, error: agentFailure(reply.error) });
      return negotiationResult(stored.state);
    }
    const final = await change(taskId, async (tx) => {
      const cur = await loadNegotiation(tx, taskId, type);
      const last = cur?.state.rounds.at(-1);
      // Answered meanwhile by a call: that answer stands.
      if (!cur || !last || last.round !== round.round || last.verdict !== undefined) return cur?.state ?? stored.state;
      const at = now();
      let state: NegotiationState;
      try {
        const r = Array.isArray(reply.reply) ? (reply.reply as string[]) : undefined;
        state = answer(cur.state, { verdict: reply.verdict as NonNullable<NegotiationRound['verdict']>, ...(r ? { reply: r } : {}), at });
      } catch (e) {
        const err = toParleyError(e);
        throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered the proposal with an invalid verdict: ${err.message}`, {
          path: `reply${err.path.replace(/^answer/, '')}`,
          rule: err.rule,
          details: { agent: p.send_to, task_id: taskId },
        });
      }
      const lastNow = state.rounds.at(-1) as NegotiationRound;
      await saveNegotiation(tx, { state, send_from: cur.send_from, send_to: cur.send_to }, false, at);
      await appendMessage(tx, {
        task_id: taskId,
        send_from: p.send_to,
        send_to: p.send_from,
        commu_type: commu,
        response: { content: clip([lastNow.verdict as string, ...(lastNow.reply ?? [])].join(': ')) },
        time: at,
      });
      return state;
    });
    return negotiationResult(final);
  }

  // ---- data params sent in chunks ----------------------------------------

  async function assemblerFor(tx: Queryable, paramId: string, stored: number): Promise<ChunkAssembler> {
    const hit = assemblers.get(paramId);
    if (hit && hit.next === stored) {
      assemblers.delete(paramId);
      assemblers.set(paramId, hit);
      return hit.assembler;
    }
    // Cold or stale (another replica took chunks): replay what is stored.
    const assembler = createChunkAssembler(deps.chunks);
    const r = await tx.query<{ seq: number; data: string }>('SELECT seq, data FROM execution.data_chunks WHERE param_id = $1 ORDER BY seq', [paramId]);
    for (const c of r.rows) assembler.add({ param_id: paramId, seq: Number(c.seq), data: c.data, finished: false });
    assemblers.set(paramId, { assembler, next: r.rows.length });
    while (assemblers.size > 1000) assemblers.delete(assemblers.keys().next().value as string);
    return assembler;
  }

  async function uploadChunk(req: { send_from?: unknown; param?: unknown; chunk?: unknown; task_id?: unknown }) {
    const sendFrom = agentName(req.send_from, 'params.send_from');
    const taskId = req.task_id === undefined ? undefined : taskIdOf(req.task_id, 'params.task_id');
    if (typeof req.chunk !== 'object' || req.chunk === null) throw new ParleyError('invalid_params', 'params.chunk is required', { path: 'params.chunk', rule: 'required' });
    const chunk = plain(req.chunk as object) as { param_id?: unknown; seq?: unknown; data?: unknown; finished?: unknown };
    if (typeof chunk.param_id !== 'string' || chunk.param_id === '') {
      throw new ParleyError('invalid_params', 'params.chunk.param_id is required', { path: 'params.chunk.param_id', rule: 'required' });
    }
    const paramId = chunk.param_id;
    let param: DataParam | undefined;
    if (chunk.seq === 0) {
      if (req.param === undefined) {
        throw new ParleyError('invalid_params', 'params.param is required with the first chunk (seq 0): it describes the data', { path: 'params.param', rule: 'required' });
      }
      param = parseDataParam({ chunked: true, ...plain(req.param as object) }, 'params.param');
      if (param.id !== paramId) {
        throw new ParleyError('invalid_params', `params.param.id ${JSON.stringify(param.id)} differs from params.chunk.param_id ${JSON.stringify(paramId)}`, {
          path: 'params.param.id',
          rule: 'param_id_match',
        });
      }
      if (param.chunked !== true) throw new ParleyError('invalid_params', 'params.param.chunked must be true for chunked data', { path: 'params.param.chunked', rule: 'chunked' });
    }
    try {
      return await db.transaction(async (tx) => {
        await lockTask(tx, `data:${paramId}`);
        const r = await tx.query<{ owner: string; chunked: boolean; finished: boolean; data_size: string | number | null }>(
          'SELECT owner, chunked, finished, data_size FROM execution.data_params WHERE id = $1',
          [paramId],
        );
        const row = r.rows[0];
        if (row && (!row.chunked || row.owner !== sendFrom)) {
          if (row.owner !== sendFrom) throw forbidden('params.chunk.param_id', 'data_owner', `Data param ${JSON.stringify(paramId)} belongs to another agent`);
          throw new ParleyError('invalid_params', `Data param ${JSON.stringify(paramId)} exists and is not chunked`, { path: 'params.chunk.param_id', rule: 'unique' });
        }
        if (row?.finished) {
          throw new ParleyError('invalid_params', `chunk ${String(chunk.seq)} of ${paramId} arrived after its last chunk`, {
            path: 'params.chunk.seq',
            rule: 'chunk_after_finished',
            details: { param_id: paramId },
          });
        }
        const count = Number((await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.data_chunks WHERE param_id = $1', [paramId])).rows[0]?.n ?? 0);
        const assembler = await assemblerFor(tx, paramId, count);
        let result;
        try {
          result = assembler.add(chunk as never);
        } catch (e) {
          throw rebase(e);
        }
        const entry = assemblers.get(paramId);
        if (entry) entry.next = count + 1;
        if (!row) {
          const d = param as DataParam;
          await tx.query(
            `INSERT INTO execution.data_params (id, owner, task_id, data_type, description, data_size, format, url, data, chunked, finished, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, true, false, $9)`,
            [d.id, sendFrom, taskId ?? null, d.data_type, d.description ?? null, d.data_size ?? null, d.format ?? null, d.url ?? null, now()],
          );
        }
        const declared = row?.data_size ?? param?.data_size;
        if (result.complete) {
          if (declared !== undefined && declared !== null && Number(declared) !== result.bytes) {
            throw new ParleyError('invalid_params', `${paramId} assembled to ${result.bytes} bytes; its data_size says ${String(declared)}`, {
              path: 'params.chunk.finished',
              rule: 'data_size',
              details: { bytes: result.bytes, data_size: Number(declared) },
            });
          }
          await tx.query('UPDATE execution.data_params SET data = $2, data_size = $3, finished = true WHERE id = $1', [paramId, result.data, result.bytes]);
          await tx.query('DELETE FROM execution.data_chunks WHERE param_id = $1', [paramId]);
          assemblers.delete(paramId);
          return { param_id: paramId, received: count + 1, finished: true, data_size: result.bytes };
        }
        await tx.query('INSERT INTO execution.data_chunks (param_id, seq, data) VALUES ($1, $2, $3)', [paramId, chunk.seq, chunk.data]);
        return { param_id: paramId, received: count + 1, finished: false };
      });
    } catch (e) {
      // The assembler may have taken a chunk the database did not: rebuild it next time.
      assemblers.delete(paramId);
      throw e;
    }
  }

  // ---- NATS messages from agents ----------------------------------------

  async function readData(m: { task_id: string; param_id: string; send_from: string; offset: number; length?: number }): Promise<{ data: string; total: number }> {
    const task = await requireTask(db, taskIdOf(m.task_id, 'message.task_id'), 'message.task_id');
    if (m.send_from !== task.send_to && m.send_from !== task.send_from) throw forbidden('message.send_from', 'task_party', `${String(m.send_from)} is not a party of task ${task.task_id}`);
    const offset = Number.isSafeInteger(m.offset) && m.offset >= 0 ? m.offset : 0;
    const length = Math.min(MAX_DATA_SLICE, Number.isSafeInteger(m.length) && (m.length as number) > 0 ? (m.length as number) : MAX_DATA_SLICE);
    const r = await db.query<{ data: string | null; total: number }>(
      'SELECT substr(data, $3, $4) AS data, coalesce(length(data), 0)::int AS total FROM execution.data_params WHERE id = $1 AND task_id = $2',
      [m.param_id, task.task_id, offset + 1, length],
    );
    const row = r.rows[0];
    if (!row) throw new ParleyError('invalid_params', `Task ${task.task_id} has no data param ${JSON.stringify(m.param_id)}`, { path: 'message.param_id', rule: 'exists' });
    return { data: row.data ?? '', total: Number(row.total) };
  }

  async function fromAgent(body: Uint8Array): Promise<Uint8Array> {
    let reply: ServiceReply;
    try {
      const m = decodeFromAgent(body);
      let result: unknown;
      if (m.kind === 'notify') {
        const r = await notify(m.params);
        result = { notification: r.notification, task: toWireTask(r.task) };
      } else if (m.kind === 'negotiate') {
        if (m.type !== 'FEASIBILITY' && m.type !== 'FULFILLMENT') {
          throw new ParleyError('invalid_params', 'message.type must be FEASIBILITY or FULFILLMENT', { path: 'message.type', rule: 'enum' });
        }
        result = await negotiate(m.type, m.params);
      } else {
        result = await readData(m);
      }
      reply = { ok: true, result };
    } catch (e) {
      const err = toParleyError(e);
      if (err.type === 'internal') log.error('agent message failed', { error: e });
      reply = { ok: false, error: err.toJSON() };
    }
    return encodeWire(reply);
  }

  // ---- the gRPC face --------------------------------------------------------

  const api: TaskApi = {
    async capabilityRequest(req) {
      const p = parseCapabilityRequest(plain(req, ['skills']));
      if (deps.profiles) {
        try {
          const r = await deps.profiles.getProfile({ name: p.send_to });
          if (r.profile) return { profile: toWireProfile(r.profile, p.skills), source: 'registry' };
        } catch (e) {
          log.debug('registry has no profile; asking the agent', { agent: p.send_to, error: e });
        }
      }
      const raw = await bus.request(subjects.task(p.send_to), encodeWire({ kind: 'capability', send_from: p.send_from, ...(p.skills ? { skills: p.skills } : {}) }), {
        timeoutMs: deps.timeoutMs,
      });
      const reply = decodeAgentReply(raw, p.send_to);
      if (reply.ok !== true) throw new ParleyError('agent_error', `Agent ${p.send_to} did not describe itself: ${agentFailure(reply.error).message}`, { details: { agent: p.send_to } });
      let profile: AgentProfile;
      try {
        profile = parseAgentProfile(reply.profile, 'reply.profile');
      } catch (e) {
        const err = toParleyError(e);
        throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered with an invalid profile: ${err.message}`, { path: err.path, rule: err.rule });
      }
      if (profile.name !== p.send_to) {
        throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered with the profile of ${profile.name}`, { path: 'reply.profile.name', rule: 'name_match' });
      }
      return { profile: toWireProfile(profile, p.skills), source: 'agent' };
    },

    async taskAssign(req) {
      const r = await taskAssign(plain(req, ['term_explains', 'msg_data', 'data_params']));
      return { task: toWireTask(r.task), ...(r.subscription_id ? { subscription_id: r.subscription_id } : {}), ...(r.webhook_secret ? { webhook_secret: r.webhook_secret } : {}) };
    },

    async taskCancel(req) {
      const p = parseTaskCancel(plain(req));
      const task = await change(p.task_id, async (tx) => {
        const cur = await requireTask(tx, p.task_id);
        if (cur.send_from !== p.send_from) throw forbidden('params.send_from', 'task_sender', `Only the task's sender (${cur.send_from}) may cancel task ${cur.task_id}`);
        assertTransition(cur.status, 'canceled', 'params.task_id');
        const at = now();
        await appendMessage(tx, { task_id: cur.task_id, send_from: p.send_from, send_to: cur.send_to, commu_type: 'taskCancel', request: { content: clip(p.reason ?? 'cancel') }, time: at });
        return (await transition(tx, subjects, cur, { from: cur.status, to: 'canceled', at, path: 'params.task_id' })).task;
      });
      // Best effort: the executing agent stops working on it (the task is canceled whatever it answers).
      void bus
        .request(subjects.task(task.send_to), encodeWire({ kind: 'cancel', task_id: task.task_id, send_from: p.send_from, ...(p.reason ? { reason: p.reason } : {}) }), {
          timeoutMs: Math.min(deps.timeoutMs, 2000),
        })
        .catch(() => {});
      return { task: toWireTask(task) };
    },

    feasibilityNegotiate: (req) => negotiate('FEASIBILITY', plain(req, ['reply'])),
    fulfillmentNegotiate: (req) => negotiate('FULFILLMENT', plain(req, ['reply'])),

    async taskResultQuery(req) {
      const p = parseResultQuery(plain(req));
      const r = await change(p.task_id, async (tx) => {
        const cur = await requireTask(tx, p.task_id);
        await appendMessage(tx, {
          task_id: cur.task_id,
          send_from: p.send_from,
          send_to: p.send_from === cur.send_to ? cur.send_from : cur.send_to,
          commu_type: 'taskResultQuery',
          request: { content: 'task result query' },
          response: { content: clip(cur.result ? `${cur.status}: ${JSON.stringify(cur.result)}` : cur.status) },
          time: now(),
        });
        return { task: cur, latest: await latestNotification(tx, cur.task_id) };
      });
      return { task: toWireTask(r.task), ...(r.latest ? { latest: toWireNotification(r.latest) } : {}) };
    },

    async *taskResultSubscribe(req, ctx) {
      const p = parseSubscribe({ ...plain(req), subscription: { protocol: 'grpc' } });
      await requireTask(db, p.task_id);
      let cursor = p.after_seq ?? 0;
      const signal = ctx?.signal;
      while (!signal?.aborted) {
        // Registered before reading, so a change committed in between is not slept through.
        const woken = deps.feed.wait(p.task_id, signal);
        const batch = await listNotifications(db, p.task_id, cursor, 100);
        for (const n of batch) {
          if (signal?.aborted) return;
          yield toWireNotification(n);
          cursor = n.seq;
        }
        if (batch.length > 0) continue;
        const t = await loadTask(db, p.task_id);
        // The task ended and everything was sent: the stream is complete.
        if (!t || (isTerminal(t.status) && cursor >= t.last_seq)) return;
        await woken;
      }
    },

    async registerTaskSubscription(req) {
      const p = parseSubscribe(plain(req));
      if (p.subscription.protocol === 'grpc') {
        throw new ParleyError('invalid_params', 'gRPC subscriptions are streams: call TaskResultSubscribe with after_seq instead', {
          path: 'params.subscription.protocol',
          rule: 'use_stream',
        });
      }
      const sub = p.subscription;
      assertWebhookAllowed(sub);
      const cursor = p.after_seq ?? 0;
      const registered = await change(p.task_id, async (tx) => {
        const cur = await requireTask(tx, p.task_id);
        const at = now();
        const subId = await insertSubscription(tx, cur.task_id, p.send_from, sub, cursor, at);
        if (sub.protocol === 'nats') {
          // What happened before the subscription, after its cursor, goes to the new subscriber's subject too.
          const missed = await listNotifications(tx, cur.task_id, cursor, 10_000);
          const events = missed.flatMap((n) => statusEvents(n, [p.send_from]));
          if (events.length > 0) {
            const ob = outboxInsert('execution', subjects, events, 1);
            await tx.query(ob.sql, ob.params);
          }
        }
        await appendMessage(tx, {
          task_id: cur.task_id,
          send_from: p.send_from,
          send_to: p.send_from === cur.send_to ? cur.send_from : cur.send_to,
          commu_type: 'taskResultSubscribe',
          request: { content: clip(sub.protocol === 'webhook' ? `webhook ${sub.method ?? 'POST'} ${sub.url ?? ''}` : `nats ${subjects.taskStatus(p.send_from)}`) },
          time: at,
        });
        return subId;
      });
      return {
        subscription_id: registered.id,
        protocol: sub.protocol,
        cursor,
        ...(sub.protocol === 'nats' ? { subject: subjects.taskStatus(p.send_from) } : {}),
        ...(registered.secret ? { webhook_secret: registered.secret } : {}),
      };
    },

    async taskResultNotify(req) {
      const r = await notify(plain(req));
      return { notification: toWireNotification(r.notification), task: toWireTask(r.task) };
    },

    async taskContext(req) {
      const taskId = taskIdOf(req.task_id, 'params.task_id');
      const after = req.after_seq ?? 0;
      const limit = Math.min(MAX_CONTEXT_PAGE, req.limit && req.limit > 0 ? req.limit : MAX_CONTEXT_PAGE);
      const messages = await listMessages(db, taskId, after, limit);
      if (messages.length === 0 && after === 0 && !(await loadTask(db, taskId))) throw taskNotFound(taskId);
      return { messages: messages.map(toWireMessage) };
    },

    async uploadChunk(req) {
      return uploadChunk(req);
    },
  };

  return { api, fromAgent };
}

function samePair(a: readonly string[], b: readonly string[]): boolean {
  return (a[0] === b[0] && a[1] === b[1]) || (a[0] === b[1] && a[1] === b[0]);
}

/** The assembler names paths from `chunk`; over the API the chunk is `params.chunk`. */
function rebase(e: unknown): unknown {
  if (!(e instanceof ParleyError) || !e.path.startsWith('chunk')) return e;
  return new ParleyError(e.type, e.message, { path: `params.${e.path}`, rule: e.rule, details: e.details });
}
