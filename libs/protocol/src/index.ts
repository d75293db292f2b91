/**
 * @parley/protocol — the pure domain of draft-zhou "Structured Data Schema
 * Interaction": schema templates (§4.1–§4.3), payload validation (§3.2),
 * language negotiation (§4.2), JSON-RPC params, the error catalogue.
 * No IO, no clock, no transport. Exactly the public API; no `export *`.
 */

// The error catalogue.
export {
  ERROR_CATALOGUE,
  GrpcStatus,
  ParleyError,
  isErrorType,
  isParleyError,
  toParleyError,
  violation,
} from './errors';
export type { ErrorType, ParleyErrorInit, SerializedError, Violation } from './errors';

// The model (§4.1).
export { KEY_DEFINITION_MEMBERS, KEY_TYPES, OTHER_KEY, PATCH_ONLY_MEMBERS, TEMPLATE_MEMBERS } from './model';
export type { JsonObject, JsonValue, KeyDefinition, KeyType, SchemaTemplate } from './model';

// Scenario ids and agent names.
export { AGENT_NAME_PATTERN, MAX_SCENARIO_LENGTH, scenarioId, validateAgentName } from './scenario';
export type { IdentifierOptions } from './scenario';

// Templates (§4.1, §4.2, §4.3).
export {
  KEY_NAME_PATTERN,
  MAX_KEY_NAME_LENGTH,
  RESERVED_KEY_NAMES,
  SCHEMA_ID_PATTERN,
  STANDARD_OTHER_DESCRIPTION,
  SUPPORTED_FORMATS,
  assertNoPatchOnlyMembers,
  assertSameShape,
  parseTemplate,
  standardOtherKey,
  templateShape,
} from './template';
export type { KeyShape, ParsedTemplate, SupportedFormat, TemplateShape } from './template';

// Payloads (§3.2, §4.3).
export { EXPERIMENTAL_KEY_COMMENT, JSON_SCHEMA_DIALECT, SAFE_VALUE_DEF, payloadJsonSchema } from './payload-schema';
export { ValidatorCache, compilePayloadValidator, otherFragments } from './payload';
export { addPayloadFormats, isFullDate } from './formats';
export type { PayloadValidator, ValidatedPayload, ValidatorCacheStats } from './payload';

// Languages (§4.2).
export { BCP47_PATTERN, negotiateLanguage, normalizeLanguageTag } from './language';

// JSON-RPC params.
export {
  CLIENT_ID_PATTERN,
  MAX_CLIENT_ID_LENGTH,
  MAX_ETAG_LENGTH,
  MAX_RETIRE_REASON_LENGTH,
  MAX_UTTERANCE_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
  RPC_PARAM_PARSERS,
  TAG_PATTERN,
  TEMPLATE_REFS,
  TEMPLATE_VIEWS,
  parseExecuteParams,
  parseGetSchemaTemplateParams,
  parseGetSchemaUpdatesParams,
  parseListAgentsParams,
  parseListSchemasParams,
  parsePublishSchemaParams,
  parseRegisterAgentParams,
  parseRetireSchemaParams,
  parseUnregisterAgentParams,
  parseGetAgentParams,
} from './rpc-params';
export type {
  ExecuteParams,
  GetSchemaTemplateParams,
  GetSchemaUpdatesParams,
  ListAgentsParams,
  ListSchemasParams,
  PublishSchemaParams,
  RegisterAgentParams,
  RetireSchemaParams,
  RpcMethod,
  UnregisterAgentParams,
  TemplateView,
} from './rpc-params';

// Added in parallel by other engineers (execution ↔ agent wire, gateway payload guard, response schemas).
export { agentError, decodeDispatchReply, decodeDispatchRequest, encodeDispatch } from './dispatch';
export type { DispatchReply, DispatchRequest } from './dispatch';
export { FORBIDDEN_MEMBER_NAMES, MAX_PAYLOAD_DEPTH, assertNoForbiddenKeys } from './forbidden-keys';
export { compileResponseSchema } from './response-schema';
export type { ResponseValidator } from './response-schema';
export { PARLEY_JWS_TYP, b64url, canonicalJson, jwsHeader, verifyDetached, type Jwk, type JwsHeader, type Jwks, type PublicJwk, type VerifyFailure, type VerifyResult } from './jws';

// The JSON-RPC method table and the OpenRPC document built from it (served as rpc.discover and /openrpc.json).
export { COMMON_ERRORS, RPC_METHODS, RPC_METHOD_SPECS, RPC_TAGS, SHARED_SCHEMAS } from './rpc-methods';
export type { JsonSchema, RpcMethodName, RpcMethodSpec, RpcTag } from './rpc-methods';
export { OPENRPC_VERSION, buildOpenRpcDocument } from './openrpc';
export type { OpenRpcDocument, OpenRpcOptions } from './openrpc';
export { WIRE_SCHEMAS } from './rpc-wire.gen';
// One copy of the plain-object guard for every package (apps and libs import it from here).
export { isPlainObject, isoTimestamp } from './json';
// The edge check of every string that crosses into Parley (NUL, unpaired surrogates, nesting depth).
export { EDGE_RULES, MAX_EDGE_DEPTH, assertEdgeClean, findEdgeViolation, memberPath } from './edge-strings';
export { CONSTRAINT_FITS } from './template';
