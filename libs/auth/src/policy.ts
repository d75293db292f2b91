import { ParleyError } from '@parley/protocol';
import type { Principal, Role } from './principal';

/**
 * Who may call what (draft-zhou §7, Authorization): the roles allowed on every gRPC
 * method of Parley, keyed `<Service>/<Method>` as in the method's path
 * (`/parley.v1.<Service>/<Method>`). The gateway's JSON-RPC, MCP and A2A faces
 * reach the services over these methods with the caller's own credential, so
 * this one table decides for every face. A method missing from the table is
 * refused to everyone but a Parley service (fail closed); a test checks that
 * every generated method has an entry.
 *
 * Beyond the role, each service's guards (its `access.ts`) check ownership
 * where the request names a resource: a server agent registers and publishes
 * only agents in its namespace and scenarios it may serve; a client's
 * `client_id` (and an AN task's `send_from`) is its principal; an AN task is
 * visible to its two parties only.
 */
const ANY: readonly Role[] = ['operator', 'server_agent', 'client_agent', 'service'];
const OPERATOR: readonly Role[] = ['operator', 'service'];
const SERVER_AGENT: readonly Role[] = ['operator', 'server_agent', 'service'];
const CLIENT: readonly Role[] = ['operator', 'client_agent', 'service'];
/** AN agents are both: a cross-domain agent assigns tasks to others and executes its own (draft 004 §4). */
const AN_PARTY: readonly Role[] = ['operator', 'client_agent', 'server_agent', 'service'];

export const POLICY: Readonly<Record<string, readonly Role[]>> = {
  // Discovery (draft-zhou §3.2 step (2)) is open to every authenticated caller.
  'RegistryService/RegisterAgent': SERVER_AGENT,
  // Its owner (a server agent whose namespace holds the name) or an operator.
  'RegistryService/UnregisterAgent': SERVER_AGENT,
  'RegistryService/GetAgent': ANY,
  'RegistryService/ListAgents': ANY,
  'AgentProfileService/RegisterProfile': SERVER_AGENT,
  'AgentProfileService/GetProfile': ANY,
  'AgentProfileService/DiscoverProfiles': ANY,
  // Negotiation (§3.2 step (3)); publishing is the server agent's (§4.1 namespace).
  'NegotiationService/PublishSchema': SERVER_AGENT,
  'NegotiationService/RetireSchema': SERVER_AGENT,
  'NegotiationService/GetSchemaTemplate': ANY,
  'NegotiationService/GetSchema': ANY,
  'NegotiationService/ListSchemas': ANY,
  'NegotiationService/GetSchemaUpdates': ANY,
  'NegotiationService/GetSigningKeys': ANY,
  // Execution (§3.2 steps (4)-(6)).
  'ExecutionService/Execute': CLIENT,
  // AN tasks (draft 004 §5.2-5.4); the guards keep each task to its parties.
  'TaskService/CapabilityRequest': AN_PARTY,
  'TaskService/TaskAssign': AN_PARTY,
  'TaskService/TaskCancel': AN_PARTY,
  'TaskService/FeasibilityNegotiate': AN_PARTY,
  'TaskService/FulfillmentNegotiate': AN_PARTY,
  'TaskService/TaskResultQuery': AN_PARTY,
  'TaskService/TaskResultSubscribe': AN_PARTY,
  'TaskService/RegisterTaskSubscription': AN_PARTY,
  'TaskService/TaskResultNotify': SERVER_AGENT,
  'TaskService/TaskContext': AN_PARTY,
  'TaskService/UploadChunk': AN_PARTY,
  // Schema self-evolution (§6.2): the pool holds users' words and patches decide every client's schema:
  // operators only (a client sees its own patches through negotiation).
  'SemanticPoolService/ListClusters': OPERATOR,
  'SemanticPoolService/GetCluster': OPERATOR,
  'EvolutionService/ListPatches': OPERATOR,
  'EvolutionService/GetPatch': OPERATOR,
  'EvolutionService/ApprovePatch': OPERATOR,
  'EvolutionService/RejectPatch': OPERATOR,
  'EvolutionService/PinPatch': OPERATOR,
  'EvolutionService/EditPatch': OPERATOR,
  'EvolutionService/ListDecisions': OPERATOR,
  'EvolutionService/ListAuditSamples': OPERATOR,
  'EvolutionService/JudgeAuditSample': OPERATOR,
  // Dead letters (§6.2 event flow): events set aside hold users' words and values; operators only.
  'DeadLetterService/ListDeadLetters': OPERATOR,
  'DeadLetterService/RetryDeadLetter': OPERATOR,
  'DeadLetterService/DiscardDeadLetter': OPERATOR,
  // Identity itself.
  'ApiKeyService/CreateApiKey': OPERATOR,
  'ApiKeyService/ListApiKeys': OPERATOR,
  'ApiKeyService/RevokeApiKey': OPERATOR,
  'ApiKeyService/Authenticate': ['service'],
  // Operators' webhooks for schema evolution events (patch.*, key.*, pool.matured).
  'EventSubscriptionService/CreateEventSubscription': OPERATOR,
  'EventSubscriptionService/ListEventSubscriptions': OPERATOR,
  'EventSubscriptionService/DeleteEventSubscription': OPERATOR,
};

/** `/parley.v1.RegistryService/RegisterAgent` → `RegistryService/RegisterAgent`. */
export function policyKey(grpcPath: string): string {
  const m = /^\/[A-Za-z0-9_.]*?\.?([A-Za-z0-9_]+)\/([A-Za-z0-9_]+)$/.exec(grpcPath);
  return m ? `${m[1]}/${m[2]}` : grpcPath;
}

export function rolesFor(method: string): readonly Role[] {
  return Object.prototype.hasOwnProperty.call(POLICY, method) ? (POLICY[method] as readonly Role[]) : ['service'];
}

/**
 * Throws `forbidden` unless one of `p`'s roles may call `method`. The answer
 * names the method and the roles that may, nothing about any resource.
 */
export function authorize(p: Principal, method: string): void {
  const allowed = rolesFor(method);
  if (p.roles.some((r) => allowed.includes(r))) return;
  throw new ParleyError('forbidden', `${method} needs one of the roles ${allowed.filter((r) => r !== 'service').join(', ') || 'service'}`, {
    path: 'principal.roles',
    rule: 'role',
    details: { method, allowed_roles: allowed.filter((r) => r !== 'service') },
  });
}

/** What every face uses to turn an `Authorization` header into a principal (libs/runtime builds it). */
export interface Authenticator {
  /** The principal, or a thrown `unauthenticated` ParleyError. */
  authenticate(authorization: string | undefined): Promise<Principal>;
}
