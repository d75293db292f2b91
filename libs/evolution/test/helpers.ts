/**
 * Test helpers: a synthetic clock origin, a base template, a deterministic
 * PRNG, a tiny deterministic embedding (intent one-hot + variant + noise) and
 * a brute-force vector index per pool, standing in for the services' embedder
 * and vector store.
 */
import type { SchemaTemplate } from '@parley/protocol';
import { mergeCentroid, scopeKey, type Neighbor, type PoolKey } from '../src/index';

/** 2026-01-01T00:00:00Z: a fixed origin, never the wall clock. */
export const T0 = 1_767_225_600_000;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function baseTemplate(): SchemaTemplate {
  return {
    schema_id: 'flight_booking_v1',
    scenario: 'flight_booking',
    keys: [
      { key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport. Example: from Beijing -> PEK' },
      { key_name: 'destination', key_type: 'string', required: true, semantic_description: 'IATA code of the arrival airport.' },
      { key_name: 'cabin_class', key_type: 'string', required: false, default_value: 'economy', semantic_description: 'Cabin class. Acceptable values: economy, business, first.', enum: ['economy', 'business', 'first'] },
      { key_name: 'passenger_count', key_type: 'integer', required: false, default_value: 1, semantic_description: 'Number of passengers. Range: 1-9.' },
      { key_name: 'other', key_type: 'string', required: false, semantic_description: 'Escape valve for unstructured semantic fragments that cannot be mapped to existing keys.' },
    ],
  };
}

export { seededRandom as prng } from '@parley/testkit';

export const DIMS = 64;

/**
 * Embedding of an (intent, variant): 1 on the intent's axis, 0.3 on the
 * variant's axis (so "window seat" and "aisle seat" share an intent and score
 * ≈ 0.92, above 0.85), plus noise of ±0.02 per axis; normalised.
 */
export function embed(intent: number, variant: number, rand: () => number): number[] {
  const v = Array.from({ length: DIMS }, () => (rand() - 0.5) * 0.04);
  v[intent % 48] = (v[intent % 48] as number) + 1;
  v[48 + (variant % 16)] = (v[48 + (variant % 16)] as number) + 0.3;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return d / Math.sqrt(na * nb);
}

/** A brute-force vector index, one namespace per pool. */
export class TinyIndex {
  private readonly pools = new Map<string, Map<string, { centroid: number[]; size: number }>>();
  private ns(pool: PoolKey): Map<string, { centroid: number[]; size: number }> {
    const k = `${pool.scenario}/${scopeKey(pool.scope)}`;
    let m = this.pools.get(k);
    if (!m) this.pools.set(k, (m = new Map()));
    return m;
  }
  nearest(pool: PoolKey, v: readonly number[], k = 3): Neighbor[] {
    return [...this.ns(pool).entries()]
      .map(([cluster_id, e]) => ({ cluster_id, score: cosine(e.centroid, v) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  }
  upsert(pool: PoolKey, clusterId: string, v: readonly number[]): void {
    const m = this.ns(pool);
    const e = m.get(clusterId);
    if (!e) m.set(clusterId, { centroid: [...v], size: 1 });
    else m.set(clusterId, { centroid: mergeCentroid(e.centroid, v, e.size), size: e.size + 1 });
  }
}
