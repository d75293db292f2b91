/**
 * Errors of this library, in the style of libs/embeddings: one `ParleyError`
 * class; `invalid_params` for bad options or input (with `path` and `rule`),
 * `unavailable` (the catalogue's "a Parley dependency is unavailable",
 * retryable) when the model endpoint fails, with `rule` saying how (`network`,
 * `timeout`, `http_status`, `bad_response`, `bad_answer`) and
 * `details.retryable` whether the same request may succeed later.
 */
import { ParleyError } from '@parley/protocol';

export function invalid(path: string, rule: string, message: string, details?: Record<string, unknown>): ParleyError {
  return new ParleyError('invalid_params', message, details ? { path, rule, details } : { path, rule });
}

export function unavailable(rule: string, message: string, details: Record<string, unknown>, cause?: unknown): ParleyError {
  return new ParleyError('unavailable', message, { rule, details, ...(cause === undefined ? {} : { cause }) });
}
