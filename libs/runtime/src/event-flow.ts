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
 *   consumer sets an event aside;
 * - PARLEY_OUTBOX_RETENTION_MS (7 days; 0 keeps them): published outbox rows
 *   older than this are deleted (libs/events retention.ts);
 * - PARLEY_PROCESSED_RETENTION_MS (twice the stream's age limit; 0 keeps
 *   them): consumers' processed marks older than this are deleted. A mark must
 *   outlive every redelivery of its event, and a recreated durable replays the
 *   stream from its oldest message, so the value must exceed
 *   PARLEY_STREAM_MAX_AGE_MS, and with no age limit on the stream marks are
 *   kept (an explicit value is then refused);
 * - PARLEY_RETENTION_SWEEP_MS (1 h): how often the pruner runs.
 *
 * The defaults are libs/events' own (DEFAULT_STREAM_RETENTION,
 * DEFAULT_OUTBOX_MAX_ATTEMPTS, DEFAULT_CONSUMER_MAX_ATTEMPTS; a test keeps them
 * equal): the runtime does not import the event adapters.
 */
export interface EventFlowConfig {
  retention: { maxAgeMs: number; maxBytes: number; maxMsgs: number };
  outboxMaxAttempts: number;
  consumerMaxAttempts: number;
  outboxRetentionMs: number;
  processedRetentionMs: number;
  retentionSweepMs: number;
}

/** The least retention (libs/events MIN_RETENTION_MS): far above the relay's gap wait. */
const MIN_RETENTION_MS = 60_000;

export const DEFAULT_EVENT_FLOW: EventFlowConfig = {
  retention: { maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, maxMsgs: -1 },
  outboxMaxAttempts: 8,
  consumerMaxAttempts: 5,
  outboxRetentionMs: 7 * 86_400_000,
  processedRetentionMs: 14 * 86_400_000,
  retentionSweepMs: 3_600_000,
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
  const maxAgeMs = envInt(env, 'PARLEY_STREAM_MAX_AGE_MS', d.retention.maxAgeMs, { min: 0 });
  return {
    retention: {
      maxAgeMs,
      maxBytes: cap('PARLEY_STREAM_MAX_BYTES', d.retention.maxBytes),
      maxMsgs: cap('PARLEY_STREAM_MAX_MSGS', d.retention.maxMsgs),
    },
    outboxMaxAttempts: envInt(env, 'PARLEY_OUTBOX_MAX_ATTEMPTS', d.outboxMaxAttempts, { min: 1, max: 1000 }),
    consumerMaxAttempts: envInt(env, 'PARLEY_CONSUMER_MAX_ATTEMPTS', d.consumerMaxAttempts, { min: 1, max: 1000 }),
    outboxRetentionMs: retentionMs(env, 'PARLEY_OUTBOX_RETENTION_MS', d.outboxRetentionMs),
    processedRetentionMs: processedRetentionMs(env, maxAgeMs),
    retentionSweepMs: envInt(env, 'PARLEY_RETENTION_SWEEP_MS', d.retentionSweepMs, { min: 1000 }),
  };
}

/** 0 (keep forever) or at least MIN_RETENTION_MS. */
function retentionMs(env: Env, name: string, fallback: number): number {
  const v = envInt(env, name, fallback, { min: 0 });
  if (v !== 0 && v < MIN_RETENTION_MS) throw new ConfigError(`${name} must be 0 (keep forever) or >= ${MIN_RETENTION_MS} (got ${v})`);
  return v;
}

/** Processed marks outlive the stream's messages: twice its age limit by default, above it when given, kept with no limit. */
function processedRetentionMs(env: Env, streamMaxAgeMs: number): number {
  const name = 'PARLEY_PROCESSED_RETENTION_MS';
  const given = env[name] !== undefined && env[name] !== '';
  if (!given) return streamMaxAgeMs === 0 ? 0 : Math.max(2 * streamMaxAgeMs, MIN_RETENTION_MS);
  const v = retentionMs(env, name, 0);
  if (v === 0) return 0;
  if (streamMaxAgeMs === 0) throw new ConfigError(`${name} must be 0 while PARLEY_STREAM_MAX_AGE_MS is 0 (the stream keeps every event, so a mark may be needed forever; got ${v})`);
  if (v <= streamMaxAgeMs) throw new ConfigError(`${name} must be greater than PARLEY_STREAM_MAX_AGE_MS (${streamMaxAgeMs}): a mark must outlive every redelivery of its event (got ${v})`);
  return v;
}
