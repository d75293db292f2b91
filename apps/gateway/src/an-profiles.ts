import { profileToWire, type AgentProfileApi, type DiscoverProfilesRequest } from '@parley/contracts';
import { AN_AGENT_NAME_PATTERN, DATA_TYPES, MAX_AN_AGENT_NAME_LENGTH, NEGOTIATION_TYPES, parseAgentProfile } from '@parley/an';
import { ParleyError } from '@parley/protocol';
import type { Backends, Handler } from './handler';

/**
 * AN agent profiles (autonomous-networks multi-agent draft §5.1) on the
 * gateway's JSON-RPC endpoint, served by the registry's AgentProfileService:
 *
 * - `register_profile {profile}`: create, or replace by name (only with the
 *   same `provider`, else `forbidden`); the profile is checked here with
 *   libs/an's `parseAgentProfile` (`agent_invalid` naming
 *   `params.profile.<path>` and the rule) before it is sent.
 * - `get_profile {name}`: one profile (`agent_not_found` when none).
 * - `discover_profiles {domain?, tag?, skill?, input_mode?, negotiate?}`
 *   (§4.1 discovery): filters AND-ed; `tag` matches any skill's tags, `skill`
 *   a skill name; ordered by name.
 *
 * Params are parsed at the edge: unknown members, wrong types and values
 * outside the draft's enumerations are `invalid_params` naming the member and
 * the rule; a refused call changes nothing.
 */

export type { AgentProfileApi };

const MAX_FILTER_LENGTH = 256;

function fail(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** params as an object whose members are all in `allowed`; omitted params are `{}`. */
function paramsOf(params: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    fail('params', 'type', `params must be an object with ${allowed.join(', ')}, got ${typeName(params)}`);
  }
  for (const k of Object.keys(params)) {
    if (!allowed.includes(k)) fail(`params.${k.slice(0, 64)}`, 'unknown_member', `params.${k.slice(0, 64)} is not a parameter of this method; allowed: ${allowed.join(', ')}`);
  }
  return params as Record<string, unknown>;
}

/** An optional (or required) non-empty string of at most `max` characters; null counts as absent. */
function str(p: Record<string, unknown>, name: string, max: number, required = false): string | undefined {
  const path = `params.${name}`;
  const v = p[name];
  if (v === undefined || v === null) {
    if (required) fail(path, 'required', `${path} is required`);
    return undefined;
  }
  if (typeof v !== 'string') fail(path, 'type', `${path} must be a string, got ${typeName(v)}`);
  if (v.trim() === '') fail(path, 'non_empty', `${path} must not be empty`);
  if (v.length > max) fail(path, 'max_length', `${path} must be at most ${max} characters, got ${v.length}`);
  return v;
}

function oneOf(p: Record<string, unknown>, name: string, allowed: readonly string[], normalize: (s: string) => string): string | undefined {
  const v = str(p, name, MAX_FILTER_LENGTH);
  if (v === undefined) return undefined;
  const n = normalize(v);
  if (!allowed.includes(n)) fail(`params.${name}`, 'enum', `params.${name} ${JSON.stringify(v.slice(0, 60))} must be one of ${allowed.join(', ')}`);
  return n;
}

function profilesBackend(b: Backends): AgentProfileApi {
  if (!b.profiles) {
    throw new ParleyError('unavailable', 'Agent profiles are not available: the gateway has no AgentProfileService client (it is served on REGISTRY_ADDR)', {
      details: { service: 'agent-profiles' },
    });
  }
  return b.profiles;
}


/** `discover_profiles` params as the gRPC request (exported for tests). */
export function parseDiscoverProfilesParams(params: unknown): DiscoverProfilesRequest {
  const p = paramsOf(params, ['domain', 'tag', 'skill', 'input_mode', 'negotiate']);
  const req: DiscoverProfilesRequest = {};
  const domain = str(p, 'domain', MAX_FILTER_LENGTH);
  if (domain !== undefined) req.domain = domain;
  const tag = str(p, 'tag', MAX_FILTER_LENGTH);
  if (tag !== undefined) req.tag = tag;
  const skill = str(p, 'skill', MAX_FILTER_LENGTH);
  if (skill !== undefined) req.skill = skill;
  const inputMode = oneOf(p, 'input_mode', DATA_TYPES, (s) => s.toLowerCase());
  if (inputMode !== undefined) req.input_mode = inputMode;
  const negotiate = oneOf(p, 'negotiate', NEGOTIATION_TYPES, (s) => s.toUpperCase());
  if (negotiate !== undefined) req.negotiate = negotiate;
  return req;
}

export const AN_PROFILE_METHODS = {
  /** 5.1 / §4.1 registration: the result is `{profile, created}` with the registry's timestamps. */
  async register_profile(params, b) {
    const p = paramsOf(params, ['profile']);
    if (p.profile === undefined || p.profile === null) fail('params.profile', 'required', 'params.profile is required: the agent profile (draft 004 §5.1)');
    const profile = parseAgentProfile(p.profile, 'params.profile');
    const r = await profilesBackend(b).registerProfile({ profile: profileToWire(profile) });
    return { profile: r.profile, created: r.created };
  },
  async get_profile(params, b) {
    const p = paramsOf(params, ['name']);
    const name = str(p, 'name', MAX_AN_AGENT_NAME_LENGTH, true) as string;
    if (!AN_AGENT_NAME_PATTERN.test(name)) {
      fail('params.name', 'name_format', `params.name ${JSON.stringify(name.slice(0, 64))} is not an agent name: letters, digits, ".", "_" or "-", starting with a letter or digit`);
    }
    return { profile: (await profilesBackend(b).getProfile({ name })).profile };
  },
  /** §4.1 discovery by domain, skill tag, skill name, input mode and negotiation type. */
  async discover_profiles(params, b) {
    const req = parseDiscoverProfilesParams(params);
    return { profiles: (await profilesBackend(b).discoverProfiles(req)).profiles };
  },
} satisfies Record<string, Handler>;
