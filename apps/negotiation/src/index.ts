import { NegotiationServiceService, bindService, startGrpcServer, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import type { Clock, Logger } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { createNegotiationService } from './service';

export { createNegotiationService } from './service';

export interface NegotiationDeps {
  db: Db;
  /** The registry, reached over gRPC. */
  registry: RegistryApi;
  clock: Clock;
  log: Logger;
  grpcHost?: string;
  grpcPort: number;
}

export interface RunningNegotiation {
  port: number;
  api: NegotiationApi;
  stop(): Promise<void>;
}

export async function startNegotiation(deps: NegotiationDeps): Promise<RunningNegotiation> {
  await migrate(deps.db, 'negotiation');
  const api = createNegotiationService({ db: deps.db, clock: deps.clock, registry: deps.registry });
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort,
    services: [bindService(NegotiationServiceService, api)],
  });
  deps.log.info('negotiation serving', { grpc_port: server.port });
  return { port: server.port, api, stop: () => server.stop() };
}
