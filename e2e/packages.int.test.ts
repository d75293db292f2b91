/**
 * Parley as an agent builder installs it: `npm run pack` writes the tarballs, a project outside the repository
 * installs them from disk (their dependencies from the npm registry, `--prefer-offline`), and plain `node` (no
 * tsx) runs what a user writes:
 * - server agents built from the packed @parley/agent-sdk, one an ES module and one CommonJS, each its own
 *   process, attach to an `npm start` instance through its NATS (NATS_URL) and serve a scenario;
 * - clients built from the packed @parley/client, ESM and CommonJS, negotiate and execute through them and
 *   through a seeded agent, map words with the offline mapper and get typed errors;
 * - the packed CLI's `parley` bin: --help, --version, and a command against the gateway;
 * - a TypeScript consumer type-checks against the shipped .d.ts.
 * The build is cached (scripts/packages.mjs), so a second run packs in seconds.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mintApiKey } from '@parley/auth';
import { REPO_ROOT, freePort, integrationInfra, startProcess, uniquePrefix, waitReady, type ServiceProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const infra = integrationInfra('e2e: the packed packages from a project outside the repository');
const run = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** This process's environment without what `npm test` adds (npm_config_*, npm_package_*): a user's shell has none. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD' && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ...extra };
}

const TEMPLATE = (agent: string) => ({
  schema_id: `${agent.replace(/-/g, '_')}_flight_v1`,
  scenario: 'flight_booking',
  keys: [
    { key_name: 'origin', key_type: 'string', required: true, semantic_description: 'IATA code of the departure airport. Example: from Beijing -> PEK' },
    { key_name: 'passengers', key_type: 'integer', required: false, default_value: 1, minimum: 1, maximum: 9, semantic_description: 'How many people travel' },
  ],
});

/** A server agent as a user writes it; `imp` is how the module system in use loads the SDK. */
const agentSource = (imp: string, connection: string, main: (body: string) => string) =>
  main(`${imp}
const { NATS_URL, PARLEY_URL, PARLEY_API_KEY, AGENT, PARLEY_SUBJECT_PREFIX, MODULE_SYSTEM } = process.env;
const agent = await createAgent({ name: AGENT, ${connection}, apiKey: PARLEY_API_KEY, prefix: PARLEY_SUBJECT_PREFIX });
await agent.serve('flight_booking', (payload, ctx) => {
  if (payload.origin === 'XXX') throw new AgentFailure('no flights from XXX', 'no_route');
  return { booking_id: 'BK-' + ctx.execution_id.slice(0, 8), served_by: AGENT, module_system: MODULE_SYSTEM, passengers: payload.passengers, origin: payload.origin };
});
await agent.register(PARLEY_URL, { scenarios: ['flight_booking'], domain: 'travel' }, [{ template: JSON.parse(process.env.TEMPLATE) }]);
process.on('SIGTERM', () => agent.close().then(() => process.exit(0)));
console.log('ready ' + AGENT);`);

/** A client as a user writes it: negotiate, execute, map words, a typed error; one JSON line. */
const clientSource = (imp: string, main: (body: string) => string) =>
  main(`${imp}
const { PARLEY_URL, PARLEY_API_KEY, AGENT } = process.env;
const client = createParleyClient(PARLEY_URL, { apiKey: PARLEY_API_KEY });
const template = await client.getSchemaTemplate({ scenario: 'flight_booking', agent: AGENT });
const result = await client.execute({ schema_id: template.schema_id, agent: AGENT, payload: { origin: 'PEK' } });
const seeded = await client.execute({ schema_id: 'flight_booking_v1', payload: { origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04', other: 'window seat' } });
const words = await client.mapUtterance(await client.getSchemaTemplate({ scenario: 'flight_booking', agent: 'skyways-air' }), 'a flight from Beijing to Shanghai on 2026-05-04', { today: '2026-04-01', timezone: 'UTC' });
const errors = [];
for (const payload of [{ origin: 'PEK', passengers: 12 }, { origin: 'XXX' }]) {
  try { await client.execute({ schema_id: template.schema_id, agent: AGENT, payload }); errors.push(null); }
  catch (e) { errors.push({ typed: e instanceof ParleyError, type: e.type, path: e.path, rule: e.rule }); }
}
console.log(JSON.stringify({ schema_id: template.schema_id, keys: template.keys.map((k) => k.key_name), result, seeded, mapped: words.payload, errors,
  offline: typeof createOfflineMapper, llm: typeof createOpenAiMapper }));`);

const esm = (body: string) => body;
const cjs = (body: string) => `(async () => {\n${body}\n})().catch((e) => { console.error(e); process.exit(1); });\n`;

describe.skipIf(!infra)('the packed packages in a project outside the repository, with plain node', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'parley-packages-'));
  const project = join(tmp, 'project');
  const devKey = mintApiKey().key;
  const prefix = uniquePrefix();
  let parley: ServiceProcess;
  let url = '';
  let tarballs: string[] = [];
  const agents: ChildProcess[] = [];

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // npm start, on the test run's NATS under a prefix of its own: outside agents attach there.
    parley = startProcess('npm start', 'apps/parley/src/main.ts', {
      PORT: String(port),
      NATS_URL: infra!.natsUrl,
      PARLEY_SUBJECT_PREFIX: prefix,
      PARLEY_DEMO: '0',
      PARLEY_DEV_KEY: devKey,
      LOG_LEVEL: 'error',
    });
    const ready = waitReady(`${url}/readyz`, parley, 240_000);
    ready.catch(() => {});

    // One pack per run (the build is cached by the hash of its inputs), then an install as a user does it.
    const out = join(tmp, 'tarballs');
    const packed = await run(process.execPath, [join(REPO_ROOT, 'scripts/pack.mjs'), out], { cwd: REPO_ROOT, env: cleanEnv(), maxBuffer: 16 << 20, timeout: 480_000 });
    tarballs = packed.stdout.trim().split('\n').filter((l) => l.endsWith('.tgz'));
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agents', version: '1.0.0', private: true }, null, 2));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], { cwd: project, env: cleanEnv(), maxBuffer: 16 << 20, timeout: 480_000 });

    const files: Record<string, string> = {
      'agent.mjs': agentSource("import { createAgent, AgentFailure } from '@parley/agent-sdk';", 'natsUrl: NATS_URL', esm),
      // The CommonJS one connects as the README's deployed agents do: natsFromEnv of @parley/runtime.
      'agent.cjs': agentSource("const { createAgent, AgentFailure } = require('@parley/agent-sdk');\nconst { natsFromEnv } = require('@parley/runtime');", 'nats: natsFromEnv(process.env)', cjs),
      'client.mjs': clientSource(
        "import { createParleyClient, ParleyError } from '@parley/client';\nimport { createOfflineMapper } from '@parley/client/offline';\nimport { createOpenAiMapper } from '@parley/client/llm';",
        esm,
      ),
      'client.cjs': clientSource(
        "const { createParleyClient, ParleyError } = require('@parley/client');\nconst { createOfflineMapper } = require('@parley/client/offline');\nconst { createOpenAiMapper } = require('@parley/client/llm');",
        cjs,
      ),
    };
    for (const [f, src] of Object.entries(files)) writeFileSync(join(project, f), src);
    await ready;
  }, 600_000);

  afterAll(async () => {
    for (const a of agents) if (a.exitCode === null) a.kill('SIGTERM');
    await Promise.all(agents.map((a) => (a.exitCode === null && a.signalCode === null ? new Promise((r) => a.once('exit', r)) : undefined)));
    await parley?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  const node = (file: string, env: Record<string, string> = {}) =>
    run(process.execPath, [file], { cwd: project, env: cleanEnv({ PARLEY_URL: url, PARLEY_API_KEY: devKey, ...env }), timeout: 120_000 });

  it('the tarballs: the SDKs, the CLI and what they import, each with compiled JavaScript, .d.ts, exports, README, LICENSE, engines, one version', async () => {
    const names = tarballs.map((t) => t.split('/').at(-1));
    for (const n of ['parley-client', 'parley-agent-sdk', 'parley-cli', 'parley-runtime', 'parley-protocol', 'parley-events']) expect(names).toContain(`${n}-${VERSION}.tgz`);
    const installed = readdirSync(join(project, 'node_modules/@parley'));
    expect(installed.length).toBe(tarballs.length);
    for (const name of installed) {
      const dir = join(project, 'node_modules/@parley', name);
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown> & { exports: Record<string, unknown>; dependencies: Record<string, string> };
      expect(pkg.version, name).toBe(VERSION);
      expect(pkg.license).toBe('Apache-2.0');
      expect(pkg.type).toBe('module');
      expect(pkg.engines).toEqual({ node: '>=20.19' });
      expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toContain('Apache License');
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(new RegExp(`^# @parley/${name}\\n`));
      for (const [dep, v] of Object.entries(pkg.dependencies)) if (dep.startsWith('@parley/')) expect(v).toBe(VERSION);
      const files = readdirSync(join(dir, 'dist'), { recursive: true }) as string[];
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), `${name} ships TypeScript sources`).toEqual([]);
      for (const [sub, target] of Object.entries(pkg.exports)) {
        if (sub === './package.json') continue;
        expect(target, `${name} ${sub}`).toEqual({ types: expect.stringMatching(/^\.\/dist\/.*\.d\.ts$/), default: expect.stringMatching(/^\.\/dist\/.*\.js$/) });
      }
    }
    const client = JSON.parse(readFileSync(join(project, 'node_modules/@parley/client/package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(client.exports).sort()).toEqual(['.', './llm', './offline', './package.json']);
    const cli = JSON.parse(readFileSync(join(project, 'node_modules/@parley/cli/package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(cli.bin).toEqual({ parley: './bin/parley.js' });
  });

  it('server agents in other processes, ESM and CommonJS, attach to npm start through NATS and serve a scenario', { timeout: 120_000 }, async () => {
    for (const [file, name] of [
      ['agent.mjs', 'acme-esm'],
      ['agent.cjs', 'acme-cjs'],
    ] as const) {
      const child = spawn(process.execPath, [file], {
        cwd: project,
        env: cleanEnv({ NATS_URL: infra!.natsUrl, PARLEY_SUBJECT_PREFIX: prefix, PARLEY_URL: url, PARLEY_API_KEY: devKey, AGENT: name, MODULE_SYSTEM: file.endsWith('.cjs') ? 'cjs' : 'esm', TEMPLATE: JSON.stringify(TEMPLATE(name)) }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      agents.push(child);
      let out = '';
      child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (out.includes(`ready ${name}`)) return clearInterval(t), resolve();
          if (child.exitCode !== null) return clearInterval(t), reject(new Error(`${file} exited ${child.exitCode}:\n${out}`));
        }, 100);
      });
    }
    const r = await fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${devKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'list_agents', params: { scenario: 'flight_booking' } }),
    });
    const names = ((await r.json()) as { result: { agents: { name: string }[] } }).result.agents.map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['acme-esm', 'acme-cjs', 'skyways-air']));
  });

  it.each([
    ['client.mjs', 'acme-esm', 'esm'],
    ['client.cjs', 'acme-cjs', 'cjs'],
  ])('%s negotiates and executes through %s, maps words offline and gets typed errors', { timeout: 120_000 }, async (file, agent, moduleSystem) => {
    const { stdout } = await node(file, { AGENT: agent });
    const r = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(r.schema_id).toBe(`${agent.replace(/-/g, '_')}_flight_v1`);
    expect(r.keys).toEqual(['origin', 'passengers', 'other']);
    // The outside agent answered, with the default Parley applied.
    expect(r.result).toMatchObject({ served_by: agent, module_system: moduleSystem, origin: 'PEK', passengers: 1 });
    expect(r.seeded).toMatchObject({ status: 'confirmed' });
    expect(r.mapped).toMatchObject({ origin: 'PEK', destination: 'SHA', departure_date: '2026-05-04' });
    expect(r.errors).toEqual([
      { typed: true, type: 'payload_invalid', path: 'payload.passengers', rule: 'maximum' },
      { typed: true, type: 'agent_error', path: '', rule: '' },
    ]);
    expect(r.offline).toBe('function');
    expect(r.llm).toBe('function');
  });

  it('the parley bin: --help, --version (also as npx @parley/cli), and a command against the gateway', { timeout: 120_000 }, async () => {
    const env = cleanEnv({ PARLEY_URL: url, PARLEY_API_KEY: devKey });
    const opts = { cwd: project, env, timeout: 60_000 };
    const help = await run('npx', ['parley', '--help'], opts);
    expect(help.stdout).toMatch(/^usage: parley <command> \[options\]/);
    const version = await run('npx', ['parley', '--version'], opts);
    expect(version.stdout).toBe(`${VERSION}\n`);
    const scoped = await run('npx', ['@parley/cli', 'keys', 'mint', '--version'], opts);
    expect(scoped.stdout).toBe(`${VERSION}\n`);
    const who = await run('npx', ['parley', 'whoami', '--json'], opts);
    expect(JSON.parse(who.stdout)).toMatchObject({ principal: 'dev', roles: expect.arrayContaining(['server_agent', 'client_agent', 'operator']) });
  });

  it('a TypeScript consumer type-checks against the shipped .d.ts (a misuse is an error: the types are real)', { timeout: 180_000 }, async () => {
    writeFileSync(
      join(project, 'check.mts'),
      [
        "import { createParleyClient, ParleyError } from '@parley/client';",
        "import { createOfflineMapper } from '@parley/client/offline';",
        "import { createAgent, AgentFailure } from '@parley/agent-sdk';",
        "const client = createParleyClient('http://localhost:8080', { apiKey: 'pk_x' });",
        "const template = await client.getSchemaTemplate({ scenario: 'flight_booking' });",
        'const id: string = template.schema_id;',
        "const agent = await createAgent({ name: 'acme-air', natsUrl: 'nats://127.0.0.1:4222' });",
        "await agent.serve('flight_booking', (payload, ctx) => ({ id: ctx.execution_id, origin: payload.origin ?? null }));",
        '// @ts-expect-error schema_id is a string',
        "await client.execute({ schema_id: 42, payload: {} });",
        'void id; void createOfflineMapper; void AgentFailure; void ParleyError;',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2023', lib: ['esnext'], strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(REPO_ROOT, 'node_modules/@types')] },
        files: ['check.mts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const r = await run(process.execPath, [tsc, '-p', project], { cwd: project, env: cleanEnv(), timeout: 170_000 }).then(
      () => ({ code: 0, out: '' }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, out: e.stdout ?? '' }),
    );
    expect(r).toEqual({ code: 0, out: '' });
  });
});
