import { randomUUID } from 'node:crypto';
import { templateFromWire, type ExecutionApi, type NegotiationApi } from '@parley/contracts';
import { EventType, type Bus, type EventEnvelope, type Subjects } from '@parley/events';
import {
  ParleyError,
  agentError,
  compilePayloadValidator,
  compileResponseSchema,
  decodeDispatchReply,
  encodeDispatch,
  type JsonObject,
  type PayloadValidator,
  type ResponseValidator,
} from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import type { Db } from '@parley/storage';
import { createRecorder } from './recorder';

/**
 * Execution: the path of one structured payload (draft-zhou §3.2 steps (4)-(6)):
 * validate against the negotiated template (REQUIRED keys present, types,
 * constraints, no unknown keys, `other` always accepted: §4.1, §4.3), apply
 * defaults (§4.1 default_value), dispatch to a server agent of the scenario over
 * NATS request/reply in the agent's queue group, check the result against the
 * scenario's response schema when one is published (§3.2 (5)), then record the
 * execution and its events in one transaction (transactional outbox).
 *
 * A payload that fails anywhere before the agent answers records nothing.
 */
export interface ExecutionServiceDeps {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  negotiation: NegotiationApi;
  clock: Clock;
  log: Logger;
  /** Called after each commit that wrote outbox rows (nudges the relay). */
  onOutboxWrite: () => void;
  timeoutMs: number;
  /** Schemas kept compiled (per agent/schema_id; published versions never change). */
  cacheSize?: number;
}

interface ResolvedSchema {
  agent: string;
  schemaId: string;
  scenarioId: string;
  validator: PayloadValidator;
  response?: ResponseValidator;
}

const CLIENT_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;
/** How long an unqualified schema_id -> agent resolution is trusted (another agent may publish the same id). */
const UNQUALIFIED_TTL_MS = 5_000;

export function createExecutionService(deps: ExecutionServiceDeps): ExecutionApi {
  const cache = new Map<string, ResolvedSchema>();
  const unqualified = new Map<string, { agent: string; at: number }>();
  const cacheSize = deps.cacheSize ?? 1000;
  const recorder = createRecorder({ db: deps.db, subjects: deps.subjects, onCommit: deps.onOutboxWrite });

  const inFlight = new Map<string, Promise<ResolvedSchema>>();

  async function resolve(schemaId: string, agent: string | undefined): Promise<ResolvedSchema> {
    let owner = agent;
    if (owner === undefined) {
      const u = unqualified.get(schemaId);
      if (u && Date.now() - u.at < UNQUALIFIED_TTL_MS) owner = u.agent;
    }
    if (owner !== undefined) {
      const hit = cache.get(`${owner}/${schemaId}`);
      if (hit) return hit;
    }
    // Single flight: concurrent requests for the same schema share one lookup, so
    // a cold cache under load costs one negotiation call and one compile, not one each.
    const key = `${owner ?? '*'}/${schemaId}`;
    let p = inFlight.get(key);
    if (!p) {
      p = lookup(schemaId, owner).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
    }
    const resolved = await p;
    if (agent === undefined) unqualified.set(schemaId, { agent: resolved.agent, at: Date.now() });
    return resolved;
  }

  async function lookup(schemaId: string, owner: string | undefined): Promise<ResolvedSchema> {
    const r = await deps.negotiation.getSchema({ schema_id: schemaId, ...(owner !== undefined ? { agent: owner } : {}) });
    if (!r.template || !r.schema) throw new ParleyError('internal', 'Negotiation returned no template');
    // Published versions never change: a version compiled before is reused as is.
    const cached = cache.get(`${r.schema.agent}/${schemaId}`);
    if (cached) return cached;
    const resolved: ResolvedSchema = {
      agent: r.schema.agent,
      schemaId,
      scenarioId: r.schema.scenario_id,
      validator: compilePayloadValidator(templateFromWire(r.template)),
      ...(r.response_schema ? { response: compileResponseSchema(r.response_schema) } : {}),
    };
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
    cache.set(`${resolved.agent}/${schemaId}`, resolved);
    return resolved;
  }

  return {
    async execute(req) {
      const clientId = req.client_id ?? 'anonymous';
      if (!CLIENT_ID.test(clientId)) {
        throw new ParleyError('invalid_params', `client_id must match ${CLIENT_ID.source}`, { path: 'params.client_id', rule: 'pattern' });
      }
      if (!req.schema_id) throw new ParleyError('invalid_params', 'schema_id is required', { path: 'params.schema_id', rule: 'required' });
      if (!req.payload) throw new ParleyError('invalid_params', 'payload is required', { path: 'params.payload', rule: 'required' });

      const schema = await resolve(req.schema_id, req.agent);
      const checked = schema.validator.validate(req.payload);

      const executionId = randomUUID();
      const startedAt = performance.now();
      const reply = decodeDispatchReply(
        await deps.bus.request(
          deps.subjects.execute(schema.scenarioId, schema.agent),
          encodeDispatch({
            execution_id: executionId,
            schema_id: schema.schemaId,
            scenario_id: schema.scenarioId,
            client_id: clientId,
            payload: checked.payload,
            deadline: new Date(deps.clock.now().getTime() + deps.timeoutMs).toISOString(),
          }),
          { timeoutMs: deps.timeoutMs },
        ),
        schema.agent,
      );
      if (!reply.ok) throw agentError(schema.agent, reply.error);
      schema.response?.check(reply.result, schema.agent);
      const durationMs = Math.round(performance.now() - startedAt);

      const now = deps.clock.now().toISOString();
      const base = { execution_id: executionId, agent: schema.agent, schema_id: schema.schemaId, scenario_id: schema.scenarioId, client_id: clientId };
      const events: EventEnvelope[] = [
        {
          id: randomUUID(),
          type: EventType.PayloadExecuted,
          scenario_id: schema.scenarioId,
          occurred_at: now,
          source: 'execution',
          data: {
            ...base,
            keys_present: [...checked.keys_present],
            key_type_correct: { ...checked.key_type_correct },
            defaults_applied: [...checked.defaults_applied],
            duration_ms: durationMs,
          },
        },
      ];
      // zhou §4.3: meaningful content in `other` signals a coverage gap; §6.2.1 feeds it to the pool.
      if (checked.other_fragments.length > 0) {
        events.push({
          id: randomUUID(),
          type: EventType.OtherCaptured,
          scenario_id: schema.scenarioId,
          occurred_at: now,
          source: 'execution',
          data: { ...base, fragments: [...checked.other_fragments] },
        });
      }
      await recorder.record(
        {
          id: executionId,
          agent: schema.agent,
          schema_id: schema.schemaId,
          scenario_id: schema.scenarioId,
          client_id: clientId,
          keys_present: [...checked.keys_present],
          defaults_applied: [...checked.defaults_applied],
          other_fragments: checked.other_fragments.length,
          duration_ms: durationMs,
          executed_at: now,
        },
        events,
      );
      return {
        result: reply.result as JsonObject,
        execution_id: executionId,
        agent: schema.agent,
        scenario_id: schema.scenarioId,
        defaults_applied: [...checked.defaults_applied],
      };
    },
  };
}
