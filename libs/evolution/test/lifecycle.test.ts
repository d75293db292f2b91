import { describe, expect, it } from 'vitest';
import type { KeyDefinition } from '@parley/protocol';
import {
  activeExperimentalKeys,
  admitCandidate,
  applyDecision,
  clientScope,
  evaluateKey,
  isLegalTransition,
  keyMetrics,
  lifecycleConfig,
  newKeyCounters,
  nextAdmissible,
  packagePatch,
  recordAudit,
  recordExecution,
  supersedeKey,
  transition,
  type KeyCounters,
  type QueuedCandidate,
  type SchemaPatch,
} from '../src/index';
import { DAY, HOUR, T0, baseTemplate } from './helpers';

const key = (name: string): KeyDefinition => ({ key_name: name, key_type: 'string', required: false, default_value: null, semantic_description: `${name}. Example mapping: 'x' -> 'x'.` });
const patch = (id: string, name = 'seat_preference', scope: SchemaPatch['scope'] = 'global', at = T0): SchemaPatch => packagePatch({ patch_id: id, base: baseTemplate(), scope, timestamp: at, new_keys: [key(name)] });

/** `n` payloads spread over `days` days, `withKey` of them carrying the key, `correct` of those with the right type. */
function feed(c: KeyCounters, p: SchemaPatch, o: { n: number; withKey: number; correct?: number; days?: number; audits?: number; aligned?: number; client?: (i: number) => string }): KeyCounters {
  const days = o.days ?? 7;
  const correct = o.correct ?? o.withKey;
  const name = c.key_name;
  for (let i = 0; i < o.n; i++) {
    const at = p.timestamp + Math.floor((i * days * DAY) / o.n) + 1;
    const has = i < o.withKey;
    c = recordExecution(c, p, { at, client_id: o.client ? o.client(i) : `c${i % 10}`, schema_id: p.parent_schema_id, keys_present: has ? ['origin', name] : ['origin'], key_type_correct: has ? { origin: true, [name]: i < correct } : { origin: true } });
  }
  for (let i = 0; i < (o.audits ?? 0); i++) c = recordAudit(c, { at: p.timestamp + HOUR + i, aligned: i < (o.aligned ?? 0) });
  return c;
}

const AFTER_TRIAL = T0 + 7 * DAY + HOUR;

describe('metrics (zhou §6.2.3 Evaluation Metrics)', () => {
  it('computes the four ratios from payload.executed counters and audits', () => {
    const p = patch('p1');
    const c = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 20, correct: 19, audits: 10, aligned: 9, client: (i) => `c${i % 25}` });
    const m = keyMetrics(c, AFTER_TRIAL);
    expect(m).toMatchObject({ payloads: 100, payloads_with_key: 20, type_correct: 19, audited: 10, aligned: 9, usage_frequency: 0.2, value_type_correctness: 0.95, semantic_alignment_accuracy: 0.9 });
    // Clients 0..19 sent the key correctly except c19; clients 20..24 never did.
    expect(m.clients_received).toBe(25);
    expect(m.clients_adopted).toBe(19);
    expect(m.client_adoption_rate).toBeCloseTo(19 / 25, 12);
  });

  it('counts only the audience: the parent schema, after the patch, and for a per-client patch only that client', () => {
    const p = patch('p1', 'extra_legroom', clientScope('ff'));
    let c = newKeyCounters('p1', 'extra_legroom');
    const ev = { at: T0 + HOUR, client_id: 'ff', schema_id: 'flight_booking_v1', keys_present: ['extra_legroom'], key_type_correct: { extra_legroom: true } };
    c = recordExecution(c, p, ev);
    expect(recordExecution(c, p, { ...ev, client_id: 'other' })).toBe(c);
    expect(recordExecution(c, p, { ...ev, schema_id: 'flight_booking_v0' })).toBe(c);
    expect(recordExecution(c, p, { ...ev, at: T0 - 1 })).toBe(c);
    expect(keyMetrics(c, T0 + DAY).payloads).toBe(1);
  });

  it('the observation window (default 30 days) forgets older payloads', () => {
    const p = patch('p1');
    const c = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 40, withKey: 40, days: 2 });
    expect(keyMetrics(c, T0 + 3 * DAY).payloads).toBe(40);
    expect(keyMetrics(c, T0 + 33 * DAY).payloads).toBe(0);
  });

  it('below the minimum sample a figure is null, not a verdict', () => {
    const p = patch('p1');
    const m = keyMetrics(feed(newKeyCounters('p1', 'seat_preference'), p, { n: 19, withKey: 0 }), AFTER_TRIAL);
    expect(m).toMatchObject({ usage_frequency: null, value_type_correctness: null, semantic_alignment_accuracy: null });
  });
});

describe('two-phase lifecycle (zhou §6.2.3 Trial Period and Stabilization Decision)', () => {
  const p = patch('p1');
  const good = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 30, audits: 10, aligned: 9 });

  it('keeps a key experimental during the 7-day trial, whatever the figures', () => {
    const d = evaluateKey(p, 'seat_preference', good, T0 + 7 * DAY - 1);
    expect(d).toMatchObject({ action: 'keep', from: 'experimental', to: 'experimental' });
    expect(d.reasons[0]).toMatch(/in trial until/);
  });

  it('Promotion: usage >= 15%, alignment >= 80%, type correctness >= 90% after the trial → stable, flag removed', () => {
    const d = evaluateKey(p, 'seat_preference', good, AFTER_TRIAL);
    expect(d).toMatchObject({ action: 'promote', to: 'stable' });
    expect(d.figures).toMatchObject({ usage_frequency: 0.3, semantic_alignment_accuracy: 0.9, value_type_correctness: 1 });
    expect(d.reasons).toEqual(['usage_frequency 30% >= 15% (30/100)', 'semantic_alignment_accuracy 90% >= 80% (9/10 audited)', 'value_type_correctness 100% >= 90% (30/30)']);
    const after = applyDecision(p, d);
    expect(after.new_keys[0]?.lifecycle).toMatchObject({ state: 'stable', state_since: AFTER_TRIAL });
    expect(after.new_keys[0]?.lifecycle.history[0]).toMatchObject({ from: 'experimental', to: 'stable', figures: { usage_frequency: 0.3 } });
  });

  it('without audits a key is never promoted on alignment, nor deprecated on it', () => {
    const noAudit = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 30 });
    const d = evaluateKey(p, 'seat_preference', noAudit, AFTER_TRIAL);
    expect(d.action).toBe('keep');
    expect(d.reasons).toContain('semantic_alignment_accuracy unknown: 0 audits < 10; no promotion without an alignment judge');
  });

  it.each([
    ['usage < 5%', { n: 100, withKey: 4 }, /usage_frequency 4% < 5%/],
    ['alignment < 60%', { n: 100, withKey: 30, audits: 10, aligned: 5 }, /semantic_alignment_accuracy 50% < 60%/],
    ['type correctness < 70%', { n: 100, withKey: 30, correct: 20 }, /value_type_correctness 66.7% < 70%/],
  ])('Deprecation: %s → deprecated, with the figure that drove it', (_, o, reason) => {
    const d = evaluateKey(p, 'seat_preference', feed(newKeyCounters('p1', 'seat_preference'), p, o), AFTER_TRIAL);
    expect(d).toMatchObject({ action: 'deprecate', to: 'deprecated' });
    expect(d.reasons.join(' ')).toMatch(reason);
  });

  it('in between: inconclusive keys stay experimental until the patch expires, then are deprecated', () => {
    const mid = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 10, audits: 10, aligned: 9 });
    expect(evaluateKey(p, 'seat_preference', mid, AFTER_TRIAL).action).toBe('keep');
    const d = evaluateKey(p, 'seat_preference', mid, p.expires_at);
    expect(d.action).toBe('deprecate');
    expect(d.reasons[0]).toMatch(/expired/);
  });

  it('Withdrawal after the 14-day grace period, accepted for 30 more days; stable keys stay under assessment', () => {
    const dep = applyDecision(p, evaluateKey(p, 'seat_preference', feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 0 }), AFTER_TRIAL));
    const c = newKeyCounters('p1', 'seat_preference');
    expect(evaluateKey(dep, 'seat_preference', c, AFTER_TRIAL + 14 * DAY - 1).action).toBe('keep');
    const w = evaluateKey(dep, 'seat_preference', c, AFTER_TRIAL + 14 * DAY);
    expect(w).toMatchObject({ action: 'withdraw', to: 'withdrawn' });
    const gone = applyDecision(dep, w);
    expect(gone.new_keys[0]?.lifecycle).toMatchObject({ state: 'withdrawn', accept_until: AFTER_TRIAL + 44 * DAY });
    expect(evaluateKey(gone, 'seat_preference', c, AFTER_TRIAL + 100 * DAY).action).toBe('keep');

    const stable = applyDecision(p, evaluateKey(p, 'seat_preference', good, AFTER_TRIAL));
    const unused = feed(newKeyCounters('p1', 'seat_preference'), p, { n: 100, withKey: 1, days: 20 });
    expect(evaluateKey(stable, 'seat_preference', unused, T0 + 20 * DAY).action).toBe('deprecate');
  });

  it('illegal transitions are typed errors', () => {
    const lc = p.new_keys[0]!.lifecycle;
    expect(isLegalTransition('experimental', 'withdrawn')).toBe(false);
    expect(() => transition(lc, 'withdrawn', T0 + DAY, [], null)).toThrowError(expect.objectContaining({ type: 'invalid_params', rule: 'illegal_transition' }));
    const stable = transition(lc, 'stable', T0 + DAY, [], null);
    expect(() => transition(stable, 'experimental', T0 + 2 * DAY, [], null)).toThrowError(expect.objectContaining({ rule: 'illegal_transition' }));
    expect(() => transition(stable, 'deprecated', T0, [], null)).toThrowError(expect.objectContaining({ rule: 'illegal_transition', path: 'at' }));
    expect(() => evaluateKey(p, 'nope', good, T0)).toThrowError(expect.objectContaining({ rule: 'unknown_key' }));
    expect(() => lifecycleConfig({ trial_ms: 0 })).toThrowError(expect.objectContaining({ rule: 'config' }));
  });
});

describe('a better key is never a silent rename (zhou §6.2.2 immutability, §6.2.3 deprecation)', () => {
  it('supersedeKey deprecates the old key now, naming its successor; it leaves by the grace period and stays accepted', () => {
    const old = patch('p1', 'window_seat');
    const { patch: after, reason } = supersedeKey(old, 'window_seat', { key_name: 'seat_preference', patch_id: 'p2' }, T0 + DAY, 'travellers choose a side', null);
    expect(reason).toBe('superseded by "seat_preference" (p2): travellers choose a side');
    const lc = after.new_keys[0]!.lifecycle;
    expect(lc).toMatchObject({ state: 'deprecated', state_since: T0 + DAY });
    expect(lc.history.at(-1)).toMatchObject({ from: 'experimental', to: 'deprecated', reasons: [reason] });
    // The name itself never changed: clients that send window_seat keep working through the grace period.
    expect(after.new_keys[0]!.definition.key_name).toBe('window_seat');
    const d = evaluateKey(after, 'window_seat', newKeyCounters('p1', 'window_seat'), T0 + 15 * DAY + HOUR);
    expect(d).toMatchObject({ action: 'withdraw', to: 'withdrawn' });
  });

  it('only an experimental key is superseded; a settled or leaving one, or the key itself, is illegal_transition', () => {
    const old = patch('p1', 'window_seat');
    const stable = applyDecision(old, { patch_id: 'p1', key_name: 'window_seat', action: 'promote', from: 'experimental', to: 'stable', at: T0 + 8 * DAY, reasons: [], figures: keyMetrics(newKeyCounters('p1', 'window_seat'), T0) });
    expect(() => supersedeKey(stable, 'window_seat', { key_name: 'seat_preference', patch_id: 'p2' }, T0 + 9 * DAY, '', null)).toThrowError(expect.objectContaining({ type: 'invalid_params', rule: 'illegal_transition', path: 'state' }));
    expect(() => supersedeKey(old, 'window_seat', { key_name: 'window_seat', patch_id: 'p1' }, T0 + DAY, '', null)).toThrowError(expect.objectContaining({ rule: 'illegal_transition', path: 'successor' }));
    expect(() => supersedeKey(old, 'nope', { key_name: 'x_y', patch_id: 'p2' }, T0 + DAY, '', null)).toThrowError(expect.objectContaining({ rule: 'unknown_key' }));
  });
});

describe('convergence guard (zhou §6.2.3 Schema Convergence Guard)', () => {
  const ten = Array.from({ length: 10 }, (_, i) => patch(`g${i}`, `key_${String.fromCharCode(97 + i)}`));
  const cand = (name: string, scope: QueuedCandidate['scope'] = 'global'): QueuedCandidate => ({ cluster_id: name, scenario: 'flight_booking', scope, key: key(name), queued_at: T0 + 1 });

  it('at 10 active experimental keys a new trigger is queued, with the figures', () => {
    expect(activeExperimentalKeys(ten, 'flight_booking', 'global', T0 + 1)).toBe(10);
    const r = admitCandidate(cand('new_key'), ten, [], T0 + 1);
    expect(r).toMatchObject({ admitted: false, figures: { scope: 'global', experimental_keys: 10, limit: 10 } });
    expect(r.queue).toHaveLength(1);
    expect(admitCandidate(cand('new_key'), ten.slice(1), [], T0 + 1).admitted).toBe(true);
  });

  it('a slot frees when a key is promoted or deprecated; the queue is FIFO per audience', () => {
    let queue = admitCandidate(cand('first_key'), ten, [], T0 + 1).queue;
    queue = admitCandidate(cand('second_key'), ten, queue, T0 + 1).queue;
    expect(nextAdmissible(queue, ten, T0 + 2).candidate).toBeNull();
    const promoted = ten.map((p, i) => (i === 0 ? { ...p, new_keys: [{ ...p.new_keys[0]!, lifecycle: transition(p.new_keys[0]!.lifecycle, 'stable', T0 + 8 * DAY, [], null) }] } : p));
    const next = nextAdmissible(queue, promoted, T0 + 8 * DAY);
    expect(next.candidate?.key.key_name).toBe('first_key');
    expect(next.queue.map((q) => q.key.key_name)).toEqual(['second_key']);
    // A newcomer does not jump the queue even when a slot is free.
    expect(admitCandidate(cand('third_key'), promoted, next.queue, T0 + 8 * DAY).admitted).toBe(false);
  });

  it('per audience: global keys fill a client\'s budget, other clients\' keys do not', () => {
    const nine = ten.slice(1);
    const theirs = patch('pc', 'private_key', clientScope('b'));
    expect(admitCandidate(cand('mine', clientScope('a')), [...nine, theirs], [], T0 + 1).admitted).toBe(true);
    expect(admitCandidate(cand('mine', clientScope('b')), [...nine, theirs], [], T0 + 1)).toMatchObject({ admitted: false, figures: { experimental_keys: 10 } });
    // Client patches never count against the global budget.
    expect(activeExperimentalKeys([...nine, theirs], 'flight_booking', 'global', T0 + 1)).toBe(9);
  });
});
