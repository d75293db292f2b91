/**
 * Task context (AN draft 004 §5.2 `context`): every message of a task's
 * conversation, kept in order so agents do not lose the original objective
 * or forget what was said. `appendContext` is pure: it returns a new list.
 */
import { COMMU_TYPES, type ContextMessage } from './model';
import { Checker, isTimestamp } from './check';

const check: Checker = new Checker('invalid_params');

const MEMBERS = ['task_id', 'send_from', 'send_to', 'commu_type', 'request', 'response', 'time'] as const;
const INFO_MEMBERS = ['content', 'data_params'] as const;

function info(v: unknown, path: string): { content?: string; data_params?: string[] } | undefined {
  if (v === undefined) return undefined;
  const o = check.object(v, path);
  check.members(o, INFO_MEMBERS, path);
  const out: { content?: string; data_params?: string[] } = {};
  if (o.content !== undefined) out.content = check.text(o.content, `${path}.content`);
  if (o.data_params !== undefined) out.data_params = check.stringList(o.data_params, `${path}.data_params`, { maxLength: 128 }, 256);
  return out;
}

/**
 * Appends `msg` to a task's context with the next seq (1, 2, …). Throws
 * ParleyError `invalid_params`: rule `context_order` when the message belongs
 * to another task (path `message.task_id`) or its time is before the last
 * message's (path `message.time`; equal times are in order); shape rules
 * (`required`, `name_format`, `enum`, `timestamp`, …) for a malformed message.
 */
export function appendContext(history: readonly ContextMessage[], msg: Omit<ContextMessage, 'seq'>, path = 'message'): ContextMessage[] {
  const o = check.object(msg, path);
  check.members(o, MEMBERS, path);
  const task_id = check.taskId(o.task_id, `${path}.task_id`);
  const last = history.at(-1);
  if (last && task_id !== last.task_id) {
    check.fail(`${path}.task_id`, 'context_order', `${path}.task_id ${JSON.stringify(task_id)} is not the task of this context (${last.task_id})`, {
      expected: last.task_id,
      got: task_id,
    });
  }
  const time = check.timestamp(o.time, `${path}.time`);
  if (last && isTimestamp(last.time) && Date.parse(time) < Date.parse(last.time)) {
    check.fail(`${path}.time`, 'context_order', `${path}.time ${time} is before the last message's (${last.time}, seq ${last.seq})`, {
      last_time: last.time,
      last_seq: last.seq,
    });
  }
  const entry: { -readonly [K in keyof ContextMessage]: ContextMessage[K] } = {
    task_id,
    seq: (last?.seq ?? 0) + 1,
    send_from: check.agentName(o.send_from, `${path}.send_from`),
    send_to: check.agentName(o.send_to, `${path}.send_to`),
    commu_type: check.oneOf(o.commu_type, COMMU_TYPES, `${path}.commu_type`),
    time,
  };
  const request = info(o.request, `${path}.request`);
  const response = info(o.response, `${path}.response`);
  if (request) entry.request = request;
  if (response) entry.response = response;
  return [...history, entry];
}
