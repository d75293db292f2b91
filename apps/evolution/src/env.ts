import { DEFAULT_LIFECYCLE_CONFIG } from '@parley/evolution';
import { ConfigError, envNumber as num } from '@parley/runtime';
import type { EvolverConfig } from '@parley/pool';

type Env = Readonly<Record<string, string | undefined>>;
const DAY = 86_400_000;

/**
 * The §6.2.2-§6.2.3 figures from the environment, each optional (defaults in
 * libs/evolution lifecycle.ts): PARLEY_APPROVAL (auto|manual),
 * PARLEY_PATCH_TTL_DAYS, PARLEY_TRIAL_DAYS, PARLEY_GRACE_DAYS,
 * PARLEY_COMPAT_WINDOW_DAYS, PARLEY_OBSERVATION_DAYS, PARLEY_MAX_EXPERIMENTAL_KEYS,
 * PARLEY_PROMOTE_USAGE / _ALIGNMENT / _TYPE, PARLEY_DEPRECATE_USAGE / _ALIGNMENT / _TYPE.
 */
export function evolverConfigFromEnv(env: Env): EvolverConfig {
  const approval = env['PARLEY_APPROVAL'];
  if (approval !== undefined && approval !== '' && approval !== 'auto' && approval !== 'manual') throw new ConfigError(`PARLEY_APPROVAL must be auto or manual (got "${approval}")`);
  const lc: Record<string, unknown> = {};
  const days = (member: string, name: string): void => {
    const v = num(env, name);
    if (v !== undefined) lc[member] = v * DAY;
  };
  days('trial_ms', 'PARLEY_TRIAL_DAYS');
  days('grace_ms', 'PARLEY_GRACE_DAYS');
  days('compatibility_window_ms', 'PARLEY_COMPAT_WINDOW_DAYS');
  days('observation_window_ms', 'PARLEY_OBSERVATION_DAYS');
  const max = num(env, 'PARLEY_MAX_EXPERIMENTAL_KEYS');
  if (max !== undefined) lc['max_experimental_keys'] = max;
  const thresholds = (prefix: string): Record<string, number> | undefined => {
    const t: Record<string, number> = {};
    for (const [member, suffix] of [['usage_frequency', 'USAGE'], ['semantic_alignment_accuracy', 'ALIGNMENT'], ['value_type_correctness', 'TYPE']] as const) {
      const v = num(env, `${prefix}_${suffix}`);
      if (v !== undefined) t[member] = v;
    }
    return Object.keys(t).length ? t : undefined;
  };
  const promote = thresholds('PARLEY_PROMOTE');
  const deprecate = thresholds('PARLEY_DEPRECATE');
  if (promote) lc['promote'] = { ...DEFAULT_LIFECYCLE_CONFIG.promote, ...promote };
  if (deprecate) lc['deprecate'] = { ...DEFAULT_LIFECYCLE_CONFIG.deprecate, ...deprecate };
  const ttl = num(env, 'PARLEY_PATCH_TTL_DAYS');
  return {
    ...(approval ? { approval: approval as 'auto' | 'manual' } : {}),
    ...(ttl !== undefined ? { patch_ttl_ms: ttl * DAY } : {}),
    ...(Object.keys(lc).length ? { lifecycle: lc as EvolverConfig['lifecycle'] } : {}),
  };
}
