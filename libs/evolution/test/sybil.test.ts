/**
 * One client cannot push a cluster over the global dual gate (zhou §6.2.1
 * Threshold-Based Triggering: ">= 5 unique client agents or >= 10 total
 * occurrences within a 7-day window"), however often it sends:
 *
 * - the distinct-client branch counts a client once, so one client is 1 < 5;
 * - the occurrence branch counts at most perClientOccurrenceCap occurrences
 *   per client in a global pool (⌊10 × 0.5⌋ = 5 < 10 by default).
 *
 * The same fragments do fill the client's own cohort pool, whose gate may fire:
 * that is §6.2.2 Personalized Adaptation (a per-client patch), never a global one.
 *
 * The property holds for every configuration with min_distinct_clients >= 2,
 * min_occurrences >= 2 and global_max_client_share < 1 (so that one client's
 * capped share stays below the occurrence threshold). Several *distinct* client
 * ids are several clients: telling apart client ids that one party controls is
 * for authentication, not for the pool.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL_CONFIG, assignFragment, evaluateTrigger, markTriggered, perClientOccurrenceCap, poolConfig, poolsForFragment, scopeKey, type Cluster, type PoolConfig } from '../src/index';
import { DAY, T0 } from './helpers';

interface Run {
  /** Clusters of every pool after the run, by pool and cluster id. */
  clusters: Map<string, Cluster>;
  /** Pools (scopeKey) whose clusters fired, with how often. */
  fired: Map<string, number>;
  /** The most counted occurrences any global cluster reached. */
  maxCountedGlobal: number;
  maxDistinctGlobal: number;
}

/**
 * Feeds fragments of `client` into both of its pools the way libs/pool does:
 * each fragment joins the cluster `clusterOf(i)` names (created on first use),
 * the gate is evaluated at the fragment's time, and a cluster that fires is marked.
 */
function run(client: string, times: readonly number[], clusterOf: (i: number) => string, config: PoolConfig, text = 'extra legroom please'): Run {
  const clusters = new Map<string, Cluster>();
  const fired = new Map<string, number>();
  let maxCountedGlobal = 0;
  let maxDistinctGlobal = 0;
  times.forEach((at, i) => {
    for (const pool of poolsForFragment('flight_booking', client)) {
      const id = `${scopeKey(pool.scope)}/${clusterOf(i)}`;
      const existing = clusters.get(id);
      const r = assignFragment({
        pool,
        fragment: { text, client_id: client, at },
        neighbors: existing ? [{ cluster_id: id, score: 0.99 }] : [],
        clusters: existing ? [existing] : [],
        new_cluster_id: id,
        config,
      });
      let c = r.cluster;
      const ev = evaluateTrigger(c, at, config);
      if (pool.scope === 'global') {
        maxCountedGlobal = Math.max(maxCountedGlobal, ev.counted_occurrences);
        maxDistinctGlobal = Math.max(maxDistinctGlobal, ev.distinct_clients);
        expect(ev.gate_open, `global gate at fragment ${i}: ${ev.reasons.join('; ')}`).toBe(false);
      }
      if (ev.fires) {
        c = markTriggered(c, { at, outcome: 'matured', patch_id: null });
        fired.set(scopeKey(pool.scope), (fired.get(scopeKey(pool.scope)) ?? 0) + 1);
      }
      clusters.set(id, c);
    }
  });
  return { clusters, fired, maxCountedGlobal, maxDistinctGlobal };
}

/** 1,000 times across one week, ascending. */
const weekOfTimes = fc.array(fc.integer({ min: 0, max: 7 * DAY - 1 }), { minLength: 1000, maxLength: 1000 }).map((xs) => xs.sort((a, b) => a - b).map((x) => T0 + x));

describe('Sybil resistance of the global dual gate (zhou §6.2.1; §6.2.2 Personalized Adaptation)', () => {
  it('one client sending the same fragment 1,000 times in a week at once never fires a global cluster; its own cluster fires once', () => {
    const times = Array.from({ length: 1000 }, (_, i) => T0 + Math.floor((i * 7 * DAY) / 1000));
    const r = run('frequent-flyer', times, () => 'c1', DEFAULT_POOL_CONFIG);
    expect(r.fired.get('global')).toBeUndefined();
    expect(r.fired.get('client:frequent-flyer')).toBe(1);
    const global = r.clusters.get('global/c1') as Cluster;
    expect(global.size).toBe(1000);
    const ev = evaluateTrigger(global, times.at(-1) as number);
    // One client, five counted occurrences, and (Parley's per-client heat) one increment per half-life:
    // at most about two increments of heat, however often it sends.
    expect(ev.heat).toBeLessThan(DEFAULT_POOL_CONFIG.heat_threshold);
    expect(ev).toMatchObject({ distinct_clients: 1, counted_occurrences: perClientOccurrenceCap(DEFAULT_POOL_CONFIG), gate_open: false, branch: null });
    expect(ev.occurrences_in_window).toBeGreaterThan(900);
    expect(r.maxCountedGlobal).toBe(5);
    expect(r.maxDistinctGlobal).toBe(1);
  });

  it('property: 1,000 sends at any times within a week, in one or several clusters, never fire a global cluster (default figures)', () => {
    fc.assert(
      fc.property(weekOfTimes, fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1000, maxLength: 1000 }), (times, clusterChoice) => {
        const r = run('sybil', times, (i) => `c${clusterChoice[i]}`, DEFAULT_POOL_CONFIG);
        expect(r.fired.get('global')).toBeUndefined();
        expect(r.maxDistinctGlobal).toBe(1);
        expect(r.maxCountedGlobal).toBeLessThanOrEqual(perClientOccurrenceCap(DEFAULT_POOL_CONFIG));
      }),
      { numRuns: 15 },
    );
  });

  it('property: the same holds for every configuration with min_distinct_clients >= 2, min_occurrences >= 2 and a client share < 1', () => {
    const config = fc
      .record({
        heat_increment: fc.double({ min: 0.5, max: 100, noNaN: true }),
        heat_threshold: fc.double({ min: 1, max: 200, noNaN: true }),
        half_life_ms: fc.integer({ min: 3_600_000, max: 30 * DAY }),
        min_distinct_clients: fc.integer({ min: 2, max: 20 }),
        min_occurrences: fc.integer({ min: 2, max: 100 }),
        global_max_client_share: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        window_days: fc.integer({ min: 1, max: 14 }),
      })
      .map(({ window_days, ...c }) => poolConfig({ ...c, window_ms: window_days * DAY, max_tracked_clients: Math.max(64, c.min_distinct_clients) }));
    fc.assert(
      fc.property(config, weekOfTimes, (cfg, times) => {
        const r = run('sybil', times, () => 'c1', cfg);
        expect(r.fired.get('global')).toBeUndefined();
        expect(r.maxCountedGlobal).toBeLessThan(cfg.min_occurrences);
      }),
      { numRuns: 15 },
    );
  });

  it('for contrast: two distinct clients together can open the occurrence branch (5 + 5 of 10), five can open the client branch', () => {
    // The §6.2.1 gate alone (Parley's per-client heat and diversity rules off): this test is about the occurrence branch.
    const cfg = poolConfig({ client_heat_interval_ms: 0, min_phrasings: 1, max_dominant_share: 1 });
    let global: Cluster | undefined;
    let fired = 0;
    const feed = (client: string, at: number) => {
      const [pool] = poolsForFragment('flight_booking', client);
      const r = assignFragment({ pool: pool!, fragment: { text: 'extra legroom please', client_id: client, at }, neighbors: global ? [{ cluster_id: 'g', score: 0.99 }] : [], clusters: global ? [global] : [], new_cluster_id: 'g', config: cfg });
      global = r.cluster;
      const ev = evaluateTrigger(global, at, cfg);
      if (ev.fires) {
        fired++;
        global = markTriggered(global, { at, outcome: 'matured', patch_id: null });
      }
      return ev;
    };
    for (let i = 0; i < 20; i++) feed('a', T0 + i * 60_000);
    const last = feed('b', T0 + 21 * 60_000);
    expect(fired).toBe(0);
    expect(last.counted_occurrences).toBe(6);
    for (let i = 0; i < 3; i++) feed('b', T0 + (22 + i) * 60_000);
    const opened = feed('b', T0 + 26 * 60_000);
    expect(opened).toMatchObject({ distinct_clients: 2, counted_occurrences: 10, branch: 'occurrences', gate_open: true });
    expect(fired).toBe(1);
  });
});
