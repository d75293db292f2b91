// One example autonomous-network agent as its own process (draft 004 §2.1, §2.2):
// AN_AGENT (wireless | ip | cross-domain | trouble-ticket | optimization | energy-saving), NATS_URL,
// PARLEY_SUBJECT_PREFIX (parley), GATEWAY_URL (its profile is registered there with register_profile; the
// tasks it initiates go there), HEALTH_PORT (8090: /healthz, /readyz, GET /state and the role's control
// routes, e.g. POST /alarms), AN_PROVIDER (Acme) and AN_VERSION (1.0.0) for the profile's name and version.
// NATS over TLS and per-agent credentials as for the services (NATS_TLS with PARLEY_TLS_*, NATS_USER /
// NATS_PASSWORD); PARLEY_API_KEY: the agent's gateway API key, a bearer token on every gateway call.
import { AN_ROLES, isAnRole } from '@parley/examples';
import { createLogger, envInt, envOptional, envString, natsFromEnv, runUntilSignal } from '@parley/runtime';
import { startExampleAnAgent } from './index';

const env = process.env;
const role = envString(env, 'AN_AGENT');
const log = createLogger({ level: env.LOG_LEVEL, base: { service: 'an-agent', role } });

runUntilSignal(`an-agent-${role}`, log, async () => {
  if (!isAnRole(role)) throw new Error(`AN_AGENT must be one of ${AN_ROLES.join(', ')}`);
  const apiKey = envOptional(env, 'PARLEY_API_KEY');
  const agent = await startExampleAnAgent(role, {
    nats: natsFromEnv(env),
    ...(apiKey ? { apiKey } : {}),
    prefix: envString(env, 'PARLEY_SUBJECT_PREFIX', 'parley'),
    gatewayUrl: envString(env, 'GATEWAY_URL'),
    httpPort: envInt(env, 'HEALTH_PORT', 8090, { min: 0, max: 65535 }),
    profile: { provider: envString(env, 'AN_PROVIDER', 'Acme'), version: envString(env, 'AN_VERSION', '1.0.0') },
    log,
  });
  return { stop: () => agent.stop() };
});
