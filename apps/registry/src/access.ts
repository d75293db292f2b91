import { mayServeScenario, ownsAgent, type Principal } from '@parley/auth';
import type { AgentProfileServiceService, Guards, RegistryServiceService } from '@parley/contracts';
import { ParleyError, scenarioId } from '@parley/protocol';

/**
 * The registry's guards (issue 6; roles are in libs/auth POLICY): a server
 * agent registers only agents in its namespace, for scenarios it may serve, and
 * only its own AN profiles (draft 004 §5.1: read-only to other agents).
 */
export function notOwned(p: Principal, name: string, path: string): ParleyError {
  return new ParleyError('forbidden', `"${name}" is outside the agent namespace of ${p.id}`, { path, rule: 'agent_namespace' });
}

export const registryGuards: Guards<typeof RegistryServiceService> = {
  registerAgent(req, p) {
    const a = req.agent;
    if (!a) return req;
    if (!ownsAgent(p, a.name)) throw notOwned(p, a.name, 'params.name');
    a.scenarios.forEach((s, i) => {
      // An unparseable scenario is left to the service's own typed error.
      let id: string;
      try {
        id = scenarioId(s, { path: `params.scenarios[${i}]` });
      } catch {
        return;
      }
      if (!mayServeScenario(p, id)) {
        throw new ParleyError('forbidden', `${p.id} may not serve scenario "${id}"`, { path: `params.scenarios[${i}]`, rule: 'scenario_scope' });
      }
    });
    return req;
  },
};

export const profileGuards: Guards<typeof AgentProfileServiceService> = {
  registerProfile(req, p) {
    const name = req.profile?.name;
    if (name !== undefined && !ownsAgent(p, name)) throw notOwned(p, name, 'params.profile.name');
    return req;
  },
};
