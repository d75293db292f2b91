import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, SILENT_TEMPLATE, badInputCases, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// The one-process embedded mode (PGlite + in-process bus), as `npm start` runs it.
const MAX_BODY = 64 * 1024;
let parley: EmbeddedParley;
let silent: Agent;

beforeAll(async () => {
  parley = await startParley({ port: 0, maxBodyBytes: MAX_BODY, executeTimeoutMs: 800, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
  silent = await createAgent({ name: 'silent-agent', bus: parley.bus });
  await silent.serve('silent_probe', () => new Promise(() => {}));
  const reg = await rpc(parley.url, 'register_agent', { name: 'silent-agent', scenarios: ['silent_probe'] });
  expect(reg.body.error).toBeUndefined();
  const pub = await rpc(parley.url, 'publish_schema', { agent: 'silent-agent', template: SILENT_TEMPLATE });
  expect(pub.body.error).toBeUndefined();
});

afterAll(async () => {
  await silent?.close();
  await parley?.stop();
});

const countExecutions = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n);

describe('embedded Parley: the flight booking example end to end', () => {
  it('serves get_schema_template with the draft params of Figure 6', async () => {
    const r = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking', preferred_language: 'en-US' });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.schema_id).toBe('flight_booking_v1');
    expect(r.body.result.scenario).toBe('flight_booking');
    expect(r.body.result.keys.map((k: { key_name: string }) => k.key_name)).toEqual([
      'origin',
      'destination',
      'departure_date',
      'cabin_class',
      'passenger_count',
      'other',
    ]);
  });

  it('executes Figure 8 and returns a result of Figure 9 shape', async () => {
    const before = await countExecutions();
    const r = await rpc(parley.url, 'execute', { ...FIGURE_8, client_id: 'assistant-1' });
    expect(r.body.error).toBeUndefined();
    const res = r.body.result;
    for (const k of ['booking_id', 'status', 'flight_number', 'departure_time', 'arrival_time', 'seat', 'total_amount']) {
      expect(typeof res[k]).toBe('string');
    }
    expect(res.status).toBe('confirmed');
    expect(res.seat).toMatch(/A$/); // "window seat" from `other`
    expect(res.schema_update_suggestion.new_keys[0].key_name).toBe('seat_preference');
    expect(await countExecutions()).toBe(before + 1);
  });

  it('applies defaults before the agent sees the payload', async () => {
    const r = await rpc(parley.url, 'execute', { schema_id: 'flight_booking_v1', payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' } });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.total_amount).toBe('CNY 980.00'); // economy x 1: both defaults applied
  });

  it('lists agents by scenario, tag and domain', async () => {
    const byScenario = await rpc(parley.url, 'list_agents', { scenario: 'photo_retouch' });
    expect(byScenario.body.result.agents.map((a: { name: string }) => a.name)).toEqual(['pixel-studio']);
    const all = await rpc(parley.url, 'list_agents', {});
    expect(all.body.result.agents.length).toBeGreaterThanOrEqual(4);
  });

  it('publishes a new base schema version and keeps the old one executable', async () => {
    const v1 = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' });
    const v2 = { ...v1.body.result, schema_id: 'flight_booking_v2' };
    v2.keys = [
      ...v2.keys.filter((k: { key_name: string }) => k.key_name !== 'other'),
      { key_name: 'seat_preference', key_type: 'string', required: false, default_value: 'none', enum: ['window', 'aisle', 'none'], semantic_description: 'Seat preference. Acceptable values: window, aisle, none.' },
      v1.body.result.keys.find((k: { key_name: string }) => k.key_name === 'other'),
    ];
    const pub = await rpc(parley.url, 'publish_schema', { agent: 'skyways-air', template: v2 });
    expect(pub.body.error).toBeUndefined();
    expect(pub.body.result.schema.version).toBe(2);
    expect(pub.body.result.created).toBe(true);
    const again = await rpc(parley.url, 'publish_schema', { agent: 'skyways-air', template: v2 });
    expect(again.body.result.created).toBe(false);
    const changed = await rpc(parley.url, 'publish_schema', { agent: 'skyways-air', template: { ...v2, scenario: 'flight_booking', keys: v2.keys.slice(1) } });
    expect(changed.body.error.data.type).toBe('schema_immutable');
    const latest = await rpc(parley.url, 'get_schema_template', { scenario: 'flight_booking' });
    expect(latest.body.result.schema_id).toBe('flight_booking_v2');
    const old = await rpc(parley.url, 'execute', FIGURE_8);
    expect(old.body.error).toBeUndefined();
  });
});

describe('embedded Parley: bad input over JSON-RPC', () => {
  badInputCases({ url: () => parley.url, countExecutions, maxBodyBytes: MAX_BODY, silentSchemaId: SILENT_TEMPLATE.schema_id });
});
