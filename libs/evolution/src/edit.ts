/**
 * Operators correct what rules cannot (draft-zhou §6.2 "updates ... MUST be
 * authorized"; §6.2.2 intent induction is a heuristic): an edit of one key a
 * patch adds — a new name, its enum values, its type, its description.
 *
 * This module is the pure part: the edited definition and what kind of change
 * it is. Every bad edit is an `invalid_params` error naming the request member
 * (`params.rename`, `params.values[2]`, ...) and the rule, and changes nothing.
 *
 * What an edit may do depends on whether clients have seen the key
 * (libs/pool's evolver applies it):
 * - a proposed patch (no client has seen it): edited in place, any member;
 * - a published key still experimental: additive refinements only (zhou
 *   §6.2.2), so a new description or a widened enum is a refinement patch
 *   (`modified_keys`), while a new name is a new key plus the deprecation of
 *   the old one (`kind: 'replace'`): a published key is never renamed or
 *   retyped in place; a retype therefore needs a new name too;
 * - stable, deprecated and withdrawn keys are settled (zhou §6.2.3): no edit.
 */
import { CONSTRAINT_FITS, MAX_KEY_NAME_LENGTH, OTHER_KEY, ParleyError, RESERVED_KEY_NAMES, type JsonValue, type KeyDefinition, type KeyType } from '@parley/protocol';
import { assertValidCandidate, describeClosed, type InducedKind } from './induce';
import { keyNameSignature } from './names';
import { sanitizeFragment } from './sanitize';

/** The members of one edit; at least one is given. */
export interface KeyEdit {
  readonly rename?: string;
  /** The enum, as given (strings; numbers and booleans are parsed for integer, number and boolean keys). */
  readonly values?: readonly string[];
  readonly type?: string;
  readonly description?: string;
}

/** Types an operator may give a patch key (zhou §4.1 JSON Schema types; `null` is no key). */
export const EDITABLE_KEY_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;
export const MAX_EDIT_VALUES = 32;
export const MAX_EDIT_DESCRIPTION_CHARS = 1000;
const KEY_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** A closed-vocabulary value (zhou §7: read by other clients' LLMs): a short lowercase token. */
const VALUE_TOKEN = /^[a-z0-9][a-z0-9_-]{0,47}$/;

const bad = (path: string, rule: string, message: string, details?: Record<string, unknown>): never => {
  throw new ParleyError(rule === 'experimental_only' ? 'illegal_transition' : 'invalid_params', message, details ? { path, rule, details } : { path, rule });
};

function parseValue(raw: string, type: KeyType, path: string): JsonValue {
  if (typeof raw !== 'string' || raw === '') bad(path, 'value', `${path} must be a non-empty string`);
  switch (type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (!/^-?\d+(\.\d+)?$/.test(raw) || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) bad(path, 'value_type', `${path} "${raw.slice(0, 40)}" is not ${type === 'integer' ? 'an integer' : 'a number'} (the key is ${type})`);
      return n;
    }
    case 'string':
      if (!VALUE_TOKEN.test(raw)) bad(path, 'value_token', `${path} "${raw.slice(0, 40)}" is not a short lowercase token (a-z, 0-9, _ or -, at most 48): values are read by other clients' LLMs (zhou §7)`);
      return raw;
    default:
      return bad(path, 'value_type', `a ${type} key takes no enum values`);
  }
}

/** Whether every value fits a type (an enum kept across a retype). */
function fitsType(v: JsonValue, type: KeyType): boolean {
  return type === 'string' ? typeof v === 'string' : type === 'integer' ? Number.isInteger(v) : type === 'number' ? typeof v === 'number' : false;
}

export interface EditedKey {
  readonly definition: KeyDefinition;
  /** What changed, for the decision record. */
  readonly changed: readonly ('rename' | 'values' | 'type' | 'description')[];
  /** The enum was removed because it does not fit the new type (recorded with the decision). */
  readonly enum_removed: boolean;
}

/**
 * The definition after `edit`, checked: a snake_case name that is not `other`
 * or reserved, values that are closed-vocabulary tokens of the key's type,
 * distinct, a description free of what sanitising flags, and a result that is
 * a valid key definition (zhou §4.1). Throws `invalid_params` naming the member.
 */
export function editKeyDefinition(def: KeyDefinition, edit: KeyEdit): EditedKey {
  if (edit === null || typeof edit !== 'object') bad('params', 'type', 'an edit is an object with rename, values, type or description');
  const given = (['rename', 'values', 'type', 'description'] as const).filter((m) => edit[m] !== undefined);
  if (given.length === 0) bad('params', 'required', 'an edit needs at least one of rename, values, type, description');
  const next: KeyDefinition = { ...def };
  const changed: EditedKey['changed'][number][] = [];
  let enumRemoved = false;

  if (edit.rename !== undefined) {
    const n = edit.rename;
    if (typeof n !== 'string' || !KEY_NAME.test(n) || n.length > MAX_KEY_NAME_LENGTH) {
      bad('params.rename', 'key_name', `rename must be a snake_case key name of at most ${MAX_KEY_NAME_LENGTH} characters (zhou §4.1), got ${JSON.stringify(String(n).slice(0, 80))}`);
    }
    if (n === OTHER_KEY || (RESERVED_KEY_NAMES as readonly string[]).includes(n)) bad('params.rename', 'reserved', `"${n}" is reserved (zhou §4.3)`);
    if (n !== def.key_name) {
      next.key_name = n;
      changed.push('rename');
    }
  }
  if (edit.type !== undefined) {
    const t = edit.type;
    if (!(EDITABLE_KEY_TYPES as readonly string[]).includes(t)) bad('params.type', 'enum', `type must be one of ${EDITABLE_KEY_TYPES.join(', ')}, got ${JSON.stringify(String(t).slice(0, 40))}`);
    if (t !== def.key_type) {
      next.key_type = t as KeyType;
      changed.push('type');
      for (const [m, fits] of Object.entries(CONSTRAINT_FITS)) if (!fits.includes(next.key_type)) delete (next as unknown as Record<string, unknown>)[m];
      if (next.key_type === 'array' && next.items_type === undefined) next.items_type = 'string';
      if (next.enum !== undefined && edit.values === undefined && !next.enum.every((v) => fitsType(v, next.key_type))) {
        delete next.enum;
        enumRemoved = true;
      }
    }
  }
  if (edit.values !== undefined) {
    const vs = edit.values;
    if (!Array.isArray(vs) || vs.length === 0) bad('params.values', 'non_empty', 'values must be a non-empty list');
    if (vs.length > MAX_EDIT_VALUES) bad('params.values', 'max_items', `at most ${MAX_EDIT_VALUES} values`);
    const parsed = vs.map((v, i) => parseValue(v, next.key_type, `params.values[${i}]`));
    const seen = new Set<string>();
    parsed.forEach((v, i) => {
      const k = JSON.stringify(v);
      if (seen.has(k)) bad(`params.values[${i}]`, 'unique', `value ${k} is listed twice`);
      seen.add(k);
    });
    const before = JSON.stringify(def.enum ?? null);
    next.enum = parsed;
    if (JSON.stringify(parsed) !== before || changed.includes('type')) changed.push('values');
  }
  if (edit.description !== undefined) {
    const d = edit.description;
    if (typeof d !== 'string' || d.trim() === '') bad('params.description', 'required', 'description must be a non-empty string');
    if (d.length > MAX_EDIT_DESCRIPTION_CHARS) bad('params.description', 'max_length', `description is at most ${MAX_EDIT_DESCRIPTION_CHARS} characters`);
    // zhou §7: other clients' LLMs read it; what sanitising would flag (instructions, markup, URLs, personal data) is refused.
    const flags = sanitizeFragment(d, MAX_EDIT_DESCRIPTION_CHARS).flags.filter((f) => f !== 'truncated');
    if (flags.length > 0) bad('params.description', 'sanitize', `description carries what zhou §7 keeps out of descriptions: ${flags.join(', ')}`, { flags });
    if (d.trim() !== def.semantic_description) {
      next.semantic_description = d.trim();
      changed.push('description');
    }
  }
  if (changed.length === 0 && !enumRemoved) bad('params', 'changes_something', `the edit leaves "${def.key_name}" as it is`);
  // A new name, type or values without a new description: the closed-vocabulary description follows them (zhou §7),
  // so what clients read never describes the key as it was.
  if (!changed.includes('description') && (changed.some((c) => c !== 'description') || enumRemoved)) {
    const origin = /Learned from (\d+) (client request|client)s?\b/.exec(def.semantic_description);
    if (origin) {
      const kind: InducedKind = next.enum !== undefined ? 'enum' : next.key_type === 'boolean' ? 'boolean' : next.key_type === 'integer' || next.key_type === 'number' ? 'numeric' : next.key_type === 'array' ? 'list' : next.format === 'date' ? 'date' : 'string';
      const values = (next.enum ?? []).map((value) => ({ value, count: 0 }));
      next.semantic_description = describeClosed(next, kind, values, Number(origin[1]), origin[2] === 'client').semantic_description;
    }
  }
  try {
    assertValidCandidate(next);
  } catch (e) {
    const path = changed.includes('values') ? 'params.values' : changed.includes('type') ? 'params.type' : 'params';
    bad(path, 'key_definition', `the edited key is not a valid key definition (zhou §4.1): ${(e as Error).message}`);
  }
  return { definition: next, changed, enum_removed: enumRemoved };
}

export type EditPlan =
  /** Nobody has seen the key: replace its definition in the patch. */
  | { readonly kind: 'in_place'; readonly definition: KeyDefinition }
  /** A published experimental key: a refinement patch (a new description, a widened enum). */
  | { readonly kind: 'refine'; readonly key_name: string; readonly semantic_description: string; readonly enum?: readonly JsonValue[] }
  /** A published experimental key under a new name: a new key, and the old one deprecated. */
  | { readonly kind: 'replace'; readonly definition: KeyDefinition };

/**
 * How an edit reaches clients. `published` is whether clients have seen the
 * key (an active patch); `state` its lifecycle state. Throws for a settled key,
 * a retype in place, and an enum that drops values clients may already send.
 */
export function planKeyEdit(before: KeyDefinition, edited: EditedKey, published: boolean, state: string): EditPlan {
  if (!published) return { kind: 'in_place', definition: edited.definition };
  if (state !== 'experimental') {
    bad('params.key', 'experimental_only', `"${before.key_name}" is ${state}: only proposed patches and experimental keys can be edited (zhou §6.2.3 settles the others)`, { state });
  }
  const after = edited.definition;
  if (edited.changed.includes('rename')) {
    if (keyNameSignature(after.key_name) === keyNameSignature(before.key_name)) {
      bad('params.rename', 'key_exists', `"${after.key_name}" is "${before.key_name}" in another spelling: a published key keeps its name`);
    }
    return { kind: 'replace', definition: after };
  }
  // zhou §6.2.2: a published key is never retyped; a better type is a new key.
  if (edited.changed.includes('type') || edited.enum_removed) bad('params.type', 'retype_needs_rename', `"${before.key_name}" is published: a new type needs a new name too (rename), and the old key is deprecated`);
  let values: readonly JsonValue[] | undefined;
  if (edited.changed.includes('values')) {
    const old = before.enum;
    if (!Array.isArray(old)) bad('params.values', 'enum_superset', `"${before.key_name}" is published without an enum: adding one would refuse values clients may already send; rename to make a new key`);
    const dropped = (old as JsonValue[]).filter((v) => !(after.enum ?? []).includes(v));
    if (dropped.length > 0) {
      bad('params.values', 'enum_superset', `"${before.key_name}" is published: its enum only widens (zhou §6.2.2 additive); ${dropped.map(String).join(', ')} would be dropped; rename to make a new key`, { dropped });
    }
    values = after.enum;
  }
  return { kind: 'refine', key_name: before.key_name, semantic_description: after.semantic_description, ...(values ? { enum: values } : {}) };
}
