/**
 * The Differential Semantic Pool and the evolution engine (draft-zhou §6.2) as
 * one in-process orchestrator over the ports: an `Embedder` (libs/embeddings)
 * turns each `other` fragment into a vector, a `VectorIndex` (libs/vectors)
 * holds the cluster centroids, and the pure rules of libs/evolution decide
 * everything else (assignment, heat, the dual gate, induction, conflicts,
 * patches, the lifecycle). The future apps/semantic-pool and apps/evolution
 * services host exactly this code and add storage and events; here state
 * lives in memory.
 *
 * Layout in the vector index (zhou §6.2.1 last paragraph: "separate DSP
 * instances per scenario or per client-agent cohort"): one collection per
 * scenario (`dsp_<scenario>`); each point is one cluster's centroid, its
 * payload `{ cluster_id, scope }` where scope is `global` or `client:<id>`.
 * A search for one pool filters on `scope` (the cohort is a payload filter).
 *
 * Time: every fragment carries its own time (`ts`); `tick(now)` runs the
 * lifecycle at `now`. The clock only supplies a default when `ts` is left out.
 */
import type { Embedder } from '@parley/embeddings';
import {
  DEFAULT_PATCH_TTL_MS,
  admitCandidate,
  applyDecision,
  assignFragment,
  contentWords,
  detectConflict,
  effectiveTemplate,
  evaluateKey,
  evaluateTrigger,
  existingKeysFor,
  heatAt,
  induceKey,
  lifecycleConfig,
  markTriggered,
  mergeCentroid,
  newKeyCounters,
  nextAdmissible,
  packagePatch,
  poolConfig,
  poolsForFragment,
  recordAudit as recordAuditRule,
  recordExecution as recordExecutionRule,
  sanitizeFragment,
  scopeClient,
  scopeKey,
  singular,
  type Cluster,
  type KeyCounters,
  type LifecycleConfig,
  type LifecycleDecision,
  type PoolConfig,
  type PoolKey,
  type QueuedCandidate,
  type SanitizeFlag,
  type SchemaPatch,
  type Scope,
  type TriggerEvaluation,
} from '@parley/evolution';
import { ParleyError, scenarioId, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import type { VectorIndex } from '@parley/vectors';
import { similarityThresholdFor } from './thresholds';

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/** Rule ids this library reports in `ParleyError.rule` (type `invalid_params`). */
export const POOL_RULES = ['unknown_scenario', 'fragment_invalid', 'time', 'unknown_key', 'config'] as const;
export type PoolRule = (typeof POOL_RULES)[number];

export function poolError(rule: PoolRule, path: string, message: string): ParleyError {
  return new ParleyError('invalid_params', message, { path, rule });
}

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

export interface EngineConfig extends Partial<PoolConfig> {
  /** zhou §6.2.3 lifecycle figures (trial, grace, thresholds, convergence guard). */
  readonly lifecycle?: Partial<LifecycleConfig>;
  /** zhou §6.2.2 "an expiration date": patches expire this long after their timestamp. Default 30 days. */
  readonly patch_ttl_ms?: number;
  /** Nearest clusters asked of the index per pool. Default 5. */
  readonly neighbors?: number;
  /**
   * Simulation only: derive one `payload.executed` (and one audit) from every
   * ingested fragment (see `deriveExecution` below for the model). Off by
   * default: a service records real executions with `recordExecution`.
   */
  readonly derive_executions?: boolean;
}

export interface Clock {
  now(): number;
}

export interface CreateEngineOptions {
  readonly embedder: Embedder;
  readonly index: VectorIndex;
  /** The base templates (zhou §4.1), one per scenario; a later one for the same scenario wins. */
  readonly templates: readonly SchemaTemplate[];
  readonly config?: EngineConfig;
  readonly clock: Clock;
}

// ---------------------------------------------------------------------------
// Inputs, results and read models
// ---------------------------------------------------------------------------

export interface FragmentInput {
  /** Epoch ms; default `clock.now()`. */
  readonly ts?: number;
  readonly scenario: string;
  readonly client_id: string;
  /** The raw `other` text: untrusted (zhou §7), sanitised before it is embedded or stored. */
  readonly text: string;
}

export interface TriggerReport {
  readonly at: number;
  readonly cluster_id: string;
  readonly scenario: string;
  readonly scope: string;
  readonly outcome: 'patched' | 'merged' | 'queued' | 'redundant' | 'rejected';
  readonly patch_id: string | null;
  /** The candidate key, when induction produced one. */
  readonly key_name: string | null;
  readonly reasons: readonly string[];
  readonly heat: number;
  readonly distinct_clients: number;
  readonly branch: TriggerEvaluation['branch'];
}

export interface IngestResult {
  readonly at: number;
  readonly scenario: string;
  /** The sanitised text, or null when sanitising left nothing (the fragment is then dropped). */
  readonly sanitized: string | null;
  readonly sanitize_flags: readonly SanitizeFlag[];
  /** Cluster joined or created in the scenario's global pool; null when dropped. */
  readonly global_cluster_id: string | null;
  /** Cluster joined or created in the client's own pool; null when dropped. */
  readonly client_cluster_id: string | null;
  /** Whether each of the two was created by this fragment. */
  readonly created: { readonly global: boolean; readonly client: boolean };
  readonly triggers: readonly TriggerReport[];
  readonly patches: readonly SchemaPatch[];
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
  readonly trigger_outcome: TriggerReport['outcome'] | null;
  readonly triggered_at: number | null;
  /** The key of the patch the cluster produced (new or refined key), else null. */
  readonly key_name: string | null;
  readonly patch_id: string | null;
  /** A few sanitised sample texts, most frequent first. */
  readonly samples: readonly string[];
}

export interface PatchView {
  readonly patch_id: string;
  readonly scenario: string;
  readonly parent_schema_id: string;
  /** `global` or the client id. */
  readonly scope: string;
  readonly timestamp: number;
  readonly expires_at: number;
  readonly source_cluster_id: string | null;
  readonly new_keys: readonly { readonly key_name: string; readonly key_type: string; readonly enum?: readonly unknown[]; readonly state: string; readonly semantic_description: string }[];
  readonly modified_keys: readonly { readonly key_name: string; readonly semantic_description: string }[];
}

export interface HeatSample {
  readonly at: number;
  readonly cluster_id: string;
  readonly heat: number;
}

export interface TickResult {
  readonly at: number;
  /** Lifecycle transitions (keep decisions are left out), with their figures. */
  readonly decisions: readonly LifecycleDecision[];
  /** Patches packaged from candidates the convergence guard had queued. */
  readonly admitted: readonly SchemaPatch[];
}

export interface ExecutionInput {
  readonly at: number;
  readonly scenario: string;
  readonly client_id: string;
  /** Default: the scenario's base schema_id. */
  readonly schema_id?: string;
  readonly keys_present: readonly string[];
  /** Keys whose value had the declared type; default: every present key. */
  readonly key_type_correct?: Readonly<Record<string, boolean>>;
}

export interface EvolutionEngine {
  readonly embedder_id: string;
  /** The resolved pool configuration (the similarity threshold chosen for the embedder). */
  readonly config: PoolConfig;
  readonly lifecycle: LifecycleConfig;
  ingest(f: FragmentInput): Promise<IngestResult>;
  /** zhou §6.2.3 metrics: one executed payload (keys present, never values). */
  recordExecution(e: ExecutionInput): void;
  /** zhou §6.2.3 semantic_alignment_accuracy: one audit verdict for one patch key. */
  recordAudit(a: { readonly at: number; readonly patch_id: string; readonly key_name: string; readonly aligned: boolean }): void;
  /** zhou §6.2.3: evaluate every patch key at `now`, admit queued candidates, sample heat. */
  tick(now?: number): TickResult;
  /** Records the heat of every cluster at `now` above `min_heat` (default 0.5) in the history. */
  sampleHeat(now?: number, minHeat?: number): readonly HeatSample[];
  clusters(now?: number): ClusterView[];
  cluster(id: string, now?: number): ClusterView | null;
  patches(): PatchView[];
  rawPatches(): readonly SchemaPatch[];
  decisions(): readonly LifecycleDecision[];
  triggers(): readonly TriggerReport[];
  heatHistory(clusterId?: string): readonly HeatSample[];
  queued(): readonly QueuedCandidate[];
}

// ---------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------

interface ClusterState {
  cluster: Cluster;
  /** Payload scope of the point: `global` or `client:<id>`. */
  readonly pool: PoolKey;
  readonly point_id: string;
  readonly clients: Set<string>;
  peak_heat: number;
  peak_at: number;
  key_name: string | null;
  patch_id: string | null;
}

const collectionOf = (scenario: string): string => `dsp_${scenario}`.slice(0, 64);

/** A UUID-shaped point id from a sequence number (the index wants UUIDs; cluster ids stay short). */
function pointId(seq: number): string {
  const hex = seq.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

const scopeLabel = (s: Scope): string => scopeClient(s) ?? 'global';

export async function createEvolutionEngine(opts: CreateEngineOptions): Promise<EvolutionEngine> {
  const { embedder, index, clock } = opts;
  const over = opts.config ?? {};
  const { lifecycle: lcOver, patch_ttl_ms, neighbors, derive_executions, ...poolOver } = over;
  // zhou §6.2.1 "cosine similarity >= 0.85" assumes sentence-transformer scores;
  // the threshold is chosen per embedder (thresholds.ts) unless given.
  const config = poolConfig({ ...poolOver, similarity_threshold: poolOver.similarity_threshold ?? similarityThresholdFor(embedder.id) });
  const lifecycle = lifecycleConfig(lcOver ?? {});
  const ttl = patch_ttl_ms ?? DEFAULT_PATCH_TTL_MS;
  const k = neighbors ?? 5;
  if (!(ttl > 0)) throw poolError('config', 'patch_ttl_ms', `patch_ttl_ms must be positive, got ${ttl}`);
  if (!Number.isInteger(k) || k < 1 || k > 100) throw poolError('config', 'neighbors', `neighbors must be an integer in 1..100, got ${k}`);

  const bases = new Map<string, SchemaTemplate>();
  for (const t of opts.templates) bases.set(scenarioId(t.scenario), t);
  for (const sc of bases.keys()) await index.ensureCollection(collectionOf(sc), embedder.dimensions);

  const states = new Map<string, ClusterState>();
  const byPoint = new Map<string, string>();
  let patches: SchemaPatch[] = [];
  const counters = new Map<string, KeyCounters>();
  let queue: readonly QueuedCandidate[] = [];
  const decisions: LifecycleDecision[] = [];
  const triggers: TriggerReport[] = [];
  const history: HeatSample[] = [];
  let clusterSeq = 0;
  let patchSeq = 0;
  const ckey = (patchId: string, key: string): string => `${patchId}/${key}`;

  const baseFor = (scenario: string, path: string): SchemaTemplate => {
    let sc: string;
    try {
      sc = scenarioId(scenario);
    } catch {
      throw poolError('unknown_scenario', path, `scenario ${JSON.stringify(scenario)} is not a scenario id`);
    }
    const b = bases.get(sc);
    if (!b) throw poolError('unknown_scenario', path, `unknown scenario "${sc}" (known: ${[...bases.keys()].join(', ')})`);
    return b;
  };

  const newPatch = (base: SchemaTemplate, scope: Scope, now: number, clusterId: string, body: { new_keys?: KeyDefinition[]; modified_keys?: { key_name: string; semantic_description: string }[] }): SchemaPatch => {
    const patch = packagePatch({
      patch_id: `p${++patchSeq}-${scenarioId(base.scenario)}-${scopeLabel(scope)}`.slice(0, 128),
      base,
      scope,
      timestamp: now,
      expires_at: now + ttl,
      source_cluster_id: clusterId,
      ...body,
    });
    patches.push(patch);
    for (const pk of patch.new_keys) counters.set(ckey(patch.patch_id, pk.definition.key_name), newKeyCounters(patch.patch_id, pk.definition.key_name));
    return patch;
  };

  /** zhou §6.2.2: induction, conflict detection, the convergence guard (§6.2.3), packaging. */
  const onTrigger = (st: ClusterState, ev: TriggerEvaluation, now: number, created: SchemaPatch[]): TriggerReport => {
    const { pool } = st;
    const base = bases.get(pool.scenario) as SchemaTemplate;
    const report = (outcome: TriggerReport['outcome'], patchId: string | null, keyName: string | null, reasons: readonly string[]): TriggerReport => {
      st.cluster = markTriggered(st.cluster, { at: now, outcome, patch_id: patchId });
      if (outcome === 'patched' || outcome === 'merged') {
        st.key_name = keyName;
        st.patch_id = patchId;
      }
      const r: TriggerReport = {
        at: now,
        cluster_id: st.cluster.id,
        scenario: pool.scenario,
        scope: scopeLabel(pool.scope),
        outcome,
        patch_id: patchId,
        key_name: keyName,
        reasons: [...ev.reasons, ...reasons],
        heat: ev.heat,
        distinct_clients: ev.distinct_clients,
        branch: ev.branch,
      };
      triggers.push(r);
      return r;
    };
    const induced = induceKey(st.cluster.samples);
    if (!induced.ok) return report('rejected', null, null, [induced.reason]);
    const conflict = detectConflict(induced.candidate, existingKeysFor(base, patches, pool.scope, now, lifecycle.compatibility_window_ms));
    switch (conflict.kind) {
      case 'none': {
        const admit = admitCandidate({ cluster_id: st.cluster.id, scenario: pool.scenario, scope: pool.scope, key: conflict.key, queued_at: now }, patches, queue, now, lifecycle);
        queue = admit.queue;
        // zhou §6.2.3 Schema Convergence Guard: "new triggers MUST be queued".
        if (!admit.admitted) return report('queued', null, conflict.key.key_name, [admit.reason]);
        const patch = newPatch(base, pool.scope, now, st.cluster.id, { new_keys: [conflict.key] });
        created.push(patch);
        return report('patched', patch.patch_id, conflict.key.key_name, [admit.reason]);
      }
      case 'merge': {
        // zhou §6.2.2: "merge the candidate into the existing key by refining its semantic_description".
        const patch = newPatch(base, pool.scope, now, st.cluster.id, { modified_keys: [conflict.modified] });
        created.push(patch);
        return report('merged', patch.patch_id, conflict.modified.key_name, [`"${induced.candidate.key.key_name}" collides with "${conflict.target.key_name}" (${conflict.match}); description refined`]);
      }
      case 'redundant':
        return report('redundant', null, conflict.target.key_name, [conflict.reason]);
      case 'blocked':
        return report('rejected', null, conflict.target.key_name, [conflict.reason]);
    }
  };

  const assignIn = async (pool: PoolKey, vector: Float32Array, fragment: { text: string; client_id: string; at: number }): Promise<{ st: ClusterState; created: boolean }> => {
    const scope = scopeKey(pool.scope);
    const hits = await index.search(collectionOf(pool.scenario), vector, { limit: k, filter: { must: [{ key: 'scope', match: scope }] } });
    const neighbors = hits.map((h) => ({ cluster_id: byPoint.get(h.id) ?? String(h.payload['cluster_id']), score: h.score }));
    const known = neighbors.map((n) => states.get(n.cluster_id)?.cluster).filter((c): c is Cluster => c !== undefined);
    const seq = clusterSeq + 1;
    const res = assignFragment({ pool, fragment, neighbors, clusters: known, new_cluster_id: `c${seq}`, config });
    const created = res.decision.action === 'create';
    let st: ClusterState;
    let centroid: number[];
    if (created) {
      clusterSeq = seq;
      st = { cluster: res.cluster, pool, point_id: pointId(seq), clients: new Set(), peak_heat: 0, peak_at: fragment.at, key_name: null, patch_id: null };
      states.set(res.cluster.id, st);
      byPoint.set(st.point_id, res.cluster.id);
      centroid = Array.from(vector);
    } else {
      st = states.get(res.cluster.id) as ClusterState;
      const [stored] = await index.get(collectionOf(pool.scenario), [st.point_id]);
      // zhou §6.2.1: the cluster's vector is the running mean of its members.
      centroid = stored ? mergeCentroid(Array.from(stored.vector), Array.from(vector), st.cluster.size) : Array.from(vector);
      st.cluster = res.cluster;
    }
    st.clients.add(fragment.client_id);
    await index.upsert(collectionOf(pool.scenario), [{ id: st.point_id, vector: centroid, payload: { cluster_id: st.cluster.id, scope } }]);
    return { st, created };
  };

  /**
   * The simulation's execution model (zhou §6.2.3 needs payload.executed
   * counts and audit verdicts; a replayed stream has neither). Every fragment
   * stands for one executed payload of its scenario by its client. Once a
   * patch key is visible to that client (a global patch to every client, a
   * per-client patch to its owner; experimental, stable or deprecated, not
   * withdrawn), a fragment that joined the patch's source cluster is a use of
   * the key instead of `other` (the client agent mapped it to the key, with a
   * value of the declared type); every other fragment is a payload without
   * the key. Each use is audited by a rule-based judge: aligned when the
   * fragment shares a content word with the key name (the stand-in for
   * zhou's "internal LLM or manual audit sampler").
   */
  const deriveExecution = (input: { at: number; scenario: string; client_id: string; text: string }, joined: readonly ClusterState[]): void => {
    const base = bases.get(input.scenario) as SchemaTemplate;
    const visible = new Set(effectiveTemplate(base, patches, input.client_id, input.at).template.keys.map((x) => x.key_name));
    const joinedIds = new Set(joined.map((s) => s.cluster.id));
    const used: { patch: SchemaPatch; key: string }[] = [];
    for (const p of patches) {
      if (p.scenario !== input.scenario || p.source_cluster_id === null || !joinedIds.has(p.source_cluster_id)) continue;
      for (const pk of p.new_keys) if (visible.has(pk.definition.key_name)) used.push({ patch: p, key: pk.definition.key_name });
    }
    const keys = used.length > 0 ? used.map((u) => u.key) : ['other'];
    engine.recordExecution({ at: input.at, scenario: input.scenario, client_id: input.client_id, keys_present: keys });
    const words = new Set(contentWords(input.text).words.map(singular));
    for (const u of used) {
      const aligned = u.key.split('_').some((w) => words.has(singular(w)));
      engine.recordAudit({ at: input.at, patch_id: u.patch.patch_id, key_name: u.key, aligned });
    }
  };

  const view = (st: ClusterState, now: number): ClusterView => ({
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
    trigger_outcome: st.cluster.triggered?.outcome ?? null,
    triggered_at: st.cluster.triggered?.at ?? null,
    key_name: st.key_name,
    patch_id: st.patch_id,
    samples: [...st.cluster.samples].sort((a, b) => b.count - a.count || (a.text < b.text ? -1 : 1)).slice(0, 3).map((s) => s.text),
  });

  const engine: EvolutionEngine = {
    embedder_id: embedder.id,
    config,
    lifecycle,

    async ingest(f) {
      const at = f.ts ?? clock.now();
      if (typeof at !== 'number' || !Number.isFinite(at)) throw poolError('time', 'ts', `ts must be a finite epoch-ms number, got ${String(at)}`);
      if (typeof f.client_id !== 'string' || f.client_id.trim() === '') throw poolError('fragment_invalid', 'client_id', 'client_id must be a non-empty string');
      if (typeof f.text !== 'string') throw poolError('fragment_invalid', 'text', 'text must be a string');
      const base = baseFor(f.scenario, 'scenario');
      const scenario = scenarioId(base.scenario);
      // zhou §7: the fragment is untrusted; only its sanitised form is embedded and stored.
      const s = sanitizeFragment(f.text, config.max_fragment_chars);
      if (s.text === null) {
        return { at, scenario, sanitized: null, sanitize_flags: s.flags, global_cluster_id: null, client_cluster_id: null, created: { global: false, client: false }, triggers: [], patches: [] };
      }
      const [vector] = await embedder.embed([s.text]);
      if (!vector) throw new ParleyError('internal', `embedder ${embedder.id} returned no vector`);
      const fragment = { text: s.text, client_id: f.client_id, at };
      const fired: TriggerReport[] = [];
      const created: SchemaPatch[] = [];
      const joined: ClusterState[] = [];
      const createdFlags: boolean[] = [];
      // zhou §6.2.1: every fragment counts in the scenario's global pool and in its client's own pool.
      for (const pool of poolsForFragment(scenario, f.client_id)) {
        const { st, created: isNew } = await assignIn(pool, vector, fragment);
        joined.push(st);
        createdFlags.push(isNew);
        const ev = evaluateTrigger(st.cluster, at, config);
        if (ev.heat > st.peak_heat) {
          st.peak_heat = ev.heat;
          st.peak_at = at;
        }
        // zhou §6.2.1 Threshold-Based Triggering: the dual gate; a cluster fires once.
        if (ev.fires) fired.push(onTrigger(st, ev, at, created));
      }
      if (derive_executions) deriveExecution({ at, scenario, client_id: f.client_id, text: s.text }, joined);
      return {
        at,
        scenario,
        sanitized: s.text,
        sanitize_flags: s.flags,
        global_cluster_id: joined[0]?.cluster.id ?? null,
        client_cluster_id: joined[1]?.cluster.id ?? null,
        created: { global: createdFlags[0] ?? false, client: createdFlags[1] ?? false },
        triggers: fired,
        patches: created,
      };
    },

    recordExecution(e) {
      const base = baseFor(e.scenario, 'scenario');
      const scenario = scenarioId(base.scenario);
      const schemaId = e.schema_id ?? base.schema_id;
      const correct = e.key_type_correct ?? Object.fromEntries(e.keys_present.map((x) => [x, true]));
      for (const p of patches) {
        if (p.scenario !== scenario) continue;
        for (const pk of p.new_keys) {
          const id = ckey(p.patch_id, pk.definition.key_name);
          const c = counters.get(id) as KeyCounters;
          counters.set(id, recordExecutionRule(c, p, { at: e.at, client_id: e.client_id, schema_id: schemaId, keys_present: e.keys_present, key_type_correct: correct }, lifecycle));
        }
      }
    },

    recordAudit(a) {
      const c = counters.get(ckey(a.patch_id, a.key_name));
      if (!c) throw poolError('unknown_key', 'key_name', `no patch key ${a.patch_id}/${a.key_name}`);
      counters.set(ckey(a.patch_id, a.key_name), recordAuditRule(c, { at: a.at, aligned: a.aligned }, lifecycle));
    },

    tick(nowArg) {
      const now = nowArg ?? clock.now();
      if (!Number.isFinite(now)) throw poolError('time', 'now', `now must be a finite epoch-ms number, got ${String(now)}`);
      const out: LifecycleDecision[] = [];
      // zhou §6.2.3: "continuously assesses the quality and necessity of every patch key".
      patches = patches.map((patch) => {
        let p = patch;
        for (const pk of patch.new_keys) {
          const d = evaluateKey(p, pk.definition.key_name, counters.get(ckey(p.patch_id, pk.definition.key_name)) as KeyCounters, now, lifecycle);
          if (d.action === 'keep') continue;
          out.push(d);
          p = applyDecision(p, d, lifecycle);
        }
        return p;
      });
      decisions.push(...out);
      // zhou §6.2.3 Convergence Guard: queued candidates go in as slots free up.
      const admitted: SchemaPatch[] = [];
      for (;;) {
        const next = nextAdmissible(queue, patches, now, lifecycle);
        if (!next.candidate) break;
        queue = next.queue;
        const q = next.candidate;
        const base = bases.get(q.scenario) as SchemaTemplate;
        const conflict = detectConflict({ key: q.key, examples: [] }, existingKeysFor(base, patches, q.scope, now, lifecycle.compatibility_window_ms));
        if (conflict.kind !== 'none') continue; // a key with that name appeared meanwhile
        const patch = newPatch(base, q.scope, now, q.cluster_id, { new_keys: [q.key] });
        admitted.push(patch);
        const st = states.get(q.cluster_id);
        if (st) {
          st.key_name = q.key.key_name;
          st.patch_id = patch.patch_id;
        }
      }
      engine.sampleHeat(now);
      return { at: now, decisions: out, admitted };
    },

    sampleHeat(nowArg, minHeat = 0.5) {
      const now = nowArg ?? clock.now();
      const out: HeatSample[] = [];
      for (const st of states.values()) {
        const h = heatAt(st.cluster.heat, now, config.half_life_ms);
        if (h >= minHeat) out.push({ at: now, cluster_id: st.cluster.id, heat: round(h) });
      }
      history.push(...out);
      return out;
    },

    clusters(nowArg) {
      const now = nowArg ?? clock.now();
      return [...states.values()].map((st) => view(st, now));
    },

    cluster(id, nowArg) {
      const st = states.get(id);
      return st ? view(st, nowArg ?? clock.now()) : null;
    },

    patches() {
      return patches.map(patchView);
    },

    rawPatches() {
      return patches;
    },

    decisions() {
      return decisions;
    },

    triggers() {
      return triggers;
    },

    heatHistory(clusterId) {
      return clusterId === undefined ? history : history.filter((h) => h.cluster_id === clusterId);
    },

    queued() {
      return queue;
    },
  };
  return engine;
}

export function patchView(p: SchemaPatch): PatchView {
  return {
    patch_id: p.patch_id,
    scenario: p.scenario,
    parent_schema_id: p.parent_schema_id,
    scope: scopeLabel(p.scope),
    timestamp: p.timestamp,
    expires_at: p.expires_at,
    source_cluster_id: p.source_cluster_id,
    new_keys: p.new_keys.map((k) => ({
      key_name: k.definition.key_name,
      key_type: k.definition.key_type,
      ...(k.definition.enum ? { enum: k.definition.enum } : {}),
      state: k.lifecycle.state,
      semantic_description: k.definition.semantic_description,
    })),
    modified_keys: p.modified_keys.map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description })),
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
