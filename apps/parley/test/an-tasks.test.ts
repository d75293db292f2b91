import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentFailure, createAgent, type Agent, type TaskContext } from '@parley/agent-sdk';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { expectRpcError, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// AN tasks (draft 004 §4.2-4.5, §5.2-5.4) end to end in the embedded Parley:
// JSON-RPC on the gateway → TaskService (gRPC) in execution → executing
// agents written with the agent SDK (NATS request/reply on the in-process
// bus), and the agents' notifications back through the SDK.
let parley: EmbeddedParley;
const agents: Agent[] = [];
const pending = new Map<string, TaskContext>();
let canceledSignals = 0;

const PROMPT =
  '<content namespace="prompt">\n##target object\n<object>cluster 17</object>\n##task description\n<description>compensate coverage</description>\n##environmental infomation\n<environmentInput>3 sites down</environmentInput>';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC results, read loosely in assertions
type Json = Record<string, any>;

async function call(method: string, params: unknown): Promise<Json> {
  const r = await rpc(parley.url, method, params);
  if (r.body?.error) throw new Error(`${method}: ${JSON.stringify(r.body.error)}`);
  return r.body.result as Json;
}

beforeAll(async () => {
  parley = await startParley({ port: 0, seed: false, log: createLogger({ level: 'silent' }), executeTimeoutMs: 2000 });
  useKey(parley.url, parley.devKey);
  const optimizer = await createAgent({ name: 'optimization-agent', bus: parley.bus, prefix: parley.subjects.prefix });
  agents.push(optimizer);
  await optimizer.serveTasks(
    async (task, ctx) => {
      if (!task.task_async) {
        if (task.prompt?.target_object === 'nothing') throw new AgentFailure('no cells to compensate', 'no_target');
        const alarms = task.msg_data.length > 0 ? await ctx.readData(task.msg_data[0]!) : undefined;
        return { compensated: task.prompt?.target_object ?? null, power_delta_db: 3, ...(alarms !== undefined ? { alarms } : {}) };
      }
      pending.set(task.task_id, ctx);
      ctx.signal.addEventListener('abort', () => canceledSignals++);
      return ctx.accept('processing');
    },
    {
      negotiate: (p) => (p.proposal.some((x) => x.includes('+6 dB')) ? { verdict: 'counter', reply: ['+3 dB on neighbours'] } : { verdict: 'accept' }),
      profile: {
        name: 'optimization-agent',
        description: 'Mobile network performance optimization',
        version: '2.1.0',
        provider: 'acme',
        domain: 'wireless',
        skills: [{ name: 'coverage-compensation', description: 'Raises neighbour cell power', tags: ['optimization'], input_modes: ['text'], output_modes: ['text'] }],
        capability: { streaming: true, push_notifications: true, negotiate: ['FEASIBILITY', 'FULFILLMENT'] },
        authentication: [],
      },
    },
  );
});

afterAll(async () => {
  for (const a of agents) await a.close();
  await parley?.stop();
});

describe('AN tasks over JSON-RPC with SDK agents', () => {
  it('capability_request answers with the executing agent profile', async () => {
    const r = await call('capability_request', { send_from: 'fault-agent', send_to: 'optimization-agent' });
    expect(r.source).toBe('agent');
    expect(r.profile).toMatchObject({ name: 'optimization-agent', version: '2.1.0', capability: { negotiate: ['FEASIBILITY', 'FULFILLMENT'] } });
  });

  it('task_assign (sync) returns the final status and the agent result', async () => {
    const r = await call('task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT, commu_type: 'taskAssign' });
    expect(r.task).toMatchObject({ status: 'finished', last_seq: 3, result: { compensated: 'cluster 17', power_delta_db: 3 } });
    expect(r.task.prompt.environmental_information).toBe('3 sites down');
    const failed = await call('task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT.replace('cluster 17', 'nothing') });
    expect(failed.task).toMatchObject({ status: 'failed', result: { error: { message: 'no cells to compensate', code: 'no_target' } } });
  });

  it('task_assign (async) answers at once; the agent reports with notify; query and context follow', async () => {
    const r = await call('task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT, task_async: true });
    expect(r.task.status).toBe('processing');
    const id = r.task.task_id as string;
    const ctx = pending.get(id)!;
    await ctx.notify({ status: 'input-required', required: 'the list of neighbour cells' });
    await ctx.notify({ status: 'processing' });
    const n = await ctx.notify({ status: 'finished', result: { compensated: 'cluster 17' } });
    expect(n).toMatchObject({ seq: 5, status: 'finished' });
    const q = await call('task_result_query', { task_id: id, send_from: 'fault-agent' });
    expect(q.task).toMatchObject({ status: 'finished', result: { compensated: 'cluster 17' } });
    expect(q.latest).toMatchObject({ seq: 5, previous_status: 'processing' });
    const c = await call('task_context', { task_id: id });
    expect(c.messages.map((m: { commu_type: string }) => m.commu_type)).toEqual([
      'taskAssign',
      'taskResultNotify',
      'taskResultNotify',
      'taskResultNotify',
      'taskResultNotify',
      'taskResultQuery',
    ]);
  });

  it('task_cancel aborts the agent work; a late finish is refused as an illegal transition', async () => {
    const r = await call('task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT, task_async: true });
    const id = r.task.task_id as string;
    const before = canceledSignals;
    const c = await call('task_cancel', { task_id: id, send_from: 'fault-agent', reason: 'fault repaired' });
    expect(c.task.status).toBe('canceled');
    await expect.poll(() => canceledSignals).toBe(before + 1);
    const e = await pending.get(id)!.notify({ status: 'finished', result: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ParleyError);
    expect(e).toMatchObject({ type: 'illegal_transition', rule: 'task_transition' });
    expect((await call('task_result_query', { task_id: id, send_from: 'fault-agent' })).task.status).toBe('canceled');
  });

  it('feasibility_negotiate reaches agreement through the agent verdicts, then task_assign under that id', async () => {
    const first = await call('feasibility_negotiate', { send_from: 'fault-agent', send_to: 'optimization-agent', content: ['raise neighbour power +6 dB'] });
    expect(first).toMatchObject({ outcome: 'open', rounds: [{ verdict: 'counter', reply: ['+3 dB on neighbours'] }] });
    const second = await call('feasibility_negotiate', { task_id: first.task_id, send_from: 'fault-agent', send_to: 'optimization-agent', content: ['+3 dB on neighbours'] });
    expect(second).toMatchObject({ outcome: 'agreed', data: { agreed: ['+3 dB on neighbours'] } });
    const t = await call('task_assign', { task_id: first.task_id, send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT });
    expect(t.task).toMatchObject({ task_id: first.task_id, status: 'finished' });
  });

  it('upload_chunk then a task that refers to the data: the agent reads it', async () => {
    await call('upload_chunk', { send_from: 'fault-agent', param: { id: 'alarm-dump-1', data_type: 'text' }, chunk: { param_id: 'alarm-dump-1', seq: 0, data: 'ALM-1;', finished: false } });
    const done = await call('upload_chunk', { send_from: 'fault-agent', chunk: { param_id: 'alarm-dump-1', seq: 1, data: 'ALM-2', finished: true } });
    expect(done).toMatchObject({ finished: true, data_size: 11 });
    const t = await call('task_assign', {
      send_from: 'fault-agent',
      send_to: 'optimization-agent',
      content: PROMPT,
      msg_data: ['alarm-dump-1'],
      data_params: [{ id: 'alarm-dump-1', data_type: 'text', chunked: true }],
    });
    expect(t.task.result).toMatchObject({ alarms: 'ALM-1;ALM-2' });
  });

  it('task_result_subscribe registers a webhook that receives the notifications in order', async () => {
    const got: number[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push((JSON.parse(body) as { seq: number }).seq);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const r = await call('task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT, task_async: true });
      const id = r.task.task_id as string;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`;
      const sub = await call('task_result_subscribe', { task_id: id, send_from: 'fault-agent', subscription: { protocol: 'webhook', url } });
      expect(sub).toMatchObject({ protocol: 'webhook', cursor: 0 });
      await pending.get(id)!.notify({ status: 'finished', result: { done: true } });
      await expect.poll(() => got, { timeout: 5000 }).toEqual([1, 2, 3]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('bad input is a typed JSON-RPC error naming the path and rule', async () => {
    expectRpcError(await rpc(parley.url, 'task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: '##target object\nx' }), 'invalid_params', -32602, 'params.content', 'prompt_section_missing');
    expectRpcError(await rpc(parley.url, 'task_assign', { send_from: 'fault-agent', send_to: 'optimization-agent', content: PROMPT, 'task-async': true }), 'invalid_params', -32602, 'params.task-async', 'unknown_member');
    expectRpcError(await rpc(parley.url, 'task_assign', { send_from: 'fault-agent', send_to: 'nobody', content: PROMPT }), 'agent_unavailable', -32031);
    expectRpcError(await rpc(parley.url, 'task_result_subscribe', { task_id: 'x-1', send_from: 'fault-agent', subscription: { protocol: 'grpc' } }), 'invalid_params', -32602, 'params.subscription.protocol', 'use_stream');
    expectRpcError(await rpc(parley.url, 'task_result_notify', { task_id: 'x-1', send_from: 'optimization-agent', status: 'finished' }), 'task_not_found', -32034, 'params.task_id', 'exists');
    expectRpcError(await rpc(parley.url, 'task_context', { task_id: 'x-1', after_seq: -1 }), 'invalid_params', -32602, 'params.after_seq', 'non_negative_integer');
    expectRpcError(await rpc(parley.url, 'upload_chunk', { send_from: 'fault-agent', chunk: { param_id: 'p-1', seq: 0, data: 'x' } }), 'invalid_params', -32602, 'params.chunk.finished', 'required');
    expectRpcError(await rpc(parley.url, 'fulfillment_negotiate', { send_from: 'fault-agent', send_to: 'optimization-agent', content: ['x'] }), 'invalid_params', -32602, 'params.task_id', 'required');
    expectRpcError(await rpc(parley.url, 'task_result_notify', { task_id: 'x-1', send_from: 'optimization-agent', status: 'finished', result: JSON.parse('{"__proto__":{"x":1}}') }), 'payload_invalid', -32011);
  });
});
