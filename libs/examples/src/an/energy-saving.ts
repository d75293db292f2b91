/**
 * The energy-saving agent of use case 2.2 (draft 004 §2.2): "the experience
 * optimization agent collaborates with the energy-saving agent to reduce
 * energy-saving targets or temporarily disable energy-saving functions", and
 * "the energy-saving agent resumes normal energy-saving operations" after the
 * repair. Its state is each cell's energy-saving target (percent) and which
 * task holds it lowered.
 */
import { listField, numberField, proposalFields, type Topology } from './common';

export const DEFAULT_ENERGY_SAVING_TARGET_PERCENT = 30;

export interface CellEnergyState {
  readonly target_percent: number;
  readonly default_target_percent: number;
  /** The task that holds the target lowered, when it is. */
  readonly held_by?: string;
}

export type EnergyState = Readonly<Record<string, CellEnergyState>>;

export function initialEnergyState(topology: Topology, target = DEFAULT_ENERGY_SAVING_TARGET_PERCENT): EnergyState {
  const out: Record<string, CellEnergyState> = {};
  for (const s of Object.values(topology.sites)) for (const c of s.cells) out[c] = { target_percent: target, default_target_percent: target };
  return out;
}

/** FEASIBILITY: accept when every cell is managed here and not held lowered by another task. */
export function evaluateFeasibility(proposal: readonly string[], state: EnergyState, taskId: string): { verdict: 'accept' | 'reject'; reply: string[] } {
  const f = proposalFields(proposal);
  if (f.action !== 'lower_energy_saving_target') return { verdict: 'reject', reply: [`unknown action ${JSON.stringify(f.action ?? '')}: this agent lowers energy-saving targets`] };
  const cells = listField(f, 'cells');
  if (cells.length === 0) return { verdict: 'reject', reply: ['the proposal names no cells'] };
  const unknown = cells.filter((c) => !state[c]);
  if (unknown.length > 0) return { verdict: 'reject', reply: [`cells ${unknown.join(', ')} are not managed by this agent`] };
  const held = cells.filter((c) => state[c]?.held_by !== undefined && state[c]?.held_by !== taskId);
  if (held.length > 0) return { verdict: 'reject', reply: [`cells ${held.join(', ')} are held by another task`] };
  const now = cells.map((c) => `${c} ${state[c]?.target_percent}%`).join(', ');
  return { verdict: 'accept', reply: [`feasible: the targets can be lowered (now ${now})`] };
}

/** FULFILLMENT, first round: the energy-saving agent proposes halving the targets (it saves what it can). */
export function firstTargetProposal(cells: readonly string[], state: EnergyState): string[] {
  const current = Math.max(...cells.map((c) => state[c]?.target_percent ?? DEFAULT_ENERGY_SAVING_TARGET_PERCENT));
  const target = Math.floor(current / 2);
  return [`Lower the energy-saving target of ${cells.join(', ')} from ${current}% to ${target}% while the compensation lasts.`, `cells: ${cells.join(', ')}`, `target_percent: ${target}`, 'mode: reduced'];
}

/**
 * FULFILLMENT, after a counter: propose the counter's target when the cells
 * may go that low (any target 0-100 is allowed; 0 suspends energy saving),
 * else hold to the previous proposal.
 */
export function proposalAfterCounter(counter: readonly string[], previous: readonly string[]): string[] {
  const c = proposalFields(counter);
  const target = numberField(c, 'target_percent');
  if (target === undefined || target < 0 || target > 100) return [...previous];
  const cells = listField(c, 'cells').length > 0 ? listField(c, 'cells') : listField(proposalFields(previous), 'cells');
  return [
    `Agreed to go further: ${target === 0 ? 'suspend energy saving' : `target ${target}%`} on ${cells.join(', ')} until the compensation is released.`,
    `cells: ${cells.join(', ')}`,
    `target_percent: ${target}`,
    `mode: ${target === 0 ? 'suspended' : 'reduced'}`,
    ...(c.until ? [`until: ${c.until}`] : []),
  ];
}

/** The agreed proposal's cells and target. */
export function agreedTarget(proposal: readonly string[]): { cells: string[]; target_percent: number } | undefined {
  const f = proposalFields(proposal);
  const target = numberField(f, 'target_percent');
  const cells = listField(f, 'cells');
  return target === undefined || cells.length === 0 ? undefined : { cells, target_percent: target };
}

/** Applies a lowered target held by `taskId`. */
export function applyTarget(state: EnergyState, cells: readonly string[], target: number, taskId: string): EnergyState {
  const out: Record<string, CellEnergyState> = { ...state };
  for (const c of cells) {
    const cur = state[c];
    if (cur) out[c] = { ...cur, target_percent: target, held_by: taskId };
  }
  return out;
}

/** Resumes normal energy saving on `cells` (their default targets). */
export function resumeTargets(state: EnergyState, cells: readonly string[]): EnergyState {
  const out: Record<string, CellEnergyState> = { ...state };
  for (const c of cells) {
    const cur = state[c];
    if (cur) out[c] = { target_percent: cur.default_target_percent, default_target_percent: cur.default_target_percent };
  }
  return out;
}

/** The `cells` of a plan or resume request (a task's JSON data param); [] when it has none. */
export function cellsOfRequest(v: unknown): string[] {
  const cells = typeof v === 'object' && v !== null ? (v as { cells?: unknown }).cells : undefined;
  return Array.isArray(cells) ? cells.filter((c): c is string => typeof c === 'string') : [];
}

/** True when a task's JSON data param asks to resume energy saving (else it is a plan to lower targets). */
export function isResumeRequest(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { action?: unknown }).action === 'resume_energy_saving';
}
