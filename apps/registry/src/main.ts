// The registry as its own process: DATABASE_URL, NATS_URL, GRPC_PORT (50051), HEALTH_PORT (8081).
import { createNatsBus, createSubjects } from '@parley/events';
import { createLogger, envInt, envString, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { startRegistry } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'registry' } });

runUntilSignal('registry', log, async () => {
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-registry' });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), subjects, name: 'parley-registry' });
  const registry = await startRegistry({ db, bus, subjects, clock: systemClock, log, grpcPort: envInt(env, 'GRPC_PORT', 50051), grpcTls: tls });
  const health = { shuttingDown: false, checks: { database: () => db.query('SELECT 1').then(() => true), nats: () => bus.healthy() } };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8081));
  return {
    async stop() {
      health.shuttingDown = true;
      await registry.stop();
      await healthServer.close();
      await bus.close();
      await db.close();
    },
  };
});
