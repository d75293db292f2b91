/**
 * `parley patches list --scenario S [--status proposed|active|rejected] [--scope X]`
 * `parley patches show ID`
 * `parley patches approve|reject ID --reason TEXT`
 * `parley patches pin|unpin ID --reason TEXT`
 * `parley patches decisions --scenario S [--patch ID] [--after SEQ] [--limit N]`
 * `parley patches edit ID --key-name K [--rename NEW] [--values a,b] [--type T] [--description TEXT] --reason TEXT`
 *
 * Schema patches and their lifecycle (draft-zhou §6.2.2, §6.2.3) through the
 * gateway. approve, reject, pin and unpin are operator decisions (§7), recorded
 * with the reason; so is edit, an operator's correction of one key (`--key-name`:
 * `--key` stays the API key every command takes). Every subcommand needs an API key with the `operator` role
 * (--key / PARLEY_API_KEY).
 */
import type { Decision, EditPatchResponse, GetPatchResponse, ListDecisionsResponse, ListPatchesResponse, Patch, PatchKeyView } from '@parley/contracts';
import { assertScenarioKnown, clip, defined, figures, intFlag, noPositional, onePositional, pct, required, runSubcommand, table, yesNo, UsageError, type Subcommand } from './rpc-client';

const SUMMARY = 'schema patches, their keys and lifecycle decisions (draft-zhou §6.2.2, §6.2.3)';
const STATUSES = ['proposed', 'active', 'rejected'];

/** One row per key: its state and the §6.2.3 metrics. */
function keyCells(k: PatchKeyView): string[] {
  const m = k.metrics;
  return [k.definition?.key_name ?? '?', k.state, pct(m?.usage_frequency), pct(m?.value_type_correctness), pct(m?.client_adoption_rate), pct(m?.semantic_alignment_accuracy)];
}

const KEY_HEADERS = ['KEY', 'STATE', 'USAGE>', 'TYPE OK>', 'ADOPTION>', 'ALIGNED>'];

export function patchesText(scenario: string, r: ListPatchesResponse): string {
  const lines = [`${scenario}: ${r.patches.length} patch${r.patches.length === 1 ? '' : 'es'}`];
  const rows: string[][] = [];
  for (const p of r.patches) {
    const head = [p.patch_id, p.scope, p.status, yesNo(p.pinned)];
    const keys = [...p.new_keys.map(keyCells), ...p.modified_keys.map((m) => [m.key_name, 'modified', '', '', '', ''])];
    if (keys.length === 0) rows.push([...head, '-']);
    keys.forEach((k, i) => rows.push([...(i === 0 ? head : ['', '', '', '']), ...k]));
  }
  if (rows.length > 0) lines.push(table(['ID', 'SCOPE', 'STATUS', 'PINNED', ...KEY_HEADERS], rows));
  for (const p of r.patches) {
    if (p.status === 'proposed' && p.approval_reasons.length > 0) lines.push(`${p.patch_id} waits for an operator: ${p.approval_reasons.join('; ')}`);
  }
  if (r.queued.length > 0) {
    lines.push(`held back by the convergence guard (${r.queued.length}):`);
    lines.push(table(['CLUSTER', 'SCOPE', 'KEY', 'QUEUED AT'], r.queued.map((q) => [q.cluster_id, q.scope, q.key_name, q.queued_at])));
  }
  return lines.join('\n');
}

export function patchText(p: Patch | undefined): string {
  if (!p) return 'no patch in the response';
  const lines = [
    `patch ${p.patch_id} (${p.scenario_id}, scope ${p.scope}, parent ${p.parent_schema_id})`,
    `  status ${p.status}, pinned ${yesNo(p.pinned)}, revision ${p.revision}`,
    `  since ${p.timestamp || '-'}, expires ${p.expires_at || '-'}${p.source_cluster_id ? `, from cluster ${p.source_cluster_id}` : ''}`,
  ];
  if (p.approval_reasons.length > 0) lines.push(`  waits for an operator: ${p.approval_reasons.join('; ')}`);
  if (p.new_keys.length > 0) {
    lines.push(
      'new keys:',
      table(
        [...KEY_HEADERS, 'TYPE', 'SINCE', 'PAYLOADS>', 'USES>', 'AUDITS>', 'CLIENTS>'],
        p.new_keys.map((k) => {
          const m = k.metrics;
          const clients = m ? `${m.clients_adopted}/${m.clients_received}` : '-';
          return [...keyCells(k), k.definition?.key_type ?? '?', k.state_since, String(m?.payloads ?? '-'), String(m?.uses ?? '-'), String(m?.audits ?? '-'), clients];
        }),
      ),
    );
    for (const k of p.new_keys) {
      if (k.definition?.semantic_description) lines.push(`  ${k.definition.key_name}: ${clip(k.definition.semantic_description, 100)}`);
      if (k.accept_until) lines.push(`  ${k.definition?.key_name ?? '?'}: still accepted until ${k.accept_until}`);
    }
    const history = p.new_keys.flatMap((k) => k.history.map((h) => [h.at, k.definition?.key_name ?? '?', `${h.from} → ${h.to}`, h.actor, h.reasons.join('; ') || '-', figures(h.figures)]));
    if (history.length > 0) lines.push('history:', table(['AT', 'KEY', 'STEP', 'ACTOR', 'REASONS', 'FIGURES'], history));
  }
  if (p.modified_keys.length > 0) {
    lines.push('modified keys:', ...p.modified_keys.map((m) => `  ${m.key_name}: ${clip(m.semantic_description, 100)}${m.enum?.length ? ` (values ${m.enum.map(String).join(', ')})` : ''}`));
  }
  return lines.join('\n');
}

export function decisionsText(scenario: string, r: ListDecisionsResponse): string {
  const head = `${scenario}: ${r.decisions.length} decision${r.decisions.length === 1 ? '' : 's'}`;
  if (r.decisions.length === 0) return head;
  const rows = r.decisions.map((d: Decision) => [String(d.seq), d.at, d.patch_id, d.key_name || '-', d.action, d.actor, d.reasons.join('; ') || '-', figures(d.figures)]);
  return `${head}\n${table(['SEQ>', 'AT', 'PATCH', 'KEY', 'ACTION', 'ACTOR', 'REASONS', 'FIGURES'], rows)}`;
}

function decision(method: 'approve_patch' | 'reject_patch', verb: string): Subcommand {
  return {
    summary: verb === 'approve' ? 'approve a patch that waits for an operator' : 'reject a patch',
    usage: `${verb} ID --reason TEXT`,
    flags: { reason: 'value' },
    async run(p, gw) {
      const patch_id = onePositional(p, 'ID (the patch id)');
      const reason = required(p, 'reason', 'why; stored with the decision');
      const result = (await gw.call(method, { patch_id, reason })) as GetPatchResponse;
      return { result, text: `patch ${patch_id} ${verb === 'approve' ? 'approved' : 'rejected'}\n${patchText(result.patch)}` };
    },
  };
}

function pin(pinned: boolean): Subcommand {
  const verb = pinned ? 'pin' : 'unpin';
  return {
    summary: pinned ? "pin a patch: the evaluator leaves its keys' states alone" : 'unpin a patch: the evaluator decides again',
    usage: `${verb} ID --reason TEXT`,
    flags: { reason: 'value' },
    async run(p, gw) {
      const patch_id = onePositional(p, 'ID (the patch id)');
      const reason = required(p, 'reason', 'why; stored with the decision');
      const result = (await gw.call('pin_patch', { patch_id, pinned, reason })) as GetPatchResponse;
      return { result, text: `patch ${patch_id} ${pinned ? 'pinned' : 'unpinned'}\n${patchText(result.patch)}` };
    },
  };
}

const EDIT_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'];
const EDIT_OUTCOMES: Record<string, string> = {
  in_place: 'edited in place (the patch is proposed: no client has seen it)',
  refine: 'published as a refinement (zhou §6.2.2: a published key only widens)',
  replace: 'published as a new key; the old key is deprecated (a published key is never renamed in place)',
};

const edit: Subcommand = {
  summary: "correct one key of a proposed or experimental patch: name, enum values, type, description",
  usage: 'edit ID --key-name K [--rename NEW] [--values a,b] [--type T] [--description TEXT] --reason TEXT',
  flags: { 'key-name': 'value', rename: 'value', values: 'list', type: 'value', description: 'value', reason: 'value' },
  async run(p, gw) {
    const patch_id = onePositional(p, 'ID (the patch id)');
    const key = required(p, 'key-name', 'the key of the patch to edit (--key is your API key)');
    const reason = required(p, 'reason', 'why; stored with the decision');
    const type = p.values.type;
    if (type !== undefined && !EDIT_TYPES.includes(type)) throw new UsageError(`--type must be one of ${EDIT_TYPES.join(', ')}, got "${type}"`);
    const values = p.lists.values;
    const params = defined({ patch_id, key, rename: p.values.rename, values, type, description: p.values.description, reason });
    if (params.rename === undefined && values === undefined && type === undefined && params.description === undefined) {
      throw new UsageError('give at least one of --rename, --values, --type, --description');
    }
    const result = (await gw.call('edit_patch', params)) as EditPatchResponse;
    const head = `patch ${patch_id} key ${key}: ${EDIT_OUTCOMES[result.outcome] ?? result.outcome}`;
    const replaced = result.replaced ? `\nreplaced:\n${patchText(result.replaced)}` : '';
    return { result, text: `${head}\n${patchText(result.patch)}${replaced}` };
  },
};

const SUBS: Record<string, Subcommand> = {
  list: {
    summary: 'patches of a scenario, one row per key with its state and metrics',
    usage: 'list --scenario S [--status proposed|active|rejected] [--scope X]',
    flags: { scenario: 'value', status: 'value', scope: 'value' },
    async run(p, gw) {
      noPositional(p);
      const scenario = required(p, 'scenario', 'the scenario, e.g. flight_booking');
      const status = p.values.status;
      if (status !== undefined && !STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
      const result = (await gw.call('list_patches', defined({ scenario, status, scope: p.values.scope }))) as ListPatchesResponse;
      if (result.patches.length === 0 && result.queued.length === 0) await assertScenarioKnown(gw, scenario);
      return { result, text: patchesText(scenario, result) };
    },
  },
  show: {
    summary: 'one patch: keys, metrics and lifecycle history',
    usage: 'show ID',
    flags: {},
    async run(p, gw) {
      const patch_id = onePositional(p, 'ID (the patch id)');
      const result = (await gw.call('get_patch', { patch_id })) as GetPatchResponse;
      return { result, text: patchText(result.patch) };
    },
  },
  approve: decision('approve_patch', 'approve'),
  reject: decision('reject_patch', 'reject'),
  pin: pin(true),
  unpin: pin(false),
  edit,
  decisions: {
    summary: 'the decision log with its figures',
    usage: 'decisions --scenario S [--patch ID] [--after SEQ] [--limit N]',
    flags: { scenario: 'value', patch: 'value', after: 'value', limit: 'value' },
    async run(p, gw) {
      noPositional(p);
      const scenario = required(p, 'scenario', 'the scenario, e.g. flight_booking');
      const params = defined({ scenario, patch_id: p.values.patch, after_seq: intFlag(p, 'after', 0, Number.MAX_SAFE_INTEGER), limit: intFlag(p, 'limit', 1, 1000) });
      const result = (await gw.call('list_decisions', params)) as ListDecisionsResponse;
      if (result.decisions.length === 0) await assertScenarioKnown(gw, scenario);
      return { result, text: decisionsText(scenario, result) };
    },
  },
};

export function run(argv: string[]): Promise<number> {
  return runSubcommand('patches', SUMMARY, SUBS, argv);
}
