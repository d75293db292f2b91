import { describe, expect, it, vi } from 'vitest';

const collect = vi.hoisted(() => vi.fn());
vi.mock('prom-client', async (orig) => ({ ...(await orig<typeof import('prom-client')>()), collectDefaultMetrics: collect }));

import { ConfigError } from '../src/config';
import { DEFAULT_EVENT_LOOP_RESOLUTION_MS, MAX_EVENT_LOOP_RESOLUTION_MS, createMetrics, metricsFromEnv } from '../src/metrics';

describe('the event-loop delay histogram', () => {
  it('samples every 100 ms by default, not every 10 ms (each sample wakes the process)', () => {
    collect.mockClear();
    createMetrics();
    expect(DEFAULT_EVENT_LOOP_RESOLUTION_MS).toBe(100);
    expect(collect).toHaveBeenCalledWith(expect.objectContaining({ eventLoopMonitoringPrecision: 100 }));
  });

  it('takes PARLEY_EVENT_LOOP_RESOLUTION_MS from the environment', () => {
    collect.mockClear();
    metricsFromEnv({ PARLEY_EVENT_LOOP_RESOLUTION_MS: '250' });
    expect(collect).toHaveBeenCalledWith(expect.objectContaining({ eventLoopMonitoringPrecision: 250 }));
  });

  it('is not started without process metrics', () => {
    collect.mockClear();
    createMetrics({ processMetrics: false });
    expect(collect).not.toHaveBeenCalled();
  });

  it.each(['0', '-1', 'abc', '1e3', ' 100', '1.5', '1001', '60000', '60001'])(
    'refuses PARLEY_EVENT_LOOP_RESOLUTION_MS=%j with a ConfigError naming the variable',
    (raw) => {
      collect.mockClear();
      expect(() => metricsFromEnv({ PARLEY_EVENT_LOOP_RESOLUTION_MS: raw })).toThrow(ConfigError);
      expect(() => metricsFromEnv({ PARLEY_EVENT_LOOP_RESOLUTION_MS: raw })).toThrow(/PARLEY_EVENT_LOOP_RESOLUTION_MS/);
      expect(collect).not.toHaveBeenCalled();
    },
  );

  it('accepts the bound, 1000 ms, and no more (a period near the scrape interval leaves scrapes empty)', () => {
    collect.mockClear();
    expect(MAX_EVENT_LOOP_RESOLUTION_MS).toBe(1000);
    metricsFromEnv({ PARLEY_EVENT_LOOP_RESOLUTION_MS: '1000' });
    expect(collect).toHaveBeenCalledWith(expect.objectContaining({ eventLoopMonitoringPrecision: 1000 }));
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1001, 60_000])(
    'refuses the programmatic eventLoopResolutionMs %s with the same typed ConfigError',
    (ms) => {
      collect.mockClear();
      expect(() => createMetrics({ eventLoopResolutionMs: ms })).toThrow(ConfigError);
      expect(() => createMetrics({ eventLoopResolutionMs: ms })).toThrow(/PARLEY_EVENT_LOOP_RESOLUTION_MS/);
      expect(collect).not.toHaveBeenCalled();
    },
  );

  it('exports the sampling period as nodejs_eventloop_resolution_seconds, which the lag_* readings include', async () => {
    const m = createMetrics({ eventLoopResolutionMs: 250 });
    expect(await m.registry.metrics()).toMatch(/^nodejs_eventloop_resolution_seconds 0\.25$/m);
  });
});
