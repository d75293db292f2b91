/**
 * `npm run start:nats` (scripts/start-nats.mjs): npm start on a nats-server of its own, so that a server agent
 * in another process attaches. The agent here is @parley/agent-sdk in the test's process, connected only through
 * the NATS URL Parley prints; the client executes through the gateway and gets the agent's answer. Without a
 * nats-server binary the script says what to install and exits 1. (The packed SDK doing the same from a project
 * outside the repository: e2e/packages.int.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createAgent, type Agent } from '@parley/agent-sdk';
import { mintApiKey } from '@parley/auth';
import { createParleyClient } from '@parley/client';
import { REPO_ROOT, freePort, isCI } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = join(REPO_ROOT, 'scripts/start-nats.mjs');

function natsServerBinary(): string | undefined {
  for (const d of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/bin']) {
    try {
      accessSync(join(d, 'nats-server'), constants.X_OK);
      return join(d, 'nats-server');
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(env: Record<string, string>): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [SCRIPT], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exit };
}

const accepts = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ host, port });
    c.setTimeout(3000, () => (c.destroy(), resolve(false)));
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });

describe('npm run start:nats without nats-server', () => {
  it('says what to install and how to point Parley at a NATS server, exit 1', { timeout: 30_000 }, async () => {
    const r = run({ NATS_SERVER_BIN: '/nonexistent/nats-server', NATS_URL: '' });
    expect(await r.exit).toBe(1);
    expect(r.out()).toContain('start:nats: NATS_SERVER_BIN=/nonexistent/nats-server is not an executable file.');
    expect(r.out()).toContain('sudo apt-get install nats-server');
    expect(r.out()).toContain('NATS_URL=nats://127.0.0.1:4222 npm start');
  });
});

const bin = natsServerBinary();
if (!bin) {
  const why = 'nats-server is not installed (Debian package nats-server)';
  if (isCI()) throw new Error(`start:nats test: ${why}`);
  console.warn(`\n!!! SKIPPING "npm run start:nats with an outside agent": ${why}\n`);
}

describe.skipIf(!bin)('npm run start:nats: a server agent in another process attaches', () => {
  const devKey = mintApiKey().key;
  let proc: ReturnType<typeof run>;
  let url = '';
  let natsPort = 0;
  let agent: Agent | undefined;

  beforeAll(async () => {
    const [port, wanted] = await Promise.all([freePort(), freePort()]);
    url = `http://127.0.0.1:${port}`;
    // HOST=0.0.0.0: npm start's variables pass through (the default, 127.0.0.1, is readme-examples.test.ts's).
    proc = run({ PORT: String(port), HOST: '0.0.0.0', NATS_PORT: String(wanted), NATS_URL: '', PARLEY_DEMO: '0', PARLEY_DEV_KEY: devKey, PARLEY_DATA_DIR: '' });
    const until = Date.now() + 150_000;
    for (;;) {
      if (proc.child.exitCode !== null) throw new Error(`start:nats exited:\n${proc.out()}`);
      if (/Server agents in other processes attach through NATS/.test(proc.out())) break;
      if (Date.now() > until) throw new Error(`start:nats not ready:\n${proc.out()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const m = /natsUrl: 'nats:\/\/127\.0\.0\.1:(\d+)'/.exec(proc.out());
    natsPort = Number(m?.[1]);
    expect(natsPort).toBe(wanted);
  }, 160_000);

  afterAll(async () => {
    await agent?.close();
    if (proc && proc.child.exitCode === null) {
      proc.child.kill('SIGTERM');
      await proc.exit;
    }
  }, 30_000);

  it('the printed NATS URL is the one an agent needs: it serves a scenario and the gateway executes through it', { timeout: 60_000 }, async () => {
    agent = await createAgent({ name: 'outside-air', natsUrl: `nats://127.0.0.1:${natsPort}`, apiKey: devKey });
    await agent.serve('flight_booking', (payload, ctx) => ({ booking_id: `OUT-${ctx.execution_id.slice(0, 6)}`, origin: payload.origin as string, served_by: 'outside-air' }));
    await agent.register(url, { scenarios: ['flight_booking'] }, [
      {
        template: {
          schema_id: 'outside_flight_v1',
          scenario: 'flight_booking',
          keys: [{ key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport. Example: from Beijing -> PEK' }],
        },
      },
    ]);
    const client = createParleyClient(url, { apiKey: devKey });
    const template = await client.getSchemaTemplate({ scenario: 'flight_booking', agent: 'outside-air' });
    expect(template.schema_id).toBe('outside_flight_v1');
    const result = await client.execute({ schema_id: 'outside_flight_v1', agent: 'outside-air', payload: { origin: 'PEK' } });
    expect(result).toMatchObject({ origin: 'PEK', served_by: 'outside-air' });
    expect(String(result.booking_id)).toMatch(/^OUT-/);
  });

  it('HOST=0.0.0.0 listens on every interface: another address of this machine reaches the gateway', async () => {
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!other) return void console.warn('no non-loopback IPv4 address on this machine: the HOST check has nothing to try');
    expect(await accepts(Number(new URL(url).port), other)).toBe(true);
    expect(proc.out()).toContain('listening on 0.0.0.0');
  });

  it('SIGTERM stops Parley and its nats-server (exit 0, the port closed)', { timeout: 40_000 }, async () => {
    await agent?.close();
    agent = undefined;
    proc.child.kill('SIGTERM');
    expect(await proc.exit).toBe(0);
    expect(await accepts(natsPort)).toBe(false);
  });
});
