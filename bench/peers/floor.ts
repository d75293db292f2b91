// The floor of "validate and run the agent over HTTP": a bare node:http JSON-RPC server that
// validates the flight_booking_v1 payload with raw Ajv (the same JSON Schema Parley's template
// gives) and runs the example agent's bookFlight. No persistence, no events, no auth: what any
// server must at least do per call. `npm run bench` starts it as its own process (PORT).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { SCENARIOS, bookFlight } from '@parley/examples';
import { payloadJsonSchema, type JsonObject } from '@parley/protocol';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => void;
const flight = SCENARIOS.find((s) => s.template.schema_id === 'flight_booking_v1');
if (!flight) throw new Error('flight_booking_v1 not seeded');
const ajv = new Ajv2020({ strict: false, useDefaults: true });
addFormats(ajv);
const validate = ajv.compile(payloadJsonSchema(flight.template));

const reply = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = createServer((req, res) => {
  if (req.url === '/healthz') return reply(res, 200, { ok: true });
  if (req.method !== 'POST' || req.url !== '/rpc') return reply(res, 404, { error: 'not found' });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let msg: { id?: unknown; method?: unknown; params?: { payload?: unknown } };
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    }
    if (msg.method !== 'execute') return reply(res, 200, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32601, message: 'method not found' } });
    const payload = msg.params?.payload;
    if (!validate(payload)) return reply(res, 200, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32602, message: 'invalid payload', data: validate.errors } });
    const execution_id = randomUUID();
    const result = bookFlight(payload as JsonObject, { execution_id, now: new Date() });
    reply(res, 200, { jsonrpc: '2.0', id: msg.id ?? null, result: { execution_id, status: 'completed', result } });
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`floor listening on ${typeof a === 'object' && a ? a.port : a}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
