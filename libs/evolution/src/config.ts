/**
 * The pool configuration (zhou §6.2.1), every threshold in one object with
 * the draft's example values as defaults.
 */
import { assertPositive, evolutionError } from './errors';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The upper bound on `need_group_max`: the pool searches twice that many neighbours, as many as `neighbors` may (100). */
export const NEED_GROUP_MAX_LIMIT = 50;

export interface PoolConfig {
  /** zhou §6.2.1 "cosine similarity >= 0.85": a fragment joins a cluster at or above this score. */
  readonly similarity_threshold: number;
  /** zhou §6.2.1 "increases by a fixed increment". */
  readonly heat_increment: number;
  /** zhou §6.2.1 "exponential decay with a half-life of 24 hours". */
  readonly half_life_ms: number;
  /** zhou §6.2.1 "e.g., 50 accumulated heat units". */
  readonly heat_threshold: number;
  /** zhou §6.2.1 ">= 5 unique client agents". */
  readonly min_distinct_clients: number;
  /** zhou §6.2.1 ">= 10 total occurrences within a 7-day window". */
  readonly min_occurrences: number;
  /** zhou §6.2.1 "a 7-day window"; applies to the occurrence and the distinct-client counts. */
  readonly window_ms: number;
  /** Occurrences are kept as counts per bucket of this width (one hour). */
  readonly bucket_ms: number;
  /**
   * Parley (zhou §6.2.1 last paragraph, §6.2.2 Personalized Adaptation): in a
   * global pool, one client may supply at most this share of the occurrences
   * the occurrence branch needs, so one client's repeated personal need can
   * never open the global gate (it opens that client's own cohort pool instead).
   */
  readonly global_max_client_share: number;
  /** Distinct clients tracked per cluster (the most recently seen); at least min_distinct_clients. */
  readonly max_tracked_clients: number;
  /** Sample fragments kept per cluster (distinct sanitised texts with counts). */
  readonly max_samples: number;
  /**
   * In a client's own pool (one client): of those, this many most recent ones
   * are always kept, the rest are the most frequent.
   */
  readonly recent_samples: number;
  /**
   * Parley (draft-zhou §7, zhou §6.2.1 "unique client agents", §7): in a global pool,
   * the sample texts kept per client (its most recent one and its most
   * frequent others). A cluster's samples are chosen round-robin across clients
   * from these, so one client is heard through at most this many texts however
   * often it sends, and k clients give k voices; the same figure bounds how
   * many of a client's fragments move the cluster's centroid (cluster.ts).
   */
  readonly max_samples_per_client: number;
  /** A sanitised fragment is cut to this many characters before it is stored. */
  readonly max_fragment_chars: number;
  /**
   * Parley (zhou §6.2.1 heat, one client one voice): in a global pool a
   * client's fragment adds heat only while the client added fewer than
   * `client_heat_per_interval` (2) increments within this interval (default one
   * half-life). One client then holds at most about four increments of a
   * cluster's heat however often it sends (80% of the threshold), so it never
   * opens the heat gate alone; its own cohort pool takes every fragment.
   */
  readonly client_heat_interval_ms: number;
  /**
   * Parley (zhou §6.2.2 Personalized Adaptation): a global cluster stays shut
   * while one client holds more than this share of its demand (uncapped heat);
   * such a need is that client's and its own pool serves it. 1 turns it off.
   */
  readonly max_dominant_share: number;
  /** How many heat increments one client may add per client_heat_interval_ms in a global pool (default 2). */
  readonly client_heat_per_interval: number;
  /**
   * Parley (zhou §6.2.2 Personalized Adaptation: a client that "repeatedly
   * submits"): in a client's own pool the occurrence branch counts distinct
   * hours with a fragment, not fragments, so a one-hour burst is one occurrence.
   */
  readonly client_pool_counts_hours: boolean;
  /**
   * Parley: the first induction waits for diversity (distinct normalised
   * phrasings among the cluster's samples) as well as the dual gate: a global
   * cluster needs this many, a client's own cluster `min_client_phrasings`.
   */
  readonly min_phrasings: number;
  readonly min_client_phrasings: number;
  /**
   * Online agglomeration (zhou §6.2.1 "each cluster represents a distinct
   * recurring semantic intent"): two clusters of a pool whose centroids reach
   * this cosine merge, so paraphrases that founded clusters apart meet. Null:
   * derived from the similarity threshold (a quarter of the way to 1).
   */
  readonly merge_threshold: number | null;
  /** A matured cluster reports its growth (re-induction) each time this many more distinct clients joined. */
  readonly regrow_clients: number;
  /**
   * Need groups (need-group.ts, zhou §6.2.1 dual gate): a global cluster below the gate is evaluated together with
   * the untriggered clusters of its pool whose centroids reach this share of `similarity_threshold`, so a need split
   * by value or wording is seen as one. Null (the default): off, each cluster is gated alone.
   */
  readonly need_group_share: number | null;
  /** The most clusters one need group holds (the nearest first); at most `NEED_GROUP_MAX_LIMIT` (50). */
  readonly need_group_max: number;
  /**
   * A need group's members also share their context with the cluster the group is formed around: the cosine of the
   * two clusters' content-word profiles (`wordProfile`, counted in clients), each without its most-said word when the
   * other lacks it (`contextCosine`: the value set aside), is at least this. 0: centroids only.
   */
  readonly need_group_context: number;
}

export const DEFAULT_POOL_CONFIG: PoolConfig = Object.freeze({
  similarity_threshold: 0.85,
  heat_increment: 10,
  half_life_ms: 24 * HOUR_MS,
  heat_threshold: 50,
  min_distinct_clients: 5,
  min_occurrences: 10,
  window_ms: 7 * DAY_MS,
  bucket_ms: HOUR_MS,
  global_max_client_share: 0.5,
  max_tracked_clients: 64,
  max_samples: 48,
  recent_samples: 4,
  max_samples_per_client: 3,
  max_fragment_chars: 200,
  client_heat_interval_ms: 24 * HOUR_MS,
  client_heat_per_interval: 2,
  max_dominant_share: 0.5,
  client_pool_counts_hours: true,
  min_phrasings: 2,
  min_client_phrasings: 1,
  merge_threshold: null,
  regrow_clients: 3,
  need_group_share: null,
  need_group_max: 8,
  need_group_context: 0.3,
});

/** The default config with some members replaced; checked. */
export function poolConfig(over: Partial<PoolConfig> = {}): PoolConfig {
  const c: PoolConfig = { ...DEFAULT_POOL_CONFIG, ...over };
  validatePoolConfig(c);
  return Object.freeze(c);
}

/** Throws `invalid_params` (rule `config`) naming the first bad member. */
export function validatePoolConfig(c: PoolConfig): void {
  if (!(c.similarity_threshold > -1 && c.similarity_threshold <= 1)) {
    throw evolutionError('config', 'similarity_threshold', `similarity_threshold must be a cosine score in (-1, 1], got ${c.similarity_threshold}`);
  }
  for (const m of ['heat_increment', 'half_life_ms', 'heat_threshold', 'window_ms', 'bucket_ms', 'global_max_client_share', 'max_fragment_chars', 'max_dominant_share'] as const) {
    assertPositive(m, c[m]);
  }
  if (!(c.client_heat_interval_ms >= 0) || !Number.isFinite(c.client_heat_interval_ms)) throw evolutionError('config', 'client_heat_interval_ms', `client_heat_interval_ms must be a finite number >= 0, got ${c.client_heat_interval_ms}`);
  if (c.merge_threshold !== null && !(c.merge_threshold > -1 && c.merge_threshold <= 1)) throw evolutionError('config', 'merge_threshold', `merge_threshold must be null or a cosine score in (-1, 1], got ${c.merge_threshold}`);
  if (!(c.need_group_context >= 0 && c.need_group_context <= 1)) throw evolutionError('config', 'need_group_context', `need_group_context must be a cosine in [0, 1], got ${c.need_group_context}`);
  if (c.need_group_share !== null && !(c.need_group_share > 0 && c.need_group_share <= 1)) throw evolutionError('config', 'need_group_share', `need_group_share must be null or a share in (0, 1], got ${c.need_group_share}`);
  for (const m of ['min_distinct_clients', 'min_occurrences', 'max_tracked_clients', 'max_samples', 'recent_samples', 'max_samples_per_client', 'min_phrasings', 'min_client_phrasings', 'regrow_clients', 'client_heat_per_interval', 'need_group_max'] as const) {
    if (!Number.isInteger(c[m]) || c[m] < 1) throw evolutionError('config', m, `${m} must be a positive integer, got ${c[m]}`);
  }
  // Bounded work per fragment: the pool searches 2 × need_group_max neighbours and reads each candidate's samples.
  if (c.need_group_max > NEED_GROUP_MAX_LIMIT) throw evolutionError('config', 'need_group_max', `need_group_max must be at most ${NEED_GROUP_MAX_LIMIT}, got ${c.need_group_max}`);
  if (c.global_max_client_share > 1) throw evolutionError('config', 'global_max_client_share', 'global_max_client_share is a share, at most 1');
  if (c.max_tracked_clients < c.min_distinct_clients) {
    throw evolutionError('config', 'max_tracked_clients', `max_tracked_clients (${c.max_tracked_clients}) must be at least min_distinct_clients (${c.min_distinct_clients}) or the gate could never count enough clients`);
  }
  if (c.recent_samples > c.max_samples) throw evolutionError('config', 'recent_samples', 'recent_samples must not exceed max_samples');
  if (c.max_samples_per_client > c.max_samples) throw evolutionError('config', 'max_samples_per_client', 'max_samples_per_client must not exceed max_samples');
  if (c.window_ms % c.bucket_ms !== 0) throw evolutionError('config', 'bucket_ms', 'window_ms must be a whole number of buckets');
}

/**
 * How many occurrences one client may contribute toward a global pool's
 * occurrence branch: ⌊min_occurrences × global_max_client_share⌋, at least 1.
 * With the defaults 5 of the 10: it takes at least two clients.
 */
export function perClientOccurrenceCap(c: PoolConfig): number {
  return Math.max(1, Math.floor(c.min_occurrences * c.global_max_client_share));
}

/** The cosine at which two clusters of one pool merge: `merge_threshold`, or a quarter of the way from the similarity threshold to 1. */
export function mergeThreshold(c: PoolConfig): number {
  return c.merge_threshold ?? c.similarity_threshold + (1 - c.similarity_threshold) / 4;
}
