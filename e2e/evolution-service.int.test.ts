import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { EvolutionServiceService, createGrpcClient, templateToWire, type NegotiationApi } from '@parley/contracts';
import { createOfflineEmbedder, loadWordNetLexicon } from '@parley/embeddings';
import { EventType, createNatsBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { startEvolution, type RunningEvolution } from '@parley/evolution-service';
import { flightBookingTemplate } from '@parley/examples';
import { createLogger, systemClock } from '@parley/runtime';
import { startSemanticPool, type RunningSemanticPool } from '@parley/semantic-pool';
import { openDb, type Db } from '@parley/storage';
import { createTestDatabase, integrationInfra, serviceOnlyAuthenticator, testIdentity, uniquePrefix, waitFor } from '@parley/testkit';
import { createEmbeddedIndex } from '@parley/vectors';

/**
 * draft-zhou §6.2.1-§6.2.2 on real PostgreSQL and NATS JetStream: `other`
 * fragments flow as `other.captured` events into the semantic pool, its gate
 * opens, `pool.matured` reaches the evolution service through JetStream, and
 * the patch it induces is published (`patch.published` in its outbox, relayed
 * to the bus). An operator's edit goes through the same path, and a restart of
 * the evolution service folds its input log back into the same patches.
 */
const infra = integrationInfra('e2e: evolution service on PostgreSQL and JetStream');
const HOUR = 3_600_000;
const log = createLogger({ level: (process.env.TEST_LOG_LEVEL as 'error') ?? 'error' });

/** Negotiation as the evolver sees it: the flight-booking base (no negotiation process runs here). */
const negotiation = {
  async listSchemas() {
    return { schemas: [{ agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario: 'flight_booking', scenario_id: 'flight_booking', version: 1, languages: ['en'], default_language: 'en', has_response_schema: false, published_at: '2026-01-01T00:00:00.000Z' }] };
  },
  async getSchema() {
    return { template: templateToWire(flightBookingTemplate), applied_patches: [], etag: 'x', withdrawn_keys: [] };
  },
} as unknown as NegotiationApi;

const TEXTS = ['window seat please', 'an aisle seat', 'a window seat', 'aisle seat please', 'seat by the window', 'I would like an aisle seat'];

describe.skipIf(!infra)('evolution service on PostgreSQL + JetStream (zhou §6.2.1-§6.2.2)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let sql: pg.Client;
  let bus: Bus;
  let pool: RunningSemanticPool | undefined;
  let evolution: RunningEvolution | undefined;
  const subjects = createSubjects(uniquePrefix());
  const identity = testIdentity();
  const authenticator = serviceOnlyAuthenticator(identity.serviceToken);

  const startEvo = async (): Promise<RunningEvolution> =>
    startEvolution({ db, bus, subjects, negotiation, clock: systemClock, log, tickMs: 0, grpcHost: '127.0.0.1', grpcPort: 0, authenticator, retryDelayMs: 200, lexicon: await loadWordNetLexicon() });

  beforeAll(async () => {
    database = await createTestDatabase(infra!.databaseUrl);
    db = await openDb(database.url, { applicationName: 'evolution-e2e' });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    bus = await createNatsBus({ servers: infra!.natsUrl, subjects, name: 'evolution-e2e' });
    pool = await startSemanticPool({ db, bus, subjects, embedder: createOfflineEmbedder(), index: createEmbeddedIndex(), clock: systemClock, log, grpcHost: '127.0.0.1', grpcPort: 0, authenticator, heatSampleMs: 0, retryDelayMs: 200 });
    evolution = await startEvo();
  }, 90_000);

  afterAll(async () => {
    await evolution?.stop();
    await pool?.stop();
    await bus?.close();
    await sql?.end();
    await db?.close();
    await database?.drop();
  });

  it('fragments from six clients become a published seat patch; an operator edit is logged; a restart folds the same state', async () => {
    const t0 = Date.now() - 6 * HOUR;
    for (let c = 0; c < 6; c++) {
      const e: EventEnvelope = {
        id: randomUUID(),
        type: EventType.OtherCaptured,
        scenario_id: 'flight_booking',
        occurred_at: new Date(t0 + c * HOUR).toISOString(),
        source: 'test',
        data: { execution_id: randomUUID(), agent: 'skyways-air', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: `traveller-${c}`, fragments: [TEXTS[c] as string] },
      };
      await bus.publishEvent(e);
    }
    const patch = await waitFor(
      'a patch from the matured cluster',
      async () => (await evolution!.api.listPatches({ scenario: 'flight_booking' })).patches[0],
      60_000,
    );
    expect(patch).toMatchObject({ scope: 'global', status: 'active', parent_schema_id: 'flight_booking_v1' });
    expect(patch.new_keys[0]?.definition).toMatchObject({ key_name: 'seat_preference', key_type: 'string', enum: expect.arrayContaining(['window', 'aisle']) });
    // The matured input and the publication are on PostgreSQL; the event left through the outbox to JetStream.
    const inputs = await sql.query(`SELECT kind FROM evolution.inputs ORDER BY seq`);
    expect(inputs.rows.map((r) => r.kind)).toEqual(['base', 'matured']);
    await evolution!.drainOutbox();
    const out = await sql.query(`SELECT event::jsonb ->> 'type' AS type, published_at IS NOT NULL AS sent FROM evolution.outbox ORDER BY seq`);
    expect(out.rows).toEqual([{ type: 'patch.published', sent: true }]);

    // The operator's edit over gRPC (EvolutionService/EditPatch): anonymous callers are refused, credentials decide.
    const anonymous = createGrpcClient(EvolutionServiceService, `127.0.0.1:${evolution!.port}`);
    const grpc = createGrpcClient(EvolutionServiceService, `127.0.0.1:${evolution!.port}`, { credential: identity.serviceToken });
    try {
      const req = { patch_id: patch.patch_id, key: 'seat_preference', values: ['window', 'aisle', 'middle'], reason: 'middle seats are asked for at the desk' };
      await expect(anonymous.api.editPatch(req)).rejects.toMatchObject({ type: 'unauthenticated' });
      await expect(grpc.api.editPatch({ ...req, values: ['window'] })).rejects.toMatchObject({ type: 'invalid_params', path: 'params.values', rule: 'enum_superset' });
      const edited = await grpc.api.editPatch(req);
      expect(edited.outcome).toBe('refine');
      // The widened enum reaches operators over the wire too.
      expect(edited.patch?.modified_keys).toEqual([expect.objectContaining({ key_name: 'seat_preference', enum: ['window', 'aisle', 'middle'] })]);
    } finally {
      anonymous.close();
      grpc.close();
    }
    expect((await sql.query(`SELECT kind FROM evolution.inputs ORDER BY seq`)).rows.map((r) => r.kind)).toEqual(['base', 'matured', 'edit']);

    const before = await evolution!.api.listPatches({ scenario: 'flight_booking' });
    const decisions = (await evolution!.api.listDecisions({ scenario: 'flight_booking' })).decisions;
    await evolution!.stop();
    evolution = await startEvo();
    expect(await evolution.api.listPatches({ scenario: 'flight_booking' })).toEqual(before);
    expect((await evolution.api.listDecisions({ scenario: 'flight_booking' })).decisions).toEqual(decisions);
  }, 120_000);
});
