/**
 * AN tasks for executing agents (draft 004 §4.2-4.5, §5.2-5.4): what
 * `agent.serveTasks`, `agent.notify`, `agent.negotiate` and `agent.readData`
 * speak over NATS. The JSON shapes mirror apps/execution/src/tasks/wire.ts
 * (the SDK may not import a service; apps/parley/test/an-tasks.test.ts runs
 * this SDK against the execution service and keeps the two in step).
 */
import type { AgentProfile, DataParam, NegotiationType, Task, TaskNotification, TaskState, Verdict } from '@parley/an';
import type { Bus, Stoppable, Subjects } from '@parley/events';
import { ParleyError, type JsonObject, type SerializedError } from '@parley/protocol';

/** A task as its executing agent receives it: the model's Task plus the data params msg_data names. */
export interface AssignedTask extends Task {
  /** `data` is absent, with `data_omitted`, when too large to travel with the task: `ctx.readData(id)` fetches it. */
  readonly data_params: readonly (DataParam & { readonly data_omitted?: boolean })[];
}

const ACCEPTED: unique symbol = Symbol('parley.task.accepted');

/** What `ctx.accept()` returns: the agent took an async task and will report with notify. */
export interface TaskAccepted {
  readonly [ACCEPTED]: true;
  readonly status: 'created' | 'processing';
}

/** A status change the executing agent reports (taskResultNotify, 5.4). */
export interface TaskUpdate {
  readonly status: TaskState;
  /** What the agent needs (status input-required). */
  readonly required?: string;
  readonly result?: JsonObject;
}

export interface TaskContext {
  readonly task: AssignedTask;
  /** Aborted when the task's sender cancels it. */
  readonly signal: AbortSignal;
  /**
   * Async tasks (task_async true): return `ctx.accept()` to acknowledge at once,
   * go on working, and report each change with `ctx.notify` (status
   * `processing` is reported for you when you accept with it).
   */
  accept(status?: 'created' | 'processing'): TaskAccepted;
  /** Reports a status change of this task (agent.notify for this task). */
  notify(update: TaskUpdate): Promise<TaskNotification>;
  /** The whole data of one of the task's data params, fetched in slices when it did not travel with the task. */
  readData(paramId: string): Promise<string>;
}

/**
 * Handles an assigned task. A synchronous task (task_async false) returns its
 * result (a JSON object): the task finishes with it. Throwing an AgentFailure
 * fails the task with its message and code. An async task may return
 * `ctx.accept()` and report later.
 */
export type TaskHandler = (task: AssignedTask, ctx: TaskContext) => Promise<JsonObject | TaskAccepted> | JsonObject | TaskAccepted;

/** A proposal the agent is asked to evaluate (5.3). */
export interface ProposalToEvaluate {
  readonly type: NegotiationType;
  readonly task_id: string;
  readonly round: number;
  readonly proposer: string;
  readonly proposal: readonly string[];
  /** The task, once assigned. */
  readonly task?: AssignedTask;
}

export interface VerdictReply {
  readonly verdict: Verdict;
  /** The counter-proposal (required with counter) or the reason. */
  readonly reply?: readonly string[];
}

export interface ServeTasksOptions {
  /** Evaluates FEASIBILITY / FULFILLMENT proposals; without it the proposer's round stays open for a later call. */
  negotiate?: (p: ProposalToEvaluate) => Promise<VerdictReply> | VerdictReply;
  /** Answers CapabilityRequest when the registry has no profile of this agent (5.1). */
  profile?: AgentProfile;
  /** Called when the sender cancels a task (after ctx.signal aborts). */
  onCancel?: (taskId: string, reason: string | undefined) => void;
  /** Called with anything a handler threw. */
  onError?: (e: unknown, taskId: string) => void;
}

/** A negotiation call by this agent (5.3): a proposal, or a verdict on the other party's open round. */
export interface NegotiationCall {
  readonly task_id?: string;
  readonly send_to: string;
  readonly content: readonly string[];
  readonly verdict?: Verdict;
  readonly reply?: readonly string[];
}

export interface NegotiationResult {
  readonly task_id: string;
  readonly type: NegotiationType;
  readonly outcome: 'open' | 'agreed' | 'rejected' | 'round_limit';
  readonly rounds: readonly { round: number; proposer: string; proposal: string[]; verdict?: Verdict; reply: string[]; at: string }[];
  readonly data?: JsonObject;
}

export interface TaskFailureInfo {
  message: string;
  code?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));

/** Tasks in progress and accepted async tasks, until they end: what a cancel aborts. */
const MAX_TRACKED = 10_000;

export function createTaskRuntime(opts: { name: string; bus: Bus; subjects: Subjects; timeoutMs?: number; failure: (e: unknown) => TaskFailureInfo }) {
  const { bus, subjects, name } = opts;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const running = new Map<string, AbortController>();

  async function call(message: unknown): Promise<unknown> {
    const raw = await bus.request(subjects.taskService(), encode(message), { timeoutMs });
    const reply = JSON.parse(decoder.decode(raw)) as { ok: boolean; result?: unknown; error?: SerializedError };
    if (!reply.ok) throw ParleyError.fromJSON(reply.error ?? { type: 'internal', message: 'no error in the reply' });
    return reply.result;
  }

  async function notify(taskId: string, update: TaskUpdate): Promise<TaskNotification> {
    const r = (await call({
      kind: 'notify',
      params: {
        task_id: taskId,
        send_from: name,
        status: update.status,
        ...(update.required !== undefined ? { required: update.required } : {}),
        ...(update.result !== undefined ? { result: update.result } : {}),
      },
    })) as { notification: TaskNotification };
    if (['finished', 'failed', 'canceled'].includes(update.status)) running.delete(taskId);
    return r.notification;
  }

  async function negotiate(type: NegotiationType, c: NegotiationCall): Promise<NegotiationResult> {
    return (await call({ kind: 'negotiate', type, params: { ...c, send_from: name } })) as NegotiationResult;
  }

  async function readData(taskId: string, paramId: string): Promise<string> {
    let out = '';
    // Offsets and totals count characters (code points), as the database does.
    let offset = 0;
    for (;;) {
      const r = (await call({ kind: 'data', task_id: taskId, param_id: paramId, send_from: name, offset })) as { data: string; total: number };
      out += r.data;
      offset += Array.from(r.data).length;
      if (r.data === '' || offset >= r.total) return out;
    }
  }

  async function handleAssign(task: AssignedTask, handler: TaskHandler, o: ServeTasksOptions): Promise<unknown> {
    const abort = new AbortController();
    running.set(task.task_id, abort);
    while (running.size > MAX_TRACKED) running.delete(running.keys().next().value as string);
    const ctx: TaskContext = {
      task,
      signal: abort.signal,
      accept: (status = 'processing') => ({ [ACCEPTED]: true, status }),
      notify: (update) => notify(task.task_id, update),
      readData: async (paramId) => {
        const p = task.data_params.find((d) => d.id === paramId);
        if (p && p.data !== undefined) return p.data;
        return readData(task.task_id, paramId);
      },
    };
    try {
      const out = await handler(task, ctx);
      if (typeof out === 'object' && out !== null && (out as Partial<TaskAccepted>)[ACCEPTED] === true) {
        if (!task.task_async) {
          running.delete(task.task_id);
          return { ok: false, error: { message: 'a synchronous task needs its result in the answer', code: 'bad_result' } };
        }
        return { ok: true, accepted: true, status: (out as TaskAccepted).status };
      }
      running.delete(task.task_id);
      if (typeof out !== 'object' || out === null || Array.isArray(out)) {
        return { ok: false, error: { message: 'handler returned a non-object result', code: 'bad_result' } };
      }
      return { ok: true, result: out };
    } catch (e) {
      running.delete(task.task_id);
      o.onError?.(e, task.task_id);
      return { ok: false, error: opts.failure(e) };
    }
  }

  async function serveTasks(handler: TaskHandler, o: ServeTasksOptions = {}): Promise<Stoppable> {
    return bus.serve(subjects.task(name), name, async (body) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(decoder.decode(body)) as Record<string, unknown>;
      } catch {
        return encode({ ok: false, error: { message: 'malformed task message', code: 'bad_request' } });
      }
      switch (m.kind) {
        case 'assign':
          return encode(await handleAssign(m.task as AssignedTask, handler, o));
        case 'cancel': {
          const id = String(m.task_id);
          running.get(id)?.abort(new Error('task canceled by its sender'));
          running.delete(id);
          o.onCancel?.(id, typeof m.reason === 'string' ? m.reason : undefined);
          return encode({ ok: true });
        }
        case 'negotiate': {
          if (!o.negotiate) return encode({ ok: false, error: { message: 'this agent evaluates proposals by calls, not here', code: 'not_supported' } });
          try {
            const v = await o.negotiate(m as unknown as ProposalToEvaluate);
            return encode({ ok: true, verdict: v.verdict, ...(v.reply ? { reply: v.reply } : {}) });
          } catch (e) {
            return encode({ ok: false, error: opts.failure(e) });
          }
        }
        case 'ping':
          // The execution service asks before it stores a task for this agent.
          return encode({ ok: true });
        case 'capability':
          if (!o.profile) return encode({ ok: false, error: { message: 'this agent publishes no profile', code: 'not_supported' } });
          return encode({ ok: true, profile: o.profile });
        default:
          return encode({ ok: false, error: { message: `unknown task message kind ${JSON.stringify(m.kind)}`, code: 'bad_request' } });
      }
    });
  }

  return { serveTasks, notify, negotiate, readData };
}
