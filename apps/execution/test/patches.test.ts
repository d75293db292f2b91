import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecuteRequest, ExecutionApi } from '@parley/contracts';
import { createMemoryBus, createSubjects, type Bus, type EventEnvelope } from '@parley/events';
import { ParleyError, type JsonObject } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { createExecutionService, type ExecutionServiceDeps } from '../src/index';
import { DAY, T0, baseTemplate, fakeNegotiation, key, outboxEvents, patch, serveAgent, testClock, withState, type FakeNegotiation } from './helpers';

// Execution against the client's effective template (draft-zhou §6.2.2 Personalized
// Adaptation, Online Update Delivery; §6.2.3 flags, audit sampling and the
// backward-compatibility window), on PGlite and the in-process bus.
const subjects = createSubjects('execpatch');
const clock = testClock();
let db: Db;
let bus: Bus;
let agent: Awaited<ReturnType<typeof serveAgent>>;
let negotiation: FakeNegotiation;
let logLines: Array<{ level: string; msg: string } & Record<string, unknown>>;

const FIG8 = { origin: 'PEK', destination: 'SHA' };

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db, 'execution');
  bus = createMemoryBus({ subjects });
  agent = await serveAgent(bus, subjects, 'skyways-air', 'flight_booking');
});

afterAll(async () => {
  await agent.stop();
  await bus.close();
  await db.close();
});

beforeEach(() => {
  clock.set(T0);
  negotiation = fakeNegotiation({ agent: 'skyways-air', base: baseTemplate(), now: () => clock.now().getTime() });
  logLines = [];
});

function service(over: Partial<ExecutionServiceDeps> = {}): ExecutionApi {
  return createExecutionService({
    db,
    bus,
    subjects,
    negotiation,
    clock,
    log: createLogger({ level: 'debug', write: (l) => void logLines.push(JSON.parse(l) as (typeof logLines)[number]) }),
    onOutboxWrite: () => {},
    timeoutMs: 2000,
    patchCacheTtlMs: 0,
    auditSampleRate: 0,
    auditScenarios: ['flight_booking'],
    ...over,
  });
}

async function failure(p: Promise<unknown>): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ParleyError)) throw new Error(`expected a ParleyError, got ${String(e)}`);
  return e;
}

const exec = (api: ExecutionApi, req: Partial<ExecuteRequest> & { payload: JsonObject }) => api.execute({ schema_id: 'flight_booking_v1', client_id: 'someone', ...req });

describe('§6.2.2 Personalized Adaptation: validation against the client\'s effective template', () => {
  beforeEach(() => {
    negotiation.patches = [patch('g1', { keys: [key('seat_preference')] }), patch('alice-1', { scope: 'alice', keys: [key('quiet_zone')] })];
  });

  it('accepts a per-client patch key from its client and delivers it to the agent', async () => {
    const api = service();
    const r = await exec(api, { client_id: 'alice', payload: { ...FIG8, quiet_zone: 'yes', seat_preference: 'window' } });
    expect(r.result?.status).toBe('confirmed');
    expect(agent.payloads.at(-1)).toMatchObject({ quiet_zone: 'yes', seat_preference: 'window' });
    expect(r.warnings).toEqual([]);
  });

  it('rejects the same key from another client as an unknown key (payload_invalid, rule unknown_key)', async () => {
    const api = service();
    const e = await failure(exec(api, { client_id: 'bob', payload: { ...FIG8, quiet_zone: 'yes' } }));
    expect({ type: e.type, path: e.path, rule: e.rule }).toEqual({ type: 'payload_invalid', path: 'payload.quiet_zone', rule: 'unknown_key' });
    // A global patch key is everyone's.
    expect((await exec(api, { client_id: 'bob', payload: { ...FIG8, seat_preference: 'aisle' } })).result?.status).toBe('confirmed');
  });

  it('payload.executed carries applied_patches (§6.2.3 client_adoption_rate)', async () => {
    const api = service();
    const r = await exec(api, { client_id: 'alice', payload: { ...FIG8 } });
    const executed = (await outboxEvents(db, r.execution_id)).find((e) => e.type === 'payload.executed');
    expect(executed?.data).toMatchObject({ client_id: 'alice', applied_patches: ['g1', 'alice-1'] });
  });

  it('patch changes reach validation within patchCacheTtlMs (resolution cached for the TTL, on the injected clock)', async () => {
    const api = service({ patchCacheTtlMs: 60_000 });
    // Qualified by agent: only the (agent, schema_id, client_id) resolution and its TTL are in play.
    await exec(api, { agent: 'skyways-air', client_id: 'carol', payload: { ...FIG8 } });
    const calls = negotiation.calls.getSchema;
    negotiation.patches = [...negotiation.patches, patch('carol-1', { scope: 'carol', keys: [key('lounge_access')] })];
    // Within the TTL the cached resolution still applies: no new lookup, the new key is unknown yet.
    clock.set(T0 + 59_999);
    const e = await failure(exec(api, { agent: 'skyways-air', client_id: 'carol', payload: { ...FIG8, lounge_access: 'yes' } }));
    expect(e.rule).toBe('unknown_key');
    expect(negotiation.calls.getSchema).toBe(calls);
    // Once the TTL has run out on the clock, the same service asks again and the next payload sees the key.
    clock.set(T0 + 60_000);
    expect((await exec(api, { agent: 'skyways-air', client_id: 'carol', payload: { ...FIG8, lounge_access: 'yes' } })).result?.status).toBe('confirmed');
    expect(negotiation.calls.getSchema).toBe(calls + 1);
  });

  it('clients on the same effective template share one compiled template and one patch lookup', async () => {
    const api = service({ patchCacheTtlMs: 60_000 });
    await Promise.all(['dave', 'erin', 'frank'].map((c) => exec(api, { client_id: c, payload: { ...FIG8, seat_preference: 'window' } })));
    await Promise.all(Array.from({ length: 10 }, () => exec(api, { client_id: 'dave', payload: { ...FIG8 } })));
    expect(negotiation.calls.getSchema).toBe(3); // one resolution per client, then cached
    expect(negotiation.calls.getSchemaUpdates).toBe(1); // patch attribution per etag, shared
  });
});

describe('§6.2.3 Withdrawal: the backward-compatibility window', () => {
  const until = T0 + 30 * DAY;
  beforeEach(() => {
    negotiation.patches = [withState(patch('wd', { keys: [key('seat_preference'), key('meal_preference', { enum: ['veg', 'halal'] })] }), 'meal_preference', 'withdrawn', T0, until)];
  });

  it('inside the window the key is accepted (by its old definition), a warning is logged and returned', async () => {
    const api = service();
    const r = await exec(api, { client_id: 'alice', payload: { ...FIG8, meal_preference: 'veg' } });
    expect(r.result?.status).toBe('confirmed');
    expect(agent.payloads.at(-1)).toMatchObject({ meal_preference: 'veg' });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('payload.meal_preference');
    expect(r.warnings[0]).toContain(new Date(until).toISOString());
    expect(logLines.some((l) => l.level === 'warn' && l.key_name === 'meal_preference' && l.patch_id === 'wd')).toBe(true);
    // Still validated by its old definition.
    const e = await failure(exec(api, { client_id: 'alice', payload: { ...FIG8, meal_preference: 'beef' } }));
    expect({ path: e.path, rule: e.rule }).toEqual({ path: 'payload.meal_preference', rule: 'enum' });
  });

  it('after the window the payload is rejected: payload_invalid, rule key_withdrawn, naming the date; nothing is recorded', async () => {
    const api = service();
    clock.set(until + 1);
    const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n;
    const e = await failure(exec(api, { client_id: 'alice', payload: { ...FIG8, meal_preference: 'veg' } }));
    expect({ type: e.type, path: e.path, rule: e.rule }).toEqual({ type: 'payload_invalid', path: 'payload.meal_preference', rule: 'key_withdrawn' });
    expect(e.message).toContain(new Date(until).toISOString());
    expect(e.details).toMatchObject({ patch_id: 'wd', accept_until: new Date(until).toISOString() });
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n).toBe(before);
    // Payloads without the key are unaffected, and carry no warning.
    expect((await exec(api, { client_id: 'alice', payload: { ...FIG8 } })).warnings).toEqual([]);
  });
});

describe('§6.2.2 Online Update Delivery: schema_update_suggestion (Figure 9)', () => {
  beforeEach(() => {
    negotiation.patches = [
      patch('g1', { keys: [key('seat_preference', { default_value: 'none' })], modified: [{ key_name: 'destination', semantic_description: 'Arrival airport (IATA). Example: to Shanghai -> SHA.' }] }),
      withState(patch('g2', { keys: [key('meal_preference')], at: T0 - DAY / 2 }), 'meal_preference', 'deprecated', T0),
      patch('bob-1', { scope: 'bob', keys: [key('extra_legroom')] }),
    ];
  });

  it('present when the client\'s schema_etag is stale (or absent), with the Figure 9 members and flagged keys', async () => {
    const api = service();
    const r = await exec(api, { client_id: 'alice', schema_etag: 'stale-etag', payload: { ...FIG8 } });
    const s = r.schema_update_suggestion as JsonObject;
    const current = (await negotiation.getSchema({ schema_id: 'flight_booking_v1', client_id: 'alice' })).etag;
    expect(s).toEqual({
      parent_schema_id: 'flight_booking_v1',
      etag: current,
      patch_ids: ['g1', 'g2'],
      new_keys: [
        { key_name: 'seat_preference', key_type: 'string', required: false, default_value: 'none', semantic_description: 'The seat preference.', experimental: true },
        { key_name: 'meal_preference', key_type: 'string', required: false, semantic_description: 'The meal preference.', deprecated: true },
      ],
      modified_keys: [{ key_name: 'destination', semantic_description: 'Arrival airport (IATA). Example: to Shanghai -> SHA.' }],
    });
    expect(JSON.stringify(s)).not.toContain('extra_legroom'); // bob's
    expect((await exec(api, { client_id: 'alice', payload: { ...FIG8 } })).schema_update_suggestion).toBeDefined();
  });

  it('absent when the client holds the current etag', async () => {
    const api = service();
    const { etag } = await negotiation.getSchema({ schema_id: 'flight_booking_v1', client_id: 'alice' });
    const r = await exec(api, { client_id: 'alice', schema_etag: etag, payload: { ...FIG8 } });
    expect(r.schema_update_suggestion).toBeUndefined();
  });

  it('absent for a scenario without patches, whatever the etag; no patch lookup is made', async () => {
    negotiation.patches = [];
    const api = service();
    const r = await exec(api, { client_id: 'alice', schema_etag: 'anything', payload: { ...FIG8 } });
    expect(r.schema_update_suggestion).toBeUndefined();
    expect(negotiation.calls.getSchemaUpdates).toBe(0);
    const executed = (await outboxEvents(db, r.execution_id)).find((e) => e.type === 'payload.executed');
    expect(executed?.data).toMatchObject({ applied_patches: [] });
  });
});

describe('§6.2.3 semantic_alignment_accuracy: the audit sampler (audit.sampled)', () => {
  beforeEach(() => {
    negotiation.patches = [patch('g1', { keys: [key('seat_preference')] }), patch('alice-1', { scope: 'alice', keys: [key('quiet_zone')] })];
  });

  const audits = (events: EventEnvelope[]) => events.filter((e) => e.type === 'audit.sampled');

  it('samples each patch key present (value and utterance) in the execution\'s own outbox transaction; base-key values never leave', async () => {
    const api = service({ auditSampleRate: 0.25, random: () => 0.1 });
    const r = await exec(api, {
      client_id: 'alice',
      utterance: 'Beijing to Shanghai, window seat, somewhere quiet please',
      payload: { ...FIG8, seat_preference: 'window', quiet_zone: 'yes', cabin_class: 'business' },
    });
    const events = await outboxEvents(db, r.execution_id);
    expect(events.map((e) => e.type)).toEqual(['payload.executed', 'audit.sampled', 'audit.sampled']);
    const samples = audits(events).map((e) => e.data as unknown as Record<string, unknown>);
    expect(samples).toEqual([
      expect.objectContaining({ execution_id: r.execution_id, agent: 'skyways-air', scenario_id: 'flight_booking', client_id: 'alice', patch_id: 'g1', key_name: 'seat_preference', value: 'window', utterance: 'Beijing to Shanghai, window seat, somewhere quiet please' }),
      expect.objectContaining({ patch_id: 'alice-1', key_name: 'quiet_zone', value: 'yes' }),
    ]);
    expect(samples[0]?.sample_id).toMatch(/^[0-9a-f-]{36}$/);
    const all = JSON.stringify(events);
    expect(all).not.toContain('PEK');
    expect(all).not.toContain('business');
  });

  it('samples with probability auditSampleRate (the injected random decides); no utterance member when none was given', async () => {
    const seq = [0.9, 0.2];
    const api = service({ auditSampleRate: 0.25, random: () => seq.shift() ?? 1 });
    const r = await exec(api, { client_id: 'alice', payload: { ...FIG8, seat_preference: 'window', quiet_zone: 'yes' } });
    const samples = audits(await outboxEvents(db, r.execution_id));
    expect(samples.map((e) => (e.data as unknown as { key_name: string }).key_name)).toEqual(['quiet_zone']);
    expect(samples[0]?.data).not.toHaveProperty('utterance');
    const none = await exec(service({ auditSampleRate: 0, random: () => 0 }), { client_id: 'alice', payload: { ...FIG8, seat_preference: 'window' } });
    expect(audits(await outboxEvents(db, none.execution_id))).toEqual([]);
  });

  it('stores no value of a scenario an operator has not enabled (draft-zhou §7): no AUDIT_SCENARIOS, no sample', async () => {
    for (const auditScenarios of [[], ['photo_retouch']]) {
      const r = await exec(service({ auditSampleRate: 1, random: () => 0, auditScenarios }), { client_id: 'alice', payload: { ...FIG8, seat_preference: 'window' } });
      expect(audits(await outboxEvents(db, r.execution_id))).toEqual([]);
    }
    const all = await exec(service({ auditSampleRate: 1, random: () => 0, auditScenarios: ['*'] }), { client_id: 'alice', payload: { ...FIG8, seat_preference: 'window' } });
    expect(audits(await outboxEvents(db, all.execution_id))).toHaveLength(1);
  });

  it('a default applied to a patch key is not the client\'s value and is not sampled', async () => {
    negotiation.patches = [patch('g-default', { keys: [key('seat_preference', { default_value: 'none' })] })];
    const api = service({ auditSampleRate: 1, random: () => 0 });
    const r = await exec(api, { client_id: 'alice', payload: { ...FIG8 } });
    expect(r.defaults_applied).toContain('seat_preference');
    expect(audits(await outboxEvents(db, r.execution_id))).toEqual([]);
  });
});

describe('options', () => {
  it('refuses a sample rate outside [0, 1] and a negative TTL', () => {
    expect(() => service({ auditSampleRate: 1.5 })).toThrow(/auditSampleRate/);
    expect(() => service({ patchCacheTtlMs: -1 })).toThrow(/patchCacheTtlMs/);
  });

  it('refuses an over-long utterance or etag from a gRPC caller (invalid_params)', async () => {
    const api = service();
    expect((await failure(exec(api, { utterance: 'x'.repeat(4001), payload: { ...FIG8 } }))).path).toBe('params.utterance');
    expect((await failure(exec(api, { schema_etag: 'e'.repeat(129), payload: { ...FIG8 } }))).path).toBe('params.schema_etag');
  });
});
