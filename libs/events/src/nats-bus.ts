import {
  connect,
  Feature,
  headers as natsHeaders,
  nanos,
  NoRespondersError,
  RequestError,
  TimeoutError,
  type NatsConnection,
  type NatsConnectionImpl,
} from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamManager,
  type JsMsg,
  type StreamConfig,
} from '@nats-io/jetstream';
import { ParleyError } from '@parley/protocol';
import type { Bus, ConsumeOptions, ConsumerLag, Stoppable } from './bus';
import { decodeEvent, encodeEvent } from './codec';
import type { EventEnvelope } from './events';
import { consoleLogger, errorText, settleWithin, type EventsLogger } from './log';
import { matchesAny } from './match';
import type { Subjects } from './subjects';
import { context as otelContext } from '@opentelemetry/api';
import { endSpan, startProcess, startSend, type Carrier } from './tracing';
import type { MsgHdrs } from '@nats-io/transport-node';

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
   * Consumer max_ack_pending (default 1). Only 1 keeps stream order when a
   * handler throws: with more, later events are delivered while the failed one
   * waits for its redelivery.
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

/** Limits of the event stream (JetStream `limits` retention, oldest discarded first). */
export interface StreamRetention {
  /** Events older than this are removed (0: no age limit). */
  maxAgeMs: number;
  /** The stream's size cap in bytes (-1: none). */
  maxBytes: number;
  /** The stream's message cap (-1: none). */
  maxMsgs: number;
}

/**
 * Bounded by default: 7 days (a consumer down longer than that misses the
 * events it had not read; the producers' outbox tables keep them) and 256 MiB,
 * no message cap. JetStream reserves a stream's max_bytes on the server's
 * storage when the stream is created, so the cap is modest; size it to your
 * traffic (PARLEY_STREAM_MAX_BYTES).
 */
export const DEFAULT_STREAM_RETENTION: StreamRetention = { maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, maxMsgs: -1 };

/** Room left in a message for the JetStream headers publishEvent sends (Nats-Msg-Id, Nats-Expected-Stream). */
const HEADER_ROOM = 512;

/** The NATS adapter; `connection` is for the agent SDK and tools that need core NATS directly. */
export interface NatsBus extends Bus {
  readonly connection: NatsConnection;
}

const DEFAULT_RETRY_DELAY_MS = 1000;
const RESTART_BACKOFF_MAX_MS = 5000;

/**
 * The Bus port on NATS: core request/reply in queue groups for agent dispatch,
 * JetStream for events. Ensures the event stream on start (create or update,
 * safe when replicas start together).
 */
export async function createNatsBus(opts: NatsBusOptions): Promise<NatsBus> {
  const { subjects } = opts;
  const log = opts.logger ?? consoleLogger;
  const ownsConnection = !opts.nc;
  const nc =
    opts.nc ??
    (await connect({
      servers: opts.servers ?? 'nats://127.0.0.1:4222',
      // A service outlives NATS restarts: keep reconnecting instead of closing.
      maxReconnectAttempts: -1,
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.tls ? { tls: natsTls(opts.tls) } : {}),
      ...(opts.user !== undefined ? { user: opts.user } : {}),
      ...(opts.pass !== undefined ? { pass: opts.pass } : {}),
      ...(opts.token !== undefined ? { token: opts.token } : {}),
    }));
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const maxAckPending = Math.max(1, opts.maxAckPending ?? 1);
  const publishTimeoutMs = opts.publishTimeoutMs ?? 5000;
  const drainTimeoutMs = opts.drainTimeoutMs ?? 5000;
  const idleHeartbeatMs = opts.idleHeartbeatMs ?? 5000;

  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc);
    await ensureStream(jsm, desiredStream(opts), opts.retention !== undefined, log);
  } catch (err) {
    if (ownsConnection) await nc.close().catch(() => {});
    throw err;
  }
  const js = jsm.jetstream();
  const healthJsm = await jetstreamManager(nc, { timeout: 2000, checkAPI: false });
  // Server 2.10+; older servers take one filter per consumer (see planFilters).
  const multiFilter = (nc as Partial<NatsConnectionImpl>).features?.supports(Feature.JS_MULTIPLE_CONSUMER_FILTER) ?? false;

  // Whether the connection to NATS is up, from its status events: a request during an outage is
  // reported as the bus being down (`unavailable`), not as an agent that did not answer.
  let disconnectedSince: number | undefined;
  void (async () => {
    for await (const st of nc.status()) {
      if (st.type === 'disconnect' || st.type === 'reconnecting') disconnectedSince ??= Date.now();
      else if (st.type === 'reconnect') disconnectedSince = undefined;
    }
  })().catch(() => {});
  const busDown = (subject: string, details: Record<string, unknown>, cause?: unknown, sent = true) =>
    new ParleyError('unavailable', `The message bus (NATS) is unreachable, so the request on ${subject} could not reach an agent or its answer could not come back`, {
      details: { ...details, dependency: 'nats', dispatched: sent, down_for_ms: disconnectedSince === undefined ? 0 : Date.now() - disconnectedSince },
      ...(cause !== undefined ? { cause } : {}),
    });

  const running = new Set<Stoppable>();
  /** The durable consumers this bus consumes for (their lag is reported by consumerLag). */
  const durables = new Set<string>();
  let closed = false;
  const assertOpen = () => {
    if (closed) throw new ParleyError('unavailable', 'The event bus is closed.');
  };
  const track = (s: Stoppable): Stoppable => {
    const wrapped: Stoppable = {
      async stop() {
        running.delete(wrapped);
        await s.stop();
      },
    };
    running.add(wrapped);
    return wrapped;
  };

  async function request(subject: string, body: Uint8Array, o: { timeoutMs: number }): Promise<Uint8Array> {
    assertOpen();
    const details = { subject, timeout_ms: o.timeoutMs };
    if (disconnectedSince !== undefined) throw busDown(subject, details, undefined, false);
    const { span, carrier } = startSend({ subject });
    try {
      const m = await nc.request(subject, body, { timeout: o.timeoutMs, ...(carrier ? { headers: toHeaders(carrier) } : {}) });
      endSpan(span);
      return m.data;
    } catch (err) {
      let e: ParleyError;
      if (err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders())) {
        e = new ParleyError('agent_unavailable', `No agent is serving ${subject}.`, { details, cause: err });
      } else if (err instanceof TimeoutError && disconnectedSince !== undefined) {
        e = busDown(subject, details, err);
      } else if (err instanceof TimeoutError) {
        e = new ParleyError('agent_timeout', `No answer on ${subject} within ${o.timeoutMs} ms.`, { details, cause: err });
      } else {
        e = new ParleyError('unavailable', `NATS request on ${subject} failed: ${errorText(err)}`, { details, cause: err });
      }
      endSpan(span, e, e.type);
      throw e;
    }
  }

  async function serve(subject: string, queue: string, handler: (body: Uint8Array) => Promise<Uint8Array>): Promise<Stoppable> {
    assertOpen();
    const inFlight = new Set<Promise<void>>();
    const sub = nc.subscribe(subject, {
      queue,
      callback: (err, msg) => {
        if (err) {
          log.error('subscription error', { subject, queue, error: errorText(err) });
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
              log.error('request handler threw; no reply sent', { subject, queue, error: errorText(e) });
            },
          )
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
      },
    });
    // Make sure the server has the subscription before the caller announces itself as serving.
    await nc.flush();
    return track({
      async stop() {
        if (!sub.isClosed()) await sub.drain().catch(() => {});
        await settleWithin(inFlight, drainTimeoutMs);
      },
    });
  }

  async function publishEvent(event: EventEnvelope): Promise<void> {
    assertOpen();
    const subject = subjects.event(event.scenario_id, event.type);
    const { span, carrier } = startSend({ subject, messageId: event.id });
    try {
      await js.publish(subject, encodeEvent(event), {
        msgID: event.id,
        expect: { streamName: subjects.stream },
        timeout: publishTimeoutMs,
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

  /**
   * One filter goes to the server as filter_subject; several as filter_subjects
   * when the server has it (2.10+), otherwise the consumer takes the whole
   * stream and the bus acks what does not match without calling the handler.
   */
  function planFilters(filters: string[]): { server: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>; client?: string[] } {
    if (filters.length === 0) return { server: { filter_subject: undefined, filter_subjects: undefined } };
    if (filters.length === 1) return { server: { filter_subject: filters[0], filter_subjects: undefined } };
    if (multiFilter) return { server: { filter_subject: undefined, filter_subjects: filters } };
    return { server: { filter_subject: undefined, filter_subjects: undefined }, client: filters };
  }

  async function ensureConsumer(durable: string, filter: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>): Promise<void> {
    const cfg: Partial<ConsumerConfig> = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      max_ack_pending: maxAckPending,
      // Never give up on an event: a handler that keeps failing holds its consumer back, visibly, instead of losing data.
      max_deliver: -1,
      ...filter,
    };
    if (!multiFilter) {
      let existing: ConsumerInfo | undefined;
      try {
        existing = await jsm.consumers.info(subjects.stream, durable);
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
      }
      if (existing && !sameFilter(existing.config, filter)) {
        // Servers before 2.10 accept a filter change but go on delivering by the old
        // filter; re-create the durable at the position it had acknowledged.
        log.warn('re-creating durable consumer with its new filter', { durable, from_seq: existing.ack_floor.stream_seq + 1 });
        await jsm.consumers.delete(subjects.stream, durable);
        await jsm.consumers.add(subjects.stream, {
          ...cfg,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: existing.ack_floor.stream_seq + 1,
        });
        return;
      }
    }
    try {
      await jsm.consumers.add(subjects.stream, cfg);
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
      // The durable exists with another filter or limits (a new release): update it in place, keeping its position.
      await jsm.consumers.update(subjects.stream, durable, { ack_wait: cfg.ack_wait, max_ack_pending: maxAckPending, ...filter });
    }
  }

  async function consume(o: ConsumeOptions, handler: (event: EventEnvelope) => Promise<void>): Promise<Stoppable> {
    assertOpen();
    durables.add(o.durable);
    const retryDelayMs = o.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    const plan = planFilters([...o.filterSubjects]);
    await ensureConsumer(o.durable, plan.server);
    let consumer = await js.consumers.get(subjects.stream, o.durable);

    let stopping = false;
    let messages: ConsumerMessages | undefined;
    const stopSignal = new AbortController();

    const ack = async (m: JsMsg) => {
      try {
        await m.ackAck({ timeout: 5000 });
      } catch (err) {
        log.warn('ack not confirmed; the event may be delivered again', { durable: o.durable, seq: m.seq, error: errorText(err) });
      }
    };

    const handle = async (m: JsMsg) => {
      if (plan.client && !matchesAny(plan.client, m.subject)) return ack(m);
      let event: EventEnvelope;
      try {
        event = decodeEvent(m.data);
      } catch (err) {
        log.error('undecodable event terminated', { durable: o.durable, seq: m.seq, subject: m.subject, error: errorText(err) });
        m.term('undecodable');
        return;
      }
      // A slow handler must not be mistaken for a dead one and have its event redelivered elsewhere.
      const beat = setInterval(() => m.working(), Math.max(1000, Math.floor(ackWaitMs / 3)));
      const { span, ctx } = startProcess({ subject: m.subject, messageId: event.id, group: o.durable }, fromHeaders(m.headers));
      try {
        await otelContext.with(ctx, () => handler(event));
        endSpan(span);
      } catch (err) {
        endSpan(span, err);
        clearInterval(beat);
        log.warn('event handler threw; redelivering', { durable: o.durable, event_id: event.id, retry_ms: retryDelayMs, error: errorText(err) });
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
          messages = await consumer.consume({ max_messages: maxAckPending, idle_heartbeat: idleHeartbeatMs, expires: Math.max(30_000, idleHeartbeatMs * 3) });
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
          if (!stopping) log.warn('consumer interrupted; restarting', { durable: o.durable, error: errorText(err) });
        }
        if (stopping || nc.isClosed()) break;
        failures++;
        await sleep(Math.min(RESTART_BACKOFF_MAX_MS, 100 * 2 ** Math.min(failures, 6)), stopSignal.signal);
        if (stopping) break;
        try {
          await ensureConsumer(o.durable, plan.server);
          consumer = await js.consumers.get(subjects.stream, o.durable);
        } catch (err) {
          log.warn('consumer could not be re-created; retrying', { durable: o.durable, error: errorText(err) });
        }
      }
    })();

    return track({
      async stop() {
        if (stopping) return loop;
        stopping = true;
        stopSignal.abort();
        await messages?.close().catch(() => {});
        await loop;
      },
    });
  }

  return {
    connection: nc,
    request,
    serve,
    publishEvent,
    consume,
    async consumerLag() {
      const out: ConsumerLag[] = [];
      for (const durable of durables) {
        try {
          const info = await healthJsm.consumers.info(subjects.stream, durable);
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
    async healthy() {
      if (closed || nc.isClosed() || nc.isDraining()) return false;
      try {
        await healthJsm.streams.info(subjects.stream);
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

/** nats.js TlsOptions take PEM strings. */
function natsTls(t: NonNullable<NatsBusOptions['tls']>): { ca: string; cert?: string; key?: string } {
  const str = (v: string | Buffer) => (typeof v === 'string' ? v : v.toString('utf8'));
  return { ca: str(t.ca), ...(t.cert !== undefined ? { cert: str(t.cert) } : {}), ...(t.key !== undefined ? { key: str(t.key) } : {}) };
}

function desiredStream(opts: NatsBusOptions): StreamConfig {
  const duplicateWindowMs = opts.duplicateWindowMs ?? 10 * 60_000;
  const r: StreamRetention = { ...DEFAULT_STREAM_RETENTION, ...opts.retention };
  if (!Number.isInteger(r.maxAgeMs) || r.maxAgeMs < 0) throw new Error(`retention.maxAgeMs must be an integer >= 0, got ${r.maxAgeMs}`);
  for (const k of ['maxBytes', 'maxMsgs'] as const) {
    if (!Number.isInteger(r[k]) || (r[k] < 1 && r[k] !== -1)) throw new Error(`retention.${k} must be a positive integer or -1 (none), got ${r[k]}`);
  }
  if (r.maxAgeMs > 0 && duplicateWindowMs > r.maxAgeMs) {
    throw new Error(`duplicateWindowMs (${duplicateWindowMs}) must not exceed retention.maxAgeMs (${r.maxAgeMs})`);
  }
  return {
    name: opts.subjects.stream,
    subjects: opts.subjects.streamSubjects(),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: opts.streamReplicas ?? 1,
    duplicate_window: nanos(duplicateWindowMs),
    max_age: nanos(r.maxAgeMs),
    max_bytes: r.maxBytes,
    max_msgs: r.maxMsgs,
  } as StreamConfig;
}

/**
 * Creates the stream or brings it to the wanted config. Subjects are only ever
 * added: during a rolling upgrade an older replica must not remove the subject
 * of an event type a newer one already publishes. The retention limits are
 * updated in place only when `ownLimits` (the caller was configured with them).
 */
async function ensureStream(jsm: JetStreamManager, want: StreamConfig, ownLimits: boolean, log: EventsLogger): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    let have: StreamConfig | undefined;
    try {
      have = (await jsm.streams.info(want.name)).config;
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    }
    try {
      if (!have) {
        await jsm.streams.add(want);
        return;
      }
      const subjectsUnion = [...new Set([...have.subjects, ...want.subjects])];
      const limits = ownLimits
        ? { max_age: want.max_age, max_bytes: want.max_bytes, max_msgs: want.max_msgs }
        : { max_age: have.max_age, max_bytes: have.max_bytes, max_msgs: have.max_msgs };
      const same =
        subjectsUnion.length === have.subjects.length &&
        have.duplicate_window === want.duplicate_window &&
        have.max_age === limits.max_age &&
        have.max_bytes === limits.max_bytes &&
        have.max_msgs === limits.max_msgs &&
        have.num_replicas === want.num_replicas;
      if (same) return;
      if (have.storage !== want.storage) {
        log.warn('event stream has another storage type; it cannot be changed in place', { stream: want.name, storage: have.storage });
      }
      await jsm.streams.update(want.name, {
        subjects: subjectsUnion,
        duplicate_window: want.duplicate_window,
        ...limits,
        num_replicas: want.num_replicas,
      });
      return;
    } catch (err) {
      // Another process created or changed the stream between our read and write: read again.
      if (attempt < 3 && err instanceof JetStreamApiError) continue;
      throw err;
    }
  }
}

function sameFilter(have: Partial<ConsumerConfig>, want: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>): boolean {
  const norm = (c: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>) =>
    [...(c.filter_subjects ?? []), ...(c.filter_subject ? [c.filter_subject] : [])].filter((f) => f !== '>').sort().join(' ');
  return norm(have) === norm(want);
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

/** A trace carrier as NATS headers. */
function toHeaders(carrier: Carrier): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(carrier)) h.set(k, v);
  return h;
}

/** The W3C trace headers of a message, if it has any. */
function fromHeaders(h: MsgHdrs | undefined): Carrier | undefined {
  if (!h) return undefined;
  const out: Carrier = {};
  for (const k of ['traceparent', 'tracestate', 'baggage']) if (h.has(k)) out[k] = h.get(k);
  return Object.keys(out).length > 0 ? out : undefined;
}
