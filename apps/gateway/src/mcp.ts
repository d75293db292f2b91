/**
 * Parley's MCP face: an MCP server (official TypeScript SDK) over the
 * streamable HTTP transport at `/mcp`, in stateless mode.
 *
 * Stateless: every POST gets a fresh server and transport, and no
 * `Mcp-Session-Id` is issued. The tools are derived from the registry and
 * negotiation on each call (through the briefly cached ToolCatalog), so no
 * per-session state exists that a session would protect, and any gateway
 * replica can answer any request behind a plain load balancer. Consequently
 * `GET /mcp` (a standalone SSE stream for server-initiated messages) and
 * `DELETE /mcp` (session termination) answer 405, which the MCP transport
 * spec allows and the SDK clients expect from a stateless server.
 *
 * Tools: one per (agent, scenario), see mcp-tools.ts. `tools/call` executes the
 * tool's latest schema version through ExecutionService.Execute (zhou §3.2
 * steps 4-6). ADOL options ride in `params._meta` (adol-params.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionApi } from '@parley/contracts';
import { ParleyError, assertNoForbiddenKeys, toParleyError, type JsonObject } from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import { dedupTools, inlineToolRefs, type McpTool, type TextEmbedder } from '@parley/adol';
import { checkRequireOutput, filterResult, selectEntries, shortTool } from './adol';
import { parseCallToolMeta, parseListToolsMeta } from './adol-params';
import type { CatalogEntry, SelectableEntry, ToolCatalog } from './catalog';
import { describeError, errorData, jsonRpcCode } from './errors';
import { execute } from './execute';
import type { SchemaStore } from './schema-store';

export interface McpFaceOptions {
  catalog: ToolCatalog;
  execution: ExecutionApi;
  log: Logger;
  /** Reported as serverInfo.version. */
  version?: string;
  /** Embedder for semantic tools/list queries (chang §3.4 approach 1); without one, queries rank by BM25. */
  embedder?: TextEmbedder;
  /** Holds the documents of `refs: "shared"` listings (served at GET /schemas/…). */
  schemas: SchemaStore;
}

const INSTRUCTIONS =
  'Each tool is a scenario served by an agent registered in Parley (draft-zhou). The arguments are the payload: ' +
  'follow each key\'s description, and put anything that fits no key in "other". ' +
  'Optional ADOL extensions (draft-chang) go in params._meta: tools/list accepts short, query, top_k, cut, tags and refs ' +
  '(default "none": schemas without $ref; "local" or "shared" for clients that resolve references); tools/call accepts requireOutput.';

/**
 * A ParleyError as an MCP protocol error: code from ERROR_CATALOGUE, text
 * naming path and rule, the error as data. The SDK's protocol layer sends
 * `code`, `message` and `data` of whatever a handler throws; an McpError would
 * prefix the message with "MCP error <code>:", which clients prefix again.
 */
class McpProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
  }
}

function toMcpError(e: unknown): McpProtocolError {
  const err = toParleyError(e);
  return new McpProtocolError(jsonRpcCode(err), describeError(err), errorData(err));
}

/** A ParleyError as an MCP tool error: the model sees it and can correct its arguments (MCP: tool errors go in the result). */
export function toolError(err: ParleyError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${describeError(err)}\n${JSON.stringify(errorData(err))}` }],
  };
}

/** The result of a successful call: structuredContent plus the same JSON as text (MCP: for clients without structured output). */
export function toolResult(result: JsonObject): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/** Where `refs: "shared"` documents go. Their URLs are relative (`/s/<hash>`): the client resolves them against the gateway it listed from. */
export interface SharedRefs {
  store: SchemaStore;
}

/**
 * tools/list with the ADOL options applied: selection by tags and/or query
 * (chang §3.4), then the short view (§3.2), then references (§3.1): by default
 * none at all (every schema inlined, for clients that do not resolve `$ref`);
 * with `refs: "local"` or `"shared"`, deduplication, applied only where it
 * saves tokens.
 */
export async function listTools(selectable: readonly SelectableEntry[], meta: unknown, embedder?: TextEmbedder, shared?: SharedRefs): Promise<ListToolsResult> {
  const opts = parseListToolsMeta(meta);
  const picked = await selectEntries(
    selectable,
    { topK: opts.topK, ...(opts.query !== undefined ? { query: opts.query } : {}), ...(opts.cut ? { cut: opts.cut } : {}), ...(opts.tags ? { tags: opts.tags } : {}) },
    embedder,
  );
  const tools: Tool[] = picked.map((e) => (opts.short ? shortTool(e.tool) : e.tool));
  // Parley's own schemas reference a recursive definition (parley_safe_value); inlined, it is
  // unrolled once and then accepts any value: execution still validates with the full schema.
  if (opts.refs === 'none') return { tools: inlineToolRefs(tools as unknown as McpTool[]).tools as unknown as Tool[] };
  if (opts.refs === 'shared' && !shared) {
    throw new ParleyError('invalid_params', 'params._meta.refs "shared" is not available here', { path: 'params._meta.refs', rule: 'unsupported' });
  }
  const r = dedupTools(tools as unknown as McpTool[], opts.refs === 'shared' ? { mode: 'shared' } : { mode: 'local' });
  for (const doc of r.shared) shared!.store.put(doc.url, doc.schema);
  return { tools: r.tools as unknown as Tool[] };
}

/** Finds the raw (unparsed) JSON-RPC request with this id in the HTTP body. */
function rawRequest(body: unknown, id: unknown): Record<string, unknown> | undefined {
  const list = Array.isArray(body) ? body : [body];
  return list.find((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id);
}

export function createMcpFace(opts: McpFaceOptions) {
  const { catalog, execution, log } = opts;

  async function callTool(entry: CatalogEntry, args: Record<string, unknown>, meta: unknown, raw: Record<string, unknown> | undefined): Promise<CallToolResult> {
    try {
      const o = parseCallToolMeta(meta);
      // Checked before executing: a wrong field name must not cost a booking.
      if (o.requireOutput) checkRequireOutput(o.requireOutput, entry.outputFields, 'params._meta.requireOutput');
      // The SDK's schema parse drops a top-level "__proto__" member silently, so
      // the raw request is checked too: such a payload is refused, not trimmed.
      const rawArgs = (raw?.params as { arguments?: unknown } | undefined)?.arguments;
      assertNoForbiddenKeys(rawArgs ?? args, 'payload');
      const r = await execute(execution, {
        schema_id: entry.source.schema.schema_id,
        agent: entry.source.agent.name,
        payload: args as JsonObject,
        // The client id is the caller's principal (issue 6); a _meta.client_id must be that same id.
        ...(o.clientId !== undefined ? { client_id: o.clientId } : {}),
        // A safe retry (draft-zhou §3.2 (4)-(6)): a repeat of this key answers once.
        ...(o.idempotencyKey !== undefined ? { idempotency_key: o.idempotencyKey } : {}),
      });
      const result = (r.result ?? {}) as JsonObject;
      return toolResult(o.requireOutput ? filterResult(result, o.requireOutput, entry.outputFields, 'params._meta.requireOutput') : result);
    } catch (e) {
      const err = toParleyError(e);
      if (err.type === 'internal') log.error('mcp tools/call failed', { tool: entry.tool.name, error: e });
      return toolError(err);
    }
  }

  function newServer(body: unknown): McpServer {
    const server = new McpServer({ name: 'parley', title: 'Parley', version: opts.version ?? '0.1.0' }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    // The low-level handlers: Parley's tools are JSON Schemas derived at run time,
    // not the zod shapes McpServer.registerTool takes.
    server.server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      try {
        return await listTools(await catalog.selectable(), request.params?._meta, opts.embedder, { store: opts.schemas });
      } catch (e) {
        if (toParleyError(e).type === 'internal') log.error('mcp tools/list failed', { error: e });
        throw toMcpError(e);
      }
    });
    server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const name = request.params.name;
      let entry: CatalogEntry | undefined;
      try {
        entry = await catalog.byName(name);
      } catch (e) {
        throw toMcpError(e);
      }
      // MCP: an unknown tool is a protocol error (-32602), not a tool result.
      if (!entry) {
        throw toMcpError(new ParleyError('invalid_params', `Unknown tool "${name.slice(0, 128)}"`, { path: 'params.name', rule: 'known_tool' }));
      }
      return callTool(entry, request.params.arguments ?? {}, request.params._meta, rawRequest(body, extra.requestId));
    });
    return server;
  }

  return {
    /** POST /mcp with the already-read and parsed body. */
    async handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
      const server = newServer(body);
      // JSON responses rather than an SSE stream: every Parley call has exactly one
      // answer and no server-initiated messages, and plain JSON is what curl shows.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
  };
}
