/** AN draft 004 §5.2 (Figure 6 data-params: inline, url, chunked/finished). */
import { describe, expect, it } from 'vitest';
import { MAX_INLINE_DATA_BYTES, createChunkAssembler, parseDataParam, type ChunkAssembler, type DataChunk } from '@parley/an';
import { expectError, expectRefused } from './helpers';

const parse = (x: unknown) => parseDataParam(x, 'data_params[0]');
const bad = (path: string, rule: string) => ({ type: 'invalid_params' as const, path, rule });

describe('parseDataParam (5.2)', () => {
  it('parses inline data', () => {
    const d = { id: 'alarms-1', data_type: 'text', description: 'alarms', format: 'application/json', data: '[]', data_size: 2 };
    expect(parse(d)).toEqual(d);
  });
  it('parses a url param', () => {
    expect(parse({ id: 'topo', data_type: 'image', url: 'https://f.example/t.png', data_size: 0 })).toEqual({
      id: 'topo',
      data_type: 'image',
      url: 'https://f.example/t.png',
      data_size: 0,
    });
  });
  it('parses chunked params with neither data nor url, or both', () => {
    expect(parse({ id: 'v', data_type: 'video', chunked: true, finished: false })).toEqual({ id: 'v', data_type: 'video', chunked: true, finished: false });
    expect(parse({ id: 'v', data_type: 'video', chunked: true, data: 'AAAA', url: 'http://f.example/v' }).url).toBe('http://f.example/v');
  });
  it('accepts inline data of exactly 1 MiB, and empty inline data', () => {
    expect(parse({ id: 'big', data_type: 'text', data: 'x'.repeat(MAX_INLINE_DATA_BYTES) }).data?.length).toBe(MAX_INLINE_DATA_BYTES);
    expect(parse({ id: 'e', data_type: 'text', data: '' }).data).toBe('');
  });
  it.each([
    ['no id', { data_type: 'text', data: 'x' }, 'data_params[0].id', 'required'],
    ['a bad id', { id: 'a b', data_type: 'text', data: 'x' }, 'data_params[0].id', 'pattern'],
    ['no data_type', { id: 'a', data: 'x' }, 'data_params[0].data_type', 'required'],
    ['data_type pdf', { id: 'a', data_type: 'pdf', data: 'x' }, 'data_params[0].data_type', 'enum'],
    ['a negative size', { id: 'a', data_type: 'text', data: 'x', data_size: -1 }, 'data_params[0].data_size', 'non_negative_integer'],
    ['a fractional size', { id: 'a', data_type: 'text', data: 'x', data_size: 1.5 }, 'data_params[0].data_size', 'non_negative_integer'],
    ['a size as a string (the draft types it string)', { id: 'a', data_type: 'text', data: 'x', data_size: '1' }, 'data_params[0].data_size', 'type'],
    ['a file url', { id: 'a', data_type: 'text', url: 'file:///etc/passwd' }, 'data_params[0].url', 'url'],
    ['not a url', { id: 'a', data_type: 'text', url: 'nope' }, 'data_params[0].url', 'url'],
    ['both data and url, not chunked', { id: 'a', data_type: 'text', data: 'x', url: 'https://f.example/a' }, 'data_params[0].url', 'data_or_url'],
    ['neither data nor url, not chunked', { id: 'a', data_type: 'text' }, 'data_params[0]', 'data_or_url'],
    ['inline data over 1 MiB', { id: 'a', data_type: 'text', data: 'x'.repeat(MAX_INLINE_DATA_BYTES + 1) }, 'data_params[0].data', 'too_large_inline_use_url'],
    ['1 MiB of two-byte characters', { id: 'a', data_type: 'text', data: 'é'.repeat(MAX_INLINE_DATA_BYTES / 2 + 1) }, 'data_params[0].data', 'too_large_inline_use_url'],
    ['chunked as a string', { id: 'a', data_type: 'text', chunked: 'yes' }, 'data_params[0].chunked', 'type'],
    ['the draft typo chucked', { id: 'a', data_type: 'text', chucked: true }, 'data_params[0].chucked', 'unknown_member'],
    ['the draft spelling dataType', { id: 'a', dataType: 'text', data: 'x' }, 'data_params[0].dataType', 'unknown_member'],
  ])('refuses %s', (_what, input, path, rule) => {
    expectRefused(parse, input, bad(path, rule));
  });
});

const chunk = (seq: number, data: string, finished = false, param_id = 'video-1'): DataChunk => ({ param_id, seq, data, finished });

function expectUnchanged(a: ChunkAssembler, param: string, fn: () => unknown, path: string, rule: string) {
  const before = a.progress(param);
  const e = expectError(fn, bad(path, rule));
  expect(a.progress(param)).toEqual(before);
  return e;
}

describe('createChunkAssembler (5.2 chunked / finished; in order only)', () => {
  it('assembles chunks in order and reports completion once', () => {
    const a = createChunkAssembler();
    expect(a.progress('video-1')).toBeUndefined();
    expect(a.add(chunk(0, 'AAA'))).toEqual({ complete: false });
    expect(a.add(chunk(1, 'BBB'))).toEqual({ complete: false });
    expect(a.progress('video-1')).toEqual({ next_seq: 2, bytes: 6, finished: false });
    expect(a.add(chunk(2, 'CC', true))).toEqual({ complete: true, data: 'AAABBBCC', bytes: 8 });
    expect(a.progress('video-1')).toEqual({ next_seq: 3, bytes: 8, finished: true });
  });

  it('completes a single-chunk param and keeps params apart', () => {
    const a = createChunkAssembler();
    expect(a.add(chunk(0, 'x', false, 'p1'))).toEqual({ complete: false });
    expect(a.add(chunk(0, 'only', true, 'p2'))).toEqual({ complete: true, data: 'only', bytes: 4 });
    expect(a.add(chunk(1, 'y', true, 'p1'))).toEqual({ complete: true, data: 'xy', bytes: 2 });
  });

  it('counts bytes of UTF-8', () => {
    const a = createChunkAssembler();
    expect(a.add(chunk(0, 'é€', true))).toEqual({ complete: true, data: 'é€', bytes: 5 });
  });

  it('refuses a gap (chunk_missing) naming the expected seq, and accepts it afterwards', () => {
    const a = createChunkAssembler();
    a.add(chunk(0, 'A'));
    const e = expectUnchanged(a, 'video-1', () => a.add(chunk(2, 'C')), 'chunk.seq', 'chunk_missing');
    expect(e.details).toMatchObject({ expected: 1, seq: 2, param_id: 'video-1' });
    expect(e.message).toContain('expected seq 1');
    expect(a.add(chunk(1, 'B'))).toEqual({ complete: false });
    expect(a.add(chunk(2, 'C', true))).toEqual({ complete: true, data: 'ABC', bytes: 3 });
  });

  it('refuses a first chunk that is not seq 0 (chunk_missing)', () => {
    const a = createChunkAssembler();
    const e = expectUnchanged(a, 'video-1', () => a.add(chunk(1, 'B')), 'chunk.seq', 'chunk_missing');
    expect(e.details).toMatchObject({ expected: 0 });
    expect(a.progress('video-1')).toBeUndefined();
  });

  it('refuses a repeated seq (chunk_repeated)', () => {
    const a = createChunkAssembler();
    a.add(chunk(0, 'A'));
    a.add(chunk(1, 'B'));
    expectUnchanged(a, 'video-1', () => a.add(chunk(1, 'B')), 'chunk.seq', 'chunk_repeated');
    expectUnchanged(a, 'video-1', () => a.add(chunk(0, 'A')), 'chunk.seq', 'chunk_repeated');
    expect(a.add(chunk(2, 'C', true))).toEqual({ complete: true, data: 'ABC', bytes: 3 });
  });

  it('refuses a param growing over maxBytes (chunk_too_large); the exact limit is fine', () => {
    const a = createChunkAssembler({ maxBytes: 10 });
    a.add(chunk(0, '12345'));
    const e = expectUnchanged(a, 'video-1', () => a.add(chunk(1, '123456')), 'chunk.data', 'chunk_too_large');
    expect(e.details).toMatchObject({ bytes: 11, max_bytes: 10 });
    expect(a.add(chunk(1, '12345', true))).toEqual({ complete: true, data: '1234512345', bytes: 10 });
  });

  it('refuses more than maxChunks chunks (too_many_chunks)', () => {
    const a = createChunkAssembler({ maxChunks: 2 });
    a.add(chunk(0, 'a'));
    a.add(chunk(1, 'b'));
    expectUnchanged(a, 'video-1', () => a.add(chunk(2, 'c', true)), 'chunk.seq', 'too_many_chunks');
  });

  it('refuses any chunk after the finished one (chunk_after_finished)', () => {
    const a = createChunkAssembler();
    a.add(chunk(0, 'A', true));
    expectUnchanged(a, 'video-1', () => a.add(chunk(1, 'B')), 'chunk.seq', 'chunk_after_finished');
    expectUnchanged(a, 'video-1', () => a.add(chunk(0, 'A', true)), 'chunk.seq', 'chunk_after_finished');
  });

  it.each([
    ['a negative seq', { param_id: 'p', seq: -1, data: 'x', finished: false }, 'chunk.seq', 'non_negative_integer'],
    ['a missing finished', { param_id: 'p', seq: 0, data: 'x' }, 'chunk.finished', 'required'],
    ['data as a number', { param_id: 'p', seq: 0, data: 1, finished: true }, 'chunk.data', 'type'],
    ['a bad param id', { param_id: '', seq: 0, data: 'x', finished: true }, 'chunk.param_id', 'non_empty'],
    ['an unknown member', { param_id: 'p', seq: 0, data: 'x', finished: true, crc: 1 }, 'chunk.crc', 'unknown_member'],
  ])('refuses a malformed chunk: %s', (_what, c, path, rule) => {
    const a = createChunkAssembler();
    expectUnchanged(a, 'p', () => a.add(c as DataChunk), path, rule);
  });

  it('refuses bad options', () => {
    expectError(() => createChunkAssembler({ maxChunks: 0 }), bad('options.maxChunks', 'range'));
    expectError(() => createChunkAssembler({ maxBytes: -1 }), bad('options.maxBytes', 'non_negative_integer'));
  });
});
