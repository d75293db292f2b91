/**
 * `parley audits list --scenario S [--pending] [--patch ID] [--limit N]`
 * `parley audits judge SAMPLE_ID --aligned|--misaligned [--note T]`
 *
 * Audit samples behind semantic-alignment accuracy (draft-zhou §6.2.3): did the
 * value a client sent for an experimental key mean what the key says? Judging
 * is an operator decision. Every subcommand needs an API key with the
 * `operator` role (--key / PARLEY_API_KEY).
 */
import type { AuditSample, JudgeAuditSampleResponse, ListAuditSamplesResponse } from '@parley/contracts';
import { assertScenarioKnown, clip, defined, intFlag, noPositional, onePositional, required, runSubcommand, table, UsageError, type Subcommand } from './rpc-client';

const SUMMARY = 'audit samples for semantic-alignment accuracy (draft-zhou §6.2.3)';

const valueText = (v: unknown): string => (v === undefined ? '-' : clip(JSON.stringify(v), 32));

export function samplesText(scenario: string, r: ListAuditSamplesResponse, pendingOnly: boolean): string {
  const n = r.samples.length;
  const head = `${scenario}: ${n}${pendingOnly ? ' pending' : ''} audit sample${n === 1 ? '' : 's'}`;
  if (n === 0) return head;
  const rows = r.samples.map((s: AuditSample) => [s.sample_id, s.patch_id, s.key_name, s.client_id, s.at, s.verdict, valueText(s.value), s.utterance ? clip(s.utterance) : '-']);
  return `${head}\n${table(['ID', 'PATCH', 'KEY', 'CLIENT', 'AT', 'VERDICT', 'VALUE', 'UTTERANCE'], rows)}`;
}

export function judgedText(r: JudgeAuditSampleResponse): string {
  const s = r.sample;
  if (!s) return 'no sample in the response';
  const by = [s.judged_by ? `by ${s.judged_by}` : '', s.judged_at ? `at ${s.judged_at}` : ''].filter(Boolean).join(' ');
  return `sample ${s.sample_id} judged ${s.verdict}${by ? ` ${by}` : ''} (patch ${s.patch_id}, key ${s.key_name}, value ${valueText(s.value)})`;
}

const SUBS: Record<string, Subcommand> = {
  list: {
    summary: 'audit samples of a scenario; --pending for those waiting for a verdict',
    usage: 'list --scenario S [--pending] [--patch ID] [--limit N]',
    flags: { scenario: 'value', pending: 'switch', patch: 'value', limit: 'value' },
    async run(p, gw) {
      noPositional(p);
      const scenario = required(p, 'scenario', 'the scenario, e.g. flight_booking');
      const pending = p.switches.has('pending');
      const params = defined({ scenario, patch_id: p.values.patch, verdict: pending ? 'pending' : undefined, limit: intFlag(p, 'limit', 1, 1000) });
      const result = (await gw.call('list_audit_samples', params)) as ListAuditSamplesResponse;
      if (result.samples.length === 0) await assertScenarioKnown(gw, scenario);
      return { result, text: samplesText(scenario, result, pending) };
    },
  },
  judge: {
    summary: 'record a verdict on a sample',
    usage: 'judge SAMPLE_ID --aligned|--misaligned [--note T]',
    flags: { aligned: 'switch', misaligned: 'switch', note: 'value' },
    async run(p, gw) {
      const sample_id = onePositional(p, 'SAMPLE_ID');
      const aligned = p.switches.has('aligned');
      if (aligned === p.switches.has('misaligned')) throw new UsageError('give exactly one of --aligned and --misaligned');
      const result = (await gw.call('judge_audit_sample', defined({ sample_id, aligned, note: p.values.note }))) as JudgeAuditSampleResponse;
      return { result, text: judgedText(result) };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('audits', SUMMARY, SUBS, argv);
}
