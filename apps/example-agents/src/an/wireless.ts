import { AgentFailure } from '@parley/agent-sdk';
import {
  AN_SKILLS,
  clearedSites,
  compensationRequest,
  compensationTask,
  evaluateCompensationReport,
  incidentReportTask,
  parseAlarms,
  safeId,
  wirelessIncidents,
  type CompensationRequest,
  type Incident,
} from '@parley/examples';
import { ParleyError } from '@parley/protocol';
import type { RoleFactory } from './host';

interface Report {
  incident_id: string;
  site_id: string;
  task_id: string;
  status: string;
  result?: unknown;
}

interface Compensation {
  site_id: string;
  task_id: string;
  request: CompensationRequest;
  /** Status changes of the compensation task, as notified. */
  statuses: string[];
  report?: string[];
  verdict?: string;
  canceled?: boolean;
}

/**
 * The wireless network fault agent (`TMF-Acme-Wireless-v1`). On the alarms of
 * a base-station outage (`POST /alarms`) it reports the incident to the
 * cross-domain agent (sync task, use case 2.1 step 3a) and asks the
 * optimization agent to compensate the site's coverage (async task, use case
 * 2.2); it evaluates the optimization agent's compensation report
 * (FULFILLMENT); when the site's alarms clear (the repair) it cancels the
 * compensation.
 */
export const wirelessRole: RoleFactory = (ctx) => {
  const reports = new Map<string, Report>();
  const compensations = new Map<string, Compensation>();
  const byTask = new Map<string, Compensation>();

  async function report(i: Incident): Promise<Report> {
    const to = await ctx.discover(AN_SKILLS.incidentCorrelation);
    const taskId = safeId('RPT', i.incident_id, ctx.uid());
    const params = incidentReportTask(i, ctx.topology, ctx.name, to, safeId('alarms', i.incident_id, ctx.uid()));
    const r = await ctx.gateway.call<{ task: { task_id: string; status: string; result?: unknown } }>('task_assign', { ...params, task_id: taskId });
    const rep: Report = { incident_id: i.incident_id, site_id: i.site_ids[0] as string, task_id: r.task.task_id, status: r.task.status, ...(r.task.result ? { result: r.task.result } : {}) };
    reports.set(i.incident_id, rep);
    return rep;
  }

  async function compensate(i: Incident): Promise<Compensation | undefined> {
    const siteId = i.site_ids[0] as string;
    const existing = compensations.get(siteId);
    if (existing && !existing.canceled) return undefined;
    const to = await ctx.discover(AN_SKILLS.coverageCompensation);
    const request = compensationRequest(i, ctx.topology);
    const taskId = safeId('CMP', siteId, ctx.uid());
    const c: Compensation = { site_id: siteId, task_id: taskId, request, statuses: [] };
    // Known before the assignment: its notifications may arrive before the answer.
    compensations.set(siteId, c);
    byTask.set(taskId, c);
    try {
      await ctx.gateway.call('task_assign', { ...compensationTask(request, ctx.name, to, safeId('compensation', siteId, ctx.uid())), task_id: taskId });
    } catch (e) {
      compensations.delete(siteId);
      throw e;
    }
    return c;
  }

  return {
    handler() {
      throw new AgentFailure('the wireless fault agent executes no tasks; it reports incidents and asks for compensation', 'not_supported');
    },
    negotiate(p) {
      const c = byTask.get(p.task_id);
      if (p.type !== 'FULFILLMENT' || !c) return { verdict: 'reject', reply: ['this agent evaluates only the compensation reports of its own compensation tasks'] };
      const v = evaluateCompensationReport(p.proposal, c.request);
      c.report = [...p.proposal];
      c.verdict = v.verdict;
      return v;
    },
    onStatus(n) {
      const c = byTask.get(n.task_id);
      if (c) c.statuses.push(n.status);
    },
    routes: {
      /** The RAN's alarms: `{alarms: NetworkAlarm[]}`. New outages are reported and compensated; cleared sites end their compensation. */
      async 'POST /alarms'(body) {
        const alarms = parseAlarms((body as { alarms?: unknown } | null)?.alarms, 'body.alarms');
        const out: { reports: Report[]; compensations: Array<{ site_id: string; task_id: string }>; canceled: Array<{ site_id: string; task_id: string; status: string }> } = {
          reports: [],
          compensations: [],
          canceled: [],
        };
        for (const i of wirelessIncidents(alarms, ctx.topology)) {
          if (reports.has(i.incident_id)) continue;
          out.reports.push(await report(i));
          const c = await compensate(i);
          if (c) out.compensations.push({ site_id: c.site_id, task_id: c.task_id });
        }
        for (const siteId of clearedSites(alarms, 'wireless')) {
          const c = compensations.get(siteId);
          if (!c || c.canceled) continue;
          const r = await ctx.gateway.call<{ task: { status: string } }>('task_cancel', {
            task_id: c.task_id,
            send_from: ctx.name,
            reason: `Site ${siteId} repaired (its alarms cleared): undo the coverage compensation.`,
          });
          c.canceled = true;
          out.canceled.push({ site_id: siteId, task_id: c.task_id, status: r.task.status });
        }
        if (out.reports.length === 0 && out.canceled.length === 0 && alarms.length > 0 && alarms.every((a) => a.source !== 'wireless')) {
          throw new ParleyError('invalid_params', 'body.alarms holds no wireless alarm', { path: 'body.alarms', rule: 'wireless_only' });
        }
        return out;
      },
    },
    state: () => ({ reports: [...reports.values()], compensations: [...compensations.values()] }),
  };
};
