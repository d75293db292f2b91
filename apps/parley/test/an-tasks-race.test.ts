/**
 * An async task's acceptance and the executing agent's first report race each
 * other (draft 004 §5.2 async tasks, §5.4 notifications): the agent answers
 * the assignment with "accepted" and at once reports its next state, and the
 * report may reach the execution service before the acceptance is recorded.
 * Either order must end in the same, legal history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createLogger } from '@parley/runtime';
import { rpc, waitFor, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

let parley: EmbeddedParley;
let agent: Agent;

const PROMPT = '##target object\ncell 9\n##task description\nraise power\n##environmental information\nsite down';

beforeAll(async () => {
  parley = await startParley({ port: 0, seed: false, log: createLogger({ level: 'silent' }), executeTimeoutMs: 2000 });
  useKey(parley.url, parley.devKey);
  agent = await createAgent({ name: 'eager-agent', bus: parley.bus, prefix: parley.subjects.prefix });
  await agent.serveTasks(async (task, ctx) => {
    // Report at once, without waiting for the acceptance to be recorded.
    if (task.prompt?.target_object === 'cell 9') {
      void ctx.notify({ status: 'finished', result: { done: true } }).catch(() => undefined);
      return ctx.accept('processing');
    }
    void ctx.notify({ status: 'processing' }).catch(() => undefined);
    return ctx.accept('created');
  });
});

afterAll(async () => {
  await agent?.close();
  await parley?.stop();
});

async function assign(content: string): Promise<{ task_id: string }> {
  const r = await rpc(parley.url, 'task_assign', { send_from: 'fault-agent', send_to: 'eager-agent', task_async: true, content });
  expect(r.body.error).toBeUndefined();
  return r.body.result.task;
}

async function status(taskId: string): Promise<string> {
  const r = await rpc(parley.url, 'task_result_query', { task_id: taskId, send_from: 'fault-agent' });
  expect(r.body.error).toBeUndefined();
  return r.body.result.task.status;
}

describe('accept and an immediate report (draft 004 §5.2, §5.4)', () => {
  it('accept(processing) then finished: the assignment succeeds and the task ends finished, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const t = await assign(PROMPT);
      expect(await waitFor('finished', async () => ((await status(t.task_id)) === 'finished' ? true : undefined))).toBe(true);
    }
  });

  it('accept(created) then processing: the assignment succeeds and the task is processing, every time', async () => {
    for (let i = 0; i < 10; i++) {
      const t = await assign(PROMPT.replace('cell 9', 'cell 10'));
      expect(await waitFor('processing', async () => ((await status(t.task_id)) === 'processing' ? true : undefined))).toBe(true);
    }
  });
});
