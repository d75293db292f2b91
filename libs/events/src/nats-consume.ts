import { context as otelContext } from '@opentelemetry/api';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { ConsumeOptions, Stoppable } from './bus';
import { decodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { errorText } from './log';
import { matchesAny } from './match';
import { ensureConsumer, planFilters } from './nats-consumers';
import { fromHeaders, type NatsCtx } from './nats-context';
import { endSpan, startProcess } from './tracing';

// Consuming a durable JetStream consumer for nats-bus.ts: one event at a time
// (max_ack_pending 1 by default), acked after the handler, nak'd with
// `retryDelayMs` when it throws; the pull restarts (re-creating the consumer)
// when it is interrupted or deleted under it.

const DEFAULT_RETRY_DELAY_MS = 1000;
const RESTART_BACKOFF_MAX_MS = 5000;

export async function consume(x: NatsCtx, o: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable> {
  x.assertOpen();
  const retryDelayMs = o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const plan = planFilters(x, [...o.filterSubjects]);
  await ensureConsumer(x, o.durable, plan.server);
  let consumer = await x.js.consumers.get(x.subjects.stream, o.durable);

  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const stopSignal = new AbortController();

  const ack = async (m: JsMsg) => {
    try {
      await m.ackAck({ timeout: 5000 });
    } catch (err) {
      x.log.warn('ack not confirmed; the event may be delivered again', { durable: o.durable, seq: m.seq, error: errorText(err) });
    }
  };

  const handle = async (m: JsMsg) => {
    if (plan.client && !matchesAny(plan.client, m.subject)) return ack(m);
    let event: EventEnvelope;
    try {
      event = decodeEvent(m.data);
    } catch (err) {
      x.log.error('undecodable event terminated', { durable: o.durable, seq: m.seq, subject: m.subject, error: errorText(err) });
      m.term('undecodable');
      return;
    }
    // A slow handler must not be mistaken for a dead one and have its event redelivered elsewhere.
    const beat = setInterval(() => m.working(), Math.max(1000, Math.floor(x.ackWaitMs / 3)));
    const { span, ctx } = startProcess({ subject: m.subject, messageId: event.id, group: o.durable }, fromHeaders(m.headers));
    try {
      await otelContext.with(ctx, () => handler(event));
      endSpan(span);
    } catch (err) {
      endSpan(span, err);
      clearInterval(beat);
      x.log.warn('event handler threw; redelivering', { durable: o.durable, event_id: event.id, retry_ms: retryDelayMs, error: errorText(err) });
      m.nak(retryDelayMs);
      return;
    }
    clearInterval(beat);
    await ack(m);
  };

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      try {
        messages = await consumer.consume({ max_messages: x.maxAckPending, idle_heartbeat: x.idleHeartbeatMs, expires: Math.max(30_000, x.idleHeartbeatMs * 3) });
        const current = messages;
        if (stopping) {
          await current.close();
          break;
        }
        void (async () => {
          for await (const s of current.status()) {
            // The client would keep pulling from a deleted consumer; start over, which re-creates it.
            if (s.type === 'consumer_deleted' || s.type === 'consumer_not_found' || s.type === 'heartbeats_missed') {
              void current.close();
              return;
            }
          }
        })().catch(() => {});
        for await (const m of current) {
          // Pulled before stop() but not handled: hand it back now rather than after ack_wait.
          if (stopping) {
            m.nak();
            continue;
          }
          await handle(m);
          failures = 0;
        }
      } catch (err) {
        if (!stopping) x.log.warn('consumer interrupted; restarting', { durable: o.durable, error: errorText(err) });
      }
      if (stopping || x.nc.isClosed()) break;
      failures++;
      await sleep(Math.min(RESTART_BACKOFF_MAX_MS, 100 * 2 ** Math.min(failures, 6)), stopSignal.signal);
      if (stopping) break;
      try {
        await ensureConsumer(x, o.durable, plan.server);
        consumer = await x.js.consumers.get(x.subjects.stream, o.durable);
      } catch (err) {
        x.log.warn('consumer could not be re-created; retrying', { durable: o.durable, error: errorText(err) });
      }
    }
  })();

  return x.track({
    async stop() {
      if (stopping) return loop;
      stopping = true;
      stopSignal.abort();
      await messages?.close().catch(() => {});
      await loop;
    },
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
