import type { EventSubscriptionApi } from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import type { Backends, Handler } from './handler';

/**
 * Operators' webhooks for schema self-evolution events (draft-zhou §6.2; OSS
 * integration), on the gateway's JSON-RPC endpoint: `create_event_subscription`
 * {scenario, events, url, method?, description?} (the result carries the
 * Standard Webhooks `webhook_secret` once), `list_event_subscriptions`
 * {scenario?}, `delete_event_subscription` {id}. The execution service keeps and
 * delivers them (EventSubscriptionService); operators only (libs/auth POLICY,
 * decided by the service with the caller's credential).
 */

function api(b: Backends): EventSubscriptionApi {
  if (!b.eventSubscriptions) {
    throw new ParleyError('unavailable', 'Event subscriptions are not available: the gateway has no EventSubscriptionService (EXECUTION_ADDR)', { details: { service: 'execution' } });
  }
  return b.eventSubscriptions;
}

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function params(p: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    throw new ParleyError('invalid_params', `params must be an object with ${allowed.join(', ')}, got ${typeName(p)}`, { path: 'params', rule: 'type' });
  }
  for (const k of Object.keys(p)) {
    if (!allowed.includes(k)) {
      throw new ParleyError('invalid_params', `params.${k.slice(0, 64)} is not a parameter of this method; allowed: ${allowed.join(', ')}`, { path: `params.${k.slice(0, 64)}`, rule: 'unknown_member' });
    }
  }
  return p as Record<string, unknown>;
}

function str(p: Record<string, unknown>, name: string, max: number, required: boolean): string | undefined {
  const v = p[name];
  if (v === undefined || v === null) {
    if (required) throw new ParleyError('invalid_params', `params.${name} is required`, { path: `params.${name}`, rule: 'required' });
    return undefined;
  }
  if (typeof v !== 'string') throw new ParleyError('invalid_params', `params.${name} must be a string, got ${typeName(v)}`, { path: `params.${name}`, rule: 'type' });
  if (v.length > max) throw new ParleyError('invalid_params', `params.${name} must be at most ${max} characters`, { path: `params.${name}`, rule: 'max_length' });
  return v;
}

export const EVENT_SUBSCRIPTION_METHODS = {
  async create_event_subscription(raw, b) {
    const p = params(raw, ['scenario', 'events', 'url', 'method', 'description']);
    const events = p.events;
    if (!Array.isArray(events) || events.some((e) => typeof e !== 'string')) {
      throw new ParleyError('invalid_params', 'params.events must be an array of event type patterns, e.g. ["patch.*", "key.*", "pool.matured"]', { path: 'params.events', rule: 'type' });
    }
    return api(b).createEventSubscription({
      scenario: str(p, 'scenario', 128, true) as string,
      events: events as string[],
      url: str(p, 'url', 2048, true) as string,
      method: str(p, 'method', 8, false) ?? '',
      description: str(p, 'description', 500, false) ?? '',
    });
  },
  async list_event_subscriptions(raw, b) {
    const p = params(raw, ['scenario']);
    const scenario = str(p, 'scenario', 128, false);
    return api(b).listEventSubscriptions(scenario !== undefined ? { scenario } : {});
  },
  async delete_event_subscription(raw, b) {
    const p = params(raw, ['id']);
    return api(b).deleteEventSubscription({ id: str(p, 'id', 64, true) as string });
  },
} satisfies Record<string, Handler>;
