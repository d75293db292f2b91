// Execution as its own process: DATABASE_URL, NATS_URL, NEGOTIATION_ADDR, GRPC_PORT (50053),
// HEALTH_PORT (8083), EXECUTE_TIMEOUT_MS (5000).
import { NegotiationServiceService, createGrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects } from '@parley/events';
import { createLogger, envInt, envString, runUntilSignal, startHealthServer, systemClock } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { startExecution } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'execution' } });

runUntilSignal('execution', log, async () => {
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-execution', poolSize: envInt(env, 'DB_POOL_SIZE', 10, { min: 1 }) });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  const bus = await createNatsBus({ servers: envString(env, 'NATS_URL'), subjects, name: 'parley-execution' });
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'));
  const execution = await startExecution({
    db,
    bus,
    subjects,
    negotiation: negotiation.api,
    clock: systemClock,
    log,
    timeoutMs: envInt(env, 'EXECUTE_TIMEOUT_MS', 5000, { min: 1 }),
    grpcPort: envInt(env, 'GRPC_PORT', 50053),
  });
  const health = {
    shuttingDown: false,
    checks: {
      database: () => db.query('SELECT 1').then(() => true),
      nats: () => bus.healthy(),
      negotiation: () => negotiation.waitForReady(1500).then(() => true),
    },
  };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8083));
  return {
    async stop() {
      health.shuttingDown = true;
      await execution.stop();
      await healthServer.close();
      negotiation.close();
      await bus.close();
      await db.close();
    },
  };
});
