import type { PreparedFragment } from '@parley/pool';
import type { ProcessedMarks } from '@parley/events';
import type { Db, Queryable } from '@parley/storage';
import type { StoredRaw } from './raw';

// The semantic pool's tables (pool.inputs: the input log memory is a fold of; pool.outcomes; pool.heat_samples):
// every statement the service runs, apart from the raw-fragment sweeps (raw.ts).

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

/** One fragment appended to the input log. */
export interface NewInput {
  event_id: string;
  fragment_index: number;
  scenario_id: string;
  client_id: string;
  at_ms: number;
  raw_text: string | null;
  prepared: PreparedFragment;
  global_cluster_id: string | null;
  client_cluster_id: string | null;
}

export interface ClusterOutcomeRow {
  scenario_id: string;
  cluster_id: string;
  outcome: 'patched' | 'merged';
  patch_id: string | null;
  key_name: string | null;
}

/** Rows per INSERT statement (11 parameters each, well under PostgreSQL's 65,535). */
const INSERT_ROWS = 1000;

/** The scenarios the log holds, of those in `mine` (null: all). */
export async function loggedScenarios(db: Db, mine: readonly string[] | null): Promise<string[]> {
  const r = await db.query<{ scenario_id: string }>('SELECT DISTINCT scenario_id FROM pool.inputs');
  return r.rows.map((row) => row.scenario_id).filter((sc) => !mine || mine.includes(sc));
}

/** Hands every logged fragment of `mine` (null: all) to `fold` in seq order; returns how many. */
export async function foldInputLog(db: Db, mine: readonly string[] | null, fold: (p: PreparedFragment) => Promise<unknown>): Promise<number> {
  let n = 0;
  // Batches by seq keep memory flat however long the log is.
  for (let after = 0; ; ) {
    const { rows } = await db.query<InputRow & { seq: string }>(
      `SELECT seq, event_id, fragment_index, scenario_id, client_id, at_ms, sanitized, flags, vector FROM pool.inputs
       WHERE seq > $1 AND ($2::text[] IS NULL OR scenario_id = ANY($2::text[])) ORDER BY seq LIMIT 2000`,
      [after, mine],
    );
    if (rows.length === 0) return n;
    for (const r of rows) {
      await fold(toPrepared(r));
      n++;
    }
    after = Number(rows[rows.length - 1]?.seq);
  }
}

/**
 * A vector as the text of a `real[]` parameter, `{0.28049033880233765,…}`: each element is the same
 * decimal node-postgres would send (String of the number), written at once instead of through the
 * driver's per-element quoting and escaping (a 2048-dimension vector per fragment made that 14% of the
 * pool's CPU). Numbers need no quoting in an array literal; NaN and ±Infinity are spelled as PostgreSQL reads them.
 */
export function realArray(vector: readonly number[] | null): string | null {
  return vector ? `{${vector.join(',')}}` : null;
}

/** Appends fragments to the log in their order (seq follows it): one statement per INSERT_ROWS. */
export async function insertInputs(tx: Queryable, inputs: readonly NewInput[]): Promise<void> {
  for (let from = 0; from < inputs.length; from += INSERT_ROWS) {
    const chunk = inputs.slice(from, from + INSERT_ROWS);
    const params: unknown[] = [];
    const rows = chunk.map((i) => {
      const p = i.prepared;
      const at = params.length;
      params.push(i.event_id, i.fragment_index, i.scenario_id, i.client_id, i.at_ms, i.raw_text, p.sanitized, [...p.sanitize_flags], realArray(p.vector), i.global_cluster_id, i.client_cluster_id);
      return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, true, $${at + 7}, $${at + 8}, $${at + 9}, $${at + 10}, $${at + 11})`;
    });
    await tx.query(
      `INSERT INTO pool.inputs (event_id, fragment_index, scenario_id, client_id, at_ms, raw_text, raw_sealed, sanitized, flags, vector, global_cluster_id, client_cluster_id)
       VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

/**
 * Marks `ids` processed and appends the input rows of those it marked, in seq
 * order, one statement per group of events of at most INSERT_ROWS rows (a
 * data-modifying CTE after `marks.cte`; run them in one transaction). Returns
 * the ids marked: an id missing was applied before, and its rows were not
 * written.
 */
export async function insertInputsMarked(tx: Queryable, marks: ProcessedMarks, ids: readonly string[], inputs: readonly NewInput[]): Promise<Set<string>> {
  const rowsOf = new Map<string, NewInput[]>();
  for (const i of inputs) {
    const key = i.event_id.toLowerCase();
    const list = rowsOf.get(key);
    if (list) list.push(i);
    else rowsOf.set(key, [i]);
  }
  const fresh = new Set<string>();
  let group: { ids: string[]; rows: NewInput[] } = { ids: [], rows: [] };
  const flush = async (): Promise<void> => {
    if (group.ids.length === 0) return;
    for (const id of await insertGroupMarked(tx, marks, group.ids, group.rows)) fresh.add(id);
    group = { ids: [], rows: [] };
  };
  for (const id of ids) {
    const rows = rowsOf.get(id.toLowerCase()) ?? [];
    if (group.rows.length + rows.length > INSERT_ROWS) await flush();
    group.ids.push(id);
    group.rows.push(...rows);
  }
  await flush();
  return fresh;
}

async function insertGroupMarked(tx: Queryable, marks: ProcessedMarks, ids: readonly string[], inputs: readonly NewInput[]): Promise<string[]> {
  const params: unknown[] = [...marks.params(ids)];
  const rows = inputs.map((i, n) => {
    const p = i.prepared;
    const at = params.length;
    params.push(i.event_id, i.fragment_index, i.scenario_id, i.client_id, i.at_ms, i.raw_text, p.sanitized, [...p.sanitize_flags], realArray(p.vector), i.global_cluster_id, i.client_cluster_id);
    const c = (k: number, type: string) => `$${at + k}::${type}`;
    return `(${c(1, 'uuid')}, ${c(2, 'int')}, ${c(3, 'text')}, ${c(4, 'text')}, ${c(5, 'bigint')}, ${c(6, 'text')}, ${c(7, 'text')}, ${c(8, 'text[]')}, ${c(9, 'real[]')}, ${c(10, 'text')}, ${c(11, 'text')}, ${n})`;
  });
  // Rows in the order memory folded them (ORDER BY ord): the log is replayed in seq order.
  const write =
    rows.length === 0
      ? ''
      : `, r (event_id, fragment_index, scenario_id, client_id, at_ms, raw_text, sanitized, flags, vector, global_cluster_id, client_cluster_id, ord) AS (VALUES ${rows.join(', ')}),
         w AS (INSERT INTO pool.inputs (event_id, fragment_index, scenario_id, client_id, at_ms, raw_text, raw_sealed, sanitized, flags, vector, global_cluster_id, client_cluster_id)
               SELECT r.event_id, r.fragment_index, r.scenario_id, r.client_id, r.at_ms, r.raw_text, true, r.sanitized, r.flags, r.vector, r.global_cluster_id, r.client_cluster_id
                 FROM r WHERE r.event_id IN (SELECT event_id FROM fresh) ORDER BY r.ord)`;
  const r = await tx.query<{ event_id: string }>(`WITH ${marks.cte}${write} SELECT event_id FROM fresh`, params);
  return r.rows.map((row) => String(row.event_id).toLowerCase());
}

export async function readOutcomes(db: Db): Promise<ClusterOutcomeRow[]> {
  return (await db.query<ClusterOutcomeRow>('SELECT scenario_id, cluster_id, outcome, patch_id, key_name FROM pool.outcomes')).rows;
}

export async function upsertOutcome(tx: Queryable, o: ClusterOutcomeRow): Promise<void> {
  await tx.query(
    `INSERT INTO pool.outcomes (scenario_id, cluster_id, outcome, patch_id, key_name) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (scenario_id, cluster_id) DO UPDATE SET outcome = EXCLUDED.outcome, patch_id = EXCLUDED.patch_id, key_name = EXCLUDED.key_name`,
    [o.scenario_id, o.cluster_id, o.outcome, o.patch_id, o.key_name],
  );
}

export async function insertHeatSample(db: Db, s: { scenario_id: string; cluster_id: string; at_ms: number; heat: number }): Promise<void> {
  await db.query('INSERT INTO pool.heat_samples (scenario_id, cluster_id, at_ms, heat) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [s.scenario_id, s.cluster_id, s.at_ms, s.heat]);
}

/** Each cluster's heat samples, oldest first. */
export async function heatHistory(db: Db, scenario: string, ids: readonly string[]): Promise<Map<string, { at: string; heat: number }[]>> {
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

/** A cluster's first 500 logged fragments with their raw text as stored. */
export async function clusterInputs(db: Db, scenario: string, clusterId: string): Promise<(StoredRaw & { client_id: string; sanitized: string | null; flags: string[] })[]> {
  const r = await db.query<StoredRaw & { client_id: string; sanitized: string | null; flags: string[] }>(
    `SELECT event_id, fragment_index, client_id, at_ms, raw_text, raw_sealed, sanitized, flags FROM pool.inputs
     WHERE scenario_id = $1 AND (global_cluster_id = $2 OR client_cluster_id = $2) ORDER BY seq LIMIT 500`,
    [scenario, clusterId],
  );
  return r.rows;
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
