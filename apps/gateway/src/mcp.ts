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
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Link, type TextMapGetter } from '@opentelemetry/api';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ListToolsResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionApi } from '@parley/contracts';
import { ParleyError, assertNoForbiddenKeys, findEdgeViolation, toParleyError, type JsonObject } from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import { wireTools, type McpTool, type TextEmbedder, type UsageStore } from '@parley/adol';
import { checkRequireOutput, filterResult, selectEntries } from './adol';
import { parseCallToolMeta, parseListToolsMeta } from './adol-params';
import type { CatalogEntry, SelectableEntry, ToolCatalog } from './catalog';
import { describeError, errorData, internalFailure, jsonRpcCode } from './errors';
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
  /** Metrics of the requests this face answers (tools/list, tools/call): method, scenario, error type, seconds. */
  observe?: (method: string, scenario: string | undefined, errorType: string | undefined, seconds: number) => void;
  /** The MCP-Protocol-Version header of the request (mcp.protocol.version). */
  protocolVersion?: string | undefined;
  /** chang §3.4, selection that learns from use: the gateway's usage store and the caller (its principal id). */
  learning?: Learning;
}

/**
 * Selection that learns from use (chang §3.4, adol usage.ts): what a client's successful tools/call says it serves
 * (`_meta["dev.parley/request"]`), or else the query of its selection just before in the same MCP session (of a tool
 * that selection returned, within the store's window), becomes a learned example of the tool called, for that client
 * (and for every client only where the operator opted in: UsageStore `sharedClients`). A refused or failed call
 * teaches nothing.
 */
export interface Learning {
  usage: UsageStore;
  /** The authenticated principal's id (http-mcp.ts), never a name the request gives. */
  client: string;
  /** The MCP session (the Mcp-Session-Id header) if the client sent one: implicit attribution stays within it. */
  session?: string | undefined;
}

/** The one list the MCP face serves (its catalogue), as the usage store names it. */
export const MCP_USAGE_LIST = 'mcp';

// ---------------------------------------------------------------------------
// Tracing (OpenTelemetry MCP semantic conventions): a SERVER span per tools/list
// and tools/call, named `{mcp.method.name} {gen_ai.tool.name}`, the child of the
// context the client put in `params._meta` (traceparent, tracestate, baggage),
// linked to the HTTP request's span; without one, the child of the HTTP span.
// ---------------------------------------------------------------------------

/** The tracer, asked of the global provider at each use: a provider installed (or replaced) after this module loaded is the one used. */
const tracer = () => trace.getTracer('@parley/gateway');
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (m) => Object.keys(m),
  get: (m, k) => (Object.prototype.hasOwnProperty.call(m, k) && typeof m[k] === 'string' ? (m[k] as string) : undefined),
};

interface McpCall {
  method: 'tools/list' | 'tools/call';
  id: string | number | undefined;
  meta: unknown;
  tool?: string;
}

/** Runs one MCP request in its span; `classify` reads the outcome (a tool error is `tool_error` on the span). */
async function inSpan<T>(
  opts: McpFaceOptions,
  call: McpCall,
  run: () => Promise<T>,
  classify: (r: T) => { type?: string; toolError?: boolean; scenario?: string },
): Promise<T> {
  const ambient = context.active();
  const meta = typeof call.meta === 'object' && call.meta !== null && !Array.isArray(call.meta) ? (call.meta as Record<string, unknown>) : undefined;
  const fromMeta = meta && typeof meta.traceparent === 'string' ? propagation.extract(ROOT_CONTEXT, meta, metaGetter) : undefined;
  const parentSpan = fromMeta ? trace.getSpanContext(fromMeta) : undefined;
  const ambientSpan = trace.getSpanContext(ambient);
  const links: Link[] = parentSpan && ambientSpan && trace.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : [];
  const parent = parentSpan && trace.isSpanContextValid(parentSpan) ? fromMeta! : ambient;
  const tool = call.tool?.slice(0, 128);
  const span = tracer().startSpan(
    tool ? `${call.method} ${tool}` : call.method,
    {
      kind: SpanKind.SERVER,
      links,
      attributes: {
        'mcp.method.name': call.method,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        ...(call.id !== undefined && call.id !== null ? { 'jsonrpc.request.id': String(call.id).slice(0, 64) } : {}),
        ...(tool ? { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' } : {}),
        ...(opts.protocolVersion ? { 'mcp.protocol.version': opts.protocolVersion } : {}),
      },
    },
    parent,
  );
  const started = performance.now();
  let outcome: { type?: string; toolError?: boolean; scenario?: string } = {};
  try {
    const r = await context.with(trace.setSpan(parent, span), run);
    outcome = classify(r);
    return r;
  } catch (e) {
    const err = e instanceof McpProtocolError ? e : toMcpError(e);
    outcome = { type: (err.data.type as string | undefined) ?? 'internal' };
    span.setAttribute('rpc.response.status_code', String(err.code));
    throw e;
  } finally {
    if (outcome.type !== undefined) {
      span.setAttributes({ 'error.type': outcome.toolError ? 'tool_error' : outcome.type, 'parley.error.type': outcome.type });
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    if (outcome.scenario) span.setAttribute('parley.scenario', outcome.scenario);
    span.end();
    opts.observe?.(call.method, outcome.scenario, outcome.type, (performance.now() - started) / 1000);
  }
}

const INSTRUCTIONS =
  'Each tool is a scenario served by an agent registered in Parley (draft-zhou). The arguments are the payload: ' +
  'follow each key\'s description, and put anything that fits no key in "other". ' +
  'Optional ADOL extensions (draft-chang) go in params._meta: tools/list accepts short, query, top_k, cut (with min_k, cut_drop, cut_ratio, cut_gap), tags, names (the full schema of the tools named, e.g. the one a short answer led you to call) and refs ' +
  '(default "none": schemas without $ref; "local" or "shared" for clients that resolve references); tools/call accepts requireOutput and "dev.parley/request" (the request the call serves, which selection learns for you).';

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

/** The error type a tool error carries (its second line is the error as JSON, see toolError). */
function toolErrorType(r: CallToolResult): string | undefined {
  const text = r.content?.[0]?.type === 'text' ? (r.content[0] as { text: string }).text : '';
  const json = text.slice(text.indexOf('\n') + 1);
  try {
    const t = (JSON.parse(json) as { type?: unknown }).type;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
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
export async function listTools(selectable: readonly SelectableEntry[], meta: unknown, embedder?: TextEmbedder, shared?: SharedRefs, learning?: Learning): Promise<ListToolsResult> {
  // Any tools/list in the session replaces its pending query (a failed one leaves none: noted at the end, on success).
  if (learning) learning.usage.noteSelection(MCP_USAGE_LIST, learning.client, learning.session, '', []);
  const opts = parseListToolsMeta(meta);
  const learned = learning && opts.query !== undefined ? learning.usage.examples(MCP_USAGE_LIST, learning.client) : undefined;
  const picked = opts.names ? byName(selectable, opts.names) : await selectEntries(
    selectable,
    { topK: opts.topK, ...(opts.query !== undefined ? { query: opts.query } : {}), ...(opts.cut ? { cut: opts.cut } : {}), ...(opts.autoCut ? { autoCut: opts.autoCut } : {}), ...(opts.tags ? { tags: opts.tags } : {}), ...(learned ? { learned } : {}) },
    embedder,
  );
  if (opts.refs === 'shared' && !shared) {
    throw new ParleyError('invalid_params', 'params._meta.refs "shared" is not available here', { path: 'params._meta.refs', rule: 'unsupported' });
  }
  // adol wireTools: the one definition of what this face sends (short view, then references), which parley tokens
  // and bench:tokens measure. Parley's own schemas reference a recursive definition (parley_safe_value); inlined
  // (refs "none"), it is unrolled once and then accepts any value: execution still validates with the full schema.
  const r = wireTools(picked.map((e) => e.tool as unknown as McpTool), { short: opts.short, refs: opts.refs });
  for (const doc of r.shared) shared!.store.put(doc.url, doc.schema);
  // chang §3.4: the session's next tools/call, of a tool this answer holds, within the window, serves this query.
  if (learning && opts.query !== undefined) learning.usage.noteSelection(MCP_USAGE_LIST, learning.client, learning.session, opts.query, picked.map((e) => e.tool.name));
  return { tools: r.tools as unknown as Tool[] };
}

/**
 * `_meta.names` (chang §3.2 with §3.4): the named tools in the catalogue's order; a name it does not hold is
 * `invalid_params` naming the entry (rule `unknown_tool`), so a client never mistakes a typo for an empty answer.
 */
function byName(selectable: readonly SelectableEntry[], names: readonly string[]): SelectableEntry['entry'][] {
  const held = new Map(selectable.map((s) => [s.name, s.entry] as const));
  names.forEach((n, i) => {
    if (!held.has(n)) throw new ParleyError('invalid_params', `params._meta.names[${i}] is not a tool of this server`, { path: `params._meta.names[${i}]`, rule: 'unknown_tool' });
  });
  const wanted = new Set(names);
  return selectable.filter((s) => wanted.has(s.name)).map((s) => s.entry);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks one MCP message before the SDK parses it, so that a malformed request gets Parley's typed
 * `invalid_params` (-32602, `data.type`, path and rule) instead of a schema library's dump: every
 * string at the edge (NUL, unpaired surrogates, depth: libs/protocol edge-strings), and the members
 * of tools/call and tools/list that Parley reads (name, arguments, _meta, cursor).
 */
export function checkMcpMessage(msg: unknown): ParleyError | undefined {
  if (!isRecord(msg)) return undefined; // the SDK answers an envelope that is not an object
  const unclean = findEdgeViolation(msg.params, 'params');
  if (unclean) return unclean;
  const method = msg.method;
  if (method !== 'tools/call' && method !== 'tools/list') return undefined;
  const p = msg.params;
  if (p === undefined && method === 'tools/list') return undefined;
  if (!isRecord(p)) return new ParleyError('invalid_params', `params of ${method} must be an object`, { path: 'params', rule: 'type' });
  if (p._meta !== undefined && !isRecord(p._meta)) return new ParleyError('invalid_params', 'params._meta must be an object', { path: 'params._meta', rule: 'type' });
  if (method === 'tools/list') {
    if (p.cursor !== undefined && typeof p.cursor !== 'string') return new ParleyError('invalid_params', 'params.cursor must be a string', { path: 'params.cursor', rule: 'type' });
    return undefined;
  }
  if (typeof p.name !== 'string' || p.name === '') return new ParleyError('invalid_params', 'params.name must be the name of a tool (a non-empty string)', { path: 'params.name', rule: 'required' });
  if (p.arguments !== undefined && !isRecord(p.arguments)) {
    return new ParleyError('invalid_params', 'params.arguments must be an object: the payload, one member per key of the tool\'s inputSchema', { path: 'params.arguments', rule: 'type' });
  }
  return undefined;
}

/**
 * The answer to a POST /mcp body that checkMcpMessage refuses, or undefined when every message passes.
 * A refused message gets its typed error; in a JSON array, the other requests are refused with it
 * (`invalid_request`, rule `batch_member_rejected`) so that nothing of a half-valid array runs.
 */
export function refuseMalformedMcp(body: unknown): unknown {
  const list = Array.isArray(body) ? body : [body];
  const errors = list.map(checkMcpMessage);
  if (errors.every((e) => e === undefined)) return undefined;
  const idOf = (m: unknown) => (isRecord(m) && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : null);
  const reply = (m: unknown, err: ParleyError) => ({ jsonrpc: '2.0', id: idOf(m), error: { code: jsonRpcCode(err), message: describeError(err), data: errorData(err) } });
  const out = list.flatMap((m, i) => {
    const err = errors[i];
    if (err) return [reply(m, err)];
    if (!isRecord(m) || m.id === undefined) return []; // a notification gets no answer
    return [reply(m, new ParleyError('invalid_request', 'Another message of this array was refused; nothing of it ran', { path: `[${i}]`, rule: 'batch_member_rejected' }))];
  });
  return Array.isArray(body) ? out : out[0];
}

/** Finds the raw (unparsed) JSON-RPC request with this id in the HTTP body. */
function rawRequest(body: unknown, id: unknown): Record<string, unknown> | undefined {
  const list = Array.isArray(body) ? body : [body];
  return list.find((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id);
}

export function createMcpFace(opts: McpFaceOptions) {
  const { catalog, execution, log } = opts;

  /**
   * chang §3.4: the request a call serves, said (`_meta["dev.parley/request"]`) or attributed (the session's pending
   * selection, consumed by every call). Taken before the call, recorded only once it succeeded (`learnFromCall`).
   */
  function requestServed(tool: string, said: string | undefined): string | undefined {
    const l = opts.learning;
    if (!l) return undefined;
    const attributed = l.usage.takeAttribution(MCP_USAGE_LIST, l.client, l.session, tool);
    return said ?? attributed;
  }

  /** A successful call of a catalogue tool (callTool has its entry): its request becomes a learned example for the caller. */
  function learnFromCall(tool: string, request: string | undefined): void {
    if (opts.learning && request !== undefined) opts.learning.usage.record(MCP_USAGE_LIST, tool, request, opts.learning.client);
  }

  async function callTool(entry: CatalogEntry, args: Record<string, unknown>, meta: unknown, raw: Record<string, unknown> | undefined): Promise<CallToolResult> {
    let served: string | undefined;
    try {
      let o: ReturnType<typeof parseCallToolMeta>;
      try {
        o = parseCallToolMeta(meta);
      } finally {
        // Every call consumes the session's pending selection, a malformed one too.
        served = requestServed(entry.tool.name, undefined);
      }
      served = o.request ?? served;
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
        // The client id is the caller's principal (draft-zhou §7); a _meta.client_id must be that same id.
        ...(o.clientId !== undefined ? { client_id: o.clientId } : {}),
        // A safe retry (draft-zhou §3.2 (4)-(6)): a repeat of this key answers once.
        ...(o.idempotencyKey !== undefined ? { idempotency_key: o.idempotencyKey } : {}),
      });
      const result = (r.result ?? {}) as JsonObject;
      const answer = toolResult(o.requireOutput ? filterResult(result, o.requireOutput, entry.outputFields, 'params._meta.requireOutput') : result);
      // Recorded only now: a refused or failed call teaches nothing (chang §3.4).
      learnFromCall(entry.tool.name, served);
      return answer;
    } catch (e) {
      const err = toParleyError(e);
      return toolError(err.type === 'internal' ? internalFailure(e, log, { face: 'mcp', method: 'tools/call', tool: entry.tool.name }) : err);
    }
  }

  function newServer(body: unknown): Server {
    // The SDK's low-level Server: McpServer would add `listChanged: true` to whatever capabilities it is given.
    const server = new Server({ name: 'parley', title: 'Parley', version: opts.version ?? '0.1.0' }, {
        // No `listChanged`: this endpoint is stateless and offers no stream (GET /mcp is 405), so it could never send
        // notifications/tools/list_changed; a client re-lists when it wants a fresh catalogue.
        capabilities: { tools: {} },
        instructions: INSTRUCTIONS,
      });
    // The low-level handlers: Parley's tools are JSON Schemas derived at run time,
    // not the zod shapes McpServer.registerTool takes.
    server.setRequestHandler(ListToolsRequestSchema, (request, extra) =>
      inSpan(opts, { method: 'tools/list', id: extra.requestId, meta: request.params?._meta }, async () => {
        try {
          const meta = request.params?._meta;
          // `_meta.names` looks tools up as tools/call does: a name the cached catalogue misses rebuilds it once.
          const names = parseListToolsMeta(meta).names;
          const selectable = names ? await catalog.selectableHolding(names) : await catalog.selectable();
          return await listTools(selectable, meta, opts.embedder, { store: opts.schemas }, opts.learning);
        } catch (e) {
          throw toMcpError(toParleyError(e).type === 'internal' ? internalFailure(e, log, { face: 'mcp', method: 'tools/list' }) : e);
        }
      }, () => ({})),
    );
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const name = request.params.name;
      let entry: CatalogEntry | undefined;
      return inSpan(
        opts,
        { method: 'tools/call', id: extra.requestId, meta: request.params._meta, tool: name },
        async () => {
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
        },
        (r) => {
          const scenario = (entry as CatalogEntry | undefined)?.source.schema.scenario_id;
          const type = r.isError ? (toolErrorType(r) ?? 'internal') : undefined;
          return { ...(type !== undefined ? { type, toolError: true } : {}), ...(scenario ? { scenario } : {}) };
        },
      );
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
