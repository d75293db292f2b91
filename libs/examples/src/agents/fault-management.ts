import type { JsonObject } from '@parley/protocol';

/**
 * The cross-domain fault agent of the autonomous-network draft, use case 2.1
 * (004_3c631192c531ca80.txt §2.1): incidents from the wireless and IP domains
 * are correlated; the agent locates the fault, says whether automatic repair is
 * possible, and opens a trouble ticket when it is not (step 6 of the flow).
 */
const LINE_FAULTS = /line|fib(er|re)|cut|interrupt|link.?down|los(s)? of signal/i;

export function diagnoseFault(payload: JsonObject, ctx: { execution_id: string }): JsonObject {
  const domain = String(payload.fault_domain ?? 'cross_domain');
  const alarm = String(payload.alarm_type ?? '');
  const sites = Array.isArray(payload.affected_site_ids) ? payload.affected_site_ids.map(String) : [];
  const link = typeof payload.suspected_link === 'string' ? payload.suspected_link : undefined;
  const deep = payload.diagnosis_depth === 'full';

  const lineFault = LINE_FAULTS.test(alarm) || Boolean(link);
  const crossDomain = domain === 'cross_domain' || (lineFault && sites.length > 1);
  const rootCause = lineFault
    ? `Transport line interruption${link ? ` on ${link}` : ''} isolating ${sites.length || 'several'} base station(s)`
    : `Equipment fault in the ${domain.replace(/_/g, ' ')} domain (${alarm || 'unclassified alarm'})`;
  // A physical line cut needs a field engineer; a software or configuration fault can be repaired remotely.
  const autoRepair = !lineFault;
  const actions = autoRepair
    ? ['restart the affected network elements', 'verify alarms clear within 10 minutes']
    : ['dispatch a field maintenance engineer to the suspected link', 'reroute traffic over the protection path', 'keep affected sites in maintenance state until repair'];

  const result: JsonObject = {
    diagnosis_id: `DG-${ctx.execution_id.slice(0, 8).toUpperCase()}`,
    root_cause: rootCause,
    fault_location: link ?? (sites[0] !== undefined ? `site ${sites[0]}` : domain),
    cross_domain: crossDomain,
    confidence: deep ? 0.92 : 0.78,
    auto_repair_possible: autoRepair,
    recommended_actions: actions,
  };
  if (!autoRepair) result.trouble_ticket_id = `TT-${ctx.execution_id.slice(0, 8).toUpperCase()}`;
  return result;
}
