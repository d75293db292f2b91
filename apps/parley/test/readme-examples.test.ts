/**
 * Every curl example of README.md, in the order a reader meets them, against a fresh `npm start`
 * (apps/parley/src/main.ts as its own process): run with bash and curl as written, `localhost:8080` pointed at
 * the test's port and `$PARLEY_API_KEY` the development key. Each must succeed (a JSON-RPC `result`, an MCP
 * result that is no tool error) or fail exactly as the comment after it says:
 *   # error: <type> (at <path>, rule <rule>)
 * A comment that is a JSON object (`# {...}` or `# → {...}`) is a documented result the answer must contain.
 * Shell variables the examples define (`H='…'`) are kept for the commands after them in the same block.
 * Also: `npm start` listens on 127.0.0.1 only unless HOST says otherwise.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mintApiKey } from '@parley/auth';
import { REPO_ROOT, freePort, isCI, startProcess, waitReady, type ServiceProcess } from '@parley/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

export interface Example {
  /** 1-based line of README.md where the command starts. */
  line: number;
  command: string;
  /** Shell assignments of the same block before it (`H='…'`). */
  setup: string[];
  error?: { type: string; path?: string; rule?: string };
  result?: Record<string, unknown>;
}

/** Whether a shell text leaves a quote open (single or double; `\\` escapes outside single quotes; `#` comments). */
export function quoteOpen(text: string): boolean {
  let q: "'" | '"' | undefined;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    if (q === "'") {
      if (ch === "'") q = undefined;
    } else if (ch === '\\') {
      k++;
    } else if (q === '"') {
      if (ch === '"') q = undefined;
    } else if (ch === "'" || ch === '"') {
      q = ch;
    } else if (ch === '#' && (k === 0 || /\s/.test(text[k - 1] as string))) {
      const nl = text.indexOf('\n', k);
      if (nl === -1) return false;
      k = nl;
    }
  }
  return q !== undefined;
}

/** The curl examples of a Markdown text's ```sh blocks, with their documented outcomes. */
export function curlExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]?.trim() !== '```sh') {
      i++;
      continue;
    }
    i++;
    const setup: string[] = [];
    let last: Example | undefined;
    while (i < lines.length && lines[i]?.trim() !== '```') {
      const start = i;
      let statement = lines[i] as string;
      // A statement goes on while a single quote is open or the line ends with a backslash.
      while ((quoteOpen(statement) || /\\\s*$/.test(statement)) && i + 1 < lines.length) {
        i++;
        statement += `\n${lines[i]}`;
      }
      i++;
      const t = statement.trim();
      if (t.startsWith('curl ')) {
        last = { line: start + 1, command: statement, setup: [...setup] };
        out.push(last);
      } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t) && !t.startsWith('PARLEY_API_KEY=')) {
        setup.push(statement);
      } else if (t.startsWith('#') && last) {
        const c = t.replace(/^#\s*(→\s*)?/, '');
        const err = /^error: ([a-z_]+)(?: \((?:at ([^,)]+))?(?:, )?(?:rule ([a-z_]+))?\))?$/.exec(c);
        if (err) {
          last.error = { type: err[1] as string, ...(err[2] ? { path: err[2] } : {}), ...(err[3] ? { rule: err[3] } : {}) };
        } else if (c.startsWith('{')) {
          try {
            const doc = JSON.parse(c) as Record<string, unknown>;
            last.result = 'result' in doc ? (doc.result as Record<string, unknown>) : doc;
          } catch {
            // a shape with placeholders (…), for the reader only
          }
        }
      } else if (t !== '' && !t.startsWith('#')) {
        last = undefined; // another command (npx, export, …): comments after it are not about the curl before
      }
    }
    i++;
  }
  return out;
}

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const EXAMPLES = curlExamples(README);
const hasCurl = spawnSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' }).status === 0;
if (!hasCurl) {
  if (isCI()) throw new Error('README examples: curl is not installed');
  console.warn('\n!!! SKIPPING the README curl examples: curl is not installed\n');
}

describe('curlExamples (the README parser)', () => {
  it('finds commands over several lines, setup lines, documented errors and results', () => {
    const md = [
      'text',
      '```sh',
      "H='-H a:b'",
      'curl -s localhost:8080/rpc $H -d \'{"a":1,',
      '  "b":2}\'',
      '# error: schema_not_found (at params.schema_id, rule retired)',
      'curl -s localhost:8080/rpc \\',
      '  -d \'{}\'',
      '# {"principal":"dev"}',
      'npx parley whoami',
      '# error: forbidden',
      'npx parley keys create --description "acme\'s agent"   # an apostrophe in double quotes, and the caller\'s comment',
      "curl -s localhost:8080/a2a -d '{}'",
      '```',
      '```ts',
      'curl -s nothing',
      '```',
    ].join('\n');
    const ex = curlExamples(md);
    expect(ex).toEqual([
      { line: 4, command: 'curl -s localhost:8080/rpc $H -d \'{"a":1,\n  "b":2}\'', setup: ["H='-H a:b'"], error: { type: 'schema_not_found', path: 'params.schema_id', rule: 'retired' } },
      { line: 7, command: "curl -s localhost:8080/rpc \\\n  -d '{}'", setup: ["H='-H a:b'"], result: { principal: 'dev' } },
      { line: 13, command: "curl -s localhost:8080/a2a -d '{}'", setup: ["H='-H a:b'"] },
    ]);
  });

  it('README.md has its examples: every section that shows one is found', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(20);
    const methods = EXAMPLES.map((e) => /"method":"([^"]+)"/.exec(e.command)?.[1]);
    for (const m of ['whoami', 'get_schema_template', 'execute', 'register_agent', 'publish_schema', 'retire_schema', 'unregister_agent', 'tools/call', 'SendMessage', 'get_schema_updates', 'list_dead_letters']) {
      expect(methods).toContain(m);
    }
  });
});

describe.skipIf(!hasCurl)('every curl example of README.md, in order, against a fresh npm start', () => {
  const devKey = mintApiKey().key;
  let proc: ServiceProcess;
  let port = 0;

  beforeAll(async () => {
    port = await freePort();
    proc = startProcess('npm start', 'apps/parley/src/main.ts', { PORT: String(port), PARLEY_DEMO: '0', PARLEY_DEV_KEY: devKey, LOG_LEVEL: 'error', HOST: '' });
    await waitReady(`http://127.0.0.1:${port}/readyz`, proc, 110_000);
    // Ready once the seeded agents are registered and the banner is out.
    const until = Date.now() + 60_000;
    while (!proc.output().includes('Press Ctrl-C to stop.')) {
      if (Date.now() > until || proc.child.exitCode !== null) throw new Error(`npm start did not finish starting:\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);
  afterAll(() => proc?.stop());

  it('npm start listens on 127.0.0.1 only (HOST unset): another address of this machine is refused', async () => {
    const other = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!other) return void console.warn('no non-loopback IPv4 address on this machine: the binding check has nothing to try');
    const reached = await new Promise<boolean>((resolve) => {
      const c = createConnection({ host: other, port });
      c.setTimeout(3000, () => (c.destroy(), resolve(false)));
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    expect(reached).toBe(false);
    expect(proc.output()).toContain('listening on 127.0.0.1');
  });

  for (const ex of EXAMPLES) {
    const method = /"method":"([^"]+)"/.exec(ex.command)?.[1] ?? '?';
    const title = `README.md:${ex.line} ${method} ${ex.error ? `fails with ${ex.error.type}${ex.error.rule ? ` (${ex.error.rule})` : ''}` : 'succeeds'}`;
    it(title, { timeout: 60_000 }, async () => {
      const script = [...ex.setup, ex.command].join('\n').replaceAll('localhost:8080', `127.0.0.1:${port}`);
      const { stdout } = await run('bash', ['--noprofile', '--norc', '-c', script], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', PARLEY_API_KEY: devKey },
        timeout: 50_000,
      });
      let body: { result?: Record<string, unknown> & { isError?: boolean }; error?: { data?: Record<string, unknown> } };
      try {
        body = JSON.parse(stdout) as typeof body;
      } catch {
        throw new Error(`README.md:${ex.line}: not a JSON answer:\n${stdout}`);
      }
      if (ex.error) {
        expect(body.error?.data, `README.md:${ex.line}: ${stdout}`).toMatchObject(ex.error);
        return;
      }
      expect(body.error, `README.md:${ex.line}: ${stdout}`).toBeUndefined();
      expect(body.result, `README.md:${ex.line}: ${stdout}`).toBeDefined();
      expect(body.result?.isError, `README.md:${ex.line}: a tool error: ${stdout}`).not.toBe(true);
      if (ex.result) expect(body.result).toMatchObject(ex.result);
    });
  }
});
