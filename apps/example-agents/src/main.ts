// One example server agent as its own process: SCENARIO (flight_booking | photo_retouch |
// fault_management), NATS_URL, PARLEY_SUBJECT_PREFIX, GATEWAY_URL (register + publish at start),
// HEALTH_PORT (8090). Run several replicas to share the scenario's queue group.
import { createLogger, envInt, envOptional, envString, runUntilSignal, startHealthServer } from '@parley/runtime';
import { EXAMPLE_SCENARIOS, isExampleScenario, registerExampleAgent, startExampleAgent } from './index';

const env = process.env;
const scenario = envString(env, 'SCENARIO');
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'example-agent', scenario } });

runUntilSignal(`agent-${scenario}`, log, async () => {
  if (!isExampleScenario(scenario)) throw new Error(`SCENARIO must be one of ${EXAMPLE_SCENARIOS.join(', ')}`);
  const gatewayUrl = envOptional(env, 'GATEWAY_URL');
  const health = { shuttingDown: false, checks: {} as Record<string, () => Promise<boolean>> };
  const healthServer = await startHealthServer(health, envInt(env, 'HEALTH_PORT', 8090));
  const agent = await startExampleAgent(scenario, { natsUrl: envString(env, 'NATS_URL'), prefix: envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley') });
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
  log.info('example agent serving', { agent: agent.name, registered_at: gatewayUrl ?? null });
  return {
    async stop() {
      health.shuttingDown = true;
      await agent.close();
      await healthServer.close();
    },
  };
});
