import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_EVENT_FLOW, createLogger, envInt, envString, eventFlowFromEnv, probe } from '@parley/runtime';

describe('env config', () => {
  it('reads values, falls back to defaults and names the variable on a bad value', () => {
    expect(envString({ A: 'x' }, 'A')).toBe('x');
    expect(envString({}, 'A', 'd')).toBe('d');
    expect(() => envString({}, 'DATABASE_URL')).toThrow(new ConfigError('DATABASE_URL is required'));
    expect(envInt({ P: '8080' }, 'P', 1)).toBe(8080);
    expect(envInt({}, 'P', 1)).toBe(1);
    expect(() => envInt({ P: '80.5' }, 'P', 1)).toThrow(/P must be an integer/);
    // Only decimal digits: Number() would read a blank as 0 and accept hex and exponents.
    for (const raw of [' ', '0x10', '1e5', '5.0', '+5', '5 ']) expect(() => envInt({ P: raw }, 'P', 1), raw).toThrow(/P must be an integer/);
    expect(envInt({ P: '-3' }, 'P', 1)).toBe(-3);
    expect(() => envInt({ P: '0' }, 'P', 1, { min: 1 })).toThrow(/P must be >= 1/);
  });
});

describe('event flow config', () => {
  it('bounds the stream by default and reads every limit, refusing what is not one', () => {
    expect(eventFlowFromEnv({})).toEqual(DEFAULT_EVENT_FLOW);
    expect(DEFAULT_EVENT_FLOW).toEqual({
      retention: { maxAgeMs: 604_800_000, maxBytes: 268_435_456, maxMsgs: -1 },
      outboxMaxAttempts: 8,
      consumerMaxAttempts: 5,
      outboxRetentionMs: 604_800_000,
      processedRetentionMs: 1_209_600_000,
      deadLetterRetentionMs: 2_592_000_000,
      retentionSweepMs: 3_600_000,
      outboxPollMs: 1000,
    });
    expect(eventFlowFromEnv({ PARLEY_OUTBOX_POLL_MS: '250' }).outboxPollMs).toBe(250);
    expect(() => eventFlowFromEnv({ PARLEY_OUTBOX_POLL_MS: '5' })).toThrow(/PARLEY_OUTBOX_POLL_MS must be >= 10/);
    expect(
      eventFlowFromEnv({
        PARLEY_STREAM_MAX_AGE_MS: '3600000',
        PARLEY_STREAM_MAX_BYTES: '-1',
        PARLEY_STREAM_MAX_MSGS: '5000',
        PARLEY_OUTBOX_MAX_ATTEMPTS: '3',
        PARLEY_CONSUMER_MAX_ATTEMPTS: '2',
      }),
    ).toEqual({ ...DEFAULT_EVENT_FLOW, retention: { maxAgeMs: 3_600_000, maxBytes: -1, maxMsgs: 5000 }, outboxMaxAttempts: 3, consumerMaxAttempts: 2, processedRetentionMs: 7_200_000 });
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_BYTES: '0' })).toThrow(new ConfigError('PARLEY_STREAM_MAX_BYTES must be a positive integer or -1 (no limit), got "0"'));
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_MSGS: '1e3' })).toThrow(/PARLEY_STREAM_MAX_MSGS must be a positive integer/);
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '-5' })).toThrow(/PARLEY_STREAM_MAX_AGE_MS must be >= 0/);
    expect(() => eventFlowFromEnv({ PARLEY_CONSUMER_MAX_ATTEMPTS: '0' })).toThrow(/PARLEY_CONSUMER_MAX_ATTEMPTS must be >= 1/);
  });

  it('reads the retention of outbox rows and processed marks, keeping marks past the stream age limit', () => {
    expect(eventFlowFromEnv({ PARLEY_OUTBOX_RETENTION_MS: '0', PARLEY_PROCESSED_RETENTION_MS: '0', PARLEY_RETENTION_SWEEP_MS: '60000' })).toMatchObject({
      outboxRetentionMs: 0,
      processedRetentionMs: 0,
      retentionSweepMs: 60_000,
    });
    expect(eventFlowFromEnv({ PARLEY_OUTBOX_RETENTION_MS: '86400000', PARLEY_PROCESSED_RETENTION_MS: '700000000' })).toMatchObject({ outboxRetentionMs: 86_400_000, processedRetentionMs: 700_000_000 });
    // No age limit on the stream: a redelivery can come any time, so marks are kept unless told otherwise, and telling otherwise is refused.
    expect(eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '0' }).processedRetentionMs).toBe(0);
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '0', PARLEY_PROCESSED_RETENTION_MS: '86400000' })).toThrow(
      new ConfigError('PARLEY_PROCESSED_RETENTION_MS must be 0 while PARLEY_STREAM_MAX_AGE_MS is 0 (the stream keeps every event, so a mark may be needed forever; got 86400000)'),
    );
    expect(() => eventFlowFromEnv({ PARLEY_PROCESSED_RETENTION_MS: '604800000' })).toThrow(/PARLEY_PROCESSED_RETENTION_MS must be at least PARLEY_STREAM_MAX_AGE_MS \(604800000\) \+ 3600000/);
    expect(() => eventFlowFromEnv({ PARLEY_OUTBOX_RETENTION_MS: '5000' })).toThrow(new ConfigError('PARLEY_OUTBOX_RETENTION_MS must be 0 (keep forever) or from 60000 to 3153600000000 (100 years) (got 5000)'));
    expect(() => eventFlowFromEnv({ PARLEY_OUTBOX_RETENTION_MS: '7d' })).toThrow(/PARLEY_OUTBOX_RETENTION_MS must be an integer/);
    // Resolved dead letters: 30 days by default, 0 keeps them, under a minute refused.
    expect(eventFlowFromEnv({ PARLEY_DEAD_LETTER_RETENTION_MS: '0' }).deadLetterRetentionMs).toBe(0);
    expect(eventFlowFromEnv({ PARLEY_DEAD_LETTER_RETENTION_MS: '86400000' }).deadLetterRetentionMs).toBe(86_400_000);
    expect(() => eventFlowFromEnv({ PARLEY_DEAD_LETTER_RETENTION_MS: '59999' })).toThrow(/^PARLEY_DEAD_LETTER_RETENTION_MS must be 0 \(keep forever\)/);
    expect(() => eventFlowFromEnv({ PARLEY_RETENTION_SWEEP_MS: '10' })).toThrow(/PARLEY_RETENTION_SWEEP_MS must be >= 1000/);
  });

  it('requires a real margin over the stream age and caps retention at 100 years, naming the variable', () => {
    // A mark one millisecond past the stream's age is not enough: the service clock and the database's now() differ.
    expect(() => eventFlowFromEnv({ PARLEY_PROCESSED_RETENTION_MS: '604800001' })).toThrow(ConfigError);
    expect(eventFlowFromEnv({ PARLEY_PROCESSED_RETENTION_MS: String(604_800_000 + 3_600_000) }).processedRetentionMs).toBe(608_400_000);
    // A short stream age: the default keeps the marks at least an hour past it.
    expect(eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '600000' }).processedRetentionMs).toBe(4_200_000);
    for (const name of ['PARLEY_OUTBOX_RETENTION_MS', 'PARLEY_PROCESSED_RETENTION_MS', 'PARLEY_DEAD_LETTER_RETENTION_MS']) {
      for (const v of ['9007199254740991', '100000000000000000']) {
        expect(() => eventFlowFromEnv({ [name]: v }), `${name}=${v}`).toThrow(new RegExp(`^${name} must be 0 \\(keep forever\\) or from 60000 to 3153600000000`));
      }
    }
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '100000000000000000' })).toThrow(/^PARLEY_STREAM_MAX_AGE_MS must be <= 1576800000000/);
  });
});

describe('readiness', () => {
  it('is ready only when every check passes and the service is not shutting down', async () => {
    const state = { shuttingDown: false, checks: { db: async () => true, bus: async () => false } };
    expect(await probe(state)).toEqual({ ready: false, checks: { db: true, bus: false } });
    state.checks.bus = async () => true;
    expect((await probe(state)).ready).toBe(true);
    state.shuttingDown = true;
    expect((await probe(state)).ready).toBe(false);
  });

  it('counts a check that throws as failing', async () => {
    const r = await probe({ shuttingDown: false, checks: { db: async () => Promise.reject(new Error('down')) } });
    expect(r).toEqual({ ready: false, checks: { db: false } });
  });
});

describe('logger', () => {
  it('writes one JSON line per entry at or above its level, errors reduced to name and message', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', base: { service: 's' }, write: (l) => lines.push(l) });
    log.info('hidden');
    log.error('failed', { error: new Error('boom') });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'error', msg: 'failed', service: 's', error: { name: 'Error', message: 'boom' } });
  });
});
