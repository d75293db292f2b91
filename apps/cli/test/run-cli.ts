import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the `parley` bin, as a user runs it. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(REPO, 'apps/cli/bin/parley.mjs');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What the gateway commands read from the environment: cleared so the caller's shell cannot leak into a test. */
const CLI_ENV = ['PARLEY_URL', 'PARLEY_API_KEY', 'PARLEY_MCP_URL', 'PARLEY_EMBEDDER', 'PARLEY_LLM_URL'];

/** Runs `parley <args>` as a child process and collects its exit code and output. */
export function parley(...args: string[]): Promise<Run> {
  return parleyWith({}, ...args);
}

/** Runs `parley <args>` with the CLI's variables cleared from the environment, plus `env`. */
export function parleyWith(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return parleyInput(env, undefined, ...args);
}

/** Runs `parley <args>` as parleyWith does, writing `input` to its stdin (undefined: no stdin at all). */
export function parleyInput(env: Record<string, string>, input: string | undefined, ...args: string[]): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of CLI_ENV) delete base[k];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], env: { ...base, ...env } });
    if (input !== undefined) p.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    p.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
