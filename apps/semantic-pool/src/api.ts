import type { GetClusterResponse, ListClustersResponse, PoolCluster, SemanticPoolApi } from '@parley/contracts';
import type { ClusterView, SemanticPool } from '@parley/pool';
import { ParleyError, scenarioId } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import type { RawFragments } from './raw';
import { clusterInputs, heatHistory } from './store';

// The pool's gRPC API (ListClusters, GetCluster): memory's clusters with their heat history; raw text only for
// operators (the gateway checks the bearer token).

// Memory is folded before a unit's transaction commits: reads take it through `read` (Mutex.read), after the unit in hand.
export function createPoolApi(deps: { db: Db; pool(): SemanticPool; read<T>(fn: () => T): Promise<T>; raw: RawFragments; clock: Clock; log: Logger }): SemanticPoolApi {
  const { db } = deps;
  return {
    async listClusters(req): Promise<ListClustersResponse> {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const limit = req.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ParleyError('invalid_params', 'limit must be an integer in 1..1000', { path: 'params.limit', rule: 'range' });
      const minHeat = req.min_heat ?? 0;
      if (!Number.isFinite(minHeat) || minHeat < 0) throw new ParleyError('invalid_params', 'min_heat must be a number >= 0', { path: 'params.min_heat', rule: 'minimum' });
      const now = deps.clock.now().getTime();
      const pool = deps.pool();
      const views = await deps.read(() =>
        deps
          .pool()
          .clusters(now)
          .filter((c) => c.scenario === sc && (req.scope === undefined || c.scope === req.scope) && c.heat >= minHeat)
          .sort((a, b) => b.heat - a.heat || b.size - a.size || (a.id < b.id ? -1 : 1))
          .slice(0, limit),
      );
      const hist = await heatHistory(db, sc, views.map((v) => v.id));
      return {
        clusters: views.map((v) => toCluster(v, hist.get(v.id) ?? [])),
        embedder: pool.embedder_id,
        similarity_threshold: pool.config.similarity_threshold,
        heat_threshold: pool.config.heat_threshold,
      };
    },

    async getCluster(req): Promise<GetClusterResponse> {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const v = await deps.read(() => deps.pool().cluster(req.id, deps.clock.now().getTime()));
      if (!v || v.scenario !== sc) throw new ParleyError('cluster_not_found', `No cluster "${req.id}" in scenario "${sc}"`, { path: 'params.id', rule: 'exists' });
      const hist = await heatHistory(db, sc, [v.id]);
      const failures = new Map<string, number>();
      const raw = req.include_raw
        ? (await clusterInputs(db, sc, v.id)).map((r) => {
            const o = deps.raw.open(r, failures);
            return { event_id: r.event_id, client_id: r.client_id, at: new Date(Number(r.at_ms)).toISOString(), raw_text: o.text, sanitized: r.sanitized ?? '', flags: o.marker ? [...r.flags, o.marker] : r.flags };
          })
        : [];
      if (failures.size > 0) deps.log.warn('raw fragments cannot be opened', { cluster_id: v.id, failures: Object.fromEntries(failures) });
      return { cluster: toCluster(v, hist.get(v.id) ?? []), raw };
    },
  };
}

function toCluster(v: ClusterView, hist: { at: string; heat: number }[]): PoolCluster {
  return {
    id: v.id,
    scenario_id: v.scenario,
    scope: v.scope,
    size: v.size,
    distinct_clients: v.distinct_clients,
    heat: v.heat,
    peak_heat: v.peak_heat,
    peak_at: new Date(v.peak_at).toISOString(),
    created_at: new Date(v.created_at).toISOString(),
    matured: v.triggered,
    ...(v.triggered_at !== null ? { matured_at: new Date(v.triggered_at).toISOString() } : {}),
    samples: [...v.samples],
    heat_history: hist,
    ...(v.patch_id ? { patch_id: v.patch_id } : {}),
    ...(v.key_name ? { key_name: v.key_name } : {}),
  };
}
