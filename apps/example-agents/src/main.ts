// One example server agent as its own process: SCENARIO (flight_booking | photo_retouch |
// fault_management), NATS_URL, PARLEY_SUBJECT_PREFIX, GATEWAY_URL (register + publish at start),
// HEALTH_PORT (8090). Run several replicas to share the scenario's queue group.
// NATS over TLS and per-agent credentials as for the services: NATS_TLS=true (or a tls:// NATS_URL)
// with PARLEY_TLS_CERT/_KEY/_CA, NATS_USER/NATS_PASSWORD. PARLEY_API_KEY: the agent's gateway API key
// (sent as a bearer token when it registers). An https GATEWAY_URL signed by a private CA needs
// NODE_EXTRA_CA_CERTS (the deployments point it at PARLEY_TLS_CA).
import { createAgent } from '@parley/agent-sdk';
import { createLogger, envInt, envOptional, envString, natsFromEnv, runUntilSignal, startHealthServer } from '@parley/runtime';
import { metricsFromEnv, startTracingFromEnv } from '@parley/runtime';
import { EXAMPLE_AGENTS, EXAMPLE_SCENARIOS, isExampleScenario, registerExampleAgent } from './index';

const env = process.env;
const scenario = envString(env, 'SCENARIO');
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'example-agent', scenario } });

runUntilSignal(`agent-${scenario}`, log, async () => {
  // OpenTelemetry traces (OTEL_*; off unless an exporter is configured): the agent continues the dispatch's trace.
  const tracing = startTracingFromEnv(env, `agent-${scenario}`);
  const metrics = metricsFromEnv(env);
  if (!isExampleScenario(scenario)) throw new Error(`SCENARIO must be one of ${EXAMPLE_SCENARIOS.join(', ')}`);
  const gatewayUrl = envOptional(env, 'GATEWAY_URL');
  const apiKey = envOptional(env, 'PARLEY_API_KEY');
  const nats = natsFromEnv(env); // NATS_URL, NATS_TLS + PARLEY_TLS_*, NATS_USER / NATS_PASSWORD
  const health = { shuttingDown: false, checks: {} as Record<string, () => Promise<boolean>> };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8090), '0.0.0.0', { ...(metrics ? { metrics } : {}) });
  const spec = EXAMPLE_AGENTS[scenario];
  const agent = await createAgent({ name: spec.name, nats, prefix: envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'), ...(apiKey ? { apiKey } : {}) });
  await agent.serve(scenario, spec.handler);
  // The gateway may come up after the agent (compose, Kubernetes): retry registration until it answers.
  for (let attempt = 1; gatewayUrl; attempt++) {
    try {
      await registerExampleAgent(agent, scenario, gatewayUrl);
      break;
    } catch (e) {
      if (attempt >= 60) throw e;
      log.warn('registration failed, retrying', { attempt, error: e });
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  log.info('example agent serving', { agent: agent.name, registered_at: gatewayUrl ?? null, nats_tls: nats.tls !== undefined, nats_user: nats.user ?? null });
  return {
    async stop() {
      health.shuttingDown = true;
      await agent.close();
      await healthServer.close();
      await tracing.shutdown();
    },
  };
});
