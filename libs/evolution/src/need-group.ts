/**
 * A need group (draft-zhou §6.2.1 dual-gate trigger, Parley): a coarser grouping of a global pool's clusters that
 * lets the gate see a need rather than a wording. The pool splits one choice, or one need said in many wordings and
 * languages, into one cluster per value or wording; each may stay below the heat gate for ever while the need as a
 * whole is asked for by many clients. A group is the clusters of one pool (scenario, global scope) whose centroids
 * are close at a looser threshold than the one a fragment joins a cluster at (`need_group_share` of it). The
 * clusters stay as they are (purity is measured on them); the group only decides the trigger, and on a trigger the
 * inducer reads the whole group's samples, so a choice is induced over all its values.
 *
 * The group is evaluated as one cluster (`mergeClusters`: clients, occurrences and samples joined per client, each
 * client still one voice) through the ordinary dual gate, except for its heat: the sum of the members' heats would let
 * one client that speaks in several of them add heat in each. Each client's share of a member's heat (its uncapped
 * heat over the member's, `raw_heat`) is summed over the members and held to the most one client can ever add to one
 * cluster under the per-client heat cap (`clientHeatCeiling`), so a group needs the clients a cluster would.
 */
import { type PoolConfig } from './config';
import { mergeClusters, type Cluster } from './cluster';
import { evolutionError } from './errors';
import { decayFactor, heatAt } from './heat';
import { isGlobal, sameScope } from './scope';
import { profileCosine } from './sibling';
import { evaluateTrigger, type TriggerEvaluation } from './trigger';

/** The group as one cluster (for its samples and views) and its gate. */
export interface NeedGroupEvaluation {
  /** The members joined (`mergeClusters`), heat replaced by the capped group heat; its id is the first member's. */
  readonly group: Cluster;
  readonly evaluation: TriggerEvaluation;
  readonly member_ids: readonly string[];
}

/**
 * The most heat one client can hold in one global cluster under the per-client cap: `client_heat_per_interval`
 * increments every `client_heat_interval_ms`, decaying with the half-life, summed for ever (a geometric series).
 * Infinite when there is no interval (no cap).
 */
export function clientHeatCeiling(config: PoolConfig): number {
  if (config.client_heat_interval_ms <= 0) return Number.POSITIVE_INFINITY;
  const perInterval = config.client_heat_per_interval * config.heat_increment;
  return perInterval / (1 - decayFactor(config.client_heat_interval_ms, config.half_life_ms));
}

/**
 * The group's heat at `now`: each member's heat split among its clients by their uncapped heat (evenly when none is
 * recorded), each client's parts summed over the members and held to `clientHeatCeiling`, then summed over clients.
 * Client ids are outside strings: a Map.
 */
export function needGroupHeat(members: readonly Cluster[], now: number, config: PoolConfig): number {
  const ceiling = clientHeatCeiling(config);
  const perClient = new Map<string, number>();
  for (const c of members) {
    const heat = heatAt(c.heat, now, config.half_life_ms);
    if (heat <= 0 || c.clients.length === 0) continue;
    const raw = c.clients.map((x) => (x.raw_heat ? heatAt(x.raw_heat, now, config.half_life_ms) : 0));
    const total = raw.reduce((a, b) => a + b, 0);
    c.clients.forEach((x, i) => {
      const part = total > 0 ? (heat * (raw[i] as number)) / total : heat / c.clients.length;
      perClient.set(x.client_id, (perClient.get(x.client_id) ?? 0) + part);
    });
  }
  let sum = 0;
  for (const h of perClient.values()) sum += Math.min(h, ceiling);
  return sum;
}

/**
 * The dual gate over a need group at `now` (time is an input). `members[0]` is the cluster the latest fragment
 * joined; all members must be global clusters of its pool. A group of one is that cluster's own evaluation.
 */
export function evaluateNeedGroup(members: readonly Cluster[], now: number, config: PoolConfig): NeedGroupEvaluation {
  const first = members[0];
  if (first === undefined) throw evolutionError('config', 'members', 'a need group needs at least one cluster');
  if (!isGlobal(first.scope)) throw evolutionError('scope', 'members', 'need groups are formed in global pools only');
  let group = first;
  for (const m of members.slice(1)) {
    if (m.scenario !== first.scenario || !sameScope(m.scope, first.scope)) throw evolutionError('cluster_mismatch', 'members', `cluster "${m.id}" is not in the pool of "${first.id}"`);
    group = mergeClusters(group, m, config);
  }
  const heat = members.length > 1 ? { value: needGroupHeat(members, now, config), at: now } : group.heat;
  // A group fires as a whole once: any member already fired means the group's need already has its trigger.
  const triggered = members.find((m) => m.triggered !== null)?.triggered ?? null;
  group = { ...group, heat, triggered };
  const evaluation = evaluateTrigger(group, now, config);
  const ids = members.map((m) => m.id);
  const reasons = members.length > 1 ? [`need group of ${members.length} clusters (${ids.join(', ')}) evaluated as one`, ...evaluation.reasons] : evaluation.reasons;
  return { group, evaluation: { ...evaluation, reasons }, member_ids: ids };
}

/**
 * The context two clusters share once the varying value word is set aside: each word profile (`wordProfile`, counted
 * in clients) loses its most-said word when the other profile lacks it (the value one cluster is about: "matte"
 * against "satin"), and the rest is compared by cosine ("finish", "prints" in both). Keys are outside words: Maps.
 */
export function contextCosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  return profileCosine(withoutValue(a, b), withoutValue(b, a));
}

function withoutValue(p: ReadonlyMap<string, number>, other: ReadonlyMap<string, number>): ReadonlyMap<string, number> {
  let top: string | null = null;
  let most = 0;
  for (const [w, n] of p) {
    if (n > most || (n === most && top !== null && w < top)) {
      top = w;
      most = n;
    }
  }
  if (top === null || other.has(top)) return p;
  const out = new Map(p);
  out.delete(top);
  return out;
}
