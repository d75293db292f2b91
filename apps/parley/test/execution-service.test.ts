import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateToWire, type NegotiationApi } from '@parley/contracts';
import { MAX_EVENT_BYTES, createMemoryBus, createSubjects, type Bus } from '@parley/events';
import { MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS } from '@parley/evolution';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { bookFlight, flightBookingResponseSchema, flightBookingTemplate } from '@parley/examples';
import { createExecutionService } from '@parley/execution';
import { createNegotiationService } from '@parley/negotiation';
import { createRegistryService } from '@parley/registry';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';

// The execution service on PGlite and the in-process bus, with the real
// negotiation and registry services behind it.
let db: Db;
let bus: Bus;
let agent: Agent;
let getSchemaCalls = 0;
let negotiation: NegotiationApi;
const subjects = createSubjects('exec');
const clock = { now: () => new Date('2026-05-01T00:00:00Z') };

beforeAll(async () => {
  db = await createPgliteDb();
  for (const s of ['registry', 'negotiation', 'execution'] as const) await migrate(db, s);
  bus = createMemoryBus({ subjects });
  const registry = createRegistryService({ db, clock });
  const real = createNegotiationService({ db, clock, registry });
  negotiation = { ...real, getSchema: (req, ctx) => (getSchemaCalls++, real.getSchema(req, ctx)) };
  await registry.registerAgent({
    agent: { name: 'skyways-air', scenarios: ['flight_booking'], description: '', domain: '', tags: [], version: '', registered_at: '', updated_at: '', executions: 0, last_executed_at: '' },
  });
  await real.publishSchema({ agent: 'skyways-air', template: templateToWire(flightBookingTemplate), language: 'en', response_schema: flightBookingResponseSchema });
  agent = await createAgent({ name: 'skyways-air', bus, prefix: 'exec' });
  await agent.serve('flight_booking', (p, ctx) => bookFlight(p, { execution_id: ctx.execution_id, now: clock.now() }));
});

afterAll(async () => {
  await agent.close();
  await bus.close();
  await db.close();
});

describe('execution service', () => {
  it('resolves and compiles a schema once for many concurrent first requests', async () => {
    const execution = createExecutionService({ db, bus, subjects, negotiation, clock, log: createLogger({ level: 'silent' }), onOutboxWrite: () => {}, timeoutMs: 2000 });
    const payload = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' };
    const results = await Promise.all(Array.from({ length: 20 }, () => execution.execute({ schema_id: 'flight_booking_v1', client_id: 'c-first', payload })));
    expect(results.every((r) => r.result?.status === 'confirmed')).toBe(true);
    expect(getSchemaCalls).toBe(1);
  });

  it('records concurrent executions in shared commits, each with its events in the outbox', async () => {
    const execution = createExecutionService({ db, bus, subjects, negotiation, clock, log: createLogger({ level: 'silent' }), onOutboxWrite: () => {}, timeoutMs: 2000 });
    const before = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.outbox')).rows[0]?.n);
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        execution.execute({ schema_id: 'flight_booking_v1', client_id: `c${i}`, payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', other: 'aisle seat' } }),
      ),
    );
    const ids = rs.map((r) => r.execution_id);
    const rows = await db.query<{ id: string; client_id: string }>('SELECT id, client_id FROM execution.executions WHERE id = ANY($1::uuid[])', [ids]);
    expect(rows.rowCount).toBe(30);
    const after = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.outbox')).rows[0]?.n);
    expect(after - before).toBe(60); // payload.executed + other.captured per execution
    const events = await db.query<{ event: { type: string; data: { execution_id: string } } }>('SELECT event FROM execution.outbox ORDER BY seq');
    const byExecution = new Map<string, string[]>();
    for (const { event } of events.rows) byExecution.set(event.data.execution_id, [...(byExecution.get(event.data.execution_id) ?? []), event.type]);
    for (const id of ids) expect(byExecution.get(id)).toEqual(['payload.executed', 'other.captured']);
  });

  it('accepts an `other` of a megabyte (zhou §4.3) and puts a bounded other.captured in the outbox, counting what it cut', async () => {
    const execution = createExecutionService({ db, bus, subjects, negotiation, clock, log: createLogger({ level: 'silent' }), onOutboxWrite: () => {}, timeoutMs: 2000 });
    const other = ['x'.repeat(1_048_200), ...Array.from({ length: 40 }, (_, i) => `note ${i}`)];
    const r = await execution.execute({ schema_id: 'flight_booking_v1', client_id: 'big-other', payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', other } });
    expect(r.result?.status).toBe('confirmed');
    const rows = await db.query<{ event: { type: string; data: Record<string, unknown> } }>(
      `SELECT event FROM execution.outbox WHERE event->'data'->>'execution_id' = $1 ORDER BY seq`,
      [r.execution_id],
    );
    const captured = rows.rows.find((x) => x.event.type === 'other.captured')!.event.data as { fragments: string[]; truncation: unknown };
    expect(captured.fragments).toHaveLength(MAX_FRAGMENTS_PER_EVENT);
    expect(captured.fragments[0]).toBe('x'.repeat(MAX_RAW_FRAGMENT_CHARS));
    expect(captured.fragments.slice(1)).toEqual(other.slice(1, MAX_FRAGMENTS_PER_EVENT));
    expect(captured.truncation).toEqual({
      fragments_cut: 1,
      fragments_dropped: other.length - MAX_FRAGMENTS_PER_EVENT,
      chars_dropped: 1_048_200 - MAX_RAW_FRAGMENT_CHARS + other.slice(MAX_FRAGMENTS_PER_EVENT).join('').length,
    });
    expect(JSON.stringify(rows.rows.map((x) => x.event)).length).toBeLessThan(MAX_EVENT_BYTES);
    // The execution row counts every fragment the client sent.
    const row = await db.query<{ other_fragments: number }>('SELECT other_fragments FROM execution.executions WHERE id = $1', [r.execution_id]);
    expect(row.rows[0]?.other_fragments).toBe(other.length);
  });
});
