import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { AgentProfileServiceService, ApiKeyServiceService, createGrpcClient, type GrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects, type Bus } from '@parley/events';
import { ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, testIdentity, uniquePrefix } from '@parley/testkit';
import { startRegistry, type RunningRegistry } from '../src/index';
import { coreFault, transportPerf, wirelessFault } from './profiles-fixtures';

// AN agent profiles (draft 004 §5.1) on real PostgreSQL, over the registry's gRPC
// server: the jsonb document and array columns, byte-ordered names whatever the
// database's collation, replace-by-same-provider under concurrency.
const infra = integrationInfra('registry agent profiles');

describe.skipIf(!infra)('agent profiles on PostgreSQL', () => {
  const subjects = createSubjects(uniquePrefix());
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Db;
  let bus: Bus;
  let registry: RunningRegistry;
  let client: GrpcClient<typeof AgentProfileServiceService>;
  let now = new Date('2026-05-01T00:00:00.000Z');
  const clock = { now: () => now };
  // Draft-zhou §7: every call is authenticated; the test calls as the operator the registry bootstraps.
  const identity = testIdentity();

  beforeAll(async () => {
    testDb = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(testDb.url, { applicationName: 'registry-profiles-int' });
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'registry-profiles-int' });
    registry = await startRegistry({
      db,
      bus,
      subjects,
      clock,
      log: createLogger({ level: 'silent' }),
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      auth: {
        tenant: 'default',
        serviceToken: identity.serviceToken,
        bootstrap: [{ key: identity.operatorKey, principal: 'operator', roles: ['operator'], agents: ['*'], scenarios: ['*'], description: 'test operator' }],
      },
    });
    client = createGrpcClient(AgentProfileServiceService, `127.0.0.1:${registry.port}`, { credential: identity.operatorKey });
  });

  afterAll(async () => {
    client?.close();
    await registry?.stop();
    await bus?.close();
    if (infra) {
      const nc = await connect({ servers: infra.natsUrl });
      await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
      await nc.drain();
    }
    await db?.close();
    await testDb?.drop();
  });

  it('registers, reads back and discovers profiles; names in byte order', async () => {
    for (const p of [coreFault(), wirelessFault(), transportPerf()]) expect((await client.api.registerProfile({ profile: p })).created).toBe(true);
    const got = await client.api.getProfile({ name: 'TMF-Acme-Wireless-v1' });
    expect(got.profile).toEqual({ ...wirelessFault(), registered_at: '2026-05-01T00:00:00.000Z', updated_at: '2026-05-01T00:00:00.000Z' });
    const all = (await client.api.discoverProfiles({})).profiles.map((p) => p.name);
    expect(all).toEqual(['ETSI-Beta-Transport-v2', 'TMF-Acme-Wireless-v1', 'acme-core-fault']);
    const faults = await client.api.discoverProfiles({ tag: 'fault', domain: 'WIRELESS', input_mode: 'image' });
    expect(faults.profiles.map((p) => p.name)).toEqual(['TMF-Acme-Wireless-v1']);
    const bySkill = await client.api.discoverProfiles({ skill: 'fault_diagnosis' });
    expect(bySkill.profiles.map((p) => p.name)).toEqual(['TMF-Acme-Wireless-v1', 'acme-core-fault']);
    const stored = await db.query<{ document: { skills: unknown[] }; tags: string[] }>("SELECT document, tags FROM registry.profiles WHERE name = 'TMF-Acme-Wireless-v1'");
    expect(stored.rows[0]?.document.skills).toHaveLength(2);
    expect(stored.rows[0]?.tags).toEqual(['fault', 'root-cause', 'repair']);
  });

  it('replaces by the same provider only; concurrent replaces by two providers leave the owner in place', async () => {
    now = new Date('2026-05-02T00:00:00.000Z');
    const settled = await Promise.allSettled([
      client.api.registerProfile({ profile: wirelessFault({ description: 'owner update' }) }),
      client.api.registerProfile({ profile: wirelessFault({ provider: 'Mallory', description: 'hijack' }) }),
      client.api.registerProfile({ profile: wirelessFault({ provider: 'Mallory', description: 'hijack again' }) }),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    for (const s of settled.slice(1)) expect(((s as PromiseRejectedResult).reason as ParleyError).type).toBe('forbidden');
    const p = (await client.api.getProfile({ name: 'TMF-Acme-Wireless-v1' })).profile;
    expect(p).toMatchObject({ provider: 'Acme', description: 'owner update', registered_at: '2026-05-01T00:00:00.000Z', updated_at: '2026-05-02T00:00:00.000Z' });
  });

  it('a bad profile is a typed error and stores nothing', async () => {
    const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.profiles')).rows[0]?.n;
    const e = await client.api.registerProfile({ profile: wirelessFault({ name: 'TMF-Zeta-Wireless-v1', skills: [{ ...wirelessFault().skills[0]!, output_modes: ['hologram'] }] }) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ParleyError);
    expect(e).toMatchObject({ type: 'agent_invalid', path: 'params.profile.skills[0].output_modes[0]', rule: 'enum' });
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.profiles')).rows[0]?.n).toBe(before);
  });

  it('authenticates every call from the keys table: no key is unauthenticated; a server agent registers only in its namespace, and reads the rest', async () => {
    const addr = `127.0.0.1:${registry.port}`;
    const anonymous = createGrpcClient(AgentProfileServiceService, addr);
    const keys = createGrpcClient(ApiKeyServiceService, addr, { credential: identity.operatorKey });
    try {
      expect(await anonymous.api.getProfile({ name: 'acme-core-fault' }).catch((x: unknown) => x)).toMatchObject({ type: 'unauthenticated', rule: 'credentials_required' });
      const { key } = await keys.api.createApiKey({ principal: 'globex', roles: ['server_agent'], agents: ['ETSI-Globex-*'], scenarios: ['*'], description: 'profiles int', expires_at: '' });
      const globex = createGrpcClient(AgentProfileServiceService, addr, { credential: key });
      try {
        const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.profiles')).rows[0]?.n;
        expect(await globex.api.registerProfile({ profile: transportPerf({ description: 'hijack' }) }).catch((x: unknown) => x)).toMatchObject({
          type: 'forbidden',
          path: 'params.profile.name',
          rule: 'agent_namespace',
        });
        expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.profiles')).rows[0]?.n).toBe(before);
        expect((await globex.api.getProfile({ name: 'ETSI-Beta-Transport-v2' })).profile?.description).not.toBe('hijack');
        // Inside its namespace it registers.
        expect((await globex.api.registerProfile({ profile: transportPerf({ name: 'ETSI-Globex-Transport-v2', provider: 'Globex' }) })).created).toBe(true);
      } finally {
        globex.close();
      }
    } finally {
      anonymous.close();
      keys.close();
    }
  });
});
