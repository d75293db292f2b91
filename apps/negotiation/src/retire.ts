import type { NegotiationApi } from '@parley/contracts';
import { ParleyError, validateAgentName } from '@parley/protocol';
import { LIVE, SELECT_SCHEMAS, selectSchema, toVersion, type SchemaRow } from './schema-store';
import type { Clock } from '@parley/runtime';
import type { Db } from '@parley/storage';

const MAX_RETIRE_REASON = 500;

/**
 * Retires one schema of an agent, or (no schema_id) every live one. Idempotent: a schema
 * retired before keeps its first retired_at. The caller is recorded (retired_by).
 */
export async function retireSchema(deps: { db: Db; clock: Clock }, req: Parameters<NegotiationApi['retireSchema']>[0], ctx?: Parameters<NegotiationApi['retireSchema']>[1]) {
  const { db, clock } = deps;
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
}
