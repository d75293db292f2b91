// The A2A face's HTTP routes: the agent cards (`GET /.well-known/agent-card.json`,
// `GET /a2a/<agent>/.well-known/agent-card.json`, public and signed,
// a2a-card-versions.ts) and the JSON-RPC endpoints `POST /a2a` and `POST /a2a/<agent>`
// (a2a.ts), behind access (http-access.ts), each call in its own span.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ParleyError, toParleyError } from '@parley/protocol';
import type { Logger, Metrics } from '@parley/runtime';
import { A2A_AGENT_PATH_PATTERN, createA2aFace, resolveAgentCard } from './a2a';
import { gatewayCard, type ParleyAgentCardJson } from './a2a-card';
import { presentCard, type CardSigner } from './a2a-card-versions';
import type { ToolCatalog } from './catalog';
import { asCaller, type Access } from './http-access';
import { gatewayBaseUrl, notAllowed, send } from './http-io';
import { failJsonRpcSpan, inSpan, rpcIdOf, startJsonRpcSpan } from './http-tracing';
import { errorResponse, type Backends } from './rpc';

export const AGENT_CARD = '/.well-known/agent-card.json';
/** Agent cards differ by the A2A-Version request header (a2a-card-versions.ts). */
const CARD_HEADERS = { 'cache-control': 'max-age=5', vary: 'A2A-Version' };
/** The A2A methods counted by name (others: `other`). */
const A2A_METHODS = new Set(['SendMessage', 'message/send', 'SendStreamingMessage', 'message/stream', 'GetTask', 'tasks/get', 'CancelTask', 'tasks/cancel', 'ListTasks', 'SubscribeToTask', 'tasks/resubscribe', 'GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

export interface A2aRouteDeps {
  access: Access;
  backends: Backends;
  catalog: ToolCatalog;
  log: Logger;
  version: string;
  cardSigner: CardSigner;
  publicUrl?: string;
  metrics?: Metrics;
}

/** The A2A target of a path: the gateway (agent undefined) or one agent; 'none' when the path is not an A2A one. */
function a2aTarget(path: string): { isCard: boolean; agent: string | undefined } | 'none' {
  const isCard = path.endsWith(AGENT_CARD);
  // "/a2a/<agent>/" is the agent's base URL as a client writes it (the A2A SDK
  // resolves ".well-known/agent-card.json" against it), so it names the endpoint too.
  const rest = (isCard ? path.slice(0, -AGENT_CARD.length) : path).replace(/(.)\/$/, '$1');
  if (rest === '' && isCard) return { isCard, agent: undefined };
  if (rest === '/a2a' && !isCard) return { isCard, agent: undefined };
  if (rest.startsWith('/a2a/') && rest.length > 5) return { isCard, agent: rest.slice(5) };
  return 'none';
}

/** The route: answers /a2a, /a2a/<agent> and their agent cards; false when the path is not one of them. */
export function createA2aRoute(deps: A2aRouteDeps): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const { access, catalog, metrics } = deps;

  /** The card in the version asked for, signed; a version not served is HTTP 400 `invalid_request`. */
  const sendCard = (req: IncomingMessage, res: ServerResponse, card: ParleyAgentCardJson, base: string) => {
    let body: unknown;
    try {
      body = presentCard(req, card, deps.cardSigner, base);
    } catch (e) {
      if (toParleyError(e).type !== 'invalid_request') throw e;
      send(res, 400, errorResponse(null, e), { vary: 'A2A-Version' });
      return;
    }
    send(res, 200, body, CARD_HEADERS);
  };

  const serveCard = async (req: IncomingMessage, res: ServerResponse, agent: string | undefined) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(res, 'GET', 'Agent cards are read with GET');
    const cardOpts = { baseUrl: gatewayBaseUrl(req, deps.publicUrl), version: deps.version };
    const entries = await catalog.entries();
    if (agent === undefined) return sendCard(req, res, gatewayCard(entries, cardOpts), cardOpts.baseUrl);
    // An AN agent profile (draft 004 §5.1) shows on the card, merged with the registered agent (a2a.ts).
    const a = await resolveAgentCard(agent, { catalog, profiles: deps.backends.profiles }, cardOpts);
    if (!a) return send(res, 404, errorResponse(null, new ParleyError('agent_not_found', `No agent named "${agent}" is registered`, { path: 'url', rule: 'exists' })));
    sendCard(req, res, a as ParleyAgentCardJson, cardOpts.baseUrl);
  };

  const serveCall = async (req: IncomingMessage, res: ServerResponse, agent: string | undefined) => {
    if (req.method !== 'POST') return notAllowed(res, 'POST', 'The A2A JSON-RPC endpoint takes POST');
    const principal = await access.authenticate(req, res, 'a2a');
    if (!principal) return;
    if (!access.admit(principal, res, 'a2a') || !access.charge(principal, res, 1, 'a2a')) return;
    const read = await access.readJson(req, res, 200, 'a2a');
    if (!read) return;
    const a2a = createA2aFace({ catalog, execution: asCaller(deps.backends, req.headers.authorization as string).execution, log: deps.log });
    const started = performance.now();
    const raw = (read.value as { method?: unknown } | null)?.method;
    const method = typeof raw === 'string' && A2A_METHODS.has(raw) ? raw : undefined;
    const span = startJsonRpcSpan(method, rpcIdOf(read.value));
    const reply = await inSpan(span, () => a2a.handle(read.value, agent));
    const body = reply.body as { error?: { code?: number; message?: string; data?: { type?: string } }; result?: { metadata?: { scenario_id?: unknown }; message?: { metadata?: { scenario_id?: unknown } } } } | undefined;
    const type = body?.error ? (body.error.data?.type ?? 'internal') : undefined;
    const sc = body?.result?.metadata?.scenario_id ?? body?.result?.message?.metadata?.scenario_id;
    if (body?.error) failJsonRpcSpan(span, body.error, type);
    span.end();
    metrics?.request('a2a', method ?? 'other', typeof sc === 'string' ? sc : undefined, type, (performance.now() - started) / 1000);
    send(res, reply.status, reply.body);
  };

  return async (req, res, path) => {
    const target = a2aTarget(path);
    if (target === 'none') return false;
    const { isCard, agent } = target;
    if (agent !== undefined && !A2A_AGENT_PATH_PATTERN.test(agent)) {
      send(res, 404, errorResponse(null, new ParleyError('agent_not_found', `No agent named "${agent.slice(0, 64)}"`, { path: 'url', rule: 'agent_name' })));
      return true;
    }
    await (isCard ? serveCard(req, res, agent) : serveCall(req, res, agent));
    return true;
  };
}
