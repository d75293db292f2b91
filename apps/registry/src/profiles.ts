import { profileToWire, type AgentProfile as WireProfile, type AgentProfileApi } from '@parley/contracts';
import { AN_AGENT_NAME_PATTERN, DATA_TYPES, MAX_AN_AGENT_NAME_LENGTH, NEGOTIATION_TYPES, parseAgentProfile, type AgentProfile } from '@parley/an';
import { ParleyError } from '@parley/protocol';
import type { Clock } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';

/**
 * AN agent profiles (autonomous-networks multi-agent draft §5.1, Figure 5) and
 * their discovery (§4.1: "agent capability description, registration and
 * discovery"): by domain, skill tag, skill name, input mode and negotiation type.
 *
 * A profile is read-only to other agents (§5.1): registering a name again
 * replaces the profile only when the caller presents the same `provider`
 * (`forbidden` otherwise); per-principal identity comes later. Profiles are
 * independent of draft-zhou agents (registry.agents): an AN agent may serve no
 * scenario. Every profile is checked with libs/an's `parseAgentProfile` here as
 * well as at the gateway, since gRPC callers reach this service directly.
 * Errors name `params.*` paths, as the gateway's JSON-RPC params spell them.
 */

/** Longest name, filter or tag a lookup accepts (anything longer names no profile). */
const MAX_LOOKUP_LENGTH = 256;

interface ProfileRow {
  document: AgentProfile | string;
  registered_at: Date | string;
  updated_at: Date | string;
}

const PROFILE_PATH = 'params.profile';

export function createProfileService(deps: { db: Db; clock: Clock }): AgentProfileApi {
  const { db, clock } = deps;
  return {
    async registerProfile(req) {
      if (!req.profile) throw new ParleyError('invalid_params', `${PROFILE_PATH} is required: the agent profile`, { path: PROFILE_PATH, rule: 'required' });
      const profile = parseAgentProfile(profileFromWire(req.profile), PROFILE_PATH);
      const now = clock.now().toISOString();
      const skills = profile.skills;
      const r = await db.query<{ inserted: boolean; registered_at: Date | string; updated_at: Date | string }>(
        `INSERT INTO registry.profiles (name, provider, domain, tags, skills, input_modes, negotiate, document, registered_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9)
         ON CONFLICT (name) DO UPDATE SET domain = EXCLUDED.domain, tags = EXCLUDED.tags, skills = EXCLUDED.skills,
           input_modes = EXCLUDED.input_modes, negotiate = EXCLUDED.negotiate, document = EXCLUDED.document,
           updated_at = EXCLUDED.updated_at
         WHERE registry.profiles.provider = EXCLUDED.provider
         RETURNING (xmax = 0) AS inserted, registered_at, updated_at`,
        [
          profile.name,
          profile.provider,
          profile.domain === undefined ? null : profile.domain.toLowerCase(),
          unique(skills.flatMap((s) => s.tags)),
          skills.map((s) => s.name),
          unique(skills.flatMap((s) => s.input_modes)),
          unique(profile.capability.negotiate),
          JSON.stringify(profile),
          now,
        ],
      );
      const row = r.rows[0];
      if (!row) {
        // The name exists and the conditional update matched nothing: another provider's profile.
        throw new ParleyError(
          'forbidden',
          `Agent profile "${profile.name}" is registered by another provider; only the agent itself may replace its profile (same ${PROFILE_PATH}.provider)`,
          { path: `${PROFILE_PATH}.provider`, rule: 'same_provider' },
        );
      }
      return { profile: profileToWire(profile, iso(row.registered_at), iso(row.updated_at)), created: row.inserted === true };
    },

    async getProfile(req) {
      const name = lookup(req.name, 'params.name', true);
      if (name.length > MAX_AN_AGENT_NAME_LENGTH) {
        throw new ParleyError('invalid_params', `params.name must be at most ${MAX_AN_AGENT_NAME_LENGTH} characters`, { path: 'params.name', rule: 'max_length' });
      }
      if (!AN_AGENT_NAME_PATTERN.test(name)) {
        throw new ParleyError('invalid_params', `params.name ${JSON.stringify(name.slice(0, 64))} is not an agent name: letters, digits, ".", "_" or "-", starting with a letter or digit`, {
          path: 'params.name',
          rule: 'name_format',
        });
      }
      return { profile: await getProfile(db, name) };
    },

    async discoverProfiles(req) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (value: unknown, sql: (p: string) => string) => {
        params.push(value);
        where.push(sql(`$${params.length}`));
      };
      const domain = lookup(req.domain, 'params.domain');
      if (domain !== undefined) add(domain.toLowerCase(), (p) => `p.domain = ${p}`);
      const tag = lookup(req.tag, 'params.tag');
      if (tag !== undefined) add(tag, (p) => `${p} = ANY (p.tags)`);
      const skill = lookup(req.skill, 'params.skill');
      if (skill !== undefined) add(skill, (p) => `${p} = ANY (p.skills)`);
      const inputMode = oneOf(req.input_mode, 'params.input_mode', DATA_TYPES, (s) => s.toLowerCase());
      if (inputMode !== undefined) add(inputMode, (p) => `${p} = ANY (p.input_modes)`);
      const negotiate = oneOf(req.negotiate, 'params.negotiate', NEGOTIATION_TYPES, (s) => s.toUpperCase());
      if (negotiate !== undefined) add(negotiate, (p) => `${p} = ANY (p.negotiate)`);
      // COLLATE "C": the same order on every PostgreSQL (and PGlite) whatever the database's locale.
      const r = await db.query<ProfileRow>(
        `SELECT p.document, p.registered_at, p.updated_at FROM registry.profiles p${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY p.name COLLATE "C"`,
        params,
      );
      return { profiles: r.rows.map(rowToWire) };
    },
  };
}

async function getProfile(db: Queryable, name: string): Promise<WireProfile> {
  const r = await db.query<ProfileRow>('SELECT document, registered_at, updated_at FROM registry.profiles WHERE name = $1', [name]);
  const row = r.rows[0];
  if (!row) throw new ParleyError('agent_not_found', `No agent profile named "${name.slice(0, 64)}"`, { path: 'params.name', rule: 'exists' });
  return rowToWire(row);
}

/** A lookup string: absent (when optional), else a non-empty string of bounded length. */
function lookup(v: string | undefined, path: string, required: true): string;
function lookup(v: string | undefined, path: string, required?: false): string | undefined;
function lookup(v: string | undefined, path: string, required = false): string | undefined {
  if (v === undefined || (v === '' && !required)) {
    if (required) throw new ParleyError('invalid_params', `${path} is required`, { path, rule: 'required' });
    return undefined;
  }
  if (typeof v !== 'string') throw new ParleyError('invalid_params', `${path} must be a string`, { path, rule: 'type' });
  if (v.trim() === '') throw new ParleyError('invalid_params', `${path} must not be empty`, { path, rule: required ? 'required' : 'non_empty' });
  if (v.length > MAX_LOOKUP_LENGTH) throw new ParleyError('invalid_params', `${path} must be at most ${MAX_LOOKUP_LENGTH} characters`, { path, rule: 'max_length' });
  return v;
}

function oneOf<T extends string>(v: string | undefined, path: string, allowed: readonly T[], normalize: (s: string) => string): T | undefined {
  const s = lookup(v, path);
  if (s === undefined) return undefined;
  const n = normalize(s);
  if (!(allowed as readonly string[]).includes(n)) {
    throw new ParleyError('invalid_params', `${path} must be one of ${allowed.join(', ')}, got ${JSON.stringify(s.slice(0, 60))}`, { path, rule: 'enum' });
  }
  return n as T;
}

function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

const iso = isoTimestamp;

function rowToWire(row: ProfileRow): WireProfile {
  const doc = typeof row.document === 'string' ? (JSON.parse(row.document) as AgentProfile) : row.document;
  return profileToWire(doc, iso(row.registered_at), iso(row.updated_at));
}

/**
 * The wire message as the plain object libs/an parses: absent optional strings
 * stay absent, the registry's own timestamps are not part of the profile.
 */
export function profileFromWire(w: WireProfile): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: w.name,
    description: w.description,
    version: w.version,
    provider: w.provider,
    skills: w.skills.map((s) => ({ name: s.name, description: s.description, tags: s.tags, input_modes: s.input_modes, output_modes: s.output_modes })),
    authentication: w.authentication.map((m) => ({
      id: m.id,
      scheme: m.scheme,
      ...(m.jwt_info !== undefined ? { jwt_info: m.jwt_info } : {}),
      ...(m.oauth !== undefined ? { oauth: m.oauth } : {}),
    })),
  };
  if (w.capability) out.capability = { streaming: w.capability.streaming, push_notifications: w.capability.push_notifications, negotiate: w.capability.negotiate };
  for (const k of ['alias', 'type', 'domain', 'management_object'] as const) {
    if (w[k] !== undefined) out[k] = w[k];
  }
  return out;
}

