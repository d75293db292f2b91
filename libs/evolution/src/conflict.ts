/**
 * Conflict detection (zhou §6.2.2 "Conflict Detection: Before finalizing the
 * patch, the server agent MUST check that the candidate key_name does not
 * collide with existing keys in the base schema or active patches. If a
 * collision occurs, the server agent SHOULD merge the candidate into the
 * existing key by refining its semantic_description rather than creating a
 * duplicate.")
 *
 * - Names collide when they have the same words up to plural/singular and
 *   order (names.ts): `seat_preferences` collides with `seat_preference`.
 * - The keys checked are those the candidate's audience already has: for a
 *   global candidate the base and the global patches, for a per-client one
 *   also that client's patches (`existingKeysFor`), including withdrawn keys
 *   still accepted in payloads.
 * - A collision with a live key (base, experimental, stable, deprecated)
 *   becomes a `modified_keys` entry: the existing description plus the
 *   candidate's real fragments as examples. A fragment's value is quoted only
 *   when it is valid for the existing key (same type, inside its enum), so the
 *   refinement never teaches a client a value the key rejects. Examples the
 *   description already has are not repeated; nothing new → `redundant`.
 * - A collision with a withdrawn key still in its compatibility window is
 *   `blocked`: reusing the name would give old clients' payloads a new meaning.
 */
import { OTHER_KEY, type JsonValue, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { singular, type Candidate, type MappingExample } from './induce';
import { keyNameSignature } from './names';
import { acceptedKeys, type AcceptedKey, type ModifiedKey, type SchemaPatch } from './patch';
import { scopeClient, type Scope } from './scope';

export const MAX_REFINED_DESCRIPTION_CHARS = 1000;

export type ConflictResult =
  | { readonly kind: 'none'; readonly key: KeyDefinition }
  | { readonly kind: 'merge'; readonly target: AcceptedKey; readonly match: 'exact' | 'near'; readonly modified: ModifiedKey; readonly examples_added: number }
  | { readonly kind: 'redundant'; readonly target: AcceptedKey; readonly match: 'exact' | 'near'; readonly reason: string }
  | { readonly kind: 'blocked'; readonly target: AcceptedKey; readonly match: 'exact' | 'near'; readonly reason: string };

/** The keys a candidate for `scope` must not collide with at `now`. */
export function existingKeysFor(base: SchemaTemplate, patches: readonly SchemaPatch[], scope: Scope, now: number, compatibilityWindowMs?: number): AcceptedKey[] {
  return acceptedKeys(base, patches, scopeClient(scope), now, compatibilityWindowMs);
}

/** The existing key a candidate is the same intent as: same name signature, the key the inducer named, or its concept word in a key's name with the same type. */
function sameIntent(candidate: Pick<Candidate, 'key'> & { readonly refines?: string | null }, existing: readonly AcceptedKey[]): AcceptedKey | undefined {
  const live = existing.filter((k) => k.key_name !== OTHER_KEY);
  const sig = keyNameSignature(candidate.key.key_name);
  const bySig = live.find((k) => keyNameSignature(k.key_name) === sig);
  if (bySig) return bySig;
  if (candidate.refines) {
    const named = live.find((k) => k.key_name === candidate.refines);
    if (named) return named;
  }
  const enumValues = candidate.key.enum ?? [];
  if (enumValues.length > 0) {
    const byValues = live.find((k) => {
      if (!Array.isArray(k.definition.enum) || k.definition.key_type !== candidate.key.key_type) return false;
      const overlap = enumValues.filter((v) => (k.definition.enum as readonly JsonValue[]).includes(v)).length;
      return overlap >= Math.min(2, enumValues.length, k.definition.enum.length) && overlap * 2 >= enumValues.length;
    });
    if (byValues) return byValues;
  }
  return undefined;
}

/** Closed-vocabulary words of a candidate's name (zhou §7): its words less the fixed affixes. */
function namePhrase(keyName: string): string {
  return keyName
    .split('_')
    .filter((w) => !['needs', 'wants', 'preference', 'ids', 'count'].includes(w))
    .join(' ');
}

/** zhou §6.2.2 conflict detection for one candidate against the existing keys. */
export function detectConflict(candidate: Pick<Candidate, 'key' | 'examples'> & { readonly refines?: string | null }, existing: readonly AcceptedKey[]): ConflictResult {
  const target = sameIntent(candidate, existing);
  if (!target) return { kind: 'none', key: candidate.key };
  const match = target.key_name === candidate.key.key_name ? 'exact' : 'near';
  if (target.status === 'withdrawn' || target.warn) {
    return { kind: 'blocked', target, match, reason: `"${target.key_name}" is still accepted in payloads until ${String(target.accept_until)} (zhou §6.2.3 backward-compatibility window); its name cannot take a new meaning before then` };
  }
  const refined = refineDescription(target.definition, candidate.examples, namePhrase(candidate.key.key_name));
  // A patch key still experimental may gain the candidate's new values (zhou §6.2.2 modified_keys); base keys never (only descriptions).
  const widen = target.status === 'experimental' ? newEnumValues(target.definition, candidate.key) : [];
  if (refined.added === 0 && widen.length === 0) {
    return { kind: 'redundant', target, match, reason: `"${target.key_name}" already covers the candidate's examples` };
  }
  const modified: ModifiedKey = {
    key_name: target.key_name,
    semantic_description: widen.length > 0 ? withValues(refined.text, [...(target.definition.enum ?? []), ...widen]) : refined.text,
    ...(widen.length > 0 ? { enum: [...(target.definition.enum ?? []), ...widen] } : {}),
  };
  return { kind: 'merge', target, match, modified, examples_added: refined.added + widen.length };
}

/** Values of the candidate's enum the existing enum lacks (same type), in the candidate's order. */
export function newEnumValues(existing: KeyDefinition, candidate: KeyDefinition): JsonValue[] {
  if (!Array.isArray(existing.enum) || !Array.isArray(candidate.enum) || existing.key_type !== candidate.key_type) return [];
  return candidate.enum.filter((v) => !(existing.enum as readonly JsonValue[]).includes(v));
}

/** A description's "one of a, b, c" list rewritten with the widened values (closed vocabulary: the values only). */
export function withValues(description: string, values: readonly JsonValue[]): string {
  const list = values.map(String).join(', ');
  return /one of [^.]*\./.test(description) ? description.replace(/one of [^.]*\./, `one of ${list}.`) : `${description.trim()} Values: ${list}.`;
}

function fits(def: KeyDefinition, value: JsonValue): boolean {
  const typeOk =
    def.key_type === 'string' ? typeof value === 'string' : def.key_type === 'boolean' ? typeof value === 'boolean' : def.key_type === 'integer' ? Number.isInteger(value) : def.key_type === 'number' ? typeof value === 'number' : false;
  if (!typeOk) return false;
  return def.enum === undefined || def.enum.some((e) => e === value);
}

/** A phrase of closed-vocabulary tokens (zhou §7): never fragment text. */
const SAFE_PHRASE = /^[a-z0-9][a-z0-9 :_-]{0,59}$/;

/**
 * The existing description plus what the candidate adds, within
 * MAX_REFINED_DESCRIPTION_CHARS: the candidate's concept phrase and its
 * mapping examples, both composed of closed-vocabulary tokens (zhou §7). An
 * example's value is quoted only when it is valid for the existing key.
 */
export function refineDescription(def: KeyDefinition, examples: readonly MappingExample[], phrase = ''): { text: string; added: number } {
  const have = def.semantic_description.toLowerCase();
  const parts: string[] = [];
  // The candidate's concept phrase, unless the key's own name already says it.
  const own = new Set(def.key_name.split('_').map(singular));
  if (phrase !== '' && SAFE_PHRASE.test(phrase) && !have.includes(`"${phrase}"`) && !phrase.split(' ').every((w) => own.has(singular(w)))) parts.push(`"${phrase}"`);
  for (const e of examples) {
    const f = e.fragment.toLowerCase();
    if (!SAFE_PHRASE.test(e.fragment) || have.includes(`"${f}"`) || have.includes(`'${f}'`)) continue;
    const value = typeof e.value === 'string' ? `"${e.value}"` : JSON.stringify(e.value);
    if (fits(def, e.value)) parts.push(`"${e.fragment}" -> ${value}`);
  }
  const base = def.semantic_description.trim();
  const sep = /[.!?]$/.test(base) ? ' ' : '. ';
  while (parts.length > 0) {
    const text = `${base}${sep}Clients also ask for it as: ${parts.join('; ')}.`;
    if (text.length <= MAX_REFINED_DESCRIPTION_CHARS) return { text, added: parts.length };
    parts.pop();
  }
  return { text: base, added: 0 };
}
