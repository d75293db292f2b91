/**
 * Use case 2.2 (draft 004 §2.2) between the wireless fault agent, the mobile
 * optimization agent and the energy-saving agent:
 *
 * 1. The wireless fault agent asks the optimization agent to compensate the
 *    coverage of an out-of-service site (async taskAssign).
 * 2. The optimization agent asks the energy-saving agent whether it can lower
 *    the energy-saving target of the neighbour cells (FEASIBILITY), assigns it
 *    the task, and agrees the new target (FULFILLMENT: the energy-saving agent
 *    proposes, the optimization agent counters, the energy-saving agent
 *    proposes the counter, the optimization agent accepts).
 * 3. With the target lowered, the optimization agent raises the neighbour
 *    cells' power and tells the fault agent (FULFILLMENT on the compensation
 *    task), which accepts.
 * 4. After the repair the fault agent cancels the compensation; the
 *    optimization agent undoes it and asks the energy-saving agent to resume.
 *
 * This file is the fault agent's and the optimization agent's side; the
 * energy-saving agent's is energy-saving.ts.
 */
import { ParleyError } from '@parley/protocol';
import { jsonParam, listField, numberField, promptContent, proposalFields, safeId, siteOf, terms, type TaskAssignInput, type Topology } from './common';
import type { Incident } from './incidents';

/** What the wireless fault agent asks for (the compensation task's data param). */
export interface CompensationRequest {
  readonly site_id: string;
  readonly cells_out: readonly string[];
  readonly neighbour_cells: readonly string[];
  readonly incident_id: string;
}

export function compensationRequest(i: Incident, topology: Topology): CompensationRequest {
  const siteId = i.site_ids[0] as string;
  return { site_id: siteId, cells_out: [...i.cells_out], neighbour_cells: [...siteOf(topology, siteId).neighbour_cells], incident_id: i.incident_id };
}

/** Step 1: the async compensation task from the wireless fault agent to the optimization agent. */
export function compensationTask(r: CompensationRequest, from: string, to: string, paramId: string): TaskAssignInput {
  return {
    send_from: from,
    send_to: to,
    task_async: true,
    content: promptContent({
      target_object: `neighbour cells ${r.neighbour_cells.join(', ')} of out-of-service site ${r.site_id}`,
      task_description: `Compensate the coverage of site ${r.site_id} (${r.cells_out.length} cell(s) out of service, incident ${r.incident_id}) by raising the power of its neighbour cells, adjusting energy saving as needed, until this task is canceled (use case 2.2).`,
      environmental_information: `The site's outage is being diagnosed; the repair may take hours. Cells out of service: ${r.cells_out.join(', ')}. Request attached (data param compensation).`,
    }),
    expected_response: 'the compensation applied, proposed for evaluation (FULFILLMENT): cells, power offset, energy-saving state',
    term_explains: terms('energy-saving target'),
    data_params: [jsonParam(paramId, r, `coverage compensation request for site ${r.site_id}`)],
    msg_data: [paramId],
    subscription: { protocol: 'nats' },
  };
}

export function parseCompensationRequest(v: unknown): CompensationRequest {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const list = (k: string) => (Array.isArray(o[k]) && (o[k] as unknown[]).every((x) => typeof x === 'string') ? [...(o[k] as string[])] : undefined);
  const cellsOut = list('cells_out');
  const neighbours = list('neighbour_cells');
  if (typeof o.site_id !== 'string' || !cellsOut || !neighbours || neighbours.length === 0 || typeof o.incident_id !== 'string') {
    throw new ParleyError('invalid_params', 'the compensation request needs site_id, incident_id, cells_out and neighbour_cells', { path: 'data_params.compensation', rule: 'required' });
  }
  return { site_id: o.site_id, cells_out: cellsOut, neighbour_cells: neighbours, incident_id: o.incident_id };
}

/** The optimization agent's plan: raise the neighbours' power; energy saving off on them while it lasts. */
export interface CompensationPlan {
  readonly plan_id: string;
  readonly site_id: string;
  readonly cells: readonly string[];
  readonly power_offset_db: number;
  /** The energy-saving target the compensated cells need (0: energy saving suspended). */
  readonly required_energy_saving_target_percent: number;
}

/** +3 dB on up to two neighbours per cell out of service, capped at 6 dB; compensation needs full power headroom. */
export function compensationPlan(r: CompensationRequest, planId: string): CompensationPlan {
  return {
    plan_id: planId,
    site_id: r.site_id,
    cells: [...r.neighbour_cells].sort(),
    power_offset_db: Math.min(6, 3 * Math.max(1, Math.ceil(r.cells_out.length / Math.max(1, r.neighbour_cells.length)))),
    required_energy_saving_target_percent: 0,
  };
}

/** Step 2, FEASIBILITY: can the energy-saving agent lower the target of the plan's cells? */
export function energySavingFeasibilityProposal(p: CompensationPlan): string[] {
  return [
    `Can you lower the energy-saving target of cells ${p.cells.join(', ')}? They must compensate the coverage of out-of-service site ${p.site_id}.`,
    `action: lower_energy_saving_target`,
    `cells: ${p.cells.join(', ')}`,
    `reason: coverage compensation for site ${p.site_id} (+${p.power_offset_db} dB)`,
  ];
}

/** Step 2, the energy-saving task the optimization agent assigns once FEASIBILITY agreed. */
export function energySavingTask(p: CompensationPlan, from: string, to: string, taskId: string, paramId: string): TaskAssignInput {
  return {
    task_id: taskId,
    send_from: from,
    send_to: to,
    task_async: true,
    content: promptContent({
      target_object: `cells ${p.cells.join(', ')}`,
      task_description: `Lower the energy-saving target of these cells while they compensate the coverage of site ${p.site_id}; propose the new target for evaluation (FULFILLMENT) before applying it.`,
      environmental_information: `Compensation plan ${p.plan_id}: +${p.power_offset_db} dB on ${p.cells.length} cell(s); the compensation needs an energy-saving target of at most ${p.required_energy_saving_target_percent}%. Plan attached (data param plan).`,
    }),
    expected_response: 'the applied target: {cells, target_percent, previous_target_percent}',
    term_explains: terms('energy-saving target'),
    data_params: [jsonParam(paramId, p, `compensation plan ${p.plan_id}`)],
    msg_data: [paramId],
    subscription: { protocol: 'nats' },
  };
}

/**
 * Step 2, FULFILLMENT: the optimization agent's verdict on the energy-saving
 * agent's proposed target. Too high for the plan → counter with the plan's
 * target (energy saving suspended on those cells until released); at or below
 * it, on the plan's cells → accept; other cells → reject.
 */
export function evaluateEnergySavingTarget(proposal: readonly string[], p: CompensationPlan): { verdict: 'accept' | 'counter' | 'reject'; reply: string[] } {
  const f = proposalFields(proposal);
  const cells = listField(f, 'cells');
  const target = numberField(f, 'target_percent');
  if (target === undefined) return { verdict: 'reject', reply: ['the proposal names no target_percent'] };
  const missing = p.cells.filter((c) => !cells.includes(c));
  if (missing.length > 0) return { verdict: 'reject', reply: [`the proposal leaves out cells ${missing.join(', ')}`] };
  if (target > p.required_energy_saving_target_percent) {
    return {
      verdict: 'counter',
      reply: [
        `A target of ${target}% leaves too little power headroom for +${p.power_offset_db} dB; suspend energy saving on these cells until the compensation is released.`,
        `cells: ${p.cells.join(', ')}`,
        `target_percent: ${p.required_energy_saving_target_percent}`,
        'mode: suspended',
        `until: compensation ${p.plan_id} released`,
      ],
    };
  }
  return { verdict: 'accept', reply: [`target ${target}% on ${p.cells.join(', ')} fits compensation ${p.plan_id}`] };
}

/** Step 3: the compensation as applied, proposed to the fault agent for evaluation (FULFILLMENT on the compensation task). */
export function compensationReport(p: CompensationPlan, energySaving: { task_id: string; target_percent: number }): string[] {
  return [
    `Coverage of site ${p.site_id} compensated: +${p.power_offset_db} dB on cells ${p.cells.join(', ')}; energy saving on them at ${energySaving.target_percent}% (task ${energySaving.task_id}) until you cancel this task.`,
    `site: ${p.site_id}`,
    `cells: ${p.cells.join(', ')}`,
    `power_offset_db: ${p.power_offset_db}`,
    `energy_saving_target_percent: ${energySaving.target_percent}`,
    `state: active`,
  ];
}

/** The fault agent's verdict on the compensation report: accept when it covers every requested neighbour cell. */
export function evaluateCompensationReport(proposal: readonly string[], r: CompensationRequest): { verdict: 'accept' | 'reject'; reply: string[] } {
  const f = proposalFields(proposal);
  const cells = listField(f, 'cells');
  const missing = r.neighbour_cells.filter((c) => !cells.includes(c));
  if (f.site !== r.site_id) return { verdict: 'reject', reply: [`the report is about site ${f.site ?? '?'}, not ${r.site_id}`] };
  if (missing.length > 0) return { verdict: 'reject', reply: [`cells ${missing.join(', ')} are not compensated`] };
  return { verdict: 'accept', reply: [`compensation of site ${r.site_id} accepted; it will be canceled after the repair`] };
}

/** Step 4: the sync task asking the energy-saving agent to resume on the plan's cells. */
export function resumeEnergySavingTask(p: CompensationPlan, from: string, to: string, reason: string, paramId: string): TaskAssignInput {
  return {
    send_from: from,
    send_to: to,
    task_async: false,
    content: promptContent({
      target_object: `cells ${p.cells.join(', ')}`,
      task_description: `Resume normal energy saving on these cells: compensation ${p.plan_id} for site ${p.site_id} is undone.`,
      environmental_information: reason,
    }),
    expected_response: 'the restored targets: {cells, target_percent, energy_saving}',
    data_params: [jsonParam(paramId, { action: 'resume_energy_saving', plan_id: p.plan_id, cells: p.cells }, `cells of compensation ${p.plan_id}`)],
    msg_data: [paramId],
  };
}

/** Ids the optimization agent derives from the compensation task: its plan and the energy-saving task. */
export function compensationIds(compensationTaskId: string): { plan_id: string; energy_task_id: string; plan_param: string; resume_param: string } {
  return {
    plan_id: safeId('PLAN', compensationTaskId).slice(0, 64),
    energy_task_id: safeId('ES', compensationTaskId),
    plan_param: safeId('plan', compensationTaskId),
    resume_param: safeId('resume', compensationTaskId),
  };
}
