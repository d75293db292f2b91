import { hasRole, ownsAgent, withClientId, type Principal } from '@parley/auth';
import type { ExecutionServiceService, Guards, TaskServiceService } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import type { Queryable } from '@parley/storage';
import { loadTask, taskNotFound } from './tasks/store';

/**
 * Execution's guards (draft-zhou §7 authorization; roles are in libs/auth POLICY).
 *
 * `execute` runs for the caller's own client id: the execution metrics, the
 * `other` fragments the pool counts distinct clients by (draft-zhou §6.2.1) and
 * the per-client patches a payload is validated against (§6.2.2) all belong to
 * the authenticated principal.
 *
 * AN tasks (draft 004 §5.2): `send_from` names the calling agent, and must be
 * the caller: its principal id or an agent in its namespace. A task is visible
 * to its two parties (and to operators) only: reading it (TaskResultQuery,
 * TaskContext) and following it (TaskResultSubscribe, RegisterTaskSubscription)
 * answer `task_not_found` to anyone else, so nothing about the task is revealed; the
 * task service itself keeps cancel, notify and negotiation to the right party.
 */
function actsAs(p: Principal, name: string): boolean {
  return hasRole(p, 'service') || p.id === name || ownsAgent(p, name);
}

function sendFrom<R extends { send_from: string }>(req: R, p: Principal): R {
  if (!actsAs(p, req.send_from)) {
    throw new ParleyError('forbidden', `params.send_from must be the caller (${p.id}) or an agent in its namespace`, {
      path: 'params.send_from',
      rule: 'send_from_is_principal',
    });
  }
  return req;
}

export const executionGuards: Guards<typeof ExecutionServiceService> = {
  // Always a client: a Parley service naming none is recorded as itself, never as an anonymous client.
  execute: (req, p) => {
    const r = withClientId(req, p);
    return r.client_id === undefined ? { ...r, client_id: p.id } : r;
  },
};

export function taskGuards(db: Queryable): Guards<typeof TaskServiceService> {
  /** The caller must be one of the task's parties; anyone else is told there is no such task. */
  const party = async <R extends { task_id: string; send_from?: string }>(req: R, p: Principal): Promise<R> => {
    if (req.send_from !== undefined) sendFrom({ ...req, send_from: req.send_from }, p);
    const t = await loadTask(db, req.task_id);
    const parties = t ? [t.send_from, t.send_to] : [];
    // Operators (and Parley's services) observe every task; anyone else must be one of its two parties.
    const isParty =
      hasRole(p, 'operator', 'service') || (req.send_from !== undefined ? parties.includes(req.send_from) : parties.some((name) => actsAs(p, name)));
    if (!t || !isParty) throw taskNotFound(req.task_id);
    return req;
  };
  return {
    capabilityRequest: sendFrom,
    taskAssign: sendFrom,
    taskCancel: sendFrom,
    feasibilityNegotiate: sendFrom,
    fulfillmentNegotiate: sendFrom,
    taskResultQuery: party,
    taskResultSubscribe: party,
    registerTaskSubscription: party,
    taskResultNotify: sendFrom,
    uploadChunk: sendFrom,
    taskContext: party,
  };
}
