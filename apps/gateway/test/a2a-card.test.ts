import { describe, expect, it } from 'vitest';
import { AgentCard } from '@a2a-js/sdk';
import { SCHEMA_NEGOTIATION_EXTENSION_URI, agentCard, gatewayCard, skillOf } from '../src/a2a-card';
import { seededEntries } from './helpers';

const BASE = 'http://gw.example:8080';
const opts = { baseUrl: BASE, version: '0.1.0' };

describe('A2A agent cards', () => {
  const entries = seededEntries();

  it("the gateway's card lists every scenario as a skill, with the A2A v1.0 fields", () => {
    const card = gatewayCard(entries, opts);
    expect(card.name).toBe('Parley');
    expect(card.version).toBe('0.1.0');
    expect(card.description).toMatch(/data part/);
    expect(card.supportedInterfaces).toEqual([
      { url: `${BASE}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${BASE}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: false, pushNotifications: false });
    expect(card.defaultInputModes).toEqual(['application/json']);
    expect(card.defaultOutputModes).toEqual(['application/json']);
    expect(card.skills.map((s) => s.id)).toEqual(entries.map((e) => e.tool.name));
    // Strict v1.0: the v0.3 top-level fields are on the v0.3 card only (a2a-card-versions.ts).
    for (const legacy of ['url', 'preferredTransport', 'protocolVersion']) expect(card).not.toHaveProperty(legacy);
  });

  it('declares schema negotiation as an extension naming the schema ids', () => {
    const ext = gatewayCard(entries, opts).capabilities?.extensions[0];
    expect(ext?.uri).toBe(SCHEMA_NEGOTIATION_EXTENSION_URI);
    expect(ext?.required).toBe(false);
    expect(ext?.params?.schema_ids).toEqual(['flight_booking_v1', 'photo_retouch_v2', 'fault_management_v1']);
    expect(ext?.params?.rpc).toBe(`${BASE}/rpc`);
    expect(ext?.params?.method).toBe('get_schema_template');
    expect(ext?.params?.schemas).toContainEqual({
      skill: 'skyways-air__flight_booking',
      agent: 'skyways-air',
      scenario: 'flight_booking',
      scenario_id: 'flight_booking',
      schema_id: 'flight_booking_v1',
      version: 1,
      has_response_schema: true,
    });
  });

  it("an agent's card holds only its own skills and points at /a2a/<agent>", () => {
    const card = agentCard({ name: 'skyways-air', description: 'Skyways bookings', version: '1.0.0' }, entries, opts);
    expect(card.name).toBe('skyways-air');
    expect(card.description).toBe('Skyways bookings');
    expect(card.version).toBe('1.0.0');
    expect(card.supportedInterfaces[0]?.url).toBe(`${BASE}/a2a/skyways-air`);
    expect(card.skills.map((s) => s.id)).toEqual(['skyways-air__flight_booking']);
    expect(card.capabilities?.extensions[0]?.params?.schema_ids).toEqual(['flight_booking_v1']);
    const bare = agentCard({ name: 'new-agent', description: '', version: '' }, entries, opts);
    expect(bare.skills).toEqual([]);
    expect(bare.description).toMatch(/new-agent/);
    expect(bare.version).toBe('0.0.0');
  });

  it('a skill carries id, name, description, tags and an example of the data part', () => {
    const flight = entries.find((e) => e.tool.name === 'skyways-air__flight_booking');
    const skill = skillOf(flight!);
    expect(skill.name).toBe('Flight booking (skyways-air)');
    expect(skill.description).toBe(flight!.tool.description);
    expect(skill.tags).toEqual(['travel', 'flight', 'booking', 'flight_booking']);
    expect(skill.examples[0]).toContain('{"scenario":"flight_booking","payload":{"origin":"<string>","destination":"<string>","departure_date":"<string, date>"}}');
    expect(skill.examples[0]).toContain('origin*, destination*, departure_date*, cabin_class, passenger_count, other');
    expect(skill.inputModes).toEqual(['application/json']);
  });

  it("survives the SDK's AgentCard codec unchanged in the fields it defines", () => {
    const card = gatewayCard(entries, opts);
    const decoded = AgentCard.fromJSON(JSON.parse(JSON.stringify(card)));
    expect(decoded.name).toBe(card.name);
    expect(decoded.supportedInterfaces).toEqual(card.supportedInterfaces);
    expect(decoded.skills.map((s) => s.id)).toEqual(card.skills.map((s) => s.id));
    expect(decoded.capabilities?.extensions[0]?.uri).toBe(SCHEMA_NEGOTIATION_EXTENSION_URI);
  });
});
