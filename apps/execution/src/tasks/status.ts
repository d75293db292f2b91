import { assertTransition, canTransition, parseNotify, parseTaskCancel, parseResultQuery, type TaskNotification } from '@parley/an';
import type { TaskApi } from '@parley/contracts';
import { MAX_CONTEXT_PAGE, forbidden, plain, taskIdOf, type TaskCtx } from './context';
import { toWireMessage, toWireNotification, toWireTask } from './to-wire';
import { appendMessage, clip, latestNotification, listMessages, taskNotFound, loadTask, requireTask, transition, type StoredTask } from './store';
import { encodeWire } from './wire';

// Task status (draft 004 §5.4 TaskResultNotify; §5.2 taskCancel, TaskResultQuery and the task context):
// every change goes through assertTransition and is stored with its notification (store.ts transition).

export async function notify(c: TaskCtx, input: unknown): Promise<{ notification: TaskNotification; task: StoredTask }> {
  const p = parseNotify(input);
  return c.change(p.task_id, async (tx) => {
    const cur = await requireTask(tx, p.task_id);
    if (cur.send_to !== p.send_from) {
      throw forbidden('params.send_from', 'task_executor', `Only the executing agent (${cur.send_to}) reports the status of task ${cur.task_id}`);
    }
    const at = c.now();
    let from = cur;
    // A report on an async task whose acceptance is still on its way back to us: the
    // report itself says the agent took the task, so created → processing happens first
    // (only when the report is legal from processing and not from created).
    if (cur.status === 'created' && cur.task_async && !canTransition('created', p.status) && canTransition('processing', p.status)) {
      from = (await transition(tx, c.subjects, cur, { from: 'created', to: 'processing', at })).task;
    }
    assertTransition(from.status, p.status, 'params.status');
    const say = [p.status, p.required, p.result ? JSON.stringify(p.result) : undefined].filter((x) => x !== undefined).join(': ');
    await appendMessage(tx, { task_id: cur.task_id, send_from: p.send_from, send_to: cur.send_from, commu_type: 'taskResultNotify', response: { content: clip(say) }, time: at });
    return transition(tx, c.subjects, from, {
      from: from.status,
      to: p.status,
      at,
      ...(p.required !== undefined ? { required: p.required } : {}),
      ...(p.result ? { result: p.result } : {}),
    });
  });
}

export async function taskCancel(c: TaskCtx, req: Parameters<TaskApi['taskCancel']>[0]) {
  const p = parseTaskCancel(plain(req));
  const task = await c.change(p.task_id, async (tx) => {
    const cur = await requireTask(tx, p.task_id);
    if (cur.send_from !== p.send_from) throw forbidden('params.send_from', 'task_sender', `Only the task's sender (${cur.send_from}) may cancel task ${cur.task_id}`);
    assertTransition(cur.status, 'canceled', 'params.task_id');
    const at = c.now();
    await appendMessage(tx, { task_id: cur.task_id, send_from: p.send_from, send_to: cur.send_to, commu_type: 'taskCancel', request: { content: clip(p.reason ?? 'cancel') }, time: at });
    return (await transition(tx, c.subjects, cur, { from: cur.status, to: 'canceled', at, path: 'params.task_id' })).task;
  });
  // Best effort: the executing agent stops working on it (the task is canceled whatever it answers).
  void c.bus
    .request(c.subjects.task(task.send_to), encodeWire({ kind: 'cancel', task_id: task.task_id, send_from: p.send_from, ...(p.reason ? { reason: p.reason } : {}) }), {
      timeoutMs: Math.min(c.deps.timeoutMs, 2000),
    })
    .catch(() => {});
  return { task: toWireTask(task) };
}

export async function taskResultQuery(c: TaskCtx, req: Parameters<TaskApi['taskResultQuery']>[0]) {
  const p = parseResultQuery(plain(req));
  const r = await c.change(p.task_id, async (tx) => {
    const cur = await requireTask(tx, p.task_id);
    await appendMessage(tx, {
      task_id: cur.task_id,
      send_from: p.send_from,
      send_to: p.send_from === cur.send_to ? cur.send_from : cur.send_to,
      commu_type: 'taskResultQuery',
      request: { content: 'task result query' },
      response: { content: clip(cur.result ? `${cur.status}: ${JSON.stringify(cur.result)}` : cur.status) },
      time: c.now(),
    });
    return { task: cur, latest: await latestNotification(tx, cur.task_id) };
  });
  return { task: toWireTask(r.task), ...(r.latest ? { latest: toWireNotification(r.latest) } : {}) };
}

export async function taskContext(c: TaskCtx, req: Parameters<TaskApi['taskContext']>[0]) {
  const taskId = taskIdOf(req.task_id, 'params.task_id');
  const after = req.after_seq ?? 0;
  const limit = Math.min(MAX_CONTEXT_PAGE, req.limit && req.limit > 0 ? req.limit : MAX_CONTEXT_PAGE);
  const messages = await listMessages(c.db, taskId, after, limit);
  if (messages.length === 0 && after === 0 && !(await loadTask(c.db, taskId))) throw taskNotFound(taskId);
  return { messages: messages.map(toWireMessage) };
}
