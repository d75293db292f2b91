import { randomUUID } from 'node:crypto';
import { ERROR_CATALOGUE, ParleyError, toParleyError } from '@parley/protocol';
import type { Logger } from '@parley/runtime';

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

/** What a log line says of a cause: its name, message, first stack frames and its own cause, never a whole object graph. */
export function describeCause(e: unknown, depth = 0): unknown {
  if (!(e instanceof Error)) return typeof e === 'string' ? e.slice(0, 2000) : e === undefined ? undefined : String(e).slice(0, 2000);
  const out: Record<string, unknown> = { name: e.name, message: e.message.slice(0, 2000) };
  if (e.stack) out.stack = e.stack.split('\n').slice(0, 8).join('\n');
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  if (e.cause !== undefined && depth < 3) out.cause = describeCause(e.cause, depth + 1);
  return out;
}

/**
 * An `internal` failure as the client gets it: the catalogue's opaque message plus
 * `details.correlation_id`, which the log line carrying the cause also names. A
 * service's internal error arrives with its own correlation id (logged there, with
 * its cause) and keeps it, so one id finds both lines.
 */
export function internalFailure(e: unknown, log: Logger, fields: Record<string, unknown>): ParleyError {
  const err = toParleyError(e);
  const given = err.details.correlation_id;
  const correlationId = typeof given === 'string' && /^[A-Za-z0-9-]{8,64}$/.test(given) ? given : randomUUID();
  log.error('internal error', { ...fields, correlation_id: correlationId, cause: describeCause(err.cause ?? e) });
  return new ParleyError('internal', `Internal error (correlation id ${correlationId}; the operator's log names the cause)`, {
    details: { correlation_id: correlationId },
  });
}
