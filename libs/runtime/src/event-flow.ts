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
 * - PARLEY_OUTBOX_RETENTION_MS (7 days; 0 keeps them; at most 100 years):
 *   published outbox rows older than this are deleted (libs/events retention.ts);
 * - PARLEY_PROCESSED_RETENTION_MS (twice the stream's age limit, at least its
 *   age + 1 h; 0 keeps them; at most 100 years): consumers' processed marks
 *   older than this are deleted. A mark must outlive every redelivery of its
 *   event, and a recreated durable replays the stream from its oldest message,
 *   so the value must be at least PARLEY_STREAM_MAX_AGE_MS + 1 h (MARK_MARGIN_MS:
 *   clock skew between the service and the database), and with no age limit on
 *   the stream marks are kept (an explicit value is then refused). The stream is
 *   shared and its limits may be changed by another service or an operator, so
 *   the pruner also checks the live stream's max_age at each sweep and keeps
 *   the marks when this check fails there;
 * - PARLEY_DEAD_LETTER_RETENTION_MS (30 days; 0 keeps them; at most 100 years):
 *   dead letters an operator resolved (retried or discarded) longer ago than
 *   this are deleted; one still open (`dead`) never is;
 * - PARLEY_RETENTION_SWEEP_MS (1 h): how often the pruner runs;
 * - PARLEY_OUTBOX_POLL_MS (1 s): how often a relay looks for rows no nudge announced.
 *
 * The defaults are libs/events' own (DEFAULT_STREAM_RETENTION,
 * DEFAULT_OUTBOX_MAX_ATTEMPTS, DEFAULT_CONSUMER_MAX_ATTEMPTS, the DEFAULT_*_RETENTION_MS, DEFAULT_OUTBOX_POLL_MS; a test keeps them
 * equal): the runtime does not import the event adapters.
 */
export interface EventFlowConfig {
  retention: { maxAgeMs: number; maxBytes: number; maxMsgs: number };
  outboxMaxAttempts: number;
  consumerMaxAttempts: number;
  outboxRetentionMs: number;
  processedRetentionMs: number;
  deadLetterRetentionMs: number;
  retentionSweepMs: number;
  /**
   * How often an outbox relay looks for rows no nudge announced (PARLEY_OUTBOX_POLL_MS): a writer nudges its own
   * relay after its commit, so the poll finds only the rows of a replica that died before its relay ran.
   */
  outboxPollMs: number;
}

/** The least retention (libs/events MIN_RETENTION_MS): far above the relay's gap wait. */
const MIN_RETENTION_MS = 60_000;
/** The greatest retention (libs/events MAX_RETENTION_MS): 100 years. */
const MAX_RETENTION_MS = 100 * 365 * 86_400_000;
/** Processed marks outlive the stream's age limit by at least this (libs/events MARK_MARGIN_MS). */
const MARK_MARGIN_MS = 3_600_000;

export const DEFAULT_EVENT_FLOW: EventFlowConfig = {
  retention: { maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, maxMsgs: -1 },
  outboxMaxAttempts: 8,
  consumerMaxAttempts: 5,
  outboxRetentionMs: 7 * 86_400_000,
  processedRetentionMs: 14 * 86_400_000,
  deadLetterRetentionMs: 30 * 86_400_000,
  retentionSweepMs: 3_600_000,
  outboxPollMs: 1000,
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
  // At most 50 years, so the marks' default retention (twice it) stays under MAX_RETENTION_MS.
  const maxAgeMs = envInt(env, 'PARLEY_STREAM_MAX_AGE_MS', d.retention.maxAgeMs, { min: 0, max: MAX_RETENTION_MS / 2 });
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
    deadLetterRetentionMs: retentionMs(env, 'PARLEY_DEAD_LETTER_RETENTION_MS', d.deadLetterRetentionMs),
    retentionSweepMs: envInt(env, 'PARLEY_RETENTION_SWEEP_MS', d.retentionSweepMs, { min: 1000 }),
    outboxPollMs: envInt(env, 'PARLEY_OUTBOX_POLL_MS', d.outboxPollMs, { min: 10, max: 3_600_000 }),
  };
}

/** 0 (keep forever) or from MIN_RETENTION_MS to MAX_RETENTION_MS. */
function retentionMs(env: Env, name: string, fallback: number): number {
  const v = envInt(env, name, fallback, { min: 0 });
  if (v !== 0 && (v < MIN_RETENTION_MS || v > MAX_RETENTION_MS)) {
    throw new ConfigError(`${name} must be 0 (keep forever) or from ${MIN_RETENTION_MS} to ${MAX_RETENTION_MS} (100 years) (got ${v})`);
  }
  return v;
}

/** Processed marks outlive the stream's messages: twice its age limit (at least its age + margin) by default, at least age + margin when given, kept with no limit. */
function processedRetentionMs(env: Env, streamMaxAgeMs: number): number {
  const name = 'PARLEY_PROCESSED_RETENTION_MS';
  const given = env[name] !== undefined && env[name] !== '';
  if (!given) return streamMaxAgeMs === 0 ? 0 : Math.max(2 * streamMaxAgeMs, streamMaxAgeMs + MARK_MARGIN_MS);
  const v = retentionMs(env, name, 0);
  if (v === 0) return 0;
  if (streamMaxAgeMs === 0) throw new ConfigError(`${name} must be 0 while PARLEY_STREAM_MAX_AGE_MS is 0 (the stream keeps every event, so a mark may be needed forever; got ${v})`);
  if (v < streamMaxAgeMs + MARK_MARGIN_MS) {
    throw new ConfigError(`${name} must be at least PARLEY_STREAM_MAX_AGE_MS (${streamMaxAgeMs}) + ${MARK_MARGIN_MS} (1 h margin): a mark must outlive every redelivery of its event (got ${v})`);
  }
  return v;
}
