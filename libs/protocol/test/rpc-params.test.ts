import { describe, expect, it } from 'vitest';
import {
  RPC_PARAM_PARSERS,
  parseExecuteParams,
  parseGetSchemaTemplateParams,
  parseGetSchemaUpdatesParams,
  parseListAgentsParams,
  parseListSchemasParams,
  parsePublishSchemaParams,
  parseRegisterAgentParams,
} from '../src/index';
import { expectViolation, figure } from './helpers';

const invalid = (fn: () => unknown, path: string, rule: string) => expectViolation(fn, 'invalid_params', path, rule);

describe('get_schema_template params (zhou §3.2 step 3, Figure 6)', () => {
  it('Figure 6 params', () => {
    const { params } = figure<{ params: unknown }>(6);
    expect(parseGetSchemaTemplateParams(params)).toEqual({ scenario: 'flight_booking', scenario_id: 'flight_booking', preferred_language: 'en-US' });
  });

  it('canonicalises the scenario and the language tag; agent and client_id are optional', () => {
    expect(parseGetSchemaTemplateParams({ scenario: 'Flight Booking', preferred_language: 'zh-hans-cn', agent: 'airline', client_id: 'user:42@app' })).toEqual({
      scenario: 'Flight Booking',
      scenario_id: 'flight_booking',
      preferred_language: 'zh-Hans-CN',
      agent: 'airline',
      client_id: 'user:42@app',
    });
    expect(parseGetSchemaTemplateParams({ scenario: 'x', preferred_language: null })).toEqual({ scenario: 'x', scenario_id: 'x' });
  });

  it('rejects missing, malformed and unknown params', () => {
    invalid(() => parseGetSchemaTemplateParams(undefined), 'params', 'required');
    invalid(() => parseGetSchemaTemplateParams(['flight_booking']), 'params', 'type');
    invalid(() => parseGetSchemaTemplateParams({}), 'params.scenario', 'required');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 5 }), 'params.scenario', 'type');
    invalid(() => parseGetSchemaTemplateParams({ scenario: '' }), 'params.scenario', 'non_empty');
    invalid(() => parseGetSchemaTemplateParams({ scenario: '!!!' }), 'params.scenario', 'scenario_slug');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x'.repeat(129) }), 'params.scenario', 'max_length');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', preferred_language: 'en_US' }), 'params.preferred_language', 'bcp47');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', agent: 'Airline' }), 'params.agent', 'agent_name');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', client_id: 'has space' }), 'params.client_id', 'pattern');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', views: 'short' }), 'params.views', 'unknown_member');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', short: true }), 'params.short', 'unknown_member');
  });

  it('accepts the ADOL views: view "short" | "full" (chang §3.2) and compact (chang §3.1)', () => {
    expect(parseGetSchemaTemplateParams({ scenario: 'x', view: 'short', compact: true })).toEqual({ scenario: 'x', scenario_id: 'x', view: 'short', compact: true });
    expect(parseGetSchemaTemplateParams({ scenario: 'x', view: 'full', compact: false })).toEqual({ scenario: 'x', scenario_id: 'x', view: 'full', compact: false });
    // Absent (or null) means the current behaviour: the full template, uncompacted.
    expect(parseGetSchemaTemplateParams({ scenario: 'x', view: null, compact: null })).toEqual({ scenario: 'x', scenario_id: 'x' });
  });

  it('refs (chang §3.1): "none" is the template with no $ref, "local" the compact one; contradicting compact is refused', () => {
    expect(parseGetSchemaTemplateParams({ scenario: 'x', refs: 'local' })).toEqual({ scenario: 'x', scenario_id: 'x', compact: true });
    expect(parseGetSchemaTemplateParams({ scenario: 'x', refs: 'none' })).toEqual({ scenario: 'x', scenario_id: 'x' });
    expect(parseGetSchemaTemplateParams({ scenario: 'x', refs: 'none', compact: false })).toEqual({ scenario: 'x', scenario_id: 'x', compact: false });
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', refs: 'none', compact: true }), 'params.refs', 'conflict');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', refs: 'shared' }), 'params.refs', 'enum');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', refs: true }), 'params.refs', 'enum');
  });

  it('rejects a malformed view or compact', () => {
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', view: 'compact' }), 'params.view', 'enum');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', view: 'SHORT' }), 'params.view', 'enum');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', view: 1 }), 'params.view', 'type');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', compact: 'yes' }), 'params.compact', 'type');
    invalid(() => parseGetSchemaTemplateParams({ scenario: 'x', compact: 1 }), 'params.compact', 'type');
  });
});

describe('execute params (zhou §3.2 step 4, Figure 8)', () => {
  it('Figure 8', () => {
    const fig8 = figure<{ schema_id: string; payload: object }>(8);
    expect(parseExecuteParams(fig8)).toEqual(fig8);
  });

  it('client_id and agent are optional; the payload is passed through untouched', () => {
    const payload = { anything: [1, { deep: true }] };
    const r = parseExecuteParams({ schema_id: 'a.b-c_1', payload, client_id: 'c-1', agent: 'airline' });
    expect(r).toEqual({ schema_id: 'a.b-c_1', payload, client_id: 'c-1', agent: 'airline' });
    expect(r.payload).toBe(payload);
  });

  it('rejects a missing or malformed schema_id or payload', () => {
    invalid(() => parseExecuteParams({ payload: {} }), 'params.schema_id', 'required');
    invalid(() => parseExecuteParams({ schema_id: 1, payload: {} }), 'params.schema_id', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'flight booking', payload: {} }), 'params.schema_id', 'pattern');
    invalid(() => parseExecuteParams({ schema_id: 'a' }), 'params.payload', 'required');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: [] }), 'params.payload', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: '{"origin":"PEK"}' }), 'params.payload', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, client_id: 'x'.repeat(129) }), 'params.client_id', 'max_length');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, client_id: 7 }), 'params.client_id', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, scenario: 'x' }), 'params.scenario', 'unknown_member');
  });
});

describe('execute params: schema_etag and utterance (zhou §6.2.2 update delivery, §6.2.3 audit)', () => {
  it('accepts an echoed etag and the user utterance', () => {
    expect(parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: '0123abcd', utterance: 'Book me a window seat to Shanghai' })).toEqual({
      schema_id: 'a',
      payload: {},
      schema_etag: '0123abcd',
      utterance: 'Book me a window seat to Shanghai',
    });
    expect(parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: null, utterance: null })).toEqual({ schema_id: 'a', payload: {} });
    expect(parseExecuteParams({ schema_id: 'a', payload: {}, utterance: 'x'.repeat(4000) }).utterance).toHaveLength(4000);
  });

  it('rejects a malformed etag or utterance', () => {
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: 5 }), 'params.schema_etag', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: '' }), 'params.schema_etag', 'non_empty');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: 'e'.repeat(129) }), 'params.schema_etag', 'max_length');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, schema_etag: 'has space' }), 'params.schema_etag', 'pattern');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, utterance: ['words'] }), 'params.utterance', 'type');
    invalid(() => parseExecuteParams({ schema_id: 'a', payload: {}, utterance: 'x'.repeat(4001) }), 'params.utterance', 'max_length');
  });
});

describe('get_schema_updates params (zhou §6.2.2 "a dedicated schema polling endpoint")', () => {
  it('needs a scenario; client_id, agent and since_etag are optional', () => {
    expect(parseGetSchemaUpdatesParams({ scenario: 'Flight Booking' })).toEqual({ scenario: 'Flight Booking', scenario_id: 'flight_booking' });
    expect(parseGetSchemaUpdatesParams({ scenario: 'flight_booking', client_id: 'user:42@app', agent: 'skyways-air', since_etag: 'abc123' })).toEqual({
      scenario: 'flight_booking',
      scenario_id: 'flight_booking',
      client_id: 'user:42@app',
      agent: 'skyways-air',
      since_etag: 'abc123',
    });
  });

  it('rejects missing, malformed and unknown params', () => {
    invalid(() => parseGetSchemaUpdatesParams(undefined), 'params', 'required');
    invalid(() => parseGetSchemaUpdatesParams({}), 'params.scenario', 'required');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: '!!!' }), 'params.scenario', 'scenario_slug');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: 'x', client_id: 'has space' }), 'params.client_id', 'pattern');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: 'x', agent: 'Airline' }), 'params.agent', 'agent_name');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: 'x', since_etag: 7 }), 'params.since_etag', 'type');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: 'x', since_etag: 'e'.repeat(129) }), 'params.since_etag', 'max_length');
    invalid(() => parseGetSchemaUpdatesParams({ scenario: 'x', etag: 'abc' }), 'params.etag', 'unknown_member');
  });
});

describe('register_agent params', () => {
  it('canonicalises and deduplicates scenarios; optional members pass through', () => {
    expect(
      parseRegisterAgentParams({
        name: 'airline',
        description: 'Books flights.',
        domain: 'travel',
        tags: ['travel', 'flight', 'travel'],
        scenarios: ['Flight Booking', 'flight_booking', 'seat-selection'],
        version: '1.0.0',
      }),
    ).toEqual({ name: 'airline', description: 'Books flights.', domain: 'travel', tags: ['travel', 'flight'], scenarios: ['flight_booking', 'seat_selection'], version: '1.0.0' });
    expect(parseRegisterAgentParams({ name: 'a', scenarios: ['x'] })).toEqual({ name: 'a', scenarios: ['x'] });
  });

  it('rejects bad names, scenarios and tags', () => {
    invalid(() => parseRegisterAgentParams({ scenarios: ['x'] }), 'params.name', 'required');
    invalid(() => parseRegisterAgentParams({ name: 'Air Line', scenarios: ['x'] }), 'params.name', 'agent_name');
    invalid(() => parseRegisterAgentParams({ name: 'a' }), 'params.scenarios', 'required');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: [] }), 'params.scenarios', 'non_empty');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: 'flight_booking' }), 'params.scenarios', 'type');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['ok', 3] }), 'params.scenarios[1]', 'type');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['ok', '---'] }), 'params.scenarios[1]', 'scenario_slug');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['x'], tags: ['Travel'] }), 'params.tags[0]', 'pattern');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['x'], tags: 'travel' }), 'params.tags', 'type');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['x'], description: 1 }), 'params.description', 'type');
    invalid(() => parseRegisterAgentParams({ name: 'a', scenarios: ['x'], owner: 'me' }), 'params.owner', 'unknown_member');
  });
});

describe('publish_schema params', () => {
  const template = { schema_id: 'x_v1', scenario: 'x', keys: [] };

  it('language defaults to "en"; the template is passed through unparsed', () => {
    const r = parsePublishSchemaParams({ agent: 'airline', template });
    expect(r).toEqual({ agent: 'airline', template, language: 'en' });
    expect(r.template).toBe(template);
    expect(parsePublishSchemaParams({ agent: 'a', template, language: 'ZH-cn', response_schema: { type: 'object' } })).toEqual({
      agent: 'a',
      template,
      language: 'zh-CN',
      response_schema: { type: 'object' },
    });
  });

  it('rejects a missing agent or template, a bad language or response_schema', () => {
    invalid(() => parsePublishSchemaParams({ template }), 'params.agent', 'required');
    invalid(() => parsePublishSchemaParams({ agent: 'a' }), 'params.template', 'required');
    invalid(() => parsePublishSchemaParams({ agent: 'a', template: [template] }), 'params.template', 'type');
    invalid(() => parsePublishSchemaParams({ agent: 'a', template, language: 'english language' }), 'params.language', 'bcp47');
    invalid(() => parsePublishSchemaParams({ agent: 'a', template, response_schema: true }), 'params.response_schema', 'type');
    invalid(() => parsePublishSchemaParams({ agent: 'a', template, schema: {} }), 'params.schema', 'unknown_member');
  });
});

describe('list_agents / list_schemas params', () => {
  it('params may be omitted', () => {
    expect(parseListAgentsParams(undefined)).toEqual({});
    expect(parseListAgentsParams(null)).toEqual({});
    expect(parseListSchemasParams(undefined)).toEqual({});
    expect(parseListSchemasParams({})).toEqual({});
  });

  it('filters are canonicalised', () => {
    expect(parseListAgentsParams({ scenario: 'Photo Retouch', tag: 'photo', domain: 'media' })).toEqual({ scenario: 'Photo Retouch', scenario_id: 'photo_retouch', tag: 'photo', domain: 'media' });
    expect(parseListSchemasParams({ agent: 'airline', scenario: 'flight booking' })).toEqual({ agent: 'airline', scenario: 'flight booking', scenario_id: 'flight_booking' });
  });

  it('rejects unknown members and bad filters', () => {
    invalid(() => parseListAgentsParams({ limit: 10 }), 'params.limit', 'unknown_member');
    invalid(() => parseListAgentsParams([]), 'params', 'type');
    invalid(() => parseListAgentsParams({ tag: 'Not A Tag' }), 'params.tag', 'pattern');
    invalid(() => parseListSchemasParams({ agent: '1x' }), 'params.agent', 'agent_name');
    invalid(() => parseListSchemasParams({ scenario: 3 }), 'params.scenario', 'type');
  });
});

describe('RPC_PARAM_PARSERS', () => {
  it('maps each gateway method to its parser', () => {
    expect(Object.keys(RPC_PARAM_PARSERS).sort()).toEqual(['execute', 'get_agent', 'get_schema_template', 'get_schema_updates', 'list_agents', 'list_schemas', 'publish_schema', 'register_agent', 'retire_schema', 'unregister_agent']);
    expect(RPC_PARAM_PARSERS.get_schema_template).toBe(parseGetSchemaTemplateParams);
    expect(RPC_PARAM_PARSERS.get_schema_updates).toBe(parseGetSchemaUpdatesParams);
  });
  it('get_agent takes exactly {name} and refuses anything else', () => {
    expect(RPC_PARAM_PARSERS.get_agent({ name: 'airline-agent' })).toEqual({ name: 'airline-agent' });
    expect(() => RPC_PARAM_PARSERS.get_agent({ name: 'airline-agent', extra: 1 })).toThrow(/extra/);
    expect(() => RPC_PARAM_PARSERS.get_agent({})).toThrow(/name/);
  });
});
