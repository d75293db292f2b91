/**
 * `parley dead-letters list [--service S] [--scenario S] [--consumer NAME] [--status dead|retried|discarded|all] [--limit N]`
 * `parley dead-letters retry --service S ID`
 * `parley dead-letters discard --service S ID --reason T`
 *
 * Events set aside so that the ones behind them flow on (draft-zhou §6.2 event
 * flow): events an outbox relay could not publish or that were too large to
 * enter an outbox, and events a durable consumer's handler kept failing on.
 * Every service keeps its own; `list` asks them all unless --service names one.
 * Every subcommand needs an API key with the `operator` role (--key / PARLEY_API_KEY).
 */
import type { DeadLetter, DiscardDeadLetterResponse, ListDeadLettersResponse, RetryDeadLetterResponse } from '@parley/contracts';
import { clip, defined, intFlag, noPositional, onePositional, required, runSubcommand, table, type Subcommand } from './rpc-client';

const SUMMARY = 'events set aside so the rest flow on (draft-zhou §6.2 event flow): list, retry, discard';

interface ListAnswer {
  services: ListDeadLettersResponse[];
  total_dead: number;
  unavailable: { service: string; error: string }[];
}

export function listText(r: ListAnswer): string {
  const lines: string[] = [`${r.total_dead} dead letter${r.total_dead === 1 ? '' : 's'} open`];
  for (const s of r.services) {
    const c = s.counts ?? { dead: 0, retried: 0, discarded: 0 };
    lines.push(`${s.service}: ${c.dead} dead, ${c.retried} retried, ${c.discarded} discarded`);
    if (s.dead_letters.length === 0) continue;
    const rows = s.dead_letters.map((d: DeadLetter) => [d.id, d.status, d.source, d.consumer ?? '-', d.event_type, d.scenario_id, String(d.attempts), String(d.event_bytes), d.dead_at, clip(d.error, 60)]);
    lines.push(table(['ID', 'STATUS', 'SOURCE', 'CONSUMER', 'TYPE', 'SCENARIO', 'ATTEMPTS', 'BYTES', 'DEAD AT', 'ERROR'], rows).replace(/^/gm, '  '));
  }
  for (const u of r.unavailable) lines.push(`${u.service}: unavailable (${u.error})`);
  return lines.join('\n');
}

const SUBS: Record<string, Subcommand> = {
  list: {
    summary: 'dead letters of every service (or --service), with counts by status; default the open ones',
    usage: 'list [--service S] [--scenario S] [--consumer NAME] [--status dead|retried|discarded|all] [--limit N]',
    flags: { service: 'value', scenario: 'value', consumer: 'value', status: 'value', limit: 'value' },
    async run(p, gw) {
      noPositional(p);
      const params = defined({
        service: p.values.service,
        scenario: p.values.scenario,
        consumer: p.values.consumer,
        status: p.values.status,
        limit: intFlag(p, 'limit', 1, 1000),
      });
      const result = (await gw.call('list_dead_letters', params)) as ListAnswer;
      return { result, text: listText(result) };
    },
  },
  retry: {
    summary: 'put an outbox dead letter back into its outbox, or have its consumer apply it now',
    usage: 'retry --service S ID',
    flags: { service: 'value' },
    async run(p, gw) {
      const id = onePositional(p, 'ID');
      const service = required(p, 'service', 'the service that keeps it, as list shows it');
      const result = (await gw.call('retry_dead_letter', { service, id })) as RetryDeadLetterResponse;
      const d = result.dead_letter;
      const text = result.retried
        ? `dead letter ${id} of ${service} retried (${d?.source === 'outbox' ? 'back in the outbox' : `applied by ${d?.consumer ?? 'its consumer'}`})`
        : `dead letter ${id} of ${service} failed again and stays dead: ${result.error ?? 'unknown error'}`;
      return { result, text };
    },
  },
  discard: {
    summary: 'mark a dead letter discarded, with why (never retried; kept for the dead-letter retention, 30 days by default)',
    usage: 'discard --service S ID --reason T',
    flags: { service: 'value', reason: 'value' },
    async run(p, gw) {
      const id = onePositional(p, 'ID');
      const service = required(p, 'service', 'the service that keeps it, as list shows it');
      const reason = required(p, 'reason', 'why, kept with the dead letter');
      const result = (await gw.call('discard_dead_letter', { service, id, reason })) as DiscardDeadLetterResponse;
      return { result, text: `dead letter ${id} of ${service} discarded` };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('dead-letters', SUMMARY, SUBS, argv);
}
