/** @parley/events: the bus port, its NATS and in-process adapters, the outbox relay and the idempotent consumer. */
export type { Bus, Stoppable, ConsumeOptions } from './bus';
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
export { createNatsBus, type NatsBus, type NatsBusOptions } from './nats-bus';
export { createMemoryBus, realClock, type BusClock, type MemoryBusOptions } from './memory-bus';
export { appendToOutbox, createOutboxRelay, outboxInsert, type OutboxRelay, type OutboxRelayOptions } from './outbox';
export { consumeIdempotently, type IdempotentConsumeOptions } from './consumer';
// AN tasks (draft 004 §5.2-5.4).
export { taskToken } from './subjects';
export type { TaskStatusData } from './events';
