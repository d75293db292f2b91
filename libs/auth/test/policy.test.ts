import { ParleyError } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { POLICY, authorize, effectiveClientId, withClientId, matchesPattern, mayServeScenario, ownsAgent, policyKey, rolesFor, type Principal } from '../src/index';

const who = (roles: Principal['roles'], over: Partial<Principal> = {}): Principal => ({ id: 'p', tenant: 't', roles, agents: [], scenarios: [], via: 'api_key', ...over });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ParleyError;
  }
  return undefined;
};

describe('namespaces', () => {
  it('match exact names, prefixes ending in *, and * alone', () => {
    expect(matchesPattern(['acme-*'], 'acme-air')).toBe(true);
    expect(matchesPattern(['acme-*'], 'acme')).toBe(false);
    expect(matchesPattern(['skyways-air'], 'skyways-air')).toBe(true);
    expect(matchesPattern(['skyways-air'], 'skyways-air2')).toBe(false);
    expect(matchesPattern(['*'], 'anything')).toBe(true);
    expect(matchesPattern([], 'anything')).toBe(false);
  });

  it('a server agent owns its namespace only; operators and services own every name; a client owns none', () => {
    const acme = who(['server_agent'], { agents: ['acme-*'], scenarios: ['flight_booking'] });
    expect([ownsAgent(acme, 'acme-air'), ownsAgent(acme, 'globex-air')]).toEqual([true, false]);
    expect([mayServeScenario(acme, 'flight_booking'), mayServeScenario(acme, 'photo_retouch')]).toEqual([true, false]);
    expect(ownsAgent(who(['operator']), 'globex-air')).toBe(true);
    expect(ownsAgent(who(['service']), 'globex-air')).toBe(true);
    expect(ownsAgent(who(['client_agent'], { agents: ['*'] }), 'acme-air')).toBe(false);
  });
});

describe('the client id is the principal', () => {
  it('a client acts as itself; naming another client is forbidden; operators and services may name any or none', () => {
    // An operator naming none acts as itself, as every caller does (never "anonymous", never the global view).
    expect(effectiveClientId(who(['operator', 'client_agent'], { id: 'dev' }), undefined)).toBe('dev');
    const req: { schema_id: string; client_id?: string } = { schema_id: 'x' };
    expect(withClientId(req, who(['operator'], { id: 'ops' }))).toEqual({ schema_id: 'x', client_id: 'ops' });
    const alice = who(['client_agent'], { id: 'alice' });
    expect(effectiveClientId(alice, undefined)).toBe('alice');
    expect(effectiveClientId(alice, '')).toBe('alice');
    expect(effectiveClientId(alice, 'alice')).toBe('alice');
    expect(refusal(() => effectiveClientId(alice, 'bob'))).toMatchObject({ type: 'forbidden', path: 'params.client_id', rule: 'client_id_is_principal' });
    expect(effectiveClientId(who(['operator']), 'bob')).toBe('bob');
    // A Parley service acts for no client of its own: naming none, it gets the global view.
    expect(effectiveClientId(who(['service']), undefined)).toBeUndefined();
    expect(effectiveClientId(who(['service']), 'bob')).toBe('bob');
  });
});

describe('POLICY', () => {
  it('keys a method by the service and method of its gRPC path', () => {
    expect(policyKey('/parley.v1.RegistryService/RegisterAgent')).toBe('RegistryService/RegisterAgent');
    expect(rolesFor('RegistryService/RegisterAgent')).toContain('server_agent');
  });

  it('fails closed: a method missing from the table is for Parley’s services only', () => {
    expect(rolesFor('NewService/Unlisted')).toEqual(['service']);
    expect(refusal(() => authorize(who(['operator']), 'NewService/Unlisted'))).toMatchObject({ type: 'forbidden', rule: 'role' });
    expect(refusal(() => authorize(who(['service']), 'NewService/Unlisted'))).toBeUndefined();
  });

  it('keeps the pool, the patches and the keys to operators, Authenticate to services, publishing to server agents', () => {
    for (const m of Object.keys(POLICY).filter((k) => k.startsWith('SemanticPoolService/') || k.startsWith('EvolutionService/'))) {
      expect(refusal(() => authorize(who(['client_agent', 'server_agent']), m)), m).toBeInstanceOf(ParleyError);
      expect(refusal(() => authorize(who(['operator']), m)), m).toBeUndefined();
    }
    expect(refusal(() => authorize(who(['operator']), 'ApiKeyService/Authenticate'))).toMatchObject({ type: 'forbidden' });
    expect(refusal(() => authorize(who(['client_agent']), 'NegotiationService/PublishSchema'))).toMatchObject({ type: 'forbidden' });
    expect(refusal(() => authorize(who(['server_agent']), 'ExecutionService/Execute'))).toMatchObject({ type: 'forbidden' });
    const denial = refusal(() => authorize(who(['client_agent']), 'EvolutionService/ApprovePatch'));
    expect(denial?.details).toEqual({ method: 'EvolutionService/ApprovePatch', allowed_roles: ['operator'] });
  });
});
