/**
 * @parley/an — the autonomous-network multi-agent model (draft 004 §5): types
 * and pure rules. Exactly the public API; no `export *`.
 */
export { AUTH_SCHEMES, COMMU_TYPES, DATA_TYPES, NEGOTIATION_TYPES, TASK_STATES, VERDICTS } from './model';
export type {
  AgentCapability,
  AgentProfile,
  AgentSkill,
  AuthScheme,
  AuthenticationMethod,
  CommuType,
  ContextMessage,
  DataChunk,
  DataParam,
  DataType,
  NegotiationOutcome,
  NegotiationRound,
  NegotiationType,
  Task,
  TaskNotification,
  TaskPrompt,
  TaskState,
  TaskSubscription,
  TermExplain,
  Verdict,
} from './model';

// 5.1 Agent profiles.
export {
  AN_AGENT_NAME_PATTERN,
  MAX_AN_AGENT_NAME_LENGTH,
  SEMVER_PATTERN,
  parseAgentProfile,
  recommendedNameParts,
} from './profile';
export type { RecommendedNameParts } from './profile';

// 5.4 Task states.
export { TASK_TRANSITIONS, assertTransition, canTransition, isTerminal } from './task-state';

// 5.2 Figure 7 prompt content.
export { MAX_PROMPT_CONTENT_BYTES, hasPromptSections, parsePromptContent } from './prompt';

// 5.2 / 5.3 / 5.4 operation params (JSON-RPC and gRPC faces).
export {
  SUBSCRIPTION_PROTOCOLS,
  TASK_ID_PATTERN,
  WEBHOOK_METHODS,
  parseCapabilityRequest,
  parseNegotiate,
  parseNotify,
  parseResultQuery,
  parseSubscribe,
  parseSubscription,
  parseTaskAssign,
  parseTaskCancel,
} from './task-params';
export type {
  CapabilityRequestParams,
  NegotiateParams,
  NotifyParams,
  ResultQueryParams,
  SubscribeParams,
  TaskAssignParams,
  TaskCancelParams,
} from './task-params';

// 5.3 Negotiation rounds.
export {
  DEFAULT_MAX_ROUNDS,
  MAX_MAX_ROUNDS,
  answer,
  assertNegotiationAllowed,
  negotiationAllowed,
  openNegotiation,
  propose,
} from './negotiation';
export type { Answer, NegotiationState, Proposal } from './negotiation';

// 5.2 Data params and chunks.
export { DATA_PARAM_ID_PATTERN, MAX_INLINE_DATA_BYTES, createChunkAssembler, parseDataParam } from './data-params';
export type { ChunkAssembler, ChunkAssemblerOptions, ChunkProgress, ChunkResult } from './data-params';

// 5.2 Context.
export { appendContext } from './context';

// Appendix A (corrected): RFC 7951 instance data of libs/an/yang/parley-an-agent@2026-11-21.yang.
export {
  YANG_MODULE,
  YANG_REVISION,
  contextEntryId,
  negotiateToYangJson,
  notificationToYangJson,
  profileToYangJson,
  taskToYangJson,
} from './yang';

// Signed webhook deliveries (Standard Webhooks): the execution service signs, receivers verify.
export { WEBHOOK_SECRET_BYTES, WEBHOOK_SECRET_PREFIX, WEBHOOK_TOLERANCE_S, generateWebhookSecret, signWebhook, verifyWebhookSignature } from './webhook-signature';
export type { WebhookHeaderSource, WebhookSignatureHeaders, WebhookVerification, WebhookVerifyFailure } from './webhook-signature';
