// Bare NATS request/reply responder for the benchmark's baseline: answers every
// request on BENCH_SUBJECT in a queue group with a Figure 9-sized JSON reply.
import { connect } from '@nats-io/transport-node';

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'bench-responder' });
const reply = new TextEncoder().encode(
  JSON.stringify({ ok: true, result: { booking_id: 'BK-20260430-001', status: 'confirmed', flight_number: 'CA1234', departure_time: '2026-05-04T09:00:00+08:00', arrival_time: '2026-05-04T11:20:00+08:00', seat: '12A', total_amount: 'CNY 2,450.00' } }),
);
nc.subscribe(process.env.BENCH_SUBJECT ?? 'bench.rr', { queue: 'bench', callback: (_e, m) => void m.respond(reply) });
process.stdout.write('ready\n');
process.on('SIGTERM', () => void nc.drain().then(() => process.exit(0)));
