// The gateway as its own process: PORT (8080), REGISTRY_ADDR, NEGOTIATION_ADDR, EXECUTION_ADDR, MAX_BODY_BYTES (1 MiB).
import { ExecutionServiceService, NegotiationServiceService, RegistryServiceService, createGrpcClient } from '@parley/contracts';
import { createLogger, envInt, envString, runUntilSignal } from '@parley/runtime';
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
  const gateway = await startGateway({
    backends: { registry: registry.api, negotiation: negotiation.api, execution: execution.api },
    health,
    log,
    port: envInt(env, 'PORT', 8080),
    maxBodyBytes: envInt(env, 'MAX_BODY_BYTES', 1024 * 1024, { min: 1024 }),
  });
  return {
    async stop() {
      await gateway.stop();
      for (const c of clients) c.close();
    },
  };
});
