// `npx tsx bench/tasks.ts`: figures of AN tasks (autonomous-networks draft 004 §5.2-5.4) from one run on this machine.
//  (a) sync task round trips per second and p50/p99 latency: JSON-RPC task_assign through
//      gateway -> execution (task stored, dispatched over NATS) -> an agent answering at once -> back,
//      at concurrency 1 and 16;
//  (b) async notification delivery latency p50/p99: from the executing agent's TaskResultNotify
//      (agent.notify, over NATS to the execution service) to receipt by a subscriber, over a few hundred
//      state changes of one task, for each kind of subscriber: a gRPC TaskResultSubscribe stream, a
//      webhook, and the sender's NATS subject on the event stream (outbox -> JetStream -> durable consumer).
// Services run as separate processes (as bench/run.ts): registry, negotiation, execution, gateway, and the
// answering agent (this file again with BENCH_ROLE=agent). Needs PostgreSQL and NATS JetStream
// (DATABASE_URL / NATS_URL, default the local ones; a fresh database per run). BENCH_SECONDS (5) per load
// measurement, BENCH_CHANGES (301) state changes for (b). The last line is one JSON object with the figures.
import { Agent as HttpAgent, createServer, request } from 'node:http';
import { createAgent } from '@parley/agent-sdk';
import { TaskServiceService, createGrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects, EventType } from '@parley/events';
import { createTestDatabase, freePort, startProcess, testIdentity, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { SECONDS, load, quantiles, type LoadResult } from './load';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const CHANGES = Number(process.env.BENCH_CHANGES ?? 301);
const RESPONDER = 'TMF-Bench-Responder-v1';
const NOTIFIER = 'TMF-Bench-Notifier-v1';
const CLIENT = 'TMF-Bench-Client-v1';
/** The sender of the async task: its own NATS subject, which (a)'s events do not crowd. */
const SUBSCRIBER = 'TMF-Bench-Subscriber-v1';
const log = (s: string) => process.stdout.write(s + '\n');

/** BENCH_ROLE=agent: the agent that answers every sync task at once (a separate process, as a real agent is). */
async function runResponder(): Promise<void> {
  const agent = await createAgent({ name: RESPONDER, natsUrl: NATS_URL, prefix: process.env.PARLEY_SUBJECT_PREFIX ?? 'parley' });
  await agent.serveTasks((task) => ({ pong: task.task_id }));
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void agent.close().then(() => process.exit(0)));
}


async function main(): Promise<void> {
  log(`Parley AN tasks benchmark — node ${process.version}, ${SECONDS}s per load measurement, ${CHANGES} state changes`);
  const db = await createTestDatabase(DATABASE_URL);
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const procs: ServiceProcess[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  // Identity (draft-zhou §7): one service token and bootstrapped operator key for every process; the benchmark
  // calls the gateway and TaskService as that operator, who may act for any agent (send_from).
  const identity = testIdentity();
  try {
    const [rg, ng, eg, rh, nh, eh, gw] = await Promise.all(Array.from({ length: 7 }, freePort));
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL, PARLEY_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'warn' };
    const start = async (name: string, entry: string, env: Record<string, string>, ready: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(ready, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${rg}`, HEALTH_PORT: `${rh}` }, `http://127.0.0.1:${rh}/readyz`);
    await start('negotiation', 'apps/negotiation/src/main.ts', { GRPC_PORT: `${ng}`, HEALTH_PORT: `${nh}`, REGISTRY_ADDR: `127.0.0.1:${rg}` }, `http://127.0.0.1:${nh}/readyz`);
    await start('execution', 'apps/execution/src/main.ts', { GRPC_PORT: `${eg}`, HEALTH_PORT: `${eh}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, REGISTRY_ADDR: `127.0.0.1:${rg}`, PARLEY_WEBHOOK_ALLOW: 'http://127.0.0.1:*' }, `http://127.0.0.1:${eh}/readyz`);
    const gateway = `http://127.0.0.1:${gw}`;
    // One principal drives all the load: the per-principal rate limit (50/s by default) is off, as it was before draft-zhou §7.
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      { PORT: `${gw}`, REGISTRY_ADDR: `127.0.0.1:${rg}`, NEGOTIATION_ADDR: `127.0.0.1:${ng}`, EXECUTION_ADDR: `127.0.0.1:${eg}`, RATE_LIMIT_PER_SECOND: '0', PARLEY_MAX_INFLIGHT_PER_PRINCIPAL: '0' },
      `${gateway}/readyz`,
    );
    const responder = startProcess('responder', 'bench/tasks.ts', { ...common, BENCH_ROLE: 'agent' });
    procs.push(responder);

    const http = new HttpAgent({ keepAlive: true, maxSockets: 64 });
    cleanups.push(() => http.destroy());
    const call = (method: string, params: object) =>
      new Promise<{ result?: any; error?: any }>((resolve, reject) => { // eslint-disable-line @typescript-eslint/no-explicit-any
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
        const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${identity.operatorKey}` };
        const req = request(`${gateway}/rpc`, { method: 'POST', agent: http, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (e) {
              reject(e);
            }
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    const syncTask = { send_from: CLIENT, send_to: RESPONDER, task_async: false, content: 'ping: answer at once' };
    const assignSync = async () => {
      const r = await call('task_assign', syncTask);
      return r.result?.task?.status === 'finished';
    };
    // Wait for the responder to serve.
    for (let i = 0; i < 150 && !(await assignSync().catch(() => false)); i++) await new Promise((r) => setTimeout(r, 200));

    log('\n(a) sync task round trips: task_assign -> execution -> NATS -> agent answering at once -> back');
    const results: Record<string, LoadResult> = {};
    for (const c of [1, 16]) {
      const r = await load(c, assignSync);
      results[`sync_c${c}`] = r;
      log(`  concurrency ${String(c).padStart(2)}  ${String(r.rps).padStart(6)} tasks/s   p50 ${r.p50_ms} ms   p99 ${r.p99_ms} ms   errors ${r.errors}`);
    }

    log('\n(b) async notification delivery: the agent\'s TaskResultNotify -> receipt by a subscriber');
    const notifier = await createAgent({ name: NOTIFIER, natsUrl: NATS_URL, prefix });
    cleanups.push(() => notifier.close());
    await notifier.serveTasks((task, ctx) => (task.task_async ? ctx.accept('processing') : {}));

    // Receipt times per channel and seq.
    const seen = { grpc: new Map<number, number>(), webhook: new Map<number, number>(), nats: new Map<number, number>() };
    /** Every receipt per channel, duplicates included: each must be 1, 2, … once, in order. */
    const arrivals = { grpc: [] as number[], webhook: [] as number[], nats: [] as number[] };
    // Known before the assignment: the first notifications may arrive before its answer.
    const taskId = `bench-async-${prefix}`;
    const hookPort = await freePort();
    const hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const n = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task_id: string; seq: number };
        if (n.task_id === taskId) {
          arrivals.webhook.push(n.seq);
          if (!seen.webhook.has(n.seq)) seen.webhook.set(n.seq, at);
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(hookPort, '127.0.0.1', () => r()));
    cleanups.push(() => {
      hook.closeAllConnections();
      hook.close();
    });
    const bus = await createNatsBus({ servers: NATS_URL, subjects, name: 'bench-subscriber' });
    cleanups.push(() => bus.close());
    const consumer = await bus.consume({ durable: `bench-${prefix}`, filterSubjects: [subjects.taskStatus(SUBSCRIBER)] }, async (e) => {
      const at = performance.now();
      if (e.type !== EventType.TaskStatus || e.data.task_id !== taskId) return;
      arrivals.nats.push(e.data.seq);
      if (!seen.nats.has(e.data.seq)) seen.nats.set(e.data.seq, at);
    });
    cleanups.push(() => consumer.stop());

    const a = await call('task_assign', {
      task_id: taskId,
      send_from: SUBSCRIBER,
      send_to: NOTIFIER,
      task_async: true,
      content: 'report every change',
      subscription: { protocol: 'webhook', url: `http://127.0.0.1:${hookPort}/hook` },
    });
    if (a.error || a.result?.task?.status !== 'processing') throw new Error(`async task not accepted: ${JSON.stringify(a)}`);
    const tasks = createGrpcClient(TaskServiceService, `127.0.0.1:${eg}`, { credential: identity.operatorKey });
    cleanups.push(() => tasks.close());
    let streamError: unknown;
    const stream = (async () => {
      for await (const n of tasks.api.taskResultSubscribe({ task_id: taskId, send_from: SUBSCRIBER, after_seq: 0 })) {
        arrivals.grpc.push(n.seq);
        if (!seen.grpc.has(n.seq)) seen.grpc.set(n.seq, performance.now());
      }
    })().catch((e: unknown) => {
      streamError = e;
    });
    const allSeen = (seq: number) => seen.grpc.has(seq) && seen.webhook.has(seq) && seen.nats.has(seq);
    const until = async (what: string, cond: () => boolean, ms = 10_000) => {
      const end = performance.now() + ms;
      while (!cond()) {
        if (performance.now() > end) throw new Error(`timed out waiting for ${what} (grpc ${seen.grpc.size}, webhook ${seen.webhook.size}, nats ${seen.nats.size} seqs)`);
        await new Promise((r) => setImmediate(r));
      }
    };
    await until('the first two notifications on every channel', () => allSeen(2));

    const sent = new Map<number, number>();
    const callMs: number[] = [];
    // processing -> blocked -> processing ... -> finished (only processing may finish).
    const statuses = [...Array.from({ length: Math.floor((CHANGES - 1) / 2) }, () => ['blocked', 'processing'] as const).flat(), 'finished' as const];
    for (const status of statuses) {
      const t0 = performance.now();
      const n = await notifier.notify(taskId, { status, ...(status === 'finished' ? { result: { changes: CHANGES } } : {}) });
      callMs.push(performance.now() - t0);
      sent.set(n.seq, t0);
      // Closed loop: the next change once every subscriber has this one (latency, not queueing).
      await until(`seq ${n.seq} on every channel`, () => allSeen(n.seq));
    }
    await stream;
    if (streamError) throw streamError;
    const latency = (m: Map<number, number>) => quantiles([...sent.entries()].map(([seq, t0]) => (m.get(seq) as number) - t0));
    const lat = { grpc: latency(seen.grpc), webhook: latency(seen.webhook), nats: latency(seen.nats) };
    const calls = quantiles(callMs);
    const total = sent.size + 2; // created and processing (the accept) came before the measured changes
    const exact = (a: number[]) => a.length === total && a.every((seq, i) => seq === i + 1);
    const inOrderOnce = { grpc: exact(arrivals.grpc), webhook: exact(arrivals.webhook), nats: exact(arrivals.nats) };
    log(`  ${sent.size} measured state changes of one task (${total} notifications); each seq once and in order — grpc ${inOrderOnce.grpc}, webhook ${inOrderOnce.webhook}, nats ${inOrderOnce.nats}`);
    if (!inOrderOnce.grpc || !inOrderOnce.webhook || !inOrderOnce.nats) log(`  arrivals: ${JSON.stringify({ grpc: arrivals.grpc.length, webhook: arrivals.webhook.length, nats: arrivals.nats.length })}`);
    log(`  notify call (agent -> execution, committed):    p50 ${calls.p50} ms   p99 ${calls.p99} ms`);
    log(`  gRPC TaskResultSubscribe stream:                  p50 ${lat.grpc.p50} ms   p99 ${lat.grpc.p99} ms   max ${lat.grpc.max} ms`);
    log(`  webhook (POST to a local receiver):               p50 ${lat.webhook.p50} ms   p99 ${lat.webhook.p99} ms   max ${lat.webhook.max} ms`);
    log(`  NATS subject (outbox -> JetStream -> consumer):   p50 ${lat.nats.p50} ms   p99 ${lat.nats.p99} ms   max ${lat.nats.max} ms`);

    const figures = {
      sync_task_rps_c1: results.sync_c1!.rps,
      sync_task_p50_ms_c1: results.sync_c1!.p50_ms,
      sync_task_p99_ms_c1: results.sync_c1!.p99_ms,
      sync_task_rps_c16: results.sync_c16!.rps,
      sync_task_p50_ms_c16: results.sync_c16!.p50_ms,
      sync_task_p99_ms_c16: results.sync_c16!.p99_ms,
      sync_task_errors: results.sync_c1!.errors + results.sync_c16!.errors,
      state_changes: sent.size,
      notify_call_p50_ms: calls.p50,
      notify_call_p99_ms: calls.p99,
      notification_grpc_p50_ms: lat.grpc.p50,
      notification_grpc_p99_ms: lat.grpc.p99,
      notification_webhook_p50_ms: lat.webhook.p50,
      notification_webhook_p99_ms: lat.webhook.p99,
      notification_nats_p50_ms: lat.nats.p50,
      notification_nats_p99_ms: lat.nats.p99,
      notifications_once_in_order: inOrderOnce.grpc && inOrderOnce.webhook && inOrderOnce.nats,
    };
    log(JSON.stringify(figures));
  } finally {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    for (const p of procs.reverse()) await p.stop();
    try {
      const { connect } = await import('@nats-io/transport-node');
      const { jetstreamManager } = await import('@nats-io/jetstream');
      const nc = await connect({ servers: NATS_URL });
      await (await jetstreamManager(nc)).streams.delete(subjects.stream).catch(() => {});
      await nc.close();
    } catch {
      // the stream is per prefix; a leftover one is harmless
    }
    await db.drop();
  }
}

if (process.env.BENCH_ROLE === 'agent') {
  runResponder().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
