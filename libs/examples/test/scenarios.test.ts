import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import {
  ParleyError,
  compilePayloadValidator,
  parseRegisterAgentParams,
  parseTemplate,
  scenarioId,
  type JsonObject,
  type KeyDefinition,
  type SchemaTemplate,
} from '@parley/protocol';
import {
  SCENARIOS,
  faultManagementScenario,
  faultManagementTemplate,
  flightBookingResponseSchema,
  flightBookingScenario,
  flightBookingTemplate,
  photoRetouchScenario,
  photoRetouchTemplate,
} from '../src/scenarios/index';
import { bookFlight } from '../src/agents/flight-booking';
import { retouchPhoto } from '../src/agents/photo-retouch';
import { diagnoseFault } from '../src/agents/fault-management';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => unknown;

/** A draft figure, verbatim, from libs/protocol's fixtures. */
function figure<T = JsonObject>(n: number): T {
  return JSON.parse(readFileSync(new URL(`../../protocol/test/fixtures/figure-${String(n).padStart(2, '0')}.json`, import.meta.url), 'utf8')) as T;
}

// Parley's extension members: the constraints, and the ADOL optional section (chang §3.2).
const CONSTRAINT_MEMBERS = ['enum', 'minimum', 'maximum', 'format', 'pattern', 'min_length', 'max_length', 'items_type', 'min_items', 'max_items', 'optional'];

/** The template without Parley's extension members: what the draft prints. */
function withoutConstraints(t: SchemaTemplate): unknown {
  return { ...t, keys: t.keys.map((k) => Object.fromEntries(Object.entries(k).filter(([m]) => !CONSTRAINT_MEMBERS.includes(m)))) };
}

function key(t: SchemaTemplate, name: string): KeyDefinition {
  const k = t.keys.find((d) => d.key_name === name);
  if (!k) throw new Error(`no key ${name}`);
  return k;
}

function payloadRule(t: SchemaTemplate, payload: unknown): { path: string; rule: string } {
  try {
    compilePayloadValidator(t).validate(payload);
  } catch (e) {
    if (e instanceof ParleyError && e.type === 'payload_invalid') return { path: e.path, rule: e.rule };
    throw e;
  }
  throw new Error('payload was accepted');
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

describe('SCENARIOS', () => {
  it('seeds flight booking, photo retouching and fault management, one schema_id each', () => {
    expect(SCENARIOS.map((s) => s.template.schema_id)).toEqual(['flight_booking_v1', 'photo_retouch_v2', 'fault_management_v1']);
    expect(SCENARIOS).toContain(flightBookingScenario);
    expect(SCENARIOS).toContain(photoRetouchScenario);
    expect(SCENARIOS).toContain(faultManagementScenario);
  });

  for (const s of SCENARIOS) {
    describe(s.template.schema_id, () => {
      it('§4.1/§4.3 the template passes parseTemplate unchanged (it defines "other")', () => {
        const { template, notes } = parseTemplate(s.template);
        expect(JSON.stringify(template)).toBe(JSON.stringify(s.template));
        expect(notes).toEqual([]);
      });

      it('its scenario is already a canonical scenario id', () => {
        expect(scenarioId(s.template.scenario)).toBe(s.template.scenario);
      });

      it('description, domain and tags make valid register_agent params', () => {
        const params = parseRegisterAgentParams({ name: 'example-agent', description: s.description, domain: s.domain, tags: s.tags, scenarios: [s.template.scenario] });
        expect(params.tags).toEqual(s.tags);
        expect(params.scenarios).toEqual([s.template.scenario]);
      });

      it('the example payload validates against the template', () => {
        const r = compilePayloadValidator(s.template).validate(s.examplePayload);
        expect(r.keys_present.length).toBeGreaterThan(0);
        for (const [k, v] of Object.entries(s.examplePayload)) expect(r.payload[k]).toEqual(v);
      });

      it('§3.2 step 5 the response schema compiles and the example response satisfies it', () => {
        const validate = ajv.compile(s.responseSchema);
        expect(validate(s.exampleResponse), JSON.stringify(validate.errors)).toBe(true);
        // A result without its required members is rejected.
        expect(validate({})).toBe(false);
      });
    });
  }
});

describe('flight_booking_v1 (draft-zhou §5.1)', () => {
  it('§4.1 is Figure 2 exactly as printed: same members, same order, same descriptions', () => {
    expect(JSON.stringify(withoutConstraints(flightBookingTemplate))).toBe(JSON.stringify(figure(2)));
  });

  it('adds the constraints its descriptions state in prose', () => {
    expect(key(flightBookingTemplate, 'cabin_class').enum).toEqual(['economy', 'premium_economy', 'business', 'first']);
    expect(key(flightBookingTemplate, 'passenger_count')).toMatchObject({ minimum: 1, maximum: 9 });
    expect(key(flightBookingTemplate, 'departure_date').format).toBe('date');
  });

  it('A.2 Figure 8 (and §5.1 Figure 4) validate with nothing defaulted', () => {
    for (const n of [4, 8]) {
      const { schema_id, payload } = figure<{ schema_id: string; payload: JsonObject }>(n);
      expect(schema_id).toBe(flightBookingTemplate.schema_id);
      const r = compilePayloadValidator(flightBookingTemplate).validate(payload);
      expect(r.payload).toEqual(payload);
      expect(r.defaults_applied).toEqual([]);
    }
  });

  it('the constraints reject what the descriptions exclude', () => {
    const base = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' };
    expect(payloadRule(flightBookingTemplate, { ...base, passenger_count: 10 })).toEqual({ path: 'payload.passenger_count', rule: 'maximum' });
    expect(payloadRule(flightBookingTemplate, { ...base, passenger_count: 0 })).toEqual({ path: 'payload.passenger_count', rule: 'minimum' });
    expect(payloadRule(flightBookingTemplate, { ...base, cabin_class: 'luxury' })).toEqual({ path: 'payload.cabin_class', rule: 'enum' });
    expect(payloadRule(flightBookingTemplate, { ...base, departure_date: 'next Monday' })).toEqual({ path: 'payload.departure_date', rule: 'format' });
  });

  it('A.2 Figure 9 satisfies the response schema; extra members are allowed, the printed ones required', () => {
    const validate = ajv.compile(flightBookingResponseSchema);
    const fig9 = figure(9);
    expect(validate(fig9), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...fig9, gate: 'C12' })).toBe(true);
    const { schema_update_suggestion: _omit, ...withoutSuggestion } = fig9;
    expect(validate(withoutSuggestion)).toBe(true);
    const { booking_id: _id, ...withoutId } = fig9;
    expect(validate(withoutId)).toBe(false);
    expect(validate({ ...fig9, seat: 12 })).toBe(false);
    expect(validate({ ...fig9, schema_update_suggestion: { new_keys: 'seat_preference' } })).toBe(false);
  });
});

describe('photo_retouch_v2 (draft-zhou §5.2)', () => {
  it('A.3 is Figure 10 exactly as printed', () => {
    expect(JSON.stringify(withoutConstraints(photoRetouchTemplate))).toBe(JSON.stringify(figure(10)));
  });

  it('adds the constraints its descriptions state in prose', () => {
    expect(key(photoRetouchTemplate, 'skin_smoothing')).toMatchObject({ minimum: 0, maximum: 10 });
    expect(key(photoRetouchTemplate, 'filter_style').enum).toEqual(['none', 'vintage', 'cinematic', 'warm', 'cool']);
  });

  it('§5.2 Figure 5 validates with nothing defaulted; its eye request stays in other', () => {
    const { schema_id, payload } = figure<{ schema_id: string; payload: JsonObject }>(5);
    expect(schema_id).toBe(photoRetouchTemplate.schema_id);
    const r = compilePayloadValidator(photoRetouchTemplate).validate(payload);
    expect(r.defaults_applied).toEqual([]);
    expect(r.other_fragments).toEqual(['increase eye size proportionally']);
  });

  it('the constraints reject what the descriptions exclude', () => {
    expect(payloadRule(photoRetouchTemplate, { skin_smoothing: 11 })).toEqual({ path: 'payload.skin_smoothing', rule: 'maximum' });
    expect(payloadRule(photoRetouchTemplate, { filter_style: 'sepia' })).toEqual({ path: 'payload.filter_style', rule: 'enum' });
  });

  it('an empty payload takes every default', () => {
    const r = compilePayloadValidator(photoRetouchTemplate).validate({});
    expect(r.payload).toEqual({ skin_smoothing: 0, teeth_whitening: false, background_blur: false, filter_style: 'none', eye_enlargement: false });
  });
});

describe('fault_management_v1 (autonomous networks use case 2.1)', () => {
  it('names the scenario and the keys of the diagnostic request', () => {
    expect(faultManagementTemplate.schema_id).toBe('fault_management_v1');
    expect(faultManagementTemplate.scenario).toBe('fault_management');
    expect(faultManagementTemplate.keys.map((k) => k.key_name)).toEqual([
      'incident_id',
      'fault_domain',
      'alarm_type',
      'affected_site_ids',
      'severity',
      'occurred_at',
      'suspected_link',
      'user_complaint_count',
      'diagnosis_depth',
      'other',
    ]);
    expect(faultManagementTemplate.keys.filter((k) => k.required).map((k) => k.key_name)).toEqual(['incident_id', 'fault_domain', 'alarm_type', 'affected_site_ids', 'occurred_at']);
  });

  it('§4.1 every semantic description gives a mapping example from natural language', () => {
    // (Figure 10's eye_enlargement has none, as printed; this template is Parley's own.)
    for (const k of faultManagementTemplate.keys) expect(k.semantic_description, k.key_name).toMatch(/Example mapping: '.+' -> /);
  });

  it('constrains domains, severities, sites, time and diagnosis depth', () => {
    expect(key(faultManagementTemplate, 'fault_domain').enum).toEqual(['wireless', 'ip_network', 'transport', 'core', 'cross_domain']);
    expect(key(faultManagementTemplate, 'severity').enum).toEqual(['critical', 'major', 'minor', 'warning']);
    expect(key(faultManagementTemplate, 'affected_site_ids')).toMatchObject({ key_type: 'array', items_type: 'string', min_items: 1 });
    expect(key(faultManagementTemplate, 'occurred_at').format).toBe('date-time');
    expect(key(faultManagementTemplate, 'diagnosis_depth')).toMatchObject({ enum: ['quick', 'full'], default_value: 'quick', required: false });
    // zhou §4.3: other as an array of strings.
    expect(key(faultManagementTemplate, 'other')).toMatchObject({ key_type: 'array', items_type: 'string', required: false });
  });

  it('defaults diagnosis_depth to quick and rejects what the constraints exclude', () => {
    const base = { incident_id: 'INC-1', fault_domain: 'cross_domain', alarm_type: 'link_down', affected_site_ids: ['1021'], occurred_at: '2026-05-04T09:12:00+08:00' };
    const r = compilePayloadValidator(faultManagementTemplate).validate(base);
    expect(r.payload).toMatchObject({ diagnosis_depth: 'quick', severity: 'major' });
    expect(payloadRule(faultManagementTemplate, { ...base, fault_domain: 'radio' })).toEqual({ path: 'payload.fault_domain', rule: 'enum' });
    expect(payloadRule(faultManagementTemplate, { ...base, affected_site_ids: [] })).toEqual({ path: 'payload.affected_site_ids', rule: 'min_items' });
    expect(payloadRule(faultManagementTemplate, { ...base, affected_site_ids: [1021] })).toEqual({ path: 'payload.affected_site_ids[0]', rule: 'type' });
    expect(payloadRule(faultManagementTemplate, { ...base, occurred_at: '2026-05-04 09:12' })).toEqual({ path: 'payload.occurred_at', rule: 'format' });
    expect(payloadRule(faultManagementTemplate, { ...base, incident_id: 'INC 1' })).toEqual({ path: 'payload.incident_id', rule: 'pattern' });
    // zhou §4.3: a string is accepted in other even though it is declared as an array.
    expect(compilePayloadValidator(faultManagementTemplate).validate({ ...base, other: 'landlord key needed' }).other_fragments).toEqual(['landlord key needed']);
  });
});

describe('the example agents answer in their scenario\'s response schema', () => {
  const cases: Array<[string, SchemaTemplate, JsonObject, (p: JsonObject) => JsonObject]> = [
    ['flight booking', flightBookingTemplate, flightBookingScenario.responseSchema, (p) => bookFlight(p, { execution_id: 'exec-0001-abcdef', now: new Date('2026-04-30T08:00:00Z') })],
    ['photo retouch', photoRetouchTemplate, photoRetouchScenario.responseSchema, (p) => retouchPhoto(p, { execution_id: 'exec-0002-abcdef' })],
    ['fault management', faultManagementTemplate, faultManagementScenario.responseSchema, (p) => diagnoseFault(p, { execution_id: 'exec-0003-abcdef' })],
  ];
  for (const [name, template, responseSchema, run] of cases) {
    it(name, () => {
      const scenario = SCENARIOS.find((s) => s.template === template);
      const validated = compilePayloadValidator(template).validate(scenario?.examplePayload);
      const validate = ajv.compile(responseSchema);
      const result = run(validated.payload);
      expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
    });
  }
});
