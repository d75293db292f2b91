import { outboxInsert, type EventEnvelope, type Subjects } from '@parley/events';
import type { Db } from '@parley/storage';

/**
 * Group commit for executions. Each caller waits until its execution row and
 * its events are committed (nothing is acknowledged before it is durable), but
 * callers that arrive while a commit is in flight share the next transaction:
 * under load one transaction carries many executions, and at low load the
 * first caller commits at once, so latency is never traded for batching.
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
}

interface Pending {
  row: ExecutionRow;
  events: EventEnvelope[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface Recorder {
  record(row: ExecutionRow, events: EventEnvelope[]): Promise<void>;
}

const COLUMNS = 10;

export function createRecorder(opts: { db: Db; subjects: Subjects; onCommit: () => void; maxBatch?: number; maxInFlight?: number }): Recorder {
  const maxBatch = opts.maxBatch ?? 200;
  const maxInFlight = opts.maxInFlight ?? 2;
  const queue: Pending[] = [];
  let inFlight = 0;

  async function commit(batch: Pending[]): Promise<void> {
    const values: string[] = [];
    const params: unknown[] = [];
    for (const { row } of batch) {
      const n = params.length;
      values.push(`(${Array.from({ length: COLUMNS }, (_, i) => `$${n + i + 1}`).join(', ')})`);
      params.push(row.id, row.agent, row.schema_id, row.scenario_id, row.client_id, row.keys_present, row.defaults_applied, row.other_fragments, row.duration_ms, row.executed_at);
    }
    const insertExecutions = `INSERT INTO execution.executions (id, agent, schema_id, scenario_id, client_id, keys_present, defaults_applied, other_fragments, duration_ms, executed_at)
      VALUES ${values.join(', ')}`;
    const events = batch.flatMap((p) => p.events);
    if (events.length === 0) {
      await opts.db.query(insertExecutions, params);
      return;
    }
    // One statement, so one round trip and atomic on its own: the executions and
    // their outbox events commit together or not at all.
    const outbox = outboxInsert('execution', opts.subjects, events, params.length + 1);
    await opts.db.query(`WITH executed AS (${insertExecutions}) ${outbox.sql}`, [...params, ...outbox.params]);
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight++;
      commit(batch).then(
        () => {
          for (const p of batch) p.resolve();
          opts.onCommit();
        },
        (e: unknown) => {
          for (const p of batch) p.reject(e);
        },
      ).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    record(row, events) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, events, resolve, reject });
        pump();
      });
    },
  };
}
