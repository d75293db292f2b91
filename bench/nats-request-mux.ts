// The requester's CPU per dispatch request/reply, old beside new, in one process against one agent-side responder
// (bench/budget-hops.ts HOP=nats, its own process): before, nats.js `nc.request` on the bus's connection (what
// libs/events' request called until 2026-11-28); after, `bus.request` through the bus's own reply mux
// (nats-reply-mux.ts). Rounds of BUDGET_ROUND_MS (1000) alternate the two, at c1 and c64; each figure is the median
// of 7 rounds of this process's CPU (process.cpuUsage, user + system) per completed request.
// `npx tsx bench/nats-request-mux.ts` (NATS_URL); last line: one JSON object.
import { randomUUID } from 'node:crypto';
import { createNatsBus, createSubjects } from '@parley/events';
import { decodeDispatchReply, encodeDispatch } from '@parley/protocol';
import { startProcess, uniquePrefix } from '@parley/testkit';
import { jetstreamManager } from '@nats-io/jetstream';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ROUND_MS = Number(process.env.BUDGET_ROUND_MS ?? 1000);
const ROUNDS = 7;
const FIGURE_8 = { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', cabin_class: 'business', passenger_count: 1, other: 'window seat' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/** This process's CPU µs per completed call over one round of `concurrency` callers. */
async function round(concurrency: number, once: () => Promise<unknown>): Promise<number> {
  let done = 0;
  let stopping = false;
  const workers = Array.from({ length: concurrency }, async () => {
    while (!stopping) {
      await once();
      done++;
    }
  });
  await sleep(100);
  const [n0, c0] = [done, process.cpuUsage()];
  await sleep(ROUND_MS);
  const c1 = process.cpuUsage(c0);
  const n = done - n0;
  stopping = true;
  await Promise.all(workers);
  return (c1.user + c1.system) / Math.max(1, n);
}

async function main(): Promise<void> {
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  const agent = startProcess('nats', 'bench/budget-hops.ts', { HOP: 'nats', NATS_URL, BENCH_PREFIX: prefix, LOG_LEVEL: 'warn' });
  for (let i = 0; i < 300 && !/(^|\n)ready/.test(agent.output()); i++) await sleep(100);
  const bus = await createNatsBus({ servers: NATS_URL, subjects, name: 'mux-bench' });
  const subject = subjects.execute('flight_booking', 'flight-agent');
  const body = () => encodeDispatch({ execution_id: randomUUID(), schema_id: 'flight_booking_v1', scenario_id: 'flight_booking', client_id: 'bench', payload: FIGURE_8, deadline: new Date(Date.now() + 5000).toISOString() });
  const check = (data: Uint8Array) => {
    if (!decodeDispatchReply(data, 'flight-agent').ok) throw new Error('the agent refused');
  };
  const before = () => bus.connection.request(subject, body(), { timeout: 5000 }).then((m) => check(m.data));
  const after = () => bus.request(subject, body(), { timeoutMs: 5000 }).then(check);
  const out: Record<string, { before_us: number; after_us: number }> = {};
  try {
    for (const c of [1, 64]) {
      await round(c, before);
      await round(c, after);
      const b: number[] = [];
      const a: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        if (r % 2 === 0) {
          b.push(await round(c, before));
          a.push(await round(c, after));
        } else {
          a.push(await round(c, after));
          b.push(await round(c, before));
        }
      }
      out[`c${c}`] = { before_us: Number(median(b).toFixed(1)), after_us: Number(median(a).toFixed(1)) };
      console.log(`c${c}: requester CPU per request/reply ${out[`c${c}`]!.before_us} µs (nc.request) → ${out[`c${c}`]!.after_us} µs (the bus's mux)`);
    }
  } finally {
    await bus.close();
    await agent.stop();
    const admin = await import('@nats-io/transport-node').then((m) => m.connect({ servers: NATS_URL }));
    await (await jetstreamManager(admin)).streams.delete(subjects.stream).catch(() => {});
    await admin.close();
  }
  console.log(JSON.stringify(out));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
