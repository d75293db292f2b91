import { describe, expect, it } from 'vitest';
import { poolConfig } from '@parley/evolution';
import { poolConfigFromEnv } from '../src/env';

describe('pool figures from the environment (zhou §6.2.1 gate, §6.2.2 diversity before the first induction)', () => {
  it('reads the diversity wait: PARLEY_GATE_PHRASINGS and PARLEY_GATE_CLIENT_PHRASINGS; absent ones keep the defaults', () => {
    expect(poolConfigFromEnv({ PARLEY_GATE_PHRASINGS: '3', PARLEY_GATE_CLIENT_PHRASINGS: '2' })).toEqual({ min_phrasings: 3, min_client_phrasings: 2 });
    expect(poolConfigFromEnv({})).toEqual({});
    const cfg = poolConfig(poolConfigFromEnv({ PARLEY_GATE_PHRASINGS: '3' }));
    expect(cfg.min_phrasings).toBe(3);
    expect(cfg.min_client_phrasings).toBe(1);
  });

  it('a bad figure is refused naming the member', () => {
    expect(() => poolConfig(poolConfigFromEnv({ PARLEY_GATE_PHRASINGS: '0' }))).toThrow(expect.objectContaining({ path: 'min_phrasings' }));
  });
});
