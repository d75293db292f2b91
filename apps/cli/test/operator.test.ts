/**
 * `parley pool`, `parley patches` and `parley audits` as an operator runs them:
 * the real bin (apps/cli/bin/parley.mjs) as a child process against the real
 * gateway process (apps/gateway/src/main.ts, configured by env as deployed),
 * whose semantic-pool and evolution backends are fakes served over gRPC from
 * this process (plain objects that keep state and record calls).
 *
 * Identity (draft-zhou §7) is real on both sides: the gateway authenticates the CLI's
 * API key at the registry's ApiKeyService (a fake here, holding two keys: an
 * operator's and a client agent's), and the fakes are bound like the services,
 * so every call is authenticated and its role checked (libs/auth POLICY) with
 * the caller's own key, which the gateway passes on.
 */
import { mintApiKey, type Principal } from '@parley/auth';
import {
  ApiKeyServiceService,
  EvolutionServiceService,
  SemanticPoolServiceService,
  bindService,
  startGrpcServer,
  type ApiKeyApi,
  type AuditSample,
  type CallContext,
  type Decision,
  type EvolutionApi,
  type Patch,
  type PoolCluster,
  type SemanticPoolApi,
} from '@parley/contracts';
import { ParleyError } from '@parley/protocol';
import { createAuthenticator, systemClock } from '@parley/runtime';
import { freePort, startProcess, waitReady } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parleyWith as parley } from './run-cli';

const T = '2026-03-01T00:00:00.000Z';
/** The services' shared credential (PARLEY_SERVICE_TOKEN): the gateway asks the registry about keys with it. */
const SERVICE_TOKEN = 'cli-test-service-token-0123456789abcdef';
/** An operator's API key and a client agent's, both valid at the fake registry. */
const OPERATOR_KEY = mintApiKey().key;
const CLIENT_KEY = mintApiKey().key;
/** Well-formed, but the registry does not know it. */
const UNKNOWN_KEY = mintApiKey().key;

const PRINCIPALS = new Map<string, Principal>([
  [OPERATOR_KEY, { id: 'ops', tenant: 'default', roles: ['operator'], agents: ['*'], scenarios: ['*'], via: 'api_key' }],
  [CLIENT_KEY, { id: 'acme', tenant: 'default', roles: ['client_agent'], agents: [], scenarios: [], via: 'api_key' }],
]);

/** The principal of an API key, as the registry answers it; `unauthenticated` (rule api_key) for any other. */
async function principalOf(key: string): Promise<Principal> {
  const p = PRINCIPALS.get(key);
  if (!p) throw new ParleyError('unauthenticated', 'The API key is not valid: it is unknown, revoked or expired', { path: 'headers.authorization', rule: 'api_key' });
  return p;
}

/** How the fakes' bindings authenticate, as the services do (no cache: every call asks). */
const authenticator = createAuthenticator({ tenant: 'default', clock: systemClock, serviceToken: SERVICE_TOKEN, apiKeys: principalOf, cacheMs: 0 });

/** The registry's ApiKeyService as far as the gateway uses it: Authenticate. */
const fakeApiKeys: ApiKeyApi = {
  async authenticate(req) {
    const p = await principalOf(req.key);
    return { principal: { ...p, credential_id: req.key.slice(3, 19), expires_at: 0 } };
  },
  createApiKey: () => Promise.reject(new ParleyError('unavailable', 'not in this fake')),
  listApiKeys: () => Promise.reject(new ParleyError('unavailable', 'not in this fake')),
  revokeApiKey: () => Promise.reject(new ParleyError('unavailable', 'not in this fake')),
};

// ---------------------------------------------------------------------------
// Fakes
// ---------------------------------------------------------------------------

interface Call {
  method: string;
  req: Record<string, unknown>;
}

/** Who made each call the fakes served (the principal the binding authenticated), in order. */
const callers: (string | undefined)[] = [];

function cluster(id: string, over: Partial<PoolCluster>): PoolCluster {
  return {
    id,
    scenario_id: 'flight_booking',
    scope: 'global',
    size: 1,
    distinct_clients: 1,
    heat: 0,
    peak_heat: 0,
    peak_at: T,
    created_at: T,
    matured: false,
    samples: [],
    heat_history: [],
    ...over,
  };
}

function fakes(): { pool: SemanticPoolApi; evolution: EvolutionApi; calls: Call[] } {
  const calls: Call[] = [];
  const rec = (method: string, req: object, ctx: CallContext | undefined) => {
    callers.push(ctx?.principal?.id);
    calls.push({ method, req: { ...req } as Record<string, unknown> });
  };
  const clusters = [
    cluster('c-window', {
      size: 37,
      distinct_clients: 9,
      heat: 12.345,
      peak_heat: 14.5,
      matured: true,
      matured_at: T,
      samples: ['window seat please', 'seat by the window'],
      heat_history: [
        { at: '2026-02-28T00:00:00.000Z', heat: 8 },
        { at: T, heat: 12.345 },
      ],
      patch_id: 'p1',
      key_name: 'seat_preference',
    }),
    cluster('c-meal', { size: 4, distinct_clients: 2, heat: 0.5, peak_heat: 1.25, scope: 'acme' }),
  ];
  const pool: SemanticPoolApi = {
    async listClusters(req, ctx) {
      rec('listClusters', req, ctx);
      return {
        clusters: clusters.filter((c) => c.scenario_id === req.scenario && (!req.scope || c.scope === req.scope) && c.heat >= (req.min_heat ?? 0)).slice(0, req.limit ?? 100),
        embedder: 'offline',
        similarity_threshold: 0.15,
        heat_threshold: 50,
      };
    },
    async getCluster(req, ctx) {
      rec('getCluster', req, ctx);
      const c = clusters.find((x) => x.id === req.id && x.scenario_id === req.scenario);
      if (!c) throw new ParleyError('cluster_not_found', `No cluster "${req.id}" in ${req.scenario}`, { path: 'id', rule: 'exists' });
      return {
        cluster: c,
        raw: req.include_raw ? [{ event_id: 'ev-1', client_id: 'acme', at: T, raw_text: 'window seat, call me at +1 555 0100', sanitized: 'window seat', flags: ['phone'] }] : [],
      };
    },
  };
  const patches = new Map<string, Patch>([
    [
      'p1',
      {
        patch_id: 'p1',
        parent_schema_id: 'flight_booking_v1',
        scenario_id: 'flight_booking',
        scope: 'global',
        status: 'proposed',
        pinned: false,
        timestamp: T,
        expires_at: '2026-04-01T00:00:00.000Z',
        source_cluster_id: 'c-window',
        new_keys: [
          {
            definition: { key_name: 'seat_preference', key_type: 'string', semantic_description: 'Where the passenger wants to sit', required: false, experimental: true },
            state: 'experimental',
            state_since: T,
            history: [{ from: 'proposed', to: 'experimental', at: T, reasons: ['dual gate passed'], figures: { heat: 12.345, clients: 9 }, actor: 'evaluator' }],
            metrics: { usage_frequency: 0.42, value_type_correctness: 1, client_adoption_rate: 0.5, payloads: 50, uses: 21, audits: 3, clients_received: 4, clients_adopted: 2 },
          },
          {
            definition: { key_name: 'meal_choice', key_type: 'string', semantic_description: 'Meal', required: false },
            state: 'deprecated',
            state_since: T,
            accept_until: '2026-03-15T00:00:00.000Z',
            history: [],
            metrics: { payloads: 50, uses: 0, audits: 0, clients_received: 4, clients_adopted: 0, usage_frequency: 0 },
          },
        ],
        modified_keys: [{ key_name: 'origin', semantic_description: 'IATA code of the departure airport' }],
        approval_reasons: ['touches a security-relevant key'],
        revision: 1,
      },
    ],
  ]);
  const decisions: Decision[] = [];
  const samples: AuditSample[] = [
    { sample_id: 'a1', patch_id: 'p1', key_name: 'seat_preference', scenario_id: 'flight_booking', client_id: 'acme', execution_id: 'x1', at: T, value: 'window', utterance: 'I want a window seat', verdict: 'pending' },
    { sample_id: 'a2', patch_id: 'p1', key_name: 'seat_preference', scenario_id: 'flight_booking', client_id: 'zen', execution_id: 'x2', at: T, value: 'aisle', verdict: 'aligned', judged_by: 'operator', judged_at: T },
  ];
  const found = (id: string) => {
    const p = patches.get(id);
    if (!p) throw new ParleyError('patch_not_found', `No patch "${id}"`, { path: 'patch_id', rule: 'exists' });
    return p;
  };
  const decide = (p: Patch, action: string, reason: string) =>
    decisions.push({ seq: decisions.length + 1, at: T, scenario_id: p.scenario_id, patch_id: p.patch_id, key_name: '', action, reasons: [reason], figures: { revision: p.revision, usage: 0.4242 }, actor: 'operator' });
  const evolution: EvolutionApi = {
    async listPatches(req, ctx) {
      rec('listPatches', req, ctx);
      return {
        patches: [...patches.values()].filter((p) => p.scenario_id === req.scenario && (!req.status || p.status === req.status)),
        queued: [{ cluster_id: 'c-meal', scenario_id: 'flight_booking', scope: 'acme', key_name: 'meal_choice', queued_at: T }],
      };
    },
    async getPatch(req, ctx) {
      rec('getPatch', req, ctx);
      return { patch: found(req.patch_id) };
    },
    async approvePatch(req, ctx) {
      rec('approvePatch', req, ctx);
      const p = found(req.patch_id);
      if (p.status !== 'proposed') throw new ParleyError('illegal_transition', `Patch ${p.patch_id} is ${p.status}, not proposed`, { path: 'patch_id', rule: 'proposed' });
      Object.assign(p, { status: 'active', revision: p.revision + 1 });
      decide(p, 'approve', req.reason);
      return { patch: p };
    },
    async rejectPatch(req, ctx) {
      rec('rejectPatch', req, ctx);
      const p = found(req.patch_id);
      Object.assign(p, { status: 'rejected', revision: p.revision + 1 });
      decide(p, 'reject', req.reason);
      return { patch: p };
    },
    async pinPatch(req, ctx) {
      rec('pinPatch', req, ctx);
      const p = found(req.patch_id);
      Object.assign(p, { pinned: req.pinned, revision: p.revision + 1 });
      decide(p, req.pinned ? 'pin' : 'unpin', req.reason);
      return { patch: p };
    },
    async editPatch(req, ctx) {
      rec('editPatch', req, ctx);
      const p = found(req.patch_id);
      if (req.rename === 'meal_preference') throw new ParleyError('invalid_params', '"meal_preference" collides with the existing key "meal_preference"', { path: 'params.rename', rule: 'key_exists' });
      const edited = { ...p, revision: p.revision + 1 };
      return { patch: edited, outcome: 'in_place' };
    },
    async listDecisions(req, ctx) {
      rec('listDecisions', req, ctx);
      return { decisions: decisions.filter((d) => (!req.patch_id || d.patch_id === req.patch_id) && d.seq > (req.after_seq ?? 0)) };
    },
    async listAuditSamples(req, ctx) {
      rec('listAuditSamples', req, ctx);
      return { samples: samples.filter((s) => s.scenario_id === req.scenario && (!req.verdict || s.verdict === req.verdict)) };
    },
    async judgeAuditSample(req, ctx) {
      rec('judgeAuditSample', req, ctx);
      const s = samples.find((x) => x.sample_id === req.sample_id);
      if (!s) throw new ParleyError('audit_sample_not_found', `No audit sample "${req.sample_id}"`, { path: 'sample_id', rule: 'exists' });
      if (s.verdict !== 'pending') throw new ParleyError('illegal_transition', `Sample ${s.sample_id} is already judged`, { path: 'sample_id', rule: 'pending' });
      Object.assign(s, { verdict: req.aligned ? 'aligned' : 'misaligned', judged_by: 'operator', judged_at: T });
      return { sample: s };
    },
  };
  return { pool, evolution, calls };
}

interface Gw {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The gateway as its own process on a free port. Registry, negotiation and
 * execution point at the fakes' gRPC server too (the operator commands call
 * only the registry's Authenticate); SEMANTIC_POOL_ADDR / EVOLUTION_ADDR only
 * when fakes are given. Every binding authenticates and authorizes as the
 * services do.
 */
async function gatewayProcess(opts: { pool?: SemanticPoolApi; evolution?: EvolutionApi }): Promise<Gw> {
  const auth = { authenticator };
  const services = [
    bindService(ApiKeyServiceService, fakeApiKeys, auth),
    ...(opts.pool ? [bindService(SemanticPoolServiceService, opts.pool, auth)] : []),
    ...(opts.evolution ? [bindService(EvolutionServiceService, opts.evolution, auth)] : []),
  ];
  const grpc = await startGrpcServer({ host: '127.0.0.1', port: 0, services });
  const addr = `127.0.0.1:${grpc.port}`;
  const port = await freePort();
  const proc = startProcess('gateway', 'apps/gateway/src/main.ts', {
    PORT: String(port),
    REGISTRY_ADDR: addr,
    NEGOTIATION_ADDR: addr,
    EXECUTION_ADDR: addr,
    SEMANTIC_POOL_ADDR: opts.pool ? addr : '',
    EVOLUTION_ADDR: opts.evolution ? addr : '',
    PARLEY_SERVICE_TOKEN: SERVICE_TOKEN,
    PARLEY_AUTH_CACHE_MS: '0',
    RATE_LIMIT_PER_SECOND: '0',
    PARLEY_EMBEDDER: 'offline',
    LOG_LEVEL: 'warn',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(`${url}/healthz`, proc);
  } catch (e) {
    await proc.stop();
    await grpc.stop(100);
    throw e;
  }
  return {
    url,
    output: () => proc.output(),
    stop: async () => {
      await proc.stop();
      await grpc.stop(100);
    },
  };
}

/** The rows of a table printed by the CLI, split on runs of two or more spaces. */
function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().split(/ {2,}/));
}

const TIMEOUT = { timeout: 60_000 };

/** What the CLI prints under an `unauthenticated` error and a `forbidden` one. */
const UNAUTHENTICATED_HINT = 'hint: pass an API key with --key or the env PARLEY_API_KEY (`npm start` prints the development key';
const FORBIDDEN_HINT = 'hint: the API key lacks the role (or namespace) this call needs: `parley whoami` shows what it holds; operators create keys with `parley keys create`';

describe('parley pool / patches / audits against a gateway', () => {
  let gw: Gw;
  let calls: Call[];
  /** No key at all. */
  let env: Record<string, string>;
  /** The operator's key in PARLEY_API_KEY. */
  let op: Record<string, string>;
  /** A client agent's key in PARLEY_API_KEY: authenticated, but without the operator role. */
  let client: Record<string, string>;
  beforeAll(async () => {
    const f = fakes();
    calls = f.calls;
    gw = await gatewayProcess({ pool: f.pool, evolution: f.evolution });
    env = { PARLEY_URL: gw.url };
    op = { ...env, PARLEY_API_KEY: OPERATOR_KEY };
    client = { ...env, PARLEY_API_KEY: CLIENT_KEY };
  }, 90_000);
  afterAll(() => gw.stop());

  it('parley --help lists the commands; a subcommand\'s help names --key and PARLEY_API_KEY, not the old token', TIMEOUT, async () => {
    const r = await parley({}, '--help');
    expect(r.code).toBe(0);
    for (const c of ['pool', 'patches', 'audits', 'keys', 'whoami', 'tokens', 'simulate', 'mcp']) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(r.stdout).toContain('PARLEY_API_KEY');
    const sub = await parley({}, 'patches', 'approve', '--help');
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('usage: parley patches approve ID --reason TEXT');
    expect(sub.stdout).toMatch(/--key KEY\s+your API key .*\(default env PARLEY_API_KEY;/);
    expect(sub.stdout).toContain('prefer the env: command-line arguments show in `ps`');
    expect(sub.stdout).not.toContain('PARLEY_OPERATOR_TOKEN');
    expect(sub.stdout).not.toContain('--token');
  });

  it('pool clusters: an aligned table, hottest first; --min-heat and --scope reach the service, as the key\'s principal', TIMEOUT, async () => {
    const r = await parley(op, 'pool', 'clusters', '--scenario', 'flight_booking');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The gateway called the service with the CLI's own key: the binding authenticated the operator.
    expect(calls.at(-1)?.method).toBe('listClusters');
    expect(callers.at(-1)).toBe('ops');
    const t = rows(r.stdout);
    expect(t[0]).toEqual(['flight_booking: 2 clusters (embedder offline, similarity threshold 0.15)']);
    expect(t[1]).toEqual(['ID', 'SCOPE', 'SIZE', 'CLIENTS', 'HEAT', 'PEAK', 'MATURED', 'KEY']);
    expect(t[2]).toEqual(['c-window', 'global', '37', '9', '12.35', '14.50', 'yes', 'seat_preference (p1)']);
    expect(t[3]).toEqual(['c-meal', 'acme', '4', '2', '0.50', '1.25', 'no', '-']);
    // Columns line up: every row's HEAT ends at the same offset as the header's.
    const lines = r.stdout.split('\n');
    const end = (lines[1] as string).indexOf('HEAT') + 4;
    expect((lines[2] as string).slice(end - 5, end)).toBe('12.35');
    expect((lines[3] as string).slice(end - 4, end)).toBe('0.50');

    const f = await parley(op, 'pool', 'clusters', '--scenario=flight_booking', '--min-heat', '1', '--scope', 'global', '--limit', '5');
    expect(f.code).toBe(0);
    expect(calls.at(-1)).toEqual({ method: 'listClusters', req: { scenario: 'flight_booking', min_heat: 1, scope: 'global', limit: 5 } });
    expect(rows(f.stdout).slice(2).map((x) => x[0])).toEqual(['c-window']);
  });

  it('--json prints the raw result, exactly what /rpc returns', TIMEOUT, async () => {
    const r = await parley(op, 'pool', 'clusters', '--scenario', 'flight_booking', '--json');
    expect(r.code).toBe(0);
    const direct = await fetch(`${gw.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR_KEY}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_clusters', params: { scenario: 'flight_booking' } }),
    }).then((x) => x.json() as Promise<{ result: unknown }>);
    expect(direct.result).toBeDefined();
    expect(JSON.parse(r.stdout)).toEqual(direct.result);
  });

  it('pool cluster: no key, an unknown key and a client agent\'s key are refused (exit 1, type, path, rule, hint); the operator sees the raw fragments', TIMEOUT, async () => {
    const plain = await parley(op, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'c-window');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('cluster c-window (flight_booking, scope global)');
    expect(plain.stdout).toContain('matured: yes at 2026-03-01T00:00:00.000Z; key seat_preference in patch p1');
    expect(plain.stdout).toContain('  - seat by the window');
    expect(plain.stdout).not.toContain('raw fragments');

    const before = calls.length;
    const anon = await parley(env, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'c-window', '--raw');
    expect(anon.code).toBe(1);
    expect(anon.stdout).toBe('');
    expect(anon.stderr).toContain('parley pool cluster: unauthenticated (at headers.authorization, rule credentials_required)');
    expect(anon.stderr).toContain(UNAUTHENTICATED_HINT);

    const wrong = await parley(env, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'c-window', '--raw', '--key', UNKNOWN_KEY);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('parley pool cluster: unauthenticated (at headers.authorization, rule api_key)');
    expect(wrong.stderr).toContain(UNAUTHENTICATED_HINT);

    const denied = await parley(client, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'c-window', '--raw');
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    expect(denied.stderr).toMatch(/^parley pool cluster: forbidden \(at principal.roles, rule role\): SemanticPoolService\/GetCluster needs one of the roles operator/);
    expect(denied.stderr).toContain(FORBIDDEN_HINT);
    expect(denied.stderr).not.toContain(UNAUTHENTICATED_HINT);
    // None of the three reached the pool's implementation.
    expect(calls.length).toBe(before);

    const raw = await parley(op, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'c-window', '--raw');
    expect(raw.code).toBe(0);
    expect(raw.stdout).toContain('raw fragments (1, operators only):');
    expect(raw.stdout).toMatch(/ev-1\s+acme\s+2026-03-01T00:00:00.000Z\s+phone\s+window seat, call me at \+1 555 0100\s+window seat/);

    const missing = await parley(op, 'pool', 'cluster', '--scenario', 'flight_booking', '--id', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('parley pool cluster: cluster_not_found (at id, rule exists): No cluster "nope" in flight_booking\n');
  });

  it('patches list: one row per key with state and metrics, who waits for an operator, the queue', TIMEOUT, async () => {
    const r = await parley(op, 'patches', 'list', '--scenario', 'flight_booking');
    expect(r.code).toBe(0);
    const t = rows(r.stdout);
    expect(t[0]).toEqual(['flight_booking: 1 patch']);
    expect(t[1]).toEqual(['ID', 'SCOPE', 'STATUS', 'PINNED', 'KEY', 'STATE', 'USAGE', 'TYPE OK', 'ADOPTION', 'ALIGNED']);
    expect(t[2]).toEqual(['p1', 'global', 'proposed', 'no', 'seat_preference', 'experimental', '42%', '100%', '50%', '-']);
    expect(t[3]).toEqual(['meal_choice', 'deprecated', '0%', '-', '-', '-']);
    expect(t[4]).toEqual(['origin', 'modified']);
    expect(r.stdout).toContain('p1 waits for an operator: touches a security-relevant key');
    expect(r.stdout).toContain('held back by the convergence guard (1):');
    expect(r.stdout).toMatch(/c-meal\s+acme\s+meal_choice\s+2026-03-01T00:00:00.000Z/);
    const f = await parley(op, 'patches', 'list', '--scenario', 'flight_booking', '--status', 'active');
    expect(f.code).toBe(0);
    expect(calls.at(-1)).toEqual({ method: 'listPatches', req: { scenario: 'flight_booking', status: 'active' } });
    expect(f.stdout).toContain('flight_booking: 0 patches');
  });

  it('patches show: keys with metrics and counts, descriptions, the history with its figures', TIMEOUT, async () => {
    const r = await parley(op, 'patches', 'show', 'p1');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('patch p1 (flight_booking, scope global, parent flight_booking_v1)');
    expect(r.stdout).toContain('status proposed, pinned no, revision 1');
    expect(r.stdout).toMatch(/seat_preference\s+experimental\s+42%\s+100%\s+50%\s+-\s+string\s+2026-03-01T00:00:00.000Z\s+50\s+21\s+3\s+2\/4/);
    expect(r.stdout).toContain('meal_choice: still accepted until 2026-03-15T00:00:00.000Z');
    expect(r.stdout).toMatch(/seat_preference\s+proposed → experimental\s+evaluator\s+dual gate passed\s+heat=12.35 clients=9/);
    expect(r.stdout).toContain('origin: IATA code of the departure airport');
    const missing = await parley(op, 'patches', 'show', 'p404');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('parley patches show: patch_not_found (at patch_id, rule exists): No patch "p404"\n');
  });

  it('patches approve needs an operator key; with it the decision is made once, a second time is illegal_transition', TIMEOUT, async () => {
    const anon = await parley(env, 'patches', 'approve', 'p1', '--reason', 'reviewed');
    expect(anon.code).toBe(1);
    expect(anon.stderr).toMatch(/^parley patches approve: unauthenticated \(at headers.authorization, rule credentials_required\)/);
    const denied = await parley(client, 'patches', 'approve', 'p1', '--reason', 'reviewed');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^parley patches approve: forbidden \(at principal.roles, rule role\): EvolutionService\/ApprovePatch needs one of the roles operator/);
    expect(denied.stderr).toContain(FORBIDDEN_HINT);
    expect(calls.some((c) => c.method === 'approvePatch')).toBe(false);

    const r = await parley(op, 'patches', 'approve', 'p1', '--reason', 'reviewed by the travel team');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(calls.at(-1)).toEqual({ method: 'approvePatch', req: { patch_id: 'p1', reason: 'reviewed by the travel team' } });
    expect(callers.at(-1)).toBe('ops');
    expect(r.stdout).toContain('patch p1 approved');
    expect(r.stdout).toContain('status active, pinned no, revision 2');

    // --key wins over PARLEY_API_KEY: the client's key in the env, the operator's on the command line.
    const again = await parley(client, 'patches', 'approve', 'p1', '--reason', 'again', '--key', OPERATOR_KEY);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('parley patches approve: illegal_transition (at patch_id, rule proposed): Patch p1 is active, not proposed\n');
  });

  it('patches pin / unpin, then decisions lists every decision with its figures', TIMEOUT, async () => {
    const pin = await parley(op, 'patches', 'pin', 'p1', '--reason', 'hold during the audit', '--json');
    expect(pin.code).toBe(0);
    expect(JSON.parse(pin.stdout).patch).toMatchObject({ patch_id: 'p1', pinned: true });
    expect(calls.at(-1)).toEqual({ method: 'pinPatch', req: { patch_id: 'p1', pinned: true, reason: 'hold during the audit' } });
    const unpin = await parley(op, 'patches', 'unpin', 'p1', '--reason', 'audit done');
    expect(unpin.code).toBe(0);
    expect(unpin.stdout).toContain('patch p1 unpinned');
    expect(calls.at(-1)).toEqual({ method: 'pinPatch', req: { patch_id: 'p1', pinned: false, reason: 'audit done' } });

    const d = await parley(op, 'patches', 'decisions', '--scenario', 'flight_booking', '--patch', 'p1');
    expect(d.code).toBe(0);
    expect(calls.at(-1)).toEqual({ method: 'listDecisions', req: { scenario: 'flight_booking', patch_id: 'p1' } });
    const t = rows(d.stdout);
    expect(t[0]).toEqual(['flight_booking: 3 decisions']);
    expect(t[1]).toEqual(['SEQ', 'AT', 'PATCH', 'KEY', 'ACTION', 'ACTOR', 'REASONS', 'FIGURES']);
    expect(t.slice(2).map((x) => x[4])).toEqual(['approve', 'pin', 'unpin']);
    expect(t[3]).toEqual(['2', T, 'p1', '-', 'pin', 'operator', 'hold during the audit', 'revision=3 usage=0.42']);
    const after = await parley(op, 'patches', 'decisions', '--scenario', 'flight_booking', '--after', '2', '--limit', '10');
    expect(calls.at(-1)).toEqual({ method: 'listDecisions', req: { scenario: 'flight_booking', after_seq: 2, limit: 10 } });
    expect(rows(after.stdout).slice(2).map((x) => x[0])).toEqual(['3']);
  });

  it('patches edit: --key-name names the key (--key stays the API key), values split on commas; a bad edit exits 1 naming the path and rule', TIMEOUT, async () => {
    const r = await parley(op, 'patches', 'edit', 'p1', '--key-name', 'seat_preference', '--rename', 'seat_choice', '--values', 'window,aisle', '--type', 'string', '--description', 'The seat the traveller prefers.', '--reason', 'clearer name');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(calls.at(-1)).toEqual({
      method: 'editPatch',
      req: { patch_id: 'p1', key: 'seat_preference', rename: 'seat_choice', values: ['window', 'aisle'], type: 'string', description: 'The seat the traveller prefers.', reason: 'clearer name' },
    });
    expect(r.stdout).toContain('patch p1 key seat_preference: edited in place');
    const clash = await parley(op, 'patches', 'edit', 'p1', '--key-name', 'seat_preference', '--rename', 'meal_preference', '--reason', 'r');
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain('invalid_params (at params.rename, rule key_exists)');
    const nothing = await parley(op, 'patches', 'edit', 'p1', '--key-name', 'seat_preference', '--reason', 'r');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('give at least one of --rename, --values, --type, --description');
    const badType = await parley(op, 'patches', 'edit', 'p1', '--key-name', 'seat_preference', '--type', 'float', '--reason', 'r');
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('--type must be one of');
  });

  it('audits list (--pending) and judge (--aligned / --misaligned, --note)', TIMEOUT, async () => {
    const all = await parley(op, 'audits', 'list', '--scenario', 'flight_booking');
    expect(all.code).toBe(0);
    const t = rows(all.stdout);
    expect(t[0]).toEqual(['flight_booking: 2 audit samples']);
    expect(t[1]).toEqual(['ID', 'PATCH', 'KEY', 'CLIENT', 'AT', 'VERDICT', 'VALUE', 'UTTERANCE']);
    expect(t[2]).toEqual(['a1', 'p1', 'seat_preference', 'acme', T, 'pending', '"window"', 'I want a window seat']);
    const pending = await parley(op, 'audits', 'list', '--scenario', 'flight_booking', '--pending');
    expect(calls.at(-1)).toEqual({ method: 'listAuditSamples', req: { scenario: 'flight_booking', verdict: 'pending' } });
    expect(rows(pending.stdout)[0]).toEqual(['flight_booking: 1 pending audit sample']);

    const anon = await parley(env, 'audits', 'judge', 'a1', '--misaligned');
    expect(anon.code).toBe(1);
    expect(anon.stderr).toContain('unauthenticated (at headers.authorization, rule credentials_required)');
    const denied = await parley(client, 'audits', 'judge', 'a1', '--misaligned');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('forbidden (at principal.roles, rule role): EvolutionService/JudgeAuditSample needs one of the roles operator');
    expect(calls.some((c) => c.method === 'judgeAuditSample')).toBe(false);
    const j = await parley(op, 'audits', 'judge', 'a1', '--misaligned', '--note', 'user meant the aisle');
    expect(j.code).toBe(0);
    expect(calls.at(-1)).toEqual({ method: 'judgeAuditSample', req: { sample_id: 'a1', aligned: false, note: 'user meant the aisle' } });
    expect(j.stdout.trim()).toBe(`sample a1 judged misaligned by operator at ${T} (patch p1, key seat_preference, value "window")`);
    const twice = await parley(op, 'audits', 'judge', 'a1', '--aligned');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('illegal_transition (at sample_id, rule pending)');
    const none = await parley(op, 'audits', 'judge', 'zz', '--aligned');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('audit_sample_not_found (at sample_id, rule exists)');
  });

  it('an error the gateway finds in the params: exit 1 with type, path and rule', TIMEOUT, async () => {
    const r = await parley(op, 'patches', 'list', '--scenario', '!!!');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^parley patches list: invalid_params \(at params.scenario, rule scenario_slug\)/);
  });

  const usage: [string, string[], RegExp][] = [
    ['no subcommand', ['patches'], /usage: parley patches <subcommand>/],
    ['an unknown subcommand', ['pool', 'heat'], /unknown subcommand "heat"/],
    ['a missing --scenario', ['pool', 'clusters'], /--scenario is required/],
    ['an unknown option', ['patches', 'list', '--scenario', 's', '--bogus'], /unknown option --bogus/],
    ['a missing value', ['patches', 'list', '--scenario'], /--scenario needs a value/],
    ['a missing --key value', ['patches', 'list', '--scenario', 's', '--key'], /--key needs a value/],
    ['the old --token', ['patches', 'list', '--scenario', 's', '--token', 'x'], /--token is gone .*pass your API key with --key or the env PARLEY_API_KEY/],
    ['a bad --status', ['patches', 'list', '--scenario', 's', '--status', 'done'], /--status must be one of proposed, active, rejected/],
    ['a bad --min-heat', ['pool', 'clusters', '--scenario', 's', '--min-heat', 'hot'], /--min-heat must be a number >= 0/],
    ['a bad --limit', ['audits', 'list', '--scenario', 's', '--limit', '0'], /--limit must be an integer from 1 to 1000/],
    ['no patch id', ['patches', 'show'], /ID \(the patch id\) is missing/],
    ['two patch ids', ['patches', 'show', 'p1', 'p2'], /unexpected argument "p2"/],
    ['approve without --reason', ['patches', 'approve', 'p1'], /--reason is required/],
    ['judge without a verdict', ['audits', 'judge', 'a1'], /exactly one of --aligned and --misaligned/],
    ['judge with both verdicts', ['audits', 'judge', 'a1', '--aligned', '--misaligned'], /exactly one of --aligned and --misaligned/],
    ['a bad --url', ['patches', 'show', 'p1', '--url', 'ftp://x'], /--url must be an http\(s\) URL/],
  ];
  it.each(usage)('%s: exit 2, the message on stderr, nothing on stdout, no call', TIMEOUT, async (_name, args, message) => {
    const before = calls.length;
    const r = await parley(op, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(calls.length).toBe(before);
  });
});

describe('parley patches against gateways that cannot serve it', () => {
  let bare: Gw;
  beforeAll(async () => {
    bare = await gatewayProcess({});
  }, 90_000);
  afterAll(() => bare.stop());

  it('no evolution services behind the gateway: unavailable, exit 1 (the key itself is accepted)', TIMEOUT, async () => {
    const r = await parley({ PARLEY_URL: bare.url, PARLEY_API_KEY: OPERATOR_KEY }, 'patches', 'list', '--scenario', 'flight_booking');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^parley patches list: unavailable: schema self-evolution is not running/);
    expect(r.stderr).not.toContain('hint:');
  });

  it('no gateway at all: unavailable, exit 1', TIMEOUT, async () => {
    const r = await parley({ PARLEY_URL: 'http://127.0.0.1:9', PARLEY_API_KEY: OPERATOR_KEY }, 'audits', 'list', '--scenario', 'flight_booking');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unavailable: Parley gateway at http://127.0.0.1:9 unreachable');
  });
});
