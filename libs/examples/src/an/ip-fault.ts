/**
 * The IP network fault agent's diagnosis (use case 2.1 step 5): "the
 * resource layer fault agent performs self-diagnosis and returns the fault
 * information and handling recommendations to the cross-domain agent".
 *
 * Rules, from the link's alarms and the topology:
 * - loss of signal at both ends (or at one end with the link down) → fibre
 *   cut; automatic repair only when the link has a protection path;
 * - optical power low without loss of signal → degraded fibre or connector;
 *   not automatically repairable either;
 * - link down without optical alarms → interface or configuration fault;
 *   repaired automatically by resetting the port.
 */
import { ParleyError } from '@parley/protocol';
import type { NetworkAlarm, Topology } from './common';

export interface LinkDiagnosis {
  readonly diagnosis_id: string;
  readonly link_id: string;
  readonly root_cause: 'fibre_cut' | 'fibre_degraded' | 'interface_fault';
  readonly fault_location: string;
  readonly affected_sites: readonly string[];
  readonly auto_repair_possible: boolean;
  readonly auto_repair_reason: string;
  readonly recommended_actions: readonly string[];
  readonly evidence: readonly string[];
  readonly confidence: number;
}

export function diagnoseLink(linkId: string, alarms: readonly NetworkAlarm[], topology: Topology, diagnosisId: string): LinkDiagnosis {
  const link = topology.links[linkId];
  if (!link) throw new ParleyError('invalid_params', `link ${JSON.stringify(linkId)} is not in the IP agent's inventory`, { path: 'link_id', rule: 'exists' });
  const onLink = alarms.filter((a) => a.source === 'ip' && a.link_id === linkId && !a.cleared);
  if (onLink.length === 0) throw new ParleyError('invalid_params', `no active alarm on link ${linkId}: nothing to diagnose`, { path: 'data_params.alarms', rule: 'non_empty' });
  const losEnds = new Set(onLink.filter((a) => a.type === 'loss_of_signal').map((a) => a.ne_id));
  const down = onLink.some((a) => a.type === 'link_down');
  const lowPower = onLink.some((a) => a.type === 'optical_power_low');
  const evidence = onLink.map((a) => `${a.ne_id}: ${a.type} at ${a.raised_at}`);
  const base = { diagnosis_id: diagnosisId, link_id: linkId, affected_sites: [...link.sites], evidence };

  if (losEnds.size >= 2 || (losEnds.size === 1 && down)) {
    return {
      ...base,
      root_cause: 'fibre_cut',
      fault_location: `fibre between ${link.a_end} and ${link.z_end} (${link.route})`,
      auto_repair_possible: link.protected,
      auto_repair_reason: link.protected ? 'traffic can be switched to the protection path' : 'physical fibre break and the link has no protection path',
      recommended_actions: link.protected
        ? [`switch ${linkId} to its protection path`, 'dispatch a field maintenance engineer to splice the fibre']
        : [`dispatch a field maintenance engineer to splice the fibre on ${link.route}`, `keep site(s) ${link.sites.join(', ')} in maintenance state until the repair`, 'verify loss of signal clears at both ends after splicing'],
      confidence: losEnds.size >= 2 ? 0.95 : 0.85,
    };
  }
  if (lowPower) {
    return {
      ...base,
      root_cause: 'fibre_degraded',
      fault_location: `optical path between ${link.a_end} and ${link.z_end}`,
      auto_repair_possible: false,
      auto_repair_reason: 'optical degradation needs cleaning or replacing a connector on site',
      recommended_actions: ['dispatch a field maintenance engineer to clean or replace the connectors', 'measure optical power at both ends'],
      confidence: 0.7,
    };
  }
  return {
    ...base,
    root_cause: 'interface_fault',
    fault_location: `interfaces of ${link.a_end} and ${link.z_end} on ${linkId}`,
    auto_repair_possible: true,
    auto_repair_reason: 'no optical alarm: the interface can be reset remotely',
    recommended_actions: [`reset the ports of ${linkId}`, 'verify the link comes up within 5 minutes'],
    confidence: 0.6,
  };
}
