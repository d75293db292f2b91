import { ParleyError } from './errors';

/**
 * The one check every value that crosses Parley's edge passes (JSON-RPC
 * params, MCP and A2A messages, gRPC requests): every string and every member
 * name is well-formed Unicode without NUL, and nesting stays within
 * MAX_EDGE_DEPTH. NUL is refused by PostgreSQL text columns and cuts strings
 * in C libraries; an unpaired surrogate (e.g. "\ud800") is not a Unicode
 * scalar value, cannot be encoded as UTF-8 and would be stored or relayed as
 * U+FFFD by one part and verbatim by another. Deep nesting costs stack in
 * every recursive walker downstream (schema compilers, canonical JSON).
 *
 * Linear in the size of the value; the walk itself is bounded by the depth.
 */
export const MAX_EDGE_DEPTH = 128;

/** Rule names of the check, as they appear in error.data.rule. */
export const EDGE_RULES = { nul: 'no_nul', surrogate: 'well_formed_unicode', depth: 'max_depth' } as const;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units, no `u` flag; linear). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/** `parent.key`, or `parent["key"]` (JSON-escaped, cut to 64 characters) when the key is not a plain identifier. */
export function memberPath(parent: string, key: string): string {
  if (IDENT.test(key)) return `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}]`;
}

function badString(s: string, path: string, what: string): ParleyError | undefined {
  const nul = s.indexOf('\u0000');
  if (nul >= 0) {
    return new ParleyError('invalid_params', `${path} holds a NUL character (U+0000) in its ${what} at index ${nul}: strings must not contain NUL`, {
      path,
      rule: EDGE_RULES.nul,
      details: { index: nul },
    });
  }
  const index = s.search(LONE_SURROGATE);
  if (index >= 0) {
    return new ParleyError('invalid_params', `${path} holds an unpaired UTF-16 surrogate in its ${what} at index ${index}: strings must be well-formed Unicode`, {
      path,
      rule: EDGE_RULES.surrogate,
      details: { index },
    });
  }
  return undefined;
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The first violation in `value` (whose key path is `root`), as a typed
 * `invalid_params` error naming the path and the rule; undefined when clean.
 * Values that are not JSON-like (buffers, dates of a decoded protobuf) are skipped.
 */
export function findEdgeViolation(value: unknown, root: string, maxDepth = MAX_EDGE_DEPTH): ParleyError | undefined {
  const walk = (v: unknown, path: string, depth: number): ParleyError | undefined => {
    if (typeof v === 'string') return badString(v, path, 'value');
    if (typeof v !== 'object' || v === null) return undefined;
    if (depth >= maxDepth) {
      return new ParleyError('invalid_params', `${path} is nested deeper than ${maxDepth} levels`, { path, rule: EDGE_RULES.depth, details: { max_depth: maxDepth } });
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const bad = walk(v[i], `${path}[${i}]`, depth + 1);
        if (bad) return bad;
      }
      return undefined;
    }
    if (!isPlainObject(v)) return undefined;
    for (const k of Object.keys(v)) {
      const at = memberPath(path, k);
      const badKey = badString(k, at, 'member name');
      if (badKey) return badKey;
      const bad = walk(v[k], at, depth + 1);
      if (bad) return bad;
    }
    return undefined;
  };
  return walk(value, root, 0);
}

/** Throws findEdgeViolation's error, if any. */
export function assertEdgeClean(value: unknown, root: string, maxDepth = MAX_EDGE_DEPTH): void {
  const bad = findEdgeViolation(value, root, maxDepth);
  if (bad) throw bad;
}
