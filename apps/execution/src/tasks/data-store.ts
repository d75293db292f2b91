import type { DataParam } from '@parley/an';
import type { Queryable } from '@parley/storage';

// The SQL of data params (data-params.ts): `execution.data_params` (one row per param,
// its data once complete) and `execution.data_chunks` (the chunks of an upload in progress).

export interface StoredParam {
  owner: string;
  chunked: boolean;
  finished: boolean;
  task_id: string | null;
  data_size: string | number | null;
}

export interface TaskParamRow {
  id: string;
  data_type: DataParam['data_type'];
  description: string | null;
  data_size: string | number | null;
  format: string | null;
  url: string | null;
  data: string | null;
  chunked: boolean;
}

export async function findParam(q: Queryable, id: string): Promise<StoredParam | undefined> {
  const r = await q.query<StoredParam>('SELECT owner, chunked, finished, task_id, data_size FROM execution.data_params WHERE id = $1', [id]);
  return r.rows[0];
}

/** A param uploaded before becomes the task's. */
export async function linkParam(q: Queryable, id: string, taskId: string): Promise<void> {
  await q.query('UPDATE execution.data_params SET task_id = $2 WHERE id = $1', [id, taskId]);
}

/** A new param: inline (`data`, finished) or the first chunk of an upload (no data yet, not finished). */
export async function insertParam(q: Queryable, d: DataParam, owner: string, taskId: string | null, state: { data: string | null; chunked: boolean; finished: boolean }, at: string): Promise<void> {
  await q.query(
    `INSERT INTO execution.data_params (id, owner, task_id, data_type, description, data_size, format, url, data, chunked, finished, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [d.id, owner, taskId, d.data_type, d.description ?? null, d.data_size ?? null, d.format ?? null, d.url ?? null, state.data, state.chunked, state.finished, at],
  );
}

/** A task's params, those named in `msgData` first in that order. */
export async function listTaskParams(q: Queryable, taskId: string, msgData: readonly string[]): Promise<TaskParamRow[]> {
  const r = await q.query<TaskParamRow>(
    'SELECT id, data_type, description, data_size, format, url, data, chunked FROM execution.data_params WHERE task_id = $1 ORDER BY array_position($2::text[], id), id',
    [taskId, [...msgData]],
  );
  return r.rows;
}

export async function storedChunks(q: Queryable, paramId: string): Promise<{ seq: number; data: string }[]> {
  const r = await q.query<{ seq: number; data: string }>('SELECT seq, data FROM execution.data_chunks WHERE param_id = $1 ORDER BY seq', [paramId]);
  return r.rows.map((x) => ({ seq: Number(x.seq), data: x.data }));
}

export async function countChunks(q: Queryable, paramId: string): Promise<number> {
  return Number((await q.query<{ n: number }>('SELECT count(*)::int AS n FROM execution.data_chunks WHERE param_id = $1', [paramId])).rows[0]?.n ?? 0);
}

export async function insertChunk(q: Queryable, paramId: string, seq: number, data: string): Promise<void> {
  await q.query('INSERT INTO execution.data_chunks (param_id, seq, data) VALUES ($1, $2, $3)', [paramId, seq, data]);
}

/** The last chunk arrived: the assembled data is stored and the chunks dropped. */
export async function finishParam(q: Queryable, paramId: string, data: string, bytes: number): Promise<void> {
  await q.query('UPDATE execution.data_params SET data = $2, data_size = $3, finished = true WHERE id = $1', [paramId, data, bytes]);
  await q.query('DELETE FROM execution.data_chunks WHERE param_id = $1', [paramId]);
}

/** `length` characters of a task's param from `offset` (0-based), and its whole length. */
export async function readSlice(q: Queryable, paramId: string, taskId: string, offset: number, length: number): Promise<{ data: string; total: number } | undefined> {
  const r = await q.query<{ data: string | null; total: number }>(
    'SELECT substr(data, $3, $4) AS data, coalesce(length(data), 0)::int AS total FROM execution.data_params WHERE id = $1 AND task_id = $2',
    [paramId, taskId, offset + 1, length],
  );
  const row = r.rows[0];
  return row ? { data: row.data ?? '', total: Number(row.total) } : undefined;
}
