// The registry as its own process: DATABASE_URL, NATS_URL, GRPC_PORT (50051), HEALTH_PORT (8081).
// Identity (draft-zhou §7 authentication): PARLEY_TENANT, PARLEY_SERVICE_TOKEN (required), PARLEY_JWT_ISSUERS, PARLEY_AUTH_CACHE_MS
// (libs/runtime authFromEnv), and PARLEY_BOOTSTRAP_OPERATOR_KEY: an API key (`parley keys mint`) made valid at start
// as the operator `operator`, from which every other key is created.
import { createNatsBus, createSubjects } from '@parley/events';
import { ConfigError, authFromEnv, createLogger, envInt, envOptional, envString, eventFlowFromEnv, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { parseApiKey } from '@parley/auth';
import { startRegistry } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'registry' } });

runUntilSignal('registry', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured) and Prometheus metrics (PARLEY_METRICS, on).
  const tracing = startTracingFromEnv(env, 'registry');
  const metrics = metricsFromEnv(env);
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-registry' });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  // PARLEY_STREAM_MAX_AGE_MS/_MAX_BYTES/_MAX_MSGS, PARLEY_CONSUMER_MAX_ATTEMPTS, PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS (libs/runtime eventFlowFromEnv).
  const flow = eventFlowFromEnv(env);
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), retention: flow.retention, subjects, name: 'parley-registry' });
  const auth = authFromEnv(env, systemClock);
  const operatorKey = envOptional(env, 'PARLEY_BOOTSTRAP_OPERATOR_KEY');
  if (operatorKey !== undefined && !parseApiKey(operatorKey)) {
    throw new ConfigError('PARLEY_BOOTSTRAP_OPERATOR_KEY must be an API key (pk_<16 hex>_<43 base64url>): make one with `parley keys mint`');
  }
  const bootstrap = operatorKey
    ? [{ key: operatorKey, principal: 'operator', roles: ['operator' as const], agents: ['*'], scenarios: ['*'], description: 'PARLEY_BOOTSTRAP_OPERATOR_KEY' }]
    : [];
  const registry = await startRegistry({
    db,
    bus,
    subjects,
    clock: systemClock,
    log,
    ...(metrics ? { metrics } : {}),
    grpcPort: envInt(env, 'GRPC_PORT', 50051),
    grpcTls: tls,
    auth: { ...auth, bootstrap },
    eventFlow: flow,
  });
  const health = { shuttingDown: false, checks: { database: () => db.query('SELECT 1').then(() => true), nats: () => bus.healthy() } };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8081), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  // JetStream consumer lag of this process's durable consumers, read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  return {
    async stop() {
      health.shuttingDown = true;
      await registry.stop();
      await healthServer.close();
      await bus.close();
      await db.close();
      await tracing.shutdown();
    },
  };
});
