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
import type { Candidate, MappingExample } from './induce';
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

/** zhou §6.2.2 conflict detection for one candidate against the existing keys. */
export function detectConflict(candidate: Pick<Candidate, 'key' | 'examples'>, existing: readonly AcceptedKey[]): ConflictResult {
  const sig = keyNameSignature(candidate.key.key_name);
  const target = existing.find((k) => k.key_name !== OTHER_KEY && keyNameSignature(k.key_name) === sig);
  if (!target) return { kind: 'none', key: candidate.key };
  const match = target.key_name === candidate.key.key_name ? 'exact' : 'near';
  if (target.status === 'withdrawn' || target.warn) {
    return { kind: 'blocked', target, match, reason: `"${target.key_name}" is still accepted in payloads until ${String(target.accept_until)} (zhou §6.2.3 backward-compatibility window); its name cannot take a new meaning before then` };
  }
  const refined = refineDescription(target.definition, candidate.examples);
  if (refined.added === 0) {
    return { kind: 'redundant', target, match, reason: `"${target.key_name}" already covers the candidate's examples` };
  }
  return { kind: 'merge', target, match, modified: { key_name: target.key_name, semantic_description: refined.text }, examples_added: refined.added };
}

function fits(def: KeyDefinition, value: JsonValue): boolean {
  const typeOk =
    def.key_type === 'string' ? typeof value === 'string' : def.key_type === 'boolean' ? typeof value === 'boolean' : def.key_type === 'integer' ? Number.isInteger(value) : def.key_type === 'number' ? typeof value === 'number' : false;
  if (!typeOk) return false;
  return def.enum === undefined || def.enum.some((e) => e === value);
}

/** The existing description plus the candidate's new examples, within MAX_REFINED_DESCRIPTION_CHARS. */
export function refineDescription(def: KeyDefinition, examples: readonly MappingExample[]): { text: string; added: number } {
  const have = def.semantic_description.toLowerCase();
  const parts: string[] = [];
  for (const e of examples) {
    if (have.includes(`'${e.fragment.toLowerCase()}'`)) continue;
    const value = typeof e.value === 'string' ? `'${e.value}'` : JSON.stringify(e.value);
    parts.push(fits(def, e.value) ? `'${e.fragment}' -> ${value}` : `'${e.fragment}'`);
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
