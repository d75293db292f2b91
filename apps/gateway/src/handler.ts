import type { ApiKeyApi, DeadLetterApi, DeadLetterServiceName, EventSubscriptionApi, EvolutionApi, ExecutionApi, NegotiationApi, RegistryApi, SemanticPoolApi } from '@parley/contracts';
import type { AgentProfileApi, TaskApi } from '@parley/contracts';
import type { Principal } from '@parley/auth';

// What every JSON-RPC method handler of the gateway is given: the services it reaches (Backends), what it sees of
// the HTTP request (RequestContext), and its own shape (Handler). Types only, so the method files (operator.ts,
// an-tasks.ts, an-profiles.ts, event-subscriptions.ts) and rpc.ts, which gathers them, import from here and not
// from each other.

export interface Backends {
  registry: RegistryApi;
  /** AN agent profiles (draft 004 §5.1), served by the registry; without it the profile methods answer `unavailable`. */
  profiles?: AgentProfileApi;
  negotiation: NegotiationApi;
  execution: ExecutionApi;
  tasks?: TaskApi;
  /**
   * Schema self-evolution (draft-zhou §6.2): the Differential Semantic Pool and
   * patch evaluation. Optional: without them the operator methods (operator.ts)
   * answer `unavailable`.
   */
  pool?: SemanticPoolApi;
  evolution?: EvolutionApi;
  /** The registry's API keys (draft-zhou §7); without it the key methods answer `unavailable`. */
  apiKeys?: ApiKeyApi;
  /** Operators' webhooks for schema evolution events, served by execution; without it those methods answer `unavailable`. */
  eventSubscriptions?: EventSubscriptionApi;
  /**
   * DeadLetterService of each service the gateway reaches (draft-zhou §6.2 event flow),
   * by service name; a service missing from it is listed as `unavailable`.
   */
  deadLetters?: ReadonlyMap<DeadLetterServiceName, DeadLetterApi>;
}

/** What a method sees of the HTTP request it came in (the same for every member of a batch). */
export interface RequestContext {
  /**
   * The authenticated caller (draft-zhou §7). The backends a method gets already carry
   * the caller's credential to the services, which authorize it themselves.
   */
  principal?: Principal;
  /**
   * Headers the method may add to the HTTP response (lower-case names). http.ts
   * passes a map for a single request only: a batch's members share one response.
   */
  responseHeaders?: Record<string, string>;
  /**
   * What the method learnt that metrics and traces may name (http.ts gives each
   * request its own): the scenario a service resolved, never one taken from params.
   */
  observed?: { scenario?: string };
  /** The single request's `Idempotency-Key` header, checked (http.ts); `execute` uses it. */
  idempotencyKey?: string;
  /** The URL of this JSON-RPC endpoint and the gateway's version, for `rpc.discover`'s document (http.ts). */
  rpcUrl?: string;
  version?: string;
}

export type Handler = (params: unknown, b: Backends, ctx: RequestContext) => Promise<unknown>;
