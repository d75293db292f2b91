// The one public entry of the contracts: generated messages and service
// definitions for proto/parley/v1 (ts-proto, build output), and the gRPC glue.
export { KeyDefinition, SchemaTemplate, ErrorDetail } from './gen/parley/v1/common';
export {
  Agent,
  RegisterAgentRequest,
  RegisterAgentResponse,
  GetAgentRequest,
  GetAgentResponse,
  ListAgentsRequest,
  ListAgentsResponse,
  RegistryServiceService,
} from './gen/parley/v1/registry';
export {
  SchemaVersion,
  PublishSchemaRequest,
  PublishSchemaResponse,
  GetSchemaTemplateRequest,
  GetSchemaTemplateResponse,
  GetSchemaRequest,
  GetSchemaResponse,
  ListSchemasRequest,
  ListSchemasResponse,
  AcceptedWithdrawnKey,
  SchemaPatchDelivery,
  ModifiedKey,
  GetSchemaUpdatesRequest,
  GetSchemaUpdatesResponse,
  NegotiationServiceService,
} from './gen/parley/v1/negotiation';
export {
  HeatPoint,
  PoolCluster,
  RawFragment,
  ListClustersRequest,
  ListClustersResponse,
  GetClusterRequest,
  GetClusterResponse,
  SemanticPoolServiceService,
  LifecycleStep,
  KeyMetricsView,
  PatchKeyView,
  PatchModifiedKey,
  Patch,
  Decision,
  QueuedCandidateView,
  ListPatchesRequest,
  ListPatchesResponse,
  GetPatchRequest,
  GetPatchResponse,
  PatchDecisionRequest,
  PinPatchRequest,
  EditPatchRequest,
  EditPatchResponse,
  ListDecisionsRequest,
  ListDecisionsResponse,
  AuditSample,
  ListAuditSamplesRequest,
  ListAuditSamplesResponse,
  JudgeAuditSampleRequest,
  JudgeAuditSampleResponse,
  EvolutionServiceService,
} from './gen/parley/v1/evolution';
export { ExecuteRequest, ExecuteResponse, ExecutionServiceService } from './gen/parley/v1/execution';
// Dead letters (draft-zhou §6.2 event flow), served by every service with an outbox or a durable consumer.
export {
  DeadLetter,
  DeadLetterCounts as WireDeadLetterCounts,
  ListDeadLettersRequest,
  ListDeadLettersResponse,
  RetryDeadLetterRequest,
  RetryDeadLetterResponse,
  DiscardDeadLetterRequest,
  DiscardDeadLetterResponse,
  DeadLetterServiceService,
} from './gen/parley/v1/dead_letters';
import type { DeadLetterServiceService } from './gen/parley/v1/dead_letters';
export type DeadLetterApi = UnaryApi<typeof DeadLetterServiceService>;
export { DEAD_LETTER_SERVICES, bindDeadLetters, deadLetterApi, type DeadLetterRecordView, type DeadLetterServiceName, type DeadLetterStore } from './dead-letters';
export {
  bindService,
  createGrpcClient,
  GRPC_TRANSPORTS,
  startGrpcServer,
  toGrpcHandlers,
  toServiceError,
  fromServiceError,
  logInternal,
  type InternalLog,
  withAuthorization,
  type CallContext,
  type Guard,
  type Guards,
  type GrpcObserver,
  type ServiceAuth,
  type GrpcClient,
  type GrpcTransport,
  type GrpcServerHandle,
  type ServiceBinding,
  type UnaryApi,
} from './grpc';

import type { RegistryServiceService } from './gen/parley/v1/registry';
import type { NegotiationServiceService } from './gen/parley/v1/negotiation';
import type { ExecutionServiceService } from './gen/parley/v1/execution';
import type { EvolutionServiceService, SemanticPoolServiceService } from './gen/parley/v1/evolution';
import type { UnaryApi } from './grpc';
export type RegistryApi = UnaryApi<typeof RegistryServiceService>;
export type NegotiationApi = UnaryApi<typeof NegotiationServiceService>;
export type ExecutionApi = UnaryApi<typeof ExecutionServiceService>;
export type SemanticPoolApi = UnaryApi<typeof SemanticPoolServiceService>;
export type EvolutionApi = UnaryApi<typeof EvolutionServiceService>;
// AN agent profiles (draft 004 §5.1), served by the registry.
export {
  AgentSkill,
  AgentCapability,
  AuthenticationMethod,
  AgentProfile,
  RegisterProfileRequest,
  RegisterProfileResponse,
  GetProfileRequest,
  GetProfileResponse,
  DiscoverProfilesRequest,
  DiscoverProfilesResponse,
  AgentProfileServiceService,
} from './gen/parley/v1/agent_profile';
import type { AgentProfileServiceService } from './gen/parley/v1/agent_profile';
export type AgentProfileApi = UnaryApi<typeof AgentProfileServiceService>;
export { keyFromWire, templateFromWire, templateToWire } from './template-wire';
// AN tasks (draft 004 §5.2-5.4), served by the execution service; TaskResultSubscribe is server streaming.
export {
  TermExplain,
  TaskPrompt,
  TaskSubscription,
  DataParam,
  DataChunk,
  Task,
  MessageInfo,
  ContextMessage,
  NegotiationRound,
  TaskNotification,
  TaskCapabilityRequest,
  TaskCapabilityResponse,
  TaskAssignRequest,
  TaskAssignResponse,
  TaskCancelRequest,
  TaskCancelResponse,
  TaskNegotiateRequest,
  TaskNegotiateResponse,
  TaskResultQueryRequest,
  TaskResultQueryResponse,
  TaskResultSubscribeRequest,
  RegisterTaskSubscriptionRequest,
  RegisterTaskSubscriptionResponse,
  TaskResultNotifyRequest,
  TaskResultNotifyResponse,
  TaskContextRequest,
  TaskContextResponse,
  UploadChunkRequest,
  UploadChunkResponse,
  TaskServiceService,
} from './gen/parley/v1/task';
export { type ActiveStreams, type StreamingApi } from './grpc';
import type { TaskServiceService } from './gen/parley/v1/task';
import type { StreamingApi } from './grpc';
export type TaskApi = StreamingApi<typeof TaskServiceService>;
export { profileToWire } from './profile-wire';
// Identity (draft-zhou §7): API keys kept by the registry; principals travel between services.
export {
  Principal as WirePrincipal,
  ApiKey,
  CreateApiKeyRequest,
  CreateApiKeyResponse,
  ListApiKeysRequest,
  ListApiKeysResponse,
  RevokeApiKeyRequest,
  RevokeApiKeyResponse,
  AuthenticateRequest,
  AuthenticateResponse,
  ApiKeyServiceService,
} from './gen/parley/v1/auth';
import type { ApiKeyServiceService } from './gen/parley/v1/auth';
export type ApiKeyApi = UnaryApi<typeof ApiKeyServiceService>;
// Operators' webhooks for schema evolution events (OSS integration), served by the execution service.
export {
  EventSubscription,
  CreateEventSubscriptionRequest,
  CreateEventSubscriptionResponse,
  ListEventSubscriptionsRequest,
  ListEventSubscriptionsResponse,
  DeleteEventSubscriptionRequest,
  DeleteEventSubscriptionResponse,
  EventSubscriptionServiceService,
} from './gen/parley/v1/event_subscriptions';
import type { EventSubscriptionServiceService } from './gen/parley/v1/event_subscriptions';
export type EventSubscriptionApi = UnaryApi<typeof EventSubscriptionServiceService>;
