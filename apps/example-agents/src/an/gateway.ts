import { ParleyError, type SerializedError } from '@parley/protocol';

/**
 * The AN methods of the gateway's JSON-RPC endpoint an agent calls as the
 * initiating side (apps/gateway/src/an-tasks.ts, an-profiles.ts):
 * task_assign, task_cancel, task_result_query, discover_profiles,
 * register_profile. Errors come back as the typed ParleyError.
 */
export interface GatewayRpc {
  call<T = Record<string, unknown>>(method: string, params: object): Promise<T>;
}

/** `headers` go with every call (e.g. `authorization: Bearer <api key>`). */
export function createGatewayRpc(baseUrl: string, timeoutMs = 20_000, headers: Record<string, string> = {}): GatewayRpc {
  const url = new URL('/rpc', baseUrl).toString();
  let id = 0;
  return {
    async call<T>(method: string, params: object): Promise<T> {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (cause) {
        throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable`, { cause });
      }
      const text = await res.text();
      let body: { result?: T; error?: { message: string; data?: SerializedError } };
      try {
        body = JSON.parse(text) as typeof body;
      } catch (cause) {
        throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause });
      }
      if (body.error) throw ParleyError.fromJSON(body.error.data ?? { type: 'internal', message: body.error.message });
      return body.result as T;
    },
  };
}
