/**
 * Incidents: what a resource-layer fault agent makes of its domain's alarms
 * and reports to the cross-domain agent (use case 2.1, steps 3a and 3b), and
 * how the cross-domain agent reads such a report back.
 */
import { ParleyError } from '@parley/protocol';
import type { TaskPrompt } from '@parley/an';
import {
  alarmsParam,
  compactTime,
  earliest,
  promptContent,
  safeId,
  terms,
  worstSeverity,
  type AlarmSeverity,
  type AlarmSource,
  type NetworkAlarm,
  type TaskAssignInput,
  type Topology,
} from './common';

export interface Incident {
  readonly incident_id: string;
  readonly domain: AlarmSource;
  /** The sites concerned. */
  readonly site_ids: readonly string[];
  /** IP incidents: the link. */
  readonly link_id?: string;
  /** Wireless incidents: the cells out of service. */
  readonly cells_out: readonly string[];
  readonly severity: AlarmSeverity;
  /** When its first alarm was raised. */
  readonly first_raised_at: string;
  readonly alarms: readonly NetworkAlarm[];
}

/**
 * The wireless fault agent's view: one incident per site with active
 * (uncleared) wireless alarms, naming the cells out of service (a
 * base_station_out_of_service alarm takes the whole site's cells).
 */
export function wirelessIncidents(alarms: readonly NetworkAlarm[], topology: Topology): Incident[] {
  const bySite = new Map<string, NetworkAlarm[]>();
  for (const a of alarms) {
    if (a.source !== 'wireless' || a.cleared) continue;
    bySite.set(a.site_id, [...(bySite.get(a.site_id) ?? []), a]);
  }
  return [...bySite.entries()].map(([siteId, list]) => {
    const cells = new Set<string>();
    for (const a of list) {
      if (a.type === 'base_station_out_of_service') for (const c of topology.sites[siteId]?.cells ?? []) cells.add(c);
      for (const c of a.cell_ids ?? []) cells.add(c);
    }
    const first = earliest(list);
    return {
      incident_id: safeId('INC-W', siteId, compactTime(first)),
      domain: 'wireless',
      site_ids: [siteId],
      cells_out: [...cells].sort(),
      severity: worstSeverity(list),
      first_raised_at: first,
      alarms: list,
    };
  });
}

/** The IP fault agent's view: one incident per link with active IP alarms, naming the sites behind it. */
export function ipIncidents(alarms: readonly NetworkAlarm[], topology: Topology): Incident[] {
  const byLink = new Map<string, NetworkAlarm[]>();
  for (const a of alarms) {
    if (a.source !== 'ip' || a.cleared || a.link_id === undefined) continue;
    byLink.set(a.link_id, [...(byLink.get(a.link_id) ?? []), a]);
  }
  return [...byLink.entries()].map(([linkId, list]) => {
    const sites = new Set<string>([...(topology.links[linkId]?.sites ?? []), ...list.map((a) => a.site_id)]);
    const first = earliest(list);
    return {
      incident_id: safeId('INC-IP', linkId, compactTime(first)),
      domain: 'ip',
      site_ids: [...sites].sort(),
      link_id: linkId,
      cells_out: [],
      severity: worstSeverity(list),
      first_raised_at: first,
      alarms: list,
    };
  });
}

/** Sites whose alarms of `source` all cleared in this batch (the fault was repaired). */
export function clearedSites(alarms: readonly NetworkAlarm[], source: AlarmSource): string[] {
  const sites = new Map<string, boolean>();
  for (const a of alarms) {
    if (a.source !== source) continue;
    sites.set(a.site_id, (sites.get(a.site_id) ?? true) && a.cleared === true);
  }
  return [...sites.entries()].filter(([, cleared]) => cleared).map(([s]) => s).sort();
}

/** The prompt of an incident report. */
export function incidentPrompt(i: Incident, topology: Topology): TaskPrompt {
  const site = i.site_ids.length === 1 ? topology.sites[i.site_ids[0] as string] : undefined;
  const target =
    i.domain === 'wireless'
      ? `${site ? `${site.base_station} at site ${site.site_id}` : `sites ${i.site_ids.join(', ')}`}: ${i.cells_out.length} cell(s) out of service (${i.cells_out.join(', ')})`
      : `IP link ${i.link_id ?? '?'} serving site(s) ${i.site_ids.join(', ')}`;
  const what = i.domain === 'wireless' ? 'Incident report from the wireless domain (use case 2.1 step 3a)' : 'Incident report from the IP network domain (use case 2.1 step 3b)';
  return {
    target_object: target,
    task_description: `${what}: incident ${i.incident_id}, severity ${i.severity}. Correlate it with the incidents of the other domains and acknowledge it.`,
    environmental_information: `${i.alarms.length} active alarm(s) attached as structured data (data param alarms, JSON); first raised at ${i.first_raised_at}.${i.link_id ? ` Link ${i.link_id}.` : ''}`,
  };
}

/** The sync taskAssign of an incident report to the cross-domain agent (3a / 3b). */
export function incidentReportTask(i: Incident, topology: Topology, from: string, to: string, paramId: string): TaskAssignInput {
  return {
    send_from: from,
    send_to: to,
    task_async: false,
    content: promptContent(incidentPrompt(i, topology)),
    expected_response: 'acknowledgement: {incident_id, domain, correlation}',
    term_explains: i.domain === 'wireless' ? terms('backhaul', 'CSG') : terms('LOS', 'CSG', 'AGG'),
    data_params: [alarmsParam(paramId, i.alarms, `active ${i.domain} alarms of incident ${i.incident_id}`)],
    msg_data: [paramId],
  };
}

/**
 * The cross-domain agent reads a report back from its alarms (the data param
 * is the structured truth; the prompt is for the reader). Every alarm must
 * come from one domain.
 */
export function incidentFromReport(alarms: readonly NetworkAlarm[], topology: Topology): Incident {
  if (alarms.length === 0) throw new ParleyError('invalid_params', 'the incident report carries no alarms', { path: 'data_params.alarms', rule: 'non_empty' });
  const source = (alarms[0] as NetworkAlarm).source;
  if (alarms.some((a) => a.source !== source)) {
    throw new ParleyError('invalid_params', 'the alarms of one incident report come from one domain', { path: 'data_params.alarms', rule: 'one_domain' });
  }
  const incidents = source === 'wireless' ? wirelessIncidents(alarms, topology) : ipIncidents(alarms, topology);
  if (incidents.length !== 1) {
    throw new ParleyError('invalid_params', `the alarms describe ${incidents.length} incidents; report one at a time`, { path: 'data_params.alarms', rule: 'one_incident' });
  }
  return incidents[0] as Incident;
}
