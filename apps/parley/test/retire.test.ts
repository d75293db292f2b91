/**
 * `retire_schema` and `unregister_agent` through the gateway, on every service in one process: a retired
 * schema is no longer negotiated (the agent's latest live version is), listed only when asked, and executing
 * with its schema_id is `schema_not_found` (rule `retired`); publishing it again brings it back. Unregistering
 * an agent retires its schemas and removes it from discovery and the MCP tools, so the scenario it shared is
 * unambiguous again. Only the owner (a server agent whose namespace holds the agent) or an operator may.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createLogger } from '@parley/runtime';
import { FIGURE_8, rpc, useKey, waitFor } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

let parley: EmbeddedParley;
let acmeAgent: Agent;
const keys = { owner: '', other: '', client: '' };

const template = (schemaId: string, extra: Record<string, unknown>[] = []) => ({
  schema_id: schemaId,
  scenario: 'flight_booking',
  keys: [{ key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport. Example: from Beijing -> PEK' }, ...extra],
});
const V2_EXTRA = [{ key_name: 'cabin', key_type: 'string', required: false, default_value: 'economy', semantic_description: 'Cabin class' }];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON results, checked member by member below
async function ok(method: string, params: unknown, key?: string): Promise<any> {
  const r = await rpc(parley.url, method, params, key);
  expect(r.body.error, `${method}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
  return r.body.result;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the error data, checked member by member below
async function err(method: string, params: unknown, key?: string): Promise<any> {
  const r = await rpc(parley.url, method, params, key);
  expect(r.body.error, `${method} should fail`).toBeDefined();
  return r.body.error.data;
}

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }), authCacheMs: 0, rateLimit: null, evolution: { tickMs: 0, heatSampleMs: 0 } });
  useKey(parley.url, parley.devKey);
  const create = async (params: Record<string, unknown>) => ((await ok('create_api_key', params)) as { key: string }).key;
  keys.owner = await create({ principal: 'acme', roles: ['server_agent'], agents: ['acme-*'], scenarios: ['flight_booking'] });
  keys.other = await create({ principal: 'globex', roles: ['server_agent'], agents: ['globex-*'], scenarios: ['flight_booking'] });
  keys.client = await create({ principal: 'alice', roles: ['client_agent'] });
  acmeAgent = await createAgent({ name: 'acme-air', bus: parley.bus, prefix: parley.subjects.prefix });
  await acmeAgent.serve('flight_booking', (payload, ctx) => ({ served_by: 'acme-air', schema_id: ctx.schema_id, origin: payload.origin as string }));
  await ok('register_agent', { name: 'acme-air', scenarios: ['flight_booking'] }, keys.owner);
  await ok('publish_schema', { agent: 'acme-air', template: template('acme_flight_v1') }, keys.owner);
  await ok('publish_schema', { agent: 'acme-air', template: template('acme_flight_v2', V2_EXTRA) }, keys.owner);
}, 90_000);

afterAll(async () => {
  await acmeAgent?.close();
  await parley?.stop();
});

describe('retire_schema', () => {
  it('a second agent of a scenario makes negotiation without `agent` ambiguous: what the README example used to leave behind', async () => {
    const e = await err('get_schema_template', { scenario: 'flight_booking' });
    expect(e).toMatchObject({ type: 'ambiguous_agent', path: 'params.agent', details: { agents: ['acme-air', 'skyways-air'] } });
  });

  it('only the owner or an operator may retire: another server agent and a client are forbidden, and nothing changes', async () => {
    expect(await err('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2' }, keys.other)).toMatchObject({ type: 'forbidden', rule: 'agent_namespace', path: 'params.agent' });
    expect(await err('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2' }, keys.client)).toMatchObject({ type: 'forbidden', rule: 'role' });
    const t = await ok('get_schema_template', { scenario: 'flight_booking', agent: 'acme-air' });
    expect(t.schema_id).toBe('acme_flight_v2');
  });

  it('bad params are typed errors naming the member', async () => {
    expect(await err('retire_schema', { agent: 'acme-air' })).toMatchObject({ type: 'invalid_params', path: 'params.schema_id', rule: 'required' });
    expect(await err('retire_schema', { agent: 'Acme Air', schema_id: 'x' })).toMatchObject({ type: 'invalid_params', path: 'params.agent' });
    expect(await err('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v9' })).toMatchObject({ type: 'schema_not_found', path: 'params.schema_id', rule: 'exists' });
    expect(await err('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2', reason: 'x'.repeat(501) })).toMatchObject({ type: 'invalid_params', path: 'params.reason', rule: 'max_length' });
    expect(await err('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2', extra: 1 })).toMatchObject({ type: 'invalid_params', path: 'params.extra' });
  });

  it('the owner retires v2: negotiation serves v1 again, list_schemas hides v2 unless asked, executing v2 is refused (retired), v1 still runs', async () => {
    const before = await ok('execute', { schema_id: 'acme_flight_v2', payload: { origin: 'PEK' } });
    expect(before).toMatchObject({ served_by: 'acme-air', schema_id: 'acme_flight_v2' });

    const r = await ok('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2', reason: 'cabin moves to v3' }, keys.owner);
    expect(r.changed).toBe(true);
    expect(r.schema).toMatchObject({ agent: 'acme-air', schema_id: 'acme_flight_v2', version: 2 });
    expect(Date.parse(r.schema.retired_at)).not.toBeNaN();

    expect((await ok('get_schema_template', { scenario: 'flight_booking', agent: 'acme-air' })).schema_id).toBe('acme_flight_v1');
    const live = (await ok('list_schemas', { agent: 'acme-air' })).schemas.map((s: { schema_id: string }) => s.schema_id);
    expect(live).toEqual(['acme_flight_v1']);
    const all = (await ok('list_schemas', { agent: 'acme-air', include_retired: true })).schemas as { schema_id: string; retired_at: string }[];
    expect(all.map((s) => [s.schema_id, s.retired_at !== ''])).toEqual([
      ['acme_flight_v1', false],
      ['acme_flight_v2', true],
    ]);

    // Execution learns within its resolution cache's lifetime (1 s).
    const refused = await waitFor('execute refused', async () => {
      const x = await rpc(parley.url, 'execute', { schema_id: 'acme_flight_v2', payload: { origin: 'PEK' } });
      return x.body.error ? (x.body.error.data as Record<string, unknown>) : undefined;
    }, 5000);
    expect(refused).toMatchObject({ type: 'schema_not_found', path: 'params.schema_id', rule: 'retired', details: { agent: 'acme-air', schema_id: 'acme_flight_v2', retired_at: r.schema.retired_at } });
    expect(String(refused.message)).toContain('negotiate the scenario again');
    expect(await ok('execute', { schema_id: 'acme_flight_v1', payload: { origin: 'PEK' } })).toMatchObject({ schema_id: 'acme_flight_v1' });
  });

  it('retiring again changes nothing; an operator may retire too', async () => {
    const again = await ok('retire_schema', { agent: 'acme-air', schema_id: 'acme_flight_v2' });
    expect(again.changed).toBe(false);
  });

  it('publishing the same template again brings it back (a note says so); a changed one is still immutable', async () => {
    const changed = await err('publish_schema', { agent: 'acme-air', template: template('acme_flight_v2') }, keys.owner);
    expect(changed).toMatchObject({ type: 'schema_immutable' });
    const back = await ok('publish_schema', { agent: 'acme-air', template: template('acme_flight_v2', V2_EXTRA) }, keys.owner);
    expect(back.created).toBe(true);
    expect(back.schema.retired_at).toBe('');
    expect(back.notes.join(' ')).toMatch(/acme-air\/acme_flight_v2 was retired at .*; publishing it again brought it back/);
    expect((await ok('get_schema_template', { scenario: 'flight_booking', agent: 'acme-air' })).schema_id).toBe('acme_flight_v2');
  });
});

describe('unregister_agent', () => {
  const tools = async () => {
    const res = await fetch(`${parley.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${parley.devKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    return ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
  };

  it('another server agent and a client may not; nothing changes', async () => {
    expect(await err('unregister_agent', { name: 'acme-air' }, keys.other)).toMatchObject({ type: 'forbidden', rule: 'agent_namespace' });
    expect(await err('unregister_agent', { name: 'acme-air' }, keys.client)).toMatchObject({ type: 'forbidden', rule: 'role' });
    expect((await ok('get_agent', { name: 'acme-air' })).agent.name).toBe('acme-air');
    expect(await tools()).toContain('acme-air__flight_booking');
  });

  it('the owner unregisters: its schemas are retired, it leaves discovery and the MCP tools, the scenario is unambiguous again', async () => {
    const r = await ok('unregister_agent', { name: 'acme-air' }, keys.owner);
    expect(r.agent).toMatchObject({ name: 'acme-air', scenarios: ['flight_booking'] });
    expect(r.retired_schemas.sort()).toEqual(['acme_flight_v1', 'acme_flight_v2']);
    expect(await err('get_agent', { name: 'acme-air' })).toMatchObject({ type: 'agent_not_found' });
    const agents = (await ok('list_agents', { scenario: 'flight_booking' })).agents.map((a: { name: string }) => a.name);
    expect(agents).toEqual(['skyways-air']);
    expect((await ok('get_schema_template', { scenario: 'flight_booking' })).schema_id).toBe('flight_booking_v1');
    expect(await tools()).not.toContain('acme-air__flight_booking');
    const refused = await waitFor('execute refused', async () => {
      const x = await rpc(parley.url, 'execute', { schema_id: 'acme_flight_v1', payload: { origin: 'PEK' } });
      return x.body.error ? (x.body.error.data as Record<string, unknown>) : undefined;
    }, 5000);
    expect(refused).toMatchObject({ type: 'schema_not_found', rule: 'retired' });
    expect(await ok('execute', FIGURE_8)).toMatchObject({ status: 'confirmed' });
  });

  it('unregistering an agent that is not registered is agent_not_found', async () => {
    expect(await err('unregister_agent', { name: 'acme-air' })).toMatchObject({ type: 'agent_not_found', path: 'params.name' });
    expect(await err('unregister_agent', {})).toMatchObject({ type: 'invalid_params', path: 'params.name' });
  });
});
