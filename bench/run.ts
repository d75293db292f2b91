// `npm run bench`: Parley's figures from one run on this machine.
//  (a) flight_booking_v1 payload validations per second through libs/protocol
//      (validate + defaults) and through raw Ajv on the same JSON Schema;
//  (b) execute round trips per second and p50/p99 latency through
//      gateway -> execution -> NATS -> example agent -> back, at concurrency 1
//      and 64, beside a bare NATS request/reply measured in the same run.
// Needs PostgreSQL and NATS JetStream (DATABASE_URL / NATS_URL, default the local ones).
// The last line is one JSON object with the figures.
import { Agent as HttpAgent, request } from 'node:http';
import { connect } from '@nats-io/transport-node';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { SCENARIOS } from '@parley/examples';
import { compilePayloadValidator, payloadJsonSchema } from '@parley/protocol';
import { createTestDatabase, freePort, startProcess, testIdentity, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import { SECONDS, load, type LoadResult } from './load';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => void;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const log = (s: string) => process.stdout.write(s + '\n');

const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };

function validationBench(): { validate_per_s: number; ajv_per_s: number } {
  const flight = SCENARIOS.find((s) => s.template.schema_id === 'flight_booking_v1');
  if (!flight) throw new Error('flight_booking_v1 not seeded');
  const parley = compilePayloadValidator(flight.template);
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  const raw = ajv.compile(payloadJsonSchema(flight.template));
  const payloads = [FIGURE_8, { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' }];
  const time = (fn: (p: object) => unknown) => {
    let n = 0;
    const until = performance.now() + SECONDS * 1000;
    while (performance.now() < until) {
      for (let i = 0; i < 1000; i++) fn(payloads[i & 1]!);
      n += 1000;
    }
    return n / SECONDS;
  };
  // Warm both, then alternate rounds so neither gets a cooler machine.
  time((p) => parley.validate(p));
  time((p) => raw(p));
  const a = [time((p) => parley.validate(p)), time((p) => parley.validate(p))];
  const b = [time((p) => raw(p)), time((p) => raw(p))];
  return { validate_per_s: Math.round(Math.max(...a)), ajv_per_s: Math.round(Math.max(...b)) };
}


async function main(): Promise<void> {
  log(`Parley benchmark — node ${process.version}, ${SECONDS}s per measurement`);
  log('\n(a) flight_booking_v1 payload validation');
  const v = validationBench();
  log(`  libs/protocol validate(): ${v.validate_per_s.toLocaleString()} /s`);
  log(`  raw Ajv, same schema:     ${v.ajv_per_s.toLocaleString()} /s   (ratio ${(v.validate_per_s / v.ajv_per_s).toFixed(2)})`);

  const db = await createTestDatabase(DATABASE_URL);
  const prefix = uniquePrefix();
  const procs: ServiceProcess[] = [];
  // Identity (issue 6): one service token and bootstrapped operator key for every process; the load
  // generator calls as that operator (the example agent registers with it too, PARLEY_API_KEY).
  const identity = testIdentity();
  try {
    const [rg, ng, eg, rh, nh, eh, gw, ah] = await Promise.all(Array.from({ length: 8 }, freePort));
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'warn' };
    const start = async (name: string, entry: string, env: Record<string, string>, ready: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(ready, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
    await start('negotiation', 'apps/negotiation/src/main.ts', { GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${nh}/readyz`);
    // REGISTRY_ADDR: execution checks the API keys the gateway forwards at the registry.
    await start('execution', 'apps/execution/src/main.ts', { GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${eh}/readyz`);
    const gateway = `http://127.0.0.1:${gw}`;
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      // One principal drives all the load: the per-principal rate limit (50/s by default) is off, as it was before issue 6.
      { PORT: `${gw}`, REGISTRY_ADDR: `127.0.0.1:${rg}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, EXECUTION_ADDR: `127.0.0.1:${eg}`, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' },
      `${gateway}/readyz`,
    );
    await start('agent', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gateway, HEALTH_PORT: `${ah}` }, `http://127.0.0.1:${ah}/healthz`);
    const responder = startProcess('responder', 'bench/responder.ts', { NATS_URL, BENCH_SUBJECT: `${prefix}.bench.rr` });
    procs.push(responder);

    const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 } });
    const execute = () =>
      new Promise<boolean>((resolve, reject) => {
        const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${identity.operatorKey}` };
        const req = request(`${gateway}/rpc`, { method: 'POST', agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(res.statusCode === 200 && !Buffer.concat(chunks).includes('"error"')));
        });
        req.on('error', reject);
        req.end(body);
      });
    // Wait until the agent has registered and published.
    for (let i = 0; i < 100 && !(await execute().catch(() => false)); i++) await new Promise((r) => setTimeout(r, 200));

    const nc = await connect({ servers: NATS_URL, name: 'bench-client' });
    const rrBody = new TextEncoder().encode(JSON.stringify({ execution_id: 'x', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench', payload: FIGURE_8 }));
    const rr = () => nc.request(`${prefix}.bench.rr`, rrBody, { timeout: 5000 }).then(() => true);
    for (let i = 0; i < 50 && !(await rr().catch(() => false)); i++) await new Promise((r) => setTimeout(r, 100));

    log('\n(b) round trips (services as separate processes on NATS + PostgreSQL)');
    const results: Record<string, LoadResult> = {};
    for (const c of [1, 64]) {
      results[`nats_c${c}`] = await load(c, rr);
      results[`execute_c${c}`] = await load(c, execute);
      for (const k of [`nats_c${c}`, `execute_c${c}`]) {
        const r = results[k]!;
        log(`  ${k.padEnd(11)} ${String(r.rps).padStart(7)} rps   p50 ${r.p50_ms} ms   p99 ${r.p99_ms} ms   errors ${r.errors}`);
      }
    }
    const executed = await (async () => {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      const n = (await c.query('SELECT count(*)::int AS n FROM execution.executions')).rows[0].n as number;
      await c.end();
      return n;
    })();
    log(`  executions recorded in PostgreSQL: ${executed.toLocaleString()}`);
    const e64 = results.execute_c64!;
    const n64 = results.nats_c64!;
    log(`  execute/NATS ratio at c64: ${(e64.rps / n64.rps).toFixed(2)}`);

    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => {});
    await nc.close();
    agent.destroy();

    const figures = {
      validate_per_s: v.validate_per_s,
      ajv_per_s: v.ajv_per_s,
      validate_ratio: Number((v.validate_per_s / v.ajv_per_s).toFixed(3)),
      execute_rps_c1: results.execute_c1!.rps,
      execute_p50_ms_c1: results.execute_c1!.p50_ms,
      execute_p99_ms_c1: results.execute_c1!.p99_ms,
      execute_rps_c64: e64.rps,
      execute_p50_ms_c64: e64.p50_ms,
      execute_p99_ms_c64: e64.p99_ms,
      nats_rr_rps_c1: results.nats_c1!.rps,
      nats_rr_rps_c64: n64.rps,
      nats_rr_p99_ms_c64: n64.p99_ms,
      execute_to_nats_ratio_c64: Number((e64.rps / n64.rps).toFixed(3)),
      errors: Object.values(results).reduce((s, r) => s + r.errors, 0),
    };
    log(JSON.stringify(figures));
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
