// The far end of one hop for `npm run bench:budget` (bench/cpu-budget.ts), as its own process, so its CPU is
// counted apart from the client's. HOP selects it:
//   http    a node:http server that parses the JSON body and answers an execute-sized JSON-RPC result (PORT);
//   grpc    ExecutionService over grpc-js through libs/contracts (startGrpcServer, bindService: authentication,
//           roles, edge checks, span), answering an ExecuteResponse of the execute's size (PORT);
//   grpc-raw the same service definition and response on a bare grpc-js Server (no binding: no authentication,
//           roles, edge checks or span): what the transport alone costs (PORT);
//   nats    a server agent's side of the dispatch through libs/events (bus.serve in the agent's queue group,
//           the dispatch decoded and the reply encoded as libs/agent-sdk does) (NATS_URL, BENCH_PREFIX);
//   consume a durable JetStream consumer through libs/events as the services' consumers run on NATS
//           (consumeIdempotently calls bus.consumeBatch with the durable and its filter, maxBatch and retry delay
//           at their defaults), with an empty handler, acking every batch (NATS_URL, BENCH_PREFIX, BENCH_DURABLE);
//           prints `batches N events M` (handler calls, events handed over) every 250 ms.
// Prints `ready` (and, for grpc, the API key to call with) when it serves.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ExecutionServiceService, bindService, startGrpcServer, type ExecuteResponse } from '@parley/contracts';
import { EventType, createNatsBus, createSubjects } from '@parley/events';
import { SCENARIOS, bookFlight } from '@parley/examples';
import { decodeDispatchRequest, encodeDispatch, type JsonObject } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { keyedAuthenticator } from '@parley/testkit';

const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const RESULT = bookFlight(FIGURE_8 as JsonObject, { execution_id: '7f1c7a52-1f0b-4b43-9d0c-6d5f1d1f2a11', now: new Date('2026-05-01T00:00:00Z') }) as JsonObject;
const HOP = process.env['HOP'] ?? '';
const PORT = Number(process.env['PORT'] ?? 0);
const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const log = createLogger({ level: 'warn', base: { service: `budget-${HOP}` } });
const say = (s: string) => process.stdout.write(s + '\n');
let stop: () => Promise<void> = async () => {};
const grpcResponse = (): ExecuteResponse => ({ result: RESULT, execution_id: '7f1c7a52-1f0b-4b43-9d0c-6d5f1d1f2a11', agent: 'flight-agent', scenario_id: 'flight_booking', defaults_applied: [], warnings: [], replayed: false });

async function main(): Promise<void> {
  if (!SCENARIOS.some((s) => s.template.schema_id === 'flight_booking_v1')) throw new Error('flight_booking_v1 not seeded');
  if (HOP === 'http') {
    const answer = { execution_id: '7f1c7a52-1f0b-4b43-9d0c-6d5f1d1f2a11', agent: 'flight-agent', scenario_id: 'flight_booking', defaults_applied: [], warnings: [], result: RESULT };
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown };
        const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result: answer });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
    await new Promise<void>((r) => server.listen(PORT, '127.0.0.1', r));
    stop = () => new Promise((r) => server.close(() => r()));
    say('ready');
  } else if (HOP === 'grpc') {
    const { authenticator, keys } = keyedAuthenticator(process.env['PARLEY_SERVICE_TOKEN'] ?? randomBytes(24).toString('hex'), [{ id: 'bench', roles: ['client_agent'] }]);
    const response = grpcResponse();
    const binding = bindService(ExecutionServiceService, { execute: async () => response }, { authenticator });
    const server = await startGrpcServer({ host: '127.0.0.1', port: PORT, services: [binding] });
    stop = () => server.stop(1000);
    say(`ready ${keys['bench']}`);
  } else if (HOP === 'grpc-raw') {
    const server = new Server();
    server.addService(ExecutionServiceService, { execute: (_call: unknown, cb: (e: null, r: ExecuteResponse) => void) => cb(null, grpcResponse()) });
    await new Promise<void>((resolve, reject) => server.bindAsync(`127.0.0.1:${PORT}`, ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
    stop = () => new Promise((r) => server.tryShutdown(() => r()));
    say('ready');
  } else if (HOP === 'nats' || HOP === 'consume') {
    const subjects = createSubjects(process.env['BENCH_PREFIX'] ?? 'budget');
    const bus = await createNatsBus({ servers: NATS_URL, subjects, name: `budget-${HOP}` });
    if (HOP === 'nats') {
      const reply = encodeDispatch({ ok: true, result: RESULT });
      const s = await bus.serve(subjects.execute('flight_booking', 'flight-agent'), 'flight-agent', async (body) => {
        decodeDispatchRequest(body);
        return reply;
      });
      stop = async () => {
        await s.stop();
        await bus.close();
      };
    } else {
      let [batches, events] = [0, 0];
      if (!bus.consumeBatch) throw new Error('the NATS bus has no consumeBatch');
      const s = await bus.consumeBatch({ durable: process.env['BENCH_DURABLE'] ?? 'budget-usage', filterSubjects: [subjects.eventAllScenarios(EventType.PayloadExecuted)] }, async (evs) => {
        batches++;
        events += evs.length;
      });
      const tick = setInterval(() => say(`batches ${batches} events ${events}`), 250);
      stop = async () => {
        clearInterval(tick);
        await s.stop();
        await bus.close();
      };
    }
    say('ready');
  } else {
    throw new Error(`HOP must be http, grpc, grpc-raw, nats or consume, got "${HOP}"`);
  }
}

process.on('SIGTERM', () => void stop().then(() => process.exit(0), () => process.exit(1)));
main().catch((e: unknown) => {
  log.error('budget hop failed', { error: e });
  console.error(e);
  process.exit(1);
});
