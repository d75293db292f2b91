import { NegotiationServiceService, bindService, startGrpcServer, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import type { Bus, Stoppable, Subjects } from '@parley/events';
import type { Clock, Logger } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { startPatchConsumer } from './patches';
import { createNegotiationService } from './service';

export { createNegotiationService } from './service';
export {
  COMPATIBILITY_WINDOW_MS,
  checkPatchDocument,
  computeEtag,
  effectiveView,
  loadActivePatches,
  patchConsumerName,
  startPatchConsumer,
  storePatchDocument,
  withdrawnKeys,
} from './patches';
export type { EffectiveView, PatchCache, PatchConsumerDeps, StoredPatch, WithdrawnKey } from './patches';

export interface NegotiationDeps {
  db: Db;
  /** The registry, reached over gRPC. */
  registry: RegistryApi;
  /** Where the evolution service's patch events arrive (draft-zhou §6.2.2). */
  bus: Bus;
  subjects: Subjects;
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

/**
 * Migrates negotiation's tables, consumes the patch events (durable
 * `<prefix>-negotiation-patches`, idempotent, revision-ordered) and serves
 * NegotiationService over gRPC with effective templates (base + patches).
 */
export async function startNegotiation(deps: NegotiationDeps): Promise<RunningNegotiation> {
  await migrate(deps.db, 'negotiation');
  const api = createNegotiationService({ db: deps.db, clock: deps.clock, registry: deps.registry, log: deps.log });
  const patches: Stoppable = await startPatchConsumer({ db: deps.db, bus: deps.bus, subjects: deps.subjects, log: deps.log, clock: deps.clock });
  let server;
  try {
    server = await startGrpcServer({
      ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
      port: deps.grpcPort,
      services: [bindService(NegotiationServiceService, api)],
    });
  } catch (e) {
    await patches.stop();
    throw e;
  }
  const grpc = server;
  deps.log.info('negotiation serving', { grpc_port: grpc.port });
  return {
    port: grpc.port,
    api,
    async stop() {
      await grpc.stop();
      await patches.stop();
    },
  };
}
