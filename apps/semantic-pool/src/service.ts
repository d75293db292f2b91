import type { SemanticPoolApi } from '@parley/contracts';
import type { Embedder } from '@parley/embeddings';
import { EventType, type EventEnvelope, type PatchEventData, type ProcessedMarks, type Subjects } from '@parley/events';
import { collectionOf, createSemanticPool, type PreparedFragment, type SemanticPool, type SemanticPoolConfig } from '@parley/pool';
import { scenarioId } from '@parley/protocol';
import { createMutex, type Clock, type Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { VectorIndex } from '@parley/vectors';
import { createPoolApi } from './api';
import { captureOthers, captureOthersMarked, type OtherCapturedEvent } from './capture';
import { createRawFragments, type RawFragmentsPolicy } from './raw';
import { foldInputLog, insertHeatSample, loggedScenarios, readOutcomes, upsertOutcome } from './store';

export { DEFAULT_RAW_RETENTION_MS, type RawFragmentsPolicy } from './raw';

/**
 * The Differential Semantic Pool as a service (draft-zhou §6.2.1).
 *
 * State: the pool (clusters, centroids in the vector index, heat, the gate's
 * windows) lives in memory and is a deterministic fold of `pool.inputs` in
 * seq order. Each `other.captured` event is applied under a mutex and its
 * fragments appended to the log, with the `pool.matured` events it caused in
 * the outbox, in the transaction that also records the event id as processed.
 * A redelivered event changes nothing; a crash before the commit loses only
 * memory, which the next start rebuilds from the log (the event comes again);
 * a failed commit rebuilds memory at once. Hence "nothing lost, nothing
 * counted twice" across a kill and restart.
 *
 * One writer per scenario: replicas split scenarios between them
 * (PARLEY_POOL_SCENARIOS), never share one.
 *
 * Raw fragments (zhou §7, personal data at rest): only the sanitised text
 * (personal data already replaced by placeholders, libs/evolution pii.ts) is
 * embedded, clustered, published and kept in clear. The raw text, which only
 * operators see (GetCluster include_raw), is sealed (AES-256-GCM, libs/runtime
 * seal.ts, bound to its row) before it is written, or not stored at all, and
 * deleted once older than the retention period (`purgeRawText`, on a timer).
 *
 * The units: raw.ts (raw fragments at rest), store.ts (the tables), capture.ts
 * (other.captured into memory, the log and the outbox), api.ts (the gRPC API);
 * this file wires them with the rebuild, outcomes and heat sampling.
 */
export interface PoolServiceDeps {
  db: Db;
  subjects: Subjects;
  embedder: Embedder;
  /** Makes a fresh vector index (a rebuild starts from an empty one). */
  index: VectorIndex;
  clock: Clock;
  log: Logger;
  config?: SemanticPoolConfig;
  /** Scenario ids this replica owns; default all. */
  scenarios?: readonly string[];
  /** How raw fragments are kept (zhou §7). */
  raw: RawFragmentsPolicy;
}

export interface PoolService {
  api: SemanticPoolApi;
  /** Rebuilds memory from the input log (start, and after a failed commit). */
  rebuild(): Promise<void>;
  /**
   * Applies one other.captured event inside the consumer's transaction. Run it
   * through `serialize` and call `rebuild` when the transaction fails (commit
   * included): memory is then ahead of the log.
   */
  onOtherCaptured(event: OtherCapturedEvent, tx: Queryable): Promise<void>;
  /**
   * As onOtherCaptured for several events, in order, with the events' processed marks (all of `ids`) in the input rows' statement: the
   * consumer's applyMarked. Throws AppliedBefore when some had been applied before; returns whether it appended
   * to the outbox.
   */
  onOtherCapturedMarked(events: readonly OtherCapturedEvent[], ids: readonly string[], db: Db, marks: ProcessedMarks): Promise<boolean>;
  /** Records what the evolution service made of a cluster (patch events). */
  onPatchEvent(event: EventEnvelope, tx: Queryable): Promise<void>;
  /** Samples every cluster's heat now into pool.heat_samples. */
  sampleHeat(): Promise<number>;
  /** Deletes raw text captured before now (the clock) minus the retention period; returns the rows cleared. */
  purgeRawText(): Promise<number>;
  /**
   * At start, before serving: seals raw text written in clear before sealing
   * existed (pool migration 002), or, when raw fragments are not stored, deletes
   * every raw text. Returns the rows changed.
   */
  secureStoredRawText(): Promise<number>;
  pool(): SemanticPool;
  serialize<T>(work: () => Promise<T>): Promise<T>;
}

export async function createPoolService(deps: PoolServiceDeps): Promise<PoolService> {
  const { db, log } = deps;
  const owned = deps.scenarios ? new Set(deps.scenarios.map((s) => scenarioId(s))) : null;
  const raw = createRawFragments({ db, clock: deps.clock, log, policy: deps.raw, owned });
  const mutex = createMutex();
  let pool: SemanticPool = await fresh([]);
  const current = () => pool;
  const capture = { pool: current, owned, raw, subjects: deps.subjects, clock: deps.clock, log };

  async function fresh(scenarios: readonly string[]): Promise<SemanticPool> {
    // A rebuild must start from an empty index: drop what an earlier life left.
    for (const sc of scenarios) await deps.index.dropCollection(collectionOf(sc));
    return createSemanticPool({ embedder: deps.embedder, index: deps.index, ...(deps.config ? { config: deps.config } : {}) });
  }

  async function rebuild(): Promise<void> {
    const started = performance.now();
    // Only the scenarios this replica owns: another replica's collections are not ours to drop.
    const mine = owned ? [...owned] : null;
    const next = await fresh(await loggedScenarios(db, mine));
    let reembedded = 0;
    const n = await foldInputLog(db, mine, async (stored) => {
      const again = await replayable(next, deps.embedder, stored);
      if (again !== null) reembedded++;
      return next.ingestPrepared(again ?? stored);
    });
    if (reembedded > 0) log.warn('stored vectors of another embedder were re-embedded from their sanitised text', { fragments: reembedded, embedder: deps.embedder.id });
    for (const o of await readOutcomes(db)) if (!mine || mine.includes(o.scenario_id)) next.markOutcome(o.cluster_id, { outcome: o.outcome, patch_id: o.patch_id, key_name: o.key_name });
    pool = next;
    log.info('semantic pool rebuilt from its input log', { fragments: n, clusters: pool.clusters(deps.clock.now().getTime()).length, ms: Math.round(performance.now() - started) });
  }

  async function onPatchEvent(event: EventEnvelope, tx: Queryable): Promise<void> {
    if (event.type !== EventType.PatchPublished) return;
    const d: PatchEventData = event.data;
    const clusterId = d.patch.source_cluster_id;
    if (!clusterId || (owned && !owned.has(d.patch.scenario))) return;
    const first = d.patch.new_keys[0] as { definition?: { key_name?: string } } | undefined;
    const modified = d.patch.modified_keys[0];
    const outcome = first ? 'patched' : 'merged';
    const keyName = first?.definition?.key_name ?? modified?.key_name ?? null;
    await upsertOutcome(tx, { scenario_id: d.patch.scenario, cluster_id: clusterId, outcome, patch_id: d.patch.patch_id, key_name: keyName });
    pool.markOutcome(clusterId, { outcome, patch_id: d.patch.patch_id, key_name: keyName });
  }

  async function sampleHeat(): Promise<number> {
    const now = deps.clock.now().getTime();
    // Heat as committed (Mutex.read), written after the read.
    const { views, samples } = await mutex.read(() => ({ views: new Map(pool.clusters(now).map((c) => [c.id, c])), samples: pool.sampleHeat(now) }));
    for (const s of samples) {
      const c = views.get(s.cluster_id);
      if (c) await insertHeatSample(db, { scenario_id: c.scenario, cluster_id: c.id, at_ms: now, heat: s.heat });
    }
    return samples.length;
  }

  return {
    api: createPoolApi({ db, pool: current, read: (fn) => mutex.read(fn), raw, clock: deps.clock, log }),
    rebuild,
    onOtherCaptured: (event, tx) => captureOthers(capture, [event], tx),
    onOtherCapturedMarked: (events, ids, db, marks) => captureOthersMarked(capture, events, ids, db, marks),
    onPatchEvent,
    sampleHeat,
    purgeRawText: () => raw.purge(),
    secureStoredRawText: () => raw.secureStored(),
    pool: current,
    serialize: (w) => mutex.run(w),
  };
}

/**
 * A stored fragment whose vector another embedder made (another length: e.g. stored before the offline
 * embedder gained its word vectors) with its sanitised text embedded again, never mixed with this one's
 * vectors; null when the stored vector is this embedder's (or there is none).
 */
async function replayable(pool: SemanticPool, embedder: Embedder, p: PreparedFragment): Promise<PreparedFragment | null> {
  if (p.vector === null || p.sanitized === null || p.vector.length === embedder.dimensions) return null;
  const again = await pool.prepare({ ts: p.at, scenario: p.scenario, client_id: p.client_id, text: p.sanitized });
  return { ...p, vector: again.vector };
}
