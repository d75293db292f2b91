import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventType, createNatsBus, createSubjects, type Bus } from '@parley/events';
import { collectEvents, type CollectedEvents } from '@parley/events/testing';
import { createLogger } from '@parley/runtime';
import { openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, serviceOnlyAuthenticator, testIdentity, uniquePrefix } from '@parley/testkit';
import { startExecution, type RunningExecution } from '../src/index';
import { DAY, T0, baseTemplate, fakeNegotiation, key, patch, serveAgent, testClock, withState } from './helpers';

// Execution with schema patches on PostgreSQL and NATS JetStream: the audit
// samples (draft-zhou §6.2.3) and payload.executed's applied_patches go out
// through the outbox; a withdrawn key is accepted with a warning inside its
// backward-compatibility window.
const infra = integrationInfra('execution-patches');

describe.skipIf(!infra)('execution with schema patches on PostgreSQL and NATS', () => {
  const subjects = createSubjects(uniquePrefix());
  const clock = testClock();
  let testDb: { url: string; drop: () => Promise<void> };
  let db: Db;
  let bus: Bus;
  let execution: RunningExecution;
  let agent: Awaited<ReturnType<typeof serveAgent>>;
  let events: CollectedEvents;
  const negotiation = fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => clock.now().getTime() });

  beforeAll(async () => {
    testDb = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(testDb.url, { applicationName: 'execution-patches-int' });
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'execution-patches-int' });
    agent = await serveAgent(bus, subjects, 'skyways-air', 'flight_booking');
    negotiation.patches = [
      withState(patch('g1', { keys: [key('seat_preference'), key('meal_preference')] }), 'meal_preference', 'withdrawn', T0, T0 + 30 * DAY),
      patch('alice-1', { scope: 'alice', keys: [key('quiet_zone')] }),
    ];
    execution = await startExecution({
      db,
      bus,
      subjects,
      negotiation,
      clock,
      log: createLogger({ level: 'silent' }),
      timeoutMs: 3000,
      grpcHost: '127.0.0.1',
      grpcPort: 0,
      patchCacheTtlMs: 0,
      auditSampleRate: 1,
      auditScenarios: ['flight_booking'],
      random: () => 0,
      // Called in-process (execution.api) with the client id it serves; gRPC callers would need the service token.
      authenticator: serviceOnlyAuthenticator(testIdentity().serviceToken),
    });
    events = await collectEvents(bus, { durable: `${subjects.prefix}-it-collector`, filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted), subjects.eventAllScenarios(EventType.AuditSampled)] });
  });

  afterAll(async () => {
    await events?.stop();
    await execution?.stop();
    await agent?.stop();
    await bus?.close();
    const nc = await connect({ servers: infra!.natsUrl });
    await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
    await nc.drain();
    await db?.close();
    await testDb?.drop();
  });

  it('publishes audit.sampled (patch keys only, value and utterance) and payload.executed with applied_patches', async () => {
    const r = await execution.api.execute({
      schema_id: 'flight_booking_v1',
      client_id: 'alice',
      utterance: 'PEK to SHA, window seat, quiet area',
      payload: { origin: 'PEK', destination: 'SHA', seat_preference: 'window', quiet_zone: 'yes', meal_preference: 'veg' },
    });
    // §6.2.3: meal_preference is withdrawn but inside its window: accepted, with a warning.
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('meal_preference');
    // No etag sent: the client is told about its patches (Figure 9).
    expect(r.schema_update_suggestion).toMatchObject({ parent_schema_id: 'flight_booking_v1', patch_ids: ['g1', 'alice-1'] });
    await execution.drainOutbox();
    const mine = (await events.waitFor(3, 10_000)).filter((e) => (e.data as { execution_id?: string }).execution_id === r.execution_id);
    const executed = mine.find((e) => e.type === EventType.PayloadExecuted);
    expect(executed?.data).toMatchObject({ client_id: 'alice', applied_patches: ['g1', 'alice-1'] });
    const samples = mine.filter((e) => e.type === EventType.AuditSampled).map((e) => e.data as unknown as Record<string, unknown>);
    expect(samples.map((s) => [s.patch_id, s.key_name, s.value])).toEqual([
      ['g1', 'seat_preference', 'window'],
      ['alice-1', 'quiet_zone', 'yes'],
    ]);
    expect(samples.every((s) => s.utterance === 'PEK to SHA, window seat, quiet area')).toBe(true);
    // Base-key values never leave execution.
    expect(JSON.stringify(mine.filter((e) => e.type === EventType.AuditSampled))).not.toContain('"PEK"');
    expect(JSON.stringify(executed)).not.toContain('PEK');
  });
});
