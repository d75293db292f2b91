import { rolesFor } from '@parley/auth';
import { buildOpenRpcDocument, type OpenRpcDocument } from '@parley/protocol';

/**
 * The gateway's OpenRPC 1.3 document (libs/protocol openrpc.ts, from the method
 * table libs/protocol/src/rpc-methods.ts), with the roles libs/auth POLICY gives
 * each method (`x-parley-roles`: those allowed on every gRPC method it reaches;
 * none named: any authenticated caller). Served as the result of `rpc.discover`
 * (rpc.ts) and at `GET /openrpc.json` (http.ts).
 */
export const OPENRPC_PATH = '/openrpc.json';

const CALLER_ROLES = ['operator', 'server_agent', 'client_agent'] as const;

export function methodRoles(grpc: readonly string[]): readonly string[] {
  return CALLER_ROLES.filter((r) => grpc.every((m) => rolesFor(m).includes(r)));
}

const cache = new Map<string, OpenRpcDocument>();

/**
 * The document for this gateway version (built once per version) naming `rpcUrl`
 * (the endpoint the caller reached, http.ts; default http://localhost:8080/rpc).
 */
export function openRpcDocument(version = '0.1.0', rpcUrl = 'http://localhost:8080/rpc'): { doc: OpenRpcDocument; text: string } {
  let base = cache.get(version);
  if (!base) {
    base = buildOpenRpcDocument({ version, rolesFor: methodRoles });
    cache.set(version, base);
  }
  const doc = { ...base, servers: [{ name: 'parley-gateway', url: rpcUrl }] };
  return { doc, text: JSON.stringify(doc) };
}
