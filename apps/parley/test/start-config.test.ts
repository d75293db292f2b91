import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '@parley/auth';
import { REPO_ROOT, freePort, startProcess, type ServiceProcess } from '@parley/testkit';

// `npm start` reads the gateway's HTTP settings through the same function as the separate gateway
// (libs/runtime gatewayHttpFromEnv): TLS (PARLEY_TLS_*) makes PORT serve HTTPS, RATE_LIMIT_* apply.

const dir = mkdtempSync(join(tmpdir(), 'parley-start-config-'));
const certs = join(dir, 'certs');
const devKey = mintApiKey().key;
let proc: ServiceProcess;
let port = 0;
let ca: string;

/** POSTs over HTTPS, trusting only the test CA. */
function post(path: string, body: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: Record<string, unknown> }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', ca, headers: { 'content-type': 'application/json', authorization: `Bearer ${devKey}`, 'content-length': Buffer.byteLength(text) } },
      (res) => {
        let data = '';
        res.on('data', (c: Buffer) => (data += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(data) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

beforeAll(async () => {
  execFileSync('bash', [join(REPO_ROOT, 'scripts/gen-dev-certs.sh'), certs], { stdio: 'ignore' });
  ca = readFileSync(join(certs, 'ca.crt'), 'utf8');
  port = await freePort();
  proc = startProcess('npm start', 'apps/parley/src/main.ts', {
    PORT: String(port),
    PARLEY_DEMO: '0',
    PARLEY_DEV_KEY: devKey,
    LOG_LEVEL: 'error',
    HOST: '',
    PARLEY_TLS_CERT: join(certs, 'server.crt'),
    PARLEY_TLS_KEY: join(certs, 'server.key'),
    PARLEY_TLS_CA: join(certs, 'ca.crt'),
    RATE_LIMIT_PER_SECOND: '1',
    RATE_LIMIT_BURST: '12', // the seeding's own calls (register, publish) fit in it
  });
  const until = Date.now() + 150_000;
  while (!proc.output().includes('Press Ctrl-C to stop.')) {
    if (Date.now() > until || proc.child.exitCode !== null) throw new Error(`npm start did not finish starting:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(() => {
  proc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start with the separate gateway’s variables', () => {
  it('serves HTTPS on PORT with PARLEY_TLS_* and says so', async () => {
    expect(proc.output()).toContain(`https://localhost:${port}`);
    const r = await post('/rpc', { jsonrpc: '2.0', id: 1, method: 'whoami' });
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({ principal: 'dev' });
  });

  it('applies RATE_LIMIT_BURST: a batch larger than it is batch_too_large, and past it single calls are 429', async () => {
    const batch = Array.from({ length: 13 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'whoami' }));
    const big = await post('/rpc', batch);
    expect(big.status).toBe(413);
    expect(big.headers['retry-after']).toBeUndefined();
    expect((big.json.error as { data: unknown }).data).toMatchObject({ type: 'batch_too_large', details: { max_batch: 12, size: 13 } });
    let limited = false;
    // Refill is 1 a second on the real clock: enough calls that a slow machine still outruns it.
    for (let i = 0; i < 50 && !limited; i++) limited = (await post('/rpc', { jsonrpc: '2.0', id: i, method: 'whoami' })).status === 429;
    expect(limited).toBe(true);
  });
});
