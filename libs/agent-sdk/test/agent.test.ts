import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus, createSubjects } from '@parley/events';
import { decodeDispatchReply, encodeDispatch, type DispatchReply } from '@parley/protocol';
import { AgentFailure, createAgent, type Agent } from '@parley/agent-sdk';

// The agent SDK on the in-process bus: what a server agent's handler returns or
// throws becomes the dispatch reply the execution service reads.
const subjects = createSubjects('sdk');
const bus = createMemoryBus({ subjects });
const agents: Agent[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});

async function call(scenario: string, agentName: string, payload: Record<string, unknown>, extra: { execution_id?: string; idempotency_key?: string } = {}): Promise<DispatchReply> {
  const body = encodeDispatch({
    execution_id: extra.execution_id ?? '00000000-0000-4000-8000-000000000001',
    ...(extra.idempotency_key !== undefined ? { idempotency_key: extra.idempotency_key } : {}),
    schema_id: `${scenario}_v1`,
    scenario_id: scenario,
    client_id: 'c1',
    payload: payload as never,
    deadline: new Date(Date.now() + 1000).toISOString(),
  });
  return decodeDispatchReply(await bus.request(subjects.execute(scenario, agentName), body, { timeoutMs: 1000 }), agentName);
}

describe('agent SDK', () => {
  it('answers an execution_id dispatched again under an idempotency key with its first answer, without calling the handler again', async () => {
    let t = 0;
    const a = await createAgent({ name: 'booking-agent', bus, prefix: 'sdk', replay: { ttlMs: 1000, max: 2, now: () => t } });
    agents.push(a);
    const booked: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await a.serve('book', async (_p, ctx) => {
      booked.push(ctx.execution_id);
      if (booked.length === 1) await gate;
      return { booking: `BK-${booked.length}`, key: ctx.idempotency_key ?? null };
    });
    const id = '00000000-0000-4000-8000-0000000000aa';
    // A re-dispatch while the first still runs waits for it; one after it gets the stored answer.
    const first = call('book', 'booking-agent', {}, { execution_id: id, idempotency_key: 'k1' });
    await expect.poll(() => booked.length).toBe(1);
    const during = call('book', 'booking-agent', {}, { execution_id: id, idempotency_key: 'k1' });
    release();
    expect(await first).toEqual({ ok: true, result: { booking: 'BK-1', key: 'k1' } });
    expect(await during).toEqual({ ok: true, result: { booking: 'BK-1', key: 'k1' } });
    expect(await call('book', 'booking-agent', {}, { execution_id: id, idempotency_key: 'k1' })).toEqual({ ok: true, result: { booking: 'BK-1', key: 'k1' } });
    expect(booked).toEqual([id]);
    // Without a key every dispatch is a new execution.
    await call('book', 'booking-agent', {}, { execution_id: id });
    expect(booked).toEqual([id, id]);
    // Kept for ttlMs only, and at most `max` answers.
    t = 1000;
    expect(await call('book', 'booking-agent', {}, { execution_id: id, idempotency_key: 'k1' })).toMatchObject({ result: { booking: 'BK-3' } });
    for (const n of ['b1', 'b2', 'b3']) await call('book', 'booking-agent', {}, { execution_id: `00000000-0000-4000-8000-0000000000${n}`, idempotency_key: n });
    expect(await call('book', 'booking-agent', {}, { execution_id: id, idempotency_key: 'k1' })).toMatchObject({ result: { booking: 'BK-7' } });
  });

  it('serves a scenario on its execute subject and returns the handler result', async () => {
    const a = await createAgent({ name: 'echo-agent', bus, prefix: 'sdk' });
    agents.push(a);
    await a.serve('Echo Scenario', (payload, ctx) => ({ echoed: payload, client: ctx.client_id }));
    expect(await call('echo_scenario', 'echo-agent', { x: 1 })).toEqual({ ok: true, result: { echoed: { x: 1 }, client: 'c1' } });
  });

  it('passes an AgentFailure message and code to the client, and hides any other error', async () => {
    const a = await createAgent({ name: 'failing-agent', bus, prefix: 'sdk' });
    agents.push(a);
    await a.serve('sold', () => {
      throw new AgentFailure('flight CA1234 is sold out', 'sold_out');
    });
    await a.serve('crash', () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    expect(await call('sold', 'failing-agent', {})).toEqual({ ok: false, error: { message: 'flight CA1234 is sold out', code: 'sold_out' } });
    const crash = await call('crash', 'failing-agent', {});
    expect(crash.ok).toBe(false);
    expect(JSON.stringify(crash)).not.toContain('hunter2');
  });

  it('refuses a handler result that is not an object', async () => {
    const a = await createAgent({ name: 'odd-agent', bus, prefix: 'sdk' });
    agents.push(a);
    await a.serve('odd', () => 'done' as never);
    expect(await call('odd', 'odd-agent', {})).toEqual({ ok: false, error: { message: 'handler returned a non-object result', code: 'bad_result' } });
  });

  it('spreads requests over the replicas of one agent (one queue group per agent)', async () => {
    const seen: string[] = [];
    for (const replica of ['r1', 'r2']) {
      const a = await createAgent({ name: 'scaled-agent', bus, prefix: 'sdk' });
      agents.push(a);
      await a.serve('busy', () => {
        seen.push(replica);
        return { replica };
      });
    }
    for (let i = 0; i < 6; i++) await call('busy', 'scaled-agent', {});
    expect(seen).toHaveLength(6);
    expect(new Set(seen)).toEqual(new Set(['r1', 'r2']));
  });

  it('rejects an agent name that cannot be a namespace', async () => {
    await expect(createAgent({ name: 'Bad Name', bus })).rejects.toMatchObject({ type: 'invalid_params', rule: 'agent_name' });
  });
});
