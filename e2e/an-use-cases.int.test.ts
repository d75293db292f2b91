import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata } from '@grpc/grpc-js';
import pg from 'pg';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { createSubjects } from '@parley/events';
import { TaskServiceService, createGrpcClient } from '@parley/contracts';
import {
  AN_ROLES,
  EXAMPLE_TOPOLOGY,
  anAgentName,
  anProfile,
  compensationPlan,
  compensationRequest,
  correlateIncidents,
  decideRepair,
  diagnoseLink,
  evaluateEnergySavingTarget,
  evaluateFeasibility,
  firstTargetProposal,
  incidentReportTask,
  initialEnergyState,
  ipIncidents,
  openTicket,
  proposalAfterCounter,
  wirelessIncidents,
  type AnRole,
  type NetworkAlarm,
} from '@parley/examples';
import { parsePromptContent, parseTaskAssign } from '@parley/an';
import { createTestDatabase, expectRpcError, freePort, integrationInfra, rpc, startProcess, testIdentity, uniquePrefix, useKey, waitFor, waitReady, type ServiceProcess } from '@parley/testkit';

/**
 * The autonomous-networks draft's use cases end to end (004 §2.1, §2.2, §5):
 * registry, negotiation, execution and gateway, and the six example AN agents
 * (apps/example-agents/src/an/main.ts), each a separate Node process on the
 * real NATS JetStream and PostgreSQL. The agents register their profiles,
 * discover each other by skill, assign, negotiate, notify and cancel tasks;
 * the test plays the network (it posts alarms to the domain agents) and checks
 * every step through task_context, task_result_query, the TaskResultSubscribe
 * stream and the agents' own state.
 */
const infra = integrationInfra('e2e: AN use cases');

const SITE = '1021';
const LINK = 'AGG-03<->CSG-1021';
const NAMES = Object.fromEntries(AN_ROLES.map((r) => [r, anAgentName(r)])) as Record<AnRole, string>;

function alarmsAt(t0: number): { wireless: NetworkAlarm[]; ip: NetworkAlarm[] } {
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  return {
    wireless: [{ alarm_id: 'RAN-0001', source: 'wireless', type: 'base_station_out_of_service', severity: 'critical', site_id: SITE, ne_id: `gNB-${SITE}`, raised_at: at(0) }],
    ip: [
      { alarm_id: 'IP-0001', source: 'ip', type: 'loss_of_signal', severity: 'critical', site_id: SITE, ne_id: 'AGG-03', link_id: LINK, raised_at: at(12) },
      { alarm_id: 'IP-0002', source: 'ip', type: 'link_down', severity: 'major', site_id: SITE, ne_id: 'AGG-03', link_id: LINK, raised_at: at(13) },
    ],
  };
}

// ---------------------------------------------------------------------------
// The agents' decision logic (pure, libs/examples/src/an): no services needed.
// ---------------------------------------------------------------------------

describe('AN example agents: decision logic', () => {
  const t0 = Date.parse('2026-05-04T01:12:00Z');
  const { wireless, ip } = alarmsAt(t0);

  it('names every profile in the recommended form with its version, and the profiles pass parseAgentProfile', () => {
    expect(Object.values(NAMES)).toEqual([
      'TMF-Acme-Wireless-v1',
      'TMF-Acme-IPNetwork-v1',
      'TMF-Acme-CrossDomain-v1',
      'TMF-Acme-TroubleTicket-v1',
      'TMF-Acme-Optimization-v1',
      'TMF-Acme-EnergySaving-v1',
    ]);
    expect(anProfile('ip', { version: '2.3.0', provider: 'Globex' }).name).toBe('TMF-Globex-IPNetwork-v2');
    expect(anProfile('energy-saving').capability.negotiate).toEqual(['FEASIBILITY', 'FULFILLMENT']);
  });

  it('builds Figure 7 incident reports that libs/an accepts, alarms as a structured data param', () => {
    const [incident] = wirelessIncidents(wireless, EXAMPLE_TOPOLOGY);
    expect(incident?.cells_out).toEqual(['1021-1', '1021-2', '1021-3']);
    const params = parseTaskAssign(incidentReportTask(incident!, EXAMPLE_TOPOLOGY, NAMES.wireless, NAMES['cross-domain'], 'alarms-x'));
    expect(params.prompt?.target_object).toContain('gNB-1021');
    expect(params.data_params[0]?.format).toBe('application/json');
    expect(JSON.parse(params.data_params[0]!.data!)).toEqual(wireless);
  });

  it('correlates by site, backhaul link and time window, and not outside the window or on another link', () => {
    const incidents = [...wirelessIncidents(wireless, EXAMPLE_TOPOLOGY), ...ipIncidents(ip, EXAMPLE_TOPOLOGY)];
    const [c] = correlateIncidents(incidents, EXAMPLE_TOPOLOGY);
    expect(c).toMatchObject({ site_id: SITE, link_id: LINK, gap_ms: 12_000, cross_domain: true });
    const late = ipIncidents(alarmsAt(t0 + 3_600_000).ip, EXAMPLE_TOPOLOGY);
    expect(correlateIncidents([...wirelessIncidents(wireless, EXAMPLE_TOPOLOGY), ...late], EXAMPLE_TOPOLOGY)).toEqual([]);
    const other = ip.map((a) => ({ ...a, link_id: 'AGG-05<->CSG-1035', site_id: '1035' }));
    expect(correlateIncidents([...wirelessIncidents(wireless, EXAMPLE_TOPOLOGY), ...ipIncidents(other, EXAMPLE_TOPOLOGY)], EXAMPLE_TOPOLOGY)).toEqual([]);
  });

  it('diagnoses a fibre cut that cannot be repaired automatically, and decides on a trouble ticket', () => {
    const d = diagnoseLink(LINK, ip, EXAMPLE_TOPOLOGY, 'DG-1');
    expect(d).toMatchObject({ root_cause: 'fibre_cut', auto_repair_possible: false, link_id: LINK });
    expect(decideRepair(d, 3)).toMatchObject({ action: 'trouble_ticket', priority: 'P1' });
    const portOnly = diagnoseLink(LINK, [ip[1]!], EXAMPLE_TOPOLOGY, 'DG-2');
    expect(portOnly).toMatchObject({ root_cause: 'interface_fault', auto_repair_possible: true });
    expect(decideRepair(portOnly, 3).action).toBe('auto_repair');
  });

  it('negotiates the energy-saving target: feasible, 15% countered with 0%, 0% accepted', () => {
    const plan = compensationPlan(compensationRequest(wirelessIncidents(wireless, EXAMPLE_TOPOLOGY)[0]!, EXAMPLE_TOPOLOGY), 'PLAN-1');
    const state = initialEnergyState(EXAMPLE_TOPOLOGY);
    expect(evaluateFeasibility(['action: lower_energy_saving_target', `cells: ${plan.cells.join(', ')}`], state, 'ES-1').verdict).toBe('accept');
    expect(evaluateFeasibility(['action: lower_energy_saving_target', 'cells: 9999-1'], state, 'ES-1').verdict).toBe('reject');
    const first = firstTargetProposal(plan.cells, state);
    const counter = evaluateEnergySavingTarget(first, plan);
    expect(counter.verdict).toBe('counter');
    const second = proposalAfterCounter(counter.reply, first);
    expect(evaluateEnergySavingTarget(second, plan).verdict).toBe('accept');
    expect(openTicket({ correlation: correlateIncidents([...wirelessIncidents(wireless, EXAMPLE_TOPOLOGY), ...ipIncidents(ip, EXAMPLE_TOPOLOGY)], EXAMPLE_TOPOLOGY)[0]!, diagnosis: diagnoseLink(LINK, ip, EXAMPLE_TOPOLOGY, 'DG-1'), priority: 'P1' }, 7, new Date(t0)).ticket_id).toBe('TT-20260504-0007');
  });
});

// ---------------------------------------------------------------------------
// End to end
// ---------------------------------------------------------------------------

interface Msg {
  seq: number;
  send_from: string;
  send_to: string;
  commu_type: string;
  request?: { content?: string; data_params?: string[] };
  response?: { content?: string };
  time: string;
}

describe.skipIf(!infra)('AN use cases 2.1 and 2.2: services and six agents as separate processes on NATS + PostgreSQL', () => {
  const procs: ServiceProcess[] = [];
  const agentPorts = {} as Record<AnRole, number>;
  let gatewayUrl = '';
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Client;
  let tasks: ReturnType<typeof createGrpcClient<typeof TaskServiceService>>;
  let probe: Agent;
  const prefix = uniquePrefix();
  const PROBE = 'TMF-Test-Probe-v1';
  const CLIENT = 'TMF-Test-Client-v1';
  // draft-zhou §7: one identity for every process of this file (the agents get the operator key as PARLEY_API_KEY);
  // the test calls the gateway and TaskService as the bootstrapped operator, who may act for any agent.
  const identity = testIdentity();

  beforeAll(async () => {
    db = await createTestDatabase(infra!.databaseUrl);
    const [regGrpc, negGrpc, exeGrpc, regHealth, negHealth, exeHealth, gwPort] = await Promise.all(Array.from({ length: 7 }, freePort));
    for (const r of AN_ROLES) agentPorts[r] = await freePort();
    const common = { ...identity.env, DATABASE_URL: db.url, NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix };
    const start = async (name: string, entry: string, env: Record<string, string>, readyUrl: string) => {
      const p = startProcess(name, entry, { ...common, ...env });
      procs.push(p);
      await waitReady(readyUrl, p);
    };
    await start('registry', 'apps/registry/src/main.ts', { GRPC_PORT: `${regGrpc}`, HEALTH_PORT: `${regHealth}` }, `http://127.0.0.1:${regHealth}/readyz`);
    await start('negotiation', 'apps/negotiation/src/main.ts', { GRPC_PORT: `${negGrpc}`, HEALTH_PORT: `${negHealth}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}` }, `http://127.0.0.1:${negHealth}/readyz`);
    await start(
      'execution',
      'apps/execution/src/main.ts',
      {
        GRPC_PORT: `${exeGrpc}`,
        HEALTH_PORT: `${exeHealth}`,
        NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`,
        REGISTRY_ADDR: `127.0.0.1:${regGrpc}`,
        EXECUTE_TIMEOUT_MS: '3000',
        WEBHOOK_BACKOFF_MS: '100',
        WEBHOOK_MAX_BACKOFF_MS: '400',
        PARLEY_WEBHOOK_ALLOW: 'http://127.0.0.1:*',
      },
      `http://127.0.0.1:${exeHealth}/readyz`,
    );
    gatewayUrl = `http://127.0.0.1:${gwPort}`;
    useKey(gatewayUrl, identity.operatorKey);
    await start(
      'gateway',
      'apps/gateway/src/main.ts',
      { PORT: `${gwPort}`, REGISTRY_ADDR: `127.0.0.1:${regGrpc}`, NEGOTIATION_ADDR: `127.0.0.1:${negGrpc}`, EXECUTION_ADDR: `127.0.0.1:${exeGrpc}`, EXECUTE_TIMEOUT_MS: '3000' },
      `${gatewayUrl}/readyz`,
    );
    // The six agents; each registers its profile through the gateway (its /readyz waits for that).
    await Promise.all(
      AN_ROLES.map((role) =>
        start(`an-${role}`, 'apps/example-agents/src/an/main.ts', { AN_AGENT: role, GATEWAY_URL: gatewayUrl, HEALTH_PORT: `${agentPorts[role]}` }, `http://127.0.0.1:${agentPorts[role]}/readyz`),
      ),
    );
    tasks = createGrpcClient(TaskServiceService, `127.0.0.1:${exeGrpc}`, { credential: identity.operatorKey });
    // A test-side executing agent for the subscription and bad-input cases.
    probe = await createAgent({ name: PROBE, natsUrl: infra!.natsUrl, prefix });
    await probe.serveTasks((task, ctx) => (task.task_async ? ctx.accept('processing') : { echoed: task.task_id }));
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  }, 180_000);

  afterAll(async () => {
    await probe?.close();
    tasks?.close();
    for (const p of procs.reverse()) {
      const code = await p.stop();
      expect(code, `${p.name} exit code\n${p.output()}`).toBe(0);
    }
    await sql?.end();
    if (infra) {
      const { jetstreamManager } = await import('@nats-io/jetstream');
      const { connect } = await import('@nats-io/transport-node');
      const nc = await connect({ servers: infra.natsUrl });
      await (await jetstreamManager(nc)).streams.delete(createSubjects(prefix).stream).catch(() => {});
      await nc.close();
    }
    await db?.drop();
  }, 60_000);

  // ---- helpers --------------------------------------------------------------

  const ok = async (method: string, params: unknown) => {
    const r = await rpc(gatewayUrl, method, params);
    expect(r.body.error, `${method}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
    return r.body.result;
  };
  const context = async (taskId: string): Promise<Msg[]> => (await ok('task_context', { task_id: taskId })).messages;
  const steps = (msgs: Msg[]) => msgs.map((m) => `${m.commu_type} ${m.send_from} -> ${m.send_to}`);
  /** Every notification of a task, replayed by TaskResultSubscribe from seq 0 (the stream ends once the task is terminal and all were sent). */
  const history = async (taskId: string) => {
    const out: Array<{ seq: number; status: string; previous_status?: string; result?: Record<string, unknown> }> = [];
    for await (const n of tasks.api.taskResultSubscribe({ task_id: taskId, send_from: CLIENT, after_seq: 0 })) out.push(n as never);
    return out;
  };
  const state = async (role: AnRole) => (await fetch(`http://127.0.0.1:${agentPorts[role]}/state`)).json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const post = async (role: AnRole, path: string, body: unknown) => {
    const r = await fetch(`http://127.0.0.1:${agentPorts[role]}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await r.json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(r.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  const at = (iso: string) => Date.parse(iso);
  const counts = async () => {
    const r = await sql.query(
      `SELECT (SELECT count(*) FROM execution.tasks)::int AS tasks, (SELECT count(*) FROM execution.task_notifications)::int AS notifications,
              (SELECT count(*) FROM execution.task_messages)::int AS messages, (SELECT count(*) FROM execution.data_params)::int AS params,
              (SELECT count(*) FROM execution.data_chunks)::int AS chunks, (SELECT count(*) FROM execution.subscriptions)::int AS subscriptions,
              (SELECT count(*) FROM execution.negotiation_rounds)::int AS rounds`,
    );
    return r.rows[0] as Record<string, number>;
  };

  const t0 = Date.now() - 60_000;
  const alarms = alarmsAt(t0);
  let compensationTaskId = '';

  // ---- profiles ----------------------------------------------------------------

  it('registers the six profiles through register_profile; agents find each other by skill and domain (§4.1, §5.1)', async () => {
    for (const role of AN_ROLES) {
      const p = (await ok('get_profile', { name: NAMES[role] })).profile;
      expect(p).toMatchObject({ name: NAMES[role], version: '1.0.0', provider: 'Acme' });
      expect(p.registered_at).not.toBe('');
    }
    const diag = (await ok('discover_profiles', { skill: 'ip-link-diagnosis', domain: 'ip' })).profiles.map((p: { name: string }) => p.name);
    expect(diag).toEqual([NAMES.ip]);
    const negotiators = (await ok('discover_profiles', { negotiate: 'FEASIBILITY' })).profiles.map((p: { name: string }) => p.name);
    expect(negotiators.sort()).toEqual([NAMES['energy-saving'], NAMES.optimization].sort());
    // CapabilityRequest answers from the registry (5.1 before assigning).
    const cap = await ok('capability_request', { send_from: NAMES['cross-domain'], send_to: NAMES.ip, skills: ['ip-link-diagnosis'] });
    expect(cap.source).toBe('registry');
    expect(cap.profile.skills.map((s: { name: string }) => s.name)).toEqual(['ip-link-diagnosis']);
  });

  // ---- use case 2.1 -----------------------------------------------------------

  it('use case 2.1: incidents 3a/3b -> correlation -> async diagnosis with notifications -> trouble ticket, in order, every step in the task contexts', async () => {
    // 3a: the RAN loses site 1021; the wireless fault agent reports to the cross-domain agent (and asks for compensation, 2.2).
    const w = await post('wireless', '/alarms', { alarms: alarms.wireless });
    expect(w.reports).toHaveLength(1);
    const wReport = w.reports[0];
    expect(wReport.status).toBe('finished');
    expect(wReport.result).toMatchObject({ domain: 'wireless', acknowledged: true, correlation: 'none yet' });
    compensationTaskId = w.compensations[0].task_id;
    // 3b: the IP network loses the site's backhaul link.
    const ipr = await post('ip', '/alarms', { alarms: alarms.ip });
    const ipReport = ipr.reports[0];
    expect(ipReport.status).toBe('finished');
    expect(ipReport.result.correlation.incidents).toEqual([wReport.incident_id, ipReport.incident_id]);

    // 4-6: correlation, diagnosis, decision, ticket.
    const done = await waitFor('the cross-domain agent to open a ticket', async () => {
      const s = await state('cross-domain');
      return s.cases[0]?.status === 'ticket_open' || s.cases[0]?.status === 'failed' ? s : undefined;
    });
    const k = done.cases[0];
    expect(k.status, JSON.stringify(k)).toBe('ticket_open');
    expect(k.correlation).toMatchObject({ site_id: SITE, link_id: LINK, wireless_incident: wReport.incident_id, ip_incident: ipReport.incident_id, cross_domain: true });
    expect(k.diagnosis_agent).toBe(NAMES.ip);
    expect(k.decision).toMatchObject({ action: 'trouble_ticket', priority: 'P1' });

    // The incident reports: sync taskAssign with Figure 7 prompt sections and the alarms as a structured data param.
    for (const [rep, from] of [
      [wReport, NAMES.wireless],
      [ipReport, NAMES.ip],
    ] as const) {
      const msgs = await context(rep.task_id);
      expect(steps(msgs)).toEqual([`taskAssign ${from} -> ${NAMES['cross-domain']}`, `taskResultNotify ${NAMES['cross-domain']} -> ${from}`]);
      const prompt = parsePromptContent(msgs[0]!.request!.content!);
      expect(prompt.task_description).toContain('Incident report');
      expect(msgs[0]!.request!.data_params).toHaveLength(1);
      expect(msgs[1]!.response!.content).toMatch(/^finished: /);
      expect((await history(rep.task_id)).map((n) => n.status)).toEqual(['created', 'processing', 'finished']);
    }

    // Step 5: the async diagnosis, with a NATS subscription, and its notifications processing -> finished.
    const diag = k.diagnosis_task_id as string;
    const dMsgs = await context(diag);
    expect(steps(dMsgs)).toEqual([
      `taskAssign ${NAMES['cross-domain']} -> ${NAMES.ip}`,
      `taskResultNotify ${NAMES.ip} -> ${NAMES['cross-domain']}`,
      `taskResultNotify ${NAMES.ip} -> ${NAMES['cross-domain']}`,
    ]);
    expect(parsePromptContent(dMsgs[0]!.request!.content!).target_object).toContain(LINK);
    expect(dMsgs[0]!.request!.data_params).toHaveLength(2);
    expect(dMsgs[1]!.response!.content).toBe('accepted (processing)');
    expect(dMsgs[2]!.response!.content).toMatch(/^finished: .*fibre_cut/);
    const dHist = await history(diag);
    expect(dHist.map((n) => [n.seq, n.status])).toEqual([
      [1, 'created'],
      [2, 'processing'],
      [3, 'finished'],
    ]);
    expect(dHist[2]!.result).toMatchObject({ root_cause: 'fibre_cut', link_id: LINK, auto_repair_possible: false });
    const dq = await ok('task_result_query', { task_id: diag, send_from: NAMES['cross-domain'] });
    expect(dq.task).toMatchObject({ send_from: NAMES['cross-domain'], send_to: NAMES.ip, task_async: true, status: 'finished', subscription: { protocol: 'nats' } });
    expect(dq.latest).toMatchObject({ seq: 3, status: 'finished', previous_status: 'processing' });

    // The cross-domain agent received the diagnosis notifications on its NATS subject in order, each once.
    const got = done.received.filter((r: { task_id: string }) => r.task_id === diag).map((r: { seq: number; status: string }) => [r.seq, r.status]);
    expect(got).toEqual([
      [1, 'created'],
      [2, 'processing'],
      [3, 'finished'],
    ]);

    // Step 6: the trouble ticket (sync) with the ticket agent.
    const tt = k.ticket_task_id as string;
    expect(steps(await context(tt))).toEqual([`taskAssign ${NAMES['cross-domain']} -> ${NAMES['trouble-ticket']}`, `taskResultNotify ${NAMES['trouble-ticket']} -> ${NAMES['cross-domain']}`]);
    const tq = await ok('task_result_query', { task_id: tt, send_from: NAMES['cross-domain'] });
    expect(tq.task.status).toBe('finished');
    expect(tq.task.result.ticket_id).toMatch(/^TT-\d{8}-\d{4}$/);
    expect(tq.task.result).toMatchObject({ status: 'open', priority: 'P1', location: expect.stringContaining('AGG-03') });
    expect(k.ticket.ticket_id).toBe(tq.task.result.ticket_id);
    expect((await state('trouble-ticket')).tickets.map((t: { ticket_id: string }) => t.ticket_id)).toEqual([tq.task.result.ticket_id]);

    // In order: both reports finished before the diagnosis was assigned; the diagnosis finished before the ticket.
    const q = async (id: string) => (await ok('task_result_query', { task_id: id, send_from: CLIENT })).task;
    const [wt, it2, dt, ttt] = await Promise.all([q(wReport.task_id), q(ipReport.task_id), q(diag), q(tt)]);
    expect(at(wt.updated_at)).toBeLessThanOrEqual(at(it2.created_at));
    expect(at(it2.updated_at)).toBeLessThanOrEqual(at(dt.created_at));
    expect(at(dt.updated_at)).toBeLessThanOrEqual(at(ttt.created_at));
  });

  // ---- use case 2.2 -----------------------------------------------------------

  it('use case 2.2: compensation -> FEASIBILITY -> energy-saving task -> FULFILLMENT proposal, counter, accept -> compensation applied and accepted', async () => {
    expect(compensationTaskId).not.toBe('');
    const opt = await waitFor('the compensation to be active and accepted', async () => {
      const s = await state('optimization');
      const c = s.compensations.find((x: { task_id: string }) => x.task_id === compensationTaskId);
      return c?.status === 'failed' || (c?.status === 'active' && c.report_outcome) ? s : undefined;
    });
    const c = opt.compensations.find((x: { task_id: string }) => x.task_id === compensationTaskId);
    expect(c, JSON.stringify(c)).toMatchObject({ status: 'active', feasibility: 'agreed', report_outcome: 'agreed', energy_target_percent: 0, energy_agent: NAMES['energy-saving'] });
    const neighbours = EXAMPLE_TOPOLOGY.sites[SITE]!.neighbour_cells;
    // Two neighbours cover three cells out of service: +6 dB each (the plan's rule: +3 dB per cell per neighbour, capped at 6).
    expect(c.plan.power_offset_db).toBe(6);
    expect(opt.power_offsets_db).toEqual(Object.fromEntries(neighbours.map((n) => [n, 6])));
    const es = await state('energy-saving');
    for (const cell of neighbours) expect(es.targets[cell]).toMatchObject({ target_percent: 0, held_by: c.energy_task_id });

    // The energy-saving task: feasibility before assignment, then the agreed target (5.3 1) and 2)).
    const eMsgs = await context(c.energy_task_id);
    const O = NAMES.optimization;
    const E = NAMES['energy-saving'];
    expect(steps(eMsgs)).toEqual([
      `FeasibilityNegotiate ${O} -> ${E}`,
      `FeasibilityNegotiate ${E} -> ${O}`,
      `taskAssign ${O} -> ${E}`,
      `taskResultNotify ${E} -> ${O}`,
      `FulfillmentNegotiate ${E} -> ${O}`,
      `FulfillmentNegotiate ${O} -> ${E}`,
      `FulfillmentNegotiate ${E} -> ${O}`,
      `FulfillmentNegotiate ${O} -> ${E}`,
      `taskResultNotify ${E} -> ${O}`,
    ]);
    expect(eMsgs[0]!.request!.content).toContain('Can you lower the energy-saving target of cells');
    expect(eMsgs[1]!.response!.content).toMatch(/^accept: feasible/);
    expect(eMsgs[4]!.request!.content).toContain('target_percent: 15');
    expect(eMsgs[5]!.response!.content).toMatch(/^counter: .*target_percent: 0/s);
    expect(eMsgs[6]!.request!.content).toContain('target_percent: 0');
    expect(eMsgs[7]!.response!.content).toMatch(/^accept/);
    expect(eMsgs[8]!.response!.content).toMatch(/^finished: .*"target_percent":0/);
    expect((await history(c.energy_task_id)).map((n) => n.status)).toEqual(['created', 'processing', 'finished']);

    // The compensation task: accepted, then the applied compensation proposed to the fault agent and accepted.
    const W = NAMES.wireless;
    expect(steps(await context(compensationTaskId))).toEqual([`taskAssign ${W} -> ${O}`, `taskResultNotify ${O} -> ${W}`, `FulfillmentNegotiate ${O} -> ${W}`, `FulfillmentNegotiate ${W} -> ${O}`]);
    const wState = await state('wireless');
    expect(wState.compensations[0]).toMatchObject({ task_id: compensationTaskId, verdict: 'accept', statuses: ['created', 'processing'] });
    // In order: the energy-saving task finished before the compensation was reported.
    const cMsgs = await context(compensationTaskId);
    expect(at(eMsgs[8]!.time)).toBeLessThanOrEqual(at(cMsgs[2]!.time));
    expect(at(cMsgs[1]!.time)).toBeLessThanOrEqual(at(eMsgs[0]!.time));
  });

  it('use case 2.2, after the repair: the fault agent cancels the compensation, the optimization agent undoes it and energy saving resumes', async () => {
    const cleared = alarms.wireless.map((a) => ({ ...a, cleared: true }));
    const w = await post('wireless', '/alarms', { alarms: cleared });
    expect(w.canceled).toEqual([{ site_id: SITE, task_id: compensationTaskId, status: 'canceled' }]);
    const opt = await waitFor('the compensation to be undone and energy saving resumed', async () => {
      const s = await state('optimization');
      const c = s.compensations.find((x: { task_id: string }) => x.task_id === compensationTaskId);
      return c?.status === 'undone' && c.resume ? s : undefined;
    });
    const c = opt.compensations.find((x: { task_id: string }) => x.task_id === compensationTaskId);
    expect(opt.power_offsets_db).toEqual({});
    expect(c.resume).toMatchObject({ energy_saving: 'resumed', target_percent: 30 });
    const es = await state('energy-saving');
    const neighbours = EXAMPLE_TOPOLOGY.sites[SITE]!.neighbour_cells;
    for (const cell of neighbours) expect(es.targets[cell]).toEqual({ target_percent: 30, default_target_percent: 30 });
    expect(es.resumed).toHaveLength(1);

    const W = NAMES.wireless;
    const O = NAMES.optimization;
    const E = NAMES['energy-saving'];
    const cMsgs = await context(compensationTaskId);
    expect(steps(cMsgs).at(-1)).toBe(`taskCancel ${W} -> ${O}`);
    expect(cMsgs.at(-1)!.request!.content).toContain('undo the coverage compensation');
    expect((await history(compensationTaskId)).map((n) => n.status)).toEqual(['created', 'processing', 'canceled']);
    const resumeTask = es.resumed[0].task_id as string;
    const rMsgs = await context(resumeTask);
    expect(steps(rMsgs)).toEqual([`taskAssign ${O} -> ${E}`, `taskResultNotify ${E} -> ${O}`]);
    expect(rMsgs[0]!.request!.content).toContain('Resume normal energy saving');
    expect(rMsgs[1]!.response!.content).toMatch(/^finished: .*"energy_saving":"resumed"/);
    // In order: canceled, then resumed.
    expect(at(cMsgs.at(-1)!.time)).toBeLessThanOrEqual(at(rMsgs[0]!.time));
    // The wireless agent saw the cancellation on its subject.
    await waitFor('the wireless agent to see the cancellation', async () => ((await state('wireless')).compensations[0].statuses.at(-1) === 'canceled' ? true : undefined));
  });

  // ---- subscribers that restart ----------------------------------------------------

  it('a webhook subscriber stopped mid-task receives, once restarted, every notification it missed, once per state change, in order', async () => {
    const port = await freePort();
    const received: Array<{ seq: number; status: string; key: string | undefined }> = [];
    let server: Server | undefined;
    const listen = async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString('utf8')));
        req.on('end', () => {
          const n = JSON.parse(body) as { seq: number; status: string };
          received.push({ seq: n.seq, status: n.status, key: req.headers['idempotency-key'] as string | undefined });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => server!.listen(port, '127.0.0.1', () => r()));
    };
    const close = async () => {
      server!.closeAllConnections();
      await new Promise<void>((r) => server!.close(() => r()));
    };
    await listen();
    const a = await ok('task_assign', {
      send_from: CLIENT,
      send_to: PROBE,
      task_async: true,
      content: 'keep working and report each change',
      subscription: { protocol: 'webhook', url: `http://127.0.0.1:${port}/hook` },
    });
    const id = a.task.task_id as string;
    expect(a.subscription_id).toEqual(expect.any(String));
    const seqs = () => received.map((r) => r.seq);
    await waitFor('created and processing', async () => (seqs().includes(2) ? true : undefined));
    await probe.notify(id, { status: 'blocked' });
    await probe.notify(id, { status: 'processing' });
    await waitFor('seq 4', async () => (seqs().includes(4) ? true : undefined));

    await close();
    await probe.notify(id, { status: 'input-required', required: 'the maintenance window' });
    await probe.notify(id, { status: 'processing' });
    await probe.notify(id, { status: 'finished', result: { done: true } });
    await new Promise((r) => setTimeout(r, 800)); // deliveries fail and back off meanwhile
    expect(Math.max(...seqs())).toBe(4);
    await listen();
    await waitFor('seq 7 after the restart', async () => (seqs().includes(7) ? true : undefined));
    await new Promise((r) => setTimeout(r, 500)); // room for a duplicate to show up
    await close();
    expect(received.map((r) => [r.seq, r.status])).toEqual([
      [1, 'created'],
      [2, 'processing'],
      [3, 'blocked'],
      [4, 'processing'],
      [5, 'input-required'],
      [6, 'processing'],
      [7, 'finished'],
    ]);
    expect(received.map((r) => r.key)).toEqual(received.map((r) => `${id}:${r.seq}`));
  });

  it('a gRPC TaskResultSubscribe stream cancelled mid-task and resumed with after_seq gets exactly the notifications it missed', async () => {
    const a = await ok('task_assign', { send_from: CLIENT, send_to: PROBE, task_async: true, content: 'stream me' });
    const id = a.task.task_id as string;
    const first: number[] = [];
    const abort = new AbortController();
    for await (const n of tasks.api.taskResultSubscribe({ task_id: id, send_from: CLIENT, after_seq: 0 }, { metadata: new Metadata(), signal: abort.signal })) {
      first.push(n.seq);
      if (n.status === 'processing') break; // the subscriber goes away
    }
    expect(first).toEqual([1, 2]);
    await probe.notify(id, { status: 'blocked' });
    await probe.notify(id, { status: 'processing' });
    await probe.notify(id, { status: 'finished', result: { ok: true } });
    const resumed: Array<[number, string]> = [];
    for await (const n of tasks.api.taskResultSubscribe({ task_id: id, send_from: CLIENT, after_seq: 2 })) resumed.push([n.seq, n.status]);
    expect(resumed).toEqual([
      [3, 'blocked'],
      [4, 'processing'],
      [5, 'finished'],
    ]);
  });

  // ---- bad input through the gateway --------------------------------------------

  describe('bad input through JSON-RPC: typed errors naming path and rule; nothing changed', () => {
    const valid = () => ({
      send_from: CLIENT,
      send_to: PROBE,
      task_async: false,
      content: '## target object\nsite 1021\n## task description\ncheck it\n## environmental information\nnone',
    });
    const cases: Array<[string, () => Promise<unknown>, string, number, string, string]> = [
      ['a malformed task (task_async not a boolean)', () => rpc(gatewayUrl, 'task_assign', { ...valid(), task_async: 'yes' }), 'invalid_params', -32602, 'params.task_async', 'type'],
      ['a malformed task (no send_to)', () => rpc(gatewayUrl, 'task_assign', { ...valid(), send_to: undefined }), 'invalid_params', -32602, 'params.send_to', 'required'],
      ['a malformed task (the draft spelling task-sendTo)', () => rpc(gatewayUrl, 'task_assign', { ...valid(), send_to: undefined, 'task-sendTo': PROBE }), 'invalid_params', -32602, 'params.task-sendTo', 'unknown_member'],
      ['a task with neither content nor payload', () => rpc(gatewayUrl, 'task_assign', { send_from: CLIENT, send_to: PROBE }), 'invalid_params', -32602, 'params', 'content_or_payload'],
      [
        'a missing prompt section (no ## environmental information)',
        () => rpc(gatewayUrl, 'task_assign', { ...valid(), content: '## target object\nsite 1021\n## task description\ncheck it' }),
        'invalid_params',
        -32602,
        'params.content',
        'prompt_section_missing',
      ],
      [
        'msg_data naming no data param',
        () => rpc(gatewayUrl, 'task_assign', { ...valid(), msg_data: ['alarms-x'] }),
        'invalid_params',
        -32602,
        'params.msg_data[0]',
        'unknown_data_param',
      ],
      ['a bad chunk (seq 1 before seq 0)', () => rpc(gatewayUrl, 'upload_chunk', { send_from: CLIENT, chunk: { param_id: 'bulk-1', seq: 1, data: 'abc', finished: false } }), 'invalid_params', -32602, 'params.chunk.seq', 'chunk_missing'],
      [
        'a bad chunk (first chunk without its param)',
        () => rpc(gatewayUrl, 'upload_chunk', { send_from: CLIENT, chunk: { param_id: 'bulk-2', seq: 0, data: 'abc', finished: false } }),
        'invalid_params',
        -32602,
        'params.param',
        'required',
      ],
      [
        'a bad chunk (param id differs)',
        () => rpc(gatewayUrl, 'upload_chunk', { send_from: CLIENT, param: { id: 'bulk-x', data_type: 'text', chunked: true }, chunk: { param_id: 'bulk-3', seq: 0, data: 'abc', finished: false } }),
        'invalid_params',
        -32602,
        'params.param.id',
        'param_id_match',
      ],
      [
        'a notification for an unknown task',
        () => rpc(gatewayUrl, 'task_result_notify', { task_id: 'no-such-task', send_from: PROBE, status: 'finished' }),
        'task_not_found',
        -32034,
        'params.task_id',
        'exists',
      ],
      [
        'a capability request to an unknown agent',
        () => rpc(gatewayUrl, 'capability_request', { send_from: CLIENT, send_to: 'TMF-Nobody-Ghost-v1' }),
        'agent_unavailable',
        0,
        '',
        '',
      ],
    ];
    for (const [name, send, type, code, path, rule] of cases) {
      it(`rejects ${name} with ${type}${rule ? ` (${rule})` : ''} and changes nothing`, async () => {
        const before = await counts();
        const r = (await send()) as Awaited<ReturnType<typeof rpc>>;
        expect(r.status).toBe(200);
        expect(r.body.error?.data?.type, JSON.stringify(r.body)).toBe(type);
        if (code !== 0) expectRpcError(r, type, code, path || undefined, rule || undefined);
        else {
          if (path) expect(r.body.error.data.path).toBe(path);
          if (rule) expect(r.body.error.data.rule).toBe(rule);
        }
        expect(await counts()).toEqual(before);
      });
    }

    it('rejects finishing a canceled task with illegal_transition (params.status, task_transition); the task and its context stay as they were', async () => {
      const a = await ok('task_assign', { send_from: CLIENT, send_to: PROBE, task_async: true, content: 'to be canceled' });
      const id = a.task.task_id as string;
      await waitFor('processing', async () => ((await ok('task_result_query', { task_id: id, send_from: CLIENT })).task.status === 'processing' ? true : undefined));
      expect((await ok('task_cancel', { task_id: id, send_from: CLIENT, reason: 'no longer needed' })).task.status).toBe('canceled');
      const before = await counts();
      const ctxBefore = await context(id);
      const r = await rpc(gatewayUrl, 'task_result_notify', { task_id: id, send_from: PROBE, status: 'finished', result: { late: true } });
      expectRpcError(r, 'illegal_transition', r.body.error?.code, 'params.status', 'task_transition');
      expect(r.body.error.data.details).toMatchObject({ from: 'canceled', to: 'finished' });
      // Through the SDK (the executing agent's own path) the same typed error.
      await expect(probe.notify(id, { status: 'finished' })).rejects.toMatchObject({ type: 'illegal_transition', path: 'params.status', rule: 'task_transition' });
      expect(await counts()).toEqual(before);
      expect(await context(id)).toEqual(ctxBefore);
      expect((await history(id)).map((n) => n.status)).toEqual(['created', 'processing', 'canceled']);
    });

    it('an incident report whose alarms the cross-domain agent cannot read fails (created -> processing -> failed) with the agent\'s reason', async () => {
      const bad = [{ ...alarmsAt(Date.now()).wireless[0]!, severity: 'apocalyptic' }];
      const r = await ok('task_assign', {
        ...incidentReportTask(wirelessIncidents(alarmsAt(Date.now()).wireless, EXAMPLE_TOPOLOGY)[0]!, EXAMPLE_TOPOLOGY, CLIENT, NAMES['cross-domain'], `alarms-bad-${Date.now()}`),
        data_params: [{ id: 'alarms-bad-1', data_type: 'text', format: 'application/json', data: JSON.stringify(bad) }],
        msg_data: ['alarms-bad-1'],
      });
      expect(r.task.status).toBe('failed');
      expect(r.task.result.error).toEqual({ message: 'data_params.alarms[0].severity must be one of critical, major, minor, warning', code: 'bad_incident' });
      expect((await history(r.task.task_id)).map((n) => n.status)).toEqual(['created', 'processing', 'failed']);
      expect((await state('cross-domain')).incidents.map((i: { report_task_id: string }) => i.report_task_id)).not.toContain(r.task.task_id);
    });

    it('keeps a task to its two parties: an outsider\'s key may not act as a party nor read the context, and changes nothing', async () => {
      const a = await ok('task_assign', { ...valid(), content: valid().content.replace('check it', 'private to its parties') });
      const id = a.task.task_id as string;
      const created = await ok('create_api_key', { principal: 'TMF-Test-Outsider-v1', roles: ['client_agent'], description: 'an-use-cases outsider' });
      const outsider = created.key as string;
      const before = await counts();
      for (const [method, params] of [
        ['task_result_query', { task_id: id, send_from: CLIENT }],
        ['task_cancel', { task_id: id, send_from: CLIENT, reason: 'not mine to cancel' }],
        ['task_assign', valid()],
      ] as const) {
        const r = await rpc(gatewayUrl, method, params, outsider);
        expect(r.status, `${method}: ${JSON.stringify(r.body)}`).toBe(403);
        expect(r.body.error.data).toMatchObject({ type: 'forbidden', path: 'params.send_from', rule: 'send_from_is_principal' });
      }
      // Not a party, the outsider sees no context: the task does not exist for it.
      const ctx = await rpc(gatewayUrl, 'task_context', { task_id: id }, outsider);
      expect(ctx.body.error?.data?.type, JSON.stringify(ctx.body)).toBe('task_not_found');
      const none = await rpc(gatewayUrl, 'task_context', { task_id: id }, null);
      expect(none.status).toBe(401);
      expect(none.body.error.data.type).toBe('unauthenticated');
      expect(await counts()).toEqual(before);
      expect((await ok('task_result_query', { task_id: id, send_from: CLIENT })).task.status).toBe('finished');
    });

    it('rejects a task for an agent nobody serves with agent_unavailable naming params.send_to, and stores nothing', async () => {
      const before = await counts();
      const r = await rpc(gatewayUrl, 'task_assign', { ...valid(), send_to: 'TMF-Nobody-Ghost-v1' });
      expect(r.body.error?.data, JSON.stringify(r.body)).toMatchObject({ type: 'agent_unavailable', path: 'params.send_to', rule: 'listening' });
      expect(r.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
      expect(await counts()).toEqual(before);
    });
  });
});
