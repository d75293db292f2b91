import { CLIENT_ID_PATTERN, MAX_CLIENT_ID_LENGTH, ParleyError, scenarioId } from '@parley/protocol';

/**
 * Who is calling (draft-zhou §7). Parley authenticates every caller of the
 * gateway and of the gRPC API and from then on knows it only as a principal:
 * its `id` is the client id everywhere (execution metrics, the pool's
 * distinct-client gate, per-client patches, audits, an AN task's `send_from`),
 * never a field the caller fills in.
 *
 * Roles (draft-zhou §7):
 * - `operator`: runs Parley: approves, rejects and pins patches, judges audits,
 *   reads raw pool fragments, manages API keys, and may act for any client.
 * - `server_agent`: registers agents and publishes their schemas and AN profiles
 *   only inside its own namespace (`agents`), for the scenarios it may serve
 *   (`scenarios`).
 * - `client_agent`: discovers, negotiates, executes, polls for updates and
 *   assigns AN tasks, and sees only its own per-client patches.
 * - `service`: a Parley service calling another (execution asking negotiation
 *   for a client's template); may name the client it acts for.
 */
export const ROLES = ['operator', 'server_agent', 'client_agent', 'service'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

export interface Principal {
  /** The client id (CLIENT_ID_PATTERN): an API key's principal name, or `<issuer alias>:<sub>` for a JWT. */
  id: string;
  /** The deployment's tenant this credential was issued for (one deployment serves one tenant). */
  tenant: string;
  roles: Role[];
  /**
   * Server agents: the agent names this principal owns, exact names or prefixes
   * ending in `*` (`acme-*`); `*` alone is every name (operators' development key).
   */
  agents: string[];
  /** Server agents: the scenarios its agents may serve, same pattern rules. */
  scenarios: string[];
  /** How it authenticated. */
  via: 'api_key' | 'jwt';
  /** The API key's id (`pk_<key_id>_…`) or the JWT's `jti`, for audit logs. */
  credential_id?: string;
  /** When the credential stops being valid (epoch ms), when it has an end. */
  expires_at?: number;
}

/** True when `name` is matched by one of `patterns` (exact, `prefix*`, or `*`). */
export function matchesPattern(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('*') && name.startsWith(p.slice(0, -1))));
}

/** A namespace pattern: an agent name or scenario, optionally ending in `*`, or `*` alone. */
export const NAMESPACE_PATTERN = /^(?:\*|[a-z0-9][a-z0-9_.-]{0,127}\*?)$/i;

export function hasRole(p: Principal, ...roles: Role[]): boolean {
  return roles.some((r) => p.roles.includes(r));
}

/** May `p` act for agent `name` (register it, publish its schemas, its AN profile)? Operators and Parley's services may. */
export function ownsAgent(p: Principal, name: string): boolean {
  return hasRole(p, 'operator', 'service') || (hasRole(p, 'server_agent') && matchesPattern(p.agents, name));
}

/** May `p`'s agents serve `scenario`? Operators and Parley's services may. */
export function mayServeScenario(p: Principal, scenario: string): boolean {
  return hasRole(p, 'operator', 'service') || (hasRole(p, 'server_agent') && matchesPattern(p.scenarios, scenario));
}

/**
 * The client id a call acts for (draft-zhou §7: the authenticated principal,
 * never a field the caller fills in). Every caller acts for itself, whatever
 * its roles: an operator's execute is its own, counted under its own id in the
 * pool's distinct-client gate and given its own per-client patches. A
 * `client_id` a client or server agent sends must be its own id or is refused,
 * so a caller cannot count as another client or read another client's patches.
 * Operators and services may name any client (an operator looks at a client's
 * template; execution asks negotiation for the client it serves). A Parley
 * service naming none acts for no client (undefined: the global view).
 */
export function effectiveClientId(p: Principal, requested: string | undefined, path = 'params.client_id'): string | undefined {
  const privileged = hasRole(p, 'operator', 'service');
  if (requested === undefined || requested === '') return hasRole(p, 'service') ? undefined : p.id;
  if (requested === p.id || privileged) return requested;
  throw new ParleyError('forbidden', `${path} must be the caller's own principal id ("${p.id}") or be left out`, {
    path,
    rule: 'client_id_is_principal',
  });
}

/** Throws `invalid_params` when `id` cannot be a client id (it becomes one everywhere). */
export function assertPrincipalId(id: string, path: string): void {
  if (id.length === 0 || id.length > MAX_CLIENT_ID_LENGTH || !CLIENT_ID_PATTERN.test(id)) {
    throw new ParleyError('invalid_params', `${path} must be 1-${MAX_CLIENT_ID_LENGTH} letters, digits and _ . : @ -`, { path, rule: 'principal_id' });
  }
}

/** `req` with `client_id` set to the caller's effective client id (effectiveClientId), or removed for a service's global view. */
export function withClientId<R extends { client_id?: string | undefined }>(req: R, p: Principal, path = 'params.client_id'): R {
  const client = effectiveClientId(p, req.client_id, path);
  const out = { ...req };
  if (client === undefined) delete out.client_id;
  else out.client_id = client;
  return out;
}

/** Throws `forbidden` (rule `agent_namespace`) unless `p` owns agent `name`. */
export function assertOwnsAgent(p: Principal, name: string, path: string): void {
  if (!ownsAgent(p, name)) throw new ParleyError('forbidden', `"${name}" is outside the agent namespace of ${p.id}`, { path, rule: 'agent_namespace' });
}

/**
 * Throws `forbidden` (rule `scenario_scope`) unless `p`'s agents may serve the
 * scenario named `raw`. A name that is no scenario at all passes: the service's
 * own parser answers it with the typed error a caller of any role gets.
 */
export function assertMayServe(p: Principal, raw: string, path: string): void {
  let id: string;
  try {
    id = scenarioId(raw, { path });
  } catch {
    return;
  }
  if (!mayServeScenario(p, id)) throw new ParleyError('forbidden', `${p.id} may not serve scenario "${id}"`, { path, rule: 'scenario_scope' });
}
