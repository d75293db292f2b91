// The evolution service as its own process: DATABASE_URL, NATS_URL, NEGOTIATION_ADDR, GRPC_PORT (50055),
// HEALTH_PORT (8085), PARLEY_TICK_MS (60000), PARLEY_LLM_URL / PARLEY_LLM_MODEL / PARLEY_LLM_API_KEY
// (an OpenAI-compatible inducer and audit judge; rule-based induction and operator audits when unset),
// and the §6.2.2-§6.2.3 figures read by env.ts.
import { NegotiationServiceService, createGrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects } from '@parley/events';
import { loadWordNetLexicon } from '@parley/embeddings';
import { createLlmFromEnv } from '@parley/llm';
import { authenticatorFromEnv, createLogger, envInt, envString, eventFlowFromEnv, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { evolverConfigFromEnv, startEvolution } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'evolution' } });

runUntilSignal('evolution', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured) and Prometheus metrics (PARLEY_METRICS, on).
  const tracing = startTracingFromEnv(env, 'evolution');
  const metrics = metricsFromEnv(env);
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-evolution' });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  // PARLEY_STREAM_MAX_AGE_MS/_MAX_BYTES/_MAX_MSGS, PARLEY_OUTBOX_MAX_ATTEMPTS, PARLEY_CONSUMER_MAX_ATTEMPTS, PARLEY_*_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS (libs/runtime eventFlowFromEnv).
  const flow = eventFlowFromEnv(env);
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), retention: flow.retention, subjects, name: 'parley-evolution' });
  // Identity (draft-zhou §7): PARLEY_SERVICE_TOKEN (required), REGISTRY_ADDR (API keys), PARLEY_TENANT, PARLEY_JWT_ISSUERS.
  const auth = authenticatorFromEnv(env, systemClock, tls);
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'), { tls, credential: auth.serviceToken });
  // The rule inducer names keys from concepts over WordNet (draft-zhou §6.2.2); loaded once at start.
  const llm = createLlmFromEnv(env, await loadWordNetLexicon());
  log.info('evolution LLM ports', { use: llm.describe });
  const evolution = await startEvolution({
    db,
    bus,
    subjects,
    negotiation: negotiation.api,
    clock: systemClock,
    log,
    ...(metrics ? { metrics } : {}),
    config: evolverConfigFromEnv(env),
    induce: (input) => llm.inducer.induce(input),
    judge: llm.judge ? { id: llm.judge.id, judge: (i) => (llm.judge as NonNullable<typeof llm.judge>).judge(i) } : null,
    tickMs: envInt(env, 'PARLEY_TICK_MS', 60_000, { min: 0 }),
    grpcPort: envInt(env, 'GRPC_PORT', 50055),
    grpcTls: tls,
    authenticator: auth.authenticator,
    eventFlow: flow,
  });
  const health = {
    shuttingDown: false,
    checks: { database: () => db.query('SELECT 1').then(() => true), nats: () => bus.healthy(), negotiation: () => negotiation.waitForReady(1500).then(() => true) },
  };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8085), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  // JetStream consumer lag of this process's durable consumers, read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  return {
    async stop() {
      health.shuttingDown = true;
      await evolution.stop();
      await healthServer.close();
      negotiation.close();
      auth.close();
      await bus.close();
      await db.close();
      await tracing.shutdown();
    },
  };
});
