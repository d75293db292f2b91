/**
 * AN agent profiles (draft 004 §5.1) on the gateway: the JSON-RPC methods
 * `register_profile`, `get_profile`, `discover_profiles` (params parsed at the
 * edge, typed errors naming path and rule, nothing sent when refused), and the
 * A2A card of an agent with a profile (skills, capabilities, security schemes),
 * merged with its scenarios when it is also a registered agent; once through the
 * real gRPC glue so the service's typed errors keep their JSON-RPC codes.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { AgentCard } from '@a2a-js/sdk';
import {
  AgentProfileServiceService,
  bindService,
  createGrpcClient,
  startGrpcServer,
  templateToWire,
  type Agent,
  type AgentProfile as ProfileMessage,
  type AgentProfileApi,
  type ExecutionApi,
  type NegotiationApi,
  type RegistryApi,
} from '@parley/contracts';
import { flightBookingTemplate } from '@parley/examples';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AN_PROFILE_EXTENSION_URI, SCHEMA_NEGOTIATION_EXTENSION_URI, agentCard, profileCard, securitySchemesOf } from '../src/a2a-card';
import { resolveAgentCard } from '../src/a2a';
import { parseDiscoverProfilesParams } from '../src/an-profiles';
import type { ToolCatalog } from '../src/catalog';
import { createGatewayServer, type Backends } from '../src/index';
import { seededEntries } from './helpers';

const T = '2026-05-01T00:00:00.000Z';
const BASE = 'http://gw.example:8080';

/** The wireless fault agent of use case 2.1, as JSON-RPC params carry it. */
function wirelessFault(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'TMF-Acme-Wireless-v1',
    description: 'Diagnoses wireless access network faults.',
    version: '1.2.0',
    provider: 'Acme',
    domain: 'wireless',
    skills: [
      { name: 'fault_diagnosis', description: 'Finds the root cause of cell outages.', tags: ['fault', 'root-cause'], input_modes: ['text', 'image'], output_modes: ['text'] },
    ],
    capability: { streaming: true, push_notifications: true, negotiate: ['FEASIBILITY'] },
    authentication: [
      { id: 'jwt-1', scheme: 'jwt', jwt_info: 'issuer https://id.acme.example' },
      { id: 'oauth', scheme: 'oauth2', oauth: 'token https://id.acme.example/token, scope an.tasks' },
      { id: 'key', scheme: 'api_key' },
      { id: 'open', scheme: 'none' },
    ],
    ...over,
  };
}

// ---------------------------------------------------------------------------
// A fake AgentProfileService: keeps profiles, records calls; the registry's rules
// (replace by the same provider only, AND-ed filters) in miniature.
// ---------------------------------------------------------------------------

interface Call {
  method: string;
  req: unknown;
}

function fakeProfiles(): AgentProfileApi & { calls: Call[]; stored: Map<string, ProfileMessage> } {
  const stored = new Map<string, ProfileMessage>();
  const calls: Call[] = [];
  return {
    calls,
    stored,
    async registerProfile(req) {
      calls.push({ method: 'registerProfile', req });
      const p = req.profile!;
      const old = stored.get(p.name);
      if (old && old.provider !== p.provider) {
        throw new ParleyError('forbidden', 'another provider', { path: 'params.profile.provider', rule: 'same_provider' });
      }
      const saved = { ...p, registered_at: old?.registered_at ?? T, updated_at: T };
      stored.set(p.name, saved);
      return { profile: saved, created: !old };
    },
    async getProfile(req) {
      calls.push({ method: 'getProfile', req });
      const p = stored.get(req.name);
      if (!p) throw new ParleyError('agent_not_found', `No agent profile named "${req.name}"`, { path: 'params.name', rule: 'exists' });
      return { profile: p };
    },
    async discoverProfiles(req) {
      calls.push({ method: 'discoverProfiles', req });
      const out = [...stored.values()].filter(
        (p) =>
          (req.domain === undefined || p.domain?.toLowerCase() === req.domain.toLowerCase()) &&
          (req.tag === undefined || p.skills.some((s) => s.tags.includes(req.tag!))) &&
          (req.skill === undefined || p.skills.some((s) => s.name === req.skill)) &&
          (req.input_mode === undefined || p.skills.some((s) => s.input_modes.includes(req.input_mode!))) &&
          (req.negotiate === undefined || (p.capability?.negotiate ?? []).includes(req.negotiate)),
      );
      return { profiles: out.sort((a, b) => (a.name < b.name ? -1 : 1)) };
    },
  };
}

const SKYWAYS: Agent = {
  name: 'skyways-air',
  description: 'Skyways bookings',
  domain: 'travel',
  tags: ['airline'],
  scenarios: ['flight_booking'],
  version: '1.0.0',
  registered_at: T,
  updated_at: T,
  executions: 0,
  last_executed_at: '',
};

/** Registry and negotiation behind the MCP/A2A catalogue: one agent, skyways-air, serving flight_booking_v1. */
function coreBackends(): Pick<Backends, 'registry' | 'negotiation' | 'execution'> {
  const schema = {
    agent: 'skyways-air',
    schema_id: 'flight_booking_v1',
    scenario: 'flight_booking',
    scenario_id: 'flight_booking',
    version: 1,
    languages: ['en'],
    default_language: 'en',
    has_response_schema: false,
    published_at: T,
  };
  const registry = { listAgents: async () => ({ agents: [SKYWAYS] }) } as unknown as RegistryApi;
  const negotiation = {
    listSchemas: async () => ({ schemas: [schema] }),
    getSchema: async () => ({ template: templateToWire(flightBookingTemplate), schema, applied_patches: [], etag: 'e', withdrawn_keys: [] }),
  } as unknown as NegotiationApi;
  return { registry, negotiation, execution: {} as ExecutionApi };
}

interface Gw {
  base: string;
  close(): Promise<void>;
}

// The gateway authenticates every call (draft-zhou §7); the fake backends decide nothing, so any valid key will do.
const auth = keyedAuthenticator('gateway-test-service-token-0123456789abcdef', [{ id: 'acme-air', roles: ['server_agent'], agents: ['*'], scenarios: ['*'] }]);

async function gateway(backends: Backends): Promise<Gw> {
  const server: Server = createGatewayServer({ backends, health: { shuttingDown: false, checks: {} }, log: createLogger({ level: 'silent' }), maxBodyBytes: 1 << 20, authenticator: auth.authenticator });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

let nextId = 1;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rpc(gw: Gw, method: string, params?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.base}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${auth.keys['acme-air']}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  });
  return { status: res.status, body: await res.json() };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function expectError(r: { body: any }, type: string, path: string, rule: string): void {
  expect(r.body.result).toBeUndefined();
  expect(r.body.error.data).toMatchObject({ type, path, rule });
  expect(typeof r.body.error.message).toBe('string');
}

// ---------------------------------------------------------------------------

describe('JSON-RPC: register_profile, get_profile, discover_profiles', () => {
  let gw: Gw;
  let profiles: ReturnType<typeof fakeProfiles>;
  beforeEach(async () => {
    profiles = fakeProfiles();
    gw = await gateway({ ...coreBackends(), profiles });
  });
  afterEach(async () => {
  });

  it('registers a profile parsed at the edge: defaults filled, the wire form sent, the stored profile returned', async () => {
    const r = await rpc(gw, 'register_profile', { profile: wirelessFault({ capability: undefined, skills: undefined }) });
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.created).toBe(true);
    expect(r.body.result.profile).toMatchObject({ name: 'TMF-Acme-Wireless-v1', skills: [], capability: { streaming: false, push_notifications: false, negotiate: [] }, registered_at: T });
    const sent = (profiles.calls[0]?.req as { profile: ProfileMessage }).profile;
    expect(sent).toMatchObject({ name: 'TMF-Acme-Wireless-v1', provider: 'Acme', domain: 'wireless', registered_at: '', updated_at: '' });
    expect(sent).not.toHaveProperty('alias');
  });

  const bad: Array<[string, unknown, string, string, string]> = [
    ['no params', undefined, 'invalid_params', 'params.profile', 'required'],
    ['params.profile missing', {}, 'invalid_params', 'params.profile', 'required'],
    ['an unknown member', { profile: wirelessFault(), owner: 'me' }, 'invalid_params', 'params.owner', 'unknown_member'],
    ['a profile that is not an object', { profile: 'TMF-Acme-Wireless-v1' }, 'agent_invalid', 'params.profile', 'type'],
    ['no name', { profile: wirelessFault({ name: undefined }) }, 'agent_invalid', 'params.profile.name', 'required'],
    ['a version that is not semver', { profile: wirelessFault({ version: 'v1' }) }, 'agent_invalid', 'params.profile.version', 'semver'],
    ['the draft spelling of a member', { profile: wirelessFault({ 'management-object': 'gNodeB' }) }, 'agent_invalid', 'params.profile.management-object', 'unknown_member'],
    [
      'a data type outside the draft',
      { profile: wirelessFault({ skills: [{ name: 's', description: 'd', input_modes: ['smell'] }] }) },
      'agent_invalid',
      'params.profile.skills[0].input_modes[0]',
      'enum',
    ],
    ['oauth2 without its parameters', { profile: wirelessFault({ authentication: [{ id: 'o', scheme: 'oauth2' }] }) }, 'agent_invalid', 'params.profile.authentication[0].oauth', 'requires_oauth'],
  ];
  for (const [what, params, type, path, rule] of bad) {
    it(`register_profile refuses ${what} (${type}, ${rule}) and sends nothing`, async () => {
      const r = await rpc(gw, 'register_profile', params);
      expectError(r, type, path, rule);
      expect(profiles.calls).toEqual([]);
    });
  }

  it('get_profile: the stored profile, or a typed error', async () => {
    await rpc(gw, 'register_profile', { profile: wirelessFault() });
    const r = await rpc(gw, 'get_profile', { name: 'TMF-Acme-Wireless-v1' });
    expect(r.body.result.profile.skills[0].name).toBe('fault_diagnosis');
    expectError(await rpc(gw, 'get_profile', { name: 'TMF-Nobody-Wireless-v1' }), 'agent_not_found', 'params.name', 'exists');
    expectError(await rpc(gw, 'get_profile', {}), 'invalid_params', 'params.name', 'required');
    expectError(await rpc(gw, 'get_profile', { name: 7 }), 'invalid_params', 'params.name', 'type');
    expectError(await rpc(gw, 'get_profile', { name: 'a/b' }), 'invalid_params', 'params.name', 'name_format');
    expectError(await rpc(gw, 'get_profile', { name: 'x', extra: 1 }), 'invalid_params', 'params.extra', 'unknown_member');
  });

  it('discover_profiles: filters parsed and normalised, passed on, results as listed', async () => {
    await rpc(gw, 'register_profile', { profile: wirelessFault() });
    const r = await rpc(gw, 'discover_profiles', { domain: 'Wireless', tag: 'fault', skill: 'fault_diagnosis', input_mode: 'IMAGE', negotiate: 'feasibility' });
    expect(r.body.result.profiles.map((p: ProfileMessage) => p.name)).toEqual(['TMF-Acme-Wireless-v1']);
    expect(profiles.calls.at(-1)).toEqual({
      method: 'discoverProfiles',
      req: { domain: 'Wireless', tag: 'fault', skill: 'fault_diagnosis', input_mode: 'image', negotiate: 'FEASIBILITY' },
    });
    expect((await rpc(gw, 'discover_profiles')).body.result.profiles).toHaveLength(1);
  });

  it('discover_profiles refuses bad filters with typed errors and calls nothing', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ input_mode: 'smell' }, 'params.input_mode', 'enum'],
      [{ negotiate: 'PRICE' }, 'params.negotiate', 'enum'],
      [{ tag: 3 }, 'params.tag', 'type'],
      [{ skill: '' }, 'params.skill', 'non_empty'],
      [{ domain: 'x'.repeat(300) }, 'params.domain', 'max_length'],
      [{ owner: 'me' }, 'params.owner', 'unknown_member'],
    ];
    for (const [params, path, rule] of cases) expectError(await rpc(gw, 'discover_profiles', params), 'invalid_params', path, rule);
    expect(profiles.calls).toEqual([]);
    expect(() => parseDiscoverProfilesParams([])).toThrow(ParleyError);
  });

  it('a replace by another provider is forbidden (HTTP 403), and the profile stays', async () => {
    await rpc(gw, 'register_profile', { profile: wirelessFault() });
    const r = await rpc(gw, 'register_profile', { profile: wirelessFault({ provider: 'Mallory' }) });
    expect(r.status).toBe(403);
    expectError(r, 'forbidden', 'params.profile.provider', 'same_provider');
    expect(profiles.stored.get('TMF-Acme-Wireless-v1')?.provider).toBe('Acme');
  });

  it('without a profiles backend the methods answer unavailable', async () => {
    await gw.close();
    gw = await gateway(coreBackends() as Backends);
    const r = await rpc(gw, 'discover_profiles', {});
    expect(r.body.error.data.type).toBe('unavailable');
  });
});

describe('A2A cards with agent profiles', () => {
  const opts = { baseUrl: BASE, version: '0.1.0' };
  const stored = (over: Record<string, unknown> = {}): ProfileMessage =>
    ({ ...wirelessFault(over), alias: undefined, registered_at: T, updated_at: T }) as unknown as ProfileMessage;

  it("shows the profile's skills, capabilities and authentication methods", () => {
    const card = profileCard(stored(), undefined, [], opts);
    expect(card).toMatchObject({ name: 'TMF-Acme-Wireless-v1', description: 'Diagnoses wireless access network faults.', version: '1.2.0', provider: { organization: 'Acme' } });
    expect(card.supportedInterfaces[0]?.url).toBe(`${BASE}/a2a/TMF-Acme-Wireless-v1`);
    expect(card.skills).toEqual([
      {
        id: 'fault_diagnosis',
        name: 'fault_diagnosis',
        description: 'Finds the root cause of cell outages.',
        tags: ['fault', 'root-cause'],
        examples: [],
        inputModes: ['text/plain', 'image/*'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.capabilities?.extensions.map((e) => e.uri)).toEqual([AN_PROFILE_EXTENSION_URI]);
    expect(card.capabilities?.extensions[0]?.params).toMatchObject({ method: 'get_profile', domain: 'wireless', negotiate: ['FEASIBILITY'] });
    expect(card.defaultInputModes).toEqual(['text/plain', 'image/*']);
    expect(card.securitySchemes).toEqual({
      'jwt-1': { httpAuthSecurityScheme: { description: 'JWT: issuer https://id.acme.example', scheme: 'Bearer', bearerFormat: 'JWT' } },
      // A2A v1.0 requires the flows: the draft's free text gives the token URL of a client-credentials flow.
      oauth: { oauth2SecurityScheme: { description: 'OAuth 2.0: token https://id.acme.example/token, scope an.tasks', flows: { clientCredentials: { tokenUrl: 'https://id.acme.example/token', scopes: {} } } } },
      key: { apiKeySecurityScheme: { description: 'API key', location: 'header', name: 'X-API-Key' } },
      // The endpoint is Parley's: its Bearer scheme (draft-zhou §7) is the one a caller of /a2a/<name> needs.
      parley: { httpAuthSecurityScheme: { description: expect.stringMatching(/API key/), scheme: 'Bearer', bearerFormat: 'Parley API key or JWT' } },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { parley: { list: [] } } }]);
  });

  it("survives the SDK's AgentCard codec: skills and security schemes decode", () => {
    const decoded = AgentCard.fromJSON(JSON.parse(JSON.stringify(profileCard(stored(), undefined, [], opts))));
    expect(decoded.skills.map((s) => s.id)).toEqual(['fault_diagnosis']);
    expect(decoded.skills[0]?.inputModes).toEqual(['text/plain', 'image/*']);
    expect(decoded.capabilities?.pushNotifications).toBe(true);
    expect(decoded.securitySchemes['jwt-1']?.scheme).toEqual({ $case: 'httpAuthSecurityScheme', value: { description: 'JWT: issuer https://id.acme.example', scheme: 'Bearer', bearerFormat: 'JWT' } });
    expect(decoded.securitySchemes['key']?.scheme?.$case).toBe('apiKeySecurityScheme');
    expect(securitySchemesOf([{ id: 'open', scheme: 'none' }])).toEqual({});
  });

  it('merges with the registered agent of the same name: profile skills, then its scenarios with schema negotiation', () => {
    const card = profileCard(stored({ name: 'skyways-air', version: '1.0.0' }), { name: 'skyways-air' }, seededEntries(), opts);
    expect(card.skills.map((s) => s.id)).toEqual(['fault_diagnosis', 'skyways-air__flight_booking']);
    expect(card.capabilities?.extensions.map((e) => e.uri)).toEqual([SCHEMA_NEGOTIATION_EXTENSION_URI, AN_PROFILE_EXTENSION_URI]);
    expect(card.defaultInputModes).toEqual(['text/plain', 'image/*', 'application/json']);
  });

  it('resolveAgentCard: profile card, merged card, unchanged card without a profile, or nothing', async () => {
    const entries = seededEntries();
    const catalog = {
      agent: async (n: string) => (n === 'skyways-air' ? { name: 'skyways-air', description: 'Skyways bookings', version: '1.0.0' } : undefined),
      entries: async () => entries,
    } as unknown as ToolCatalog;
    const profiles = fakeProfiles();
    await profiles.registerProfile({ profile: stored() });
    const plain = await resolveAgentCard('skyways-air', { catalog, profiles }, opts);
    expect(plain).toEqual(agentCard({ name: 'skyways-air', description: 'Skyways bookings', version: '1.0.0' }, entries, opts));
    expect(await resolveAgentCard('skyways-air', { catalog }, opts)).toEqual(plain);
    const an = await resolveAgentCard('TMF-Acme-Wireless-v1', { catalog, profiles }, opts);
    expect(an?.skills.map((s) => s.id)).toEqual(['fault_diagnosis']);
    await profiles.registerProfile({ profile: stored({ name: 'skyways-air', version: '1.0.0' }) });
    const merged = await resolveAgentCard('skyways-air', { catalog, profiles }, opts);
    expect(merged?.skills.map((s) => s.id)).toEqual(['fault_diagnosis', 'skyways-air__flight_booking']);
    expect(await resolveAgentCard('nobody', { catalog, profiles }, opts)).toBeUndefined();
  });

  it('over HTTP and the real gRPC glue: served at /a2a/<name>/.well-known/agent-card.json', async () => {
    const fake = fakeProfiles();
    const server = await startGrpcServer({ host: '127.0.0.1', port: 0, services: [bindService(AgentProfileServiceService, fake, { authenticator: auth.authenticator })] });
    const client = createGrpcClient(AgentProfileServiceService, `127.0.0.1:${server.port}`, { deadlineMs: 5000, credential: auth.keys['acme-air'] as string });
    const gw = await gateway({ ...coreBackends(), profiles: client.api });
    try {
      const reg = await rpc(gw, 'register_profile', { profile: wirelessFault() });
      expect(reg.body.result.created).toBe(true);
      const res = await fetch(`${gw.base}/a2a/TMF-Acme-Wireless-v1/.well-known/agent-card.json`);
      expect(res.status).toBe(200);
      const card = AgentCard.fromJSON(await res.json());
      expect(card.skills.map((s) => s.name)).toEqual(['fault_diagnosis']);
      expect(card.capabilities?.streaming).toBe(true);
      // An agent without a profile keeps its card; an unknown name is 404.
      const sky = (await (await fetch(`${gw.base}/a2a/skyways-air/.well-known/agent-card.json`)).json()) as { skills: Array<{ id: string }>; securitySchemes: object };
      expect(sky.skills.map((s) => s.id)).toEqual(['skyways-air__flight_booking']);
      expect(Object.keys(sky.securitySchemes)).toEqual(['parley']);
      expect((await fetch(`${gw.base}/a2a/TMF-Nobody-Wireless-v1/.well-known/agent-card.json`)).status).toBe(404);
      // Typed errors from the service keep their codes through gRPC.
      const forbidden = await rpc(gw, 'register_profile', { profile: wirelessFault({ provider: 'Mallory' }) });
      expect(forbidden.body.error).toMatchObject({ code: -32051, data: { type: 'forbidden', path: 'params.profile.provider', rule: 'same_provider' } });
      const missing = await rpc(gw, 'get_profile', { name: 'TMF-Nobody-Wireless-v1' });
      expect(missing.body.error).toMatchObject({ code: -32022, data: { type: 'agent_not_found', path: 'params.name' } });
    } finally {
      await gw.close();
      client.close();
      await server.stop(100);
    }
  });
});
