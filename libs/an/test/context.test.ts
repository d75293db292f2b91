/** AN draft 004 §5.2 context: a task's communication records, kept in order. */
import { describe, expect, it } from 'vitest';
import { appendContext, type ContextMessage } from '@parley/an';
import { expectError } from './helpers';

type Msg = Omit<ContextMessage, 'seq'>;
const msg = (time: string, over: Partial<Msg> = {}): Msg => ({
  task_id: 'task-1',
  send_from: 'tmf-acme-crossdomain-v1',
  send_to: 'tmf-acme-wireless-v2',
  commu_type: 'taskAssign',
  request: { content: 'Find the root cause.', data_params: ['alarms-1'] },
  time,
  ...over,
});

describe('appendContext (5.2 context)', () => {
  it('numbers messages 1, 2, 3 and returns a new list', () => {
    const h0: ContextMessage[] = [];
    const h1 = appendContext(h0, msg('2026-03-01T10:00:00Z'));
    const h2 = appendContext(h1, msg('2026-03-01T10:00:05Z', { commu_type: 'taskResultNotify', request: undefined, response: { content: 'processing' } }));
    const h3 = appendContext(h2, msg('2026-03-01T10:00:05Z', { commu_type: 'taskResultQuery' }));
    expect(h0).toEqual([]);
    expect(h1).toHaveLength(1);
    expect(h3.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(h3[0]).toEqual({ ...msg('2026-03-01T10:00:00Z'), seq: 1 });
    expect(h3[1]).toEqual({
      task_id: 'task-1',
      seq: 2,
      send_from: 'tmf-acme-crossdomain-v1',
      send_to: 'tmf-acme-wireless-v2',
      commu_type: 'taskResultNotify',
      response: { content: 'processing' },
      time: '2026-03-01T10:00:05Z',
    });
  });

  it('accepts 29 February of a leap year', () => {
    expect(appendContext([], msg('2028-02-29T23:59:59.999-05:30'))[0]?.time).toBe('2028-02-29T23:59:59.999-05:30');
  });

  it('compares times across offsets', () => {
    const h = appendContext([], msg('2026-03-01T10:00:00Z'));
    expect(appendContext(h, msg('2026-03-01T11:00:00.500+01:00'))[1]?.seq).toBe(2);
  });

  it('refuses a message of another task (context_order)', () => {
    const h = appendContext([], msg('2026-03-01T10:00:00Z'));
    const before = structuredClone(h);
    const e = expectError(() => appendContext(h, msg('2026-03-01T10:00:01Z', { task_id: 'task-2' })), {
      type: 'invalid_params',
      path: 'message.task_id',
      rule: 'context_order',
    });
    expect(e.details).toEqual({ expected: 'task-1', got: 'task-2' });
    expect(h).toEqual(before);
  });

  it('refuses a message whose time goes backwards (context_order)', () => {
    const h = appendContext(appendContext([], msg('2026-03-01T10:00:00Z')), msg('2026-03-01T10:00:10Z'));
    const e = expectError(() => appendContext(h, msg('2026-03-01T10:00:09.999Z')), { type: 'invalid_params', path: 'message.time', rule: 'context_order' });
    expect(e.details).toEqual({ last_time: '2026-03-01T10:00:10Z', last_seq: 2 });
    expect(h).toHaveLength(2);
    // an earlier instant written with another offset is still earlier
    expectError(() => appendContext(h, msg('2026-03-01T11:00:09+01:00')), { type: 'invalid_params', path: 'message.time', rule: 'context_order' });
  });

  it.each([
    ['a bad time', msg('10:00'), 'message.time', 'timestamp'],
    ['an impossible date', msg('2026-02-30T10:00:00Z'), 'message.time', 'timestamp'],
    ['hour 24', msg('2026-03-01T24:00:00Z'), 'message.time', 'timestamp'],
    ['an offset of 25 hours', msg('2026-03-01T10:00:00+25:00'), 'message.time', 'timestamp'],
    ['an unknown commu_type', msg('2026-03-01T10:00:00Z', { commu_type: 'taskPause' as never }), 'message.commu_type', 'enum'],
    ['a bad sender', msg('2026-03-01T10:00:00Z', { send_from: 'a b' }), 'message.send_from', 'name_format'],
    ['a seq given', { ...msg('2026-03-01T10:00:00Z'), seq: 7 } as Msg, 'message.seq', 'unknown_member'],
    ['repeated data params', msg('2026-03-01T10:00:00Z', { request: { data_params: ['d', 'd'] } }), 'message.request.data_params[1]', 'unique'],
  ])('refuses %s', (_what, m, path, rule) => {
    expectError(() => appendContext([], m), { type: 'invalid_params', path, rule });
  });
});
