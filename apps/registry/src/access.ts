import { assertMayServe, assertOwnsAgent } from '@parley/auth';
import type { AgentProfileServiceService, Guards, RegistryServiceService } from '@parley/contracts';

/**
 * The registry's guards (draft-zhou §7 authorization; roles are in libs/auth POLICY): a server
 * agent registers only agents in its namespace, for scenarios it may serve, and
 * only its own AN profiles (draft 004 §5.1: read-only to other agents).
 */
export const registryGuards: Guards<typeof RegistryServiceService> = {
  registerAgent(req, p) {
    const a = req.agent;
    if (!a) return req;
    assertOwnsAgent(p, a.name, 'params.name');
    a.scenarios.forEach((s, i) => assertMayServe(p, s, `params.scenarios[${i}]`));
    return req;
  },
  unregisterAgent(req, p) {
    assertOwnsAgent(p, req.name, 'params.name');
    return req;
  },
};

export const profileGuards: Guards<typeof AgentProfileServiceService> = {
  registerProfile(req, p) {
    const name = req.profile?.name;
    if (name !== undefined) assertOwnsAgent(p, name, 'params.profile.name');
    return req;
  },
};
