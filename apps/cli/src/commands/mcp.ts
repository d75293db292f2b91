/**
 * `parley mcp [--url http://localhost:8080] [--key KEY]`: Parley's MCP face over stdio,
 * for hosts that launch MCP servers as child processes (desktop assistants,
 * IDEs). It bridges to the gateway's streamable-HTTP endpoint with the official
 * SDK: an MCP server on stdin/stdout whose tools/list and tools/call are
 * forwarded unchanged to an MCP client of `/mcp`, params included, so the
 * ADOL options in `params._meta` (draft-chang §3: short, query, top_k, cut and its
 * rule min_k/cut_drop/cut_ratio/cut_gap, tags, refs, requireOutput) reach the gateway as sent, and results and errors (tool
 * errors and protocol errors alike) come back as the gateway produced them.
 *
 * The gateway is --url, else PARLEY_MCP_URL, else PARLEY_URL (as for every other
 * command), else http://127.0.0.1:8080; a URL without a path means its `/mcp`.
 * Every request to the gateway carries the caller's API key (draft-zhou §7): --key,
 * default env PARLEY_API_KEY (prefer the env: arguments show in `ps`).
 *
 * stdout carries MCP messages only; diagnostics go to stderr. The command ends
 * (exit 0) when stdin closes or on SIGINT/SIGTERM; exit 1 when the gateway
 * cannot be reached at start, 2 on a usage error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema, ListToolsResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { cliVersion } from '../version';
import { DEFAULT_URL as DEFAULT_GATEWAY } from './rpc-client';

const USAGE = `usage: parley mcp [--url URL] [--key KEY]

Serves Parley's MCP tools over stdio, forwarding to the gateway's streamable-HTTP
endpoint.

  --url URL   the gateway (http://host:port, meaning its /mcp) or its MCP endpoint
              (default env PARLEY_MCP_URL, else PARLEY_URL as for every command, else ${DEFAULT_GATEWAY})
  --key KEY   your API key (pk_…) or JWT, sent as Authorization: Bearer (default env
              PARLEY_API_KEY; prefer the env: command-line arguments show in \`ps\`)

exit codes: 0 stdin closed or a signal, 1 the gateway cannot be reached at start, 2 usage error
`;

/** An error the stdio server sends as is: the upstream's code, message and data. */
class ForwardedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
  }
}

/** Longest HTTP error body read back into a JSON-RPC error (characters). */
const MAX_ERROR_BODY = 64 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON-RPC error the gateway answered with an HTTP error status (413 body_too_large, 401, 429, ...): the SDK's
 * transport raises it as a StreamableHTTPError whose `code` is the HTTP status and whose message ends with the
 * response body. That body is Parley's JSON-RPC error response; undefined when it is not one.
 */
function jsonRpcErrorOf(e: StreamableHTTPError): { code: number; message: string; data?: unknown } | undefined {
  const at = e.message.indexOf('{');
  // Parley's error bodies are small: a larger one is not parsed (bounded work on whatever the upstream sent).
  if (at < 0 || e.message.length - at > MAX_ERROR_BODY) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(e.message.slice(at));
  } catch {
    return undefined;
  }
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') return undefined;
  return { code: error.code as number, message: error.message, ...('data' in error ? { data: error.data } : {}) };
}

/**
 * Re-raises an upstream failure with its own code, message and data, as the HTTP face answered it: an McpError
 * (which prefixes "MCP error <code>: "), or an HTTP error status whose body is a JSON-RPC error.
 */
export function forwarded(e: unknown): Error {
  if (e instanceof McpError) return new ForwardedError(e.code, e.message.replace(/^MCP error -?\d+: /, ''), e.data);
  if (e instanceof StreamableHTTPError) {
    const rpc = jsonRpcErrorOf(e);
    if (rpc) return new ForwardedError(rpc.code, rpc.message, rpc.data);
  }
  return e instanceof Error ? e : new Error(String(e));
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): { url: string; apiKey?: string } | { help: true } | { error: string } {
  let url = env.PARLEY_MCP_URL || env.PARLEY_URL || DEFAULT_GATEWAY;
  let apiKey = env.PARLEY_API_KEY?.trim() || undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-h' || a === '--help') return { help: true };
    if (a === '--url') {
      const v = argv[++i];
      if (!v) return { error: '--url needs a value' };
      url = v;
    } else if (a.startsWith('--url=')) url = a.slice('--url='.length);
    else if (a === '--key') {
      const v = argv[++i];
      if (!v) return { error: '--key needs a value' };
      apiKey = v;
    } else if (a.startsWith('--key=')) {
      apiKey = a.slice('--key='.length);
      if (!apiKey) return { error: '--key needs a value' };
    } else return { error: `unknown argument ${JSON.stringify(a)}` };
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { error: `--url is not a URL: ${url}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `--url must be an http(s) URL, got ${url}` };
  // The gateway's base URL (what PARLEY_URL and every other command's --url name) means its MCP endpoint.
  if (u.pathname === '/' && !u.search) url = `${u.origin}/mcp`;
  return { url, ...(apiKey ? { apiKey } : {}) };
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if ('help' in args) {
    process.stdout.write(USAGE);
    return 0;
  }
  if ('error' in args) {
    process.stderr.write(`parley mcp: ${args.error}\n${USAGE}`);
    return 2;
  }

  const upstream = new Client({ name: 'parley-mcp-stdio-bridge', version: cliVersion() });
  try {
    const headers = args.apiKey ? { authorization: `Bearer ${args.apiKey}` } : undefined;
    await upstream.connect(new StreamableHTTPClientTransport(new URL(args.url), headers ? { requestInit: { headers } } : undefined));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (/"unauthenticated"|\b401\b|unauthorized/i.test(message)) {
      process.stderr.write(`parley mcp: the gateway's MCP endpoint at ${args.url} refused the connection: unauthenticated: ${message}\n`);
      process.stderr.write('  hint: pass an API key with --key or the env PARLEY_API_KEY (`npm start` prints the development key)\n');
    } else {
      process.stderr.write(`parley mcp: cannot reach the gateway's MCP endpoint at ${args.url}: ${message}\n`);
    }
    return 1;
  }

  const server = new McpServer(
    { name: 'parley', title: 'Parley', version: upstream.getServerVersion()?.version ?? cliVersion() },
    { capabilities: { tools: { listChanged: false } }, ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() as string } : {}) },
  );
  // Forwarded with the request's params untouched: `_meta` survives the SDK's
  // request parsing (its schema is loose), and with it the ADOL options.
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    try {
      return await upstream.request({ method: 'tools/list', params: request.params ?? {} }, ListToolsResultSchema, { signal: extra.signal });
    } catch (e) {
      throw forwarded(e);
    }
  });
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      // `request`, not `callTool`: the bridge relays results as they are and leaves
      // outputSchema validation to the client at the other end.
      return await upstream.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, { signal: extra.signal });
    } catch (e) {
      throw forwarded(e);
    }
  });

  const done = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`parley mcp: serving stdio, forwarding to ${args.url}\n`);
  await done;
  await server.close().catch(() => {});
  await upstream.close().catch(() => {});
  return 0;
}
