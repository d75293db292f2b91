/**
 * The service-layer cross-domain fault agent of use case 2.1 (draft 004
 * §2.1): correlation (step 4) and the decisions of steps 5 and 6.
 *
 * Correlation rule: a wireless incident and an IP incident are one
 * cross-domain fault when they concern the same site, the IP incident is on
 * that site's backhaul link, and their first alarms are within the time
 * window of each other. The decision after the resource agent's diagnosis:
 * repair automatically when it says so, else open a trouble ticket for the
 * field maintenance engineers.
 */
import { alarmsParam, jsonParam, promptContent, safeId, terms, type NetworkAlarm, type TaskAssignInput, type Topology } from './common';
import type { Incident } from './incidents';
import type { LinkDiagnosis } from './ip-fault';

/** Default correlation window: ten minutes. */
export const DEFAULT_CORRELATION_WINDOW_MS = 10 * 60_000;

export interface Correlation {
  readonly correlation_id: string;
  readonly site_id: string;
  /** The site's backhaul link, where the IP incident is. */
  readonly link_id: string;
  readonly wireless_incident: string;
  readonly ip_incident: string;
  /** Milliseconds between the two incidents' first alarms. */
  readonly gap_ms: number;
  readonly cross_domain: true;
  /** Why the incidents were correlated, one line per reason. */
  readonly reasons: readonly string[];
}

/**
 * Finds the cross-domain faults among the incidents: each (wireless, IP) pair
 * on the same site, on its backhaul link, within `windowMs`. A wireless
 * incident pairs with the closest IP incident in time.
 */
export function correlateIncidents(incidents: readonly Incident[], topology: Topology, windowMs = DEFAULT_CORRELATION_WINDOW_MS): Correlation[] {
  const out: Correlation[] = [];
  const ip = incidents.filter((i) => i.domain === 'ip' && i.link_id !== undefined);
  for (const w of incidents) {
    if (w.domain !== 'wireless') continue;
    for (const siteId of w.site_ids) {
      const site = topology.sites[siteId];
      if (!site) continue;
      const candidates = ip
        .filter((i) => i.link_id === site.backhaul_link && i.site_ids.includes(siteId))
        .map((i) => ({ i, gap: Math.abs(Date.parse(i.first_raised_at) - Date.parse(w.first_raised_at)) }))
        .filter((c) => c.gap <= windowMs)
        .sort((a, b) => a.gap - b.gap);
      const best = candidates[0];
      if (!best) continue;
      out.push({
        correlation_id: safeId('COR', siteId, site.backhaul_link),
        site_id: siteId,
        link_id: site.backhaul_link,
        wireless_incident: w.incident_id,
        ip_incident: best.i.incident_id,
        gap_ms: best.gap,
        cross_domain: true,
        reasons: [
          `same site: ${siteId} (${w.cells_out.length} cell(s) out of service; the IP incident names the site behind link ${site.backhaul_link})`,
          `backhaul: ${site.backhaul_link} is the return link of site ${siteId}`,
          `time window: first alarms ${Math.round(best.gap / 1000)} s apart (window ${Math.round(windowMs / 1000)} s)`,
        ],
      });
    }
  }
  return out;
}

/** Step 5: the async diagnosis task for the IP network fault agent, with a subscription to its status. */
export function diagnosisRequestTask(c: Correlation, alarms: readonly NetworkAlarm[], from: string, to: string, ids: { task_id?: string; alarms_param: string; correlation_param: string }): TaskAssignInput {
  return {
    ...(ids.task_id !== undefined ? { task_id: ids.task_id } : {}),
    send_from: from,
    send_to: to,
    task_async: true,
    content: promptContent({
      target_object: `IP link ${c.link_id} (backhaul of site ${c.site_id})`,
      task_description: `Cross-domain fault ${c.correlation_id}: the outage of site ${c.site_id} correlates with an incident on its backhaul link. Diagnose the link and return the fault and handling recommendations, saying whether automatic repair is possible (use case 2.1 step 5).`,
      environmental_information: `Correlated incidents ${c.wireless_incident} (wireless) and ${c.ip_incident} (IP); ${alarms.length} alarm(s) of both domains attached (data param alarms). ${c.reasons.join('; ')}.`,
    }),
    expected_response: 'diagnosis: {root_cause, fault_location, auto_repair_possible, recommended_actions}',
    term_explains: terms('backhaul', 'LOS', 'CSG'),
    data_params: [alarmsParam(ids.alarms_param, alarms, `alarms of both domains for ${c.correlation_id}`), jsonParam(ids.correlation_param, c, `correlation ${c.correlation_id}`)],
    msg_data: [ids.alarms_param, ids.correlation_param],
    subscription: { protocol: 'nats' },
  };
}

export type Decision =
  | { readonly action: 'auto_repair'; readonly reason: string }
  | { readonly action: 'trouble_ticket'; readonly reason: string; readonly priority: 'P1' | 'P2' | 'P3' };

/** Step 6: what to do with the resource agent's diagnosis. */
export function decideRepair(d: LinkDiagnosis, cellsOut: number): Decision {
  if (d.auto_repair_possible) return { action: 'auto_repair', reason: `${d.root_cause} on ${d.link_id}: the IP agent repairs it (${d.recommended_actions[0] ?? 'no action given'})` };
  return {
    action: 'trouble_ticket',
    reason: `${d.root_cause.replace(/_/g, ' ')} on ${d.link_id}: automatic repair impossible (${d.auto_repair_reason}); a field maintenance engineer must repair it`,
    priority: cellsOut >= 3 ? 'P1' : cellsOut > 0 ? 'P2' : 'P3',
  };
}

/** Step 6: the sync trouble-ticket task for the ticket agent. */
export function troubleTicketTask(c: Correlation, d: LinkDiagnosis, decision: Decision & { action: 'trouble_ticket' }, from: string, to: string, paramId: string): TaskAssignInput {
  return {
    send_from: from,
    send_to: to,
    task_async: false,
    content: promptContent({
      target_object: `${d.fault_location}`,
      task_description: `Open a repair trouble ticket (priority ${decision.priority}) for cross-domain fault ${c.correlation_id}: ${decision.reason}. Assign it to the field maintenance engineers (use case 2.1 step 6).`,
      environmental_information: `Diagnosis ${d.diagnosis_id} by the IP network fault agent attached (data param diagnosis). Site ${c.site_id} is out of service; incidents ${c.wireless_incident}, ${c.ip_incident}.`,
    }),
    expected_response: 'ticket: {ticket_id, status, assigned_to, priority}',
    term_explains: terms('FME', 'backhaul'),
    data_params: [jsonParam(paramId, { correlation: c, diagnosis: d, priority: decision.priority }, `diagnosis ${d.diagnosis_id} and correlation ${c.correlation_id}`)],
    msg_data: [paramId],
  };
}
