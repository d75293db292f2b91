/**
 * Cohorts (zhou §6.2.1 last paragraph: "separate DSP instances per scenario or
 * per client-agent cohort, enabling both global schema evolution and
 * personalized schema branching"; §6.2.2 Personalized Adaptation).
 *
 * A scope is `'global'` or `{ client_id }`. It is an object rather than a bare
 * client id because "global" is itself a valid client id (CLIENT_ID_PATTERN).
 * Pools, clusters and patches carry a scenario and a scope; every fragment goes
 * to two pools, its scenario's global pool and its client's own pool
 * (`poolsForFragment`).
 */
import { scenarioId } from '@parley/protocol';
import { evolutionError } from './errors';

export type Scope = 'global' | { readonly client_id: string };

export interface PoolKey {
  /** Canonical scenario id (snake_case slug). */
  readonly scenario: string;
  readonly scope: Scope;
}

export function clientScope(clientId: string): Scope {
  if (typeof clientId !== 'string' || clientId === '') throw evolutionError('scope', 'client_id', 'a client scope needs a non-empty client_id');
  return { client_id: clientId };
}

export function isGlobal(s: Scope): s is 'global' {
  return s === 'global';
}

export function scopeClient(s: Scope): string | null {
  return s === 'global' ? null : s.client_id;
}

export function sameScope(a: Scope, b: Scope): boolean {
  return scopeClient(a) === scopeClient(b);
}

/** A stable string for maps and storage keys: `global` or `client:<id>`. */
export function scopeKey(s: Scope): string {
  return s === 'global' ? 'global' : `client:${s.client_id}`;
}

/** The two pools a fragment from `clientId` feeds: the scenario's global pool and the client's own. */
export function poolsForFragment(scenario: string, clientId: string): [PoolKey, PoolKey] {
  const sc = scenarioId(scenario, { type: 'invalid_params', path: 'scenario' });
  return [
    { scenario: sc, scope: 'global' },
    { scenario: sc, scope: clientScope(clientId) },
  ];
}
