/** AN draft 004 §5.4 (task status changes) and §5.2 (task-status, taskCancel): the task state machine. */
import { describe, expect, it } from 'vitest';
import { TASK_STATES, TASK_TRANSITIONS, assertTransition, canTransition, isTerminal, type TaskState } from '@parley/an';
import { expectError } from './helpers';

const LEGAL: Array<[TaskState, TaskState]> = [
  ['created', 'processing'],
  ['created', 'input-required'],
  ['created', 'failed'],
  ['created', 'canceled'],
  ['processing', 'input-required'],
  ['processing', 'blocked'],
  ['processing', 'finished'],
  ['processing', 'failed'],
  ['processing', 'canceled'],
  ['input-required', 'processing'],
  ['input-required', 'failed'],
  ['input-required', 'canceled'],
  ['blocked', 'processing'],
  ['blocked', 'failed'],
  ['blocked', 'canceled'],
];

/** The states of §5.4 and §5.2 (canceled: taskCancel), written out here rather than taken from the module under test. */
const STATES: readonly TaskState[] = ['created', 'processing', 'input-required', 'blocked', 'finished', 'failed', 'canceled'];
const TERMINAL: readonly TaskState[] = ['finished', 'failed', 'canceled'];

/**
 * Why `from → to` is illegal, from the rules of the draft's reading (task-state.ts
 * header), stated on their own: no table, neither LEGAL nor TASK_TRANSITIONS, is
 * consulted. Undefined: nothing forbids it.
 */
function illegalBecause(from: TaskState, to: TaskState): string | undefined {
  if (from === to) return 'a state never transitions to itself';
  if (TERMINAL.includes(from)) return `${from} is terminal`;
  if (to === 'created') return 'created is where a task starts';
  if (to === 'finished' && from !== 'processing') return 'only processing may finish';
  if (to === 'blocked' && from !== 'processing') return 'only processing may block';
  if (to === 'input-required' && from === 'blocked') return 'a blocked task goes back to processing first';
  return undefined;
}

const PAIRS: Array<[TaskState, TaskState]> = STATES.flatMap((from) => STATES.map((to): [TaskState, TaskState] => [from, to]));
const isLegal = (from: TaskState, to: TaskState): boolean => LEGAL.some(([f, t]) => f === from && t === to);
const ILLEGAL: Array<[TaskState, TaskState, string]> = PAIRS.flatMap(([from, to]) => {
  const why = illegalBecause(from, to);
  return why === undefined ? [] : [[from, to, why]];
});

describe('the two writings of the rules agree', () => {
  it('the module has exactly the seven states written out here', () => {
    expect([...TASK_STATES].sort()).toEqual([...STATES].sort());
  });

  it('every one of the 49 pairs is either in LEGAL or forbidden by a rule, never both, never neither', () => {
    expect(PAIRS).toHaveLength(49);
    const neither = PAIRS.filter(([f, t]) => !isLegal(f, t) && illegalBecause(f, t) === undefined);
    const both = PAIRS.filter(([f, t]) => isLegal(f, t) && illegalBecause(f, t) !== undefined);
    expect({ neither, both }).toEqual({ neither: [], both: [] });
    expect(ILLEGAL).toHaveLength(34);
  });
});

describe('TASK_TRANSITIONS (5.4)', () => {
  it('has an entry for each of the seven states and exactly the documented transitions', () => {
    expect(Object.keys(TASK_TRANSITIONS).sort()).toEqual([...TASK_STATES].sort());
    const all = Object.entries(TASK_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => [from, to]));
    expect(all.sort()).toEqual([...LEGAL].sort());
  });

  it.each(['finished', 'failed', 'canceled'] as const)('%s is terminal', (s) => {
    expect(isTerminal(s)).toBe(true);
    expect(TASK_TRANSITIONS[s]).toEqual([]);
  });

  it.each(['created', 'processing', 'input-required', 'blocked'] as const)('%s is not terminal', (s) => {
    expect(isTerminal(s)).toBe(false);
  });
});

describe('assertTransition (5.4)', () => {
  it.each(LEGAL)('allows %s → %s', (from, to) => {
    expect(() => assertTransition(from, to)).not.toThrow();
    expect(canTransition(from, to)).toBe(true);
  });

  it.each(ILLEGAL)('refuses %s → %s (%s: illegal_transition, task_transition)', (from, to) => {
    const e = expectError(() => assertTransition(from, to), { type: 'illegal_transition', path: 'status', rule: 'task_transition' });
    expect(e.details).toEqual({ from, to });
    expect(canTransition(from, to)).toBe(false);
  });

  it('says a canceled task cannot be finished because canceled is terminal', () => {
    const e = expectError(() => assertTransition('canceled', 'finished', 'params.status'), {
      type: 'illegal_transition',
      path: 'params.status',
      rule: 'task_transition',
    });
    expect(e.message).toContain('terminal');
    expect(e.toJSON()).toMatchObject({ type: 'illegal_transition', details: { from: 'canceled', to: 'finished' } });
  });

  it('refuses states that do not exist', () => {
    expectError(() => assertTransition('created', 'paused' as TaskState), { type: 'illegal_transition', path: 'status', rule: 'task_transition' });
    expectError(() => assertTransition('paused' as TaskState, 'created'), { type: 'illegal_transition', path: 'status', rule: 'task_transition' });
    expect(isTerminal('paused' as TaskState)).toBe(false);
  });
});
