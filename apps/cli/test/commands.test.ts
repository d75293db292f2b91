/**
 * What every `parley` command owes its user, whatever it does: `--help` (usage on stdout, exit 0) and
 * `--version` on every command and subcommand, the version of the one version source, and `parley mcp`
 * finding the gateway where every other command does. In-process through cli.ts's `main` (what the bin
 * runs), with stdout and stderr captured; the bin itself is run once for each flag.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS, main } from '../src/cli';
import { parseArgs as mcpArgs } from '../src/commands/mcp';
import { cliVersion } from '../src/version';
import { REPO, parley } from './run-cli';

const ROOT_VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs `parley <argv>` in this process; returns the exit code and what it wrote. */
async function inProcess(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

/** Every `parley <command> <subcommand>` a command's help lists (none for a command without subcommands). */
async function subcommandsOf(command: string): Promise<string[]> {
  const h = await inProcess(command, '--help');
  const re = new RegExp(`^ {2}parley ${command} ([a-z][a-z-]*)\\b`, 'gm');
  return [...new Set([...h.stdout.matchAll(re)].map((m) => m[1] as string))];
}

describe('parley --help and --version on every command and subcommand', () => {
  it('the command list names every command, and each has a help', { timeout: 60_000 }, async () => {
    const top = await inProcess('--help');
    expect(top.code).toBe(0);
    for (const c of Object.keys(COMMANDS)) expect(top.stdout).toMatch(new RegExp(`^ {2}${c} `, 'm'));
    expect(top.stdout).toContain('`parley --version` prints the version');
  });

  it('every command and subcommand: --help prints its usage on stdout and exits 0; --version prints the version', { timeout: 120_000 }, async () => {
    const seen: string[] = [];
    for (const command of Object.keys(COMMANDS)) {
      const subs = await subcommandsOf(command);
      for (const path of [[command], ...subs.map((s) => [command, s])]) {
        const help = await inProcess(...path, '--help');
        expect(help.code, `parley ${path.join(' ')} --help: ${help.stderr}`).toBe(0);
        expect(help.stdout, `parley ${path.join(' ')} --help`).toMatch(new RegExp(`^usage: parley ${path.join(' ')}\\b`));
        expect(help.stderr).toBe('');
        const version = await inProcess(...path, '--version');
        expect(version).toEqual({ code: 0, stdout: `${ROOT_VERSION}\n`, stderr: '' });
        seen.push(path.join(' '));
      }
    }
    // The subcommands were found, not assumed: the operator commands have theirs.
    for (const s of ['pool clusters', 'pool cluster', 'patches list', 'patches approve', 'patches decisions', 'audits judge', 'keys mint', 'keys revoke', 'simulate', 'mcp', 'ask', 'tokens', 'whoami']) {
      expect(seen).toContain(s);
    }
  });

  it('`--version` after `--` is an argument, not the flag', async () => {
    const r = await inProcess('tokens', '--', '--version');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('the bin itself: `parley --version` and `parley simulate --help`', { timeout: 60_000 }, async () => {
    const [v, h] = await Promise.all([parley('--version'), parley('simulate', '--help')]);
    expect(v).toEqual({ code: 0, stdout: `${ROOT_VERSION}\n`, stderr: '' });
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^usage: parley simulate --input stream\.jsonl/);
  });
});

describe('one version source', () => {
  it('every workspace package is at the root package.json version (the packed packages take it from there)', () => {
    expect(cliVersion()).toBe(ROOT_VERSION);
    for (const base of ['libs', 'apps']) {
      for (const d of readdirSync(join(REPO, base))) {
        const f = join(REPO, base, d, 'package.json');
        if (!existsSync(f)) continue;
        const pkg = JSON.parse(readFileSync(f, 'utf8')) as { name: string; version: string };
        expect(`${pkg.name}@${pkg.version}`).toBe(`${pkg.name}@${ROOT_VERSION}`);
      }
    }
  });
});

describe('parley mcp finds the gateway as the other commands do', () => {
  it('--url, else PARLEY_MCP_URL, else PARLEY_URL, else the default; a gateway URL without a path means its /mcp', () => {
    expect(mcpArgs([], {})).toEqual({ url: 'http://127.0.0.1:8080/mcp' });
    expect(mcpArgs([], { PARLEY_URL: 'http://gw.example:9000' })).toEqual({ url: 'http://gw.example:9000/mcp' });
    expect(mcpArgs([], { PARLEY_URL: 'https://gw.example/' })).toEqual({ url: 'https://gw.example/mcp' });
    expect(mcpArgs([], { PARLEY_URL: 'http://gw.example:9000', PARLEY_MCP_URL: 'http://other:1/custom/mcp' })).toEqual({ url: 'http://other:1/custom/mcp' });
    expect(mcpArgs(['--url', 'http://cli:2'], { PARLEY_URL: 'http://gw.example:9000' })).toEqual({ url: 'http://cli:2/mcp' });
    expect(mcpArgs(['--url=http://cli:2/mcp'], {})).toEqual({ url: 'http://cli:2/mcp' });
    expect(mcpArgs([], { PARLEY_URL: 'ftp://gw.example' })).toEqual({ error: '--url must be an http(s) URL, got ftp://gw.example' });
    expect(mcpArgs([], { PARLEY_URL: 'http://gw.example', PARLEY_API_KEY: ' pk_x ' })).toEqual({ url: 'http://gw.example/mcp', apiKey: 'pk_x' });
  });
});

describe('progress of long work goes to stderr, never into the result', () => {
  const file = join(REPO, 'bench/data/mcp-tools/openapi-petstore.json');
  it('with PARLEY_PROGRESS=1 (or a terminal) `parley tokens` says what it is doing on stderr; stdout is the same table', async () => {
    const saved = process.env.PARLEY_PROGRESS;
    try {
      process.env.PARLEY_PROGRESS = '1';
      const on = await inProcess('tokens', file);
      process.env.PARLEY_PROGRESS = '0';
      const off = await inProcess('tokens', file);
      expect(on.code).toBe(0);
      expect(on.stderr).toMatch(/^parley tokens: counting o200k tokens of \d+ tools, before and after each mechanism…\n$/);
      expect(off.stderr).toBe('');
      expect(on.stdout).toBe(off.stdout);
    } finally {
      if (saved === undefined) delete process.env.PARLEY_PROGRESS;
      else process.env.PARLEY_PROGRESS = saved;
    }
  });
});
