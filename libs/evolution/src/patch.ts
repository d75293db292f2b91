/**
 * Patch packaging and the effective template (zhou §6.2.2 "Patch Packaging",
 * "Base Schema", "Personalized Adaptation"; §6.2.3 flags).
 *
 * A patch MUST carry patch_id, parent_schema_id, timestamp and an expiration
 * date (§6.2.2); new keys begin experimental (§6.2.3) and carry their own
 * lifecycle record (lifecycle.ts moves it). Times are epoch ms; the services
 * render ISO 8601 on the wire.
 *
 * The effective template a client negotiates is the base plus the active
 * global patches and that client's own patches, in timestamp order (`patchesFor`):
 * - base keys are never removed or retyped (§6.2.2 MUST): a patch can only add
 *   keys and refine semantic_descriptions (a `ModifiedKey` has no other member);
 * - a patch key is flagged `experimental: true` or `deprecated: true`; stable
 *   keys carry no flag; withdrawn keys are left out of the template but still
 *   accepted in payloads for the compatibility window (`acceptedKeys`, §6.2.3);
 * - `expires_at` bounds the experimental phase: a key still experimental after
 *   it is no longer offered (but still accepted for the compatibility window),
 *   and a patch's description refinements stop applying. Stable and deprecated
 *   keys follow their lifecycle. The evaluator deprecates such keys anyway
 *   (lifecycle.ts); this keeps the template right if it has not run yet;
 * - only patches whose parent_schema_id is the base's apply; a patch key whose
 *   name collides with a key already in place is skipped (reported in `ignored`).
 *
 * libs/protocol's KeyDefinition carries the two flags, so an effective
 * template is served as a template as it is.
 */
import { OTHER_KEY, scenarioId, type JsonValue, type KeyDefinition, type SchemaTemplate } from '@parley/protocol';
import { DAY_MS } from './config';
import { assertFinite, evolutionError } from './errors';
import { assertValidCandidate } from './induce';
import { keyNameSignature } from './names';
import { scopeClient, scopeKey, type Scope } from './scope';

/** zhou §6.2.3 key states. */
export const KEY_STATES = ['experimental', 'stable', 'deprecated', 'withdrawn'] as const;
export type KeyState = (typeof KEY_STATES)[number];

export interface LifecycleTransition {
  readonly from: KeyState;
  readonly to: KeyState;
  readonly at: number;
  readonly reasons: readonly string[];
  /** The metrics that drove the decision (lifecycle.ts KeyMetrics), as recorded. */
  readonly figures: Readonly<Record<string, number | null>>;
}

export interface KeyLifecycle {
  readonly state: KeyState;
  readonly introduced_at: number;
  readonly state_since: number;
  /** For a withdrawn key: accepted in payloads until then (zhou §6.2.3 backward-compatibility window). */
  readonly accept_until: number | null;
  readonly history: readonly LifecycleTransition[];
}

export interface PatchKey {
  readonly definition: KeyDefinition;
  readonly lifecycle: KeyLifecycle;
}

/**
 * zhou §6.2.2: only additive or semantic-description refinements. A base key
 * takes a new semantic_description only; a patch key may also gain enum values
 * (`enum`, a superset of its own: additive, never a rename or a retype).
 */
export interface ModifiedKey {
  readonly key_name: string;
  readonly semantic_description: string;
  readonly enum?: readonly JsonValue[];
}

export interface SchemaPatch {
  readonly patch_id: string;
  readonly parent_schema_id: string;
  /** Canonical scenario id. */
  readonly scenario: string;
  readonly scope: Scope;
  /** Epoch ms the patch was packaged. */
  readonly timestamp: number;
  /** Epoch ms the experimental phase must end (zhou §6.2.2 "an expiration date"). */
  readonly expires_at: number;
  /** The cluster it came from, when it came from one. */
  readonly source_cluster_id: string | null;
  readonly new_keys: readonly PatchKey[];
  readonly modified_keys: readonly ModifiedKey[];
}

/**
 * A key definition as an effective template carries it: libs/protocol's
 * KeyDefinition, whose `experimental` / `deprecated` members are the
 * lifecycle flags of zhou §6.2.3 ('advertised with an "experimental: true"
 * flag'; deprecated keys 'remain in the schema for a grace period with a
 * "deprecated: true" flag'). Set here only to `true`, and only on patch keys.
 */
export type EffectiveKeyDefinition = KeyDefinition;

export interface EffectiveSchemaTemplate {
  readonly schema_id: string;
  readonly scenario: string;
  readonly keys: readonly EffectiveKeyDefinition[];
}

export interface IgnoredPatchItem {
  readonly patch_id: string;
  readonly key_name: string | null;
  readonly reason: 'parent_mismatch' | 'scenario_mismatch' | 'not_yet_active' | 'patch_expired' | 'collision' | 'target_missing' | 'withdrawn' | 'other_scope';
}

export interface EffectiveTemplate {
  readonly template: EffectiveSchemaTemplate;
  /** Patches that contributed at least one key or refinement, in order. */
  readonly applied_patches: readonly string[];
  /** key_name → 'base' or the patch_id that added it. */
  readonly key_origins: Readonly<Record<string, string>>;
  readonly ignored: readonly IgnoredPatchItem[];
}

export const DEFAULT_PATCH_TTL_MS = 30 * DAY_MS;

export interface PackagePatchInput {
  readonly patch_id: string;
  readonly base: SchemaTemplate;
  readonly scope: Scope;
  readonly timestamp: number;
  /** Default timestamp + 30 days (the §6.2.3 observation window). */
  readonly expires_at?: number;
  readonly new_keys?: readonly KeyDefinition[];
  readonly modified_keys?: readonly ModifiedKey[];
  readonly source_cluster_id?: string | null;
}

/** zhou §6.2.2 Patch Packaging. Throws `invalid_params` (rule `patch_invalid`) on a patch that breaks a rule. */
export function packagePatch(input: PackagePatchInput): SchemaPatch {
  const { base, timestamp } = input;
  assertFinite('timestamp', timestamp);
  const expires = input.expires_at ?? timestamp + DEFAULT_PATCH_TTL_MS;
  assertFinite('expires_at', expires);
  const bad = (path: string, msg: string): never => {
    throw evolutionError('patch_invalid', path, msg);
  };
  if (typeof input.patch_id !== 'string' || input.patch_id.trim() === '') bad('patch_id', 'zhou §6.2.2: a patch MUST carry a patch_id');
  if (typeof base.schema_id !== 'string' || base.schema_id === '') bad('parent_schema_id', 'zhou §6.2.2: a patch MUST carry a parent_schema_id');
  if (expires <= timestamp) bad('expires_at', 'the expiration date must be after the timestamp');
  if (input.scope !== 'global') scopeClient(input.scope);
  const newKeys = input.new_keys ?? [];
  const modified = input.modified_keys ?? [];
  if (newKeys.length === 0 && modified.length === 0) bad('new_keys', 'zhou §6.2.2: a patch contains new_keys, modified_keys, or both');
  const baseSigs = new Map(base.keys.map((k) => [keyNameSignature(k.key_name), k.key_name]));
  const seen = new Set<string>();
  newKeys.forEach((k, i) => {
    assertValidCandidate(k);
    // zhou §6.2: the mechanism is backward-compatible; a new required key would reject every client that does not know it.
    if (k.required) bad(`new_keys[${i}].required`, 'a patch key must be optional (required: false): clients that do not know it must keep working');
    const sig = keyNameSignature(k.key_name);
    const clash = baseSigs.get(sig);
    // zhou §6.2.2: base keys are never redefined by a patch; a colliding candidate is a refinement (conflict.ts).
    if (clash !== undefined) bad(`new_keys[${i}].key_name`, `"${k.key_name}" collides with base key "${clash}": refine it with modified_keys instead (zhou §6.2.2)`);
    if (seen.has(sig)) bad(`new_keys[${i}].key_name`, `"${k.key_name}" is listed twice`);
    seen.add(sig);
  });
  modified.forEach((m, i) => {
    if (m.key_name === OTHER_KEY) bad(`modified_keys[${i}].key_name`, 'the "other" key is not refined by patches (zhou §4.3)');
    if (typeof m.semantic_description !== 'string' || m.semantic_description.trim() === '') bad(`modified_keys[${i}].semantic_description`, 'a refinement needs a semantic_description');
    const allowed = new Set(['key_name', 'semantic_description', 'enum']);
    for (const member of Object.keys(m)) if (!allowed.has(member)) bad(`modified_keys[${i}].${member}`, `zhou §6.2.2: a patch may refine only semantic_description (and widen a patch key's enum), not ${member}`);
    if (m.enum !== undefined) {
      // zhou §6.2.2 "Base schema keys MUST NOT ... have their types changed": a base key's enum is its own.
      if (base.keys.some((k) => k.key_name === m.key_name)) bad(`modified_keys[${i}].enum`, `"${m.key_name}" is a base key: a patch refines only its semantic_description (zhou §6.2.2)`);
      if (!Array.isArray(m.enum) || m.enum.length === 0) bad(`modified_keys[${i}].enum`, 'enum must be a non-empty array');
    }
  });
  return {
    patch_id: input.patch_id,
    parent_schema_id: base.schema_id,
    scenario: scenarioId(base.scenario),
    scope: input.scope,
    timestamp,
    expires_at: expires,
    source_cluster_id: input.source_cluster_id ?? null,
    // zhou §6.2.3: "All new keys introduced via dynamic patches MUST begin in an experimental state".
    new_keys: newKeys.map((definition) => ({
      definition: { ...definition },
      lifecycle: { state: 'experimental', introduced_at: timestamp, state_since: timestamp, accept_until: null, history: [] },
    })),
    modified_keys: modified.map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) })),
  };
}

/**
 * The patches that apply to `clientId` (global ones and its own) in
 * application order: by timestamp, a global patch before a client's at the
 * same time, then by patch_id. When a global and a per-client patch add the
 * same key name, the earlier one wins for that client: a key name keeps one
 * meaning for a client for as long as it is offered.
 */
export function patchesFor(patches: readonly SchemaPatch[], clientId: string | null): SchemaPatch[] {
  const rank = (p: SchemaPatch): number => (p.scope === 'global' ? 0 : 1);
  return patches
    .filter((p) => p.scope === 'global' || (clientId !== null && scopeClient(p.scope) === clientId))
    .sort((a, b) => a.timestamp - b.timestamp || rank(a) - rank(b) || (a.patch_id < b.patch_id ? -1 : a.patch_id > b.patch_id ? 1 : 0));
}

/** Whether a patch key is offered in templates at `now`, and with which flag. */
export function keyVisibility(patch: SchemaPatch, key: PatchKey, now: number): 'experimental' | 'stable' | 'deprecated' | 'hidden' {
  const st = key.lifecycle.state;
  if (st === 'stable') return 'stable';
  if (st === 'deprecated') return 'deprecated';
  if (st === 'experimental') return now < patch.expires_at ? 'experimental' : 'hidden';
  return 'hidden';
}

/**
 * zhou §6.2.2 / §6.2.3: the template `clientId` negotiates at `now`: base +
 * active global patches + its own patches, patch keys flagged. Pass
 * `clientId` null for the global view.
 */
export function effectiveTemplate(base: SchemaTemplate, patches: readonly SchemaPatch[], clientId: string | null, now: number): EffectiveTemplate {
  assertFinite('now', now);
  const keys: EffectiveKeyDefinition[] = base.keys.map((k) => ({ ...k }));
  const origins: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const k of base.keys) origins[k.key_name] = 'base';
  const sigs = new Set(base.keys.map((k) => keyNameSignature(k.key_name)));
  const ignored: IgnoredPatchItem[] = [];
  const applied: string[] = [];
  const baseScenario = scenarioId(base.scenario);

  for (const p of patchesFor(patches, clientId)) {
    if (p.parent_schema_id !== base.schema_id) {
      ignored.push({ patch_id: p.patch_id, key_name: null, reason: 'parent_mismatch' });
      continue;
    }
    if (p.scenario !== baseScenario) {
      ignored.push({ patch_id: p.patch_id, key_name: null, reason: 'scenario_mismatch' });
      continue;
    }
    if (p.timestamp > now) {
      ignored.push({ patch_id: p.patch_id, key_name: null, reason: 'not_yet_active' });
      continue;
    }
    let contributed = false;
    for (const pk of p.new_keys) {
      const name = pk.definition.key_name;
      const vis = keyVisibility(p, pk, now);
      if (vis === 'hidden') {
        ignored.push({ patch_id: p.patch_id, key_name: name, reason: pk.lifecycle.state === 'withdrawn' ? 'withdrawn' : 'patch_expired' });
        continue;
      }
      const sig = keyNameSignature(name);
      if (sigs.has(sig)) {
        // Base keys are never replaced (zhou §6.2.2); an earlier patch's key wins over a later one (patchesFor).
        ignored.push({ patch_id: p.patch_id, key_name: name, reason: 'collision' });
        continue;
      }
      sigs.add(sig);
      const def: EffectiveKeyDefinition = { ...pk.definition };
      if (vis === 'experimental') def.experimental = true;
      if (vis === 'deprecated') def.deprecated = true;
      insertBeforeOther(keys, def);
      origins[name] = p.patch_id;
      contributed = true;
    }
    for (const m of p.modified_keys) {
      if (now >= p.expires_at) {
        ignored.push({ patch_id: p.patch_id, key_name: m.key_name, reason: 'patch_expired' });
        continue;
      }
      const i = keys.findIndex((k) => k.key_name === m.key_name);
      if (i < 0 || m.key_name === OTHER_KEY) {
        ignored.push({ patch_id: p.patch_id, key_name: m.key_name, reason: 'target_missing' });
        continue;
      }
      // Only the description changes: never the type, the requiredness or the constraints (zhou §6.2.2 MUST).
      // A patch key's enum may widen (a superset of its own values); a base key's never.
      const cur = keys[i] as EffectiveKeyDefinition;
      const widen = m.enum !== undefined && origins[m.key_name] !== 'base' && Array.isArray(cur.enum) && cur.enum.every((v) => (m.enum as readonly JsonValue[]).includes(v));
      keys[i] = { ...cur, semantic_description: m.semantic_description, ...(widen ? { enum: [...(m.enum as readonly JsonValue[])] } : {}) };
      contributed = true;
    }
    if (contributed) applied.push(p.patch_id);
  }
  return { template: { schema_id: base.schema_id, scenario: base.scenario, keys }, applied_patches: applied, key_origins: origins, ignored };
}

function insertBeforeOther(keys: EffectiveKeyDefinition[], def: EffectiveKeyDefinition): void {
  const i = keys.findIndex((k) => k.key_name === OTHER_KEY);
  if (i < 0) keys.push(def);
  else keys.splice(i, 0, def);
}

export interface AcceptedKey {
  readonly key_name: string;
  /** The definition to validate the value against (flags stripped). */
  readonly definition: KeyDefinition;
  readonly status: 'base' | KeyState;
  /** zhou §6.2.3: a withdrawn key is accepted but the server "SHOULD log a warning". */
  readonly warn: boolean;
  /** Accepted until then (null: as long as the template offers it). */
  readonly accept_until: number | null;
  readonly origin: string;
}

/**
 * zhou §6.2.3: every key a payload from `clientId` may carry at `now`: the
 * effective template's keys plus withdrawn (or expired experimental) patch
 * keys still inside the backward-compatibility window. For the validator.
 */
export function acceptedKeys(base: SchemaTemplate, patches: readonly SchemaPatch[], clientId: string | null, now: number, compatibilityWindowMs: number = 30 * DAY_MS): AcceptedKey[] {
  const eff = effectiveTemplate(base, patches, clientId, now);
  const out: AcceptedKey[] = eff.template.keys.map((k) => {
    const { experimental, deprecated, ...definition } = k;
    const origin = eff.key_origins[k.key_name] ?? 'base';
    const status: AcceptedKey['status'] = origin === 'base' ? 'base' : experimental ? 'experimental' : deprecated ? 'deprecated' : 'stable';
    return { key_name: k.key_name, definition, status, warn: false, accept_until: null, origin };
  });
  const names = new Set(out.map((k) => keyNameSignature(k.key_name)));
  for (const p of patchesFor(patches, clientId)) {
    if (p.parent_schema_id !== base.schema_id || p.timestamp > now) continue;
    for (const pk of p.new_keys) {
      const sig = keyNameSignature(pk.definition.key_name);
      if (names.has(sig)) continue;
      const until =
        pk.lifecycle.state === 'withdrawn' ? (pk.lifecycle.accept_until ?? pk.lifecycle.state_since + compatibilityWindowMs) : pk.lifecycle.state === 'experimental' ? p.expires_at + compatibilityWindowMs : null;
      if (until === null || now >= until) continue;
      names.add(sig);
      out.push({ key_name: pk.definition.key_name, definition: { ...pk.definition }, status: pk.lifecycle.state, warn: true, accept_until: until, origin: p.patch_id });
    }
  }
  return out;
}

/** The wire form of a patch for a client (zhou §6.2.2 Online Update Delivery, Figure 9's schema_update_suggestion). */
export function patchForDelivery(patch: SchemaPatch, now: number): {
  patch_id: string;
  parent_schema_id: string;
  scope: string;
  timestamp: number;
  expires_at: number;
  new_keys: EffectiveKeyDefinition[];
  modified_keys: ModifiedKey[];
} {
  const newKeys: EffectiveKeyDefinition[] = [];
  for (const pk of patch.new_keys) {
    const vis = keyVisibility(patch, pk, now);
    if (vis === 'hidden') continue;
    const def: EffectiveKeyDefinition = { ...pk.definition };
    if (vis === 'experimental') def.experimental = true;
    if (vis === 'deprecated') def.deprecated = true;
    newKeys.push(def);
  }
  return {
    patch_id: patch.patch_id,
    parent_schema_id: patch.parent_schema_id,
    scope: scopeKey(patch.scope),
    timestamp: patch.timestamp,
    expires_at: patch.expires_at,
    new_keys: newKeys,
    modified_keys: now < patch.expires_at ? patch.modified_keys.map((m) => ({ ...m, ...(m.enum ? { enum: [...m.enum] } : {}) })) : [],
  };
}

/** Replaces one key's lifecycle in a patch (lifecycle.ts uses it). */
export function withKeyLifecycle(patch: SchemaPatch, keyName: string, lifecycle: KeyLifecycle): SchemaPatch {
  const i = patch.new_keys.findIndex((k) => k.definition.key_name === keyName);
  if (i < 0) throw evolutionError('unknown_key', 'key_name', `patch "${patch.patch_id}" adds no key "${keyName}"`);
  const keys = patch.new_keys.slice();
  keys[i] = { definition: (keys[i] as PatchKey).definition, lifecycle };
  return { ...patch, new_keys: keys };
}
