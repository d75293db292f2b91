import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsBus, createSubjects, type NatsBus } from '@parley/events';
import { decodeDispatchReply, encodeDispatch } from '@parley/protocol';
import { REPO_ROOT, findExecutable, findNatsServer, freePort, toolGate, uniquePrefix, waitFor } from '@parley/testkit';
import { createAgent, type Agent, type AgentNatsOptions } from '@parley/agent-sdk';

/**
 * An agent built with the SDK on a NATS that requires TLS and a user (draft-zhou §7, transport security and per-service credentials):
 * the deployments' own server configuration (infra/nats/nats.conf, as docker compose and the dev
 * Kubernetes overlay run it) with certificates from scripts/gen-dev-certs.sh, the agent given what
 * `natsFromEnv(env)` (@parley/runtime) makes of the example agents' environment, called by a
 * service-side connection as the user `execution`.
 */
// The deployments' nats-server (NATS_SERVER_BIN, PATH, /usr/sbin, …) and openssl (gen-dev-certs.sh):
// missing under CI=true, the suite fails naming them; elsewhere it is skipped, loudly.
const SUITE = 'agent SDK over TLS';
const NATS_SERVER = findNatsServer();
const tools = toolGate(SUITE, { 'nats-server': NATS_SERVER, openssl: findExecutable('openssl') });

const PASSWORDS = {
  REGISTRY_NATS_PASSWORD: 'registry-test-password',
  NEGOTIATION_NATS_PASSWORD: 'negotiation-test-password',
  EXECUTION_NATS_PASSWORD: 'execution-test-password',
  SEMANTIC_POOL_NATS_PASSWORD: 'semantic-pool-test-password',
  EVOLUTION_NATS_PASSWORD: 'evolution-test-password',
  AGENTS_NATS_PASSWORD: 'agents-test-password',
};

describe.skipIf(tools.skip)('agent SDK over TLS: NATS with TLS and per-service users (infra/nats/nats.conf)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-agent-tls-'));
  const certs = join(dir, 'certs');
  const prefix = uniquePrefix();
  const subjects = createSubjects(prefix);
  let nats: ChildProcess | undefined;
  let natsOut = '';
  let natsPort = 0;
  let monitorUrl = '';
  let agent: Agent | undefined;
  let execution: NatsBus | undefined;

  /**
   * The NATS options of an example agent (compose: NATS_URL nats://nats:4222, NATS_TLS=true, the
   * client certificate, NATS_USER agents), here on 127.0.0.1 (a SAN of the dev certificate): what
   * natsFromEnv returns for that environment (PEM contents, not paths).
   */
  const agentNats = (over: { ca?: string; cert?: string; key?: string; user?: string; pass?: string; tls?: false } = {}): AgentNatsOptions => {
    const pem = (f: string) => readFileSync(join(certs, f), 'utf8');
    return {
      servers: `nats://127.0.0.1:${natsPort}`,
      ...(over.tls === false ? {} : { tls: { ca: over.ca ?? pem('ca.crt'), cert: over.cert ?? pem('client.crt'), key: over.key ?? pem('client.key') } }),
      user: over.user ?? 'agents',
      pass: over.pass ?? PASSWORDS.AGENTS_NATS_PASSWORD,
    };
  };

  beforeAll(async () => {
    tools.assertPresent();
    execFileSync('bash', [join(REPO_ROOT, 'scripts/gen-dev-certs.sh'), certs], { stdio: 'ignore' });
    natsPort = await freePort();
    const monitorPort = await freePort();
    monitorUrl = `http://127.0.0.1:${monitorPort}`;
    // Flags override the file's port; TLS and users come from the file, paths and passwords from the environment.
    nats = spawn(NATS_SERVER!, ['-c', join(REPO_ROOT, 'infra/nats/nats.conf'), '-a', '127.0.0.1', '-p', `${natsPort}`, '-m', `${monitorPort}`, '-js', '-sd', join(dir, 'js')], {
      env: { ...PASSWORDS, PARLEY_TLS_CERT: join(certs, 'server.crt'), PARLEY_TLS_KEY: join(certs, 'server.key'), PARLEY_TLS_CA: join(certs, 'ca.crt') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (b: Buffer) => {
      natsOut = (natsOut + b.toString('utf8')).slice(-10_000);
    };
    nats.stdout?.on('data', keep);
    nats.stderr?.on('data', keep);
    await waitFor('the private nats-server', async () => {
      if (nats?.exitCode !== null) throw new Error(`nats-server exited:\n${natsOut}`);
      return (await fetch(`${monitorUrl}/healthz`).catch(() => undefined))?.ok ? true : undefined;
    });

    agent = await createAgent({ name: 'tls-agent', prefix, nats: agentNats() });
    await agent.serve('tls_probe', (payload, ctx) => ({ echoed: payload, client: ctx.client_id }));
    // The execution service's side, as apps/execution connects.
    execution = await createNatsBus({
      ...agentNats({ cert: readFileSync(join(certs, 'server.crt'), 'utf8'), key: readFileSync(join(certs, 'server.key'), 'utf8'), user: 'execution', pass: PASSWORDS.EXECUTION_NATS_PASSWORD }),
      subjects,
      name: 'parley-execution-test',
    });
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    await execution?.close();
    if (nats && nats.exitCode === null) {
      const exited = new Promise((r) => nats!.once('exit', r));
      nats.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('serves a scenario over TLS: a dispatch from the execution user reaches the handler and comes back', async () => {
    const body = encodeDispatch({
      execution_id: '00000000-0000-4000-8000-000000000001',
      schema_id: 'tls_probe_v1',
      scenario_id: 'tls_probe',
      client_id: 'c1',
      payload: { x: 1 } as never,
      deadline: new Date(Date.now() + 5000).toISOString(),
    });
    const reply = decodeDispatchReply(await execution!.request(subjects.execute('tls_probe', 'tls-agent'), body, { timeoutMs: 5000 }), 'tls-agent');
    expect(reply).toEqual({ ok: true, result: { echoed: { x: 1 }, client: 'c1' } });
  });

  it('connects with TLS 1.2+ as its own user', async () => {
    const connz = (await (await fetch(`${monitorUrl}/connz?auth=true`)).json()) as { connections?: { name?: string; tls_version?: string; authorized_user?: string }[] };
    const byName = (n: string) => (connz.connections ?? []).filter((c) => c.name === n);
    expect(byName('parley-agent-tls-agent'), JSON.stringify(connz)).toHaveLength(1);
    expect(byName('parley-agent-tls-agent')[0]).toMatchObject({ tls_version: expect.stringMatching(/^1\.[23]$/), authorized_user: 'agents' });
    expect(byName('parley-execution-test')[0]).toMatchObject({ authorized_user: 'execution' });
  });

  it('cannot connect with a wrong password, without TLS, or without trusting the CA', async () => {
    await expect(createAgent({ name: 'bad-agent', prefix, nats: agentNats({ pass: 'wrong-password' }) })).rejects.toThrow();
    // Without TLS options the client still upgrades (the server requires TLS), but trusts only the system CAs.
    await expect(createAgent({ name: 'bad-agent', prefix, nats: agentNats({ tls: false }) })).rejects.toThrow();
    // Another development CA: the server's certificate does not verify.
    const other = join(dir, 'other');
    execFileSync('bash', [join(REPO_ROOT, 'scripts/gen-dev-certs.sh'), other], { stdio: 'ignore' });
    await expect(createAgent({ name: 'bad-agent', prefix, nats: agentNats({ ca: readFileSync(join(other, 'ca.crt'), 'utf8') }) })).rejects.toThrow();
  });
});
