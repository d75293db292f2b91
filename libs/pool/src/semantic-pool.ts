/**
 * The Differential Semantic Pool (draft-zhou §6.2.1) over the ports: an
 * `Embedder` (libs/embeddings) turns each `other` fragment into a vector, a
 * `VectorIndex` (libs/vectors) holds the cluster centroids, and the pure rules
 * of libs/evolution decide assignment, heat and the dual gate. What a mature
 * cluster becomes (a patch, a refinement, a queued candidate) is the
 * evolver's business (evolver.ts); the pool only reports `matured` clusters
 * and is told the outcome afterwards (`markOutcome`) for its views.
 *
 * Layout in the vector index (§6.2.1 last paragraph: "separate DSP instances
 * per scenario or per client-agent cohort"): one collection per scenario
 * (`dsp_<scenario>`); each point is one cluster's centroid, its payload
 * `{ cluster_id, scope }` where scope is `global` or `client:<id>`. A search
 * for one pool filters on `scope` (the cohort is a payload filter).
 *
 * One client cannot steer a cluster (draft-zhou §7; zhou §6.2.1 counts "unique
 * client agents", §7 treats `other` as untrusted): in a global pool a
 * cluster's samples are chosen round-robin across clients, at most
 * `max_samples_per_client` texts each, counted in distinct clients
 * (libs/evolution `clusterSamples`), and a client's fragments move the
 * centroid as one client at most (`centroidWeight`: its first
 * `max_samples_per_client` fragments, each 1/max_samples_per_client). Heat
 * and occurrences still grow with every fragment; the gate counts a client once.
 *
 * Determinism: the state after a sequence of `ingest` calls depends only on
 * the fragments (text, client, time) and their order; cluster ids and point
 * ids are sequence numbers. apps/semantic-pool relies on this to rebuild the
 * pool after a restart by replaying its stored input log.
 */
import { createHash } from 'node:crypto';
import type { Embedder } from '@parley/embeddings';
import {
  assignFragment,
  centroidWeight,
  contextCosine,
  evaluateNeedGroup,
  evaluateTrigger,
  heatAt,
  markTriggered,
  clusterConcept,
  mergeCentroid,
  mergeClusters,
  sameConcept,
  scenarioConcepts,
  mergeThreshold,
  poolConfig,
  poolsForFragment,
  sanitizeFragment,
  wordProfile,
  scopeClient,
  scopeKey,
  type Cluster,
  type PoolConfig,
  type PoolKey,
  type SanitizeFlag,
  type Scope,
  type TriggerEvaluation,
  type Lexicon,
} from '@parley/evolution';
import { ParleyError, scenarioId } from '@parley/protocol';
import type { VectorIndex } from '@parley/vectors';
import { poolError } from './errors';
import { similarityThresholdFor } from './thresholds';

/**
 * The pool's figures: libs/evolution's PoolConfig (among them
 * `max_samples_per_client`, default 3: the texts one client contributes to a
 * global cluster's samples and the fragments of it that move the centroid,
 * draft-zhou §7) and the index query size.
 */
export interface SemanticPoolConfig extends Partial<PoolConfig> {
  /** Nearest clusters asked of the index per pool. Default 5. */
  readonly neighbors?: number;
}

export interface CreateSemanticPoolOptions {
  readonly embedder: Embedder;
  readonly index: VectorIndex;
  /**
   * Scenario ids this pool serves (a replica may own a subset: scale per
   * scenario). Left out: any scenario, its collection created on first use.
   */
  readonly scenarios?: readonly string[];
  readonly config?: SemanticPoolConfig;
  /**
   * The lexicon clusters' concepts are read through (libs/embeddings loadWordNetLexicon): with it, two clusters of
   * one pool whose clients say one noun concept join below the merge threshold (`clusterConcept`). Left out: only
   * centroids merge.
   */
  readonly lexicon?: Lexicon;
}

export interface FragmentInput {
  /** Epoch ms the fragment was captured (the event time, not the processing time). */
  readonly ts: number;
  readonly scenario: string;
  readonly client_id: string;
  /** The raw `other` text: untrusted (zhou §7), sanitised before it is embedded or stored. */
  readonly text: string;
}

/** A cluster that passed the dual gate, as the evolver needs it (the `pool.matured` event's data). */
export interface MaturedCluster {
  readonly cluster_id: string;
  readonly scenario_id: string;
  /** `global` or `client:<id>` (scopeKey). */
  readonly scope: string;
  readonly size: number;
  readonly heat: number;
  readonly distinct_clients: number;
  readonly occurrences_in_window: number;
  readonly branch: string;
  readonly reasons: readonly string[];
  readonly matured_at: number;
  /** `matured`: the dual gate fired; `grown`: a matured cluster grew since (re-induction, zhou §6.2.2 over the cluster's life). */
  readonly kind?: 'matured' | 'grown';
  /**
   * Sanitised texts (zhou §6.2.2 "real fragments in the cluster"). In a global
   * cluster: chosen round-robin across clients, at most max_samples_per_client
   * per client; `count` is the number of distinct clients that sent the text
   * and `clients` names them by per-cluster pseudonyms (`#1`, …), so induction
   * counts clients, not fragments (draft-zhou §7). In a client's own cluster: that
   * client's texts with their fragment counts, no `clients`.
   */
  readonly samples: readonly { readonly text: string; readonly count: number; readonly clients?: readonly string[] }[];
}

export interface PoolIngestResult {
  readonly at: number;
  readonly scenario: string;
  /** The sanitised text, or null when sanitising left nothing (the fragment is then dropped). */
  readonly sanitized: string | null;
  readonly sanitize_flags: readonly SanitizeFlag[];
  /** Cluster joined or created in the scenario's global pool; null when dropped. */
  readonly global_cluster_id: string | null;
  /** Cluster joined or created in the client's own pool; null when dropped. */
  readonly client_cluster_id: string | null;
  readonly created: { readonly global: boolean; readonly client: boolean };
  /** Clusters this fragment pushed over the dual gate (each cluster matures once). */
  readonly matured: readonly MaturedCluster[];
  /** Matured clusters that grew by `regrow_clients` distinct clients since they last reported (kind `grown`). */
  readonly grown: readonly MaturedCluster[];
}

/** What the evolver did with a matured cluster (reported back for the views). */
export interface ClusterOutcome {
  readonly outcome: 'patched' | 'merged' | 'queued' | 'redundant' | 'rejected';
  readonly patch_id: string | null;
  readonly key_name: string | null;
}

export interface ClusterView {
  readonly id: string;
  readonly scenario: string;
  /** `global` or the client id. */
  readonly scope: string;
  readonly size: number;
  /** Distinct clients ever seen in the cluster. */
  readonly distinct_clients: number;
  readonly heat: number;
  readonly peak_heat: number;
  readonly peak_at: number;
  readonly created_at: number;
  readonly triggered: boolean;
  readonly trigger_outcome: ClusterOutcome['outcome'] | null;
  readonly triggered_at: number | null;
  /** The key of the patch the cluster produced (new or refined key), else null. */
  readonly key_name: string | null;
  readonly patch_id: string | null;
  /** A few sanitised sample texts, most frequent first (in a global cluster: sent by the most distinct clients). */
  readonly samples: readonly string[];
  /** The cluster this one merged into (online agglomeration), else null. */
  readonly merged_into: string | null;
  /** Need groups (opt-in): the member whose report spoke for this cluster's group; absent when not in a group. */
  readonly group_leader?: string;
}

export interface HeatSample {
  readonly at: number;
  readonly cluster_id: string;
  readonly heat: number;
}

export interface SemanticPool {
  readonly embedder_id: string;
  /** The resolved configuration (the similarity threshold chosen for the embedder). */
  readonly config: PoolConfig;
  readonly scenarios: readonly string[];
  /** Embeds, assigns and heats one fragment; reports clusters that matured. */
  ingest(f: FragmentInput): Promise<PoolIngestResult>;
  /** Embeds and sanitises only (for a caller that stores the vector with the input). */
  prepare(f: FragmentInput): Promise<PreparedFragment>;
  /** `ingest` for a prepared fragment: no embedding call (replays are exact and fast). */
  ingestPrepared(p: PreparedFragment): Promise<PoolIngestResult>;
  markOutcome(clusterId: string, outcome: ClusterOutcome): void;
  sampleHeat(now: number, minHeat?: number): readonly HeatSample[];
  clusters(now: number): ClusterView[];
  cluster(id: string, now: number): ClusterView | null;
  heatHistory(clusterId?: string): readonly HeatSample[];
}

export interface PreparedFragment {
  readonly at: number;
  readonly scenario: string;
  readonly client_id: string;
  readonly sanitized: string | null;
  readonly sanitize_flags: readonly SanitizeFlag[];
  /** Null when the fragment was dropped by sanitising. */
  readonly vector: readonly number[] | null;
}

interface ClusterState {
  cluster: Cluster;
  readonly pool: PoolKey;
  readonly point_id: string;
  /** Fragments per client ever joined (the distinct clients, and each one's centroid weight, draft-zhou §7). */
  readonly clients: Map<string, number>;
  /** The weight the centroid holds so far (the sum of `centroidWeight` over its fragments). */
  centroid_weight: number;
  peak_heat: number;
  peak_at: number;
  outcome: ClusterOutcome | null;
  /** Distinct clients when the cluster last reported (matured or grown); null before it matured. */
  reported_clients: number | null;
  merged_into: string | null;
  /** Need groups (libs/evolution need-group.ts): the cluster whose report speaks for this one's group, else null. */
  group_leader: string | null;
  /** On a group's leader: the group's member ids (itself first), else null. */
  group_members: string[] | null;
  /** On a group's leader: the distinct clients ever seen across its members, kept as they arrive, else null. */
  group_clients: Set<string> | null;
}

/**
 * The index collection of a scenario's pools (zhou §6.2.1 "per scenario"): `dsp_<scenario>` when that fits the
 * index's 64 characters; a longer id keeps 43 characters, a `-` and 64 bits of its SHA-256, so two scenarios sharing
 * a long prefix never share a collection (they would search, and merge, each other's clusters). Scenario ids are
 * `[a-z0-9_]` (scenarioId), so no plain name holds the `-`: a shortened name is never another scenario's own. The
 * semantic-pool service drops its collections and replays its log on start, so the name may change between versions.
 */
export const collectionOf = (scenario: string): string => {
  const plain = `dsp_${scenario}`;
  return plain.length <= 64 ? plain : `dsp_${scenario.slice(0, 43)}-${createHash('sha256').update(scenario).digest('hex').slice(0, 16)}`;
};

/** A UUID-shaped point id from a sequence number (the index wants UUIDs; cluster ids stay short). */
function pointId(seq: number): string {
  return `00000000-0000-4000-8000-${seq.toString(16).padStart(12, '0')}`;
}

export const scopeLabel = (s: Scope): string => scopeClient(s) ?? 'global';

/** What one pool holds: its ports, its figures and its clusters (the units below share it). */
interface PoolState {
  readonly embedder: Embedder;
  readonly index: VectorIndex;
  readonly config: PoolConfig;
  /** Centroids at least this close merge (online agglomeration). */
  readonly mergeAt: number;
  /** Centroids at least this close merge when their clusters share one concept (null: no lexicon, no concept merge). */
  readonly conceptAt: number | null;
  readonly lexicon: Lexicon | null;
  /** Nearest clusters asked of the index per pool. */
  readonly k: number;
  /** Whether the scenarios were given (a replica's subset) rather than taken as they come. */
  readonly fixed: boolean;
  readonly scenarios: string[];
  readonly ensured: Set<string>;
  readonly states: Map<string, ClusterState>;
  readonly byPoint: Map<string, string>;
  readonly history: HeatSample[];
  clusterSeq: number;
}

async function ensure(ps: PoolState, sc: string): Promise<void> {
  if (ps.ensured.has(sc)) return;
  await ps.index.ensureCollection(collectionOf(sc), ps.embedder.dimensions);
  ps.ensured.add(sc);
}

function known(ps: PoolState, scenario: string, path: string): string {
  let sc: string;
  try {
    sc = scenarioId(scenario);
  } catch {
    throw poolError('unknown_scenario', path, `scenario ${JSON.stringify(scenario)} is not a scenario id`);
  }
  if (ps.fixed && !ps.scenarios.includes(sc)) throw poolError('unknown_scenario', path, `unknown scenario "${sc}" (this pool serves: ${ps.scenarios.join(', ')})`);
  if (!ps.fixed && !ps.scenarios.includes(sc)) ps.scenarios.push(sc);
  return sc;
}

async function assignIn(ps: PoolState, pool: PoolKey, vector: readonly number[], fragment: { text: string; client_id: string; at: number }): Promise<{ st: ClusterState; created: boolean }> {
  const { index, config, states, byPoint } = ps;
  const scope = scopeKey(pool.scope);
  const hits = await index.search(collectionOf(pool.scenario), vector as number[], { limit: ps.k, filter: { must: [{ key: 'scope', match: scope }] } });
  const near = hits.map((h) => ({ cluster_id: byPoint.get(h.id) ?? String(h.payload['cluster_id']), score: h.score }));
  const clusters = near.map((n) => states.get(n.cluster_id)?.cluster).filter((c): c is Cluster => c !== undefined);
  const seq = ps.clusterSeq + 1;
  const res = assignFragment({ pool, fragment, neighbors: near, clusters, new_cluster_id: `c${seq}`, config });
  const created = res.decision.action === 'create';
  let st: ClusterState;
  let centroid: number[] | null;
  // draft-zhou §7: how far this fragment may move the centroid depends on how many its client already sent.
  const weight = centroidWeight(pool.scope, created ? 0 : (states.get(res.cluster.id)?.clients.get(fragment.client_id) ?? 0), config);
  if (created) {
    ps.clusterSeq = seq;
    st = { cluster: res.cluster, pool, point_id: pointId(seq), clients: new Map(), centroid_weight: weight, peak_heat: 0, peak_at: fragment.at, outcome: null, reported_clients: null, merged_into: null, group_leader: null, group_members: null, group_clients: null };
    states.set(res.cluster.id, st);
    byPoint.set(st.point_id, res.cluster.id);
    centroid = Array.from(vector);
  } else {
    st = states.get(res.cluster.id) as ClusterState;
    if (weight > 0) {
      const [stored] = await index.get(collectionOf(pool.scenario), [st.point_id]);
      // zhou §6.2.1: the cluster's vector is the weighted running mean of its
      // members; in a global pool a client weighs one client at most (draft-zhou §7).
      centroid = stored ? mergeCentroid(Array.from(stored.vector), Array.from(vector), st.centroid_weight, weight) : Array.from(vector);
      st.centroid_weight += weight;
    } else centroid = null; // the client already counts fully: heat and occurrences grow, the centroid stays
    st.cluster = res.cluster;
  }
  st.clients.set(fragment.client_id, (st.clients.get(fragment.client_id) ?? 0) + 1);
  if (st.group_leader !== null) states.get(st.group_leader)?.group_clients?.add(fragment.client_id);
  if (centroid !== null) {
    await index.upsert(collectionOf(pool.scenario), [{ id: st.point_id, vector: centroid, payload: { cluster_id: st.cluster.id, scope } }]);
    // Centroids converge as clusters grow: look for a partner at sizes 1, 2, 4, 8, … and every 16th fragment
    // (deterministic in the fragments, so a replay merges the same clusters), not at every fragment.
    const n = st.cluster.size;
    if ((n & (n - 1)) === 0 || n % 16 === 0) st = await agglomerate(ps, st, centroid, scope);
  }
  return { st, created };
}

/**
 * Online agglomeration (zhou §6.2.1 "each cluster represents a distinct,
 * recurring semantic intent"): when a cluster's moved centroid reaches
 * `mergeThreshold` with another cluster of its pool, the two become one. The
 * survivor is the one that already fired, else the larger (ties: the older);
 * two fired clusters stay apart (each has its key; conflict detection joins
 * their intents). The absorbed cluster's point leaves the index and its view
 * names the survivor (`merged_into`). Deterministic in the fragments.
 */
async function agglomerate(ps: PoolState, st: ClusterState, centroid: readonly number[], scope: string): Promise<ClusterState> {
  const { index, byPoint } = ps;
  const coll = collectionOf(st.pool.scenario);
  const floor = ps.conceptAt ?? ps.mergeAt;
  const hits = await index.search(coll, centroid as number[], { limit: ps.conceptAt === null ? 3 : CONCEPT_NEIGHBORS, filter: { must: [{ key: 'scope', match: scope }] } });
  const near = hits
    .map((h) => ({ id: byPoint.get(h.id), score: h.score }))
    // Only clusters of this cluster's own pool (scenario and audience) are partners, whatever the index returns.
    .filter((h): h is { id: string; score: number } => h.id !== undefined && h.id !== st.cluster.id && h.score >= floor && samePool(ps.states.get(h.id), st))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const other = near.find((h) => h.score >= ps.mergeAt) ?? conceptPartner(ps, st, near);
  if (!other) return st;
  const ot = ps.states.get(other.id);
  if (!ot || ot.merged_into !== null || (st.cluster.triggered && ot.cluster.triggered)) return st;
  const keepOther = ot.cluster.triggered !== null || (st.cluster.triggered === null && (ot.cluster.size > st.cluster.size || (ot.cluster.size === st.cluster.size && ot.cluster.created_at <= st.cluster.created_at)));
  const [into, from] = keepOther ? [ot, st] : [st, ot];
  const [a, b] = await index.get(coll, [into.point_id, from.point_id]).then((points) => [points.find((p) => p.id === into.point_id), points.find((p) => p.id === from.point_id)]);
  const w = into.centroid_weight + from.centroid_weight;
  const merged = a && b ? mergeCentroid(Array.from(a.vector), Array.from(b.vector), into.centroid_weight, from.centroid_weight) : Array.from(a?.vector ?? centroid);
  into.cluster = mergeClusters(into.cluster, from.cluster, ps.config);
  into.centroid_weight = w;
  for (const [c, n] of from.clients) into.clients.set(c, (into.clients.get(c) ?? 0) + n);
  // A group member absorbing a cluster (never another member: members are fired) adds its clients to the group.
  const groupClients = into.group_leader === null ? null : (ps.states.get(into.group_leader)?.group_clients ?? null);
  if (groupClients !== null) for (const c of from.clients.keys()) groupClients.add(c);
  if (from.peak_heat > into.peak_heat) {
    into.peak_heat = from.peak_heat;
    into.peak_at = from.peak_at;
  }
  from.merged_into = into.cluster.id;
  byPoint.delete(from.point_id);
  await index.delete(coll, [from.point_id]);
  await index.upsert(coll, [{ id: into.point_id, vector: merged, payload: { cluster_id: into.cluster.id, scope } }]);
  return into;
}

const samePool = (o: ClusterState | undefined, st: ClusterState): boolean => o !== undefined && o.pool.scenario === st.pool.scenario && scopeKey(o.pool.scope) === scopeKey(st.pool.scope);

/** Neighbours of a moved centroid read for a concept partner. */
const CONCEPT_NEIGHBORS = 5;
/** The concept floor as a share of the similarity threshold: a concept merge still needs centroids this close. */
const CONCEPT_FLOOR_SHARE = 0.5;

/**
 * A partner by concept (draft-zhou §6.2.1, one cluster per recurring intent): the nearest cluster above the concept
 * floor whose clients say the noun concept this cluster's clients say (`clusterConcept`: a synset or GloVe
 * neighbours, said by two clients and half of each cluster's). Paraphrases the embedder scattered meet here before
 * any of them crosses the gate alone.
 */
function conceptPartner(ps: PoolState, st: ClusterState, near: readonly { id: string; score: number }[]): { id: string; score: number } | undefined {
  const lex = ps.lexicon;
  if (lex === null || near.length === 0) return undefined;
  const exclude = scenarioConcepts(st.pool.scenario, lex);
  const mine = clusterConcept(st.cluster.samples, lex, exclude);
  if (mine === null) return undefined;
  return near.find((h) => {
    const ot = ps.states.get(h.id);
    return ot !== undefined && ot.merged_into === null && sameConcept(mine, clusterConcept(ot.cluster.samples, lex, exclude), lex);
  });
}

/**
 * Need groups (libs/evolution need-group.ts; zhou §6.2.1 dual gate, Parley): with `need_group_share` set, a global
 * cluster that is below the gate on its own is evaluated with the untriggered clusters of its pool whose centroids
 * reach `need_group_share × similarity_threshold` (at most `need_group_max`, the nearest first). When the group
 * passes the gate every member is marked fired and one `matured` report speaks for it, under its member with the
 * most clients (the leader; ties: the older), with the group's samples (so a choice is induced over all its values); later, a member's growth
 * reports the group (`grown`, under the leader) once the group gained `regrow_clients` clients. Returns null when the
 * ordinary per-cluster path applies. Reads centroids and the candidates' sanitised samples (their shared context,
 * `contextCosine`); the samples it passes on are sanitised texts.
 */
async function needGroupStep(ps: PoolState, st: ClusterState, ev: TriggerEvaluation, at: number): Promise<MaturedCluster | null> {
  const { config } = ps;
  if (st.group_leader !== null) return groupGrown(ps, st.group_leader, at);
  if (config.need_group_share === null || scopeClient(st.pool.scope) !== null || st.cluster.triggered !== null || ev.fires || st.merged_into !== null) return null;
  // A wording said by one client is no evidence of a shared need: one-client clusters (one-offs, bursts) join no group.
  if (st.clients.size < GROUP_MEMBER_CLIENTS) return null;
  const members = await nearUntriggered(ps, st, config.need_group_share * config.similarity_threshold);
  if (members.length === 0) return null;
  const all = [st, ...members];
  const g = evaluateNeedGroup(all.map((m) => m.cluster), at, config);
  if (!g.evaluation.fires) return null;
  // The group reports under its member with the most clients (ties: the older): the need's main wording names it.
  const leader = [...all].sort((a, b) => b.clients.size - a.clients.size || a.cluster.created_at - b.cluster.created_at || (a.cluster.id < b.cluster.id ? -1 : 1))[0] as ClusterState;
  for (const m of all) {
    m.cluster = markTriggered(m.cluster, { at, outcome: 'matured', patch_id: null });
    m.group_leader = leader.cluster.id;
  }
  leader.group_members = [leader, ...all.filter((m) => m !== leader)].map((m) => m.cluster.id);
  leader.group_clients = new Set(all.flatMap((m) => [...m.clients.keys()]));
  leader.reported_clients = leader.group_clients.size;
  const led = evaluateNeedGroup(leader.group_members.map((id) => (ps.states.get(id) as ClusterState).cluster), at, config);
  return { ...maturedOf(leader, { ...g.evaluation, reasons: led.evaluation.reasons.slice(0, 1).concat(g.evaluation.reasons.slice(1)) }, at), size: led.group.size, samples: samplesOf(led.group) };
}

/** The distinct clients a cluster needs before it joins a need group. */
const GROUP_MEMBER_CLIENTS = 2;

/**
 * The untriggered clusters of `st`'s pool whose centroids reach `floor` with `st`'s and whose samples share its
 * context, nearest first, up to the nearest fired cluster of the pool (alone or in a group) above `floor`: the
 * clusters farther than it are at least as likely its need's wordings as the anchor's, and when it is the nearest of
 * all there is no group (the need already has its trigger and key, zhou §6.2.1; agglomeration into it, growth and the
 * evolver's sibling refinement serve the rest, where a group fired beside it would induce a second key). Candidates
 * exactly as near as that fired cluster are still taken in (a tie is no evidence for its need). The cut does not ask
 * whether the fired cluster shares the anchor's context: a fired need of another kind that happens to be nearer ends
 * the group too (the known price; asking for context or concept loses parley-dev's fix, BENCHMARKS.md 2026-11-28).
 */
async function nearUntriggered(ps: PoolState, st: ClusterState, floor: number): Promise<ClusterState[]> {
  const coll = collectionOf(st.pool.scenario);
  const [point] = await ps.index.get(coll, [st.point_id]);
  if (!point) return [];
  // Twice the group's size: the cluster itself and fired, grouped or one-client neighbours take slots too.
  const hits = await ps.index.search(coll, Array.from(point.vector), { limit: 2 * ps.config.need_group_max, filter: { must: [{ key: 'scope', match: scopeKey(st.pool.scope) }] } });
  const out: ClusterState[] = [];
  let mine: Map<string, number> | null = null;
  // The shared context: the clusters' sanitised samples say the same content words once the value word is set aside.
  const shares = (o: ClusterState): boolean => {
    if (ps.config.need_group_context <= 0) return true;
    mine ??= wordProfile(st.cluster.samples);
    return contextCosine(mine, wordProfile(o.cluster.samples)) >= ps.config.need_group_context;
  };
  // The score of the fired cluster that ends the group: candidates exactly as near (ties) are still taken in.
  let cut: number | null = null;
  for (const h of [...hits].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))) {
    const id = ps.byPoint.get(h.id);
    const o = id === undefined ? undefined : ps.states.get(id);
    if (cut !== null && h.score < cut) break;
    if (!o || o === st || h.score < floor || o.merged_into !== null || !samePool(o, st)) continue;
    if (o.cluster.triggered !== null || o.group_leader !== null) {
      // A fired cluster ends the group where it stands: clusters farther from the anchor than it are at least as
      // likely its need's wordings as the anchor's; nearest of all, the anchor's need is probably its need. Its
      // context is not asked (see above).
      cut ??= h.score;
      continue;
    }
    if (o.clients.size < GROUP_MEMBER_CLIENTS || !shares(o)) continue;
    out.push(o);
    if (out.length + 1 >= ps.config.need_group_max) break;
  }
  return out;
}

/** A fired group that gained `regrow_clients` distinct clients since it last reported: a `grown` report under its leader. */
function groupGrown(ps: PoolState, leaderId: string, at: number): MaturedCluster | null {
  const leader = ps.states.get(leaderId);
  if (!leader || leader.group_members === null || leader.group_clients === null) return null;
  // O(1) per fragment: the group's client set is kept as clients arrive (assignIn, agglomerate), never rebuilt here.
  const n = leader.group_clients.size;
  if (n < (leader.reported_clients ?? 0) + ps.config.regrow_clients) return null;
  leader.reported_clients = n;
  const all = leader.group_members.map((id) => ps.states.get(id)).filter((m): m is ClusterState => m !== undefined && m.merged_into === null);
  const g = evaluateNeedGroup(all.map((m) => m.cluster), at, ps.config);
  return { ...maturedOf(leader, g.evaluation, at), size: g.group.size, samples: samplesOf(g.group), kind: 'grown' };
}

function samplesOf(c: Cluster): MaturedCluster['samples'] {
  return c.samples.map((s) => ({ text: s.text, count: s.count, ...(s.clients ? { clients: [...s.clients] } : {}) }));
}

function maturedOf(st: ClusterState, ev: TriggerEvaluation, at: number): MaturedCluster {
  return {
    cluster_id: st.cluster.id,
    scenario_id: st.pool.scenario,
    scope: scopeKey(st.pool.scope),
    size: st.cluster.size,
    heat: round(ev.heat),
    distinct_clients: ev.distinct_clients,
    occurrences_in_window: ev.occurrences_in_window,
    branch: String(ev.branch),
    reasons: [...ev.reasons],
    matured_at: at,
    samples: samplesOf(st.cluster),
  };
}

function viewOf(config: PoolConfig, st: ClusterState, now: number): ClusterView {
  return {
    id: st.cluster.id,
    scenario: st.cluster.scenario,
    scope: scopeLabel(st.cluster.scope),
    size: st.cluster.size,
    distinct_clients: st.clients.size,
    heat: round(heatAt(st.cluster.heat, now, config.half_life_ms)),
    peak_heat: round(st.peak_heat),
    peak_at: st.peak_at,
    created_at: st.cluster.created_at,
    triggered: st.cluster.triggered !== null,
    trigger_outcome: st.outcome?.outcome ?? null,
    triggered_at: st.cluster.triggered?.at ?? null,
    key_name: st.outcome?.key_name ?? null,
    patch_id: st.outcome?.patch_id ?? null,
    samples: topSamples(st.cluster, 3),
    merged_into: st.merged_into,
    ...(st.group_leader !== null ? { group_leader: st.group_leader } : {}),
  };
}

async function prepareFragment(ps: PoolState, f: FragmentInput): Promise<PreparedFragment> {
  const { embedder, config } = ps;
  const at = f.ts;
  if (typeof at !== 'number' || !Number.isFinite(at)) throw poolError('time', 'ts', `ts must be a finite epoch-ms number, got ${String(at)}`);
  if (typeof f.client_id !== 'string' || f.client_id.trim() === '') throw poolError('fragment_invalid', 'client_id', 'client_id must be a non-empty string');
  if (typeof f.text !== 'string') throw poolError('fragment_invalid', 'text', 'text must be a string');
  const scenario = known(ps, f.scenario, 'scenario');
  // zhou §7: the fragment is untrusted; only its sanitised form is embedded and stored.
  const s = sanitizeFragment(f.text, config.max_fragment_chars);
  if (s.text === null) return { at, scenario, client_id: f.client_id, sanitized: null, sanitize_flags: s.flags, vector: null };
  const [vector] = await embedder.embed([s.text]);
  if (!vector) throw new ParleyError('internal', `embedder ${embedder.id} returned no vector`);
  // A text the embedder has no feature for (the zero vector: cosine is undefined) cannot be clustered;
  // it is kept with its sanitised text and no vector, like a fragment sanitising emptied, and the stream flows on.
  if (!vector.some((x) => x !== 0)) return { at, scenario, client_id: f.client_id, sanitized: s.text, sanitize_flags: s.flags, vector: null };
  return { at, scenario, client_id: f.client_id, sanitized: s.text, sanitize_flags: s.flags, vector: Array.from(vector) };
}

async function ingestPreparedFragment(ps: PoolState, p: PreparedFragment): Promise<PoolIngestResult> {
  const { embedder, config } = ps;
  const scenario = known(ps, p.scenario, 'scenario');
  const { at } = p;
  if (p.sanitized === null || p.vector === null) {
    return { at, scenario, sanitized: p.sanitized, sanitize_flags: p.sanitize_flags, global_cluster_id: null, client_cluster_id: null, created: { global: false, client: false }, matured: [], grown: [] };
  }
  await ensure(ps, scenario);
  if (p.vector.length !== embedder.dimensions) {
    // A vector of another length was made by another embedder (a log written before the offline embedder
    // gained its word vectors: 2048 then, 2148 now). Never mixed in: re-embed the sanitised text (`prepare`).
    throw poolError('fragment_invalid', 'vector', `vector has ${p.vector.length} dimensions, the embedder ${embedder.id} makes ${embedder.dimensions}: it was made by another embedder; re-embed the sanitised text`);
  }
  const fragment = { text: p.sanitized, client_id: p.client_id, at };
  const out: MaturedCluster[] = [];
  const grown: MaturedCluster[] = [];
  const joined: ClusterState[] = [];
  const createdFlags: boolean[] = [];
  // zhou §6.2.1: every fragment counts in the scenario's global pool and in its client's own pool.
  for (const key of poolsForFragment(scenario, p.client_id)) {
    const { st, created } = await assignIn(ps, key, p.vector, fragment);
    joined.push(st);
    createdFlags.push(created);
    const ev = evaluateTrigger(st.cluster, at, config);
    if (ev.heat > st.peak_heat) {
      st.peak_heat = ev.heat;
      st.peak_at = at;
    }
    // Need groups: a cluster below the gate is gated with its pool's near clusters; a grouped cluster reports as its group.
    const g = await needGroupStep(ps, st, ev, at);
    if (g !== null) {
      if (g.kind === 'grown') grown.push(g);
      else out.push(g);
      continue;
    }
    if (st.group_leader !== null) continue;
    // zhou §6.2.1 Threshold-Based Triggering: the dual gate; a cluster fires once.
    if (ev.fires) {
      st.cluster = markTriggered(st.cluster, { at, outcome: 'matured', patch_id: null });
      st.reported_clients = st.clients.size;
      out.push(maturedOf(st, ev, at));
    } else if (st.cluster.triggered !== null && st.clients.size >= (st.reported_clients ?? 0) + config.regrow_clients) {
      // Induction over the cluster's life: a matured cluster that gained clients (directly or by a merge) reports again.
      st.reported_clients = st.clients.size;
      grown.push({ ...maturedOf(st, ev, at), kind: 'grown' });
    }
  }
  return {
    at,
    scenario,
    sanitized: p.sanitized,
    sanitize_flags: p.sanitize_flags,
    global_cluster_id: joined[0]?.cluster.id ?? null,
    client_cluster_id: joined[1]?.cluster.id ?? null,
    created: { global: createdFlags[0] ?? false, client: createdFlags[1] ?? false },
    matured: out,
    grown,
  };
}

export async function createSemanticPool(opts: CreateSemanticPoolOptions): Promise<SemanticPool> {
  const { embedder, index } = opts;
  const { neighbors, ...poolOver } = opts.config ?? {};
  // zhou §6.2.1 "cosine similarity >= 0.85" assumes sentence-transformer scores;
  // the threshold is chosen per embedder (thresholds.ts) unless given.
  const config = poolConfig({ ...poolOver, similarity_threshold: poolOver.similarity_threshold ?? similarityThresholdFor(embedder.id) });
  const k = neighbors ?? 5;
  if (!Number.isInteger(k) || k < 1 || k > 100) throw poolError('config', 'neighbors', `neighbors must be an integer in 1..100, got ${k}`);
  const ps: PoolState = {
    embedder,
    index,
    config,
    mergeAt: mergeThreshold(config),
    conceptAt: opts.lexicon ? config.similarity_threshold * CONCEPT_FLOOR_SHARE : null,
    lexicon: opts.lexicon ?? null,
    k,
    fixed: opts.scenarios !== undefined,
    scenarios: [...new Set((opts.scenarios ?? []).map((s) => scenarioId(s)))],
    ensured: new Set(),
    states: new Map(),
    byPoint: new Map(),
    history: [],
    clusterSeq: 0,
  };
  for (const sc of ps.scenarios) await ensure(ps, sc);

  const pool: SemanticPool = {
    embedder_id: embedder.id,
    config,
    scenarios: ps.scenarios,
    prepare: (f) => prepareFragment(ps, f),
    ingestPrepared: (p) => ingestPreparedFragment(ps, p),
    async ingest(f) {
      return ingestPreparedFragment(ps, await prepareFragment(ps, f));
    },
    markOutcome(clusterId, outcome) {
      const st = ps.states.get(clusterId);
      if (!st) return;
      st.outcome = outcome;
      // A need group's report is its leader's: every member gets the group's outcome and key.
      for (const id of st.group_members ?? []) {
        const m = ps.states.get(id);
        if (m) m.outcome = outcome;
      }
    },
    sampleHeat(now, minHeat = 0.5) {
      const out: HeatSample[] = [];
      for (const st of ps.states.values()) {
        const h = heatAt(st.cluster.heat, now, config.half_life_ms);
        if (h >= minHeat) out.push({ at: now, cluster_id: st.cluster.id, heat: round(h) });
      }
      ps.history.push(...out);
      return out;
    },
    clusters(now) {
      // A cluster merged into another lives on in the survivor; `cluster(id)` still names where it went.
      return [...ps.states.values()].filter((st) => st.merged_into === null).map((st) => viewOf(config, st, now));
    },
    cluster(id, now) {
      const st = ps.states.get(id);
      return st ? viewOf(config, st, now) : null;
    },
    heatHistory(clusterId) {
      return clusterId === undefined ? ps.history : ps.history.filter((h) => h.cluster_id === clusterId);
    },
  };
  return pool;
}

/**
 * A cluster's most representative texts for the views: most frequent first.
 * In a global cluster that is most distinct clients first, ties in the
 * round-robin order of its samples (one text per client before a second), so
 * one client holds at most one of the first places among equals (draft-zhou §7); in
 * a client's own cluster, most fragments first, ties alphabetical.
 */
function topSamples(c: Cluster, n: number): string[] {
  const global = c.scope === 'global';
  return c.samples
    .map((s, i) => ({ s, i }))
    .sort((a, b) => b.s.count - a.s.count || (global ? a.i - b.i : a.s.text < b.s.text ? -1 : 1))
    .slice(0, n)
    .map((x) => x.s.text);
}

export function round(x: number): number {
  return Math.round(x * 100) / 100;
}
