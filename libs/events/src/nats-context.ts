import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Stoppable } from './bus';
import type { EventsLogger } from './log';
import type { Subjects } from './subjects';
import type { Carrier } from './tracing';

/** What the parts of the NATS adapter (nats-bus.ts) share: the connection, JetStream, the settings. */
export interface NatsCtx {
  nc: NatsConnection;
  jsm: JetStreamManager;
  js: JetStreamClient;
  subjects: Subjects;
  log: EventsLogger;
  /** The server takes several filter subjects per consumer (2.10+). */
  multiFilter: boolean;
  ackWaitMs: number;
  maxAckPending: number;
  publishTimeoutMs: number;
  drainTimeoutMs: number;
  idleHeartbeatMs: number;
  /** Throws `unavailable` once the bus is closed. */
  assertOpen(): void;
  /** Since when (ms) the connection to NATS is down, from its status events; undefined while it is up. */
  downSince(): number | undefined;
  /** Registers what close() stops. */
  track(s: Stoppable): Stoppable;
}

/** A trace carrier as NATS headers. */
export function toHeaders(carrier: Carrier): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(carrier)) h.set(k, v);
  return h;
}

/** The W3C trace headers of a message, if it has any. */
export function fromHeaders(h: MsgHdrs | undefined): Carrier | undefined {
  if (!h) return undefined;
  const out: Carrier = {};
  for (const k of ['traceparent', 'tracestate', 'baggage']) if (h.has(k)) out[k] = h.get(k);
  return Object.keys(out).length > 0 ? out : undefined;
}
