import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (libs/testkit/src/.. /../..). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Ports this process has handed out: the OS may give a just-closed port to the next bind(0), so two calls in one
 * `Promise.all` could otherwise return the same port to two services of one test. */
const handedOut = new Set<number>();

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** A port the OS reports free right now, never one this process handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await osFreePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('freePort: the OS kept offering ports this process already handed out');
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr, for failure messages. */
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts `node --import tsx <entry>` as its own process with `env` added to this one's. */
export function startProcess(name: string, entry: string, env: Record<string, string>, nodeArgs: string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO_ROOT, entry)], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    name,
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', (code) => {
          clearTimeout(kill);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Polls an HTTP URL until it answers 200; fails with the process output if it exits or times out. */
export async function waitReady(url: string, proc: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.output()}`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${proc.name} not ready at ${url} after ${timeoutMs} ms:\n${proc.output()}`);
}
