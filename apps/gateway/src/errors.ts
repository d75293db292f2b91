import { ERROR_CATALOGUE, type ParleyError } from '@parley/protocol';

/**
 * One line (plus one per further violation) naming the error type, the key
 * path and the rule, then the message: the text the MCP and A2A faces return,
 * where a model reads it and corrects the exact member.
 */
export function describeError(err: ParleyError): string {
  const where = [err.path ? `at ${err.path}` : '', err.rule ? `rule ${err.rule}` : ''].filter(Boolean).join(', ');
  const head = `${err.type}${where ? ` (${where})` : ''}: ${err.message}`;
  if (err.violations.length <= 1) return head;
  return [head, ...err.violations.map((v) => `- ${v.path} (${v.rule}): ${v.message}`)].join('\n');
}

/** The error as data: the catalogue's serialisation plus retryability (as /rpc returns it in `error.data`). */
export function errorData(err: ParleyError): Record<string, unknown> {
  return { ...err.toJSON(), retryable: err.retryable };
}

/** The JSON-RPC code of an error type (ERROR_CATALOGUE: the one table every transport maps from). */
export function jsonRpcCode(err: ParleyError): number {
  return ERROR_CATALOGUE[err.type].jsonrpc;
}
