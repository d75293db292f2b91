/**
 * What the example autonomous-network (AN) agents share: the network they
 * manage (a small topology of base-station sites, their cells, backhaul links
 * and neighbour cells), the alarms they exchange as structured data params,
 * Figure 7 prompt content, and negotiation proposals as `key: value` lines.
 *
 * Draft: ../shared/specs/004_3c631192c531ca80.txt, §2.1 (use case 1,
 * cross-domain fault management), §2.2 (fault, optimization and
 * energy-saving agents), §5 (the model). Every function here is pure: time,
 * ids and the topology are inputs.
 */
import { ParleyError } from '@parley/protocol';
import type { DataParam, TaskPrompt, TaskSubscription, TermExplain } from '@parley/an';

// ---------------------------------------------------------------------------
// The network
// ---------------------------------------------------------------------------

export interface Site {
  readonly site_id: string;
  /** The site's base station (gNodeB). */
  readonly base_station: string;
  readonly cells: readonly string[];
  /** The site's cell site gateway: the IP router terminating its backhaul. */
  readonly csg: string;
  /** The site's backhaul (return) link, `A-end<->Z-end`. */
  readonly backhaul_link: string;
  /** Cells of other sites that can cover this site's area when it is out of service. */
  readonly neighbour_cells: readonly string[];
}

export interface Link {
  readonly link_id: string;
  readonly a_end: string;
  readonly z_end: string;
  /** Sites whose backhaul runs over the link. */
  readonly sites: readonly string[];
  /** Where the fibre runs (for the field engineer). */
  readonly route: string;
  /** Whether traffic can be rerouted over a protection path (an automatic repair). */
  readonly protected: boolean;
}

export interface Topology {
  readonly sites: Readonly<Record<string, Site>>;
  readonly links: Readonly<Record<string, Link>>;
}

function site(id: string, agg: string, neighbours: string[]): [Site, Link] {
  const csg = `CSG-${id}`;
  const link = `${agg}<->${csg}`;
  return [
    { site_id: id, base_station: `gNB-${id}`, cells: [1, 2, 3].map((c) => `${id}-${c}`), csg, backhaul_link: link, neighbour_cells: neighbours },
    { link_id: link, a_end: agg, z_end: csg, sites: [id], route: `duct ${agg}-${id}, ${(Number(id) % 7) + 2}.4 km along the ring road`, protected: false },
  ];
}

/** The example network: six sites on two aggregation routers; no backhaul link has a protection path. */
export const EXAMPLE_TOPOLOGY: Topology = (() => {
  const pairs = [
    site('1021', 'AGG-03', ['1022-2', '1023-1']),
    site('1022', 'AGG-03', ['1021-3', '1023-2']),
    site('1023', 'AGG-03', ['1021-1', '1022-3']),
    site('1035', 'AGG-05', ['1036-1', '1037-3']),
    site('1036', 'AGG-05', ['1035-2', '1037-1']),
    site('1037', 'AGG-05', ['1035-3', '1036-2']),
  ];
  return {
    sites: Object.fromEntries(pairs.map(([s]) => [s.site_id, s])),
    links: Object.fromEntries(pairs.map(([, l]) => [l.link_id, l])),
  };
})();

/** Every cell of the topology. */
export function allCells(t: Topology): string[] {
  return Object.values(t.sites).flatMap((s) => [...s.cells]);
}

export function siteOf(t: Topology, siteId: string, path = 'site_id'): Site {
  const s = t.sites[siteId];
  if (!s) throw new ParleyError('invalid_params', `${path}: no site ${JSON.stringify(siteId)} in the topology`, { path, rule: 'exists' });
  return s;
}

// ---------------------------------------------------------------------------
// Alarms: the structured data params of incident reports (5.2 data-params)
// ---------------------------------------------------------------------------

export const ALARM_SOURCES = ['wireless', 'ip'] as const;
export type AlarmSource = (typeof ALARM_SOURCES)[number];
export const ALARM_SEVERITIES = ['critical', 'major', 'minor', 'warning'] as const;
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];

/** Wireless: base_station_out_of_service, cell_out_of_service. IP: loss_of_signal, link_down, optical_power_low. */
export const WIRELESS_ALARM_TYPES = ['base_station_out_of_service', 'cell_out_of_service'] as const;
export const IP_ALARM_TYPES = ['loss_of_signal', 'link_down', 'optical_power_low'] as const;

/** One alarm as a domain agent raises (or clears) it. */
export interface NetworkAlarm {
  readonly alarm_id: string;
  readonly source: AlarmSource;
  readonly type: string;
  readonly severity: AlarmSeverity;
  /** The site the alarm concerns (for IP alarms: the site behind the link's far end). */
  readonly site_id: string;
  /** The network element that raised it: gNB-1021, CSG-1021, AGG-03. */
  readonly ne_id: string;
  /** IP alarms: the link. */
  readonly link_id?: string;
  /** Wireless alarms: the cells out of service. */
  readonly cell_ids?: readonly string[];
  /** RFC 3339. */
  readonly raised_at: string;
  /** True when the alarm cleared (the fault is repaired). */
  readonly cleared?: boolean;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ALARM_MEMBERS = ['alarm_id', 'source', 'type', 'severity', 'site_id', 'ne_id', 'link_id', 'cell_ids', 'raised_at', 'cleared'];

function bad(path: string, rule: string, message: string): never {
  throw new ParleyError('invalid_params', message, { path, rule });
}

function str(o: Record<string, unknown>, k: string, path: string, optional = false): string | undefined {
  const v = o[k];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') bad(`${path}.${k}`, v === undefined ? 'required' : 'type', `${path}.${k} must be a non-empty string`);
  if (v.length > 256) bad(`${path}.${k}`, 'max_length', `${path}.${k} must be at most 256 characters`);
  return v;
}

/** Checks one alarm (a data param's item); ParleyError `invalid_params` naming the path and rule. */
export function parseAlarm(input: unknown, path = 'alarm'): NetworkAlarm {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) bad(path, 'type', `${path} must be an object`);
  const o = input as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!ALARM_MEMBERS.includes(k)) bad(`${path}.${k}`, 'unknown_member', `${path}.${k} is not an alarm member`);
  const source = str(o, 'source', path) as AlarmSource;
  if (!ALARM_SOURCES.includes(source)) bad(`${path}.source`, 'enum', `${path}.source must be one of ${ALARM_SOURCES.join(', ')}`);
  const severity = str(o, 'severity', path) as AlarmSeverity;
  if (!ALARM_SEVERITIES.includes(severity)) bad(`${path}.severity`, 'enum', `${path}.severity must be one of ${ALARM_SEVERITIES.join(', ')}`);
  const raised_at = str(o, 'raised_at', path) as string;
  if (!RFC3339.test(raised_at) || Number.isNaN(Date.parse(raised_at))) bad(`${path}.raised_at`, 'format', `${path}.raised_at must be an RFC 3339 date-time`);
  const alarm: { -readonly [K in keyof NetworkAlarm]: NetworkAlarm[K] } = {
    alarm_id: str(o, 'alarm_id', path) as string,
    source,
    type: str(o, 'type', path) as string,
    severity,
    site_id: str(o, 'site_id', path) as string,
    ne_id: str(o, 'ne_id', path) as string,
    raised_at,
  };
  const link = str(o, 'link_id', path, true);
  if (link !== undefined) alarm.link_id = link;
  if (o.cell_ids !== undefined) {
    if (!Array.isArray(o.cell_ids) || o.cell_ids.some((c) => typeof c !== 'string' || c === '')) bad(`${path}.cell_ids`, 'type', `${path}.cell_ids must be a list of cell ids`);
    alarm.cell_ids = [...(o.cell_ids as string[])];
  }
  if (o.cleared !== undefined) {
    if (typeof o.cleared !== 'boolean') bad(`${path}.cleared`, 'type', `${path}.cleared must be a boolean`);
    alarm.cleared = o.cleared;
  }
  if (source === 'ip' && alarm.link_id === undefined) bad(`${path}.link_id`, 'required', `${path}.link_id is required for an IP alarm`);
  return alarm;
}

export function parseAlarms(input: unknown, path = 'alarms'): NetworkAlarm[] {
  if (!Array.isArray(input)) bad(path, 'type', `${path} must be a list of alarms`);
  if (input.length > 10_000) bad(path, 'max_items', `${path} holds more than 10000 alarms`);
  return input.map((a, i) => parseAlarm(a, `${path}[${i}]`));
}

/** The alarms as one structured data param (5.2): JSON text. */
export function alarmsParam(id: string, alarms: readonly NetworkAlarm[], description: string): DataParam {
  const data = JSON.stringify(alarms);
  return { id, data_type: 'text', format: 'application/json', description, data, data_size: byteLength(data) };
}

/** Parses a data param's JSON text of alarms. */
export function alarmsFromData(data: string, path = 'data_params.alarms'): NetworkAlarm[] {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    bad(path, 'json', `${path} is not JSON`);
  }
  return parseAlarms(v, path);
}

/** Any JSON object as a structured data param. */
export function jsonParam(id: string, value: unknown, description: string): DataParam {
  const data = JSON.stringify(value);
  return { id, data_type: 'text', format: 'application/json', description, data, data_size: byteLength(data) };
}

function byteLength(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

const SEVERITY_RANK: Record<AlarmSeverity, number> = { critical: 4, major: 3, minor: 2, warning: 1 };

export function worstSeverity(alarms: readonly NetworkAlarm[]): AlarmSeverity {
  let worst: AlarmSeverity = 'warning';
  for (const a of alarms) if (SEVERITY_RANK[a.severity] > SEVERITY_RANK[worst]) worst = a.severity;
  return worst;
}

export function earliest(alarms: readonly NetworkAlarm[]): string {
  return alarms.map((a) => a.raised_at).sort((x, y) => Date.parse(x) - Date.parse(y))[0] ?? '';
}

// ---------------------------------------------------------------------------
// Figure 7 prompt content
// ---------------------------------------------------------------------------

/** Builds 5.2 Figure 7 content: `## target object`, `## task description`, `## environmental information`. */
export function promptContent(p: TaskPrompt): string {
  for (const [k, v] of Object.entries(p)) {
    if (typeof v !== 'string' || v.trim() === '') bad(`prompt.${k}`, 'non_empty', `prompt.${k} must not be empty`);
  }
  return [
    '<content namespace="prompt">',
    '## target object',
    `<object>${p.target_object}</object>`,
    '## task description',
    `<description>${p.task_description}</description>`,
    '## environmental information',
    `<environmentInput>${p.environmental_information}</environmentInput>`,
    '</content>',
  ].join('\n');
}

// ---------------------------------------------------------------------------
// Negotiation proposals (5.3 Figure 8 `content`): human-readable lines, some `key: value`
// ---------------------------------------------------------------------------

/** The `key: value` lines of a proposal as a record (other lines under `text`, joined). */
export function proposalFields(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const text: string[] = [];
  for (const line of lines) {
    const m = /^\s*([a-z][a-z0-9_]*)\s*:\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1] as string] = m[2] as string;
    else text.push(line.trim());
  }
  if (text.length > 0) out.text = text.join(' ');
  return out;
}

export function listField(fields: Record<string, string>, key: string): string[] {
  return (fields[key] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function numberField(fields: Record<string, string>, key: string): number | undefined {
  const v = fields[key];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

// ---------------------------------------------------------------------------
// The params of a task_assign call (gateway JSON-RPC `task_assign`, 5.2)
// ---------------------------------------------------------------------------

/** What an initiating agent sends with `task_assign` (libs/an parseTaskAssign reads it). */
export interface TaskAssignInput {
  task_id?: string;
  send_from: string;
  send_to: string;
  task_async: boolean;
  content: string;
  expected_response?: string;
  term_explains?: TermExplain[];
  msg_data?: string[];
  data_params?: DataParam[];
  subscription?: TaskSubscription;
}

/** Terms the example agents explain to each other (5.2 term-explains). */
export const TERMS: Readonly<Record<string, string>> = {
  CSG: 'cell site gateway: the IP router at a base-station site that terminates its backhaul link',
  AGG: 'aggregation router: collects the backhaul links of several sites',
  backhaul: 'the return link from a base-station site to the IP aggregation network',
  LOS: 'loss of signal: no light received on an optical interface',
  FME: 'field maintenance engineer: repairs what cannot be repaired remotely',
  'energy-saving target': 'share of the time a cell may spend in a power-saving state (carrier or symbol shutdown), in percent',
};

export function terms(...names: string[]): TermExplain[] {
  return names.map((n) => ({ term: n, explanation: TERMS[n] ?? n }));
}

/** `prefix-<id>` made safe as a task / data-param id (letters, digits, `.`, `_`, `:`, `-`; at most 128). */
export function safeId(prefix: string, ...parts: string[]): string {
  const raw = [prefix, ...parts].join('-').replace(/<->/g, '--').replace(/[^A-Za-z0-9._:-]/g, '-');
  return raw.replace(/^[^A-Za-z0-9]+/, '').slice(0, 128);
}

/** `2026-05-04T09:12:30.000Z` → `20260504T091230`. */
export function compactTime(iso: string): string {
  return iso.replace(/[-:]/g, '').replace(/\.\d+/, '').replace(/Z$|[+-]\d{4}$/, '');
}
