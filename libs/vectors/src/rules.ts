/**
 * Argument checks and normalisation shared by both adapters, so the embedded
 * index and Qdrant refuse exactly the same calls with the same typed errors
 * (see the rules in port.ts). Every function either returns a normalised copy
 * or throws `ParleyError('invalid_params')` naming the path and the rule.
 */
import { ParleyError } from '@parley/protocol';
import {
  COLLECTION_NAME_PATTERN,
  MAX_DIMENSIONS,
  MAX_LIMIT,
  PAYLOAD_KEY_PATTERN,
  UUID_PATTERN,
  VECTOR_RULES,
  type FieldMatch,
  type Payload,
  type PayloadFilter,
  type PayloadValue,
  type SearchOptions,
  type VectorPoint,
  type VectorRule,
} from './port';

export function invalid(path: string, rule: VectorRule, message: string, details?: Record<string, unknown>): ParleyError {
  return new ParleyError('invalid_params', message, details ? { path, rule, details } : { path, rule });
}

export function missingCollection(name: string): ParleyError {
  return invalid('collection', VECTOR_RULES.collectionExists, `vector collection "${name}" does not exist (call ensureCollection first)`, {
    collection: name,
  });
}

export function closedError(kind: string): ParleyError {
  return new ParleyError('unavailable', `the ${kind} vector index is closed`, { rule: VECTOR_RULES.closed, details: { adapter: kind } });
}

const show = (v: unknown): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

export function checkCollectionName(name: unknown, path = 'collection'): string {
  if (typeof name !== 'string' || !COLLECTION_NAME_PATTERN.test(name)) {
    throw invalid(path, VECTOR_RULES.collectionName, `${path} must match ${COLLECTION_NAME_PATTERN.source} (got ${show(name)})`);
  }
  return name;
}

export function checkDimensions(dimensions: unknown): number {
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw invalid('dimensions', VECTOR_RULES.dimensions, `dimensions must be an integer in 1..${MAX_DIMENSIONS} (got ${show(dimensions)})`);
  }
  return dimensions;
}

/** The canonical (lowercase) form of a UUID id. */
export function checkId(id: unknown, path: string): string {
  if (typeof id !== 'string' || !UUID_PATTERN.test(id)) {
    throw invalid(path, VECTOR_RULES.uuid, `${path} must be a UUID such as 3f2b8c1e-5a4d-4c7e-9b1a-2d6f0e8c7a91 (got ${show(id)})`);
  }
  return id.toLowerCase();
}

/** Canonical ids, duplicates removed, first occurrence kept. */
export function checkIds(ids: unknown, path = 'ids'): string[] {
  if (!Array.isArray(ids)) throw invalid(path, VECTOR_RULES.uuid, `${path} must be an array of UUIDs`);
  const seen = new Set<string>();
  ids.forEach((id, i) => seen.add(checkId(id, `${path}[${i}]`)));
  return [...seen];
}

/**
 * An L2-normalised Float32 copy of `v`. Cosine similarity is undefined for a
 * zero vector, and NaN would poison every score, so both are refused.
 */
export function normalizedVector(v: unknown, dimensions: number, path: string): Float32Array {
  if (!(v instanceof Float32Array) && !Array.isArray(v)) {
    throw invalid(path, VECTOR_RULES.dimensions, `${path} must be a Float32Array or an array of numbers`);
  }
  if (v.length !== dimensions) {
    throw invalid(path, VECTOR_RULES.dimensions, `${path} has ${v.length} dimensions; the collection has ${dimensions}`, {
      expected: dimensions,
      actual: v.length,
    });
  }
  let sq = 0;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw invalid(`${path}[${i}]`, VECTOR_RULES.finite, `${path}[${i}] must be a finite number (got ${show(x)})`);
    }
    sq += x * x;
  }
  if (sq === 0) throw invalid(path, VECTOR_RULES.nonZero, `${path} is a zero vector; cosine similarity is undefined for it`);
  const inv = 1 / Math.sqrt(sq);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) * inv;
  return out;
}

function checkPayloadKey(key: string, path: string): void {
  // `__proto__` fits the pattern but would set a prototype when copied into a payload object.
  if (!PAYLOAD_KEY_PATTERN.test(key) || key === '__proto__') {
    throw invalid(path, VECTOR_RULES.payloadKey, `${path} must be an identifier matching ${PAYLOAD_KEY_PATTERN.source} (got ${show(key)})`);
  }
}

function checkPayloadValue(v: unknown, path: string): PayloadValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
  } else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    return [...(v as string[])];
  }
  throw invalid(path, VECTOR_RULES.payloadValue, `${path} must be a string, finite number, boolean, null or an array of strings (got ${show(v)})`);
}

/** A deep copy of a valid payload (the caller may mutate its object afterwards). */
export function checkPayload(payload: unknown, path: string): Payload {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw invalid(path, VECTOR_RULES.payloadValue, `${path} must be an object`);
  }
  const out: Payload = {};
  for (const [k, v] of Object.entries(payload)) {
    checkPayloadKey(k, `${path}.${k}`);
    out[k] = checkPayloadValue(v, `${path}.${k}`);
  }
  return out;
}

export interface PreparedPoint {
  id: string;
  vector: Float32Array;
  payload: Payload;
}

/** Validates a whole upsert before any write; duplicate ids collapse to the last one. */
export function preparePoints(points: unknown, dimensions: number): PreparedPoint[] {
  if (!Array.isArray(points)) throw invalid('points', VECTOR_RULES.payloadValue, 'points must be an array');
  const byId = new Map<string, PreparedPoint>();
  points.forEach((p: VectorPoint, i) => {
    const path = `points[${i}]`;
    if (typeof p !== 'object' || p === null) throw invalid(path, VECTOR_RULES.payloadValue, `${path} must be an object`);
    const id = checkId(p.id, `${path}.id`);
    const vector = normalizedVector(p.vector, dimensions, `${path}.vector`);
    const payload = checkPayload(p.payload ?? {}, `${path}.payload`);
    byId.delete(id); // re-insert so the order is that of the last occurrence
    byId.set(id, { id, vector, payload });
  });
  return [...byId.values()];
}

export interface CheckedFilter {
  must: FieldMatch[];
  mustNot: FieldMatch[];
}

function checkConditions(list: unknown, path: string): FieldMatch[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw invalid(path, VECTOR_RULES.matchValue, `${path} must be an array of { key, match }`);
  return list.map((c: FieldMatch, i) => {
    const at = `${path}[${i}]`;
    if (typeof c !== 'object' || c === null || typeof c.key !== 'string') {
      throw invalid(at, VECTOR_RULES.payloadKey, `${at} must be { key: string, match: string | integer | boolean }`);
    }
    checkPayloadKey(c.key, `${at}.key`);
    const m: unknown = c.match;
    if (typeof m !== 'string' && typeof m !== 'boolean' && !(typeof m === 'number' && Number.isSafeInteger(m))) {
      throw invalid(`${at}.match`, VECTOR_RULES.matchValue, `${at}.match must be a string, boolean or integer (got ${show(m)}); Qdrant cannot match floats`);
    }
    return { key: c.key, match: m };
  });
}

export function checkFilter(filter: unknown, path = 'filter'): CheckedFilter {
  if (filter === undefined) return { must: [], mustNot: [] };
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw invalid(path, VECTOR_RULES.matchValue, `${path} must be { must?: [...], mustNot?: [...] }`);
  }
  const f = filter as PayloadFilter;
  return { must: checkConditions(f.must, `${path}.must`), mustNot: checkConditions(f.mustNot, `${path}.mustNot`) };
}

export interface CheckedSearch {
  limit: number;
  minScore: number | undefined;
  filter: CheckedFilter;
}

export function checkSearchOptions(opts: unknown): CheckedSearch {
  if (typeof opts !== 'object' || opts === null) throw invalid('opts', VECTOR_RULES.limit, 'search options { limit } are required');
  const o = opts as SearchOptions;
  if (typeof o.limit !== 'number' || !Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_LIMIT) {
    throw invalid('opts.limit', VECTOR_RULES.limit, `opts.limit must be an integer in 1..${MAX_LIMIT} (got ${show(o.limit)})`);
  }
  if (o.minScore !== undefined && (typeof o.minScore !== 'number' || !Number.isFinite(o.minScore))) {
    throw invalid('opts.minScore', VECTOR_RULES.minScore, `opts.minScore must be a finite number (got ${show(o.minScore)})`);
  }
  return { limit: o.limit, minScore: o.minScore, filter: checkFilter(o.filter, 'opts.filter') };
}

function holds(value: PayloadValue | undefined, match: FieldMatch['match']): boolean {
  if (Array.isArray(value)) return value.some((x) => x === match);
  return value === match;
}

/** The filter's meaning, as Qdrant evaluates `must` / `must_not` match conditions. */
export function matchesFilter(payload: Payload, filter: CheckedFilter): boolean {
  for (const c of filter.must) if (!holds(payload[c.key], c.match)) return false;
  for (const c of filter.mustNot) if (holds(payload[c.key], c.match)) return false;
  return true;
}

export function isEmptyFilter(filter: CheckedFilter): boolean {
  return filter.must.length === 0 && filter.mustNot.length === 0;
}

export function copyPayload(p: Payload): Payload {
  const out: Payload = {};
  for (const [k, v] of Object.entries(p)) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}
