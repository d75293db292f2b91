/**
 * A2A agent cards (A2A v1.0: the `a2a.proto` AgentCard in ProtoJSON, the shape
 * @a2a-js/sdk 1.3.0 reads), derived from the same catalogue entries as the MCP
 * tools: one skill per (agent, scenario).
 *
 * Versions: `supportedInterfaces` lists the JSON-RPC endpoint twice, as
 * protocolVersion "1.0" (methods `SendMessage`, ...) and "0.3" (`message/send`,
 * ...), the way the SDK's own `duplicateInterfacesForLegacy` mirrors
 * interfaces; the endpoint answers both. The card itself is strict v1.0 (no
 * top-level `url`, `preferredTransport` or `protocolVersion`); a v0.3 client
 * asks for the v0.3 JSON card (`?version=0.3` or `A2A-Version: 0.3`), which
 * a2a-card-versions.ts derives from this one and signs.
 *
 * Schema negotiation (zhou §3.2 step 3) is declared as an A2A extension under
 * `capabilities.extensions`, naming the schema ids each skill executes and the
 * JSON-RPC method that returns their templates.
 *
 * An agent that registered an AN agent profile (draft 004 §5.1) gets the
 * profile's card (`profileCard`): its skills, streaming/push capabilities and
 * authentication methods as security schemes, merged with its scenario skills
 * when it is a registered draft-zhou agent too.
 */
import { SecurityScheme, type AgentCard, type AgentExtension, type AgentInterface, type AgentSkill } from '@a2a-js/sdk';
import type { AgentProfile as ProfileMessage } from '@parley/contracts';
import type { CatalogEntry } from './catalog';
import type { JsonObject, KeyDefinition } from '@parley/protocol';

export const SCHEMA_NEGOTIATION_EXTENSION_URI = 'https://parley.dev/a2a/ext/schema-negotiation/v1';
export const AN_PROFILE_EXTENSION_URI = 'https://parley.dev/a2a/ext/an-agent-profile/v1';
export const A2A_MEDIA_TYPE = 'application/json';

/** A v1.0 agent card (a2a-card-versions.ts derives the v0.3 one). */
export type ParleyAgentCard = AgentCard;

export interface CardOptions {
  /** Absolute base URL of the gateway, no trailing slash (e.g. http://localhost:8080). */
  baseUrl: string;
  /** Parley's version, the gateway card's `version`. */
  version: string;
}

function interfaces(url: string): AgentInterface[] {
  return [
    { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
  ];
}

/** A placeholder for a key in a skill example: the enum's first value, the default, or `<type>`. */
function placeholder(k: KeyDefinition): unknown {
  if (Array.isArray(k.enum) && k.enum.length > 0) return k.enum[0];
  if (k.default_value !== undefined && k.default_value !== null) return k.default_value;
  return k.format ? `<${k.key_type}, ${k.format}>` : `<${k.key_type}>`;
}

/** The skill of one catalogue entry. `id` is the MCP tool name, so one name identifies the capability on both faces. */
export function skillOf(e: CatalogEntry): AgentSkill {
  const { agent, schema, template } = e.source;
  const required = template.keys.filter((k) => k.required);
  const example: JsonObject = {};
  for (const k of required) example[k.key_name] = placeholder(k) as JsonObject[string];
  const tags = [...new Set([...agent.tags, schema.scenario_id, ...(agent.domain ? [agent.domain] : [])])];
  return {
    id: e.tool.name,
    name: e.tool.title ?? e.tool.name,
    description: e.tool.description ?? '',
    tags,
    examples: [
      `Send a data part ${JSON.stringify({ scenario: schema.scenario_id, payload: example })} ` +
        `(keys: ${template.keys.map((k) => `${k.key_name}${k.required ? '*' : ''}`).join(', ')}; * = required; schema ${schema.schema_id})`,
    ],
    inputModes: [A2A_MEDIA_TYPE],
    outputModes: [A2A_MEDIA_TYPE],
    securityRequirements: [],
  };
}

function negotiationExtension(entries: readonly CatalogEntry[], baseUrl: string): AgentExtension {
  return {
    uri: SCHEMA_NEGOTIATION_EXTENSION_URI,
    description:
      'Parley schema negotiation (draft-zhou §3.2 step 3): each skill executes a negotiated schema template. Fetch a template with ' +
      'JSON-RPC get_schema_template at params.rpc, then send its payload as a data part {"schema_id" | "scenario", "payload"}.',
    // Optional: a client that ignores it still sends payloads; it just learns the keys from the skill examples.
    required: false,
    params: {
      rpc: `${baseUrl}/rpc`,
      method: 'get_schema_template',
      schema_ids: [...new Set(entries.map((e) => e.source.schema.schema_id))],
      schemas: entries.map((e) => ({
        skill: e.tool.name,
        agent: e.source.agent.name,
        scenario: e.source.schema.scenario,
        scenario_id: e.source.schema.scenario_id,
        schema_id: e.source.schema.schema_id,
        version: e.source.schema.version,
        has_response_schema: e.outputFields !== undefined,
      })),
    },
  };
}

/**
 * How to call Parley's A2A endpoints (draft-zhou §7): HTTP Bearer with a
 * Parley API key (`pk_…`) or a JWT from an issuer the deployment trusts. The card
 * itself is public; every `/a2a` POST without the credential answers 401.
 */
export const PARLEY_SECURITY_SCHEME_ID = 'parley';
const PARLEY_SECURITY_SCHEMES: Record<string, unknown> = {
  [PARLEY_SECURITY_SCHEME_ID]: SecurityScheme.toJSON({
    scheme: {
      $case: 'httpAuthSecurityScheme',
      value: { description: 'A Parley API key (pk_…) or a JWT from an issuer this deployment trusts', scheme: 'Bearer', bearerFormat: 'Parley API key or JWT' },
    },
  }),
};

function card(name: string, description: string, version: string, url: string, entries: readonly CatalogEntry[], opts: CardOptions): ParleyAgentCardJson {
  return {
    name,
    description,
    supportedInterfaces: interfaces(url),
    provider: { organization: 'Parley', url: opts.baseUrl },
    version,
    capabilities: {
      // One request, one answer: Parley replies with a Message, keeps no tasks.
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [negotiationExtension(entries, opts.baseUrl)],
    },
    securitySchemes: PARLEY_SECURITY_SCHEMES,
    securityRequirements: [{ schemes: { [PARLEY_SECURITY_SCHEME_ID]: { list: [] } } }],
    defaultInputModes: [A2A_MEDIA_TYPE],
    defaultOutputModes: [A2A_MEDIA_TYPE],
    skills: entries.map(skillOf),
    // Filled when served (a2a-card-versions.ts signCard).
    signatures: [],
  };
}

/** The gateway's own card (`/.well-known/agent-card.json`): every scenario of every agent as a skill, endpoint `/a2a`. */
export function gatewayCard(entries: readonly CatalogEntry[], opts: CardOptions): ParleyAgentCardJson {
  return card(
    'Parley',
    'Negotiated, typed key-value schemas between agents (draft-zhou). Each skill is a scenario served by a registered agent; ' +
      'send its payload as a data part naming the scenario or schema_id (and the agent when several serve it).',
    opts.version,
    `${opts.baseUrl}/a2a`,
    entries,
    opts,
  );
}

/** One registered agent's card (`/a2a/<agent>/.well-known/agent-card.json`): its scenarios as skills, endpoint `/a2a/<agent>`. */
export function agentCard(agent: { name: string; description: string; version: string }, entries: readonly CatalogEntry[], opts: CardOptions): ParleyAgentCardJson {
  const own = entries.filter((e) => e.source.agent.name === agent.name);
  return card(
    agent.name,
    agent.description || `Server agent ${agent.name}, reached through Parley.`,
    agent.version || '0.0.0',
    `${opts.baseUrl}/a2a/${agent.name}`,
    own,
    opts,
  );
}

// ---------------------------------------------------------------------------
// AN agent profiles (autonomous-networks multi-agent draft §5.1) on the card
// ---------------------------------------------------------------------------

/** A card as JSON on the wire: security schemes in the A2A v1.0 JSON form (`{"httpAuthSecurityScheme": {...}}`). */
export type ParleyAgentCardJson = Omit<ParleyAgentCard, 'securitySchemes'> & { securitySchemes: Record<string, unknown> };

/** 5.1 data types as the media types A2A's input/output modes are. */
const DATA_TYPE_MEDIA: Readonly<Record<string, string>> = { text: 'text/plain', image: 'image/*', audio: 'audio/*', video: 'video/*' };
const mediaOf = (modes: readonly string[]): string[] => [...new Set(modes.map((m) => DATA_TYPE_MEDIA[m] ?? m))];

/** One 5.1 skill as an A2A skill: its name is its id (unique within the profile, the YANG list key). */
export function profileSkillOf(s: ProfileMessage['skills'][number]): AgentSkill {
  return {
    id: s.name,
    name: s.name,
    description: s.description,
    tags: [...s.tags],
    examples: [],
    inputModes: mediaOf(s.input_modes),
    outputModes: mediaOf(s.output_modes),
    securityRequirements: [],
  };
}

/**
 * 5.1 authentication methods as A2A security schemes, keyed by the method's id:
 * jwt → HTTP Bearer with bearerFormat JWT, oauth2 → OAuth 2.0 client credentials with
 * the first URL of the draft's free-text parameters as the token URL (the text in the
 * description; no URL: no scheme), api_key → an API key in the `X-API-Key` header
 * (5.1 names no location), none → no scheme. Returned in the v1.0 JSON form.
 */
export function securitySchemesOf(methods: ProfileMessage['authentication']): Record<string, unknown> {
  // Keyed by the profile's method ids (outside strings): no prototype.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const m of methods) {
    let scheme: SecurityScheme | undefined;
    if (m.scheme === 'jwt') {
      scheme = { scheme: { $case: 'httpAuthSecurityScheme', value: { description: m.jwt_info ? `JWT: ${m.jwt_info}` : 'JWT', scheme: 'Bearer', bearerFormat: 'JWT' } } };
    } else if (m.scheme === 'oauth2') {
      // A2A v1.0 requires the flows; 5.1's oauth parameters are free text. Its first URL is taken as the
      // token URL of a client-credentials flow (agents call agents; no user agent redirects); without a URL
      // there is no v1.0 scheme to write, and the method stays in the AN profile extension only.
      // Written by hand: ProtoJSON would leave out the empty `scopes` map the flow requires.
      const tokenUrl = /\bhttps?:\/\/[^\s,;]+/.exec(m.oauth ?? '')?.[0];
      if (tokenUrl) out[m.id] = { oauth2SecurityScheme: { description: `OAuth 2.0: ${m.oauth}`, flows: { clientCredentials: { tokenUrl, scopes: {} } } } };
    } else if (m.scheme === 'api_key') {
      scheme = { scheme: { $case: 'apiKeySecurityScheme', value: { description: 'API key', location: 'header', name: 'X-API-Key' } } };
    }
    if (scheme) out[m.id] = SecurityScheme.toJSON(scheme);
  }
  return out;
}

function profileExtension(p: ProfileMessage, baseUrl: string): AgentExtension {
  const params: Record<string, unknown> = {
    rpc: `${baseUrl}/rpc`,
    method: 'get_profile',
    name: p.name,
    version: p.version,
    provider: p.provider,
    negotiate: [...(p.capability?.negotiate ?? [])],
    authentication: p.authentication.map((m) => ({ id: m.id, scheme: m.scheme })),
    registered_at: p.registered_at,
    updated_at: p.updated_at,
  };
  for (const k of ['alias', 'type', 'domain', 'management_object'] as const) if (p[k] !== undefined) params[k] = p[k];
  return {
    uri: AN_PROFILE_EXTENSION_URI,
    description:
      'Agent profile of the autonomous-networks multi-agent draft (§5.1): the skills, capability and authentication methods the agent registered. ' +
      'Read the whole profile with JSON-RPC get_profile at params.rpc; discover others with discover_profiles.',
    required: false,
    params,
  };
}

/**
 * The card of an agent that registered an AN profile (5.1), merged with its
 * draft-zhou scenarios when an agent of that name is registered too: the
 * profile's name, description, version, provider, skills, streaming and
 * push-notification capabilities and authentication methods (as security
 * schemes), then the agent's scenario skills with the schema-negotiation
 * extension. Endpoint `/a2a/<name>`.
 */
export function profileCard(profile: ProfileMessage, agent: { name: string } | undefined, entries: readonly CatalogEntry[], opts: CardOptions): ParleyAgentCardJson {
  const own = agent ? entries.filter((e) => e.source.agent.name === agent.name) : [];
  const base = card(profile.name, profile.description, profile.version, `${opts.baseUrl}/a2a/${profile.name}`, own, opts);
  const scenarioSkills = base.skills;
  const skills = [...profile.skills.map(profileSkillOf), ...scenarioSkills.filter((s) => !profile.skills.some((p) => p.name === s.id))];
  const modes = (pick: (s: AgentSkill) => string[]) => {
    const all = [...new Set(skills.flatMap(pick))];
    return all.length ? all : [A2A_MEDIA_TYPE];
  };
  return {
    ...base,
    provider: { organization: profile.provider, url: opts.baseUrl },
    capabilities: {
      streaming: profile.capability?.streaming ?? false,
      pushNotifications: profile.capability?.push_notifications ?? false,
      extendedAgentCard: false,
      extensions: [...(own.length ? [negotiationExtension(own, opts.baseUrl)] : []), profileExtension(profile, opts.baseUrl)],
    },
    // Parley's scheme is what the /a2a/<name> endpoint takes; the profile's own methods (5.1) are listed beside it.
    securitySchemes: { ...securitySchemesOf(profile.authentication), ...base.securitySchemes },
    defaultInputModes: modes((s) => s.inputModes),
    defaultOutputModes: modes((s) => s.outputModes),
    skills,
  };
}
