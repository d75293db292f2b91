/**
 * The error catalogue: one error type per failure, transport-agnostic. Every
 * error names the key path and the rule it broke, so a client (or its LLM) can
 * correct the exact member. `ERROR_CATALOGUE` is the one table that maps each
 * type to a JSON-RPC 2.0 code and a gRPC status; the gateway and the gRPC
 * adapters read it and nothing else.
 *
 * gRPC status numbers are written as numbers on purpose: this library does no IO
 * and imports no transport (see eslint.config.mjs).
 */

/** gRPC status codes used here (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GrpcStatus = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

interface CatalogueEntry {
  readonly jsonrpc: number;
  readonly grpc: number;
  readonly http: number;
  /** True when the same call may succeed if retried later unchanged. */
  readonly retryable: boolean;
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  // JSON-RPC 2.0 envelope errors (https://www.jsonrpc.org/specification#error_object)
  parse_error: { jsonrpc: -32700, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'The body is not valid JSON.' },
  invalid_request: { jsonrpc: -32600, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'The body is not a valid JSON-RPC 2.0 request.' },
  body_too_large: { jsonrpc: -32600, grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 413, retryable: false, summary: 'The request body exceeds the size limit.' },
  method_not_found: { jsonrpc: -32601, grpc: GrpcStatus.UNIMPLEMENTED, http: 200, retryable: false, summary: 'No such method.' },
  invalid_params: { jsonrpc: -32602, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'A method parameter is missing or malformed.' },
  // Parley's own (the -32000..-32099 server range)
  template_invalid: { jsonrpc: -32010, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'A schema template breaks a rule of draft-zhou §4.1/§4.3.' },
  payload_invalid: { jsonrpc: -32011, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'A payload does not satisfy its schema template.' },
  agent_invalid: { jsonrpc: -32012, grpc: GrpcStatus.INVALID_ARGUMENT, http: 200, retryable: false, summary: 'An agent profile is malformed.' },
  schema_not_found: { jsonrpc: -32020, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No schema with that schema_id.' },
  scenario_not_found: { jsonrpc: -32021, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No schema is published for that scenario.' },
  agent_not_found: { jsonrpc: -32022, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No agent with that name.' },
  ambiguous_agent: { jsonrpc: -32023, grpc: GrpcStatus.FAILED_PRECONDITION, http: 200, retryable: false, summary: 'Several agents match; name one with `agent`.' },
  scenario_not_served: { jsonrpc: -32024, grpc: GrpcStatus.FAILED_PRECONDITION, http: 200, retryable: false, summary: 'The agent does not serve that scenario.' },
  schema_immutable: { jsonrpc: -32025, grpc: GrpcStatus.ALREADY_EXISTS, http: 200, retryable: false, summary: 'A published schema version cannot change; publish a new schema_id.' },
  agent_timeout: { jsonrpc: -32030, grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 200, retryable: true, summary: 'The server agent did not answer in time.' },
  agent_unavailable: { jsonrpc: -32031, grpc: GrpcStatus.UNAVAILABLE, http: 200, retryable: true, summary: 'No server agent is listening for the scenario.' },
  agent_error: { jsonrpc: -32032, grpc: GrpcStatus.UNKNOWN, http: 200, retryable: false, summary: 'The server agent reported a failure.' },
  agent_response_invalid: { jsonrpc: -32033, grpc: GrpcStatus.INTERNAL, http: 200, retryable: false, summary: "The server agent's result breaks the scenario's response schema." },
  // Schema self-evolution (draft-zhou §6.2)
  patch_not_found: { jsonrpc: -32026, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No schema patch with that patch_id.' },
  cluster_not_found: { jsonrpc: -32027, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No pool cluster with that id in that scenario.' },
  audit_sample_not_found: { jsonrpc: -32028, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No audit sample with that id.' },
  event_subscription_not_found: { jsonrpc: -32045, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No event subscription with that id.' },
  task_not_found: { jsonrpc: -32034, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No AN task with that task_id.' },
  api_key_not_found: { jsonrpc: -32036, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No API key with that key_id.' },
  // Events set aside (draft-zhou §6.2 event flow: no event stops a pipeline)
  dead_letter_not_found: { jsonrpc: -32037, grpc: GrpcStatus.NOT_FOUND, http: 200, retryable: false, summary: 'No dead letter with that id in that service.' },
  // Safe retries of execute (draft-zhou §3.2 steps (4)-(6)): an idempotency key names one execution per client
  idempotency_conflict: {
    jsonrpc: -32038,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    http: 200,
    retryable: false,
    summary: 'The idempotency key was used for another request (payload, schema or agent) by this client within its lifetime; use a new key.',
  },
  idempotency_in_progress: {
    jsonrpc: -32039,
    grpc: GrpcStatus.ABORTED,
    http: 200,
    retryable: true,
    summary: 'A request with this idempotency key is still running; retry with the same key after details.retry_after_ms to get its result.',
  },
  illegal_transition: { jsonrpc: -32029, grpc: GrpcStatus.FAILED_PRECONDITION, http: 200, retryable: false, summary: 'The object is not in a state that allows this change.' },
  // Access (draft-zhou §7: updates that touch security-relevant keys need authorization)
  unauthenticated: { jsonrpc: -32050, grpc: GrpcStatus.UNAUTHENTICATED, http: 401, retryable: false, summary: 'The call carries no valid credentials.' },
  forbidden: { jsonrpc: -32051, grpc: GrpcStatus.PERMISSION_DENIED, http: 403, retryable: false, summary: 'The caller may not do this.' },
  rate_limited: { jsonrpc: -32052, grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429, retryable: true, summary: 'The caller sent more requests than its rate limit allows; retry after details.retry_after_ms.' },
  batch_too_large: {
    jsonrpc: -32053,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    http: 413,
    retryable: false,
    summary: 'The batch holds more requests than one request may (details.max_batch: the batch size limit, or the rate-limit burst when smaller); split it.',
  },
  signature_invalid: { jsonrpc: -32035, grpc: GrpcStatus.UNAUTHENTICATED, http: 200, retryable: false, summary: 'A signed template, patch or suggestion does not verify against the published keys (draft-zhou §7).' },
  unavailable: { jsonrpc: -32040, grpc: GrpcStatus.UNAVAILABLE, http: 200, retryable: true, summary: 'A Parley dependency is unavailable.' },
  internal: { jsonrpc: -32603, grpc: GrpcStatus.INTERNAL, http: 200, retryable: false, summary: 'Internal error.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorType = keyof typeof ERROR_CATALOGUE;

export function isErrorType(t: unknown): t is ErrorType {
  return typeof t === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, t);
}

/** One violation of one rule at one key path. */
export interface Violation {
  /** Key path, e.g. `payload.passenger_count`, `keys[2].key_name`, `params.scenario`. */
  path: string;
  /** Machine-readable rule id, e.g. `required`, `enum`, `maximum`, `snake_case`, `unknown_key`. */
  rule: string;
  message: string;
}

export interface ParleyErrorInit {
  path?: string;
  rule?: string;
  /** Further violations beyond the first (validation errors list them all). */
  violations?: Violation[];
  details?: Record<string, unknown>;
  cause?: unknown;
  /**
   * Overrides the catalogue's retryability for this one error, when the
   * circumstances decide it (an `unavailable` after the agent was called is
   * safe to retry only with an idempotency key).
   */
  retryable?: boolean;
}

/**
 * The single Parley error class. `type` is the discriminant (an `ErrorType`);
 * `path` and `rule` name what broke. Serialisable with `toJSON()` and restored
 * with `ParleyError.fromJSON()`, which is how errors cross gRPC and NATS.
 */
export class ParleyError extends Error {
  override readonly name = 'ParleyError';
  readonly type: ErrorType;
  readonly path: string;
  readonly rule: string;
  readonly violations: Violation[];
  readonly details: Record<string, unknown>;
  private readonly retryableOverride: boolean | undefined;

  constructor(type: ErrorType, message: string, init: ParleyErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.type = type;
    this.path = init.path ?? '';
    this.rule = init.rule ?? '';
    this.violations = init.violations ?? (init.path || init.rule ? [{ path: this.path, rule: this.rule, message }] : []);
    this.details = init.details ?? {};
    this.retryableOverride = init.retryable;
  }

  get retryable(): boolean {
    return this.retryableOverride ?? ERROR_CATALOGUE[this.type].retryable;
  }

  toJSON(): SerializedError {
    const out: SerializedError = { type: this.type, message: this.message };
    if (this.path) out.path = this.path;
    if (this.rule) out.rule = this.rule;
    if (this.violations.length > 1) out.violations = this.violations;
    if (Object.keys(this.details).length > 0) out.details = this.details;
    if (this.retryableOverride !== undefined) out.retryable = this.retryableOverride;
    return out;
  }

  static fromJSON(e: SerializedError): ParleyError {
    const type = isErrorType(e.type) ? e.type : 'internal';
    const init: ParleyErrorInit = {};
    if (e.path) init.path = e.path;
    if (e.rule) init.rule = e.rule;
    if (e.violations) init.violations = e.violations;
    if (e.details) init.details = e.details;
    if (typeof e.retryable === 'boolean') init.retryable = e.retryable;
    return new ParleyError(type, e.message, init);
  }
}

export interface SerializedError {
  type: string;
  message: string;
  path?: string;
  rule?: string;
  violations?: Violation[];
  details?: Record<string, unknown>;
  /** Present when this error's retryability differs from its type's (ParleyErrorInit.retryable). */
  retryable?: boolean;
}

export function isParleyError(e: unknown): e is ParleyError {
  return e instanceof ParleyError;
}

/** Wraps anything thrown into a ParleyError; unknown failures become `internal` without leaking their text. */
export function toParleyError(e: unknown): ParleyError {
  if (e instanceof ParleyError) return e;
  return new ParleyError('internal', 'Internal error', { cause: e });
}

/** Convenience: a rule violation of one kind at one path. */
export function violation(type: ErrorType, path: string, rule: string, message: string, details?: Record<string, unknown>): ParleyError {
  const init: ParleyErrorInit = { path, rule };
  if (details) init.details = details;
  return new ParleyError(type, message, init);
}
