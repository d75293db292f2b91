// POST /mcp (MCP streamable HTTP, stateless; mcp.ts): the Host/Origin check against
// DNS rebinding, access (http-access.ts), Parley's typed refusal of malformed
// tools/call and tools/list, then a face per request that calls as the caller.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TextEmbedder, UsageStore } from '@parley/adol';
import { ParleyError } from '@parley/protocol';
import type { Logger, Metrics } from '@parley/runtime';
import type { ToolCatalog } from './catalog';
import { asCaller, type Access } from './http-access';
import { notAllowed, send } from './http-io';
import { createMcpFace, refuseMalformedMcp } from './mcp';
import { errorResponse, type Backends } from './rpc';
import type { SchemaStore } from './schema-store';

export interface McpRouteDeps {
  access: Access;
  backends: Backends;
  catalog: ToolCatalog;
  schemas: SchemaStore;
  log: Logger;
  version: string;
  embedder?: TextEmbedder;
  metrics?: Metrics;
  publicUrl?: string;
  /** Host names accepted besides loopback and publicUrl's host; `*` accepts any. */
  allowedHosts?: readonly string[];
  /** chang §3.4, selection that learns from use: the requests that led each principal to call a tool (mcp.ts Learning). */
  usage?: UsageStore;
}

/** An MCP method as a label: the ones an MCP client sends Parley, else `other`. */
function mcpMethodLabel(m: unknown): string {
  const known = ['initialize', 'ping', 'notifications/initialized', 'notifications/cancelled', 'tools/list', 'tools/call', 'prompts/list', 'resources/list', 'resources/templates/list', 'logging/setLevel', 'completion/complete'];
  return typeof m === 'string' && known.includes(m) ? m : typeof m === 'string' && m.startsWith('notifications/') ? 'notifications/other' : 'other';
}

/** The host name of a Host header (no user info, path or spaces), lower-case; undefined when it is not one. */
function hostnameOf(authority: string): string | undefined {
  if (!/^[^/@?#\s\\]+$/.test(authority) || !URL.canParse(`http://${authority}`)) return undefined;
  return new URL(`http://${authority}`).hostname.toLowerCase();
}

/**
 * DNS rebinding (MCP transport, Security warning: servers MUST validate Origin): /mcp answers only requests whose
 * Host, and Origin when sent, name loopback, PUBLIC_URL's host, a host of allowedHosts, or the address the
 * connection reached (an IP literal cannot be rebound). Returns the check: undefined when allowed, else the refusal (HTTP 403).
 */
export function mcpOriginCheck(publicUrl: string | undefined, allowedHosts: readonly string[] = []): (req: IncomingMessage) => ParleyError | undefined {
  const mcpHosts = new Set<string>(['localhost', '127.0.0.1', '[::1]', ...allowedHosts.map((h) => h.toLowerCase())]);
  if (publicUrl && URL.canParse(publicUrl)) mcpHosts.add(new URL(publicUrl).hostname.toLowerCase());
  const hostAllowed = (hostname: string, req: IncomingMessage): boolean => {
    if (mcpHosts.has('*') || mcpHosts.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
    const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
    return hostname === (local.includes(':') ? `[${local}]` : local);
  };
  return (req) => {
    const host = hostnameOf(req.headers.host ?? '');
    if (host === undefined || !hostAllowed(host, req)) {
      return new ParleyError('forbidden', `Host "${String(req.headers.host ?? '').slice(0, 100)}" is not one this MCP endpoint answers to (DNS rebinding protection): use a loopback address, PUBLIC_URL's host, or add it to PARLEY_ALLOWED_HOSTS`, {
        path: 'headers.host',
        rule: 'allowed_host',
      });
    }
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    const o = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!o || (o.protocol !== 'http:' && o.protocol !== 'https:') || !hostAllowed(o.hostname.toLowerCase(), req)) {
      return new ParleyError('forbidden', `Origin "${origin.slice(0, 100)}" may not call this MCP endpoint (DNS rebinding protection): allowed are loopback, PUBLIC_URL's host and PARLEY_ALLOWED_HOSTS`, {
        path: 'headers.origin',
        rule: 'allowed_origin',
      });
    }
    return undefined;
  };
}

export function createMcpRoute(deps: McpRouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { access, metrics } = deps;
  const originRefusal = mcpOriginCheck(deps.publicUrl, deps.allowedHosts);
  return async (req, res) => {
    const foreign = originRefusal(req);
    if (foreign) {
      access.refused('mcp', 'forbidden', performance.now());
      res.setHeader('connection', 'close');
      send(res, 403, errorResponse(null, foreign));
      return;
    }
    if (req.method !== 'POST') {
      // Stateless MCP (see mcp.ts): no standalone SSE stream (GET) and no session to end (DELETE).
      notAllowed(res, 'POST', 'This MCP endpoint is stateless: POST JSON-RPC messages; GET (SSE stream) and DELETE (session end) are not offered');
      return;
    }
    const principal = await access.authenticate(req, res, 'mcp');
    if (!principal) return;
    if (!access.admit(principal, res, 'mcp') || !access.charge(principal, res, 1, 'mcp')) return;
    // MCP's transport answers malformed JSON with HTTP 400 (the SDK does the same).
    const read = await access.readJson(req, res, 400, 'mcp');
    if (!read) return;
    // A JSON array of messages: its size is checked first, then every tools/call in it is charged (the first is paid for).
    if (Array.isArray(read.value)) {
      if (read.value.length > access.batchLimit) return access.batchTooLarge(res, read.value.length, 'mcp');
      const calls = read.value.filter((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call').length;
      if (calls > 1 && !access.charge(principal, res, calls - 1, 'mcp')) return;
    }
    // Malformed tools/call or tools/list, or a string the edge refuses: Parley's typed -32602 before the SDK parses it.
    const malformed = refuseMalformedMcp(read.value);
    if (malformed !== undefined) {
      access.refused('mcp', 'invalid_params', performance.now());
      send(res, 200, malformed);
      return;
    }
    // A face per request: its tools/call runs as the caller; the tool catalogue is shared.
    const mcp = createMcpFace({
      catalog: deps.catalog,
      execution: asCaller(deps.backends, req.headers.authorization as string).execution,
      log: deps.log,
      version: deps.version,
      schemas: deps.schemas,
      ...(deps.embedder ? { embedder: deps.embedder } : {}),
      ...(metrics ? { observe: (method: string, scenario: string | undefined, type: string | undefined, seconds: number) => metrics.request('mcp', method, scenario, type, seconds) } : {}),
      protocolVersion: typeof req.headers['mcp-protocol-version'] === 'string' ? req.headers['mcp-protocol-version'].slice(0, 32) : undefined,
      // The client whose selection learns is the authenticated principal, never a name the request gives.
      // Implicit attribution stays within the MCP session the client names (Mcp-Session-Id); without one, none.
      ...(deps.usage ? { learning: { usage: deps.usage, client: principal.id, session: typeof req.headers['mcp-session-id'] === 'string' ? req.headers['mcp-session-id'] : undefined } } : {}),
    });
    // tools/list and tools/call are observed in mcp.ts (spans and metrics); what the SDK answers itself here.
    const started = performance.now();
    await mcp.handlePost(req, res, read.value);
    if (!metrics) return;
    for (const msg of Array.isArray(read.value) ? read.value : [read.value]) {
      const method = typeof msg === 'object' && msg !== null ? (msg as { method?: unknown }).method : undefined;
      if (method === 'tools/list' || method === 'tools/call') continue;
      metrics.request('mcp', mcpMethodLabel(method), undefined, undefined, (performance.now() - started) / 1000);
    }
  };
}
