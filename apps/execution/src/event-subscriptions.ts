import { randomUUID } from 'node:crypto';
import { generateWebhookSecret } from '@parley/an';
import type { EventSubscription, EventSubscriptionApi } from '@parley/contracts';
import { ALL_EVENT_TYPES, EventType, consumeIdempotently, type Bus, type EventEnvelope, type Stoppable, type Subjects } from '@parley/events';
import { ParleyError, scenarioId } from '@parley/protocol';
import type { Clock, Logger } from '@parley/runtime';
import { afterCommit, type Db, type Queryable } from '@parley/storage';
import { isoTimestamp } from '@parley/protocol';
import { createWebhookDeliverer, type WebhookDeliverer, type WebhookDelivererOptions, type WebhookFeed } from './tasks/webhooks';
import type { WebhookUrlPolicy } from './tasks/webhook-allow';

/**
 * Events for operators' OSS systems (draft-zhou §6.2 as it happens): an operator
 * subscribes a webhook to the schema self-evolution events of one scenario, or
 * of every scenario (`*`):
 *
 * - `patch.*`: a patch published (active, or proposed for approval), updated by
 *   an operator (approved, rejected, pinned) (§6.2.2);
 * - `key.*`: a patch key promoted, deprecated, withdrawn (§6.2.3 lifecycle);
 * - `pool.matured`: a cluster passed the dual gate (§6.2.1); its samples are the
 *   sanitised texts (§7), its clients pseudonyms.
 *
 * A durable consumer (`<prefix>-execution-event-webhooks`, idempotent by event
 * id) queues each event for each active subscription it matches
 * (`execution.event_deliveries`, seq 1, 2, ... per subscription); the webhook
 * deliverer of AN tasks (tasks/webhooks.ts) delivers them: the same URL
 * allow-list (PARLEY_WEBHOOK_ALLOW, checked at creation and before every
 * delivery), Standard Webhooks signatures with the subscription's own secret
 * (shown once at creation), in order, at least once, `webhook-id` = the event
 * id, bounded retries (PARLEY_WEBHOOK_MAX_ATTEMPTS consecutive failures
 * disable the subscription). The body follows the Standard Webhooks payload
 * shape: `{ "type", "timestamp", "data", "event_id", "scenario_id", "source",
 * "subscription_id" }`, `data` being the event's own.
 *
 * Only what is queued after a subscription's creation reaches it: a webhook is
 * a feed of what happens, not a replay (the decisions stay readable with
 * list_decisions).
 */
export const SUBSCRIBABLE_EVENTS: readonly string[] = ALL_EVENT_TYPES.filter((t) => t.startsWith('patch.') || t.startsWith('key.') || t === EventType.PoolMatured);
/** The patterns an operator may name: the families and their members. */
export const EVENT_PATTERNS: readonly string[] = ['patch.*', 'key.*', ...SUBSCRIBABLE_EVENTS];

const MAX_EVENTS = 16;
const MAX_URL = 2048;
const MAX_DESCRIPTION = 500;
const MAX_SUBSCRIPTIONS = 1000;

function matches(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : p === type));
}

interface Row {
  id: string;
  scenario: string;
  events: string[];
  url: string;
  method: string | null;
  description: string;
  created_by: string;
  created_at: string | Date;
  state: string;
  disabled_reason: string | null;
  last_error: string | null;
  last_seq: string | number;
  cursor: string | number;
}

const iso = isoTimestamp;

function toWire(r: Row): EventSubscription {
  return {
    id: r.id,
    scenario: r.scenario,
    events: r.events,
    url: r.url,
    method: r.method ?? 'POST',
    description: r.description,
    created_by: r.created_by,
    created_at: iso(r.created_at),
    state: r.state,
    disabled_reason: r.disabled_reason ?? '',
    last_error: r.last_error ?? '',
    queued: Number(r.last_seq),
    delivered: Number(r.cursor),
  };
}

const COLUMNS = 'id, scenario, events, url, method, description, created_by, created_at, state, disabled_reason, last_error, last_seq, cursor';

function invalid(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

/** The JSON-RPC/gRPC face: create (with the secret, once), list, delete. Operators only (libs/auth POLICY). */
export function createEventSubscriptionApi(deps: { db: Db; clock: Clock; policy: WebhookUrlPolicy; onCreate?: () => void }): EventSubscriptionApi {
  const { db, clock, policy } = deps;
  return {
    async createEventSubscription(req, ctx) {
      const raw = (req.scenario ?? '').trim();
      if (raw === '') invalid('params.scenario', 'required', 'params.scenario is required: a scenario id, or "*" for every scenario');
      const scenario = raw === '*' ? '*' : scenarioId(raw, { path: 'params.scenario' });
      const events = [...new Set(req.events ?? [])];
      if (events.length === 0) invalid('params.events', 'required', `params.events is required: one or more of ${EVENT_PATTERNS.join(', ')}`);
      if (events.length > MAX_EVENTS) invalid('params.events', 'max_items', `params.events may name at most ${MAX_EVENTS} patterns`);
      events.forEach((e, i) => {
        if (!EVENT_PATTERNS.includes(e)) invalid(`params.events[${i}]`, 'enum', `params.events[${i}] ${JSON.stringify(String(e).slice(0, 60))} must be one of ${EVENT_PATTERNS.join(', ')}`);
      });
      const url = req.url ?? '';
      if (url === '') invalid('params.url', 'required', 'params.url is required: the webhook URL');
      if (url.length > MAX_URL) invalid('params.url', 'max_length', `params.url must be at most ${MAX_URL} characters`);
      const refusal = policy.refusal(url);
      if (refusal !== undefined) invalid('params.url', 'webhook_allowed', `params.url ${JSON.stringify(url.slice(0, 200))} is not an allowed webhook URL: ${refusal}`);
      const method = (req.method ?? '') === '' ? 'POST' : req.method;
      if (method !== 'POST' && method !== 'PUT') invalid('params.method', 'enum', 'params.method must be POST or PUT');
      const description = req.description ?? '';
      if (description.length > MAX_DESCRIPTION) invalid('params.description', 'max_length', `params.description must be at most ${MAX_DESCRIPTION} characters`);
      const count = Number((await db.query<{ n: string | number }>('SELECT count(*) AS n FROM execution.event_subscriptions')).rows[0]?.n ?? 0);
      if (count >= MAX_SUBSCRIPTIONS) invalid('params', 'max_subscriptions', `at most ${MAX_SUBSCRIPTIONS} event subscriptions; delete one first`);
      const secret = generateWebhookSecret();
      const now = clock.now().toISOString();
      const r = await db.query<Row>(
        `INSERT INTO execution.event_subscriptions (id, scenario, events, url, method, secret, description, created_by, created_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
        [randomUUID(), scenario, events, url, method, secret, description, ctx?.principal?.id ?? 'unknown', now],
      );
      deps.onCreate?.();
      return { subscription: toWire(r.rows[0] as Row), webhook_secret: secret };
    },
    async listEventSubscriptions(req) {
      const scenario = req.scenario === undefined || req.scenario === '' ? undefined : req.scenario === '*' ? '*' : scenarioId(req.scenario, { path: 'params.scenario' });
      const r = await db.query<Row>(
        `SELECT ${COLUMNS} FROM execution.event_subscriptions WHERE ($1::text IS NULL OR scenario = $1 OR scenario = '*') ORDER BY created_at, id`,
        [scenario ?? null],
      );
      return { subscriptions: r.rows.map(toWire) };
    },
    async deleteEventSubscription(req) {
      const id = req.id ?? '';
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) invalid('params.id', 'pattern', 'params.id must be an event subscription id (a UUID) as list_event_subscriptions shows it');
      const r = await db.query('DELETE FROM execution.event_subscriptions WHERE id = $1', [id]);
      if (r.rowCount === 0) throw new ParleyError('event_subscription_not_found', `No event subscription "${id}"`, { path: 'params.id', rule: 'exists' });
      return { deleted: true };
    },
  };
}

/** The deliverer's feed: a subscription's queued events after its cursor; a delivered one is dropped. */
export const eventSubscriptionFeed: WebhookFeed = {
  kind: 'event',
  from: 'execution.event_subscriptions s',
  pending: "s.state = 'active' AND s.last_seq > s.cursor",
  ref: 's.scenario',
  table: 'execution.event_subscriptions',
  async list(db, sub, cursor, limit) {
    const r = await db.query<{ seq: string | number; event_id: string; event_type: string; body: string }>(
      'SELECT seq, event_id, event_type, body FROM execution.event_deliveries WHERE subscription_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [sub.id, cursor, limit],
    );
    return r.rows.map((x) => ({ seq: Number(x.seq), id: x.event_id, body: x.body, headers: { 'idempotency-key': x.event_id, 'parley-event-type': x.event_type } }));
  },
  async delivered(db, sub, seq) {
    await db.query('DELETE FROM execution.event_deliveries WHERE subscription_id = $1 AND seq <= $2', [sub.id, seq]);
  },
  stillReadable: 'the decisions stay readable (list_decisions, list_patches) and a new subscription receives what happens next',
};

/** Queues one event for every active subscription it matches (in the consumer's transaction). Returns how many. */
export async function queueEvent(tx: Queryable, event: EventEnvelope, at: Date): Promise<number> {
  if (!SUBSCRIBABLE_EVENTS.includes(event.type)) return 0;
  const subs = await tx.query<{ id: string; events: string[] }>(
    "SELECT id, events FROM execution.event_subscriptions WHERE state = 'active' AND (scenario = '*' OR scenario = $1) ORDER BY id FOR UPDATE",
    [event.scenario_id],
  );
  let n = 0;
  for (const s of subs.rows) {
    if (!matches(s.events, event.type)) continue;
    const body = JSON.stringify({
      type: event.type,
      timestamp: event.occurred_at,
      data: event.data,
      event_id: event.id,
      scenario_id: event.scenario_id,
      source: event.source,
      subscription_id: s.id,
    });
    const seq = await tx.query<{ last_seq: string | number }>('UPDATE execution.event_subscriptions SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq', [s.id]);
    await tx.query('INSERT INTO execution.event_deliveries (subscription_id, seq, event_id, event_type, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      s.id,
      Number(seq.rows[0]?.last_seq),
      event.id,
      event.type,
      body,
      at.toISOString(),
    ]);
    n++;
  }
  return n;
}

export interface RunningEventWebhooks {
  api: EventSubscriptionApi;
  deliverer: WebhookDeliverer;
  stop(): Promise<void>;
}

/** The subscriptions' API, the durable consumer that queues matching events, and their deliverer. */
export async function startEventWebhooks(deps: {
  db: Db;
  bus: Bus;
  subjects: Subjects;
  clock: Clock;
  log: Logger;
  policy: WebhookUrlPolicy;
  webhooks?: Omit<WebhookDelivererOptions, 'db' | 'clock' | 'log' | 'feed' | 'allow'>;
}): Promise<RunningEventWebhooks> {
  const deliverer = createWebhookDeliverer({ db: deps.db, clock: deps.clock, log: deps.log, ...deps.webhooks, allow: deps.policy, feed: eventSubscriptionFeed });
  const api = createEventSubscriptionApi({ db: deps.db, clock: deps.clock, policy: deps.policy });
  const consumer: Stoppable = await consumeIdempotently(
    {
      bus: deps.bus,
      db: deps.db,
      schema: 'execution',
      durable: `${deps.subjects.prefix}-execution-event-webhooks`,
      filterSubjects: SUBSCRIBABLE_EVENTS.map((t) => deps.subjects.eventAllScenarios(t as EventType)),
    },
    async (event, tx) => {
      if ((await queueEvent(tx, event, deps.clock.now())) > 0) afterCommit(tx, () => deliverer.nudge());
    },
  );
  deliverer.start();
  return {
    api,
    deliverer,
    async stop() {
      await consumer.stop();
      await deliverer.stop();
    },
  };
}
