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
    expect(() => envInt({ P: '0' }, 'P', 1, { min: 1 })).toThrow(/P must be >= 1/);
  });
});

describe('event flow config', () => {
  it('bounds the stream by default and reads every limit, refusing what is not one', () => {
    expect(eventFlowFromEnv({})).toEqual(DEFAULT_EVENT_FLOW);
    expect(DEFAULT_EVENT_FLOW).toEqual({ retention: { maxAgeMs: 604_800_000, maxBytes: 268_435_456, maxMsgs: -1 }, outboxMaxAttempts: 8, consumerMaxAttempts: 5 });
    expect(
      eventFlowFromEnv({
        PARLEY_STREAM_MAX_AGE_MS: '3600000',
        PARLEY_STREAM_MAX_BYTES: '-1',
        PARLEY_STREAM_MAX_MSGS: '5000',
        PARLEY_OUTBOX_MAX_ATTEMPTS: '3',
        PARLEY_CONSUMER_MAX_ATTEMPTS: '2',
      }),
    ).toEqual({ retention: { maxAgeMs: 3_600_000, maxBytes: -1, maxMsgs: 5000 }, outboxMaxAttempts: 3, consumerMaxAttempts: 2 });
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_BYTES: '0' })).toThrow(new ConfigError('PARLEY_STREAM_MAX_BYTES must be a positive integer or -1 (no limit), got "0"'));
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_MSGS: '1e3' })).toThrow(/PARLEY_STREAM_MAX_MSGS must be a positive integer/);
    expect(() => eventFlowFromEnv({ PARLEY_STREAM_MAX_AGE_MS: '-5' })).toThrow(/PARLEY_STREAM_MAX_AGE_MS must be >= 0/);
    expect(() => eventFlowFromEnv({ PARLEY_CONSUMER_MAX_ATTEMPTS: '0' })).toThrow(/PARLEY_CONSUMER_MAX_ATTEMPTS must be >= 1/);
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
