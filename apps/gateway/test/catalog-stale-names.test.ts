/**
 * tools/list `_meta.names` and tools/call look a tool up the same way (draft-chang §3.2 with §3.4): a tool
 * registered on another replica within the catalogue's TTL is found by name by both, not refused by names.
 */
import { templateToWire, type Agent, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import { flightBookingTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { ToolCatalog } from '../src/catalog';
import { listTools } from '../src/mcp';

const T = '2026-01-01T00:00:00Z';
const SKYWAYS: Agent = { name: 'skyways-air', description: 'Skyways bookings', domain: 'travel', tags: ['airline'], scenarios: ['flight_booking'], version: '1.0.0', registered_at: T, updated_at: T, executions: 0, last_executed_at: '' };
const SCHEMA = { agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario: 'flight_booking', scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: false, published_at: T };

/** A registry another replica writes to: the agent appears once `registered` is set. */
function backends(): { registered: { value: boolean }; registry: RegistryApi; negotiation: NegotiationApi } {
  const registered = { value: false };
  const registry = { listAgents: async () => ({ agents: registered.value ? [SKYWAYS] : [] }) } as unknown as RegistryApi;
  const negotiation = {
    listSchemas: async () => ({ schemas: registered.value ? [SCHEMA] : [] }),
    getSchema: async () => ({ template: templateToWire(flightBookingTemplate), schema: SCHEMA, applied_patches: [], etag: 'e', withdrawn_keys: [] }),
  } as unknown as NegotiationApi;
  return { registered, registry, negotiation };
}

describe('ToolCatalog: a name missed by the cached catalogue rebuilds it once, for names as for calls', () => {
  it('a tool registered elsewhere within the TTL is listed by name and callable alike', async () => {
    let now = 0;
    const b = backends();
    const catalog = new ToolCatalog(b, { ttlMs: 5000, now: () => now });
    expect(await catalog.selectable()).toEqual([]);
    b.registered.value = true;
    // Still within the TTL: the plain list is the cached one.
    now = 2000;
    expect(await catalog.selectable()).toEqual([]);
    const fresh = new ToolCatalog(b, { now: () => now });
    const name = (await fresh.entries())[0]!.tool.name;
    const listed = await listTools(await catalog.selectableHolding([name]), { names: [name] });
    expect(listed.tools.map((t) => t.name)).toEqual([name]);
    expect((await catalog.byName(name))?.tool.name).toBe(name);
  });

  it('a miss rebuilds at most once a second; a name still unknown after it is refused by listTools as unknown_tool', async () => {
    let now = 0;
    let builds = 0;
    const b = backends();
    const counted = { ...b, registry: { listAgents: async () => (builds++, b.registry.listAgents({} as never)) } as unknown as RegistryApi };
    const catalog = new ToolCatalog(counted, { ttlMs: 5000, now: () => now });
    await catalog.selectable();
    now = 500;
    await catalog.selectableHolding(['nobody__x']);
    expect(builds).toBe(1);
    now = 1500;
    const held = await catalog.selectableHolding(['nobody__x']);
    expect(builds).toBe(2);
    await expect(listTools(held, { names: ['nobody__x'] })).rejects.toMatchObject({ type: 'invalid_params', path: 'params._meta.names[0]', rule: 'unknown_tool' });
  });
});
