import { createRpcCall } from '@parley/client';

/**
 * The AN methods of the gateway's JSON-RPC endpoint an agent calls as the
 * initiating side (apps/gateway/src/an-tasks.ts, an-profiles.ts):
 * task_assign, task_cancel, task_result_query, discover_profiles,
 * register_profile. Errors come back as the typed ParleyError.
 */
export interface GatewayRpc {
  call<T = Record<string, unknown>>(method: string, params: object): Promise<T>;
}

/**
 * The client SDK's JSON-RPC call (libs/client/src/rpc.ts): `apiKey` goes as
 * `Authorization: Bearer <apiKey>` with every call; a call times out after
 * `timeoutMs` (default 20 s).
 */
export function createGatewayRpc(baseUrl: string, opts: { timeoutMs?: number; apiKey?: string } = {}): GatewayRpc {
  return { call: createRpcCall(baseUrl, { timeoutMs: opts.timeoutMs ?? 20_000, ...(opts.apiKey !== undefined ? { apiKey: opts.apiKey } : {}) }) };
}
