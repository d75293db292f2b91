import { createHash } from 'node:crypto';
import { isPlainObject } from '@parley/protocol';
import { templateToWire, type AcceptedWithdrawnKey, type SchemaPatchDelivery } from '@parley/contracts';
import { PATCH_EVENT_TYPES, consumeIdempotently, type IdempotentConsumeOptions, type Bus, type EventEnvelope, type PatchDocument, type Stoppable, type Subjects } from '@parley/events';
import {
  DAY_MS,
  KEY_STATES,
  effectiveTemplate,
  keyNameSignature,
  patchForDelivery,
  patchesFor,
  type EffectiveTemplate,
  type KeyState,
  type PatchKey,
  type SchemaPatch,
} from '@parley/evolution';
import {
  CLIENT_ID_PATTERN,
  OTHER_KEY,
  PATCH_ONLY_MEMBERS,
  SCHEMA_ID_PATTERN,
  parseTemplate,
  scenarioId,
  type KeyDefinition,
  type SchemaTemplate,
  type JsonValue,
} from '@parley/protocol';
import type { Logger } from '@parley/runtime';
import type { Db, Queryable } from '@parley/storage';

/**
 * Schema patches in negotiation (draft-zhou §6.2.2 "Patch Packaging", "Online
 * Update Delivery", "Personalized Adaptation"; §6.2.3 flags and the
 * backward-compatibility window).
 *
 * The evolution service owns patches and publishes every change as an event
 * carrying the whole document (`patch.published`, `patch.updated`, `key.*`).
 * Negotiation keeps the newest revision of each in `negotiation.patches`
 * (a durable, idempotent consumer: a replayed or out-of-order event never
 * replaces a newer revision) and serves, per client, the effective template:
 * the immutable base plus the active global patches plus that client's own
 * (libs/evolution `effectiveTemplate`). A client never sees another client's
 * patches: they are not even read (the query filters on the scope).
 */

/** zhou §6.2.3 "an additional backward-compatibility window (default 30 days)"; used when a withdrawn key carries no accept_until. */
export const COMPATIBILITY_WINDOW_MS = 30 * DAY_MS;

const PATCH_STATUSES = ['proposed', 'active', 'rejected'] as const;
const MAX_REVISION = 2 ** 31 - 1; // negotiation.patches.revision is an integer

export interface StoredPatch {
  readonly patch: SchemaPatch;
  readonly revision: number;
}

type Check = { ok: true; doc: PatchDocument; patch: SchemaPatch } | { ok: false; reason: string };


function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * Checks a PatchDocument from an event (or read back from storage) and turns it
 * into libs/evolution's SchemaPatch (dropping status, pinned, approval_reasons
 * and revision). Anything that could make an effective template fail to
 * compile is refused here, at the door, so one bad document can never break
 * validation for a whole scenario: every new key definition must parse as a
 * template key (zhou §4.1), be optional (a required patch key would reject every
 * client that does not know it, §6.2), carry no lifecycle flag itself and not be
 * named `other` (§4.3).
 */
export function checkPatchDocument(input: unknown): Check {
  const no = (reason: string): Check => ({ ok: false, reason });
  if (!isPlainObject(input)) return no('the patch document is not an object');
  const d = input;
  if (typeof d.patch_id !== 'string' || d.patch_id.trim() === '' || d.patch_id.length > 200) return no('patch_id must be a non-empty string of at most 200 characters');
  if (typeof d.parent_schema_id !== 'string' || !SCHEMA_ID_PATTERN.test(d.parent_schema_id)) return no('parent_schema_id must be a schema_id');
  if (typeof d.scenario !== 'string') return no('scenario must be a string');
  let scenario: string;
  try {
    scenario = scenarioId(d.scenario);
  } catch {
    return no(`scenario "${d.scenario.slice(0, 60)}" has no canonical id`);
  }
  let scope: SchemaPatch['scope'];
  if (d.scope === 'global') scope = 'global';
  else if (isPlainObject(d.scope) && typeof d.scope.client_id === 'string' && d.scope.client_id.length <= 128 && CLIENT_ID_PATTERN.test(d.scope.client_id)) scope = { client_id: d.scope.client_id };
  else return no('scope must be "global" or { client_id }');
  if (!finite(d.timestamp) || !finite(d.expires_at)) return no('timestamp and expires_at must be epoch milliseconds');
  if (!(PATCH_STATUSES as readonly unknown[]).includes(d.status)) return no(`status must be one of ${PATCH_STATUSES.join(', ')}`);
  if (typeof d.revision !== 'number' || !Number.isInteger(d.revision) || d.revision < 0 || d.revision > MAX_REVISION) return no('revision must be a non-negative integer');
  if (!Array.isArray(d.new_keys) || !Array.isArray(d.modified_keys)) return no('new_keys and modified_keys must be arrays');

  const newKeys: PatchKey[] = [];
  const definitions: unknown[] = [];
  for (const [i, k] of d.new_keys.entries()) {
    if (!isPlainObject(k) || !isPlainObject(k.definition) || !isPlainObject(k.lifecycle)) return no(`new_keys[${i}] must be { definition, lifecycle }`);
    const lc = k.lifecycle;
    if (!(KEY_STATES as readonly unknown[]).includes(lc.state)) return no(`new_keys[${i}].lifecycle.state must be one of ${KEY_STATES.join(', ')}`);
    if (!finite(lc.introduced_at) || !finite(lc.state_since)) return no(`new_keys[${i}].lifecycle times must be epoch milliseconds`);
    if (lc.accept_until !== null && lc.accept_until !== undefined && !finite(lc.accept_until)) return no(`new_keys[${i}].lifecycle.accept_until must be epoch milliseconds or null`);
    const def = k.definition;
    if (def.key_name === OTHER_KEY) return no(`new_keys[${i}]: "other" is reserved (zhou §4.3)`);
    if (def.required !== false) return no(`new_keys[${i}] must be optional (required: false)`);
    for (const m of PATCH_ONLY_MEMBERS) if (def[m] !== undefined) return no(`new_keys[${i}].definition carries "${m}": flags come from the lifecycle`);
    definitions.push(def);
    newKeys.push({
      definition: def as unknown as KeyDefinition,
      lifecycle: {
        state: lc.state as KeyState,
        introduced_at: lc.introduced_at,
        state_since: lc.state_since,
        accept_until: finite(lc.accept_until) ? lc.accept_until : null,
        history: Array.isArray(lc.history) ? (lc.history as PatchKey['lifecycle']['history']) : [],
      },
    });
  }
  if (definitions.length > 0) {
    try {
      // The key rules of zhou §4.1 (names, types, constraints, defaults), and unique names within the patch.
      const { template } = parseTemplate({ schema_id: d.parent_schema_id, scenario: d.scenario, keys: definitions });
      template.keys.forEach((def, i) => {
        const pk = newKeys[i];
        if (pk && def.key_name !== OTHER_KEY) newKeys[i] = { definition: def, lifecycle: pk.lifecycle };
      });
    } catch (e) {
      return no(`new key definitions are invalid: ${(e as Error).message}`);
    }
  }
  const modified: { key_name: string; semantic_description: string; enum?: JsonValue[] }[] = [];
  for (const [i, m] of d.modified_keys.entries()) {
    if (!isPlainObject(m) || typeof m.key_name !== 'string' || typeof m.semantic_description !== 'string' || m.semantic_description.trim() === '') {
      return no(`modified_keys[${i}] must be { key_name, semantic_description[, enum] }`);
    }
    // zhou §6.2.2: a refinement may widen a patch key's enum (libs/evolution applies it to patch keys only).
    if (m.enum !== undefined && (!Array.isArray(m.enum) || m.enum.length === 0 || m.enum.some((v) => v === null || typeof v === 'object'))) return no(`modified_keys[${i}].enum must be a non-empty array of scalars`);
    modified.push({ key_name: m.key_name, semantic_description: m.semantic_description, ...(Array.isArray(m.enum) ? { enum: m.enum as JsonValue[] } : {}) });
  }
  const patch: SchemaPatch = {
    patch_id: d.patch_id,
    parent_schema_id: d.parent_schema_id,
    scenario,
    scope,
    timestamp: d.timestamp,
    expires_at: d.expires_at,
    source_cluster_id: typeof d.source_cluster_id === 'string' ? d.source_cluster_id : null,
    new_keys: newKeys,
    modified_keys: modified,
  };
  return { ok: true, doc: d as unknown as PatchDocument, patch };
}

/**
 * Stores `doc` unless the stored revision is the same or newer (an event
 * replayed, or delivered after a later one, changes nothing). Returns whether
 * the row changed.
 */
export async function storePatchDocument(tx: Queryable, doc: PatchDocument, patch: SchemaPatch, updatedAt: Date): Promise<boolean> {
  const r = await tx.query(
    `INSERT INTO negotiation.patches (patch_id, scenario_id, parent_schema_id, scope_client, status, revision, document, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)
     ON CONFLICT (patch_id) DO UPDATE SET
       scenario_id = EXCLUDED.scenario_id, parent_schema_id = EXCLUDED.parent_schema_id, scope_client = EXCLUDED.scope_client,
       status = EXCLUDED.status, revision = EXCLUDED.revision, document = EXCLUDED.document, updated_at = EXCLUDED.updated_at
     WHERE negotiation.patches.revision < EXCLUDED.revision
     RETURNING patch_id`,
    [patch.patch_id, patch.scenario, patch.parent_schema_id, patch.scope === 'global' ? null : patch.scope.client_id, doc.status, doc.revision, JSON.stringify(doc), updatedAt.toISOString()],
  );
  return r.rows.length === 1;
}

export interface PatchConsumerDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  log: Logger;
  clock: { now(): Date };
  /** Dead letters and attempts (libs/runtime serviceEventFlow().consumer). */
  consumer?: Pick<IdempotentConsumeOptions, 'maxAttempts' | 'logger' | 'deadLetters' | 'now'>;
}

/** The durable consumer name (one per subject prefix). */
export function patchConsumerName(subjects: Subjects): string {
  return `${subjects.prefix}-negotiation-patches`;
}

function isPatchEvent(e: EventEnvelope): e is Extract<EventEnvelope, { type: (typeof PATCH_EVENT_TYPES)[number] }> {
  return (PATCH_EVENT_TYPES as readonly string[]).includes(e.type);
}

/**
 * Keeps `negotiation.patches` up to date from the evolution service's events:
 * durable (resumes after a restart), idempotent (`processed_events` in the
 * transaction of the upsert), revision-ordered. A malformed document is logged
 * and skipped (acknowledged): redelivering it could never make it valid.
 */
export function startPatchConsumer(deps: PatchConsumerDeps): Promise<Stoppable> {
  return consumeIdempotently(
    {
      bus: deps.bus,
      db: deps.db,
      schema: 'negotiation',
      ...deps.consumer,
      durable: patchConsumerName(deps.subjects),
      filterSubjects: PATCH_EVENT_TYPES.map((t) => deps.subjects.eventAllScenarios(t)),
    },
    async (event, tx) => {
      if (!isPatchEvent(event)) return;
      const checked = checkPatchDocument(event.data?.patch);
      if (!checked.ok) {
        deps.log.error('patch event ignored: malformed patch document', { event_id: event.id, type: event.type, reason: checked.reason });
        return;
      }
      const changed = await storePatchDocument(tx, checked.doc, checked.patch, deps.clock.now());
      deps.log.info(changed ? 'patch stored' : 'patch event older than the stored revision; ignored', {
        event_id: event.id,
        type: event.type,
        patch_id: checked.patch.patch_id,
        revision: checked.doc.revision,
        status: checked.doc.status,
      });
    },
  );
}

// ---------------------------------------------------------------------------
// Reading: the active patches a client sees, and its effective template.

/** Parsed documents by (patch_id, revision), per service instance: a revision never changes, so entries never go stale. */
export type PatchCache = Map<string, SchemaPatch>;
const MAX_PARSED = 2000;

/**
 * Active patches on `parentSchemaId` that `clientId` may see: global ones and
 * its own (null: global ones only). Another client's patches are never read.
 */
export async function loadActivePatches(
  q: Queryable,
  scenario: string,
  parentSchemaId: string,
  clientId: string | null,
  opts: { cache?: PatchCache; log?: Logger } = {},
): Promise<StoredPatch[]> {
  const parsed = opts.cache;
  const log = opts.log;
  const r = await q.query<{ patch_id: string; revision: number; document: unknown }>(
    `SELECT patch_id, revision, document FROM negotiation.patches
     WHERE parent_schema_id = $1 AND scenario_id = $2 AND status = 'active' AND (scope_client IS NULL OR scope_client = $3)`,
    [parentSchemaId, scenario, clientId],
  );
  const out: StoredPatch[] = [];
  for (const row of r.rows) {
    const key = `${row.patch_id}\u0000${row.revision}`;
    let patch = parsed?.get(key);
    if (!patch) {
      const checked = checkPatchDocument(typeof row.document === 'string' ? JSON.parse(row.document) : row.document);
      if (!checked.ok) {
        log?.error('stored patch document unreadable; skipped', { patch_id: row.patch_id, reason: checked.reason });
        continue;
      }
      patch = checked.patch;
      if (parsed) {
        if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value as string);
        parsed.set(key, patch);
      }
    }
    out.push({ patch, revision: Number(row.revision) });
  }
  return out;
}

export interface WithdrawnKey {
  readonly definition: KeyDefinition;
  readonly patch_id: string;
  /** Epoch ms: payloads may carry the key until then (zhou §6.2.3 backward-compatibility window). */
  readonly accept_until: number;
}

export interface EffectiveView {
  /** Base + patches, patch keys flagged (zhou §6.2.3). */
  readonly template: SchemaTemplate;
  readonly applied_patches: string[];
  readonly etag: string;
  readonly effective: EffectiveTemplate;
  readonly patches: readonly StoredPatch[];
  readonly clientId: string | null;
  readonly now: number;
}

export interface SchemaIdentity {
  readonly agent: string;
  readonly schema_id: string;
  readonly version: number;
}

/** zhou §6.2.2 Personalized Adaptation: the template `clientId` negotiates at `now`. */
export function effectiveView(schema: SchemaIdentity, base: SchemaTemplate, patches: readonly StoredPatch[], clientId: string | null, now: number): EffectiveView {
  const effective = effectiveTemplate(
    base,
    patches.map((s) => s.patch),
    clientId,
    now,
  );
  const template: SchemaTemplate = { schema_id: effective.template.schema_id, scenario: effective.template.scenario, keys: effective.template.keys.map((k) => ({ ...k })) };
  const applied = [...effective.applied_patches];
  return { template, applied_patches: applied, etag: computeEtag(schema, effective, patches, now), effective, patches, clientId, now };
}

/**
 * The etag of an effective template: a short sha256 over the base version
 * (agent, schema_id, version) and, per applied patch in order, its id, its
 * revision, the state of each key it contributes and which refinements apply.
 * Equal etags mean the same effective template (whatever the language variant:
 * variants differ only in descriptions, zhou §4.2). Clients on the same global
 * patches share an etag, so execution shares their compiled validator.
 */
export function computeEtag(schema: SchemaIdentity, eff: EffectiveTemplate, patches: readonly StoredPatch[], now: number): string {
  const byId = new Map(patches.map((s) => [s.patch.patch_id, s] as const));
  const flags = new Map(eff.template.keys.map((k) => [k.key_name, k.experimental ? 'e' : k.deprecated ? 'd' : 's'] as const));
  const parts: unknown[] = [schema.agent, schema.schema_id, schema.version];
  for (const id of eff.applied_patches) {
    const s = byId.get(id);
    if (!s) continue;
    const keys = s.patch.new_keys.filter((k) => eff.key_origins[k.definition.key_name] === id).map((k) => `${k.definition.key_name}:${flags.get(k.definition.key_name) ?? '?'}`);
    parts.push([id, s.revision, keys, appliedRefinements(eff, s.patch, now).map((m) => m.key_name)]);
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

function appliedRefinements(eff: EffectiveTemplate, p: SchemaPatch, now: number): SchemaPatch['modified_keys'] {
  if (now >= p.expires_at) return [];
  return p.modified_keys.filter((m) => !eff.ignored.some((i) => i.patch_id === p.patch_id && i.key_name === m.key_name && i.reason === 'target_missing'));
}

/**
 * zhou §6.2.3: keys a payload from the client may still carry although the
 * effective template no longer offers them: withdrawn keys (until their
 * lifecycle's accept_until) and experimental keys of an expired patch (until
 * expires_at + the window), from the active patches the client sees. Keys
 * whose window has passed are listed too: execution rejects them by name.
 */
export function withdrawnKeys(view: EffectiveView, base: SchemaTemplate): WithdrawnKey[] {
  const names = new Set(view.template.keys.map((k) => keyNameSignature(k.key_name)));
  const baseScenario = scenarioId(base.scenario);
  const out: WithdrawnKey[] = [];
  for (const p of patchesFor(
    view.patches.map((s) => s.patch),
    view.clientId,
  )) {
    if (p.parent_schema_id !== base.schema_id || p.scenario !== baseScenario || p.timestamp > view.now) continue;
    for (const pk of p.new_keys) {
      const sig = keyNameSignature(pk.definition.key_name);
      if (names.has(sig)) continue;
      const lc = pk.lifecycle;
      const until =
        lc.state === 'withdrawn' ? (lc.accept_until ?? lc.state_since + COMPATIBILITY_WINDOW_MS) : lc.state === 'experimental' && view.now >= p.expires_at ? p.expires_at + COMPATIBILITY_WINDOW_MS : null;
      if (until === null) continue;
      names.add(sig);
      out.push({ definition: { ...pk.definition }, patch_id: p.patch_id, accept_until: until });
    }
  }
  return out;
}

export function withdrawnToWire(w: readonly WithdrawnKey[], schema: SchemaTemplate): AcceptedWithdrawnKey[] {
  if (w.length === 0) return [];
  const keys = templateToWire({ schema_id: schema.schema_id, scenario: schema.scenario, keys: w.map((k) => k.definition) }).keys;
  return w.map((k, i) => ({ definition: keys[i], patch_id: k.patch_id, accept_until: new Date(k.accept_until).toISOString() }));
}

/**
 * zhou §6.2.2 Online Update Delivery: the patches of the client's effective
 * template, in application order, as delivered: only the keys each one
 * actually contributes (flagged by state; withdrawn and colliding keys left
 * out) and the refinements that apply. ISO 8601 times.
 */
export function deliveries(view: EffectiveView): SchemaPatchDelivery[] {
  const byId = new Map(view.patches.map((s) => [s.patch.patch_id, s.patch] as const));
  const out: SchemaPatchDelivery[] = [];
  for (const id of view.applied_patches) {
    const p = byId.get(id);
    if (!p) continue;
    const d = patchForDelivery(p, view.now);
    const keys = d.new_keys.filter((k) => view.effective.key_origins[k.key_name] === id);
    const refinements = new Set(appliedRefinements(view.effective, p, view.now).map((m) => m.key_name));
    out.push({
      patch_id: p.patch_id,
      parent_schema_id: p.parent_schema_id,
      scenario_id: p.scenario,
      scope: p.scope === 'global' ? 'global' : p.scope.client_id,
      timestamp: new Date(p.timestamp).toISOString(),
      expires_at: new Date(p.expires_at).toISOString(),
      new_keys: keys.length > 0 ? templateToWire({ schema_id: view.template.schema_id, scenario: view.template.scenario, keys }).keys : [],
      modified_keys: d.modified_keys.filter((m) => refinements.has(m.key_name)).map((m) => ({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) })),
    });
  }
  return out;
}

