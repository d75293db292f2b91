// `npm run bench`: Parley's execute path beside its peers, from one run on this machine.
//  (a) flight_booking_v1 payload validations per second through libs/protocol
//      (validate + defaults) and through raw Ajv on the same JSON Schema;
//  (b) the floor: a bare node:http JSON-RPC server validating with Ajv and running the
//      example agent's bookFlight (bench/peers/floor.ts);
//  (c) the peer a user would build instead: the official MCP TypeScript SDK, stateless
//      streamable HTTP, the same function (bench/peers/mcp-peer.ts);
//  (d) Parley as separate services (gateway -> execution -> NATS -> example agent -> back,
//      registry and negotiation beside) on PostgreSQL + NATS, beside a bare NATS request/reply;
//  (e) Parley in one process (`npm start`'s entry) on PostgreSQL + NATS;
//  (f) `npm start` on its defaults (PGlite, the in-process bus).
// Each at concurrency 1 and 64, closed loop (bench/load.ts), with the CPU time every process of
// the system under test spent per call (user + system, from /proc; PostgreSQL's and
// nats-server's own processes counted apart, machine-wide, as "with_services").
// BENCH_PROFILE=DIR writes a --cpu-prof profile of every Parley process into DIR; BENCH_ONLY=validate runs (a) alone.
// Needs PostgreSQL and NATS JetStream (DATABASE_URL / NATS_URL, default the local ones).
// The last line is one JSON object with the figures.
import { join } from 'node:path';
import { Agent as HttpAgent, request } from 'node:http';
import { connect } from '@nats-io/transport-node';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { SCENARIOS } from '@parley/examples';
import { addPayloadFormats, compilePayloadValidator, payloadJsonSchema } from '@parley/protocol';
import { createTestDatabase, freePort, startProcess, testIdentity, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { jetstreamManager } from '@nats-io/jetstream';
import { SECONDS, load, type LoadResult } from './load';
import { cpuSeconds, pidsByName } from './proc';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv2020) => void;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const log = (s: string) => process.stdout.write(s + '\n');

const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };

/**
 * Payload validations per second through libs/protocol, through raw Ajv (ajv-formats) and through Ajv with
 * the formats Parley's validator uses (`addPayloadFormats`: `date` by a scan), in short rounds taken in turn
 * (200 ms each, SECONDS per validator, the order rotating), so a neighbour's burst falls on all three; the
 * rates are the medians of the rounds and each ratio the median of the rounds' ratios. The second ratio is
 * what Parley's validate costs beyond Ajv itself (the copy, defaults, metadata, `other`).
 */
function validationBench(): { validate_per_s: number; ajv_per_s: number; validate_ratio: number; ajv_same_formats_per_s: number; validate_ratio_same_formats: number } {
  const flight = SCENARIOS.find((s) => s.template.schema_id === 'flight_booking_v1');
  if (!flight) throw new Error('flight_booking_v1 not seeded');
  const parley = compilePayloadValidator(flight.template);
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  const raw = ajv.compile(payloadJsonSchema(flight.template));
  const ajvSame = new Ajv2020({ strict: false, allErrors: false });
  addPayloadFormats(ajvSame);
  const same = ajvSame.compile(payloadJsonSchema(flight.template));
  const payloads = [FIGURE_8, { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' }];
  const ROUND_MS = 200;
  const time = (fn: (p: object) => unknown) => {
    let n = 0;
    const t0 = performance.now();
    const until = t0 + ROUND_MS;
    let t = t0;
    while (t < until) {
      for (let i = 0; i < 1000; i++) fn(payloads[i & 1]!);
      n += 1000;
      t = performance.now();
    }
    return (n * 1000) / (t - t0);
  };
  const fns = [(p: object) => parley.validate(p), (p: object) => raw(p), (p: object) => same(p)];
  for (let i = 0; i < 5; i++) for (const f of fns) time(f);
  const rates: number[][] = [[], [], []];
  const rounds = Math.max(5, Math.round((SECONDS * 1000) / ROUND_MS));
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < 3; k++) {
      const j = (i + k) % 3;
      rates[j]!.push(time(fns[j]!));
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  const [a, b, c] = rates as [number[], number[], number[]];
  return {
    validate_per_s: Math.round(median(a)),
    ajv_per_s: Math.round(median(b)),
    validate_ratio: round2(median(a.map((x, i) => x / b[i]!))),
    ajv_same_formats_per_s: Math.round(median(c)),
    validate_ratio_same_formats: round2(median(a.map((x, i) => x / c[i]!))),
  };
}


/** The PIDs of the machine's PostgreSQL and nats-server processes (shared with anything else running). */
const servicePids = (): number[] => pidsByName((comm) => comm === 'postgres' || comm.startsWith('nats-server'));

interface Measured extends LoadResult {
  /** CPU milliseconds per successful call over the system under test's own processes. */
  cpu_ms: number;
  /** The same plus PostgreSQL's and nats-server's processes (machine-wide). */
  cpu_ms_with_services: number;
}

/** One closed-loop load at `concurrency`, with the CPU the given processes spent on it. */
async function measure(concurrency: number, once: () => Promise<boolean>, procs: ServiceProcess[]): Promise<Measured> {
  const own = () => procs.reduce((s, p) => s + cpuSeconds(p.child.pid), 0);
  const svc = servicePids();
  const services = () => svc.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const [o0, s0] = [own(), services()];
  const r = await load(concurrency, once);
  const [o1, s1] = [own(), services()];
  // load() warms up for one second before it counts: the calls of the warm-up cost CPU too, so
  // divide by every call made over the whole span (rps covers the measured seconds only).
  const calls = Math.max(1, Math.round(r.rps * (SECONDS + 1)));
  return { ...r, cpu_ms: round2(((o1 - o0) * 1000) / calls), cpu_ms_with_services: round2(((o1 - o0 + s1 - s0) * 1000) / calls) };
}

const round2 = (x: number) => Number(x.toFixed(2));

/**
 * CPU milliseconds per second the processes spend with no calls at all (timers, polls, scrapes), after
 * `settleMs` at rest: the first seconds after start-up still carry its tail (JIT, the first execute's
 * events through relays and consumers; `npm start` spent 90, 27 and 20 ms/s in three 3 s spans in a row).
 */
async function idleCpu(procs: ServiceProcess[], seconds = 3, settleMs = 5000): Promise<number> {
  const own = () => procs.reduce((s, p) => s + cpuSeconds(p.child.pid), 0);
  await new Promise((r) => setTimeout(r, settleMs));
  const t0 = own();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return round2(((own() - t0) * 1000) / seconds);
}

/** POST a JSON body to a URL, keep-alive; true when the answer is 200 without an error member. */
function poster(url: string, body: string, headers: Record<string, string>): () => Promise<boolean> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
  const all = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers };
  return () =>
    new Promise<boolean>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers: all }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks);
          resolve(res.statusCode === 200 && !text.includes('"error"') && !text.includes('"isError":true'));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}

async function until(ok: () => Promise<boolean>, what: string, tries = 150): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} never answered a call successfully`);
}

const EXECUTE = (clientId: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: clientId, payload: FIGURE_8 } });
// One directory per process: tsx's loader thread writes a profile of its own beside the main thread's.
const profileArgs = (name: string): string[] => (process.env['BENCH_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env['BENCH_PROFILE'], name)}`] : []);

function report(name: string, r: Measured): void {
  log(`  ${name.padEnd(22)} ${String(r.rps).padStart(7)} rps   p50 ${String(r.p50_ms).padStart(6)} ms   p99 ${String(r.p99_ms).padStart(7)} ms   CPU ${String(r.cpu_ms).padStart(6)} ms/call (${r.cpu_ms_with_services} with PG+NATS)   errors ${r.errors}`);
}

/** c1 and c64 against one system under test. */
async function both(name: string, once: () => Promise<boolean>, procs: ServiceProcess[]): Promise<{ c1: Measured; c64: Measured }> {
  const c1 = await measure(1, once, procs);
  report(`${name} c1`, c1);
  const c64 = await measure(64, once, procs);
  report(`${name} c64`, c64);
  return { c1, c64 };
}

async function stopAll(procs: ServiceProcess[]): Promise<void> {
  for (const p of [...procs].reverse()) await p.stop();
  procs.length = 0;
}

async function peers(): Promise<{ floor: { c1: Measured; c64: Measured }; mcp: { c1: Measured; c64: Measured } }> {
  const procs: ServiceProcess[] = [];
  try {
    const [fp, mp] = await Promise.all([freePort(), freePort()]);
    const floorProc = startProcess('floor', 'bench/peers/floor.ts', { PORT: `${fp}` });
    const mcpProc = startProcess('mcp-peer', 'bench/peers/mcp-peer.ts', { PORT: `${mp}` });
    procs.push(floorProc, mcpProc);
    const floorCall = poster(`http://127.0.0.1:${fp}/rpc`, EXECUTE('bench'), {});
    const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bookFlight', arguments: FIGURE_8 } });
    const mcpCall = poster(`http://127.0.0.1:${mp}/mcp`, mcpBody, { accept: 'application/json, text/event-stream' });
    await until(floorCall, 'the floor server');
    await until(mcpCall, 'the MCP SDK peer');
    log('\n(b) the floor: node:http + Ajv + bookFlight');
    const floor = await both('floor', floorCall, [floorProc]);
    log('\n(c) the MCP TypeScript SDK, stateless streamable HTTP, same function');
    const mcp = await both('mcp peer', mcpCall, [mcpProc]);
    return { floor, mcp };
  } finally {
    await stopAll(procs);
  }
}

async function separateServices(): Promise<{ exec: { c1: Measured; c64: Measured }; nats: { c1: Measured; c64: Measured }; executed: number; idle: number }> {
  const db = await createTestDatabase(DATABASE_URL);
  const prefix = uniquePrefix();
  const procs: ServiceProcess[] = [];
  // One service token and bootstrapped operator key for every process; the load generator calls as
  // that operator (the example agent registers with it too, PARLEY_API_KEY).
  const identity = testIdentity();
  try {
    const [rg, ng, eg, rh, nh, eh, gw, ah] = await Promise.all(Array.from({ length: 8 }, freePort));
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'warn' };
    const start = async (name: string, entry: string, env: Record<string, string>, ready: string) => {
      const p = startProcess(name, entry, { ...common, ...env }, profileArgs(name));
      procs.push(p);
      await waitReady(ready, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
    await start('negotiation', 'apps/negotiation/src/main.ts', { GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${nh}/readyz`);
    // REGISTRY_ADDR: execution checks the API keys the gateway forwards at the registry.
    await start('execution', 'apps/execution/src/main.ts', { GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${eh}/readyz`);
    const gateway = `http://127.0.0.1:${gw}`;
    // One principal drives all the load: the per-principal rate limit and in-flight bound are off.
    await start('gateway', 'apps/gateway/src/main.ts', { PORT: `${gw}`, REGISTRY_ADDR: `127.0.0.1:${rg}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, EXECUTION_ADDR: `127.0.0.1:${eg}`, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' }, `${gateway}/readyz`);
    await start('agent', 'apps/example-agents/src/main.ts', { SCENARIO: 'flight_booking', GATEWAY_URL: gateway, HEALTH_PORT: `${ah}` }, `http://127.0.0.1:${ah}/healthz`);
    const responder = startProcess('responder', 'bench/responder.ts', { NATS_URL, BENCH_SUBJECT: `${prefix}.bench.rr` });
    const execute = poster(`${gateway}/rpc`, EXECUTE('bench'), { authorization: `Bearer ${identity.operatorKey}` });
    // Wait until the agent has registered and published.
    await until(execute, 'Parley (separate services)');

    const nc = await connect({ servers: NATS_URL, name: 'bench-client' });
    const rrBody = new TextEncoder().encode(JSON.stringify({ execution_id: 'x', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench', payload: FIGURE_8 }));
    const rr = () => nc.request(`${prefix}.bench.rr`, rrBody, { timeout: 5000 }).then(() => true);
    await until(rr, 'the bare NATS responder');

    log('\n(d) Parley as separate services on PostgreSQL + NATS, beside a bare NATS request/reply');
    const idle = await idleCpu(procs);
    log(`  idle: ${idle} ms of CPU per second over the five processes with no calls`);
    const nats = await both('nats request/reply', rr, [responder]);
    const exec = await both('execute', execute, [...procs]);
    procs.push(responder);
    const executed = await (async () => {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      const n = (await c.query('SELECT count(*)::int AS n FROM execution.executions')).rows[0].n as number;
      await c.end();
      return n;
    })();
    log(`  executions recorded in PostgreSQL: ${executed.toLocaleString()}`);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => {});
    await nc.close();
    return { exec, nats, executed, idle };
  } finally {
    await stopAll(procs);
    await db.drop();
  }
}

/** `npm start`'s entry as its own process; on PostgreSQL + NATS when `real`, else on its defaults. */
async function oneProcess(real: boolean): Promise<{ c1: Measured; c64: Measured; idle: number }> {
  const db = real ? await createTestDatabase(DATABASE_URL) : undefined;
  const procs: ServiceProcess[] = [];
  try {
    const port = await freePort();
    const devKey = testIdentity().operatorKey;
    const env: Record<string, string> = { PORT: `${port}`, PARLEY_DEV_KEY: devKey, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0', LOG_LEVEL: 'warn' };
    if (db) Object.assign(env, { DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: uniquePrefix() });
    const name = real ? 'parley-pg' : 'parley-embedded';
    const p = startProcess(name, 'apps/parley/src/main.ts', env, profileArgs(name));
    procs.push(p);
    await waitReady(`http://127.0.0.1:${port}/readyz`, p, 120_000);
    const execute = poster(`http://127.0.0.1:${port}/rpc`, EXECUTE('bench'), { authorization: `Bearer ${devKey}` });
    await until(execute, name);
    log(real ? '\n(e) Parley in one process on PostgreSQL + NATS' : '\n(f) npm start on its defaults (PGlite, in-process bus)');
    const idle = await idleCpu(procs);
    log(`  idle: ${idle} ms of CPU per second with no calls`);
    return { ...(await both(name, execute, procs)), idle };
  } finally {
    await stopAll(procs);
    await db?.drop();
  }
}

async function main(): Promise<void> {
  log(`Parley benchmark — node ${process.version}, ${SECONDS}s per measurement after 1 s of warm-up`);
  log('\n(a) flight_booking_v1 payload validation');
  const v = validationBench();
  log(`  libs/protocol validate(): ${v.validate_per_s.toLocaleString()} /s`);
  log(`  raw Ajv, same schema:     ${v.ajv_per_s.toLocaleString()} /s   (median ratio of alternated 200 ms rounds ${v.validate_ratio})`);
  log(`  Ajv, Parley's formats:    ${v.ajv_same_formats_per_s.toLocaleString()} /s   (ratio ${v.validate_ratio_same_formats}: validate's cost beyond Ajv)`);
  // BENCH_ONLY=validate: (a) alone, its figures as the last line.
  if (process.env['BENCH_ONLY'] === 'validate') {
    log(JSON.stringify(v));
    return;
  }

  const { floor, mcp } = await peers();
  const sep = await separateServices();
  const pgOne = await oneProcess(true);
  const embedded = await oneProcess(false);

  const e = sep.exec;
  const ratio = (a: number, b: number) => Number((a / Math.max(b, 1e-9)).toFixed(3));
  log('\nRatios (targets: execute >= 0.45x floor and >= 2x MCP peer at c64 with p99 <= 50 ms; c1 p50 <= 2 ms; npm start >= 0.2x floor; validate >= 0.8x Ajv)');
  log(`  execute / floor c64 ${ratio(e.c64.rps, floor.c64.rps)}   execute / MCP peer c64 ${ratio(e.c64.rps, mcp.c64.rps)}   embedded / floor c64 ${ratio(embedded.c64.rps, floor.c64.rps)}   validate / Ajv ${v.validate_ratio}`);
  const figures = {
    validate_per_s: v.validate_per_s,
    ajv_per_s: v.ajv_per_s,
    validate_ratio: v.validate_ratio,
    ajv_same_formats_per_s: v.ajv_same_formats_per_s,
    validate_ratio_same_formats: v.validate_ratio_same_formats,
    floor_rps_c1: floor.c1.rps,
    floor_p50_ms_c1: floor.c1.p50_ms,
    floor_rps_c64: floor.c64.rps,
    floor_p99_ms_c64: floor.c64.p99_ms,
    floor_cpu_ms: floor.c64.cpu_ms,
    peer_mcp_rps_c1: mcp.c1.rps,
    peer_mcp_rps_c64: mcp.c64.rps,
    peer_mcp_p99_ms_c64: mcp.c64.p99_ms,
    peer_mcp_cpu_ms: mcp.c64.cpu_ms,
    execute_rps_c1: e.c1.rps,
    execute_p50_ms_c1: e.c1.p50_ms,
    execute_p99_ms_c1: e.c1.p99_ms,
    execute_rps_c64: e.c64.rps,
    execute_p50_ms_c64: e.c64.p50_ms,
    execute_p99_ms_c64: e.c64.p99_ms,
    cpu_ms_per_execute: e.c64.cpu_ms,
    cpu_ms_per_execute_with_services: e.c64.cpu_ms_with_services,
    idle_cpu_ms_per_s: sep.idle,
    embedded_idle_cpu_ms_per_s: embedded.idle,
    nats_rr_rps_c64: sep.nats.c64.rps,
    executions_recorded: sep.executed,
    one_process_pg_rps_c1: pgOne.c1.rps,
    one_process_pg_p50_ms_c1: pgOne.c1.p50_ms,
    one_process_pg_rps_c64: pgOne.c64.rps,
    one_process_pg_p99_ms_c64: pgOne.c64.p99_ms,
    one_process_pg_cpu_ms: pgOne.c64.cpu_ms,
    embedded_rps_c1: embedded.c1.rps,
    embedded_p50_ms_c1: embedded.c1.p50_ms,
    embedded_rps_c64: embedded.c64.rps,
    embedded_p99_ms_c64: embedded.c64.p99_ms,
    embedded_cpu_ms: embedded.c64.cpu_ms,
    execute_to_floor_c64: ratio(e.c64.rps, floor.c64.rps),
    execute_to_peer_mcp_c64: ratio(e.c64.rps, mcp.c64.rps),
    embedded_to_floor_c64: ratio(embedded.c64.rps, floor.c64.rps),
    errors: [floor, mcp, e, pgOne, embedded].reduce((s, r) => s + r.c1.errors + r.c64.errors, 0),
  };
  log(JSON.stringify(figures));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
