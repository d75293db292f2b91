import type { Authenticator, JwtVerifier, Role } from '@parley/auth';
import {
  AgentProfileServiceService,
  ApiKeyServiceService,
  RegistryServiceService,
  bindService,
  startGrpcServer,
  type AgentProfileApi,
  type ApiKeyApi,
  type RegistryApi,
  bindDeadLetters,
} from '@parley/contracts';
import { EventType, consumeIdempotently, serviceEventFlow, type Bus, type Stoppable, type Subjects } from '@parley/events';
import { createAuthenticator, type Clock, type EventFlowConfig, type Logger, type Metrics } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { profileGuards, registryGuards } from './access';
import { createApiKeyStore } from './api-keys';
import { createProfileService } from './profiles';
import { createRegistryService, recordExecution, recordExecutionsMarked } from './service';

export { createRegistryService } from './service';
export { createProfileService } from './profiles';
export { createApiKeyStore, type ApiKeyStore } from './api-keys';

/** A key the registry makes valid at start (PARLEY_DEV_KEY, PARLEY_BOOTSTRAP_OPERATOR_KEY). */
export interface BootstrapKey {
  key: string;
  principal: string;
  roles: Role[];
  agents: string[];
  scenarios: string[];
  description: string;
}

export interface RegistryDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  clock: Clock;
  log: Logger;
  grpcHost?: string;
  grpcPort: number;
  /** Serve gRPC over TLS (PEM cert/key/ca, e.g. tlsFromEnv); default insecure. */
  grpcTls?: { cert: Buffer | string; key: Buffer | string; ca: Buffer | string } | null;
  /**
   * Identity (draft-zhou §7 authentication): the tenant, the services' shared token, JWT issuers and the
   * cache of verified credentials. The registry keeps the API keys and answers its
   * own callers from its table.
   */
  auth: { tenant: string; serviceToken: string; jwt?: JwtVerifier; cacheMs?: number; bootstrap?: BootstrapKey[] };
  /** Failed deliveries before the usage consumer sets an event aside (PARLEY_CONSUMER_MAX_ATTEMPTS); the retention of processed marks and resolved dead letters (PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS). */
  eventFlow?: Partial<Pick<EventFlowConfig, 'consumerMaxAttempts' | 'processedRetentionMs' | 'deadLetterRetentionMs' | 'retentionSweepMs'>>;
  /** Prometheus metrics of the process (libs/runtime metrics.ts); optional. */
  metrics?: Metrics;
}

export interface RunningRegistry {
  port: number;
  api: RegistryApi;
  /** AN agent profiles (draft 004 §5.1), served on the same gRPC server. */
  profiles: AgentProfileApi;
  /** API keys (draft-zhou §7 authentication), served on the same gRPC server. */
  apiKeys: ApiKeyApi;
  /** The registry's own authenticator (API keys from its table). */
  authenticator: Authenticator;
  stop(): Promise<void>;
}

/**
 * Migrates the registry's tables, serves RegistryService and AgentProfileService
 * over gRPC on one port and counts executions from events.
 */
export async function startRegistry(deps: RegistryDeps): Promise<RunningRegistry> {
  await migrate(deps.db, 'registry');
  const api = createRegistryService({ db: deps.db, clock: deps.clock });
  const profiles = createProfileService({ db: deps.db, clock: deps.clock });
  const keys = createApiKeyStore({ db: deps.db, clock: deps.clock, tenant: deps.auth.tenant });
  for (const b of deps.auth.bootstrap ?? []) {
    const { key, ...scope } = b;
    await keys.ensure(key, scope);
  }
  const authenticator = createAuthenticator({
    tenant: deps.auth.tenant,
    clock: deps.clock,
    serviceToken: deps.auth.serviceToken,
    apiKeys: keys.authenticate,
    ...(deps.auth.jwt ? { jwt: deps.auth.jwt } : {}),
    ...(deps.auth.cacheMs !== undefined ? { cacheMs: deps.auth.cacheMs } : {}),
  });
  // Dead letters (zhou §6.2 event flow): an event the usage consumer keeps failing on is set aside, not retried forever.
  const flow = serviceEventFlow({ db: deps.db, schema: 'registry', subjects: deps.subjects, now: () => deps.clock.now(), logger: deps.log, ...deps.eventFlow, bus: deps.bus, metrics: deps.metrics });
  const observe = deps.metrics ? { observe: deps.metrics.grpc } : {};
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort, ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [
      bindService(RegistryServiceService, api, { authenticator, guards: registryGuards, ...observe }),
      bindService(AgentProfileServiceService, profiles, { authenticator, guards: profileGuards, ...observe }),
      bindService(ApiKeyServiceService, keys.api, { authenticator, ...observe }),
      bindDeadLetters('registry', flow.office, authenticator),
    ],
  });
  // Durable and idempotent: usage counts survive restarts and redeliveries.
  const usage: Stoppable = await consumeIdempotently(
    {
      bus: deps.bus,
      db: deps.db,
      schema: 'registry',
      ...flow.consumer,
      durable: `${deps.subjects.prefix}-registry-usage`,
      filterSubjects: [deps.subjects.eventAllScenarios(EventType.PayloadExecuted)],
      // A delivery's marks and its executions' counts in one statement (no transaction: one statement commits alone).
      applyMarked: (events, db, marks) =>
        recordExecutionsMarked(
          db,
          marks,
          events.map(({ event }) => event.id),
          events.flatMap(({ event }) => (event.type === EventType.PayloadExecuted ? [{ id: event.id, agent: event.data.agent, scenario_id: event.scenario_id, occurred_at: event.occurred_at }] : [])),
        ),
    },
    async (event, tx) => {
      if (event.type !== EventType.PayloadExecuted) return;
      await recordExecution(tx, { agent: event.data.agent, scenario_id: event.scenario_id, occurred_at: event.occurred_at });
    },
  );
  flow.pruner.start();
  deps.log.info('registry serving', { grpc_port: server.port });
  return {
    port: server.port,
    api,
    profiles,
    apiKeys: keys.api,
    authenticator,
    async stop() {
      await flow.pruner.stop();
      await server.stop();
      await usage.stop();
    },
  };
}
