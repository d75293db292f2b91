import { randomUUID } from 'node:crypto';
import type { GetClusterResponse, ListClustersResponse, PoolCluster, SemanticPoolApi } from '@parley/contracts';
import type { Embedder } from '@parley/embeddings';
import { EventType, appendToOutbox, type EventEnvelope, type OtherCapturedData, type PatchEventData, type Subjects } from '@parley/events';
import { MAX_FRAGMENTS_PER_EVENT, MAX_RAW_FRAGMENT_CHARS } from '@parley/evolution';
import { collectionOf, createSemanticPool, type ClusterView, type MaturedCluster, type PreparedFragment, type SemanticPool, type SemanticPoolConfig } from '@parley/pool';
import { ParleyError, scenarioId } from '@parley/protocol';
import { SealError, createMutex, type Clock, type Logger, type Sealer } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';
import type { VectorIndex } from '@parley/vectors';

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

/** Raw `other` fragments at rest. */
export interface RawFragmentsPolicy {
  /** Seals raw_text before it is written; null: raw fragments are not stored at all. */
  readonly sealer: Sealer | null;
  /** Raw text captured longer ago than this is deleted (the sanitised text and vector stay). */
  readonly retentionMs: number;
}

/** Raw text is kept 30 days by default (PARLEY_RAW_RETENTION_DAYS). */
export const DEFAULT_RAW_RETENTION_MS = 30 * 86_400_000;

interface InputRow {
  event_id: string;
  fragment_index: number;
  scenario_id: string;
  client_id: string;
  at_ms: string | number;
  sanitized: string | null;
  flags: string[];
  vector: number[] | null;
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
  onOtherCaptured(event: EventEnvelope & { type: 'other.captured' }, tx: Queryable): Promise<void>;
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

const LEGACY_BATCH = 500;

/** What a sealed raw_text is bound to: its row. Moved to another row, it does not open. */
function rawContext(eventId: string, fragmentIndex: number): string {
  // PostgreSQL gives uuids back in lower case.
  return `pool.inputs:${eventId.toLowerCase()}:${fragmentIndex}`;
}

export async function createPoolService(deps: PoolServiceDeps): Promise<PoolService> {
  const { db, log } = deps;
  const { sealer, retentionMs } = deps.raw;
  if (!Number.isFinite(retentionMs) || retentionMs <= 0) throw new RangeError(`raw retention must be a positive number of ms, got ${retentionMs}`);
  const mutex = createMutex();
  const owned = deps.scenarios ? new Set(deps.scenarios.map((s) => scenarioId(s))) : null;
  let pool: SemanticPool = await fresh([]);

  async function fresh(scenarios: readonly string[]): Promise<SemanticPool> {
    // A rebuild must start from an empty index: drop what an earlier life left.
    for (const sc of scenarios) await deps.index.dropCollection(collectionOf(sc));
    return createSemanticPool({ embedder: deps.embedder, index: deps.index, ...(deps.config ? { config: deps.config } : {}) });
  }

  async function rebuild(): Promise<void> {
    const started = performance.now();
    // Only the scenarios this replica owns: another replica's collections are not ours to drop.
    const mine = owned ? [...owned] : null;
    const scenarios = (await db.query<{ scenario_id: string }>('SELECT DISTINCT scenario_id FROM pool.inputs')).rows.map((r) => r.scenario_id).filter((sc) => !mine || mine.includes(sc));
    const next = await fresh(scenarios);
    let n = 0;
    let reembedded = 0;
    // Batches by seq keep memory flat however long the log is.
    for (let after = 0; ; ) {
      const { rows } = await db.query<InputRow & { seq: string }>(
        `SELECT seq, event_id, fragment_index, scenario_id, client_id, at_ms, sanitized, flags, vector FROM pool.inputs
         WHERE seq > $1 AND ($2::text[] IS NULL OR scenario_id = ANY($2::text[])) ORDER BY seq LIMIT 2000`,
        [after, mine],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        const stored = toPrepared(r);
        const again = await replayable(next, deps.embedder, stored);
        if (again !== null) reembedded++;
        await next.ingestPrepared(again ?? stored);
        n++;
      }
      after = Number(rows[rows.length - 1]?.seq);
    }
    const outcomes = await db.query<{ scenario_id: string; cluster_id: string; outcome: 'patched' | 'merged'; patch_id: string | null; key_name: string | null }>(
      'SELECT scenario_id, cluster_id, outcome, patch_id, key_name FROM pool.outcomes',
    );
    for (const o of outcomes.rows) if (!mine || mine.includes(o.scenario_id)) next.markOutcome(o.cluster_id, { outcome: o.outcome, patch_id: o.patch_id, key_name: o.key_name });
    pool = next;
    if (reembedded > 0) log.warn('stored vectors of another embedder were re-embedded from their sanitised text', { fragments: reembedded, embedder: deps.embedder.id });
    log.info('semantic pool rebuilt from its input log', { fragments: n, clusters: pool.clusters(deps.clock.now().getTime()).length, ms: Math.round(performance.now() - started) });
  }

  async function onOtherCaptured(event: EventEnvelope & { type: 'other.captured' }, tx: Queryable): Promise<void> {
    const data: OtherCapturedData = event.data;
    const sc = scenarioId(event.scenario_id);
    if (owned && !owned.has(sc)) return;
    const at = Date.parse(event.occurred_at);
    const fragments = data.fragments.slice(0, MAX_FRAGMENTS_PER_EVENT);
    const matured: MaturedCluster[] = [];
    // Raw text already past its retention (a late event) is not stored at all.
    const keepRaw = sealer !== null && at >= rawCutoff();
    // zhou §7: only the sanitised text (personal data replaced) is embedded and kept in clear. Every fragment is
    // embedded before any is folded in: an embedder that throws on one text leaves memory as it was, and the
    // event, redelivered and finally set aside (dead letters), never enters the log.
    const prepared = [];
    for (const text of fragments) prepared.push(await pool.prepare({ ts: at, scenario: sc, client_id: data.client_id, text }));
    for (const [i, text] of fragments.entries()) {
      const p = prepared[i]!;
      const r = await pool.ingestPrepared(p);
      matured.push(...r.matured, ...r.grown);
      const raw = keepRaw ? sealer.seal(String(text).slice(0, MAX_RAW_FRAGMENT_CHARS), rawContext(event.id, i)) : null;
      await tx.query(
        `INSERT INTO pool.inputs (event_id, fragment_index, scenario_id, client_id, at_ms, raw_text, raw_sealed, sanitized, flags, vector, global_cluster_id, client_cluster_id)
         VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $10, $11)`,
        [event.id, i, sc, data.client_id, at, raw, p.sanitized, [...p.sanitize_flags], p.vector ? [...p.vector] : null, r.global_cluster_id, r.client_cluster_id],
      );
    }
    await appendToOutbox(tx, 'pool', deps.subjects, matured.map((m) => maturedEvent(m, deps.clock)));
    if (matured.length > 0) {
      log.info('clusters matured (zhou §6.2.1 dual gate)', { clusters: matured.map((m) => `${m.scenario_id}/${m.scope}/${m.cluster_id}`) });
    }
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
    await tx.query(
      `INSERT INTO pool.outcomes (scenario_id, cluster_id, outcome, patch_id, key_name) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (scenario_id, cluster_id) DO UPDATE SET outcome = EXCLUDED.outcome, patch_id = EXCLUDED.patch_id, key_name = EXCLUDED.key_name`,
      [d.patch.scenario, clusterId, outcome, d.patch.patch_id, keyName],
    );
    pool.markOutcome(clusterId, { outcome, patch_id: d.patch.patch_id, key_name: keyName });
  }

  async function sampleHeat(): Promise<number> {
    const now = deps.clock.now().getTime();
    const views = new Map(pool.clusters(now).map((c) => [c.id, c]));
    const samples = pool.sampleHeat(now);
    for (const s of samples) {
      const c = views.get(s.cluster_id);
      if (!c) continue;
      await db.query('INSERT INTO pool.heat_samples (scenario_id, cluster_id, at_ms, heat) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [c.scenario, c.id, now, s.heat]);
    }
    return samples.length;
  }

  function rawCutoff(): number {
    return deps.clock.now().getTime() - retentionMs;
  }

  async function purgeRawText(): Promise<number> {
    const mine = owned ? [...owned] : null;
    const r = await db.query(`UPDATE pool.inputs SET raw_text = NULL WHERE raw_text IS NOT NULL AND at_ms < $1 AND ($2::text[] IS NULL OR scenario_id = ANY($2::text[]))`, [rawCutoff(), mine]);
    if (r.rowCount > 0) log.info('raw fragments past their retention deleted (zhou §7)', { rows: r.rowCount, retention_days: retentionMs / 86_400_000 });
    return r.rowCount;
  }

  async function secureStoredRawText(): Promise<number> {
    const mine = owned ? [...owned] : null;
    if (sealer === null) {
      const r = await db.query('UPDATE pool.inputs SET raw_text = NULL, raw_sealed = true WHERE (raw_text IS NOT NULL OR NOT raw_sealed) AND ($1::text[] IS NULL OR scenario_id = ANY($1::text[]))', [mine]);
      if (r.rowCount > 0) log.info('raw fragments stored before are deleted (PARLEY_STORE_RAW_FRAGMENTS=false)', { rows: r.rowCount });
      return r.rowCount;
    }
    let n = 0;
    for (;;) {
      const { rows } = await db.query<{ seq: string; event_id: string; fragment_index: number; at_ms: string; raw_text: string | null }>(
        `SELECT seq, event_id, fragment_index, at_ms, raw_text FROM pool.inputs
         WHERE NOT raw_sealed AND ($1::text[] IS NULL OR scenario_id = ANY($1::text[])) ORDER BY seq LIMIT ${LEGACY_BATCH}`,
        [mine],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        const raw = r.raw_text !== null && Number(r.at_ms) >= rawCutoff() ? sealer.seal(r.raw_text, rawContext(r.event_id, r.fragment_index)) : null;
        n += (await db.query('UPDATE pool.inputs SET raw_text = $2, raw_sealed = true WHERE seq = $1 AND NOT raw_sealed', [r.seq, raw])).rowCount;
      }
    }
    if (n > 0) log.info('raw fragments stored in clear before sealing existed are now sealed (zhou §7)', { rows: n });
    return n;
  }

  /** The raw text for an operator, or why there is none (a marker in flags). */
  function openRaw(
    r: { event_id: string; fragment_index: number; at_ms: string; raw_text: string | null; raw_sealed: boolean },
    failures: Map<string, number>,
  ): { text: string; marker: string | null } {
    // Past its retention it is gone, whether or not the sweep has run yet.
    if (Number(r.at_ms) < rawCutoff()) return { text: '', marker: 'raw_expired' };
    if (r.raw_text === null) return { text: '', marker: 'raw_not_stored' };
    if (!r.raw_sealed) return { text: r.raw_text, marker: null };
    if (sealer === null) return { text: '', marker: 'raw_unreadable' };
    try {
      return { text: sealer.open(r.raw_text, rawContext(r.event_id, r.fragment_index)), marker: null };
    } catch (e) {
      if (!(e instanceof SealError)) throw e;
      const why = `${e.reason}${e.kid ? ` (key ${e.kid})` : ''}`;
      failures.set(why, (failures.get(why) ?? 0) + 1);
      return { text: '', marker: 'raw_unreadable' };
    }
  }

  async function history(scenario: string, ids: readonly string[]): Promise<Map<string, { at: string; heat: number }[]>> {
    const out = new Map<string, { at: string; heat: number }[]>();
    if (ids.length === 0) return out;
    const r = await db.query<{ cluster_id: string; at_ms: string; heat: number }>(
      'SELECT cluster_id, at_ms, heat FROM pool.heat_samples WHERE scenario_id = $1 AND cluster_id = ANY($2::text[]) ORDER BY at_ms',
      [scenario, [...ids]],
    );
    for (const row of r.rows) {
      let list = out.get(row.cluster_id);
      if (!list) out.set(row.cluster_id, (list = []));
      list.push({ at: new Date(Number(row.at_ms)).toISOString(), heat: Number(row.heat) });
    }
    return out;
  }

  const api: SemanticPoolApi = {
    async listClusters(req): Promise<ListClustersResponse> {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const limit = req.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ParleyError('invalid_params', 'limit must be an integer in 1..1000', { path: 'params.limit', rule: 'range' });
      const minHeat = req.min_heat ?? 0;
      if (!Number.isFinite(minHeat) || minHeat < 0) throw new ParleyError('invalid_params', 'min_heat must be a number >= 0', { path: 'params.min_heat', rule: 'minimum' });
      const now = deps.clock.now().getTime();
      const views = pool
        .clusters(now)
        .filter((c) => c.scenario === sc && (req.scope === undefined || c.scope === req.scope) && c.heat >= minHeat)
        .sort((a, b) => b.heat - a.heat || b.size - a.size || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
      const hist = await history(sc, views.map((v) => v.id));
      return {
        clusters: views.map((v) => toCluster(v, hist.get(v.id) ?? [])),
        embedder: pool.embedder_id,
        similarity_threshold: pool.config.similarity_threshold,
        heat_threshold: pool.config.heat_threshold,
      };
    },

    async getCluster(req): Promise<GetClusterResponse> {
      const sc = scenarioId(req.scenario, { path: 'params.scenario' });
      const v = pool.cluster(req.id, deps.clock.now().getTime());
      if (!v || v.scenario !== sc) throw new ParleyError('cluster_not_found', `No cluster "${req.id}" in scenario "${sc}"`, { path: 'params.id', rule: 'exists' });
      const hist = await history(sc, [v.id]);
      // Raw text is opened here only, for operators (the gateway checks the bearer token).
      const failures = new Map<string, number>();
      const raw = req.include_raw
        ? (
            await db.query<{ event_id: string; fragment_index: number; client_id: string; at_ms: string; raw_text: string | null; raw_sealed: boolean; sanitized: string | null; flags: string[] }>(
              `SELECT event_id, fragment_index, client_id, at_ms, raw_text, raw_sealed, sanitized, flags FROM pool.inputs
               WHERE scenario_id = $1 AND (global_cluster_id = $2 OR client_cluster_id = $2) ORDER BY seq LIMIT 500`,
              [sc, v.id],
            )
          ).rows.map((r) => {
            const o = openRaw(r, failures);
            return { event_id: r.event_id, client_id: r.client_id, at: new Date(Number(r.at_ms)).toISOString(), raw_text: o.text, sanitized: r.sanitized ?? '', flags: o.marker ? [...r.flags, o.marker] : r.flags };
          })
        : [];
      if (failures.size > 0) log.warn('raw fragments cannot be opened', { cluster_id: v.id, failures: Object.fromEntries(failures) });
      return { cluster: toCluster(v, hist.get(v.id) ?? []), raw };
    },
  };

  return { api, rebuild, onOtherCaptured, onPatchEvent, sampleHeat, purgeRawText, secureStoredRawText, pool: () => pool, serialize: (w) => mutex.run(w) };
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

function toPrepared(r: InputRow): PreparedFragment {
  return {
    at: Number(r.at_ms),
    scenario: r.scenario_id,
    client_id: r.client_id,
    sanitized: r.sanitized,
    sanitize_flags: r.flags as PreparedFragment['sanitize_flags'],
    // `vector` is real[] (float4): PostgreSQL prints each as its shortest float4 decimal, which read as a
    // double is not the float32 the embedder returned and the live pool used. Math.fround gives that value
    // back exactly, so a rebuild folds the very vectors the live pool did (centroids bit for bit).
    vector: r.vector ? r.vector.map((x) => Math.fround(Number(x))) : null,
  };
}

function maturedEvent(m: MaturedCluster, clock: Clock): EventEnvelope {
  return {
    id: randomUUID(),
    type: m.kind === 'grown' ? EventType.PoolGrown : EventType.PoolMatured,
    scenario_id: m.scenario_id,
    occurred_at: clock.now().toISOString(),
    source: 'semantic-pool',
    // A global cluster's samples carry `clients` (per-cluster pseudonyms) so induction counts clients (draft-zhou §7).
    data: { ...m, reasons: [...m.reasons], samples: m.samples.map((s) => ({ text: s.text, count: s.count, ...(s.clients ? { clients: [...s.clients] } : {}) })) },
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
