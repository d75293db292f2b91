/**
 * The `strace -c -f` tracers behind execute-c1.ts's PROBE_STRACE: one per process, stopped with SIGINT so that strace
 * writes its summary. A tracer that cannot start (strace not installed) is a clear error; one that exits early (EPERM
 * under Yama ptrace_scope=1, no CAP_SYS_PTRACE) or ignores SIGINT does not hang the bench; a process with no summary
 * reads "not measured", never as zero calls.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Tracer {
  /** Stops the tracer (SIGINT, then SIGKILL after `graceMs`) and says whether it ran until then. */
  stop(graceMs?: number): Promise<{ early: boolean; code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `cmd` (default `strace -c -f -o out -p pid`); rejects with a clear error when it cannot be started. */
export async function startTracer(pid: number, out: string, cmd: readonly string[] = ['strace', '-c', '-f', '-o', out, '-p', String(pid)]): Promise<Tracer> {
  const t = spawn(cmd[0]!, cmd.slice(1), { stdio: 'ignore' });
  // Registered at once, so that an exit before stop() is not missed (a listener added later would wait forever).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => t.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    t.once('spawn', () => resolve());
    t.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'ENOENT' ? `PROBE_STRACE needs ${cmd[0]} on the PATH (not found); install strace or unset PROBE_STRACE` : `PROBE_STRACE: cannot start ${cmd[0]}: ${err.message}`)),
    );
  });
  return { stop: (graceMs = 5000) => stopTracer(t, exited, graceMs) };
}

async function stopTracer(t: ChildProcess, exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>, graceMs: number) {
  const early = t.exitCode !== null || t.signalCode !== null;
  if (!early) t.kill('SIGINT');
  const timeout = (ms: number) => new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());
  let done = await Promise.race([exited, timeout(graceMs)]);
  if (!done) {
    t.kill('SIGKILL');
    done = await Promise.race([exited, timeout(graceMs)]);
  }
  return { early, ...(done ?? { code: t.exitCode, signal: t.signalCode }) };
}

/** Calls by syscall and their `total` from a `strace -c` summary; undefined when there is no summary (no total line). */
export function parseStraceSummary(text: string): { total: number; calls(name: string): number } | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  const column = (l: string | undefined) => (l === undefined ? undefined : Number(l.split(/\s+/)[3]));
  const total = column(lines.find((l) => l.endsWith(' total')));
  if (total === undefined || !Number.isFinite(total)) return undefined;
  return { total, calls: (name) => column(lines.find((l) => l.endsWith(` ${name}`))) ?? 0 };
}
