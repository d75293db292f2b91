/**
 * The task state machine (AN draft 004 §5.4; §5.2 task-status). The draft
 * names created, processing, input-required, blocked, finished and failed and
 * gives create → processing, processing → blocking and processing → failed as
 * examples; canceled follows from taskCancel (§5.2 commuType). The rest is
 * Parley's reading:
 *
 *                    ┌──────────► input-required
 *                    │               │       ▲
 *                    │               ▼       │
 *   (start) ──► created ─────────► processing ─────► finished ■
 *                                    │     ▲
 *                                    ▼     │
 *                                    blocked
 *
 *   created | processing | input-required | blocked ──► failed ■
 *   created | processing | input-required | blocked ──► canceled ■
 *   (■ terminal)
 *
 *   created        → processing | input-required | failed | canceled
 *   processing     → input-required | blocked | finished | failed | canceled
 *   input-required → processing | failed | canceled
 *   blocked        → processing | failed | canceled
 *   finished, failed, canceled: terminal (no way out)
 *
 * Only processing may finish: a task needing input or blocked goes back to
 * processing first. A state never "transitions" to itself.
 */
import { ParleyError } from '@parley/protocol';
import { TASK_STATES, type TaskState } from './model';

export const TASK_TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  created: ['processing', 'input-required', 'failed', 'canceled'],
  processing: ['input-required', 'blocked', 'finished', 'failed', 'canceled'],
  'input-required': ['processing', 'failed', 'canceled'],
  blocked: ['processing', 'failed', 'canceled'],
  finished: [],
  failed: [],
  canceled: [],
};

function isTaskState(s: unknown): s is TaskState {
  return typeof s === 'string' && (TASK_STATES as readonly string[]).includes(s);
}

/** True for finished, failed and canceled: nothing follows them. */
export function isTerminal(s: TaskState): boolean {
  return isTaskState(s) && TASK_TRANSITIONS[s].length === 0;
}

/** True when `from → to` is a legal transition. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  return isTaskState(from) && isTaskState(to) && TASK_TRANSITIONS[from].includes(to);
}

/**
 * Throws ParleyError `illegal_transition` (rule `task_transition`, details
 * `{ from, to }`, naming `path`) unless `from → to` is legal, e.g. finishing
 * a canceled task.
 */
export function assertTransition(from: TaskState, to: TaskState, path = 'status'): void {
  if (canTransition(from, to)) return;
  const legal = isTaskState(from) ? TASK_TRANSITIONS[from] : [];
  const why = !isTaskState(from)
    ? `${JSON.stringify(from)} is not a task state`
    : !isTaskState(to)
      ? `${JSON.stringify(to)} is not a task state (one of ${TASK_STATES.join(', ')})`
      : legal.length === 0
        ? `the task is ${from}, a terminal state`
        : `from ${from} a task may go only to ${legal.join(', ')}`;
  throw new ParleyError('illegal_transition', `A task cannot go from ${String(from)} to ${String(to)}: ${why}`, {
    path,
    rule: 'task_transition',
    details: { from, to },
  });
}
