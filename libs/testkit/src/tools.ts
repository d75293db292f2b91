import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isCI } from './infra';

// Local tools some suites need (nats-server, openssl, kubectl). Under CI=true a
// suite whose tool is missing runs and fails with the fix to apply; elsewhere
// it is skipped, loudly (on stderr, where a reporter cannot swallow it).

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` from the variable `envVar` (when set: that file or nothing), else on PATH, else in `extraDirs`. */
export function findExecutable(name: string, opts: { envVar?: string; extraDirs?: readonly string[] } = {}): string | undefined {
  const forced = opts.envVar ? process.env[opts.envVar] : undefined;
  if (forced) return executable(forced) ? forced : undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...(opts.extraDirs ?? [])];
  return dirs.map((d) => join(d, name)).find(executable);
}

/**
 * The nats-server binary, found as scripts/start-nats.mjs finds it: NATS_SERVER_BIN,
 * else on PATH, else /usr/sbin, /usr/local/bin, /usr/local/sbin (Debian's
 * nats-server package installs /usr/sbin/nats-server).
 */
export function findNatsServer(): string | undefined {
  return findExecutable('nats-server', { envVar: 'NATS_SERVER_BIN', extraDirs: ['/usr/sbin', '/usr/local/bin', '/usr/local/sbin'] });
}

/** How to get each tool, for the messages. */
const INSTALL: Record<string, string> = {
  'nats-server': 'install it (Debian/Ubuntu: apt-get install nats-server; elsewhere a release from github.com/nats-io/nats-server) or set NATS_SERVER_BIN',
  openssl: 'install openssl',
  kubectl: 'install kubectl (it bundles kustomize) or set KUBECTL',
};

export interface ToolGate {
  /** True only when a tool is missing and CI is not set (the skip was announced on stderr). */
  skip: boolean;
  /** The tools not found. */
  missing: string[];
  /** Throws, naming each missing tool and how to get it; call it in beforeAll (or a test) of the suite. */
  assertPresent(): void;
}

/** Whether `suite` can run with `tools` (name → path found, or undefined). */
export function toolGate(suite: string, tools: Record<string, string | undefined>): ToolGate {
  const missing = Object.entries(tools)
    .filter(([, path]) => path === undefined)
    .map(([name]) => name);
  const how = missing.map((m) => `${m}: ${INSTALL[m] ?? 'install it'}`).join('; ');
  const skip = missing.length > 0 && !isCI();
  if (skip) process.stderr.write(`\n[parley] !!! SKIPPING "${suite}": not found: ${how}. With CI set it fails instead.\n\n`);
  return {
    skip,
    missing,
    assertPresent() {
      if (missing.length > 0) throw new Error(`CI is set but "${suite}" cannot run: not found: ${how}`);
    },
  };
}
