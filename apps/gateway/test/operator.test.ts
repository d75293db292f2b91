/**
 * The operator methods of schema self-evolution on /rpc (draft-zhou §6.2, §7):
 * params parsed at the edge, authentication at the gateway (single and batch),
 * `unavailable` without the services, results passed through; and once through
 * the real gRPC glue, where the services' bindings decide by role (draft-zhou §7), so
 * a client agent's key is `forbidden` and typed errors keep their JSON-RPC codes.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import {
  EvolutionServiceService,
  SemanticPoolServiceService,
  bindService,
  createGrpcClient,
  startGrpcServer,
  type AuditSample,
  type Decision,
  type EvolutionApi,
  type ExecutionApi,
  type NegotiationApi,
  type Patch,
  type PoolCluster,
  type RawFragment,
  type RegistryApi,
  type SemanticPoolApi,
} from '@parley/contracts';
import { ERROR_CATALOGUE, ParleyError } from '@parley/protocol';
import { createLogger } from '@parley/runtime';
import { freePort, keyedAuthenticator, startProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayServer, type Backends } from '../src/index';

const SERVICE_TOKEN = 'operator-test-service-token-0123456789';
// Two principals with keys: an operator and a client agent (draft-zhou §7).
const AUTH = keyedAuthenticator(SERVICE_TOKEN, [
  { id: 'ops', roles: ['operator'] },
  { id: 'alice', roles: ['client_agent'] },
]);
const TOKEN = AUTH.keys['ops'] as string;
const CLIENT_TOKEN = AUTH.keys['alice'] as string;
const T = '2026-03-01T00:00:00.000Z';

// ---------------------------------------------------------------------------
// Fakes: plain objects with the services' API that keep state and record calls.
// ---------------------------------------------------------------------------

interface Call {
  method: string;
  req: unknown;
}

function cluster(id: string, over: Partial<PoolCluster> = {}): PoolCluster {
  return {
    id,
    scenario_id: 'flight_booking',
    scope: 'global',
    size: 12,
    distinct_clients: 4,
    heat: 3.5,
    peak_heat: 5.25,
    peak_at: T,
    created_at: T,
    matured: false,
    samples: ['window seat please'],
    heat_history: [{ at: T, heat: 3.5 }],
    ...over,
  };
}

const RAW: RawFragment[] = [{ event_id: 'e1', client_id: 'acme', at: T, raw_text: 'window seat, call me at +1 555 0100', sanitized: 'window seat', flags: ['phone'] }];

function fakePool(opts: { leakRaw?: boolean } = {}): SemanticPoolApi & { calls: Call[] } {
  const clusters = [
    cluster('c1', { heat: 9.5, matured: true, matured_at: T, patch_id: 'p1', key_name: 'seat_preference' }),
    cluster('c2', { heat: 0.2, scope: 'acme' }),
    cluster('c3', { heat: 1, scenario_id: 'photo_retouch' }),
  ];
  const calls: Call[] = [];
  return {
    calls,
    async listClusters(req) {
      calls.push({ method: 'listClusters', req });
      const out = clusters
        .filter((c) => c.scenario_id === req.scenario && (!req.scope || c.scope === req.scope) && c.heat >= (req.min_heat ?? 0))
        .sort((a, b) => b.heat - a.heat)
        .slice(0, req.limit ?? 100);
      return { clusters: out, embedder: 'offline', similarity_threshold: 0.15, heat_threshold: 50 };
    },
    async getCluster(req) {
      calls.push({ method: 'getCluster', req });
      const c = clusters.find((x) => x.id === req.id && x.scenario_id === req.scenario);
      if (!c) throw new ParleyError('cluster_not_found', `No cluster "${req.id}" in ${req.scenario}`, { path: 'id', rule: 'exists' });
      return { cluster: c, raw: req.include_raw || opts.leakRaw ? RAW : [] };
    },
  };
}

function patch(id: string, over: Partial<Patch> = {}): Patch {
  return {
    patch_id: id,
    parent_schema_id: 'flight_booking_v1',
    scenario_id: 'flight_booking',
    scope: 'global',
    status: 'proposed',
    pinned: false,
    timestamp: T,
    expires_at: '2026-04-01T00:00:00.000Z',
    source_cluster_id: 'c1',
    new_keys: [
      {
        definition: { key_name: 'seat_preference', key_type: 'string', semantic_description: 'Preferred seat', required: false, experimental: true },
        state: 'experimental',
        state_since: T,
        history: [{ from: 'proposed', to: 'experimental', at: T, reasons: ['published'], figures: { usage_frequency: 0.4 }, actor: 'evaluator' }],
        metrics: { usage_frequency: 0.42, value_type_correctness: 1, payloads: 50, uses: 21, audits: 3, clients_received: 4, clients_adopted: 2, client_adoption_rate: 0.5 },
      },
    ],
    modified_keys: [],
    approval_reasons: ['security_relevant'],
    revision: 1,
    ...over,
  };
}

function fakeEvolution(): EvolutionApi & { calls: Call[]; fail?: Error } {
  const patches = new Map<string, Patch>([
    ['p1', patch('p1')],
    ['p2', patch('p2', { status: 'active', scope: 'acme' })],
  ]);
  const samples = new Map<string, AuditSample>([
    [
      's1',
      { sample_id: 's1', patch_id: 'p1', key_name: 'seat_preference', scenario_id: 'flight_booking', client_id: 'acme', execution_id: 'x1', at: T, value: 'window', utterance: 'a window seat', verdict: 'pending' },
    ],
  ]);
  const decisions: Decision[] = [];
  const calls: Call[] = [];
  let seq = 0;
  const found = (id: string): Patch => {
    const p = patches.get(id);
    if (!p) throw new ParleyError('patch_not_found', `No patch "${id}"`, { path: 'patch_id', rule: 'exists' });
    return p;
  };
  const decide = (p: Patch, action: string, reason: string) => {
    decisions.push({ seq: ++seq, at: T, scenario_id: p.scenario_id, patch_id: p.patch_id, key_name: '', action, reasons: [reason], figures: { revision: p.revision }, actor: 'operator' });
  };
  const api: EvolutionApi & { calls: Call[]; fail?: Error } = {
    calls,
    async listPatches(req) {
      calls.push({ method: 'listPatches', req });
      if (api.fail) throw api.fail;
      const list = [...patches.values()].filter((p) => p.scenario_id === req.scenario && (!req.status || p.status === req.status) && (!req.scope || p.scope === req.scope));
      return { patches: list, queued: [{ cluster_id: 'c9', scenario_id: 'flight_booking', scope: 'global', key_name: 'meal_choice', queued_at: T }] };
    },
    async getPatch(req) {
      calls.push({ method: 'getPatch', req });
      return { patch: found(req.patch_id) };
    },
    async approvePatch(req) {
      calls.push({ method: 'approvePatch', req });
      const p = found(req.patch_id);
      if (p.status !== 'proposed') throw new ParleyError('illegal_transition', `Patch ${p.patch_id} is ${p.status}, not proposed`, { path: 'patch_id', rule: 'proposed' });
      Object.assign(p, { status: 'active', revision: p.revision + 1 });
      decide(p, 'approve', req.reason);
      return { patch: p };
    },
    async rejectPatch(req) {
      calls.push({ method: 'rejectPatch', req });
      const p = found(req.patch_id);
      if (p.status === 'rejected') throw new ParleyError('illegal_transition', `Patch ${p.patch_id} is already rejected`, { path: 'patch_id', rule: 'not_rejected' });
      Object.assign(p, { status: 'rejected', revision: p.revision + 1 });
      decide(p, 'reject', req.reason);
      return { patch: p };
    },
    async pinPatch(req) {
      calls.push({ method: 'pinPatch', req });
      const p = found(req.patch_id);
      Object.assign(p, { pinned: req.pinned, revision: p.revision + 1 });
      decide(p, req.pinned ? 'pin' : 'unpin', req.reason);
      return { patch: p };
    },
    async editPatch(req) {
      calls.push({ method: 'editPatch', req });
      const p = found(req.patch_id);
      decide(p, 'edit', req.reason);
      return { patch: p, outcome: 'in_place' };
    },
    async listDecisions(req) {
      calls.push({ method: 'listDecisions', req });
      return {
        decisions: decisions
          .filter((d) => d.scenario_id === req.scenario && (!req.patch_id || d.patch_id === req.patch_id) && d.seq > (req.after_seq ?? 0))
          .slice(0, req.limit ?? 100),
      };
    },
    async listAuditSamples(req) {
      calls.push({ method: 'listAuditSamples', req });
      return { samples: [...samples.values()].filter((s) => s.scenario_id === req.scenario && (!req.verdict || s.verdict === req.verdict)) };
    },
    async judgeAuditSample(req) {
      calls.push({ method: 'judgeAuditSample', req });
      const s = samples.get(req.sample_id);
      if (!s) throw new ParleyError('audit_sample_not_found', `No audit sample "${req.sample_id}"`, { path: 'sample_id', rule: 'exists' });
      if (s.verdict !== 'pending') throw new ParleyError('illegal_transition', `Sample ${s.sample_id} is already judged`, { path: 'sample_id', rule: 'pending' });
      Object.assign(s, { verdict: req.aligned ? 'aligned' : 'misaligned', judged_by: 'operator', judged_at: T });
      return { sample: s };
    },
  };
  return api;
}

/** The core services: never reached by operator methods (list_agents answers, to show existing methods still work). */
function coreBackends(): Pick<Backends, 'registry' | 'negotiation' | 'execution'> {
  const registry = { listAgents: async () => ({ agents: [] }) } as unknown as RegistryApi;
  return { registry, negotiation: {} as NegotiationApi, execution: {} as ExecutionApi };
}

// ---------------------------------------------------------------------------
// A gateway on port 0 and a JSON-RPC caller.
// ---------------------------------------------------------------------------

interface RpcReply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface Gw {
  url: string;
  internal: unknown[];
  close(): Promise<void>;
}

async function gateway(backends: Backends): Promise<Gw> {
  const internal: unknown[] = [];
  const log = createLogger({ level: 'error', write: (line) => internal.push(line) });
  const server: Server = createGatewayServer({ backends, health: { shuttingDown: false, checks: {} }, log, maxBodyBytes: 1 << 20, authenticator: AUTH.authenticator });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  return { url, internal, close: () => new Promise((r) => server.close(() => r())) };
}

let nextId = 1;
/** Posts with the operator's key unless told otherwise (`null`: no Authorization header). */
async function post(gw: Gw, body: unknown, authorization: string | null = `Bearer ${TOKEN}`): Promise<RpcReply> {
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization !== null ? { authorization } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
const req = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: nextId++, method, params });
const rpc = (gw: Gw, method: string, params: unknown, authorization?: string | null) => post(gw, req(method, params), authorization);
const bearer = `Bearer ${TOKEN}`;

/** A valid call of each operator method, with the token where it is needed. */
const VALID: Record<string, Record<string, unknown>> = {
  list_clusters: { scenario: 'flight_booking' },
  get_cluster: { scenario: 'flight_booking', id: 'c1' },
  list_patches: { scenario: 'flight_booking' },
  get_patch: { patch_id: 'p1' },
  approve_patch: { patch_id: 'p1', reason: 'reviewed' },
  reject_patch: { patch_id: 'p1', reason: 'duplicate of seat_type' },
  pin_patch: { patch_id: 'p1', pinned: true, reason: 'hold for the audit' },
  edit_patch: { patch_id: 'p1', key: 'seat_preference', rename: 'seat_choice', values: ['window', 'aisle'], reason: 'a clearer name' },
  list_decisions: { scenario: 'flight_booking' },
  list_audit_samples: { scenario: 'flight_booking' },
  judge_audit_sample: { sample_id: 's1', aligned: true },
};

describe('operator methods: params are parsed at the edge', () => {
  let gw: Gw;
  let pool: ReturnType<typeof fakePool>;
  let evo: ReturnType<typeof fakeEvolution>;
  beforeAll(async () => {
    pool = fakePool();
    evo = fakeEvolution();
    gw = await gateway({ ...coreBackends(), pool, evolution: evo });
  });
  afterAll(() => gw.close());

  const cases: [string, Record<string, unknown>, string, string][] = [
    ['list_clusters', {}, 'params.scenario', 'required'],
    ['list_clusters', { scenario: 5 }, 'params.scenario', 'type'],
    ['list_clusters', { scenario: '' }, 'params.scenario', 'non_empty'],
    ['list_clusters', { scenario: '---' }, 'params.scenario', 'scenario_slug'],
    ['list_clusters', { scenario: 'flight_booking', heat: 1 }, 'params.heat', 'unknown_member'],
    ['list_clusters', { scenario: 'flight_booking', min_heat: -1 }, 'params.min_heat', 'minimum'],
    ['list_clusters', { scenario: 'flight_booking', min_heat: '2' }, 'params.min_heat', 'type'],
    ['list_clusters', { scenario: 'flight_booking', limit: 0 }, 'params.limit', 'minimum'],
    ['list_clusters', { scenario: 'flight_booking', limit: 2.5 }, 'params.limit', 'integer'],
    ['list_clusters', { scenario: 'flight_booking', limit: 1001 }, 'params.limit', 'maximum'],
    ['list_clusters', { scenario: 'flight_booking', scope: 'has space' }, 'params.scope', 'pattern'],
    ['get_cluster', { scenario: 'flight_booking' }, 'params.id', 'required'],
    ['get_cluster', { scenario: 'flight_booking', id: 'c1', include_raw: 'yes' }, 'params.include_raw', 'type'],
    ['list_patches', { scenario: 'flight_booking', status: 'done' }, 'params.status', 'enum'],
    ['get_patch', {}, 'params.patch_id', 'required'],
    ['get_patch', { patch_id: 'p 1' }, 'params.patch_id', 'pattern'],
    ['get_patch', { patch_id: 'x'.repeat(257) }, 'params.patch_id', 'max_length'],
    ['get_patch', { patch_id: 'p1', __proto__x: 1 }, 'params.__proto__x', 'unknown_member'],
    ['approve_patch', { patch_id: 'p1' }, 'params.reason', 'required'],
    ['approve_patch', { patch_id: 'p1', reason: '  ' }, 'params.reason', 'non_empty'],
    ['reject_patch', { reason: 'no' }, 'params.patch_id', 'required'],
    ['reject_patch', { patch_id: 'p1', reason: 'x'.repeat(2049) }, 'params.reason', 'max_length'],
    ['pin_patch', { patch_id: 'p1', reason: 'r' }, 'params.pinned', 'required'],
    ['pin_patch', { patch_id: 'p1', pinned: 'true', reason: 'r' }, 'params.pinned', 'type'],
    ['edit_patch', { patch_id: 'p1', key: 'seat_preference', reason: 'r' }, 'params', 'required'],
    ['edit_patch', { patch_id: 'p1', rename: 'x', reason: 'r' }, 'params.key', 'required'],
    ['edit_patch', { patch_id: 'p1', key: 'seat_preference', values: 'window', reason: 'r' }, 'params.values', 'type'],
    ['edit_patch', { patch_id: 'p1', key: 'seat_preference', values: ['window', {}], reason: 'r' }, 'params.values[1]', 'type'],
    ['edit_patch', { patch_id: 'p1', key: 'seat_preference', rename: 'seat_choice' }, 'params.reason', 'required'],
    ['edit_patch', { patch_id: 'p1', key: 'seat_preference', definition: {}, reason: 'r' }, 'params.definition', 'unknown_member'],
    ['list_decisions', { scenario: 'flight_booking', after_seq: -1 }, 'params.after_seq', 'minimum'],
    ['list_decisions', { scenario: 'flight_booking', patch_id: 7 }, 'params.patch_id', 'type'],
    ['list_audit_samples', { scenario: 'flight_booking', verdict: 'maybe' }, 'params.verdict', 'enum'],
    ['judge_audit_sample', { sample_id: 's1' }, 'params.aligned', 'required'],
    ['judge_audit_sample', { sample_id: 's1', aligned: true, note: 3 }, 'params.note', 'type'],
    ['judge_audit_sample', { sample_id: 's1', aligned: 1 }, 'params.aligned', 'type'],
  ];
  it.each(cases)('%s %j → invalid_params at %s, rule %s; the service is not called', async (method, params, path, rule) => {
    const before = pool.calls.length + evo.calls.length;
    const r = await rpc(gw, method, params, bearer);
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ code: -32602, data: { type: 'invalid_params', path, rule } });
    expect(r.body.error.message).toContain(path);
    expect(pool.calls.length + evo.calls.length).toBe(before);
  });

  it('a literal __proto__ member is refused as unknown, and params must be an object', async () => {
    const r = await post(gw, JSON.parse(`{"jsonrpc":"2.0","id":1,"method":"get_patch","params":{"patch_id":"p1","__proto__":{"x":1}}}`));
    expect(r.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params.__proto__', rule: 'unknown_member' });
    const arr = await rpc(gw, 'list_patches', ['flight_booking']);
    expect(arr.body.error.data).toMatchObject({ type: 'invalid_params', path: 'params', rule: 'type' });
  });
});

describe('operator methods: results are the services’ responses', () => {
  let gw: Gw;
  let pool: ReturnType<typeof fakePool>;
  let evo: ReturnType<typeof fakeEvolution>;
  beforeAll(async () => {
    pool = fakePool({ leakRaw: true });
    evo = fakeEvolution();
    gw = await gateway({ ...coreBackends(), pool, evolution: evo });
  });
  afterAll(() => gw.close());

  it('list_clusters: canonical scenario id, only the options sent, the response as JSON', async () => {
    const r = await rpc(gw, 'list_clusters', { scenario: 'Flight Booking', min_heat: 0.5, limit: 10 });
    expect(pool.calls.at(-1)).toEqual({ method: 'listClusters', req: { scenario: 'flight_booking', min_heat: 0.5, limit: 10 } });
    expect(r.body.result).toEqual(JSON.parse(JSON.stringify(await fakePool().listClusters({ scenario: 'flight_booking', min_heat: 0.5, limit: 10 }))));
    expect(r.body.result.clusters.map((c: PoolCluster) => c.id)).toEqual(['c1']);
    const scoped = await rpc(gw, 'list_clusters', { scenario: 'flight_booking', scope: 'acme' });
    expect(scoped.body.result.clusters.map((c: PoolCluster) => c.id)).toEqual(['c2']);
  });

  it('get_cluster without include_raw is open and never carries raw fragments, even if the service sent some', async () => {
    const r = await rpc(gw, 'get_cluster', { scenario: 'flight_booking', id: 'c1' });
    expect(pool.calls.at(-1)).toEqual({ method: 'getCluster', req: { scenario: 'flight_booking', id: 'c1', include_raw: false } });
    expect(r.body.result.cluster).toMatchObject({ id: 'c1', key_name: 'seat_preference', patch_id: 'p1' });
    expect(r.body.result.raw).toEqual([]);
    const raw = await rpc(gw, 'get_cluster', { scenario: 'flight_booking', id: 'c1', include_raw: true }, bearer);
    expect(raw.body.result.raw).toEqual(RAW);
  });

  it('patch writes pass patch_id, reason and pinned through and return the patch', async () => {
    const a = await rpc(gw, 'approve_patch', { patch_id: 'p1', reason: 'reviewed' }, bearer);
    expect(evo.calls.at(-1)).toEqual({ method: 'approvePatch', req: { patch_id: 'p1', reason: 'reviewed' } });
    expect(a.body.result.patch).toMatchObject({ patch_id: 'p1', status: 'active', revision: 2 });
    const pin = await rpc(gw, 'pin_patch', { patch_id: 'p1', pinned: false, reason: 'let the evaluator decide' }, bearer);
    expect(evo.calls.at(-1)).toEqual({ method: 'pinPatch', req: { patch_id: 'p1', pinned: false, reason: 'let the evaluator decide' } });
    expect(pin.body.result.patch.pinned).toBe(false);
    const again = await rpc(gw, 'approve_patch', { patch_id: 'p1', reason: 'twice' }, bearer);
    expect(again.body.error).toMatchObject({ code: ERROR_CATALOGUE.illegal_transition.jsonrpc, data: { type: 'illegal_transition', path: 'patch_id', rule: 'proposed' } });
    const list = await rpc(gw, 'list_patches', { scenario: 'flight_booking', status: 'active' });
    expect(evo.calls.at(-1)).toEqual({ method: 'listPatches', req: { scenario: 'flight_booking', status: 'active' } });
    expect(list.body.result.patches.map((p: Patch) => p.patch_id)).toEqual(['p1', 'p2']);
    expect(list.body.result.queued).toHaveLength(1);
    const d = await rpc(gw, 'list_decisions', { scenario: 'flight_booking', patch_id: 'p1', after_seq: 0, limit: 5 });
    expect(evo.calls.at(-1)).toEqual({ method: 'listDecisions', req: { scenario: 'flight_booking', patch_id: 'p1', after_seq: 0, limit: 5 } });
    expect(d.body.result.decisions.map((x: Decision) => x.action)).toEqual(['approve', 'unpin']);
  });

  it('audit samples: list with a verdict, judge with and without a note', async () => {
    const l = await rpc(gw, 'list_audit_samples', { scenario: 'flight_booking', verdict: 'pending', patch_id: 'p1', limit: 3 });
    expect(evo.calls.at(-1)).toEqual({ method: 'listAuditSamples', req: { scenario: 'flight_booking', verdict: 'pending', patch_id: 'p1', limit: 3 } });
    expect(l.body.result.samples).toHaveLength(1);
    const j = await rpc(gw, 'judge_audit_sample', { sample_id: 's1', aligned: false }, bearer);
    expect(evo.calls.at(-1)).toEqual({ method: 'judgeAuditSample', req: { sample_id: 's1', aligned: false, note: '' } });
    expect(j.body.result.sample).toMatchObject({ verdict: 'misaligned', judged_by: 'operator' });
    const missing = await rpc(gw, 'judge_audit_sample', { sample_id: 's9', aligned: true, note: 'n' }, bearer);
    expect(evo.calls.at(-1)).toEqual({ method: 'judgeAuditSample', req: { sample_id: 's9', aligned: true, note: 'n' } });
    expect(missing.body.error.data).toMatchObject({ type: 'audit_sample_not_found', path: 'sample_id', rule: 'exists' });
  });

  it('an unexpected failure in a service is `internal`, without its text, and is logged', async () => {
    evo.fail = new Error('db password is hunter2');
    const r = await rpc(gw, 'list_patches', { scenario: 'flight_booking' });
    evo.fail = undefined;
    expect(r.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^Internal error \(correlation id [0-9a-f-]{36}/), data: { type: 'internal' } });
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    // The log names the method, the cause and the correlation id the client got.
    expect(gw.internal.join('\n')).toContain('list_patches');
    expect(gw.internal.join('\n')).toContain('hunter2');
    expect(gw.internal.join('\n')).toContain(r.body.error.data.details.correlation_id);
  });

  it('existing methods still work (they ignore the context)', async () => {
    const r = await rpc(gw, 'list_agents', {}, bearer);
    expect(r.body).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: { agents: [] } });
  });
});

describe('authentication at the gateway', () => {
  let gw: Gw;
  let evo: ReturnType<typeof fakeEvolution>;
  beforeAll(async () => {
    evo = fakeEvolution();
    gw = await gateway({ ...coreBackends(), pool: fakePool(), evolution: evo });
  });
  afterAll(() => gw.close());

  it.each(Object.entries(VALID))('%s: no key, an unknown key, another scheme and a bare key are `unauthenticated` (HTTP 401), and no service is called', async (method, params) => {
    const before = evo.calls.length;
    const missing = await rpc(gw, method, params, null);
    const wrong = await rpc(gw, method, params, `Bearer ${TOKEN.slice(0, -1)}x`);
    const basic = await rpc(gw, method, params, `Basic ${Buffer.from(`op:${TOKEN}`).toString('base64')}`);
    const bare = await rpc(gw, method, params, TOKEN);
    expect(missing.body.error.data.rule).toBe('credentials_required');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="parley"');
    expect(wrong.body.error.data.rule).toBe('api_key');
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="parley", error="invalid_token"');
    for (const r of [basic, bare]) expect(r.body.error.data.rule).toBe('bearer_scheme');
    for (const r of [missing, wrong, basic, bare]) {
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ code: -32050, data: { type: 'unauthenticated', path: 'headers.authorization', retryable: false } });
    }
    expect(evo.calls.length).toBe(before);
  });

  it('unauthenticated comes before params: an anonymous caller learns nothing about a method’s params', async () => {
    const r = await rpc(gw, 'approve_patch', { bogus: 1 }, null);
    expect(r.body.error.data.type).toBe('unauthenticated');
  });

  it('a valid key passes, whatever the case of "Bearer" and surrounding spaces', async () => {
    for (const h of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER   ${TOKEN} `]) {
      const r = await rpc(gw, 'pin_patch', { patch_id: 'p2', pinned: true, reason: 'hold' }, h);
      expect(r.status).toBe(200);
      expect(r.body.result.patch).toMatchObject({ patch_id: 'p2', pinned: true });
    }
    const raw = await rpc(gw, 'get_cluster', { scenario: 'flight_booking', id: 'c1', include_raw: true }, bearer);
    expect(raw.body.result.raw).toEqual(RAW);
  });

  it('a batch is authenticated once for the whole body: without a key nothing in it runs', async () => {
    const batch = [
      req('list_patches', { scenario: 'flight_booking' }),
      req('reject_patch', { patch_id: 'p1', reason: 'no' }),
      req('get_cluster', { scenario: 'flight_booking', id: 'c1', include_raw: true }),
      { jsonrpc: '2.0', method: 'judge_audit_sample', params: { sample_id: 's1', aligned: true } }, // notification: no reply
    ];
    const before = evo.calls.length;
    for (const h of [null, `Bearer ${CLIENT_TOKEN.slice(0, -1)}x`]) {
      const r = await post(gw, batch, h);
      expect(r.status).toBe(401);
      expect(r.body.error.data.type).toBe('unauthenticated');
    }
    expect(evo.calls.length).toBe(before);
    const ok = await post(gw, batch, bearer);
    expect(ok.status).toBe(200);
    expect(ok.body.map((x: { error?: unknown }) => x.error)).toEqual([undefined, undefined, undefined]);
    expect(ok.body[1].result.patch.status).toBe('rejected');
    expect(ok.body[2].result.raw).toEqual(RAW);
    expect(evo.calls.at(-1)).toMatchObject({ method: 'judgeAuditSample', req: { sample_id: 's1', aligned: true } });
  });

  it('whoami names the caller: principal, roles and how it authenticated', async () => {
    const me = await rpc(gw, 'whoami', {}, `Bearer ${CLIENT_TOKEN}`);
    expect(me.body.result).toEqual({ principal: 'alice', tenant: 'default', roles: ['client_agent'], agents: [], scenarios: [], via: 'api_key' });
    const bad = await rpc(gw, 'whoami', { x: 1 }, `Bearer ${CLIENT_TOKEN}`);
    expect(bad.body.error).toMatchObject({ data: { type: 'invalid_params', path: 'params', rule: 'empty' } });
  });
});

describe('without the evolution services', () => {
  let gw: Gw;
  beforeAll(async () => {
    gw = await gateway(coreBackends() as Backends);
  });
  afterAll(() => gw.close());

  it.each(Object.keys(VALID))('%s answers `unavailable`: schema self-evolution is not running', async (method) => {
    const r = await rpc(gw, method, VALID[method], bearer);
    expect(r.status).toBe(200);
    expect(r.body.error).toMatchObject({ code: -32040, data: { type: 'unavailable', retryable: true } });
    expect(r.body.error.message).toMatch(/^schema self-evolution is not running/);
    expect(r.body.error.data.details.service).toBe(method.includes('cluster') ? 'semantic-pool' : 'evolution');
  });

  it('authentication is still checked first', async () => {
    const r = await rpc(gw, 'approve_patch', VALID.approve_patch, null);
    expect(r.body.error.data.type).toBe('unauthenticated');
  });
});

describe('through the real gRPC glue', () => {
  let gw: Gw;
  let stopGrpc: () => Promise<void>;
  const evo = fakeEvolution();
  beforeAll(async () => {
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      // The services' bindings authenticate the forwarded credential and decide by role (libs/auth POLICY).
      services: [
        bindService(SemanticPoolServiceService, fakePool(), { authenticator: AUTH.authenticator }),
        bindService(EvolutionServiceService, evo, { authenticator: AUTH.authenticator }),
      ],
    });
    const pool = createGrpcClient(SemanticPoolServiceService, `127.0.0.1:${server.port}`, { deadlineMs: 5000, credential: SERVICE_TOKEN });
    const evolution = createGrpcClient(EvolutionServiceService, `127.0.0.1:${server.port}`, { deadlineMs: 5000, credential: SERVICE_TOKEN });
    gw = await gateway({ ...coreBackends(), pool: pool.api, evolution: evolution.api });
    stopGrpc = async () => {
      pool.close();
      evolution.close();
      await server.stop(100);
    };
  });
  afterAll(async () => {
    await gw.close();
    await stopGrpc();
  });

  it('a client agent is `forbidden` (HTTP 403) by the service binding for every operator method, and nothing reaches the service', async () => {
    const before = evo.calls.length;
    for (const [method, params] of Object.entries(VALID)) {
      const r = await rpc(gw, method, params, `Bearer ${CLIENT_TOKEN}`);
      expect(r.status, method).toBe(403);
      expect(r.body.error, method).toMatchObject({ code: -32051, data: { type: 'forbidden', path: 'principal.roles', rule: 'role' } });
    }
    expect(evo.calls.length).toBe(before);
  });

  it('a patch_not_found from the service arrives with its JSON-RPC code, path and rule', async () => {
    const r = await rpc(gw, 'get_patch', { patch_id: 'p404' }, bearer);
    expect(r.body.error).toEqual({
      code: ERROR_CATALOGUE.patch_not_found.jsonrpc,
      message: 'No patch "p404"',
      data: { type: 'patch_not_found', message: 'No patch "p404"', path: 'patch_id', rule: 'exists', retryable: false },
    });
    const w = await rpc(gw, 'approve_patch', { patch_id: 'p404', reason: 'r' }, bearer);
    expect(w.body.error.code).toBe(-32026);
  });

  it('cluster_not_found and illegal_transition keep their codes too', async () => {
    const c = await rpc(gw, 'get_cluster', { scenario: 'flight_booking', id: 'c404' }, bearer);
    expect(c.body.error).toMatchObject({ code: -32027, data: { type: 'cluster_not_found' } });
    const ok = await rpc(gw, 'approve_patch', { patch_id: 'p1', reason: 'reviewed' }, bearer);
    expect(ok.body.result.patch.status).toBe('active');
    const again = await rpc(gw, 'approve_patch', { patch_id: 'p1', reason: 'reviewed' }, bearer);
    expect(again.body.error).toMatchObject({ code: -32029, data: { type: 'illegal_transition', rule: 'proposed' } });
  });

  it('results survive protobuf: Struct figures, metrics and Value samples come back as JSON', async () => {
    const l = await rpc(gw, 'list_patches', { scenario: 'flight_booking' }, bearer);
    const p1 = l.body.result.patches.find((p: Patch) => p.patch_id === 'p1');
    expect(p1.new_keys[0].history[0].figures).toEqual({ usage_frequency: 0.4 });
    expect(p1.new_keys[0].metrics).toMatchObject({ usage_frequency: 0.42, client_adoption_rate: 0.5, payloads: 50 });
    expect(p1.new_keys[0].metrics.semantic_alignment_accuracy).toBeUndefined();
    const s = await rpc(gw, 'list_audit_samples', { scenario: 'flight_booking' }, bearer);
    expect(s.body.result.samples[0]).toMatchObject({ sample_id: 's1', value: 'window', verdict: 'pending' });
  });
});

describe('the gateway process (main.ts)', () => {
  it('refuses to start without the services’ shared token, naming PARLEY_SERVICE_TOKEN, and with one too short', { timeout: 60_000 }, async () => {
    for (const env of [{}, { PARLEY_SERVICE_TOKEN: 'secret' }]) {
      const p = startProcess('gateway', 'apps/gateway/src/main.ts', { PORT: String(await freePort()), LOG_LEVEL: 'warn', PARLEY_SERVICE_TOKEN: '', ...env });
      const code = await new Promise<number | null>((resolve) => p.child.once('close', resolve));
      expect(code).toBe(1);
      expect(p.output()).toContain('PARLEY_SERVICE_TOKEN must be set');
      expect(p.output()).toContain('at least 32 characters');
      expect(p.output()).not.toContain('secret');
    }
  });
});
