import { randomUUID } from 'node:crypto';
import {
  answer,
  assertNegotiationAllowed,
  openNegotiation,
  parseNegotiate,
  propose,
  type ContextMessage,
  type NegotiationRound,
  type NegotiationState,
  type NegotiationType,
} from '@parley/an';
import type { TaskNegotiateResponse } from '@parley/contracts';
import { ParleyError, toParleyError } from '@parley/protocol';
import { COMMU, forbidden, samePair, type TaskCtx } from './context';
import { toWireRound } from './to-wire';
import { wireTaskOf } from './data-params';
import { appendMessage, clip, taskNotFound, loadNegotiation, loadTask, saveNegotiation } from './store';
import { agentFailure, decodeAgentReply, encodeWire } from './wire';

// Feasibility and fulfillment negotiation (draft 004 §5.3; rounds in libs/an negotiation.ts): a call
// proposes or answers the open round; a proposal is forwarded to the other party over NATS.

function negotiationResult(state: NegotiationState): TaskNegotiateResponse {
  const last = state.rounds.at(-1);
  return {
    task_id: state.task_id,
    type: state.type,
    outcome: state.outcome,
    rounds: state.rounds.map(toWireRound),
    ...(state.outcome === 'agreed' && last ? { data: { agreed: [...last.proposal], round: last.round, proposer: last.proposer } } : {}),
  };
}

export async function negotiate(c: TaskCtx, type: NegotiationType, input: unknown): Promise<TaskNegotiateResponse> {
  const p = parseNegotiate(input, type);
  if (p.send_from === p.send_to) {
    throw new ParleyError('invalid_params', 'params.send_to must be another agent than params.send_from', { path: 'params.send_to', rule: 'distinct_parties' });
  }
  const taskId = p.task_id ?? randomUUID();
  const commu = COMMU[type];
  const stored = await c.change(taskId, async (tx) => {
    const task = await loadTask(tx, taskId);
    if (!task && type === 'FULFILLMENT') throw taskNotFound(taskId);
    assertNegotiationAllowed(type, task?.status ?? null, 'params.task_id');
    const existing = await loadNegotiation(tx, taskId, type);
    const parties = task ? [task.send_from, task.send_to] : existing ? [existing.send_from, existing.send_to] : [p.send_from, p.send_to];
    if (!samePair(parties, [p.send_from, p.send_to])) {
      throw forbidden('params.send_from', 'negotiation_party', `The ${type} negotiation of ${taskId} is between ${parties[0]} and ${parties[1]}`);
    }
    const at = c.now();
    let state = existing?.state ?? openNegotiation(taskId, type, c.maxRounds);
    const content = clip(p.content.join('\n'));
    let message: Omit<ContextMessage, 'seq'>;
    if (p.verdict === undefined) {
      state = propose(state, { proposer: p.send_from, proposal: p.content, at });
      message = { task_id: taskId, send_from: p.send_from, send_to: p.send_to, commu_type: commu, request: { content }, time: at };
    } else {
      const last = state.rounds.at(-1);
      if (last && last.verdict === undefined && last.proposer === p.send_from) {
        throw new ParleyError('illegal_transition', `${p.send_from} cannot answer its own proposal (round ${last.round}); ${p.send_to} does`, {
          path: 'params.verdict',
          rule: 'own_proposal',
        });
      }
      state = answer(state, { verdict: p.verdict, ...(p.reply ? { reply: p.reply } : {}), at });
      message = { task_id: taskId, send_from: p.send_from, send_to: p.send_to, commu_type: commu, request: { content }, response: { content: clip([p.verdict, ...(p.reply ?? [])].join(': ')) }, time: at };
    }
    await saveNegotiation(tx, { state, send_from: existing?.send_from ?? p.send_from, send_to: existing?.send_to ?? p.send_to }, !existing, at);
    await appendMessage(tx, message);
    return { state, task };
  });
  if (p.verdict !== undefined) return negotiationResult(stored.state);

  // Forward the proposal; a party that does not listen answers with a later call.
  const round = stored.state.rounds.at(-1) as NegotiationRound;
  let reply: Record<string, unknown>;
  try {
    const raw = await c.bus.request(
      c.subjects.task(p.send_to),
      encodeWire({ kind: 'negotiate', type, task_id: taskId, round: round.round, proposer: round.proposer, proposal: round.proposal, ...(stored.task ? { task: await wireTaskOf(c, stored.task) } : {}) }),
      { timeoutMs: c.deps.timeoutMs },
    );
    reply = decodeAgentReply(raw, p.send_to);
  } catch (e) {
    const err = toParleyError(e);
    if (err.type !== 'agent_unavailable' && err.type !== 'agent_timeout') throw err;
    c.log.debug('negotiation proposal not answered over NATS; the round stays open for a later call', { task_id: taskId, type, to: p.send_to, reason: err.type });
    return negotiationResult(stored.state);
  }
  if (reply.ok !== true) {
    c.log.info('agent could not evaluate a proposal; the round stays open', { task_id: taskId, type, agent: p.send_to, error: agentFailure(reply.error) });
    return negotiationResult(stored.state);
  }
  const final = await c.change(taskId, async (tx) => {
    const cur = await loadNegotiation(tx, taskId, type);
    const last = cur?.state.rounds.at(-1);
    // Answered meanwhile by a call: that answer stands.
    if (!cur || !last || last.round !== round.round || last.verdict !== undefined) return cur?.state ?? stored.state;
    const at = c.now();
    let state: NegotiationState;
    try {
      const r = Array.isArray(reply.reply) ? (reply.reply as string[]) : undefined;
      state = answer(cur.state, { verdict: reply.verdict as NonNullable<NegotiationRound['verdict']>, ...(r ? { reply: r } : {}), at });
    } catch (e) {
      const err = toParleyError(e);
      throw new ParleyError('agent_response_invalid', `Agent ${p.send_to} answered the proposal with an invalid verdict: ${err.message}`, {
        path: `reply${err.path.replace(/^answer/, '')}`,
        rule: err.rule,
        details: { agent: p.send_to, task_id: taskId },
      });
    }
    const lastNow = state.rounds.at(-1) as NegotiationRound;
    await saveNegotiation(tx, { state, send_from: cur.send_from, send_to: cur.send_to }, false, at);
    await appendMessage(tx, {
      task_id: taskId,
      send_from: p.send_to,
      send_to: p.send_from,
      commu_type: commu,
      response: { content: clip([lastNow.verdict as string, ...(lastNow.reply ?? [])].join(': ')) },
      time: at,
    });
    return state;
  });
  return negotiationResult(final);
}
