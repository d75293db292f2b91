import {
  NAMESPACE_PATTERN,
  assertPrincipalId,
  hashSecret,
  isRole,
  mintApiKey,
  parseApiKey,
  secretMatches,
  type Principal,
  type Role,
} from '@parley/auth';
import type { ApiKey, ApiKeyApi, CallContext } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import type { Clock } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import { iso } from './service';

/**
 * API keys (draft-zhou §7: hashed at rest, scoped, revocable), kept
 * in `registry.api_keys`. Operators create, list and revoke them (through the
 * gateway's `create_api_key`, `list_api_keys`, `revoke_api_key` or `parley
 * keys`); services ask `Authenticate` for the principal of a key they were
 * shown, and the registry answers its own callers from the same table.
 *
 * Every failure to authenticate (malformed, unknown, wrong secret, revoked,
 * expired) gets one answer, so a caller learns nothing about which keys exist.
 */
interface KeyRow {
  key_id: string;
  secret_hash: string;
  principal: string;
  tenant: string;
  roles: string[];
  agents: string[];
  scenarios: string[];
  description: string;
  created_at: Date | string;
  created_by: string;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

/** Roles a key may carry: `service` is the services' own credential (PARLEY_SERVICE_TOKEN), never a key. */
const KEY_ROLES: readonly Role[] = ['operator', 'server_agent', 'client_agent'];
const MAX_DESCRIPTION = 500;
const MAX_PATTERNS = 100;

export interface ApiKeyStore {
  api: ApiKeyApi;
  /** The principal of `key` (registry-local: no gRPC), or `unauthenticated`. */
  authenticate(key: string): Promise<Principal>;
  /**
   * Makes `key` (a whole `pk_…` key) valid with `scope`, replacing the scope of
   * an existing row with that key_id, and revokes the earlier bootstrap keys of
   * the same principal (a changed PARLEY_BOOTSTRAP_OPERATOR_KEY retires the old
   * one): the bootstrap of PARLEY_DEV_KEY and PARLEY_BOOTSTRAP_OPERATOR_KEY.
   */
  ensure(key: string, scope: { principal: string; roles: Role[]; agents: string[]; scenarios: string[]; description: string }): Promise<void>;
}

export function createApiKeyStore(deps: { db: Db; clock: Clock; tenant: string }): ApiKeyStore {
  const { db, clock, tenant } = deps;

  const authenticate = async (key: string): Promise<Principal> => {
    const denied = () =>
      new ParleyError('unauthenticated', 'The API key is not valid: it is unknown, revoked or expired', {
        path: 'headers.authorization',
        rule: 'api_key',
      });
    const parsed = parseApiKey(key);
    if (!parsed) throw denied();
    const r = await db.query<KeyRow>('SELECT * FROM registry.api_keys WHERE key_id = $1', [parsed.key_id]);
    const row = r.rows[0];
    // The secret is compared even when there is no row, so both failures take the same time.
    const ok = secretMatches(parsed.secret, row?.secret_hash ?? '0'.repeat(64));
    const now = clock.now().getTime();
    if (!row || !ok || row.revoked_at !== null || (row.expires_at !== null && ms(row.expires_at) <= now)) throw denied();
    return {
      id: row.principal,
      tenant: row.tenant,
      roles: row.roles.filter(isRole),
      agents: row.agents,
      scenarios: row.scenarios,
      via: 'api_key',
      credential_id: row.key_id,
      ...(row.expires_at !== null ? { expires_at: ms(row.expires_at) } : {}),
    };
  };

  const api: ApiKeyApi = {
    async createApiKey(req, ctx) {
      assertPrincipalId(req.principal, 'params.principal');
      const roles = checkRoles(req.roles);
      const agents = checkPatterns(req.agents, 'params.agents');
      const scenarios = checkPatterns(req.scenarios, 'params.scenarios');
      if (roles.includes('server_agent') && agents.length === 0) {
        throw new ParleyError('invalid_params', 'A server_agent key needs the agent names it owns (e.g. ["acme-*"])', { path: 'params.agents', rule: 'min_items' });
      }
      if (req.description.length > MAX_DESCRIPTION) {
        throw new ParleyError('invalid_params', `description is at most ${MAX_DESCRIPTION} characters`, { path: 'params.description', rule: 'max_length' });
      }
      let expiresAt: string | null = null;
      if (req.expires_at !== '') {
        const t = Date.parse(req.expires_at);
        if (!Number.isFinite(t) || !/^\d{4}-\d{2}-\d{2}T/.test(req.expires_at)) {
          throw new ParleyError('invalid_params', 'expires_at must be an ISO 8601 date-time', { path: 'params.expires_at', rule: 'date_time' });
        }
        if (t <= clock.now().getTime()) throw new ParleyError('invalid_params', 'expires_at must be in the future', { path: 'params.expires_at', rule: 'future' });
        expiresAt = new Date(t).toISOString();
      }
      const minted = mintApiKey();
      const r = await db.query<KeyRow>(
        `INSERT INTO registry.api_keys (key_id, secret_hash, principal, tenant, roles, agents, scenarios, description, created_at, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
        [minted.key_id, minted.secret_hash, req.principal, tenant, roles, agents, scenarios, req.description, clock.now().toISOString(), creator(ctx), expiresAt],
      );
      return { api_key: toApiKey(r.rows[0] as KeyRow), key: minted.key };
    },

    async listApiKeys(req) {
      const where: string[] = ['tenant = $1'];
      const params: unknown[] = [tenant];
      if (req.principal !== undefined) {
        params.push(req.principal);
        where.push(`principal = $${params.length}`);
      }
      if (!req.include_revoked) where.push('revoked_at IS NULL');
      const r = await db.query<KeyRow>(`SELECT * FROM registry.api_keys WHERE ${where.join(' AND ')} ORDER BY created_at, key_id`, params);
      return { api_keys: r.rows.map(toApiKey) };
    },

    async revokeApiKey(req) {
      if (!/^[0-9a-f]{16}$/.test(req.key_id)) {
        throw new ParleyError('invalid_params', 'key_id is the 16 hex digits after pk_', { path: 'params.key_id', rule: 'pattern' });
      }
      // Revoking twice keeps the first time.
      const r = await db.query<KeyRow>(
        'UPDATE registry.api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE key_id = $1 AND tenant = $3 RETURNING *',
        [req.key_id, clock.now().toISOString(), tenant],
      );
      const row = r.rows[0];
      if (!row) throw new ParleyError('api_key_not_found', `No API key ${req.key_id}`, { path: 'params.key_id', rule: 'exists' });
      return { api_key: toApiKey(row) };
    },

    async authenticate(req) {
      const p = await authenticate(req.key);
      return {
        principal: {
          id: p.id,
          tenant: p.tenant,
          roles: p.roles,
          agents: p.agents,
          scenarios: p.scenarios,
          via: p.via,
          credential_id: p.credential_id ?? '',
          expires_at: p.expires_at ?? 0,
        },
      };
    },
  };

  return {
    api,
    authenticate,
    async ensure(key, scope) {
      const parsed = parseApiKey(key);
      if (!parsed) throw new Error('not an API key (pk_<16 hex>_<43 base64url>); make one with `parley keys mint`');
      const at = clock.now().toISOString();
      await db.transaction(async (tx) => {
        await upsertKey(tx, { key_id: parsed.key_id, secret: parsed.secret, tenant, ...scope, created_at: at });
        await tx.query(
          `UPDATE registry.api_keys SET revoked_at = $3
           WHERE principal = $1 AND tenant = $4 AND created_by = 'bootstrap' AND key_id <> $2 AND revoked_at IS NULL`,
          [scope.principal, parsed.key_id, at, tenant],
        );
      });
    },
  };
}

async function upsertKey(
  db: Queryable,
  k: { key_id: string; secret: string; tenant: string; principal: string; roles: Role[]; agents: string[]; scenarios: string[]; description: string; created_at: string },
): Promise<void> {
  await db.query(
    `INSERT INTO registry.api_keys (key_id, secret_hash, principal, tenant, roles, agents, scenarios, description, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'bootstrap')
     ON CONFLICT (key_id) DO UPDATE SET secret_hash = EXCLUDED.secret_hash, principal = EXCLUDED.principal, tenant = EXCLUDED.tenant,
       roles = EXCLUDED.roles, agents = EXCLUDED.agents, scenarios = EXCLUDED.scenarios, description = EXCLUDED.description,
       revoked_at = NULL, expires_at = NULL`,
    [k.key_id, hashSecret(k.secret), k.principal, k.tenant, k.roles, k.agents, k.scenarios, k.description, k.created_at],
  );
}

function creator(ctx: CallContext | undefined): string {
  return ctx?.principal?.id ?? 'unknown';
}

function checkRoles(roles: string[]): Role[] {
  if (roles.length === 0) throw new ParleyError('invalid_params', `roles needs at least one of ${KEY_ROLES.join(', ')}`, { path: 'params.roles', rule: 'min_items' });
  roles.forEach((r, i) => {
    if (!isRole(r) || !KEY_ROLES.includes(r)) {
      throw new ParleyError('invalid_params', `roles[${i}] must be one of ${KEY_ROLES.join(', ')}`, { path: `params.roles[${i}]`, rule: 'enum' });
    }
  });
  return [...new Set(roles as Role[])];
}

function checkPatterns(patterns: string[], path: string): string[] {
  if (patterns.length > MAX_PATTERNS) throw new ParleyError('invalid_params', `${path} holds at most ${MAX_PATTERNS} patterns`, { path, rule: 'max_items' });
  patterns.forEach((p, i) => {
    if (!NAMESPACE_PATTERN.test(p)) {
      throw new ParleyError('invalid_params', `${path}[${i}] must be a name, a prefix ending in *, or *`, { path: `${path}[${i}]`, rule: 'namespace_pattern' });
    }
  });
  return [...new Set(patterns)];
}

function ms(v: Date | string): number {
  return v instanceof Date ? v.getTime() : Date.parse(v);
}

function toApiKey(r: KeyRow): ApiKey {
  return {
    key_id: r.key_id,
    principal: r.principal,
    tenant: r.tenant,
    roles: r.roles,
    agents: r.agents,
    scenarios: r.scenarios,
    description: r.description,
    created_at: iso(r.created_at),
    created_by: r.created_by,
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
  };
}
