/**
 * Event types: a discriminated union on `type`. Payload values never appear in
 * events; only which keys were present and whether their values had the
 * declared type (the inputs the evolution metrics of draft-zhou §6.2.3 need).
 */
export const EventType = {
  PayloadExecuted: 'payload.executed',
  OtherCaptured: 'other.captured',
  /** A patch key's value sampled for the §6.2.3 audit (execution → evolution). */
  AuditSampled: 'audit.sampled',
  /** A pool cluster passed the §6.2.1 dual gate (semantic-pool → evolution). */
  PoolMatured: 'pool.matured',
  /** A matured cluster grew by more distinct clients since it last reported (semantic-pool → evolution: re-induction, §6.2.2). */
  PoolGrown: 'pool.grown',
  /** §6.2.2: a patch was packaged (status active, or proposed awaiting an operator). */
  PatchPublished: 'patch.published',
  /** An operator approved, rejected, pinned or unpinned a patch. */
  PatchUpdated: 'patch.updated',
  /** §6.2.3 lifecycle transitions of one patch key. */
  KeyPromoted: 'key.promoted',
  KeyDeprecated: 'key.deprecated',
  KeyWithdrawn: 'key.withdrawn',
  /** AN draft 004 §5.4: a task changed state (execution → the task's parties; `scenario_id` names the party). */
  TaskStatus: 'task.status',
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
  /**
   * The patches in the client's effective template (draft-zhou §6.2.3
   * client_adoption_rate: the client "received" them). Absent from events
   * written before patches existed.
   */
  applied_patches?: string[];
}

export interface OtherCapturedData {
  execution_id: string;
  agent: string;
  schema_id: string;
  scenario_id: string;
  client_id: string;
  /**
   * The `other` value as a list of non-empty fragments (draft-zhou §4.3, §6.2.1),
   * bounded: at most 32 fragments of at most 4000 code points each
   * (libs/evolution boundFragments), so every event stays deliverable.
   */
  fragments: string[];
  /** Present when the payload's `other` held more than the event carries: what was left out. */
  truncation?: { fragments_cut: number; fragments_dropped: number; chars_dropped: number };
}

export interface AuditSampledData {
  sample_id: string;
  execution_id: string;
  agent: string;
  scenario_id: string;
  client_id: string;
  patch_id: string;
  key_name: string;
  /**
   * The value the client sent for the patch key (patch keys only; base-key values
   * never leave execution); a string value is cut to 4000 code points.
   */
  value: unknown;
  /** Present (true) when `value` was cut. */
  value_truncated?: boolean;
  /** The user's own words, when the client supplied them. */
  utterance?: string;
}

/** One sanitised sample text of a cluster and how often it was seen. */
export interface MaturedSample {
  text: string;
  /** Global pools: the distinct clients that sent it; a client's own pool: its fragments. */
  count: number;
  /** Global pools: per-cluster pseudonyms (`#1`…) of the clients behind it, never client ids (draft-zhou §7, personal data: induction counts clients). */
  clients?: string[];
}

export interface PoolMaturedData {
  cluster_id: string;
  scenario_id: string;
  /** `global` or `client:<id>` (libs/evolution scopeKey). */
  scope: string;
  size: number;
  heat: number;
  distinct_clients: number;
  occurrences_in_window: number;
  /** Which branch of the gate's second condition held. */
  branch: string;
  reasons: string[];
  /** Epoch ms the cluster matured (the fragment time that fired the gate), or, for pool.grown, the time it grew. */
  matured_at: number;
  /** `grown` on pool.grown events. */
  kind?: 'matured' | 'grown';
  samples: MaturedSample[];
}

/**
 * A schema patch as libs/evolution models it (`SchemaPatch`, times in epoch
 * ms) plus the evolution service's own members. Every patch event carries the
 * whole document, so a consumer keeps the latest revision and needs nothing else.
 */
export interface PatchDocument {
  patch_id: string;
  parent_schema_id: string;
  scenario: string;
  scope: 'global' | { client_id: string };
  timestamp: number;
  expires_at: number;
  source_cluster_id: string | null;
  new_keys: unknown[];
  /** `enum`: a patch key's widened values (draft-zhou §6.2.2 refinement). */
  modified_keys: { key_name: string; semantic_description: string; enum?: unknown[] }[];
  status: 'proposed' | 'active' | 'rejected';
  pinned: boolean;
  approval_reasons: string[];
  /** Increases with every change; consumers ignore a document older than the one they hold. */
  revision: number;
}

export interface PatchEventData {
  patch: PatchDocument;
  /** The key a key.* event is about. */
  key_name?: string;
  reasons: string[];
  figures: Record<string, number | null>;
  actor: string;
}

/**
 * One task state change (AN draft 004 §5.4, libs/an TaskNotification): one
 * event per party (sender, executing agent, NATS subscribers), each on the
 * party's subject `<prefix>.v1.<party>.task.status`; `seq` orders a task's
 * changes and lets a subscriber drop a redelivery.
 */
export interface TaskStatusData {
  task_id: string;
  seq: number;
  send_from: string;
  send_to: string;
  commu_type: 'taskResultNotify';
  task_async: boolean;
  status: string;
  previous_status: string | null;
  start_time: string;
  required?: string;
  result?: Record<string, unknown>;
  at: string;
  /** The party whose subject carries this copy. */
  party: string;
}

export interface EventDataMap {
  'payload.executed': PayloadExecutedData;
  'other.captured': OtherCapturedData;
  'audit.sampled': AuditSampledData;
  'pool.matured': PoolMaturedData;
  'pool.grown': PoolMaturedData;
  'patch.published': PatchEventData;
  'patch.updated': PatchEventData;
  'key.promoted': PatchEventData;
  'key.deprecated': PatchEventData;
  'key.withdrawn': PatchEventData;
  'task.status': TaskStatusData;
}

/** The event types that carry a patch document. */
export const PATCH_EVENT_TYPES = [
  EventType.PatchPublished,
  EventType.PatchUpdated,
  EventType.KeyPromoted,
  EventType.KeyDeprecated,
  EventType.KeyWithdrawn,
] as const;

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
