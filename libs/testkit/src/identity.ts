import { mintApiKey, type Authenticator, type Principal, type Role } from '@parley/auth';
import { ParleyError } from '@parley/protocol';
import { createAuthenticator, generateServiceToken, systemClock, type Clock } from '@parley/runtime';

/**
 * Credentials for tests that run Parley's services (draft-zhou §7 authentication): the services'
 * shared token, an operator key the registry makes valid at start, and the env
 * a separate process needs for them.
 */
export interface TestIdentity {
  serviceToken: string;
  /** An operator API key (PARLEY_BOOTSTRAP_OPERATOR_KEY; also PARLEY_API_KEY for example agents). */
  operatorKey: string;
  env: Record<string, string>;
}

export function testIdentity(): TestIdentity {
  const serviceToken = generateServiceToken();
  const operatorKey = mintApiKey().key;
  return {
    serviceToken,
    operatorKey,
    env: { PARLEY_SERVICE_TOKEN: serviceToken, PARLEY_BOOTSTRAP_OPERATOR_KEY: operatorKey, PARLEY_API_KEY: operatorKey },
  };
}

/** An authenticator that knows only the service token: for a service started alone in a test. */
export function serviceOnlyAuthenticator(serviceToken: string, clock: Clock = systemClock): Authenticator {
  return keyedAuthenticator(serviceToken, [], clock).authenticator;
}

/** A principal a test gives an API key to (tenant `default`, via `api_key`). */
export interface TestPrincipal {
  id: string;
  roles: Role[];
  /** Server agents: the agent names it owns (default none). */
  agents?: string[];
  /** Server agents: the scenarios it may serve (default none). */
  scenarios?: string[];
}

/**
 * An authenticator for a service started alone in a test that knows the
 * service token and one minted API key per principal (no registry needed),
 * so the test can call it as a real operator, client or server agent and see
 * the roles and guards at work. `keys[id]` is the key of principal `id`.
 */
export function keyedAuthenticator(
  serviceToken: string,
  principals: TestPrincipal[],
  clock: Clock = systemClock,
): { authenticator: Authenticator; keys: Record<string, string> } {
  const byKey = new Map<string, Principal>();
  const keys: Record<string, string> = {};
  for (const p of principals) {
    const key = mintApiKey().key;
    keys[p.id] = key;
    byKey.set(key, { id: p.id, tenant: 'default', roles: p.roles, agents: p.agents ?? [], scenarios: p.scenarios ?? [], via: 'api_key' });
  }
  const apiKeys = async (key: string): Promise<Principal> => {
    const p = byKey.get(key);
    if (!p) throw new ParleyError('unauthenticated', 'The API key is not valid: it is unknown, revoked or expired', { path: 'headers.authorization', rule: 'api_key' });
    return p;
  };
  return { authenticator: createAuthenticator({ tenant: 'default', clock, serviceToken, apiKeys }), keys };
}

