import { context as otelContext } from '@opentelemetry/api';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { ParleyError } from '@parley/protocol';
import type { Stoppable } from './bus';
import { encodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { errorText, settleWithin } from './log';
import { fromHeaders, toHeaders, type NatsCtx } from './nats-context';
import { endSpan, startProcess, startSend } from './tracing';

// Core NATS request/reply in queue groups (agent dispatch) and JetStream publishing, for nats-bus.ts.

/** The bus itself is down: say so (dependency nats, whether the request left) instead of blaming the agent. */
function busDown(x: NatsCtx, subject: string, details: Record<string, unknown>, cause?: unknown, sent = true): ParleyError {
  const since = x.downSince();
  return new ParleyError('unavailable', `The message bus (NATS) is unreachable, so the request on ${subject} could not reach an agent or its answer could not come back`, {
    details: { ...details, dependency: 'nats', dispatched: sent, down_for_ms: since === undefined ? 0 : Date.now() - since },
    ...(cause !== undefined ? { cause } : {}),
  });
}

export async function request(x: NatsCtx, subject: string, body: Uint8Array, o: { timeoutMs: number }): Promise<Uint8Array> {
  x.assertOpen();
  const details = { subject, timeout_ms: o.timeoutMs };
  if (x.downSince() !== undefined) throw busDown(x, subject, details, undefined, false);
  const { span, carrier } = startSend({ subject });
  try {
    const m = await x.nc.request(subject, body, { timeout: o.timeoutMs, ...(carrier ? { headers: toHeaders(carrier) } : {}) });
    endSpan(span);
    return m.data;
  } catch (err) {
    let e: ParleyError;
    if (err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders())) {
      e = new ParleyError('agent_unavailable', `No agent is serving ${subject}.`, { details, cause: err });
    } else if (err instanceof TimeoutError && x.downSince() !== undefined) {
      e = busDown(x, subject, details, err);
    } else if (err instanceof TimeoutError) {
      e = new ParleyError('agent_timeout', `No answer on ${subject} within ${o.timeoutMs} ms.`, { details, cause: err });
    } else {
      e = new ParleyError('unavailable', `NATS request on ${subject} failed: ${errorText(err)}`, { details, cause: err });
    }
    endSpan(span, e, e.type);
    throw e;
  }
}

export async function serve(x: NatsCtx, subject: string, queue: string, handler: (body: Uint8Array) => Promise<Uint8Array>): Promise<Stoppable> {
  x.assertOpen();
  const inFlight = new Set<Promise<void>>();
  const sub = x.nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        x.log.error('subscription error', { subject, queue, error: errorText(err) });
        return;
      }
      // The requester's trace continues here (the agent SDK's handler runs inside this span).
      const { span, ctx } = startProcess({ subject: msg.subject, group: queue }, fromHeaders(msg.headers));
      const run: Promise<void> = otelContext
        .with(ctx, () => Promise.resolve().then(() => handler(msg.data)))
        .then(
          (reply) => {
            endSpan(span);
            void msg.respond(reply);
          },
          // The bus carries bytes only; a handler reports failures inside its reply. A throw is a bug: no reply, the requester times out.
          (e: unknown) => {
            endSpan(span, e);
            x.log.error('request handler threw; no reply sent', { subject, queue, error: errorText(e) });
          },
        )
        .finally(() => inFlight.delete(run));
      inFlight.add(run);
    },
  });
  // Make sure the server has the subscription before the caller announces itself as serving.
  await x.nc.flush();
  return x.track({
    async stop() {
      if (!sub.isClosed()) await sub.drain().catch(() => {});
      await settleWithin(inFlight, x.drainTimeoutMs);
    },
  });
}

export async function publishEvent(x: NatsCtx, event: EventEnvelope): Promise<void> {
  x.assertOpen();
  const subject = x.subjects.event(event.scenario_id, event.type);
  const { span, carrier } = startSend({ subject, messageId: event.id });
  try {
    await x.js.publish(subject, encodeEvent(event), {
      msgID: event.id,
      expect: { streamName: x.subjects.stream },
      timeout: x.publishTimeoutMs,
      ...(carrier ? { headers: toHeaders(carrier) } : {}),
    });
    endSpan(span);
  } catch (err) {
    const e = new ParleyError('unavailable', `Event ${event.id} was not stored: ${errorText(err)}`, {
      cause: err,
      details: { subject, event_id: event.id },
    });
    endSpan(span, e, e.type);
    throw e;
  }
}
