import { keyFromWire, templateFromWire, type GetSchemaResponse, type NegotiationApi } from '@parley/contracts';
import {
  OTHER_KEY,
  ParleyError,
  compilePayloadValidator,
  compileResponseSchema,
  type JsonObject,
  type JsonValue,
  type KeyDefinition,
  type PayloadValidator,
  type ResponseValidator,
  type SchemaTemplate,
} from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';

/**
 * The effective templates execution validates against (draft-zhou §6.2.2): a
 * client's template is the scenario's base plus the active global patches and
 * its own, as `NegotiationService.GetSchema` resolves it for (agent, schema_id,
 * client_id). A resolution is trusted for `ttlMs` on the injected clock (a patch
 * change reaches validation within it); compiled validators are shared by etag
 * plus withdrawn keys in a bounded LRU. Concurrent lookups of one resolution
 * share one negotiation call.
 */

/** What the patches of one effective template mean for execution (shared by every client with that etag). */
export interface PatchMeta {
  /** key_name → patch_id for the patch keys of the effective template (the audit sampler's scope). */
  readonly patchKeys: ReadonlyMap<string, string>;
  /** Figure 9's schema_update_suggestion for a client holding another etag. */
  readonly suggestion: JsonObject;
  /** False when the keys could not be attributed to patches exactly (no audit sampling then). */
  readonly exact: boolean;
  /** Worth asking again (the attribution failed for a transient reason). */
  readonly retry: boolean;
}

/** One compiled effective template (plus its withdrawn keys), keyed by etag. */
export interface Compiled {
  readonly agent: string;
  readonly schemaId: string;
  readonly scenarioId: string;
  readonly etag: string;
  readonly validator: PayloadValidator;
  readonly response?: ResponseValidator;
  meta?: PatchMeta;
  /** The meta lookup in progress (one per compiled template, however many clients ask at once). */
  metaLoading?: Promise<PatchMeta>;
}

export interface Withdrawn {
  readonly key_name: string;
  readonly patch_id: string;
  readonly until: number;
  readonly until_iso: string;
}

/** One (agent, schema_id, client_id) resolution, trusted for patchCacheTtlMs. */
export interface Resolved {
  readonly compiled: Compiled;
  readonly appliedPatches: readonly string[];
  readonly withdrawn: readonly Withdrawn[];
  readonly at: number;
}

/** How long an unqualified schema_id -> agent resolution is trusted (another agent may publish the same id). */
const UNQUALIFIED_TTL_MS = 5_000;

export interface TemplateCacheOptions {
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  /** Compiled validators kept (least recently used evicted first). */
  cacheSize: number;
  /** Resolutions kept (one per agent, schema_id and client_id). */
  resolutionCacheSize: number;
  /** How long a resolution is trusted, in ms of `clock` (0: ask on every payload). */
  ttlMs: number;
}

export interface TemplateCache {
  /** The client's effective template for `schemaId` (of `agent`, or of the one agent publishing it). */
  resolve(schemaId: string, agent: string | undefined, clientId: string): Promise<Resolved>;
}

export function createTemplateCache(o: TemplateCacheOptions): TemplateCache {
  const nowMs = () => o.clock.now().getTime();
  /** Compiled validators by validation key (etag + withdrawn keys), LRU. */
  const compiled = new Map<string, Compiled>();
  /** `${agent}/${schema_id}/${client_id}` → resolution. */
  const resolutions = new Map<string, Resolved>();
  const unqualified = new Map<string, { agent: string; at: number }>();
  const inFlight = new Map<string, Promise<Resolved>>();

  async function resolve(schemaId: string, agent: string | undefined, clientId: string): Promise<Resolved> {
    let owner = agent;
    if (owner === undefined) {
      const u = unqualified.get(schemaId);
      if (u && nowMs() - u.at < UNQUALIFIED_TTL_MS) owner = u.agent;
    }
    if (owner !== undefined) {
      // The hot path: one Map lookup.
      const hit = resolutions.get(`${owner}/${schemaId}/${clientId}`);
      if (hit && nowMs() - hit.at < o.ttlMs) return hit;
    }
    // Single flight: concurrent requests for the same schema and client share one
    // lookup, so a cold cache under load costs one negotiation call, not one each.
    const key = `${owner ?? '*'}/${schemaId}/${clientId}`;
    let p = inFlight.get(key);
    if (!p) {
      p = lookup(schemaId, owner, clientId).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    const resolved = await p;
    if (agent === undefined) unqualified.set(schemaId, { agent: resolved.compiled.agent, at: nowMs() });
    return resolved;
  }

  async function lookup(schemaId: string, owner: string | undefined, clientId: string): Promise<Resolved> {
    const r = await o.negotiation.getSchema({ schema_id: schemaId, client_id: clientId, ...(owner !== undefined ? { agent: owner } : {}) });
    if (!r.template || !r.schema) throw new ParleyError('internal', 'Negotiation returned no template');
    const agent = r.schema.agent;
    const withdrawnWire = r.withdrawn_keys ?? [];
    // Equal etags mean equal effective templates; the withdrawn keys still accepted are part of what validates.
    const vkey = `${agent}/${schemaId}@${r.etag}${withdrawnWire.length > 0 ? `|${withdrawnWire.map((w) => `${w.patch_id}/${w.definition?.key_name ?? ''}`).join(',')}` : ''}`;
    let c = compiled.get(vkey);
    if (c) {
      compiled.delete(vkey);
      compiled.set(vkey, c);
    } else {
      c = compile(r, schemaId);
      compiled.set(vkey, c);
      while (compiled.size > o.cacheSize) compiled.delete(compiled.keys().next().value as string);
    }
    const applied = [...(r.applied_patches ?? [])];
    if (applied.length > 0 && (!c.meta || c.meta.retry)) {
      const entry = c;
      entry.metaLoading ??= patchMeta(o, r, schemaId, clientId, applied).then((m) => {
        entry.meta = m;
        return m;
      }).finally(() => {
        entry.metaLoading = undefined;
      });
      await entry.metaLoading;
    }
    const withdrawn: Withdrawn[] = withdrawnWire.flatMap((w) => {
      const until = Date.parse(w.accept_until);
      if (!w.definition || !Number.isFinite(until)) return [];
      return [{ key_name: w.definition.key_name, patch_id: w.patch_id, until, until_iso: new Date(until).toISOString() }];
    });
    const resolved: Resolved = { compiled: c, appliedPatches: applied, withdrawn, at: nowMs() };
    const rkey = `${agent}/${schemaId}/${clientId}`;
    resolutions.delete(rkey);
    resolutions.set(rkey, resolved);
    while (resolutions.size > o.resolutionCacheSize) resolutions.delete(resolutions.keys().next().value as string);
    return resolved;
  }

  return { resolve };
}

/** Compiles the effective template plus the withdrawn keys still accepted (validated by their old definitions, §6.2.3). */
function compile(r: GetSchemaResponse, schemaId: string): Compiled {
  const t = templateFromWire(r.template as NonNullable<GetSchemaResponse['template']>);
  const extra: KeyDefinition[] = [];
  const names = new Set(t.keys.map((k) => k.key_name));
  for (const w of r.withdrawn_keys ?? []) {
    if (!w.definition || names.has(w.definition.key_name)) continue;
    names.add(w.definition.key_name);
    extra.push(keyFromWire(w.definition));
  }
  const accepting: SchemaTemplate = extra.length === 0 ? t : { ...t, keys: insertBeforeOther(t.keys, extra) };
  const schema = r.schema as NonNullable<GetSchemaResponse['schema']>;
  return {
    agent: schema.agent,
    schemaId,
    scenarioId: schema.scenario_id,
    etag: r.etag,
    validator: compilePayloadValidator(accepting),
    ...(r.response_schema ? { response: compileResponseSchema(r.response_schema) } : {}),
  };
}

/**
 * Which patch each patch key of the effective template comes from, and the
 * suggestion for stale clients, from the polling endpoint (zhou §6.2.2). It
 * describes the latest base of the scenario; for an older schema version, or
 * when the etags disagree (a patch changed between the two calls), the
 * suggestion lists the flagged keys only and nothing is sampled.
 */
async function patchMeta(o: Pick<TemplateCacheOptions, 'negotiation' | 'log'>, r: GetSchemaResponse, schemaId: string, clientId: string, applied: string[]): Promise<PatchMeta> {
  const schema = r.schema as NonNullable<GetSchemaResponse['schema']>;
  try {
    const u = await o.negotiation.getSchemaUpdates({ scenario: schema.scenario_id, agent: schema.agent, client_id: clientId });
    if (u.parent_schema_id === schemaId && u.etag === r.etag) {
      const patchKeys = new Map<string, string>();
      const newKeys: JsonValue[] = [];
      const modified: JsonValue[] = [];
      for (const p of u.patches) {
        for (const k of p.new_keys) {
          if (k.key_name === OTHER_KEY || patchKeys.has(k.key_name)) continue;
          patchKeys.set(k.key_name, p.patch_id);
          newKeys.push(keyFromWire(k) as unknown as JsonValue);
        }
        for (const m of p.modified_keys) modified.push({ key_name: m.key_name, semantic_description: m.semantic_description, ...(m.enum ? { enum: [...m.enum] } : {}) });
      }
      // draft-zhou §7: negotiation builds and signs the same suggestion; it is returned untouched with its
      // signature as the `signature` member (a client verifies it against the gateway's JWKS).
      const suggestion: JsonObject =
        u.suggestion && u.suggestion_signature
          ? { ...(u.suggestion as JsonObject), signature: u.suggestion_signature }
          : { parent_schema_id: schemaId, etag: r.etag, patch_ids: u.patches.map((p) => p.patch_id), new_keys: newKeys, modified_keys: modified };
      return { patchKeys, suggestion, exact: true, retry: false };
    }
    const retry = u.parent_schema_id === schemaId;
    if (retry) o.log.debug('schema etag moved between GetSchema and GetSchemaUpdates; patch attribution deferred', { schema_id: schemaId });
    return fallbackMeta(r, schemaId, applied, retry);
  } catch (e) {
    o.log.warn('GetSchemaUpdates failed; schema_update_suggestion lists flagged keys only, no audit sampling until it answers', { schema_id: schemaId, error: e });
    return fallbackMeta(r, schemaId, applied, true);
  }
}

function fallbackMeta(r: GetSchemaResponse, schemaId: string, applied: string[], retry: boolean): PatchMeta {
  // Experimental and deprecated keys are certainly patch keys; stable ones cannot be told from base keys here.
  const flagged = (r.template?.keys ?? []).filter((k) => k.experimental === true || k.deprecated === true).map((k) => keyFromWire(k) as unknown as JsonValue);
  return { patchKeys: new Map(), suggestion: { parent_schema_id: schemaId, etag: r.etag, patch_ids: applied, new_keys: flagged, modified_keys: [] }, exact: false, retry };
}

/**
 * zhou §6.2.3 Withdrawal: "Server agents MUST still accept the key in incoming
 * payloads for an additional backward-compatibility window ... but SHOULD log a
 * warning." Returns the warnings; throws `payload_invalid` (rule
 * `key_withdrawn`) for a key whose window has ended.
 */
export function checkWithdrawn(s: Resolved, payload: Record<string, unknown>, clientId: string, clock: Clock, log: Logger): string[] {
  const warnings: string[] = [];
  const now = clock.now().getTime();
  for (const w of s.withdrawn) {
    if (!Object.prototype.hasOwnProperty.call(payload, w.key_name)) continue;
    const path = `payload.${w.key_name}`;
    if (now >= w.until) {
      throw new ParleyError(
        'payload_invalid',
        `${path} was withdrawn from schema ${s.compiled.schemaId} (patch ${w.patch_id}); its backward-compatibility window ended on ${w.until_iso} (draft-zhou §6.2.3): leave the key out and put what it carried in "other"`,
        { path, rule: 'key_withdrawn', details: { patch_id: w.patch_id, accept_until: w.until_iso } },
      );
    }
    const text = `${path} was withdrawn from schema ${s.compiled.schemaId} (patch ${w.patch_id}); it is accepted until ${w.until_iso} (draft-zhou §6.2.3 backward-compatibility window), then refused: stop sending it`;
    warnings.push(text);
    log.warn('withdrawn key accepted within its backward-compatibility window', {
      schema_id: s.compiled.schemaId,
      agent: s.compiled.agent,
      client_id: clientId,
      key_name: w.key_name,
      patch_id: w.patch_id,
      accept_until: w.until_iso,
    });
  }
  return warnings;
}

function insertBeforeOther(keys: readonly KeyDefinition[], extra: readonly KeyDefinition[]): KeyDefinition[] {
  const out = keys.slice();
  const i = out.findIndex((k) => k.key_name === OTHER_KEY);
  out.splice(i < 0 ? out.length : i, 0, ...extra);
  return out;
}
