/**
 * The faces' call of ExecutionService.Execute (apps/gateway/src/execute.ts):
 * when the call itself is lost, the outcome is unknown, and the answer says
 * whether a retry is safe (draft-zhou §3.2 steps (4)-(6)).
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionApi } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import { execute } from '../src/execute';

const failing = (e: unknown): ExecutionApi => ({ execute: () => Promise.reject(e) }) as unknown as ExecutionApi;
const lost = () => new ParleyError('unavailable', 'Service at 127.0.0.1:50053 is unavailable', { details: { target: '127.0.0.1:50053' } });

describe('execute through a face', () => {
  it('marks a lost call retryable only when it carried an idempotency key, and says the outcome is unknown', async () => {
    const keyed = (await execute(failing(lost()), { schema_id: 's', payload: {}, idempotency_key: 'k-1' }).catch((e: unknown) => e)) as ParleyError;
    expect(keyed).toMatchObject({ type: 'unavailable', retryable: true, details: { target: '127.0.0.1:50053', outcome: 'unknown', idempotency_key_sent: true } });
    expect(keyed.message).toContain('retry with the same idempotency_key');
    expect(keyed.toJSON()).toMatchObject({ retryable: true });
    const bare = (await execute(failing(lost()), { schema_id: 's', payload: {} }).catch((e: unknown) => e)) as ParleyError;
    expect(bare).toMatchObject({ type: 'unavailable', retryable: false, details: { outcome: 'unknown', idempotency_key_sent: false } });
    expect(bare.message).toContain('may or may not have been executed');
    // It survives the trip over gRPC (the trailer carries the override).
    expect(ParleyError.fromJSON(bare.toJSON()).retryable).toBe(false);
  });

  it("passes the service's own typed errors untouched", async () => {
    for (const e of [
      new ParleyError('unavailable', 'negotiation is unreachable'),
      new ParleyError('payload_invalid', 'payload.seats must be >= 1', { path: 'payload.seats', rule: 'minimum' }),
      new ParleyError('idempotency_in_progress', 'still running', { details: { retry_after_ms: 900 } }),
    ]) {
      expect(await execute(failing(e), { schema_id: 's', payload: {}, idempotency_key: 'k' }).catch((x: unknown) => x)).toBe(e);
    }
  });
});
