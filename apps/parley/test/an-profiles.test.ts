import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { recommendedNameParts } from '@parley/an';
import { createLogger } from '@parley/runtime';
import { expectRpcError, rpc, useKey } from '@parley/testkit';
import { startParley, type EmbeddedParley } from '../src/embedded';

// AN agent profiles (autonomous-networks multi-agent draft 004 §5.1; registration and
// discovery §4.1) through the embedded gateway: JSON-RPC → gRPC → registry → PGlite.
let parley: EmbeddedParley;

/** The wireless fault agent of use case 2.1, in the recommended name form of 5.1. */
const WIRELESS = {
  name: 'TMF-Acme-Wireless-v1',
  alias: 'wireless fault agent',
  description: 'Diagnoses wireless access network faults in large-scale batch outages and proposes repairs (use case 2.1).',
  type: 'domain-agent',
  version: '1.0.0',
  provider: 'Acme',
  domain: 'wireless',
  management_object: 'gNodeB',
  skills: [
    {
      name: 'fault_diagnosis',
      description: 'Finds the root cause of a batch of cell outages from alarms and topology.',
      tags: ['fault', 'root-cause'],
      input_modes: ['text', 'image'],
      output_modes: ['text'],
    },
    { name: 'fault_repair', description: 'Plans and applies a repair.', tags: ['fault', 'repair'], input_modes: ['text'], output_modes: ['text'] },
  ],
  capability: { streaming: false, push_notifications: true, negotiate: ['FEASIBILITY', 'FULFILLMENT'] },
  authentication: [{ id: 'jwt-1', scheme: 'jwt', jwt_info: 'issuer https://id.acme.example, audience an-agents' }],
};

const TRANSPORT = {
  name: 'ETSI-Beta-Transport-v2',
  description: 'Optimises transport network energy use (use case 2.2).',
  version: '2.1.0',
  provider: 'Beta',
  domain: 'transport',
  skills: [{ name: 'energy_saving', description: 'Shuts idle links at night.', tags: ['energy'], input_modes: ['text'], output_modes: ['text'] }],
  capability: { negotiate: ['FEASIBILITY'] },
};

/** An agent card as served (JSON). */
interface CardJson {
  skills: Array<{ id: string }>;
  securitySchemes: Record<string, unknown>;
  capabilities: { extensions: unknown[] };
}

const count = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.profiles')).rows[0]?.n);
const names = (r: { body: { result?: { profiles?: Array<{ name: string }> } } }) => r.body.result?.profiles?.map((p) => p.name);

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  useKey(parley.url, parley.devKey);
});

afterAll(async () => {
  await parley?.stop();
});

describe('AN agent profiles through the embedded gateway', () => {
  it('registers the wireless fault agent under its recommended name', async () => {
    expect(recommendedNameParts(WIRELESS.name)).toEqual({ organization: 'TMF', provider: 'Acme', transmit: 'Wireless', version: 'v1' });
    const r = await rpc(parley.url, 'register_profile', { profile: WIRELESS });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.created).toBe(true);
    expect(r.body.result.profile).toMatchObject({ ...WIRELESS, capability: WIRELESS.capability });
    expect(r.body.result.profile.registered_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.body.result.profile.updated_at).toBe(r.body.result.profile.registered_at);
    const t = await rpc(parley.url, 'register_profile', { profile: TRANSPORT });
    expect(t.body.result.profile.capability).toEqual({ streaming: false, push_notifications: false, negotiate: ['FEASIBILITY'] });
    const got = await rpc(parley.url, 'get_profile', { name: WIRELESS.name });
    expect(got.body.result.profile).toEqual(r.body.result.profile);
  });

  it('discovers by domain, tag and skill (AND-ed, ordered by name)', async () => {
    expect(names(await rpc(parley.url, 'discover_profiles', { domain: 'wireless' }))).toEqual([WIRELESS.name]);
    expect(names(await rpc(parley.url, 'discover_profiles', { tag: 'fault' }))).toEqual([WIRELESS.name]);
    expect(names(await rpc(parley.url, 'discover_profiles', { skill: 'energy_saving' }))).toEqual([TRANSPORT.name]);
    expect(names(await rpc(parley.url, 'discover_profiles', { negotiate: 'FEASIBILITY' }))).toEqual([TRANSPORT.name, WIRELESS.name]);
    expect(names(await rpc(parley.url, 'discover_profiles', { input_mode: 'image', tag: 'root-cause' }))).toEqual([WIRELESS.name]);
    expect(names(await rpc(parley.url, 'discover_profiles', { domain: 'wireless', skill: 'energy_saving' }))).toEqual([]);
    expect(names(await rpc(parley.url, 'discover_profiles', {}))).toEqual([TRANSPORT.name, WIRELESS.name]);
  });

  it("its A2A card shows the profile's skills, capabilities and authentication", async () => {
    const client = await new ClientFactory().createFromUrl(`${parley.url}/a2a/${WIRELESS.name}/`);
    const card = await client.getAgentCard();
    expect(card.name).toBe(WIRELESS.name);
    expect(card.provider?.organization).toBe('Acme');
    expect(card.skills.map((s) => [s.name, s.description, s.tags, s.inputModes, s.outputModes])).toEqual([
      ['fault_diagnosis', WIRELESS.skills[0]!.description, ['fault', 'root-cause'], ['text/plain', 'image/*'], ['text/plain']],
      ['fault_repair', 'Plans and applies a repair.', ['fault', 'repair'], ['text/plain'], ['text/plain']],
    ]);
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: true });
    expect(card.securitySchemes['jwt-1']?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer', bearerFormat: 'JWT' } });
  });

  it('merges the card with a registered agent of the same name; agents without a profile keep theirs', async () => {
    const tpl = await rpc(parley.url, 'get_schema_template', { scenario: 'fault_management' });
    const reg = await rpc(parley.url, 'register_agent', { name: 'wireless-fault', scenarios: ['fault_management'], domain: 'wireless' });
    expect(reg.body.error).toBeUndefined();
    const pub = await rpc(parley.url, 'publish_schema', { agent: 'wireless-fault', template: tpl.body.result });
    expect(pub.body.error).toBeUndefined();
    const before = (await (await fetch(`${parley.url}/a2a/wireless-fault/.well-known/agent-card.json`)).json()) as CardJson;
    expect(before.skills.map((s) => s.id)).toEqual(['wireless-fault__fault_management']);
    expect(Object.keys(before.securitySchemes)).toEqual(['parley']);

    const r = await rpc(parley.url, 'register_profile', { profile: { ...WIRELESS, name: 'wireless-fault' } });
    expect(r.body.error).toBeUndefined();
    const client = await new ClientFactory().createFromUrl(`${parley.url}/a2a/wireless-fault/`);
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toEqual(['fault_diagnosis', 'fault_repair', 'wireless-fault__fault_management']);
    expect(card.capabilities?.extensions.map((e) => e.uri)).toEqual([
      'https://parley.dev/a2a/ext/schema-negotiation/v1',
      'https://parley.dev/a2a/ext/an-agent-profile/v1',
    ]);

    const sky = (await (await fetch(`${parley.url}/a2a/skyways-air/.well-known/agent-card.json`)).json()) as CardJson;
    expect(sky.skills.map((s) => s.id)).toEqual(['skyways-air__flight_booking']);
    expect(sky.capabilities.extensions).toHaveLength(1);
  });

  it('only the agent itself (same provider) replaces its profile', async () => {
    const again = await rpc(parley.url, 'register_profile', { profile: { ...WIRELESS, description: 'Now also repairs transport links.' } });
    expect(again.body.result.created).toBe(false);
    expect(again.body.result.profile.description).toBe('Now also repairs transport links.');
    const before = await count();
    const r = await rpc(parley.url, 'register_profile', { profile: { ...WIRELESS, provider: 'Mallory', description: 'hijacked' } });
    expect(r.status).toBe(403);
    expectRpcError(r, 'forbidden', -32051, 'params.profile.provider', 'same_provider');
    expect(await count()).toBe(before);
    const got = await rpc(parley.url, 'get_profile', { name: WIRELESS.name });
    expect(got.body.result.profile).toMatchObject({ provider: 'Acme', description: 'Now also repairs transport links.' });
  });

  describe('every bad input is a typed error with path and rule, and stores nothing', () => {
    const skill = WIRELESS.skills[0]!;
    const cases: Array<[string, string, unknown, string, number, string, string]> = [
      ['no profile', 'register_profile', {}, 'invalid_params', -32602, 'params.profile', 'required'],
      ['an unknown param', 'register_profile', { profile: WIRELESS, token: 'x' }, 'invalid_params', -32602, 'params.token', 'unknown_member'],
      ['a name with a slash', 'register_profile', { profile: { ...WIRELESS, name: 'TMF/Acme' } }, 'agent_invalid', -32012, 'params.profile.name', 'name_format'],
      ['a recommended name of another major version', 'register_profile', { profile: { ...WIRELESS, name: 'TMF-Acme-Wireless-v3' } }, 'agent_invalid', -32012, 'params.profile.name', 'name_version'],
      ['a version that is not semver', 'register_profile', { profile: { ...WIRELESS, name: 'new-agent', version: '1.0' } }, 'agent_invalid', -32012, 'params.profile.version', 'semver'],
      ['no provider', 'register_profile', { profile: { ...WIRELESS, name: 'new-agent', provider: undefined } }, 'agent_invalid', -32012, 'params.profile.provider', 'required'],
      [
        'a data type outside the draft',
        'register_profile',
        { profile: { ...WIRELESS, name: 'new-agent', skills: [{ ...skill, output_modes: ['hologram'] }] } },
        'agent_invalid',
        -32012,
        'params.profile.skills[0].output_modes[0]',
        'enum',
      ],
      ['a repeated skill', 'register_profile', { profile: { ...WIRELESS, name: 'new-agent', skills: [skill, skill] } }, 'agent_invalid', -32012, 'params.profile.skills[1]', 'unique'],
      [
        "the draft's spelling of a member",
        'register_profile',
        { profile: { ...WIRELESS, name: 'new-agent', skills: [{ ...skill, 'input-modes': ['text'] }] } },
        'agent_invalid',
        -32012,
        'params.profile.skills[0].input-modes',
        'unknown_member',
      ],
      [
        'a jwt method without jwt_info',
        'register_profile',
        { profile: { ...WIRELESS, name: 'new-agent', authentication: [{ id: 'j', scheme: 'jwt' }] } },
        'agent_invalid',
        -32012,
        'params.profile.authentication[0].jwt_info',
        'requires_jwt_info',
      ],
      [
        'an unknown negotiation type',
        'register_profile',
        { profile: { ...WIRELESS, name: 'new-agent', capability: { negotiate: ['PRICE'] } } },
        'agent_invalid',
        -32012,
        'params.profile.capability.negotiate[0]',
        'enum',
      ],
      ['an unknown profile', 'get_profile', { name: 'TMF-Nobody-Wireless-v1' }, 'agent_not_found', -32022, 'params.name', 'exists'],
      ['a profile name of the wrong type', 'get_profile', { name: 42 }, 'invalid_params', -32602, 'params.name', 'type'],
      ['an unknown input mode filter', 'discover_profiles', { input_mode: 'smell' }, 'invalid_params', -32602, 'params.input_mode', 'enum'],
      ['an unknown filter', 'discover_profiles', { provider: 'Acme' }, 'invalid_params', -32602, 'params.provider', 'unknown_member'],
    ];
    for (const [what, method, params, type, code, path, rule] of cases) {
      it(`${method}: ${what} → ${type} (${rule})`, async () => {
        const before = await parley.db.query('SELECT name, document, updated_at FROM registry.profiles ORDER BY name');
        const r = await rpc(parley.url, method, params);
        expect(r.status).toBe(200);
        expectRpcError(r, type, code, path, rule);
        expect((await parley.db.query('SELECT name, document, updated_at FROM registry.profiles ORDER BY name')).rows).toEqual(before.rows);
      });
    }
  });
});
