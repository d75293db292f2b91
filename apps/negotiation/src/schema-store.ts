import type { SchemaVersion } from '@parley/contracts';
import { ParleyError, scenarioId, type SchemaTemplate } from '@parley/protocol';
import type { Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';

// The SQL of published schemas (service.ts): `negotiation.schemas` (one row per
// (agent, schema_id), versioned per scenario), `schema_variants` (a template per
// language) and `retired_schemas`.

export interface SchemaRow {
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

export const SELECT_SCHEMAS = `
  SELECT s.agent, s.schema_id, s.scenario, s.scenario_id, s.version, s.default_language, s.response_schema, s.published_at,
         (SELECT array_agg(v.language ORDER BY v.language) FROM negotiation.schema_variants v
           WHERE v.agent = s.agent AND v.schema_id = s.schema_id) AS languages,
         r.retired_at
  FROM negotiation.schemas s
  LEFT JOIN negotiation.retired_schemas r ON r.agent = s.agent AND r.schema_id = s.schema_id`;
export const LIVE = 'r.retired_at IS NULL';

/** The latest version of a scenario's schema (one agent, or the one named). */
export async function latestSchema(db: Queryable, scenario: string, agent: string | undefined): Promise<SchemaRow> {
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

export async function selectSchema(q: Queryable, agent: string, schemaId: string): Promise<SchemaRow | undefined> {
  return (await q.query<SchemaRow>(`${SELECT_SCHEMAS} WHERE s.agent = $1 AND s.schema_id = $2`, [agent, schemaId])).rows[0];
}

export async function selectVariant(q: Queryable, agent: string, schemaId: string, language: string): Promise<SchemaTemplate> {
  const r = await q.query<{ template: SchemaTemplate }>(
    'SELECT template FROM negotiation.schema_variants WHERE agent = $1 AND schema_id = $2 AND language = $3',
    [agent, schemaId, language],
  );
  const t = r.rows[0]?.template;
  if (!t) throw new ParleyError('internal', `Variant ${agent}/${schemaId}/${language} missing`);
  return typeof t === 'string' ? (JSON.parse(t) as SchemaTemplate) : t;
}

export async function insertVariant(tx: Queryable, agent: string, t: SchemaTemplate, language: string, hash: string, now: string): Promise<void> {
  await tx.query(
    'INSERT INTO negotiation.schema_variants (agent, schema_id, language, template, template_hash, published_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [agent, t.schema_id, language, JSON.stringify(t), hash, now],
  );
}

export function toVersion(r: SchemaRow): SchemaVersion {
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

export const iso = isoTimestamp;
