/**
 * Event types: a discriminated union on `type`. Payload values never appear in
 * events; only which keys were present and whether their values had the
 * declared type (the inputs the evolution metrics of draft-zhou §6.2.3 need).
 */
export const EventType = {
  PayloadExecuted: 'payload.executed',
  OtherCaptured: 'other.captured',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export const ALL_EVENT_TYPES: readonly EventType[] = Object.values(EventType);

export interface PayloadExecutedData {
  execution_id: string;
  agent: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  /** Keys the client sent (defaults excluded). */
  keys_present: string[];
  /** Per present key: did its value have the declared key_type. */
  key_type_correct: Record<string, boolean>;
  defaults_applied: string[];
  duration_ms: number;
}

export interface OtherCapturedData {
  execution_id: string;
  agent: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  /** The `other` value as a list of non-empty fragments (draft-zhou §4.3, §6.2.1). */
  fragments: string[];
}

export interface EventDataMap {
  'payload.executed': PayloadExecutedData;
  'other.captured': OtherCapturedData;
}

interface EnvelopeOf<T extends EventType> {
  /** UUID; the JetStream message id (publish de-duplication) and the consumers' idempotency key. */
  id: string;
  type: T;
  /** Canonical scenario id: part of the subject, so consumers filter and scale per scenario. */
  scenario_id: string;
  /** ISO 8601 time the state change happened (from the service's clock). */
  occurred_at: string;
  /** Service that emitted it. */
  source: string;
  data: EventDataMap[T];
}

export type EventEnvelope = { [T in EventType]: EnvelopeOf<T> }[EventType];

/** Exhaustiveness guard for switches over event types. */
export function assertNever(x: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(x)}`);
}
