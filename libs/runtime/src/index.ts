export { ConfigError, envInt, envNumber, envOptional, envString } from './config';
export { createLogger, type Logger, type LogLevel } from './logger';
export { handleHealth, handleMetrics, probe, startHealthServer, type HealthState, type ReadinessCheck } from './health';
export { runUntilSignal, type Running } from './lifecycle';
export { systemClock, type Clock } from './clock';
export { createMutex, type Mutex } from './mutex';
export { PARLEY_JWS_TYP, canonicalJson, createKeyRing, generateSigningKey, jwkThumbprint, jwsHeader, loadKeyRing, parseKey, signDetached, verifyDetached, type JwsHeader, type Jwks, type KeyRing, type KeyRingOptions, type LoadedKey, type PublicJwk, type SigningKey, type VerifyFailure, type VerifyResult } from './jws';
export { SealError, createSealer, dataKeyId, ephemeralSealer, generateDataKey, parseDataKeys, sealerFromEnv, type DataKey, type SealFailure, type Sealer } from './seal';
export { natsFromEnv, tlsFromEnv, type NatsConnectionEnv, type TlsMaterial } from './tls';
export { MIN_SERVICE_TOKEN_LENGTH, SERVICE_PRINCIPAL_ID, apiKeysViaRegistry, authFromEnv, authenticatorFromEnv, createAuthenticator, fetchJwks, generateServiceToken, type AuthEnv, type AuthenticatorOptions } from './auth';
export { createRateLimiter, type RateDecision, type RateLimitOptions, type RateLimiter } from './rate-limit';
export { DEFAULT_EVENT_FLOW, eventFlowFromEnv, type EventFlowConfig } from './event-flow';
export {
  KEY_STATES,
  LABEL_NONE,
  LABEL_OTHER,
  PATCH_STATUSES,
  TOP_HEAT,
  boundedLabel,
  createMetrics,
  credentialLabel,
  metricsFromEnv,
  outcomeLabel,
  principalClass,
  ruleLabel,
  type BoundedLabel,
  type ConsumerLag,
  type EvolutionScenarioFigures,
  type Metrics,
  type MetricsOptions,
  type PoolScenarioFigures,
} from './metrics';
export { installTracing, installTracingTo, startTracingFromEnv, type Tracing } from './tracing';
export { gatewayHttpFromEnv, type GatewayHttpConfig } from './gateway-config';
