import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateToWire, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import { flightBookingTemplate } from '@parley/examples';
import { ParleyError, type SchemaTemplate } from '@parley/protocol';
import { createRegistryService } from '@parley/registry';
import { createPgliteDb, migrate, type Db } from '@parley/storage';
import { createNegotiationService } from '@parley/negotiation';

// The negotiation service on PGlite with the real registry service behind it (no
// mocks); here because only the composition project may import two services.
let db: Db;
let registry: RegistryApi;
let negotiation: NegotiationApi;
const clock = { now: () => new Date('2026-05-01T00:00:00Z') };

const agent = (name: string, scenarios: string[]) => ({
  agent: { name, scenarios, description: '', domain: 'travel', tags: [], version: '1', registered_at: '', updated_at: '', executions: 0, last_executed_at: '' },
});

const german: SchemaTemplate = {
  ...flightBookingTemplate,
  keys: flightBookingTemplate.keys.map((k) => ({ ...k, semantic_description: `(de) ${k.semantic_description}` })),
};

async function rejects(p: Promise<unknown>, type: string, rule?: string): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ParleyError);
  expect((e as ParleyError).type).toBe(type);
  if (rule) expect((e as ParleyError).rule).toBe(rule);
  return e as ParleyError;
}

beforeAll(async () => {
  db = await createPgliteDb();
  await migrate(db, 'registry');
  await migrate(db, 'negotiation');
  registry = createRegistryService({ db, clock });
  negotiation = createNegotiationService({ db, clock, registry });
  await registry.registerAgent(agent('skyways-air', ['flight_booking']));
  await negotiation.publishSchema({ agent: 'skyways-air', template: templateToWire(flightBookingTemplate), language: 'en' });
});

afterAll(async () => {
  await db.close();
});

describe('negotiation: immutable, versioned base templates (draft-zhou §4.1, §6.2.2)', () => {
  it('re-publishing identical content is a no-op', async () => {
    const r = await negotiation.publishSchema({ agent: 'skyways-air', template: templateToWire(flightBookingTemplate), language: 'en' });
    expect(r.created).toBe(false);
    expect(r.schema?.version).toBe(1);
  });

  it('changing a published schema_id is refused: a change is a new schema_id', async () => {
    const changed = { ...flightBookingTemplate, keys: flightBookingTemplate.keys.map((k) => (k.key_name === 'origin' ? { ...k, semantic_description: 'changed' } : k)) };
    await rejects(negotiation.publishSchema({ agent: 'skyways-air', template: templateToWire(changed), language: 'en' }), 'schema_immutable', 'immutable');
  });

  it('a new schema_id becomes the next version and the negotiated latest', async () => {
    const v2 = { ...flightBookingTemplate, schema_id: 'flight_booking_v2' };
    const r = await negotiation.publishSchema({ agent: 'skyways-air', template: templateToWire(v2), language: 'en' });
    expect(r.schema?.version).toBe(2);
    const t = await negotiation.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: '' });
    expect(t.template?.schema_id).toBe('flight_booking_v2');
    const old = await negotiation.getSchema({ schema_id: 'flight_booking_v1' });
    expect(old.schema?.version).toBe(1);
  });

  it('refuses a schema for an agent that is not registered or does not serve the scenario', async () => {
    await rejects(negotiation.publishSchema({ agent: 'nobody', template: templateToWire(flightBookingTemplate), language: 'en' }), 'agent_not_found');
    await registry.registerAgent(agent('photo-only', ['photo_retouch']));
    await rejects(negotiation.publishSchema({ agent: 'photo-only', template: templateToWire(flightBookingTemplate), language: 'en' }), 'scenario_not_served', 'served_by_agent');
  });
});

describe('negotiation: language variants (draft-zhou §4.2)', () => {
  it('accepts a variant that differs only in semantic descriptions and serves it by preferred_language', async () => {
    const r = await negotiation.publishSchema({ agent: 'skyways-air', template: templateToWire(german), language: 'de' });
    expect(r.created).toBe(true);
    expect(r.schema?.languages).toEqual(['de', 'en']);
    const de = await negotiation.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: 'de-AT', agent: 'skyways-air' });
    // the latest version (v2) has no German variant yet: English is served
    expect(de.language).toBe('en');
    const v1 = await negotiation.getSchema({ schema_id: 'flight_booking_v1' });
    expect(v1.schema?.languages).toEqual(['de', 'en']);
  });

  it('serves the best match: exact, then primary subtag, then the default', async () => {
    await registry.registerAgent(agent('lingua-air', ['lingua_flight']));
    const base = { ...flightBookingTemplate, schema_id: 'lingua_v1', scenario: 'lingua_flight' };
    await negotiation.publishSchema({ agent: 'lingua-air', template: templateToWire(base), language: 'en' });
    await negotiation.publishSchema({ agent: 'lingua-air', template: templateToWire({ ...german, schema_id: 'lingua_v1', scenario: 'lingua_flight' }), language: 'de' });
    const pick = async (lang: string) => (await negotiation.getSchemaTemplate({ scenario: 'lingua_flight', preferred_language: lang })).language;
    expect(await pick('de')).toBe('de');
    expect(await pick('de-CH')).toBe('de');
    expect(await pick('fr-FR')).toBe('en');
    const de = await negotiation.getSchemaTemplate({ scenario: 'lingua_flight', preferred_language: 'de' });
    expect(de.template?.keys[0]?.semantic_description).toMatch(/^\(de\)/);
  });

  it('refuses a variant whose keys differ from the base', async () => {
    const wrong = { ...german, schema_id: 'lingua_v1', scenario: 'lingua_flight', keys: german.keys.filter((k) => k.key_name !== 'cabin_class') };
    await rejects(negotiation.publishSchema({ agent: 'lingua-air', template: templateToWire(wrong), language: 'fr' }), 'template_invalid', 'variant_mismatch');
  });
});

describe('negotiation: discovery by scenario', () => {
  it('asks for an agent when several serve the scenario', async () => {
    await registry.registerAgent(agent('rival-air', ['flight_booking']));
    await negotiation.publishSchema({ agent: 'rival-air', template: templateToWire({ ...flightBookingTemplate, schema_id: 'rival_v1' }), language: 'en' });
    const e = await rejects(negotiation.getSchemaTemplate({ scenario: 'flight_booking', preferred_language: 'en' }), 'ambiguous_agent', 'required_when_ambiguous');
    expect(e.details.agents).toEqual(['rival-air', 'skyways-air']);
    const named = await negotiation.getSchemaTemplate({ scenario: 'flight booking', preferred_language: 'en', agent: 'rival-air' });
    expect(named.template?.schema_id).toBe('rival_v1');
  });

  it('answers scenario_not_found for a scenario nobody publishes', async () => {
    await rejects(negotiation.getSchemaTemplate({ scenario: 'teleportation', preferred_language: '' }), 'scenario_not_found', 'exists');
  });
});
