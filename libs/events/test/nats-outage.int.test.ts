import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, isCI } from '@parley/testkit';
import { createNatsBus, createSubjects } from '@parley/events';
import { ParleyError } from '@parley/protocol';

// A NATS outage is reported as what it is: the bus (`unavailable`, details.dependency "nats"),
// not an agent that did not answer (`agent_timeout`). The test runs a nats-server of its own,
// so that stopping it harms no one else.

const BIN = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((p): p is string => !!p && existsSync(p));
if (!BIN && isCI()) throw new Error('nats-server is required for this test under CI (set NATS_SERVER_BIN)');

const quiet = { warn: () => {}, error: () => {} };
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function natsServer(port: number): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-nats-outage-'));
  dirs.push(dir);
  const child = spawn(BIN as string, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
  children.push(child);
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}`).then(
      () => false,
      (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code) !== 'ECONNREFUSED',
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  return child;
}

describe.skipIf(!BIN)('a NATS outage', () => {
  it('makes a request fail fast as `unavailable` naming NATS, retryable, and the bus recovers when NATS is back', async () => {
    const port = await freePort();
    const server = await natsServer(port);
    const subjects = createSubjects(`outage${port}`);
    const bus = await createNatsBus({ servers: `nats://127.0.0.1:${port}`, subjects, name: 'outage-test', logger: quiet });
    const stop = await bus.serve('parley.outage.echo', 'q', async (b) => b);
    expect(new TextDecoder().decode(await bus.request('parley.outage.echo', new TextEncoder().encode('hi'), { timeoutMs: 2000 }))).toBe('hi');

    server.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const err = (await bus.request('parley.outage.echo', new Uint8Array(), { timeoutMs: 3000 }).catch((e: unknown) => e)) as ParleyError;
    expect(err).toBeInstanceOf(ParleyError);
    expect(err.type).toBe('unavailable');
    expect(err.message).toMatch(/message bus \(NATS\) is unreachable/);
    expect(err.details).toMatchObject({ dependency: 'nats', dispatched: false });
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000); // fails fast, instead of waiting out the agent timeout

    await natsServer(port);
    let back = false;
    for (let i = 0; i < 60 && !back; i++) {
      await new Promise((r) => setTimeout(r, 250));
      back = await bus.request('parley.outage.echo', new TextEncoder().encode('again'), { timeoutMs: 1000 }).then(
        () => true,
        () => false,
      );
    }
    expect(back).toBe(true);
    await stop.stop();
    await bus.close();
  }, 60_000);
});
