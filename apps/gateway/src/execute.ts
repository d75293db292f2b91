import type { ExecuteRequest, ExecuteResponse, ExecutionApi } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';

/**
 * ExecutionService.Execute as every face calls it (JSON-RPC `execute`, MCP
 * `tools/call`, A2A messages). When the call itself is lost (the execution
 * service stopped answering: its connection dropped or the deadline passed),
 * the gateway cannot know whether the payload was executed. That `unavailable`
 * is retryable only if the call carried an idempotency key, since a repeat with
 * the key answers once; without a key the error says the outcome is unknown and
 * that a retry may execute twice (draft-zhou §3.2 steps (4)-(6)).
 */
export async function execute(execution: ExecutionApi, req: ExecuteRequest): Promise<ExecuteResponse> {
  try {
    return await execution.execute(req);
  } catch (e) {
    // A typed error from the service carries no `target`: only the transport's own failure does (libs/contracts fromServiceError).
    if (!(e instanceof ParleyError) || e.type !== 'unavailable' || e.details.target === undefined) throw e;
    const keyed = req.idempotency_key !== undefined;
    throw new ParleyError(
      'unavailable',
      keyed
        ? 'The execution service stopped answering during the call; retry with the same idempotency_key: the payload runs at most once, and a repeat returns its result'
        : 'The execution service stopped answering during the call: the payload may or may not have been executed, and retrying without an idempotency_key may execute it twice',
      { retryable: keyed, details: { ...e.details, outcome: 'unknown', idempotency_key_sent: keyed }, cause: e },
    );
  }
}
