/**
 * The trouble-ticket agent (use case 2.1 step 6): "the initiation of a
 * trouble ticket system to assign the repair trouble ticket to the FME".
 */
import { ParleyError } from '@parley/protocol';
import type { Correlation } from './cross-domain';
import type { LinkDiagnosis } from './ip-fault';

export interface TroubleTicket {
  readonly ticket_id: string;
  readonly status: 'open';
  readonly priority: 'P1' | 'P2' | 'P3';
  readonly assigned_to: string;
  readonly summary: string;
  readonly location: string;
  readonly actions: readonly string[];
  readonly opened_at: string;
  /** When the repair is due: 4 h for P1, 8 h for P2, 24 h for P3. */
  readonly due_by: string;
  readonly references: readonly string[];
}

const DUE_HOURS = { P1: 4, P2: 8, P3: 24 } as const;

/** What a ticket request carries (the task's data param). */
export interface TicketRequest {
  readonly correlation: Correlation;
  readonly diagnosis: LinkDiagnosis;
  readonly priority: 'P1' | 'P2' | 'P3';
}

export function parseTicketRequest(v: unknown): TicketRequest {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const c = o.correlation as Correlation | undefined;
  const d = o.diagnosis as LinkDiagnosis | undefined;
  if (!c || typeof c.correlation_id !== 'string') throw new ParleyError('invalid_params', 'the ticket request names no correlation', { path: 'data_params.request.correlation', rule: 'required' });
  if (!d || typeof d.diagnosis_id !== 'string' || typeof d.fault_location !== 'string') {
    throw new ParleyError('invalid_params', 'the ticket request carries no diagnosis', { path: 'data_params.request.diagnosis', rule: 'required' });
  }
  const priority = o.priority === 'P1' || o.priority === 'P2' || o.priority === 'P3' ? o.priority : 'P2';
  return { correlation: c, diagnosis: d, priority };
}

/** Opens a ticket: `seq` is the ticket system's running number, `now` its clock. */
export function openTicket(r: TicketRequest, seq: number, now: Date): TroubleTicket {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  return {
    ticket_id: `TT-${day}-${String(seq).padStart(4, '0')}`,
    status: 'open',
    priority: r.priority,
    assigned_to: `FME team (${r.diagnosis.fault_location.includes('AGG-05') ? 'east' : 'north'} region)`,
    summary: `${r.diagnosis.root_cause.replace(/_/g, ' ')} on ${r.diagnosis.link_id}: site(s) ${r.diagnosis.affected_sites.join(', ')} out of service`,
    location: r.diagnosis.fault_location,
    actions: [...r.diagnosis.recommended_actions],
    opened_at: now.toISOString(),
    due_by: new Date(now.getTime() + DUE_HOURS[r.priority] * 3_600_000).toISOString(),
    references: [r.correlation.correlation_id, r.diagnosis.diagnosis_id, r.correlation.wireless_incident, r.correlation.ip_incident],
  };
}
