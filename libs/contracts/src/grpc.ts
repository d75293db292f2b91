import {
  Metadata,
  Server,
  ServerCredentials,
  credentials as grpcCredentials,
  makeGenericClientConstructor,
  status as GrpcCode,
  type ChannelCredentials,
  type Client,
  type ClientReadableStream,
  type ServiceError,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { authorize, policyKey, type Authenticator, type Principal } from '@parley/auth';
import { randomUUID } from 'node:crypto';
import { ERROR_CATALOGUE, ParleyError, assertEdgeClean, toParleyError, type SerializedError } from '@parley/protocol';

/**
 * gRPC glue over the ts-proto definitions: a promise-based view of a service
 * (`UnaryApi`) that services implement and clients call, and the one place
 * where a ParleyError becomes a gRPC status and back. The typed error travels
 * JSON-encoded in the `parley-error-bin` trailer; its status code comes from
 * ERROR_CATALOGUE, so every transport maps errors from the same table. A client
 * takes HTTP/2 (`transport: 'grpc'`) or, to a server of its own process, the
 * in-process transport (`'inproc'`, below), which calls the same grpc-js handlers.
 */

interface UnaryMethod {
  path: string;
  requestStream: false;
  responseStream: false;
  requestSerialize: (value: never) => Buffer;
  responseDeserialize: (value: Buffer) => unknown;
  requestDeserialize?: (value: Buffer) => unknown;
  responseSerialize?: (value: never) => Buffer;
}
/** A server-streaming method (`rpc M(Req) returns (stream Res)`): one request, a stream of responses. */
interface ServerStreamingMethod {
  path: string;
  requestStream: false;
  responseStream: true;
  requestSerialize: (value: never) => Buffer;
  responseDeserialize: (value: Buffer) => unknown;
  requestDeserialize?: (value: Buffer) => unknown;
  responseSerialize?: (value: never) => Buffer;
}
type ServiceDefinition = Record<string, UnaryMethod>;
/** A service with unary and server-streaming methods (client streaming is not supported). */
type AnyServiceDefinition = Record<string, UnaryMethod | ServerStreamingMethod>;
type RequestOf<M> = M extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer R } ? R : never;

/** Per-call context a handler sees. */
export interface CallContext {
  metadata: Metadata;
  /**
   * Who called (draft-zhou §7): set by the binding after it authenticated
   * the call's `authorization` metadata and checked the method's roles. Absent only
   * when an implementation is called directly (tests), not through a binding
   * (over gRPC or the in-process transport).
   */
  principal?: Principal;
  /**
   * Server-streaming calls only: aborted when the client cancels, the deadline
   * passes or the server shuts down. A client passes one to cancel its stream.
   */
  signal?: AbortSignal;
}

/** A service as promise-returning methods, derived from its generated definition. */
export type UnaryApi<S extends ServiceDefinition> = {
  [K in keyof S]: (request: RequestOf<S[K]>, ctx?: CallContext) => Promise<ResponseOf<S[K]>>;
};

/**
 * A service with server-streaming methods: unary methods as in UnaryApi, and
 * each streaming method as a function returning an AsyncIterable of its
 * responses. A server implements it with an async generator (every yielded
 * message is written in order, with back-pressure; a throw ends the stream
 * with the typed error); a client iterates it (breaking out cancels the call).
 * For a unary-only service it is exactly UnaryApi.
 */
export type StreamingApi<S extends AnyServiceDefinition> = {
  [K in keyof S]: S[K] extends { responseStream: true }
    ? (request: RequestOf<S[K]>, ctx?: CallContext) => AsyncIterable<ResponseOf<S[K]>>
    : (request: RequestOf<S[K]>, ctx?: CallContext) => Promise<ResponseOf<S[K]>>;
};

const ERROR_TRAILER = 'parley-error-bin';

// ---------------------------------------------------------------------------
// Tracing (OpenTelemetry RPC semantic conventions for gRPC): a CLIENT span per
// call whose context travels as W3C `traceparent` (and `tracestate`, `baggage`)
// metadata, and a SERVER span per call continuing it. Without an SDK registered
// (libs/runtime tracing.ts) these are no-ops.
// ---------------------------------------------------------------------------

/** The tracer, asked of the global provider at each use: a provider installed (or replaced) after this module loaded is the one used. */
const tracer = () => trace.getTracer('@parley/contracts');

const metadataSetter: TextMapSetter<Metadata> = {
  set: (md, key, value) => void md.set(key, value),
};
const metadataGetter: TextMapGetter<Metadata> = {
  keys: (md) => Object.keys(md.getMap()),
  get: (md, key) => {
    const v = md.get(key).filter((x): x is string => typeof x === 'string');
    return v.length === 0 ? undefined : v.length === 1 ? v[0] : v;
  },
};

/** The gRPC status name of a code (rpc.response.status_code). */
function statusName(code: number | undefined): string {
  const name = code === undefined ? undefined : (GrpcCode as unknown as Record<number, string>)[code];
  return name ?? 'UNKNOWN';
}

/** `parley.v1.ExecutionService/Execute` (rpc.method) and its parts from a method path. */
function rpcName(path: string): { full: string; service: string; method: string } {
  const full = path.replace(/^\//, '');
  const [svc = full, method = full] = full.split('/');
  return { full, service: svc.slice(svc.lastIndexOf('.') + 1), method };
}

function endSpan(span: Span, err: unknown): void {
  if (err === undefined) {
    span.setAttribute('rpc.response.status_code', 'OK');
  } else {
    const e = toParleyError(err);
    const code = statusName(ERROR_CATALOGUE[e.type].grpc);
    span.setAttributes({ 'rpc.response.status_code': code, 'error.type': code, 'parley.error.type': e.type });
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.message.slice(0, 200) });
  }
  span.end();
}

/** Starts the server span of a call, as the child of the context its metadata carries. */
function serverSpan(path: string, md: Metadata): { span: Span; ctx: Context } {
  const parent = propagation.extract(context.active(), md, metadataGetter);
  const { full } = rpcName(path);
  const span = tracer().startSpan(full, { kind: SpanKind.SERVER, attributes: { 'rpc.system.name': 'grpc', 'rpc.method': full } }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/**
 * Observes the calls a binding serves (libs/runtime Metrics.grpc): the gRPC
 * service and method names, the error type when it failed, and the seconds taken.
 */
export type GrpcObserver = (service: string, method: string, errorType: string | undefined, seconds: number) => void;

/** The one call of a logger an internal failure needs (libs/runtime Logger satisfies it). */
export interface InternalLog {
  error(msg: string, fields?: Record<string, unknown>): void;
}

const stderrLog: InternalLog = {
  error: (msg, fields) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg, ...fields })}\n`),
};

/** A cause as a log line shows it: name, message, the first stack frames, its own cause. */
function causeOf(e: unknown, depth = 0): unknown {
  if (!(e instanceof Error)) return e === undefined ? undefined : String(e).slice(0, 2000);
  return {
    name: e.name,
    message: e.message.slice(0, 2000),
    ...(e.stack ? { stack: e.stack.split('\n').slice(0, 8).join('\n') } : {}),
    ...(e.cause !== undefined && depth < 3 ? { cause: causeOf(e.cause, depth + 1) } : {}),
  };
}

/**
 * A handler's failure as the caller gets it: typed errors pass; an `internal` one is logged here
 * with its cause and a correlation id, and the caller gets the opaque error carrying that id
 * (details.correlation_id), which the gateway passes on to the client.
 */
export function logInternal(err: unknown, method: string, log: InternalLog = stderrLog): unknown {
  const e = toParleyError(err);
  if (e.type !== 'internal' || typeof e.details.correlation_id === 'string') return err;
  const correlationId = randomUUID();
  log.error('grpc handler failed', { method, correlation_id: correlationId, cause: causeOf(e.cause ?? err) });
  return new ParleyError('internal', 'Internal error', { details: { correlation_id: correlationId } });
}

export function toServiceError(e: unknown): Partial<ServiceError> {
  const err = toParleyError(e);
  const metadata = new Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify(err.toJSON()), 'utf8'));
  return { code: ERROR_CATALOGUE[err.type].grpc, details: err.message, metadata };
}

export function fromServiceError(e: ServiceError, target: string): ParleyError {
  const raw = e.metadata?.get(ERROR_TRAILER)?.[0];
  if (raw) {
    try {
      return ParleyError.fromJSON(JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw)) as SerializedError);
    } catch {
      // fall through: an unparseable trailer is treated like a plain status
    }
  }
  if (e.code === GrpcCode.UNAVAILABLE || e.code === GrpcCode.DEADLINE_EXCEEDED) {
    // Named by its service, never by its address: a client has no business knowing the internal host:port.
    return new ParleyError('unavailable', `${target} is unavailable${e.code === GrpcCode.DEADLINE_EXCEEDED ? ' (no answer within the deadline)' : ''}`, {
      cause: e,
      details: { service: target },
    });
  }
  return new ParleyError('internal', 'Internal error', { cause: e });
}

/**
 * A method's guard (draft-zhou §7): given the authenticated principal, checks what
 * the request names (a server agent's own namespace, a task's parties) and
 * returns the request the implementation sees, with every identity member
 * (client_id, send_from) set from the principal. Throws a typed denial.
 */
export type Guard<Req> = (request: Req, principal: Principal) => Req | Promise<Req>;
export type Guards<S extends AnyServiceDefinition> = Partial<{ [K in keyof S]: Guard<RequestOf<S[K]>> }>;

/** How a binding admits calls: every call is authenticated, its roles checked (libs/auth POLICY), then guarded. */
export interface ServiceAuth<S extends AnyServiceDefinition> {
  authenticator: Authenticator;
  /** Where an `internal` failure's cause is logged (default: a JSON line on stderr). */
  log?: InternalLog;
  guards?: Guards<S>;
  /** Called once per served call (metrics); optional. */
  observe?: GrpcObserver;
}

/** The `authorization` metadata of a call, as sent. */
function authorizationOf(md: Metadata): string | undefined {
  const v = md.get('authorization')[0];
  return typeof v === 'string' ? v : undefined;
}

/** Adapts a UnaryApi (or StreamingApi) implementation to grpc-js handlers; every call passes `auth` first. */
export function toGrpcHandlers<S extends AnyServiceDefinition>(
  definition: S,
  impl: StreamingApi<S>,
  auth: ServiceAuth<S>,
  streams?: ActiveStreams,
): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {};
  for (const name of Object.keys(definition)) {
    const path = definition[name]?.path ?? name;
    const method = policyKey(path);
    const names = rpcName(path);
    const full = names.full;
    const observe = auth.observe;
    const guard = auth.guards?.[name as keyof S] as Guard<unknown> | undefined;
    /** Authenticates, authorizes and guards one call: the request and principal the implementation gets. */
    const admit = async (request: unknown, metadata: Metadata): Promise<{ request: unknown; principal: Principal }> => {
      const principal = await auth.authenticator.authenticate(authorizationOf(metadata));
      authorize(principal, method);
      // The gRPC edge checks every string as the gateway's faces do: no NUL, no unpaired surrogate, bounded nesting.
      assertEdgeClean(request, 'request');
      return { request: guard ? await guard(request, principal) : request, principal };
    };
    if (definition[name]?.responseStream === true) {
      const stream = impl[name as keyof S] as (req: unknown, ctx: CallContext) => AsyncIterable<unknown>;
      handlers[name] = (call: ServerWritableStream<unknown, unknown>) => {
        const { span, ctx } = serverSpan(path, call.metadata);
        const started = performance.now();
        void context.with(ctx, () =>
          serveStream(
            call,
            async function* (req, c) {
              const admitted = await admit(req, c.metadata);
              yield* stream.call(impl, admitted.request, { ...c, principal: admitted.principal });
            },
            streams,
            (err) => {
              endSpan(span, err);
              observe?.(names.service, names.method, err === undefined ? undefined : toParleyError(err).type, (performance.now() - started) / 1000);
            },
          ),
        );
      };
      continue;
    }
    const unary = impl[name as keyof S] as (req: unknown, ctx: CallContext) => Promise<unknown>;
    handlers[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const { span, ctx } = serverSpan(path, call.metadata);
      const started = performance.now();
      const done = (err: unknown) => {
        endSpan(span, err);
        observe?.(names.service, names.method, err === undefined ? undefined : toParleyError(err).type, (performance.now() - started) / 1000);
      };
      context.with(ctx, () =>
        admit(call.request, call.metadata)
          .then((a) => unary.call(impl, a.request, { metadata: call.metadata, principal: a.principal }))
          .then(
            (res) => {
              done(undefined);
              callback(null, res);
            },
            (err: unknown) => {
              done(err);
              callback(toServiceError(logInternal(err, full, auth.log)));
            },
          ),
      );
    };
  }
  return handlers;
}

/** The server-streaming calls in progress of one binding, ended when the server stops. */
export interface ActiveStreams {
  readonly calls: Set<AbortController>;
}

const SHUTDOWN = 'server shutting down';

/**
 * Runs one server-streaming call: writes what the handler yields, in order and
 * respecting back-pressure, then ends with OK; a throw ends it with the typed
 * error in the trailer (as unary calls). A cancelled call, a passed deadline or
 * a server shutdown aborts `ctx.signal` and returns the handler's iterator, so
 * a generator's `finally` runs. A shutdown ends the call with `unavailable`:
 * the client reconnects and resumes (each service documents its cursor).
 */
async function serveStream(
  call: ServerWritableStream<unknown, unknown>,
  run: (req: unknown, ctx: CallContext) => AsyncIterable<unknown>,
  streams: ActiveStreams | undefined,
  onEnd?: (err: unknown) => void,
): Promise<void> {
  const abort = new AbortController();
  streams?.calls.add(abort);
  const onCancel = () => abort.abort(new Error('cancelled by the client'));
  call.on('cancelled', onCancel);
  const finish = (err: unknown) => {
    onEnd?.(err);
    if (call.cancelled) return;
    if (abort.signal.aborted && abort.signal.reason === SHUTDOWN) {
      call.emit('error', toServiceError(new ParleyError('unavailable', 'The server is shutting down; resume the stream on another connection')));
    } else if (err !== undefined) {
      call.emit('error', toServiceError(err));
    } else {
      call.end();
    }
  };
  let iterator: AsyncIterator<unknown> | undefined;
  const stopIterating = () => void iterator?.return?.().catch(() => {});
  abort.signal.addEventListener('abort', stopIterating, { once: true });
  try {
    iterator = run(call.request, { metadata: call.metadata, signal: abort.signal })[Symbol.asyncIterator]();
    for (;;) {
      const next = await iterator.next();
      if (next.done || abort.signal.aborted) break;
      if (!call.write(next.value)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            call.off('drain', done);
            abort.signal.removeEventListener('abort', done);
            resolve();
          };
          call.on('drain', done);
          abort.signal.addEventListener('abort', done, { once: true });
        });
      }
    }
    finish(undefined);
  } catch (e) {
    finish(e);
  } finally {
    call.off('cancelled', onCancel);
    abort.signal.removeEventListener('abort', stopIterating);
    streams?.calls.delete(abort);
  }
}

export interface GrpcServerHandle {
  port: number;
  /** Stops accepting calls, lets in-flight calls finish (up to graceMs), then forces. */
  stop(graceMs?: number): Promise<void>;
}

export interface ServiceBinding {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  definition: any;
  handlers: UntypedServiceImplementation;
  /** Server-streaming calls in progress (services with streaming methods); ended first when the server stops. */
  streams?: ActiveStreams;
}

/** Binds an implementation: every call is authenticated, authorized by role and guarded (`auth`) before it runs. */
export function bindService<S extends AnyServiceDefinition>(definition: S, impl: StreamingApi<S>, auth: ServiceAuth<S>): ServiceBinding {
  const streams: ActiveStreams = { calls: new Set() };
  return { definition, handlers: toGrpcHandlers(definition, impl, auth, streams), streams };
}

/**
 * PEM material for gRPC over TLS (draft-zhou §7): the server presents cert/key
 * and the client verifies it against ca; a client also presents its cert/key
 * when given (the server does not require one).
 */
export interface GrpcTls {
  cert: Buffer | string;
  key: Buffer | string;
  ca: Buffer | string;
}

const pem = (v: Buffer | string): Buffer => (Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'));

/** Server credentials: TLS with `tls` (client certificates not required), else insecure. */
export function grpcServerCredentials(tls?: GrpcTls | null): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(pem(tls.ca), [{ cert_chain: pem(tls.cert), private_key: pem(tls.key) }], false);
}

/** Channel credentials: TLS verified against `tls.ca` (presenting tls.cert/key when given), else insecure. */
export function grpcChannelCredentials(tls?: Partial<GrpcTls> & Pick<GrpcTls, 'ca'> | null): ChannelCredentials {
  if (!tls) return grpcCredentials.createInsecure();
  const withCert = tls.cert !== undefined && tls.key !== undefined;
  return grpcCredentials.createSsl(pem(tls.ca), withCert ? pem(tls.key as Buffer | string) : null, withCert ? pem(tls.cert as Buffer | string) : null);
}

export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  services: ServiceBinding[];
  credentials?: ServerCredentials;
  /** Serve over TLS (ignored when `credentials` is given); default insecure. */
  tls?: GrpcTls | null;
}): Promise<GrpcServerHandle> {
  const server = new Server({ 'grpc.max_receive_message_length': SERVER_MAX_RECEIVE });
  for (const s of opts.services) server.addService(s.definition, withLiveCancel(s.definition as AnyServiceDefinition, s.handlers));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host ?? '0.0.0.0'}:${opts.port}`, opts.credentials ?? grpcServerCredentials(opts.tls), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  // Clients of this process that chose the in-process transport reach these handlers by port.
  const local = registerLocalServer(port, opts.services);
  return {
    port,
    stop: (graceMs = 5000) => {
      if (localServers.get(port) === local) localServers.delete(port);
      // Streams never finish on their own: end them, so that the shutdown waits only for unary calls.
      for (const s of opts.services) for (const c of s.streams?.calls ?? []) c.abort(SHUTDOWN);
      const network = new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      // The in-process unary calls in flight finish too, within the same grace.
      const inproc = new Promise<void>((resolve) => {
        const force = setTimeout(resolve, graceMs);
        force.unref();
        void Promise.allSettled([...local.inFlight]).then(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return Promise.all([network, inproc]).then(() => undefined);
    },
  };
}

/**
 * The streaming handlers of `handlers` with 'cancelled' meaning what it means in the in-process
 * transport: the client went away, the deadline passed or the server shut down while the call was
 * live. grpc-js also emits it when the stream closes after the server ended the call (end, an
 * error status, a handler that threw), which a handler cannot tell from a cancel; that one is dropped.
 */
function withLiveCancel(definition: AnyServiceDefinition, handlers: UntypedServiceImplementation): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = { ...handlers };
  for (const name of Object.keys(definition)) {
    const handler = handlers[name];
    if (definition[name]?.responseStream !== true || typeof handler !== 'function') continue;
    out[name] = (call: ServerWritableStream<unknown, unknown>) => {
      let ended = false;
      const end = call.end.bind(call) as (...a: unknown[]) => ServerWritableStream<unknown, unknown>;
      const emit = call.emit.bind(call);
      call.end = ((...a: unknown[]) => {
        ended = true;
        return end(...a);
      }) as typeof call.end;
      call.emit = ((event: string | symbol, ...a: unknown[]) => {
        if (event === 'error') ended = true;
        else if (event === 'cancelled' && ended) return false;
        return emit(event, ...a);
      }) as typeof call.emit;
      try {
        (handler as StreamHandler)(call);
      } catch (e) {
        ended = true;
        throw e;
      }
    };
  }
  return out;
}

export interface GrpcClient<S extends AnyServiceDefinition> {
  api: StreamingApi<S>;
  /** Resolves when the channel is connected, rejects after timeoutMs. */
  waitForReady(timeoutMs: number): Promise<void>;
  close(): void;
}

/**
 * A promise-based client for `definition` at `address` (host:port); every unary
 * call gets a deadline. A server-streaming method returns an AsyncIterable of
 * its responses, without a deadline (`streamDeadlineMs` sets one): breaking out
 * of the loop or aborting `ctx.signal` cancels the call; a failure is thrown
 * from the loop as a ParleyError.
 */
export function createGrpcClient<S extends AnyServiceDefinition>(
  definition: S,
  address: string,
  opts: {
    deadlineMs?: number;
    streamDeadlineMs?: number;
    credentials?: ChannelCredentials;
    serviceName?: string;
    /** Connect over TLS (ignored when `credentials` is given); default insecure. */
    tls?: (Partial<GrpcTls> & Pick<GrpcTls, 'ca'>) | null;
    /**
     * The bearer credential sent as `authorization` metadata on every call (a
     * service's PARLEY_SERVICE_TOKEN, an API key, a JWT), unless the call's own
     * metadata carries one (the gateway forwarding its caller's; see withAuthorization).
     */
    credential?: string;
    /**
     * `inproc`: call the server of this process listening at `address`'s port
     * without a socket (the one-process mode); every contract is kept as over gRPC
     * (see localUnary). Default `grpc`.
     */
    transport?: GrpcTransport;
  } = {},
): GrpcClient<S> {
  if (opts.transport === 'inproc') return createInprocClient(definition, address, opts);
  const Ctor = makeGenericClientConstructor(definition as never, opts.serviceName ?? 'Service');
  const client = new Ctor(address, opts.credentials ?? grpcChannelCredentials(opts.tls)) as unknown as Client &
    Record<string, (req: unknown, md: Metadata, o: { deadline: Date }, cb: (e: ServiceError | null, r: unknown) => void) => void>;
  const deadlineMs = opts.deadlineMs ?? 10_000;
  const metadataOf = outgoingMetadata(opts.credential, false);
  const { serviceName, peer } = farEnd(definition, address);
  const api = {} as Record<string, (req: unknown, ctx?: CallContext) => unknown>;
  for (const name of Object.keys(definition)) {
    if (definition[name]?.responseStream === true) {
      // The stream carries the caller's trace context; its life is the caller's loop, so it has no span of its own.
      api[name] = (req, ctx) =>
        clientStream(client as unknown as Record<string, StreamCall>, name, req, { ...ctx, metadata: metadataOf(ctx, trace.getSpan(context.active())) }, serviceName, opts.streamDeadlineMs);
      continue;
    }
    const full = rpcName(definition[name]?.path ?? name).full;
    api[name] = (req, ctx) =>
      new Promise((resolve, reject) => {
        const fn = client[name];
        if (!fn) return reject(new ParleyError('internal', `No gRPC method ${name}`));
        const span = tracer().startSpan(full, { kind: SpanKind.CLIENT, attributes: { ...peer, 'rpc.system.name': 'grpc', 'rpc.method': full } });
        fn.call(client, req, metadataOf(ctx, span), { deadline: new Date(Date.now() + deadlineMs) }, (err, res) => {
          if (err) {
            const e = fromServiceError(err, serviceName);
            endSpan(span, e);
            reject(e);
          } else {
            endSpan(span, undefined);
            resolve(res);
          }
        });
      });
  }
  return {
    api: api as StreamingApi<S>,
    waitForReady: (timeoutMs) =>
      new Promise<void>((resolve, reject) =>
        client.waitForReady(new Date(Date.now() + timeoutMs), (err) => (err ? reject(err) : resolve())),
      ),
    close: () => client.close(),
  };
}

/**
 * The metadata a call sends: the caller's, with the client's credential (as `Bearer …`) unless the call
 * brings its own, and `span`'s context injected (W3C traceparent) when there is a trace to continue. The
 * caller's metadata may be shared between calls (withAuthorization) and is never changed: it is copied
 * once when something is added, or when `copy` asks for a copy of its own (the in-process transport, whose
 * server must not share an object with its caller, as over gRPC where it decodes its own).
 */
function outgoingMetadata(credential: string | undefined, copy: boolean): (ctx: CallContext | undefined, span: Span | undefined) => Metadata {
  const bearer = credential !== undefined ? `Bearer ${credential}` : undefined;
  return (ctx, span) => {
    const given = ctx?.metadata;
    const addBearer = bearer !== undefined && (given === undefined || given.get('authorization').length === 0);
    const addTrace = span !== undefined && trace.isSpanContextValid(span.spanContext());
    const md = given === undefined ? new Metadata() : addBearer || addTrace || copy ? given.clone() : given;
    if (addBearer) md.set('authorization', bearer);
    if (addTrace) propagation.inject(trace.setSpan(context.active(), span), md, metadataSetter);
    return md;
  };
}

/**
 * How a client names its server: the service (e.g. "ExecutionService", in errors: its address
 * stays in logs and traces, out of clients' sight) and the peer attributes of its spans.
 */
function farEnd(definition: AnyServiceDefinition, address: string) {
  const [host, port] = splitAddress(address);
  const serviceName = rpcName((Object.values(definition)[0] as { path?: string } | undefined)?.path ?? '/service/x').service;
  const peer = { 'server.address': host, ...(port !== undefined ? { 'server.port': port } : {}) };
  return { serviceName, peer, port };
}

/**
 * createGrpcClient with `transport: 'inproc'`: the same calls, metadata, client spans,
 * deadlines and errors, to the server of this process at `address`'s port (looked up
 * at each call: a server started later, or stopped, is seen as over gRPC).
 */
function createInprocClient<S extends AnyServiceDefinition>(
  definition: S,
  address: string,
  opts: { deadlineMs?: number; streamDeadlineMs?: number; credential?: string },
): GrpcClient<S> {
  const deadlineMs = opts.deadlineMs ?? 10_000;
  // The server's own copy, made once per call.
  const metadataOf = outgoingMetadata(opts.credential, true);
  const { serviceName, peer, port } = farEnd(definition, address);
  let closed = false;
  const api = {} as Record<string, (req: unknown, ctx?: CallContext) => unknown>;
  for (const name of Object.keys(definition)) {
    const path = definition[name]?.path ?? name;
    if (definition[name]?.responseStream === true) {
      api[name] = (req, ctx) =>
        localStream(closed ? undefined : port, path, serviceName, req, { ...ctx, metadata: metadataOf(ctx, trace.getSpan(context.active())) }, opts.streamDeadlineMs);
      continue;
    }
    const full = rpcName(path).full;
    api[name] = (req, ctx) => {
      const span = tracer().startSpan(full, { kind: SpanKind.CLIENT, attributes: { ...peer, 'rpc.system.name': 'grpc', 'rpc.method': full } });
      return localUnary(closed ? undefined : port, path, serviceName, req, metadataOf(ctx, span), deadlineMs).then(
        (res) => {
          endSpan(span, undefined);
          return res;
        },
        (e: unknown) => {
          endSpan(span, e);
          throw e;
        },
      );
    };
  }
  return {
    api: api as StreamingApi<S>,
    waitForReady: async (timeoutMs) => {
      const until = Date.now() + timeoutMs;
      while (port === undefined || !localServers.has(port)) {
        if (Date.now() >= until) throw new Error(`No ${serviceName} server in this process at ${address}`);
        await new Promise((r) => setTimeout(r, Math.min(20, timeoutMs)));
      }
    },
    close: () => {
      closed = true;
    },
  };
}

function splitAddress(address: string): [string, number | undefined] {
  const m = /^(.*):(\d+)$/.exec(address);
  return m ? [m[1]!.replace(/^\[|\]$/g, ''), Number(m[2])] : [address, undefined];
}

type StreamCall = (req: unknown, md: Metadata, o: { deadline?: Date }) => ClientReadableStream<unknown>;

async function* clientStream(
  client: Record<string, StreamCall>,
  name: string,
  req: unknown,
  ctx: CallContext | undefined,
  address: string,
  deadlineMs: number | undefined,
): AsyncGenerator<unknown, void, undefined> {
  const fn = client[name];
  if (!fn) throw new ParleyError('internal', `No gRPC method ${name}`);
  if (ctx?.signal?.aborted) return;
  const deadline = deadlineMs === undefined ? undefined : Date.now() + deadlineMs;
  const call = fn.call(client, req, ctx?.metadata ?? new Metadata(), deadline === undefined ? {} : { deadline: new Date(deadline) });
  let cancelled = false;
  // The deadline bounds the call while it is live: once the server ended it (its status came before
  // the deadline), what grpc-js buffered is the caller's to read at its own pace. A status at or past
  // the deadline is grpc-js's own DEADLINE_EXCEEDED: the call stays failed by its deadline.
  // Over HTTP/2 grpc-js only delivers the OK status once it holds every message (its Readable buffers ~16), so a
  // handler writing more than that without heeding write()'s back-pressure can still meet the deadline here where
  // the in-process transport would not; serveStream's handlers heed it, and there both transports agree.
  let live = true;
  call.once('status', () => void (live = deadline !== undefined && Date.now() >= deadline));
  const cancel = () => {
    cancelled = true;
    call.cancel();
  };
  ctx?.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for await (const message of call) {
      // Messages grpc-js buffered before a cancel or the deadline are not handed out: the call ends at once.
      if (cancelled) return;
      if (live && deadline !== undefined && Date.now() >= deadline) throw statusError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded');
      yield message;
    }
  } catch (e) {
    if (cancelled && (e as Partial<ServiceError>).code === GrpcCode.CANCELLED) return;
    throw fromServiceError(e as ServiceError, address);
  } finally {
    ctx?.signal?.removeEventListener('abort', cancel);
    // The consumer may have stopped early (break, return, throw): nothing more is wanted.
    // Cancelling a call that already ended does nothing.
    cancelled = true;
    call.cancel();
  }
}

/**
 * `api` with every call carrying `authorization` (draft-zhou §7): the gateway calls the
 * services with its caller's own credential, so each service authenticates and
 * authorizes the caller itself. Calls that pass their own CallContext keep its
 * signal; its authorization is replaced.
 */
export function withAuthorization<A extends object>(api: A, authorization: string): A {
  const md = new Metadata();
  md.set('authorization', authorization);
  return new Proxy(api, {
    get(target, name, receiver) {
      const fn = Reflect.get(target, name, receiver) as unknown;
      if (typeof fn !== 'function') return fn;
      return (req: unknown, ctx?: CallContext) => (fn as (r: unknown, c: CallContext) => unknown).call(target, req, { ...ctx, metadata: md });
    },
  });
}

// ---------------------------------------------------------------------------
// The in-process transport: a client in the same process as the server (the
// one-process mode, apps/parley embedded.ts) calls the server's own grpc-js
// handlers without HTTP/2 or a socket. Everything a caller can observe is as
// over gRPC: the request and response are encoded and decoded with the
// generated codecs (no object is shared between the two sides), the server
// authenticates, authorizes, guards, traces, observes and logs the call with
// the same handler, an error travels as the same status and `parley-error-bin`
// trailer (toServiceError, then fromServiceError), the deadline and the message
// size limits are those of the channel, and a cancelled or shut-down stream
// ends as it does over gRPC. The server still listens on its port for outside
// callers; only the choice of transport differs (createGrpcClient's `transport`).
// ---------------------------------------------------------------------------

/** How a client reaches its server: over HTTP/2 (`grpc`, the default) or in this process (`inproc`). */
export type GrpcTransport = 'grpc' | 'inproc';
/** Both transports, for the suites that run the same contract tests over each. */
export const GRPC_TRANSPORTS: readonly GrpcTransport[] = ['grpc', 'inproc'];

/** The largest message a server accepts (startGrpcServer) and a client accepts (grpc-js's default). */
const SERVER_MAX_RECEIVE = 8 * 1024 * 1024;
const CLIENT_MAX_RECEIVE = 4 * 1024 * 1024;
/** Messages a server-streaming call queues for its consumer before the server waits for 'drain'. */
const LOCAL_STREAM_HIGH_WATER = 16;

type UnaryHandler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;
type StreamHandler = (call: ServerWritableStream<unknown, unknown>) => void;

/** One method of a server of this process, as the in-process transport calls it. */
interface LocalMethod {
  method: UnaryMethod | ServerStreamingMethod;
  handler: UnaryHandler | StreamHandler;
}

/** A server of this process: its methods by path, and its unary calls in flight (awaited at stop). */
interface LocalServer {
  methods: Map<string, LocalMethod>;
  inFlight: Set<Promise<unknown>>;
}

/** The gRPC servers of this process by port (startGrpcServer registers, stop removes). */
const localServers = new Map<number, LocalServer>();

function registerLocalServer(port: number, services: ServiceBinding[]): LocalServer {
  const methods = new Map<string, LocalMethod>();
  for (const s of services) {
    const definition = s.definition as AnyServiceDefinition;
    for (const name of Object.keys(definition)) {
      const method = definition[name];
      const handler = s.handlers[name] as UnaryHandler | StreamHandler | undefined;
      if (method && handler) methods.set(method.path, { method, handler });
    }
  }
  const server: LocalServer = { methods, inFlight: new Set() };
  localServers.set(port, server);
  return server;
}

/** A status without a trailer, as grpc-js reports a transport's own failures. */
function statusError(code: GrpcCode, details: string): ServiceError {
  const e = new Error(`${code} ${statusName(code)}: ${details}`) as ServiceError;
  e.code = code;
  e.details = details;
  e.metadata = new Metadata();
  return e;
}

/** What a handler's callback or a stream's 'error' carries, as the client's status. */
function asServiceError(err: Partial<ServiceError>): ServiceError {
  const e = statusError(err.code ?? GrpcCode.UNKNOWN, err.details ?? '');
  if (err.metadata) e.metadata = err.metadata;
  return e;
}

/** `message` encoded by one side and decoded by the other, with the channel's size limit. */
function copyMessage(encode: ((v: never) => Buffer) | undefined, decode: ((b: Buffer) => unknown) | undefined, message: unknown, limit: number, what: string): unknown {
  if (!encode || !decode) throw statusError(GrpcCode.INTERNAL, `No codec for the ${what}`);
  let bytes: Buffer;
  try {
    bytes = encode(message as never);
  } catch (e) {
    throw statusError(GrpcCode.INTERNAL, `${what} serialization failure: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (bytes.length > limit) throw statusError(GrpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${bytes.length} vs. ${limit})`);
  try {
    return decode(bytes);
  } catch {
    throw statusError(GrpcCode.INTERNAL, `Error deserializing ${what}`);
  }
}

/** The method at `path` of the server of this process at `port`, or the status gRPC would give. */
function localMethod(port: number | undefined, path: string, serviceName: string): LocalMethod {
  const server = port === undefined ? undefined : localServers.get(port);
  if (!server) throw statusError(GrpcCode.UNAVAILABLE, `No ${serviceName} server in this process at port ${port}`);
  const m = server.methods.get(path);
  if (!m) throw statusError(GrpcCode.UNIMPLEMENTED, `The server does not implement the method ${path}`);
  return m;
}

/**
 * One unary call in this process: the request copied through the codecs, the
 * server's handler run outside the caller's trace context (as in a separate
 * process; the trace travels in the metadata), the response copied back; a
 * deadline rejects with DEADLINE_EXCEEDED whatever the handler still does.
 */
function localUnary(port: number | undefined, path: string, serviceName: string, req: unknown, md: Metadata, deadlineMs: number): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const fail = (e: unknown) => reject(fromServiceError(e as ServiceError, serviceName));
    let m: LocalMethod;
    let request: unknown;
    try {
      m = localMethod(port, path, serviceName);
      request = copyMessage(m.method.requestSerialize, m.method.requestDeserialize, req, SERVER_MAX_RECEIVE, 'request');
    } catch (e) {
      return fail(e);
    }
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      fail(statusError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded'));
    }, deadlineMs);
    const server = localServers.get(port as number);
    let done!: () => void;
    const inFlight = new Promise<void>((r) => (done = r));
    server?.inFlight.add(inFlight);
    // The metadata is the server's own copy already (outgoingMetadata); the deadline is the one the call was made with.
    const deadline = new Date(Date.now() + deadlineMs);
    const call = { request, metadata: md, cancelled: false, getDeadline: () => deadline };
    const callback: sendUnaryData<unknown> = (err, res) => {
      clearTimeout(timer);
      server?.inFlight.delete(inFlight);
      done();
      if (settled) return;
      settled = true;
      if (err) return fail(asServiceError(err));
      try {
        resolve(copyMessage(m.method.responseSerialize, m.method.responseDeserialize, res, CLIENT_MAX_RECEIVE, 'response'));
      } catch (e) {
        fail(e);
      }
    };
    try {
      context.with(ROOT_CONTEXT, () => (m.handler as UnaryHandler)(call as unknown as ServerUnaryCall<unknown, unknown>, callback));
    } catch {
      // As grpc-js: a handler that throws before answering ends the call with UNKNOWN.
      callback(statusError(GrpcCode.UNKNOWN, 'Unknown error'));
    }
  });
}

/**
 * The server's side of a server-streaming call in this process: what serveStream
 * uses of a grpc-js ServerWritableStream. Written messages are copied through the
 * codecs into a queue the client reads; past LOCAL_STREAM_HIGH_WATER queued,
 * write returns false and the server waits for 'drain'.
 */
class LocalServerStream extends EventEmitter {
  cancelled = false;
  readonly queue: unknown[] = [];
  ended = false;
  error: ServiceError | undefined;
  private wake: (() => void) | undefined;
  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly method: ServerStreamingMethod | UnaryMethod,
    /** When the call expires, in ms since the epoch (Infinity without a deadline), as grpc-js's getDeadline gives it. */
    private readonly deadline: number,
  ) {
    super();
  }
  /** The call's deadline, the same at every ask (grpc-js ServerWritableStream.getDeadline). */
  getDeadline(): number {
    return this.deadline;
  }
  write(message: unknown): boolean {
    if (this.ended || this.cancelled) return false;
    try {
      this.queue.push(copyMessage(this.method.responseSerialize, this.method.responseDeserialize, message, CLIENT_MAX_RECEIVE, 'response'));
    } catch (e) {
      // As grpc-js: a message the client cannot take ends the call with that status, and the handler stops.
      this.cancel();
      this.finish(e as ServiceError);
      return false;
    }
    this.notify();
    return this.queue.length < LOCAL_STREAM_HIGH_WATER;
  }
  end(): void {
    this.finish(undefined);
  }
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error') {
      this.finish(asServiceError(args[0] as Partial<ServiceError>));
      return true;
    }
    return super.emit(event, ...args);
  }
  /**
   * The client went away (cancel, deadline, loop ended) while the call was live: the server sees
   * 'cancelled'. A call the server already ended (OK or an error status) is not cancelled after the fact.
   */
  cancel(): void {
    if (this.cancelled || this.ended) return;
    this.cancelled = true;
    super.emit('cancelled');
    this.notify();
  }
  /** Resolves when there is something for the client to read, or the call ended. */
  next(): Promise<void> {
    if (this.queue.length > 0 || this.ended || this.cancelled) return Promise.resolve();
    return new Promise((r) => (this.wake = r));
  }
  take(): unknown {
    const message = this.queue.shift();
    if (this.queue.length === LOCAL_STREAM_HIGH_WATER - 1) super.emit('drain');
    return message;
  }
  /** The server ended the call: OK, or the status of `error`. */
  finish(error: ServiceError | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.notify();
  }
  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** A server-streaming call in this process, read as clientStream reads one over gRPC. */
async function* localStream(
  port: number | undefined,
  path: string,
  serviceName: string,
  req: unknown,
  ctx: CallContext | undefined,
  deadlineMs: number | undefined,
): AsyncGenerator<unknown, void, undefined> {
  if (ctx?.signal?.aborted) return;
  let m: LocalMethod;
  let call: LocalServerStream;
  try {
    m = localMethod(port, path, serviceName);
    const request = copyMessage(m.method.requestSerialize, m.method.requestDeserialize, req, SERVER_MAX_RECEIVE, 'request');
    // The metadata is the server's own copy already (outgoingMetadata).
    call = new LocalServerStream(request, ctx?.metadata ?? new Metadata(), m.method, deadlineMs === undefined ? Infinity : Date.now() + deadlineMs);
  } catch (e) {
    throw fromServiceError(e as ServiceError, serviceName);
  }
  const started = call;
  try {
    context.with(ROOT_CONTEXT, () => (m.handler as StreamHandler)(started as unknown as ServerWritableStream<unknown, unknown>));
  } catch {
    // As grpc-js: a handler that throws before writing ends the call with UNKNOWN (a status, not a cancel).
    started.finish(statusError(GrpcCode.UNKNOWN, 'Unknown error'));
  }
  let cancelled = false;
  let expired = false;
  const cancel = () => {
    cancelled = true;
    call.cancel();
  };
  // The deadline bounds the call while it is live: a call the server ended before it is read to its end.
  const timer = deadlineMs === undefined ? undefined : setTimeout(() => {
    if (call.ended) return;
    expired = true;
    call.cancel();
  }, deadlineMs);
  ctx?.signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      await call.next();
      // A cancel or the deadline ends the call at once, whatever is still queued (as clientStream over gRPC).
      if (expired) throw statusError(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded');
      if (cancelled) return;
      if (call.queue.length > 0) {
        yield call.take();
        continue;
      }
      if (call.error) throw call.error;
      if (call.ended) return;
    }
  } catch (e) {
    throw fromServiceError(e as ServiceError, serviceName);
  } finally {
    if (timer) clearTimeout(timer);
    ctx?.signal?.removeEventListener('abort', cancel);
    call.cancel();
  }
}
