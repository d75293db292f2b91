/**
 * `parley mcp` (stdio bridge): an error the gateway's HTTP face answers with an HTTP error status reaches the stdio
 * client as the same JSON-RPC error (code, message, data), not as the HTTP status with no data.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { forwarded } from '../src/commands/mcp';

/** What the SDK's transport raises for a non-2xx answer: the HTTP status, and the body in the message. */
const httpError = (status: number, body: string): StreamableHTTPError => new StreamableHTTPError(status, `Error POSTing to endpoint: ${body}`);

const fields = (e: Error): { code: unknown; message: string; data: unknown } => ({ code: (e as { code?: unknown }).code, message: e.message, data: (e as { data?: unknown }).data });

describe('parley mcp: upstream errors forwarded as the HTTP face answered them', () => {
  it('a body over the limit (HTTP 413) is the JSON-RPC -32600 body_too_large with its data', () => {
    const data = { type: 'body_too_large', path: 'body', rule: 'max_bytes', details: { max_bytes: 1048576 } };
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body exceeds 1048576 bytes', data } });
    expect(fields(forwarded(httpError(413, body)))).toEqual({ code: -32600, message: 'Request body exceeds 1048576 bytes', data });
  });

  it('an error without data keeps none; an McpError keeps its code, message and data', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'unauthenticated' } });
    expect(fields(forwarded(httpError(401, body)))).toEqual({ code: -32001, message: 'unauthenticated', data: undefined });
    const mcp = new McpError(ErrorCode.InvalidParams, 'bad names', { rule: 'unknown_tool' });
    expect(fields(forwarded(mcp))).toEqual({ code: ErrorCode.InvalidParams, message: 'bad names', data: { rule: 'unknown_tool' } });
  });

  it('a body that is not a JSON-RPC error, or over 64 KiB, is left as the transport raised it', () => {
    for (const body of [JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'x'.repeat(70_000) } }), '<html>bad gateway</html>', '{"jsonrpc":"2.0","error":"x"}', '{"error":{"code":"-1","message":"m"}}', '{broken']) {
      const e = httpError(502, body);
      expect(forwarded(e)).toBe(e);
    }
  });
});
