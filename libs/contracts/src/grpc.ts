import {
  Metadata,
  Server,
  ServerCredentials,
  credentials as grpcCredentials,
  makeGenericClientConstructor,
  status as GrpcCode,
  type ChannelCredentials,
  type Client,
  type ServiceError,
  type ServerUnaryCall,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ERROR_CATALOGUE, ParleyError, toParleyError, type SerializedError } from '@parley/protocol';

/**
 * gRPC glue over the ts-proto definitions: a promise-based view of a service
 * (`UnaryApi`) that services implement and clients call, and the one place
 * where a ParleyError becomes a gRPC status and back. The typed error travels
 * JSON-encoded in the `parley-error-bin` trailer; its status code comes from
 * ERROR_CATALOGUE, so every transport maps errors from the same table.
 */

interface UnaryMethod {
  path: string;
  requestStream: false;
  responseStream: false;
  requestSerialize: (value: never) => Buffer;
  responseDeserialize: (value: Buffer) => unknown;
}
type ServiceDefinition = Record<string, UnaryMethod>;
type RequestOf<M> = M extends { requestSerialize: (value: infer R) => Buffer } ? R : never;
type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer R } ? R : never;

/** Per-call context a handler sees (metadata today; the authenticated principal later). */
export interface CallContext {
  metadata: Metadata;
}

/** A service as promise-returning methods, derived from its generated definition. */
export type UnaryApi<S extends ServiceDefinition> = {
  [K in keyof S]: (request: RequestOf<S[K]>, ctx?: CallContext) => Promise<ResponseOf<S[K]>>;
};

const ERROR_TRAILER = 'parley-error-bin';

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
    return new ParleyError('unavailable', `Service at ${target} is unavailable`, { cause: e, details: { target } });
  }
  return new ParleyError('internal', 'Internal error', { cause: e });
}

/** Adapts a UnaryApi implementation to grpc-js handlers. */
export function toGrpcHandlers<S extends ServiceDefinition>(definition: S, impl: UnaryApi<S>): UntypedServiceImplementation {
  const handlers: UntypedServiceImplementation = {};
  for (const name of Object.keys(definition)) {
    const method = impl[name as keyof S] as (req: unknown, ctx: CallContext) => Promise<unknown>;
    handlers[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      method.call(impl, call.request, { metadata: call.metadata }).then(
        (res) => callback(null, res),
        (err: unknown) => callback(toServiceError(err)),
      );
    };
  }
  return handlers;
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
}

export function bindService<S extends ServiceDefinition>(definition: S, impl: UnaryApi<S>): ServiceBinding {
  return { definition, handlers: toGrpcHandlers(definition, impl) };
}

export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  services: ServiceBinding[];
  credentials?: ServerCredentials;
}): Promise<GrpcServerHandle> {
  const server = new Server({ 'grpc.max_receive_message_length': 8 * 1024 * 1024 });
  for (const s of opts.services) server.addService(s.definition, s.handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host ?? '0.0.0.0'}:${opts.port}`, opts.credentials ?? ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port,
    stop: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

export interface GrpcClient<S extends ServiceDefinition> {
  api: UnaryApi<S>;
  /** Resolves when the channel is connected, rejects after timeoutMs. */
  waitForReady(timeoutMs: number): Promise<void>;
  close(): void;
}

/** A promise-based client for `definition` at `address` (host:port); every call gets a deadline. */
export function createGrpcClient<S extends ServiceDefinition>(
  definition: S,
  address: string,
  opts: { deadlineMs?: number; credentials?: ChannelCredentials; serviceName?: string } = {},
): GrpcClient<S> {
  const Ctor = makeGenericClientConstructor(definition as never, opts.serviceName ?? 'Service');
  const client = new Ctor(address, opts.credentials ?? grpcCredentials.createInsecure()) as unknown as Client &
    Record<string, (req: unknown, md: Metadata, o: { deadline: Date }, cb: (e: ServiceError | null, r: unknown) => void) => void>;
  const deadlineMs = opts.deadlineMs ?? 10_000;
  const api = {} as Record<string, (req: unknown, ctx?: CallContext) => Promise<unknown>>;
  for (const name of Object.keys(definition)) {
    api[name] = (req, ctx) =>
      new Promise((resolve, reject) => {
        const fn = client[name];
        if (!fn) return reject(new ParleyError('internal', `No gRPC method ${name}`));
        fn.call(client, req, ctx?.metadata ?? new Metadata(), { deadline: new Date(Date.now() + deadlineMs) }, (err, res) =>
          err ? reject(fromServiceError(err, address)) : resolve(res),
        );
      });
  }
  return {
    api: api as UnaryApi<S>,
    waitForReady: (timeoutMs) =>
      new Promise<void>((resolve, reject) =>
        client.waitForReady(new Date(Date.now() + timeoutMs), (err) => (err ? reject(err) : resolve())),
      ),
    close: () => client.close(),
  };
}
