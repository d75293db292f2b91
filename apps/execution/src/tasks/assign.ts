import { randomUUID } from 'node:crypto';
import { isTerminal, parseTaskAssign, type Task, type TaskAssignParams, type TaskState } from '@parley/an';
import { templateFromWire } from '@parley/contracts';
import { ParleyError, compilePayloadValidator, toParleyError } from '@parley/protocol';
import { forbidden, samePair, type TaskCtx } from './context';
import { assertWebhookAllowed, insertSubscription } from './subscriptions';
import { storeDataParams, wireTaskOf } from './data-params';
import { appendMessage, clip, insertTask, loadNegotiation, loadTask, requireTask, transition, type StoredTask } from './store';
import { agentFailure, decodeAgentReply, encodeWire } from './wire';

// TaskAssign (draft 004 §5.2): validate (a structured payload by its negotiated schema, §4.4), store,
// dispatch to the executing agent, apply its answer.

export async function validatePayload(c: TaskCtx, p: TaskAssignParams): Promise<{ payload: Record<string, unknown>; schema_id: string; scenario: string } | undefined> {
  if (!p.payload) return undefined;
  let template;
  let schema;
  let etag: string;
  if (p.schema_id !== undefined) {
    const ask = (agent?: string) =>
      c.deps.negotiation.getSchema({ schema_id: p.schema_id as string, client_id: p.send_from, ...(agent !== undefined ? { agent } : {}) });
    const r = await ask().catch((e: unknown) => {
      if (e instanceof ParleyError && e.type === 'ambiguous_agent') return ask(p.send_to);
      throw e;
    });
    ({ template, schema, etag } = r);
  } else {
    const r = await c.deps.negotiation.getSchemaTemplate({ scenario: p.scenario as string, preferred_language: '', client_id: p.send_from });
    ({ template, schema, etag } = r);
  }
  if (!template || !schema) throw new ParleyError('internal', 'Negotiation returned no template');
  const key = `${schema.agent}/${schema.schema_id}@${etag}`;
  let v = c.validators.get(key);
  if (!v) {
    v = compilePayloadValidator(templateFromWire(template));
    c.validators.set(key, v);
    while (c.validators.size > 200) c.validators.delete(c.validators.keys().next().value as string);
  }
  return { payload: v.validate(p.payload).payload as Record<string, unknown>, schema_id: schema.schema_id, scenario: schema.scenario_id };
}

export async function taskAssign(c: TaskCtx, input: unknown): Promise<{ task: StoredTask; subscription_id?: string; webhook_secret?: string }> {
  const p = parseTaskAssign(input);
  if (p.subscription) assertWebhookAllowed(c, p.subscription);
  const structured = await validatePayload(c, p);
  // An agent nobody serves is refused before anything is stored: bad input changes nothing.
  await probeExecutor(c, p.send_to);
  const at = c.now();
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
  const created = await c.change(taskId, async (tx) => {
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
    return (await transition(tx, c.subjects, { ...task, last_seq: 0 }, { from: null, to: 'created', at })).task;
  });
  return {
    task: await dispatch(c, created),
    ...(registered ? { subscription_id: registered.id } : {}),
    ...(registered?.secret ? { webhook_secret: registered.secret } : {}),
  };
}

/**
 * Whether any agent serves tasks as `agent`: a `ping` on its task subject. Any
 * answer counts (an agent on an older SDK answers an unknown kind with an
 * error); no responder or no answer is agent_unavailable naming params.send_to.
 */
export async function probeExecutor(c: TaskCtx, agent: string): Promise<void> {
  try {
    await c.bus.request(c.subjects.task(agent), encodeWire({ kind: 'ping' }), { timeoutMs: Math.min(c.deps.timeoutMs, 2000) });
  } catch (e) {
    const err = toParleyError(e);
    if (err.type !== 'agent_unavailable' && err.type !== 'agent_timeout') throw err;
    throw new ParleyError('agent_unavailable', `No agent serves tasks as ${JSON.stringify(agent)}`, { path: 'params.send_to', rule: 'listening', details: { agent }, cause: e });
  }
}

/** Sends the task to its executing agent and applies the answer. */
export async function dispatch(c: TaskCtx, task: StoredTask): Promise<StoredTask> {
  let reply: Record<string, unknown>;
  try {
    const raw = await c.bus.request(c.subjects.task(task.send_to), encodeWire({ kind: 'assign', task: await wireTaskOf(c, task) }), { timeoutMs: c.deps.timeoutMs });
    reply = decodeAgentReply(raw, task.send_to);
  } catch (e) {
    throw await failDispatch(c, task, toParleyError(e));
  }
  type Outcome = { to: TaskState; result?: Record<string, unknown>; say: string; accepted?: true };
  let outcome: Outcome;
  if (reply.ok === false) {
    const error = agentFailure(reply.error);
    outcome = { to: 'failed', result: { error }, say: `failed: ${error.message}` };
  } else if (reply.accepted === true && task.task_async) {
    const status = reply.status ?? 'created';
    if (status !== 'created' && status !== 'processing') {
      throw await failDispatch(c, task, new ParleyError('agent_response_invalid', `Agent ${task.send_to} accepted the task with status ${JSON.stringify(status)}; created or processing expected`, { path: 'reply.status', rule: 'enum' }));
    }
    outcome = { to: status, say: `accepted (${status})`, accepted: true };
  } else if (typeof reply.result === 'object' && reply.result !== null && !Array.isArray(reply.result)) {
    outcome = { to: 'finished', result: reply.result as Record<string, unknown>, say: `finished: ${JSON.stringify(reply.result)}` };
  } else {
    const why = reply.accepted === true ? 'accepted a synchronous task instead of answering with its result' : 'answered without a result object';
    throw await failDispatch(c, task, new ParleyError('agent_response_invalid', `Agent ${task.send_to} ${why}`, { path: 'reply.result', rule: 'required' }));
  }
  return c.change(task.task_id, async (tx) => {
    let cur = await requireTask(tx, task.task_id);
    const at = c.now();
    await appendMessage(tx, { task_id: cur.task_id, send_from: cur.send_to, send_to: cur.send_from, commu_type: 'taskResultNotify', response: { content: clip(outcome.say) }, time: at });
    // Canceled (or reported terminal by the agent) meanwhile: the late answer stays in the context only.
    if (isTerminal(cur.status) || cur.status === outcome.to) return cur;
    // An accepting agent may report its next state before this answer is recorded
    // (it works on at once); its report wins and the acceptance changes nothing.
    if (outcome.accepted && cur.status !== 'created') return cur;
    // Sync tasks go through processing (created → processing → finished | failed); async refusals fail at once.
    const viaProcessing = outcome.to === 'finished' || (outcome.to === 'failed' && !cur.task_async);
    if (viaProcessing && cur.status !== 'processing') cur = (await transition(tx, c.subjects, cur, { from: cur.status, to: 'processing', at })).task;
    return (await transition(tx, c.subjects, cur, { from: cur.status, to: outcome.to, at, ...(outcome.result ? { result: outcome.result } : {}) })).task;
  });
}

/** The task could not be handed over: it fails (the error as its result) and the call answers the error. */
export async function failDispatch(c: TaskCtx, task: StoredTask, err: ParleyError): Promise<ParleyError> {
  try {
    await c.change(task.task_id, async (tx) => {
      const cur = await requireTask(tx, task.task_id);
      if (isTerminal(cur.status)) return;
      await transition(tx, c.subjects, cur, { from: cur.status, to: 'failed', at: c.now(), result: { error: { type: err.type, message: err.message } } });
    });
  } catch (e) {
    c.log.error('could not record the failed dispatch of a task', { task_id: task.task_id, error: e });
  }
  return new ParleyError(err.type, err.message, {
    ...(err.path ? { path: err.path } : {}),
    ...(err.rule ? { rule: err.rule } : {}),
    details: { ...err.details, task_id: task.task_id },
    cause: err,
  });
}
