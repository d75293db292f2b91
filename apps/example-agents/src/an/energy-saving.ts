import { AgentFailure } from '@parley/agent-sdk';
import {
  agreedTarget,
  applyTarget,
  cellsOfRequest,
  evaluateFeasibility,
  firstTargetProposal,
  initialEnergyState,
  isResumeRequest,
  proposalAfterCounter,
  resumeTargets,
  type EnergyState,
} from '@parley/examples';
import type { RoleFactory } from './host';
import { isObject, jsonDataParams, pick } from './params';

interface Lowering {
  task_id: string;
  requested_by: string;
  cells: string[];
  status: 'accepted' | 'negotiating' | 'applied' | 'resumed' | 'failed';
  proposals: string[][];
  previous_target_percent?: number;
  target_percent?: number;
}

/**
 * The energy-saving agent (`TMF-Acme-EnergySaving-v1`), use case 2.2. It
 * answers FEASIBILITY checks (can these cells' targets be lowered?), executes
 * the lowering task asynchronously: once its processing is recorded it
 * proposes a target (FULFILLMENT), adopts the optimization agent's counter in
 * a second proposal, applies the agreed target and reports finished. A resume
 * task (sync) or the cancellation of a lowering task restores the cells'
 * normal targets.
 */
export const energySavingRole: RoleFactory = (ctx) => {
  let state: EnergyState = initialEnergyState(ctx.topology);
  const lowerings = new Map<string, Lowering>();
  const resumed: Array<{ task_id: string; cells: string[] }> = [];

  async function negotiateTarget(l: Lowering): Promise<void> {
    l.status = 'negotiating';
    const first = firstTargetProposal(l.cells, state);
    l.proposals.push(first);
    let r = await ctx.agent.negotiate('FULFILLMENT', { task_id: l.task_id, send_to: l.requested_by, content: first });
    const last = r.rounds.at(-1);
    if (r.outcome === 'open' && last?.verdict === 'counter') {
      const second = proposalAfterCounter(last.reply, first);
      l.proposals.push(second);
      r = await ctx.agent.negotiate('FULFILLMENT', { task_id: l.task_id, send_to: l.requested_by, content: second });
    }
    const agreed = r.outcome === 'agreed' ? agreedTarget(r.rounds.at(-1)?.proposal ?? []) : undefined;
    if (!agreed) {
      l.status = 'failed';
      await ctx.agent.notify(l.task_id, { status: 'failed', result: { error: { message: `no target agreed (${r.outcome})` } } });
      return;
    }
    l.previous_target_percent = Math.max(...agreed.cells.map((c) => state[c]?.target_percent ?? 0));
    state = applyTarget(state, agreed.cells, agreed.target_percent, l.task_id);
    l.target_percent = agreed.target_percent;
    l.status = 'applied';
    await ctx.agent.notify(l.task_id, {
      status: 'finished',
      result: {
        cells: agreed.cells,
        target_percent: agreed.target_percent,
        previous_target_percent: l.previous_target_percent,
        energy_saving: agreed.target_percent === 0 ? 'suspended' : 'reduced',
        held_until: 'a resume request',
      },
    });
  }

  return {
    negotiate(p) {
      if (p.type === 'FEASIBILITY') return evaluateFeasibility(p.proposal, state, p.task_id);
      return { verdict: 'reject', reply: ['this agent proposes targets on its tasks; it does not evaluate FULFILLMENT proposals'] };
    },
    async handler(task, tctx) {
      const params = await jsonDataParams(task, tctx);
      const request = pick(params, (v) => isObject(v) && Array.isArray(v.cells), 'list of cells');
      const cells = cellsOfRequest(request);
      const unknown = cells.filter((c) => !state[c]);
      if (cells.length === 0 || unknown.length > 0) throw new AgentFailure(`cells ${unknown.join(', ') || '(none)'} are not managed by this agent`, 'unknown_cells');
      if (isResumeRequest(request)) {
        state = resumeTargets(state, cells);
        for (const l of lowerings.values()) if (l.status === 'applied' && l.cells.some((c) => cells.includes(c))) l.status = 'resumed';
        resumed.push({ task_id: task.task_id, cells });
        return { cells, energy_saving: 'resumed', target_percent: Math.max(...cells.map((c) => state[c]?.target_percent ?? 0)) };
      }
      if (!task.task_async) throw new AgentFailure('lowering a target is negotiated first: assign it with task_async true', 'async_only');
      lowerings.set(task.task_id, { task_id: task.task_id, requested_by: task.send_from, cells, status: 'accepted', proposals: [] });
      return tctx.accept('processing');
    },
    onCancel(taskId) {
      const l = lowerings.get(taskId);
      if (!l) return;
      state = resumeTargets(state, l.cells);
      l.status = 'resumed';
    },
    onStatus(n) {
      const l = lowerings.get(n.task_id);
      if (!l || n.send_to !== ctx.name || n.status !== 'processing' || l.status !== 'accepted') return;
      ctx.background('target negotiation', async () => {
        try {
          await negotiateTarget(l);
        } catch (e) {
          l.status = 'failed';
          throw e;
        }
      });
    },
    state: () => ({ targets: state, lowerings: [...lowerings.values()], resumed }),
  };
};
