import type { Agent, RegistryApi } from '@parley/contracts';
import { ParleyError, scenarioId, validateAgentName } from '@parley/protocol';
import type { Db, Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';
import type { Clock } from '@parley/runtime';
import type { ProcessedMarks } from '@parley/events';

/**
 * The registry: agent profiles, the scenarios each agent serves, and discovery
 * by scenario, tag or domain (draft-zhou §3.2 step (2): "This step MAY leverage
 * an agent registry, capability directory, or historical context").
 */
interface AgentRow {
  name: string;
  description: string;
  domain: string;
  tags: string[];
  version: string;
  registered_at: Date | string;
  updated_at: Date | string;
  scenarios: string[] | null;
  executions: number | string | null;
  last_executed_at: Date | string | null;
}

const TAG = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const SELECT_AGENTS = `
  SELECT a.name, a.description, a.domain, a.tags, a.version, a.registered_at, a.updated_at,
         (SELECT array_agg(s.scenario_id ORDER BY s.scenario_id) FROM registry.agent_scenarios s WHERE s.agent = a.name) AS scenarios,
         (SELECT sum(u.executions) FROM registry.scenario_usage u WHERE u.agent = a.name) AS executions,
         (SELECT max(u.last_executed_at) FROM registry.scenario_usage u WHERE u.agent = a.name) AS last_executed_at
  FROM registry.agents a`;

export function createRegistryService(deps: { db: Db; clock: Clock }): RegistryApi {
  const { db, clock } = deps;
  return {
    async registerAgent(req) {
      const a = req.agent;
      if (!a) throw new ParleyError('invalid_params', 'agent is required', { path: 'params', rule: 'required' });
      validateAgentName(a.name, 'params.name');
      if (!a.scenarios.length) {
        throw new ParleyError('agent_invalid', 'An agent must serve at least one scenario', { path: 'params.scenarios', rule: 'min_items' });
      }
      const scenarios = [...new Set(a.scenarios.map((s, i) => scenarioId(s, { path: `params.scenarios[${i}]` })))];
      a.tags.forEach((t, i) => {
        if (!TAG.test(t)) throw new ParleyError('agent_invalid', `Tag "${t}" must match ${TAG.source}`, { path: `params.tags[${i}]`, rule: 'tag_format' });
      });
      const now = clock.now().toISOString();
      const created = await db.transaction(async (tx) => {
        const r = await tx.query<{ inserted: boolean }>(
          `INSERT INTO registry.agents (name, description, domain, tags, version, registered_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $6)
           ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, domain = EXCLUDED.domain,
             tags = EXCLUDED.tags, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
           RETURNING (xmax = 0) AS inserted`,
          [a.name, a.description, a.domain, [...new Set(a.tags)], a.version, now],
        );
        await tx.query('DELETE FROM registry.agent_scenarios WHERE agent = $1', [a.name]);
        for (const s of scenarios) {
          await tx.query('INSERT INTO registry.agent_scenarios (agent, scenario_id) VALUES ($1, $2)', [a.name, s]);
        }
        return r.rows[0]?.inserted === true;
      });
      return { agent: await getAgent(db, a.name), created };
    },

    /**
     * Removes the agent and the scenarios it serves; its usage counters go too (a later agent of the
     * same name starts from zero). Its schemas are negotiation's: the gateway's `unregister_agent`
     * retires them first, so nothing of the agent is negotiated or executed once it is gone.
     */
    async unregisterAgent(req) {
      validateAgentName(req.name, 'params.name');
      return db.transaction(async (tx) => {
        const agent = await getAgent(tx, req.name);
        await tx.query('DELETE FROM registry.agents WHERE name = $1', [req.name]);
        await tx.query('DELETE FROM registry.scenario_usage WHERE agent = $1', [req.name]);
        return { agent };
      });
    },

    async getAgent(req) {
      validateAgentName(req.name, 'params.name');
      return { agent: await getAgent(db, req.name) };
    },

    async listAgents(req) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (req.scenario !== undefined) {
        params.push(scenarioId(req.scenario, { path: 'params.scenario' }));
        where.push(`EXISTS (SELECT 1 FROM registry.agent_scenarios s WHERE s.agent = a.name AND s.scenario_id = $${params.length})`);
      }
      if (req.tag !== undefined) {
        params.push(req.tag);
        where.push(`$${params.length} = ANY (a.tags)`);
      }
      if (req.domain !== undefined) {
        params.push(req.domain);
        where.push(`a.domain = $${params.length}`);
      }
      const sql = `${SELECT_AGENTS}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY a.name`;
      const r = await db.query<AgentRow>(sql, params);
      return { agents: r.rows.map(toAgent) };
    },
  };
}

/** Applies one `payload.executed` event to the usage counters (called inside the consumer's transaction). */
export async function recordExecution(tx: Queryable, e: { agent: string; scenario_id: string; occurred_at: string }): Promise<void> {
  await recordExecutions(tx, [e]);
}

/**
 * Applies a batch of `payload.executed` events to the usage counters in one
 * statement: counted per (agent, scenario) first, since one upsert cannot touch
 * the same row twice.
 */
export async function recordExecutions(tx: Queryable, events: readonly { agent: string; scenario_id: string; occurred_at: string }[]): Promise<void> {
  const groups = new Map<string, { agent: string; scenario_id: string; n: number; last: string }>();
  for (const e of events) {
    const key = JSON.stringify([e.agent, e.scenario_id]);
    const g = groups.get(key);
    if (!g) groups.set(key, { agent: e.agent, scenario_id: e.scenario_id, n: 1, last: e.occurred_at });
    else {
      g.n++;
      if (Date.parse(e.occurred_at) > Date.parse(g.last)) g.last = e.occurred_at;
    }
  }
  if (groups.size === 0) return;
  const values: string[] = [];
  const params: unknown[] = [];
  for (const g of groups.values()) {
    const n = params.length;
    values.push(`($${n + 1}, $${n + 2}, $${n + 3}::int, $${n + 4}::timestamptz)`);
    params.push(g.agent, g.scenario_id, g.n, g.last);
  }
  await tx.query(
    `INSERT INTO registry.scenario_usage (agent, scenario_id, executions, last_executed_at) VALUES ${values.join(', ')}
     ON CONFLICT (agent, scenario_id) DO UPDATE SET executions = registry.scenario_usage.executions + EXCLUDED.executions,
       last_executed_at = GREATEST(registry.scenario_usage.last_executed_at, EXCLUDED.last_executed_at)`,
    params,
  );
}

/**
 * Marks `ids` processed and counts the executions among them that it marked,
 * in one statement (a data-modifying CTE after `marks.cte`): each event id is
 * counted once however often it is delivered (zhou §6.2 event flow, consumers
 * idempotent by event id), grouped by (agent, scenario) since one upsert
 * cannot touch the same row twice.
 */
export async function recordExecutionsMarked(
  db: Queryable,
  marks: ProcessedMarks,
  ids: readonly string[],
  executions: readonly { id: string; agent: string; scenario_id: string; occurred_at: string }[],
): Promise<void> {
  await db.query(
    `WITH ${marks.cte}
     INSERT INTO registry.scenario_usage (agent, scenario_id, executions, last_executed_at)
     SELECT e.agent, e.scenario_id, count(*), max(e.at)
       FROM unnest($3::uuid[], $4::text[], $5::text[], $6::timestamptz[]) AS e(id, agent, scenario_id, at)
       JOIN fresh ON fresh.event_id = e.id
      GROUP BY e.agent, e.scenario_id
     ON CONFLICT (agent, scenario_id) DO UPDATE SET executions = registry.scenario_usage.executions + EXCLUDED.executions,
       last_executed_at = GREATEST(registry.scenario_usage.last_executed_at, EXCLUDED.last_executed_at)`,
    [...marks.params(ids), executions.map((e) => e.id), executions.map((e) => e.agent), executions.map((e) => e.scenario_id), executions.map((e) => e.occurred_at)],
  );
}

async function getAgent(db: Queryable, name: string): Promise<Agent> {
  const r = await db.query<AgentRow>(`${SELECT_AGENTS} WHERE a.name = $1`, [name]);
  const row = r.rows[0];
  if (!row) throw new ParleyError('agent_not_found', `No agent named "${name}"`, { path: 'params.name', rule: 'exists' });
  return toAgent(row);
}

/** A timestamp column as ISO 8601; '' for NULL. */
export function iso(v: Date | string | null): string {
  return v === null ? '' : isoTimestamp(v);
}

function toAgent(r: AgentRow): Agent {
  return {
    name: r.name,
    description: r.description,
    domain: r.domain,
    tags: r.tags,
    scenarios: r.scenarios ?? [],
    version: r.version,
    registered_at: iso(r.registered_at),
    updated_at: iso(r.updated_at),
    executions: Number(r.executions ?? 0),
    last_executed_at: iso(r.last_executed_at),
  };
}
