// Execution as its own process: DATABASE_URL, NATS_URL, NEGOTIATION_ADDR, GRPC_PORT (50053),
// HEALTH_PORT (8083), EXECUTE_TIMEOUT_MS (5000), PATCH_CACHE_TTL_MS (1000: schema patches reach
// validation within this time, draft-zhou §6.2.2), AUDIT_SAMPLE_RATE (0.25: share of patch-key
// values sampled for the §6.2.3 audit; 0 turns sampling off), AUDIT_SCENARIOS (comma-separated scenario ids, or `*`,
// whose patch-key values may be sampled and stored for that audit; default none: draft-zhou §7 (sensitive data at rest), values are stored only
// where an operator enables it per scenario).
// AN tasks (draft 004 §5.2-5.4, TaskService on the same gRPC port): REGISTRY_ADDR (optional: CapabilityRequest
// answers from the registry's agent profiles, else from the agent over NATS), TASK_MAX_NEGOTIATION_ROUNDS (5),
// WEBHOOK_BACKOFF_MS (1000) and WEBHOOK_MAX_BACKOFF_MS (300000) for webhook retries.
// Webhook trust: PARLEY_WEBHOOK_ALLOW (comma-separated URL patterns a webhook URL must match, e.g.
// `https://*.example.com,https://hooks.acme.io:8443/parley/,http://127.0.0.1:*`; unset: https to public hosts
// only, no loopback, private, link-local or metadata addresses), PARLEY_WEBHOOK_MAX_ATTEMPTS (50: consecutive
// failed deliveries after which a subscription is disabled; its notifications stay queryable).
// Safe retries: PARLEY_IDEMPOTENCY_TTL_MS (86400000: how long an execute idempotency key names one execution).
import { AgentProfileServiceService, NegotiationServiceService, createGrpcClient } from '@parley/contracts';
import { createNatsBus, createSubjects } from '@parley/events';
import { ConfigError, authenticatorFromEnv, createLogger, envInt, envOptional, envString, eventFlowFromEnv, natsFromEnv, runUntilSignal, startHealthServer, systemClock, tlsFromEnv } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { openDb } from '@parley/storage';
import { WebhookAllowError, startExecution, webhookUrlPolicy } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'execution' } });

runUntilSignal('execution', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured) and Prometheus metrics (PARLEY_METRICS, on).
  const tracing = startTracingFromEnv(env, 'execution');
  const metrics = metricsFromEnv(env);
  const webhookAllow = webhookAllowFromEnv();
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC and, with NATS_TLS or a tls:// NATS_URL, NATS
  const db = await openDb(envString(env, 'DATABASE_URL'), { applicationName: 'parley-execution', poolSize: envInt(env, 'DB_POOL_SIZE', 10, { min: 1 }) });
  const subjects = createSubjects(envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'));
  // PARLEY_STREAM_MAX_AGE_MS/_MAX_BYTES/_MAX_MSGS, PARLEY_OUTBOX_MAX_ATTEMPTS, PARLEY_*_RETENTION_MS, PARLEY_RETENTION_SWEEP_MS (libs/runtime eventFlowFromEnv).
  const flow = eventFlowFromEnv(env);
  const bus = await createNatsBus({ ...natsFromEnv(env, tls), retention: flow.retention, subjects, name: 'parley-execution' });
  // Identity (draft-zhou §7 authentication): PARLEY_SERVICE_TOKEN (required), PARLEY_TENANT, PARLEY_JWT_ISSUERS; API keys are checked at REGISTRY_ADDR.
  const auth = authenticatorFromEnv(env, systemClock, tls);
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'), { tls, credential: auth.serviceToken });
  const registryAddr = envOptional(env, 'REGISTRY_ADDR');
  const profiles = registryAddr ? createGrpcClient(AgentProfileServiceService, registryAddr, { deadlineMs: 3000, tls, credential: auth.serviceToken }) : undefined;
  const execution = await startExecution({
    db,
    bus,
    subjects,
    negotiation: negotiation.api,
    clock: systemClock,
    log,
    ...(metrics ? { metrics } : {}),
    timeoutMs: envInt(env, 'EXECUTE_TIMEOUT_MS', 5000, { min: 1 }),
    patchCacheTtlMs: envInt(env, 'PATCH_CACHE_TTL_MS', 1000, { min: 0 }),
    idempotencyTtlMs: envInt(env, 'PARLEY_IDEMPOTENCY_TTL_MS', 86_400_000, { min: 1000 }),
    auditSampleRate: envRate('AUDIT_SAMPLE_RATE', 0.25),
    auditScenarios: (envOptional(env, 'AUDIT_SCENARIOS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    grpcPort: envInt(env, 'GRPC_PORT', 50053),
    grpcTls: tls,
    authenticator: auth.authenticator,
    eventFlow: flow,
    ...(profiles ? { profiles: profiles.api } : {}),
    tasks: {
      maxNegotiationRounds: envInt(env, 'TASK_MAX_NEGOTIATION_ROUNDS', 5, { min: 1, max: 100 }),
      webhooks: {
        baseBackoffMs: envInt(env, 'WEBHOOK_BACKOFF_MS', 1000, { min: 1 }),
        maxBackoffMs: envInt(env, 'WEBHOOK_MAX_BACKOFF_MS', 300_000, { min: 1 }),
        maxAttempts: envInt(env, 'PARLEY_WEBHOOK_MAX_ATTEMPTS', 50, { min: 1 }),
        allow: webhookAllow,
      },
    },
  });
  const health = {
    shuttingDown: false,
    checks: {
      database: () => db.query('SELECT 1').then(() => true),
      nats: () => bus.healthy(),
      negotiation: () => negotiation.waitForReady(1500).then(() => true),
    },
  };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8083), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  // JetStream consumer lag of this process's durable consumers, read on scrape.
  metrics?.watchConsumers(() => bus.consumerLag?.() ?? Promise.resolve([]));
  return {
    async stop() {
      health.shuttingDown = true;
      await execution.stop();
      await healthServer.close();
      negotiation.close();
      profiles?.close();
      auth.close();
      await bus.close();
      await db.close();
      await tracing.shutdown();
    },
  };
});

function envRate(name: string, dflt: number): number {
  const raw = envOptional(env, name);
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(`${name} must be a number between 0 and 1, got "${raw}"`);
  return n;
}

/** PARLEY_WEBHOOK_ALLOW, checked at start: a malformed pattern is a ConfigError naming it. */
function webhookAllowFromEnv() {
  try {
    return webhookUrlPolicy(envOptional(env, 'PARLEY_WEBHOOK_ALLOW'));
  } catch (e) {
    if (e instanceof WebhookAllowError) throw new ConfigError(`PARLEY_WEBHOOK_ALLOW: ${e.message}`);
    throw e;
  }
}
