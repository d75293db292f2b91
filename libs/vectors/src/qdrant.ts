/**
 * The Qdrant adapter of the vector index port, for semantic pools (draft-zhou
 * §6.2.1) that outgrow one process or must survive restarts. One Parley
 * collection is one Qdrant collection named `<collectionPrefix><name>` with
 * Cosine distance, so Qdrant's scores are the cosine similarities the pool's
 * threshold ("cosine similarity >= 0.85") is written in, and `score_threshold`
 * applies it server-side.
 *
 * Arguments go through the same checks as the embedded index (rules.ts) before
 * any request, so both refuse the same calls with the same typed errors and a
 * refused upsert writes nothing. The adapter remembers each collection's
 * dimension (from `ensureCollection`, else read once from Qdrant) to check
 * vectors locally. Queries use the Query API (`POST .../points/query`, Qdrant
 * ≥ 1.10), which the 1.18 client exposes as `query`; `search` is its older
 * form. Small collections are searched exactly (Qdrant scans below its
 * `full_scan_threshold`); larger ones through HNSW, which is approximate.
 *
 * Errors: a missing collection is `invalid_params` (rule `collection_exists`),
 * as in the embedded index; a request Qdrant rejects is `invalid_params` (rule
 * `backend`); anything else (network, timeout, 5xx, 401/403, 429) is
 * `unavailable` with the operation, collection, HTTP status and Qdrant's reason
 * in `details`, never the API key.
 */
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { ParleyError } from '@parley/protocol';
import {
  VECTOR_RULES,
  type Payload,
  type PayloadFilter,
  type PayloadValue,
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
  invalid,
  isEmptyFilter,
  missingCollection,
  normalizedVector,
  preparePoints,
  type CheckedFilter,
} from './rules';

export interface QdrantIndexOptions {
  /** E.g. `http://localhost:6333` (REST port). */
  url: string;
  apiKey?: string;
  /**
   * Prepended to every collection name (`^[a-z0-9_-]{0,64}$`), so test runs and
   * tenants can share one server without seeing each other's collections.
   */
  collectionPrefix?: string;
  /** Per-request timeout; default 10 000 ms (the client's own default is 5 minutes). */
  timeoutMs?: number;
}

/** Points per upsert request: well under Qdrant's 32 MiB request limit at 2048 dimensions. */
export const QDRANT_UPSERT_BATCH = 256;
const PREFIX_PATTERN = /^[a-z0-9_-]{0,64}$/;

// ---------------------------------------------------------------------------
// Pure mappings (unit-tested without a server).
// ---------------------------------------------------------------------------

const toConditions = (list: CheckedFilter['must']): Schemas['FieldCondition'][] => list.map((c) => ({ key: c.key, match: { value: c.match } }));

/** Parley's filter as Qdrant's: `must` / `must_not` lists of `{ key, match: { value } }`. */
export function toQdrantFilter(filter: CheckedFilter): Schemas['Filter'] | undefined {
  if (isEmptyFilter(filter)) return undefined;
  const out: Schemas['Filter'] = {};
  if (filter.must.length > 0) out.must = toConditions(filter.must);
  if (filter.mustNot.length > 0) out.must_not = toConditions(filter.mustNot);
  return out;
}

/** Our ids are UUID strings; Qdrant may also hold integer ids written by others. */
export function fromQdrantId(id: Schemas['ExtendedPointId']): string {
  return typeof id === 'number' ? String(id) : id.toLowerCase();
}

function isPayloadValue(v: unknown): v is PayloadValue {
  return (
    v === null ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    (typeof v === 'number' && Number.isFinite(v)) ||
    (Array.isArray(v) && v.every((x) => typeof x === 'string'))
  );
}

/** Keeps the members the port can express; nested objects (written by other tools) are dropped. */
export function fromQdrantPayload(p: unknown): Payload {
  const out: Payload = {};
  if (typeof p !== 'object' || p === null) return out;
  for (const [k, v] of Object.entries(p)) if (k !== '__proto__' && isPayloadValue(v)) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}

export function fromQdrantScoredPoint(p: Pick<Schemas['ScoredPoint'], 'id' | 'score' | 'payload'>): ScoredPoint {
  // Float32 arithmetic can put a self-match a hair past 1; cosine never is.
  return { id: fromQdrantId(p.id), score: Math.max(-1, Math.min(1, p.score)), payload: fromQdrantPayload(p.payload) };
}

export function fromQdrantRecord(r: Pick<Schemas['Record'], 'id' | 'payload' | 'vector'>): StoredPoint {
  const v = r.vector;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'number')) {
    throw new ParleyError('internal', `Qdrant returned point ${String(r.id)} without a single dense vector`, { details: { adapter: 'qdrant' } });
  }
  return { id: fromQdrantId(r.id), vector: Float32Array.from(v as number[]), payload: fromQdrantPayload(r.payload) };
}

/** The dimension and distance of a collection's single unnamed vector, if it has one. */
export function qdrantVectorParams(info: Pick<Schemas['CollectionInfo'], 'config'>): { size: number; distance: string } | undefined {
  const v = info.config.params.vectors;
  if (v && typeof v.size === 'number' && typeof v.distance === 'string') return { size: v.size, distance: v.distance };
  return undefined;
}

interface HttpLikeError {
  status: number;
  data?: unknown;
}
function httpStatus(e: unknown): number | undefined {
  const s = (e as Partial<HttpLikeError> | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

/** Qdrant's reason text (`{ status: { error } }`), else the error's message, else its cause's code. */
export function qdrantReason(e: unknown): string {
  const data = (e as { data?: { status?: { error?: unknown } } } | null)?.data;
  const fromBody = data?.status?.error;
  if (typeof fromBody === 'string' && fromBody) return fromBody;
  if (e instanceof Error) {
    const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    return code ? `${e.message} (${code})` : e.message;
  }
  return String(e);
}

export interface QdrantErrorContext {
  operation: string;
  /** The Parley collection name (without the prefix). */
  collection?: string;
  /** Server origin (scheme, host, port; never credentials). */
  server: string;
}

/** Any failure of a client call as a typed Parley error (see the module comment). */
export function toParleyErrorFromQdrant(e: unknown, ctx: QdrantErrorContext): ParleyError {
  if (e instanceof ParleyError) return e;
  const status = httpStatus(e);
  const reason = qdrantReason(e);
  const details: Record<string, unknown> = { adapter: 'qdrant', operation: ctx.operation, server: ctx.server, reason };
  if (ctx.collection !== undefined) details['collection'] = ctx.collection;
  if (status !== undefined) details['status'] = status;
  if (status === 404 && ctx.collection !== undefined) {
    const err = missingCollection(ctx.collection);
    Object.assign(err.details, details);
    return err;
  }
  if (status === 400 || status === 422) {
    const rule = /dimension/i.test(reason) ? VECTOR_RULES.dimensions : VECTOR_RULES.backend;
    return invalid('collection', rule, `Qdrant rejected ${ctx.operation}: ${reason}`, details);
  }
  const what = status === undefined ? reason : `HTTP ${status}: ${reason}`;
  return new ParleyError('unavailable', `Qdrant ${ctx.operation} failed (${what})`, { rule: VECTOR_RULES.backend, details, cause: e });
}

/** The server's origin for error details: no path, no user info. */
export function serverOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}

// ---------------------------------------------------------------------------
// The adapter.
// ---------------------------------------------------------------------------

/** Checks the options and makes the REST client; `server` is the origin named in error details. */
function connect(opts: QdrantIndexOptions): { client: QdrantClient; server: string; prefix: string } {
  const prefix = opts.collectionPrefix ?? '';
  if (!PREFIX_PATTERN.test(prefix)) {
    throw invalid('collectionPrefix', VECTOR_RULES.collectionName, `collectionPrefix must match ${PREFIX_PATTERN.source} (got ${JSON.stringify(prefix)})`);
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(opts.url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ParleyError('invalid_params', `url must be an http(s) URL of the Qdrant REST API (got ${JSON.stringify(opts.url)})`, { path: 'url', rule: 'url' });
  }
  const client = new QdrantClient({
    url: opts.url,
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    timeout: opts.timeoutMs ?? 10_000,
    // The check is a fire-and-forget request from the constructor that only
    // logs; an unreachable server shows up as `unavailable` on the first call.
    checkCompatibility: false,
  });
  return { client, server: serverOrigin(opts.url), prefix };
}

/** An existing collection must have `dims` dimensions and Cosine distance to be used as collection `name`. */
function checkExistingCollection(name: string, dims: number, info: Schemas['CollectionInfo']): void {
  const params = qdrantVectorParams(info);
  if (!params || params.size !== dims) {
    throw invalid('dimensions', VECTOR_RULES.dimensions, `collection "${name}" exists with ${params?.size ?? 'named'} dimensions, not ${dims}`, {
      expected: params?.size ?? null,
      actual: dims,
    });
  }
  if (params.distance !== 'Cosine') {
    throw invalid('collection', VECTOR_RULES.distance, `collection "${name}" uses ${params.distance} distance, not Cosine`);
  }
}

/** A `VectorIndex` on a Qdrant server (see the module comment). */
export function createQdrantIndex(opts: QdrantIndexOptions): VectorIndex {
  const { client, server, prefix } = connect(opts);
  const dimensionsOf = new Map<string, number>();
  let closed = false;

  const full = (name: string): string => prefix + name;
  const call = async <T>(operation: string, collection: string | undefined, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      const err = toParleyErrorFromQdrant(e, collection === undefined ? { operation, server } : { operation, collection, server });
      // A collection dropped or recreated behind our back: forget what we knew.
      if (collection !== undefined && (err.rule === VECTOR_RULES.collectionExists || err.rule === VECTOR_RULES.dimensions)) dimensionsOf.delete(collection);
      throw err;
    }
  };
  const open = (): void => {
    if (closed) throw closedError('qdrant');
  };

  /** The collection's dimension, read from Qdrant once; a missing collection throws. */
  const dimensions = async (name: string): Promise<number> => {
    open();
    checkCollectionName(name);
    const known = dimensionsOf.get(name);
    if (known !== undefined) return known;
    const info = await call('getCollection', name, () => client.getCollection(full(name)));
    const params = qdrantVectorParams(info);
    if (!params) {
      throw invalid('collection', VECTOR_RULES.dimensions, `Qdrant collection "${full(name)}" has no single unnamed vector; it was not created by Parley`);
    }
    dimensionsOf.set(name, params.size);
    return params.size;
  };

  return {
    kind: 'qdrant',

    async ensureCollection(name: string, dims: number): Promise<void> {
      open();
      checkCollectionName(name);
      checkDimensions(dims);
      const check = (info: Schemas['CollectionInfo']): void => {
        checkExistingCollection(name, dims, info);
        dimensionsOf.set(name, dims);
      };
      const { exists } = await call('collectionExists', name, () => client.collectionExists(full(name)));
      if (exists) return check(await call('getCollection', name, () => client.getCollection(full(name))));
      try {
        await client.createCollection(full(name), { vectors: { size: dims, distance: 'Cosine' } });
        dimensionsOf.set(name, dims);
      } catch (e) {
        // Another process created it between our check and our create: accept it if it matches.
        const status = httpStatus(e);
        if (status === 409 || (status === 400 && /already exists/i.test(qdrantReason(e)))) {
          return check(await call('getCollection', name, () => client.getCollection(full(name))));
        }
        throw toParleyErrorFromQdrant(e, { operation: 'createCollection', collection: name, server });
      }
    },

    async upsert(name: string, points: VectorPoint[]): Promise<void> {
      const prepared = preparePoints(points, await dimensions(name));
      for (let i = 0; i < prepared.length; i += QDRANT_UPSERT_BATCH) {
        const batch = prepared.slice(i, i + QDRANT_UPSERT_BATCH).map((p) => ({ id: p.id, vector: Array.from(p.vector), payload: p.payload }));
        // wait: the pool reads its own writes (a fragment joins a cluster, then the next search must see it).
        await call('upsert', name, () => client.upsert(full(name), { wait: true, points: batch }));
      }
    },

    async search(name: string, vector: Float32Array | number[], o: SearchOptions): Promise<ScoredPoint[]> {
      const q = normalizedVector(vector, await dimensions(name), 'vector');
      const s = checkSearchOptions(o);
      const filter = toQdrantFilter(s.filter);
      const res = await call('query', name, () =>
        client.query(full(name), {
          query: Array.from(q),
          limit: s.limit,
          with_payload: true,
          with_vector: false,
          ...(s.minScore !== undefined ? { score_threshold: s.minScore } : {}),
          ...(filter ? { filter } : {}),
        }),
      );
      return res.points.map(fromQdrantScoredPoint);
    },

    async get(name: string, ids: string[]): Promise<StoredPoint[]> {
      await dimensions(name);
      const wanted = checkIds(ids);
      if (wanted.length === 0) return [];
      const records = await call('retrieve', name, () => client.retrieve(full(name), { ids: wanted, with_payload: true, with_vector: true }));
      const byId = new Map(records.map((r) => [fromQdrantId(r.id), r]));
      const out: StoredPoint[] = [];
      for (const id of wanted) {
        const r = byId.get(id);
        if (r) out.push(fromQdrantRecord(r));
      }
      return out;
    },

    async delete(name: string, ids: string[]): Promise<void> {
      await dimensions(name);
      const gone = checkIds(ids);
      if (gone.length === 0) return;
      await call('delete', name, () => client.delete(full(name), { wait: true, points: gone }));
    },

    async count(name: string, f?: PayloadFilter): Promise<number> {
      await dimensions(name);
      const filter = toQdrantFilter(checkFilter(f));
      const res = await call('count', name, () => client.count(full(name), { exact: true, ...(filter ? { filter } : {}) }));
      return res.count;
    },

    async dropCollection(name: string): Promise<void> {
      open();
      checkCollectionName(name);
      dimensionsOf.delete(name);
      try {
        await client.deleteCollection(full(name));
      } catch (e) {
        if (httpStatus(e) === 404) return; // already gone: dropping is idempotent
        throw toParleyErrorFromQdrant(e, { operation: 'deleteCollection', collection: name, server });
      }
    },

    async close(): Promise<void> {
      // The REST client keeps no connection we own (undici's pool idles out).
      closed = true;
      dimensionsOf.clear();
    },
  };
}
