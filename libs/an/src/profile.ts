/**
 * Agent profiles (AN draft 004 §5.1, Figure 5): the read-only description an
 * agent registers and others discover it by (§4.1).
 *
 * `parseAgentProfile` checks an untrusted profile and returns a normalised
 * `AgentProfile` (defaults filled, no `undefined` members); anything wrong is
 * a ParleyError `agent_invalid` naming the key path (`profile.skills[1].input_modes[0]`)
 * and the rule broken. Unknown members are refused, with a hint when they are
 * the draft's own spelling (`management-object`, `jwtInfo`, …).
 */
import {
  AUTH_SCHEMES,
  DATA_TYPES,
  NEGOTIATION_TYPES,
  type AgentCapability,
  type AgentProfile,
  type AgentSkill,
  type AuthenticationMethod,
} from './model';
import { AGENT_NAME_RE, Checker, MAX_AGENT_NAME_LENGTH, MAX_SHORT_LENGTH, put } from './check';

/** Semantic Versioning 2.0.0 (the regular expression suggested at semver.org). */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Agent names: 1-128 characters, letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const AN_AGENT_NAME_PATTERN = AGENT_NAME_RE;
export const MAX_AN_AGENT_NAME_LENGTH = MAX_AGENT_NAME_LENGTH;

/** The fourth part of a recommended name: `v1`, `1.0`, `1.2.3`. */
const NAME_VERSION_RE = /^[vV]?(\d+)(?:\.\d+){0,2}$/;

const MAX_DESCRIPTION_BYTES = 4096;
const MAX_TAG_LENGTH = 64;

const PROFILE_MEMBERS = [
  'name',
  'alias',
  'description',
  'type',
  'version',
  'provider',
  'domain',
  'management_object',
  'skills',
  'capability',
  'authentication',
] as const;
const SKILL_MEMBERS = ['name', 'description', 'tags', 'input_modes', 'output_modes'] as const;
const CAPABILITY_MEMBERS = ['streaming', 'push_notifications', 'negotiate'] as const;
const METHOD_MEMBERS = ['id', 'scheme', 'jwt_info', 'oauth'] as const;

/** The draft's spellings (Figure 5, Appendix A) → Parley's member names. */
const PROFILE_HINTS = { 'management-object': 'management_object', managementObject: 'management_object', 'authentication-methods': 'authentication' };
const SKILL_HINTS = {
  'skill-name': 'name',
  skill_name: 'name',
  'skill-description': 'description',
  'skill-tags': 'tags',
  'input-modes': 'input_modes',
  'output-modes': 'output_modes',
  'input-models': 'input_modes',
  'output-models': 'output_modes',
  inputModes: 'input_modes',
  outputModes: 'output_modes',
};
const CAPABILITY_HINTS = { 'push-notifications': 'push_notifications', pushNotifications: 'push_notifications' };
const METHOD_HINTS = { 'accessinfo-id': 'id', accessinfo_id: 'id', jwtInfo: 'jwt_info', 'jwt-info': 'jwt_info' };

const check: Checker = new Checker('agent_invalid');

/** The parts of a name in the recommended form `{Standard Organization}-{Provider}-{Transmit}-{Version}` (5.1). */
export interface RecommendedNameParts {
  readonly organization: string;
  readonly provider: string;
  readonly transmit: string;
  readonly version: string;
}

/**
 * Splits a name of exactly four non-empty dash-separated parts
 * (`ietf-acme-wireless-v1`); anything else → null. The fourth part is
 * returned as written: `parseAgentProfile` checks that it looks like a
 * version and matches the profile's major version (rule `name_version`).
 */
export function recommendedNameParts(name: string): RecommendedNameParts | null {
  if (typeof name !== 'string') return null;
  const parts = name.split('-');
  if (parts.length !== 4 || parts.some((p) => p === '')) return null;
  const [organization, provider, transmit, version] = parts as [string, string, string, string];
  return { organization, provider, transmit, version };
}

/**
 * Parses an agent profile (5.1). Required: name, description, version
 * (semver 2.0.0), provider. Optional: alias, type, domain, management_object,
 * skills (default []), capability (default streaming/push_notifications
 * false, negotiate []), authentication (default []).
 *
 * Rules: `required`, `type`, `non_empty`, `max_length`, `name_format`,
 * `semver`, `name_version`, `enum`, `unique`, `unknown_member`,
 * `requires_jwt_info`, `requires_oauth`, `scheme_mismatch`, `max_items`.
 */
export function parseAgentProfile(input: unknown, path = 'profile'): AgentProfile {
  const o = check.object(input, path);
  check.members(o, PROFILE_MEMBERS, path, PROFILE_HINTS);

  const name = check.agentName(o.name, `${path}.name`);
  const description = check.string(o.description, `${path}.description`, { maxBytes: MAX_DESCRIPTION_BYTES });
  const version = check.string(o.version, `${path}.version`, {
    maxLength: 64,
    pattern: SEMVER_PATTERN,
    patternRule: 'semver',
    hint: 'a semantic version 2.0.0 such as 1.4.0 or 2.0.0-rc.1',
  });
  const provider = check.string(o.provider, `${path}.provider`, { maxLength: MAX_SHORT_LENGTH });
  checkNameVersion(name, version, `${path}.name`);

  const skills = o.skills === undefined ? [] : check.list(o.skills, `${path}.skills`, parseSkill, (s) => s.name, 256);
  const capability = parseCapability(o.capability, `${path}.capability`);
  const authentication =
    o.authentication === undefined ? [] : check.list(o.authentication, `${path}.authentication`, parseMethod, (m) => m.id, 32);

  const out: { -readonly [K in keyof AgentProfile]: AgentProfile[K] } = {
    name,
    description,
    version,
    provider,
    skills,
    capability,
    authentication,
  };
  put(out, 'alias', check.optString(o.alias, `${path}.alias`, { maxLength: MAX_SHORT_LENGTH }));
  put(out, 'type', check.optString(o.type, `${path}.type`, { maxLength: MAX_SHORT_LENGTH }));
  put(out, 'domain', check.optString(o.domain, `${path}.domain`, { maxLength: MAX_SHORT_LENGTH }));
  put(out, 'management_object', check.optString(o.management_object, `${path}.management_object`, { maxLength: MAX_SHORT_LENGTH }));
  return out;
}

/** A four-part name's last part must be a version whose major is the profile's ("checked when used"). */
function checkNameVersion(name: string, version: string, path: string): void {
  const parts = recommendedNameParts(name);
  if (!parts) return;
  const m = NAME_VERSION_RE.exec(parts.version);
  const major = version.split('.')[0];
  if (!m) {
    check.fail(
      path,
      'name_version',
      `${path} ${JSON.stringify(name)} has the recommended form {Standard Organization}-{Provider}-{Transmit}-{Version} (5.1) but its last part ${JSON.stringify(parts.version)} is not a version such as v${major}, ${major}.0 or ${version}`,
      { name_version: parts.version, version },
    );
  }
  if (Number(m[1]) !== Number(major)) {
    check.fail(
      path,
      'name_version',
      `${path} ${JSON.stringify(name)} names version ${JSON.stringify(parts.version)} (major ${Number(m[1])}) but the profile's version is ${version} (major ${major})`,
      { name_version: parts.version, version },
    );
  }
}

function parseSkill(input: unknown, path: string): AgentSkill {
  const o = check.object(input, path);
  check.members(o, SKILL_MEMBERS, path, SKILL_HINTS);
  return {
    name: check.string(o.name, `${path}.name`, { maxLength: MAX_SHORT_LENGTH }),
    description: check.string(o.description, `${path}.description`, { maxBytes: MAX_DESCRIPTION_BYTES }),
    tags: o.tags === undefined ? [] : check.stringList(o.tags, `${path}.tags`, { maxLength: MAX_TAG_LENGTH }, 64),
    input_modes: o.input_modes === undefined ? [] : check.enumList(o.input_modes, DATA_TYPES, `${path}.input_modes`),
    output_modes: o.output_modes === undefined ? [] : check.enumList(o.output_modes, DATA_TYPES, `${path}.output_modes`),
  };
}

function parseCapability(input: unknown, path: string): AgentCapability {
  if (input === undefined) return { streaming: false, push_notifications: false, negotiate: [] };
  const o = check.object(input, path);
  check.members(o, CAPABILITY_MEMBERS, path, CAPABILITY_HINTS);
  return {
    streaming: check.optBoolean(o.streaming, `${path}.streaming`, false),
    push_notifications: check.optBoolean(o.push_notifications, `${path}.push_notifications`, false),
    negotiate: o.negotiate === undefined ? [] : check.enumList(o.negotiate, NEGOTIATION_TYPES, `${path}.negotiate`),
  };
}

function parseMethod(input: unknown, path: string): AuthenticationMethod {
  const o = check.object(input, path);
  check.members(o, METHOD_MEMBERS, path, METHOD_HINTS);
  const id = check.string(o.id, `${path}.id`, { maxLength: MAX_SHORT_LENGTH });
  const scheme = check.oneOf(o.scheme, AUTH_SCHEMES, `${path}.scheme`);
  const jwt_info = check.optString(o.jwt_info, `${path}.jwt_info`, { maxBytes: MAX_DESCRIPTION_BYTES });
  const oauth = check.optString(o.oauth, `${path}.oauth`, { maxBytes: MAX_DESCRIPTION_BYTES });
  if (scheme === 'jwt' && jwt_info === undefined) {
    check.fail(`${path}.jwt_info`, 'requires_jwt_info', `${path}.jwt_info is required with scheme jwt: the issuer, JWKS URL and audience`);
  }
  if (scheme === 'oauth2' && oauth === undefined) {
    check.fail(`${path}.oauth`, 'requires_oauth', `${path}.oauth is required with scheme oauth2: the token URL and scopes`);
  }
  if (scheme !== 'jwt' && jwt_info !== undefined) {
    check.fail(`${path}.jwt_info`, 'scheme_mismatch', `${path}.jwt_info belongs to scheme jwt, not ${scheme}`);
  }
  if (scheme !== 'oauth2' && oauth !== undefined) {
    check.fail(`${path}.oauth`, 'scheme_mismatch', `${path}.oauth belongs to scheme oauth2, not ${scheme}`);
  }
  const out: { -readonly [K in keyof AuthenticationMethod]: AuthenticationMethod[K] } = { id, scheme };
  put(out, 'jwt_info', jwt_info);
  put(out, 'oauth', oauth);
  return out;
}
