import { assertMayServe, assertOwnsAgent, withClientId } from '@parley/auth';
import type { Guards, NegotiationServiceService } from '@parley/contracts';

/**
 * Negotiation's guards (draft-zhou §7 authorization; roles are in libs/auth POLICY). A server agent
 * publishes schemas only for agents in its namespace (draft-zhou §4.1: a
 * schema_id is unique within the server agent's namespace) and scenarios it may
 * serve. Every template and update is served for the caller's own client id, so
 * a client sees the base, the global patches and only its own per-client
 * patches (§6.2.2).
 */
export const negotiationGuards: Guards<typeof NegotiationServiceService> = {
  publishSchema(req, p) {
    assertOwnsAgent(p, req.agent, 'params.agent');
    if (req.template?.scenario !== undefined) assertMayServe(p, req.template.scenario, 'params.template.scenario');
    return req;
  },
  retireSchema(req, p) {
    assertOwnsAgent(p, req.agent, 'params.agent');
    return req;
  },
  getSchemaTemplate: withClientId,
  getSchemaUpdates: withClientId,
  getSchema: withClientId,
};
