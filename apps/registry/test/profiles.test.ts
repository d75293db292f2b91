import { testIdentity } from '@parley/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentProfileServiceService, GRPC_TRANSPORTS, RegistryServiceService, createGrpcClient, type AgentProfileApi, type AgentProfile as ProfileMessage } from '@parley/contracts';
import { createMemoryBus, createSubjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { createProfileService, startRegistry } from '../src/index';
import { coreFault, transportPerf, wirelessFault } from './profiles-fixtures';

// AN agent profiles (draft 004 §5.1) in the registry, on PGlite: registration,
// replacement by the same provider only, discovery (§4.1), typed errors that change nothing.
let db: Db;
let profiles: AgentProfileApi;
let now = new Date('2026-05-01T00:00:00.000Z');
const clock = { now: () => now };

async function rejects(p: Promise<unknown>, type: string, path?: string, rule?: string): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ParleyError);
  const err = e as ParleyError;
  expect(err.type).toBe(type);
  if (path !== undefined) expect(err.path).toBe(path);
  if (rule !== undefined) expect(err.rule).toBe(rule);
  return err;
}

const rows = async () => (await db.query<{ name: string; document: unknown; updated_at: Date }>('SELECT name, document, updated_at FROM registry.profiles ORDER BY name')).rows;
const names = (ps: readonly ProfileMessage[]) => ps.map((p) => p.name);

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db, 'registry');
  profiles = createProfileService({ db, clock });
});

afterAll(async () => {
  await db.close();
});

beforeEach(async () => {
  await db.query('DELETE FROM registry.profiles');
  now = new Date('2026-05-01T00:00:00.000Z');
});

describe('agent profiles: registration (5.1)', () => {
  it('creates a profile and returns it with the registry timestamps', async () => {
    const r = await profiles.registerProfile({ profile: wirelessFault() });
    expect(r.created).toBe(true);
    expect(r.profile).toEqual({ ...wirelessFault(), registered_at: '2026-05-01T00:00:00.000Z', updated_at: '2026-05-01T00:00:00.000Z' });
    const got = await profiles.getProfile({ name: 'TMF-Acme-Wireless-v1' });
    expect(got.profile).toEqual(r.profile);
  });

  it('stores the document as jsonb and the discovery columns beside it', async () => {
    await profiles.registerProfile({ profile: wirelessFault() });
    const r = await db.query<{ provider: string; domain: string; tags: string[]; skills: string[]; input_modes: string[]; negotiate: string[]; document: Record<string, unknown> }>(
      'SELECT provider, domain, tags, skills, input_modes, negotiate, document FROM registry.profiles',
    );
    const row = r.rows[0]!;
    expect(row).toMatchObject({
      provider: 'Acme',
      domain: 'wireless',
      tags: ['fault', 'root-cause', 'repair'],
      skills: ['fault_diagnosis', 'fault_repair'],
      input_modes: ['text', 'image'],
      negotiate: ['FEASIBILITY', 'FULFILLMENT'],
    });
    expect(row.document.name).toBe('TMF-Acme-Wireless-v1');
    expect(row.document).not.toHaveProperty('registered_at');
  });

  it('fills the defaults of an optional capability and lists', async () => {
    const minimal: ProfileMessage = { name: 'bare-agent', description: 'Nothing yet.', version: '0.1.0', provider: 'Acme', skills: [], authentication: [], registered_at: '', updated_at: '' };
    const r = await profiles.registerProfile({ profile: minimal });
    expect(r.profile?.capability).toEqual({ streaming: false, push_notifications: false, negotiate: [] });
    expect(r.profile?.domain).toBeUndefined();
    expect(r.profile?.alias).toBeUndefined();
  });

  it('replaces a profile presented by the same provider: registered_at kept, updated_at moves', async () => {
    await profiles.registerProfile({ profile: wirelessFault() });
    now = new Date('2026-05-02T08:00:00.000Z');
    const changed = wirelessFault({ version: '1.3.0', description: 'Now with repair plans.', skills: wirelessFault().skills.slice(0, 1) });
    const r = await profiles.registerProfile({ profile: changed });
    expect(r.created).toBe(false);
    expect(r.profile?.registered_at).toBe('2026-05-01T00:00:00.000Z');
    expect(r.profile?.updated_at).toBe('2026-05-02T08:00:00.000Z');
    expect(r.profile?.version).toBe('1.3.0');
    // The discovery columns follow the new document.
    expect(names((await profiles.discoverProfiles({ skill: 'fault_repair' })).profiles)).toEqual([]);
  });

  it('refuses a replace by another provider with forbidden, and keeps the profile', async () => {
    await profiles.registerProfile({ profile: wirelessFault() });
    const before = await rows();
    now = new Date('2026-05-03T00:00:00.000Z');
    await rejects(profiles.registerProfile({ profile: wirelessFault({ provider: 'Mallory', description: 'hijacked' }) }), 'forbidden', 'params.profile.provider', 'same_provider');
    expect(await rows()).toEqual(before);
  });

  it('concurrent creates of one name by two providers: exactly one wins', async () => {
    const results = await Promise.allSettled([
      profiles.registerProfile({ profile: wirelessFault({ provider: 'Acme' }) }),
      profiles.registerProfile({ profile: wirelessFault({ provider: 'Other' }) }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((failed.reason as ParleyError).type).toBe('forbidden');
    expect(await rows()).toHaveLength(1);
  });
});

describe('agent profiles: every bad input is a typed error with path and rule, and stores nothing', () => {
  const cases: Array<[string, () => ProfileMessage | undefined, string, string, string]> = [
    ['no profile', () => undefined, 'invalid_params', 'params.profile', 'required'],
    ['an empty name', () => wirelessFault({ name: '' }), 'agent_invalid', 'params.profile.name', 'non_empty'],
    ['a name with a space', () => wirelessFault({ name: 'TMF Acme' }), 'agent_invalid', 'params.profile.name', 'name_format'],
    ['a version that is not semver', () => wirelessFault({ version: '1.2' }), 'agent_invalid', 'params.profile.version', 'semver'],
    ['a recommended name naming another major version', () => wirelessFault({ version: '2.0.0' }), 'agent_invalid', 'params.profile.name', 'name_version'],
    ['no provider', () => wirelessFault({ provider: '' }), 'agent_invalid', 'params.profile.provider', 'non_empty'],
    [
      'an input mode outside the draft',
      () => wirelessFault({ skills: [{ ...wirelessFault().skills[0]!, input_modes: ['smell'] }] }),
      'agent_invalid',
      'params.profile.skills[0].input_modes[0]',
      'enum',
    ],
    [
      'two skills of one name',
      () => wirelessFault({ skills: [wirelessFault().skills[0]!, wirelessFault().skills[0]!] }),
      'agent_invalid',
      'params.profile.skills[1]',
      'unique',
    ],
    [
      'an unknown negotiation type',
      () => wirelessFault({ capability: { streaming: false, push_notifications: false, negotiate: ['PRICE'] } }),
      'agent_invalid',
      'params.profile.capability.negotiate[0]',
      'enum',
    ],
    ['an unknown auth scheme', () => wirelessFault({ authentication: [{ id: 'x', scheme: 'kerberos' }] }), 'agent_invalid', 'params.profile.authentication[0].scheme', 'enum'],
    ['jwt without its parameters', () => wirelessFault({ authentication: [{ id: 'x', scheme: 'jwt' }] }), 'agent_invalid', 'params.profile.authentication[0].jwt_info', 'requires_jwt_info'],
  ];
  for (const [what, make, type, path, rule] of cases) {
    it(`${what}: ${type} at ${path} (${rule})`, async () => {
      const profile = make();
      await rejects(profiles.registerProfile(profile ? { profile } : {}), type, path, rule);
      expect(await rows()).toEqual([]);
    });
  }

  it('an unknown name is agent_not_found; an empty one is invalid_params', async () => {
    await rejects(profiles.getProfile({ name: 'TMF-Nobody-Wireless-v1' }), 'agent_not_found', 'params.name', 'exists');
    await rejects(profiles.getProfile({ name: '' }), 'invalid_params', 'params.name', 'required');
    await rejects(profiles.getProfile({ name: 'x'.repeat(300) }), 'invalid_params', 'params.name', 'max_length');
    await rejects(profiles.getProfile({ name: '../etc' }), 'invalid_params', 'params.name', 'name_format');
  });
});

describe('agent profiles: discovery (§4.1)', () => {
  beforeEach(async () => {
    // Registered out of order: results come back ordered by name.
    await profiles.registerProfile({ profile: coreFault() });
    await profiles.registerProfile({ profile: wirelessFault() });
    await profiles.registerProfile({ profile: transportPerf() });
  });

  it('without filters lists every profile, ordered by name (byte order, whatever the locale)', async () => {
    expect(names((await profiles.discoverProfiles({})).profiles)).toEqual(['ETSI-Beta-Transport-v2', 'TMF-Acme-Wireless-v1', 'acme-core-fault']);
  });

  it('by domain, case-insensitively', async () => {
    expect(names((await profiles.discoverProfiles({ domain: 'wireless' })).profiles)).toEqual(['TMF-Acme-Wireless-v1']);
    expect(names((await profiles.discoverProfiles({ domain: 'transport' })).profiles)).toEqual(['ETSI-Beta-Transport-v2']);
    expect(names((await profiles.discoverProfiles({ domain: 'CORE' })).profiles)).toEqual(['acme-core-fault']);
    expect((await profiles.discoverProfiles({ domain: 'ip' })).profiles).toEqual([]);
  });

  it("by tag: any skill's tags", async () => {
    expect(names((await profiles.discoverProfiles({ tag: 'fault' })).profiles)).toEqual(['TMF-Acme-Wireless-v1', 'acme-core-fault']);
    expect(names((await profiles.discoverProfiles({ tag: 'repair' })).profiles)).toEqual(['TMF-Acme-Wireless-v1']);
  });

  it('by skill name', async () => {
    expect(names((await profiles.discoverProfiles({ skill: 'fault_diagnosis' })).profiles)).toEqual(['TMF-Acme-Wireless-v1', 'acme-core-fault']);
    expect(names((await profiles.discoverProfiles({ skill: 'energy_saving' })).profiles)).toEqual(['ETSI-Beta-Transport-v2']);
  });

  it('by input mode and by negotiation type (normalised case)', async () => {
    expect(names((await profiles.discoverProfiles({ input_mode: 'image' })).profiles)).toEqual(['TMF-Acme-Wireless-v1']);
    expect(names((await profiles.discoverProfiles({ negotiate: 'feasibility' })).profiles)).toEqual(['ETSI-Beta-Transport-v2', 'TMF-Acme-Wireless-v1']);
    expect(names((await profiles.discoverProfiles({ negotiate: 'FULFILLMENT' })).profiles)).toEqual(['TMF-Acme-Wireless-v1']);
  });

  it('ANDs the filters', async () => {
    expect(names((await profiles.discoverProfiles({ tag: 'fault', domain: 'core' })).profiles)).toEqual(['acme-core-fault']);
    expect(names((await profiles.discoverProfiles({ skill: 'fault_diagnosis', input_mode: 'image', negotiate: 'FEASIBILITY' })).profiles)).toEqual(['TMF-Acme-Wireless-v1']);
    expect((await profiles.discoverProfiles({ tag: 'energy', domain: 'wireless' })).profiles).toEqual([]);
  });

  it('refuses filters outside the draft with typed errors', async () => {
    await rejects(profiles.discoverProfiles({ input_mode: 'smell' }), 'invalid_params', 'params.input_mode', 'enum');
    await rejects(profiles.discoverProfiles({ negotiate: 'PRICE' }), 'invalid_params', 'params.negotiate', 'enum');
    await rejects(profiles.discoverProfiles({ tag: '   ' }), 'invalid_params', 'params.tag', 'non_empty');
    await rejects(profiles.discoverProfiles({ skill: 'x'.repeat(300) }), 'invalid_params', 'params.skill', 'max_length');
  });
});

describe('AgentProfileService on the registry gRPC server', () => {
  it.each(GRPC_TRANSPORTS)('is served beside RegistryService on one port, and typed errors cross the %s transport', async (transport) => {
    const gdb = await createPgliteDb();
    const subjects = createSubjects('profiles-test');
    const bus = createMemoryBus({ subjects });
    const serviceToken = testIdentity().serviceToken;
    const registry = await startRegistry({ db: gdb, bus, subjects, clock, log: createLogger({ level: 'silent' }), grpcHost: '127.0.0.1', grpcPort: 0, auth: { tenant: 'default', serviceToken } });
    const client = createGrpcClient(AgentProfileServiceService, `127.0.0.1:${registry.port}`, { credential: serviceToken, transport });
    const agents = createGrpcClient(RegistryServiceService, `127.0.0.1:${registry.port}`, { credential: serviceToken, transport });
    try {
      const r = await client.api.registerProfile({ profile: wirelessFault() });
      expect(r.created).toBe(true);
      // Optional strings keep their absence across the wire.
      const bare = await client.api.registerProfile({ profile: coreFault() });
      expect(bare.profile?.alias).toBeUndefined();
      expect((await client.api.getProfile({ name: 'TMF-Acme-Wireless-v1' })).profile).toEqual(r.profile);
      expect(names((await client.api.discoverProfiles({ tag: 'fault' })).profiles)).toEqual(['TMF-Acme-Wireless-v1', 'acme-core-fault']);
      await rejects(client.api.registerProfile({ profile: wirelessFault({ provider: 'Mallory' }) }), 'forbidden', 'params.profile.provider', 'same_provider');
      await rejects(client.api.registerProfile({ profile: wirelessFault({ version: 'one' }) }), 'agent_invalid', 'params.profile.version', 'semver');
      await rejects(client.api.getProfile({ name: 'nobody' }), 'agent_not_found', 'params.name', 'exists');
      // Profiles are independent of draft-zhou agents.
      expect((await agents.api.listAgents({})).agents).toEqual([]);
    } finally {
      client.close();
      agents.close();
      await registry.stop();
      await bus.close();
      await gdb.close();
    }
  });
});
