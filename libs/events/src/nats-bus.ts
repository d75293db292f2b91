import { connect, Feature, type NatsConnection, type NatsConnectionImpl } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { ParleyError } from '@parley/protocol';
import type { Bus, ConsumerLag, Stoppable } from './bus';
import { consoleLogger, type EventsLogger } from './log';
import { consume, consumeBatch } from './nats-consume';
import type { NatsCtx } from './nats-context';
import { publishEvent, request, serve } from './nats-requests';
import { desiredStream, ensureStream, type StreamRetention } from './nats-stream';
import type { Subjects } from './subjects';

export { DEFAULT_STREAM_RETENTION, type StreamRetention } from './nats-stream';

export interface NatsBusOptions {
  /** Where to connect; ignored when `nc` is given. */
  servers?: string | string[];
  /** An existing connection to share (the bus then leaves it open on close()). */
  nc?: NatsConnection;
  subjects: Subjects;
  /** Connection name shown by the server (monitoring, `nats server report connections`). */
  name?: string;
  /**
   * TLS for the connection (PEM contents; ignored when `nc` is given): the server is
   * verified against `ca`; `cert`/`key` are presented when the server asks for them.
   * Without it TLS is still used when the server requires it, verified against the system CAs.
   */
  tls?: { ca: string | Buffer; cert?: string | Buffer; key?: string | Buffer };
  /** Per-service credentials (server `authorization.users`); ignored when `nc` is given. */
  user?: string;
  pass?: string;
  /** Token authentication, as an alternative to user/pass; ignored when `nc` is given. */
  token?: string;
  /** Stream replicas (default 1; 3 on a production cluster). */
  streamReplicas?: number;
  /** JetStream de-duplication window for `msgID` = event id (default 10 min). */
  duplicateWindowMs?: number;
  /**
   * The event stream's retention limits (draft-zhou §6.2 event flow: the outbox
   * and the consumers' tables are the durable record; the stream is a bounded
   * buffer between them). Given, they are applied on creation and brought up to
   * date in place on every start (services pass streamRetentionFromEnv); left
   * out, a missing stream is created with DEFAULT_STREAM_RETENTION and an
   * existing one's limits are left as they are (agents and tools do not
   * override what the services configured).
   */
  retention?: Partial<StreamRetention>;
  /** Consumer ack wait: an unacknowledged delivery is redelivered after it (default 30 s). */
  ackWaitMs?: number;
  /**
   * Consumer max_ack_pending of `consume` (default 1): events pulled ahead of
   * the one being handled, kept alive while it is. A `consumeBatch` durable
   * holds its maxBatch. While the process lives the order holds with any value
   * (a failed event is handed to the handler again before any later one); the
   * events a process died holding come back after ack_wait, behind those
   * delivered meanwhile when the window is larger than one.
   */
  maxAckPending?: number;
  /**
   * Heartbeat interval the server keeps on a waiting pull (default 5 s). Two
   * missed ones make the consumer start over, which is also how a consumer
   * deleted under it is noticed on servers that do not report the deletion.
   */
  idleHeartbeatMs?: number;
  /** PubAck wait for publishEvent (default 5 s). */
  publishTimeoutMs?: number;
  /** How long a served subscription's stop() waits for request handlers still running (default 5 s). */
  drainTimeoutMs?: number;
  logger?: EventsLogger;
}

/** Room left in a message for the JetStream headers publishEvent sends (Nats-Msg-Id, Nats-Expected-Stream). */
const HEADER_ROOM = 512;

/** The NATS adapter; `connection` is for the agent SDK and tools that need core NATS directly. */
export interface NatsBus extends Bus {
  readonly connection: NatsConnection;
}

/**
 * The Bus port on NATS: core request/reply in queue groups for agent dispatch,
 * JetStream for events. Ensures the event stream on start (create or update,
 * safe when replicas start together).
 *
 * The units: nats-requests.ts (request/reply, publishing), nats-consume.ts
 * and nats-consumers.ts (durable consumers), nats-stream.ts (the stream),
 * nats-context.ts (what they share).
 */
export async function createNatsBus(opts: NatsBusOptions): Promise<NatsBus> {
  const log = opts.logger ?? consoleLogger;
  const ownsConnection = !opts.nc;
  const nc = opts.nc ?? (await connectNats(opts));
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
    await ensureStream(jsm, desiredStream(opts), opts.retention !== undefined, log);
  } catch (err) {
    if (ownsConnection) await nc.close().catch(() => {});
    throw err;
  }
  const healthJsm = await jetstreamManager(nc, { timeout: 2000, checkAPI: false });
  const running = new Set<Stoppable>();
  /** The durable consumers this bus consumes for (their lag is reported by consumerLag). */
  const durables = new Set<string>();
  let closed = false;
  // Whether the connection to NATS is up, from its status events: a request during an outage is
  // reported as the bus being down (`unavailable`), not as an agent that did not answer.
  let disconnectedSince: number | undefined;
  void (async () => {
    for await (const st of nc.status()) {
      if (st.type === 'disconnect' || st.type === 'reconnecting') disconnectedSince ??= Date.now();
      else if (st.type === 'reconnect') disconnectedSince = undefined;
    }
  })().catch(() => {});
  const x: NatsCtx = {
    nc,
    jsm,
    js: jsm.jetstream(),
    subjects: opts.subjects,
    log,
    // Server 2.10+; older servers take one filter per consumer (see planFilters).
    multiFilter: (nc as Partial<NatsConnectionImpl>).features?.supports(Feature.JS_MULTIPLE_CONSUMER_FILTER) ?? false,
    ackWaitMs: opts.ackWaitMs ?? 30_000,
    maxAckPending: Math.max(1, opts.maxAckPending ?? 1),
    publishTimeoutMs: opts.publishTimeoutMs ?? 5000,
    drainTimeoutMs: opts.drainTimeoutMs ?? 5000,
    idleHeartbeatMs: opts.idleHeartbeatMs ?? 5000,
    assertOpen() {
      if (closed) throw new ParleyError('unavailable', 'The event bus is closed.');
    },
    downSince: () => disconnectedSince,
    track(s) {
      const wrapped: Stoppable = {
        async stop() {
          running.delete(wrapped);
          await s.stop();
        },
      };
      running.add(wrapped);
      return wrapped;
    },
  };

  return {
    connection: nc,
    request: (subject, body, o) => request(x, subject, body, o),
    serve: (subject, queue, handler) => serve(x, subject, queue, handler),
    publishEvent: (event) => publishEvent(x, event),
    async consume(o, handler) {
      x.assertOpen();
      durables.add(o.durable);
      return consume(x, o, handler);
    },
    async consumeBatch(o, handler) {
      x.assertOpen();
      durables.add(o.durable);
      return consumeBatch(x, o, handler);
    },
    async consumerLag() {
      const out: ConsumerLag[] = [];
      for (const durable of durables) {
        try {
          const info = await healthJsm.consumers.info(opts.subjects.stream, durable);
          out.push({ consumer: durable, pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered });
        } catch {
          // Deleted under us, or JetStream unreachable: no figure this time.
        }
      }
      return out;
    },
    maxEventBytes() {
      const max = nc.info?.max_payload;
      return typeof max === 'number' && max > HEADER_ROOM ? max - HEADER_ROOM : 1024 * 1024 - HEADER_ROOM;
    },
    async streamMaxAgeMs() {
      const info = await healthJsm.streams.info(opts.subjects.stream);
      return Math.ceil(Number(info.config.max_age ?? 0) / 1e6);
    },
    async healthy() {
      if (closed || nc.isClosed() || nc.isDraining()) return false;
      try {
        await healthJsm.streams.info(opts.subjects.stream);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running].map((s) => s.stop()));
      if (ownsConnection && !nc.isClosed()) await nc.drain();
    },
  };
}

function connectNats(opts: NatsBusOptions): Promise<NatsConnection> {
  return connect({
    servers: opts.servers ?? 'nats://127.0.0.1:4222',
    // A service outlives NATS restarts: keep reconnecting instead of closing.
    maxReconnectAttempts: -1,
    // No stack captured ahead of every request, publish ack and ack confirmation (an Error per call, a visible
    // share of the services' CPU); errors keep their type and message, which is what the bus maps.
    noAsyncTraces: true,
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.tls ? { tls: natsTls(opts.tls) } : {}),
    ...(opts.user !== undefined ? { user: opts.user } : {}),
    ...(opts.pass !== undefined ? { pass: opts.pass } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
  });
}

/** nats.js TlsOptions take PEM strings. */
function natsTls(t: NonNullable<NatsBusOptions['tls']>): { ca: string; cert?: string; key?: string } {
  const str = (v: string | Buffer) => (typeof v === 'string' ? v : v.toString('utf8'));
  return { ca: str(t.ca), ...(t.cert !== undefined ? { cert: str(t.cert) } : {}), ...(t.key !== undefined ? { key: str(t.key) } : {}) };
}
