import type { Authenticator } from '@parley/auth';
import { ParleyError } from '@parley/protocol';
import { DeadLetterServiceService, type DeadLetter } from './gen/parley/v1/dead_letters';
import { bindService, type CallContext, type ServiceBinding, type UnaryApi } from './grpc';

/** The names services answer ListDeadLetters with (and the gateway asks by). */
export const DEAD_LETTER_SERVICES = ['registry', 'negotiation', 'execution', 'semantic-pool', 'evolution'] as const;
export type DeadLetterServiceName = (typeof DEAD_LETTER_SERVICES)[number];

/** One dead letter as libs/events' office shows it (the wire's fields, null for absent). */
export interface DeadLetterRecordView {
  id: string;
  source: string;
  consumer: string | null;
  event_id: string;
  event_type: string;
  scenario_id: string;
  subject: string | null;
  error: string;
  attempts: number;
  event_bytes: number;
  dead_at: string;
  status: string;
  resolved_at: string | null;
  resolved_by: string | null;
  note: string | null;
  event_preview: string;
}

/** What DeadLetterService needs of a service's dead letters (libs/events createDeadLetterOffice has it). */
export interface DeadLetterStore {
  list(filter: { status?: 'dead' | 'retried' | 'discarded' | 'all'; scenario_id?: string; consumer?: string; after_id?: string; limit?: number }): Promise<{
    dead_letters: DeadLetterRecordView[];
    counts: { dead: number; retried: number; discarded: number };
  }>;
  retry(id: string, actor: string): Promise<{ dead_letter: DeadLetterRecordView; retried: boolean; error?: string }>;
  discard(id: string, actor: string, reason: string): Promise<DeadLetterRecordView>;
}

function toWire(v: DeadLetterRecordView): DeadLetter {
  return {
    id: v.id,
    source: v.source,
    ...(v.consumer !== null ? { consumer: v.consumer } : {}),
    event_id: v.event_id,
    event_type: v.event_type,
    scenario_id: v.scenario_id,
    ...(v.subject !== null ? { subject: v.subject } : {}),
    error: v.error,
    attempts: v.attempts,
    event_bytes: v.event_bytes,
    dead_at: v.dead_at,
    status: v.status,
    ...(v.resolved_at !== null ? { resolved_at: v.resolved_at } : {}),
    ...(v.resolved_by !== null ? { resolved_by: v.resolved_by } : {}),
    ...(v.note !== null ? { note: v.note } : {}),
    event_preview: v.event_preview,
  };
}

const actor = (ctx: CallContext | undefined): string => ctx?.principal?.id ?? 'operator';

/**
 * DeadLetterService over one service's dead letters (draft-zhou §6.2 event
 * flow). Retries and discards are recorded with the caller's principal.
 */
export function deadLetterApi(service: DeadLetterServiceName, store: DeadLetterStore): UnaryApi<typeof DeadLetterServiceService> {
  return {
    async listDeadLetters(req) {
      const status = req.status === undefined || req.status === '' ? 'dead' : req.status;
      const r = await store.list({
        status: status as 'dead',
        ...(req.scenario ? { scenario_id: req.scenario } : {}),
        ...(req.consumer ? { consumer: req.consumer } : {}),
        ...(req.after_id ? { after_id: req.after_id } : {}),
        ...(req.limit !== undefined ? { limit: req.limit } : {}),
      });
      return { service, dead_letters: r.dead_letters.map(toWire), counts: r.counts };
    },
    async retryDeadLetter(req, ctx) {
      const r = await store.retry(req.id, actor(ctx));
      return { dead_letter: toWire(r.dead_letter), retried: r.retried, ...(r.error !== undefined ? { error: r.error } : {}) };
    },
    async discardDeadLetter(req, ctx) {
      if (typeof req.reason !== 'string') throw new ParleyError('invalid_params', 'params.reason is required', { path: 'params.reason', rule: 'required' });
      return { dead_letter: toWire(await store.discard(req.id, actor(ctx), req.reason)) };
    },
  };
}

/** DeadLetterService bound for a service's gRPC server (operators only: libs/auth POLICY). */
export function bindDeadLetters(service: DeadLetterServiceName, store: DeadLetterStore, authenticator: Authenticator): ServiceBinding {
  return bindService(DeadLetterServiceService, deadLetterApi(service, store), { authenticator });
}
