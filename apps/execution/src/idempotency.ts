import { createHash, randomUUID } from 'node:crypto';
import type { ExecuteResponse } from '@parley/contracts';
import { ParleyError, canonicalJson, type JsonObject } from '@parley/protocol';
import type { Db } from '@parley/storage';

/**
 * Idempotency keys of `execute` (draft-zhou §3.2 steps (4)-(6) over a network
 * that can lose the answer after the agent acted): `execution.idempotency_keys`,
 * one row per (client, key).
 *
 * - `begin` reserves the key before the agent is called (state `pending`, the
 *   execution_id the execution will have, a lease), or answers a repeat: the
 *   stored response (`done`), idempotency_conflict (another request under the
 *   key), idempotency_in_progress (the lease runs). A reservation whose lease
 *   ran out is taken over with the same execution_id, so the agent sees the
 *   same execution again (and answers it as before, see the agent SDK).
 * - The recorder completes it (`done` with the response) in the transaction
 *   that writes the execution row and its events, only while it is still
 *   `pending` under the same execution_id: of two processes that both ran one
 *   key, one commits and the other returns the first's response.
 * - Keys live `ttlMs` from their first use on the service's clock; an expired
 *   key is free again, and `purge` deletes expired rows.
 */
export interface IdempotencyStore {
  begin(input: { clientId: string; key: string; hash: string; now: Date }): Promise<Begun>;
  /** The call failed before the agent was called: a fresh reservation is dropped, a taken-over one freed. */
  releaseUndispatched(clientId: string, key: string, executionId: string, tookOver: boolean, now: Date): Promise<void>;
  /** The call failed after the agent was called: the reservation (and its execution_id) stays, free at once for a repeat. */
  releaseLease(clientId: string, key: string, executionId: string, now: Date): Promise<void>;
  /** The response stored for a key that is done (undefined otherwise). */
  stored(clientId: string, key: string, now: Date): Promise<ExecuteResponse | undefined>;
  /** Deletes keys expired at `now`; returns how many. */
  purge(now: Date): Promise<number>;
}

export type Begun = { kind: 'replay'; response: ExecuteResponse } | { kind: 'run'; executionId: string; tookOver: boolean };

/** What a key covers: a repeat must send the same schema, agent and payload. */
export function requestHash(req: { schema_id: string; agent?: string | undefined; payload: JsonObject }): string {
  return createHash('sha256')
    .update(canonicalJson({ schema_id: req.schema_id, agent: req.agent ?? null, payload: req.payload }))
    .digest('hex');
}

interface Row {
  request_hash: string;
  execution_id: string;
  state: 'pending' | 'done';
  lease_until: Date | string | null;
  response: ExecuteResponse | string | null;
  expires_at: Date | string;
}

const ms = (v: Date | string): number => (v instanceof Date ? v.getTime() : Date.parse(v));
const parse = (r: ExecuteResponse | string): ExecuteResponse => (typeof r === 'string' ? (JSON.parse(r) as ExecuteResponse) : r);

export function createIdempotencyStore(opts: { db: Db; ttlMs: number; leaseMs: number }): IdempotencyStore {
  const { db, ttlMs, leaseMs } = opts;
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError('idempotency ttlMs must be a positive integer');
  if (!Number.isInteger(leaseMs) || leaseMs < 1) throw new RangeError('idempotency leaseMs must be a positive integer');
  const iso = (t: number) => new Date(t).toISOString();

  return {
    async begin({ clientId, key, hash, now }) {
      const t = now.getTime();
      return db.transaction(async (tx) => {
        const fresh = randomUUID();
        const inserted = await tx.query<{ execution_id: string }>(
          `INSERT INTO execution.idempotency_keys (client_id, idem_key, request_hash, execution_id, state, lease_until, created_at, expires_at)
           VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7) ON CONFLICT (client_id, idem_key) DO NOTHING RETURNING execution_id::text AS execution_id`,
          [clientId, key, hash, fresh, iso(t + leaseMs), iso(t), iso(t + ttlMs)],
        );
        if (inserted.rows.length === 1) return { kind: 'run', executionId: fresh, tookOver: false };
        const r = await tx.query<Row>(
          `SELECT request_hash, execution_id::text AS execution_id, state, lease_until, response, expires_at FROM execution.idempotency_keys
           WHERE client_id = $1 AND idem_key = $2 FOR UPDATE`,
          [clientId, key],
        );
        const row = r.rows[0];
        if (!row || ms(row.expires_at) <= t) {
          // Expired (or deleted by a purge in between): the key is free again, for a new execution.
          await tx.query(
            `INSERT INTO execution.idempotency_keys (client_id, idem_key, request_hash, execution_id, state, lease_until, created_at, expires_at)
             VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7)
             ON CONFLICT (client_id, idem_key) DO UPDATE SET request_hash = EXCLUDED.request_hash, execution_id = EXCLUDED.execution_id, state = 'pending',
               lease_until = EXCLUDED.lease_until, response = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at`,
            [clientId, key, hash, fresh, iso(t + leaseMs), iso(t), iso(t + ttlMs)],
          );
          return { kind: 'run', executionId: fresh, tookOver: false };
        }
        if (row.request_hash !== hash) {
          throw new ParleyError(
            'idempotency_conflict',
            `params.idempotency_key was used by this client for another request (schema, agent or payload) until ${iso(ms(row.expires_at))}: use a new key for a new request`,
            { path: 'params.idempotency_key', rule: 'same_request', details: { expires_at: iso(ms(row.expires_at)) } },
          );
        }
        if (row.state === 'done' && row.response !== null) return { kind: 'replay', response: parse(row.response) };
        const lease = row.lease_until === null ? 0 : ms(row.lease_until);
        if (lease > t) {
          throw new ParleyError('idempotency_in_progress', `A request with this idempotency_key is still running; retry with the same key in ${lease - t} ms for its result`, {
            path: 'params.idempotency_key',
            rule: 'in_progress',
            details: { retry_after_ms: lease - t },
          });
        }
        // Its process died or gave up: take it over, with the execution_id it was dispatched with.
        await tx.query(`UPDATE execution.idempotency_keys SET lease_until = $3 WHERE client_id = $1 AND idem_key = $2`, [clientId, key, iso(t + leaseMs)]);
        return { kind: 'run', executionId: row.execution_id, tookOver: true };
      });
    },

    async releaseUndispatched(clientId, key, executionId, tookOver, now) {
      if (tookOver) {
        await db.query(`UPDATE execution.idempotency_keys SET lease_until = $4 WHERE client_id = $1 AND idem_key = $2 AND execution_id = $3 AND state = 'pending'`, [clientId, key, executionId, now.toISOString()]);
        return;
      }
      await db.query(`DELETE FROM execution.idempotency_keys WHERE client_id = $1 AND idem_key = $2 AND execution_id = $3 AND state = 'pending'`, [clientId, key, executionId]);
    },

    async releaseLease(clientId, key, executionId, now) {
      await db.query(`UPDATE execution.idempotency_keys SET lease_until = $4 WHERE client_id = $1 AND idem_key = $2 AND execution_id = $3 AND state = 'pending'`, [clientId, key, executionId, now.toISOString()]);
    },

    async stored(clientId, key, now) {
      const r = await db.query<Row>(
        `SELECT request_hash, execution_id::text AS execution_id, state, lease_until, response, expires_at FROM execution.idempotency_keys WHERE client_id = $1 AND idem_key = $2`,
        [clientId, key],
      );
      const row = r.rows[0];
      return row && row.state === 'done' && row.response !== null && ms(row.expires_at) > now.getTime() ? parse(row.response) : undefined;
    },

    async purge(now) {
      return (await db.query('DELETE FROM execution.idempotency_keys WHERE expires_at <= $1', [now.toISOString()])).rowCount;
    },
  };
}
