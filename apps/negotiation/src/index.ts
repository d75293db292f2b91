import type { Authenticator } from '@parley/auth';
import { NegotiationServiceService, bindDeadLetters, bindService, startGrpcServer, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import { serviceEventFlow, type Bus, type Stoppable, type Subjects } from '@parley/events';
import { loadKeyRing, type Clock, type EventFlowConfig, type KeyRing, type Logger, type Metrics } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { startPatchConsumer } from './patches';
import { negotiationGuards } from './access';
import { createNegotiationService } from './service';

export { createNegotiationService } from './service';
export { servedDelivery, servedTemplate, signDeliveries, signTemplate, suggestionOf, type TemplateContext } from './signing';
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
  /** Serve gRPC over TLS (PEM cert/key/ca, e.g. tlsFromEnv); default insecure. */
  grpcTls?: { cert: Buffer | string; key: Buffer | string; ca: Buffer | string } | null;
  /**
   * The keys templates, patches and suggestions are signed with (draft-zhou §7).
   * Default: from the environment (PARLEY_SIGNING_KEYS_DIR, PARLEY_SIGNING_KEY,
   * PARLEY_SIGNING_ACTIVE_KID; libs/runtime loadKeyRing), else a generated key logged as ephemeral.
   */
  signing?: KeyRing;
  /** Authenticates every gRPC call (draft-zhou §7 authentication; libs/runtime createAuthenticator). */
  authenticator: Authenticator;
  /** Failed deliveries before the patch consumer sets an event aside (PARLEY_CONSUMER_MAX_ATTEMPTS); the retention of processed marks and resolved dead letters (PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS). */
  eventFlow?: Partial<Pick<EventFlowConfig, 'consumerMaxAttempts' | 'processedRetentionMs' | 'deadLetterRetentionMs' | 'retentionSweepMs'>>;
  /** Prometheus metrics of the process (libs/runtime metrics.ts); optional. */
  metrics?: Metrics;
}

export interface RunningNegotiation {
  port: number;
  api: NegotiationApi;
  /** The key ring it signs with. */
  signing: KeyRing;
  stop(): Promise<void>;
}

/**
 * Migrates negotiation's tables, consumes the patch events (durable
 * `<prefix>-negotiation-patches`, idempotent, revision-ordered) and serves
 * NegotiationService over gRPC with effective templates (base + patches).
 */
export async function startNegotiation(deps: NegotiationDeps): Promise<RunningNegotiation> {
  await migrate(deps.db, 'negotiation');
  const signing = deps.signing ?? loadKeyRing(process.env, deps.log);
  const api = createNegotiationService({ db: deps.db, clock: deps.clock, registry: deps.registry, log: deps.log, signing });
  // Dead letters (zhou §6.2 event flow): a patch event the consumer keeps failing on is set aside, not retried forever.
  const flow = serviceEventFlow({ db: deps.db, schema: 'negotiation', subjects: deps.subjects, now: () => deps.clock.now(), logger: deps.log, ...deps.eventFlow, bus: deps.bus, metrics: deps.metrics });
  const patches: Stoppable = await startPatchConsumer({ db: deps.db, bus: deps.bus, subjects: deps.subjects, log: deps.log, clock: deps.clock, consumer: flow.consumer });
  let server;
  try {
    server = await startGrpcServer({
      ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
      port: deps.grpcPort, ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
      services: [
        bindService(NegotiationServiceService, api, { authenticator: deps.authenticator, guards: negotiationGuards, ...(deps.metrics ? { observe: deps.metrics.grpc } : {}) }),
        bindDeadLetters('negotiation', flow.office, deps.authenticator),
      ],
    });
  } catch (e) {
    await patches.stop();
    throw e;
  }
  const grpc = server;
  flow.pruner.start();
  deps.log.info('negotiation serving', { grpc_port: grpc.port, signing_kid: signing.activeKid });
  return {
    port: grpc.port,
    api,
    signing,
    async stop() {
      await flow.pruner.stop();
      await grpc.stop();
      await patches.stop();
    },
  };
}
