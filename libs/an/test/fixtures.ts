/**
 * Realistic inputs after the AN draft's use cases (004 §2.1 fault management,
 * §5.1 profile, §5.2 task, Figure 7 content).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = join(here, '..', '..', '..');
export const DRAFT_PATH = join(REPO_ROOT, '..', 'shared', 'specs', '004_3c631192c531ca80.txt');
export const YANG_MODULE_PATH = join(here, '..', 'yang', 'parley-an-agent@2026-11-21.yang');

/** §5.2 Figure 7, exactly as printed in the draft (stray quotes, backslashes, "infomation", indentation). */
export const FIGURE_7 = [
  '                       <content namespace=\\"prompt\\">',
  '                   ##target object',
  '                   <object">xxx</object">',
  '                   ##task description',
  '                   <description">xxx</description">',
  '                   ##environmental infomation',
  '                   <environmentInput">xxx</environmentInput">',
].join('\n');

/** Figure 7 read from the draft itself, when the draft is beside the repo (shared/specs). */
export function figure7FromDraft(): string | undefined {
  if (!existsSync(DRAFT_PATH)) return undefined;
  const lines = readFileSync(DRAFT_PATH, 'utf8').split('\n');
  const start = lines.findIndex((l) => l.includes('<content namespace='));
  const end = lines.findIndex((l, i) => i > start && l.includes('<environmentInput">'));
  if (start < 0 || end < 0) return undefined;
  return lines.slice(start, end + 1).join('\n');
}

/** §5.1: a cross-domain fault agent's profile in the recommended name form. */
export function profileInput(): Record<string, unknown> {
  return {
    name: 'tmf-acme-wireless-v2',
    alias: 'Wireless fault agent',
    description: 'Locates the root cause of large-scale base-station outages in the wireless domain (use case 2.1).',
    type: 'fault-management',
    version: '2.3.1',
    provider: 'ACME Networks',
    domain: 'wireless',
    management_object: 'subnet-east-7',
    skills: [
      {
        name: 'root_cause_analysis',
        description: 'Correlates alarms and topology to find the root cause of an outage.',
        tags: ['fault', 'rca'],
        input_modes: ['text', 'image'],
        output_modes: ['text'],
      },
      {
        name: 'outage_report',
        description: 'Summarises an outage for the operator.',
        tags: ['report'],
        input_modes: ['text'],
        output_modes: ['text', 'audio'],
      },
    ],
    capability: { streaming: true, push_notifications: true, negotiate: ['FEASIBILITY', 'FULFILLMENT'] },
    authentication: [
      { id: 'jwt-main', scheme: 'jwt', jwt_info: 'iss=https://idp.acme.example jwks=https://idp.acme.example/jwks aud=an' },
      { id: 'oauth-ops', scheme: 'oauth2', oauth: 'token_url=https://idp.acme.example/token scopes=tasks' },
      { id: 'key', scheme: 'api_key' },
    ],
  };
}

export const PROMPT_CONTENT = [
  '<content namespace="prompt">',
  '## target object',
  '<object>gNodeB cluster east-7 (312 cells)</object>',
  '## task description',
  '<description>Find the root cause of the batch outage since 09:12 and propose a recovery plan.</description>',
  '## environmental information',
  '<environmentInput>Transport link TL-44 flapped at 09:11; power alarms at site S-18.</environmentInput>',
  '</content>',
].join('\n');

/** §5.2: a taskAssign as the cross-domain agent sends it. */
export function taskAssignInput(): Record<string, unknown> {
  return {
    task_id: 'task-2026-0001',
    send_from: 'tmf-acme-crossdomain-v1',
    send_to: 'tmf-acme-wireless-v2',
    task_async: true,
    content: PROMPT_CONTENT,
    schema_id: 'fault_management_v1',
    payload: { alarm_ids: ['A-1', 'A-2'], severity: 'critical' },
    expected_response: 'The root cause and a recovery plan.',
    term_explains: [{ term: 'TL', explanation: 'transport link' }],
    msg_data: ['alarms-1'],
    data_params: [
      { id: 'alarms-1', data_type: 'text', format: 'application/json', data: '[{"id":"A-1"},{"id":"A-2"}]', data_size: 26 },
      { id: 'topology', data_type: 'image', format: 'png', url: 'https://files.acme.example/topology.png', data_size: 2_400_000 },
    ],
    subscription: { protocol: 'webhook', method: 'POST', url: 'https://crossdomain.acme.example/notify' },
  };
}
