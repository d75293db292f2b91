/**
 * Data params (AN draft 004 §5.2, Figure 6 `data-params`): the data two agents
 * exchange with a task (alarms, case knowledge, files): inline, at a URL for
 * large data, or chunked (`chucked` in Figure 6) into pieces, the last one
 * `finished`.
 *
 * Chunks must arrive in order (seq 0, 1, 2, … per param id): the assembler
 * does not buffer a chunk that comes early, it refuses it (`chunk_missing`,
 * naming the seq it expects), so the sender resends from there. That keeps the
 * state to one string list per param and makes every error leave it unchanged.
 */
import { ParleyError } from '@parley/protocol';
import { DATA_TYPES, type DataChunk, type DataParam } from './model';
import { Checker, MAX_SHORT_LENGTH, put, utf8Length } from './check';

/** Largest inline (non-chunked) `data`: 1 MiB of UTF-8; larger data goes by `url` or in chunks. */
export const MAX_INLINE_DATA_BYTES = 1024 * 1024;
/** Data-param ids: as task ids. */
export const DATA_PARAM_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const MEMBERS = ['id', 'data_type', 'description', 'data_size', 'format', 'url', 'data', 'chunked', 'finished'] as const;
const HINTS = { dataType: 'data_type', 'data-type': 'data_type', dataSize: 'data_size', 'data-size': 'data_size', chucked: 'chunked' };

const check: Checker = new Checker('invalid_params');

/**
 * Parses one data param. Rules: `required`, `type`, `pattern` (id), `enum`
 * (data_type), `non_negative_integer` (data_size), `url`, `unknown_member`,
 * `data_or_url` (a non-chunked param carries exactly one of data and url),
 * `too_large_inline_use_url` (non-chunked inline data over 1 MiB).
 * A chunked param may carry neither (its chunks follow) or both.
 */
export function parseDataParam(input: unknown, path: string): DataParam {
  const o = check.object(input, path);
  check.members(o, MEMBERS, path, HINTS);
  const id = check.string(o.id, `${path}.id`, {
    pattern: DATA_PARAM_ID_PATTERN,
    hint: '1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit',
  });
  const data_type = check.oneOf(o.data_type, DATA_TYPES, `${path}.data_type`);
  const description = check.optString(o.description, `${path}.description`, { maxBytes: 4096 });
  const data_size = o.data_size === undefined ? undefined : check.count(o.data_size, `${path}.data_size`);
  const format = check.optString(o.format, `${path}.format`, { maxLength: MAX_SHORT_LENGTH });
  const url = o.url === undefined ? undefined : check.url(o.url, `${path}.url`);
  const data = o.data === undefined ? undefined : check.string(o.data, `${path}.data`, { nonEmpty: false });
  const chunked = o.chunked === undefined ? undefined : check.boolean(o.chunked, `${path}.chunked`);
  const finished = o.finished === undefined ? undefined : check.boolean(o.finished, `${path}.finished`);

  if (chunked !== true) {
    if (data !== undefined && url !== undefined) {
      check.fail(`${path}.url`, 'data_or_url', `${path} carries both data and url: send the data inline or by url, not both (unless chunked)`);
    }
    if (data === undefined && url === undefined) {
      check.fail(path, 'data_or_url', `${path} carries neither data nor url: send the data inline, by url, or set chunked`);
    }
    if (data !== undefined) {
      const bytes = utf8Length(data);
      if (bytes > MAX_INLINE_DATA_BYTES) {
        check.fail(
          `${path}.data`,
          'too_large_inline_use_url',
          `${path}.data is ${bytes} bytes; inline data may be at most ${MAX_INLINE_DATA_BYTES} bytes: send it by url or chunked`,
          { bytes, max_bytes: MAX_INLINE_DATA_BYTES },
        );
      }
    }
  }
  const out: { -readonly [K in keyof DataParam]: DataParam[K] } = { id, data_type };
  put(out, 'description', description);
  put(out, 'data_size', data_size);
  put(out, 'format', format);
  put(out, 'url', url);
  put(out, 'data', data);
  put(out, 'chunked', chunked);
  put(out, 'finished', finished);
  return out;
}

export interface ChunkAssemblerOptions {
  /** Most bytes (UTF-8 of the chunk strings) one param may assemble to; default 16 MiB. */
  maxBytes?: number;
  /** Most chunks one param may have; default 10 000. */
  maxChunks?: number;
}

export type ChunkResult = { readonly complete: false } | { readonly complete: true; readonly data: string; readonly bytes: number };

/** Where one param's assembly stands. */
export interface ChunkProgress {
  /** The seq the next chunk must have. */
  readonly next_seq: number;
  readonly bytes: number;
  readonly finished: boolean;
}

export interface ChunkAssembler {
  /**
   * Adds one chunk. Throws ParleyError `invalid_params` with rule
   * `chunk_after_finished`, `chunk_repeated`, `chunk_missing` (details.expected),
   * `chunk_too_large` or `too_many_chunks` (or a shape rule for a malformed
   * chunk); a refused chunk changes nothing.
   */
  add(chunk: DataChunk): ChunkResult;
  /** The progress of a param, or undefined when no chunk of it was accepted. */
  progress(param_id: string): ChunkProgress | undefined;
}

const CHUNK_MEMBERS = ['param_id', 'seq', 'data', 'finished'] as const;

interface Assembly {
  parts: string[];
  bytes: number;
  finished: boolean;
}

/** An in-order assembler of chunked data params (5.2 `chunked` / `finished`), limits per param id. */
export function createChunkAssembler(options: ChunkAssemblerOptions = {}): ChunkAssembler {
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const maxChunks = options.maxChunks ?? 10_000;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) check.fail('options.maxBytes', 'non_negative_integer', 'maxBytes must be a non-negative integer');
  if (!Number.isSafeInteger(maxChunks) || maxChunks < 1) check.fail('options.maxChunks', 'range', 'maxChunks must be a positive integer');
  const assemblies = new Map<string, Assembly>();

  function add(input: DataChunk): ChunkResult {
    const path = 'chunk';
    const o = check.object(input, path);
    check.members(o, CHUNK_MEMBERS, path);
    const param_id = check.string(o.param_id, `${path}.param_id`, { pattern: DATA_PARAM_ID_PATTERN });
    const seq = check.count(o.seq, `${path}.seq`);
    const data = check.string(o.data, `${path}.data`, { nonEmpty: false });
    const finished = check.boolean(o.finished, `${path}.finished`);

    const a = assemblies.get(param_id);
    const expected = a ? a.parts.length : 0;
    const fail = (p: string, rule: string, message: string, details: Record<string, unknown>): never => {
      throw new ParleyError('invalid_params', message, { path: p, rule, details: { param_id, seq, ...details } });
    };
    if (a?.finished) {
      fail(`${path}.seq`, 'chunk_after_finished', `chunk ${seq} of ${param_id} arrived after its last chunk (${expected - 1})`, {});
    }
    if (seq < expected) {
      fail(`${path}.seq`, 'chunk_repeated', `chunk ${seq} of ${param_id} was already received; the next expected is ${expected}`, { expected });
    }
    if (seq > expected) {
      fail(`${path}.seq`, 'chunk_missing', `chunk ${expected} of ${param_id} is missing: chunks arrive in order, expected seq ${expected}, got ${seq}`, {
        expected,
      });
    }
    if (seq + 1 > maxChunks) {
      fail(`${path}.seq`, 'too_many_chunks', `${param_id} has more than ${maxChunks} chunks`, { max_chunks: maxChunks });
    }
    const bytes = (a?.bytes ?? 0) + utf8Length(data);
    if (bytes > maxBytes) {
      fail(`${path}.data`, 'chunk_too_large', `${param_id} would be ${bytes} bytes with chunk ${seq}; at most ${maxBytes} are allowed`, {
        bytes,
        max_bytes: maxBytes,
      });
    }
    // Accepted: only now is state changed.
    const next: Assembly = a ?? { parts: [], bytes: 0, finished: false };
    next.parts.push(data);
    next.bytes = bytes;
    next.finished = finished;
    assemblies.set(param_id, next);
    if (!finished) return { complete: false };
    const whole = next.parts.join('');
    next.parts = new Array<string>(next.parts.length); // keep the count (for errors), drop the data
    return { complete: true, data: whole, bytes };
  }

  function progress(param_id: string): ChunkProgress | undefined {
    const a = assemblies.get(param_id);
    return a ? { next_seq: a.parts.length, bytes: a.bytes, finished: a.finished } : undefined;
  }

  return { add, progress };
}
