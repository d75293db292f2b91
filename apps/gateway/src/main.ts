// The gateway as its own process: PORT (8080), REGISTRY_ADDR, NEGOTIATION_ADDR, EXECUTION_ADDR, MAX_BODY_BYTES (1 MiB),
// PUBLIC_URL (for A2A agent cards; default from the Host header), CATALOG_TTL_MS (MCP/A2A tool cache, 5000),
// PARLEY_EMBEDDER (offline | openai, with PARLEY_EMBEDDINGS_URL/_MODEL/_API_KEY) for MCP tool selection.
// Schema self-evolution (draft-zhou §6.2), each optional: SEMANTIC_POOL_ADDR and EVOLUTION_ADDR (without them the
// operator methods answer `unavailable`), PARLEY_OPERATOR_TOKEN (at least 16 characters; without it the operator
// writes and raw pool fragments answer `forbidden`).
import {
  AgentProfileServiceService,
  EvolutionServiceService,
  ExecutionServiceService,
  NegotiationServiceService,
  RegistryServiceService,
  SemanticPoolServiceService,
  TaskServiceService,
  createGrpcClient,
} from '@parley/contracts';
import { createEmbedderFromEnv } from '@parley/embeddings';
import { ConfigError, createLogger, envInt, envOptional, envString, runUntilSignal, tlsFromEnv, type ReadinessCheck } from '@parley/runtime';
import { MIN_OPERATOR_TOKEN_LENGTH, createOperatorAuth } from './operator';
import { startGateway } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'gateway' } });

runUntilSignal('gateway', log, async () => {
  const tls = tlsFromEnv(env); // PARLEY_TLS_CERT/_KEY/_CA: TLS for gRPC (HTTPS for the gateway)
  const executeTimeout = envInt(env, 'EXECUTE_TIMEOUT_MS', 5000, { min: 1 });
  const operatorToken = envOptional(env, 'PARLEY_OPERATOR_TOKEN');
  if (operatorToken !== undefined) {
    try {
      createOperatorAuth(operatorToken);
    } catch (e) {
      throw new ConfigError(`PARLEY_OPERATOR_TOKEN is unusable: ${(e as Error).message} (e.g. \`openssl rand -hex 32\`; at least ${MIN_OPERATOR_TOKEN_LENGTH} characters)`);
    }
  }
  const registry = createGrpcClient(RegistryServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls });
  // AN agent profiles (draft 004 §5.1): served by the registry on the same address.
  const profiles = createGrpcClient(AgentProfileServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'), { tls });
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'), { tls });
  // The execution deadline leaves room for the agent's own timeout to come back as a typed error.
  const execution = createGrpcClient(ExecutionServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { deadlineMs: executeTimeout + 5000, tls });
  // AN tasks (draft 004 §5.2-5.4): TaskService is served by the execution service, on its gRPC port.
  const tasks = createGrpcClient(TaskServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { deadlineMs: executeTimeout + 5000, tls });
  const poolAddr = envOptional(env, 'SEMANTIC_POOL_ADDR');
  const evolutionAddr = envOptional(env, 'EVOLUTION_ADDR');
  const pool = poolAddr ? createGrpcClient(SemanticPoolServiceService, poolAddr, { tls }) : undefined;
  const evolution = evolutionAddr ? createGrpcClient(EvolutionServiceService, evolutionAddr, { tls }) : undefined;
  const clients = [registry, profiles, negotiation, execution, tasks, ...(pool ? [pool] : []), ...(evolution ? [evolution] : [])];
  const checks: Record<string, ReadinessCheck> = {
    registry: () => registry.waitForReady(1500).then(() => true),
    negotiation: () => negotiation.waitForReady(1500).then(() => true),
    execution: () => execution.waitForReady(1500).then(() => true),
  };
  // The evolution services are not readiness checks: their outage makes the operator methods answer
  // `unavailable` but must not take negotiation and execution out of rotation.
  const health = { shuttingDown: false, checks };
  const publicUrl = envOptional(env, 'PUBLIC_URL');
  const embedder = createEmbedderFromEnv(env);
  log.info('embedder for tool selection', { embedder: embedder.id });
  const gateway = await startGateway({
    backends: {
      registry: registry.api,
      profiles: profiles.api,
      negotiation: negotiation.api,
      execution: execution.api,
      tasks: tasks.api,
      ...(pool ? { pool: pool.api } : {}),
      ...(evolution ? { evolution: evolution.api } : {}),
    },
    health,
    log,
    port: envInt(env, 'PORT', 8080),
    maxBodyBytes: envInt(env, 'MAX_BODY_BYTES', 1024 * 1024, { min: 1024 }),
    catalogTtlMs: envInt(env, 'CATALOG_TTL_MS', 5000, { min: 0 }),
    ...(publicUrl ? { publicUrl } : {}),
    embedder,
    ...(tls ? { tls } : {}),
    ...(operatorToken ? { operatorToken } : {}),
  });
  return {
    async stop() {
      await gateway.stop();
      for (const c of clients) c.close();
    },
  };
});
