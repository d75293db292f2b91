import { describe, expect, it } from 'vitest';
import { ConfigError, createLogger, envInt, envString, probe } from '@parley/runtime';

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
