import { AgentFailure, type AssignedTask } from '@parley/agent-sdk';
import { AN_SKILLS, diagnoseLink, incidentReportTask, ipIncidents, parseAlarms, safeId, type Correlation, type LinkDiagnosis, type NetworkAlarm } from '@parley/examples';
import { toParleyError, type JsonObject } from '@parley/protocol';
import type { RoleFactory } from './host';
import { isObject, jsonDataParams, pick } from './params';

interface Report {
  incident_id: string;
  link_id: string;
  task_id: string;
  status: string;
  result?: unknown;
}

interface Diagnosis {
  task_id: string;
  from: string;
  link_id: string;
  alarms: NetworkAlarm[];
  status: 'accepted' | 'finished' | 'failed';
  diagnosis?: LinkDiagnosis;
}

/**
 * The IP network fault agent (`TMF-Acme-IPNetwork-v1`). On link alarms
 * (`POST /alarms`) it reports the incident to the cross-domain agent (sync
 * task, use case 2.1 step 3b). It executes diagnosis tasks asynchronously
 * (step 5): it accepts (processing), and once the execution service has
 * recorded that (its own processing notification arrives) it diagnoses the
 * link and reports finished with the diagnosis.
 */
export const ipRole: RoleFactory = (ctx) => {
  const reports = new Map<string, Report>();
  const diagnoses = new Map<string, Diagnosis>();

  return {
    async handler(task: AssignedTask, tctx) {
      if (!task.task_async) throw new AgentFailure('a link diagnosis runs asynchronously: assign it with task_async true', 'async_only');
      const params = await jsonDataParams(task, tctx);
      let alarms: NetworkAlarm[];
      try {
        alarms = parseAlarms(pick<unknown[]>(params, Array.isArray, 'alarms'), 'data_params.alarms');
      } catch (e) {
        if (e instanceof AgentFailure) throw e;
        throw new AgentFailure(toParleyError(e).message, 'bad_alarms');
      }
      const correlation = params.find((p) => isObject(p.value) && typeof p.value.link_id === 'string')?.value as Correlation | undefined;
      const linkId = correlation?.link_id ?? alarms.find((a) => a.link_id !== undefined)?.link_id;
      if (!linkId || !ctx.topology.links[linkId]) throw new AgentFailure(`no link of this agent's inventory to diagnose${linkId ? ` (${linkId})` : ''}`, 'unknown_link');
      diagnoses.set(task.task_id, { task_id: task.task_id, from: task.send_from, link_id: linkId, alarms, status: 'accepted' });
      return tctx.accept('processing');
    },
    onStatus(n) {
      const d = diagnoses.get(n.task_id);
      if (!d || n.send_to !== ctx.name || n.status !== 'processing' || d.status !== 'accepted') return;
      ctx.background('diagnosis', async () => {
        try {
          d.diagnosis = diagnoseLink(d.link_id, d.alarms, ctx.topology, safeId('DG', d.link_id, ctx.uid()));
        } catch (e) {
          d.status = 'failed';
          await ctx.agent.notify(d.task_id, { status: 'failed', result: { error: { message: e instanceof Error ? e.message : String(e) } } });
          return;
        }
        await ctx.agent.notify(d.task_id, { status: 'finished', result: d.diagnosis as unknown as JsonObject });
        d.status = 'finished';
      });
    },
    routes: {
      /** The IP network's alarms: `{alarms: NetworkAlarm[]}`; one incident report per link. */
      async 'POST /alarms'(body) {
        const alarms = parseAlarms((body as { alarms?: unknown } | null)?.alarms, 'body.alarms');
        const out: Report[] = [];
        for (const i of ipIncidents(alarms, ctx.topology)) {
          if (reports.has(i.incident_id)) continue;
          const to = await ctx.discover(AN_SKILLS.incidentCorrelation);
          const params = incidentReportTask(i, ctx.topology, ctx.name, to, safeId('alarms', i.incident_id, ctx.uid()));
          const r = await ctx.gateway.call<{ task: { task_id: string; status: string; result?: unknown } }>('task_assign', { ...params, task_id: safeId('RPT', i.incident_id, ctx.uid()) });
          const rep: Report = { incident_id: i.incident_id, link_id: i.link_id as string, task_id: r.task.task_id, status: r.task.status, ...(r.task.result ? { result: r.task.result } : {}) };
          reports.set(i.incident_id, rep);
          out.push(rep);
        }
        return { reports: out };
      },
    },
    state: () => ({ reports: [...reports.values()], diagnoses: [...diagnoses.values()].map(({ alarms: _a, ...d }) => d) }),
  };
};
