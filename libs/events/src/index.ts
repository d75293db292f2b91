/** @parley/events: the bus port, its NATS and in-process adapters, the outbox relay and the idempotent consumer. */
export type { Bus, Stoppable, ConsumeOptions } from './bus';
export { DEFAULT_MAX_BATCH, DEFAULT_RETRY_DELAY_MS } from './bus';
export {
  EventType,
  ALL_EVENT_TYPES,
  assertNever,
  type EventEnvelope,
  type EventDataMap,
  type PayloadExecutedData,
  type OtherCapturedData,
  type AuditSampledData,
  type MaturedSample,
  type PoolMaturedData,
  type PatchDocument,
  type PatchEventData,
  PATCH_EVENT_TYPES,
} from './events';
export { createSubjects, subjectToken, type Subjects } from './subjects';
export { subjectMatches } from './match';
export type { EventsLogger } from './log';
export { DEFAULT_STREAM_RETENTION, createNatsBus, type NatsBus, type NatsBusOptions, type StreamRetention } from './nats-bus';
export { createMemoryBus, realClock, type BusClock, type MemoryBusOptions } from './memory-bus';
export {
  DEFAULT_OUTBOX_MAX_ATTEMPTS,
  DEFAULT_OUTBOX_POLL_MS,
  appendToOutbox,
  createOutboxRelay,
  outboxInsert,
  appendedToOutbox,
  reportTooLarge,
  type OutboxRelay,
  type OutboxRelayOptions,
} from './outbox';
export { AppliedBefore, DEFAULT_CONSUMER_MAX_ATTEMPTS, consumeIdempotently, type IdempotentConsumeOptions, type ProcessedMarks } from './consumer';
// Dead letters: no event stops a pipeline (draft-zhou §6.2 event flow).
export {
  DEAD_LETTER_LOG,
  MAX_EVENT_BYTES,
  createDeadLetterOffice,
  eventBytes,
  type DeadLetterCounts,
  type DeadLetterFilter,
  type DeadLetterOffice,
  type DeadLetterOfficeOptions,
  type DeadLetterSource,
  type DeadLetterStatus,
  type DeadLetterView,
  type RetryOutcome,
} from './dead-letters';
export { DEFAULT_DEAD_LETTER_RETENTION_MS, DEFAULT_OUTBOX_RETENTION_MS, DEFAULT_PROCESSED_RETENTION_MS, serviceEventFlow, type EventFlowOptions, type ServiceEventFlow } from './event-flow';
export { MARK_MARGIN_MS, MAX_RETENTION_MS, MIN_RETENTION_MS, createRetentionPruner, marksHeldReason, pruneDeadLettersBatch, pruneOutboxBatch, pruneProcessedBatch, type RetainedTable, type RetentionOptions, type RetentionPruner } from './retention';
// AN tasks (draft 004 §5.2-5.4).
export { taskToken } from './subjects';
export type { TaskStatusData } from './events';
