import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryBus, createSubjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import { AgentFailure, createAgent, type Agent, type AssignedTask } from '@parley/agent-sdk';

// AN tasks in the agent SDK (draft 004 §5.2-5.4) on the in-process bus: what an
// executing agent's task handler returns, throws or reports becomes the NATS
// messages the execution service reads (apps/execution/src/tasks/wire.ts).
// Here a stand-in execution service records the agent's messages;
// apps/parley/test/an-tasks.test.ts runs the SDK against the real one.
const subjects = createSubjects('sdktasks');
const bus = createMemoryBus({ subjects });
const agents: Agent[] = [];
const enc = new TextEncoder();
const dec = new TextDecoder();

afterAll(async () => {
  for (const a of agents.splice(0)) await a.close();
  await bus.close();
});

async function agent(name: string): Promise<Agent> {
  const a = await createAgent({ name, bus, prefix: 'sdktasks', requestTimeoutMs: 1000 });
  agents.push(a);
  return a;
}

/** Sends a task message to the agent as the execution service does and returns its JSON reply. */
async function send(agentName: string, message: unknown): Promise<Record<string, unknown>> {
  return JSON.parse(dec.decode(await bus.request(subjects.task(agentName), enc.encode(JSON.stringify(message)), { timeoutMs: 1000 }))) as Record<string, unknown>;
}

function task(over: Partial<AssignedTask> = {}): AssignedTask {
  return {
    task_id: 't-1',
    send_from: 'ops-agent',
    send_to: 'sdk-agent',
    task_async: false,
    status: 'created',
    content: '##target object\ncell 3\n##task description\ndiagnose\n##environmental information\nnone',
    prompt: { target_object: 'cell 3', task_description: 'diagnose', environmental_information: 'none' },
    term_explains: [],
    msg_data: [],
    created_at: '2026-05-01T00:00:00.000Z',
    updated_at: '2026-05-01T00:00:00.000Z',
    data_params: [],
    ...over,
  };
}

/** The execution service's side of `subjects.taskService()`: records messages, answers with `answer`. */
async function standInService(answer: (m: Record<string, unknown>) => unknown): Promise<{ messages: Record<string, unknown>[]; stop(): Promise<void> }> {
  const messages: Record<string, unknown>[] = [];
  const s = await bus.serve(subjects.taskService(), 'execution', async (body) => {
    const m = JSON.parse(dec.decode(body)) as Record<string, unknown>;
    messages.push(m);
    return enc.encode(JSON.stringify(answer(m)));
  });
  return { messages, stop: () => s.stop() };
}

describe('agent.serveTasks', () => {
  it('answers a synchronous task with the handler result, on <prefix>.v1.task.<agent>', async () => {
    const a = await agent('sync-agent');
    await a.serveTasks((t) => ({ diagnosis: `link down near ${t.prompt?.target_object}` }));
    expect(subjects.task('sync-agent')).toBe('sdktasks.v1.task.sync-agent');
    expect(await send('sync-agent', { kind: 'assign', task: task({ send_to: 'sync-agent' }) })).toEqual({ ok: true, result: { diagnosis: 'link down near cell 3' } });
  });

  it('passes an AgentFailure message and code, hides other errors, refuses non-object results', async () => {
    const a = await agent('failing-agent');
    await a.serveTasks((t) => {
      if (t.task_id === 'business') throw new AgentFailure('no alarms for cell 3', 'no_data');
      if (t.task_id === 'bug') throw new Error('secret stack detail');
      return 'not an object' as never;
    });
    expect(await send('failing-agent', { kind: 'assign', task: task({ task_id: 'business' }) })).toEqual({ ok: false, error: { message: 'no alarms for cell 3', code: 'no_data' } });
    expect(await send('failing-agent', { kind: 'assign', task: task({ task_id: 'bug' }) })).toEqual({ ok: false, error: { message: 'the agent failed to execute the task' } });
    expect(await send('failing-agent', { kind: 'assign', task: task({ task_id: 'odd' }) })).toMatchObject({ ok: false, error: { code: 'bad_result' } });
  });

  it('accepts an async task, reports with notify, and aborts the work when the sender cancels', async () => {
    const service = await standInService((m) => ({ ok: true, result: { notification: { task_id: (m.params as { task_id: string }).task_id, seq: 2, status: (m.params as { status: string }).status } } }));
    const a = await agent('async-agent');
    const canceled: string[] = [];
    let signal: AbortSignal | undefined;
    await a.serveTasks(
      (t, ctx) => {
        signal = ctx.signal;
        void ctx.notify({ status: 'input-required', required: 'alarm list' });
        return ctx.accept();
      },
      { onCancel: (id, reason) => canceled.push(`${id}: ${reason}`) },
    );
    expect(await send('async-agent', { kind: 'assign', task: task({ task_id: 'a-1', task_async: true }) })).toEqual({ ok: true, accepted: true, status: 'processing' });
    await expect.poll(() => service.messages.length).toBe(1);
    expect(service.messages[0]).toEqual({ kind: 'notify', params: { task_id: 'a-1', send_from: 'async-agent', status: 'input-required', required: 'alarm list' } });
    expect(signal?.aborted).toBe(false);
    expect(await send('async-agent', { kind: 'cancel', task_id: 'a-1', send_from: 'ops-agent', reason: 'superseded' })).toEqual({ ok: true });
    expect(signal?.aborted).toBe(true);
    expect(canceled).toEqual(['a-1: superseded']);
    // accept() on a synchronous task is a bad answer, not a hang.
    expect(await send('async-agent', { kind: 'assign', task: task({ task_id: 'a-2', task_async: false }) })).toMatchObject({ ok: false, error: { code: 'bad_result' } });
    const n = await a.notify('a-1', { status: 'finished', result: { repaired: true } });
    expect(n).toMatchObject({ seq: 2, status: 'finished' });
    expect(service.messages.at(-1)).toEqual({ kind: 'notify', params: { task_id: 'a-1', send_from: 'async-agent', status: 'finished', result: { repaired: true } } });
    await service.stop();
  });

  it('evaluates proposals with its negotiate option and answers CapabilityRequest with its profile', async () => {
    const a = await agent('energy-agent');
    const profile = { name: 'energy-agent', description: 'Energy saving', version: '1.0.0', provider: 'acme', skills: [], capability: { streaming: false, push_notifications: true, negotiate: ['FEASIBILITY' as const] }, authentication: [] };
    await a.serveTasks(() => ({}), {
      negotiate: (p) => (p.proposal[0]?.includes('off') ? { verdict: 'reject', reply: ['coverage would be lost'] } : { verdict: 'accept' }),
      profile,
    });
    const proposal = { kind: 'negotiate', type: 'FEASIBILITY', task_id: 'n-1', round: 1, proposer: 'fault-agent' };
    expect(await send('energy-agent', { ...proposal, proposal: ['switch cells off'] })).toEqual({ ok: true, verdict: 'reject', reply: ['coverage would be lost'] });
    expect(await send('energy-agent', { ...proposal, proposal: ['lower the target'] })).toEqual({ ok: true, verdict: 'accept' });
    expect(await send('energy-agent', { kind: 'capability', send_from: 'ops-agent' })).toEqual({ ok: true, profile });
    expect(await send('energy-agent', { kind: 'teleport' })).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });

  it('serves tasks under an AN profile name (5.1: dots, capitals); zhou scenarios still need a schema namespace name', async () => {
    const a = await agent('TMF-Acme-IP-v1.0');
    await a.serveTasks((t) => ({ by: t.send_to }));
    expect(subjects.task('TMF-Acme-IP-v1.0')).toBe('sdktasks.v1.task.TMF-Acme-IP-v1_d0');
    expect(await send('TMF-Acme-IP-v1.0', { kind: 'assign', task: task({ send_to: 'TMF-Acme-IP-v1.0' }) })).toEqual({ ok: true, result: { by: 'TMF-Acme-IP-v1.0' } });
    expect(await a.serve('fault management', () => ({})).catch((e: unknown) => e)).toMatchObject({ type: 'invalid_params', path: 'name' });
    expect(await createAgent({ name: 'bad name!', bus }).catch((e: unknown) => e)).toMatchObject({ type: 'invalid_params', path: 'name' });
  });

  it('without a negotiate option, leaves proposals to later calls (not_supported)', async () => {
    const a = await agent('plain-agent');
    await a.serveTasks(() => ({}));
    expect(await send('plain-agent', { kind: 'negotiate', type: 'FEASIBILITY', task_id: 'n', round: 1, proposer: 'x', proposal: ['p'] })).toMatchObject({ ok: false, error: { code: 'not_supported' } });
    expect(await send('plain-agent', { kind: 'capability', send_from: 'ops-agent' })).toMatchObject({ ok: false, error: { code: 'not_supported' } });
  });
});

describe('agent.notify / negotiate / readData', () => {
  it('throws the execution service typed error', async () => {
    const service = await standInService(() => ({
      ok: false,
      error: { type: 'illegal_transition', message: 'A task cannot go from canceled to finished', path: 'params.status', rule: 'task_transition' },
    }));
    const a = await agent('late-agent');
    const e = await a.notify('t-9', { status: 'finished' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ParleyError);
    expect(e).toMatchObject({ type: 'illegal_transition', path: 'params.status', rule: 'task_transition' });
    await service.stop();
  });

  it('says agent_unavailable when no execution service listens', async () => {
    const a = await agent('lonely-agent');
    expect(await a.notify('t-1', { status: 'processing' }).catch((x: unknown) => x)).toMatchObject({ type: 'agent_unavailable' });
  });

  it('sends negotiation calls as this agent and reads data params in slices', async () => {
    const data = 'x'.repeat(10) + 'y'.repeat(5);
    const service = await standInService((m) => {
      if (m.kind === 'negotiate') return { ok: true, result: { task_id: 't-5', type: m.type, outcome: 'open', rounds: [] } };
      const offset = m.offset as number;
      return { ok: true, result: { data: data.slice(offset, offset + 4), total: data.length } };
    });
    const a = await agent('reader-agent');
    expect(await a.negotiate('FULFILLMENT', { task_id: 't-5', send_to: 'ops-agent', content: ['restart cluster 17'] })).toMatchObject({ outcome: 'open', type: 'FULFILLMENT' });
    expect(service.messages[0]).toEqual({
      kind: 'negotiate',
      type: 'FULFILLMENT',
      params: { task_id: 't-5', send_to: 'ops-agent', content: ['restart cluster 17'], send_from: 'reader-agent' },
    });
    expect(await a.readData('t-5', 'alarms')).toBe(data);
    expect(service.messages.filter((m) => m.kind === 'data').map((m) => m.offset)).toEqual([0, 4, 8, 12]);
    await service.stop();
  });
});
