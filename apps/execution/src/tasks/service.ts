import type { TaskApi } from '@parley/contracts';
import { ParleyError, toParleyError } from '@parley/protocol';
import { taskAssign } from './assign';
import { capabilityRequest } from './capability';
import { createTaskCtx, plain, type TaskServiceDeps } from './context';
import { readData, uploadChunk } from './data-params';
import { negotiate } from './negotiate';
import { notify, taskCancel, taskContext, taskResultQuery } from './status';
import { registerTaskSubscription, taskResultSubscribe } from './subscriptions';
import { toWireNotification, toWireTask } from './to-wire';
import { decodeFromAgent, encodeWire, type ServiceReply } from './wire';

export { toWireNotification, toWireTask } from './to-wire';
export type { TaskServiceDeps } from './context';

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
 *
 * The units: context.ts (dependencies, clock, the per-task transaction),
 * store.ts and data-store.ts (SQL of tasks, notifications, context,
 * negotiations, data params), assign.ts,
 * data-params.ts, negotiate.ts, status.ts (notify, cancel, query, context),
 * subscriptions.ts, capability.ts; to-wire.ts maps the model to gRPC messages.
 */
export interface TaskService {
  api: TaskApi;
  /** Handles one message an agent sent on `subjects.taskService()` (notify, negotiate, data); never throws. */
  fromAgent(body: Uint8Array): Promise<Uint8Array>;
}

export function createTaskService(deps: TaskServiceDeps): TaskService {
  const c = createTaskCtx(deps);

  async function fromAgent(body: Uint8Array): Promise<Uint8Array> {
    let reply: ServiceReply;
    try {
      const m = decodeFromAgent(body);
      let result: unknown;
      if (m.kind === 'notify') {
        const r = await notify(c, m.params);
        result = { notification: r.notification, task: toWireTask(r.task) };
      } else if (m.kind === 'negotiate') {
        if (m.type !== 'FEASIBILITY' && m.type !== 'FULFILLMENT') {
          throw new ParleyError('invalid_params', 'message.type must be FEASIBILITY or FULFILLMENT', { path: 'message.type', rule: 'enum' });
        }
        result = await negotiate(c, m.type, m.params);
      } else {
        result = await readData(c, m);
      }
      reply = { ok: true, result };
    } catch (e) {
      const err = toParleyError(e);
      if (err.type === 'internal') c.log.error('agent message failed', { error: e });
      reply = { ok: false, error: err.toJSON() };
    }
    return encodeWire(reply);
  }

  const api: TaskApi = {
    capabilityRequest: (req) => capabilityRequest(c, req),
    async taskAssign(req) {
      const r = await taskAssign(c, plain(req, ['term_explains', 'msg_data', 'data_params']));
      return { task: toWireTask(r.task), ...(r.subscription_id ? { subscription_id: r.subscription_id } : {}), ...(r.webhook_secret ? { webhook_secret: r.webhook_secret } : {}) };
    },
    taskCancel: (req) => taskCancel(c, req),
    feasibilityNegotiate: (req) => negotiate(c, 'FEASIBILITY', plain(req, ['reply'])),
    fulfillmentNegotiate: (req) => negotiate(c, 'FULFILLMENT', plain(req, ['reply'])),
    taskResultQuery: (req) => taskResultQuery(c, req),
    taskResultSubscribe: (req, ctx) => taskResultSubscribe(c, req, ctx),
    registerTaskSubscription: (req) => registerTaskSubscription(c, req),
    async taskResultNotify(req) {
      const r = await notify(c, plain(req));
      return { notification: toWireNotification(r.notification), task: toWireTask(r.task) };
    },
    taskContext: (req) => taskContext(c, req),
    uploadChunk: (req) => uploadChunk(c, req),
  };

  return { api, fromAgent };
}
