export { ConfigError, envInt, envNumber, envOptional, envString } from './config';
export { createLogger, type Logger, type LogLevel } from './logger';
export { handleHealth, probe, startHealthServer, type HealthState, type ReadinessCheck } from './health';
export { runUntilSignal, type Running } from './lifecycle';
export { systemClock, type Clock } from './clock';
export { createMutex, type Mutex } from './mutex';
