/**
 * The Differential Semantic Pool and the evolver (draft-zhou §6.2) composed in
 * one process and driven synchronously: every matured cluster goes straight
 * to the evolver and its outcome back to the pool. `parley simulate`, the
 * pool benchmark and the library tests use it; the services
 * (apps/semantic-pool, apps/evolution) run the two halves apart, joined by
 * the `pool.matured` event.
 *
 * Time: every fragment carries its own time (`ts`); `tick(now)` runs the
 * lifecycle at `now`. The clock only supplies a default when `ts` is left out.
 */
import type { Embedder } from '@parley/embeddings';
import {
  contentWords,
  effectiveTemplate,
  singular,
  type Lexicon,
  type LifecycleConfig,
  type PoolConfig,
  type QueuedCandidate,
  type SanitizeFlag,
  type SchemaPatch,
} from '@parley/evolution';
import { scenarioId, type SchemaTemplate } from '@parley/protocol';
import type { VectorIndex } from '@parley/vectors';
import { createEvolver, type DecisionRecord, type EditAction, type EditOutcome, type EvolverConfig, type ExecutionInput, type InduceFn, type OperatorAction, type PatchChange, type PatchRecord, type TriggerReport } from './evolver';
import { poolError } from './errors';
import { createSemanticPool, scopeLabel, type ClusterView, type HeatSample, type SemanticPoolConfig } from './semantic-pool';

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

export interface EngineConfig extends SemanticPoolConfig, EvolverConfig {
  /**
   * Simulation only: derive one `payload.executed` (and one audit) from every
   * ingested fragment (see `deriveExecution` below for the model). Off by
   * default: a service records real executions with `recordExecution`.
   */
  readonly derive_executions?: boolean;
  /**
   * Online agglomeration by concept in the pool (`CreateSemanticPoolOptions.lexicon`): clusters whose clients say
   * one noun concept join below the merge threshold. Off by default: on the dev streams it moved as many intents
   * to a second key as it joined (BENCHMARKS.md, "one key per intent by concept"). Needs `lexicon`.
   */
  readonly concept_merge?: boolean;
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
  /** The intent inducer (default: libs/evolution's rule-based one). */
  readonly induce?: InduceFn;
  /** The lexicon the rule inducer reads words through (libs/embeddings loadWordNetLexicon). */
  readonly lexicon?: Lexicon;
}

export interface FragmentInput {
  /** Epoch ms; default `clock.now()`. */
  readonly ts?: number;
  readonly scenario: string;
  readonly client_id: string;
  /** The raw `other` text: untrusted (zhou §7), sanitised before it is embedded or stored. */
  readonly text: string;
}

export interface IngestResult {
  readonly at: number;
  readonly scenario: string;
  /** The sanitised text, or null when sanitising left nothing (the fragment is then dropped). */
  readonly sanitized: string | null;
  readonly sanitize_flags: readonly SanitizeFlag[];
  readonly global_cluster_id: string | null;
  readonly client_cluster_id: string | null;
  readonly created: { readonly global: boolean; readonly client: boolean };
  readonly triggers: readonly TriggerReport[];
  /** Patches packaged because of this fragment. */
  readonly patches: readonly SchemaPatch[];
}

export interface PatchView {
  readonly patch_id: string;
  readonly scenario: string;
  readonly parent_schema_id: string;
  /** `global` or the client id. */
  readonly scope: string;
  readonly status: PatchRecord['status'];
  readonly pinned: boolean;
  readonly timestamp: number;
  readonly expires_at: number;
  readonly source_cluster_id: string | null;
  readonly new_keys: readonly { readonly key_name: string; readonly key_type: string; readonly enum?: readonly unknown[]; readonly state: string; readonly semantic_description: string }[];
  readonly modified_keys: readonly { readonly key_name: string; readonly semantic_description: string }[];
}

export interface TickResult {
  readonly at: number;
  /** Lifecycle transitions (keep decisions are left out), with their figures. */
  readonly decisions: readonly DecisionRecord[];
  /** Patches packaged from candidates the convergence guard had queued. */
  readonly admitted: readonly SchemaPatch[];
  readonly changes: readonly PatchChange[];
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
  approve(a: OperatorAction): PatchChange[];
  reject(a: OperatorAction): PatchChange[];
  pin(a: OperatorAction & { readonly pinned: boolean }): PatchChange[];
  /** An operator's correction of a patch key (the evolver's `edit`). */
  edit(a: EditAction): EditOutcome;
  /** Records the heat of every cluster at `now` above `min_heat` (default 0.5) in the history. */
  sampleHeat(now?: number, minHeat?: number): readonly HeatSample[];
  clusters(now?: number): ClusterView[];
  cluster(id: string, now?: number): ClusterView | null;
  patches(): PatchView[];
  rawPatches(): readonly SchemaPatch[];
  /** The evolver's patch records (status, pin, revision) as they stand. */
  patchRecords(): readonly PatchRecord[];
  /** Key lifecycle transitions (promote, deprecate, withdraw) with their figures. */
  decisions(): readonly DecisionRecord[];
  /** Every decision: publications, queueing, operator actions and transitions. */
  log(): readonly DecisionRecord[];
  triggers(): readonly TriggerReport[];
  heatHistory(clusterId?: string): readonly HeatSample[];
  queued(): readonly QueuedCandidate[];
}

const TRANSITIONS = new Set(['promote', 'deprecate', 'withdraw']);

export async function createEvolutionEngine(opts: CreateEngineOptions): Promise<EvolutionEngine> {
  const { clock } = opts;
  const { derive_executions, lifecycle, patch_ttl_ms, approval, concept_merge, frame_choices, ...poolOver } = opts.config ?? {};
  if (concept_merge !== undefined && typeof concept_merge !== 'boolean') throw poolError('config', 'concept_merge', `concept_merge must be a boolean, got ${typeof concept_merge}`);
  const bases = new Map<string, SchemaTemplate>();
  for (const t of opts.templates) bases.set(scenarioId(t.scenario), t);
  const pool = await createSemanticPool({ embedder: opts.embedder, index: opts.index, scenarios: [...bases.keys()], config: poolOver, ...(opts.lexicon && concept_merge === true ? { lexicon: opts.lexicon } : {}) });
  const evolver = createEvolver({
    templates: opts.templates,
    config: { ...(lifecycle ? { lifecycle } : {}), ...(patch_ttl_ms !== undefined ? { patch_ttl_ms } : {}), ...(approval ? { approval } : {}), ...(frame_choices !== undefined ? { frame_choices } : {}) },
    ...(opts.induce ? { induce: opts.induce } : {}),
    ...(opts.lexicon ? { lexicon: opts.lexicon } : {}),
  });

  /** Tells the pool what became of a cluster once the evolver decided. */
  const syncOutcomes = (): void => {
    for (const t of evolver.triggers()) pool.markOutcome(t.cluster_id, { outcome: t.outcome, patch_id: t.patch_id, key_name: t.key_name });
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
  const deriveExecution = (input: { at: number; scenario: string; client_id: string; text: string }, joinedIds: ReadonlySet<string>): void => {
    const base = bases.get(input.scenario) as SchemaTemplate;
    const active = evolver.activePatches();
    const visible = new Set(effectiveTemplate(base, active, input.client_id, input.at).template.keys.map((x) => x.key_name));
    const used: { patch: SchemaPatch; key: string }[] = [];
    for (const p of active) {
      if (p.scenario !== input.scenario || p.source_cluster_id === null || !joinedIds.has(p.source_cluster_id)) continue;
      for (const pk of p.new_keys) if (visible.has(pk.definition.key_name)) used.push({ patch: p, key: pk.definition.key_name });
    }
    const keys = used.length > 0 ? used.map((u) => u.key) : ['other'];
    evolver.recordExecution({ at: input.at, scenario: input.scenario, client_id: input.client_id, keys_present: keys });
    const words = new Set(contentWords(input.text).words.map(singular));
    for (const u of used) {
      const aligned = u.key.split('_').some((w) => words.has(singular(w)));
      evolver.recordAudit({ at: input.at, patch_id: u.patch.patch_id, key_name: u.key, aligned });
    }
  };

  const engine: EvolutionEngine = {
    embedder_id: opts.embedder.id,
    config: pool.config,
    lifecycle: evolver.lifecycle,

    async ingest(f) {
      const at = f.ts ?? clock.now();
      if (typeof at !== 'number' || !Number.isFinite(at)) throw poolError('time', 'ts', `ts must be a finite epoch-ms number, got ${String(at)}`);
      const r = await pool.ingest({ ts: at, scenario: f.scenario, client_id: f.client_id, text: f.text });
      const fired: TriggerReport[] = [];
      const created: SchemaPatch[] = [];
      for (const m of r.matured) {
        const { report, changes } = evolver.applyMatured(m, await evolver.induce(m));
        fired.push(report);
        for (const c of changes) if (c.kind === 'published') created.push(c.record.patch);
      }
      for (const m of r.grown) {
        const { changes } = evolver.applyGrown(m, await evolver.induce(m));
        for (const c of changes) if (c.kind === 'published') created.push(c.record.patch);
      }
      if (r.matured.length > 0 || r.grown.length > 0) syncOutcomes();
      if (derive_executions && r.sanitized !== null) {
        const joined = new Set([r.global_cluster_id, r.client_cluster_id].filter((x): x is string => x !== null));
        // A need group's patch names its leader: a fragment joining any member is a use of the group's key.
        const leader = r.global_cluster_id === null ? undefined : pool.cluster(r.global_cluster_id, at)?.group_leader;
        if (leader !== undefined) joined.add(leader);
        deriveExecution({ at, scenario: r.scenario, client_id: f.client_id, text: r.sanitized }, joined);
      }
      return {
        at,
        scenario: r.scenario,
        sanitized: r.sanitized,
        sanitize_flags: r.sanitize_flags,
        global_cluster_id: r.global_cluster_id,
        client_cluster_id: r.client_cluster_id,
        created: r.created,
        triggers: fired,
        patches: created,
      };
    },

    recordExecution(e) {
      evolver.recordExecution(e);
    },

    recordAudit(a) {
      evolver.recordAudit(a);
    },

    tick(nowArg) {
      const now = nowArg ?? clock.now();
      const t = evolver.tick(now);
      syncOutcomes();
      pool.sampleHeat(now);
      return { at: now, decisions: t.decisions, admitted: t.changes.filter((c) => c.kind === 'published').map((c) => c.record.patch), changes: t.changes };
    },

    approve: (a) => evolver.approve(a),
    reject: (a) => evolver.reject(a),
    pin: (a) => evolver.pin(a),
    edit(a) {
      const out = evolver.edit(a);
      syncOutcomes();
      return out;
    },
    sampleHeat: (now, minHeat) => pool.sampleHeat(now ?? clock.now(), minHeat),
    clusters: (now) => pool.clusters(now ?? clock.now()),
    cluster: (id, now) => pool.cluster(id, now ?? clock.now()),
    patches: () => evolver.patches().map(patchView),
    rawPatches: () => evolver.patches().map((r) => r.patch),
    patchRecords: () => evolver.patches(),
    decisions: () => evolver.decisions().filter((d) => TRANSITIONS.has(d.action)),
    log: () => evolver.decisions(),
    triggers: () => evolver.triggers(),
    heatHistory: (id) => pool.heatHistory(id),
    queued: () => evolver.queued(),
  };
  return engine;
}

export function patchView(r: PatchRecord): PatchView {
  const p = r.patch;
  return {
    patch_id: p.patch_id,
    scenario: p.scenario,
    parent_schema_id: p.parent_schema_id,
    scope: scopeLabel(p.scope),
    status: r.status,
    pinned: r.pinned,
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
