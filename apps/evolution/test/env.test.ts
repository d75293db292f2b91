import { describe, expect, it } from 'vitest';
import { ConfigError } from '@parley/runtime';
import { evolverConfigFromEnv } from '../src/index';

describe('evolution configuration from the environment (zhou §6.2.3: every threshold configurable)', () => {
  it('reads days, thresholds merged over the defaults, and the approval mode', () => {
    const c = evolverConfigFromEnv({ PARLEY_APPROVAL: 'manual', PARLEY_TRIAL_DAYS: '3', PARLEY_PROMOTE_USAGE: '0.2', PARLEY_MAX_EXPERIMENTAL_KEYS: '4', PARLEY_PATCH_TTL_DAYS: '10' });
    expect(c.approval).toBe('manual');
    expect(c.patch_ttl_ms).toBe(10 * 86_400_000);
    expect(c.lifecycle).toMatchObject({ trial_ms: 3 * 86_400_000, max_experimental_keys: 4, promote: { usage_frequency: 0.2, semantic_alignment_accuracy: 0.8, value_type_correctness: 0.9 } });
    expect(evolverConfigFromEnv({})).toEqual({});
  });

  it('names the variable of a bad value', () => {
    expect(() => evolverConfigFromEnv({ PARLEY_APPROVAL: 'sometimes' })).toThrow(ConfigError);
    expect(() => evolverConfigFromEnv({ PARLEY_GRACE_DAYS: 'two weeks' })).toThrow(/PARLEY_GRACE_DAYS must be a number/);
  });
});
