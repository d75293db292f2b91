/**
 * `parley events subscribe --scenario ID|* --event PATTERN [--event PATTERN…] --webhook URL [--method POST|PUT] [--description TEXT]`
 * `parley events list [--scenario ID]`
 * `parley events delete ID`
 *
 * Webhooks for operators' OSS systems: the schema self-evolution events of a
 * scenario (draft-zhou §6.2) — `patch.*`, `key.*`, `pool.matured` — POSTed to a
 * URL, signed as Standard Webhooks with the subscription's own secret (printed
 * once by `subscribe`), in order, at least once, with bounded retries; the URL
 * must pass the execution service's allow-list (PARLEY_WEBHOOK_ALLOW). Through
 * the gateway's `create_event_subscription`, `list_event_subscriptions` and
 * `delete_event_subscription`; operator role.
 */
import type { CreateEventSubscriptionResponse, DeleteEventSubscriptionResponse, EventSubscription, ListEventSubscriptionsResponse } from '@parley/contracts';
import { clip, defined, noPositional, onePositional, required, runSubcommand, table, UsageError, type Subcommand } from './rpc-client';

const SUMMARY = 'webhooks for schema evolution events (patch.*, key.*, pool.matured): subscribe, list, delete (operator role)';
const PATTERNS = ['patch.*', 'key.*', 'pool.matured', 'patch.published', 'patch.updated', 'key.promoted', 'key.deprecated', 'key.withdrawn'];

function state(s: EventSubscription): string {
  return s.state === 'active' ? 'active' : `disabled (${s.disabled_reason || '?'})`;
}

export function subscribedText(r: CreateEventSubscriptionResponse): string {
  const s = r.subscription;
  if (!s) return 'no subscription in the response';
  return [
    `subscribed ${s.url} to ${s.events.join(', ')} of ${s.scenario === '*' ? 'every scenario' : `scenario ${s.scenario}`} (id ${s.id})`,
    '',
    `  webhook secret: ${r.webhook_secret}`,
    '',
    'Store the secret now; it is not shown again. Verify each delivery with it (Standard Webhooks:',
    'webhook-id, webhook-timestamp, webhook-signature; verifyWebhookSignature in @parley/an).',
  ].join('\n');
}

export function subscriptionsText(r: ListEventSubscriptionsResponse): string {
  const n = r.subscriptions.length;
  const head = `${n} event subscription${n === 1 ? '' : 's'}`;
  if (n === 0) return head;
  const rows = r.subscriptions.map((s) => [s.id, s.scenario, s.events.join(','), clip(s.url, 48), state(s), `${s.delivered}/${s.queued}`, s.created_by || '-', s.last_error ? clip(s.last_error, 40) : '-']);
  return `${head}\n${table(['ID', 'SCENARIO', 'EVENTS', 'URL', 'STATE', 'DELIVERED', 'BY', 'LAST ERROR'], rows)}`;
}

const SUBS: Record<string, Subcommand> = {
  subscribe: {
    summary: 'subscribe a webhook URL to a scenario\'s evolution events; prints the signing secret once (operator role)',
    // --webhook, not --url: --url is every command's gateway address.
    usage: `subscribe --scenario ID|'*' --event PATTERN [--event PATTERN…] --webhook URL [--method POST|PUT] [--description TEXT]   (patterns: ${PATTERNS.join(', ')})`,
    flags: { scenario: 'value', event: 'list', webhook: 'value', method: 'value', description: 'value' },
    async run(p, gw) {
      noPositional(p);
      const events = p.lists.event ?? [];
      if (events.length === 0) throw new UsageError(`--event is required (one or more of ${PATTERNS.join(', ')})`);
      const params = defined({
        scenario: required(p, 'scenario', "a scenario id, or '*' for every scenario"),
        events,
        url: required(p, 'webhook', 'the webhook URL (it must pass PARLEY_WEBHOOK_ALLOW)'),
        method: p.values.method,
        description: p.values.description,
      });
      const result = (await gw.call('create_event_subscription', params)) as CreateEventSubscriptionResponse;
      return { result, text: subscribedText(result) };
    },
  },
  list: {
    summary: 'list the event subscriptions (never their secrets), delivered/queued counts and last errors (operator role)',
    usage: 'list [--scenario ID]',
    flags: { scenario: 'value' },
    async run(p, gw) {
      noPositional(p);
      const result = (await gw.call('list_event_subscriptions', defined({ scenario: p.values.scenario }))) as ListEventSubscriptionsResponse;
      return { result, text: subscriptionsText(result) };
    },
  },
  delete: {
    summary: 'delete an event subscription: nothing more is sent to it (operator role)',
    usage: 'delete ID',
    flags: {},
    async run(p, gw) {
      const id = onePositional(p, 'ID (as `parley events list` shows it)');
      const result = (await gw.call('delete_event_subscription', { id })) as DeleteEventSubscriptionResponse;
      return { result, text: result.deleted ? `event subscription ${id} deleted` : `event subscription ${id} not deleted` };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('events', SUMMARY, SUBS, argv);
}
