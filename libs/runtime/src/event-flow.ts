import { ConfigError, envInt, envOptional, type Env } from './config';

/**
 * The event flow's limits from the environment (infra/README.md), the same for
 * every service (draft-zhou §6.2 event flow):
 *
 * - PARLEY_STREAM_MAX_AGE_MS (7 days), PARLEY_STREAM_MAX_BYTES (256 MiB; -1 none),
 *   PARLEY_STREAM_MAX_MSGS (-1 none): the JetStream stream's retention (libs/events
 *   createNatsBus `retention`), applied when it is created and updated in place
 *   when they change;
 * - PARLEY_OUTBOX_MAX_ATTEMPTS (8): publish tries before the relay sets a row
 *   aside (while the bus is healthy);
 * - PARLEY_CONSUMER_MAX_ATTEMPTS (5): failed deliveries before a durable
 *   consumer sets an event aside.
 *
 * The defaults are libs/events' own (DEFAULT_STREAM_RETENTION,
 * DEFAULT_OUTBOX_MAX_ATTEMPTS, DEFAULT_CONSUMER_MAX_ATTEMPTS; a test keeps them
 * equal): the runtime does not import the event adapters.
 */
export interface EventFlowConfig {
  retention: { maxAgeMs: number; maxBytes: number; maxMsgs: number };
  outboxMaxAttempts: number;
  consumerMaxAttempts: number;
}

export const DEFAULT_EVENT_FLOW: EventFlowConfig = {
  retention: { maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, maxMsgs: -1 },
  outboxMaxAttempts: 8,
  consumerMaxAttempts: 5,
};

export function eventFlowFromEnv(env: Env): EventFlowConfig {
  const cap = (name: string, dflt: number): number => {
    const raw = envOptional(env, name);
    if (raw === undefined) return dflt;
    const n = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || (n < 1 && n !== -1)) throw new ConfigError(`${name} must be a positive integer or -1 (no limit), got "${raw}"`);
    return n;
  };
  const d = DEFAULT_EVENT_FLOW;
  return {
    retention: {
      maxAgeMs: envInt(env, 'PARLEY_STREAM_MAX_AGE_MS', d.retention.maxAgeMs, { min: 0 }),
      maxBytes: cap('PARLEY_STREAM_MAX_BYTES', d.retention.maxBytes),
      maxMsgs: cap('PARLEY_STREAM_MAX_MSGS', d.retention.maxMsgs),
    },
    outboxMaxAttempts: envInt(env, 'PARLEY_OUTBOX_MAX_ATTEMPTS', d.outboxMaxAttempts, { min: 1, max: 1000 }),
    consumerMaxAttempts: envInt(env, 'PARLEY_CONSUMER_MAX_ATTEMPTS', d.consumerMaxAttempts, { min: 1, max: 1000 }),
  };
}
