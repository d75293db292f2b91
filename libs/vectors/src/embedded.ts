/**
 * The in-process vector index: exact cosine search by brute force. draft-zhou
 * §6.2.1's pool holds the `other` fragments of one scenario (or their cluster
 * centroids), thousands to tens of thousands of points, where a linear scan
 * over contiguous Float32 rows costs about 1.2 ms per million multiply-adds
 * (bench/vectors.ts, Node 20, 2 cores: a top-10 search takes
 * 4.7 ms at 10k points × 384 dimensions, 24 ms at 10k × 2048, 46 ms at
 * 100k × 384, 246 ms at 100k × 2048; filters and thresholds do not shorten the
 * scan) and gives exact neighbours, so clustering by a threshold such as
 * "cosine similarity >= 0.85" never misses a member the way an approximate
 * index can. It backs `npm start` and the unit tests; Qdrant is the adapter for
 * pools that outgrow one process.
 *
 * Layout per collection: one flat Float32Array of `capacity × dimensions`
 * (rows L2-normalised on write, so a score is a plain dot product), with the
 * ids and payloads in parallel arrays and an id → row map. Delete moves the
 * last row into the hole, so rows stay dense and a scan touches no gaps.
 * Everything is synchronous inside each call, so calls are atomic.
 */
import {
  VECTOR_RULES,
  type Payload,
  type PayloadFilter,
  type ScoredPoint,
  type SearchOptions,
  type StoredPoint,
  type VectorIndex,
  type VectorPoint,
} from './port';
import {
  checkCollectionName,
  checkDimensions,
  checkFilter,
  checkIds,
  checkSearchOptions,
  closedError,
  copyPayload,
  invalid,
  isEmptyFilter,
  matchesFilter,
  missingCollection,
  normalizedVector,
  preparePoints,
} from './rules';

const INITIAL_CAPACITY = 64;

class Collection {
  readonly dimensions: number;
  /** Rows 0..size-1 are live; row r occupies data[r*dimensions, (r+1)*dimensions). */
  data: Float32Array;
  size = 0;
  readonly ids: string[] = [];
  readonly payloads: Payload[] = [];
  readonly rowOf = new Map<string, number>();

  constructor(dimensions: number) {
    this.dimensions = dimensions;
    this.data = new Float32Array(INITIAL_CAPACITY * dimensions);
  }

  put(id: string, vector: Float32Array, payload: Payload): void {
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.size++;
      if (row * this.dimensions >= this.data.length) {
        // Doubling keeps appends amortised O(dimensions).
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.rowOf.set(id, row);
      this.ids[row] = id;
    }
    this.data.set(vector, row * this.dimensions);
    this.payloads[row] = payload;
  }

  remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    const last = --this.size;
    if (row !== last) {
      const d = this.dimensions;
      this.data.copyWithin(row * d, last * d, (last + 1) * d);
      const movedId = this.ids[last] as string;
      this.ids[row] = movedId;
      this.payloads[row] = this.payloads[last] as Payload;
      this.rowOf.set(movedId, row);
    }
    this.ids.pop();
    this.payloads.pop();
    this.rowOf.delete(id);
  }

  vectorAt(row: number): Float32Array {
    return this.data.slice(row * this.dimensions, (row + 1) * this.dimensions);
  }
}

/**
 * The `limit` best rows of a scan, best first, kept by insertion into short
 * typed arrays: the pool asks for a handful of neighbours, so inserting into k
 * slots beats a heap, and most rows fail the `worst kept` check at once.
 */
function topK(c: Collection, q: Float32Array, limit: number, minScore: number, pass: ((row: number) => boolean) | undefined): ScoredPoint[] {
  const k = Math.min(limit, c.size);
  const scores = new Float64Array(k);
  const rows = new Int32Array(k);
  let kept = 0;
  const d = c.dimensions;
  const d4 = d - (d % 4);
  const data = c.data;
  for (let r = 0, base = 0; r < c.size; r++, base += d) {
    // Four accumulators break the add dependency chain: ~1.5x faster than one in V8 (bench/vectors.ts).
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j < d4; j += 4) {
      s0 += (data[base + j] as number) * (q[j] as number);
      s1 += (data[base + j + 1] as number) * (q[j + 1] as number);
      s2 += (data[base + j + 2] as number) * (q[j + 2] as number);
      s3 += (data[base + j + 3] as number) * (q[j + 3] as number);
    }
    for (; j < d; j++) s0 += (data[base + j] as number) * (q[j] as number);
    const s = s0 + s1 + s2 + s3;
    if (s < minScore) continue;
    if (kept === k && s <= (scores[k - 1] as number)) continue;
    if (pass && !pass(r)) continue;
    let i = kept < k ? kept++ : k - 1;
    while (i > 0 && (scores[i - 1] as number) < s) {
      scores[i] = scores[i - 1] as number;
      rows[i] = rows[i - 1] as number;
      i--;
    }
    scores[i] = s;
    rows[i] = r;
  }
  const out: ScoredPoint[] = [];
  for (let i = 0; i < kept; i++) {
    const r = rows[i] as number;
    // Float32 rounding can push a self-match a hair past 1; cosine never does.
    const score = Math.max(-1, Math.min(1, scores[i] as number));
    out.push({ id: c.ids[r] as string, score, payload: copyPayload(c.payloads[r] as Payload) });
  }
  return out;
}

/** An exact, in-process `VectorIndex` (see the module comment). */
export function createEmbeddedIndex(): VectorIndex {
  const collections = new Map<string, Collection>();
  let closed = false;

  const open = (): void => {
    if (closed) throw closedError('embedded');
  };
  const collection = (name: string): Collection => {
    open();
    const c = collections.get(checkCollectionName(name));
    if (!c) throw missingCollection(name);
    return c;
  };

  return {
    kind: 'embedded',

    async ensureCollection(name: string, dimensions: number): Promise<void> {
      open();
      checkCollectionName(name);
      checkDimensions(dimensions);
      const existing = collections.get(name);
      if (!existing) {
        collections.set(name, new Collection(dimensions));
      } else if (existing.dimensions !== dimensions) {
        throw invalid('dimensions', VECTOR_RULES.dimensions, `collection "${name}" exists with ${existing.dimensions} dimensions, not ${dimensions}`, {
          expected: existing.dimensions,
          actual: dimensions,
        });
      }
    },

    async upsert(name: string, points: VectorPoint[]): Promise<void> {
      const c = collection(name);
      for (const p of preparePoints(points, c.dimensions)) c.put(p.id, p.vector, p.payload);
    },

    async search(name: string, vector: Float32Array | number[], opts: SearchOptions): Promise<ScoredPoint[]> {
      const c = collection(name);
      const q = normalizedVector(vector, c.dimensions, 'vector');
      const o = checkSearchOptions(opts);
      const pass = isEmptyFilter(o.filter) ? undefined : (row: number) => matchesFilter(c.payloads[row] as Payload, o.filter);
      return topK(c, q, o.limit, o.minScore ?? -Infinity, pass);
    },

    async get(name: string, ids: string[]): Promise<StoredPoint[]> {
      const c = collection(name);
      const out: StoredPoint[] = [];
      for (const id of checkIds(ids)) {
        const row = c.rowOf.get(id);
        if (row !== undefined) out.push({ id, vector: c.vectorAt(row), payload: copyPayload(c.payloads[row] as Payload) });
      }
      return out;
    },

    async delete(name: string, ids: string[]): Promise<void> {
      const c = collection(name);
      for (const id of checkIds(ids)) c.remove(id);
    },

    async count(name: string, filter?: PayloadFilter): Promise<number> {
      const c = collection(name);
      const f = checkFilter(filter);
      if (isEmptyFilter(f)) return c.size;
      let n = 0;
      for (let r = 0; r < c.size; r++) if (matchesFilter(c.payloads[r] as Payload, f)) n++;
      return n;
    },

    async dropCollection(name: string): Promise<void> {
      open();
      collections.delete(checkCollectionName(name));
    },

    async close(): Promise<void> {
      closed = true;
      collections.clear();
    },
  };
}
