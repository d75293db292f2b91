/**
 * The Differential Semantic Pool's clusters (zhou §6.2.1 "Semantic Vector
 * Clustering") and the decision for one fragment.
 *
 * The vector index (a service concern) returns the nearest clusters of one
 * pool with their cosine scores; `assignFragment` joins the best one at or
 * above the similarity threshold or starts a new cluster, and returns the
 * updated cluster state. Everything here is plain JSON so the services store
 * it as is; nothing grows without bound:
 *
 * - occurrences: counts per hour bucket, pruned to the 7-day window
 *   (≤ 168 entries). The window is the 168 whole buckets ending with the
 *   current one, so it spans between 167 and 168 hours: conservative, a
 *   fragment older than 7 days never counts;
 * - clients: the `max_tracked_clients` most recently seen, each with its last
 *   `perClientOccurrenceCap` timestamps. Keeping the most recent ones makes the
 *   distinct-client count in the window exact up to the cap (if k clients were
 *   seen in the window, the k most recent are among them), which is all the
 *   gate needs;
 * - samples: kept per tracked client (its own texts; at most
 *   `max_samples_per_client` in a global pool, `max_samples` in its own pool),
 *   and the cluster's `samples`, at most `max_samples` distinct sanitised
 *   texts, chosen from them (`clusterSamples`) — what intent induction needs.
 *
 * One client cannot steer a cluster (draft-zhou §7; zhou §6.2.1 counts "unique
 * client agents", §7 treats `other` as untrusted input): in a global pool the
 * samples are chosen round-robin across clients, each client's at most
 * `max_samples_per_client`, and each sample's count is the number of distinct
 * clients that sent it, never its fragments; so a client that floods a cluster
 * other clients opened is one voice among them in what induction sees, and
 * moves the cluster's centroid as one client at most (`centroidWeight`).
 * Heat and occurrences still grow with every fragment (they measure demand;
 * the gate caps a client's part in them, trigger.ts).
 *
 * Cohorts (zhou §6.2.1 last paragraph, §6.2.2 Personalized Adaptation): the
 * service assigns each fragment in two pools, the scenario's global pool and
 * the client's own (`poolsForFragment`). A client repeating a personal need
 * fills its own cluster, whose gate is heat + occurrences (one client, so the
 * distinct-client branch cannot apply) and fires a per-client patch. The same
 * fragments in the global pool count toward the occurrence branch at most
 * `perClientOccurrenceCap` per client (half the branch by default), so without
 * other clients the global gate stays shut (see trigger.ts).
 */
import { perClientOccurrenceCap, validatePoolConfig, DEFAULT_POOL_CONFIG, type PoolConfig } from './config';
import { assertFinite, evolutionError } from './errors';
import { addHeat, heatAt, zeroHeat, type Heat } from './heat';
import { sanitizeFragment, type SanitizeFlag } from './sanitize';
import { isGlobal, sameScope, scopeClient, scopeKey, type PoolKey, type Scope } from './scope';

export interface OccurrenceBucket {
  /** Bucket start, epoch ms (a multiple of bucket_ms). */
  readonly start: number;
  readonly count: number;
}

export interface ClusterClient {
  readonly client_id: string;
  readonly last_seen: number;
  /** The client's most recent fragment times, ascending, at most perClientOccurrenceCap. */
  readonly recent: readonly number[];
  /**
   * The client's own sample texts, counts in its fragments: at most
   * `max_samples_per_client` in a global pool (its most recent text and its
   * most frequent others), at most `max_samples` in its own pool. Missing in
   * state written before samples were kept per client.
   */
  readonly samples?: readonly ClusterSample[];
  /** In a global pool: when this client last added heat, the latest `client_heat_per_interval` times. */
  readonly heat_times?: readonly number[];
  /** In a global pool: the heat this client's fragments would have added without the cap (its share of the demand). */
  readonly raw_heat?: Heat;
}

export interface ClusterSample {
  /** Sanitised text (sanitize.ts); raw fragments are never stored. */
  readonly text: string;
  /**
   * In a global pool's `Cluster.samples`: the distinct clients that sent this
   * text (draft-zhou §7: frequencies count clients, not fragments). In a client's
   * own pool and in `ClusterClient.samples`: that client's fragments.
   */
  readonly count: number;
  readonly first_at: number;
  readonly last_at: number;
  /** Highest similarity to the cluster seen with this text (1 for the founding fragment). */
  readonly best_score: number;
  /**
   * In a global pool's `Cluster.samples`: who sent the text, as per-cluster
   * pseudonyms (`#1`, `#2`, … in the order clients were visited), never client
   * ids; intent induction counts distinct labels (induce.ts).
   */
  readonly clients?: readonly string[];
}

export interface TriggerMark {
  readonly at: number;
  /** What the service did with the trigger. */
  readonly outcome: 'matured' | 'patched' | 'merged' | 'queued' | 'redundant' | 'rejected';
  readonly patch_id: string | null;
}

export interface Cluster {
  readonly id: string;
  readonly scenario: string;
  readonly scope: Scope;
  readonly created_at: number;
  /** Latest fragment time seen (windows are pruned relative to it). */
  readonly updated_at: number;
  /** Fragments ever joined. */
  readonly size: number;
  readonly heat: Heat;
  readonly buckets: readonly OccurrenceBucket[];
  readonly clients: readonly ClusterClient[];
  /** Clients dropped from `clients` because of the cap (the gate never needs them). */
  readonly clients_evicted: number;
  readonly samples: readonly ClusterSample[];
  /** Set once the gate fired; a cluster fires once. */
  readonly triggered: TriggerMark | null;
}

export interface Fragment {
  /** The raw fragment from `other`: untrusted (zhou §7); sanitised before it is stored. */
  readonly text: string;
  readonly client_id: string;
  /** Epoch ms the fragment was captured. */
  readonly at: number;
}

/** One nearest cluster as a vector index returns it. */
export interface Neighbor {
  readonly cluster_id: string;
  /** Cosine similarity of the fragment's vector and the cluster's. */
  readonly score: number;
}

export type AssignDecision =
  | { readonly action: 'join'; readonly cluster_id: string; readonly score: number }
  | { readonly action: 'create'; readonly cluster_id: string; readonly best_score: number | null };

export interface AssignInput {
  readonly pool: PoolKey;
  readonly fragment: Fragment;
  /** The vector index's answer for this pool, any order. */
  readonly neighbors: readonly Neighbor[];
  /** The stored clusters the neighbours name (others in the pool may be left out). */
  readonly clusters: readonly Cluster[];
  /** Id for a new cluster, chosen by the caller (this library has no randomness). */
  readonly new_cluster_id: string;
  readonly config?: PoolConfig;
}

export interface AssignResult {
  readonly decision: AssignDecision;
  /** The joined cluster updated, or the new one. */
  readonly cluster: Cluster;
  /** Neighbours not considered: below the threshold or unknown to `clusters` (a stale index entry). */
  readonly ignored: readonly { readonly cluster_id: string; readonly score: number; readonly reason: 'below_threshold' | 'unknown_cluster' }[];
  /** The sanitised text stored as a sample, or null (dropped by sanitisation). */
  readonly sample_text: string | null;
  readonly sanitize_flags: readonly SanitizeFlag[];
}

/**
 * zhou §6.2.1: the decision alone. Joins the best-scoring neighbour at or
 * above `similarity_threshold` (ties: the smaller cluster id, so replicas
 * agree), else creates a cluster.
 */
export function decideAssignment(neighbors: readonly Neighbor[], knownIds: ReadonlySet<string>, newClusterId: string, config: PoolConfig = DEFAULT_POOL_CONFIG): AssignDecision {
  let best: Neighbor | undefined;
  let bestAny: number | null = null;
  for (const n of neighbors) {
    if (!Number.isFinite(n.score)) continue;
    if (bestAny === null || n.score > bestAny) bestAny = n.score;
    if (!knownIds.has(n.cluster_id) || n.score < config.similarity_threshold) continue;
    if (!best || n.score > best.score || (n.score === best.score && n.cluster_id < best.cluster_id)) best = n;
  }
  if (best) return { action: 'join', cluster_id: best.cluster_id, score: best.score };
  return { action: 'create', cluster_id: newClusterId, best_score: bestAny };
}

/** zhou §6.2.1: assign one fragment within one pool and return the cluster it updated or created. */
export function assignFragment(input: AssignInput): AssignResult {
  const config = input.config ?? DEFAULT_POOL_CONFIG;
  validatePoolConfig(config);
  const { pool, fragment } = input;
  assertFinite('fragment.at', fragment.at);
  if (typeof fragment.client_id !== 'string' || fragment.client_id === '') throw evolutionError('scope', 'fragment.client_id', 'a fragment needs its client_id');
  const owner = scopeClient(pool.scope);
  if (owner !== null && owner !== fragment.client_id) {
    // A client's cohort pool holds that client's fragments only (zhou §6.2.2 Personalized Adaptation).
    throw evolutionError('scope', 'fragment.client_id', `fragment of client "${fragment.client_id}" cannot join the pool of client "${owner}"`, { pool: scopeKey(pool.scope) });
  }
  const byId = new Map<string, Cluster>();
  for (const c of input.clusters) {
    if (c.scenario !== pool.scenario || !sameScope(c.scope, pool.scope)) {
      throw evolutionError('cluster_mismatch', 'clusters', `cluster "${c.id}" belongs to pool ${c.scenario}/${scopeKey(c.scope)}, not ${pool.scenario}/${scopeKey(pool.scope)}`);
    }
    byId.set(c.id, c);
  }
  const decision = decideAssignment(input.neighbors, new Set(byId.keys()), input.new_cluster_id, config);
  const ignored: AssignResult['ignored'][number][] = [];
  for (const n of input.neighbors) {
    if (decision.action === 'join' && n.cluster_id === decision.cluster_id) continue;
    if (!byId.has(n.cluster_id)) ignored.push({ cluster_id: n.cluster_id, score: n.score, reason: 'unknown_cluster' });
    else if (n.score < config.similarity_threshold) ignored.push({ cluster_id: n.cluster_id, score: n.score, reason: 'below_threshold' });
  }
  const s = sanitizeFragment(fragment.text, config.max_fragment_chars);
  let cluster: Cluster;
  if (decision.action === 'join') {
    cluster = addToCluster(byId.get(decision.cluster_id) as Cluster, fragment, s.text, decision.score, config);
  } else {
    if (typeof input.new_cluster_id !== 'string' || input.new_cluster_id === '') throw evolutionError('config', 'new_cluster_id', 'new_cluster_id must be a non-empty string');
    if (byId.has(input.new_cluster_id)) throw evolutionError('cluster_mismatch', 'new_cluster_id', `new_cluster_id "${input.new_cluster_id}" already names a cluster`);
    cluster = addToCluster(emptyCluster(input.new_cluster_id, pool, fragment.at), fragment, s.text, 1, config);
  }
  return { decision, cluster, ignored, sample_text: s.text, sanitize_flags: s.flags };
}

/** A cluster with nothing in it yet. */
export function emptyCluster(id: string, pool: PoolKey, at: number): Cluster {
  return {
    id,
    scenario: pool.scenario,
    scope: pool.scope,
    created_at: at,
    updated_at: at,
    size: 0,
    heat: zeroHeat(at),
    buckets: [],
    clients: [],
    clients_evicted: 0,
    samples: [],
    triggered: null,
  };
}

/** Adds one fragment (already sanitised to `text`, or null) to a cluster. Pure; returns the new state. */
export function addToCluster(c: Cluster, fragment: Fragment, text: string | null, score: number, config: PoolConfig = DEFAULT_POOL_CONFIG): Cluster {
  const at = fragment.at;
  const heats = clientAddsHeat(c, fragment.client_id, at, config);
  const latest = Math.max(c.updated_at, at);
  return {
    ...c,
    updated_at: latest,
    size: c.size + 1,
    // zhou §6.2.1: "When a new fragment joins a cluster, its heat score increases by a fixed increment."
    // In a global pool one client adds heat at most client_heat_per_interval times per client_heat_interval_ms (one client, one voice).
    heat: heats ? addHeat(c.heat, at, config.heat_increment, config.half_life_ms) : addHeat(c.heat, at, 0, config.half_life_ms),
    buckets: addOccurrence(c.buckets, at, latest, config),
    ...withSamples(c.scope, addClient(c, fragment.client_id, at, text, score, config, heats), config),
  };
}

/** Whether a client's fragment adds heat to a cluster now: always in its own pool; in a global pool once per interval. */
export function clientAddsHeat(c: Cluster, clientId: string, at: number, config: PoolConfig = DEFAULT_POOL_CONFIG): boolean {
  if (!isGlobal(c.scope)) return true;
  return underClientHeatCap(c.clients.find((x) => x.client_id === clientId)?.heat_times ?? [], at, config);
}

/**
 * The per-client heat cap of a global pool: a fragment at `at` adds heat when the client's earlier heat increments
 * (`heatTimes`) within `client_heat_interval_ms` before it number fewer than `client_heat_per_interval`.
 */
export function underClientHeatCap(heatTimes: readonly number[], at: number, config: PoolConfig): boolean {
  return heatTimes.filter((t) => at - t < config.client_heat_interval_ms && t <= at).length < config.client_heat_per_interval;
}

/**
 * Two clusters of one pool as one (online agglomeration): counts, heat,
 * occurrence buckets and clients added up, samples chosen again, the earlier
 * creation and trigger kept. Pure; `into` keeps its id.
 */
export function mergeClusters(into: Cluster, from: Cluster, config: PoolConfig = DEFAULT_POOL_CONFIG): Cluster {
  if (into.scenario !== from.scenario || !sameScope(into.scope, from.scope)) throw evolutionError('cluster_mismatch', 'from', `cluster "${from.id}" is not in the pool of "${into.id}"`);
  const at = Math.max(into.heat.at, from.heat.at);
  const heat = addHeat(addHeat(into.heat, at, 0, config.half_life_ms), from.heat.at, from.heat.value, config.half_life_ms);
  const latest = Math.max(into.updated_at, from.updated_at);
  const buckets = new Map<number, number>();
  for (const b of [...into.buckets, ...from.buckets]) buckets.set(b.start, (buckets.get(b.start) ?? 0) + b.count);
  const first = windowStartBucket(latest, config);
  const clients = new Map<string, ClusterClient>();
  const cap = perClientOccurrenceCap(config);
  for (const x of [...into.clients, ...from.clients]) {
    const y = clients.get(x.client_id);
    if (!y) {
      clients.set(x.client_id, x);
      continue;
    }
    let samples: ClusterSample[] = [...(y.samples ?? [])];
    for (const s of x.samples ?? []) for (let k = 0; k < s.count; k++) samples = addSample(samples, s.text, s.last_at, s.best_score, isGlobal(into.scope) ? config.max_samples_per_client : config.max_samples, isGlobal(into.scope) ? 1 : config.recent_samples);
    clients.set(x.client_id, {
      client_id: x.client_id,
      last_seen: Math.max(x.last_seen, y.last_seen),
      recent: [...x.recent, ...y.recent].sort((a, b) => a - b).slice(-cap),
      samples,
      ...(x.heat_times || y.heat_times ? { heat_times: [...(x.heat_times ?? []), ...(y.heat_times ?? [])].sort((a, b) => a - b).slice(-config.client_heat_per_interval) } : {}),
      ...(x.raw_heat || y.raw_heat ? { raw_heat: sumHeat(x.raw_heat, y.raw_heat, config) } : {}),
    });
  }
  const all = [...clients.values()].sort((a, b) => b.last_seen - a.last_seen || (a.client_id < b.client_id ? -1 : a.client_id > b.client_id ? 1 : 0));
  const kept = all.slice(0, config.max_tracked_clients);
  return {
    ...into,
    created_at: Math.min(into.created_at, from.created_at),
    updated_at: latest,
    size: into.size + from.size,
    heat,
    buckets: [...buckets].filter(([s]) => Math.floor(s / config.bucket_ms) >= first).sort((a, b) => a[0] - b[0]).map(([start, count]) => ({ start, count })),
    clients: kept,
    clients_evicted: into.clients_evicted + from.clients_evicted + (all.length - kept.length),
    samples: clusterSamples(kept, into.scope, config),
    triggered: into.triggered ?? from.triggered,
  };
}

function sumHeat(a: Heat | undefined, b: Heat | undefined, config: PoolConfig): Heat {
  if (!a) return b as Heat;
  if (!b) return a;
  return addHeat(a, b.at, b.value, config.half_life_ms);
}

/**
 * The largest share of a global cluster's demand one client holds at `now`:
 * its uncapped heat over all clients' (0 for a client's own pool). A need
 * carried mostly by one client stays in that client's cohort (trigger.ts).
 */
export function dominantClientShare(c: Cluster, now: number, config: PoolConfig = DEFAULT_POOL_CONFIG): number {
  if (!isGlobal(c.scope)) return 0;
  let total = 0;
  let top = 0;
  for (const x of c.clients) {
    if (!x.raw_heat) continue;
    const h = heatAt(x.raw_heat, now, config.half_life_ms);
    total += h;
    if (h > top) top = h;
  }
  return total > 0 ? top / total : 0;
}

/** Distinct phrasings among a cluster's samples: texts alike once case, punctuation and digits are set aside. */
export function distinctPhrasings(c: Cluster): number {
  return new Set(c.samples.map((s) => s.text.toLowerCase().replace(/[^\p{L}]+/gu, ' ').trim())).size;
}

function withSamples(scope: Scope, p: Pick<Cluster, 'clients' | 'clients_evicted'>, config: PoolConfig): Pick<Cluster, 'clients' | 'clients_evicted' | 'samples'> {
  return { ...p, samples: clusterSamples(p.clients, scope, config) };
}

/**
 * The samples a cluster hands to intent induction (zhou §6.2.2 "mapping
 * examples derived from real fragments in the cluster"), from its tracked
 * clients' own samples.
 *
 * Global pool (draft-zhou §7, one client cannot steer a cluster): round-robin across
 * clients, most recently seen first — each client's first text, then each
 * one's second, up to `max_samples_per_client` rounds — merging equal texts
 * (case-insensitive) and stopping new texts at `max_samples`. Each sample's
 * `count` is the number of distinct clients that sent it and `clients` names
 * them by per-cluster pseudonyms, so one client appears at most
 * `max_samples_per_client` times however often it sends, and k clients are k
 * voices. A client's texts are visited most frequent (for it) first, then most
 * recent.
 *
 * A client's own pool (one client; zhou §6.2.2 Personalized Adaptation): that
 * client's texts with their fragment counts, as before; its frequencies are its own.
 */
export function clusterSamples(clients: readonly ClusterClient[], scope: Scope, config: PoolConfig = DEFAULT_POOL_CONFIG): ClusterSample[] {
  if (!isGlobal(scope)) return clients.flatMap((c) => (c.samples ?? []).map((x) => ({ ...x })));
  const lists = clients.map((c) => [...(c.samples ?? [])].sort((a, b) => b.count - a.count || b.last_at - a.last_at || cmpText(a, b)));
  const out: { text: string; first_at: number; last_at: number; best_score: number; clients: string[] }[] = [];
  const byKey = new Map<string, number>();
  for (let round = 0; round < config.max_samples_per_client; round++) {
    lists.forEach((list, i) => {
      const s = list[round];
      if (!s) return;
      const label = `#${i + 1}`;
      const key = s.text.toLowerCase();
      const at = byKey.get(key);
      if (at === undefined) {
        if (out.length >= config.max_samples) return;
        byKey.set(key, out.length);
        out.push({ text: s.text, first_at: s.first_at, last_at: s.last_at, best_score: s.best_score, clients: [label] });
        return;
      }
      const x = out[at] as (typeof out)[number];
      if (!x.clients.includes(label)) x.clients.push(label);
      x.first_at = Math.min(x.first_at, s.first_at);
      x.last_at = Math.max(x.last_at, s.last_at);
      x.best_score = Math.max(x.best_score, s.best_score);
    });
  }
  return out.map((x) => ({ text: x.text, count: x.clients.length, first_at: x.first_at, last_at: x.last_at, best_score: x.best_score, clients: x.clients }));
}

/**
 * How much one fragment moves its cluster's centroid (draft-zhou §7; zhou §6.2.1
 * Semantic Vector Clustering), given how many fragments its client had already
 * put into the cluster. In a global pool each of a client's first
 * `max_samples_per_client` fragments weighs 1/max_samples_per_client and later
 * ones nothing: a client is worth at most one client in the centroid however
 * often it sends (its heat still grows). In a client's own pool every fragment
 * weighs 1 (the running mean; there is one client). Pure in its inputs, so a
 * replay of the same fragments gives the same centroid.
 */
export function centroidWeight(scope: Scope, clientFragmentsBefore: number, config: PoolConfig = DEFAULT_POOL_CONFIG): number {
  if (!isGlobal(scope)) return 1;
  return clientFragmentsBefore < config.max_samples_per_client ? 1 / config.max_samples_per_client : 0;
}

/** Marks a cluster as fired (a cluster fires once: its need becomes a patch, a merge or a queued candidate). */
export function markTriggered(c: Cluster, mark: TriggerMark): Cluster {
  if (c.triggered) throw evolutionError('illegal_transition', 'cluster.triggered', `cluster "${c.id}" already fired at ${c.triggered.at}`);
  return { ...c, triggered: mark };
}

function bucketIndex(t: number, config: PoolConfig): number {
  return Math.floor(t / config.bucket_ms);
}

/** Index of the oldest bucket inside the window ending at `now`. */
export function windowStartBucket(now: number, config: PoolConfig): number {
  return bucketIndex(now, config) - config.window_ms / config.bucket_ms + 1;
}

function addOccurrence(buckets: readonly OccurrenceBucket[], at: number, latest: number, config: PoolConfig): OccurrenceBucket[] {
  const first = windowStartBucket(latest, config);
  const idx = bucketIndex(at, config);
  const out = buckets.filter((b) => bucketIndex(b.start, config) >= first).map((b) => ({ ...b }));
  if (idx < first) return out; // older than the window: heat and size only
  const start = idx * config.bucket_ms;
  const i = out.findIndex((b) => b.start === start);
  if (i >= 0) out[i] = { start, count: (out[i] as OccurrenceBucket).count + 1 };
  else {
    out.push({ start, count: 1 });
    out.sort((a, b) => a.start - b.start);
  }
  return out;
}

function addClient(c: Cluster, clientId: string, at: number, text: string | null, score: number, config: PoolConfig, heats = true): Pick<Cluster, 'clients' | 'clients_evicted'> {
  const cap = perClientOccurrenceCap(config);
  const existing = c.clients.find((x) => x.client_id === clientId);
  const others = c.clients.filter((x) => x.client_id !== clientId);
  const recent = [...(existing?.recent ?? []), at].sort((a, b) => a - b).slice(-cap);
  const before = existing?.samples ?? [];
  // A global pool keeps each client's few texts (draft-zhou §7); a client's own pool keeps up to max_samples of its one client.
  const samples =
    text === null
      ? before
      : isGlobal(c.scope)
        ? addSample(before, text, at, score, config.max_samples_per_client, 1)
        : addSample(before, text, at, score, config.max_samples, config.recent_samples);
  const global = isGlobal(c.scope);
  const heatTimes = global ? (heats ? [...(existing?.heat_times ?? []), at].sort((a, b) => a - b).slice(-config.client_heat_per_interval) : existing?.heat_times) : undefined;
  const rawHeat = global ? addHeat(existing?.raw_heat ?? zeroHeat(at), at, config.heat_increment, config.half_life_ms) : undefined;
  const entry: ClusterClient = {
    client_id: clientId,
    last_seen: Math.max(existing?.last_seen ?? at, at),
    recent,
    samples,
    ...(heatTimes !== undefined ? { heat_times: heatTimes } : {}),
    ...(rawHeat !== undefined ? { raw_heat: rawHeat } : {}),
  };
  // Most recently seen first; ties by id so every replica keeps the same set.
  const all = [entry, ...others].sort((a, b) => b.last_seen - a.last_seen || (a.client_id < b.client_id ? -1 : a.client_id > b.client_id ? 1 : 0));
  const kept = all.slice(0, config.max_tracked_clients);
  return { clients: kept, clients_evicted: c.clients_evicted + (all.length - kept.length) };
}

/** Adds one text to a list of at most `max` samples, the `recent` most recent always kept, then the most frequent. */
function addSample(samples: readonly ClusterSample[], text: string, at: number, score: number, max: number, recent: number): ClusterSample[] {
  const key = text.toLowerCase();
  const i = samples.findIndex((x) => x.text.toLowerCase() === key);
  const out = samples.map((x) => ({ ...x }));
  if (i >= 0) {
    const x = out[i] as ClusterSample;
    out[i] = { ...x, count: x.count + 1, first_at: Math.min(x.first_at, at), last_at: Math.max(x.last_at, at), best_score: Math.max(x.best_score, score) };
  } else {
    out.push({ text, count: 1, first_at: at, last_at: at, best_score: score });
  }
  if (out.length <= max) return out;
  // Keep the most recent few, then the most frequent / most similar (zhou §6.2.2 needs "real fragments in the cluster").
  const byRecent = [...out].sort((a, b) => b.last_at - a.last_at || cmpText(a, b));
  const keep = new Set(byRecent.slice(0, Math.min(recent, max)));
  const rest = out.filter((x) => !keep.has(x)).sort((a, b) => b.count - a.count || b.best_score - a.best_score || b.last_at - a.last_at || cmpText(a, b));
  for (const x of rest) {
    if (keep.size >= max) break;
    keep.add(x);
  }
  return out.filter((x) => keep.has(x));
}

function cmpText(a: ClusterSample, b: ClusterSample): number {
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

/**
 * The running mean of a cluster's vector after one more member, normalised
 * (the service stores it back in the vector index). `sizeBefore` members so
 * far, or the weight accumulated so far when members are weighted; `weight` is
 * the new member's (default 1; see `centroidWeight`).
 */
export function mergeCentroid(centroid: readonly number[], vector: readonly number[], sizeBefore: number, weight = 1): number[] {
  if (centroid.length !== vector.length) throw evolutionError('config', 'vector', `vector has ${vector.length} dimensions, the centroid ${centroid.length}`);
  if (!(weight >= 0) || !Number.isFinite(weight)) throw evolutionError('config', 'weight', `weight must be a finite number >= 0, got ${weight}`);
  const n = Math.max(0, sizeBefore);
  if (n + weight === 0) return Array.from(centroid);
  const mean = centroid.map((c, i) => (c * n + (vector[i] as number) * weight) / (n + weight));
  const norm = Math.hypot(...mean);
  return norm === 0 ? mean : mean.map((x) => x / norm);
}

/** Which pool a cluster belongs to. */
export function clusterPool(c: Cluster): PoolKey {
  return { scenario: c.scenario, scope: c.scope };
}

/** True for clusters of a global pool. */
export function isGlobalCluster(c: Cluster): boolean {
  return isGlobal(c.scope);
}
