import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { EventsLogger } from './log';
import type { Subjects } from './subjects';

// The JetStream event stream of the NATS adapter (nats-bus.ts): its wanted
// configuration and bringing the server's stream to it.

/** Limits of the event stream (JetStream `limits` retention, oldest discarded first). */
export interface StreamRetention {
  /** Events older than this are removed (0: no age limit). */
  maxAgeMs: number;
  /** The stream's size cap in bytes (-1: none). */
  maxBytes: number;
  /** The stream's message cap (-1: none). */
  maxMsgs: number;
}

/**
 * Bounded by default: 7 days (a consumer down longer than that misses the
 * events it had not read; the producers' outbox tables keep them) and 256 MiB,
 * no message cap. JetStream reserves a stream's max_bytes on the server's
 * storage when the stream is created, so the cap is modest; size it to your
 * traffic (PARLEY_STREAM_MAX_BYTES).
 */
export const DEFAULT_STREAM_RETENTION: StreamRetention = { maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, maxMsgs: -1 };

export function desiredStream(opts: { subjects: Subjects; duplicateWindowMs?: number; retention?: Partial<StreamRetention>; streamReplicas?: number }): StreamConfig {
  const duplicateWindowMs = opts.duplicateWindowMs ?? 10 * 60_000;
  const r: StreamRetention = { ...DEFAULT_STREAM_RETENTION, ...opts.retention };
  if (!Number.isInteger(r.maxAgeMs) || r.maxAgeMs < 0) throw new Error(`retention.maxAgeMs must be an integer >= 0, got ${r.maxAgeMs}`);
  for (const k of ['maxBytes', 'maxMsgs'] as const) {
    if (!Number.isInteger(r[k]) || (r[k] < 1 && r[k] !== -1)) throw new Error(`retention.${k} must be a positive integer or -1 (none), got ${r[k]}`);
  }
  if (r.maxAgeMs > 0 && duplicateWindowMs > r.maxAgeMs) {
    throw new Error(`duplicateWindowMs (${duplicateWindowMs}) must not exceed retention.maxAgeMs (${r.maxAgeMs})`);
  }
  return {
    name: opts.subjects.stream,
    subjects: opts.subjects.streamSubjects(),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: opts.streamReplicas ?? 1,
    duplicate_window: nanos(duplicateWindowMs),
    max_age: nanos(r.maxAgeMs),
    max_bytes: r.maxBytes,
    max_msgs: r.maxMsgs,
  } as StreamConfig;
}

/**
 * Creates the stream or brings it to the wanted config. Subjects are only ever
 * added: during a rolling upgrade an older replica must not remove the subject
 * of an event type a newer one already publishes. The retention limits are
 * updated in place only when `ownLimits` (the caller was configured with them).
 */
export async function ensureStream(jsm: JetStreamManager, want: StreamConfig, ownLimits: boolean, log: EventsLogger): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    let have: StreamConfig | undefined;
    try {
      have = (await jsm.streams.info(want.name)).config;
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    }
    try {
      if (!have) {
        await jsm.streams.add(want);
        return;
      }
      const subjectsUnion = [...new Set([...have.subjects, ...want.subjects])];
      const limits = ownLimits
        ? { max_age: want.max_age, max_bytes: want.max_bytes, max_msgs: want.max_msgs }
        : { max_age: have.max_age, max_bytes: have.max_bytes, max_msgs: have.max_msgs };
      const same =
        subjectsUnion.length === have.subjects.length &&
        have.duplicate_window === want.duplicate_window &&
        have.max_age === limits.max_age &&
        have.max_bytes === limits.max_bytes &&
        have.max_msgs === limits.max_msgs &&
        have.num_replicas === want.num_replicas;
      if (same) return;
      if (have.storage !== want.storage) {
        log.warn('event stream has another storage type; it cannot be changed in place', { stream: want.name, storage: have.storage });
      }
      await jsm.streams.update(want.name, {
        subjects: subjectsUnion,
        duplicate_window: want.duplicate_window,
        ...limits,
        num_replicas: want.num_replicas,
      });
      return;
    } catch (err) {
      // Another process created or changed the stream between our read and write: read again.
      if (attempt < 3 && err instanceof JetStreamApiError) continue;
      throw err;
    }
  }
}
