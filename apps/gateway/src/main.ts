// The gateway as its own process: PORT (8080), REGISTRY_ADDR, NEGOTIATION_ADDR, EXECUTION_ADDR, MAX_BODY_BYTES (1 MiB),
// PUBLIC_URL (for A2A agent cards; default from the Host header), CATALOG_TTL_MS (MCP/A2A tool cache, 5000),
// PARLEY_EMBEDDER (offline | openai | transformers, with PARLEY_EMBEDDINGS_URL/_MODEL/_API_KEY) for MCP tool selection, and
// MCP_TOOL_EXAMPLES_FILE (JSON {"<tool>": ["example request", ...]}) for example requests an operator attaches to tools,
// MCP_LEARNING_SHARED_CLIENTS (opt-in, >= 2: a learned example serves every client once that many principals said it).
// Schema self-evolution (draft-zhou §6.2), each optional: SEMANTIC_POOL_ADDR and EVOLUTION_ADDR (without them the
// operator methods answer `unavailable`).
// Identity (draft-zhou §7): PARLEY_SERVICE_TOKEN (required), PARLEY_TENANT, PARLEY_JWT_ISSUERS, PARLEY_AUTH_CACHE_MS (API keys are
// checked at REGISTRY_ADDR). The HTTP settings (MAX_BODY_BYTES, MAX_BATCH, RATE_LIMIT_*, PARLEY_MAX_INFLIGHT_PER_PRINCIPAL,
// PARLEY_HTTP_*_TIMEOUT_MS, PARLEY_TLS_*, PUBLIC_URL, PARLEY_ALLOWED_HOSTS) are read by gatewayHttpFromEnv, as npm start reads them.
import { readFileSync } from 'node:fs';
import {
  AgentProfileServiceService,
  ApiKeyServiceService,
  EventSubscriptionServiceService,
  DeadLetterServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  createGrpcClient,
} from '@parley/contracts';
import { createEmbedderFromEnv } from '@parley/embeddings';
import { authenticatorFromEnv, createLogger, envInt, envOptional, envString, gatewayHttpFromEnv, runUntilSignal, systemClock, type ReadinessCheck } from '@parley/runtime';
import { loadKeyRing, metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { gatewayHttpDeps, startGateway } from './index';
import { parseToolExamples } from './adol-params';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'gateway' } });

runUntilSignal('gateway', log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured); Prometheus metrics at GET /metrics on PORT (PARLEY_METRICS).
  const tracing = startTracingFromEnv(env, 'gateway');
  const metrics = metricsFromEnv(env);
  // One reading of the HTTP settings, shared with npm start (libs/runtime gateway-config.ts).
  const http = gatewayHttpFromEnv(env);
  const tls = http.tls; // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC (HTTPS for the gateway)
  const executeTimeout = envInt(env, 'EXECUTE_TIMEOUT_MS', 5000, { min: 1 });
  const auth = authenticatorFromEnv(env, systemClock, tls);
  // The gateway's own calls (the MCP/A2A catalogue, the JWKS) carry the service token; a caller's calls carry the caller's.
  const credential = auth.serviceToken;
  const registry = createGrpcClient(RegistryServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls, credential });
  // AN agent profiles (draft 004 §5.1): served by the registry on the same address.
  const profiles = createGrpcClient(AgentProfileServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls, credential });
  const apiKeys = createGrpcClient(ApiKeyServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls, credential });
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'), { tls, credential });
  // The execution deadline leaves room for the agent's own timeout to come back as a typed error.
  const execution = createGrpcClient(ExecutionServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { deadlineMs: executeTimeout + 5000, tls, credential });
  // AN tasks (draft 004 §5.2-5.4): TaskService is served by the execution service, on its gRPC port.
  const tasks = createGrpcClient(TaskServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { deadlineMs: executeTimeout + 5000, tls, credential });
  // Operators' webhooks for schema evolution events: EventSubscriptionService, on execution's gRPC port too.
  const eventSubscriptions = createGrpcClient(EventSubscriptionServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { tls, credential });
  const poolAddr = envOptional(env, 'SEMANTIC_POOL_ADDR');
  const evolutionAddr = envOptional(env, 'EVOLUTION_ADDR');
  const pool = poolAddr ? createGrpcClient(SemanticPoolServiceService, poolAddr, { tls, credential }) : undefined;
  const evolution = evolutionAddr ? createGrpcClient(EvolutionServiceService, evolutionAddr, { tls, credential }) : undefined;
  // Dead letters (draft-zhou §6.2 event flow): every service serves DeadLetterService on its gRPC port.
  const deadLetterClients = new Map(
    (
      [
        ['registry', envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051')],
        ['negotiation', envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052')],
        ['execution', envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053')],
        ['semantic-pool', poolAddr],
        ['evolution', evolutionAddr],
      ] as const
    ).flatMap(([name, addr]) => (addr ? [[name, createGrpcClient(DeadLetterServiceService, addr, { tls, credential })] as const] : [])),
  );
  const clients = [registry, profiles, apiKeys, negotiation, execution, tasks, eventSubscriptions, ...(pool ? [pool] : []), ...(evolution ? [evolution] : []), ...deadLetterClients.values()];
  const checks: Record<string, ReadinessCheck> = {
    registry: () => registry.waitForReady(1500).then(() => true),
    negotiation: () => negotiation.waitForReady(1500).then(() => true),
    execution: () => execution.waitForReady(1500).then(() => true),
  };
  // The evolution services are not readiness checks: their outage makes the operator methods answer
  // `unavailable` but must not take negotiation and execution out of rotation.
  const health = { shuttingDown: false, checks };
  const embedder = createEmbedderFromEnv(env);
  log.info('embedder for tool selection', { embedder: embedder.id, ...(embedder.description ? { description: embedder.description } : {}) });
  // Example requests an operator attaches to tools for selection (chang §3.4): {"<tool>": ["…"]}.
  const examplesFile = envOptional(env, 'MCP_TOOL_EXAMPLES_FILE');
  const toolExamples = examplesFile ? parseToolExamples(JSON.parse(readFileSync(examplesFile, 'utf8')), examplesFile) : undefined;
  if (toolExamples) log.info('example requests for tool selection', { file: examplesFile, tools: toolExamples.size });
  // chang §3.4, selection that learns from use: each principal's learned examples serve it only, unless the operator opts in.
  const learningSharedClients = envOptional(env, 'MCP_LEARNING_SHARED_CLIENTS') !== undefined ? envInt(env, 'MCP_LEARNING_SHARED_CLIENTS', 2, { min: 2 }) : undefined;
  const gateway = await startGateway({
    backends: {
      registry: registry.api,
      profiles: profiles.api,
      apiKeys: apiKeys.api,
      negotiation: negotiation.api,
      execution: execution.api,
      tasks: tasks.api,
      eventSubscriptions: eventSubscriptions.api,
      ...(pool ? { pool: pool.api } : {}),
      ...(evolution ? { evolution: evolution.api } : {}),
      deadLetters: new Map([...deadLetterClients].map(([name, c]) => [name, c.api])),
    },
    health,
    log,
    port: envInt(env, 'PORT', 8080),
    ...gatewayHttpDeps(http),
    catalogTtlMs: envInt(env, 'CATALOG_TTL_MS', 5000, { min: 0 }),
    embedder,
    ...(toolExamples ? { toolExamples } : {}),
    ...(learningSharedClients !== undefined ? { learningSharedClients } : {}),
    authenticator: auth.authenticator,
    ...(metrics ? { metrics } : {}),
    // A2A agent cards are signed (a2a-card-versions.ts) with the key negotiation signs templates with
    // (PARLEY_SIGNING_KEYS_DIR / PARLEY_SIGNING_KEY), else a key generated at start; the JWKS publishes it.
    cardSigner: loadKeyRing(env, log),
  });
  return {
    async stop() {
      await gateway.stop();
      for (const c of clients) c.close();
      auth.close();
      await tracing.shutdown();
    },
  };
});
