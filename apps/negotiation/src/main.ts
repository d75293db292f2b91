// Negotiation as its own process: DATABASE_URL, NATS_URL (patch events, draft-zhou §6.2.2),
// PARLEY_SUBJECT_PREFIX (parley), REGISTRY_ADDR, GRPC_PORT (50052), HEALTH_PORT (8082).
// Signing keys (draft-zhou §7): PARLEY_SIGNING_KEYS_DIR (PEM/JWK files; the last private key in
// name order signs, the rest verify) or PARLEY_SIGNING_KEY (a private JWK or JWK Set, JSON), and
// PARLEY_SIGNING_ACTIVE_KID; without them a generated key, logged as ephemeral.
// Identity (draft-zhou §7 authentication): PARLEY_SERVICE_TOKEN (required), PARLEY_TENANT, PARLEY_JWT_ISSUERS, PARLEY_AUTH_CACHE_MS.
import { RegistryServiceService, createGrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects } from '@parley/events';
import { authenticatorFromEnv, createLogger, envInt, envString, eventFlowFromEnv, loadKeyRing, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { startNegotiation } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'negotiation' } });

runUntilSignal('negotiation', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured) and Prometheus metrics (PARLEY_METRICS, on).
  const tracing = startTracingFromEnv(env, 'negotiation');
  const metrics = metricsFromEnv(env);
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  const signing = loadKeyRing(env, log); // first: a key misconfiguration stops the start before anything opens
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-negotiation' });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  // PARLEY_STREAM_MAX_AGE_MS/_MAX_BYTES/_MAX_MSGS, PARLEY_CONSUMER_MAX_ATTEMPTS, PARLEY_PROCESSED_RETENTION_MS, PARLEY_DEAD_LETTER_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS (libs/runtime eventFlowFromEnv).
  const flow = eventFlowFromEnv(env);
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), retention: flow.retention, subjects, name: 'parley-negotiation' });
  const auth = authenticatorFromEnv(env, systemClock, tls);
  const registry = createGrpcClient(RegistryServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls, credential: auth.serviceToken });
  const negotiation = await startNegotiation({
    db,
    bus,
    subjects,
    registry: registry.api,
    clock: systemClock,
    log,
    ...(metrics ? { metrics } : {}),
    grpcPort: envInt(env, 'GRPC_PORT', 50052),
    grpcTls: tls,
    signing,
    authenticator: auth.authenticator,
    eventFlow: flow,
  });
  const health = {
    shuttingDown: false,
    checks: {
      database: () => db.query('SELECT 1').then(() => true),
      nats: () => bus.healthy(),
      registry: () => registry.waitForReady(1500).then(() => true),
    },
  };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8082), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  // JetStream consumer lag of this process's durable consumers, read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  return {
    async stop() {
      health.shuttingDown = true;
      await negotiation.stop();
      await healthServer.close();
      registry.close();
      auth.close();
      await bus.close();
      await db.close();
      await tracing.shutdown();
    },
  };
});
