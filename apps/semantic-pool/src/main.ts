// The semantic pool as its own process: DATABASE_URL, NATS_URL, GRPC_PORT (50054), HEALTH_PORT (8084),
// PARLEY_EMBEDDER (offline default), QDRANT_URL (embedded index when unset), PARLEY_POOL_SCENARIOS
// (comma-separated scenario ids this replica owns; default all), identity (draft-zhou §7): PARLEY_SERVICE_TOKEN, REGISTRY_ADDR
// (API keys), PARLEY_TENANT, PARLEY_JWT_ISSUERS, PARLEY_SIMILARITY_THRESHOLD,
// PARLEY_HEAT_INCREMENT, PARLEY_HEAT_HALF_LIFE_H, PARLEY_HEAT_THRESHOLD, PARLEY_GATE_CLIENTS,
// PARLEY_GATE_OCCURRENCES, PARLEY_GATE_PHRASINGS (2), PARLEY_GATE_CLIENT_PHRASINGS (1), PARLEY_HEAT_SAMPLE_MS; raw fragments (draft-zhou §7): PARLEY_DATA_KEY (required
// unless PARLEY_STORE_RAW_FRAGMENTS=false), PARLEY_STORE_RAW_FRAGMENTS, PARLEY_RAW_RETENTION_DAYS (30).
import { createEmbedderFromEnv } from '@parley/embeddings';
import { createNatsBus, createSubjects } from '@parley/events';
import { authenticatorFromEnv, createLogger, envInt, envOptional, envString, eventFlowFromEnv, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { createVectorIndexFromEnv } from '@parley/vectors';
import { poolConfigFromEnv, rawFragmentsFromEnv } from './env';
import { startSemanticPool } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'semantic-pool' } });

runUntilSignal('semantic-pool', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured) and Prometheus metrics (PARLEY_METRICS, on).
  const tracing = startTracingFromEnv(env, 'semantic-pool');
  const metrics = metricsFromEnv(env);
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  // Checked before anything connects: no key, no start (unless raw fragments are not stored).
  const raw = rawFragmentsFromEnv(env);
  const auth = authenticatorFromEnv(env, systemClock, tls);
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-semantic-pool' });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  // PARLEY_STREAM_MAX_AGE_MS/_MAX_BYTES/_MAX_MSGS, PARLEY_OUTBOX_MAX_ATTEMPTS, PARLEY_CONSUMER_MAX_ATTEMPTS, PARLEY_*_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS (libs/runtime eventFlowFromEnv).
  const flow = eventFlowFromEnv(env);
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), retention: flow.retention, subjects, name: 'parley-semantic-pool' });
  const embedder = createEmbedderFromEnv(env);
  const index = createVectorIndexFromEnv(env);
  const scenarios = envOptional(env, 'PARLEY_POOL_SCENARIOS')?.split(',').map((s) => s.trim()).filter(Boolean);
  const pool = await startSemanticPool({
    db,
    bus,
    subjects,
    embedder,
    index,
    clock: systemClock,
    log,
    ...(metrics ? { metrics } : {}),
    config: poolConfigFromEnv(env),
    ...(scenarios ? { scenarios } : {}),
    heatSampleMs: envInt(env, 'PARLEY_HEAT_SAMPLE_MS', 3_600_000, { min: 0 }),
    raw,
    grpcPort: envInt(env, 'GRPC_PORT', 50054),
    grpcTls: tls,
    authenticator: auth.authenticator,
    eventFlow: flow,
  });
  const health = { shuttingDown: false, checks: { database: () => db.query('SELECT 1').then(() => true), nats: () => bus.healthy() } };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8084), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  // JetStream consumer lag of this process's durable consumers, read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  return {
    async stop() {
      health.shuttingDown = true;
      await pool.stop();
      await healthServer.close();
      await index.close();
      auth.close();
      await bus.close();
      await db.close();
      await tracing.shutdown();
    },
  };
});
