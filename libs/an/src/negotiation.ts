/**
 * Task negotiation rounds (AN draft 004 §5.3, §4.3, §4.5): two agents
 * negotiate the feasibility of a task before or right after it is assigned
 * (FEASIBILITY), or the outcome of a task being executed (FULFILLMENT).
 *
 * A round is one proposal and its verdict. Proposals and verdicts alternate:
 *
 *   open ──propose──► awaiting verdict ──accept──► agreed   (closed)
 *     ▲                        │        ──reject──► rejected (closed)
 *     └──────counter───────────┘        ──counter at max_rounds──► round_limit (closed)
 *
 * Every function is pure: it returns a new state and never changes the one
 * given; a refused step throws and the caller keeps its state.
 */
import { ParleyError } from '@parley/protocol';
import { NEGOTIATION_TYPES, VERDICTS, type NegotiationOutcome, type NegotiationRound, type NegotiationType, type TaskState, type Verdict } from './model';
import { Checker } from './check';

export interface NegotiationState {
  readonly task_id: string;
  readonly type: NegotiationType;
  readonly rounds: readonly NegotiationRound[];
  readonly outcome: NegotiationOutcome;
  readonly max_rounds: number;
}

export interface Proposal {
  /** The proposing agent's name. */
  readonly proposer: string;
  readonly proposal: readonly string[];
  /** RFC 3339 time of the proposal. */
  readonly at: string;
}

export interface Answer {
  readonly verdict: Verdict;
  /** The counter-proposal (required with counter) or the reason. */
  readonly reply?: readonly string[];
  /** RFC 3339 time of the answer; not before the proposal's. */
  readonly at: string;
}

export const DEFAULT_MAX_ROUNDS = 5;
export const MAX_MAX_ROUNDS = 100;

const check: Checker = new Checker('invalid_params');

function illegal(rule: string, message: string, state: NegotiationState): never {
  throw new ParleyError('illegal_transition', message, {
    path: 'negotiation',
    rule,
    details: { task_id: state.task_id, type: state.type, outcome: state.outcome, rounds: state.rounds.length },
  });
}

function assertOpen(state: NegotiationState): void {
  if (state.outcome !== 'open') {
    illegal('negotiation_closed', `The ${state.type} negotiation of ${state.task_id} is closed (${state.outcome}): nothing can follow`, state);
  }
}

/** Opens a negotiation with no rounds. Throws `invalid_params` for a bad task id, type or max_rounds (1-100). */
export function openNegotiation(task_id: string, type: NegotiationType, max_rounds = DEFAULT_MAX_ROUNDS): NegotiationState {
  check.taskId(task_id, 'task_id');
  check.oneOf(type, NEGOTIATION_TYPES, 'type');
  if (!Number.isSafeInteger(max_rounds) || max_rounds < 1 || max_rounds > MAX_MAX_ROUNDS) {
    check.fail('max_rounds', 'range', `max_rounds must be an integer from 1 to ${MAX_MAX_ROUNDS}, not ${max_rounds}`);
  }
  return { task_id, type, rounds: [], outcome: 'open', max_rounds };
}

/**
 * Adds a proposal as a new round. Allowed while open and when there is no
 * round yet or the last was countered; else `illegal_transition` with rule
 * `awaiting_verdict` (the last proposal has no verdict yet) or
 * `negotiation_closed`. Bad input → `invalid_params` (path `proposal.*`).
 */
export function propose(state: NegotiationState, p: Proposal): NegotiationState {
  assertOpen(state);
  const last = state.rounds.at(-1);
  if (last && last.verdict === undefined) {
    illegal('awaiting_verdict', `Round ${last.round} of the ${state.type} negotiation of ${state.task_id} awaits a verdict before a new proposal`, state);
  }
  check.object(p, 'proposal');
  const proposer = check.agentName(p.proposer, 'proposal.proposer');
  const proposal = check.list(p.proposal, 'proposal.proposal', (x, path) => check.text(x, path), undefined, 64);
  if (proposal.length === 0) check.fail('proposal.proposal', 'non_empty', 'proposal.proposal must hold at least one item');
  const at = check.timestamp(p.at, 'proposal.at');
  if (last) notBefore(at, last.at, 'proposal.at');
  const round: NegotiationRound = { task_id: state.task_id, type: state.type, round: state.rounds.length + 1, proposer, proposal, at };
  return { ...state, rounds: [...state.rounds, round] };
}

/**
 * Gives the verdict on the last proposal: accept → agreed, reject → rejected,
 * counter → open (a new proposal may follow), or round_limit when the last
 * round was round max_rounds. `illegal_transition` with rule
 * `no_open_proposal` when there is no proposal to answer, `negotiation_closed`
 * after an outcome. Bad input → `invalid_params` (path `answer.*`, rules
 * `enum`, `counter_requires_reply`, `time_order`, …).
 */
export function answer(state: NegotiationState, a: Answer): NegotiationState {
  assertOpen(state);
  const last = state.rounds.at(-1);
  if (!last || last.verdict !== undefined) {
    illegal('no_open_proposal', `The ${state.type} negotiation of ${state.task_id} has no proposal awaiting a verdict`, state);
  }
  check.object(a, 'answer');
  const verdict = check.oneOf(a.verdict, VERDICTS, 'answer.verdict');
  const reply = a.reply === undefined ? undefined : check.list(a.reply, 'answer.reply', (x, path) => check.text(x, path), undefined, 64);
  if (verdict === 'counter' && (reply === undefined || reply.length === 0)) {
    check.fail('answer.reply', 'counter_requires_reply', 'answer.reply is required with verdict counter: the counter-proposal');
  }
  const at = check.timestamp(a.at, 'answer.at');
  notBefore(at, last.at, 'answer.at');
  const answered: NegotiationRound = reply === undefined ? { ...last, verdict } : { ...last, verdict, reply };
  const outcome: NegotiationOutcome =
    verdict === 'accept' ? 'agreed' : verdict === 'reject' ? 'rejected' : last.round >= state.max_rounds ? 'round_limit' : 'open';
  return { ...state, rounds: [...state.rounds.slice(0, -1), answered], outcome };
}

function notBefore(at: string, previous: string, path: string): void {
  if (Date.parse(at) < Date.parse(previous)) {
    check.fail(path, 'time_order', `${path} ${at} is before the previous step of the negotiation (${previous})`);
  }
}

/**
 * Whether a negotiation of `type` may start or go on given the task's status
 * (5.3): FEASIBILITY before the task exists (null / undefined) or right after
 * assignment (created); FULFILLMENT only while the task is processing or
 * input-required.
 */
export function negotiationAllowed(type: NegotiationType, taskStatus: TaskState | null | undefined): boolean {
  if (type === 'FEASIBILITY') return taskStatus === null || taskStatus === undefined || taskStatus === 'created';
  if (type === 'FULFILLMENT') return taskStatus === 'processing' || taskStatus === 'input-required';
  return false;
}

/** Throws `illegal_transition` with rule `negotiation_phase` (path `type`) unless `negotiationAllowed`. */
export function assertNegotiationAllowed(type: NegotiationType, taskStatus: TaskState | null | undefined, path = 'type'): void {
  if (negotiationAllowed(type, taskStatus)) return;
  const when =
    type === 'FEASIBILITY'
      ? 'before the task is assigned or while it is created'
      : type === 'FULFILLMENT'
        ? 'while the task is processing or input-required'
        : `never (${JSON.stringify(type)} is not one of ${NEGOTIATION_TYPES.join(', ')})`;
  throw new ParleyError('illegal_transition', `${String(type)} negotiation is allowed ${when}; the task is ${taskStatus ?? 'not assigned yet'}`, {
    path,
    rule: 'negotiation_phase',
    details: { type, status: taskStatus ?? null },
  });
}
