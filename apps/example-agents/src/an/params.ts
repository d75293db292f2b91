import { AgentFailure, type AssignedTask, type TaskContext } from '@parley/agent-sdk';

/** The JSON data params of a task (5.2 data-params with format application/json), parsed, in msg_data order. */
export async function jsonDataParams(task: AssignedTask, ctx: TaskContext): Promise<Array<{ id: string; value: unknown }>> {
  const out: Array<{ id: string; value: unknown }> = [];
  for (const p of task.data_params) {
    if (p.format !== 'application/json') continue;
    const text = await ctx.readData(p.id);
    try {
      out.push({ id: p.id, value: JSON.parse(text) as unknown });
    } catch {
      throw new AgentFailure(`data param ${p.id} is not JSON`, 'bad_data_param');
    }
  }
  return out;
}

/** The first JSON data param that passes `is`, or an AgentFailure naming what was expected. */
export function pick<T>(params: Array<{ id: string; value: unknown }>, is: (v: unknown) => boolean, what: string): T {
  const hit = params.find((p) => is(p.value));
  if (!hit) throw new AgentFailure(`the task carries no ${what} (a JSON data param)`, 'missing_data_param');
  return hit.value as T;
}

export { isPlainObject as isObject } from '@parley/protocol';
