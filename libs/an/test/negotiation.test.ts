/** AN draft 004 §5.3 (task negotiation, two phases), §4.3 (multiple rounds), §4.5 (result negotiation). */
import { describe, expect, it } from 'vitest';
import {
  answer,
  assertNegotiationAllowed,
  negotiationAllowed,
  openNegotiation,
  propose,
  type NegotiationState,
  type TaskState,
} from '@parley/an';
import { expectError } from './helpers';

const T = (s: number): string => `2026-03-01T10:00:${String(s).padStart(2, '0')}Z`;
const offer = (n: number, by = 'tmf-acme-wireless-v2') => ({ proposer: by, proposal: [`plan ${n}`], at: T(2 * n) });

function expectUnchangedAfter(state: NegotiationState, fn: () => unknown, expected: Parameters<typeof expectError>[1]) {
  const before = structuredClone(state);
  const e = expectError(fn, expected);
  expect(state).toEqual(before);
  return e;
}

describe('openNegotiation', () => {
  it('opens with no rounds and the default limit of 5', () => {
    expect(openNegotiation('t1', 'FEASIBILITY')).toEqual({ task_id: 't1', type: 'FEASIBILITY', rounds: [], outcome: 'open', max_rounds: 5 });
    expect(openNegotiation('t1', 'FULFILLMENT', 2).max_rounds).toBe(2);
  });
  it.each([
    ['task id', () => openNegotiation('bad id', 'FEASIBILITY'), 'task_id', 'pattern'],
    ['type', () => openNegotiation('t1', 'BARTER' as 'FEASIBILITY'), 'type', 'enum'],
    ['max_rounds 0', () => openNegotiation('t1', 'FEASIBILITY', 0), 'max_rounds', 'range'],
    ['max_rounds 1.5', () => openNegotiation('t1', 'FEASIBILITY', 1.5), 'max_rounds', 'range'],
  ])('refuses a bad %s', (_what, fn, path, rule) => {
    expectError(fn, { type: 'invalid_params', path, rule });
  });
});

describe('rounds (5.3)', () => {
  it('reaches agreement: propose, counter, propose, accept', () => {
    let s = openNegotiation('t1', 'FULFILLMENT');
    s = propose(s, offer(1));
    expect(s.rounds).toEqual([{ task_id: 't1', type: 'FULFILLMENT', round: 1, proposer: 'tmf-acme-wireless-v2', proposal: ['plan 1'], at: T(2) }]);
    s = answer(s, { verdict: 'counter', reply: ['plan 1b'], at: T(3) });
    expect(s.outcome).toBe('open');
    expect(s.rounds[0]).toMatchObject({ verdict: 'counter', reply: ['plan 1b'] });
    s = propose(s, offer(2, 'tmf-acme-crossdomain-v1'));
    s = answer(s, { verdict: 'accept', at: T(5) });
    expect(s.outcome).toBe('agreed');
    expect(s.rounds.map((r) => [r.round, r.proposer, r.verdict])).toEqual([
      [1, 'tmf-acme-wireless-v2', 'counter'],
      [2, 'tmf-acme-crossdomain-v1', 'accept'],
    ]);
    expect('reply' in (s.rounds[1] ?? {})).toBe(false);
  });

  it('ends rejected on reject, with the reason', () => {
    const s = answer(propose(openNegotiation('t1', 'FEASIBILITY'), offer(1)), { verdict: 'reject', reply: ['not feasible'], at: T(3) });
    expect(s.outcome).toBe('rejected');
    expect(s.rounds[0]?.reply).toEqual(['not feasible']);
  });

  it('ends at the round limit when the last allowed round is countered', () => {
    let s = openNegotiation('t1', 'FEASIBILITY', 3);
    for (let n = 1; n <= 3; n++) {
      s = propose(s, offer(n));
      s = answer(s, { verdict: 'counter', reply: [`counter ${n}`], at: T(2 * n + 1) });
      expect(s.outcome).toBe(n < 3 ? 'open' : 'round_limit');
    }
    expect(s.rounds).toHaveLength(3);
    expectUnchangedAfter(s, () => propose(s, offer(4)), { type: 'illegal_transition', path: 'negotiation', rule: 'negotiation_closed' });
  });

  it('accepting in the last round still agrees', () => {
    const s = answer(propose(openNegotiation('t1', 'FEASIBILITY', 1), offer(1)), { verdict: 'accept', at: T(3) });
    expect(s.outcome).toBe('agreed');
  });

  it('never changes the state it is given', () => {
    const s0 = openNegotiation('t1', 'FEASIBILITY');
    const frozen = structuredClone(s0);
    const s1 = propose(s0, offer(1));
    expect(s0).toEqual(frozen);
    const snap = structuredClone(s1);
    answer(s1, { verdict: 'accept', at: T(3) });
    expect(s1).toEqual(snap);
  });

  describe('closed negotiations refuse everything (illegal_transition, negotiation_closed)', () => {
    const agreed = answer(propose(openNegotiation('t1', 'FEASIBILITY'), offer(1)), { verdict: 'accept', at: T(3) });
    const rejected = answer(propose(openNegotiation('t1', 'FEASIBILITY'), offer(1)), { verdict: 'reject', at: T(3) });
    it.each([
      ['agreed', agreed],
      ['rejected', rejected],
    ])('%s: propose and answer', (_o, s) => {
      const e = expectUnchangedAfter(s, () => propose(s, offer(2)), { type: 'illegal_transition', path: 'negotiation', rule: 'negotiation_closed' });
      expect(e.details).toMatchObject({ task_id: 't1', outcome: s.outcome });
      expectUnchangedAfter(s, () => answer(s, { verdict: 'accept', at: T(9) }), { type: 'illegal_transition', path: 'negotiation', rule: 'negotiation_closed' });
    });
  });

  it('refuses a proposal while one awaits its verdict (awaiting_verdict)', () => {
    const s = propose(openNegotiation('t1', 'FEASIBILITY'), offer(1));
    expectUnchangedAfter(s, () => propose(s, offer(2)), { type: 'illegal_transition', path: 'negotiation', rule: 'awaiting_verdict' });
  });

  it('refuses an answer with no proposal (no_open_proposal)', () => {
    const s = openNegotiation('t1', 'FEASIBILITY');
    expectUnchangedAfter(s, () => answer(s, { verdict: 'accept', at: T(1) }), { type: 'illegal_transition', path: 'negotiation', rule: 'no_open_proposal' });
    const countered = answer(propose(s, offer(1)), { verdict: 'counter', reply: ['x'], at: T(3) });
    expectUnchangedAfter(countered, () => answer(countered, { verdict: 'accept', at: T(4) }), {
      type: 'illegal_transition',
      path: 'negotiation',
      rule: 'no_open_proposal',
    });
  });

  it.each([
    ['an empty proposal', { ...offer(1), proposal: [] }, 'proposal.proposal', 'non_empty'],
    ['a bad proposer', { ...offer(1), proposer: 'not a name' }, 'proposal.proposer', 'name_format'],
    ['a bad time', { ...offer(1), at: 'yesterday' }, 'proposal.at', 'timestamp'],
  ])('refuses %s (invalid_params)', (_what, p, path, rule) => {
    const s = openNegotiation('t1', 'FEASIBILITY');
    expectUnchangedAfter(s, () => propose(s, p), { type: 'invalid_params', path, rule });
  });

  it.each([
    ['an unknown verdict', { verdict: 'maybe', at: T(3) }, 'answer.verdict', 'enum'],
    ['counter without reply', { verdict: 'counter', at: T(3) }, 'answer.reply', 'counter_requires_reply'],
    ['an answer before its proposal', { verdict: 'accept', at: T(1) }, 'answer.at', 'time_order'],
  ])('refuses %s (invalid_params)', (_what, a, path, rule) => {
    const s = propose(openNegotiation('t1', 'FEASIBILITY'), offer(1));
    expectUnchangedAfter(s, () => answer(s, a as never), { type: 'invalid_params', path, rule });
  });

  it('refuses a proposal earlier than the previous round', () => {
    const s = answer(propose(openNegotiation('t1', 'FEASIBILITY'), offer(3)), { verdict: 'counter', reply: ['x'], at: T(7) });
    expectUnchangedAfter(s, () => propose(s, offer(1)), { type: 'invalid_params', path: 'proposal.at', rule: 'time_order' });
  });
});

describe('negotiationAllowed (5.3: feasibility before/at assignment, fulfillment during execution)', () => {
  const table: Array<[TaskState | null | undefined, boolean, boolean]> = [
    // status, FEASIBILITY, FULFILLMENT
    [null, true, false],
    [undefined, true, false],
    ['created', true, false],
    ['processing', false, true],
    ['input-required', false, true],
    ['blocked', false, false],
    ['finished', false, false],
    ['failed', false, false],
    ['canceled', false, false],
  ];
  it.each(table)('task %s: FEASIBILITY %s, FULFILLMENT %s', (status, feasibility, fulfillment) => {
    expect(negotiationAllowed('FEASIBILITY', status)).toBe(feasibility);
    expect(negotiationAllowed('FULFILLMENT', status)).toBe(fulfillment);
    for (const [type, ok] of [['FEASIBILITY', feasibility], ['FULFILLMENT', fulfillment]] as const) {
      if (ok) expect(() => assertNegotiationAllowed(type, status)).not.toThrow();
      else {
        const e = expectError(() => assertNegotiationAllowed(type, status), { type: 'illegal_transition', path: 'type', rule: 'negotiation_phase' });
        expect(e.details).toEqual({ type, status: status ?? null });
      }
    }
  });
});
