import { templateToWire, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import {
  CLIENT_ID_PATTERN,
  ParleyError,
  negotiateLanguage,
  normalizeLanguageTag,
  scenarioId,
  type SchemaTemplate,
} from '@parley/protocol';
import type { Db } from '@parley/storage';
import { createKeyRing, type Clock, type KeyRing, type Logger } from '@parley/runtime';
import { publishSchema } from './publish';
import { retireSchema } from './retire';
import { LIVE, SELECT_SCHEMAS, iso, latestSchema as latestOf, selectVariant, toVersion, type SchemaRow } from './schema-store';
import { deliveries, effectiveView, loadActivePatches, withdrawnKeys, withdrawnToWire, type PatchCache } from './patches';
import { signDeliveries, signTemplate, suggestionOf } from './signing';

/**
 * Negotiation: base schema templates per agent namespace, immutable once
 * published and versioned per (agent, scenario), with language variants.
 *
 * - draft-zhou §4.1: schema_id is unique within the server agent's namespace,
 *   so the key is (agent, schema_id).
 * - §6.2.2: the base schema is immutable and versioned; a change is a new
 *   schema_id. Re-publishing identical content is a no-op (idempotent).
 * - §4.2: "provide multilingual annotations when serving cross-lingual client
 *   agents": a variant may differ from the base only in semantic descriptions.
 * - §6.2.2 / §6.2.3: templates are served effective for the caller: the base
 *   plus the active global patches plus the client's own (patches.ts), patch
 *   keys flagged, with an etag naming that effective template. Without a
 *   client_id, the global view. A base template may not carry the flags.
 * - §7: every template, patch delivery and suggestion served is signed with the
 *   key ring (signing.ts; a generated key when none is given); GetSigningKeys
 *   publishes the public keys.
 * - Retirement (its owner's or an operator's decision, where the draft is
 *   silent): a retired schema stays stored, immutable, but is no longer
 *   negotiated (the agent's latest live version is) nor listed unless asked,
 *   and GetSchema refuses it (`schema_not_found`, rule `retired`), which is how
 *   execution refuses its schema_id. Publishing the same template again brings
 *   it back.
 *
 * The units: schema-store.ts (SQL), publish.ts, retire.ts, patches.ts
 * (effective templates), signing.ts; this file wires them and serves reads.
 */
export interface NegotiationDeps {
  db: Db;
  clock: Clock;
  registry: RegistryApi;
  log?: Logger;
  signing?: KeyRing;
}

export function createNegotiationService(deps: NegotiationDeps): NegotiationApi {
  const { db, clock, log } = deps;
  const signing = deps.signing ?? createKeyRing();
  const parsedPatches: PatchCache = new Map();

  const latestSchema = (scenario: string, agent: string | undefined) => latestOf(db, scenario, agent);

  /** zhou §6.2.2: the effective template of `base` (a variant of `row`) for the client (null: global view). */
  async function effective(row: SchemaRow, base: SchemaTemplate, clientId: string | null) {
    const patches = await loadActivePatches(db, row.scenario_id, row.schema_id, clientId, { cache: parsedPatches, ...(log ? { log } : {}) });
    return effectiveView(row, base, patches, clientId, clock.now().getTime());
  }

  return {
    publishSchema: (req) => publishSchema(deps, req),

    async getSchemaTemplate(req) {
      const clientId = optionalClientId(req.client_id);
      const latest = await latestSchema(req.scenario, req.agent);
      const preferred = req.preferred_language ? normalizeLanguageTag(req.preferred_language, 'params.preferred_language') : undefined;
      const language = negotiateLanguage(preferred, latest.languages, latest.default_language);
      const base = await selectVariant(db, latest.agent, latest.schema_id, language);
      const view = await effective(latest, base, clientId);
      const template = templateToWire(view.template);
      const signature = signTemplate(signing, template, { agent: latest.agent, etag: view.etag, applied_patches: view.applied_patches, client_id: clientId });
      return { template, schema: toVersion(latest), language, applied_patches: view.applied_patches, etag: view.etag, signature };
    },

    async getSchema(req) {
      const clientId = optionalClientId(req.client_id);
      const rows = (
        await db.query<SchemaRow>(
          `${SELECT_SCHEMAS} WHERE s.schema_id = $1 ${req.agent !== undefined ? 'AND s.agent = $2' : ''} ORDER BY s.agent`,
          req.agent !== undefined ? [req.schema_id, req.agent] : [req.schema_id],
        )
      ).rows;
      if (rows.length === 0) {
        throw new ParleyError('schema_not_found', `No schema with schema_id "${req.schema_id}"${req.agent ? ` in agent "${req.agent}"` : ''}`, {
          path: 'params.schema_id',
          rule: 'exists',
        });
      }
      if (rows.length > 1) {
        throw new ParleyError('ambiguous_agent', `schema_id "${req.schema_id}" exists in several agents' namespaces; name one with params.agent`, {
          path: 'params.agent',
          rule: 'required_when_ambiguous',
          details: { agents: rows.map((r) => r.agent) },
        });
      }
      const row = rows[0] as SchemaRow;
      if (row.retired_at !== null) {
        throw new ParleyError('schema_not_found', `Schema "${row.schema_id}" of agent "${row.agent}" was retired at ${iso(row.retired_at)}; negotiate the scenario again (get_schema_template)`, {
          path: 'params.schema_id',
          rule: 'retired',
          details: { agent: row.agent, schema_id: row.schema_id, scenario_id: row.scenario_id, retired_at: iso(row.retired_at) },
        });
      }
      const base = await selectVariant(db, row.agent, row.schema_id, row.default_language);
      if (req.base_only) {
        if (clientId) throw new ParleyError('invalid_params', 'base_only and client_id exclude each other', { path: 'params.base_only', rule: 'exclusive' });
        const template = templateToWire(base);
        return {
          template,
          schema: toVersion(row),
          ...(row.response_schema ? { response_schema: row.response_schema } : {}),
          applied_patches: [],
          etag: '',
          withdrawn_keys: [],
          signature: signTemplate(signing, template, { agent: row.agent, etag: '', applied_patches: [], client_id: null }),
        };
      }
      const view = await effective(row, base, clientId);
      const template = templateToWire(view.template);
      return {
        template,
        schema: toVersion(row),
        ...(row.response_schema ? { response_schema: row.response_schema } : {}),
        applied_patches: view.applied_patches,
        etag: view.etag,
        withdrawn_keys: withdrawnToWire(withdrawnKeys(view, base), base),
        signature: signTemplate(signing, template, { agent: row.agent, etag: view.etag, applied_patches: view.applied_patches, client_id: clientId }),
      };
    },

    /** zhou §6.2.2 "a dedicated schema polling endpoint": the client's patches on the latest base, unless its etag is current. */
    async getSchemaUpdates(req) {
      const clientId = optionalClientId(req.client_id);
      const latest = await latestSchema(req.scenario, req.agent);
      const base = await selectVariant(db, latest.agent, latest.schema_id, latest.default_language);
      const view = await effective(latest, base, clientId);
      const changed = req.since_etag !== view.etag;
      if (!changed) return { etag: view.etag, changed, parent_schema_id: latest.schema_id, patches: [] };
      const patches = deliveries(view);
      // §7: each delivery signed, and Figure 9's suggestion for them, which execution returns as it is.
      const suggestion = suggestionOf(latest.schema_id, view.etag, patches);
      return {
        etag: view.etag,
        changed,
        parent_schema_id: latest.schema_id,
        patches: signDeliveries(signing, patches),
        suggestion,
        suggestion_signature: signing.sign(suggestion),
      };
    },

    /** §7: the public keys of the signatures above, active first (the gateway serves them as a JWKS). */
    async getSigningKeys() {
      return { keys: signing.jwks().keys, active_kid: signing.activeKid };
    },

    retireSchema: (req, ctx) => retireSchema(deps, req, ctx),

    async listSchemas(req) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (req.agent !== undefined) {
        params.push(req.agent);
        where.push(`s.agent = $${params.length}`);
      }
      if (req.scenario !== undefined) {
        params.push(scenarioId(req.scenario, { path: 'params.scenario' }));
        where.push(`s.scenario_id = $${params.length}`);
      }
      if (!req.include_retired) where.push(LIVE);
      const r = await db.query<SchemaRow>(
        `${SELECT_SCHEMAS}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY s.agent, s.scenario_id, s.version`,
        params,
      );
      return { schemas: r.rows.map(toVersion) };
    },
  };
}

/** A client_id as sent over gRPC (the gateway has checked it already; other callers may not have). */
function optionalClientId(v: string | undefined): string | null {
  if (v === undefined) return null;
  if (v.length > 128 || !CLIENT_ID_PATTERN.test(v)) {
    throw new ParleyError('invalid_params', 'client_id must be 1-128 letters, digits and _ . : @ -', { path: 'params.client_id', rule: 'pattern' });
  }
  return v;
}
