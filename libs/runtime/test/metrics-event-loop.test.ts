import { describe, expect, it, vi } from 'vitest';

const collect = vi.hoisted(() => vi.fn());
vi.mock('prom-client', async (orig) => ({ ...(await orig<typeof import('prom-client')>()), collectDefaultMetrics: collect }));

import { DEFAULT_EVENT_LOOP_RESOLUTION_MS, createMetrics, metricsFromEnv } from '../src/metrics';

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
});
