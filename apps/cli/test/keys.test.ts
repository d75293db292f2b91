/**
 * `parley keys` and `parley whoami` as a user runs them: the real bin
 * (apps/cli/bin/parley.mjs) as a child process against Parley as `npm start`
 * runs it (apps/parley/src/main.ts, its own process: the registry keeps the
 * keys, the gateway and every service authenticate with them). The credential
 * cache is off (PARLEY_AUTH_CACHE_MS=0), so a revoked key is refused on its
 * next call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mintApiKey, parseApiKey } from '@parley/auth';
import { freePort, startProcess, waitReady, type ServiceProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, parleyWith as parley } from './run-cli';

const TIMEOUT = { timeout: 60_000 };
const UNAUTHENTICATED_HINT = 'hint: pass an API key with --key or the env PARLEY_API_KEY (`npm start` prints the development key';
const FORBIDDEN_HINT = 'operators create keys with `parley keys create`';
const STORE_IT = 'Store it now; it is not shown again (Parley keeps only its hash).';

/** The rows of a table printed by the CLI, split on runs of two or more spaces. */
function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().split(/ {2,}/));
}

/** `name value` lines (whoami) as an object. */
function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trimEnd()
      .split('\n')
      .map((l) => {
        const m = /^(\S+) +(.*)$/.exec(l);
        return m ? [m[1], m[2]] : [l, ''];
      }),
  );
}

/** The key `keys create` printed on its own indented line. */
function printedKey(stdout: string): string {
  const m = /^ {2}(pk_\S+)$/m.exec(stdout);
  if (!m) throw new Error(`no key in:\n${stdout}`);
  return m[1] as string;
}

describe('parley keys mint (local: no gateway)', () => {
  it('prints a fresh key that parseApiKey accepts, alone on stdout; the note goes to stderr', TIMEOUT, async () => {
    // PARLEY_URL points nowhere: mint must not need a gateway.
    const [a, b] = await Promise.all([parley({ PARLEY_URL: 'http://127.0.0.1:9' }, 'keys', 'mint'), parley({}, 'keys', 'mint')]);
    for (const r of [a, b]) {
      expect(r.code).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
      const parsed = parseApiKey(r.stdout.trim());
      expect(parsed, `not an API key: ${r.stdout}`).toBeDefined();
      expect(r.stderr).toContain(`A new API key (key id ${parsed?.key_id}), made locally`);
      expect(r.stderr).toContain('PARLEY_DEV_KEY');
      expect(r.stderr).toContain('PARLEY_BOOTSTRAP_OPERATOR_KEY');
      expect(r.stderr).not.toContain(r.stdout.trim());
    }
    expect(a.stdout).not.toBe(b.stdout);
  });

  it('--json gives the key and its id; --url and --key are not options of mint', TIMEOUT, async () => {
    const j = await parley({}, 'keys', 'mint', '--json');
    expect(j.code).toBe(0);
    expect(j.stderr).toBe('');
    const out = JSON.parse(j.stdout) as { key: string; key_id: string };
    expect(Object.keys(out).sort()).toEqual(['key', 'key_id']);
    expect(parseApiKey(out.key)?.key_id).toBe(out.key_id);
    const url = await parley({}, 'keys', 'mint', '--url', 'http://127.0.0.1:9');
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('parley keys mint: unknown option --url');
    expect(url.stdout).toBe('');
  });
});

describe('parley keys and whoami against a running Parley', () => {
  let parleyApp: { url: string; devKey: string; tenant: string; proc: ServiceProcess };
  /** The gateway, no key. */
  let env: Record<string, string>;
  /** The development key (every role, principal `dev`) in PARLEY_API_KEY. */
  let dev: Record<string, string>;
  beforeAll(async () => {
    const port = await freePort();
    const devKey = mintApiKey().key;
    const proc = startProcess('parley', 'apps/parley/src/main.ts', { PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: devKey, PARLEY_AUTH_CACHE_MS: '0', LOG_LEVEL: 'error' });
    parleyApp = { url: `http://127.0.0.1:${port}`, devKey, tenant: 'default', proc };
    await waitReady(`${parleyApp.url}/readyz`, proc, 110_000);
    env = { PARLEY_URL: parleyApp.url };
    dev = { ...env, PARLEY_API_KEY: parleyApp.devKey };
  }, 120_000);
  afterAll(() => parleyApp?.proc.stop());

  it('whoami with the development key: principal dev, every role; --json is what /rpc returns', TIMEOUT, async () => {
    const r = await parley(dev, 'whoami');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(fields(r.stdout)).toEqual({
      principal: 'dev',
      tenant: parleyApp.tenant,
      roles: 'operator, server_agent, client_agent',
      agents: '*',
      scenarios: '*',
      via: 'api_key',
      expires: 'never',
    });
    const j = await parley(env, 'whoami', '--json', '--key', parleyApp.devKey);
    expect(j.code).toBe(0);
    const direct = await fetch(`${parleyApp.url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${parleyApp.devKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'whoami' }),
    }).then((x) => x.json() as Promise<{ result: unknown }>);
    expect(direct.result).toMatchObject({ principal: 'dev' });
    expect(JSON.parse(j.stdout)).toEqual(direct.result);
  });

  it('no key: whoami and keys list exit 1 with unauthenticated and the hint', TIMEOUT, async () => {
    for (const args of [['whoami'], ['keys', 'list']]) {
      const r = await parley(env, ...args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^parley ${args.join(' ')}: unauthenticated \\(at headers.authorization, rule credentials_required\\)`));
      expect(r.stderr).toContain(UNAUTHENTICATED_HINT);
    }
  });

  it('create → list shows it → whoami with the new key → revoke → the key is refused', TIMEOUT, async () => {
    const created = await parley(
      dev,
      'keys', 'create',
      '--principal', 'acme',
      '--role', 'server_agent', '--role', 'client_agent',
      '--agent', 'acme-*',
      '--scenario', 'flight_*,photo_retouch',
      '--description', 'acme travel agents',
      '--expires', '2099-01-01T00:00:00Z',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const key = printedKey(created.stdout);
    const keyId = parseApiKey(key)?.key_id as string;
    expect(keyId, `not an API key: ${key}`).toMatch(/^[0-9a-f]{16}$/);
    expect(created.stdout).toContain(
      `created API key ${keyId} for acme (roles server_agent, client_agent; agents acme-*; scenarios flight_*, photo_retouch; expires 2099-01-01T00:00:00.000Z)`,
    );
    expect(created.stdout).toContain(STORE_IT);
    expect(created.stdout).toContain(`parley keys revoke ${keyId}`);

    // list: the key's row, never its secret; --principal filters.
    const listed = await parley(dev, 'keys', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    const t = rows(listed.stdout);
    expect(t[1]).toEqual(['KEY ID', 'PRINCIPAL', 'ROLES', 'AGENTS', 'SCENARIOS', 'CREATED', 'BY', 'EXPIRES', 'STATUS', 'DESCRIPTION']);
    const row = t.find((r) => r[0] === keyId);
    expect(row).toEqual([keyId, 'acme', 'server_agent,client_agent', 'acme-*', 'flight_*,photo_retouch', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), 'dev', '2099-01-01T00:00:00.000Z', 'active', 'acme travel agents']);
    expect(t.some((r) => r[1] === 'dev')).toBe(true);
    const mine = await parley(dev, 'keys', 'list', '--principal', 'acme');
    expect(mine.code).toBe(0);
    expect(rows(mine.stdout)[0]).toEqual([expect.stringMatching(/^\d+ active API keys? of acme$/)]);
    expect(rows(mine.stdout).slice(2).every((r) => r[1] === 'acme')).toBe(true);
    expect(rows(mine.stdout).slice(2).map((r) => r[0])).toContain(keyId);

    // whoami with the new key, given on the command line.
    const who = await parley(env, 'whoami', '--key', key);
    expect(who.stderr).toBe('');
    expect(who.code).toBe(0);
    expect(fields(who.stdout)).toMatchObject({
      principal: 'acme',
      roles: 'server_agent, client_agent',
      agents: 'acme-*',
      scenarios: 'flight_*, photo_retouch',
      via: 'api_key',
      expires: '2099-01-01T00:00:00.000Z',
    });

    const revoked = await parley(dev, 'keys', 'revoke', keyId);
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^API key ${keyId} of acme revoked at \\d{4}-\\d\\d-\\d\\dT`));

    const refused = await parley({ ...env, PARLEY_API_KEY: key }, 'whoami');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('parley whoami: unauthenticated (at headers.authorization, rule api_key): The API key is not valid');
    expect(refused.stderr).toContain(UNAUTHENTICATED_HINT);

    // Gone from the list of active keys; --all shows it revoked.
    const active = await parley(dev, 'keys', 'list', '--principal', 'acme');
    expect(rows(active.stdout).map((r) => r[0])).not.toContain(keyId);
    const all = await parley(dev, 'keys', 'list', '--principal', 'acme', '--all');
    expect(all.code).toBe(0);
    expect(rows(all.stdout)[0]?.[0]).toMatch(/API keys? of acme \(revoked ones included\)$/);
    const gone = rows(all.stdout).find((r) => r[0] === keyId);
    expect(gone?.[8]).toMatch(/^revoked \d{4}-\d\d-\d\dT/);
  });

  it('--json of create and list: the raw results; revoke takes the whole key too', TIMEOUT, async () => {
    const c = await parley(dev, 'keys', 'create', '--principal', 'zen', '--role', 'client_agent', '--json');
    expect(c.code).toBe(0);
    const res = JSON.parse(c.stdout) as { key: string; api_key: { key_id: string; principal: string; roles: string[]; revoked_at: string } };
    expect(parseApiKey(res.key)?.key_id).toBe(res.api_key.key_id);
    expect(res.api_key).toMatchObject({ principal: 'zen', roles: ['client_agent'], revoked_at: '' });

    const l = await parley(dev, 'keys', 'list', '--principal', 'zen', '--json');
    expect(l.code).toBe(0);
    const keys = (JSON.parse(l.stdout) as { api_keys: { key_id: string }[] }).api_keys;
    expect(keys.map((k) => k.key_id)).toEqual([res.api_key.key_id]);
    expect(l.stdout).not.toContain(res.key);

    // The whole key works as KEY_ID: its id is taken from it.
    const r = await parley(dev, 'keys', 'revoke', res.key);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`API key ${res.api_key.key_id} of zen revoked at`);
    const who = await parley(env, 'whoami', '--key', res.key);
    expect(who.code).toBe(1);
    expect(who.stderr).toContain('unauthenticated');
  });

  it('a client agent\'s key may ask whoami but not create keys: forbidden, exit 1, the hint, nothing created', TIMEOUT, async () => {
    const c = await parley(dev, 'keys', 'create', '--principal', 'shopper', '--role', 'client_agent', '--description', 'a client', '--json');
    expect(c.code).toBe(0);
    const clientKey = (JSON.parse(c.stdout) as { key: string }).key;
    const client = { ...env, PARLEY_API_KEY: clientKey };

    const who = await parley(client, 'whoami');
    expect(who.code).toBe(0);
    expect(fields(who.stdout)).toMatchObject({ principal: 'shopper', roles: 'client_agent', agents: '-', scenarios: '-' });

    const denied = await parley(client, 'keys', 'create', '--principal', 'mallory', '--role', 'operator');
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe('');
    expect(denied.stderr).toMatch(/^parley keys create: forbidden \(at principal.roles, rule role\): ApiKeyService\/CreateApiKey needs one of the roles operator/);
    expect(denied.stderr).toContain(FORBIDDEN_HINT);
    expect(denied.stderr).not.toContain(UNAUTHENTICATED_HINT);
    for (const args of [['keys', 'list'], ['keys', 'revoke', parseApiKey(clientKey)?.key_id as string]]) {
      const r = await parley(client, ...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`parley ${args.slice(0, 2).join(' ')}: forbidden`);
    }

    const mallory = await parley(dev, 'keys', 'list', '--principal', 'mallory', '--all', '--json');
    expect(mallory.code).toBe(0);
    expect((JSON.parse(mallory.stdout) as { api_keys: unknown[] }).api_keys).toEqual([]);
    // The client's key still works: the refusals revoked nothing.
    expect((await parley(client, 'whoami')).code).toBe(0);
  });

  it('what the registry refuses: exit 1 with type, path and rule', TIMEOUT, async () => {
    const noAgents = await parley(dev, 'keys', 'create', '--principal', 'acme', '--role', 'server_agent');
    expect(noAgents.code).toBe(1);
    expect(noAgents.stderr).toMatch(/^parley keys create: invalid_params \(at params.agents, rule min_items\)/);
    const past = await parley(dev, 'keys', 'create', '--principal', 'acme', '--role', 'client_agent', '--expires', '2001-01-01T00:00:00Z');
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/^parley keys create: invalid_params \(at params.expires_at, rule future\)/);
    const unknown = await parley(dev, 'keys', 'revoke', '0000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('parley keys revoke: api_key_not_found (at params.key_id, rule exists): No API key 0000000000000000\n');
  });

  it('parley mcp carries the key too: refused without one (exit 1, the hint), bridges with --key', TIMEOUT, async () => {
    const anon = await parley(env, 'mcp', '--url', `${parleyApp.url}/mcp`);
    expect(anon.code).toBe(1);
    expect(anon.stderr).toContain(`parley mcp: the gateway's MCP endpoint at ${parleyApp.url}/mcp refused the connection: unauthenticated`);
    expect(anon.stderr).toContain('hint: pass an API key with --key or the env PARLEY_API_KEY');

    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', `${parleyApp.url}/mcp`, '--key', parleyApp.devKey], cwd: REPO, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const stdio = new Client({ name: 'parley-cli-keys-test', version: '1.0.0' });
    await stdio.connect(transport);
    try {
      const listed = await stdio.listTools();
      expect(Array.isArray(listed.tools)).toBe(true);
      expect(stdio.getServerVersion()?.name).toBe('parley');
    } finally {
      await stdio.close();
    }
    expect(stderr).toContain(`forwarding to ${parleyApp.url}/mcp`);
  });

  it('parley mcp finds the gateway in PARLEY_URL, as every other command does (no --url)', TIMEOUT, async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: REPO, stderr: 'pipe', env: { ...(process.env as Record<string, string>), PARLEY_MCP_URL: '', ...dev } });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const stdio = new Client({ name: 'parley-cli-mcp-env-test', version: '1.0.0' });
    await stdio.connect(transport);
    try {
      const listed = await stdio.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('skyways-air__flight_booking');
    } finally {
      await stdio.close();
    }
    expect(stderr).toContain(`forwarding to ${parleyApp.url}/mcp`);
  });

  it('a listing for a scenario no one serves is an error (scenario_not_found, exit 1), not an empty list; a served one may be empty', TIMEOUT, async () => {
    const listings = [
      ['pool', 'clusters'],
      ['patches', 'list'],
      ['patches', 'decisions'],
      ['audits', 'list'],
    ];
    const unknown = await Promise.all(listings.map((l) => parley(dev, ...l, '--scenario', 'no_such_scenario')));
    unknown.forEach((r, i) => {
      expect(r.code, listings[i]?.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`parley ${listings[i]?.join(' ')}: scenario_not_found (at --scenario, rule exists): No schema is published for scenario "no_such_scenario"`);
    });
    const served = await Promise.all(listings.map((l) => parley(dev, ...l, '--scenario', 'Photo Retouch')));
    served.forEach((r, i) => {
      expect(r.code, `${listings[i]?.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/^Photo Retouch: 0 /);
    });
  });

  const usage: [string, string[], RegExp][] = [
    ['keys without a subcommand', ['keys'], /usage: parley keys <subcommand>/],
    ['an unknown keys subcommand', ['keys', 'rotate'], /unknown subcommand "rotate"/],
    ['create without --principal', ['keys', 'create', '--role', 'operator'], /--principal is required/],
    ['create without --role', ['keys', 'create', '--principal', 'acme'], /--role is required \(one or more of operator, server_agent, client_agent\)/],
    ['create with an unknown role', ['keys', 'create', '--principal', 'acme', '--role', 'operator,admin'], /--role must be one of operator, server_agent, client_agent, got "admin"/],
    ['create with an empty pattern', ['keys', 'create', '--principal', 'acme', '--role', 'server_agent', '--agent', 'a,,b'], /--agent has an empty item/],
    ['revoke without a key id', ['keys', 'revoke'], /KEY_ID \(the 16 hex digits after pk_\) is missing/],
    ['whoami with an argument', ['whoami', 'me'], /parley whoami: unexpected argument "me"/],
    ['whoami with the old --token', ['whoami', '--token', 'abc'], /--token is gone/],
  ];
  it.each(usage)('%s: exit 2, the message on stderr, nothing on stdout', TIMEOUT, async (_name, args, message) => {
    const r = await parley(dev, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('help: keys lists its subcommands and names PARLEY_API_KEY; whoami --help too', TIMEOUT, async () => {
    const k = await parley({}, 'keys', '--help');
    expect(k.code).toBe(0);
    for (const s of ['mint', 'create --principal ID --role ROLE', 'list [--principal ID] [--all]', 'revoke KEY_ID']) expect(k.stdout).toContain(`  parley keys ${s}`);
    expect(k.stdout).toContain('common options (all but mint):');
    expect(k.stdout).toContain('default env PARLEY_API_KEY');
    const w = await parley({}, 'whoami', '--help');
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('usage: parley whoami');
    expect(w.stdout).toContain('--key KEY');
    const m = await parley({}, 'keys', 'mint', '--help');
    expect(m.code).toBe(0);
    expect(m.stdout).not.toContain('--key');
  });
});
