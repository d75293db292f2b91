import { effectiveClientId, mayServeScenario, ownsAgent, type Principal } from '@parley/auth';
import type { Guards, NegotiationServiceService } from '@parley/contracts';
import { ParleyError, scenarioId } from '@parley/protocol';

/**
 * Negotiation's guards (issue 6; roles are in libs/auth POLICY). A server agent
 * publishes schemas only for agents in its namespace (draft-zhou §4.1: a
 * schema_id is unique within the server agent's namespace) and scenarios it may
 * serve. Every template and update is served for the caller's own client id, so
 * a client sees the base, the global patches and only its own per-client
 * patches (§6.2.2).
 */
const withClient = <R extends { client_id?: string | undefined }>(req: R, p: Principal): R => {
  const client = effectiveClientId(p, req.client_id);
  const out = { ...req };
  if (client === undefined) delete out.client_id;
  else out.client_id = client;
  return out;
};

export const negotiationGuards: Guards<typeof NegotiationServiceService> = {
  publishSchema(req, p) {
    if (!ownsAgent(p, req.agent)) {
      throw new ParleyError('forbidden', `"${req.agent}" is outside the agent namespace of ${p.id}`, { path: 'params.agent', rule: 'agent_namespace' });
    }
    const raw = req.template?.scenario;
    if (raw !== undefined) {
      let id: string | undefined;
      try {
        id = scenarioId(raw, { path: 'params.template.scenario' });
      } catch {
        id = undefined; // the service's own parser reports it
      }
      if (id !== undefined && !mayServeScenario(p, id)) {
        throw new ParleyError('forbidden', `${p.id} may not serve scenario "${id}"`, { path: 'params.template.scenario', rule: 'scenario_scope' });
      }
    }
    return req;
  },
  getSchemaTemplate: withClient,
  getSchemaUpdates: withClient,
  getSchema: withClient,
};
