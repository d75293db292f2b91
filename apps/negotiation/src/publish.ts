import { createHash } from 'node:crypto';
import { templateFromWire, type NegotiationApi, type RegistryApi } from '@parley/contracts';
import {
  ParleyError,
  assertNoPatchOnlyMembers,
  assertSameShape,
  compileResponseSchema,
  normalizeLanguageTag,
  parseTemplate,
  scenarioId,
  validateAgentName,
  type SchemaTemplate,
} from '@parley/protocol';
import { insertVariant, iso, selectSchema, toVersion } from './schema-store';
import type { Db } from '@parley/storage';
import type { Clock } from '@parley/runtime';

/**
 * PublishSchema (draft-zhou §4.1, §4.2, §6.2.2): a base template, immutable once
 * published, versioned per (agent, scenario), in one language per call (a
 * variant differs only in its semantic descriptions). Identical content again is
 * a no-op, or brings a retired schema back.
 */
export async function publishSchema(deps: { db: Db; clock: Clock; registry: Pick<RegistryApi, 'getAgent'> }, req: Parameters<NegotiationApi['publishSchema']>[0]) {
  const { db, clock, registry } = deps;
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
