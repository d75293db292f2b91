import { createHash } from 'node:crypto';
import { templateFromWire, templateToWire, type NegotiationApi, type RegistryApi, type SchemaVersion } from '@parley/contracts';
import {
  CLIENT_ID_PATTERN,
  ParleyError,
  assertNoPatchOnlyMembers,
  assertSameShape,
  compileResponseSchema,
  negotiateLanguage,
  normalizeLanguageTag,
  parseTemplate,
  scenarioId,
  validateAgentName,
  type SchemaTemplate,
} from '@parley/protocol';
import type { Db, Queryable } from '@parley/storage';
import { createKeyRing, type Clock, type KeyRing, type Logger } from '@parley/runtime';
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
 */
interface SchemaRow {
  agent: string;
  schema_id: string;
  scenario: string;
  scenario_id: string;
  version: number;
  default_language: string;
  response_schema: Record<string, unknown> | null;
  published_at: Date | string;
  languages: string[];
  retired_at: Date | string | null;
}

const SELECT_SCHEMAS = `
  SELECT s.agent, s.schema_id, s.scenario, s.scenario_id, s.version, s.default_language, s.response_schema, s.published_at,
         (SELECT array_agg(v.language ORDER BY v.language) FROM negotiation.schema_variants v
           WHERE v.agent = s.agent AND v.schema_id = s.schema_id) AS languages,
         r.retired_at
  FROM negotiation.schemas s
  LEFT JOIN negotiation.retired_schemas r ON r.agent = s.agent AND r.schema_id = s.schema_id`;
const LIVE = 'r.retired_at IS NULL';
const MAX_RETIRE_REASON = 500;

export function createNegotiationService(deps: { db: Db; clock: Clock; registry: RegistryApi; log?: Logger; signing?: KeyRing }): NegotiationApi {
  const { db, clock, registry, log } = deps;
  const signing = deps.signing ?? createKeyRing();
  const parsedPatches: PatchCache = new Map();

  /** The latest version of a scenario's schema (one agent, or the one named). */
  async function latestSchema(scenario: string, agent: string | undefined): Promise<SchemaRow> {
    const sid = scenarioId(scenario, { path: 'params.scenario' });
    const rows = (
      await db.query<SchemaRow>(
        `${SELECT_SCHEMAS} WHERE s.scenario_id = $1 AND ${LIVE} ${agent !== undefined ? 'AND s.agent = $2' : ''}
         ORDER BY s.agent, s.version DESC`,
        agent !== undefined ? [sid, agent] : [sid],
      )
    ).rows;
    const agents = [...new Set(rows.map((r) => r.agent))];
    if (agents.length === 0) {
      throw new ParleyError('scenario_not_found', `No schema is published for scenario "${sid}"${agent ? ` by agent "${agent}"` : ''}`, {
        path: 'params.scenario',
        rule: 'exists',
        details: { scenario_id: sid },
      });
    }
    if (agents.length > 1) {
      throw new ParleyError('ambiguous_agent', `Several agents serve "${sid}"; name one with params.agent`, {
        path: 'params.agent',
        rule: 'required_when_ambiguous',
        details: { agents },
      });
    }
    return rows[0] as SchemaRow; // rows are ordered newest version first
  }

  /** zhou §6.2.2: the effective template of `base` (a variant of `row`) for the client (null: global view). */
  async function effective(row: SchemaRow, base: SchemaTemplate, clientId: string | null) {
    const patches = await loadActivePatches(db, row.scenario_id, row.schema_id, clientId, { cache: parsedPatches, ...(log ? { log } : {}) });
    return effectiveView(row, base, patches, clientId, clock.now().getTime());
  }

  return {
    async publishSchema(req) {
      validateAgentName(req.agent, 'params.agent');
      if (!req.template) throw new ParleyError('invalid_params', 'template is required', { path: 'params.template', rule: 'required' });
      const { template, notes } = parseTemplate(templateFromWire(req.template));
      // zhou §6.2.3: experimental / deprecated describe patch keys; the immutable base (§6.2.2) has none.
      assertNoPatchOnlyMembers(template, 'params.template');
      const language = req.language ? normalizeLanguageTag(req.language, 'params.language') : 'en';
      const responseSchema = req.response_schema ?? null;
      if (responseSchema) compileResponseSchema(responseSchema); // throws template_invalid at response_schema
      const sid = scenarioId(template.scenario);

      // The agent must exist and serve the scenario it publishes for.
      const { agent } = await registry.getAgent({ name: req.agent });
      if (!agent?.scenarios.includes(sid)) {
        throw new ParleyError('scenario_not_served', `Agent "${req.agent}" does not serve scenario "${sid}"; register it with that scenario first`, {
          path: 'params.template.scenario',
          rule: 'served_by_agent',
          details: { agent: req.agent, scenario_id: sid },
        });
      }

      const hash = contentHash(template);
      const now = clock.now().toISOString();
      const created = await db.transaction(async (tx) => {
        // Serialises publications per (agent, scenario) so versions are gap-free.
        await tx.query('SELECT pg_advisory_xact_lock($1)', [lockKey(`${req.agent}/${sid}`)]);
        const existing = await selectSchema(tx, req.agent, template.schema_id);
        if (!existing) {
          const v = await tx.query<{ next: number }>(
            'SELECT COALESCE(max(version), 0) + 1 AS next FROM negotiation.schemas WHERE agent = $1 AND scenario_id = $2',
            [req.agent, sid],
          );
          await tx.query(
            `INSERT INTO negotiation.schemas (agent, schema_id, scenario, scenario_id, version, default_language, response_schema, published_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [req.agent, template.schema_id, template.scenario, sid, v.rows[0]?.next ?? 1, language, responseSchema ? JSON.stringify(responseSchema) : null, now],
          );
          await insertVariant(tx, req.agent, template, language, hash, now);
          return true;
        }
        if (JSON.stringify(existing.response_schema ?? null) !== JSON.stringify(responseSchema)) {
          throw immutable(req.agent, template.schema_id, 'response_schema');
        }
        const variant = await tx.query<{ template: SchemaTemplate; template_hash: string }>(
          'SELECT template, template_hash FROM negotiation.schema_variants WHERE agent = $1 AND schema_id = $2 AND language = $3',
          [req.agent, template.schema_id, language],
        );
        const have = variant.rows[0];
        if (have) {
          if (have.template_hash !== hash) throw immutable(req.agent, template.schema_id, 'template');
          // The same template again: a no-op, or, for a retired schema, its return.
          if (existing.retired_at === null) return false;
          await tx.query('DELETE FROM negotiation.retired_schemas WHERE agent = $1 AND schema_id = $2', [req.agent, template.schema_id]);
          notes.push(`${req.agent}/${template.schema_id} was retired at ${iso(existing.retired_at)}; publishing it again brought it back`);
          return true;
        }
        const base = await tx.query<{ template: SchemaTemplate }>(
          'SELECT template FROM negotiation.schema_variants WHERE agent = $1 AND schema_id = $2 AND language = $3',
          [req.agent, template.schema_id, existing.default_language],
        );
        const baseTemplate = base.rows[0]?.template;
        if (baseTemplate) assertSameShape(baseTemplate, template, language);
        await insertVariant(tx, req.agent, template, language, hash, now);
        return true;
      });
      const row = await selectSchema(db, req.agent, template.schema_id);
      if (!row) throw new ParleyError('internal', 'Published schema vanished');
      return { schema: toVersion(row), created, notes };
    },

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

    /**
     * Retires one schema of an agent, or (no schema_id) every live one. Idempotent: a schema
     * retired before keeps its first retired_at. The caller is recorded (retired_by).
     */
    async retireSchema(req, ctx) {
      validateAgentName(req.agent, 'params.agent');
      if (req.schema_id !== undefined && (typeof req.schema_id !== 'string' || req.schema_id === '' || req.schema_id.length > 128)) {
        throw new ParleyError('invalid_params', 'schema_id must be a non-empty string of at most 128 characters', { path: 'params.schema_id', rule: 'type' });
      }
      if (req.reason.length > MAX_RETIRE_REASON) {
        throw new ParleyError('invalid_params', `reason must be at most ${MAX_RETIRE_REASON} characters`, { path: 'params.reason', rule: 'max_length' });
      }
      const now = clock.now().toISOString();
      const by = ctx?.principal?.id ?? '';
      return db.transaction(async (tx) => {
        let rows: SchemaRow[];
        if (req.schema_id !== undefined) {
          const row = await selectSchema(tx, req.agent, req.schema_id);
          if (!row) {
            throw new ParleyError('schema_not_found', `No schema with schema_id "${req.schema_id}" in agent "${req.agent}"`, { path: 'params.schema_id', rule: 'exists' });
          }
          rows = [row];
        } else {
          rows = (await tx.query<SchemaRow>(`${SELECT_SCHEMAS} WHERE s.agent = $1 AND ${LIVE} ORDER BY s.scenario_id, s.version`, [req.agent])).rows;
        }
        let newly = 0;
        for (const row of rows) {
          if (row.retired_at !== null) continue;
          await tx.query(
            'INSERT INTO negotiation.retired_schemas (agent, schema_id, retired_at, retired_by, reason) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
            [row.agent, row.schema_id, now, by, req.reason],
          );
          newly++;
        }
        const after = await Promise.all(rows.map((r) => selectSchema(tx, r.agent, r.schema_id)));
        return { schemas: after.filter((r): r is SchemaRow => r !== undefined).map(toVersion), newly_retired: newly };
      });
    },

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

async function selectSchema(q: Queryable, agent: string, schemaId: string): Promise<SchemaRow | undefined> {
  return (await q.query<SchemaRow>(`${SELECT_SCHEMAS} WHERE s.agent = $1 AND s.schema_id = $2`, [agent, schemaId])).rows[0];
}

async function selectVariant(q: Queryable, agent: string, schemaId: string, language: string): Promise<SchemaTemplate> {
  const r = await q.query<{ template: SchemaTemplate }>(
    'SELECT template FROM negotiation.schema_variants WHERE agent = $1 AND schema_id = $2 AND language = $3',
    [agent, schemaId, language],
  );
  const t = r.rows[0]?.template;
  if (!t) throw new ParleyError('internal', `Variant ${agent}/${schemaId}/${language} missing`);
  return typeof t === 'string' ? (JSON.parse(t) as SchemaTemplate) : t;
}

async function insertVariant(tx: Queryable, agent: string, t: SchemaTemplate, language: string, hash: string, now: string): Promise<void> {
  await tx.query(
    'INSERT INTO negotiation.schema_variants (agent, schema_id, language, template, template_hash, published_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [agent, t.schema_id, language, JSON.stringify(t), hash, now],
  );
}

function immutable(agent: string, schemaId: string, what: string): ParleyError {
  return new ParleyError('schema_immutable', `${agent}/${schemaId} is published and immutable (draft-zhou §6.2.2); publish the change under a new schema_id`, {
    path: what === 'template' ? 'params.template' : `params.${what}`,
    rule: 'immutable',
    details: { agent, schema_id: schemaId },
  });
}


/** Content hash over a canonical (key-sorted) rendering, so member order does not make a new version. */
function contentHash(t: SchemaTemplate): string {
  return createHash('sha256').update(canonicalJson(t)).digest('hex');
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function lockKey(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

function toVersion(r: SchemaRow): SchemaVersion {
  return {
    agent: r.agent,
    schema_id: r.schema_id,
    scenario: r.scenario,
    scenario_id: r.scenario_id,
    version: r.version,
    languages: r.languages ?? [],
    default_language: r.default_language,
    has_response_schema: r.response_schema !== null,
    published_at: iso(r.published_at),
    retired_at: r.retired_at === null ? '' : iso(r.retired_at),
  };
}

function iso(v: Date | string): string {
  return v instanceof Date ? v.toISOString() : new Date(v).toISOString();
}

