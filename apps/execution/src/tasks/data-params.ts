import { createChunkAssembler, parseDataParam, type ChunkAssembler, type DataParam, type Task } from '@parley/an';
import { ParleyError } from '@parley/protocol';
import type { Queryable } from '@parley/storage';
import { MAX_DATA_SLICE, MAX_DISPATCH_PARAM_CHARS, MAX_DISPATCH_TOTAL_CHARS, agentName, forbidden, plain, taskIdOf, type TaskCtx } from './context';
import { countChunks, finishParam, findParam, insertChunk, insertParam, linkParam, listTaskParams, readSlice, storedChunks, type StoredParam } from './data-store';
import { lockTask, requireTask, type StoredTask } from './store';
import type { WireTask } from './wire';

// Data params (draft 004 §5.2): stored with a task, uploaded in chunks, read back by the task's parties.
// Their SQL is data-store.ts.

/** Stores the data params a task carries, or links those uploaded before in chunks (owner, finished, unlinked checked). */
export async function storeDataParams(tx: Queryable, params: readonly DataParam[], owner: string, taskId: string, at: string): Promise<void> {
  for (const [i, d] of params.entries()) {
    const path = `params.data_params[${i}]`;
    const row = await findParam(tx, d.id);
    if (d.chunked === true && d.data === undefined && d.url === undefined) {
      // Uploaded before with UploadChunk: the task refers to it.
      if (!row || !row.chunked) {
        throw new ParleyError('invalid_params', `${path} names chunked data ${JSON.stringify(d.id)} that was not uploaded: send its chunks with upload_chunk first`, {
          path: `${path}.id`,
          rule: 'exists',
        });
      }
      if (row.owner !== owner) throw forbidden(`${path}.id`, 'data_owner', `${path}: data param ${JSON.stringify(d.id)} was uploaded by another agent`);
      if (!row.finished) {
        throw new ParleyError('invalid_params', `${path}: the upload of ${JSON.stringify(d.id)} is not finished (its last chunk has not arrived)`, {
          path: `${path}.id`,
          rule: 'chunks_unfinished',
        });
      }
      if (row.task_id !== null && row.task_id !== taskId) {
        throw new ParleyError('invalid_params', `${path}: data param ${JSON.stringify(d.id)} belongs to task ${row.task_id}`, { path: `${path}.id`, rule: 'unique' });
      }
      await linkParam(tx, d.id, taskId);
      continue;
    }
    if (row) throw new ParleyError('invalid_params', `${path}.id ${JSON.stringify(d.id)} is taken by another data param`, { path: `${path}.id`, rule: 'unique' });
    await insertParam(tx, d, owner, taskId, { data: d.data ?? null, chunked: d.chunked === true, finished: true }, at);
  }
}

/** The task's data params (those it carried or linked, msg_data first). */
export async function taskDataParams(q: Queryable, t: Task): Promise<WireTask['data_params']> {
  let total = 0;
  return (await listTaskParams(q, t.task_id, t.msg_data)).map((x) => {
    const base = {
      id: x.id,
      data_type: x.data_type,
      ...(x.description !== null ? { description: x.description } : {}),
      ...(x.data_size !== null ? { data_size: Number(x.data_size) } : {}),
      ...(x.format !== null ? { format: x.format } : {}),
      ...(x.url !== null ? { url: x.url } : {}),
      ...(x.chunked ? { chunked: true, finished: true } : {}),
    };
    if (x.data === null) return base;
    if (x.data.length > MAX_DISPATCH_PARAM_CHARS || total + x.data.length > MAX_DISPATCH_TOTAL_CHARS) return { ...base, data_omitted: true };
    total += x.data.length;
    return { ...base, data: x.data };
  });
}

export async function wireTaskOf(c: TaskCtx, t: StoredTask): Promise<WireTask> {
  const { last_seq: _seq, ...task } = t;
  return { ...task, data_params: await taskDataParams(c.db, t) };
}

export async function assemblerFor(c: TaskCtx, tx: Queryable, paramId: string, stored: number): Promise<ChunkAssembler> {
  const hit = c.assemblers.get(paramId);
  if (hit && hit.next === stored) {
    c.assemblers.delete(paramId);
    c.assemblers.set(paramId, hit);
    return hit.assembler;
  }
  // Cold or stale (another replica took chunks): replay what is stored.
  const assembler = createChunkAssembler(c.deps.chunks);
  const chunks = await storedChunks(tx, paramId);
  for (const k of chunks) assembler.add({ param_id: paramId, seq: k.seq, data: k.data, finished: false });
  c.assemblers.set(paramId, { assembler, next: chunks.length });
  while (c.assemblers.size > 1000) c.assemblers.delete(c.assemblers.keys().next().value as string);
  return assembler;
}

type UploadRequest = { send_from?: unknown; param?: unknown; chunk?: unknown; task_id?: unknown };
type Chunk = { param_id: string; seq?: unknown; data?: unknown; finished?: unknown };

/** The checks of an UploadChunk call that need no stored state: who sends, which param, and its description with chunk 0. */
function parseUpload(req: UploadRequest): { sendFrom: string; taskId: string | undefined; chunk: Chunk; param: DataParam | undefined } {
  const sendFrom = agentName(req.send_from, 'params.send_from');
  const taskId = req.task_id === undefined ? undefined : taskIdOf(req.task_id, 'params.task_id');
  if (typeof req.chunk !== 'object' || req.chunk === null) throw new ParleyError('invalid_params', 'params.chunk is required', { path: 'params.chunk', rule: 'required' });
  const chunk = plain(req.chunk as object) as { param_id?: unknown; seq?: unknown; data?: unknown; finished?: unknown };
  if (typeof chunk.param_id !== 'string' || chunk.param_id === '') {
    throw new ParleyError('invalid_params', 'params.chunk.param_id is required', { path: 'params.chunk.param_id', rule: 'required' });
  }
  const paramId = chunk.param_id;
  let param: DataParam | undefined;
  if (chunk.seq === 0) {
    if (req.param === undefined) {
      throw new ParleyError('invalid_params', 'params.param is required with the first chunk (seq 0): it describes the data', { path: 'params.param', rule: 'required' });
    }
    param = parseDataParam({ chunked: true, ...plain(req.param as object) }, 'params.param');
    if (param.id !== paramId) {
      throw new ParleyError('invalid_params', `params.param.id ${JSON.stringify(param.id)} differs from params.chunk.param_id ${JSON.stringify(paramId)}`, {
        path: 'params.param.id',
        rule: 'param_id_match',
      });
    }
    if (param.chunked !== true) throw new ParleyError('invalid_params', 'params.param.chunked must be true for chunked data', { path: 'params.param.chunked', rule: 'chunked' });
  }
  return { sendFrom, taskId, chunk: chunk as Chunk, param };
}

/** The chunk may be added to the stored param (when there is one): the sender's, chunked, not finished. */
function assertChunkAllowed(row: StoredParam | undefined, paramId: string, sendFrom: string, seq: unknown): void {
  if (row && (!row.chunked || row.owner !== sendFrom)) {
    if (row.owner !== sendFrom) throw forbidden('params.chunk.param_id', 'data_owner', `Data param ${JSON.stringify(paramId)} belongs to another agent`);
    throw new ParleyError('invalid_params', `Data param ${JSON.stringify(paramId)} exists and is not chunked`, { path: 'params.chunk.param_id', rule: 'unique' });
  }
  if (row?.finished) {
    throw new ParleyError('invalid_params', `chunk ${String(seq)} of ${paramId} arrived after its last chunk`, {
      path: 'params.chunk.seq',
      rule: 'chunk_after_finished',
      details: { param_id: paramId },
    });
  }
}

/** UploadChunk (draft 004 §5.2 chunked data): one chunk in order; the last one stores the assembled data. */
export async function uploadChunk(c: TaskCtx, req: UploadRequest) {
  const { sendFrom, taskId, chunk, param } = parseUpload(req);
  const paramId = chunk.param_id;
  try {
    return await c.db.transaction(async (tx) => {
      await lockTask(tx, `data:${paramId}`);
      const row = await findParam(tx, paramId);
      assertChunkAllowed(row, paramId, sendFrom, chunk.seq);
      const count = await countChunks(tx, paramId);
      const assembler = await assemblerFor(c, tx, paramId, count);
      let result;
      try {
        result = assembler.add(chunk as never);
      } catch (e) {
        throw rebase(e);
      }
      const entry = c.assemblers.get(paramId);
      if (entry) entry.next = count + 1;
      if (!row) {
        await insertParam(tx, param as DataParam, sendFrom, taskId ?? null, { data: null, chunked: true, finished: false }, c.now());
      }
      const declared = row?.data_size ?? param?.data_size;
      if (result.complete) {
        if (declared !== undefined && declared !== null && Number(declared) !== result.bytes) {
          throw new ParleyError('invalid_params', `${paramId} assembled to ${result.bytes} bytes; its data_size says ${String(declared)}`, {
            path: 'params.chunk.finished',
            rule: 'data_size',
            details: { bytes: result.bytes, data_size: Number(declared) },
          });
        }
        await finishParam(tx, paramId, result.data, result.bytes);
        c.assemblers.delete(paramId);
        return { param_id: paramId, received: count + 1, finished: true, data_size: result.bytes };
      }
      // The assembler took it, so seq and data are valid.
      await insertChunk(tx, paramId, chunk.seq as number, chunk.data as string);
      return { param_id: paramId, received: count + 1, finished: false };
    });
  } catch (e) {
    // The assembler may have taken a chunk the database did not: rebuild it next time.
    c.assemblers.delete(paramId);
    throw e;
  }
}

/** A slice of a task's data param, for one of the task's parties (an agent's `data` message over NATS). */
export async function readData(c: TaskCtx, m: { task_id: string; param_id: string; send_from: string; offset: number; length?: number }): Promise<{ data: string; total: number }> {
  const task = await requireTask(c.db, taskIdOf(m.task_id, 'message.task_id'), 'message.task_id');
  if (m.send_from !== task.send_to && m.send_from !== task.send_from) throw forbidden('message.send_from', 'task_party', `${String(m.send_from)} is not a party of task ${task.task_id}`);
  const offset = Number.isSafeInteger(m.offset) && m.offset >= 0 ? m.offset : 0;
  const length = Math.min(MAX_DATA_SLICE, Number.isSafeInteger(m.length) && (m.length as number) > 0 ? (m.length as number) : MAX_DATA_SLICE);
  const slice = await readSlice(c.db, m.param_id, task.task_id, offset, length);
  if (!slice) throw new ParleyError('invalid_params', `Task ${task.task_id} has no data param ${JSON.stringify(m.param_id)}`, { path: 'message.param_id', rule: 'exists' });
  return slice;
}

/** The assembler names paths from `chunk`; over the API the chunk is `params.chunk`. */
function rebase(e: unknown): unknown {
  if (!(e instanceof ParleyError) || !e.path.startsWith('chunk')) return e;
  return new ParleyError(e.type, e.message, { path: `params.${e.path}`, rule: e.rule, details: e.details });
}
