// `npm run bench:budget`: what two cores allow. The CPU (user + system, from /proc/PID/stat of every process
// involved: the client, i.e. this process, the far end, nats-server, the PostgreSQL backends) one operation of
// each hop a separate-services execute makes costs in isolation, at concurrency 1 and 64 (closed loop, the
// median of BUDGET_ROUNDS rounds of BUDGET_ROUND_MS after 1 s of warm-up):
//   (a) an HTTP JSON request to a node:http server (what the gateway receives);
//   (b) one grpc-js unary ExecutionService/Execute through libs/contracts (the gateway's client, the service's
//       binding: authentication, roles, edge checks), ts-proto messages of the execute's size; (b') the same on
//       bare grpc-js (makeGenericClientConstructor, a plain Server), what the transport alone costs;
//   (c) one NATS request/reply with the agent's dispatch through libs/events (bus.request / bus.serve);
//   (d) one durable PostgreSQL commit of an execution row and its two outbox rows through apps/execution's
//       recorder (group commit at c64, as the service does), in a scratch database dropped after;
//   (e) one JetStream publish with ack through libs/events (bus.publishEvent, as the outbox relay does);
//   (g) one durable consumer delivery through libs/events as the services consume on NATS (bus.consumeBatch,
//       which consumeIdempotently calls, maxBatch at its default), the consumer's process only, per event
//       delivered (the ack floor's advance), with deliveries/s printed beside publishes/s;
//   (f) the floor's request (bench/peers/floor.ts, as bench/run.ts runs it).
// It sums the hops of one execute into the hops' CPU ms per execute (the services' own work left out), the rps
// that sum allows on this machine's cores against 0.45x the floor's measured rps, and the c1 p50s of the
// synchronous hops against 2 ms. nats-server is the machine's, shared with any other client: its CPU counts their
// traffic too (its idle rate is printed before the bus hops). Figures only, no assertions. The last line is one
// JSON object with every figure.
// Needs PostgreSQL (DATABASE_URL, default the local one) and NATS JetStream (NATS_URL).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request } from 'node:http';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { credentials, makeGenericClientConstructor, type Client } from '@grpc/grpc-js';
import { ExecutionServiceService, createGrpcClient, type ExecuteRequest } from '@parley/contracts';
import { EventType, createNatsBus, createSubjects, type EventEnvelope, type NatsBus } from '@parley/events';
import { decodeDispatchReply, encodeDispatch } from '@parley/protocol';
import { migrate, openDb } from '@parley/storage';
import { createTestDatabase, freePort, startProcess, uniquePrefix, type ServiceProcess } from '@parley/testkit';
import { createRecorder } from '../apps/execution/src/recorder';
import { quantiles } from './load';
import { cpuSeconds, pidsByName } from './proc';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ROUNDS = Math.max(5, Number(process.env.BUDGET_ROUNDS ?? 5));
const ROUND_MS = Number(process.env.BUDGET_ROUND_MS ?? 1500);
const WARM_MS = 1000;
const CORES = cpus().length;
const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const EXECUTE_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'execute', params: { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 } });
const log = (s: string) => process.stdout.write(s + '\n');
const round2 = (x: number) => Number(x.toFixed(2));
const round3 = (x: number) => Number(x.toFixed(3));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/** The machine's nats-server processes. */
const natsPids = (): number[] => pidsByName((comm) => comm.startsWith('nats-server'));

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

/** The processes whose CPU a hop costs, by role (`client`, `server`, `nats`, `postgres`, ...). */
type Groups = Record<string, number[]>;

interface Figure {
  /** CPU ms per operation over every group. */
  cpu_ms: number;
  /** The same by group. */
  by: Record<string, number>;
  rps: number;
  /** With `ops`: the calls completed per second (for (g), the publishes beside `rps`, the deliveries). */
  calls_rps?: number;
  p50_ms: number;
  p99_ms: number;
  /** The 1-minute load average at the end of the figure's rounds. */
  load1: number;
}
interface HopFigures {
  c1: Figure;
  c64: Figure;
}

/**
 * `concurrency` callers run `once` back to back; after WARM_MS, ROUNDS windows of ROUND_MS each count the
 * operations done (`ops`, default the calls completed) and the CPU each group spent; every figure is the
 * median of the rounds'. `groups` is read at each round's start (pool connections open lazily).
 */
async function closedLoop(concurrency: number, once: () => Promise<unknown>, groups: () => Promise<Groups>, ops?: () => Promise<number>): Promise<Figure> {
  let done = 0;
  let errors = 0;
  let stopping = false;
  let lat: number[] = [];
  let firstError: unknown;
  const workers = Array.from({ length: concurrency }, async () => {
    while (!stopping) {
      const t0 = performance.now();
      try {
        await once();
        done++;
        lat.push(performance.now() - t0);
      } catch (e) {
        firstError ??= e;
        if (++errors > 100) {
          stopping = true;
        }
      }
    }
  });
  const count = ops ?? (async () => done);
  await sleep(WARM_MS);
  const rounds: Figure[] = [];
  for (let r = 0; r < ROUNDS && !stopping; r++) {
    const g = await groups();
    const cpu = () => Object.fromEntries(Object.entries(g).map(([k, pids]) => [k, pids.reduce((s, p) => s + cpuSeconds(p), 0)]));
    lat = [];
    const [n0, c0, t0, d0] = [await count(), cpu(), performance.now(), done];
    await sleep(ROUND_MS);
    const [c1, t1, n1, d1] = [cpu(), performance.now(), await count(), done];
    const n = Math.max(1, n1 - n0);
    const by = Object.fromEntries(Object.keys(g).map((k) => [k, ((c1[k]! - c0[k]!) * 1000) / n]));
    const q = quantiles(lat);
    const secs = (t1 - t0) / 1000;
    rounds.push({ cpu_ms: Object.values(by).reduce((s, x) => s + x, 0), by, rps: n / secs, calls_rps: (d1 - d0) / secs, p50_ms: q.p50, p99_ms: q.p99, load1: 0 });
  }
  stopping = true;
  await Promise.all(workers);
  if (errors > 0) throw new Error(`${errors} failed operations at c${concurrency}; the first: ${String(firstError)}`);
  const keys = Object.keys(rounds[0]?.by ?? {});
  return {
    cpu_ms: round3(median(rounds.map((r) => r.cpu_ms))),
    by: Object.fromEntries(keys.map((k) => [k, round3(median(rounds.map((r) => r.by[k]!)))])),
    rps: Math.round(median(rounds.map((r) => r.rps))),
    ...(ops ? { calls_rps: Math.round(median(rounds.map((r) => r.calls_rps ?? 0))) } : {}),
    p50_ms: round3(median(rounds.map((r) => r.p50_ms))),
    p99_ms: round2(median(rounds.map((r) => r.p99_ms))),
    load1: loadAverage()[0]!,
  };
}

function show(name: string, f: Figure): void {
  const by = Object.entries(f.by).map(([k, v]) => `${k} ${v}`).join(', ');
  const calls = f.calls_rps === undefined ? '' : ` (beside ${f.calls_rps} calls/s)`;
  log(`  ${name.padEnd(30)} CPU ${String(f.cpu_ms).padStart(6)} ms/op (${by})   ${String(f.rps).padStart(6)} ops/s${calls}   p50 ${f.p50_ms} ms   p99 ${f.p99_ms} ms   load ${f.load1}`);
}

async function both(name: string, once: () => Promise<unknown>, groups: () => Promise<Groups>, ops?: () => Promise<number>): Promise<HopFigures> {
  const c1 = await closedLoop(1, once, groups, ops);
  show(`${name} c1`, c1);
  const c64 = await closedLoop(64, once, groups, ops);
  show(`${name} c64`, c64);
  return { c1, c64 };
}

/** Starts a hop's far end (bench/budget-hops.ts or a peer) and waits for its `ready` line; returns what follows it. */
async function startHop(name: string, entry: string, env: Record<string, string>, procs: ServiceProcess[]): Promise<string> {
  const p = startProcess(name, entry, { LOG_LEVEL: 'warn', ...env });
  procs.push(p);
  for (let i = 0; i < 300; i++) {
    const m = /(?:^|\n)(?:ready|[a-z ]+ listening on \d+)( [^\n]*)?\n/.exec(p.output());
    if (m) return (m[1] ?? '').trim();
    if (p.child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`${name} did not start:\n${p.output()}`);
}

/** POSTs a JSON-RPC body (default the execute's), keep-alive; rejects unless the answer is 200 without an error member. */
function poster(url: string, body = EXECUTE_BODY, extra: Record<string, string> = {}): () => Promise<void> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 128 });
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...extra };
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks);
          if (res.statusCode === 200 && !text.includes('"error"') && !text.includes('"isError":true')) resolve();
          else reject(new Error(`HTTP ${res.statusCode}`));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}

const childOf = (procs: ServiceProcess[], name: string) => procs.find((p) => p.name === name)?.child.pid ?? 0;

/** (a) HTTP JSON in, (f) the floor, (b) gRPC: client (this process) and server. */
async function requestHops(procs: ServiceProcess[]): Promise<{ http: HopFigures; floor: HopFigures; mcp: HopFigures; grpc: HopFigures; grpcRaw: HopFigures }> {
  const [hp, fp, mp, gp, rp] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  await startHop('http', 'bench/budget-hops.ts', { HOP: 'http', PORT: `${hp}` }, procs);
  await startHop('floor', 'bench/peers/floor.ts', { PORT: `${fp}` }, procs);
  await startHop('mcp', 'bench/peers/mcp-peer.ts', { PORT: `${mp}` }, procs);
  const key = await startHop('grpc', 'bench/budget-hops.ts', { HOP: 'grpc', PORT: `${gp}` }, procs);
  const two = (name: string) => async (): Promise<Groups> => ({ client: [process.pid], server: [childOf(procs, name)] });
  log('\n(a) HTTP JSON request to a node:http server (what the gateway receives)');
  const http = await both('http json', poster(`http://127.0.0.1:${hp}/rpc`), two('http'));
  log('\n(f) the floor: node:http + Ajv + bookFlight (bench/peers/floor.ts)');
  const floor = await both('floor', poster(`http://127.0.0.1:${fp}/rpc`), two('floor'));
  log('\n(f\') the MCP SDK peer (bench/peers/mcp-peer.ts, as bench/run.ts runs it), for the 2x-peer target');
  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bookFlight', arguments: FIGURE_8 } });
  const mcp = await both('mcp peer', poster(`http://127.0.0.1:${mp}/mcp`, mcpBody, { accept: 'application/json, text/event-stream' }), two('mcp'));
  log('\n(b) grpc-js unary ExecutionService/Execute through libs/contracts (the gateway\'s client options)');
  const client = createGrpcClient(ExecutionServiceService, `127.0.0.1:${gp}`, { deadlineMs: 10_000, credential: key });
  await client.waitForReady(10_000);
  const grpc = await both('grpc unary', () => client.api.execute({ schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 }), two('grpc'));
  client.close();
  await startHop('grpc-raw', 'bench/budget-hops.ts', { HOP: 'grpc-raw', PORT: `${rp}` }, procs);
  log('\n(b\') the same unary call on bare grpc-js (no libs/contracts binding or client glue)');
  const Raw = makeGenericClientConstructor(ExecutionServiceService as never, 'ExecutionService');
  const raw = new Raw(`127.0.0.1:${rp}`, credentials.createInsecure()) as unknown as Client & { execute: (r: ExecuteRequest, o: { deadline: Date }, cb: (e: Error | null) => void) => void };
  const message: ExecuteRequest = { schema_id: 'flight_booking_v1', client_id: 'bench', payload: FIGURE_8 };
  const rawOnce = () => new Promise<void>((resolve, reject) => raw.execute(message, { deadline: new Date(Date.now() + 10_000) }, (e) => (e ? reject(e) : resolve())));
  const grpcRaw = await both('grpc-js bare unary', rawOnce, two('grpc-raw'));
  raw.close();
  return { http, floor, mcp, grpc, grpcRaw };
}

function payloadExecuted(executionId: string, now: string): EventEnvelope {
  return {
    id: randomUUID(),
    type: EventType.PayloadExecuted,
    scenario_id: 'flight_booking',
    occurred_at: now,
    source: 'execution',
    data: {
      execution_id: executionId,
      agent: 'flight-agent',
      schema_id: 'flight_booking_v1',
      scenario_id: 'flight_booking',
      client_id: 'bench',
      keys_present: ['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other'],
      key_type_correct: { origin: true, destination: true, departure_date: true, cabin_class: true, passenger_count: true, other: true },
      defaults_applied: [],
      duration_ms: 1,
      applied_patches: [],
    },
  };
}

/** The events one execute of Figure 8 records: payload.executed and other.captured (its `other`). */
function executionEvents(executionId: string, now: string): EventEnvelope[] {
  const base = { execution_id: executionId, agent: 'flight-agent', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench' };
  return [payloadExecuted(executionId, now), { id: randomUUID(), type: EventType.OtherCaptured, scenario_id: 'flight_booking', occurred_at: now, source: 'execution', data: { ...base, fragments: ['window seat'] } }];
}

/** (c) the dispatch request/reply, (e) a JetStream publish with ack, (g) a durable consumer's delivery. */
async function busHops(procs: ServiceProcess[]): Promise<{ nats: HopFigures; publish: HopFigures; delivery: Delivery; natsIdle: number }> {
  const prefix = uniquePrefix();
  const deliveryPrefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const buses: NatsBus[] = [];
  const admin = await connect({ servers: NATS_URL, name: 'budget-admin' });
  const jsm = await jetstreamManager(admin);
  try {
    // nats-server is the machine's, shared: what it spends with none of this bench's traffic (ms per second).
    const natsCpu = () => natsPids().reduce((s, p) => s + cpuSeconds(p), 0);
    const i0 = natsCpu();
    await sleep(2000);
    const natsIdle = round2(((natsCpu() - i0) * 1000) / 2);
    log(`\nnats-server (every nats-server on the machine, shared with other clients) idle before the bus hops: ${natsIdle} ms CPU per second`);
    await startHop('nats', 'bench/budget-hops.ts', { HOP: 'nats', NATS_URL, BENCH_PREFIX: prefix }, procs);
    const bus = await createNatsBus({ servers: NATS_URL, subjects, name: 'budget-client' });
    buses.push(bus);
    const subject = subjects.execute('flight_booking', 'flight-agent');
    const dispatch = async () => {
      const body = encodeDispatch({ execution_id: randomUUID(), schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench', payload: FIGURE_8, deadline: new Date(Date.now() + 5000).toISOString() });
      const reply = decodeDispatchReply(await bus.request(subject, body, { timeoutMs: 5000 }), 'flight-agent');
      if (!reply.ok) throw new Error(reply.error.message);
    };
    const withNats = (name?: string) => async (): Promise<Groups> => ({ client: [process.pid], ...(name ? { server: [childOf(procs, name)] } : {}), nats: natsPids() });
    log('\n(c) NATS request/reply with the agent\'s dispatch through libs/events (bus.request, bus.serve)');
    const nats = await both('nats request/reply', dispatch, withNats('nats'));
    log('\n(e) JetStream publish with ack through libs/events (bus.publishEvent, as the outbox relay)');
    const publish = await both('jetstream publish', () => bus.publishEvent(payloadExecuted(randomUUID(), new Date().toISOString())), withNats());

    // (g) on a stream of its own, so the consumer starts with nothing behind it.
    const dSubjects = createSubjects(deliveryPrefix);
    const dBus = await createNatsBus({ servers: NATS_URL, subjects: dSubjects, name: 'budget-publisher' });
    buses.push(dBus);
    const durable = `${deliveryPrefix}-usage`;
    await startHop('consume', 'bench/budget-hops.ts', { HOP: 'consume', NATS_URL, BENCH_PREFIX: deliveryPrefix, BENCH_DURABLE: durable }, procs);
    log('\n(g) durable consumer delivery with ack through libs/events (bus.consumeBatch, as consumeIdempotently runs on NATS), the consumer\'s process only, per event delivered');
    const delivery = await deliveryHop(procs, dBus, jsm, dSubjects.stream, durable);
    return { nats, publish, delivery, natsIdle };
  } finally {
    for (const b of buses) await b.close().catch(() => {});
    for (const s of [subjects.stream, createSubjects(deliveryPrefix).stream]) await jsm.streams.delete(s).catch(() => {});
    await admin.close();
  }
}

type Delivery = HopFigures & { batch: Record<'c1' | 'c64', { events_per_batch: number; backlog_after: number }> };

/**
 * (g): publishers at c1 and c64 against the consumer; the consumer's CPU per event delivered (the ack floor's
 * advance, not the publishes), deliveries/s beside publishes/s, the events per handler call and the backlog
 * (pending + unacked) left when the publishers stop, which stays small when the consumer keeps up.
 */
async function deliveryHop(procs: ServiceProcess[], dBus: NatsBus, jsm: Awaited<ReturnType<typeof jetstreamManager>>, stream: string, durable: string): Promise<Delivery> {
  const info = () => jsm.consumers.info(stream, durable);
  const acked = async () => (await info()).ack_floor.stream_seq;
  const p = procs.find((x) => x.name === 'consume')!;
  const counters = () => {
    const all = [...p.output().matchAll(/batches (\d+) events (\d+)/g)];
    const m = all[all.length - 1];
    return { batches: Number(m?.[1] ?? 0), events: Number(m?.[2] ?? 0) };
  };
  const publish = () => dBus.publishEvent(payloadExecuted(randomUUID(), new Date().toISOString()));
  const out: Partial<Delivery> = {};
  const batch: Partial<Delivery['batch']> = {};
  for (const c of [1, 64] as const) {
    const k0 = counters();
    const f = await closedLoop(c, publish, async () => ({ consumer: [childOf(procs, 'consume')] }), acked);
    const i = await info();
    await sleep(300);
    const k1 = counters();
    batch[`c${c}`] = { events_per_batch: round2((k1.events - k0.events) / Math.max(1, k1.batches - k0.batches)), backlog_after: i.num_pending + i.num_ack_pending };
    show(`consumer delivery c${c}`, f);
    log(`    ${batch[`c${c}`]!.events_per_batch} events per handler call; backlog when the publishers stopped ${batch[`c${c}`]!.backlog_after}`);
    out[`c${c}`] = f;
  }
  return { c1: out.c1!, c64: out.c64!, batch: batch as Delivery['batch'] };
}

/** (d) one durable commit of an execution row and its outbox rows through apps/execution's recorder. */
async function commitHop(): Promise<HopFigures & { settings: Record<string, string> }> {
  const scratch = await createTestDatabase(DATABASE_URL);
  const db = await openDb(scratch.url, { applicationName: 'budget-commit', poolSize: 10 });
  try {
    await migrate(db, 'execution');
    const recorder = createRecorder({ db, subjects: createSubjects(uniquePrefix()), onCommit: () => {} });
    const once = () => {
      const id = randomUUID();
      const now = new Date().toISOString();
      return recorder.record(
        { id, agent: 'flight-agent', schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench', keys_present: Object.keys(FIGURE_8), defaults_applied: [], other_fragments: 1, duration_ms: 1, executed_at: now, idempotency_key: null },
        executionEvents(id, now),
      );
    };
    // The backends serving the recorder's pool (pg_stat_activity, as each would answer `select pg_backend_pid()`).
    const groups = async (): Promise<Groups> => {
      const r = await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'budget-commit'");
      return { client: [process.pid], postgres: r.rows.map((x) => Number(x.pid)) };
    };
    const names = ['synchronous_commit', 'fsync', 'wal_sync_method', 'commit_delay', 'full_page_writes'];
    const settings = Object.fromEntries((await db.query<{ name: string; setting: string }>('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [names])).rows.map((r) => [r.name, r.setting]));
    log(`\n(d) durable PostgreSQL commit: execution row + 2 outbox rows (apps/execution recorder, group commit); ${Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    return { ...(await both('pg commit', once, groups)), settings };
  } finally {
    await db.close();
    await scratch.drop();
  }
}

/**
 * The hops of one separate-services execute (bench/run.ts's deployment), counted from the code: the gateway's
 * HTTP in (apps/gateway), gRPC gateway -> execution (ExecutionService/Execute), the dispatch to the agent and
 * back over NATS (apps/execution service.ts, bus.request), the commit of the row and its two outbox rows
 * (recorder.ts: payload.executed, other.captured for Figure 8's `other`), the relay's two JetStream publishes
 * (libs/events outbox.ts), and one consumer delivery (the registry's usage consumer of payload.executed; with
 * evolution and semantic-pool running, two more: evolution's payload.executed, the pool's other.captured).
 */
const HOPS_PER_EXECUTE = { http: 1, grpc: 1, nats: 1, commit: 1, publish: 2, delivery: 1 } as const;
const EXTRA_DELIVERIES_FULL = 2;

async function main(): Promise<void> {
  const load0 = loadAverage();
  log(`CPU budget per execute — node ${process.version}, ${CORES} cores, ${ROUNDS} rounds of ${ROUND_MS} ms after ${WARM_MS} ms warm-up; load average ${load0.join(' ')}`);
  const procs: ServiceProcess[] = [];
  let req: Awaited<ReturnType<typeof requestHops>>;
  let bus: Awaited<ReturnType<typeof busHops>>;
  try {
    req = await requestHops(procs);
    bus = await busHops(procs);
  } finally {
    for (const p of [...procs].reverse()) await p.stop();
  }
  const commit = await commitHop();
  const hops = { http: req.http, grpc: req.grpc, nats: bus.nats, commit: { c1: commit.c1, c64: commit.c64 }, publish: bus.publish, delivery: bus.delivery };
  const sum = (c: 'c1' | 'c64') => (Object.keys(HOPS_PER_EXECUTE) as (keyof typeof HOPS_PER_EXECUTE)[]).reduce((s, k) => s + HOPS_PER_EXECUTE[k] * hops[k][c].cpu_ms, 0);
  const bound = round3(sum('c64'));
  const boundFull = round3(bound + EXTRA_DELIVERIES_FULL * hops.delivery.c64.cpu_ms);
  // (g) at c64 runs the consumer at the publishers' c64 rate, in large batches; at c1's rate, nearer what the sum
  // allows, its batches are of one or two events.
  const boundSlowDelivery = round3(bound - hops.delivery.c64.cpu_ms + hops.delivery.c1.cpu_ms);
  const boundBare = round3(bound - hops.grpc.c64.cpu_ms + req.grpcRaw.c64.cpu_ms);
  const boundRps = Math.round((CORES * 1000) / bound);
  const boundRpsFull = Math.round((CORES * 1000) / boundFull);
  const floorRps = req.floor.c64.rps;
  const target = Math.round(Math.max(0.45 * floorRps, 2 * req.mcp.c64.rps));
  // What the floor's own CPU predicts for it: how far the CPU-only arithmetic is from a measured rps.
  const floorPredicted = Math.round((CORES * 1000) / req.floor.c64.cpu_ms);
  // The same comparison in CPU, which a busy machine moves less than rps: 0.45x the floor's rate allows at most
  // floor CPU / 0.45 per execute (every process of both counted alike, the load generator included).
  const cpuAllowed = round3(req.floor.c64.cpu_ms / 0.45);
  const latency = round3(hops.http.c1.p50_ms + hops.grpc.c1.p50_ms + hops.nats.c1.p50_ms + hops.commit.c1.p50_ms);
  const load1 = loadAverage();
  log(`\nOne execute = ${Object.entries(HOPS_PER_EXECUTE).map(([k, n]) => `${n}x ${k}`).join(' + ')} (c64 CPU per hop)`);
  for (const [k, n] of Object.entries(HOPS_PER_EXECUTE)) log(`  ${k.padEnd(9)} ${n} x ${hops[k as keyof typeof hops].c64.cpu_ms} ms`);
  log(`  the hops' sum: ${bound} ms CPU per execute, the services' own work left out (${boundFull} ms with evolution and semantic-pool consuming too; ${boundBare} ms with bare grpc-js for the gRPC hop)`);
  log(`  with (g) at its c1 rate (${hops.delivery.c1.rps} deliveries/s, ${bus.delivery.batch.c1.events_per_batch} events per handler call) instead: ${boundSlowDelivery} ms`);
  log(`  the sum's rps on ${CORES} cores = ${CORES} x 1000 / ${bound} = ${boundRps} (${boundRpsFull} full deployment)`);
  log(`  target = max(0.45 x floor ${floorRps}, 2 x MCP peer ${req.mcp.c64.rps}) = ${target} rps   sum rps / target ${round2(boundRps / target)}`);
  log(`  in CPU: 0.45x the floor allows ${cpuAllowed} ms per execute (floor ${req.floor.c64.cpu_ms} ms client + server / 0.45); the hops' sum is ${round2(bound / cpuAllowed)}x that`);
  log(`  2x the MCP peer allows ${round3(req.mcp.c64.cpu_ms / 2)} ms per execute (the peer's ${req.mcp.c64.cpu_ms} ms / 2); the hops' sum is ${round2(bound / (req.mcp.c64.cpu_ms / 2))}x that`);
  log(`  the floor's CPU predicts ${floorPredicted} rps for it; measured ${floorRps} (the CPU arithmetic over-predicts by ${round2(floorPredicted / floorRps)}x here)`);
  log(`  c1 latency of the synchronous hops (p50s of http + grpc + nats + commit) ${latency} ms against 2 ms; the commit alone ${hops.commit.c1.p50_ms} ms`);
  log(`  load average ${load0.join(' ')} before, ${load1.join(' ')} after; nats-server idle ${bus.natsIdle} ms CPU/s`);
  const flat = Object.fromEntries(
    Object.entries({ ...hops, grpc_bare: req.grpcRaw, floor: req.floor, mcp: req.mcp }).flatMap(([k, h]) => (['c1', 'c64'] as const).flatMap((c) => [[`${k}_cpu_ms_${c}`, h[c].cpu_ms], [`${k}_rps_${c}`, h[c].rps], [`${k}_p50_ms_${c}`, h[c].p50_ms], [`${k}_p99_ms_${c}`, h[c].p99_ms]])),
  );
  log(
    JSON.stringify({
      cores: CORES,
      load_average_before: load0,
      load_average_after: load1,
      nats_server_idle_cpu_ms_per_s: bus.natsIdle,
      delivery_batch: bus.delivery.batch,
      delivery_publish_rps_c1: bus.delivery.c1.calls_rps,
      delivery_publish_rps_c64: bus.delivery.c64.calls_rps,
      mcp_cpu_ms_allowed_per_execute: round3(req.mcp.c64.cpu_ms / 2),
      ...flat,
      floor_server_cpu_ms_c64: req.floor.c64.by['server'],
      hops_per_execute: HOPS_PER_EXECUTE,
      bound_cpu_ms_per_execute: bound,
      bound_cpu_ms_per_execute_full: boundFull,
      bound_cpu_ms_per_execute_bare_grpc: boundBare,
      bound_cpu_ms_per_execute_delivery_c1: boundSlowDelivery,
      bound_rps: boundRps,
      bound_rps_full: boundRpsFull,
      target_rps: target,
      floor_cpu_ms_allowed_per_execute: cpuAllowed,
      bound_to_allowed_cpu: round2(bound / cpuAllowed),
      bound_to_mcp_allowed_cpu: round2(bound / (req.mcp.c64.cpu_ms / 2)),
      pg_settings: commit.settings,
      bound_to_target: round2(boundRps / target),
      floor_rps_predicted_from_cpu: floorPredicted,
      c1_latency_bound_ms: latency,
      by_process: Object.fromEntries(Object.entries({ ...hops, grpc_bare: req.grpcRaw, floor: req.floor, mcp: req.mcp }).map(([k, h]) => [k, { c1: h.c1.by, c64: h.c64.by }])),
    }),
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
