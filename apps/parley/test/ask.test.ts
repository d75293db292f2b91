import { createParleyClient, type ParleyClient } from '@parley/client';
import { createOpenAiMapper } from '@parley/client/llm';
import { flightBookingResponseSchema, photoRetouchResponseSchema } from '@parley/examples';
import { ParleyError, compileResponseSchema, type JsonObject } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { completion, startChatServer, type ChatServer } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type EmbeddedParley } from '../src/embedded';

// `client.ask` (draft-zhou Figure 1 from the user's words, §6.1) against Parley as `npm start` runs it:
// the registry lists the seeded agents, negotiation serves their templates, the example agents execute.
let parley: EmbeddedParley;
let client: ParleyClient;
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };

beforeAll(async () => {
  parley = await startParley({ port: 0, log: createLogger({ level: 'silent' }) });
  client = createParleyClient(parley.url, { apiKey: parley.devKey });
});
afterAll(async () => {
  await parley?.stop();
});

const executions = async () => Number((await parley.db.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.executions')).rows[0]?.n);

async function error(p: Promise<unknown>): Promise<ParleyError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ParleyError);
  return e as ParleyError;
}

describe('ask: identify, negotiate, map, execute', () => {
  it('identifies each seeded scenario from the registry and maps a dry run without executing', async () => {
    const before = await executions();
    const catalog = await client.scenarioCatalog();
    expect(catalog.entries.map((e) => `${e.agent}/${e.scenario}`).sort()).toEqual(
      expect.arrayContaining(['an-cross-domain-fault/fault_management', 'pixel-studio/photo_retouch', 'skyways-air/flight_booking']),
    );
    const cases: [string, string, JsonObject][] = [
      ['Book me a business flight from Beijing to Shanghai next Monday, window seat', 'flight_booking', { origin: 'PEK', destination: 'SHA', departure_date: '2026-11-30', cabin_class: 'business', other: 'window seat' }],
      ['Retouch this photo with a vintage filter, whiten the teeth and blur the background', 'photo_retouch', { filter_style: 'vintage', teeth_whitening: true, background_blur: true }],
      [
        'Incident INC-20261126-0042: base stations out of service at sites 2031, 2032 and 2040 since 08:05 this morning, wireless, critical',
        'fault_management',
        { incident_id: 'INC-20261126-0042', alarm_type: 'base_station_out_of_service', affected_site_ids: ['2031', '2032', '2040'], occurred_at: '2026-11-26T08:05:00+01:00', fault_domain: 'wireless', severity: 'critical' },
      ],
    ];
    for (const [words, scenario, payload] of cases) {
      const r = await client.ask(words, { ...REF, catalog, dryRun: true });
      expect(r.identification.scenario, words).toBe(scenario);
      expect(r.identification.ranking[0]?.scenario).toBe(scenario);
      expect(r.mapping.payload).toEqual(payload);
      expect(r.executed).toBe(false);
    }
    expect(await executions()).toBe(before);
  });

  it('executes after the confirmation and returns the agent\'s result (Figure 9 shape)', async () => {
    const before = await executions();
    const seen: string[] = [];
    const r = await client.ask('Book me a flight from Beijing to Shanghai next Monday, business class, and I prefer a window seat.', {
      ...REF,
      confirm: (m, id) => {
        seen.push(`${id.agent} ${m.schema_id} ${JSON.stringify(m.payload)}`);
        return true;
      },
    });
    expect(seen).toEqual([`skyways-air flight_booking_v1 ${JSON.stringify(r.mapping.payload)}`]);
    expect(r.executed).toBe(true);
    expect(() => compileResponseSchema(flightBookingResponseSchema).check(r.result, 'skyways-air')).not.toThrow();
    expect(r.result?.['seat']).toMatch(/A$/); // "window seat" from other reached the agent
    expect(await executions()).toBe(before + 1);
  });

  it('confirm saying no executes nothing', async () => {
    const before = await executions();
    const r = await client.ask('Retouch this photo with a warm filter', { ...REF, confirm: () => false });
    expect([r.executed, r.declined, r.mapping.payload['filter_style']]).toEqual([false, true, 'warm']);
    expect(await executions()).toBe(before);
  });

  it('words no scenario explains: scenario_not_found naming the closest ones, nothing executed', async () => {
    const before = await executions();
    const e = await error(client.ask('Help me order a large iced latte', REF));
    expect([e.type, e.path, e.rule]).toEqual(['scenario_not_found', 'utterance', 'no_matching_scenario']);
    const closest = e.details['closest'] as Array<{ scenario: string }>;
    expect(closest).toHaveLength(3);
    expect(closest.map((c) => c.scenario).sort()).toEqual(['fault_management', 'flight_booking', 'photo_retouch']);
    expect(e.message).toContain('the closest:');
    expect(await executions()).toBe(before);
  });

  it('a payload the server would refuse is reported by key and rule before anything runs', async () => {
    const before = await executions();
    const e = await error(client.ask('I need a business flight to Shanghai tomorrow', REF));
    expect([e.type, e.path, e.rule]).toEqual(['payload_invalid', 'payload.origin', 'required']);
    const mapping = e.details['mapping'] as { missing_required: string[]; payload: JsonObject };
    expect(mapping.missing_required).toEqual(['origin']);
    expect(mapping.payload).toMatchObject({ destination: 'SHA', departure_date: '2026-11-27', cabin_class: 'business' });
    expect(await executions()).toBe(before);
  });

  it('--scenario skips identification (any spelling of the scenario)', async () => {
    const r = await client.ask('vintage style, blurry background', { ...REF, scenario: 'Photo Retouch', dryRun: true });
    expect(r.identification).toEqual({ scenario: 'photo_retouch', agent: null, score: 1, ranking: [] });
    expect(r.mapping.payload).toEqual({ filter_style: 'vintage', background_blur: true });
    const e = await error(client.ask('vintage style', { ...REF, scenario: 'coffee_order' }));
    expect(e.type).toBe('scenario_not_found');
  });

  it('a scenario registered later is identified from its own template (nothing is fixed in the client)', async () => {
    const coffee = {
      schema_id: 'coffee_order_v1',
      scenario: 'coffee_order',
      keys: [
        { key_name: 'drink', key_type: 'string', required: true, enum: ['latte', 'espresso', 'cappuccino'], semantic_description: 'The drink. Acceptable values: latte, espresso, cappuccino.' },
        { key_name: 'size', key_type: 'string', required: false, enum: ['small', 'medium', 'large'], semantic_description: 'Cup size. Acceptable values: small, medium, large.' },
        { key_name: 'iced', key_type: 'boolean', required: false, semantic_description: "Served over ice. Example: 'iced' -> true." },
      ],
    };
    await client.registerAgent({ name: 'corner-cafe', scenarios: ['coffee_order'], description: 'Orders coffee drinks to pick up.', tags: ['coffee', 'food'] });
    await client.publishSchema({ agent: 'corner-cafe', template: coffee as unknown as JsonObject });
    // draft-zhou §3.2 step (1)'s own example request.
    const r = await client.ask('Help me order a large iced latte', { ...REF, dryRun: true });
    expect(r.identification).toMatchObject({ scenario: 'coffee_order', agent: 'corner-cafe' });
    expect(r.mapping.payload).toEqual({ drink: 'latte', size: 'large', iced: true });
  });
});

describe('ask with the LLM mapper', () => {
  let chat: ChatServer;
  beforeAll(async () => {
    chat = await startChatServer();
  });
  afterAll(async () => {
    await chat?.close();
  });

  it('maps with the model, checks with the server\'s validator, executes', async () => {
    chat.setHandler(() =>
      completion(
        JSON.stringify({
          values: {
            skin_smoothing: { value: 7, confidence: 0.8, words: 'smooth the skin' },
            teeth_whitening: { value: true, confidence: 0.95, words: 'whiten teeth' },
            background_blur: { value: true, confidence: 0.93, words: 'make the background blurry' },
            filter_style: { value: 'vintage', confidence: 0.96, words: 'add a vintage filter' },
            eye_enlargement: { value: null, confidence: 0, words: '' },
          },
          other: ['I want my eyes to look bigger'],
        }),
      ),
    );
    const llm = createParleyClient(parley.url, { apiKey: parley.devKey, mapper: createOpenAiMapper({ baseUrl: chat.base, model: 'test-model' }) });
    const r = await llm.ask('Please retouch this photo: smooth the skin, whiten teeth, make the background blurry, and add a vintage filter. Also, I want my eyes to look bigger.', {
      ...REF,
      scenario: 'photo_retouch',
    });
    // Figure 5 of draft-zhou §5.2 (eye_enlargement false is the default the server applies).
    expect(r.mapping.payload).toEqual({ skin_smoothing: 7, teeth_whitening: true, background_blur: true, filter_style: 'vintage', other: 'I want my eyes to look bigger' });
    expect(r.mapping.mapper).toBe('openai:test-model');
    expect(r.executed).toBe(true);
    expect(() => compileResponseSchema(photoRetouchResponseSchema).check(r.result, 'pixel-studio')).not.toThrow();
    expect(r.result?.['applied']).toMatchObject({ skin_smoothing: 7, filter_style: 'vintage' });
  });
});
