import { envNumber as num } from '@parley/runtime';
import type { SemanticPoolConfig } from '@parley/pool';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The §6.2.1 figures from the environment; every one optional (defaults in
 * libs/evolution config.ts; the similarity threshold defaults per embedder).
 * Range checks happen in libs/evolution's validatePoolConfig, which names the member.
 */
export function poolConfigFromEnv(env: Env): SemanticPoolConfig {
  const out: Record<string, number> = {};
  const set = (member: string, v: number | undefined): void => {
    if (v !== undefined) out[member] = v;
  };
  set('similarity_threshold', num(env, 'PARLEY_SIMILARITY_THRESHOLD'));
  set('heat_increment', num(env, 'PARLEY_HEAT_INCREMENT'));
  const half = num(env, 'PARLEY_HEAT_HALF_LIFE_H');
  set('half_life_ms', half === undefined ? undefined : half * 3_600_000);
  set('heat_threshold', num(env, 'PARLEY_HEAT_THRESHOLD'));
  set('min_distinct_clients', num(env, 'PARLEY_GATE_CLIENTS'));
  set('min_occurrences', num(env, 'PARLEY_GATE_OCCURRENCES'));
  const days = num(env, 'PARLEY_GATE_WINDOW_DAYS');
  set('window_ms', days === undefined ? undefined : days * 86_400_000);
  return out as SemanticPoolConfig;
}
