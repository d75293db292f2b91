import { ParleyError, type JsonObject, type KeyDefinition, type SchemaTemplate, type SerializedError } from '@parley/protocol';

/**
 * What a client agent imports: a typed JSON-RPC 2.0 client for the gateway.
 * Errors come back as ParleyError with the server's type, path and rule, so a
 * client (or its LLM) can correct exactly the member that was wrong.
 *
 * Schema self-evolution (draft-zhou §6.2.2, §6.2.3): the template a client
 * negotiates is its effective one (base + patches, patch keys flagged
 * `experimental` / `deprecated`). The client keeps the etag of each template it
 * negotiated and sends it with `execute` (unless told otherwise), so a result
 * carries a `schema_update_suggestion` only when the template changed since;
 * `getSchemaUpdates` polls for changes.
 */
export interface ParleyClientOptions {
  /** Per-call timeout (default 15 s). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** A key as patches deliver it: a template key, flagged per its §6.2.3 lifecycle state. */
export type PatchKeyDefinition = KeyDefinition & { experimental?: boolean; deprecated?: boolean };

/** Figure 9: what Parley adds to a result when the client's template is stale (draft-zhou §6.2.2). */
export interface SchemaUpdateSuggestion {
  /** The base schema the patches extend. */
  parent_schema_id?: string;
  /** The etag of the current effective template: negotiate again (or apply the patches) to hold it. */
  etag?: string;
  patch_ids?: string[];
  new_keys: PatchKeyDefinition[];
  modified_keys?: Array<{ key_name: string; semantic_description: string }>;
  [member: string]: unknown;
}

/** Members Parley may add to an execute result beside the agent's own. */
export interface ExecuteExtras {
  schema_update_suggestion?: SchemaUpdateSuggestion;
  /** Payload warnings that did not reject it, e.g. a withdrawn key accepted within its §6.2.3 window. */
  warnings?: string[];
}

export interface ExecuteParams {
  schema_id: string;
  payload: JsonObject;
  client_id?: string;
  agent?: string;
  /** The etag of the template the payload was built from; default: the one kept from getSchemaTemplate. */
  schema_etag?: string;
  /** The user's own words behind the payload (the §6.2.3 audit sampler judges patch keys against them). */
  utterance?: string;
}

export interface GetSchemaTemplateParams {
  scenario: string;
  preferred_language?: string;
  agent?: string;
  client_id?: string;
}

/** One patch as the polling endpoint delivers it (draft-zhou §6.2.2 Patch Packaging; ISO 8601 times). */
export interface SchemaPatchDelivery {
  patch_id: string;
  parent_schema_id: string;
  scenario_id: string;
  /** "global" or the client id the patch belongs to. */
  scope: string;
  timestamp: string;
  expires_at: string;
  new_keys: PatchKeyDefinition[];
  modified_keys: Array<{ key_name: string; semantic_description: string }>;
}

export interface SchemaUpdates {
  etag: string;
  /** False when `since_etag` was the current etag (then `patches` is empty). */
  changed: boolean;
  parent_schema_id: string;
  patches: SchemaPatchDelivery[];
}

export interface ParleyClient {
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** The (effective) template; its etag is kept for `execute` (see `schemaEtag`). */
  getSchemaTemplate(params: GetSchemaTemplateParams): Promise<SchemaTemplate>;
  /** The template and its etag (undefined when the gateway has no polling endpoint). */
  getSchemaTemplateWithEtag(params: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }>;
  /** draft-zhou §6.2.2 schema polling: the etag of the client's effective template and, when it changed, its patches. */
  getSchemaUpdates(params: { scenario: string; client_id?: string; agent?: string; since_etag?: string }): Promise<SchemaUpdates>;
  /** The etag kept for a schema_id (and client_id) by the last getSchemaTemplate. */
  schemaEtag(schemaId: string, clientId?: string): string | undefined;
  execute<T extends JsonObject = JsonObject>(params: ExecuteParams): Promise<T & ExecuteExtras>;
  registerAgent(params: { name: string; scenarios: string[]; description?: string; domain?: string; tags?: string[]; version?: string }): Promise<{ agent: unknown; created: boolean }>;
  publishSchema(params: { agent: string; template: SchemaTemplate | JsonObject; language?: string; response_schema?: JsonObject }): Promise<{ schema: { schema_id: string; version: number }; created: boolean; notes: string[] }>;
  listAgents(params?: { scenario?: string; tag?: string; domain?: string }): Promise<{ agents: Array<{ name: string; scenarios: string[]; tags: string[]; domain: string; executions: number }> }>;
  listSchemas(params?: { agent?: string; scenario?: string }): Promise<{ schemas: Array<{ agent: string; schema_id: string; version: number; languages: string[] }> }>;
}

/** Kept etags; bounded so a long-lived client that negotiates many schemas does not grow without end. */
const MAX_KEPT_ETAGS = 1000;

export function createParleyClient(baseUrl: string, opts: ParleyClientOptions = {}): ParleyClient {
  const url = new URL('/rpc', baseUrl).toString();
  let nextId = 1;
  const etags = new Map<string, string>();
  const etagKey = (schemaId: string, clientId: string | undefined) => `${schemaId}\u0000${clientId ?? ''}`;

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

  const getSchemaUpdates: ParleyClient['getSchemaUpdates'] = (p) => call('get_schema_updates', p);

  async function getSchemaTemplateWithEtag(p: GetSchemaTemplateParams): Promise<{ template: SchemaTemplate; etag: string | undefined }> {
    // The etag is asked for first: if a patch lands between the two calls, the
    // client holds an older etag than its template and is merely told again
    // (a suggestion), never a newer one that would hide a change from it.
    let updates: SchemaUpdates | undefined;
    try {
      updates = await getSchemaUpdates({ scenario: p.scenario, ...(p.agent ? { agent: p.agent } : {}), ...(p.client_id ? { client_id: p.client_id } : {}) });
    } catch {
      // A gateway without the polling endpoint, or an error get_schema_template reports below.
      updates = undefined;
    }
    const template = await call<SchemaTemplate>('get_schema_template', p as unknown as Record<string, unknown>);
    // A new base version published in between: the etag describes another schema.
    const etag = updates && updates.parent_schema_id === template.schema_id ? updates.etag : undefined;
    const key = etagKey(template.schema_id, p.client_id);
    etags.delete(key);
    if (etag !== undefined) {
      etags.set(key, etag);
      while (etags.size > MAX_KEPT_ETAGS) etags.delete(etags.keys().next().value as string);
    }
    return { template, etag };
  }

  return {
    call,
    getSchemaTemplate: async (p) => (await getSchemaTemplateWithEtag(p)).template,
    getSchemaTemplateWithEtag,
    getSchemaUpdates,
    schemaEtag: (schemaId, clientId) => etags.get(etagKey(schemaId, clientId)),
    execute: (p) => {
      const etag = p.schema_etag ?? etags.get(etagKey(p.schema_id, p.client_id));
      return call('execute', { ...p, ...(etag !== undefined ? { schema_etag: etag } : {}) });
    },
    registerAgent: (p) => call('register_agent', p),
    publishSchema: (p) => call('publish_schema', p as unknown as Record<string, unknown>),
    listAgents: (p = {}) => call('list_agents', p),
    listSchemas: (p = {}) => call('list_schemas', p),
  };
}
