import { AgentFailure, type AssignedTask } from '@parley/agent-sdk';
import {
  AN_SKILLS,
  DEFAULT_CORRELATION_WINDOW_MS,
  correlateIncidents,
  decideRepair,
  diagnosisRequestTask,
  incidentFromReport,
  parseAlarms,
  safeId,
  troubleTicketTask,
  type Correlation,
  type Decision,
  type Incident,
  type LinkDiagnosis,
} from '@parley/examples';
import { toParleyError } from '@parley/protocol';
import type { RoleFactory } from './host';
import { jsonDataParams, pick } from './params';

interface Received {
  incident: Incident;
  report_task_id: string;
  reporter: string;
  /** The report task finished (its notification arrived): only then is the incident correlated. */
  acknowledged: boolean;
}

interface Case {
  correlation: Correlation;
  status: 'diagnosing' | 'diagnosed' | 'ticket_open' | 'auto_repair' | 'failed';
  diagnosis_task_id: string;
  diagnosis_agent: string;
  diagnosis?: LinkDiagnosis;
  decision?: Decision;
  ticket_task_id?: string;
  ticket?: Record<string, unknown>;
  error?: string;
}

/**
 * The service-layer cross-domain fault agent (`TMF-Acme-CrossDomain-v1`),
 * use case 2.1:
 * - executes incident reports (sync): reads the alarms, records the incident,
 *   acknowledges it (3a, 3b);
 * - once the reports of a wireless and an IP incident have finished, it
 *   correlates them (same site, the site's backhaul link, time window; step 4)
 *   and assigns an async diagnosis task to the IP network fault agent with a
 *   NATS subscription (step 5);
 * - on the diagnosis task's `finished` notification it decides: automatic
 *   repair impossible → a sync trouble-ticket task to the ticket agent (step 6).
 */
export const crossDomainRole: RoleFactory = (ctx) => {
  const windowMs = DEFAULT_CORRELATION_WINDOW_MS;
  const incidents = new Map<string, Received>();
  const byReportTask = new Map<string, Received>();
  const cases = new Map<string, Case>();
  const byDiagnosisTask = new Map<string, Case>();

  function correlate(): Correlation[] {
    const acknowledged = [...incidents.values()].filter((r) => r.acknowledged).map((r) => r.incident);
    return correlateIncidents(acknowledged, ctx.topology, windowMs).filter((c) => !cases.has(c.correlation_id));
  }

  /** Claims the correlation at once (a second notification must not start it again), then assigns the diagnosis. */
  function startDiagnosis(c: Correlation): () => Promise<void> {
    const taskId = safeId('DIAG', c.correlation_id, ctx.uid());
    const k: Case = { correlation: c, status: 'diagnosing', diagnosis_task_id: taskId, diagnosis_agent: '' };
    cases.set(c.correlation_id, k);
    byDiagnosisTask.set(taskId, k);
    return () => assignDiagnosis(k);
  }

  async function assignDiagnosis(k: Case): Promise<void> {
    const c = k.correlation;
    const taskId = k.diagnosis_task_id;
    const alarms = [c.wireless_incident, c.ip_incident].flatMap((id) => [...(incidents.get(id)?.incident.alarms ?? [])]);
    try {
      const to = await ctx.discover(AN_SKILLS.linkDiagnosis, 'ip');
      k.diagnosis_agent = to;
      await ctx.gateway.call('task_assign', diagnosisRequestTask(c, alarms, ctx.name, to, { task_id: taskId, alarms_param: safeId('alarms', taskId), correlation_param: safeId('correlation', taskId) }));
    } catch (e) {
      k.status = 'failed';
      k.error = toParleyError(e).message;
      throw e;
    }
  }

  async function decide(k: Case, diagnosis: LinkDiagnosis): Promise<void> {
    k.diagnosis = diagnosis;
    k.status = 'diagnosed';
    const cellsOut = incidents.get(k.correlation.wireless_incident)?.incident.cells_out.length ?? 0;
    const decision = decideRepair(diagnosis, cellsOut);
    k.decision = decision;
    if (decision.action === 'auto_repair') {
      k.status = 'auto_repair';
      return;
    }
    const taskId = safeId('TT', k.correlation.correlation_id, ctx.uid());
    k.ticket_task_id = taskId;
    let r: { task: { status: string; result?: Record<string, unknown> } };
    try {
      const to = await ctx.discover(AN_SKILLS.troubleTicketing);
      r = await ctx.gateway.call('task_assign', { ...troubleTicketTask(k.correlation, diagnosis, decision, ctx.name, to, safeId('request', taskId)), task_id: taskId });
    } catch (e) {
      k.status = 'failed';
      k.error = toParleyError(e).message;
      throw e;
    }
    if (r.task.status === 'finished' && r.task.result) {
      k.ticket = r.task.result;
      k.status = 'ticket_open';
    } else {
      k.status = 'failed';
      k.error = `ticket task ${r.task.status}`;
    }
  }

  return {
    /** Incident reports (sync): the alarms are the structured truth. */
    async handler(task: AssignedTask, tctx) {
      const params = await jsonDataParams(task, tctx);
      let incident: Incident;
      try {
        incident = incidentFromReport(parseAlarms(pick<unknown[]>(params, Array.isArray, 'alarms'), 'data_params.alarms'), ctx.topology);
      } catch (e) {
        if (e instanceof AgentFailure) throw e;
        throw new AgentFailure(toParleyError(e).message, 'bad_incident');
      }
      const r: Received = { incident, report_task_id: task.task_id, reporter: task.send_from, acknowledged: false };
      incidents.set(incident.incident_id, r);
      byReportTask.set(task.task_id, r);
      const pending = correlateIncidents([...incidents.values()].map((x) => x.incident), ctx.topology, windowMs).find(
        (c) => c.wireless_incident === incident.incident_id || c.ip_incident === incident.incident_id,
      );
      return {
        incident_id: incident.incident_id,
        domain: incident.domain,
        site_ids: [...incident.site_ids],
        acknowledged: true,
        correlation: pending ? { correlation_id: pending.correlation_id, incidents: [pending.wireless_incident, pending.ip_incident] } : 'none yet',
      };
    },
    onStatus(n) {
      if (n.send_to === ctx.name) {
        // A report this agent executed: correlate once it is finished.
        const r = byReportTask.get(n.task_id);
        if (!r || n.status !== 'finished') return;
        r.acknowledged = true;
        for (const c of correlate()) ctx.background('diagnosis assignment', startDiagnosis(c));
        return;
      }
      const k = byDiagnosisTask.get(n.task_id);
      if (!k) return;
      if (n.status === 'finished' && n.result) ctx.background('repair decision', () => decide(k, n.result as unknown as LinkDiagnosis));
      else if (n.status === 'failed' || n.status === 'canceled') {
        k.status = 'failed';
        k.error = `diagnosis ${n.status}`;
      }
    },
    state: () => ({
      incidents: [...incidents.values()].map((r) => ({ incident_id: r.incident.incident_id, domain: r.incident.domain, site_ids: r.incident.site_ids, link_id: r.incident.link_id ?? null, report_task_id: r.report_task_id, reporter: r.reporter, acknowledged: r.acknowledged })),
      cases: [...cases.values()],
    }),
  };
};
