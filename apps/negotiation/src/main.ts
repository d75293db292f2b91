// Negotiation as its own process: DATABASE_URL, REGISTRY_ADDR, GRPC_PORT (50052), HEALTH_PORT (8082).
import { RegistryServiceService, createGrpcClient } from '@parley/contracts';
import { createLogger, envInt, envString, runUntilSignal, startHealthServer, systemClock } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { startNegotiation } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'negotiation' } });

runUntilSignal('negotiation', log, async () => {
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-negotiation' });
  const registry = createGrpcClient(RegistryServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'));
  const negotiation = await startNegotiation({ db, registry: registry.api, clock: systemClock, log, grpcPort: envInt(env, 'GRPC_PORT', 50052) });
  const health = {
    shuttingDown: false,
    checks: { database: () => db.query('SELECT 1').then(() => true), registry: () => registry.waitForReady(1500).then(() => true) },
  };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8082));
  return {
    async stop() {
      health.shuttingDown = true;
      await negotiation.stop();
      await healthServer.close();
      registry.close();
      await db.close();
    },
  };
});
