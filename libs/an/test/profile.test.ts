/** AN draft 004 §5.1 (Figure 5): agent profiles. */
import { describe, expect, it } from 'vitest';
import { parseAgentProfile, recommendedNameParts, type AgentProfile } from '@parley/an';
import { expectRefused, withMembers } from './helpers';
import { profileInput } from './fixtures';

const parse = (x: unknown): AgentProfile => parseAgentProfile(x);
const minimal = { name: 'fault-agent', description: 'Finds faults.', version: '1.0.0', provider: 'ACME' };

describe('parseAgentProfile (5.1)', () => {
  it('parses a full profile unchanged', () => {
    const input = profileInput();
    const p = parse(input);
    expect(p).toEqual(input);
    expect(p).not.toBe(input);
  });

  it('fills the defaults of a minimal profile (required: name, description, version, provider)', () => {
    expect(parse(minimal)).toEqual({
      ...minimal,
      skills: [],
      capability: { streaming: false, push_notifications: false, negotiate: [] },
      authentication: [],
    });
  });

  it('fills skill and capability defaults and leaves absent optionals out', () => {
    const p = parse({ ...minimal, skills: [{ name: 's', description: 'd' }], capability: { streaming: true } });
    expect(p.skills).toEqual([{ name: 's', description: 'd', tags: [], input_modes: [], output_modes: [] }]);
    expect(p.capability).toEqual({ streaming: true, push_notifications: false, negotiate: [] });
    expect(Object.keys(p)).not.toContain('alias');
    expect(Object.keys(p)).not.toContain('domain');
  });

  it('treats undefined members as absent (decoded protobuf optionals)', () => {
    const p = parse({ ...minimal, alias: undefined, domain: undefined, capability: undefined });
    expect('alias' in p).toBe(false);
    expect(p.capability.negotiate).toEqual([]);
  });

  it.each([
    ['version', '1.0.0-rc.1+build.5'],
    ['version', '0.0.1'],
    ['version', '10.20.30'],
    ['name', 'a'],
    ['name', 'A1.b_c-d'],
    ['name', 'x'.repeat(128)],
  ])('accepts %s %j', (member, value) => {
    expect(parse({ ...minimal, [member]: value })[member as 'name']).toBe(value);
  });

  describe('refuses (agent_invalid, path, rule), leaving the input unchanged', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['not an object', [] as never, 'profile', 'type'],
      ['missing name', withMembers(minimal, { name: undefined }), 'profile.name', 'required'],
      ['missing description', withMembers(minimal, { description: undefined }), 'profile.description', 'required'],
      ['missing version', withMembers(minimal, { version: undefined }), 'profile.version', 'required'],
      ['missing provider', withMembers(minimal, { provider: undefined }), 'profile.provider', 'required'],
      ['a number as name', withMembers(minimal, { name: 42 }), 'profile.name', 'type'],
      ['an empty name', withMembers(minimal, { name: '' }), 'profile.name', 'non_empty'],
      ['a name with a space', withMembers(minimal, { name: 'fault agent' }), 'profile.name', 'name_format'],
      ['a name starting with a dash', withMembers(minimal, { name: '-agent' }), 'profile.name', 'name_format'],
      ['a name over 128 characters', withMembers(minimal, { name: 'x'.repeat(129) }), 'profile.name', 'max_length'],
      ['an empty provider', withMembers(minimal, { provider: '  ' }), 'profile.provider', 'non_empty'],
      ['version 1.0', withMembers(minimal, { version: '1.0' }), 'profile.version', 'semver'],
      ['version v1.0.0', withMembers(minimal, { version: 'v1.0.0' }), 'profile.version', 'semver'],
      ['version 01.0.0', withMembers(minimal, { version: '01.0.0' }), 'profile.version', 'semver'],
      ['an unknown member', withMembers(minimal, { location: 'x' }), 'profile.location', 'unknown_member'],
      ['the draft spelling management-object', withMembers(minimal, { 'management-object': 'x' }), 'profile.management-object', 'unknown_member'],
      ['a null alias', withMembers(minimal, { alias: null }), 'profile.alias', 'type'],
      ['skills not an array', withMembers(minimal, { skills: {} }), 'profile.skills', 'type'],
      ['a skill without a name', withMembers(minimal, { skills: [{ description: 'd' }] }), 'profile.skills[0].name', 'required'],
      ['a skill without a description', withMembers(minimal, { skills: [{ name: 's' }] }), 'profile.skills[0].description', 'required'],
      [
        'two skills with one name',
        withMembers(minimal, { skills: [{ name: 's', description: 'd' }, { name: 's', description: 'e' }] }),
        'profile.skills[1]',
        'unique',
      ],
      [
        'an unknown input mode',
        withMembers(minimal, { skills: [{ name: 's', description: 'd' }, { name: 't', description: 'd', input_modes: ['smell'] }] }),
        'profile.skills[1].input_modes[0]',
        'enum',
      ],
      [
        'an unknown output mode',
        withMembers(minimal, { skills: [{ name: 's', description: 'd', output_modes: ['text', 'hologram'] }] }),
        'profile.skills[0].output_modes[1]',
        'enum',
      ],
      [
        'a repeated input mode',
        withMembers(minimal, { skills: [{ name: 's', description: 'd', input_modes: ['text', 'text'] }] }),
        'profile.skills[0].input_modes[1]',
        'unique',
      ],
      ['a non-string tag', withMembers(minimal, { skills: [{ name: 's', description: 'd', tags: [1] }] }), 'profile.skills[0].tags[0]', 'type'],
      [
        'the draft spelling skill-name',
        withMembers(minimal, { skills: [{ 'skill-name': 's', description: 'd' }] }),
        'profile.skills[0].skill-name',
        'unknown_member',
      ],
      ['capability streaming as a string', withMembers(minimal, { capability: { streaming: 'yes' } }), 'profile.capability.streaming', 'type'],
      ['an unknown negotiation type', withMembers(minimal, { capability: { negotiate: ['BARTER'] } }), 'profile.capability.negotiate[0]', 'enum'],
      [
        'the draft spelling push-notifications',
        withMembers(minimal, { capability: { 'push-notifications': true } }),
        'profile.capability.push-notifications',
        'unknown_member',
      ],
      ['an unknown scheme', withMembers(minimal, { authentication: [{ id: 'a', scheme: 'basic' }] }), 'profile.authentication[0].scheme', 'enum'],
      ['jwt without jwt_info', withMembers(minimal, { authentication: [{ id: 'a', scheme: 'jwt' }] }), 'profile.authentication[0].jwt_info', 'requires_jwt_info'],
      ['oauth2 without oauth', withMembers(minimal, { authentication: [{ id: 'a', scheme: 'oauth2' }] }), 'profile.authentication[0].oauth', 'requires_oauth'],
      [
        'jwt_info with api_key',
        withMembers(minimal, { authentication: [{ id: 'a', scheme: 'api_key', jwt_info: 'x' }] }),
        'profile.authentication[0].jwt_info',
        'scheme_mismatch',
      ],
      [
        'two methods with one id',
        withMembers(minimal, { authentication: [{ id: 'a', scheme: 'none' }, { id: 'a', scheme: 'api_key' }] }),
        'profile.authentication[1]',
        'unique',
      ],
      ['a method without an id', withMembers(minimal, { authentication: [{ scheme: 'none' }] }), 'profile.authentication[0].id', 'required'],
      [
        'the draft spelling jwtInfo',
        withMembers(minimal, { authentication: [{ id: 'a', scheme: 'jwt', jwtInfo: 'x' }] }),
        'profile.authentication[0].jwtInfo',
        'unknown_member',
      ],
    ];
    it.each(cases)('%s', (_what, input, path, rule) => {
      expectRefused(parse, input, { type: 'agent_invalid', path, rule });
    });

    it('names the given root path', () => {
      expectRefused((x) => parseAgentProfile(x, 'params.profile'), withMembers(minimal, { version: 'one' }), {
        type: 'agent_invalid',
        path: 'params.profile.version',
        rule: 'semver',
      });
    });

    it('hints the member meant for a draft spelling', () => {
      const e = expectRefused(parse, withMembers(minimal, { 'management-object': 'x' }), {
        type: 'agent_invalid',
        path: 'profile.management-object',
        rule: 'unknown_member',
      });
      expect(e.message).toContain('management_object');
    });
  });
});

describe('recommended name form {Standard Organization}-{Provider}-{Transmit}-{Version} (5.1)', () => {
  it('splits a four-part name', () => {
    expect(recommendedNameParts('ietf-acme-wireless-v1')).toEqual({ organization: 'ietf', provider: 'acme', transmit: 'wireless', version: 'v1' });
    expect(recommendedNameParts('tmf-huawei-core-1.2.3')).toEqual({ organization: 'tmf', provider: 'huawei', transmit: 'core', version: '1.2.3' });
  });

  it.each(['fault-agent', 'a-b-c', 'a-b-c-d-e', 'a--c-v1', 'single'])('returns null for %j', (name) => {
    expect(recommendedNameParts(name)).toBeNull();
  });

  it.each([
    ['ietf-acme-wireless-v1', '1.4.0'],
    ['ietf-acme-wireless-V1', '1.0.0'],
    ['ietf-acme-wireless-1', '1.0.0'],
    ['ietf-acme-wireless-1.0', '1.9.9'],
    ['ietf-acme-wireless-2.3.1', '2.3.1'],
    ['ietf-acme-wireless-v0', '0.1.0'],
  ])('accepts %s with version %s (same major)', (name, version) => {
    expect(parse({ ...minimal, name, version }).name).toBe(name);
  });

  it.each([
    ['ietf-acme-wireless-v2', '1.4.0'],
    ['ietf-acme-wireless-1.0', '2.0.0'],
    ['ietf-acme-wireless-agent', '1.0.0'],
    ['ietf-acme-wireless-v1.x', '1.0.0'],
    ['ietf-acme-wireless-1.2.3.4', '1.0.0'],
  ])('refuses %s with version %s (rule name_version)', (name, version) => {
    const e = expectRefused(parse, { ...minimal, name, version }, { type: 'agent_invalid', path: 'profile.name', rule: 'name_version' });
    expect(e.details).toMatchObject({ version });
  });

  it('does not check names of another form', () => {
    expect(parse({ ...minimal, name: 'acme-wireless-agent', version: '7.0.0' }).name).toBe('acme-wireless-agent');
  });
});
