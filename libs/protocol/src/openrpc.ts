/**
 * The OpenRPC 1.3 document of the gateway's JSON-RPC API
 * (https://spec.open-rpc.org/), built from the method table (rpc-methods.ts),
 * the error catalogue (errors.ts) and the parley.v1 message schemas
 * (rpc-wire.gen.ts). The gateway serves it as the result of `rpc.discover` and
 * at `GET /openrpc.json`.
 */
import { ERROR_CATALOGUE, type ErrorType } from './errors';
import { COMMON_ERRORS, RPC_METHODS, RPC_TAGS, SHARED_SCHEMAS, type JsonSchema, type RpcMethodSpec } from './rpc-methods';
import { WIRE_SCHEMAS } from './rpc-wire.gen';

export const OPENRPC_VERSION = '1.3.2';

export interface OpenRpcOptions {
  /** The API's version (the gateway's package version). */
  version: string;
  /** The JSON-RPC endpoint's absolute URL (default: http://localhost:8080/rpc, `npm start`'s). */
  url?: string;
  /**
   * The roles that may call a method that reaches these gRPC methods (libs/auth
   * POLICY); shown as `x-parley-roles`. Absent: no roles are shown.
   */
  rolesFor?: (grpc: readonly string[]) => readonly string[];
}

export type OpenRpcDocument = JsonSchema & { openrpc: string; methods: Array<JsonSchema & { name: string }> };

function errorObject(type: ErrorType): JsonSchema {
  const e = ERROR_CATALOGUE[type];
  return { code: e.jsonrpc, message: `${type}: ${e.summary}`, data: { type, retryable: e.retryable } };
}

function methodObject(m: RpcMethodSpec, rolesFor: OpenRpcOptions['rolesFor']): JsonSchema {
  const props = (m.params.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((m.params.required ?? []) as string[]);
  const errors = [...new Set<ErrorType>([...m.errors, ...COMMON_ERRORS])];
  return {
    name: m.name,
    summary: m.summary,
    ...(m.description ? { description: m.description } : {}),
    tags: [{ $ref: `#/components/tags/${m.tag}` }],
    paramStructure: 'by-name',
    params: Object.entries(props).map(([name, schema]) => ({
      name,
      ...(typeof schema.description === 'string' && schema.description !== '' ? { description: schema.description } : {}),
      required: required.has(name),
      schema,
    })),
    result: { name: `${m.name}_result`, schema: m.result },
    errors: errors.map((t) => ({ $ref: `#/components/errors/${t}` })),
    ...(rolesFor ? { 'x-parley-roles': [...rolesFor(m.grpc)] } : {}),
  };
}

/** The OpenRPC document; `rpc.discover` itself is the discovery method (OpenRPC §service discovery), not listed. */
export function buildOpenRpcDocument(opts: OpenRpcOptions): OpenRpcDocument {
  const used = new Set<ErrorType>(COMMON_ERRORS);
  for (const m of RPC_METHODS as readonly RpcMethodSpec[]) for (const e of m.errors) used.add(e);
  const errorTypes = (Object.keys(ERROR_CATALOGUE) as ErrorType[]).filter((t) => used.has(t));
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'Parley JSON-RPC API',
      version: opts.version,
      description:
        'Structured schema interaction between AI agents (draft-zhou: negotiation, execution, schema self-evolution; draft 004 AN tasks). ' +
        'JSON-RPC 2.0 over HTTP POST, by-name params; every error carries data.type, data.path and data.rule. ' +
        'Authorization: Bearer <API key or JWT>. Discovery: rpc.discover, or GET /openrpc.json.',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    servers: [{ name: 'parley-gateway', url: opts.url ?? 'http://localhost:8080/rpc' }],
    methods: (RPC_METHODS as readonly RpcMethodSpec[]).map((m) => methodObject(m, opts.rolesFor) as JsonSchema & { name: string }),
    components: {
      schemas: { ...SHARED_SCHEMAS, ...WIRE_SCHEMAS },
      errors: Object.fromEntries(errorTypes.map((t) => [t, errorObject(t)])),
      tags: Object.fromEntries(Object.entries(RPC_TAGS).map(([name, description]) => [name, { name, description }])),
    },
  } as OpenRpcDocument;
}
