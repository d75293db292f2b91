/**
 * The vector index port. draft-zhou §6.2.1 asks a server agent's Differential
 * Semantic Pool (DSP) to encode every `other` fragment as a semantic vector and
 * to cluster the vectors "using similarity thresholds (e.g., cosine similarity
 * >= 0.85)". The pool (apps/semantic-pool) keeps one collection per scenario
 * whose points are fragments or cluster centroids, and asks the index for the
 * nearest ones above a threshold, optionally within one client cohort (§6.2.1:
 * "separate DSP instances per scenario or per client-agent cohort").
 *
 * Two adapters keep one contract (libs/vectors/test/vector-index-contract.ts):
 * an exact in-process index (`createEmbeddedIndex`) and Qdrant
 * (`createQdrantIndex`). Everything here is what both agree on:
 *
 * - **Scores are cosine similarity** in [-1, 1], higher is nearer; vectors are
 *   stored L2-normalised (as the Embedder port produces them, and as Qdrant's
 *   Cosine distance stores them), so `get` returns the normalised vector.
 * - **Ids are UUIDs** (Qdrant accepts only UUIDs or unsigned integers), written
 *   in the canonical lowercase hyphenated form; ids are returned lowercase.
 * - **Payload keys** are identifiers (`PAYLOAD_KEY_PATTERN`): Qdrant reads a
 *   dotted or bracketed key in a filter as a nested path, the embedded index
 *   would read it literally, so neither is allowed.
 * - **Filters** are equality on payload keys. On a `string[]` value a match
 *   holds when any element equals (Qdrant's rule for arrays). Match values are
 *   strings, booleans or integers: Qdrant matches keywords, integers and
 *   booleans only, never floats.
 * - **A failed call changes nothing**: every argument is validated before the
 *   first write. Violations are `ParleyError('invalid_params')` naming the path
 *   and rule (`VECTOR_RULES`); a backend failure is `ParleyError('unavailable')`.
 */

/** A payload value: a JSON scalar, or a list of strings (tags, cohort names). */
export type PayloadValue = string | number | boolean | null | string[];
export type Payload = Record<string, PayloadValue>;

/** What a filter condition can compare with: Qdrant's keyword, integer and bool matches. */
export type MatchValue = string | number | boolean;

export interface VectorPoint {
  /** A UUID (any case in; lowercase out). */
  id: string;
  /** Any non-zero finite vector of the collection's dimension; stored normalised. */
  vector: Float32Array | number[];
  payload: Payload;
}

/** A point as stored: its vector L2-normalised. */
export interface StoredPoint extends VectorPoint {
  vector: Float32Array;
}

export interface ScoredPoint {
  id: string;
  /** Cosine similarity with the query, in [-1, 1]. */
  score: number;
  payload: Payload;
}

/** One equality condition on a payload key. */
export interface FieldMatch {
  key: string;
  match: MatchValue;
}

/**
 * Equality on payload keys, enough to select one scenario's client cohort:
 * a point passes when every `must` condition holds and no `mustNot` one does.
 * A point without the key fails a `must` and passes a `mustNot` condition.
 */
export interface PayloadFilter {
  must?: FieldMatch[];
  mustNot?: FieldMatch[];
}

export interface SearchOptions {
  /** At most this many points, nearest first (1..MAX_LIMIT). */
  limit: number;
  /** Only points with `score >= minScore` (§6.2.1's similarity threshold). */
  minScore?: number;
  filter?: PayloadFilter;
}

export interface VectorIndex {
  readonly kind: 'embedded' | 'qdrant';
  /**
   * Creates the collection (cosine similarity, `dimensions` per vector) unless
   * it exists with that dimension; an existing one with another dimension is an
   * `invalid_params` error (rule `dimensions`). Idempotent.
   */
  ensureCollection(name: string, dimensions: number): Promise<void>;
  /** Inserts or replaces points by id (the last of duplicate ids in one call wins). */
  upsert(collection: string, points: VectorPoint[]): Promise<void>;
  /** Nearest points first; ties in any order. */
  search(collection: string, vector: Float32Array | number[], opts: SearchOptions): Promise<ScoredPoint[]>;
  /** The stored points among `ids`, in the order asked; unknown ids are left out. */
  get(collection: string, ids: string[]): Promise<StoredPoint[]>;
  /** Removes points; unknown ids are ignored. */
  delete(collection: string, ids: string[]): Promise<void>;
  /** Exact number of points, optionally of those passing the filter. */
  count(collection: string, filter?: PayloadFilter): Promise<number>;
  /** Removes the collection and its points; a missing collection is not an error. */
  dropCollection(name: string): Promise<void>;
  /** Releases resources; every later call is an `unavailable` error (rule `closed`). */
  close(): Promise<void>;
}

/** Collection names: safe in Qdrant paths, file names and metric labels. */
export const COLLECTION_NAME_PATTERN = /^[a-z0-9_-]{1,64}$/;
/** Canonical UUID text (any version; Qdrant parses any RFC 4122 layout). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Payload and filter keys: plain identifiers, so Qdrant never reads them as nested paths. */
export const PAYLOAD_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Qdrant's limit on a dense vector's size. */
export const MAX_DIMENSIONS = 65_536;
/** Upper bound on `limit`: the pool asks for a few neighbours, never a scan. */
export const MAX_LIMIT = 10_000;

/**
 * The rule ids errors carry (`ParleyError.rule`), so callers and tests can tell
 * the cases apart without parsing messages.
 */
export const VECTOR_RULES = {
  collectionName: 'collection_name',
  collectionExists: 'collection_exists',
  dimensions: 'dimensions',
  distance: 'distance',
  finite: 'finite',
  nonZero: 'non_zero',
  uuid: 'uuid',
  payloadKey: 'payload_key',
  payloadValue: 'payload_value',
  matchValue: 'match_value',
  limit: 'limit',
  minScore: 'min_score',
  closed: 'closed',
  backend: 'backend',
} as const;
export type VectorRule = (typeof VECTOR_RULES)[keyof typeof VECTOR_RULES];
