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

const isLegal = (from: TaskState, to: TaskState): boolean => LEGAL.some(([f, t]) => f === from && t === to);
const ILLEGAL: Array<[TaskState, TaskState]> = TASK_STATES.flatMap((from) =>
  TASK_STATES.filter((to) => !isLegal(from, to)).map((to): [TaskState, TaskState] => [from, to]),
);

describe('TASK_TRANSITIONS (5.4)', () => {
  it('has an entry for each of the seven states and exactly the documented transitions', () => {
    expect(Object.keys(TASK_TRANSITIONS).sort()).toEqual([...TASK_STATES].sort());
    const all = Object.entries(TASK_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => [from, to]));
    expect(all.sort()).toEqual([...LEGAL].sort());
  });

  it('covers all 49 pairs between the legal and the illegal table', () => {
    expect(LEGAL.length + ILLEGAL.length).toBe(49);
    expect(ILLEGAL.length).toBe(34);
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

  it.each(ILLEGAL)('refuses %s → %s (illegal_transition, task_transition)', (from, to) => {
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
