/**
 * A need group (draft-zhou §6.2.1 dual-gate trigger, Parley): a coarser grouping of a global pool's clusters that
 * lets the gate see a need rather than a wording. The pool splits one choice, or one need said in many wordings and
 * languages, into one cluster per value or wording; each may stay below the heat gate for ever while the need as a
 * whole is asked for by many clients. A group is clusters of one pool (scenario, global scope) whose centroids are
 * close at a looser threshold than the one a fragment joins a cluster at (`need_group_share` of it) and whose samples
 * share their context once the value word is set aside (`contextCosine` ≥ `need_group_context`); the pool forms it
 * (libs/pool semantic-pool.ts). The clusters stay as they are (purity is measured on them); the group only decides the
 * trigger, and on a trigger the inducer reads the whole group's samples, so a choice is induced over all its values.
 *
 * The group is evaluated as one cluster (`mergeClusters`: clients, occurrences and samples joined per client, each
 * client still one voice) through the ordinary dual gate, except for its heat: the sum of the members' heats would let
 * one client that speaks in several of them add capped heat in each. The group's heat is instead the heat one cluster
 * holding all the members' fragments would have (`needGroupHeat`: each client's fragments replayed through the
 * per-client cap once over all members), so the same fragments do not fire a group that would not fire one cluster (up to the record limit in `needGroupHeat`).
 */
import { type PoolConfig } from './config';
import { mergeClusters, underClientHeatCap, type Cluster } from './cluster';
import { evolutionError } from './errors';
import { heatAt } from './heat';
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
 * The group's heat at `now`: the heat one cluster holding all the members' fragments would have. Each client's
 * fragment times in the members (`recent`, merged) are replayed in time order through the per-client cap of a global
 * cluster (`underClientHeatCap`, as `clientAddsHeat` applies it: at most `client_heat_per_interval` increments within any `client_heat_interval_ms`),
 * each kept increment decayed to `now`, and the clients summed. A client speaking in several members is thus capped
 * once over all of them, and each client holds only the heat of its own fragments (never a share of another's).
 * Exact while each member records all of a client's fragments (`recent` keeps the latest `perClientOccurrenceCap`,
 * 5 by default); beyond that the replay reads the recorded ones. Clients a member no longer tracks
 * (`max_tracked_clients`) add nothing. Client ids are outside strings: a Map.
 */
export function needGroupHeat(members: readonly Cluster[], now: number, config: PoolConfig): number {
  const times = new Map<string, number[]>();
  for (const c of members) {
    for (const x of c.clients) {
      const list = times.get(x.client_id);
      if (list) list.push(...x.recent);
      else times.set(x.client_id, [...x.recent]);
    }
  }
  let sum = 0;
  for (const list of times.values()) sum += cappedHeat(list, now, config);
  return sum;
}

/** One client's heat at `now` from its fragment times under the per-client cap, replayed in time order. */
function cappedHeat(times: number[], now: number, config: PoolConfig): number {
  const kept: number[] = [];
  let heat = 0;
  for (const t of times.sort((a, b) => a - b)) {
    if (!underClientHeatCap(kept, t, config)) continue;
    kept.push(t);
    if (kept.length > config.client_heat_per_interval) kept.shift();
    heat += heatAt({ value: config.heat_increment, at: t }, now, config.half_life_ms);
  }
  return heat;
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
