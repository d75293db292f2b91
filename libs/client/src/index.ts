import { ParleyError, type JsonObject, type SchemaTemplate, type SerializedError } from '@parley/protocol';

/**
 * What a client agent imports: a typed JSON-RPC 2.0 client for the gateway.
 * Errors come back as ParleyError with the server's type, path and rule, so a
 * client (or its LLM) can correct exactly the member that was wrong.
 */
export interface ParleyClientOptions {
  /** Per-call timeout (default 15 s). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface ParleyClient {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  getSchemaTemplate(params: { scenario: string; preferred_language?: string; agent?: string; client_id?: string }): Promise<SchemaTemplate>;
  execute<T extends JsonObject = JsonObject>(params: { schema_id: string; payload: JsonObject; client_id?: string; agent?: string }): Promise<T>;
  registerAgent(params: { name: string; scenarios: string[]; description?: string; domain?: string; tags?: string[]; version?: string }): Promise<{ agent: unknown; created: boolean }>;
  publishSchema(params: { agent: string; template: SchemaTemplate | JsonObject; language?: string; response_schema?: JsonObject }): Promise<{ schema: { schema_id: string; version: number }; created: boolean; notes: string[] }>;
  listAgents(params?: { scenario?: string; tag?: string; domain?: string }): Promise<{ agents: Array<{ name: string; scenarios: string[]; tags: string[]; domain: string; executions: number }> }>;
  listSchemas(params?: { agent?: string; scenario?: string }): Promise<{ schemas: Array<{ agent: string; schema_id: string; version: number; languages: string[] }> }>;
}

export function createParleyClient(baseUrl: string, opts: ParleyClientOptions = {}): ParleyClient {
  const url = new URL('/rpc', baseUrl).toString();
  let nextId = 1;
  async function call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = nextId++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...opts.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      });
    } catch (cause) {
      throw new ParleyError('unavailable', `Parley gateway at ${baseUrl} unreachable`, { cause, details: { url } });
    }
    const text = await res.text();
    let body: { result?: T; error?: { message: string; data?: SerializedError } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch (cause) {
      throw new ParleyError('internal', `Gateway answered HTTP ${res.status} with a non-JSON body`, { cause });
    }
    if (body.error) {
      throw ParleyError.fromJSON(body.error.data ?? { type: 'internal', message: body.error.message });
    }
    return body.result as T;
  }
  return {
    call,
    getSchemaTemplate: (p) => call('get_schema_template', p),
    execute: (p) => call('execute', p),
    registerAgent: (p) => call('register_agent', p),
    publishSchema: (p) => call('publish_schema', p as unknown as Record<string, unknown>),
    listAgents: (p = {}) => call('list_agents', p),
    listSchemas: (p = {}) => call('list_schemas', p),
  };
}
