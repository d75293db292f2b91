/**
 * `parley pool clusters --scenario S [--scope X] [--min-heat N] [--limit N] [--json]`
 * `parley pool cluster --scenario S --id C [--raw] [--json]`
 *
 * The Differential Semantic Pool (draft-zhou §6.2.1) through the gateway's
 * `list_clusters` and `get_cluster`. `--raw` adds the raw `other` fragments,
 * which are for operators only (§7). Every subcommand needs an API key with
 * the `operator` role (--key / PARLEY_API_KEY).
 */
import type { GetClusterResponse, ListClustersResponse, PoolCluster } from '@parley/contracts';
import { assertScenarioKnown, clip, defined, intFlag, noPositional, num, numFlag, required, runSubcommand, table, yesNo, type Subcommand } from './rpc-client';

const SUMMARY = 'clusters of the Differential Semantic Pool (draft-zhou §6.2.1)';

function keyOf(c: PoolCluster): string {
  if (!c.key_name) return '-';
  return c.patch_id ? `${c.key_name} (${c.patch_id})` : c.key_name;
}

export function clustersText(scenario: string, r: ListClustersResponse): string {
  const head = `${scenario}: ${r.clusters.length} cluster${r.clusters.length === 1 ? '' : 's'} (embedder ${r.embedder || '-'}, similarity threshold ${num(r.similarity_threshold)})`;
  if (r.clusters.length === 0) return head;
  const rows = r.clusters.map((c) => [c.id, c.scope, String(c.size), String(c.distinct_clients), num(c.heat), num(c.peak_heat), yesNo(c.matured), keyOf(c)]);
  return `${head}\n${table(['ID', 'SCOPE', 'SIZE>', 'CLIENTS>', 'HEAT>', 'PEAK>', 'MATURED', 'KEY'], rows)}`;
}

export function clusterText(r: GetClusterResponse): string {
  const c = r.cluster;
  if (!c) return 'no cluster in the response';
  const lines = [
    `cluster ${c.id} (${c.scenario_id}, scope ${c.scope})`,
    `  size ${c.size}, clients ${c.distinct_clients}, heat ${num(c.heat)}, peak ${num(c.peak_heat)} at ${c.peak_at || '-'}, created ${c.created_at || '-'}`,
    `  matured: ${c.matured ? `yes${c.matured_at ? ` at ${c.matured_at}` : ''}` : 'no'}${c.key_name ? `; key ${c.key_name}` : ''}${c.patch_id ? ` in patch ${c.patch_id}` : ''}`,
  ];
  if (c.samples.length > 0) lines.push('samples:', ...c.samples.map((s) => `  - ${clip(s, 100)}`));
  if (c.heat_history.length > 0) {
    const shown = c.heat_history.slice(-10);
    lines.push(`heat history${shown.length < c.heat_history.length ? ` (last ${shown.length} of ${c.heat_history.length})` : ''}:`);
    lines.push(...shown.map((h) => `  ${h.at}  ${num(h.heat)}`));
  }
  if (r.raw.length > 0) {
    lines.push(
      `raw fragments (${r.raw.length}, operators only):`,
      table(
        ['EVENT', 'CLIENT', 'AT', 'FLAGS', 'RAW', 'SANITIZED'],
        r.raw.map((f) => [f.event_id, f.client_id, f.at, f.flags.join(',') || '-', clip(f.raw_text), f.sanitized ? clip(f.sanitized) : '(dropped)']),
      ),
    );
  }
  return lines.join('\n');
}

const SUBS: Record<string, Subcommand> = {
  clusters: {
    summary: 'list clusters, hottest first',
    usage: 'clusters --scenario S [--scope global|CLIENT] [--min-heat N] [--limit N]',
    flags: { scenario: 'value', scope: 'value', 'min-heat': 'value', limit: 'value' },
    async run(p, gw) {
      noPositional(p);
      const scenario = required(p, 'scenario', 'the scenario, e.g. flight_booking');
      const params = defined({ scenario, scope: p.values.scope, min_heat: numFlag(p, 'min-heat', 0), limit: intFlag(p, 'limit', 1, 1000) });
      const result = (await gw.call('list_clusters', params)) as ListClustersResponse;
      if (result.clusters.length === 0) await assertScenarioKnown(gw, scenario);
      return { result, text: clustersText(scenario, result) };
    },
  },
  cluster: {
    summary: 'one cluster; --raw adds the raw fragments',
    usage: 'cluster --scenario S --id C [--raw]',
    flags: { scenario: 'value', id: 'value', raw: 'switch' },
    async run(p, gw) {
      noPositional(p);
      const params = { scenario: required(p, 'scenario', 'the scenario'), id: required(p, 'id', 'the cluster id'), include_raw: p.switches.has('raw') };
      const result = (await gw.call('get_cluster', params)) as GetClusterResponse;
      return { result, text: clusterText(result) };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('pool', SUMMARY, SUBS, argv);
}
