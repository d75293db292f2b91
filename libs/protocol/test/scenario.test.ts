import { describe, expect, it } from 'vitest';
import { scenarioId, validateAgentName } from '../src/index';
import { expectViolation } from './helpers';

describe('scenarioId: the canonical id of a §4.1 scenario', () => {
  it('§4.1 "flight booking", "Flight-Booking" and "flight_booking" are one scenario', () => {
    for (const s of ['flight booking', 'Flight-Booking', 'flight_booking', '  Flight  Booking  ', 'FLIGHT.BOOKING', 'flight__booking']) {
      expect(scenarioId(s)).toBe('flight_booking');
    }
    expect(scenarioId('photo_retouch')).toBe('photo_retouch');
  });

  it('folds accents and keeps digits', () => {
    expect(scenarioId('Café order')).toBe('cafe_order');
    expect(scenarioId('5G slice setup')).toBe('5g_slice_setup');
  });

  it('is at most 128 characters', () => {
    expect(scenarioId('a '.repeat(100))).toHaveLength(127);
    expect(scenarioId('a'.repeat(300))).toHaveLength(128);
  });

  it('throws when nothing is left (rule scenario_slug), with the given type and path', () => {
    expectViolation(() => scenarioId('---'), 'invalid_params', 'scenario', 'scenario_slug');
    expectViolation(() => scenarioId(''), 'invalid_params', 'scenario', 'scenario_slug');
    expectViolation(() => scenarioId('航班预订', { type: 'template_invalid', path: 'scenario' }), 'template_invalid', 'scenario', 'scenario_slug');
    expectViolation(() => scenarioId(7 as unknown as string, { path: 'params.scenario' }), 'invalid_params', 'params.scenario', 'type');
  });
});

describe('validateAgentName', () => {
  it('accepts lowercase names starting with a letter, up to 63 characters', () => {
    for (const ok of ['a', 'airline-agent', 'photo_retouch_2', 'x'.repeat(63)]) expect(validateAgentName(ok, 'params.name')).toBe(ok);
  });

  it('rejects anything else (rule agent_name), naming the path', () => {
    for (const bad of ['', 'Airline', '1agent', '-agent', 'agent.x', 'agent x', 'x'.repeat(64), 'agent/1']) {
      expectViolation(() => validateAgentName(bad, 'params.name'), 'invalid_params', 'params.name', 'agent_name');
    }
  });

  it('missing is required, a non-string is type; the error type can be chosen', () => {
    expectViolation(() => validateAgentName(undefined, 'params.agent'), 'invalid_params', 'params.agent', 'required');
    expectViolation(() => validateAgentName(42, 'params.agent'), 'invalid_params', 'params.agent', 'type');
    expectViolation(() => validateAgentName('Bad', 'name', 'agent_invalid'), 'agent_invalid', 'name', 'agent_name');
  });
});
