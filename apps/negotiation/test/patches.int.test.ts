import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { templateFromWire, templateToWire } from '@parley/contracts';
import { createNatsBus, createSubjects, type Bus } from '@parley/events';
import { createLogger } from '@parley/runtime';
import { openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, serviceOnlyAuthenticator, testIdentity, uniquePrefix } from '@parley/testkit';
import { startNegotiation, type RunningNegotiation } from '../src/index';
import { T0, baseTemplate, deliver, doc, key, patch, patchEvent, registryServing, storedRevision, testClock, withState } from './helpers';

// The patch consumer on PostgreSQL and NATS JetStream (draft-zhou §6.2.2 patch
// delivery to negotiation): durable across a restart, idempotent, revision-ordered.
const infra = integrationInfra('negotiation-patches');

describe.skipIf(!infra)('negotiation patch consumer on PostgreSQL and NATS', () => {
  const subjects = createSubjects(uniquePrefix());
  const clock = testClock();
  const log = createLogger({ level: 'silent' });
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Db;
  let bus: Bus;
  let negotiation: RunningNegotiation | undefined;
  // The patch consumer is under test here, called in-process; gRPC callers would need the service token.
  const authenticator = serviceOnlyAuthenticator(testIdentity().serviceToken);

  const start = () =>
    startNegotiation({ db, bus, subjects, registry: registryServing(['flight_booking']), clock, log, grpcHost: '127.0.0.1', grpcPort: 0, authenticator });

  beforeAll(async () => {
    testDb = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(testDb.url, { applicationName: 'negotiation-patches-int' });
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'negotiation-patches-int' });
    negotiation = await start();
    await negotiation.api.publishSchema({ agent: 'skyways-air', template: templateToWire(baseTemplate()), language: 'en' });
  });

  afterAll(async () => {
    await negotiation?.stop();
    await bus?.close();
    const nc = await connect({ servers: infra!.natsUrl });
    await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
    await nc.drain();
    await db?.close();
    await testDb?.drop();
  });

  it('serves a published patch in the effective template (experimental flag, etag), and per client only to its owner', async () => {
    const api = negotiation!.api;
    const baseEtag = (await api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '' })).etag;
    await deliver(bus, db, patchEvent(doc(patch('g1', { keys: [key('seat_preference')] }), 1)), patchEvent(doc(patch('alice-1', { scope: 'alice', keys: [key('quiet_zone')] }), 1)));
    const anon = await api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '' });
    expect(anon.etag).not.toBe(baseEtag);
    expect(templateFromWire(anon.template!).keys.find((k) => k.key_name === 'seat_preference')).toMatchObject({ experimental: true });
    const bob = await api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '', client_id: 'bob' });
    expect(bob.applied_patches).toEqual(['g1']);
    const alice = await api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '', client_id: 'alice' });
    expect(alice.applied_patches).toEqual(['g1', 'alice-1']);
  });

  it('resumes after a restart from where it stopped (durable consumer), and a replayed old revision changes nothing', async () => {
    await negotiation!.stop();
    negotiation = undefined;
    const p = patch('g1', { keys: [key('seat_preference')] });
    const promoted = patchEvent(doc(withState(p, 'seat_preference', 'stable', T0), 2), 'key.promoted');
    await bus.publishEvent(promoted); // published while negotiation is down
    negotiation = await start();
    await deliver(bus, db, promoted);
    expect(await storedRevision(db, 'g1')).toBe(2);
    await deliver(bus, db, patchEvent(doc(p, 1))); // the revision-1 document again, under a new event id
    expect(await storedRevision(db, 'g1')).toBe(2);
    const t = templateFromWire((await negotiation.api.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '' })).template!);
    expect(t.keys.find((k) => k.key_name === 'seat_preference')).not.toHaveProperty('experimental');
    const processed = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM negotiation.processed_events WHERE consumer = $1', [`${subjects.prefix}-negotiation-patches`]);
    expect(processed.rows[0]?.n).toBe(4);
  });
});
