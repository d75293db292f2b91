// The peer a user would build instead of Parley: the official MCP TypeScript SDK serving the
// example agent's bookFlight as one tool over stateless streamable HTTP (a fresh server and
// transport per request, JSON responses), input checked by the SDK against a zod shape of the
// flight_booking_v1 fields. `npm run bench` starts it as its own process (PORT).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { bookFlight } from '@parley/examples';
import type { JsonObject } from '@parley/protocol';

const place = z.string().min(1);
const input = {
  origin: place,
  destination: place,
  departure_date: z.iso.date(),
  return_date: z.iso.date().optional(),
  cabin_class: z.enum(['economy', 'premium_economy', 'business', 'first']).default('economy'),
  passenger_count: z.number().int().min(1).max(9).default(1),
  other: z.string().optional(),
};

function mcpServer(): McpServer {
  const s = new McpServer({ name: 'flight-booking-peer', version: '1.0.0' });
  s.registerTool('bookFlight', { description: 'Book a flight (draft-zhou §5.1 example agent).', inputSchema: input }, async (args) => {
    const result = bookFlight(args as unknown as JsonObject, { execution_id: randomUUID(), now: new Date() });
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
  });
  return s;
}

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"ok":true}');
  }
  if (req.method !== 'POST' || req.url !== '/mcp') {
    res.writeHead(404);
    return res.end();
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const s = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void s.close();
      });
      await s.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(e) } }));
    }
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`mcp peer listening on ${typeof a === 'object' && a ? a.port : a}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
