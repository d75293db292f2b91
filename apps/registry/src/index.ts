import { AgentProfileServiceService, RegistryServiceService, bindService, startGrpcServer, type AgentProfileApi, type RegistryApi } from '@parley/contracts';
import { EventType, consumeIdempotently, type Bus, type Stoppable, type Subjects } from '@parley/events';
import type { Clock, Logger } from '@parley/runtime';
import { migrate, type Db } from '@parley/storage';
import { createProfileService } from './profiles';
import { createRegistryService, recordExecution } from './service';

export { createRegistryService } from './service';
export { createProfileService } from './profiles';

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
}

export interface RunningRegistry {
  port: number;
  api: RegistryApi;
  /** AN agent profiles (draft 004 §5.1), served on the same gRPC server. */
  profiles: AgentProfileApi;
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
  const server = await startGrpcServer({
    ...(deps.grpcHost ? { host: deps.grpcHost } : {}),
    port: deps.grpcPort, ...(deps.grpcTls ? { tls: deps.grpcTls } : {}),
    services: [bindService(RegistryServiceService, api), bindService(AgentProfileServiceService, profiles)],
  });
  // Durable and idempotent: usage counts survive restarts and redeliveries.
  const usage: Stoppable = await consumeIdempotently(
    {
      bus: deps.bus,
      db: deps.db,
      schema: 'registry',
      durable: `${deps.subjects.prefix}-registry-usage`,
      filterSubjects: [deps.subjects.eventAllScenarios(EventType.PayloadExecuted)],
    },
    async (event, tx) => {
      if (event.type !== EventType.PayloadExecuted) return;
      await recordExecution(tx, { agent: event.data.agent, scenario_id: event.scenario_id, occurred_at: event.occurred_at });
    },
  );
  deps.log.info('registry serving', { grpc_port: server.port });
  return {
    port: server.port,
    api,
    profiles,
    async stop() {
      await server.stop();
      await usage.stop();
    },
  };
}
