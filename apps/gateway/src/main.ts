// The gateway as its own process: PORT (8080), REGISTRY_ADDR, NEGOTIATION_ADDR, EXECUTION_ADDR, MAX_BODY_BYTES (1 MiB),
// PUBLIC_URL (for A2A agent cards; default from the Host header), CATALOG_TTL_MS (MCP/A2A tool cache, 5000),
// PARLEY_EMBEDDER (offline | openai, with PARLEY_EMBEDDINGS_URL/_MODEL/_API_KEY) for MCP tool selection.
import { ExecutionServiceService, NegotiationServiceService, RegistryServiceService, createGrpcClient } from '@parley/contracts';
import { createEmbedderFromEnv } from '@parley/embeddings';
import { createLogger, envInt, envOptional, envString, runUntilSignal } from '@parley/runtime';
import { startGateway } from './index';

const env = process.env;
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'gateway' } });

runUntilSignal('gateway', log, async () => {
  const executeTimeout = envInt(env, 'EXECUTE_TIMEOUT_MS', 5000, { min: 1 });
  const registry = createGrpcClient(RegistryServiceService, envString(env, 'REGISTRY_ADDR', '127.0.0.1:50051'));
  const negotiation = createGrpcClient(NegotiationServiceService, envString(env, 'NEGOTIATION_ADDR', '127.0.0.1:50052'));
  // The execution deadline leaves room for the agent's own timeout to come back as a typed error.
  const execution = createGrpcClient(ExecutionServiceService, envString(env, 'EXECUTION_ADDR', '127.0.0.1:50053'), { deadlineMs: executeTimeout + 5000 });
  const clients = [registry, negotiation, execution];
  const health = {
    shuttingDown: false,
    checks: {
      registry: () => registry.waitForReady(1500).then(() => true),
      negotiation: () => negotiation.waitForReady(1500).then(() => true),
      execution: () => execution.waitForReady(1500).then(() => true),
    },
  };
  const publicUrl = envOptional(env, 'PUBLIC_URL');
  const embedder = createEmbedderFromEnv(env);
  log.info('embedder for tool selection', { embedder: embedder.id });
  const gateway = await startGateway({
    backends: { registry: registry.api, negotiation: negotiation.api, execution: execution.api },
    health,
    log,
    port: envInt(env, 'PORT', 8080),
    maxBodyBytes: envInt(env, 'MAX_BODY_BYTES', 1024 * 1024, { min: 1024 }),
    catalogTtlMs: envInt(env, 'CATALOG_TTL_MS', 5000, { min: 0 }),
    ...(publicUrl ? { publicUrl } : {}),
    embedder,
  });
  return {
    async stop() {
      await gateway.stop();
      for (const c of clients) c.close();
    },
  };
});
