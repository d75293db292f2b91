import { ConfigError, envNumber as num, sealerFromEnv, type Sealer } from '@parley/runtime';
import type { SemanticPoolConfig } from '@parley/pool';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The §6.2.1 figures from the environment; every one optional (defaults in
 * libs/evolution config.ts; the similarity threshold defaults per embedder).
 * Range checks happen in libs/evolution's validatePoolConfig, which names the member.
 */
export function poolConfigFromEnv(env: Env): SemanticPoolConfig {
  const out = new Map<string, number>();
  const set = (member: string, v: number | undefined): void => {
    if (v !== undefined) out.set(member, v);
  };
  set('similarity_threshold', num(env, 'PARLEY_SIMILARITY_THRESHOLD'));
  set('heat_increment', num(env, 'PARLEY_HEAT_INCREMENT'));
  const half = num(env, 'PARLEY_HEAT_HALF_LIFE_H');
  set('half_life_ms', half === undefined ? undefined : half * 3_600_000);
  set('heat_threshold', num(env, 'PARLEY_HEAT_THRESHOLD'));
  set('min_distinct_clients', num(env, 'PARLEY_GATE_CLIENTS'));
  set('min_occurrences', num(env, 'PARLEY_GATE_OCCURRENCES'));
  // The diversity wait of the first induction (zhou §6.2.2): distinct normalised phrasings a global cluster
  // (a client's own) must show besides its distinct clients.
  set('min_phrasings', num(env, 'PARLEY_GATE_PHRASINGS'));
  set('min_client_phrasings', num(env, 'PARLEY_GATE_CLIENT_PHRASINGS'));
  const days = num(env, 'PARLEY_GATE_WINDOW_DAYS');
  set('window_ms', days === undefined ? undefined : days * 86_400_000);
  return Object.fromEntries(out) as SemanticPoolConfig;
}

const DAY_MS = 86_400_000;

/**
 * How raw `other` fragments are kept (zhou §7), for the separate process:
 * - PARLEY_DATA_KEY: the AES-256-GCM key(s) raw text is sealed with, `[kid:]base64`
 *   of 32 random bytes (`openssl rand -base64 32`), a comma-separated list to
 *   rotate (the first seals, all open);
 * - PARLEY_STORE_RAW_FRAGMENTS: `true` (default) or `false` (raw text is not stored at all);
 * - PARLEY_RAW_RETENTION_DAYS: raw text older than this is deleted (default 30).
 * Storing raw fragments without a key is refused: the process does not start.
 */
export function rawFragmentsFromEnv(env: Env): { sealer: Sealer | null; retentionMs: number } {
  const store = env['PARLEY_STORE_RAW_FRAGMENTS'];
  if (store !== undefined && store !== '' && store !== 'true' && store !== 'false') throw new ConfigError(`PARLEY_STORE_RAW_FRAGMENTS must be true or false (got "${store}")`);
  const days = num(env, 'PARLEY_RAW_RETENTION_DAYS') ?? 30;
  if (!(days > 0)) throw new ConfigError(`PARLEY_RAW_RETENTION_DAYS must be > 0 (got ${days}); to keep no raw text set PARLEY_STORE_RAW_FRAGMENTS=false`);
  const retentionMs = days * DAY_MS;
  if (store === 'false') return { sealer: null, retentionMs };
  const sealer = sealerFromEnv(env, 'PARLEY_DATA_KEY');
  if (!sealer) {
    throw new ConfigError(
      'PARLEY_DATA_KEY is required to store raw fragments encrypted (32 random bytes, base64: openssl rand -base64 32); or set PARLEY_STORE_RAW_FRAGMENTS=false to store none',
    );
  }
  return { sealer, retentionMs };
}
