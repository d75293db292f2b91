/**
 * AN draft 004 §5.2 (msg-header, msg-tail, task-subscription, commuType),
 * §5.3 (task-negotiate, Figure 8), §5.4 (notification, Figure 9), §4.4
 * (structured and unstructured tasks): params of each operation.
 */
import { describe, expect, it } from 'vitest';
import {
  parseCapabilityRequest,
  parseNegotiate,
  parseNotify,
  parseResultQuery,
  parseSubscribe,
  parseSubscription,
  parseTaskAssign,
  parseTaskCancel,
} from '@parley/an';
import { expectRefused, withMembers } from './helpers';
import { FIGURE_7, PROMPT_CONTENT, taskAssignInput } from './fixtures';

const bad = (path: string, rule: string) => ({ type: 'invalid_params' as const, path, rule });

describe('parseTaskAssign (taskAssign, 5.2 / 4.4)', () => {
  it('parses a full task: prompt sections, payload, data params, subscription', () => {
    const input = taskAssignInput();
    const p = parseTaskAssign(input);
    expect(p).toEqual({
      ...input,
      prompt: {
        target_object: 'gNodeB cluster east-7 (312 cells)',
        task_description: 'Find the root cause of the batch outage since 09:12 and propose a recovery plan.',
        environmental_information: 'Transport link TL-44 flapped at 09:11; power alarms at site S-18.',
      },
    });
    expect(input).toEqual(taskAssignInput());
  });

  it('a content-only task with plain text has no prompt; defaults are filled', () => {
    expect(parseTaskAssign({ send_from: 'a', send_to: 'b', content: 'Reboot R1.' })).toEqual({
      send_from: 'a',
      send_to: 'b',
      content: 'Reboot R1.',
      task_async: false,
      term_explains: [],
      msg_data: [],
      data_params: [],
    });
  });

  it('a payload-only task (the structured side, 4.4) names its schema', () => {
    const p = parseTaskAssign({ send_from: 'a', send_to: 'b', scenario: 'fault management', payload: { x: 1 }, commu_type: 'taskAssign' });
    expect(p.payload).toEqual({ x: 1 });
    expect(p.scenario).toBe('fault management');
    expect('content' in p).toBe(false);
    expect('commu_type' in p).toBe(false);
  });

  it('parses Figure 7 content as printed into the prompt', () => {
    expect(parseTaskAssign({ send_from: 'a', send_to: 'b', content: FIGURE_7 }).prompt).toEqual({
      target_object: 'xxx',
      task_description: 'xxx',
      environmental_information: 'xxx',
    });
  });

  it('defaults a webhook method to POST and upper-cases it', () => {
    expect(parseTaskAssign({ ...taskAssignInput(), subscription: { protocol: 'webhook', url: 'http://x.example/h' } }).subscription).toEqual({
      protocol: 'webhook',
      method: 'POST',
      url: 'http://x.example/h',
    });
    expect(parseTaskAssign({ ...taskAssignInput(), subscription: { protocol: 'webhook', method: 'put', url: 'https://x.example/h' } }).subscription?.method).toBe(
      'PUT',
    );
    expect(parseTaskAssign({ ...taskAssignInput(), subscription: { protocol: 'grpc' } }).subscription).toEqual({ protocol: 'grpc' });
  });

  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['neither content nor payload', withMembers(taskAssignInput(), { content: undefined, payload: undefined }), 'params', 'content_or_payload'],
    ['a payload without schema_id or scenario', withMembers(taskAssignInput(), { schema_id: undefined }), 'params.schema_id', 'payload_schema'],
    ['missing send_from', withMembers(taskAssignInput(), { send_from: undefined }), 'params.send_from', 'required'],
    ['missing send_to', withMembers(taskAssignInput(), { send_to: undefined }), 'params.send_to', 'required'],
    ['a send_to with a slash', withMembers(taskAssignInput(), { send_to: 'a/b' }), 'params.send_to', 'name_format'],
    ['a task_id with a space', withMembers(taskAssignInput(), { task_id: 'task 1' }), 'params.task_id', 'pattern'],
    ['a task_id of 129 characters', withMembers(taskAssignInput(), { task_id: 't'.repeat(129) }), 'params.task_id', 'pattern'],
    ['task_async as a string', withMembers(taskAssignInput(), { task_async: 'true' }), 'params.task_async', 'type'],
    ['an unknown member', withMembers(taskAssignInput(), { priority: 1 }), 'params.priority', 'unknown_member'],
    ['the draft spelling task-sendFrom', withMembers(taskAssignInput(), { 'task-sendFrom': 'a' }), 'params.task-sendFrom', 'unknown_member'],
    ['another commu_type', withMembers(taskAssignInput(), { commu_type: 'taskCancel' }), 'params.commu_type', 'enum'],
    [
      'content with an incomplete prompt',
      withMembers(taskAssignInput(), { content: '## target object\nR1\n## task description\nreboot' }),
      'params.content',
      'prompt_section_missing',
    ],
    ['content over 64 KiB', withMembers(taskAssignInput(), { content: 'x'.repeat(65 * 1024) }), 'params.content', 'max_length'],
    ['a payload that is an array', withMembers(taskAssignInput(), { payload: [1] }), 'params.payload', 'type'],
    ['a schema_id with a space', withMembers(taskAssignInput(), { schema_id: 'fault v1' }), 'params.schema_id', 'pattern'],
    ['msg_data naming no data param', withMembers(taskAssignInput(), { msg_data: ['alarms-1', 'kpis'] }), 'params.msg_data[1]', 'unknown_data_param'],
    ['msg_data without data_params', withMembers(taskAssignInput(), { data_params: undefined }), 'params.msg_data[0]', 'unknown_data_param'],
    ['a repeated msg_data id', withMembers(taskAssignInput(), { msg_data: ['alarms-1', 'alarms-1'] }), 'params.msg_data[1]', 'unique'],
    [
      'two data params with one id',
      withMembers(taskAssignInput(), { data_params: [{ id: 'd', data_type: 'text', data: 'x' }, { id: 'd', data_type: 'text', data: 'y' }], msg_data: [] }),
      'params.data_params[1]',
      'unique',
    ],
    [
      'a data param of an unknown type',
      withMembers(taskAssignInput(), { data_params: [{ id: 'd', data_type: 'pdf', data: 'x' }], msg_data: [] }),
      'params.data_params[0].data_type',
      'enum',
    ],
    [
      'a term explained twice',
      withMembers(taskAssignInput(), { term_explains: [{ term: 'TL', explanation: 'a' }, { term: 'TL', explanation: 'b' }] }),
      'params.term_explains[1]',
      'unique',
    ],
    [
      'the draft spelling explaination',
      withMembers(taskAssignInput(), { term_explains: [{ term: 'TL', explaination: 'a' }] }),
      'params.term_explains[0].explaination',
      'unknown_member',
    ],
    ['a webhook without url', withMembers(taskAssignInput(), { subscription: { protocol: 'webhook' } }), 'params.subscription.url', 'required'],
    [
      'a webhook with an ftp url',
      withMembers(taskAssignInput(), { subscription: { protocol: 'webhook', url: 'ftp://x.example/h' } }),
      'params.subscription.url',
      'url',
    ],
    [
      'a webhook with a relative url',
      withMembers(taskAssignInput(), { subscription: { protocol: 'webhook', url: '/hook' } }),
      'params.subscription.url',
      'url',
    ],
    [
      'a webhook with GET',
      withMembers(taskAssignInput(), { subscription: { protocol: 'webhook', method: 'GET', url: 'https://x.example/h' } }),
      'params.subscription.method',
      'enum',
    ],
    ['an unknown protocol', withMembers(taskAssignInput(), { subscription: { protocol: 'smtp' } }), 'params.subscription.protocol', 'enum'],
    [
      'a url on a grpc subscription',
      withMembers(taskAssignInput(), { subscription: { protocol: 'grpc', url: 'https://x.example' } }),
      'params.subscription.url',
      'webhook_only',
    ],
  ];
  it.each(cases)('refuses %s', (_what, input, path, rule) => {
    expectRefused((x) => parseTaskAssign(x), input, bad(path, rule));
  });

  it('refuses a payload with a __proto__ member (payload_invalid, forbidden_key)', () => {
    const input = JSON.parse('{"send_from":"a","send_to":"b","schema_id":"s1","payload":{"x":{"__proto__":{"polluted":true}}}}') as unknown;
    expectRefused((x) => parseTaskAssign(x), input, { type: 'payload_invalid', path: 'params.payload.x.__proto__', rule: 'forbidden_key' });
  });

  it('refuses a non-object', () => {
    expectRefused((x) => parseTaskAssign(x), 'task', bad('params', 'type'));
    expectRefused((x) => parseTaskAssign(x), null, bad('params', 'type'));
    expectRefused((x) => parseTaskAssign(x), undefined, bad('params', 'required'));
  });

  it('uses the given root path', () => {
    expectRefused((x) => parseTaskAssign(x, 'task'), withMembers(taskAssignInput(), { send_to: undefined }), bad('task.send_to', 'required'));
  });
});

describe('parseTaskCancel (taskCancel, 5.2)', () => {
  it('parses with and without a reason', () => {
    expect(parseTaskCancel({ task_id: 't1', send_from: 'a', reason: 'no longer needed' })).toEqual({ task_id: 't1', send_from: 'a', reason: 'no longer needed' });
    expect(parseTaskCancel({ task_id: 't1', send_from: 'a', commu_type: 'taskCancel' })).toEqual({ task_id: 't1', send_from: 'a' });
  });
  it.each([
    [{ send_from: 'a' }, 'params.task_id', 'required'],
    [{ task_id: 't1' }, 'params.send_from', 'required'],
    [{ task_id: 't1', send_from: 'a', reason: 3 }, 'params.reason', 'type'],
    [{ task_id: 't1', send_from: 'a', send_to: 'b' }, 'params.send_to', 'unknown_member'],
  ])('refuses %j', (input, path, rule) => {
    expectRefused((x) => parseTaskCancel(x), input, bad(path, rule));
  });
});

describe('parseNegotiate (FeasibilityNegotiate / FulfillmentNegotiate, 5.3 Figure 8)', () => {
  const proposal = { task_id: 't1', send_from: 'a', send_to: 'b', content: ['Reroute via TL-45 within 10 minutes.'] };

  it('parses a proposal', () => {
    expect(parseNegotiate(proposal, 'FULFILLMENT')).toEqual(proposal);
  });

  it('parses a FEASIBILITY check before any task exists (no task_id)', () => {
    const p = parseNegotiate({ send_from: 'a', send_to: 'b', content: [PROMPT_CONTENT], type: 'FEASIBILITY' }, 'FEASIBILITY');
    expect(p.task_id).toBeUndefined();
    expect(p.content).toEqual([PROMPT_CONTENT]);
  });

  it('parses answers: accept, reject with a reason, counter with a counter-proposal', () => {
    expect(parseNegotiate({ ...proposal, verdict: 'accept' }, 'FULFILLMENT').verdict).toBe('accept');
    expect(parseNegotiate({ ...proposal, verdict: 'reject', reply: ['TL-45 is saturated.'] }, 'FULFILLMENT').reply).toEqual(['TL-45 is saturated.']);
    expect(parseNegotiate({ ...proposal, verdict: 'counter', reply: ['Reroute via TL-46.'] }, 'FEASIBILITY')).toEqual({
      ...proposal,
      verdict: 'counter',
      reply: ['Reroute via TL-46.'],
    });
  });

  it.each([
    ['FULFILLMENT without task_id', withMembers(proposal, { task_id: undefined }), 'FULFILLMENT', 'params.task_id', 'required'],
    ['no content', withMembers(proposal, { content: undefined }), 'FEASIBILITY', 'params.content', 'required'],
    ['empty content', withMembers(proposal, { content: [] }), 'FEASIBILITY', 'params.content', 'non_empty'],
    ['content as a string', withMembers(proposal, { content: 'x' }), 'FEASIBILITY', 'params.content', 'type'],
    ['an empty proposal item', withMembers(proposal, { content: ['ok', ''] }), 'FEASIBILITY', 'params.content[1]', 'non_empty'],
    ['an unknown verdict', withMembers(proposal, { verdict: 'maybe' }), 'FEASIBILITY', 'params.verdict', 'enum'],
    ['counter without reply', withMembers(proposal, { verdict: 'counter' }), 'FEASIBILITY', 'params.reply', 'counter_requires_reply'],
    ['reply without verdict', withMembers(proposal, { reply: ['x'] }), 'FEASIBILITY', 'params.reply', 'reply_without_verdict'],
    ['a type that disagrees', withMembers(proposal, { type: 'FULFILLMENT' }), 'FEASIBILITY', 'params.type', 'negotiation_type'],
    ['the other commu_type', withMembers(proposal, { commu_type: 'FulfillmentNegotiate' }), 'FEASIBILITY', 'params.commu_type', 'enum'],
    ['an unknown member', withMembers(proposal, { round: 2 }), 'FEASIBILITY', 'params.round', 'unknown_member'],
  ] as const)('refuses %s', (_what, input, type, path, rule) => {
    expectRefused((x) => parseNegotiate(x, type), input, bad(path, rule));
  });
});

describe('parseResultQuery (taskResultQuery, 5.2)', () => {
  it('parses', () => {
    expect(parseResultQuery({ task_id: 'urn:task:1', send_from: 'a' })).toEqual({ task_id: 'urn:task:1', send_from: 'a' });
  });
  it.each([
    [{ send_from: 'a' }, 'params.task_id', 'required'],
    [{ task_id: ':x', send_from: 'a' }, 'params.task_id', 'pattern'],
    [{ task_id: 't', send_from: 'a', after_seq: 1 }, 'params.after_seq', 'unknown_member'],
  ])('refuses %j', (input, path, rule) => {
    expectRefused((x) => parseResultQuery(x), input, bad(path, rule));
  });
});

describe('parseSubscribe (taskResultSubscribe, 5.2 task-subscription, 4.2)', () => {
  it('parses a nats subscription resuming after seq 4', () => {
    expect(parseSubscribe({ task_id: 't', send_from: 'a', subscription: { protocol: 'nats' }, after_seq: 4 })).toEqual({
      task_id: 't',
      send_from: 'a',
      subscription: { protocol: 'nats' },
      after_seq: 4,
    });
  });
  it('parses a webhook subscription', () => {
    expect(parseSubscribe({ task_id: 't', send_from: 'a', subscription: { protocol: 'webhook', method: 'PUT', url: 'https://h.example/x' } }).subscription).toEqual({
      protocol: 'webhook',
      method: 'PUT',
      url: 'https://h.example/x',
    });
  });
  it.each([
    [{ task_id: 't', send_from: 'a' }, 'params.subscription', 'required'],
    [{ task_id: 't', send_from: 'a', subscription: { protocol: 'nats' }, after_seq: -1 }, 'params.after_seq', 'non_negative_integer'],
    [{ task_id: 't', send_from: 'a', subscription: { protocol: 'nats' }, after_seq: 1.5 }, 'params.after_seq', 'non_negative_integer'],
    [{ task_id: 't', send_from: 'a', subscription: { protocol: 'nats' }, after_seq: '3' }, 'params.after_seq', 'type'],
    [{ task_id: 't', send_from: 'a', subscription: { protocol: 'webhook', url: 'mailto:x@y.z' } }, 'params.subscription.url', 'url'],
    [{ task_id: 't', send_from: 'a', subscription: { protocol: 'nats', method: 'POST' } }, 'params.subscription.method', 'webhook_only'],
    [{ task_id: 't', send_from: 'a', subscription: { 'subscript-protocol': 'nats' } }, 'params.subscription.subscript-protocol', 'unknown_member'],
  ])('refuses %j', (input, path, rule) => {
    expectRefused((x) => parseSubscribe(x), input, bad(path, rule));
  });
  it('parseSubscription names its path', () => {
    expectRefused((x) => parseSubscription(x, 'sub'), { protocol: 'webhook', url: 'https://h.example', method: 'DELETE' }, bad('sub.method', 'enum'));
  });
});

describe('parseNotify (taskResultNotify, 5.4 Figure 9)', () => {
  it('parses a finished task with its result', () => {
    expect(parseNotify({ task_id: 't', send_from: 'b', status: 'finished', result: { root_cause: 'TL-44' } })).toEqual({
      task_id: 't',
      send_from: 'b',
      status: 'finished',
      result: { root_cause: 'TL-44' },
    });
  });
  it('parses input-required with what is required', () => {
    expect(parseNotify({ task_id: 't', send_from: 'b', status: 'input-required', required: 'The site access code.' }).required).toBe('The site access code.');
  });
  it.each([
    [{ task_id: 't', send_from: 'b' }, 'params.status', 'required'],
    [{ task_id: 't', send_from: 'b', status: 'suspended' }, 'params.status', 'enum'],
    [{ task_id: 't', send_from: 'b', status: 'input-required' }, 'params.required', 'requires_required'],
    [{ task_id: 't', send_from: 'b', status: 'processing', required: 'x' }, 'params.required', 'required_only_when_input_required'],
    [{ task_id: 't', send_from: 'b', status: 'finished', result: 'done' }, 'params.result', 'type'],
  ])('refuses %j', (input, path, rule) => {
    expectRefused((x) => parseNotify(x), input, bad(path, rule));
  });
});

describe('parseCapabilityRequest (CapabilityRequest, 5.2 / 4.1)', () => {
  it('parses with and without skills', () => {
    expect(parseCapabilityRequest({ send_from: 'a', send_to: 'b' })).toEqual({ send_from: 'a', send_to: 'b' });
    expect(parseCapabilityRequest({ send_from: 'a', send_to: 'b', skills: ['root_cause_analysis'] }).skills).toEqual(['root_cause_analysis']);
  });
  it.each([
    [{ send_from: 'a' }, 'params.send_to', 'required'],
    [{ send_from: 'a', send_to: 'b', skills: ['x', 'x'] }, 'params.skills[1]', 'unique'],
    [{ send_from: 'a', send_to: 'b', skills: 'x' }, 'params.skills', 'type'],
    [{ send_from: 'a', send_to: 'b', task_id: 't' }, 'params.task_id', 'unknown_member'],
  ])('refuses %j', (input, path, rule) => {
    expectRefused((x) => parseCapabilityRequest(x), input, bad(path, rule));
  });
});
