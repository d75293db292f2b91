import { AgentFailure, type NegotiationResult } from '@parley/agent-sdk';
import {
  AN_SKILLS,
  compensationIds,
  compensationPlan,
  compensationReport,
  energySavingFeasibilityProposal,
  energySavingTask,
  evaluateEnergySavingTarget,
  parseCompensationRequest,
  resumeEnergySavingTask,
  type CompensationPlan,
  type CompensationRequest,
} from '@parley/examples';
import { toParleyError } from '@parley/protocol';
import type { RoleFactory } from './host';
import { isObject, jsonDataParams, pick } from './params';

interface Compensation {
  task_id: string;
  requested_by: string;
  request: CompensationRequest;
  plan: CompensationPlan;
  energy_agent?: string;
  energy_task_id: string;
  status: 'accepted' | 'negotiating' | 'energy_saving_lowered' | 'active' | 'undone' | 'failed';
  feasibility?: NegotiationResult['outcome'];
  energy_target_percent?: number;
  report_outcome?: NegotiationResult['outcome'];
  resume?: unknown;
  error?: string;
}

/**
 * The mobile network optimization agent (`TMF-Acme-Optimization-v1`), use
 * case 2.2. A compensation task (async) is accepted; once its processing is
 * recorded the agent checks with the energy-saving agent that the neighbour
 * cells' energy-saving target can be lowered (FEASIBILITY, under the id the
 * energy-saving task will carry), assigns that task, and evaluates the
 * energy-saving agent's target proposals (FULFILLMENT: counter, then accept).
 * When the energy-saving task finishes it raises the neighbours' power and
 * proposes the applied compensation to the fault agent (FULFILLMENT on the
 * compensation task). When the fault agent cancels the compensation it undoes
 * the power change and asks the energy-saving agent to resume (sync task).
 */
export const optimizationRole: RoleFactory = (ctx) => {
  const byTask = new Map<string, Compensation>();
  const byEnergyTask = new Map<string, Compensation>();
  /** Power offsets in force, per cell (dB). */
  const power = new Map<string, number>();

  async function lowerEnergySaving(c: Compensation): Promise<void> {
    c.status = 'negotiating';
    const to = await ctx.discover(AN_SKILLS.energySavingControl);
    c.energy_agent = to;
    const f = await ctx.agent.negotiate('FEASIBILITY', { task_id: c.energy_task_id, send_to: to, content: energySavingFeasibilityProposal(c.plan) });
    c.feasibility = f.outcome;
    if (f.outcome !== 'agreed') {
      c.status = 'failed';
      c.error = `energy-saving agent: ${f.rounds.at(-1)?.reply.join(' ') ?? f.outcome}`;
      await ctx.agent.notify(c.task_id, { status: 'failed', result: { error: { message: `the energy-saving target cannot be lowered: ${c.error}` } } });
      return;
    }
    await ctx.gateway.call('task_assign', energySavingTask(c.plan, ctx.name, to, c.energy_task_id, compensationIds(c.task_id).plan_param));
  }

  async function applyCompensation(c: Compensation, target: number): Promise<void> {
    c.energy_target_percent = target;
    c.status = 'energy_saving_lowered';
    for (const cell of c.plan.cells) power.set(cell, (power.get(cell) ?? 0) + c.plan.power_offset_db);
    c.status = 'active';
    const r = await ctx.agent.negotiate('FULFILLMENT', { task_id: c.task_id, send_to: c.requested_by, content: compensationReport(c.plan, { task_id: c.energy_task_id, target_percent: target }) });
    c.report_outcome = r.outcome;
  }

  async function undo(c: Compensation, reason: string | undefined): Promise<void> {
    if (c.status === 'active' || c.status === 'energy_saving_lowered') {
      for (const cell of c.plan.cells) {
        const left = (power.get(cell) ?? 0) - c.plan.power_offset_db;
        if (left === 0) power.delete(cell);
        else power.set(cell, left);
      }
    }
    c.status = 'undone';
    if (!c.energy_agent) return;
    const why = `Compensation ${c.plan.plan_id} undone: ${reason ?? 'canceled by the fault agent'}`;
    if (c.energy_target_percent === undefined) {
      // The energy-saving task is still running: withdrawing it resumes energy saving.
      await ctx.gateway.call('task_cancel', { task_id: c.energy_task_id, send_from: ctx.name, reason: why }).catch((e: unknown) => {
        ctx.log.info('energy-saving task not cancelable', { task_id: c.energy_task_id, error: toParleyError(e).message });
      });
      return;
    }
    const r = await ctx.gateway.call<{ task: { status: string; result?: unknown } }>(
      'task_assign',
      resumeEnergySavingTask(c.plan, ctx.name, c.energy_agent, why, compensationIds(c.task_id).resume_param),
    );
    c.resume = r.task.result ?? r.task.status;
  }

  return {
    async handler(task, tctx) {
      if (!task.task_async) throw new AgentFailure('coverage compensation lasts until it is canceled: assign it with task_async true', 'async_only');
      const params = await jsonDataParams(task, tctx);
      let request: CompensationRequest;
      try {
        request = parseCompensationRequest(pick(params, (v) => isObject(v) && 'neighbour_cells' in v, 'compensation request'));
      } catch (e) {
        throw new AgentFailure(toParleyError(e).message, 'bad_compensation_request');
      }
      const ids = compensationIds(task.task_id);
      const c: Compensation = { task_id: task.task_id, requested_by: task.send_from, request, plan: compensationPlan(request, ids.plan_id), energy_task_id: ids.energy_task_id, status: 'accepted' };
      byTask.set(task.task_id, c);
      byEnergyTask.set(ids.energy_task_id, c);
      return tctx.accept('processing');
    },
    negotiate(p) {
      const c = byEnergyTask.get(p.task_id);
      if (p.type !== 'FULFILLMENT' || !c) return { verdict: 'reject', reply: ['this agent evaluates only target proposals on its own energy-saving tasks'] };
      return evaluateEnergySavingTarget(p.proposal, c.plan);
    },
    onCancel(taskId, reason) {
      const c = byTask.get(taskId);
      if (c) ctx.background('undo compensation', () => undo(c, reason));
    },
    onStatus(n) {
      const c = byTask.get(n.task_id);
      if (c && n.send_to === ctx.name && n.status === 'processing' && c.status === 'accepted') {
        ctx.background('energy-saving negotiation', async () => {
          try {
            await lowerEnergySaving(c);
          } catch (e) {
            c.status = 'failed';
            c.error = toParleyError(e).message;
            throw e;
          }
        });
        return;
      }
      const e = byEnergyTask.get(n.task_id);
      if (!e || n.send_from !== ctx.name) return;
      if (n.status === 'finished' && e.status === 'negotiating') {
        const target = typeof n.result?.target_percent === 'number' ? n.result.target_percent : e.plan.required_energy_saving_target_percent;
        ctx.background('apply compensation', () => applyCompensation(e, target));
      } else if (n.status === 'failed' && e.status === 'negotiating') {
        e.status = 'failed';
        e.error = 'the energy-saving task failed';
        ctx.background('report failure', async () => {
          await ctx.agent.notify(e.task_id, { status: 'failed', result: { error: { message: 'the energy-saving agent could not lower its target' } } });
        });
      }
    },
    state: () => ({ compensations: [...byTask.values()], power_offsets_db: Object.fromEntries(power) }),
  };
};
