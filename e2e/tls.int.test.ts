import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { RegistryServiceService, createGrpcClient } from '@parley/contracts';
import { REPO_ROOT, createTestDatabase, findExecutable, findNatsServer, freePort, integrationInfra, startProcess, testIdentity, toolGate, uniquePrefix, waitFor, waitReady, type ServiceProcess } from '@parley/testkit';

/**
 * TLS end to end (draft-zhou §7, "protect this data in transit"): development
 * certificates from scripts/gen-dev-certs.sh, a private nats-server that
 * requires TLS and per-service users, and the registry and the gateway as
 * separate processes with PARLEY_TLS_*: HTTPS at the gateway, TLS on the
 * gateway→registry gRPC call and on the registry's NATS connection.
 */
const infra = integrationInfra('e2e: TLS in transit');
// nats-server as scripts/start-nats.mjs finds it; missing under CI=true, the suite fails naming it.
const NATS_SERVER = findNatsServer();
const tools = toolGate('e2e: TLS in transit', { 'nats-server': NATS_SERVER, openssl: findExecutable('openssl') });

const REGISTRY_PASSWORD = 'registry-dev-password';
const GATEWAY_PASSWORD = 'gateway-dev-password';

describe.skipIf(!infra || tools.skip)('TLS in transit: HTTPS gateway, gRPC over TLS, NATS over TLS with per-service credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-tls-e2e-'));
  const certs = join(dir, 'certs');
  const procs: ServiceProcess[] = [];
  let nats: ChildProcess | undefined;
  let natsOut = '';
  let natsUrl = '';
  let monitorUrl = '';
  let gatewayPort = 0;
  let registryAddr = '';
  let ca: Buffer;
  let db: { url: string; drop: () => Promise<void> };
  const prefix = uniquePrefix();
  // One identity (draft-zhou §7, authenticated callers) for both processes; the test calls as the operator the registry bootstraps.
  const identity = testIdentity();

  beforeAll(async () => {
    tools.assertPresent();
    const out = execFileSync('bash', [join(REPO_ROOT, 'scripts/gen-dev-certs.sh'), certs], { encoding: 'utf8' });
    expect(out).toContain(`wrote ${join(certs, 'server.crt')}`);
    // Idempotent: a second run keeps what is there.
    expect(execFileSync('bash', [join(REPO_ROOT, 'scripts/gen-dev-certs.sh'), certs], { encoding: 'utf8' })).not.toContain('wrote');
    ca = readFileSync(join(certs, 'ca.crt'));

    const [natsPort, monitorPort, regGrpc, regHealth, gwPort, unused1, unused2] = await Promise.all(Array.from({ length: 7 }, freePort));
    natsUrl = `tls://127.0.0.1:${natsPort}`;
    monitorUrl = `http://127.0.0.1:${monitorPort}`;
    writeFileSync(
      join(dir, 'nats.conf'),
      [
        `listen: "127.0.0.1:${natsPort}"`,
        `http: "127.0.0.1:${monitorPort}"`,
        `jetstream { store_dir: "${join(dir, 'js')}" }`,
        `tls { cert_file: "${join(certs, 'server.crt')}", key_file: "${join(certs, 'server.key')}", ca_file: "${join(certs, 'ca.crt')}", timeout: 5 }`,
        `authorization { users = [ { user: registry, password: "${REGISTRY_PASSWORD}" }, { user: gateway, password: "${GATEWAY_PASSWORD}" } ] }`,
      ].join('\n'),
    );
    nats = spawn(NATS_SERVER!, ['-c', join(dir, 'nats.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => {
      natsOut = (natsOut + b.toString('utf8')).slice(-10_000);
    };
    nats.stdout?.on('data', keep);
    nats.stderr?.on('data', keep);
    await waitFor('the private nats-server', async () => {
      if (nats?.exitCode !== null) throw new Error(`nats-server exited:\n${natsOut}`);
      return (await fetch(`${monitorUrl}/healthz`).catch(() => undefined))?.ok ? true : undefined;
    });

    db = await createTestDatabase(infra!.databaseUrl);
    const tlsEnv = { PARLEY_TLS_CERT: join(certs, 'server.crt'), PARLEY_TLS_KEY: join(certs, 'server.key'), PARLEY_TLS_CA: join(certs, 'ca.crt') };
    registryAddr = `127.0.0.1:${regGrpc}`;
    const registry = startProcess('registry', 'apps/registry/src/main.ts', {
      ...identity.env,
      ...tlsEnv,
      DATABASE_URL: db.url,
      NATS_URL: natsUrl,
      NATS_USER: 'registry',
      NATS_PASSWORD: REGISTRY_PASSWORD,
      PARLEY_SUBJECT_PREFIX: prefix,
      GRPC_PORT: `${regGrpc}`,
      HEALTH_PORT: `${regHealth}`,
    });
    procs.push(registry);
    // Ready means the database and the NATS connection (over TLS, as user registry) are up.
    await waitReady(`http://127.0.0.1:${regHealth}/readyz`, registry);

    gatewayPort = gwPort as number;
    const gateway = startProcess('gateway', 'apps/gateway/src/main.ts', {
      ...identity.env,
      ...tlsEnv,
      PORT: `${gwPort}`,
      REGISTRY_ADDR: registryAddr,
      // Negotiation and execution are not started: only the registry path is under test.
      NEGOTIATION_ADDR: `127.0.0.1:${unused1}`,
      EXECUTION_ADDR: `127.0.0.1:${unused2}`,
    });
    procs.push(gateway);
    await waitFor(
      'the gateway over HTTPS',
      async () => {
        if (gateway.child.exitCode !== null) throw new Error(`gateway exited:\n${gateway.output()}`);
        return (await httpsGet(`https://127.0.0.1:${gwPort}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined;
      },
    );
  }, 120_000);

  afterAll(async () => {
    for (const p of procs.reverse()) {
      const code = await p.stop();
      expect(code, `${p.name} exit code\n${p.output()}`).toBe(0);
    }
    if (nats && nats.exitCode === null) {
      const exited = new Promise((r) => nats!.once('exit', r));
      nats.kill('SIGTERM');
      await exited;
    }
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  function httpsGet(url: string): Promise<{ status: number; text: string }> {
    return send(url, 'GET');
  }

  /** `key`: the Bearer credential (default the operator key; null sends none). */
  function send(url: string, method: string, body?: string, key: string | null = identity.operatorKey): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      const headers: Record<string, string> = { ...(body ? { 'content-type': 'application/json' } : {}), ...(key !== null ? { authorization: `Bearer ${key}` } : {}) };
      const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
        u,
        { method, ca, headers, timeout: 5000 },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(body);
    });
  }

  let rpcId = 0;
  async function rpc(base: string, method: string, params: unknown, key?: string | null) {
    const r = await send(`${base}/rpc`, 'POST', JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }), key);
    return { status: r.status, body: JSON.parse(r.text) };
  }

  it('serves JSON-RPC over HTTPS, verified against the dev CA, through gRPC over TLS to the registry', async () => {
    const base = `https://127.0.0.1:${gatewayPort}`;
    const reg = await rpc(base, 'register_agent', { name: 'tls-agent', scenarios: ['tls_probe'] });
    expect(reg.body.error, JSON.stringify(reg.body)).toBeUndefined();
    const list = await rpc(base, 'list_agents', { scenario: 'tls_probe' });
    expect(list.status).toBe(200);
    expect(list.body.result.agents.map((a: { name: string }) => a.name)).toEqual(['tls-agent']);
    // Over TLS too, every call needs credentials.
    const anonymous = await rpc(base, 'list_agents', { scenario: 'tls_probe' }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.data).toMatchObject({ type: 'unauthenticated', rule: 'credentials_required' });
    // localhost is a SAN as well.
    expect((await send(`https://localhost:${gatewayPort}/healthz`, 'GET')).status).toBe(200);
  });

  it('refuses plain HTTP at the gateway', async () => {
    await expect(rpc(`http://127.0.0.1:${gatewayPort}`, 'list_agents', {})).rejects.toThrow();
  });

  it('refuses HTTPS clients that do not trust the dev CA', async () => {
    await expect(fetch(`https://127.0.0.1:${gatewayPort}/healthz`)).rejects.toThrow();
  });

  it('serves gRPC only over TLS: a plaintext client fails, a TLS client with the CA succeeds', async () => {
    const plain = createGrpcClient(RegistryServiceService, registryAddr, { deadlineMs: 3000, credential: identity.operatorKey });
    try {
      await expect(plain.api.listAgents({ scenario: 'tls_probe' })).rejects.toMatchObject({ type: 'unavailable' });
    } finally {
      plain.close();
    }
    const anonymous = createGrpcClient(RegistryServiceService, registryAddr, { deadlineMs: 3000, tls: { ca } });
    try {
      // TLS connects, and the call is still authenticated.
      await expect(anonymous.api.listAgents({ scenario: 'tls_probe' })).rejects.toMatchObject({ type: 'unauthenticated' });
    } finally {
      anonymous.close();
    }
    const secure = createGrpcClient(RegistryServiceService, registryAddr, { deadlineMs: 3000, tls: { ca }, credential: identity.operatorKey });
    try {
      const res = await secure.api.listAgents({ scenario: 'tls_probe' });
      expect(res.agents.map((a) => a.name)).toEqual(['tls-agent']);
    } finally {
      secure.close();
    }
  });

  it("keeps the registry's NATS connection on TLS, authenticated as its own user", async () => {
    const connz = (await (await fetch(`${monitorUrl}/connz?auth=true`)).json()) as {
      connections?: { name?: string; tls_version?: string; authorized_user?: string }[];
    };
    const mine = (connz.connections ?? []).filter((c) => c.name === 'parley-registry');
    expect(mine.length, JSON.stringify(connz)).toBeGreaterThan(0);
    for (const c of mine) {
      expect(c.tls_version).toMatch(/^1\.[23]$/);
      expect(c.authorized_user).toBe('registry');
    }
  });

  it('refuses NATS connections with a wrong password, or without trusting the CA', async () => {
    await expect(connect({ servers: natsUrl, tls: { ca: ca.toString('utf8') }, user: 'registry', pass: 'wrong-password', reconnect: false })).rejects.toThrow();
    await expect(connect({ servers: natsUrl, user: 'registry', pass: REGISTRY_PASSWORD, reconnect: false })).rejects.toThrow();
    // The right credentials over TLS work (here as the gateway's user).
    const nc = await connect({ servers: natsUrl, tls: { ca: ca.toString('utf8') }, user: 'gateway', pass: GATEWAY_PASSWORD, reconnect: false });
    await nc.flush();
    await nc.close();
  });
});
