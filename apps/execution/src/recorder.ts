import type { ExecuteResponse } from '@parley/contracts';
import { outboxInsert, reportTooLarge, type EventEnvelope, type EventsLogger, type Subjects } from '@parley/events';
import type { Db, Queryable } from '@parley/storage';

/**
 * Group commit for executions. Each caller waits until its execution row and
 * its events are committed (nothing is acknowledged before it is durable), but
 * callers that arrive while a commit is in flight share the next transaction:
 * under load one transaction carries many executions, and at low load the
 * first caller commits at once, so latency is never traded for batching.
 *
 * An execution under an idempotency key commits only if its key is still
 * reserved for it (idempotency.ts): the key turns `done` with the response in
 * the same transaction as the row and the events. Otherwise (another process
 * took the key over and committed first) nothing is written and the caller is
 * told `lost`: it answers with the stored response.
 */
export interface ExecutionRow {
  id: string;
  agent: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  keys_present: string[];
  defaults_applied: string[];
  other_fragments: number;
  duration_ms: number;
  executed_at: string;
  idempotency_key: string | null;
}

/** The key an execution completes, with the response a repeat will get. */
export interface KeyCompletion {
  client_id: string;
  key: string;
  response: ExecuteResponse;
}

export type Recorded = 'recorded' | 'lost';

interface Pending {
  row: ExecutionRow;
  events: EventEnvelope[];
  key: KeyCompletion | undefined;
  resolve: (r: Recorded) => void;
  reject: (e: unknown) => void;
}

export interface Recorder {
  record(row: ExecutionRow, events: EventEnvelope[], key?: KeyCompletion): Promise<Recorded>;
}

const COLUMNS = 11;

export function createRecorder(opts: { db: Db; subjects: Subjects; onCommit: () => void; maxBatch?: number; maxInFlight?: number; logger?: EventsLogger }): Recorder {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? 2;
  const queue: Pending[] = [];
  let inFlight = 0;

  /** The executions and their events (and the too-large ones' dead letters) in one statement. */
  async function write(q: Queryable, batch: Pending[]): Promise<void> {
    const values: string[] = [];
    const params: unknown[] = [];
    for (const { row } of batch) {
      const n = params.length;
      values.push(`(${Array.from({ length: COLUMNS }, (_, i) => `$${n + i + 1}`).join(', ')})`);
      params.push(row.id, row.agent, row.schema_id, row.scenario_id, row.client_id, row.keys_present, row.defaults_applied, row.other_fragments, row.duration_ms, row.executed_at, row.idempotency_key);
    }
    const insertExecutions = `INSERT INTO execution.executions (id, agent, schema_id, scenario_id, client_id, keys_present, defaults_applied, other_fragments, duration_ms, executed_at, idempotency_key)
      VALUES ${values.join(', ')}`;
    const events = batch.flatMap((p) => p.events);
    if (events.length === 0) {
      await q.query(insertExecutions, params);
      return;
    }
    // One statement, so one round trip and atomic on its own: the executions and
    // their outbox events commit together or not at all.
    const outbox = outboxInsert('execution', opts.subjects, events, params.length + 1, { with: [`executed AS (${insertExecutions})`] });
    await q.query(outbox.sql, [...params, ...outbox.params]);
    if (outbox.tooLarge.length > 0) await reportTooLarge(q, 'execution', outbox.tooLarge, opts.logger ? { logger: opts.logger } : {});
  }

  /** Commits a batch; returns the executions whose key was no longer theirs. */
  async function commit(batch: Pending[]): Promise<Set<Pending>> {
    const lost = new Set<Pending>();
    if (batch.every((p) => p.key === undefined)) {
      await write(opts.db, batch);
      return lost;
    }
    await opts.db.transaction(async (tx) => {
      // Each key completes once: a second member with the same execution (a takeover racing the original) loses.
      const keyed: Pending[] = [];
      const ids = new Set<string>();
      for (const p of batch) {
        if (!p.key) continue;
        if (ids.has(p.row.id)) lost.add(p);
        else {
          ids.add(p.row.id);
          keyed.push(p);
        }
      }
      const values: string[] = [];
      const params: unknown[] = [];
      for (const p of keyed) {
        const n = params.length;
        values.push(`($${n + 1}::text, $${n + 2}::text, $${n + 3}::uuid, $${n + 4}::json)`);
        params.push(p.key!.client_id, p.key!.key, p.row.id, JSON.stringify(p.key!.response));
      }
      const done = await tx.query<{ execution_id: string }>(
        `UPDATE execution.idempotency_keys k SET state = 'done', response = v.response, lease_until = NULL
         FROM (VALUES ${values.join(', ')}) AS v (client_id, idem_key, execution_id, response)
         WHERE k.client_id = v.client_id AND k.idem_key = v.idem_key AND k.execution_id = v.execution_id AND k.state = 'pending'
         RETURNING k.execution_id::text AS execution_id`,
        params,
      );
      const won = new Set(done.rows.map((r) => r.execution_id.toLowerCase()));
      for (const p of keyed) if (!won.has(p.row.id.toLowerCase())) lost.add(p);
      const winners = batch.filter((p) => !lost.has(p));
      if (winners.length > 0) await write(tx, winners);
    });
    return lost;
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight++;
      commit(batch)
        .then(
          (lost) => {
            for (const p of batch) p.resolve(lost.has(p) ? 'lost' : 'recorded');
            if (lost.size < batch.length) opts.onCommit();
          },
          (e: unknown) => {
            for (const p of batch) p.reject(e);
          },
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  }

  return {
    record(row, events, key) {
      return new Promise<Recorded>((resolve, reject) => {
        queue.push({ row, events, key, resolve, reject });
        pump();
      });
    },
  };
}
