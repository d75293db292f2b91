import { expect, it } from 'vitest';
import { FIGURE_8, postRaw, rpc, type RawResponse } from './rpc';

/**
 * Bad input over JSON-RPC, run against any running Parley (embedded or
 * separate processes). Every case must get a typed error that names the key
 * path and the rule, must not leak a stack trace, and must change nothing.
 */
export interface BadInputContext {
  url(): string;
  /** Executions recorded so far (any scenario). */
  countExecutions(): Promise<number>;
  /** Body limit the gateway was started with. */
  maxBodyBytes: number;
  /** schema_id of a scenario whose agent never answers. */
  silentSchemaId: string;
}

export function expectRpcError(r: RawResponse, type: string, code: number, path?: string, rule?: string): void {
  expect(r.body?.jsonrpc).toBe('2.0');
  expect(r.body?.result).toBeUndefined();
  expect(r.body?.error?.code).toBe(code);
  expect(r.body?.error?.data?.type).toBe(type);
  if (path !== undefined) expect(r.body.error.data.path).toBe(path);
  if (rule !== undefined) expect(r.body.error.data.rule).toBe(rule);
  expect(typeof r.body.error.message).toBe('string');
  // No stack traces or internals on the wire.
  expect(r.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

export function badInputCases(ctx: BadInputContext): void {
  const exec = (payload: Record<string, unknown>) => rpc(ctx.url(), 'execute', { schema_id: 'flight_booking_v1', payload });
  const valid = FIGURE_8.payload;

  const cases: Array<[string, () => Promise<RawResponse>, string, number, string?, string?]> = [
    ['malformed JSON', () => postRaw(ctx.url(), '{"jsonrpc":"2.0","id":1,"method":'), 'parse_error', -32700, 'body', 'json'],
    ['a bad envelope (jsonrpc missing)', () => postRaw(ctx.url(), JSON.stringify({ id: 1, method: 'execute', params: {} })), 'invalid_request', -32600, 'jsonrpc', 'equals_2.0'],
    ['a bad envelope (params an array)', () => postRaw(ctx.url(), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: [1] })), 'invalid_params', -32602, 'params', 'type'],
    ['an unknown method', () => rpc(ctx.url(), 'book_everything', {}), 'method_not_found', -32601, 'method', 'known_method'],
    ['an unknown schema_id', () => rpc(ctx.url(), 'execute', { schema_id: 'no_such_schema_v9', payload: valid }), 'schema_not_found', -32020, 'params.schema_id', 'exists'],
    ['a missing required key', () => exec({ destination: 'SHA', departure_date: '2026-05-04' }), 'payload_invalid', -32011, 'payload.origin', 'required'],
    ['a wrong type', () => exec({ ...valid, passenger_count: 'two' }), 'payload_invalid', -32011, 'payload.passenger_count', 'type'],
    ['an out-of-range value', () => exec({ ...valid, passenger_count: 12 }), 'payload_invalid', -32011, 'payload.passenger_count', 'maximum'],
    ['an enum violation', () => exec({ ...valid, cabin_class: 'cargo' }), 'payload_invalid', -32011, 'payload.cabin_class', 'enum'],
    ['a date that is not ISO 8601', () => exec({ ...valid, departure_date: 'next Monday' }), 'payload_invalid', -32011, 'payload.departure_date', 'format'],
    ['an unknown key', () => exec({ ...valid, meal: 'vegan' }), 'payload_invalid', -32011, 'payload.meal', 'unknown_key'],
    ['`other` of the wrong type', () => exec({ ...valid, other: 42 }), 'payload_invalid', -32011, 'payload.other', 'other_type'],
    ['`other` as an array holding a non-string', () => exec({ ...valid, other: ['window seat', 7] }), 'payload_invalid', -32011, undefined, 'other_type'],
    [
      'a `__proto__` key',
      () =>
        postRaw(
          ctx.url(),
          '{"jsonrpc":"2.0","id":7,"method":"execute","params":{"schema_id":"flight_booking_v1","payload":{"origin":"PEK","destination":"SHA","departure_date":"2026-05-04","__proto__":{"admin":true}}}}',
        ),
      'payload_invalid',
      -32011,
      'payload.__proto__',
      'forbidden_key',
    ],
    ['a `constructor` key', () => exec({ ...valid, constructor: { prototype: {} } }), 'payload_invalid', -32011, 'payload.constructor', 'forbidden_key'],
    ['a payload that is not an object', () => rpc(ctx.url(), 'execute', { schema_id: 'flight_booking_v1', payload: 'PEK to SHA' }), 'invalid_params', -32602, 'params.payload', 'type'],
    ['a missing scenario in get_schema_template', () => rpc(ctx.url(), 'get_schema_template', { preferred_language: 'en-US' }), 'invalid_params', -32602, 'params.scenario', 'required'],
    ['an unknown scenario', () => rpc(ctx.url(), 'get_schema_template', { scenario: 'teleportation' }), 'scenario_not_found', -32021, 'params.scenario', 'exists'],
  ];

  for (const [name, send, type, code, path, rule] of cases) {
    it(`rejects ${name} with ${type}${rule ? ` (${rule})` : ''} and changes nothing`, async () => {
      const before = await ctx.countExecutions();
      const r = await send();
      expect(r.status).toBe(200);
      expectRpcError(r, type, code, path, rule);
      expect(await ctx.countExecutions()).toBe(before);
    });
  }

  it('rejects a body over the documented size limit with HTTP 413 and body_too_large', async () => {
    const before = await ctx.countExecutions();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', payload: { ...valid, other: 'x'.repeat(ctx.maxBodyBytes) } } });
    const r = await postRaw(ctx.url(), big);
    expect(r.status).toBe(413);
    expectRpcError(r, 'body_too_large', -32600, 'body', 'max_bytes');
    expect(await ctx.countExecutions()).toBe(before);
  });

  it('answers a server agent that never replies with agent_timeout and records nothing as executed', async () => {
    const before = await ctx.countExecutions();
    const r = await rpc(ctx.url(), 'execute', { schema_id: ctx.silentSchemaId, payload: { question: 'anyone there?' } });
    expectRpcError(r, 'agent_timeout', -32030);
    expect(r.body.error.data.retryable).toBe(true);
    expect(await ctx.countExecutions()).toBe(before);
  });

  it('lists every violation of one payload, the first as path/rule', async () => {
    const r = await exec({ origin: 'PEK', passenger_count: 0, cabin_class: 'cargo' });
    expectRpcError(r, 'payload_invalid', -32011);
    const rules = (r.body.error.data.violations as Array<{ path: string; rule: string }>).map((v) => `${v.path}:${v.rule}`);
    expect(rules).toEqual(expect.arrayContaining(['payload.destination:required', 'payload.departure_date:required', 'payload.passenger_count:minimum', 'payload.cabin_class:enum']));
  });

  it('answers a notification (no id) with no body', async () => {
    const r = await postRaw(ctx.url(), JSON.stringify({ jsonrpc: '2.0', method: 'list_agents', params: {} }));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });
}

/** The silent scenario: a template whose agent subscribes and never answers. */
export const SILENT_TEMPLATE = {
  schema_id: 'silent_probe_v1',
  scenario: 'silent_probe',
  keys: [{ key_name: 'question', key_type: 'string', required: true, semantic_description: 'Anything; the agent never answers.' }],
};
